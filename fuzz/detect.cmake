# detect: darshan-parser text reader, feature-table CSV reader, binary-or-text log reader.
iolens_fuzz_target(detect_text)
iolens_fuzz_target(detect_csv)
iolens_fuzz_target(detect_darshan)
