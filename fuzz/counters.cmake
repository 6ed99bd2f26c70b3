# Counters (src/counters): input = raw 64-byte events.
iolens_fuzz_target(counters_events)
