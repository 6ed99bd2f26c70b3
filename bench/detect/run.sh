#!/usr/bin/env bash
# Feature extraction + inference per log on the real darshan-parser dumps of ../shared/data/iosage.
# usage: bench/detect/run.sh [BUILD_DIR] [REPS]   (medians over REPS runs, milliseconds)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-51}
data=${IOLENS_SHARED_DATA:-$root/../shared/data}
"$build/bench/detect/bench_detect" "$root/models" "$reps" \
  "$data"/iosage/sample_darshan_parser_outputs/*/sample_*_base.txt
