#!/usr/bin/env bash
# Metadata replay fidelity: an mdtest-like C program (tests/replay/programs.c `meta`: create N empty
# files, stat them, unlink them, each phase timed by the program itself) is traced once; then every
# round runs the program twice (the second run over the first is the A/A control), the replay of
# `iolens replay --config-from` of its trace (one metadata step) and the on-the-fly replay of the
# trace, in an order shuffled anew every round (the A/A run has a place of its own). Per phase: config = the config replay's rate (its `phases`)
# over the program's own; on the fly = the on-the-fly replay's rate over the span of the phase's
# calls (creating opens, stats, unlinks: its `metadata` span_ops_per_s) over the program's own.
# Medians over the rounds. Every run, the program's as the replays', starts in a new directory: on
# ext4, unlinks in a directory that held the files of earlier runs ran 1.04-1.13x as fast as in a
# new one (median 1.07, 7 pairs of 10000 files), and the replays' roots are new every run.
#
#   bench/replay/md_fidelity.sh [--dir DIR]... [--files N] [--rounds R]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PROG=${PROG:-$src/build/tests/replay/replay_programs}
PY=/usr/bin/python3
dirs=() n=2000 rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dirs+=("$2"); shift 2 ;;
    --files) n=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "md_fidelity.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || dirs=(/tmp /dev/shm)
printf '%-10s %-7s %12s %8s %8s %10s\n' fs phase "orig op/s" "A/A" config "on the fly"
trap release_reporting EXIT
hold_reporting
for dir in "${dirs[@]}"; do
  w=$(mktemp -d "$dir/iolens-md.XXXXXX"); trap 'release_reporting; rm -rf "$w"' EXIT
  mkdir -p "$w/d"
  "$IOLENS" trace -o "$w/t" -- "$PROG" meta "$w/d" "$n" >/dev/null 2>&1
  rm -rf "$w/d"
  "$IOLENS" replay --config-from "$w/t" -o "$w/c.json" 2>/dev/null
  : >"$w/rows"
  for r in $(seq 1 "$rounds"); do
    for k in $(shuffle "$r" 0 1 2 3); do
      sync
      case $k in
        0) mkdir "$w/d"; "$PROG" meta "$w/d" "$n" >"$w/o1"; rm -rf "$w/d" ;;
        1) mkdir "$w/d"; "$PROG" meta "$w/d" "$n" >"$w/o2"; rm -rf "$w/d" ;;
        2) "$IOLENS" replay "$w/c.json" --root "$w/root" --json >"$w/rep.json" 2>/dev/null ;;
        3) "$IOLENS" replay "$w/t" --root "$w/rotf" --json >"$w/otf.json" 2>/dev/null; rm -rf "$w/rotf" ;;
      esac
    done
    "$PY" - "$w/o1" "$w/o2" "$w/rep.json" "$w/otf.json" >>"$w/rows" <<'PYEOF'
import json, sys
o1 = {l.split()[0]: float(l.split()[3]) for l in open(sys.argv[1])}
o2 = {l.split()[0]: float(l.split()[3]) for l in open(sys.argv[2])}
rp = {p["phase"]: p["ops_per_s"] for p in json.load(open(sys.argv[3]))["steps"][0]["phases"]}
otf = {m["call"]: m["span_ops_per_s"] for m in json.load(open(sys.argv[4]))["metadata"]}
for ph in ("create", "stat", "unlink"):
    print(ph, o1[ph], o2[ph] / o1[ph], rp.get(ph, 0) / o1[ph], otf.get(ph, 0) / o1[ph])
PYEOF
  done
  "$PY" - "$w/rows" "$(fstype "$w")" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for ph in ("create", "stat", "unlink"):
    r = [x for x in rows if x[0] == ph]
    print("%-10s %-7s %12.0f %8.3f %8.3f %10.3f" % (sys.argv[2], ph, statistics.median(float(x[1]) for x in r),
          statistics.median(float(x[2]) for x in r), statistics.median(float(x[3]) for x in r),
          statistics.median(float(x[4]) for x in r)))
PYEOF
  rm -rf "$w"; trap release_reporting EXIT
done
