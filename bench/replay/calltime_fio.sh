#!/usr/bin/env bash
# Where a replay's time per call goes, against fio's, without the tracer: fio's 4 KiB jobs (those
# of fio_fidelity.sh) are traced once each, then every round runs fio, the replay of
# `iolens replay --config-from` of the trace and the on-the-fly replay with --delays, in an order
# shuffled anew every round, each under calltime.so (bench/replay/calltime.c: an LD_PRELOAD timer
# of the 4 KiB transfer calls, two clock reads a call). Per kind of run, medians over the rounds of
# its MiB/s (fio's own figure; the replays' phase figures), of the mean duration of its 4 KiB calls
# (call_ns) and of the mean time from one such call's end to the next one's start (gap_ns, the
# program's own time per call; gaps of 1 ms or more left out). "cfg gap" is the config's
# gap_seconds: what the config replay waits between calls, on top of its own loop. A read job's
# rounds also run `dd bs=4k` over fio's file (sequential, whatever the job's order): a plain
# reader's time per 4 KiB read (its gap holds its write to /dev/null).
#
#   bench/replay/calltime_fio.sh [--dir DIR] [--rounds N] [--only REGEX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
CALLTIME=${CALLTIME:-$src/build/bench/replay/calltime.so}
PY=/usr/bin/python3
dir=/dev/shm rounds=7 only=.
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "calltime_fio.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$rounds" -ge 5 ] || { echo "calltime_fio.sh: need at least 5 rounds" >&2; exit 2; }
[ -e "$CALLTIME" ] || { echo "calltime_fio.sh: no $CALLTIME (make bench_replay_calltime)" >&2; exit 2; }
w=$(mktemp -d "$dir/iolens-calltime.XXXXXX"); trap 'release_reporting; rm -rf "$w"' EXIT
hold_reporting
jobs=(
  "seq-write-4k|write|--rw=write --bs=4k --size=384m"
  "rand-write-4k|write|--rw=randwrite --bs=4k --size=384m"
  "seq-read-4k|read|--rw=read --bs=4k --size=128m"
  "rand-read-4k|read|--rw=randread --bs=4k --size=128m"
)
# the calltime line of the phase's calls of the process that made the most of them (fio's job
# process; the replay's worker, whose prefill writes of a read step are a line of their own)
ct() { awk -v k="$2" '$2 == k' "$1" | sort -k3,3n | tail -n 1; }
printf '%-14s %-6s %-7s %8s %8s %8s %8s   (%s, %d rounds; medians)\n' job phase run "MiB/s" call_ns gap_ns "cfg_gap" "$(fstype "$w")" "$rounds"
for j in "${jobs[@]}"; do
  IFS='|' read -r name phase opts <<<"$j"
  [[ $name =~ $only ]] || continue
  d=$w/$name; mkdir -p "$d/data" "$d/root"
  read -r -a o <<<"$opts"
  fio_cmd "$d/data" "${o[@]}"
  settle() { sync; if [ "$phase" = write ]; then rm -f "$d/data"/*; else fio_layout "$d/data" "${o[@]}"; fi; sync; }
  settle
  "$IOLENS" trace -o "$d/t" -- "${fio[@]}" >"$d/traced.json" 2>/dev/null
  "$IOLENS" replay --config-from "$d/t" -o "$d/c.json" 2>/dev/null
  gap=$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))
print(max((ch.get("gap_seconds", 0) for f in c["file_configs"] for ch in f.get("chunks", [f])), default=0) * 1e9)' "$d/c.json")
  kinds="fio cfg dly"; [ "$phase" = read ] && kinds="$kinds dd"
  for k in $kinds; do : >"$d/$k.bw"; : >"$d/$k.call"; : >"$d/$k.gap"; done
  for r in $(seq 1 "$rounds"); do
    for k in $(shuffle "$r${#name}" $kinds); do
      settle; rm -rf "$d/root"; mkdir -p "$d/root"; : >"$d/ct"
      case $k in
        fio) CALLTIME_OUT=$d/ct LD_PRELOAD=$CALLTIME "${fio[@]}" >"$d/f.json" 2>/dev/null
             "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); j=d["jobs"][0][sys.argv[2]]
print(j["io_bytes"] * 1000.0 / j["runtime"] / 2**20)' "$d/f.json" "$phase" >>"$d/fio.bw" ;;
        cfg) CALLTIME_OUT=$d/ct LD_PRELOAD=$CALLTIME "$IOLENS" replay "$d/c.json" --root "$d/root" --json >"$d/c.out" 2>/dev/null
             "$PY" -c 'import json,sys; s=[x for x in json.load(open(sys.argv[1]))["steps"] if x["method"] == sys.argv[2]]
print(sum(x["bytes"] for x in s) / sum(x["seconds"] for x in s) / 2**20)' "$d/c.out" "$phase" >>"$d/cfg.bw" ;;
        dly) CALLTIME_OUT=$d/ct LD_PRELOAD=$CALLTIME "$IOLENS" replay "$d/t" --delays --root "$d/root" --json >"$d/y.json" 2>/dev/null
             "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2] + "_bandwidth_bytes_per_s"] / 2**20)' "$d/y.json" "$phase" >>"$d/dly.bw" ;;
        dd) CALLTIME_OUT=$d/ct LD_PRELOAD=$CALLTIME dd if="$(ls "$d/data"/* | head -n 1)" of=/dev/null bs=4k 2>"$d/dd.err"
            awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "copied,") {print $1 / $(i + 1) / 2^20; exit}}' "$d/dd.err" >>"$d/dd.bw" ;;
      esac
      read -r _ _ _ c g <<<"$(ct "$d/ct" "$phase")"
      echo "$c" >>"$d/$k.call"; echo "$g" >>"$d/$k.gap"
    done
  done
  for k in $kinds; do
    printf '%-14s %-6s %-7s %8.0f %8.0f %8.0f %8s\n' "$name" "$phase" "$k" "$(median <"$d/$k.bw")" \
      "$(median <"$d/$k.call")" "$(median <"$d/$k.gap")" "$([ $k = cfg ] && printf '%.0f' "$gap" || echo -)"
  done
done
