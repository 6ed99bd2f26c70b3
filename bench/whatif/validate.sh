#!/usr/bin/env bash
# Predicted against real: for four changes of a real program, whatif's predicted speed-up (from the
# trace of the unchanged run) beside the speed-up `iolens paired` measures when the program itself
# is changed, on the same file system.
#
#   bench/whatif/validate.sh [--fs DIR]... [--rounds N] [--only REGEX]
#
# Changes (base -> changed; the pattern whatif is asked to change):
#   size     fio, 4 KiB -> 1 MiB sequential writes of 32 MiB           access_granularity
#   fsync    fio, 64 KiB writes of 16 MiB, fsync after each -> at end  throughput_utilization
#   random   fio, 64 KiB writes of 64 MiB at random -> sequential offsets (fsync at end)  access_pattern
#   collective  the suite's mpi4py driver, 4 ranks, 4 KiB independent -> collective MPI-IO  interface_choice
# Each --fs DIR (default: a folder in /tmp and one in /dev/shm) holds the data. Per change and file
# system: whatif's predicted speed-up of the replayed I/O, of the whole run (the rest of the traced
# run taken as unchanged) with its interval and verdict, the real run's median [interval] verdict,
# and whether the sign agrees and the real median is inside the predicted interval or within 25% of
# its median.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
fss=() rounds=11 only=.
while [ $# -gt 0 ]; do
  case $1 in
    --fs) fss+=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "validate.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ ${#fss[@]} -gt 0 ] || fss=(/tmp /dev/shm)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fio_cmd() { # fio_cmd DIR ARGS...: one fio job writing below DIR, its files removed at the end
  local d=$1; shift
  echo fio --name=j --directory="$d" --ioengine=psync --unlink=1 "$@"
}
changes=(
  "size|access_granularity|--rw=write --bs=4k --size=32m|--rw=write --bs=1m --size=32m"
  "fsync|throughput_utilization|--rw=write --bs=64k --size=16m --fsync=1|--rw=write --bs=64k --size=16m --end_fsync=1"
  "random|access_pattern|--rw=randwrite --bs=64k --size=64m --end_fsync=1|--rw=write --bs=64k --size=64m --end_fsync=1"
  "collective|interface_choice|--size 4096 --count 512|--size 4096 --count 512 --collective"
)
printf '%-11s %-8s %-7s %-34s %-34s %s\n' change fs "I/O" "predicted run (whatif)" "real run (paired)" "sign / inside-or-25%"
for fs in "${fss[@]}"; do
  w=$(mktemp -d "$fs/iolens-validate.XXXXXX"); trap 'rm -rf "$w"' EXIT
  fstype=$(stat -f -c %T "$w")
  allp=(); case $w in /dev/*) allp=(--all-paths) ;; esac
  for c in "${changes[@]}"; do
    IFS='|' read -r name pattern a b <<<"$c"
    [[ $name =~ $only ]] || continue
    d=$w/$name; mkdir -p "$d/data"
    if [ "$name" = collective ]; then
      run=(mpirun --oversubscribe -np 4)
      A=("${run[@]}" $PY "$src/bench/detect/suite/mpiio.py" "$d/data" $a)
      B=("${run[@]}" $PY "$src/bench/detect/suite/mpiio.py" "$d/data" $b)
      "${run[@]}" "$IOLENS" trace -o "$d/base.trace" -- $PY "$src/bench/detect/suite/mpiio.py" "$d/data" $a >/dev/null 2>"$d/trace.err"
      rm -f "$d/data"/*
    else
      read -r -a A <<<"$(fio_cmd "$d/data" $a)"; read -r -a B <<<"$(fio_cmd "$d/data" $b)"
      "$IOLENS" trace -o "$d/base.trace" -- "${A[@]}" >/dev/null 2>"$d/trace.err"
    fi
    "$IOLENS" whatif "$d/base.trace" --pattern "$pattern" "${allp[@]}" --rounds "$rounds" --json >"$d/whatif.json" 2>"$d/whatif.err" ||
      { echo "$name $fstype: whatif failed: $(tail -2 "$d/whatif.err")"; continue; }
    "$IOLENS" paired -n "$rounds" --warmup 1 --json -- "${A[@]}" -- "${B[@]}" >"$d/paired.json" 2>"$d/paired.err" ||
      { echo "$name $fstype: paired failed: $(tail -2 "$d/paired.err")"; continue; }
    "$PY" - "$d/whatif.json" "$d/paired.json" "$name" "$fstype" <<'PYEOF'
import json, sys
w = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
v = [c for c in w["configs"] if c["name"] not in ("base", "control")][0]
if "paired" not in v:
    print("%-11s %-8s whatif: %s" % (sys.argv[3], sys.argv[4], v.get("status"))); sys.exit(0)
io = v["paired"]
pw = v.get("run_paired", io); plo, phi = pw["interval"]  # the whole run, as the real comparison times it
s = p.get("summary", p)
rm = s["median"]; rlo, rhi = s.get("interval", [s.get("lo"), s.get("hi")])
# an unreliable verdict claims no sign: it cannot be a wrong one ("-" below)
sign = (pw["median"] > 1) == (rm > 1) or (pw["verdict"] == "within noise" and s["verdict"] == "within noise")
sign = None if pw["verdict"] == "unreliable" else sign
inside = plo <= rm <= phi or abs(rm - pw["median"]) <= 0.25 * pw["median"]
print("%-11s %-8s %6.2fx %6.2fx [%5.2f, %5.2f] %-12s %6.2fx [%5.2f, %5.2f] %-12s %s / %s" % (
    sys.argv[3], sys.argv[4], io["median"], pw["median"], plo, phi, pw["verdict"], rm, rlo, rhi, s["verdict"],
    "-" if sign is None else "yes" if sign else "NO", "yes" if inside else "NO"))
PYEOF
  done
  rm -rf "$w"; trap - EXIT
done
