#!/usr/bin/env bash
# Replay fidelity on a program that does work of its own between its calls: tests/replay/programs.c
# `paced` writes N x 64 KiB to a file, then reads them, spinning US microseconds before each call,
# and reports each phase's MiB/s (open to close). It is traced once per pace; then every round
# runs it twice (the second run over the first is the A/A control), the on-the-fly replay with
# --delays and the replay of `iolens replay --config-from` of its trace, in an order shuffled
# anew every round. Per phase and pace, replay MiB/s over the program's own; medians over the
# rounds. "traced" is the traced run's own figure over the program's run 1: the replays reproduce
# that run. A config that left out the program's time per call (its gap_seconds) would replay at
# the file system's speed.
#
#   bench/replay/paced_fidelity.sh [--dir DIR] [--rounds R] [--paces "US ..."]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PROG=${PROG:-$src/build/tests/replay/replay_programs}
PY=/usr/bin/python3
dir=/dev/shm rounds=5 paces="0 200 1500 4000"
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --paces) paces=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "paced_fidelity.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$rounds" -ge 5 ] || { echo "paced_fidelity.sh: need at least 5 rounds" >&2; exit 2; }
w=$(mktemp -d "$dir/iolens-paced.XXXXXX"); trap 'release_reporting; rm -rf "$w"' EXIT
hold_reporting
printf '%-8s %8s %-6s %10s %8s %8s %8s %8s   (%s, %d rounds; medians of ratios to the program run 1)\n' \
  pace_us calls phase "MiB/s" "A/A" traced delays config "$(fstype "$w")" "$rounds"
for us in $paces; do
  n=4000
  [ "$us" = 0 ] || n=$(awk -v u="$us" 'BEGIN {n = int(450000 / u); print n < 100 ? 100 : n}')
  d=$w/p$us; mkdir -p "$d"
  "$IOLENS" trace -o "$d/t" -- "$PROG" paced "$d/f" "$n" "$us" >"$d/traced" 2>/dev/null
  rm -f "$d/f"
  "$IOLENS" replay --config-from "$d/t" -o "$d/c.json" 2>/dev/null
  : >"$d/rows"
  for r in $(seq 1 "$rounds"); do
    for k in $(shuffle "$r$us" 0 1 2 3); do
      sync
      case $k in
        0) "$PROG" paced "$d/f" "$n" "$us" >"$d/o1"; rm -f "$d/f" ;;
        1) "$PROG" paced "$d/f" "$n" "$us" >"$d/o2"; rm -f "$d/f" ;;
        2) "$IOLENS" replay "$d/c.json" --root "$d/root" --json >"$d/c.out" 2>/dev/null ;;
        3) "$IOLENS" replay "$d/t" --delays --root "$d/rotf" --json >"$d/y.json" 2>/dev/null; rm -rf "$d/rotf" ;;
      esac
    done
    "$PY" - "$d/o1" "$d/o2" "$d/traced" "$d/c.out" "$d/y.json" >>"$d/rows" <<'PYEOF'
import json, sys
prog = [{l.split()[0]: float(l.split()[1]) / float(l.split()[2]) for l in open(f)} for f in sys.argv[1:4]]
st = json.load(open(sys.argv[4]))["steps"]
y = json.load(open(sys.argv[5]))
for ph in ("write", "read"):
    s = [x for x in st if x["method"] == ph and x["bytes"] >= 65536]
    cfg = sum(x["bytes"] for x in s) / sum(x["seconds"] for x in s)
    o1 = prog[0][ph]
    print(ph, o1, prog[1][ph] / o1, prog[2][ph] / o1, y[ph + "_bandwidth_bytes_per_s"] / o1, cfg / o1)
PYEOF
  done
  "$PY" - "$d/rows" "$us" "$n" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for ph in ("write", "read"):
    r = [x for x in rows if x[0] == ph]
    m = [statistics.median(float(x[i]) for x in r) for i in range(1, 6)]
    print("%-8s %8s %-6s %10.1f %8.3f %8.3f %8.3f %8.3f" % (sys.argv[2], sys.argv[3], ph, m[0] / 1048576, *m[1:]))
PYEOF
  rm -rf "$d"
done
