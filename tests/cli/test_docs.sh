#!/usr/bin/env bash
# docs/cli.md's tour: every "$ " line after "## A tour that runs as written" is run in order, in
# an empty folder, with the built iolens first on the PATH; each must exit 0. So is every "$ "
# line of every other page of docs/ and of the README, each page in a folder of its own. Then
# what the tour says its commands produce is checked.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
doc=$IOLENS_SOURCE_DIR/docs/cli.md
export PATH="$(cd "$(dirname "$IOLENS")" && pwd):$PATH"
cd "$IOLENS_TMP" || exit 1
n=0
while IFS= read -r line; do
  cmd=${line#    \$ }
  n=$((n + 1))
  if bash -c "$cmd" >"$IOLENS_TMP/.out" 2>"$IOLENS_TMP/.err"; then ok; else
    fail "docs/cli.md: '$cmd' exited $?"; sed 's/^/  /' "$IOLENS_TMP/.err" | head -3 >&2
  fi
done < <(sed -n '/^## A tour that runs as written/,$p' "$doc" | grep '^    \$ ')
[ "$n" -ge 15 ] && ok || fail "only $n commands in the tour"
# every other page: its "$ " lines, in order, in an empty folder of its own (recorder.md's read
# the Recorder trace named by $RECORDER_DIR)
export RECORDER_DIR=$IOLENS_SHARED_DATA/recorder/shared_n2_m10
pages=0
for page in "$IOLENS_SOURCE_DIR"/docs/*.md; do
  [ "$page" = "$doc" ] && continue
  grep -q '^    \$ ' "$page" || continue
  name=$(basename "$page" .md)
  if [ "$name" = recorder ] && [ ! -d "$RECORDER_DIR" ]; then echo "skip: docs/recorder.md (no $RECORDER_DIR)"; continue; fi
  mkdir -p "$IOLENS_TMP/page-$name"
  pages=$((pages + 1))
  while IFS= read -r line; do
    cmd=${line#    \$ }
    if (cd "$IOLENS_TMP/page-$name" && bash -c "$cmd") >"$IOLENS_TMP/.out" 2>"$IOLENS_TMP/.err"; then ok; else
      fail "docs/$name.md: '$cmd' exited $?"; sed 's/^/  /' "$IOLENS_TMP/.err" | head -3 >&2
    fi
  done < <(grep '^    \$ ' "$page")
done
[ "$pages" -ge 12 ] && ok || fail "only $pages pages with examples"
# the README's tour, in a folder of its own
mkdir -p "$IOLENS_TMP/readme"
nr=0
while IFS= read -r line; do
  cmd=${line#    \$ }
  nr=$((nr + 1))
  if (cd "$IOLENS_TMP/readme" && bash -c "$cmd") >"$IOLENS_TMP/.out" 2>"$IOLENS_TMP/.err"; then ok; else
    fail "README.md: '$cmd' exited $?"; sed 's/^/  /' "$IOLENS_TMP/.err" | head -3 >&2
  fi
done < <(grep '^    \$ ' "$IOLENS_SOURCE_DIR/README.md")
[ "$nr" -ge 15 ] && ok || fail "only $nr commands in the README's tour"
grep -q '^run\.trace' "$IOLENS_TMP/readme/report.html" 2>/dev/null || [ -s "$IOLENS_TMP/readme/report.html" ] && ok ||
  fail "the README's tour wrote no report"
# what the pages say their examples produce
[ "$(tail -1 page-counters/diff.txt)" = "# 0 differences" ] && ok || fail "docs/counters.md: the traced run's log and the one from its trace differ"
[ "$(tail -1 page-darshan/diff.txt)" = "# 4 differences" ] && ok || fail "docs/darshan.md: the obfuscated log: $(tail -1 page-darshan/diff.txt)"
grep -q "template-based advice" page-advise/advice.txt && ok || fail "docs/advise.md: no offline advice"
if [ -d "$RECORDER_DIR" ]; then
  cmp -s page-recorder/text/0.txt "$RECORDER_DIR/_text/0.txt" && ok || fail "docs/recorder.md: --recorder2text differs from recorder2text"
  [ "$(wc -l < page-recorder/rank1.jsonl)" -eq "$(wc -l < "$RECORDER_DIR/_text/1.txt")" ] && ok || fail "docs/recorder.md: rank 1's JSON Lines"
fi
# what the tour's outputs hold
[ "$(tail -1 joined.txt)" = "# 0 differences" ] && ok || fail "split and merged log differs: $(tail -1 joined.txt)"
grep -q '^job	exe\|^job exe' diff.txt && ok || fail "the anonymised log's exe is not among the differences"
/usr/bin/python3 -c "import json,sys; d=json.load(open('diff.json')); sys.exit(0 if d['differences'] > 0 and not d['equal'] else 1)" && ok || fail "diff.json"
grep -q '^# compression method: BZIP2' <(iolens darshan anon.darshan) && ok || fail "anon.darshan is not bzip2"
grep -q '^POSIX	' run.txt && ok || fail "run.txt has no POSIX records"
[ -s report.html ] && [ -s timeline.json ] && [ -s calls.jsonl ] && ok || fail "report, timeline or calls missing"
# -o writes what stdout would have shown
cmp -s run.txt <(iolens darshan run.darshan) && ok || fail "darshan -o differs from its stdout"
cmp -s calls.jsonl <(iolens view --json run.trace) && ok || fail "view --json -o differs from its stdout"
cmp -s calls.txt <(iolens trace --print run.trace) && ok || fail "trace --print -o differs from its stdout"
iolens darshan run.darshan >/dev/full 2>err.txt && fail "darshan to a full disk exited 0" || ok
grep -q "No space left" err.txt && ok || fail "a full disk is not reported: $(cat err.txt)"
# the error example of the conventions section says what the tour's log gets
iolens darshan --totl run.darshan 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF "$(sed -n 's/^      iolens: error: unknown option/iolens: error: unknown option/p' "$doc")" err.txt && ok ||
  fail "the documented error is not the one printed: $(cat err.txt)"
finish
