#!/usr/bin/env bash
# `iolens cluster` on N synthetic series (300 points, `iolens cluster --synth`), as one process
# and on the ranks of an MPI job: wall time and peak RSS of each process, and whether the
# results are the same (every output but the timings). The ranks share the genomes and the
# assignment of every series; each reads the whole input (the per-rank memory is one process's).
#
#   bench/temporal/mpi_scale.sh [BUILD_DIR] [N] [METHOD] [RANKS...]   (default 1000000 sage2 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; n=${2:-1000000}; method=${3:-sage2}; shift $(( $# > 3 ? 3 : $# )) || true
ranks=${*:-2}
iolens=$build/iolens
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
scratch=$(mktemp -d /dev/shm/iolens-mpiscale-XXXXXX); trap 'rm -rf "$scratch"' EXIT
"$iolens" cluster --synth "$n" --seed 7 -o "$scratch/syn.csv" 2>/dev/null
echo "$n series of 300 points, method $method ($(du -h "$scratch/syn.csv" | cut -f1) of CSV on /dev/shm)"
strip() { for f in "$1"/*; do echo "== $(basename "$f")"; grep -v 'time_s' "$f"; done; }
for th in 1 2; do
  /usr/bin/time -f "%e %M" -o "$scratch/t1" "$iolens" cluster --method "$method" --no-metrics --threads $th \
    -o "$scratch/one$th" "$scratch/syn.csv" >/dev/null 2>&1
  read -r s1 m1 <"$scratch/t1"
  echo "  1 process, $th thread(s): ${s1} s, peak RSS $((m1 / 1024)) MiB"
done
strip "$scratch/one1" >"$scratch/one.txt"
strip "$scratch/one2" | cmp -s - "$scratch/one.txt" || echo "  (1 and 2 threads gave different results)"
for np in $ranks; do
  rm -f "$scratch"/t.*
  start=$(date +%s.%N)
  mpirun -np "$np" sh -c '/usr/bin/time -f "%e %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$scratch/t" \
    "$iolens" cluster --method "$method" --no-metrics --threads 1 -o "$scratch/mpi$np" "$scratch/syn.csv" >/dev/null 2>&1
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  peak=$(cat "$scratch"/t.* | awk '$2 > m { m = $2 } END { print int(m / 1024) }')
  strip "$scratch/mpi$np" >"$scratch/mpi.txt"
  same=$(cmp -s "$scratch/one.txt" "$scratch/mpi.txt" && echo "the same result" || echo "A DIFFERENT RESULT")
  printf '  %d ranks, 1 thread each: %.1f s (mpirun to exit), peak RSS per rank %d MiB; %s\n' "$np" "$wall" "$peak" "$same"
done
