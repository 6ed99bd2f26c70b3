#!/usr/bin/env bash
# `iolens darshan --from TRACE -o LOG`: options, and the written log printed
# with the shape of darshan-parser output of a real log.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data recorder/shared_n4_m10
export TZ=UTC
R=$IOLENS_SHARED_DATA/recorder
G=$IOLENS_SHARED_DATA/darshan/generated/small_writes_4proc_dxt_heatmap.darshan
L=$IOLENS_TMP/w.darshan

expect_rc 0 "$IOLENS" darshan --from x --help
expect_grep "usage: iolens darshan --from TRACE -o LOG.darshan" "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" darshan --from "$R/shared_n4_m10"
expect_rc 2 "$IOLENS" darshan --from "$R/shared_n4_m10" -o "$L" --alignment -3
expect_rc 1 "$IOLENS" darshan --from /nonexistent -o "$L"
expect_grep "iolens: error:" "$IOLENS_TMP/err"

# Darshan skips /dev/ paths by default: the /dev/shm trace gives no POSIX record
expect_rc 0 "$IOLENS" darshan --from "$R/shared_n4_m10" -o "$L"
expect_grep "0 POSIX" "$IOLENS_TMP/err"
expect_rc 0 "$IOLENS" darshan --from "$R/shared_n4_m10" -o "$L" --all-paths --exe "./iorlike 10"
expect_grep "1 POSIX" "$IOLENS_TMP/err"
expect_rc 0 "$IOLENS" darshan --all "$L"
cp "$IOLENS_TMP/out" "$IOLENS_TMP/ours.txt"
expect_grep "^# exe: ./iorlike 10$" "$IOLENS_TMP/ours.txt"
expect_grep "^# nprocs: 4$" "$IOLENS_TMP/ours.txt"
expect_grep "^# darshan log version: 3.41$" "$IOLENS_TMP/ours.txt"
# mount table of this machine without the types the runtime skips, no duplicates
if grep -P '^# mount entry:\t.*\t(tmpfs|proc|sysfs|devpts|cgroup)$' "$IOLENS_TMP/ours.txt"; then fail "skipped fs type in the mount table"; else ok; fi
if [ "$(grep '^# mount entry:' "$IOLENS_TMP/ours.txt" | sort | uniq -d | wc -l)" = 0 ]; then ok; else fail "duplicate mount entries"; fi
expect_grep "POSIX	-1	[0-9]*	POSIX_BYTES_WRITTEN	41943040	/dev/shm/iorlike-data/shared.dat" "$IOLENS_TMP/ours.txt"
expect_grep "total_POSIX_BYTES_WRITTEN: 41943040" "$IOLENS_TMP/ours.txt"

# shape: the same comment-line skeleton and, per module, the same counter list as a real log
skeleton() { grep '^#' "$1" | sed -E 's/^(# [^:0-9]*).*/\1/' | grep -E 'module data|description of|log version|compression|^# exe|^# nprocs|^# run time|^# start_time|^# end_time|mounted file' | sort -u; }
counters() { grep -P "^$2\t" "$1" | cut -f4 | awk '!seen[$0]++'; }
"$IOLENS" darshan --all --show-incomplete "$G" >"$IOLENS_TMP/real.txt"
skeleton "$IOLENS_TMP/real.txt" | grep -v -E 'MPI-?IO|STDIO|HEATMAP|LUSTRE' >"$IOLENS_TMP/a"
skeleton "$IOLENS_TMP/ours.txt" | grep -v -E 'MPI-?IO|STDIO|HEATMAP|LUSTRE' >"$IOLENS_TMP/b"
if cmp -s "$IOLENS_TMP/a" "$IOLENS_TMP/b"; then ok; else fail "section skeleton differs: $(diff "$IOLENS_TMP/a" "$IOLENS_TMP/b")"; fi
counters "$IOLENS_TMP/real.txt" POSIX >"$IOLENS_TMP/a"
counters "$IOLENS_TMP/ours.txt" POSIX >"$IOLENS_TMP/b"
if cmp -s "$IOLENS_TMP/a" "$IOLENS_TMP/b" && [ "$(wc -l <"$IOLENS_TMP/a")" = 86 ]; then ok; else fail "POSIX counter list differs"; fi
# consumers of Darshan logs take the written one (IOSage features from its parser text)
expect_rc 0 "$IOLENS" features "$IOLENS_TMP/ours.txt"
if [ "$(wc -l <"$IOLENS_TMP/out")" = 2 ] && grep -q ',4,' "$IOLENS_TMP/out"; then ok; else fail "features of the written log: $(cat "$IOLENS_TMP/out")"; fi
# machine-readable summary
expect_rc 0 "$IOLENS" darshan --from "$R/shared_n4_m10" -o "$L" --all-paths --json
expect_grep '"nprocs":4,' "$IOLENS_TMP/out"
expect_grep '"POSIX":{"records":1,"bytes_read":41943040,"bytes_written":41943040}' "$IOLENS_TMP/out"
expect_grep '"HEATMAP":{"records":4}' "$IOLENS_TMP/out"
# the DXT of the written log prints as darshan-dxt-parser does
expect_rc 0 "$IOLENS" darshan --dxt "$L"
expect_grep "^# DXT, file_id: [0-9]*, file_name: /dev/shm/iorlike-data/shared.dat" "$IOLENS_TMP/out"
finish
