# iolens detect and iolens features on every binary Darshan log under ../shared/data (darshan/ and
# aiio/): no error, no warning, one result per log; binary logs and text dumps mix on one command line.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan
mapfile -t logs < <(find "$IOLENS_SHARED_DATA" -name '*.darshan' | sort)
[ "${#logs[@]}" -ge 101 ] && ok || fail "expected at least 101 binary logs, found ${#logs[@]}"
expect_rc 0 "$IOLENS" detect --models "$IOLENS_SOURCE_DIR/models" --json --rules "${logs[@]}"
[ "$(grep -c '"log":' "$IOLENS_TMP/out")" -eq "${#logs[@]}" ] && ok || fail "one result per log"
[ ! -s "$IOLENS_TMP/err" ] && ok || { fail "warnings:"; head -5 "$IOLENS_TMP/err" >&2; }
expect_rc 0 "$IOLENS" features "${logs[@]}"
[ "$(wc -l < "$IOLENS_TMP/out")" -eq $(( ${#logs[@]} + 1 )) ] && ok || fail "one feature row per log"
# binary and text side by side: same nprocs, run time within the text's 4 decimals
bin="$IOLENS_SHARED_DATA/darshan/generated/nonmpi_dd_64MiB.darshan"
expect_rc 0 "$IOLENS" features --csv "$bin" "$bin.parser.txt"
[ "$(sed -n 2p "$IOLENS_TMP/out" | cut -d, -f2)" = "$(sed -n 3p "$IOLENS_TMP/out" | cut -d, -f2)" ] && ok ||
  fail "binary and text nprocs differ"
awk -F, 'NR == 2 { b = $3 } NR == 3 { t = $3 } END { d = b - t; exit !(d < 5e-5 && d > -5e-5) }' \
  "$IOLENS_TMP/out" && ok || fail "binary and text run times differ beyond rounding"
expect_rc 0 "$IOLENS" detect "$bin"
expect_grep 'detected' "$IOLENS_TMP/out"
# a truncated binary log is an error naming the file, not a text parse
head -c 600 "$bin" > "$IOLENS_TMP/trunc.darshan"
expect_rc 1 "$IOLENS" detect "$IOLENS_TMP/trunc.darshan"
expect_grep 'trunc.darshan' "$IOLENS_TMP/err"
finish
