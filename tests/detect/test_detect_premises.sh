# No pattern is presented as detected when its card's premise is absent from the log's
# counters (checked here from the feature values, independently of the library): the
# fsync card needs a sync (fsync, fdatasync or MPI_File_sync), the transfer-size card a request
# below 1 MiB, the balance and collective-I/O cards more than one process, the collective-I/O card a
# shared file. Over every shared Darshan log (the suite's runs: cli_detect_suite).
. "$(dirname "$0")/../cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
T=$IOLENS_TMP
mapfile -t logs < <(IOLENS_TEST_SAMPLE=1 shared_logs | sed "s|^|$IOLENS_SHARED_DATA/darshan/|")
# one detect and one features over every log (a log either cannot read is left out of both)
"$IOLENS" detect --json "${logs[@]}" >"$T/d.json" 2>/dev/null
"$IOLENS" features --json "${logs[@]}" >"$T/f.json" 2>/dev/null
n=0
while IFS= read -r line; do
  case $line in ok) ok; n=$((n + 1)) ;; *) fail "a card contradicts the counters: $line" ;; esac
done < <(/usr/bin/python3 - "$T/d.json" "$T/f.json" <<'PY'
import json, sys
dets = {x["log"]: x for x in json.load(open(sys.argv[1]))}
feats = {x["log"]: x["features"] for x in json.load(open(sys.argv[2]))}
for log in sorted(set(dets) & set(feats)):
    d, f = dets[log], feats[log]
    got = {p["pattern"] for p in d["detected"]}
    bad = []
    if "throughput_utilization" in got and f["POSIX_FSYNCS"] + f["MPIIO_SYNCS"] + f["iol_sync_ratio"] <= 0:
        bad.append("throughput_utilization without any sync")
    if "interface_choice" in got and max(f["iol_shared_bytes_ratio"], f["iol_shared_indep_ratio"], f["is_shared_file"]) <= 0:
        bad.append("interface_choice without a shared file")
    if f["nprocs"] <= 1:
        bad += [p + " with one process" for p in ("parallelism_efficiency", "interface_choice") if p in got]
    if "access_granularity" in got and f["POSIX_READS"] + f["POSIX_WRITES"] > 0:
        small = sum(f["POSIX_SIZE_%s_%s" % (rw, b)] for rw in ("READ", "WRITE") for b in ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M"))
        small -= sum(f["POSIX_ACCESS%d_COUNT" % k] for k in range(1, 5) if f["POSIX_ACCESS%d_ACCESS" % k] == 1048576)
        if small <= 0:
            bad.append("access_granularity with no request below 1 MiB")
    for x in d.get("demoted", []):
        if x["pattern"] in got or not x["reason"]:
            bad.append("demoted pattern %s also detected or without a reason" % x["pattern"])
    print("%s: %s" % (log, "; ".join(bad)) if bad else "ok")
PY
)
[ "$n" -ge 50 ] && ok || fail "only $n logs diagnosed"
# one demotion seen: a one-process log's interface_choice, or a sync-less log's throughput_utilization
"$IOLENS" detect "${logs[@]:0:90}" 2>/dev/null | grep -q 'not presented:' && ok || fail "no demotion shown"
finish
