#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every test, then
# build again with AddressSanitizer + UndefinedBehaviorSanitizer and run
# every test there too.
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
