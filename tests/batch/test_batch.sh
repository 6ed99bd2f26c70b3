# iolens batch over a generated corpus of 2,000 logs (1% unreadable): one process, then
# mpirun -np 3 killed in the middle and resumed; the merged results must equal the
# one-process run row for row, and every unreadable log must be in the errors files.
. "$(dirname "$0")/../cli/lib.sh"
T=$IOLENS_TMP
D=$IOLENS_SHARED_DATA/darshan
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe -np 3)
seeds=("$D/generated/small_writes_4proc_noreduction.darshan" "$D/generated/nonmpi_dd_64MiB.darshan"
       "$D/public/release_logs__mpi-io-test-x86_64-3.4.5.darshan" "$D/generated/large_seq_4proc_dxt_heatmap.darshan"
       "$D/public/release_logs__mpi-io-test-ppc64-3.1.6.darshan")
for s in "${seeds[@]}"; do [ -e "$s" ] || { echo "SKIP: $s missing"; exit 77; }; done
N=${BATCH_LOGS:-2000}

# 1. the corpus: varied copies, 1% spoiled (listed in corrupt.txt)
expect_rc 0 "$IOLENS" batch --generate "$N" -o "$T/gen" --corrupt 0.01 --seed 7 "${seeds[@]}"
[ "$(ls "$T/gen" | grep -c '\.darshan$')" -eq "$N" ] && ok || fail "generated $(ls "$T/gen" | wc -l) logs"
nbad=$(wc -l <"$T/gen/corrupt.txt")
[ "$nbad" -ge $((N / 200)) ] && [ "$nbad" -le $((N / 50)) ] && ok || fail "$nbad corrupt logs of $N"
# the copies differ from each other (ids, names, durations)
"$IOLENS" darshan --summary "$T/gen/gen-0000000.darshan" "$T/gen/gen-0000005.darshan" >"$T/two" 2>/dev/null
[ "$(cut -d, -f3 "$T/two" | sort -u | wc -l)" -eq 3 ] && ok || fail "two copies of one seed have one job id"
# the same seed gives the same corpus
expect_rc 0 "$IOLENS" batch --generate 20 -o "$T/gen2" --corrupt 0.01 --seed 7 "${seeds[@]}"
for i in 0000000 0000013 0000019; do cmp -s "$T/gen/gen-$i.darshan" "$T/gen2/gen-$i.darshan" && ok || fail "gen-$i differs"; done

# 2. one process
# (--timeout 600 in the runs compared: a log that timed out would be an error row in one run and a
# row in the other; under a sanitizer on a busy machine a worker's first log took over 30 s; the
# timeout itself is tested below, by a worker stopped with SIGSTOP)
expect_rc 0 "$IOLENS" batch "$T/gen" --do summary,features,detect,heatmap -o "$T/one" --timeout 600
expect_grep "batch: $N logs (0 done before), $((N - nbad)) read, $nbad errors" "$T/err"
expect_rc 0 "$IOLENS" batch --merge "$T/one"
for f in summary.csv summary.jsonl features.csv features.jsonl detect.csv detect.jsonl heatmap.csv heatmap.jsonl errors.csv errors.jsonl; do
  [ -s "$T/one/$f" ] && ok || fail "no $f"
done
[ "$(($(wc -l <"$T/one/summary.csv") - 1))" -eq $((N - nbad)) ] && ok || fail "summary.csv rows"
[ "$(wc -l <"$T/one/detect.jsonl")" -eq $((N - nbad)) ] && ok || fail "detect.jsonl rows"
# every unreadable log is in the errors, with a reason naming it
while read -r bad; do
  grep -qF "\"log\":\"$bad\"" "$T/one/errors.jsonl" && ok || fail "corrupt $bad not in errors.jsonl"
done <"$T/gen/corrupt.txt"
[ "$(wc -l <"$T/one/errors.jsonl")" -eq "$nbad" ] && ok || fail "errors.jsonl has other logs"
# the summary rows are darshan --summary's
"$IOLENS" darshan --summary "$T/gen/gen-0000003.darshan" 2>/dev/null | tail -1 | cut -d, -f2- >"$T/s1"
grep "^3,$T/gen/gen-0000003.darshan," "$T/one/summary.csv" | cut -d, -f3- >"$T/s2"
cmp -s "$T/s1" "$T/s2" && ok || fail "summary row differs from darshan --summary"
# the heatmap rows are darshan --heatmap's (with the log's index first and its path), and
# iolens cluster reads the merged heatmap.csv as it reads darshan --heatmap's
hm=
for i in $(seq 0 9); do
  g=$T/gen/gen-000000$i.darshan
  if "$IOLENS" darshan --heatmap "$g" 2>/dev/null | tail -n +2 | grep -q .; then hm=$g; break; fi
done
if [ -n "$hm" ]; then
  "$IOLENS" darshan --heatmap "$hm" | tail -n +2 | cut -d, -f2- >"$T/h1"
  grep "^$i,$hm," "$T/one/heatmap.csv" | cut -d, -f3- >"$T/h2"
  [ -s "$T/h1" ] && cmp -s "$T/h1" "$T/h2" && ok || fail "heatmap rows of $hm differ from darshan --heatmap"
  head -1 "$T/one/heatmap.csv" | grep -qx "index,log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks" && ok || fail "heatmap.csv header"
  expect_rc 0 "$IOLENS" cluster --no-metrics --json --min-samples 2 --min-nonzero 1 "$T/one/heatmap.csv"
  expect_grep '"traces": ' "$T/out"
else
  fail "no generated log with a HEATMAP module among the first ten"
fi
# ... and the detection is detect's
"$IOLENS" detect --json "$T/gen/gen-0000003.darshan" >"$T/d1" 2>/dev/null
/usr/bin/python3 - "$T/d1" "$T/one/detect.jsonl" <<'PY' && ok || fail "detect row differs from iolens detect"
import json, sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
row = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["index"] == 3][0]
got = sorted(row["detected"])
want = sorted(d["detected"]) if isinstance(d["detected"][0] if d["detected"] else "", str) else sorted(x["pattern"] for x in d["detected"])
assert got == want, (got, want)
PY

# 3. three ranks, killed once in the middle, resumed
# (a run of 2,000 logs lasts about a second here: the kill is tried again, in a new folder,
# if the run ended before it)
ls /dev/shm >"$T/shm.before" 2>/dev/null || true
for attempt in 1 2 3 4 5; do
  rm -rf "$T/mpi"
  # (niced, so that this loop sees the manifests grow on a busy machine; not in a session of its
  # own, where the kernel's autogroups would give it a share of its own)
  ( nice -n 19 "${MPIRUN[@]}" "$IOLENS" batch "$T/gen" --do summary,features,detect,heatmap -o "$T/mpi" -q --block 2 --timeout 600 \
      >"$T/mpi1.out" 2>&1 & echo $! >"$T/mpi.pid"; wait ) &
  for _ in $(seq 6000); do
    n=$(cat "$T"/mpi/done.* 2>/dev/null | wc -l)
    [ "$n" -ge $((N / 10)) ] && break
    sleep 0.005
  done
  # every process of the job (mpirun, the ranks it started, their workers) frozen at once, then
  # killed: as a node failure
  pkill -STOP -f -- "-o $T/mpi -q" 2>/dev/null
  kill -KILL "$(cat "$T/mpi.pid")" 2>/dev/null
  pkill -KILL -f -- "-o $T/mpi -q" 2>/dev/null
  wait
  sleep 0.2
  pkill -KILL -f -- "-o $T/mpi -q" 2>/dev/null
  [ "$(cat "$T"/mpi/done.* | wc -l)" -lt "$N" ] && break
done
# the shared-memory segments the killed jobs' ranks left behind (Open MPI's vader_segment.*),
# those no process maps (another test's job may be running)
for f in $(ls /dev/shm 2>/dev/null | grep '^vader_segment\.' | grep -vxF -f "$T/shm.before"); do
  grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps || rm -f "/dev/shm/$f"
done
ndone=$(cat "$T"/mpi/done.* | wc -l)
[ "$ndone" -gt 0 ] && [ "$ndone" -lt "$N" ] && ok || fail "the kill did not fall in the middle ($ndone of $N done)"
expect_rc 1 "$IOLENS" batch --merge "$T/mpi"
expect_grep "not done (iolens batch --resume does them)" "$T/err"
expect_rc 0 "${MPIRUN[@]}" "$IOLENS" batch --resume -o "$T/mpi" --timeout 600
expect_grep "done before" "$T/err"
expect_grep "on 3 rank(s)" "$T/err"
expect_rc 0 "$IOLENS" batch --merge "$T/mpi"
for f in summary.csv summary.jsonl features.csv features.jsonl detect.csv detect.jsonl heatmap.csv heatmap.jsonl errors.csv errors.jsonl; do
  cmp -s "$T/one/$f" "$T/mpi/$f" && ok || { fail "$f: the resumed 3-rank run differs from one process"; diff "$T/one/$f" "$T/mpi/$f" | head -5 >&2; }
done
ls "$T"/mpi/done.*.1 >/dev/null 2>&1 && ok || fail "no manifest of the resumed run"

# 4. a worker that hangs (stopped) or crashes (a fatal signal) costs its log only: the log is
# reported with the reason, a new worker takes the next log, and every other log is read
for sig in STOP SEGV; do
  # (--timeout 5: the stopped worker's log times out; every other log is read in milliseconds)
  "$IOLENS" batch "$T/gen" --do summary -o "$T/sig$sig" --timeout 5 >"$T/sig$sig.out" 2>&1 &
  bp=$!
  child=
  for _ in $(seq 500); do
    child=$(pgrep -P "$bp" | head -1)
    [ -n "$child" ] && break
    sleep 0.01
  done
  [ -n "$child" ] && kill -"$sig" "$child"
  wait "$bp" && ok || fail "batch with a worker sent SIG$sig failed"
  expect_rc 0 "$IOLENS" batch --merge "$T/sig$sig"
  [ "$(wc -l <"$T/sig$sig/errors.jsonl")" -eq $((nbad + 1)) ] && ok || fail "SIG$sig: not exactly one log more in the errors"
  [ "$(($(wc -l <"$T/sig$sig/summary.csv") - 1))" -eq $((N - nbad - 1)) ] && ok || fail "SIG$sig: rows of other logs lost"
done
expect_grep '"reason":"timed out: no result after 5 s (the reader was stopped)"' "$T/sigSTOP/errors.jsonl"
expect_grep "(0 crashed, 1 timed out)" "$T/sigSTOP.out"
expect_grep '"reason":"the reader crashed: signal 11 (Segmentation fault)"' "$T/sigSEGV/errors.jsonl"
expect_grep "(1 crashed, 0 timed out)" "$T/sigSEGV.out"
# a FIFO is refused by the reader (not a regular file), never read
mkfifo "$T/fifo.darshan"
# (no log of the run could be read: exit 1, the reasons in errors.jsonl)
expect_rc 1 "$IOLENS" batch "$T/fifo.darshan" --do summary -o "$T/fifo"
expect_grep "none of the 1 log(s) could be read" "$T/err"
expect_rc 0 "$IOLENS" batch --merge "$T/fifo"
expect_grep "not a regular file" "$T/fifo/errors.csv"

# 5. one task alone gives the rows it gives among the others (features and detect alone
# once wrote nothing and reported every log with files as unreadable)
ls "$T/gen"/gen-00000[0-9]*.darshan | head -100 >"$T/list100"
expect_rc 0 "$IOLENS" batch --list "$T/list100" --do features -o "$T/feat"
bad100=$(grep -cFf "$T/list100" "$T/gen/corrupt.txt" || true)
expect_grep "batch: 100 logs (0 done before), $((100 - bad100)) read, $bad100 errors" "$T/err"
expect_rc 0 "$IOLENS" batch --merge "$T/feat"
[ "$(wc -l <"$T/feat/errors.jsonl")" -eq "$bad100" ] && ok || fail "features alone: errors for readable logs"
while IFS= read -r g; do
  grep -F ",$g," "$T/one/features.csv" | cut -d, -f3-
done <"$T/list100" >"$T/f1"
tail -n +2 "$T/feat/features.csv" | cut -d, -f3- >"$T/f2"
[ -s "$T/f1" ] && cmp -s "$T/f1" "$T/f2" && ok || fail "features alone differ from features among the tasks"

# 6. one log of 300,000 files (140,000 in a sanitizer build): the worker's memory stays within --max-mem (256 MiB by default;
# the log is read in passes over parts of 131,072 files, three here (two); test_detect_darshan checks
# that passes give the features of one reading; bench/batch/bigfiles.sh reads a million; a long
# --timeout: under sanitizers on a loaded machine the reading takes minutes, and the figure
# checked here is memory, not time)
if [ -n "${BIGLOG:-}" ]; then
  "$BIGLOG" "$T/big.darshan" "${BIGLOG_FILES:-300000}" 1 || fail "writing the large log"
  expect_rc 0 "$IOLENS" batch "$T/big.darshan" --do summary,features,detect -o "$T/big" --timeout 600
  expect_grep "batch: 1 logs (0 done before), 1 read, 0 errors" "$T/err"
  expect_rc 0 "$IOLENS" batch --merge "$T/big"
  [ "$(wc -l <"$T/big/errors.jsonl")" -eq 0 ] && ok || fail "the large log failed: $(cat "$T/big/errors.jsonl")"
  expect_grep ",${BIGLOG_FILES:-300000}," "$T/big/summary.csv"
  expect_grep '"detected":\["file_strategy"\]' "$T/big/detect.jsonl"
  rm -f "$T/big.darshan"
fi

# 7. usage
expect_rc 1 "$IOLENS" batch "$T/gen" --do summary -o "$T/one"
expect_grep "already holds a batch run: --resume continues it" "$T/err"
expect_rc 1 "$IOLENS" batch --resume -o "$T/nothing-here"
expect_grep "holds no batch run to resume" "$T/err"
expect_rc 1 "$IOLENS" batch --resume --do detect -o "$T/fifo"
expect_grep "was run with --do summary" "$T/err"
expect_rc 2 "$IOLENS" batch "$T/gen" --do sumary -o "$T/x"
expect_grep "unknown task 'sumary'" "$T/err"
expect_rc 2 "$IOLENS" batch "$T/gen" -o "$T/x"
expect_rc 2 "$IOLENS" batch --timout 3
expect_grep "did you mean '--timeout'" "$T/err"
finish
