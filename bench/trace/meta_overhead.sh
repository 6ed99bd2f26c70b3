#!/usr/bin/env bash
# What tracing adds to a metadata-heavy program: the mdtest-like program of the replay tests
# (replay_programs meta DIR N: creates N empty files, stats them, unlinks them, timing each
# phase itself) run untraced and under `iolens trace`, alternating, REPS times; per phase the
# median rate of each and the tracer's cost per file in microseconds. A second build directory
# (OTHER) adds a third column, that build's tracer, for before/after comparisons.
# usage: bench/trace/meta_overhead.sh [BUILD_DIR] [REPS] [FILES] [DIR] [OTHER_BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; reps=${2:-7}; n=${3:-100000}; dir=${4:-/dev/shm}; other=${5:-}
prog=$build/tests/replay/replay_programs
[ -x "$prog" ] || { echo "no $prog (build the tests first)"; exit 1; }
w=$(mktemp -d "$dir/iolens-metaovh-XXXXXX"); trap 'rm -rf "$w"' EXIT
mkdir -p "$w/d"
: >"$w/rows"
for r in $(seq "$reps"); do
  "$prog" meta "$w/d" "$n" | sed 's/^/plain /' >>"$w/rows"
  "$build/iolens" trace -o "$w/t" -- "$prog" meta "$w/d" "$n" 2>/dev/null | sed 's/^/traced /' >>"$w/rows"
  if [ -n "$other" ]; then
    "$other/iolens" trace -o "$w/t" -- "$prog" meta "$w/d" "$n" 2>/dev/null | sed 's/^/other /' >>"$w/rows"
  fi
  rm -f "$w/t"
done
/usr/bin/python3 - "$w/rows" "$(stat -f -c %T "$w")" "$n" "$reps" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
kinds = [k for k in ("plain", "traced", "other") if any(r[0] == k for r in rows)]
print("%s, %s files, %s alternating runs, medians" % (sys.argv[2], sys.argv[3], sys.argv[4]))
print("%-7s" % "phase" + "".join("%12s" % (k + " op/s") for k in kinds) + "".join("%16s" % (k + " +us/file") for k in kinds[1:]))
for ph in ("create", "stat", "unlink"):
    rate = {k: statistics.median(float(r[4]) for r in rows if r[0] == k and r[1] == ph) for k in kinds}
    print("%-7s" % ph + "".join("%12.0f" % rate[k] for k in kinds) +
          "".join("%16.3f" % (1e6 / rate[k] - 1e6 / rate["plain"]) for k in kinds[1:]))
PY
