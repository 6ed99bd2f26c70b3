#!/usr/bin/env bash
# Done-when 1, second half, over the full matrix: the Darshan counters of the replay's own trace
# against the original's, apart from timing (tests/replay/darshan_compare.py), for IOR-like runs of
# bench_replay_ior_plain (POSIX shared and file per process, MPI-IO independent and collective;
# 1 MiB and 4 KiB transfers; 1, 2 and 4 ranks), replayed from the --config-from config and on the
# fly. The root is under DIR (default /tmp: Darshan skips /dev/ paths, so not /dev/shm).
#
#   [MODES=...] [SIZES=...] [RANKS=...] [DIR=/tmp] bench/replay/darshan.sh [BUILD_DIR]
# One line per (mode, size, ranks, replay): records compared and differences (listed below it).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
iolens=$build/iolens
plain=$build/bench/replay/bench_replay_ior_plain
[ -x "$plain" ] || { echo "bench_replay_ior_plain not built (needs MPI)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
scratch=$(mktemp -d "${DIR:-/tmp}/iolens-darshan.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
total=0; bad=0
for mode in ${MODES:-posix-shared posix-fpp mpiio-indep mpiio-coll}; do
  for size in ${SIZES:-1048576 4096}; do
    count=$(( size == 4096 ? 256 : 8 ))
    for np in ${RANKS:-1 2 4}; do
      d=$scratch/run; rm -rf "$d"; mkdir -p "$d/orig"
      mpirun -np "$np" "$iolens" trace -o "$d/T" --darshan "$d/T.darshan" -- "$plain" "$mode" "$size" "$count" "$d/orig" > /dev/null 2>&1 || { echo "$mode $size $np: original failed"; bad=$((bad + 1)); continue; }
      "$iolens" replay --config-from "$d/T" -o "$d/cfg.json"
      mpirun -np "$np" "$iolens" trace -o "$d/RC" --darshan "$d/RC.darshan" -- "$iolens" replay "$d/cfg.json" --root "$d/rc" > /dev/null 2>&1
      mpirun -np "$np" "$iolens" trace -o "$d/RO" --darshan "$d/RO.darshan" -- "$iolens" replay "$d/T" --root "$d/ro" > /dev/null 2>&1
      for x in T RC RO; do "$iolens" darshan --json "$d/$x.darshan" > "$d/$x.json"; done
      for x in RC:rc:config RO:ro:on-the-fly; do
        IFS=: read -r log r what <<< "$x"
        total=$((total + 1))
        out=$(python3 "$root/tests/replay/darshan_compare.py" "$d/T.json" "$d/$log.json" "$d/$r" --label "$mode $size x $count $np ranks $what") || bad=$((bad + 1))
        echo "$out" | tail -1 | sed "s|$d|DIR|g"
        echo "$out" | head -n -1 | sed "s|$d|DIR|g; s/^/    /"
      done
    done
  done
done
echo "# $total comparisons, $bad with differences"
