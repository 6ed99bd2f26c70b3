#!/usr/bin/env bash
# Configures and builds iolens into build/ (or $1). Extra args go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}; shift || true
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIOLENS_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
