#!/usr/bin/env bash
# The effect of iolens-replay on fidelity: per round (order rotating), the original
# (bench_replay_ior_plain), the replay of its --config-from config in iolens-replay (default) and
# in iolens itself (IOLENS_REPLAY_LEAN=0); prints the medians of the ratios to the original
# (lean_w, full_w, lean_r, full_r) and every round's bandwidths (MB/s: original lean full | ...).
#   [BUILD=build] bench/replay/lean_ab.sh MODE SIZE COUNT NP ROUNDS
#   e.g. bench/replay/lean_ab.sh mpiio-indep 4096 2048 2 7
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
B=${BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}; mode=$1 size=$2 count=$3 np=$4 n=$5
S=$(mktemp -d /dev/shm/ab.XXXX); trap 'rm -rf $S' EXIT
M="mpirun --oversubscribe --allow-run-as-root -np $np"
mkdir -p $S/orig; $M $B/iolens trace -o $S/T -- $B/bench/replay/bench_replay_ior_plain $mode $size $count $S/orig >/dev/null 2>&1; rm -rf $S/orig
$B/iolens replay --config-from $S/T -o $S/cfg.json 2>/dev/null
cfg() { $M "$@" $B/iolens replay $S/cfg.json --root $S/rc --json > $S/out.json; python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; print(s[0]["bandwidth_bytes_per_s"], s[1]["bandwidth_bytes_per_s"])' $S/out.json; }
for i in $(seq $n); do
  progs=(plain lean full); k=$(( i % 3 ))
  for who in ${progs[@]:k} ${progs[@]:0:k}; do
    case $who in
      plain) mkdir -p $S/orig; p=$($M $B/bench/replay/bench_replay_ior_plain $mode $size $count $S/orig); rm -rf $S/orig ;;
      lean) l=$(cfg) ;;
      full) f=$(cfg -x IOLENS_REPLAY_LEAN=0) ;;
    esac
  done
  echo $p $l $f
done > $S/rows
awk '{print $3/$1, $5/$1, $4/$2, $6/$2}' $S/rows | python3 -c '
import sys, statistics as S
rows=[list(map(float,l.split())) for l in sys.stdin]
cols=list(zip(*rows))
print("n=%d median lean_w %.3f full_w %.3f lean_r %.3f full_r %.3f" % (len(rows), *[S.median(c) for c in cols]))'
awk '{printf "%.0f %.0f %.0f | %.0f %.0f %.0f\n", $1/1e6, $3/1e6, $5/1e6, $2/1e6, $4/1e6, $6/1e6}' $S/rows
