iolens_fuzz_target(trace)
