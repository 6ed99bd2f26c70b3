# Replay config parser (src/replay/config.c, options.c); corpus in fuzz/corpus/replay/.
iolens_fuzz_target(replay)
target_compile_definitions(fuzz_replay PRIVATE _GNU_SOURCE) # open_memstream
