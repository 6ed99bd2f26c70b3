#!/usr/bin/env bash
# Replay fidelity on tar -x: a tree of small files (FILES files of SIZE bytes in 20 folders) is
# archived once; every round traces one extraction with iolens, then runs, in an order shuffled
# anew every round, tar -x twice (the second run over the first is the A/A control), the replay on
# the fly of the round's trace and the same with --delays (the recorded time between calls
# reproduced). Every run extracts into a new folder, after the previous run's writeback (sync).
# tar reports no figure of its own: its runs are timed from outside (wall time, exec included),
# and the replays, whose runs also decode the trace and remove their files, are measured by their
# own span of calls (`calls_seconds`: set-up and decoding left out) against the traced run's span
# of calls (first call's start to last call's end, from the trace). Columns, medians over the rounds:
#   A/A      wall time of tar run 1 / tar run 2
#   traced   wall time of tar run 1 / the traced run's (iolens trace as a whole: the tracer's cost
#            on tar, and writing the trace)
#   on-fly, delays   the traced run's span / the replay's span (> 1: the replay is faster)
#   tar/otf, tar/dly tar's own time / the replay's span, tar's own time being the wall time of
#            tar run 1 less that of a tar -x of an archive of one empty file (exec, start-up
#            and exit): the traced run's span holds the tracer's time, which the replays
#            reproduce only in part, so these columns are the replays against the program
#   attrs    calls re-issued as "other" (chmod, chown, utime, ...) per file extracted, on the fly
#
#   bench/replay/tar_fidelity.sh [--dir DIR] [--files N] [--size BYTES] [--rounds R]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
dir=/dev/shm files=2000 size=4096 rounds=7
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tar_fidelity.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$rounds" -ge 5 ] || { echo "tar_fidelity.sh: need at least 5 rounds" >&2; exit 2; }
command -v tar >/dev/null || { echo "tar_fidelity.sh: no tar" >&2; exit 2; }
w=$(mktemp -d "$dir/iolens-tar-fidelity.XXXXXX")
trap 'release_reporting; rm -rf "$w"' EXIT
hold_reporting
$PY - "$w/tree" "$files" "$size" <<'EOF'
import os, sys
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = os.urandom(size)
for i in range(n):
    d = os.path.join(root, "src", "d%02d" % (i % 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d" % i), "wb") as f:
        f.write(data)
EOF
tar -cf "$w/tree.tar" -C "$w/tree" src
rm -rf "$w/tree"
mkdir -p "$w/empty" && : >"$w/empty/e" && tar -cf "$w/empty.tar" -C "$w/empty" e && rm -rf "$w/empty"
wall() { # wall DIR [ARCHIVE]: seconds of one tar -x into the new folder DIR
  mkdir -p "$1"
  local t0 t1
  t0=$(date +%s.%N)
  tar -xf "${2:-$w/tree.tar}" -C "$1"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
: >"$w/rows"
for r in $(seq 1 "$rounds"); do
  sync
  mkdir -p "$w/x"
  t0=$(date +%s.%N)
  "$IOLENS" trace -q -o "$w/t$r" -- tar -xf "$w/tree.tar" -C "$w/x" 2>/dev/null
  t1=$(date +%s.%N)
  traced=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
  span=$("$IOLENS" view --json "$w/t$r" | $PY -c '
import json, sys
s = e = None
for line in sys.stdin:
    if not line.startswith("{\"rank\""):
        continue
    v = json.loads(line)
    s = v["tstart"] if s is None else min(s, v["tstart"])
    e = v["tend"] if e is None else max(e, v["tend"])
print(e - s)')
  rm -rf "$w/x"
  declare -A got=()
  for k in $(shuffle "$r" tar1 tar2 otf dly); do
    sync
    case $k in
      tar1) got[tar0]=$(wall "$w/tar0" "$w/empty.tar"); rm -rf "${w:?}/tar0"
            got[$k]=$(wall "$w/$k"); rm -rf "${w:?}/$k" ;;
      tar2) got[$k]=$(wall "$w/$k"); rm -rf "${w:?}/$k" ;;
      otf|dly)
        "$IOLENS" replay "$w/t$r" --root "$w/$k" --json $([ $k = dly ] && echo --delays) >"$w/$k.json" 2>/dev/null
        got[$k]=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["calls_seconds"])' "$w/$k.json")
        [ $k = otf ] && got[attrs]=$($PY -c '
import json, sys
m = {x["call"]: x["calls"] for x in json.load(open(sys.argv[1]))["metadata"]}
print(m.get("other", 0) / int(sys.argv[2]))' "$w/$k.json" "$files")
        rm -rf "${w:?}/$k" ;;
    esac
  done
  echo "${got[tar1]} ${got[tar2]} $traced $span ${got[otf]} ${got[dly]} ${got[attrs]} ${got[tar0]}" >>"$w/rows"
  unset got
done
$PY - "$w/rows" "$dir" "$files" "$size" "$rounds" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = lambda xs: statistics.median(xs)
aa = med([r[0] / r[1] for r in rows])
tr = med([r[0] / r[2] for r in rows])
otf = med([r[3] / r[4] for r in rows])
dly = med([r[3] / r[5] for r in rows])
attrs = med([r[6] for r in rows])
own = [r[0] - r[7] for r in rows]
totf = med([o / r[4] for o, r in zip(own, rows)])
tdly = med([o / r[5] for o, r in zip(own, rows)])
print("# bench/replay/tar_fidelity.sh --dir %s --files %s --size %s --rounds %s" % tuple(sys.argv[2:6]))
print("%-8s %10s %8s %8s %8s %8s %8s %8s %8s" % ("files", "tar ms", "A/A", "traced", "on-fly", "delays", "tar/otf",
                                               "tar/dly", "attrs"))
print("%-8s %10.1f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.2f" % (sys.argv[3], med([r[0] for r in rows]) * 1e3, aa, tr,
                                                             otf, dly, totf, tdly, attrs))
print("(medians of %d rounds; tar ms: wall time of tar run 1; on-fly, delays: the traced run's span of calls over the "
      "replay's; tar/otf, tar/dly: tar's own time (less its start-up, %.1f ms) over the replay's span)"
      % (len(rows), med([r[7] for r in rows]) * 1e3))
EOF
