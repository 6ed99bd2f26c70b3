#!/usr/bin/env bash
# Per-call cost of tracing HDF5: CALLS one-element H5Dwrite calls (bench_h5_loop) to /dev/shm,
# the CPU time inside H5Dwrite with the shim tracing every layer, minus the same run with the
# shim preloaded but the HDF5 layer off (the wrapper's own cost: its record, the selection and
# type queries), and minus a run without the shim (everything the trace adds to an HDF5 call,
# the POSIX records of its pwrites included); median of REPS alternating runs. Then the trace
# size at 1x, 4x and 16x the iterations (a checkpoint loop's trace should stay flat).
# usage: bench/trace/hdf5_overhead.sh [BUILD_DIR] [REPS] [CALLS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; reps=${2:-7}; calls=${3:-200000}
iolens=$build/iolens; loop=$build/bench/trace/bench_h5_loop; shim=$build/src/shim/libiolens_shim.so
[ -x "$loop" ] || { echo "no $loop (needs libhdf5-openmpi-dev at build time)"; exit 1; }
scratch=$(mktemp -d /dev/shm/iolens-h5ovh-XXXXXX); trap 'rm -rf "$scratch"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
none=(); off=(); on=()
for r in $(seq "$reps"); do
  none+=("$("$loop" "$calls" "$scratch/f.h5")")
  mkdir -p "$scratch/s1" "$scratch/s2"
  off+=("$(LD_PRELOAD="$shim" IOLENS_TRACE_DIR="$scratch/s1" IOLENS_LAYERS=posix,stdio,mpiio "$loop" "$calls" "$scratch/f.h5")")
  on+=("$(LD_PRELOAD="$shim" IOLENS_TRACE_DIR="$scratch/s2" "$loop" "$calls" "$scratch/f.h5")")
  rm -rf "$scratch/s1" "$scratch/s2"
done
n=$(printf '%s\n' "${none[@]}" | median); o=$(printf '%s\n' "${off[@]}" | median); t=$(printf '%s\n' "${on[@]}" | median)
echo "$calls H5Dwrite(1 int) to /dev/shm, CPU time in H5Dwrite (median of $reps): no shim ${n}s, HDF5 layer off ${o}s, traced ${t}s"
awk -v n="$n" -v o="$o" -v t="$t" -v c="$calls" 'BEGIN {
  printf "  untraced H5Dwrite: %.3f us per call\n", n / c * 1e6
  printf "  HDF5 wrapper (traced - HDF5 layer off): %.3f us per call\n", (t - o) / c * 1e6
  printf "  everything the trace adds (traced - no shim, its pwrite records included): %.3f us per call\n", (t - n) / c * 1e6 }'
for k in 1 4 16; do
  c=$((calls / 16 * k))
  "$iolens" trace -o "$scratch/t$k.trace" -- "$loop" "$c" "$scratch/f.h5" >/dev/null 2>&1
  echo "  trace of $c iterations: $(stat -c %s "$scratch/t$k.trace") bytes"
done
