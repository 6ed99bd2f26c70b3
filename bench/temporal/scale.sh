#!/usr/bin/env bash
# SAGE-2 quality as the number of series grows: 10^4, 10^5 and 10^6 synthetic series of 300
# points with 10 known classes (bench_cluster's generator); at each size SAGE-2, then k-means
# at SAGE-2's k; K-shape at SAGE-2's k on the 10^4 set only (it takes minutes there, hours
# beyond). Prints bench_cluster's table: k, time, ARI, purity against the classes and the
# paper's intra-cluster metrics (medians of DDTW, SBD and PLD over 5,000 evenly spaced series).
#
#   bench/temporal/scale.sh [BUILD_DIR] [SIZES]      (SIZES default "10000 100000 1000000")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
sizes=${2:-10000 100000 1000000}
bench=$build/bench/temporal/bench_cluster
for n in $sizes; do
  methods=sage2,kmeans@k
  [ "$n" -le 10000 ] && methods=sage2,kmeans@k,kshape@k
  "$bench" --n "$n" --repeat 1 --kshape-n "$n" --methods "$methods" --quality 1 2>/dev/null
done
