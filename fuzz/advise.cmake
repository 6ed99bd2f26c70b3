iolens_fuzz_target(advise)
