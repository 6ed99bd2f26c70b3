#!/usr/bin/env bash
# On-the-fly replay A/B (fidelity): several builds' `iolens replay TRACE` against the
# original. The original (bench_replay_ior_plain of the first build) is traced once with the
# first build; per round, in an order that rotates, the original, the on-the-fly replay of each
# build, and the original again (the A/A control). Prints the medians over the rounds of the
# ratios to the original, write then read (one column per build, then aa), and keeps every
# round's bandwidths (bytes/s: original, each build, original again; write read pairs) in RAW.
#   BUILDS="build /dev/shm/old/build" bench/replay/otf_ab.sh MODE SIZE COUNT NP ROUNDS [RAW]
#   e.g. BUILDS="build /dev/shm/old/build" bench/replay/otf_ab.sh posix-fpp 1048576 32 1 15
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
root=$(cd "$(dirname "$0")/../.." && pwd)
read -r -a builds <<< "${BUILDS:-$root/build}"
mode=$1 size=$2 count=$3 np=$4 n=$5 raw=${6:-}
[ "$n" -ge 5 ] || { echo "need >= 5 rounds" >&2; exit 2; }
S=$(mktemp -d "${DIR:-/dev/shm}/otfab.XXXXXX"); trap 'rm -rf "$S"' EXIT
M=(mpirun --oversubscribe --allow-run-as-root -np "$np")
plain=${builds[0]}/bench/replay/bench_replay_ior_plain
mkdir -p "$S/orig"
"${M[@]}" "${builds[0]}/iolens" trace -o "$S/T" -- "$plain" "$mode" "$size" "$count" "$S/orig" >/dev/null 2>&1
rm -rf "$S/orig"
run_plain() { mkdir -p "$S/orig"; "${M[@]}" "$plain" "$mode" "$size" "$count" "$S/orig"; rm -rf "$S/orig"; }
run_otf() { # BUILD_DIR: the JSON goes to a file, parsed after the run
  "${M[@]}" "$1/iolens" replay "$S/T" --root "$S/ro" --json > "$S/out.json" 2>/dev/null
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["write_bandwidth_bytes_per_s"], j["read_bandwidth_bytes_per_s"])' "$S/out.json"
}
nb=${#builds[@]}
progs=(plain); for k in $(seq 0 $((nb - 1))); do progs+=("b$k"); done; progs+=(again)
np_=${#progs[@]}
: > "$S/rows"
for i in $(seq "$n"); do
  k=$(( (i - 1) % np_ )); declare -A res=()
  for who in "${progs[@]:k}" "${progs[@]:0:k}"; do
    case $who in
      plain|again) res[$who]=$(run_plain) ;;
      b*) res[$who]=$(run_otf "${builds[${who#b}]}") ;;
    esac
  done
  line=${res[plain]}; for k2 in $(seq 0 $((nb - 1))); do line+=" ${res[b$k2]}"; done; line+=" ${res[again]}"
  echo "$line" >> "$S/rows"
done
[ -z "$raw" ] || sed "s/^/$mode $size $np /" "$S/rows" >> "$raw"
python3 - "$S/rows" "$mode" "$size" "$np" "${builds[@]}" <<'PY'
import sys, statistics as S
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def name(b):
    p = b.rstrip('/').split('/')
    return p[-2] if len(p) >= 2 and p[-1] == 'build' else p[-1]
names = [name(b) for b in sys.argv[5:]] + ['aa']
m = len(names)
out = []
for d, name in ((0, 'w'), (1, 'r')):
    for k in range(m):
        out.append("%s_%s %.3f" % (names[k], name, S.median(r[2 + 2 * k + d] / r[d] for r in rows)))
print("%s %s %s n=%d  %s" % (sys.argv[2], sys.argv[3], sys.argv[4], len(rows), "  ".join(out)))
PY
