#!/usr/bin/env bash
# The closed loop, measured: an IOR-like workload (bench_replay_ior_plain: every rank writes
# COUNT transfers of SIZE bytes to its block of a shared file with POSIX, fsync, close, then
# reads them back) is traced with iolens; `iolens whatif` detects its patterns (shown), builds
# the base config of the trace and, for each pattern of PATTERNS, the variant with the card's
# change, and replays base and variants ROUNDS (>= 5) times in rotating order. Printed: the
# detection, the whatif table (median time over the rounds, speed-up = base median / variant
# median, min-max), and one line per config with every round's time. Figures only.
#
#   [NP=2] [SIZE=4096] [COUNT=4096] [MODE=posix-shared] [DIR=/dev/shm]
#   [PATTERNS=access_granularity,interface_choice | PATTERNS=detected] [OUT=FILE.json]
#   bench/whatif/whatif.sh [BUILD_DIR] [ROUNDS]
#
# The traced program writes below /tmp (so that the trace's files are not under /dev/, which
# Darshan's rules, and so detection, leave out); the replays run below DIR (tmpfs by default).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rounds=${2:-7}
[ "$rounds" -ge 5 ] || { echo "need >= 5 rounds" >&2; exit 2; }
iolens=$build/iolens
plain=$build/bench/replay/bench_replay_ior_plain
[ -x "$plain" ] || { echo "bench_replay_ior_plain not built (needs MPI)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
np=${NP:-2}; size=${SIZE:-4096}; count=${COUNT:-4096}; mode=${MODE:-posix-shared}
patterns=${PATTERNS:-access_granularity,interface_choice}
work=$(mktemp -d /tmp/iolens-whatif-bench.XXXXXX)
scratch=$(mktemp -d "${DIR:-/dev/shm}/iolens-whatif-bench.XXXXXX")
trap 'rm -rf "$work" "$scratch"' EXIT
mkdir -p "$work/data"

echo "# $(date -u '+%F %T') UTC; load: $(uptime | sed 's/.*load average/load average/')"
echo "# workload: $mode, $np rank(s), $count x $size B per rank, write+fsync then read"
mpirun --oversubscribe --allow-run-as-root -np "$np" "$iolens" trace -o "$work/run.trace" -- \
  "$plain" "$mode" "$size" "$count" "$work/data" > /dev/null
"$iolens" whatif "$work/run.trace" --dry-run --json > "$work/detect.json" 2> /dev/null
python3 - "$work/detect.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["detection"]
print("# detected (tau 0.3): " + (", ".join(f"{p} ({d['probabilities'][p]:.3f})" for p in d["patterns"]) or "none"))
PY
pat=(--pattern "$patterns")
[ "$patterns" != detected ] || pat=()   # the closed loop: the patterns the classifier detects
"$iolens" whatif "$work/run.trace" --np "$np" --rounds "$rounds" "${pat[@]}" --root "$scratch" --json \
  > "$work/whatif.json"
[ -z "${OUT:-}" ] || cp "$work/whatif.json" "$OUT"
python3 - "$work/whatif.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cs = r["configs"]; base = cs[0]
print(f"# {r['rounds']} rounds, {r['nranks']} ranks; time = sum of the steps' earliest-open-to-latest-close")
print(f"{'config':24s} {'status':18s} {'median_s':>10s} {'speedup':>8s} {'min_s':>10s} {'max_s':>10s} {'bytes':>11s}  per-step median MB/s")
for c in cs:
    if "runs" not in c:
        print(f"{c['name']:24s} {c.get('status','')}: {c['note']}")
        continue
    steps = c["runs"][0]["steps"]
    bw = []
    for k, s in enumerate(steps):
        v = sorted(run["steps"][k]["bandwidth_bytes_per_s"] for run in c["runs"])
        bw.append(f"{s['method']}[{s['interface']}] {v[len(v)//2]/1e6:.0f}")
    sp = f"{c['speedup']:.2f}x" if "speedup" in c else "-"
    print(f"{c['name']:24s} {c.get('status','base'):18s} {c['median_seconds']:10.4f} {sp:>8s} {c['min_seconds']:10.4f} {c['max_seconds']:10.4f} {c['bytes']:11d}  {'; '.join(bw)}")
for c in cs:
    if "runs" in c:
        print(f"# {c['name']}: " + " ".join(f"{x['seconds']:.4f}" for x in c["runs"]))
PY
echo "# load at the end: $(uptime | sed 's/.*load average/load average/')"
