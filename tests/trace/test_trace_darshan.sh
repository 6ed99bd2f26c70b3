#!/bin/bash
# iolens trace --darshan LOG: a traced run also writes a Darshan log whose
# counters match what the program did (dd: 100 writes of 4096 bytes).
. "$(dirname "$0")/../cli/lib.sh"
: "${IOLENS_SHIM:?}"
T=$IOLENS_TMP

expect_rc 0 "$IOLENS" trace --help
expect_grep "\-\-darshan LOG" "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" trace --darshan "$T/x.darshan" --info "$T/none.trace"

# without -o: the trace is kept next to the log as LOG.trace
expect_rc 0 "$IOLENS" trace --darshan "$T/dd.darshan" -- dd if=/dev/zero of="$T/x" bs=4096 count=100
[ -s "$T/dd.darshan.trace" ] && ok || fail "trace not kept as LOG.trace"
expect_grep "[12] POSIX" "$IOLENS_TMP/err" # (2: with "<STDERR>", whose fileno gnulib's fclose asks at exit)
expect_rc 0 "$IOLENS" darshan --all "$T/dd.darshan"
cp "$IOLENS_TMP/out" "$T/dd.txt"
expect_grep "^# darshan log version: 3.41$" "$T/dd.txt"
expect_grep "^# exe: dd if=/dev/zero of=$T/x bs=4096 count=100 $" "$T/dd.txt" # (the runtime's form: every argument followed by a space)
expect_grep "POSIX	0	[0-9-]*	POSIX_WRITES	100	$T/x	" "$T/dd.txt"
expect_grep "POSIX	0	[0-9-]*	POSIX_BYTES_WRITTEN	409600	$T/x	" "$T/dd.txt"
# /dev/zero is under a prefix Darshan skips
if grep -qP "^POSIX\t.*\t/dev/zero\t" "$T/dd.txt"; then fail "/dev/zero kept"; else ok; fi

# with -o: the trace goes there, and gives the same log as `iolens darshan --from`
expect_rc 0 "$IOLENS" trace -o "$T/o.trace" --darshan "$T/o.darshan" -- dd if=/dev/zero of="$T/x" bs=4096 count=100
[ -s "$T/o.trace" ] && [ ! -e "$T/o.darshan.trace" ] && ok || fail "-o not honoured"
expect_rc 0 "$IOLENS" darshan --all "$T/o.darshan"
expect_grep "POSIX	0	[0-9-]*	POSIX_BYTES_WRITTEN	409600	$T/x	" "$IOLENS_TMP/out"
# files under /dev/shm are under /dev/, which Darshan skips: kept only with --darshan-all-paths
shm=$(mktemp -d /dev/shm/iolens-darshan-XXXXXX)
expect_rc 0 "$IOLENS" trace -o "$T/s.trace" --darshan "$T/s.darshan" -- dd if=/dev/zero of="$shm/x" bs=4096 count=10
expect_rc 0 "$IOLENS" darshan --all "$T/s.darshan"
if grep -qP "^POSIX\t.*\t$shm/x\t" "$IOLENS_TMP/out"; then fail "/dev/shm file kept without --darshan-all-paths"; else ok; fi
expect_rc 0 "$IOLENS" trace -o "$T/s2.trace" --darshan "$T/s2.darshan" --darshan-all-paths -- dd if=/dev/zero of="$shm/x" bs=4096 count=10
expect_rc 0 "$IOLENS" darshan --all "$T/s2.darshan"
expect_grep "POSIX	0	[0-9-]*	POSIX_BYTES_WRITTEN	40960	$shm/x	" "$IOLENS_TMP/out"
rm -rf "$shm"
finish
