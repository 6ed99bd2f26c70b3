# iolens help / --version / unknown commands: exit codes and messages.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$IOLENS" --version
expect_grep '^iolens [0-9]\+\.[0-9]\+\.[0-9]\+$' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" help
expect_grep 'commands:' "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS"
expect_grep 'usage: iolens' "$IOLENS_TMP/err"
expect_rc 2 "$IOLENS" no-such-command
expect_grep "iolens: error: 'no-such-command' is not an iolens command" "$IOLENS_TMP/err"
# Every listed command answers --help with exit 0 and a usage line.
for cmd in $("$IOLENS" help | awk '/^commands:/{f=1;next} f&&NF{print $1}'); do
  [ "$cmd" = help ] && continue
  expect_rc 0 "$IOLENS" "$cmd" --help
  expect_grep 'usage: iolens' "$IOLENS_TMP/out"
  expect_rc 0 "$IOLENS" help "$cmd"
done
# iolens loads only what its own commands use; the commands that need the classifier, MPI or HDF5
# run as iolens-full beside it (the same arguments, the same messages)
if command -v ldd >/dev/null; then
  ldd "$IOLENS" >"$IOLENS_TMP/ldd" 2>&1
  grep -q -E 'libxgboost|libmpi|libhdf5|libcurl' "$IOLENS_TMP/ldd" && fail "iolens loads $(grep -o -E 'libxgboost|libmpi|libhdf5|libcurl' "$IOLENS_TMP/ldd" | tr '\n' ' ')" || ok
fi
[ -x "$(dirname "$IOLENS")/iolens-full" ] && ok || fail "no iolens-full beside $IOLENS"
expect_rc 2 "$IOLENS" detect --no-such-option
expect_grep "iolens" "$IOLENS_TMP/err"
# options after the inputs work as before them
L=$IOLENS_SHARED_DATA/darshan/generated/small_writes_4proc_dxt_heatmap.darshan
if [ -f "$L" ]; then
  for c in detect features; do
    "$IOLENS" $c --json "$L" >"$IOLENS_TMP/a.json" 2>/dev/null; "$IOLENS" $c "$L" --json >"$IOLENS_TMP/b.json" 2>"$IOLENS_TMP/err"
    cmp -s "$IOLENS_TMP/a.json" "$IOLENS_TMP/b.json" && ok || fail "$c LOG --json differs from $c --json LOG: $(head -2 "$IOLENS_TMP/err")"
  done
  expect_rc 0 "$IOLENS" detect "$L" --tau 0.5 --top 2
  # -o FILE: the same output in a file
  for c in detect features; do
    expect_rc 0 "$IOLENS" $c "$L" --json -o "$IOLENS_TMP/o.json"
    cmp -s "$IOLENS_TMP/a.json" "$IOLENS_TMP/o.json" || "$IOLENS" $c --json "$L" | cmp -s - "$IOLENS_TMP/o.json" && ok ||
      fail "$c -o FILE differs from its standard output"
  done
  expect_rc 1 "$IOLENS" detect "$L" -o /nonexistent/dir/x.json
  expect_grep "cannot write '/nonexistent/dir/x.json'" "$IOLENS_TMP/err"
fi
# trace --print/--info take their trace after other options too; cluster -o is its result folder
expect_rc 0 "$IOLENS" trace -o "$IOLENS_TMP/t.trace" -- dd if=/dev/zero of="$IOLENS_TMP/dd.out" bs=4k count=2 status=none
expect_rc 0 "$IOLENS" trace --print --json --rank 0 "$IOLENS_TMP/t.trace"
expect_grep '"func"' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" trace --info --json "$IOLENS_TMP/t.trace"
expect_grep '"processes"' "$IOLENS_TMP/out"
S=$IOLENS_SHARED_DATA/timeseries/heatmap_job.csv
if [ -f "$S" ]; then
  expect_rc 0 "$IOLENS" cluster -o "$IOLENS_TMP/cl" "$S"
  [ -s "$IOLENS_TMP/cl/assignments.csv" ] && ok || fail "cluster -o DIR wrote no assignments.csv"
fi
# a misspelt command gets a suggestion
expect_rc 2 "$IOLENS" detct
expect_grep "did you mean 'detect'" "$IOLENS_TMP/err"
# every command answers an option it does not take with exit 2 and an error line
for c in trace view convert darshan features cluster place paired report detect train eval corpus replay whatif; do
  expect_rc 2 "$IOLENS" $c --no-such-option-here x
  expect_grep "^iolens: error: unknown option '--no-such-option-here'" "$IOLENS_TMP/err"
done
# a misspelt option gets the nearest one the command's help names
for pair in "darshan --totl --total" "cluster --kk --k" "report --jsn --json" "trace --prnt --print" \
    "view --jsno --json" "place --trace --traces" "whatif --dry-rn --dry-run"; do
  set -- $pair
  expect_rc 2 "$IOLENS" "$1" "$2" x
  expect_grep "did you mean '$3'" "$IOLENS_TMP/err"
done
# a folder of logs stands for its logs (sorted, searched below it), for detect and features alike
LOGS=$(find "$IOLENS_SHARED_DATA/darshan" -name '*.darshan' | sort | head -2)
if [ -n "$LOGS" ]; then
  mkdir -p "$IOLENS_TMP/logs/sub" "$IOLENS_TMP/nologs"
  set -- $LOGS
  cp "$1" "$IOLENS_TMP/logs/a.darshan"; cp "$2" "$IOLENS_TMP/logs/sub/b.darshan"
  echo x >"$IOLENS_TMP/logs/notes.txt"
  expect_rc 0 "$IOLENS" features "$IOLENS_TMP/logs"
  [ "$(tail -n +2 "$IOLENS_TMP/out" | cut -d, -f1 | tr '\n' ' ')" = "$IOLENS_TMP/logs/a.darshan $IOLENS_TMP/logs/sub/b.darshan " ] && ok ||
    fail "features DIR: $(cut -d, -f1 "$IOLENS_TMP/out" | tr '\n' ' ')"
  expect_rc 0 "$IOLENS" detect --json "$IOLENS_TMP/logs"
  /usr/bin/python3 -c "import json; d=json.load(open('$IOLENS_TMP/out')); assert [x['log'] for x in d] == ['$IOLENS_TMP/logs/a.darshan', '$IOLENS_TMP/logs/sub/b.darshan']" && ok || fail "detect DIR"
  expect_rc 1 "$IOLENS" detect "$IOLENS_TMP/nologs"
  expect_grep "without Darshan logs" "$IOLENS_TMP/err"
fi
# an option it takes, given without its value
expect_rc 2 "$IOLENS" cluster x --k
expect_grep "option '--k' is missing its value" "$IOLENS_TMP/err"
# the programs carry no RUNPATH with an empty entry (the loader would search the working directory)
if command -v readelf >/dev/null; then
  for b in "$IOLENS" "$(dirname "$IOLENS")/iolens-full" "$(dirname "$IOLENS")/iolens-replay"; do
    [ -e "$b" ] || continue
    rp=$(readelf -d "$b" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
    case ":$rp:" in *::*) [ -z "$rp" ] && ok || fail "$b: RUNPATH '$rp' has an empty entry" ;; *) ok ;; esac
  done
fi
finish
