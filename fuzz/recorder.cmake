# Recorder trace reader (src/recorder): input = container of trace files.
iolens_fuzz_target(recorder_trace)
