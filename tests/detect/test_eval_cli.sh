# iolens eval / train on the dev rows of ../shared/data/iosage (small forests to stay fast).
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data iosage/dev_features.csv

expect_rc 0 "$IOLENS" eval --trees 30 --folds 3 --bootstrap 50
for m in 'classifier (8 models at 0.5)' 'gate (7 patterns at tau 0.3)' 'Drishti rules' \
         'trivial: 90th percentile' 'trivial: majority class'; do
  expect_grep "^$m " "$IOLENS_TMP/out"
done
expect_grep '^access_granularity ' "$IOLENS_TMP/out"
# the classifier beats the rule baseline by a wide margin even with 30 trees
clf=$(awk '/^classifier/ {print $6}' "$IOLENS_TMP/out")
rules=$(awk '/^Drishti rules/ {print $3}' "$IOLENS_TMP/out")
awk -v c="$clf" -v r="$rules" 'BEGIN { exit !(c > 0.8 && r < 0.5) }' && ok || fail "micro-F1 classifier $clf, rules $rules"

expect_rc 0 "$IOLENS" eval --trees 10 --folds 3 --bootstrap 20 --group config --json
expect_grep '"group": "config"' "$IOLENS_TMP/out"
expect_grep '"micro_f1"' "$IOLENS_TMP/out"
[ "$(grep -c '"name"' "$IOLENS_TMP/out")" -eq 6 ] && ok || fail "six methods in JSON"

# train writes a loadable model folder; two runs with one seed are identical
expect_rc 0 "$IOLENS" train --trees 10 -o "$IOLENS_TMP/m1"
expect_rc 0 "$IOLENS" train --trees 10 -o "$IOLENS_TMP/m2"
cmp -s "$IOLENS_TMP/m1/interface_choice.ubj" "$IOLENS_TMP/m2/interface_choice.ubj" && ok || fail "retraining differs"
expect_rc 0 "$IOLENS" detect --models "$IOLENS_TMP/m1" --features "$IOLENS_SHARED_DATA/iosage/dev_features.csv" --csv
[ "$(wc -l <"$IOLENS_TMP/out")" -eq 202 ] && ok || fail "detect with retrained models"

# rule-labeled real logs (weight 1) join every training fold but are never scored
S="$IOLENS_SHARED_DATA/iosage/sample_darshan_parser_outputs"
printf '%s\n' "# three real parser dumps" "$S/2024/sample_2024_base.txt" "$S/2025/sample_2025_base.txt.missing" >"$IOLENS_TMP/bad.list"
expect_rc 1 "$IOLENS" eval --trees 5 --folds 3 --bootstrap 20 --rule-logs "$IOLENS_TMP/bad.list"
printf '%s\n' "$S/2024/sample_2024_base.txt" "$S/2025/sample_2025_base.txt" "$S/2026/sample_2026_base.txt" >"$IOLENS_TMP/rule.list"
expect_rc 0 "$IOLENS" eval --trees 10 --folds 3 --bootstrap 20 --rule-logs "$IOLENS_TMP/rule.list" --json
expect_grep '"rule_rows": 3' "$IOLENS_TMP/out"
expect_grep '"rows": 201' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" train --trees 10 --rule-logs "$IOLENS_TMP/rule.list" -o "$IOLENS_TMP/m4"
expect_grep '3 rule-labeled' "$IOLENS_TMP/out"
expect_grep '3 rule-labeled logs at weight 1' "$IOLENS_TMP/m4/meta.json"
# binary Darshan logs as rule-labeled logs, mixed with a text dump (told apart by content)
G="$IOLENS_SHARED_DATA/darshan/generated"
printf '%s\n' "$G/nonmpi_dd_64MiB.darshan" "$G/small_writes_4proc_dxt_heatmap.bzip2.darshan" \
  "$G/converted_3.0.0_to_3.41.darshan.parser.txt" "$IOLENS_SHARED_DATA/aiio/$(ls "$IOLENS_SHARED_DATA/aiio" | grep -m1 '\.darshan$')" \
  >"$IOLENS_TMP/bin.list"
expect_rc 0 "$IOLENS" train --trees 10 --rule-logs "$IOLENS_TMP/bin.list" -o "$IOLENS_TMP/m5"
expect_grep '4 rule-labeled logs at weight 1' "$IOLENS_TMP/m5/meta.json"
expect_rc 0 "$IOLENS" eval --trees 10 --folds 3 --bootstrap 20 --rule-logs "$IOLENS_TMP/bin.list" --json
expect_grep '"rule_rows": 4' "$IOLENS_TMP/out"

expect_rc 2 "$IOLENS" eval --folds 1
expect_rc 2 "$IOLENS" train --trees 0
expect_rc 1 "$IOLENS" train --features /nonexistent.csv -o "$IOLENS_TMP/m3"
finish
