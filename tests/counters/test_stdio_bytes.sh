#!/usr/bin/env bash
# STDIO byte counters of the character and line calls, as the Darshan runtime counts them:
# a program traced by iolens reads a real input file
# (../shared/data/iosage/sweeps.tsv) to end of file with fgets (a line's length), then again
# with fgetc (a character: 1), then again with fread of 8-byte items (items x 8), and writes
# with fputs (the string's length, not glibc's return value 1), fputc (1 byte) and fwrite of
# 4-byte items. The calls that reach the end (fgets NULL, fgetc EOF, fread 0) are not counted,
# as the runtime's wrappers count none of them (the Darshan runtime built from its source wrote
# the same counters for this program).
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data iosage/sweeps.tsv
command -v "${CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
export TZ=UTC
IN=$IOLENS_SHARED_DATA/iosage/sweeps.tsv
W=$(mktemp -d /dev/shm/iolens-stdio.XXXXXX)
trap 'rm -rf "$W" "$IOLENS_TMP"' EXIT
cat >"$W/p.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    char line[1000], b[64];
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 1;
    while (fgets(line, sizeof line, f)) {
    }
    rewind(f);
    while (fgetc(f) != EOF) {
    }
    rewind(f);
    while (fread(b, 8, 8, f) > 0) {
    }
    fclose(f);
    FILE *o = fopen(argv[2], "w");
    if (!o)
        return 1;
    for (int i = 0; i < 100; i++)
        fputs("ten bytes\n", o);
    fputc('z', o);
    fwrite(b, 4, 3, o);
    fclose(o);
    return 0;
}
C
"${CC:-cc}" -O1 -o "$W/p" "$W/p.c" || { fail "cc failed"; finish; }
size=$(stat -c %s "$IN")
expect_rc 0 "$IOLENS" trace -o "$W/t.trace" -- "$W/p" "$IN" "$W/out.txt"
expect_rc 0 "$IOLENS" darshan --from "$W/t.trace" -o "$W/t.darshan" --all-paths
expect_rc 0 "$IOLENS" darshan "$W/t.darshan"
cp "$IOLENS_TMP/out" "$W/c.txt"
val() { grep -P "^STDIO\t" "$W/c.txt" | awk -F'\t' -v k="$1" -v p="$2" '$4 == k && $6 == p { print $5 }' | head -1; }
# fgets + fgetc read the file twice; fread a third time, rounded down to whole 8-byte items
# (the last, partial item is read by the C library but not counted: fread returns whole items)
want=$(( 2 * size + size / 8 * 8 ))
got=$(val STDIO_BYTES_READ "$IN")
if [ "$got" = "$want" ]; then ok; else fail "STDIO_BYTES_READ of $IN: $got, want $want (3 reads of $size bytes)"; fi
lines=$(wc -l <"$IN")
reads=$(val STDIO_READS "$IN")
# fgets: one call per line; fgetc: one per byte; fread: one per 64-byte block and one for a
# tail of >= 8 bytes (the calls at the end of the file are not counted)
rem=$(( size % 64 ))
wantr=$(( lines + size + size / 64 + (rem >= 8 ? 1 : 0) ))
if [ "$reads" = "$wantr" ]; then ok; else fail "STDIO_READS: $reads, want $wantr"; fi
got=$(val STDIO_BYTES_WRITTEN "$W/out.txt")
if [ "$got" = "$(( 1000 + 1 + 12 ))" ] && [ "$(stat -c %s "$W/out.txt")" = 1013 ]; then ok; else
  fail "STDIO_BYTES_WRITTEN of out.txt: $got, want 1013"; fi
got=$(val STDIO_MAX_BYTE_READ "$IN")
if [ "$got" = "$(( size - 1 ))" ]; then ok; else fail "STDIO_MAX_BYTE_READ: $got, want $(( size - 1 ))"; fi
got=$(val STDIO_MAX_BYTE_WRITTEN "$W/out.txt")
if [ "$got" = 1012 ]; then ok; else fail "STDIO_MAX_BYTE_WRITTEN: $got, want 1012"; fi
finish
