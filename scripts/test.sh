#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every test, then
# build again with AddressSanitizer + UndefinedBehaviorSanitizer and run
# every test there too; Release builds with gcc and clang and a clang Debug build
# (gcc's RelWithDebInfo and Debug builds are the two above), warning-free; the
# Release build's Debian package installed and run outside the source tree; the
# fuzz targets on their corpora.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$root/scripts/install-deps.sh"

echo "== release build + tests"
"$root/scripts/build.sh" "$root/build"
ctest --test-dir "$root/build" -j "$jobs" --output-on-failure --timeout 900

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build + tests"
"$root/scripts/build.sh" "$root/build-asan" -DIOLENS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" -j "$jobs" --output-on-failure --timeout 1800

echo "== Release build (gcc -O3: warnings as errors, as in every build of the project's own)"
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF

echo "== clang Release and Debug builds (warnings as errors, as in every build of the project's own)"
"$root/scripts/build.sh" "$root/build-clang-release" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
"$root/scripts/build.sh" "$root/build-clang-debug" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=OFF

echo "== Debian package (cpack) of the Release build: installed, run with the source tree hidden, removed"
"$root/scripts/check-deb.sh" "$root/build-release"

echo "== libFuzzer build (clang) of every fuzz target; each replays its corpus once"
"$root/scripts/build.sh" "$root/build-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DIOLENS_FUZZ=ON -DIOLENS_SANITIZE=ON
for t in "$root"/build-fuzz/fuzz/fuzz_*; do
  name=${t##*/fuzz_}
  (cd "$root/build-fuzz" && ASAN_OPTIONS=detect_leaks=1 "$t" -runs=0 "$root/fuzz/corpus/$name" >/dev/null 2>&1) ||
    { echo "fuzz target $name fails on its own corpus"; exit 1; }
done
echo "fuzz targets: $(ls "$root"/build-fuzz/fuzz/fuzz_* | wc -l) built, each corpus replayed"
