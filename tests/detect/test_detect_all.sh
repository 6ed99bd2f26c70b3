# iolens detect on every darshan-parser dump under ../shared/data (.parser.txt, .parser.txt.gz,
# .parser-all.txt): no error, no warning, one JSON object per log.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan
mapfile -t logs < <(find "$IOLENS_SHARED_DATA" \( -name '*.parser.txt' -o -name '*.parser.txt.gz' \
  -o -name '*.parser-all.txt' \) | sort)
[ "${#logs[@]}" -ge 90 ] && ok || fail "expected at least 90 parser dumps, found ${#logs[@]}"
expect_rc 0 "$IOLENS" detect --models "$IOLENS_SOURCE_DIR/models" --json --rules "${logs[@]}"
[ "$(grep -c '"log":' "$IOLENS_TMP/out")" -eq "${#logs[@]}" ] && ok || fail "one result per log"
[ ! -s "$IOLENS_TMP/err" ] && ok || { fail "warnings:"; head -5 "$IOLENS_TMP/err" >&2; }
finish
