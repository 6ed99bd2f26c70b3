#!/usr/bin/env bash
# Per-call overhead of the shim: 10^6 intercepted 64-byte pwrite calls to
# /dev/shm, traced minus untraced, median of REPS runs; at 1 rank (plain
# program) and 2 ranks (MPI, if mpirun is present; shim preloaded, trace built
# by rank 0 at MPI_Finalize). The loop's thread CPU
# time is compared (wall time on a shared machine mostly measures other load). Also reports the cost of
# writing the trace after the run and the shim's memory budget.
# usage: bench/trace/overhead.sh [BUILD_DIR] [REPS] [CALLS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; reps=${2:-5}; calls=${3:-1000000}
iolens=$build/iolens; loop=$build/bench/trace/bench_pwrite_loop; wl=$build/bench/trace/bench_io_workload
shim=$build/src/shim/libiolens_shim.so
# the builder the shim runs at MPI_Finalize (links only the trace module);
# `iolens trace --build` does the same work but first loads Open MPI, HDF5, XGBoost
builder=("$build/iolens-trace-build"); [ -x "$build/iolens-trace-build" ] || builder=("$iolens" trace --build)
scratch=$(mktemp -d /dev/shm/iolens-ovh-XXXXXX); trap 'rm -rf "$scratch"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
plain=(); traced=(); total=(); build_t=(); run_cpu=(); build_cpu=()
for r in $(seq "$reps"); do
  plain+=("$("$loop" "$calls" "$scratch/f")")
  mkdir -p "$scratch/spill"
  /usr/bin/time -o "$scratch/time1" -f "%e %U %S" env LD_PRELOAD="$shim" IOLENS_TRACE_DIR="$scratch/spill" "$loop" "$calls" "$scratch/f" >"$scratch/loop.out"
  traced+=("$(cat "$scratch/loop.out")")
  /usr/bin/time -o "$scratch/time2" -f "%e %U %S" "${builder[@]}" "$scratch/spill" -o "$scratch/t.trace" 2>/dev/null
  total+=("$(awk '{print $1}' "$scratch/time1")"); build_t+=("$(awk '{print $1}' "$scratch/time2")")
  run_cpu+=("$(awk '{print $2 + $3}' "$scratch/time1")"); build_cpu+=("$(awk '{print $2 + $3}' "$scratch/time2")")
  rm -rf "$scratch/spill"
done
p=$(printf '%s\n' "${plain[@]}" | median); t=$(printf '%s\n' "${traced[@]}" | median)
run=$(printf '%s\n' "${total[@]}" | median); b=$(printf '%s\n' "${build_t[@]}" | median)
rc=$(printf '%s\n' "${run_cpu[@]}" | median); bc=$(printf '%s\n' "${build_cpu[@]}" | median)
echo "1 rank: $calls pwrite(64 B) to /dev/shm: untraced ${p}s, traced ${t}s (loop CPU time, median of $reps)"
awk -v p="$p" -v t="$t" -v n="$calls" 'BEGIN{printf "  overhead per call: %.3f us\n", (t-p)/n*1e6}'
awk -v r="$run" -v b="$b" 'BEGIN{printf "  wall: traced run %.3fs (incl. spill at exit); building the trace file %.3fs = %.1f%% of the run\n", r, b, 100*b/r}'
awk -v r="$rc" -v b="$bc" 'BEGIN{printf "  CPU (user+sys): traced run %.3fs; building the trace file %.3fs = %.1f%% of the run\n", r, b, 100*b/r}'
ls -l "$scratch/t.trace" | awk '{print "  trace file: " $5 " bytes"}'
if command -v mpirun >/dev/null && [ -x "$wl" ]; then
  # 2 ranks, shim preloaded, the trace built by rank 0 at MPI_Finalize (IOLENS_TRACE_OUT)
  mpi=(mpirun --oversubscribe --allow-run-as-root -np 2)
  plain=(); traced=(); wall=(); bld=()
  for r in $(seq "$reps"); do
    plain+=("$("${mpi[@]}" "$wl" pwrites "$scratch" "$calls")")
    t0=$(now)
    traced+=("$("${mpi[@]}" -x LD_PRELOAD="$shim" -x IOLENS_TRACE_OUT="$scratch/m.trace" "$wl" pwrites "$scratch" "$calls" 2>/dev/null)")
    t1=$(now)
    wall+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
    [ -s "$scratch/m.trace" ] || { echo "no trace built at MPI_Finalize"; exit 1; }
    size2=$(stat -c %s "$scratch/m.trace")
    rm -f "$scratch/m.trace"
    # the same build on its own: spill only, then the builder rank 0 runs at MPI_Finalize
    mkdir -p "$scratch/spill2"
    "${mpi[@]}" -x LD_PRELOAD="$shim" -x IOLENS_TRACE_DIR="$scratch/spill2" "$wl" pwrites "$scratch" "$calls" >/dev/null 2>&1
    t0=$(now)
    "${builder[@]}" "$scratch/spill2" -o "$scratch/m2.trace" 2>/dev/null
    t1=$(now)
    bld+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
    rm -rf "$scratch/spill2" "$scratch/m2.trace"
  done
  p=$(printf '%s\n' "${plain[@]}" | median); t=$(printf '%s\n' "${traced[@]}" | median)
  w=$(printf '%s\n' "${wall[@]}" | median); b=$(printf '%s\n' "${bld[@]}" | median)
  echo "2 ranks (MPI, mpirun -x LD_PRELOAD -x IOLENS_TRACE_OUT): $calls pwrite(64 B) per rank: untraced ${p}s, traced ${t}s (CPU time of the slowest rank's loop, median of $reps)"
  awk -v p="$p" -v t="$t" -v n="$calls" 'BEGIN{printf "  overhead per call: %.3f us\n", (t-p)/n*1e6}'
  awk -v w="$w" -v b="$b" 'BEGIN{printf "  traced job %.3fs wall (mpirun to exit, incl. the build at MPI_Finalize); building the trace of both ranks %.3fs = %.1f%% of the job\n", w, b, 100*b/w}'
  echo "  trace file: $size2 bytes"
fi
rss_plain=$(/usr/bin/time -f %M "$loop" "$calls" "$scratch/f" 2>&1 >/dev/null | tail -1)
mkdir -p "$scratch/spill"
rss_traced=$(LD_PRELOAD=$shim IOLENS_TRACE_DIR=$scratch/spill /usr/bin/time -f %M "$loop" "$calls" "$scratch/f" 2>&1 >/dev/null | tail -1)
echo "max RSS: untraced ${rss_plain} KiB, traced ${rss_traced} KiB (1 thread, $calls calls)"
echo "shim memory budget: 2048 records x 72 B = 144 KiB per live thread (at most 4096 threads), path table <= 1 MiB slots + 64 MiB arena (reserved, touched as used), descriptor map 256 KiB"
