#!/usr/bin/env bash
# Throughput of iolens batch: N generated logs (default 100000, varied copies of small real
# logs, 1% unreadable) read with --do summary,features,detect by 1 rank and by 2 ranks
# (mpirun -np 2), ROUNDS rounds alternating; medians of logs/s, and the peak resident size of a
# rank or its workers. The corpus lives in DIR (default /dev/shm) and is removed at the end.
#   bench/batch/batch.sh [BUILD_DIR] [N] [ROUNDS] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; n=${2:-100000}; rounds=${3:-3}; dir=${4:-/dev/shm}
iolens=$build/iolens
D=${IOLENS_SHARED_DATA:-$root/../shared/data}/darshan
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
w=$(mktemp -d "$dir/iolens-batch-bench.XXXXXX"); trap 'rm -rf "$w"' EXIT
seeds=("$D/generated/small_writes_4proc_noreduction.darshan" "$D/generated/nonmpi_dd_64MiB.darshan"
       "$D/public/release_logs__mpi-io-test-x86_64-3.4.5.darshan" "$D/generated/large_seq_4proc_dxt_heatmap.darshan"
       "$D/public/release_logs__mpi-io-test-ppc64-3.1.6.darshan")
t0=$(date +%s.%N)
"$iolens" batch --generate "$n" -o "$w/gen" --corrupt 0.01 --seed 1 -q "${seeds[@]}"
t1=$(date +%s.%N)
echo "generated $n logs ($(du -sh "$w/gen" | cut -f1)) in $(echo "$t1 - $t0" | bc) s"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
one=() two=() rss1=() rss2=()
for r in $(seq "$rounds"); do
  for np in 1 2; do
    rm -rf "$w/out"
    if [ "$np" = 1 ]; then
      "$iolens" batch "$w/gen" --do summary,features,detect -o "$w/out" 2>"$w/err"
    else
      mpirun --oversubscribe -np 2 "$iolens" batch "$w/gen" --do summary,features,detect -o "$w/out" 2>"$w/err"
    fi
    line=$(grep '^batch:' "$w/err")
    rate=$(sed -E 's/.* = ([0-9.]+) logs\/s.*/\1/' <<<"$line")
    rss=$(sed -E 's/.*peak RSS ([0-9.]+) MiB.*/\1/' <<<"$line")
    echo "round $r, $np rank(s): $line"
    if [ "$np" = 1 ]; then one+=("$rate"); rss1+=("$rss"); else two+=("$rate"); rss2+=("$rss"); fi
  done
done
m1=$(printf '%s\n' "${one[@]}" | median); m2=$(printf '%s\n' "${two[@]}" | median)
echo "median: 1 rank $m1 logs/s (peak RSS $(printf '%s\n' "${rss1[@]}" | median) MiB), 2 ranks $m2 logs/s (peak RSS $(printf '%s\n' "${rss2[@]}" | median) MiB); 2 ranks / 1 rank = $(echo "scale=3; $m2 / $m1" | bc)"
