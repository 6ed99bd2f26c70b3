#!/usr/bin/env bash
# Replay fidelity: IOR-like runs of bench_replay_ior_plain are traced
# with iolens (once, or anew every round with TRACE=round), then replayed (a) from the config `iolens replay --config-from` builds and
# (b) on the fly (`mpirun -np N iolens replay TRACE`). Every round runs the original and both
# replays back to back, in an order that rotates from round to round (so none always follows
# another's teardown); per round the ratios replay/original of the write and read bandwidth;
# the medians of those ratios over ROUNDS (>= 5) rounds are printed, with the median bandwidths.
# The original runs twice per round; the ratio of its second run to its first (aa_w, aa_r) is
# the noise floor of the machine: a replay ratio is only as precise as that control.
#
#   [MODES="posix-shared posix-fpp mpiio-indep mpiio-coll"] [SIZES="1048576 4096"] [RANKS="1 2 4"]
#   [DIR=/dev/shm] [MIB=64] [RAW=FILE] [TRACE=round|once] bench/replay/fidelity.sh [BUILD_DIR] [ROUNDS] [CSV]
#
# Besides the medians of the per-round ratios, best_w / best_r are the ratios of the best
# bandwidths over the rounds (replay's best / original's best): on a loaded machine the best of
# N runs is the least disturbed one. RAW=FILE keeps every round's bandwidths.
# MIB: MiB each rank writes then reads (at 4 KiB transfers a quarter of it). Output: one row per
# (mode, transfer size, ranks), human table on stdout, CSV rows to CSV if given (Markdown:
# bench/replay/fidelity_table.py CSV). Figures only. pcfg_*/potf_* (pooled): each replay's
# median bandwidth over the median of all 2 x ROUNDS runs of the original (see below).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rounds=${2:-5}
csv=${3:-}
[ "$rounds" -ge 5 ] || { echo "need >= 5 rounds" >&2; exit 2; }
iolens=$build/iolens
plain=$build/bench/replay/bench_replay_ior_plain
[ -x "$plain" ] || { echo "bench_replay_ior_plain not built (needs MPI)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun=(mpirun --oversubscribe --allow-run-as-root)
scratch=$(mktemp -d "${DIR:-/dev/shm}/iolens-fidelity.XXXXXX")
. "$root/bench/replay/lib.sh"
trap 'release_reporting; rm -rf "$scratch"' EXIT
hold_reporting
mib=${MIB:-64}

run_plain() { # -> "write_bw read_bw"
  mkdir -p "$scratch/orig"
  "${mpirun[@]}" -np "$np" "$plain" "$mode" "$size" "$count" "$scratch/orig"
  rm -rf "$scratch/orig"
}
# The JSON goes to a file and is parsed afterwards: a parser started in a pipeline would
# compete for the 2 cores with the replay's timed phases (the original prints 2 numbers).
run_config() {
  "${mpirun[@]}" -np "$np" "$iolens" replay "$scratch/cfg.json" --root "$scratch/rc" --json > "$scratch/out.json"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; print(s[0]["bandwidth_bytes_per_s"], s[1]["bandwidth_bytes_per_s"])' "$scratch/out.json"
}
run_otf() {
  "${mpirun[@]}" -np "$np" "$iolens" replay "$scratch/T" --root "$scratch/ro" --json > "$scratch/out.json" 2> "$scratch/err" \
    || { cat "$scratch/err" >&2; exit 1; }
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["write_bandwidth_bytes_per_s"], j["read_bandwidth_bytes_per_s"])' "$scratch/out.json"
}

echo "# load: $(uptime)"
printf "%-12s %8s %5s %10s %10s %10s %7s %7s %10s %10s %10s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n" mode transfer ranks \
  orig_w_MB/s cfg_w_MB/s otf_w_MB/s cfg_w otf_w orig_r_MB/s cfg_r_MB/s otf_r_MB/s cfg_r otf_r aa_w aa_r \
  bcfg_w botf_w bcfg_r botf_r pcfg_w potf_w pcfg_r potf_r
[ -z "$csv" ] || echo "mode,transfer,ranks,rounds,orig_w,cfg_w,otf_w,cfg_w_ratio,otf_w_ratio,orig_r,cfg_r,otf_r,cfg_r_ratio,otf_r_ratio,aa_w_ratio,aa_r_ratio,best_cfg_w,best_otf_w,best_cfg_r,best_otf_r,pooled_cfg_w,pooled_otf_w,pooled_cfg_r,pooled_otf_r" > "$csv"
for mode in ${MODES:-posix-shared posix-fpp mpiio-indep mpiio-coll}; do
  for size in ${SIZES:-1048576 4096}; do
    count=$(( size == 4096 ? mib * 64 : mib * 1048576 / size ))
    for np in ${RANKS:-1 2 4}; do
      : > "$scratch/rows"
      for i in $(seq "$rounds"); do
        # the original traced: the trace both replays of the round start from, once for all
        # rounds (TRACE=once, the default) or anew every round (TRACE=round: a replay reproduces
        # the pace of the run it was made from, and one run is not another; side by side on ext4
        # at 4 KiB it was the noisier of the two, with one more write and removal of the
        # program's files per round)
        if [ "$i" = 1 ] || [ "${TRACE:-once}" = round ]; then
          mkdir -p "$scratch/orig"; rm -rf "$scratch/T" "$scratch/cfg.json"
          "${mpirun[@]}" -np "$np" "$iolens" trace -o "$scratch/T" -- "$plain" "$mode" "$size" "$count" "$scratch/orig" > /dev/null 2>&1
          rm -rf "$scratch/orig"
          "$iolens" replay --config-from "$scratch/T" -o "$scratch/cfg.json"
        fi
        # rotate the order: round i starts with program (i-1) mod 4
        progs=(plain config otf again); k=$(( (i - 1) % 4 )); order="${progs[*]:k} ${progs[*]:0:k}"
        for who in $order; do
          case $who in
            plain) p=$(run_plain) ;;
            again) a=$(run_plain) ;;   # the original again: the noise floor (A/A)
            config) c=$(run_config) ;;
            otf) o=$(run_otf) ;;
          esac
        done
        echo "$p $c $o $a" >> "$scratch/rows"
      done
      # columns: pw pr cw cr ow or aw ar; per round ratios to the original, then medians
      [ -z "${RAW:-}" ] || sed "s/^/$mode $size $np /" "$scratch/rows" >> "$RAW"
      awk '{ print $1, $3, $5, $3/$1, $5/$1, $2, $4, $6, $4/$2, $6/$2, $7/$1, $8/$2 }' "$scratch/rows" > "$scratch/r"
      m=(); for k in $(seq 12); do m+=("$(cut -d' ' -f$k "$scratch/r" | median)"); done
      # best of the rounds: original (max of both runs), config, on the fly
      b=$(awk '{ for (k = 1; k <= 8; k++) if ($k > x[k]) x[k] = $k }
        END { ow = x[1] > x[7] ? x[1] : x[7]; orr = x[2] > x[8] ? x[2] : x[8];
              print x[3]/ow, x[5]/ow, x[4]/orr, x[6]/orr }' "$scratch/rows")
      m+=($b)
      # pooled: the replays' median bandwidth over the original's median over both of its runs
      # per round (2 x ROUNDS runs): the original's bandwidth can fall into a few levels from run
      # to run (1 MiB reads from tmpfs: ~4.4, ~6.4 or ~8.0 GB/s at 1 rank), which pairing does
      # not cancel; pooling its two runs halves the noise of the reference
      pw=$( (cut -d' ' -f1 "$scratch/rows"; cut -d' ' -f7 "$scratch/rows") | median)
      pr=$( (cut -d' ' -f2 "$scratch/rows"; cut -d' ' -f8 "$scratch/rows") | median)
      pl=$(awk -v a="${m[1]}" -v b="${m[2]}" -v c="${m[6]}" -v d="${m[7]}" -v w="$pw" -v r="$pr" \
        'BEGIN { print a / w, b / w, c / r, d / r }')
      m+=($pl)
      awk -v mo="$mode" -v s="$size" -v n="$np" -v a="${m[*]}" 'BEGIN { split(a, v, " ");
        printf "%-12s %8d %5d %10.0f %10.0f %10.0f %7.3f %7.3f %10.0f %10.0f %10.0f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n",
          mo, s, n, v[1]/1e6, v[2]/1e6, v[3]/1e6, v[4], v[5], v[6]/1e6, v[7]/1e6, v[8]/1e6, v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20] }'
      [ -z "$csv" ] || echo "$mode,$size,$np,$rounds,$(echo "${m[*]}" | tr ' ' ',')" >> "$csv"
    done
  done
done
echo "# load: $(uptime)"
