#!/usr/bin/env bash
# Runs the real-program detection suite (or the runs matching --only) afresh and diagnoses each
# run from its trace with `iolens detect`, beside the labels its configuration induces:
#
#   bench/detect/suite/check.sh [-o DIR] [--only REGEX] [--repeat N] [--scratch DIR]
#
# Prints one line per run, "name repeat detected configuration contradictions" (detected and
# configuration: the '+'-joined patterns or healthy; contradictions: a presented pattern whose
# card the run's counters contradict, or '-'), then a summary: runs diagnosed, runs whose detected
# set is their configuration's, runs with a contradiction, and with --repeat, the programs whose
# detected set changed between repeats. The shipped models were trained on these configurations:
# this is the regression figure (eval.sh gives the held-out one). DIR (default a temporary
# folder) keeps run.sh's outputs and DIR/runs.txt the per-run lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
export IOLENS=${IOLENS:-$src/build/iolens}
out= only=. repeat=1 scratch=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d "$scratch/iolens-suite-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] || out=$tmp/out
mkdir -p "$out"
bash "$here/run.sh" -o "$out" --scratch "$tmp" --only "$only" --repeat "$repeat" --keep --no-rows >"$out/run.log" 2>&1 ||
  { echo "check.sh: suite runs failed: $(tail -5 "$out/run.log")" >&2; exit 1; }
work=$(sed -n 's/^run.sh: run folders kept in //p' "$out/run.log")
[ -d "$work" ] || { echo "check.sh: no run folders" >&2; exit 1; }
# one detect and one features over all the traces (a trace that fails is missing from both)
"$IOLENS" detect --json "$work"/*/run.trace >"$work/detect.json" 2>"$work/detect.err" ||
  echo "check.sh: detect failed: $(head -1 "$work/detect.err")" >&2
"$IOLENS" features --json "$work"/*/run.trace >"$work/features.json" 2>"$work/features.err" ||
  echo "check.sh: features failed: $(head -1 "$work/features.err")" >&2
/usr/bin/python3 - "$work" "$out" <<'PY' | tee "$out/runs.txt"
import csv, glob, json, os, sys
work, out = sys.argv[1], sys.argv[2]
pats = ["access_granularity", "metadata_intensity", "parallelism_efficiency", "access_pattern",
        "interface_choice", "file_strategy", "throughput_utilization"]
labels = {r["scenario"]: r for r in csv.DictReader(open(out + "/labels.csv"))}
def by_log(path):
    try:
        return {x["log"]: x for x in json.load(open(path))}
    except Exception:
        return {}
dets, feats = by_log(work + "/detect.json"), by_log(work + "/features.json")
for d in sorted(glob.glob(work + "/*/")):
    name, rep = os.path.basename(d.rstrip("/")).rsplit(".", 1)
    try:
        det = dets[d + "run.trace"]
        f = feats[d + "run.trace"]["features"]
    except Exception:
        print(name, rep, "error", "-", "no-detect-output"); continue
    got = {p["pattern"] for p in det["detected"]}
    bad = []
    syncs = f["POSIX_FSYNCS"] + f["MPIIO_SYNCS"] + (f["iol_sync_ratio"] > 0)
    if "throughput_utilization" in got and syncs <= 0:
        bad.append("throughput_utilization-without-sync")
    if f["nprocs"] <= 1:
        bad += [p + "-with-one-process" for p in ("parallelism_efficiency", "interface_choice") if p in got]
    if "interface_choice" in got and f["iol_shared_bytes_ratio"] <= 0 and f["iol_shared_indep_ratio"] <= 0 \
            and f["is_shared_file"] <= 0:
        bad.append("interface_choice-without-shared-file")
    if "access_granularity" in got and f["POSIX_READS"] + f["POSIX_WRITES"] > 0:
        small = sum(f["POSIX_SIZE_%s_%s" % (rw, b)] for rw in ("READ", "WRITE")
                    for b in ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M"))
        small -= sum(f["POSIX_ACCESS%d_COUNT" % k] for k in range(1, 5) if f["POSIX_ACCESS%d_ACCESS" % k] == 1048576)
        if small <= 0:
            bad.append("access_granularity-without-small-requests")
    want = "+".join(x for x in pats if labels["%s_r%s" % (name, rep)][x] == "1") or "healthy"
    print(name, rep, "+".join(x for x in pats if x in got) or "healthy", want, ",".join(bad) or "-")
PY
n=$(wc -l <"$out/runs.txt")
same=$(awk '$3 == $4' "$out/runs.txt" | wc -l)
bad=$(awk '$5 != "-"' "$out/runs.txt" | wc -l)
echo "summary: $n runs diagnosed; $same get the detected set of their configuration; $bad with a card the counters contradict"
if [ "$repeat" -gt 1 ]; then
  for name in $(cut -d' ' -f1 "$out/runs.txt" | sort -u); do
    k=$(awk -v n="$name" '$1 == n {print $3}' "$out/runs.txt" | sort -u | wc -l)
    [ "$k" -eq 1 ] || echo "summary: $name: detected sets differ over $repeat runs: $(awk -v n="$name" '$1 == n {print $3}' "$out/runs.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
  done
fi
