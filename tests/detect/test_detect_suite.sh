# Real programs of the detection suite (bench/detect/suite), run afresh and diagnosed from their
# traces with `iolens detect`: (1) every run of the suite: no presented pattern's card contradicts
# the run's counters, and the detected set is the one its configuration induces (the shipped models
# were trained on these configurations: a regression check, the held-out figures are eval's);
# (2) ten runs each of five programs (fio, dd, tar, an mpi4py MPI-IO program, h5py) give one
# detected set.
. "$(dirname "$0")/../cli/lib.sh"
S=$IOLENS_SOURCE_DIR/bench/detect/suite
T=$IOLENS_TMP
for need in fio tar dd split sqlite3 mpirun; do
  command -v "$need" >/dev/null || { echo "skip: needs $need (scripts/install-deps.sh installs it)"; finish; }
done
/usr/bin/python3 -c 'import h5py, mpi4py' 2>/dev/null || { echo "skip: needs python3-h5py-mpi, python3-mpi4py"; finish; }
export IOLENS
mkdir -p "$T/scratch"
# check DIR: detect every kept trace of DIR's runs; prints "name repeat got want bad" per run
check() {
  local dir=$1 work
  work=$(sed -n 's/^run.sh: run folders kept in //p' "$dir.log")
  [ -d "$work" ] || { echo "no run folders"; return 1; }
  # one detect and one features over all the traces (a trace that fails is missing from both)
  "$IOLENS" detect --json "$work"/*/run.trace >"$work/detect.json" 2>"$work/detect.err" ||
    echo "detect failed: $(head -1 "$work/detect.err")" >&2
  "$IOLENS" features --json "$work"/*/run.trace >"$work/features.json" 2>"$work/features.err" ||
    echo "features failed: $(head -1 "$work/features.err")" >&2
  /usr/bin/python3 - "$work" "$dir" <<'PY'
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
    want = ";".join(x for x in pats if labels["%s_r%s" % (name, rep)][x] == "1") or "healthy"
    print(name, rep, ";".join(x for x in pats if x in got) or "healthy", want, ",".join(bad) or "-")
PY
}
# (1) every run once
if bash "$S/run.sh" -o "$T/all" --scratch "$T/scratch" --keep >"$T/all.log" 2>&1 && check "$T/all" >"$T/all.sets"; then
  n=$(wc -l <"$T/all.sets"); want=$(grep -vc '^#' "$S/suite.tsv")
  [ "$n" -eq "$want" ] && ok || fail "$n of $want suite runs diagnosed"
  awk '$5 != "-" {print}' "$T/all.sets" >"$T/contradict"
  [ ! -s "$T/contradict" ] && ok || fail "cards contradict the counters: $(tr '\n' ';' <"$T/contradict")"
  awk '$3 != $4 {print $1 ": detected " $3 ", configuration " $4}' "$T/all.sets" >"$T/differ"
  echo "suite: $((n - $(wc -l <"$T/differ"))) of $n runs get the detected set of their configuration"
  cat "$T/differ"
  # the shipped models were trained on these configurations: at most 3 fresh runs may differ
  [ "$(wc -l <"$T/differ")" -le 3 ] && ok || fail "$(wc -l <"$T/differ") suite runs differ from their labels"
else
  fail "suite runs failed: $(tail -5 "$T/all.log")"
fi
rm -rf "$T"/scratch/iolens-suite.*
# (2) ten runs each of five programs
rep='^(fio_shared_write_4k_4jobs|dd_4k|tar_c_small|mpiio_rand_4k_4|h5py_mpio_indep_4k_4)$'
runs=${DETECT_REPEAT_RUNS:-10}
if bash "$S/run.sh" -o "$T/rep" --scratch "$T/scratch" --only "$rep" --repeat "$runs" --keep >"$T/rep.log" 2>&1 &&
   check "$T/rep" >"$T/rep.sets"; then
  [ "$(wc -l <"$T/rep.sets")" -eq $((5 * runs)) ] && ok || fail "runs missing: $(tail -3 "$T/rep.log")"
  for name in $(cut -d' ' -f1 "$T/rep.sets" | sort -u); do
    sets=$(awk -v n="$name" '$1 == n {print $3}' "$T/rep.sets" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
    [ "$(awk -v n="$name" '$1 == n {print $3}' "$T/rep.sets" | sort -u | wc -l)" -eq 1 ] && ok ||
      fail "$name: detected sets differ over $runs runs: $sets"
    echo "$name: $sets"
  done
else
  fail "repeated suite runs failed: $(tail -5 "$T/rep.log")"
fi
rm -rf "$T"/scratch/iolens-suite.*
finish
