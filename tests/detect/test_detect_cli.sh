# iolens features / detect on the real inputs of ../shared/data/iosage with the shipped models.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data iosage/dev_features.csv
D="$IOLENS_SHARED_DATA/iosage"
S="$D/sample_darshan_parser_outputs"
M="$IOLENS_SOURCE_DIR/models"

# detect --features --csv: one row per input row, label columns named as in dev_labels.csv
expect_rc 0 "$IOLENS" detect --models "$M" --features "$D/dev_features.csv" --csv
cp "$IOLENS_TMP/out" "$IOLENS_TMP/pred.csv"
[ "$(wc -l <"$IOLENS_TMP/pred.csv")" -eq 202 ] && ok || fail "expected 201 rows + header"
want_header="$(head -1 "$D/dev_labels.csv" | tr -d "\r" | cut -d, -f7-),detected"
[ "$(head -1 "$IOLENS_TMP/pred.csv")" = "$want_header" ] && ok || fail "header '$(head -1 "$IOLENS_TMP/pred.csv")'"
# the shipped models are what `iolens train` writes, byte for byte
expect_rc 0 "$IOLENS" train -o "$IOLENS_TMP/retrained"
for f in "$M"/*; do
  cmp -s "$f" "$IOLENS_TMP/retrained/${f##*/}" && ok || fail "models/${f##*/} differs from the retrained one"
done
# the shipped models fit their training rows: the detected set equals the labels of every dev row
mism=$(paste -d, <(tail -n +2 "$D/dev_labels.csv" | cut -d, -f7-13) <(tail -n +2 "$IOLENS_TMP/pred.csv") | awk -F, '{
  names="access_granularity metadata_intensity parallelism_efficiency access_pattern interface_choice file_strategy throughput_utilization";
  split(names, n, " "); want="";
  for (i = 1; i <= 7; i++) if ($i == 1) want = want (want == "" ? "" : ";") n[i];
  if (want != $16) bad++ } END { print bad + 0 }')
[ "$mism" -eq 0 ] && ok || fail "$mism training rows detected differently from their labels"

# JSON form of the same
expect_rc 0 "$IOLENS" detect --models "$M" --features "$D/dev_features.csv" --json
expect_grep '"probabilities"' "$IOLENS_TMP/out"
[ "$(grep -c '"row"' "$IOLENS_TMP/out")" -eq 201 ] && ok || fail "json rows"

# logs (darshan-parser text): human and JSON output, several logs per call
expect_rc 0 "$IOLENS" detect --models "$M" --rules "$S"/2024/sample_2024_base.txt "$S"/2025/sample_2025_base.txt \
  "$S"/2026/sample_2026_base.txt
[ "$(grep -c 'detected (tau 0.30):' "$IOLENS_TMP/out")" -eq 3 ] && ok || fail "three logs in human output"
[ "$(grep -c "IOSage's mapping of Drishti's triggers" "$IOLENS_TMP/out")" -eq 3 ] && ok || fail "rules for three logs"
[ "$(grep -c "rules (Drishti's triggers and iolens's)" "$IOLENS_TMP/out")" -eq 3 ] && ok || fail "insights for three logs"
# 2025 shows many small requests: access granularity with its card and SHAP lines
expect_grep 'access_granularity.*detected' "$IOLENS_TMP/out"
expect_grep 'change: increase the transfer size' "$IOLENS_TMP/out"
expect_grep 'does not apply when:' "$IOLENS_TMP/out"
expect_grep 'top contributions (SHAP' "$IOLENS_TMP/out"
expect_grep 'largest files:' "$IOLENS_TMP/out"
expect_grep 'key counters of the card' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" detect --models "$M" --json "$S"/2024/sample_2024_full.txt "$S"/2025/sample_2025_full.txt \
  "$S"/2026/sample_2026_full.txt
[ "$(grep -c '"healthy"' "$IOLENS_TMP/out")" -eq 3 ] && ok || fail "three logs in JSON"
[ "$(grep -c '"files"' "$IOLENS_TMP/out")" -eq 3 ] && ok || fail "files in JSON"

# features: CSV header + one row per log, JSON
expect_rc 0 "$IOLENS" features "$S/2024/sample_2024_base.txt" "$S/2026/sample_2026_base.txt"
[ "$(wc -l <"$IOLENS_TMP/out")" -eq 3 ] && ok || fail "features rows"
[ "$(head -1 "$IOLENS_TMP/out" | tr ',' '\n' | wc -l)" -eq 172 ] && ok || fail "features columns (log + 171)"
expect_grep '^log,nprocs,runtime_seconds,POSIX_OPENS' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" features --json "$S/2024/sample_2024_base.txt"
expect_grep '"dominant_access_size"' "$IOLENS_TMP/out"

# errors: missing file, not parser text, bad model folder, usage
expect_rc 1 "$IOLENS" detect --models "$M" /nonexistent.txt
expect_grep "iolens: error: cannot" "$IOLENS_TMP/err"
expect_rc 1 "$IOLENS" detect --models "$M" "$D/feature_cols_157.json"
expect_grep "not darshan-parser output" "$IOLENS_TMP/err"
expect_rc 1 "$IOLENS" detect --models "$IOLENS_TMP" "$S/2024/sample_2024_base.txt"
expect_rc 2 "$IOLENS" detect
expect_rc 2 "$IOLENS" detect --csv "$S/2024/sample_2024_base.txt"
expect_rc 2 "$IOLENS" features
# a key feature missing (NaN) in every training row with the label has no median: meta.json
# stores null, which loads, and the card says "(missing)"
mkdir -p "$IOLENS_TMP/nullmed" && cp "$M"/* "$IOLENS_TMP/nullmed/"
sed -i 's/"median_with_label": [^,}]*/"median_with_label": null/' "$IOLENS_TMP/nullmed/meta.json"
expect_rc 0 "$IOLENS" detect --models "$IOLENS_TMP/nullmed" "$IOLENS_SHARED_DATA/darshan/generated/small_writes_4proc_dxt_heatmap.darshan"
expect_grep 'POSIX_ACCESS1_ACCESS .* / (missing)' "$IOLENS_TMP/out"

# the shipped models use no timing feature (run time, *_TIME*, bandwidths, time shares): none
# has a SHAP contribution or is a card's key counter
expect_rc 0 "$IOLENS" detect --json --models "$M" "$IOLENS_SHARED_DATA"/darshan/generated/*.darshan
expect_grep '"top_contributions"' "$IOLENS_TMP/out"
if grep -E '"feature": "(runtime_seconds|[A-Z]+_F_[A-Z_]*TIME|[A-Z_]*_TIME_SIZE|[a-z]+_bw_mb_s|metadata_time_ratio|read_time_fraction|write_time_fraction|time_imbalance|io_duration|io_active_fraction)"' "$IOLENS_TMP/out" >/dev/null; then
  fail "a timing feature in the shipped models' contributions"
else ok; fi

# small% counts requests below 1 MiB: dd's 64 writes of exactly 1 MiB are not small
if [ -e "$IOLENS_SHARED_DATA/darshan/generated/nonmpi_dd_64MiB.darshan" ]; then
  expect_rc 0 "$IOLENS" detect "$IOLENS_SHARED_DATA/darshan/generated/nonmpi_dd_64MiB.darshan"
  expect_grep ' 64 *0.0% .*dd.out$' "$IOLENS_TMP/out"
fi
# a log with STDIO records only is diagnosed (its files are the evidence)
L=$(ls "$IOLENS_SHARED_DATA"/darshan/public/stdio_no_posix__*.darshan 2>/dev/null | head -1)
if [ -n "$L" ]; then
  expect_rc 0 "$IOLENS" detect "$L"
  ! grep -q 'no file record' "$IOLENS_TMP/out" && ok || fail "a STDIO-only log is not diagnosed"
  expect_grep 'jeff.txt$' "$IOLENS_TMP/out"
fi
# determinism: the rank numbers of the fastest and slowest rank (which differ between identical
# runs) do not move any probability
L=$(find "$IOLENS_SHARED_DATA/darshan" -name '*4proc*.darshan' | sort | head -1)
if [ -n "$L" ]; then
  "$IOLENS" features --csv "$L" >"$IOLENS_TMP/f.csv"
  for v in 0 3 999; do
    /usr/bin/python3 - "$IOLENS_TMP/f.csv" "$v" >"$IOLENS_TMP/f$v.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
for c in ("POSIX_FASTEST_RANK", "POSIX_SLOWEST_RANK"):
    k = rows[0].index(c)
    rows[1][k] = sys.argv[2]
csv.writer(sys.stdout, lineterminator="\n").writerows(rows)
PY
    "$IOLENS" detect --features "$IOLENS_TMP/f$v.csv" --csv >"$IOLENS_TMP/p$v.csv"
  done
  cmp -s "$IOLENS_TMP/p0.csv" "$IOLENS_TMP/p3.csv" && cmp -s "$IOLENS_TMP/p0.csv" "$IOLENS_TMP/p999.csv" && ok ||
    fail "POSIX_FASTEST_RANK / POSIX_SLOWEST_RANK change the probabilities"
fi
# every trigger's message carries the job's figures, every HIGH one a recommendation and a pattern
L=$IOLENS_SHARED_DATA/darshan/generated/small_writes_4proc_dxt_heatmap.darshan
if [ -e "$L" ]; then
  expect_rc 0 "$IOLENS" detect --models "$M" --rules --json "$L"
  /usr/bin/python3 - "$IOLENS_TMP/out" <<'PY' && ok || fail "rule insights without figures or recommendations"
import json, re, sys
r = json.load(open(sys.argv[1]))[0]["rules"]
ins = r["insights"]
assert {i["code"] for i in ins} >= {"P05", "P06", "M02", "M03"}, ins
for i in ins:
    assert re.search(r"\d", i["message"]), i
    if i["level"] == "HIGH":
        assert i["recommendation"] and i["pattern"], i
assert set(r["patterns"]) == {"access_granularity", "interface_choice"}, r["patterns"]
assert "6000 of 6000 reads" in " ".join(i["message"] for i in ins)
PY
fi
finish
