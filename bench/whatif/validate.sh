#!/usr/bin/env bash
# Predicted against real: for changes of real programs, whatif's predicted speed-up (from the
# trace of the unchanged run) beside the speed-up `iolens paired` measures when the program itself
# is changed, on the same file system; quiet, or under a load the bench starts itself.
#
#   bench/whatif/validate.sh [--fs DIR]... [--rounds N] [--only REGEX] [--load | --both]
#
# Changes (base -> changed; the pattern whatif is asked to change):
#   size        fio, 4 KiB -> 1 MiB sequential writes of 32 MiB                 access_granularity
#   fsync       fio, 64 KiB writes of 16 MiB, fsync after each -> at end        throughput_utilization
#   random      fio, 64 KiB writes of 64 MiB at random -> sequential (fsync at end)  access_pattern
#   mpisize     mpi4py MPI-IO, 2 ranks, 64 KiB -> 1 MiB writes of 16 MiB each   access_granularity
#   collective  mpi4py MPI-IO, 2 ranks, 4 KiB independent -> collective writes  interface_choice
#   h5rows      h5py, one 4 KiB row per assignment -> 64 rows (16 MiB)          access_granularity
# Each --fs DIR (default: a folder in /tmp and one in /dev/shm) holds the data. Per change and file
# system: whatif's predicted speed-up of the replayed I/O, of the whole run (the rest of the traced
# run taken as unchanged) with its interval and verdict, the real run's median [interval] verdict,
# and whether the sign agrees ("-": whatif said unreliable, which claims no sign) and the real
# median is inside the predicted interval or within 25% of its median. whatif runs its default
# adaptive rounds (with the A/A control) unless --rounds N; paired runs N (default 11) rounds.
#
# --load: the whole bench under a load it starts itself and stops at the end: 2 x cores CPU-bound
# processes, then one I/O-bound process (1 MiB writes with fsync, in a loop, on the file system
# of the case). --both: once quiet, then once under that load. The last lines count, per run,
# the cases with the right sign and those inside or within 25%.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
fss=() rounds="" only=. phases=quiet
while [ $# -gt 0 ]; do
  case $1 in
    --fs) fss+=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --load) phases=load; shift ;;
    --both) phases="quiet load"; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "validate.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ ${#fss[@]} -gt 0 ] || fss=(/tmp /dev/shm)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
wrounds=(); [ -n "$rounds" ] && wrounds=(--rounds "$rounds")
prounds=${rounds:-11}
fio_cmd() { # fio_cmd DIR ARGS...: one fio job writing below DIR, its files removed at the end
  local d=$1; shift
  echo fio --name=j --directory="$d" --ioengine=psync --unlink=1 "$@"
}
changes=(
  "size|access_granularity|fio|--rw=write --bs=4k --size=32m|--rw=write --bs=1m --size=32m"
  "fsync|throughput_utilization|fio|--rw=write --bs=64k --size=16m --fsync=1|--rw=write --bs=64k --size=16m --end_fsync=1"
  "random|access_pattern|fio|--rw=randwrite --bs=64k --size=64m --end_fsync=1|--rw=write --bs=64k --size=64m --end_fsync=1"
  "mpisize|access_granularity|mpi|--size 65536 --count 256|--size 1048576 --count 16"
  "collective|interface_choice|mpi|--size 4096 --count 512|--size 4096 --count 512 --collective"
  "h5rows|access_granularity|h5|--rows 4096 --row-bytes 4096 --per-call 1|--rows 4096 --row-bytes 4096 --per-call 64"
)
loadpids=()
stop_load() { [ ${#loadpids[@]} -eq 0 ] || kill "${loadpids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; loadpids=(); }
start_load() { # start_load DIR: 2 x cores CPU-bound processes, then one I/O-bound one in DIR
  local n=$(( 2 * $(nproc) ))
  for _ in $(seq 1 "$n"); do sh -c 'while :; do :; done' & loadpids+=($!); done
  sh -c 'while :; do dd if=/dev/zero of="$1/load.dat" bs=1M count=64 conv=fsync status=none; done' sh "$1" &
  loadpids+=($!)
  sleep 5 # the load average starts to show it
}
cleanup() { stop_load; [ -z "${w:-}" ] || rm -rf "$w"; }
trap cleanup EXIT
sumf=$(mktemp /tmp/iolens-validate-sum.XXXXXX)
for phase in $phases; do
  echo "# $phase: $(date -u '+%F %T') UTC; $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
  printf '%-11s %-8s %-7s %-42s %-34s %s\n' change fs "I/O" "predicted run (whatif): median [interval] verdict" \
    "real run (paired)" "sign / inside-or-25%"
  for fs in "${fss[@]}"; do
    w=$(mktemp -d "$fs/iolens-validate.XXXXXX")
    fstype=$(stat -f -c %T "$w")
    [ "$phase" = load ] && start_load "$w"
    for c in "${changes[@]}"; do
      IFS='|' read -r name pattern kind a b <<<"$c"
      [[ $name =~ $only ]] || continue
      d=$w/$name; mkdir -p "$d/data"
      case $kind in
        mpi|h5)
          run=(mpirun --oversubscribe -np 2) prog=$src/bench/detect/suite/mpiio.py
          if [ "$kind" = h5 ]; then run=() prog=$src/bench/detect/suite/h5.py; fi
          # shellcheck disable=SC2206
          A=("${run[@]}" $PY "$prog" "$d/data" $a) B=("${run[@]}" $PY "$prog" "$d/data" $b)
          "${run[@]}" "$IOLENS" trace -o "$d/base.trace" -- $PY "$prog" "$d/data" $a >/dev/null 2>"$d/trace.err" ||
            { echo "$name $fstype: the traced run failed: $(tail -2 "$d/trace.err")"; continue; }
          rm -f "$d/data"/* ;;
        *)
          read -r -a A <<<"$(fio_cmd "$d/data" $a)"; read -r -a B <<<"$(fio_cmd "$d/data" $b)"
          "$IOLENS" trace -o "$d/base.trace" -- "${A[@]}" >/dev/null 2>"$d/trace.err" ||
            { echo "$name $fstype: the traced run failed: $(tail -2 "$d/trace.err")"; continue; } ;;
      esac
      "$IOLENS" whatif "$d/base.trace" --pattern "$pattern" "${wrounds[@]}" --json >"$d/whatif.json" 2>"$d/whatif.err" ||
        { echo "$name $fstype: whatif failed: $(tail -2 "$d/whatif.err")"; continue; }
      "$IOLENS" paired -n "$prounds" --warmup 1 --json -- "${A[@]}" -- "${B[@]}" >"$d/paired.json" 2>"$d/paired.err" ||
        { echo "$name $fstype: paired failed: $(tail -2 "$d/paired.err")"; continue; }
      rm -f "$d/data"/*
      "$PY" - "$d/whatif.json" "$d/paired.json" "$name" "$fstype" "$phase" "$sumf" <<'PYEOF'
import json, sys
w = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
v = [c for c in w["configs"] if c["name"] not in ("base", "control")][0]
if "paired" not in v:
    print("%-11s %-8s whatif: %s" % (sys.argv[3], sys.argv[4], v.get("status"))); sys.exit(0)
io = v["paired"]
pw = v.get("run_paired", io); plo, phi = pw["interval"] or [float("nan")] * 2  # the whole run, as paired times it
s = p.get("summary", p)
rm = s["median"]; rlo, rhi = s.get("interval", [s.get("lo"), s.get("hi")])
# an unreliable verdict claims no sign: it cannot be a wrong one ("-" below)
sign = (pw["median"] > 1) == (rm > 1) or (pw["verdict"] == "within noise" and s["verdict"] == "within noise")
sign = None if pw["verdict"] == "unreliable" else sign
inside = plo <= rm <= phi or abs(rm - pw["median"]) <= 0.25 * pw["median"]
rounds = w.get("rounds")
print("%-11s %-8s %6.2fx %6.2fx [%5.2f, %5.2f] %-12s (%2s) %6.2fx [%5.2f, %5.2f] %-12s %s / %s" % (
    sys.argv[3], sys.argv[4], io["median"], pw["median"], plo, phi, pw["verdict"], rounds, rm, rlo, rhi,
    s["verdict"], "-" if sign is None else "yes" if sign else "NO", "yes" if inside else "NO"))
if pw["verdict"] == "unreliable":
    print("%-11s %-8s   (%s)" % ("", "", pw.get("reason", "")))
with open(sys.argv[6], "a") as f:
    f.write("%s %s %s %s %d\n" % (sys.argv[5], sys.argv[3], sys.argv[4],
                                  "-" if sign is None else int(sign), int(inside)))
PYEOF
    done
    stop_load
    rm -rf "$w"; w=
  done
  echo "# end of $phase: $(uptime | sed 's/.*load average/load average/')"
done
awk '{n[$1]++; if ($4 == "-") u[$1]++; else if ($4 == 1) s[$1]++; else bad[$1]++; in_[$1] += $5}
     END {for (p in n) printf "# %s: %d cases; sign right %d, wrong %d, unreliable %d; inside or within 25%%: %d of %d\n",
            p, n[p], s[p], bad[p], u[p], in_[p], n[p]}' "$sumf"
rm -f "$sumf"
