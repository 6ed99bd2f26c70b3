#!/usr/bin/env bash
# Fidelity of the library-level on-the-fly replay (HDF5 calls re-issued through HDF5) and of
# its transfer-mode what-if, against an HDF5 program's own figures (bench_replay_h5_blocks:
# P ranks write their N x N blocks of doubles in ITERS regular hyperslabs through the MPI-IO
# driver, then read them back; it reports its write and read times, barrier to barrier).
#
# Every round runs, per cell, in an order that rotates from round to round: the program twice
# untraced (orig, and again as the A/A control), the program traced, and the replay of that
# trace (`iolens replay TRACE`, the library level). Each run's file is removed when it ends: a
# file left behind is written back by ext4 while the next run writes (a replay right after
# the traced run ran at 0.26 of the program's write bandwidth so). Ratios are bandwidth ratios (the other
# run's bandwidth over orig's); medians over ROUNDS (>= 5) rounds.
# What-if: the trace of the independent-transfer program replayed with --hdf5-xfer collective
# predicts the speed-up of making the transfers collective; the real one is the collective
# program's median over the independent program's (both untraced), per phase.
#
#   [DIR=/dev/shm] [N=512] [ITERS=64] [CELLS="1:contig 4:contig-coll ..."] [RAW=FILE]
#   bench/replay/hdf5_fidelity.sh [BUILD_DIR] [ROUNDS]
# RAW=FILE keeps every round's seconds: cell, orig write/read, A/A write/read, replay write/read,
# what-if write/read. The what-if lines need the cells 4:contig and 4:contig-coll.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rounds=${2:-5}
[ "$rounds" -ge 5 ] || { echo "need >= 5 rounds (medians of fewer are not reported)" >&2; exit 2; }
iolens=$build/iolens
prog=$build/bench/replay/bench_replay_h5_blocks
[ -x "$prog" ] || { echo "bench_replay_h5_blocks not built (needs MPI and parallel HDF5)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
scratch=$(mktemp -d "${DIR:-/dev/shm}/iolens-h5fid.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
n=${N:-512}
iters=${ITERS:-64}
. "$root/bench/replay/lib.sh"
fs=$(fstype "$scratch")

orig() { # np args... -> "write_s read_s"
  local np=$1; shift
  rm -rf "$scratch/o"; mkdir -p "$scratch/o"
  mpirun --oversubscribe -np "$np" "$prog" "$n" "$iters" "$scratch/o" "$@" | awk '/^write_s/ {print $2, $4}'
  rm -rf "$scratch/o" # no run meets the dirty pages of another's file (ext4 writes them back meanwhile)
}
traced() { # np args... -> trace in $scratch/t.trace
  local np=$1; shift
  rm -rf "$scratch/o" "$scratch/t.trace"; mkdir -p "$scratch/o"
  mpirun --oversubscribe -np "$np" "$iolens" trace -o "$scratch/t.trace" -- "$prog" "$n" "$iters" "$scratch/o" "$@" >/dev/null 2>&1
  rm -rf "$scratch/o"
}
replay() { # np extra options -> "write_s read_s"
  local np=$1; shift
  rm -rf "$scratch/r"
  # under mpirun as the program (a one-rank replay started alone is an MPI singleton, which
  # Open MPI does not bind to a core as mpirun -np 1 binds the program)
  mpirun --oversubscribe -np "$np" "$iolens" replay "$scratch/t.trace" --root "$scratch/r" --json "$@" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["level"] == "hdf5"; print(d["write_seconds"], d["read_seconds"])'
}

echo "# HDF5 library-level replay fidelity: ${n}x${n} doubles x $iters per rank, $rounds rounds, $fs ($scratch)"
printf '%-22s %9s %9s %7s %7s %7s %7s\n' cell orig_w_MiB orig_r_MiB aa_w aa_r otf_w otf_r
cells=${CELLS:-"1:contig 1:chunk 4:contig 4:contig-coll 4:chunk-coll"}
declare -A W R
for cell in $cells; do
  np=${cell%%:*}; v=${cell#*:}; args=$(echo "$v" | tr '-' ' ' | sed 's/contig//')
  : >"$scratch/$np-$v.rows"
  for ((k = 0; k < rounds; k++)); do
    steps=(o1 o2 tr)
    for ((j = 0; j < k % 3; j++)); do steps=("${steps[@]:1}" "${steps[0]}"); done
    for s in "${steps[@]}"; do
      case $s in
        o1) a=$(orig "$np" $args) ;;
        o2) b=$(orig "$np" $args) ;;
        tr) traced "$np" $args; c=$(replay "$np")
            if [ "$v" = contig ] && [ "$np" -gt 1 ]; then wc=$(replay "$np" --hdf5-xfer collective); else wc="nan nan"; fi ;;
      esac
    done
    echo "$a $b $c $wc" >>"$scratch/$np-$v.rows"
  done
  [ -n "${RAW:-}" ] && sed "s/^/$np-$v /" "$scratch/$np-$v.rows" >>"$RAW"
  bytes=$((n * n * 8 * iters * np))
  read -r ow or aw ar tw trr <<<"$(awk -v B="$bytes" '{ print B/$1/1048576, B/$2/1048576, $1/$3, $2/$4, $1/$5, $2/$6 }' "$scratch/$np-$v.rows" |
    /usr/bin/python3 -c '
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(" ".join("%.3f" % st.median(c) for c in zip(*rows)))')"
  printf '%-22s %9.0f %9.0f %7.3f %7.3f %7.3f %7.3f\n' "$np rank(s) $v" "$ow" "$or" "$aw" "$ar" "$tw" "$trr"
done
[ -f "$scratch/4-contig.rows" ] && [ -f "$scratch/4-contig-coll.rows" ] || exit 0
# the what-if: predicted = replay(independent) / replay(collective what-if), real = orig(independent) / orig(collective)
pred=$(awk '{ print $5/$7, $6/$8 }' "$scratch/4-contig.rows" | /usr/bin/python3 -c '
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(" ".join("%.3f" % st.median(c) for c in zip(*rows)))')
real=$(paste -d' ' "$scratch/4-contig.rows" "$scratch/4-contig-coll.rows" | awk '{ print $1/$11, $2/$12 }' | /usr/bin/python3 -c '
import sys, statistics as st
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(" ".join("%.3f" % st.median(c) for c in zip(*rows)))')
echo "# what-if --hdf5-xfer collective on the 4-rank independent trace (speed-up = independent time / collective time)"
echo "predicted by the replay: write $(echo "$pred" | cut -d' ' -f1) read $(echo "$pred" | cut -d' ' -f2)"
echo "real (the collective program): write $(echo "$real" | cut -d' ' -f1) read $(echo "$real" | cut -d' ' -f2)"
