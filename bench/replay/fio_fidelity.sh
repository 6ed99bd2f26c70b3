#!/usr/bin/env bash
# Replay fidelity on fio: every round traces each job once with iolens and builds a config from
# that trace, then runs fio twice (the second run against the first is the A/A control, the
# machine's noise floor; each of the two has its own place in the round's order, as every replay
# has), the replay on the fly of the round's trace (`iolens replay TRACE`), the same with --delays
# (the recorded time between calls reproduced), the replay of `iolens replay --config-from TRACE`,
# and the same with --cold-reads (read steps start with the file's pages dropped, as fio's
# invalidate=1 does), in an order shuffled anew every round. Per round, replay bandwidth / fio's
# own reported bandwidth for the job's phase; medians over the rounds. fio's figure is that of its
# "Run status group" line: the bytes of all its jobs over the longest job's runtime, as the
# replay's is the bytes over the span of all its processes (the sum of the jobs' own rates is
# larger whenever one job finishes first: 0.93 of it in most runs of two 512 MiB jobs on tmpfs
# here, 0.29 in one). Every run starts from the same state: the previous run's writeback done
# (sync), fio's files of a write job removed (the traced run wrote a new file, and so does each
# replay). "traced" is the figure fio reported for the round's traced run itself, over fio run 1
# of the round: a replay reproduces the run it was made from (its pace is in the trace), and one
# run of fio can be far from another, so each round replays a trace of its own rather than all
# rounds one trace. The next two columns are the --delays and config replays over the round's
# traced run: how closely each reproduces the run it replays. For a read job, the last two are
# the on-the-fly replay and its --delays run reading a file fio laid out (a new one each run, as
# for fio's runs, hard-linked into the replay's root, where the replay finds it and reads it
# without creating or changing it) instead of the input the replay writes itself: on tmpfs a
# file reads as fast as the memory its pages got (on one virtual machine, fio itself read the
# replay's 1 GiB input at 12.8-13.7 GB/s and its own laid-out one at 9.5-10.4, the replay that
# one at 9.9-10.5), so these two compare the reads alone.
#
#   bench/replay/fio_fidelity.sh [--dir DIR] [--rounds N] [--only REGEX] [--resolution NS] [--keep-reporting]
#
# DIR (default /dev/shm) holds the data; run it again with --dir /tmp for ext4. --resolution: the
# traces' timestamp unit (iolens trace --resolution; default 1000 ns).
#
# While it runs, the bench holds freed memory back from a virtual machine's host (lib.sh:
# hold_reporting; new page cache written into reported memory is slow in some runs);
# --keep-reporting leaves it alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
dir=/dev/shm rounds=5 only=. keep_reporting=0 res=1000
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --resolution) res=$2; shift 2 ;;
    --keep-reporting) keep_reporting=1; shift ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fio_fidelity.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$rounds" -ge 5 ] || { echo "fio_fidelity.sh: need at least 5 rounds" >&2; exit 2; }
w=$(mktemp -d "$dir/iolens-fio-fidelity.XXXXXX")
# KEEP=1 keeps the folder (traces, configs, every run's JSON) and prints its name
cleanup() {
  release_reporting
  [ -n "${KEEP:-}" ] || rm -rf "$w"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && echo "kept: $w" >&2
[ "$keep_reporting" = 1 ] || hold_reporting
# name | phase | fio options (the data folder is added)
jobs=(
# (sizes such that the shortest run lasts ~0.1 s: fio reports bandwidth from a runtime in whole
# milliseconds, 6% apart at 16 ms)
  "seq-write-1m|write|--rw=write --bs=1m --size=1g"
  "seq-write-4k|write|--rw=write --bs=4k --size=384m"
  "rand-write-4k|write|--rw=randwrite --bs=4k --size=384m"
  "seq-write-4m|write|--rw=write --bs=4m --size=1g"
  "seq-write-1m-2jobs|write|--rw=write --bs=1m --size=512m --numjobs=2"
  "seq-write-1m-4jobs|write|--rw=write --bs=1m --size=256m --numjobs=4"
  "fsync-write-64k|write|--rw=write --bs=64k --size=384m --fsync=1"
  "seq-read-1m|read|--rw=read --bs=1m --size=1g"
  "seq-read-4m|read|--rw=read --bs=4m --size=1g"
  "rand-read-4k|read|--rw=randread --bs=4k --size=128m"
# metadata engines: fio's IOPS (a file created or stat'ed is one I/O) against the replays'
# rates of that call (on the fly: the span of the trace's creating opens or stats)
  "filecreate-5k|create|--ioengine=filecreate --rw=write --nrfiles=5000 --filesize=4k --bs=4k --openfiles=1 --create_on_open=1"
  "filestat-20k|stat|--ioengine=filestat --rw=read --nrfiles=20000 --filesize=4k --bs=4k --openfiles=1"
)
fio_bw() { # fio_bw PHASE JSON -> bytes/s of all jobs over the longest runtime (create, stat: operations/s)
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[2])); ph=sys.argv[1]
if ph in ("create", "stat"): print(sum(j["write" if ph == "create" else "read"]["iops"] for j in d["jobs"]))
else: print(sum(j[ph]["io_bytes"] for j in d["jobs"]) * 1000.0 / max(j[ph]["runtime"] for j in d["jobs"]))' "$1" "$2"
}
# fio's IOPS of a metadata job is its job process's: fio's main process (trace rank 0) stats or
# lays out the files first, and its job runs in a process of its own (rank 1). So the on-the-fly
# rate is that of the calls of rank 1 (its row in the replay's per-rank metadata spans), and the
# config rate that of the last step with the phase (the job's; the main process's checks are
# a step before it).
otf_bw() { # otf_bw PHASE JSON
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[2])); ph=sys.argv[1]
if ph in ("create", "stat"):
    r=[x for m in d.get("metadata", []) if m["call"] == ph for x in m.get("ranks", []) if x["rank"] >= 1]
    print(sum(x["calls"] for x in r) / max(x["span_seconds"] for x in r) if r else "nan")
else: print(d[ph + "_bandwidth_bytes_per_s"])' "$1" "$2"
}
cfg_bw() { # cfg_bw PHASE JSON: bytes / seconds of the config's steps of that phase (create, stat: the last step's metadata phase rate)
  "$PY" -c 'import json,sys; st=json.load(open(sys.argv[2]))["steps"]; ph=sys.argv[1]
if ph in ("create", "stat"): print(([p["ops_per_s"] for x in st for p in x.get("phases", []) if p["phase"] == ph] or ["nan"])[-1])
else:
    s=[x for x in st if x["method"] == ph]; print(sum(x["bytes"] for x in s) / sum(x["seconds"] for x in s))' "$1" "$2"
}
# before every timed run: the previous run's writeback done (sync); for a write job, fio's files
# removed, so that fio writes a new file as in the traced run (an existing file is overwritten in
# place: another workload, and on ext4 a slower one while its last writeback runs).
# For a read job, fio's file is laid out anew before every run of fio and read once, untimed
# (fio_layout in lib.sh): the replays read files they have just written and read once (the
# on-the-fly replay's inputs, the config replay's prefill); like is compared with like.
layout() { fio_layout "$d/data" "${o[@]}"; }
# A read job's file is dropped from the page cache before every run: left cached by fio's run, a
# replay right after it read its own 1 GiB cold at 0.3 of the speed it had after another replay
# (ext4 on a virtual disk; fio drops its file itself before reading, so this changes nothing for it).
drop() { /usr/bin/python3 -c 'import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$d/data"/*; }
writes() { [ "$phase" = write ] || [ "$phase" = create ]; }
settle() { sync; if writes; then rm -f "$d/data"/*; else drop; fi; sync; }
settle_fio() { writes || layout; settle; }
fio_input() { mkdir -p "$d/root$d/data" && ln "$d/data"/* "$d/root$d/data"/; }  # fio's file, where the replay looks
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print b / a}' >>"$d/$3"; }  # ratio DENOMINATOR NUMERATOR FILE: appends b / a
printf '%-20s %-6s %10s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s   (%s, %d rounds; median of per-round ratios to fio run 1; dly:trc, cfg:trc to the traced run of the round; fly·F, dly·F on fio'"'"'s file)\n' \
  job phase "MiB|op/s" "A/A" "traced" "on-fly" "delays" "config" "cold" "dly:trc" "cfg:trc" "fly·F" "dly·F" "$(fstype "$w")" "$rounds"
for j in "${jobs[@]}"; do
  IFS='|' read -r name phase opts <<<"$j"
  [[ $name =~ $only ]] || continue
  d=$w/$name; mkdir -p "$d/data" "$d/root"
  read -r -a o <<<"$opts"
  fio_cmd "$d/data" "${o[@]}"  # (every run timed by clock_gettime: see lib.sh)
  for f in base aa otf dly cfg cold trc dt ct otff dlyf; do : >"$d/$f"; done
  kinds="0 1 2 3 4 5"; [ "$phase" = read ] && kinds="$kinds 6 7"
  for r in $(seq 1 "$rounds"); do
    # the round's trace and config: the traced run's own figure is what the replays reproduce
    # (its pace is in the trace's gaps)
    settle_fio; rm -rf "$d/t" "$d/c.json"
    "$IOLENS" trace --resolution "$res" -o "$d/t" -- "${fio[@]}" >"$d/traced.json" 2>"$d/trace.err"
    tb=$(fio_bw "$phase" "$d/traced.json"); cp "$d/traced.json" "$d/traced$r.json"
    "$IOLENS" replay --config-from "$d/t" -o "$d/c.json" 2>/dev/null
    # a seeded shuffle per round (per job): with a rotation, each kind of run always followed the
    # same other kind (the on-the-fly replay always came right after fio's runs)
    for k in $(shuffle "$r$((${#name} * 7))" $kinds); do
      case $k in
        0) settle_fio; "${fio[@]}" >"$d/f1.json" 2>/dev/null; a=$(fio_bw "$phase" "$d/f1.json") ;;
        5) settle_fio; "${fio[@]}" >"$d/f2.json" 2>/dev/null; b=$(fio_bw "$phase" "$d/f2.json") ;;
        1) settle; "$IOLENS" replay "$d/t" --root "$d/root" --json >"$d/o.json" 2>/dev/null; ob=$(otf_bw "$phase" "$d/o.json"); cp "$d/o.json" "$d/o$r.json" ;;
        2) settle; "$IOLENS" replay "$d/c.json" --root "$d/root" --json >"$d/c.out" 2>/dev/null; cb=$(cfg_bw "$phase" "$d/c.out") ;;
        3) settle; "$IOLENS" replay "$d/c.json" --root "$d/root" --json --cold-reads >"$d/k.out" 2>/dev/null; kb=$(cfg_bw "$phase" "$d/k.out") ;;
        4) settle; "$IOLENS" replay "$d/t" --root "$d/root" --json --delays >"$d/y.json" 2>/dev/null; yb=$(otf_bw "$phase" "$d/y.json") ;;
        6) settle_fio; fio_input; "$IOLENS" replay "$d/t" --root "$d/root" --json >"$d/of.json" 2>/dev/null; ofb=$(otf_bw "$phase" "$d/of.json"); rm -rf "$d/root$d/data" ;;
        7) settle_fio; fio_input; "$IOLENS" replay "$d/t" --root "$d/root" --json --delays >"$d/yf.json" 2>/dev/null; yfb=$(otf_bw "$phase" "$d/yf.json"); rm -rf "$d/root$d/data" ;;
      esac
    done
    echo "$a" >>"$d/base"
    ratio "$a" "$b" aa
    ratio "$a" "$ob" otf
    ratio "$a" "$yb" dly
    ratio "$a" "$cb" cfg
    ratio "$a" "$kb" cold
    ratio "$a" "$tb" trc
    ratio "$tb" "$yb" dt
    ratio "$tb" "$cb" ct
    if [ "$phase" = read ]; then ratio "$a" "$ofb" otff; ratio "$a" "$yfb" dlyf; fi
  done
  unit=1048576; writes || [ "$phase" = read ] || unit=1  # (create, stat: operations/s)
  [ "$phase" = create ] && unit=1
  printf '%-20s %-6s %10.0f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8s %8s\n' "$name" "$phase" "$(median <"$d/base" | awk -v u="$unit" '{print $1 / u}')" \
    "$(median <"$d/aa")" "$(median <"$d/trc")" "$(median <"$d/otf")" "$(median <"$d/dly")" "$(median <"$d/cfg")" "$(median <"$d/cold")" \
    "$(median <"$d/dt")" "$(median <"$d/ct")" "$(median <"$d/otff" | awk '$1 == "nan" {print "-"; next} {printf "%.3f", $1}')" \
    "$(median <"$d/dlyf" | awk '$1 == "nan" {print "-"; next} {printf "%.3f", $1}')"
done
