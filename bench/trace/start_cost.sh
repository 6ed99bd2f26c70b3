#!/usr/bin/env bash
# What the shim adds to the start and end of a process that makes no I/O call: N runs of
# /bin/true with the shim preloaded and a spill folder, less the same runs untraced, in
# microseconds per process (median of ROUNDS alternating rounds). Twice: with standard output
# and error on /dev/null, and on regular files (each then noted by the name it was opened
# under: iolens_fd_at_start, docs/TRACE-FORMAT.md). A second shim (another build) is measured
# in the same rounds.
# usage: bench/trace/start_cost.sh [SHIM [OTHER_SHIM]]   (env: N=400 ROUNDS=7)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shims=("${1:-$root/build/src/shim/libiolens_shim.so}")
[ $# -ge 2 ] && shims+=("$2")
N=${N:-400} ROUNDS=${ROUNDS:-7}
d=$(mktemp -d /dev/shm/iolens-start-XXXXXX); trap 'rm -rf "$d"' EXIT
us() { echo $((($(date +%s%N) - $1) / N / 1000)); }
one() { # one OUT [SHIM]: microseconds per run
  local out=$1 shim=${2:-} t0
  rm -rf "$d/s"; mkdir "$d/s"
  t0=$(date +%s%N)
  if [ -n "$shim" ]; then
    for ((i = 0; i < N; i++)); do IOLENS_TRACE_DIR=$d/s LD_PRELOAD=$shim /bin/true >"$out" 2>&1; done
  else
    for ((i = 0; i < N; i++)); do /bin/true >"$out" 2>&1; done
  fi
  us "$t0"
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
for out in /dev/null "$d/out"; do
  : >"$d/rows"
  for ((r = 0; r < ROUNDS; r++)); do
    row=$(one "$out")
    for s in "${shims[@]}"; do row="$row $(one "$out" "$s")"; done
    echo "$row" >>"$d/rows"
  done
  base=$(cut -d' ' -f1 "$d/rows" | median)
  line="untraced $base us"
  for k in "${!shims[@]}"; do
    m=$(cut -d' ' -f$((k + 2)) "$d/rows" | median)
    line="$line; shim $((k + 1)): +$((m - base)) us"
  done
  echo "stdout, stderr on $([ "$out" = /dev/null ] && echo /dev/null || echo a file): $line (per process, median of $ROUNDS x $N)"
done
