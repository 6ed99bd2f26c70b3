#!/usr/bin/env bash
# What holding freed memory back from a virtual machine's host does to new page cache: with
# page_reporting's min_free_ms held at 300 s (lib.sh: hold_reporting), a file of MIB MiB is
# removed, and 3 s later written anew with dd, N times with max_waiting_mib as the kernel has it
# and N times raised to three quarters of the memory, alternating. Prints each write's seconds
# and the medians. As root, on a kernel with the settings.
#
#   bench/replay/reporting_ab.sh [--dir DIR] [--mib MIB] [--runs N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
dir=/dev/shm mib=1536 runs=6
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "reporting_ab.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -w "$REP/max_waiting_mib" ] && [ -w "$REP/min_free_ms" ] || { echo "reporting_ab.sh: no page_reporting settings to change here" >&2; exit 77; }
w=$(mktemp -d "$dir/iolens-reporting.XXXXXX")
old_wait=$(cat "$REP/max_waiting_mib") old_ms=$(cat "$REP/min_free_ms")
trap 'echo "$old_wait" >"$REP/max_waiting_mib"; echo "$old_ms" >"$REP/min_free_ms"; rm -rf "$w"' EXIT
echo 300000 >"$REP/min_free_ms"
raised=$(awk '/MemTotal/ {print int($2 / 1024 * 3 / 4)}' /proc/meminfo)
dd if=/dev/zero of="$w/f" bs=1M count="$mib" status=none
for r in $(seq 1 "$runs"); do
  for v in "$old_wait" "$raised"; do
    echo "$v" >"$REP/max_waiting_mib"
    rm -f "$w/f"; sleep 3
    s=$( { /usr/bin/time -f %e dd if=/dev/zero of="$w/f" bs=1M count="$mib" status=none; } 2>&1 | tail -n 1)
    echo "$v $s" | tee -a "$w/times"
  done
done
for v in "$old_wait" "$raised"; do
  echo "max_waiting_mib $v: median $(awk -v v="$v" '$1 == v {print $2}' "$w/times" | median) s for $mib MiB"
done
