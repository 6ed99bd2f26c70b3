#!/usr/bin/env bash
# Buffer alignment A/B (docs/REPLAY-CONFIG.md, fidelity): the original program
# (bench_replay_ior_plain) with its buffer malloc'd (glibc: page start + 16 for a large
# block), at a page start (IOR_PLAIN_BUF_OFFSET=0) and 16 bytes after one
# (IOR_PLAIN_BUF_OFFSET=16); nothing else changes. Rounds interleave the three, the order
# rotating; prints every round's bandwidths (MB/s) and the medians of the ratios to malloc.
#   [BUILD=build] [OFFSETS="0 16"] bench/replay/bufalign_ab.sh MODE SIZE COUNT NP ROUNDS
#   e.g. bench/replay/bufalign_ab.sh posix-shared 1048576 32 1 9
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
B=${BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}; mode=$1 size=$2 count=$3 np=$4 n=$5
offs=(malloc ${OFFSETS:-0 16})
S=$(mktemp -d /dev/shm/bufab.XXXX); trap 'rm -rf "$S"' EXIT
M=(mpirun --oversubscribe --allow-run-as-root -np "$np")
run() {
  mkdir -p "$S/d"
  if [ "$1" = malloc ]; then "${M[@]}" "$B/bench/replay/bench_replay_ior_plain" "$mode" "$size" "$count" "$S/d"
  else "${M[@]}" -x IOR_PLAIN_BUF_OFFSET="$1" "$B/bench/replay/bench_replay_ior_plain" "$mode" "$size" "$count" "$S/d"; fi
  rm -rf "$S/d"
}
echo "# load: $(uptime)"
for i in $(seq "$n"); do
  k=$(( i % ${#offs[@]} )); declare -A bw=()
  for o in "${offs[@]:k}" "${offs[@]:0:k}"; do bw[$o]=$(run "$o"); done
  line=""; for o in "${offs[@]}"; do line+="${bw[$o]} "; done
  echo "$line"; unset bw
done > "$S/rows"
python3 - "$S/rows" "${offs[@]}" <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
names = sys.argv[2:]
for r in rows:
    print("  ".join("%s w %6.0f r %6.0f" % (n, r[2*j]/1e6, r[2*j+1]/1e6) for j, n in enumerate(names)))
for j, n in enumerate(names[1:], 1):
    w = st.median(r[2*j]/r[0] for r in rows); rr = st.median(r[2*j+1]/r[1] for r in rows)
    print("median ratio %s/malloc over %d rounds: write %.3f read %.3f" % (n, len(rows), w, rr))
PY
echo "# load: $(uptime)"
