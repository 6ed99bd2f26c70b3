#!/usr/bin/env bash
# `iolens darshan --summary` over every log of ../shared/data/darshan and
# ../shared/data/aiio plus a corrupt one: one row per readable log, the corrupt
# log reported and skipped, values equal to those of the parser text output.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
skip_unless_data aiio
export TZ=UTC
D=$IOLENS_SHARED_DATA/darshan
A=$IOLENS_SHARED_DATA/aiio
n_logs=$(find "$D" "$A" -name '*.darshan' | wc -l)
head -c 3000 "$D/generated/small_writes_4proc_noreduction.darshan" >"$IOLENS_TMP/corrupt.darshan"

expect_rc 0 "$IOLENS" darshan --summary "$D" "$A" "$IOLENS_TMP/corrupt.darshan"
cp "$IOLENS_TMP/out" "$IOLENS_TMP/sum.csv"
[ "$(tail -n +2 "$IOLENS_TMP/sum.csv" | wc -l)" -eq "$n_logs" ] && ok || fail "want $n_logs rows"
expect_grep "skipped: cannot read '$IOLENS_TMP/corrupt.darshan'" "$IOLENS_TMP/err"
expect_grep "1 of $((n_logs + 1)) logs skipped" "$IOLENS_TMP/err"
# same rows whatever the number of threads
expect_rc 0 "$IOLENS" darshan --summary -j 1 "$D" "$A"
cmp -s "$IOLENS_TMP/out" "$IOLENS_TMP/sum.csv" && ok || fail "-j 1 differs from -j 2"
expect_rc 0 "$IOLENS" darshan --summary -j7 "$D" "$A"
cmp -s "$IOLENS_TMP/out" "$IOLENS_TMP/sum.csv" && ok || fail "-j7 differs from -j 2"
# only unreadable logs: exit 1; bad -j: usage
expect_rc 1 "$IOLENS" darshan --summary "$IOLENS_TMP/corrupt.darshan"
expect_rc 2 "$IOLENS" darshan --summary -j 0 "$D"
expect_rc 1 "$IOLENS" darshan --summary "$IOLENS_TMP"/nothing-here
# values agree with the parser text: jobid, nprocs, POSIX byte totals (--total)
col() { head -1 "$IOLENS_TMP/sum.csv" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
cj=$(col jobid); cn=$(col nprocs); cr=$(col posix_bytes_read); cw=$(col posix_bytes_written)
checked=0
for f in "$D"/generated/*.darshan "$D"/public/release_logs__mpi-io-test-x86_64-3.4.[05].darshan \
         "$D"/public/dlio_logs__*2110365*.darshan "$A"/dbin_ior_id66184525-37486*.darshan; do
  row=$(grep -F "$f," "$IOLENS_TMP/sum.csv" | head -1)
  [ -n "$row" ] || { fail "no row for $f"; continue; }
  # exe has no comma in these logs, so plain field splitting is right
  "$IOLENS" darshan --total --show-incomplete "$f" >"$IOLENS_TMP/total" 2>/dev/null
  want_j=$(sed -n 's/^# jobid: //p' "$IOLENS_TMP/total")
  want_n=$(sed -n 's/^# nprocs: //p' "$IOLENS_TMP/total")
  want_r=$(awk '$1=="total_POSIX_BYTES_READ:"{print $2}' "$IOLENS_TMP/total")
  want_w=$(awk '$1=="total_POSIX_BYTES_WRITTEN:"{print $2}' "$IOLENS_TMP/total")
  got=$(echo "$row" | awk -F, -v a=$cj -v b=$cn -v c=$cr -v d=$cw '{print $a, $b, $c, $d}')
  if [ "$got" = "$want_j $want_n ${want_r:-} ${want_w:-}" ] || { [ -z "$want_r" ] && [ "$got" = "$want_j $want_n  " ]; }; then
    ok
  else
    fail "$f: summary '$got' vs parser '$want_j $want_n $want_r $want_w'"
  fi
  checked=$((checked + 1))
done
[ "$checked" -ge 10 ] && ok || fail "only $checked logs cross-checked"
# --json: an array with one object per readable log
expect_rc 0 "$IOLENS" darshan --summary --json "$D" "$IOLENS_TMP/corrupt.darshan"
if command -v python3 >/dev/null; then
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$IOLENS_TMP/out")
  [ "$n" -eq "$(find "$D" -name '*.darshan' | wc -l)" ] && ok || fail "--json has $n objects"
fi
finish
