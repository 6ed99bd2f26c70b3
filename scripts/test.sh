#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every test; then an AddressSanitizer +
# UndefinedBehaviorSanitizer build and its tests (all but those labelled release_only, whose
# code the others run: tests/CMakeLists.txt says which and why); a clang build, warning-free (the
# libFuzzer build: each fuzz target replays its corpus there); the tested build's Debian package
# installed and run outside the source tree.
#
# The builds run one after another: made at the lowest priority beside the tests of the stage
# before (on the cores the tests leave idle) they slowed those tests as much as they saved (947 s
# instead of 932 s for the whole).
#
# Builds: gcc at -O2 -g (the tested build, and the package: Debian builds its packages at -O2) and
# at -O0 (the sanitizer build), whose middle-end warnings differ by level; clang once, at -O0 with
# sanitizers and libFuzzer: its warnings come from its front end, the same at every level, and it
# builds in 53 s instead of 77 s at -O2 (the corpora replay in 6 s either way; a fuzzing run
# builds at -O2: the README). A
# second run in the same clone recompiles only what changed (ccache was measured and left out:
# +17% on a fresh clone, and no hits across build folders, whose paths are in every command line).
# ctest runs as many tests as there are cores (one more was measured: the release stage's tests
# took 320 s instead of 308 s, and each single test longer).
#
# The edit-compile-test loop needs none of this: `ctest --test-dir build -L quick` (two minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
start=$SECONDS
times=()
stage() { # stage NAME: the time of the stage before it, then NAME's heading
  [ -z "${cur:-}" ] || times+=("$(printf '%5d s  %s' $((SECONDS - cur_t)) "$cur")")
  cur=$1; cur_t=$SECONDS
  [ -z "$cur" ] || echo "== $cur ($((SECONDS - start)) s so far)"
}
"$root/scripts/install-deps.sh"

stage "release build (gcc -O2 -g) + every test"
"$root/scripts/build.sh" "$root/build"
ctest --test-dir "$root/build" -j "$jobs" --output-on-failure --timeout 900

stage "AddressSanitizer + UndefinedBehaviorSanitizer build (gcc -O0) + its tests"
"$root/scripts/build.sh" "$root/build-asan" -DIOLENS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" -j "$jobs" -LE release_only --output-on-failure --timeout 1800

stage "clang build with libFuzzer and sanitizers (warnings as errors); each fuzz target replays its corpus"
"$root/scripts/build.sh" "$root/build-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DIOLENS_FUZZ=ON -DIOLENS_SANITIZE=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Debug
n=0
for t in "$root"/build-fuzz/fuzz/fuzz_*; do
  name=${t##*/fuzz_}
  (cd "$root/build-fuzz" && ASAN_OPTIONS=detect_leaks=1 "$t" -runs=0 "$root/fuzz/corpus/$name" >/dev/null 2>&1) ||
    { echo "fuzz target $name fails on its own corpus"; exit 1; }
  n=$((n + 1))
done
echo "fuzz targets: $n built, each corpus replayed"

stage "Debian package (cpack) of the tested build: installed, run with the source tree hidden, removed"
"$root/scripts/check-deb.sh" "$root/build"

stage ""
echo "== every stage passed in $((SECONDS - start)) s:"
printf '%s\n' "${times[@]}"
