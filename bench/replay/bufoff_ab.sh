#!/usr/bin/env bash
# The replay's buffer_offset A/B: per round (order rotating), the original
# (bench_replay_ior_plain, malloc'd buffer), the replay of its --config-from config as
# generated (buffer_offset from the trace: 16 for a malloc'd 1 MiB buffer) and the same config
# with every buffer_offset set to 0 (a page start, what the replay used before); nothing else
# differs. Prints every round's bandwidths (MB/s) and the medians of the ratios to the original.
#   [BUILD=build] bench/replay/bufoff_ab.sh MODE SIZE COUNT NP ROUNDS
#   e.g. bench/replay/bufoff_ab.sh mpiio-coll 1048576 32 4 7
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
B=${BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}; mode=$1 size=$2 count=$3 np=$4 n=$5
S=$(mktemp -d /dev/shm/bufoff.XXXX); trap 'rm -rf "$S"' EXIT
M=(mpirun --oversubscribe --allow-run-as-root -np "$np")
mkdir -p "$S/orig"
"${M[@]}" "$B/iolens" trace -o "$S/T" -- "$B/bench/replay/bench_replay_ior_plain" "$mode" "$size" "$count" "$S/orig" >/dev/null 2>&1
rm -rf "$S/orig"
"$B/iolens" replay --config-from "$S/T" -o "$S/cfg.json" 2>/dev/null
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))
for s in c["file_configs"]: s["buffer_offset"] = 0
json.dump(c, open(sys.argv[2], "w"), indent=1)' "$S/cfg.json" "$S/cfg0.json"
echo "# buffer_offset of the generated config: $(grep -o '"buffer_offset": [0-9]*' "$S/cfg.json" | sort -u | tr '\n' ' ')"
cfg() {
  "${M[@]}" "$B/iolens" replay "$1" --root "$S/rc" --json > "$S/out.json"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; print(s[0]["bandwidth_bytes_per_s"], s[1]["bandwidth_bytes_per_s"])' "$S/out.json"
}
echo "# load: $(uptime)"
for i in $(seq "$n"); do
  progs=(plain trace zero); k=$(( i % 3 ))
  for who in "${progs[@]:k}" "${progs[@]:0:k}"; do
    case $who in
      plain) mkdir -p "$S/orig"; p=$("${M[@]}" "$B/bench/replay/bench_replay_ior_plain" "$mode" "$size" "$count" "$S/orig"); rm -rf "$S/orig" ;;
      trace) t=$(cfg "$S/cfg.json") ;;
      zero) z=$(cfg "$S/cfg0.json") ;;
    esac
  done
  echo "$p $t $z"
done > "$S/rows"
awk '{printf "orig w %6.0f r %6.0f | buffer_offset from trace w %6.0f r %6.0f | 0 w %6.0f r %6.0f\n", $1/1e6, $2/1e6, $3/1e6, $4/1e6, $5/1e6, $6/1e6}' "$S/rows"
awk '{print $3/$1, $5/$1, $4/$2, $6/$2}' "$S/rows" | python3 -c '
import sys, statistics as S
rows=[list(map(float,l.split())) for l in sys.stdin]
c=list(zip(*rows))
print("n=%d median ratio to the original: write trace %.3f zero %.3f | read trace %.3f zero %.3f" % (len(rows), *[S.median(x) for x in c]))'
echo "# load: $(uptime)"
