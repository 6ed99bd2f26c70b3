#!/usr/bin/env bash
# Verdict stability: two `iolens whatif` runs of the same trace, one right after the other, with the
# default (adaptive) rounds, for the changes of validate.sh on each file system. A pair "conflicts"
# when one run says faster and the other slower; "within noise" beside either is not a conflict.
# "control" is the no-effect change (whatif --control: the base config run again as a variant,
# the A/A of 4 KiB writes): it should come out within noise.
#
#   bench/whatif/backtoback.sh [--fs DIR]... [--pairs N] [--only REGEX]
#
# N pairs per change and file system (default 2). Prints per pair the two medians with their
# intervals and verdicts, the rounds each used, and at the end the count of conflicting pairs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
fss=() pairs=2 only=.
while [ $# -gt 0 ]; do
  case $1 in
    --fs) fss+=("$2"); shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "backtoback.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ ${#fss[@]} -gt 0 ] || fss=(/tmp /dev/shm)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
changes=(
  "size|access_granularity|--rw=write --bs=4k --size=32m"
  "fsync|throughput_utilization|--rw=write --bs=64k --size=16m --fsync=1"
  "random|access_pattern|--rw=randwrite --bs=64k --size=64m --end_fsync=1"
  "collective|interface_choice|--size 4096 --count 512"
  "control|control|--rw=write --bs=4k --size=32m"
)
conflicts=0 total=0
printf '%-11s %-8s %-4s %-40s %-40s %s\n' change fs pair "run 1: median [interval] verdict (rounds)" "run 2" conflict
for fs in "${fss[@]}"; do
  w=$(mktemp -d "$fs/iolens-b2b.XXXXXX"); trap 'rm -rf "$w"' EXIT
  fstype=$(stat -f -c %T "$w")
  allp=(); case $w in /dev/*) allp=(--all-paths) ;; esac
  for c in "${changes[@]}"; do
    IFS='|' read -r name pattern a <<<"$c"
    [[ $name =~ $only ]] || continue
    d=$w/$name; mkdir -p "$d/data"
    if [ "$name" = collective ]; then
      mpirun --oversubscribe -np 4 "$IOLENS" trace -o "$d/t" -- $PY "$src/bench/detect/suite/mpiio.py" "$d/data" $a \
        >/dev/null 2>"$d/trace.err"
    else
      # shellcheck disable=SC2086
      "$IOLENS" trace -o "$d/t" -- fio --name=j --directory="$d/data" --ioengine=psync --unlink=1 $a >/dev/null 2>"$d/trace.err"
    fi
    rm -f "$d/data"/*
    for p in $(seq 1 "$pairs"); do
      for k in 1 2; do
        if [ "$pattern" = control ]; then sel=(--pattern access_granularity --control); else sel=(--pattern "$pattern"); fi
        "$IOLENS" whatif "$d/t" "${sel[@]}" "${allp[@]}" --json >"$d/w$k.json" 2>"$d/w$k.err" ||
          { echo "$name $fstype: whatif failed: $(tail -2 "$d/w$k.err")"; continue 2; }
      done
      total=$((total + 1))
      if "$PY" - "$d/w1.json" "$d/w2.json" "$name" "$fstype" "$p" <<'PYEOF'; then :; else conflicts=$((conflicts + 1)); fi
import json, sys
def one(path):
    w = json.load(open(path))
    v = [c for c in w["configs"] if c["name"] != "base"]
    v = ([c for c in v if c["name"] == "control"] if sys.argv[3] == "control" else v)[0]
    q = v["paired"]
    lo, hi = q["interval"] if q.get("interval") else (float("nan"), float("nan"))
    return q["verdict"], "%6.3fx [%5.3f, %5.3f] %-12s (%d)" % (q["median"], lo, hi, q["verdict"], w["rounds"])
(v1, s1), (v2, s2) = one(sys.argv[1]), one(sys.argv[2])
bad = {v1, v2} == {"faster", "slower"}
print("%-11s %-8s %-4s %-40s %-40s %s" % (sys.argv[3], sys.argv[4], sys.argv[5], s1, s2, "CONFLICT" if bad else "no"))
sys.exit(1 if bad else 0)
PYEOF
    done
  done
  rm -rf "$w"; trap - EXIT
done
echo "conflicting pairs: $conflicts of $total"
