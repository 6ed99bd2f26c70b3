#!/usr/bin/env bash
# Replay fidelity: the bandwidth of `iolens replay` on an IOR-like config
# against bench_replay_ior_plain doing the same I/O by hand, on /dev/shm.
# Paired runs (plain then replay, alternating), medians over PAIRS (>= 5).
#
#   [MODES="posix-shared ..."] [SIZES="1048576 4096"] [RANKS="1 2 4"] bench/replay/fidelity.sh [BUILD_DIR] [PAIRS]
# Prints one row per (mode, transfer size, ranks): median write/read
# bandwidth of both and the replay/plain ratio. Figures, never assertions.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
pairs=${2:-5}
[ "$pairs" -ge 5 ] || { echo "need >= 5 pairs" >&2; exit 2; }
iolens=$build/iolens
plain=$build/bench/replay/bench_replay_ior_plain
[ -x "$plain" ] || { echo "bench_replay_ior_plain not built (needs MPI)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
scratch=$(mktemp -d /dev/shm/iolens-fidelity.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

config() { # mode size count -> replay config with the same I/O
  local mode=$1 size=$2 count=$3 iface=posix coll=false fpp=false name=testfile
  case $mode in
    posix-fpp) fpp=true; name='testfile.{rank}' ;;
    mpiio-indep) iface=mpiio ;;
    mpiio-coll) iface=mpiio; coll=true ;;
  esac
  local common="\"interface\": \"$iface\", \"file_names\": [\"$name\"], \"file_per_process\": $fpp, \"verify\": false, \"hints\": {\"use_collective\": $coll}, \"chunks\": [{\"transfer_size\": $size, \"repetitions\": $count}]"
  echo "{\"file_configs\": [{\"name\": \"write\", \"method\": \"write\", \"fsync\": \"close\", $common}, {\"name\": \"read\", \"method\": \"read\", $common}]}"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-12s %8s %5s %12s %12s %7s %12s %12s %7s\n" mode transfer ranks plain_w_MB/s replay_w_MB/s w_ratio plain_r_MB/s replay_r_MB/s r_ratio
for mode in ${MODES:-posix-shared posix-fpp mpiio-indep mpiio-coll}; do
  for size in ${SIZES:-1048576 4096}; do
    # 32 MiB per rank at 1 MiB transfers, 8 MiB per rank at 4 KiB
    count=$(( size == 4096 ? 2048 : 32 ))
    config $mode $size $count > "$scratch/cfg.json"
    for np in ${RANKS:-1 2 4}; do
      : > "$scratch/p"; : > "$scratch/r"
      for i in $(seq "$pairs"); do
        # alternate which program goes first, so neither always follows the other's teardown
        for who in $([ $((i % 2)) -eq 1 ] && echo "plain replay" || echo "replay plain"); do
          if [ "$who" = plain ]; then
            mkdir -p "$scratch/plain"
            mpirun --oversubscribe --allow-run-as-root -np $np "$plain" $mode $size $count "$scratch/plain" >> "$scratch/p"
            rm -rf "$scratch/plain"
          else
            mpirun --oversubscribe --allow-run-as-root -np $np "$iolens" replay "$scratch/cfg.json" --root "$scratch/replay" --json \
              | python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"]; print(s[0]["bandwidth_bytes_per_s"], s[1]["bandwidth_bytes_per_s"])' >> "$scratch/r"
          fi
        done
      done
      pw=$(cut -d' ' -f1 "$scratch/p" | median); pr=$(cut -d' ' -f2 "$scratch/p" | median)
      rw=$(cut -d' ' -f1 "$scratch/r" | median); rr=$(cut -d' ' -f2 "$scratch/r" | median)
      awk -v m=$mode -v s=$size -v n=$np -v pw=$pw -v rw=$rw -v pr=$pr -v rr=$rr 'BEGIN {
        printf "%-12s %8d %5d %12.0f %12.0f %7.3f %12.0f %12.0f %7.3f\n", m, s, n, pw/1e6, rw/1e6, rw/pw, pr/1e6, rr/1e6, rr/pr }'
    done
  done
done
