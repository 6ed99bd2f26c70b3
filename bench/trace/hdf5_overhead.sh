#!/usr/bin/env bash
# Per-call cost of tracing HDF5: CALLS one-element H5Dwrite calls (bench_h5_loop) to /dev/shm,
# the CPU time inside H5Dwrite with the shim tracing every layer, minus the same run with the
# shim preloaded but the HDF5 layer off (the wrapper's own cost: its record, the selection and
# type queries), and minus a run without the shim (everything the trace adds to an HDF5 call,
# the POSIX records of its pwrites included); median of REPS alternating runs. Then the trace
# size at 1x, 4x and 16x the iterations (a checkpoint loop's trace should stay flat).
# With LIB pnetcdf: the same for one-element ncmpi_put_var1_double calls (bench_pnc_loop,
# independent data mode), the PnetCDF layer on or off.
# usage: bench/trace/hdf5_overhead.sh [BUILD_DIR] [REPS] [CALLS] [hdf5|pnetcdf]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; reps=${2:-7}; calls=${3:-200000}; lib=${4:-hdf5}
iolens=$build/iolens; shim=$build/src/shim/libiolens_shim.so
case $lib in
  hdf5) loop=$build/bench/trace/bench_h5_loop; call="H5Dwrite(1 int)"; pkg=libhdf5-openmpi-dev ;;
  pnetcdf) loop=$build/bench/trace/bench_pnc_loop; call="ncmpi_put_var1_double"; pkg=libpnetcdf-dev ;;
  *) echo "LIB: hdf5 or pnetcdf"; exit 2 ;;
esac
[ -x "$loop" ] || { echo "no $loop (needs $pkg at build time)"; exit 1; }
scratch=$(mktemp -d /dev/shm/iolens-h5ovh-XXXXXX); trap 'rm -rf "$scratch"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
none=(); off=(); on=()
for r in $(seq "$reps"); do
  none+=("$("$loop" "$calls" "$scratch/f.h5")")
  mkdir -p "$scratch/s1" "$scratch/s2"
  off+=("$(LD_PRELOAD="$shim" IOLENS_TRACE_DIR="$scratch/s1" IOLENS_LAYERS=posix,stdio,mpiio,$([ "$lib" = hdf5 ] && echo pnetcdf || echo hdf5) "$loop" "$calls" "$scratch/f.h5")")
  on+=("$(LD_PRELOAD="$shim" IOLENS_TRACE_DIR="$scratch/s2" "$loop" "$calls" "$scratch/f.h5")")
  rm -rf "$scratch/s1" "$scratch/s2"
done
n=$(printf '%s\n' "${none[@]}" | median); o=$(printf '%s\n' "${off[@]}" | median); t=$(printf '%s\n' "${on[@]}" | median)
echo "$calls $call to /dev/shm, CPU time in the calls (median of $reps): no shim ${n}s, $lib layer off ${o}s, traced ${t}s"
awk -v n="$n" -v o="$o" -v t="$t" -v c="$calls" 'BEGIN {
  printf "  untraced call: %.3f us per call\n", n / c * 1e6
  printf "  the library wrapper (traced - its layer off): %.3f us per call\n", (t - o) / c * 1e6
  printf "  everything the trace adds (traced - no shim, its pwrite records included): %.3f us per call\n", (t - n) / c * 1e6 }'
for k in 1 4 16; do
  c=$((calls / 16 * k))
  "$iolens" trace -o "$scratch/t$k.trace" -- "$loop" "$c" "$scratch/f.h5" >/dev/null 2>&1
  echo "  trace of $c iterations: $(stat -c %s "$scratch/t$k.trace") bytes"
done
