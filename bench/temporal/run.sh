#!/usr/bin/env bash
# Clustering benchmark of iolens cluster (seed 001 Table I analogue):
# 100,000 synthetic traces of 300 points, SAGE, SAGE-2, k-means and random
# on all of them, K-shape and k-means(DTW) on subsets; median of 3 runs.
# Usage: bench/temporal/run.sh [build-dir] [extra bench_cluster args]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; shift || true
exec "$build/bench/temporal/bench_cluster" "$@"
