# Real programs' traces replay on the fly and from config: a stdio program (fgets
# over a text file: lines, not 4096-byte reads) and fsync after every write.
. "$(dirname "$0")/../cli/lib.sh"
: "${PROGRAMS:?}"
T=$IOLENS_TMP
mkdir -p "$T/w"
/usr/bin/python3 -c "
import random; random.seed(3)
with open('$T/w/in.txt', 'w') as f:
    for i in range(3000): f.write('x' * random.randrange(0, 300) + '\n')"
expect_rc 0 "$IOLENS" trace -o "$T/lines.trace" -- "$PROGRAMS" lines "$T/w/in.txt" "$T/w/out.txt"
expect_rc 0 "$IOLENS" replay "$T/lines.trace" --root "$T/r1" --json
/usr/bin/python3 -c "
import json, sys; d = json.load(open('$T/out'))
want = $(stat -c %s "$T/w/in.txt")
got = d.get('bytes_read')
sys.exit(0 if got == want else 1)" && ok || fail "on-the-fly stdio replay: bytes read differ from the file's $(stat -c %s "$T/w/in.txt")"
expect_rc 0 "$IOLENS" replay --config-from "$T/lines.trace" -o "$T/lines.json"
expect_rc 0 "$IOLENS" replay "$T/lines.json" --root "$T/r2"
grep -q '"transfer_size": 4096' "$T/lines.json" && fail "config keeps fgets's buffer size as the transfer size" || ok

expect_rc 0 "$IOLENS" trace -o "$T/fsync.trace" -- "$PROGRAMS" fsync "$T/w" 64
expect_rc 0 "$IOLENS" replay --config-from "$T/fsync.trace" -o "$T/fsync.json"
expect_grep '"fsync": "every_write"' "$T/fsync.json"
expect_rc 0 "$IOLENS" replay "$T/fsync.json" --root "$T/r3"
expect_rc 0 "$IOLENS" replay "$T/fsync.trace" --root "$T/r4"
finish
