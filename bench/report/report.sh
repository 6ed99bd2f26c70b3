#!/usr/bin/env bash
# Time and size of `iolens report` on every shared Darshan log: each log's page is made ROUNDS
# times (default 5); per log the median wall time and the page's size; then the largest log's
# figures, the slowest page and the largest page; and the same for a synthetic 65,536-process
# job's log (tests/report/bigjob.c) when the build has it. Figures only.
#   bench/report/report.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rounds=${2:-5}
data=${IOLENS_SHARED_DATA:-$root/../shared/data}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
: >"$w/rows"
find "$data/darshan" -name '*.darshan' -printf '%s %p\n' | sort -n >"$w/logs"
big=$build/tests/report/report_bigjob
if [ -x "$big" ]; then
  "$big" 65536 "$w/bigjob-65536.darshan"
  echo "$(stat -c %s "$w/bigjob-65536.darshan") $w/bigjob-65536.darshan" >"$w/big"
fi
while read -r size log; do
  ts=()
  for r in $(seq 1 "$rounds"); do
    s=$(date +%s.%N)
    "$build/iolens" report "$log" -o "$w/p.html" 2>/dev/null || { echo "report failed: $log" >&2; break; }
    ts+=("$(echo "$(date +%s.%N) - $s" | bc)")
  done
  med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
  echo "$med $(stat -c %s "$w/p.html") $size $(basename "$log")" >>"$w/rows"
done < <(cat "$w/logs" "$w/big" 2>/dev/null)
n=$(wc -l <"$w/rows")
echo "# $n logs (the shared ones and the synthetic one), $rounds rounds each (median wall time of iolens report, page size)"
largest=$(tail -1 "$w/logs" | awk '{print $2}')
[ -s "$w/big" ] && grep -F " bigjob-65536.darshan" "$w/rows" | awk '{printf "synthetic 65,536-process log (%d bytes): %.3f s, page %d bytes\n", $3, $1, $2}'
sed -i '/ bigjob-65536.darshan$/d' "$w/rows"
grep -F " $(basename "$largest")" "$w/rows" | awk '{printf "largest log (%d bytes): %.3f s, page %d bytes\n", $3, $1, $2}'
sort -g "$w/rows" | tail -1 | awk '{printf "slowest: %.3f s, page %d bytes, log %s\n", $1, $2, $4}'
sort -k2 -n "$w/rows" | tail -1 | awk '{printf "largest page: %d bytes (%.3f s), log %s\n", $2, $1, $4}'
awk '{t += $1} END {printf "all %d shared logs: %.2f s in all\n", NR, t}' "$w/rows"
