# Time-series readers (src/temporal): corpus fuzz/corpus/temporal/.
iolens_fuzz_target(temporal)
