#!/usr/bin/env bash
# The main job on a real input: install dependencies, build, and analyse a
# real Darshan log shipped in ../shared/data (or the log given as $1):
# a human report of the job, then the bottleneck patterns the classifier detects.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
log=${1:-$root/../shared/data/darshan/generated/small_writes_4proc_dxt_heatmap.darshan}
"$root/build/iolens" darshan --report "$log"
echo
echo "== Diagnosis (trained classifier, models/)"
"$root/build/iolens" detect "$log"
