#!/usr/bin/env bash
# Binary Darshan log -> 157 features -> 8 model predictions, per log, over every binary log of
# ../shared/data (darshan/ and aiio/).
# usage: bench/detect/run_darshan.sh [BUILD_DIR] [REPS]   (medians over REPS runs, milliseconds)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-21}
data=${IOLENS_SHARED_DATA:-$root/../shared/data}
mapfile -t logs < <(find "$data/darshan" "$data/aiio" -name '*.darshan' | sort)
"$build/bench/detect/bench_detect_darshan" "$root/models" "$reps" "${logs[@]}"
