# iolens cluster end to end: real Darshan heatmap series, synthetic traces,
# every method, output files (incl. the centroids contract), errors.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data timeseries/heatmap_job.csv
HM="$IOLENS_SHARED_DATA/timeseries/heatmap_job.csv"
T="$IOLENS_TMP"

expect_rc 0 "$IOLENS" cluster --help
expect_grep '^usage: iolens cluster' "$T/out"

# Real HEATMAP series, SAGE and SAGE-2, every output file.
for m in sage sage2; do
  expect_rc 0 "$IOLENS" cluster --method $m -o "$T/$m" "$HM"
  expect_grep '190 series read, 18 kept' "$T/err"
  expect_grep "^method $m: 18 traces in" "$T/out"
  for f in assignments.csv centroids.csv clusters.csv alphabet.csv metrics.csv metrics.json centroids.svg; do
    [ -s "$T/$m/$f" ] && ok || fail "$m: $f missing"
  done
  expect_grep '^id,cluster$' "$T/$m/assignments.csv"
  [ "$(wc -l < "$T/$m/assignments.csv")" -eq 19 ] && ok || fail "$m: assignments.csv has not 18 rows"
  expect_grep 'e3sm_io_heatmap_only.darshan:POSIX:write,[0-9]' "$T/$m/assignments.csv"
  # centroids contract: header line, then cluster,v0,v1,... (step of the DLIO bins)
  [ "$(head -1 "$T/$m/centroids.csv")" = "cluster,step_seconds=0.8" ] && ok || fail "$m: centroids header"
  awk -F, 'NR>1 && ($1 != NR-2 || NF < 2) {bad=1} END {exit bad}' "$T/$m/centroids.csv" && ok || fail "$m: centroid rows"
  k=$(($(wc -l < "$T/$m/centroids.csv") - 1))
  [ "$(($(wc -l < "$T/$m/clusters.csv") - 1))" -eq "$k" ] && ok || fail "$m: clusters.csv vs centroids.csv"
  expect_grep '^Z1,0,0,0,0,0$' "$T/$m/alphabet.csv"
  expect_grep '^intra_pld,' "$T/$m/metrics.csv"
  expect_grep '"inter_sbd"' "$T/$m/metrics.json"
  expect_grep '<svg' "$T/$m/centroids.svg"
done
expect_grep 'α1' "$T/sage2/clusters.csv"

# JSON summary; read series of the heatmap as long format too
expect_rc 0 "$IOLENS" cluster --method kmeans --json "$HM"
expect_grep '"method": "kmeans"' "$T/out"
expect_grep '"traces": 18' "$T/out"

# Synthetic traces with labels: --synth, then --compare with the ARI
# (a sanitizer build: 60 traces of 100 samples; its SAGE runs ten times slower than the release's)
ns=120 nl=150 nd=60
[ -n "${IOLENS_SANITIZED:-}" ] && ns=60 nl=100 nd=30
expect_rc 0 "$IOLENS" cluster --synth $ns --length $nl --seed 4 -o "$T/synth.csv"
[ "$(wc -l < "$T/synth.csv")" -eq $((ns + 1)) ] && ok || fail "synth: $ns rows"
expect_grep '^id,label,v0,v1' "$T/synth.csv"
expect_rc 0 "$IOLENS" cluster --compare --methods sage,sage2,kmeans,random -o "$T/cmp" "$T/synth.csv"
expect_grep '^aggregate' "$T/out"
expect_grep '^ARI' "$T/out"
expect_grep '^time (s)' "$T/out"
expect_grep '^sage2,' "$T/cmp/compare.csv"
[ -s "$T/cmp/sage/assignments.csv" ] && ok || fail "compare: per-method outputs"
# the same seed gives the same classes
"$IOLENS" cluster --synth $nd --length 100 --seed 5 -o "$T/synth60.csv" && ok || fail "synth $nd"
expect_rc 0 "$IOLENS" cluster --method sage --seed 9 --no-metrics -o "$T/r1" "$T/synth60.csv"
expect_rc 0 "$IOLENS" cluster --method sage --seed 9 --no-metrics --threads 1 -o "$T/r2" "$T/synth60.csv"
cmp -s "$T/r1/assignments.csv" "$T/r2/assignments.csv" && ok || fail "not deterministic for a seed"

# K-shape and DTW on a small set, fixed k
"$IOLENS" cluster --synth 30 --length 60 -o "$T/small.csv" && ok || fail "synth small"
expect_rc 0 "$IOLENS" cluster --compare --methods kshape,dtw --k 4 --resample 60 "$T/small.csv"
expect_grep '^intra_sbd' "$T/out"

# long format from stdin
printf 'id,t,value\n' > "$T/long.csv"
for j in 1 2 3 4 5 6; do for t in $(seq 0 29); do echo "j$j,$t,$(( (t * j) % 7 + 2 ))"; done; done >> "$T/long.csv"
expect_rc 0 "$IOLENS" cluster --method kmeans --k 2 --min-samples 10 - < "$T/long.csv"
expect_grep 'method kmeans: 6 traces' "$T/out"

# Every shared Darshan log end to end: HEATMAP series where the log has them,
# else DXT segments at --step; logs with neither are reported, not fatal.
DL="$IOLENS_SHARED_DATA/darshan"
if [ -d "$DL/public" ]; then
  expect_rc 0 "$IOLENS" cluster --method sage2 -o "$T/dl" "$DL"/*/*.darshan
  expect_grep '^cluster: 232 series read, 18 kept after pre-processing' "$T/err"
  expect_grep '^method sage2: 18 traces in' "$T/out"
  expect_grep 'apmpi_apxc__mpi-io-test.darshan: no HEATMAP or DXT records' "$T/err"
  [ "$(wc -l < "$T/dl/assignments.csv")" -eq 19 ] && ok || fail "darshan: assignments.csv has not 18 rows"
  # HEATMAP ids as heatmap_job.csv names them; DXT-only logs by API
  expect_grep '^e3sm_io_heatmaps_and_dxt/e3sm_io_heatmap_only.darshan:POSIX:write,' "$T/dl/assignments.csv"
  expect_grep '^nonmpi_dxt_anonymized/nonmpi_dxt_anonymized.darshan:POSIX:write,' "$T/dl/assignments.csv"
  expect_grep '^dxt-explorer/.*:MPIIO:write,' "$T/dl/assignments.csv"
  # the same HEATMAP log through the log and through the CSV: same series, same classes
  E3="$DL/public/e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan"
  expect_rc 0 "$IOLENS" cluster --method kmeans --k 1 --min-samples 5 --no-metrics -o "$T/e3" "$E3"
  expect_grep '^cluster: 6 series read, 2 kept' "$T/err"
  # a log that is not one: detected by content, the error names it
  head -c 300 "$E3" > "$T/trunc.darshan"
  expect_rc 1 "$IOLENS" cluster "$T/trunc.darshan"
  expect_grep "iolens: error: cannot read '.*trunc.darshan'" "$T/err"
fi

# A Recorder trace directory and an iolens trace through the event stream
RC="$IOLENS_SHARED_DATA/recorder"
if [ -d "$RC/shared_n2_m1000" ]; then
  expect_rc 0 "$IOLENS" cluster --method kmeans --no-metrics --step 0.001 --min-samples 5 -o "$T/rec" \
    "$RC/shared_n2_m1000" "$RC/shared_n4_m1000_bothPR/" "$RC/ckpt_n2_m1000" "$RC/nonmpi_dd_1000x1MiB"
  expect_grep '^cluster: 8 series read, 7 kept' "$T/err"
  expect_grep '^shared_n2_m1000:write,' "$T/rec/assignments.csv"
  expect_grep '^shared_n4_m1000_bothPR:read,' "$T/rec/assignments.csv"
  expect_grep '^nonmpi_dd_1000x1MiB:write,' "$T/rec/assignments.csv"
fi
( cd "$T" && "$IOLENS" trace -o "$T/dd.iolt" -- dd if=/dev/zero of="$T/dd.out" bs=1M count=20 ) >/dev/null 2>&1 \
  && ok || fail "iolens trace dd"
rm -f "$T/dd.out"
# (how many 1-ms bins survive the filter depends on the machine's speed: exit 0 or 1)
"$IOLENS" cluster --method kmeans --no-metrics --step 0.001 "$T/dd.iolt" >"$T/out" 2>"$T/err"
[ $? -le 1 ] && ok || fail "cluster of an iolens trace crashed"
expect_grep '^cluster: 2 series read' "$T/err"

# errors
expect_rc 2 "$IOLENS" cluster --method nope "$HM"
expect_grep "--method wants sage, sage2, kmeans, kshape, dtw or random, not 'nope'" "$T/err"
expect_rc 2 "$IOLENS" cluster
expect_rc 1 "$IOLENS" cluster "$T/does-not-exist.csv"
expect_grep "iolens: error: cannot open '.*does-not-exist.csv'" "$T/err"
printf 'a,1,2\nb,3,-4\n' > "$T/bad.csv"
expect_rc 1 "$IOLENS" cluster "$T/bad.csv"
expect_grep "negative value in field 3 of the record at byte 6" "$T/err"
expect_rc 1 "$IOLENS" cluster --min-samples 100000 "$HM"
expect_grep "no series left" "$T/err"
finish
