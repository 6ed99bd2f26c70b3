#!/usr/bin/env bash
# Trace size per section on the workloads of recorder-trace-format.md §5
# (shared file strided and checkpoint, N = 2 and 4 ranks, M = 10, 100, 1000),
# next to Recorder 2.5.0's published figures. Sizes are deterministic except
# timestamps; the median of REPS runs is reported.
# usage: bench/trace/sizes.sh [BUILD_DIR] [REPS]   (prints a table; CSV with CSV=1)
# MODE=preload (default: mpirun -x LD_PRELOAD -x IOLENS_TRACE_OUT, built at MPI_Finalize) or
# MODE=wrapper (mpirun iolens trace -- app).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; reps=${2:-3}
iolens=$build/iolens; wl=$build/bench/trace/bench_io_workload
command -v mpirun >/dev/null && [ -x "$wl" ] || { echo "needs mpirun and $wl (MPI build)"; exit 77; }
scratch=$(mktemp -d /dev/shm/iolens-bench-XXXXXX); trap 'rm -rf "$scratch"' EXIT
declare -A REC_CST=( [shared,2,10]=420 [shared,2,100]=2889 [shared,2,1000]=31814 [shared,4,1000]=64615 [checkpoint,2,1000]=28366 [checkpoint,4,1000]=56581 )
declare -A REC_CFG=( [shared,2,10]=152 [shared,2,100]=772 [shared,2,1000]=6212 [shared,4,1000]=12423 [checkpoint,2,1000]=9215 [checkpoint,4,1000]=18422 )
declare -A REC_TOT=( [shared,2,10]=4032 [shared,2,100]=8742 [shared,2,1000]=56505 [shared,4,1000]=114074 [checkpoint,2,1000]=58322 [checkpoint,4,1000]=119194 )
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-10s %2s %5s %8s %9s %6s %8s %7s %9s %9s %9s\n' workload N M calls structure ts ts/call total rec.cst+cfg rec.total ratio
[ "${CSV:-0}" = 1 ] && echo "workload,N,M,calls,header,meta,structure_section,structure_total,timestamps,ts_bytes_per_call,total"
for w in shared checkpoint; do
  for n in 2 4; do
    for m in 10 100 1000; do
      structs=(); tss=(); tots=()
      for r in $(seq "$reps"); do
        mkdir -p "$scratch/d"
        if [ "${MODE:-preload}" = wrapper ]; then
          mpirun --oversubscribe --allow-run-as-root -np "$n" "$iolens" trace -o "$scratch/t.trace" -- "$wl" "$w" "$scratch/d" "$m" >/dev/null 2>"$scratch/err" || { cat "$scratch/err"; exit 1; }
        else
          mpirun --oversubscribe --allow-run-as-root -np "$n" -x LD_PRELOAD="$build/src/shim/libiolens_shim.so" -x IOLENS_TRACE_OUT="$scratch/t.trace" "$wl" "$w" "$scratch/d" "$m" >/dev/null 2>"$scratch/err" || { cat "$scratch/err"; exit 1; }
        fi
        "$iolens" trace --info "$scratch/t.trace" --json >"$scratch/info.json"
        get() { grep "\"$1\"" "$scratch/info.json" | head -1 | tr -dc '0-9'; }
        calls=$(get calls); h=$(get header); me=$(get meta); st=$(get structure); ts=$(get timestamps); tot=$(get total)
        structs+=($((h + me + st))); tss+=("$ts"); tots+=("$tot")
        rm -rf "$scratch/d" "$scratch/t.trace"
      done
      s=$(printf '%s\n' "${structs[@]}" | median); t=$(printf '%s\n' "${tss[@]}" | median); T=$(printf '%s\n' "${tots[@]}" | median)
      k="$w,$n,$m"; rc=${REC_CST[$k]:-}; rf=${REC_CFG[$k]:-}; rt=${REC_TOT[$k]:-}
      recs=$([ -n "$rc" ] && echo $((rc + rf)) || echo -); rect=${rt:--}
      ratio=$([ -n "$rt" ] && awk -v a="$rt" -v b="$T" 'BEGIN{printf "%.0fx", a/b}' || echo -)
      printf '%-10s %2s %5s %8s %9s %6s %8.2f %7s %9s %9s %9s\n' "$w" "$n" "$m" "$calls" "$s" "$t" "$(awk -v a="$t" -v b="$calls" 'BEGIN{print a/b}')" "$T" "$recs" "$rect" "$ratio"
      [ "${CSV:-0}" = 1 ] && echo "$w,$n,$m,$calls,$h,$me,$st,$s,$t,$(awk -v a="$t" -v b="$calls" 'BEGIN{print a/b}'),$T"
    done
  done
done
echo "structure = header + metadata + structure sections (everything except timestamps); ts = timestamp section."
echo "calls = the program's POSIX calls + MPI_Init/MPI_Finalize (MPI's bootstrap I/O is not traced, as in Recorder);"
echo "each checkpoint iteration also unlinks its file (to keep /dev/shm small): 4 calls per iteration instead of 3."
