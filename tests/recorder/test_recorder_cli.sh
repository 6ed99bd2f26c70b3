# iolens view on every shared Recorder trace: --recorder2text must equal the
# stored recorder2text output (_text/<rank>.txt) byte for byte.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data recorder
traces=0
for dir in "$IOLENS_SHARED_DATA"/recorder/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  [ -e "$dir/recorder.mt" ] || continue
  traces=$((traces + 1))
  out="$IOLENS_TMP/text-$name"
  expect_rc 0 "$IOLENS" view --recorder2text "$out" "$dir"
  if [ -d "$dir/_text" ]; then
    if diff -r "$out" "$dir/_text" >/dev/null; then ok; else fail "$name: --recorder2text differs from _text"; fi
    # default view: the same lines, each prefixed by the rank
    "$IOLENS" view "$dir" >"$IOLENS_TMP/view" || fail "$name: view failed"
    for f in "$dir"/_text/*.txt; do
      r=$(basename "$f" .txt)
      if grep "^$r " "$IOLENS_TMP/view" | cut -d' ' -f2- | cmp -s - "$f"; then ok; else fail "$name: view rank $r"; fi
    done
  else
    # no stored text (non-MPI trace): the files exist and are non-empty
    [ -s "$out/0.txt" ] && ok || fail "$name: no 0.txt"
  fi
  # --json: one valid object per line, as many as text lines
  "$IOLENS" view --json "$dir" >"$IOLENS_TMP/json" || fail "$name: --json failed"
  if [ "$("$JSON_LINES_CHECK" <"$IOLENS_TMP/json")" -eq "$(cat "$out"/*.txt | wc -l)" ]; then ok; else fail "$name: json lines"; fi
done
[ "$traces" -ge 9 ] && ok || fail "only $traces traces found"
# the last trace's JSON lines are all event objects
"$JSON_LINES_CHECK" <"$IOLENS_TMP/json" >/dev/null && ok || fail "json lines are not event objects"

# errors: usage 2, failures 1 with a message naming the file
expect_rc 2 "$IOLENS" view
expect_rc 2 "$IOLENS" view --bogus "$IOLENS_SHARED_DATA/recorder/shared_n2_m10"
expect_rc 2 "$IOLENS" view --rank 7 "$IOLENS_SHARED_DATA/recorder/shared_n2_m10"
expect_rc 1 "$IOLENS" view "$IOLENS_TMP/no-such-trace"
expect_grep "iolens: error: cannot open '.*no-such-trace': No such file" "$IOLENS_TMP/err"
bad="$IOLENS_TMP/bad"
mkdir -p "$bad"
cp "$IOLENS_SHARED_DATA"/recorder/shared_n2_m10/{VERSION,recorder.mt,recorder.cst,ug.mt,ug.cfg,recorder.ts} "$bad/"
chmod u+w "$bad"/*
head -c 100 "$IOLENS_SHARED_DATA/recorder/shared_n2_m10/ug.cfg" >"$bad/ug.cfg"
expect_rc 1 "$IOLENS" view "$bad"
expect_grep "iolens: error: cannot read '.*bad/ug.cfg': .* at byte" "$IOLENS_TMP/err"
printf '7.1.0' >"$bad/VERSION"
expect_rc 1 "$IOLENS" view "$bad"
expect_grep "VERSION': Recorder version 7.1.0 is not supported" "$IOLENS_TMP/err"
finish
