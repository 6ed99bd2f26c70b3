#!/usr/bin/env bash
# The standard streams in the counters, as the Darshan runtime's STDIO module counts them: stdio
# calls on stdin, stdout and stderr make the records "<STDIN>", "<STDOUT>" and "<STDERR>" (one
# open at time 0, offsets from 0 whatever the file's position), whether the stream is a file the
# shell opened (stdin: a real input file; stdout: a file appended to) or no file (stderr: a pipe);
# a stream neither read nor written (only flushed) makes no record. The features of the trace
# (read through detect's own event source) count them as the log does.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data iosage/sweeps.tsv
command -v "${CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
export TZ=UTC
IN=$IOLENS_SHARED_DATA/iosage/sweeps.tsv
W=$(mktemp -d /dev/shm/iolens-std.XXXXXX)
trap 'rm -rf "$W" "$IOLENS_TMP"' EXIT
cat >"$W/p.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    char line[1000];
    if (argc > 2) { /* no standard stream read or written: a file of its own, stdout only flushed */
        FILE *o = fopen(argv[2], "w");
        if (!o)
            return 1;
        fputs("own file\n", o);
        fclose(o);
        fflush(stdout);
        return 0;
    }
    long n = 0;
    while (fgets(line, sizeof line, stdin))
        n++;
    for (int i = 0; i < 100; i++)
        fprintf(stdout, "line %03d\n", i); /* 9 bytes each */
    fputs("seven!\n", stderr);
    return n > 0 ? 0 : 1;
}
C
"${CC:-cc}" -O1 -o "$W/p" "$W/p.c" || { fail "cc failed"; finish; }
size=$(stat -c %s "$IN")
lines=$(wc -l <"$IN")
printf 'head\n' >"$W/out.txt" # appended to: the stream's position starts at 5
"$IOLENS" trace -o "$W/t.trace" -- "$W/p" <"$IN" >>"$W/out.txt" 2> >(cat >/dev/null)
expect_rc 0 "$IOLENS" darshan --from "$W/t.trace" -o "$W/t.darshan"
expect_rc 0 "$IOLENS" darshan "$W/t.darshan"
cp "$IOLENS_TMP/out" "$W/c.txt"
val() { grep -P "^STDIO\t" "$W/c.txt" | awk -F'\t' -v k="$1" -v p="$2" '$4 == k && $6 == p { print $5 }' | head -1; }
check() { # check COUNTER NAME WANT
  local got; got=$(val "$1" "$2")
  if [ "$got" = "$3" ]; then ok; else fail "$1 of $2: '$got', want $3"; fi
}
check STDIO_OPENS '<STDIN>' 1
check STDIO_READS '<STDIN>' "$lines" # one a line (the NULL at the end is not counted)
check STDIO_BYTES_READ '<STDIN>' "$size"
check STDIO_MAX_BYTE_READ '<STDIN>' $(( size - 1 ))
check STDIO_F_OPEN_START_TIMESTAMP '<STDIN>' 0.000000
check STDIO_OPENS '<STDOUT>' 1
check STDIO_WRITES '<STDOUT>' 100
check STDIO_BYTES_WRITTEN '<STDOUT>' 900
check STDIO_MAX_BYTE_WRITTEN '<STDOUT>' 899
check STDIO_WRITES '<STDERR>' 1
check STDIO_BYTES_WRITTEN '<STDERR>' 7
[ "$(wc -c <"$W/out.txt")" = 905 ] && ok || fail "the program's output changed: $(wc -c <"$W/out.txt") bytes"
# none of the three is named by its file
if grep -qP "^STDIO\t.*\t(\Q$IN\E|\Q$W/out.txt\E)\t" "$W/c.txt"; then fail "a standard stream named by its file"; else ok; fi
# heatmap:STDIO holds the streams' bytes
h=$(grep -P "^HEATMAP\t.*\theatmap:STDIO\t" "$W/c.txt" | awk -F'\t' '$4 ~ /_BIN_/ {s += $5} END {printf "%d", s}')
[ "$h" = $(( size + 907 )) ] && ok || fail "heatmap:STDIO holds $h bytes, want $(( size + 907 ))"
# the trace's features and its log's: the same
expect_rc 0 "$IOLENS" features "$W/t.trace" "$W/t.darshan"
[ "$(sed -n 2p "$IOLENS_TMP/out" | cut -d, -f2-)" = "$(sed -n 3p "$IOLENS_TMP/out" | cut -d, -f2-)" ] && ok ||
  fail "features of the trace and of its log differ"

# no standard stream read or written: no record of one
"$IOLENS" trace -o "$W/u.trace" -- "$W/p" x "$W/own.txt" >"$W/out2.txt"
expect_rc 0 "$IOLENS" darshan --from "$W/u.trace" -o "$W/u.darshan" --all-paths
expect_rc 0 "$IOLENS" darshan "$W/u.darshan"
if grep -qP "^STDIO\t.*\t<STD(IN|OUT|ERR)>\t" "$IOLENS_TMP/out"; then fail "a stream only flushed has a record"; else ok; fi
expect_grep "STDIO_BYTES_WRITTEN	9	$W/own.txt	" "$IOLENS_TMP/out"

# fileno() opens a POSIX record of the stream's file, as the runtime's wrapper does (POSIX_FILENOS,
# counted among the opens), once the runtime's STDIO module knows the stream: for a standard
# stream, after the process's first stdio call the module wraps (any stream). Each figure below is
# what the Darshan runtime (built from its source, run on these programs) wrote:
#  q 0: fileno(stdout) before any stdio call: no "<STDOUT>", and its writes on no record; the
#       file's own name for a stream it opened (fsync(fileno(f)), twice); fileno(stderr) at exit
#       (after the fopen): "<STDERR>", OPENS 1, FILENOS 1
#  q 1: fflush(stdout) first: "<STDOUT>", OPENS 1, FILENOS 1, and the 3 writes on it
cat >"$W/q.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static void late(void) { (void)fileno(stderr); }
int main(int argc, char **argv)
{
    atexit(late);
    if (argv[1][0] == '1')
        fflush(stdout);
    int fd = fileno(stdout);
    for (int i = 0; i < 3; i++)
        if (write(fd, "abcd", 4) != 4)
            return 1;
    FILE *f = fopen(argv[2], "w");
    if (!f || fputs("data\n", f) == EOF || fflush(f) || fsync(fileno(f)) || fsync(fileno(f)))
        return 1;
    return fclose(f) != 0;
}
C
"${CC:-cc}" -O1 -o "$W/q" "$W/q.c" || { fail "cc failed"; finish; }
pval() { grep -P "^POSIX\t" "$W/c.txt" | awk -F'\t' -v k="$1" -v p="$2" '$4 == k && $6 == p { print $5 }' | head -1; }
pcheck() { local got; got=$(pval "$1" "$2"); if [ "$got" = "$3" ]; then ok; else fail "q $m: $1 of $2: '$got', want $3"; fi; }
for m in 0 1; do
  "$IOLENS" trace -o "$W/f$m.trace" -- "$W/q" $m "$W/q.txt" >"$W/q.out"
  [ "$(cat "$W/q.out")" = abcdabcdabcd ] && ok || fail "the program's output changed"
  expect_rc 0 "$IOLENS" darshan --from "$W/f$m.trace" -o "$W/f$m.darshan" --all-paths
  expect_rc 0 "$IOLENS" darshan "$W/f$m.darshan"
  cp "$IOLENS_TMP/out" "$W/c.txt"
  pcheck POSIX_FILENOS "$W/q.txt" 2
  pcheck POSIX_OPENS "$W/q.txt" 2
  pcheck POSIX_FSYNCS "$W/q.txt" 2
  pcheck POSIX_OPENS '<STDERR>' 1
  pcheck POSIX_FILENOS '<STDERR>' 1
  if [ $m = 0 ]; then
    if grep -qP "^POSIX\t.*\t(<STDOUT>|\Q$W/q.out\E)\t" "$W/c.txt"; then fail "q 0: a POSIX record of stdout"; else ok; fi
  else
    pcheck POSIX_FILENOS '<STDOUT>' 1
    pcheck POSIX_OPENS '<STDOUT>' 1
    pcheck POSIX_WRITES '<STDOUT>' 3
    pcheck POSIX_BYTES_WRITTEN '<STDOUT>' 12
  fi
  expect_rc 0 "$IOLENS" trace --print "$W/f$m.trace"
  [ "$(grep -c ' fileno(' "$IOLENS_TMP/out")" = 4 ] && ok || fail "q $m: not 4 fileno calls in the trace"
done
finish
