#!/usr/bin/env bash
# iolens features / detect on traces:
#  - every Recorder trace directory under ../shared/data/recorder (those present) runs through
#    `iolens detect` without error, with Darshan's path exclusions (default: the traces live in
#    /dev/shm, so a warning says every file was left out) and with --all-paths (no warning but
#    Recorder's own note on pattern recognition), one JSON result per trace;
#  - inputs of every kind in one call (binary log, darshan-parser text, iolens trace, Recorder
#    directory): one CSV row / JSON object each, in order;
#  - the Recorder trace nonmpi_dd_1000x1MiB (`dd if=/dev/zero of=/dev/shm/ddtest bs=1M
#    count=1000`, recorder/INDEX.txt) against the same command traced by iolens, both with
#    --all-paths (the data file is under /dev/shm, as in the Recorder run: 1 GB in memory for
#    about a second). Every non-timing feature is equal but num_files, explained: the iolens
#    trace has dd's stdio calls at exit (fflush and fclose on stderr, which the Darshan runtime
#    wraps), so Darshan's STDIO module would have registered <STDIN> <STDOUT> <STDERR>
#    heatmap:STDIO (+4); Recorder recorded no stdio call. (Recorder logs dd's two dup2(3, fd) calls with numbers; the reader gives each
#    the file dd had just opened, /dev/zero and then the output, so no pseudo-file "3".)
#    So 7 against 3.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data recorder
R=$IOLENS_SHARED_DATA/recorder
M=(--models "$IOLENS_SOURCE_DIR/models")
mapfile -t traces < <(for d in "$R"/*/; do [ -f "$d/VERSION" ] && echo "${d%/}"; done)
[ "${#traces[@]}" -ge 5 ] && ok || fail "expected Recorder traces under $R, found ${#traces[@]}"

expect_rc 0 "$IOLENS" detect "${M[@]}" --json "${traces[@]}"
[ "$(grep -c '"log":' "$IOLENS_TMP/out")" -eq "${#traces[@]}" ] && ok || fail "one result per trace"
# every trace touched only /dev/shm and /dev/zero (dd): a warning for each
nshm=${#traces[@]}
[ "$(grep -c 'every file of the trace is under a path Darshan leaves out' "$IOLENS_TMP/err")" -eq "$nshm" ] &&
  ok || fail "default: a warning per /dev/shm trace ($nshm): $(head -3 "$IOLENS_TMP/err")"
# ... and, with no file record left, nothing is detected (the row is that of a run without I/O)
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d and all(x["no_file_records"] is True and x["detected"] == [] for x in d) else 1)' \
  "$IOLENS_TMP/out" && ok || fail "default: no_file_records true and nothing detected on every trace"
expect_rc 0 "$IOLENS" detect "${M[@]}" --json --all-paths "${traces[@]}"
grep -q '"no_file_records": *true' "$IOLENS_TMP/out" && fail "--all-paths: a trace without file records" || ok
[ "$(grep -c '"log":' "$IOLENS_TMP/out")" -eq "${#traces[@]}" ] && ok || fail "one result per trace (--all-paths)"
grep -v 'pattern recognition is on' "$IOLENS_TMP/err" | grep -q . && fail "warnings: $(head -3 "$IOLENS_TMP/err")" || ok
expect_rc 0 "$IOLENS" detect "${M[@]}" --all-paths --rules "$R/shared_n2_m100"
expect_grep 'detected (tau 0.30)' "$IOLENS_TMP/out"
expect_grep "IOSage's mapping of Drishti's triggers" "$IOLENS_TMP/out"
expect_grep '/dev/shm/' "$IOLENS_TMP/out" # per-file evidence names the trace's file

# every kind in one call, in order
G=$IOLENS_SHARED_DATA/darshan/generated
T=$IOLENS_TMP/t.trace
expect_rc 0 "$IOLENS" trace -o "$T" -- dd if=/dev/zero of="$IOLENS_TMP/dd.out" bs=64k count=16
rm -f "$IOLENS_TMP/dd.out"
expect_rc 0 "$IOLENS" features "$G/nonmpi_dd_64MiB.darshan" "$G/nonmpi_dd_64MiB.darshan.parser.txt" "$T" \
  "$R/shared_n2_m10"
[ "$(wc -l <"$IOLENS_TMP/out")" -eq 5 ] && ok || fail "features: 4 rows + header"
[ "$(awk -F, 'NR > 1 {print $1}' "$IOLENS_TMP/out" | tr '\n' ' ')" = \
  "$G/nonmpi_dd_64MiB.darshan $G/nonmpi_dd_64MiB.darshan.parser.txt $T $R/shared_n2_m10 " ] && ok ||
  fail "rows in input order"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "POSIX_WRITES") c = i } NR == 4 { exit !($c == 16) }' \
  "$IOLENS_TMP/out" && ok || fail "the iolens trace row: 16 writes"
expect_rc 0 "$IOLENS" features --json "$T" "$R/shared_n2_m10"
[ "$(grep -c '"log":' "$IOLENS_TMP/out")" -eq 2 ] && ok || fail "features --json: 2 objects"
expect_rc 0 "$IOLENS" detect "${M[@]}" "$T" "$G/nonmpi_dd_64MiB.darshan"
[ "$(grep -c 'detected (tau' "$IOLENS_TMP/out")" -eq 2 ] && ok || fail "detect: 2 results"
# errors: a missing input, a file that is no log, a truncated trace
expect_rc 1 "$IOLENS" features "$IOLENS_TMP/missing"
head -c 100 "$T" >"$IOLENS_TMP/cut.trace"
expect_rc 1 "$IOLENS" detect "${M[@]}" "$IOLENS_TMP/cut.trace"
expect_grep 'cut.trace' "$IOLENS_TMP/err"

# Recorder dd against iolens dd (same command, both --all-paths). dd prints its report on stderr
# with __fprintf_chk (Debian builds it with _FORTIFY_SOURCE), which neither Recorder nor the
# Darshan runtime wraps: the iolens trace records the entry point, and the counters leave it out
# as the runtime does (STDIO_WRITES 0 in both).
if [ -d "$R/nonmpi_dd_1000x1MiB" ] && [ -d /dev/shm ]; then
  D=$(mktemp -d /dev/shm/iolens-dd.XXXXXX)
  trap 'rm -rf "$D" "$IOLENS_TMP"' EXIT
  expect_rc 0 "$IOLENS" trace -o "$IOLENS_TMP/dd1000.trace" -- dd if=/dev/zero of="$D/ddtest" bs=1M count=1000
  rm -rf "$D"
  expect_rc 0 "$IOLENS" features --all-paths "$IOLENS_TMP/dd1000.trace" "$R/nonmpi_dd_1000x1MiB"
  awk -F, '
    BEGIN { n = split("runtime_seconds POSIX_F_READ_TIME POSIX_F_WRITE_TIME POSIX_F_META_TIME POSIX_F_MAX_READ_TIME " \
                      "POSIX_F_MAX_WRITE_TIME POSIX_MAX_READ_TIME_SIZE POSIX_MAX_WRITE_TIME_SIZE read_bw_mb_s " \
                      "write_bw_mb_s total_bw_mb_s metadata_time_ratio read_time_fraction write_time_fraction " \
                      "io_duration io_active_fraction num_files iol_files_per_proc", s, " ")
            for (i = 1; i <= n; i++) sk[s[i]] = 1 }
    NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; nf = NF }
    NR == 2 { for (i = 2; i <= NF; i++) a[i] = $i }
    NR == 3 { for (i = 2; i <= NF; i++) b[i] = $i }
    END { c = 0; for (i = 2; i <= nf; i++) { if (name[i] in sk) continue; c++; if (a[i] != b[i]) print name[i], a[i], b[i] }
          print "compared", c; for (i = 2; i <= nf; i++) if (name[i] == "num_files") print "num_files", a[i], b[i] }' \
    "$IOLENS_TMP/out" >"$IOLENS_TMP/diff"
  if [ "$(grep -vcE '^(compared|num_files) ' "$IOLENS_TMP/diff")" -eq 0 ]; then ok
    echo "recorder dd: $(awk '$1 == "compared" {print $2}' "$IOLENS_TMP/diff") non-timing features equal"
  else fail "recorder dd: features differ (iolens, Recorder): $(head -20 "$IOLENS_TMP/diff" | tr '\n' ';')"; fi
  grep -qx 'num_files 7 3' "$IOLENS_TMP/diff" && ok || fail "recorder dd: num_files $(grep num_files "$IOLENS_TMP/diff")"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "STDIO_WRITES") c = i } NR == 2 { a = $c } NR == 3 { b = $c }
    END { exit !(a == 0 && b == 0) }' "$IOLENS_TMP/out" && ok || fail "recorder dd: STDIO_WRITES not 0 (iolens) and 0 (Recorder)"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "POSIX_BYTES_WRITTEN") c = i } NR > 1 && $c != 1048576000 { exit 1 }' \
    "$IOLENS_TMP/out" && ok || fail "recorder dd: 1000 MiB written in both"
  expect_rc 0 "$IOLENS" trace --print "$IOLENS_TMP/dd1000.trace"
  [ "$(grep -c ' __fprintf_chk(' "$IOLENS_TMP/out")" = 2 ] && ok || fail "recorder dd: not 2 __fprintf_chk calls in the iolens trace"
fi
finish
