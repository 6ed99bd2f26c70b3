# Darshan log reader (src/darshan): input = one Darshan log, read from memory.
iolens_fuzz_target(darshan_log)
