# iolens convert on every shared Recorder trace, and iolens view on the
# converted traces: the same calls (func, path, size, offset; times to the
# 100 ns resolution) in the same line layout as the Recorder view.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data recorder
traces=0
for dir in "$IOLENS_SHARED_DATA"/recorder/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  [ -e "$dir/recorder.mt" ] || continue
  traces=$((traces + 1))
  t="$IOLENS_TMP/$name.iol"
  "$IOLENS" convert "$dir" -o "$t" >"$IOLENS_TMP/out" 2>"$IOLENS_TMP/err" || fail "$name: convert failed: $(cat "$IOLENS_TMP/err")"
  expect_grep '^Recorder [0-9]* bytes -> iolens [0-9]* bytes ([0-9.]*x smaller)' "$IOLENS_TMP/out"
  [ -s "$IOLENS_TMP/err" ] && fail "$name: convert warned: $(cat "$IOLENS_TMP/err")"
  ls "$IOLENS_TMP" | grep -q convert && fail "$name: scratch folder left behind"
  # view of both: rank, times, func, depth and path of every line agree (the dup family
  # prints descriptors, which Recorder's trace does not keep)
  "$IOLENS" view "$dir" >"$IOLENS_TMP/vrec" || fail "$name: view dir"
  "$IOLENS" view "$t" >"$IOLENS_TMP/viol" || fail "$name: view trace"
  awk '{print $1, $2, $3, $4, $5, $4 ~ /^dup/ ? "" : $8}' "$IOLENS_TMP/vrec" >"$IOLENS_TMP/rec"
  awk '{print $1, $2, $3, $4, $5, $4 ~ /^dup/ ? "" : $8}' "$IOLENS_TMP/viol" >"$IOLENS_TMP/iol"
  if cmp -s "$IOLENS_TMP/rec" "$IOLENS_TMP/iol"; then ok; else fail "$name: view of the converted trace differs"; fi
  # every line's arguments equal Recorder's text (not with pattern recognition: there Recorder's
  # text holds "a*r+b" / relative offsets; not the dup family, whose descriptors Recorder does not keep)
  case $name in *PR) ;; *)
    awk '$4 !~ /^dup/ {$2 = $3 = ""; print}' "$IOLENS_TMP/vrec" >"$IOLENS_TMP/rec"
    awk '$4 !~ /^dup/ {$2 = $3 = ""; print}' "$IOLENS_TMP/viol" >"$IOLENS_TMP/iol"
    if cmp -s "$IOLENS_TMP/rec" "$IOLENS_TMP/iol"; then ok; else fail "$name: arguments differ from Recorder's"; diff "$IOLENS_TMP/rec" "$IOLENS_TMP/iol" | head -4 >&2; fi ;;
  esac
  # --json on the trace: as many event objects as lines
  if [ "$("$IOLENS" view --json "$t" | grep -c '^{"rank":')" -eq "$(wc -l <"$IOLENS_TMP/viol")" ]; then ok; else fail "$name: json lines"; fi
done
[ "$traces" -ge 9 ] && ok || fail "only $traces traces found"
d="$IOLENS_SHARED_DATA/recorder/shared_n2_m10"
"$IOLENS" convert --json "$d" -o "$IOLENS_TMP/j.iol" >"$IOLENS_TMP/json" || fail "convert --json"
expect_grep '"recorder_bytes":[0-9]*,"iolens_bytes":[0-9]*,"ratio"' "$IOLENS_TMP/json"
expect_grep '"ranks":2,"calls":46,"skipped":0' "$IOLENS_TMP/json"
expect_rc 0 "$IOLENS" view --rank 1 "$IOLENS_TMP/j.iol"
# errors: usage, not a trace, wrong kind
expect_rc 2 "$IOLENS" convert "$d"
expect_rc 2 "$IOLENS" convert --resolution 0 "$d" -o "$IOLENS_TMP/x"
expect_rc 1 "$IOLENS" convert "$IOLENS_TMP/nonexistent" -o "$IOLENS_TMP/x"
expect_rc 2 "$IOLENS" view --recorder2text "$IOLENS_TMP/t" "$IOLENS_TMP/j.iol"
expect_rc 2 "$IOLENS" view --rank 2 "$IOLENS_TMP/j.iol"
printf 'IOLTRACE\001' >"$IOLENS_TMP/bad.iol"
expect_rc 1 "$IOLENS" view "$IOLENS_TMP/bad.iol"
"$IOLENS" view "$IOLENS_TMP/bad.iol" 2>&1 | grep -q "bad.iol" && ok || fail "error does not name the file"
finish
