iolens_fuzz_target(place)
