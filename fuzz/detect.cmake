# detect: darshan-parser text reader and feature-table CSV reader.
iolens_fuzz_target(detect_text)
iolens_fuzz_target(detect_csv)
