iolens_fuzz_target(batch)
