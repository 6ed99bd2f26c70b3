#!/usr/bin/env bash
# Trace -> Darshan-equivalent counters -> 157 features -> 8 model predictions, per trace (the
# path of `iolens detect TRACE`), medians over REPS runs: every Recorder trace directory of
# ../shared/data/recorder (with --all-paths: their files are in /dev/shm) and iolens traces of
# the workloads of ../shared/data/darshan/generated traced here (dd 64 MiB; small_writes and
# large_seq under mpirun -np 4 when mpicc/mpirun exist), written to a scratch folder.
# usage: bench/detect/run_traces.sh [BUILD_DIR] [REPS]   (milliseconds, wall/cpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
reps=${2:-21}
data=${IOLENS_SHARED_DATA:-$root/../shared/data}
bench=$build/bench/detect/bench_detect_darshan
w=$(mktemp -d "${TMPDIR:-/tmp}/iolens-bench-traces.XXXXXX")
trap 'rm -rf "$w"' EXIT
mapfile -t rec < <(for d in "$data"/recorder/*/; do [ -f "$d/VERSION" ] && echo "${d%/}"; done)
echo "== Recorder traces (--all-paths)"
"$bench" --all-paths "$root/models" "$reps" "${rec[@]}"
"$build/iolens" trace -o "$w/dd_64MiB.trace" -- dd if=/dev/zero of="$w/dd.out" bs=1M count=64 2>/dev/null
rm -f "$w/dd.out"
traces=("$w/dd_64MiB.trace")
g=$data/darshan/generated/workloads
if command -v mpicc >/dev/null && command -v mpirun >/dev/null && [ -f "$g/small_writes.c" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  root_opt=(); [ "$(id -u)" = 0 ] && root_opt=(--allow-run-as-root)
  for wl in small_writes large_seq; do
    mkdir -p "$w/$wl"
    mpicc -O2 -o "$w/$wl/$wl" "$g/$wl.c"
    (cd "$w/$wl" && mpirun --oversubscribe "${root_opt[@]}" -np 4 "$build/iolens" trace -o "$w/$wl.trace" -- \
      "./$wl" "$w/$wl") >"$w/$wl.log" 2>&1 || { echo "$wl: traced run failed:"; tail -5 "$w/$wl.log"; cat "$w/$wl.log"; exit 1; }
    rm -rf "$w/$wl"
    traces+=("$w/$wl.trace")
  done
fi
echo "== iolens traces (Darshan's path exclusions)"
"$bench" "$root/models" "$reps" "${traces[@]}"
