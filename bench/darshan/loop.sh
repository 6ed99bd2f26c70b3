#!/usr/bin/env bash
# darshan-parser-style loops over the shared Darshan logs: `iolens darshan LOG` (and --total,
# --perf, --file) once per log, one process each, as a script over a log folder runs it; then
# the start-up alone (`iolens --version`). Medians over ROUNDS of the whole loop's wall time,
# with logs/s and MB/s of log read.
#
#   bench/darshan/loop.sh [BUILD_DIR] [ROUNDS]
#
# IOLENS_SHARED_DATA (default ../shared/data beside the source tree) holds darshan/.
# DARSHAN_PARSER=/path/to/darshan-parser (optional, a darshan-util the user has installed) runs
# the same base-mode loop with it, alternating with iolens round by round, and prints the ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
rounds=${2:-5}
I=$(cd "$build" && pwd)/iolens
data=${IOLENS_SHARED_DATA:-$src/../shared/data}
mapfile -t logs < <(find "$data/darshan" -name '*.darshan' | sort)
[ "${#logs[@]}" -gt 0 ] || { echo "loop.sh: no logs under $data/darshan" >&2; exit 2; }
bytes=$(cat "${logs[@]}" | wc -c)
cat "${logs[@]}" >/dev/null # the logs in the page cache: the loop measures the program
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
printf '%d logs, %.1f MB; %s; %d rounds (medians)\n' "${#logs[@]}" "$(echo "$bytes / 1000000" | bc -l)" "$I" "$rounds"
printf '%-14s %10s %10s %10s\n' mode "seconds" "logs/s" "MB/s"
for mode in base --total --perf --file; do
  opt=(); [ "$mode" = base ] || opt=("$mode")
  : >/tmp/iolens-loop.$$
  for r in $(seq "$rounds"); do
    t0=$(now)
    for l in "${logs[@]}"; do "$I" darshan "${opt[@]}" "$l" >/dev/null 2>&1 || true; done
    t1=$(now)
    echo "$t1 - $t0" | bc -l >>/tmp/iolens-loop.$$
  done
  s=$(median </tmp/iolens-loop.$$)
  printf '%-14s %10.3f %10.0f %10.1f\n' "$mode" "$s" "$(echo "${#logs[@]} / $s" | bc -l)" "$(echo "$bytes / 1000000 / $s" | bc -l)"
done
if [ -n "${DARSHAN_PARSER:-}" ] && [ -x "$DARSHAN_PARSER" ]; then
  : >/tmp/iolens-loop.$$; : >/tmp/iolens-loop-ref.$$
  for r in $(seq "$rounds"); do
    t0=$(now); for l in "${logs[@]}"; do "$DARSHAN_PARSER" "$l" >/dev/null 2>&1 || true; done; t1=$(now)
    echo "$t1 - $t0" | bc -l >>/tmp/iolens-loop-ref.$$
    t0=$(now); for l in "${logs[@]}"; do "$I" darshan "$l" >/dev/null 2>&1 || true; done; t1=$(now)
    echo "$t1 - $t0" | bc -l >>/tmp/iolens-loop.$$
  done
  a=$(median </tmp/iolens-loop-ref.$$); b=$(median </tmp/iolens-loop.$$)
  printf 'darshan-parser base loop: %.3f s; iolens alternating with it: %.3f s; iolens %.2fx faster\n' "$a" "$b" "$(echo "$a / $b" | bc -l)"
  rm -f /tmp/iolens-loop-ref.$$
fi
# start-up: 200 runs of `iolens --version`, per run (wall, and CPU from the shell's times)
n=200
: >/tmp/iolens-loop.$$
for r in $(seq "$rounds"); do
  t0=$(now)
  for _ in $(seq $n); do "$I" --version >/dev/null; done
  t1=$(now)
  echo "($t1 - $t0) / $n * 1000" | bc -l >>/tmp/iolens-loop.$$
done
printf 'iolens --version: %.3f ms per run (wall, median of %d x %d runs)\n' "$(median </tmp/iolens-loop.$$)" "$rounds" "$n"
# CPU (user+sys, the shell's fork and exec included), beside /bin/true's: the difference is the
# program's own start-up
for p in /bin/true "$I"; do
  cpu=$( { TIMEFORMAT='%U %S'; time (for _ in $(seq $n); do "$p" --version >/dev/null; done); } 2>&1 )
  awk -v c="$cpu" -v n=$n -v p="$p" 'BEGIN {split(c, a, " "); printf "%s --version: %.3f ms CPU per run (user+sys of %d runs)\n", p, (a[1] + a[2]) / n * 1000, n}'
done
rm -f /tmp/iolens-loop.$$
