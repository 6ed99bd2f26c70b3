iolens_fuzz_target(trace)
iolens_fuzz_target(trace_spill)
