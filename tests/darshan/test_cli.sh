#!/usr/bin/env bash
# `iolens darshan` options, exit codes and robustness on real logs.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
export TZ=UTC
D=$IOLENS_SHARED_DATA/darshan
G=$D/generated/small_writes_4proc_dxt_heatmap.darshan

expect_rc 0 "$IOLENS" darshan --help
expect_grep "usage: iolens darshan" "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" darshan
expect_rc 2 "$IOLENS" darshan --bogus "$G"
expect_rc 1 "$IOLENS" darshan /nonexistent.darshan
expect_grep "iolens: error: cannot open '/nonexistent.darshan'" "$IOLENS_TMP/err"

# the four section options together are exactly --all
"$IOLENS" darshan --all --show-incomplete "$G" >"$IOLENS_TMP/all"
expect_rc 0 "$IOLENS" darshan --base --total --file --perf --show-incomplete "$G"
if cmp -s "$IOLENS_TMP/out" "$IOLENS_TMP/all"; then ok; else fail "--base --total --file --perf != --all"; fi
# each derived section alone: its lines are those of --all, without the records
for opt in --total --file --perf; do
  expect_rc 0 "$IOLENS" darshan $opt "$G"
  if grep -q -P '^POSIX\t' "$IOLENS_TMP/out"; then fail "$opt printed records"; else ok; fi
done
"$IOLENS" darshan --perf "$G" | grep agg_perf_by_slowest >"$IOLENS_TMP/a"
grep agg_perf_by_slowest "$IOLENS_TMP/all" >"$IOLENS_TMP/b"
if cmp -s "$IOLENS_TMP/a" "$IOLENS_TMP/b" && [ -s "$IOLENS_TMP/a" ]; then ok; else fail "--perf differs from --all"; fi
"$IOLENS" darshan --total "$G" | grep '^total_' >"$IOLENS_TMP/a"
grep '^total_' "$IOLENS_TMP/all" >"$IOLENS_TMP/b"
if cmp -s "$IOLENS_TMP/a" "$IOLENS_TMP/b" && [ -s "$IOLENS_TMP/a" ]; then ok; else fail "--total differs from --all"; fi
"$IOLENS" darshan --file "$G" | grep '^# \(total\|shared\|unique\):' >"$IOLENS_TMP/a"
grep '^# \(total\|shared\|unique\):' "$IOLENS_TMP/all" >"$IOLENS_TMP/b"
if cmp -s "$IOLENS_TMP/a" "$IOLENS_TMP/b" && [ -s "$IOLENS_TMP/a" ]; then ok; else fail "--file differs from --all"; fi

# an unknown module (APMPI) is skipped with the reference's warning on stderr
expect_rc 0 "$IOLENS" darshan "$D/public/release_logs__mpi-io-test-x86_64-3.4.1.darshan"
expect_grep "no log utility handlers defined for module APMPI, SKIPPING" "$IOLENS_TMP/err"

# incomplete module: set the POSIX partial bit (3.41 header byte 24, bit 1) on a copy
cp "$D/generated/converted_3.0.0_to_3.41.darshan" "$IOLENS_TMP/partial.darshan"
printf '\002' | dd of="$IOLENS_TMP/partial.darshan" bs=1 seek=24 conv=notrunc 2>/dev/null
expect_rc 1 "$IOLENS" darshan "$IOLENS_TMP/partial.darshan"
expect_grep "The POSIX module contains incomplete data" "$IOLENS_TMP/err"
expect_rc 0 "$IOLENS" darshan --show-incomplete "$IOLENS_TMP/partial.darshan"
expect_grep "# \*WARNING\*: The POSIX module contains incomplete data" "$IOLENS_TMP/out"

# an AI-IO log (no reference text stored; all of them are loaded by test_darshan)
for f in "$IOLENS_SHARED_DATA"/aiio/dbin_write_3d_nc4_*.darshan; do
  [ -e "$f" ] || continue
  expect_rc 0 "$IOLENS" darshan --all "$f"
  expect_grep "^# agg_perf_by_slowest" "$IOLENS_TMP/out"
  expect_rc 0 "$IOLENS" darshan --dxt "$f"
done

# a truncated log is a clear error naming the file, region and byte offset
head -c 1500 "$D/generated/converted_3.0.0_to_3.41.darshan" >"$IOLENS_TMP/trunc.darshan"
expect_rc 1 "$IOLENS" darshan "$IOLENS_TMP/trunc.darshan"
expect_grep "trunc.darshan.*region.*byte [0-9]" "$IOLENS_TMP/err"

# --json from the command line: one document whose values are those of the parser text
expect_rc 0 "$IOLENS" darshan --json "$G"
if command -v python3 >/dev/null; then
  got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d["modules"]["POSIX"]["records"] if x["rank"]==-1][0]; print(d["job"]["jobid"], d["job"]["nprocs"], len(d["modules"]["DXT_POSIX"]["records"]), r["id"], r["counters"]["POSIX_BYTES_WRITTEN"])' "$IOLENS_TMP/out")
  "$IOLENS" darshan "$G" >"$IOLENS_TMP/text" 2>/dev/null
  rid=$(echo "$got" | cut -d' ' -f4)
  want_w=$(awk -v id="$rid" '$1=="POSIX" && $2==-1 && $3==id && $4=="POSIX_BYTES_WRITTEN"{print $5}' "$IOLENS_TMP/text")
  want="$(sed -n 's/^# jobid: //p' "$IOLENS_TMP/text") $(sed -n 's/^# nprocs: //p' "$IOLENS_TMP/text")"
  [ "$got" = "$want $(echo "$got" | cut -d' ' -f3) $rid $want_w" ] && [ -n "$want_w" ] && ok || fail "--json '$got' vs text '$want ... $want_w'"
fi
expect_rc 0 "$IOLENS" darshan --json --pretty "$G"
expect_rc 2 "$IOLENS" darshan --json --heatmap "$G"
expect_rc 2 "$IOLENS" darshan --report "$G" "$G"
expect_rc 1 "$IOLENS" darshan --json "$IOLENS_TMP/trunc.darshan"
expect_grep "trunc.darshan" "$IOLENS_TMP/err"

# --total keeps the last record's POSIX_RENAMED_FROM (a record id), as darshan-parser does: two
# files renamed and written again, two records naming their sources
R=$IOLENS_TMP/rename; rm -rf "$R"; mkdir -p "$R"
expect_rc 0 "$IOLENS" trace -o "$R/t" --darshan "$R/rn.darshan" -- /usr/bin/python3 -c "
import os
for x in 'ab':
    with open('$R/' + x + '1', 'w') as f: f.write('x')
    os.rename('$R/' + x + '1', '$R/' + x + '2')
    with open('$R/' + x + '2', 'a') as f: f.write('y')"
"$IOLENS" darshan "$R/rn.darshan" | awk -F'\t' '$4 == "POSIX_RENAMED_FROM" && $5 != "0" {v = $5} END {print v}' >"$R/last"
[ "$(wc -w <"$R/last")" -eq 1 ] && ok || fail "no renamed record in the log"
want=$(/usr/bin/python3 -c "import sys; v = int(sys.argv[1]); print(v - (1 << 64) if v >= 1 << 63 else v)" "$(cat "$R/last")")
expect_rc 0 "$IOLENS" darshan --total "$R/rn.darshan"
expect_grep "^total_POSIX_RENAMED_FROM: $want\$" "$IOLENS_TMP/out"
finish
