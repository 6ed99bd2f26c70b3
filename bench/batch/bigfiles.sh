#!/usr/bin/env bash
# Memory of `iolens batch` on one log of N files (default 1,000,000: eight passes of 131,072 files):
# the log written by the tests' generator (tests/batch/biglog.c), then read with
# --do summary,features,detect ROUNDS times (default 3); prints each round's seconds and peak
# resident size of the worker, their medians, and the machine's load average. The worker's
# limit is --max-mem (256 MiB by default): a round that exceeds it fails with the reason.
#   bench/batch/bigfiles.sh [BUILD_DIR] [N] [ROUNDS] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; n=${2:-1000000}; rounds=${3:-3}; dir=${4:-/dev/shm}
gen=$build/tests/batch/batch_biglog
[ -x "$gen" ] || { echo "bigfiles.sh: no $gen (a build with tests)" >&2; exit 2; }
w=$(mktemp -d "$dir/iolens-bigfiles.XXXXXX"); trap 'rm -rf "$w"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
"$gen" "$w/big.darshan" "$n" 1
echo "wrote a log of $n files ($(du -h "$w/big.darshan" | cut -f1)) in $(echo "$(date +%s.%N) - $t0" | bc) s"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs=() rss=()
for r in $(seq "$rounds"); do
  rm -rf "$w/out"
  "$build/iolens" batch "$w/big.darshan" --do summary,features,detect -o "$w/out" --timeout 3600 2>"$w/err"
  "$build/iolens" batch --merge "$w/out" -q
  [ ! -s "$w/out/errors.jsonl" ] || { echo "round $r failed: $(cat "$w/out/errors.jsonl")"; exit 1; }
  line=$(grep '^batch:' "$w/err")
  s=$(sed -E 's/.* in ([0-9.]+) s .*/\1/' <<<"$line"); m=$(sed -E 's/.*peak RSS ([0-9.]+) MiB.*/\1/' <<<"$line")
  echo "round $r: $s s, peak RSS $m MiB"
  secs+=("$s"); rss+=("$m")
done
echo "median: $(printf '%s\n' "${secs[@]}" | median) s, peak RSS $(printf '%s\n' "${rss[@]}" | median) MiB (limit 256 MiB); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
