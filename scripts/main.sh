#!/usr/bin/env bash
# The main job, on a fresh clone: install dependencies, build, then the whole loop on the bundled
# example program (examples/app/smallio.c: an 8 MiB checkpoint written in 4 KiB pieces with an
# fsync after each): trace it, write its Darshan log, report the job, diagnose it, and measure the
# recommended changes with `iolens whatif`, all in a scratch folder of $TMPDIR (default /tmp)
# that is removed at the end. With a Darshan log as $1: the report and the diagnosis of that log.
#   scripts/main.sh [--skip-setup] [LOG]    (--skip-setup: use the build in $IOLENS_BUILD, default build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${IOLENS_BUILD:-$root/build}
if [ "${1:-}" = --skip-setup ]; then
  shift
else
  "$root/scripts/install-deps.sh"
  "$root/scripts/build.sh" "$build"
fi
iolens=$build/iolens
if [ $# -gt 0 ]; then
  "$iolens" darshan --report "$1"
  echo
  echo "== Diagnosis (trained classifier)"
  "$iolens" detect "$1"
  page=${TMPDIR:-/tmp}/iolens-report.html
  "$iolens" report "$1" -o "$page"
  echo "The same as one HTML page with plots (iolens report): file://$page"
  exit
fi
w=$(mktemp -d "${TMPDIR:-/tmp}/iolens-main.XXXXXX"); trap 'rm -rf "$w"' EXIT
mkdir -p "$w/data"
echo "== Record: iolens trace -- smallio (the bundled example program)"
"$iolens" trace -o "$w/app.trace" -- "$build/examples/app/smallio" "$w/data"
"$iolens" darshan --from "$w/app.trace" -o "$w/app.darshan"
echo
echo "== Report of its Darshan log"
"$iolens" darshan --report "$w/app.darshan"
echo
echo "== Diagnosis (trained classifier)"
"$iolens" detect "$w/app.trace"
page=${TMPDIR:-/tmp}/iolens-report.html
"$iolens" report "$w/app.trace" -o "$page"
echo "The same as one HTML page with plots (iolens report): file://$page"
echo
echo "== What-if: each recommended change replayed on this file system against the traced I/O"
"$iolens" whatif "$w/app.trace"
