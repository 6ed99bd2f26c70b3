#!/usr/bin/env bash
# What a config's gap_seconds does to a config replay of a program with no time of its own between
# its transfers: bench_replay_ior_plain (MODE, 4 KiB by default, one rank) is traced once and a
# config built from the trace (`iolens replay --config-from`); every round then runs, in an order
# shuffled anew every round, the program, the config, and the same config with every chunk's
# gap_seconds removed. Prints the config's gap_seconds of the write step, and the medians over the
# rounds of each replay's write and read MiB/s over the program's own.
#
#   bench/replay/cfg_gap_ab.sh [--mode MODE] [--size BYTES] [--count N] [--rounds R] [--dir DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PLAIN=${PLAIN:-$src/build/bench/replay/bench_replay_ior_plain}
PY=/usr/bin/python3
mode=mpiio-coll size=4096 count=4096 rounds=11 dir=/dev/shm
while [ $# -gt 0 ]; do
  case $1 in
    --mode) mode=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cfg_gap_ab.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$rounds" -ge 5 ] || { echo "cfg_gap_ab.sh: need at least 5 rounds" >&2; exit 2; }
[ -x "$PLAIN" ] || { echo "cfg_gap_ab.sh: bench_replay_ior_plain not built (needs MPI)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --allow-run-as-root -np 1)
w=$(mktemp -d "$dir/iolens-cfg-gap.XXXXXX")
trap 'release_reporting; rm -rf "$w"' EXIT
hold_reporting
mkdir -p "$w/o"
"$IOLENS" trace -q -o "$w/T" -- "${mpirun[@]}" "$PLAIN" "$mode" "$size" "$count" "$w/o" >/dev/null 2>&1
rm -rf "$w/o"
"$IOLENS" replay --config-from "$w/T" -o "$w/cfg.json" 2>/dev/null
$PY - "$w/cfg.json" "$w/cfg0.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
gaps = [ch.get("gap_seconds", 0) for f in c["file_configs"] if f["method"] == "write" for ch in f.get("chunks", [])]
print("# the config's write gap_seconds: %s" % ", ".join("%.3g" % g for g in gaps))
for f in c["file_configs"]:
    for ch in f.get("chunks", []):
        ch.pop("gap_seconds", None)
json.dump(c, open(sys.argv[2], "w"))
EOF
bw() { $PY -c 'import json, sys; s = json.load(open(sys.argv[1]))["steps"]; print(s[0]["bandwidth_bytes_per_s"], s[1]["bandwidth_bytes_per_s"])' "$1"; }
: >"$w/rows"
for r in $(seq 1 "$rounds"); do
  declare -A got=()
  for k in $(shuffle "$r" prog cfg cfg0); do
    case $k in
      prog) mkdir -p "$w/o"; got[$k]=$("${mpirun[@]}" "$PLAIN" "$mode" "$size" "$count" "$w/o"); rm -rf "$w/o" ;;
      cfg|cfg0) "${mpirun[@]}" "$IOLENS" replay "$w/$k.json" --root "$w/r" --json >"$w/$k.out" 2>/dev/null
                got[$k]=$(bw "$w/$k.out"); rm -rf "$w/r" ;;
    esac
  done
  echo "${got[prog]} ${got[cfg]} ${got[cfg0]}" >>"$w/rows"
  unset got
done
$PY - "$w/rows" "$mode" "$size" "$count" "$rounds" "$(fstype "$dir")" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = statistics.median
print("# bench/replay/cfg_gap_ab.sh --mode %s --size %s --count %s --rounds %s (%s)" % tuple(sys.argv[2:7]))
print("%-8s %12s %10s %14s" % ("phase", "program MiB/s", "config", "config, gap 0"))
for i, ph in enumerate(("write", "read")):
    print("%-8s %12.0f %10.3f %14.3f" % (ph, med([r[i] for r in rows]) / 2**20, med([r[2 + i] / r[i] for r in rows]),
                                         med([r[4 + i] / r[i] for r in rows])))
print("(medians of %d rounds of the replay's MiB/s over the program's own)" % len(rows))
EOF
