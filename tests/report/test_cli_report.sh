# iolens report: pages of real logs and traces, checked for content against their JSON form and
# the logs' own counters, then rendered by headless Chromium (when installed): no console error
# or failed load, and every section with data draws something.
. "$(dirname "$0")/../cli/lib.sh"
skip_unless_data darshan/public
D=$IOLENS_SHARED_DATA/darshan/public
T=$IOLENS_TMP
CHECK=$(dirname "$0")/check_report.py
logs=(
  dxt-explorer__sample__jeanbez_8_benchmark_parallel_id45195555_8-6-50011-11681279140261054765_1628283217.darshan
  mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan
  ecpam-21-materials__notebooks__logs__snyder_h5-block-chunk-coll_id511919_4-14-3948-13517322816805000194_1.darshan
  partial_data_dxt__partial_data_dxt.darshan
  e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan
  darshan-repo__darshan-util__pydarshan__darshan__tests__input__noposix.darshan
  darshan-repo__darshan-util__pydarshan__darshan__tests__input__sample-badost.darshan
  ior_daos__snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan
  apmpi_apxc__mpi-io-test.darshan
  nonmpi_dxt_anonymized__nonmpi_dxt_anonymized.darshan
  hdf5_diagonal_write_only__hdf5_file_opens_only.darshan
)
pages=()
n=0
for l in "${logs[@]}"; do
  [ -e "$D/$l" ] || { fail "missing shared log $l"; continue; }
  n=$((n + 1))
  expect_rc 0 "$IOLENS" report "$D/$l" -o "$T/r$n.html" --json-file "$T/r$n.json"
  "$IOLENS" darshan "$D/$l" >"$T/r$n.txt" 2>/dev/null
  /usr/bin/python3 "$CHECK" "$T/r$n.html" "$T/r$n.json" "$T/r$n.txt" && ok || fail "report of $l"
  pages+=("$T/r$n.html")
done
# the partial log says so; the heatmap-only log draws the heatmap module's three APIs
expect_grep 'class="warn"' "$T/r4.html"
/usr/bin/python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["heatmaps"]; sys.exit(len(h) != 3)' "$T/r5.json" \
  && ok || fail "heatmap-only log: not 3 heatmaps"

# a 16,384-process job (8,192 in a sanitizer build; synthetic, written through the library: the
# shared logs stop at 2,048): the page stays small, the heatmap groups the ranks, the timeline
# samples them (bench/report/report.sh times the report of 65,536 processes)
if [ -n "${BIGJOB:-}" ]; then
  ranks=${BIGJOB_RANKS:-16384}
  expect_rc 0 "$BIGJOB" "$ranks" "$T/big.darshan"
  expect_rc 0 "$IOLENS" report "$T/big.darshan" -o "$T/big.html" --json-file "$T/big.json"
  "$IOLENS" darshan "$T/big.darshan" >"$T/big.txt" 2>/dev/null
  /usr/bin/python3 "$CHECK" "$T/big.html" "$T/big.json" "$T/big.txt" && ok || fail "report of the $ranks-process log"
  /usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["timeline"]
n = int(sys.argv[2])
sys.exit(0 if j["job"]["nprocs"] == n and t["ranks"] == n and t["ranks_drawn"] == 64 and j["heatmaps"] else 1)' \
    "$T/big.json" "$ranks" && ok || fail "$ranks-process log: job, timeline or heatmap"
  pages+=("$T/big.html")
fi

# traces: dd and tar under the tracer, and a Recorder trace
mkdir -p "$T/src/d"
for i in 1 2 3; do head -c 300000 /dev/urandom >"$T/src/d/f$i"; done
expect_rc 0 "$IOLENS" trace -o "$T/dd.trace" -- dd if="$T/src/d/f1" of="$T/src/out" bs=4k
expect_rc 0 "$IOLENS" trace -o "$T/tar.trace" -- tar -cf "$T/src/a.tar" -C "$T/src" d
traces=("$T/dd.trace" "$T/tar.trace")
[ -d "$IOLENS_SHARED_DATA/recorder/shared_n2_m10" ] && traces+=("$IOLENS_SHARED_DATA/recorder/shared_n2_m10")
for t in "${traces[@]}"; do
  n=$((n + 1))
  expect_rc 0 "$IOLENS" report "$t" -o "$T/r$n.html" --json-file "$T/r$n.json"
  /usr/bin/python3 "$CHECK" "$T/r$n.html" "$T/r$n.json" && ok || fail "report of trace $t"
  pages+=("$T/r$n.html")
done
# a trace's timeline and heatmap come from its calls
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j["timeline"]["segments"] > 0 and j["heatmaps"]))' \
  "$T/r12.json" && ok || fail "dd trace: no timeline or heatmap"

# what-if results shown (a dry run: the variants without measurements)
expect_rc 0 "$IOLENS" whatif "$T/dd.trace" --pattern access_granularity --dry-run --json
cp "$T/out" "$T/w.json"
expect_rc 0 "$IOLENS" report "$T/dd.trace" --whatif "$T/w.json" --no-diagnosis -o "$T/w.html" --json-file "$T/wr.json"
/usr/bin/python3 "$CHECK" "$T/w.html" "$T/wr.json" && ok || fail "report with what-if results"
expect_grep 'access_granularity' "$T/w.html"
pages+=("$T/w.html")

# timelines for Perfetto / chrome://tracing: every call of a trace (as many as `view --json`
# lines), the DXT segments of a log, in the Trace Event Format
for t in "${traces[@]}"; do
  expect_rc 0 "$IOLENS" view --chrome-trace "$t" -o "$T/tl.json"
  calls=$("$IOLENS" view --json "$t" | wc -l)
  /usr/bin/python3 "$(dirname "$0")/check_chrome.py" "$T/tl.json" "$calls" && ok || fail "chrome trace of $t"
done
expect_rc 0 "$IOLENS" view --chrome-trace "$D/${logs[1]}" -o "$T/tl.json"
segs=$("$IOLENS" darshan --dxt "$D/${logs[1]}" | grep -cE '^ +X_(POSIX|MPIIO) ')
/usr/bin/python3 "$(dirname "$0")/check_chrome.py" "$T/tl.json" "$segs" && ok || fail "chrome trace of a DXT log"
# the page links every call's timeline, written beside it
expect_rc 0 "$IOLENS" report "$T/dd.trace" --timeline "$T/dd.tl.json" --no-diagnosis -o "$T/tl.html" --json-file "$T/tlr.json"
expect_grep 'href="dd.tl.json"' "$T/tl.html"
/usr/bin/python3 "$CHECK" "$T/tl.html" "$T/tlr.json" && ok || fail "report with a timeline link"
/usr/bin/python3 "$(dirname "$0")/check_chrome.py" "$T/dd.tl.json" "$("$IOLENS" view --json "$T/dd.trace" | wc -l)" \
  && ok || fail "the report's timeline file"
expect_rc 1 "$IOLENS" view --chrome-trace "$D/${logs[5]}" -o "$T/tl.json"
expect_grep "no DXT segments" "$T/err"
expect_rc 2 "$IOLENS" view --chrome-trace --json "$T/dd.trace"

# hostile inputs: a clear error, no page
: >"$T/empty"
expect_rc 1 "$IOLENS" report "$T/empty" -o "$T/x.html"
expect_grep "iolens: error" "$T/err"
head -c 3000 "$D/${logs[0]}" >"$T/trunc.darshan"
expect_rc 1 "$IOLENS" report "$T/trunc.darshan" -o "$T/x.html"
expect_rc 1 "$IOLENS" report "$T/dd.trace" --whatif "$T/empty" -o "$T/x.html"
expect_rc 2 "$IOLENS" report
expect_rc 2 "$IOLENS" report --tau 7 "$T/dd.trace"

# clusters of a set of jobs: centroids, sizes, and the clusters of this job's series
DL=$(ls "$D"/dlio_logs__*.darshan | head -6)
expect_rc 0 "$IOLENS" cluster -o "$T/cl" $DL "$D/${logs[4]}"
expect_rc 0 "$IOLENS" report "$D/${logs[4]}" --cluster "$T/cl" --no-diagnosis -o "$T/c.html" --json-file "$T/c.json"
/usr/bin/python3 "$CHECK" "$T/c.html" "$T/c.json" && ok || fail "report with clusters"
expect_grep "This job's series: POSIX:write" "$T/c.html"
/usr/bin/python3 -c '
import json, sys
got = {c["cluster"]: c["size"] for c in json.load(open(sys.argv[1]))["clusters"]}
want = {}
for l in list(open(sys.argv[2]))[1:]:
    k, n = l.strip().split(",")[0], l.strip().split(",")[-1]
    want[k] = int(n)
sys.exit(0 if got == {k: v for k, v in want.items() if k in got} and len(got) == min(len(want), 8) else 1)'   "$T/c.json" "$T/cl/clusters.csv" && ok || fail "cluster sizes differ from clusters.csv"
pages+=("$T/c.html")
expect_rc 1 "$IOLENS" report "$D/${logs[4]}" --cluster "$T/nowhere" --no-diagnosis -o "$T/x.html"
printf 'cluster,step_seconds=1\n0,1,2,x\n' >"$T/cl/centroids.csv"
expect_rc 1 "$IOLENS" report "$D/${logs[4]}" --cluster "$T/cl" --no-diagnosis -o "$T/x.html"
expect_grep "on line 2 at byte" "$T/err"

# colour and severity in the terminal: --color=always colours, never and NO_COLOR do not, a
# pipe (auto) does not; the severity words are there either way
L4=$D/${logs[3]}
expect_rc 0 "$IOLENS" detect --color=always "$L4"
grep -q $'\033\[1;31m' "$T/out" && ok || fail "detect --color=always: no colour"
expect_grep 'detected (HIGH)' "$T/out"
for c in "--color=never" "--color=auto" ""; do
  expect_rc 0 "$IOLENS" detect $c "$L4"
  grep -q $'\033' "$T/out" && fail "detect $c into a file: colour codes" || ok
done
expect_rc 0 env NO_COLOR=1 script -qec "$IOLENS detect $L4" /dev/null
grep -q $'\033\[1;31m' "$T/out" && fail "NO_COLOR on a terminal: colour codes" || ok
expect_rc 0 script -qec "$IOLENS detect $L4" /dev/null
grep -q $'\033\[1;31m' "$T/out" && ok || fail "detect on a terminal: no colour"
expect_rc 0 "$IOLENS" darshan --report --color=always "$L4"
grep -q $'\033\[1;33m! ' "$T/out" && ok || fail "darshan --report --color=always: no coloured warning"
expect_rc 0 "$IOLENS" detect --json --color=always "$L4"
grep -q $'\033' "$T/out" && fail "detect --json: colour codes in JSON" || ok
expect_rc 2 "$IOLENS" detect --color=sometimes "$L4"

# headless Chromium: every page in one browser, each section measured in the page by a script
# (render_pages.py): no console error or failed load, and every section with data draws something
CHROME=$(command -v chromium || command -v chromium-browser || true)
# (a sanitizer build writes the same pages: the release build's run renders them)
if [ -n "${IOLENS_SANITIZED:-}" ]; then
  echo "note: sanitizer build: the pages are rendered by the release build's run"
elif [ -n "$CHROME" ]; then
  /usr/bin/python3 "$(dirname "$0")/render_pages.py" "$CHROME" "${pages[@]}" >"$T/render.out" 2>&1 && ok ||
    fail "chromium: $(grep -v '^/' "$T/render.out" | head -5)"
  [ "$(grep -c '^/' "$T/render.out")" -eq "${#pages[@]}" ] && ok || fail "chromium rendered $(grep -c '^/' "$T/render.out") of ${#pages[@]} pages"
else
  echo "note: chromium not installed: the pages are not rendered"
fi
finish
