# iolens replay --config-from TRACE (Recorder and iolens traces) and on-the-fly replay of an iolens trace.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data recorder/shared_n2_m10
rec="$IOLENS_SHARED_DATA/recorder"
T="$IOLENS_TMP"

# step bytes of a config (dry run, JSON): "STEP METHOD FILE_PER_PROCESS BYTES RANK0_BYTES" per line
steps() { "$IOLENS" replay "$1" --dry-run --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["steps"]:
    print(s["method"], s["file"], int(s["file_per_process"]), s["bytes"], s["ranks"][0]["bytes"])'; }

# --- Recorder traces (INDEX.txt: shared = N ranks pwrite then pread M x 1 MiB of one file;
#     ckpt = M x (open file_i_rRANK, write 1 MiB, close); dd = 1000 x 1 MiB from /dev/zero)
expect_rc 0 "$IOLENS" replay --config-from "$rec/shared_n2_m10" -o "$T/s2.json"
steps "$T/s2.json" > "$T/s2.steps"
expect_grep '^write dev/shm/iorlike-data/shared.dat 0 20971520 10485760$' "$T/s2.steps"
expect_grep '^read dev/shm/iorlike-data/shared.dat 0 20971520 10485760$' "$T/s2.steps"
[ "$(wc -l < "$T/s2.steps")" -eq 2 ] && ok || fail "shared_n2_m10: $(cat "$T/s2.steps")"

expect_rc 0 "$IOLENS" replay --config-from "$rec/shared_n4_m1000_bothPR" -o "$T/s4.json"
steps "$T/s4.json" > "$T/s4.steps"
expect_grep '^write dev/shm/iorlike-data/shared.dat 0 4194304000 1048576000$' "$T/s4.steps"
expect_grep '^read dev/shm/iorlike-data/shared.dat 0 4194304000 1048576000$' "$T/s4.steps"

expect_rc 0 "$IOLENS" replay --config-from "$rec/ckpt_n2_m10" -o "$T/c2.json"
steps "$T/c2.json" > "$T/c2.steps"
[ "$(grep -c '^write dev/shm/iorlike-data/file_[0-9]_r0 1 2097152 1048576$' "$T/c2.steps")" -eq 10 ] && ok \
  || fail "ckpt_n2_m10: want 10 file-per-process steps of 2 x 1 MiB: $(cat "$T/c2.steps")"

expect_rc 0 "$IOLENS" replay --config-from "$rec/nonmpi_dd_1000x1MiB"   # stdout
expect_grep '"/dev/shm/ddtest"' "$IOLENS_TMP/out"
cp "$IOLENS_TMP/out" "$T/dd.json"
steps "$T/dd.json" > "$T/dd.steps"
expect_grep '^write dev/shm/ddtest 0 1048576000 1048576000$' "$T/dd.steps"

# not a trace
echo '{}' > "$T/notatrace"
expect_rc 1 "$IOLENS" replay --config-from "$T/notatrace"
expect_grep 'neither an iolens trace' "$IOLENS_TMP/err"
expect_rc 1 "$IOLENS" replay "$T/notatrace" --root "$T/never"
expect_rc 2 "$IOLENS" replay "$T/notatrace" --speed -1

# --- an iolens trace of a small C program
cat > "$T/prog.c" <<'PROG'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char p[4096], buf[65536];
    int gap_ms = argc > 2 ? atoi(argv[2]) : 0;
    memset(buf, 'x', sizeof buf);
    snprintf(p, sizeof p, "%s/a.dat", argv[1]);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 4; i++) {
        if (write(fd, buf, 65536) != 65536) return 1;
        if (gap_ms) usleep(gap_ms * 1000);
    }
    if (pwrite(fd, buf, 4096, 1 << 20) != 4096 || lseek(fd, 100, SEEK_SET) != 100 || write(fd, buf, 10) != 10)
        return 1;
    fsync(fd);
    close(fd);
    fd = open(p, O_RDONLY);
    if (pread(fd, buf, 8192, 4096) != 8192 || read(fd, buf, 1000) != 1000) return 1;
    close(fd);
    snprintf(p, sizeof p, "%s/b.txt", argv[1]);
    FILE *f = fopen(p, "w");
    fwrite(buf, 1, 3000, f);
    fseek(f, 10, SEEK_SET);
    fwrite(buf, 100, 2, f);
    fclose(f);
    f = fopen(p, "r+"); /* appended at the end fseek finds: the replay writes there too */
    fseek(f, 0, SEEK_END);
    fwrite(buf, 1, 50, f);
    fclose(f);
    return 0;
}
PROG
${CC:-cc} -O1 -o "$T/prog" "$T/prog.c" || { fail "cannot compile the test program"; finish; }
mkdir -p "$T/d"
expect_rc 0 "$IOLENS" trace -o "$T/T" -- "$T/prog" "$T/d"
expect_rc 0 "$IOLENS" replay --config-from "$T/T" -o "$T/t.json"
steps "$T/t.json" > "$T/t.steps"
dpath=$(echo "$T/d" | sed 's|^/||')
expect_grep "^write $dpath/a.dat 0 266250 266250\$" "$T/t.steps"   # 4 x 64 KiB + 4 KiB + 10
expect_grep "^read $dpath/a.dat 0 9192 9192\$" "$T/t.steps"
expect_grep "^write $dpath/b.txt 0 3200 3200\$" "$T/t.steps"
expect_grep "^write $dpath/b.txt 0 50 50\$" "$T/t.steps"     # its second session
expect_grep '"interface": "stdio"' "$T/t.json"

# on the fly, under the tracer: same operations, sizes, offsets, on the remapped paths
expect_rc 0 "$IOLENS" trace -o "$T/R" -- "$IOLENS" replay "$T/T" --root "$T/D" --keep --json
expect_grep '"calls": 23, "skipped": 0, "bytes_written": 269500, "bytes_read": 9192' "$IOLENS_TMP/out"
[ -f "$T/D$T/d/a.dat" ] && [ "$(stat -c %s "$T/D$T/d/a.dat")" = "$(stat -c %s "$T/d/a.dat")" ] && ok \
  || fail "replayed a.dat missing or of another size"
[ "$(stat -c %s "$T/D$T/d/b.txt")" = 3050 ] && [ "$(stat -c %s "$T/d/b.txt")" = 3050 ] && ok \
  || fail "b.txt: replayed $(stat -c %s "$T/D$T/d/b.txt") bytes, original $(stat -c %s "$T/d/b.txt"), want 3050"
# one line per call on the data files: function (stdio element split folded), path below d/, offset, bytes
calls() { "$IOLENS" trace --print "$1" | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.search(r"\s(\w+)\(\"([^\"]*/d/[^\"]*)\"(.*)\) = (\S+)", line)
    if not m: continue
    fn, path, args, ret = m.groups()
    if fn in ("lstat", "stat", "mkdir"): continue
    a = dict(re.findall(r"(\w+)=(\w+)", args))
    size = int(a.get("size", 0)) * int(a.get("nmemb", 1))
    flags = int(a["flags"], 16) & 0xffff if "flags" in a else ""
    if fn.startswith("fseek"): a["off"], a["whence"] = a.get("at", ""), "at" # the position it went to
    print(fn, path.split("/d/")[1], a.get("off", ""), size, flags, a.get("whence", ""))'; }
calls "$T/T" > "$T/T.calls"
calls "$T/R" > "$T/R.calls"
[ "$(wc -l < "$T/T.calls")" -eq 23 ] && ok || fail "original trace: $(wc -l < "$T/T.calls") data calls, want 23"
if diff "$T/T.calls" "$T/R.calls" > "$T/calls.diff"; then ok; else fail "replay calls differ:"; cat "$T/calls.diff" >&2; fi
"$IOLENS" trace --print "$T/R" | grep -q "\"$T/D$T/d/a.dat\"" && ok || fail "replay did not use the remapped path"
# the same in batches of 2 calls (IOLENS_REPLAY_BATCH): decoding between batches and between
# sessions, the tight loop's pwrite run cut at batch ends
expect_rc 0 env IOLENS_REPLAY_BATCH=2 "$IOLENS" trace -o "$T/RB" -- "$IOLENS" replay "$T/T" --root "$T/DB" --json
expect_grep '"calls": 23, "skipped": 0, "bytes_written": 269500, "bytes_read": 9192' "$IOLENS_TMP/out"
calls "$T/RB" > "$T/RB.calls"
if diff "$T/T.calls" "$T/RB.calls" > "$T/callsb.diff"; then ok; else fail "batches of 2: replay calls differ:"; cat "$T/callsb.diff" >&2; fi

# without --keep the files the replay created are removed; the original ones are untouched
expect_rc 0 "$IOLENS" replay "$T/T" --root "$T/D2"
[ ! -e "$T/D2$T/d/a.dat" ] && [ -f "$T/d/a.dat" ] && ok || fail "created files not removed, or originals touched"
# a read-only input (file opened without O_CREAT that does not exist under the root) is created to size
expect_rc 0 "$IOLENS" replay "$T/T" --root "$T/D3" --speed 4

# --delays: a workload with 4 gaps of 100 ms between writes; the replay reproduces them
# (measured and printed, not asserted: timing belongs to bench/)
expect_rc 0 "$IOLENS" trace -o "$T/G" -- "$T/prog" "$T/d" 100
expect_rc 0 "$IOLENS" trace -o "$T/GR" -- "$IOLENS" replay "$T/G" --root "$T/DG" --delays
gaps() { "$IOLENS" trace --print "$1" | awk '/ write\(".*\/d\/a.dat".*size=65536/ {print $3}'; }
gaps "$T/G" > "$T/G.t"; gaps "$T/GR" > "$T/GR.t"
[ "$(wc -l < "$T/GR.t")" -eq 4 ] && ok || fail "replay with --delays: $(wc -l < "$T/GR.t") 64 KiB writes"
paste "$T/G.t" "$T/GR.t" | awk 'NR > 1 { g = $1 - p1; r = $2 - p2; e = (r - g) / g * 100;
  printf "delays: recorded gap %.4f s, replayed %.4f s, error %+.2f%%\n", g, r, e } { p1 = $1; p2 = $2 }'

# the write time is the time a written file was open (the union of the sessions that wrote), not
# the span from the first open to the last close: with --delays, the 0.2 s a program spends
# between two files is reproduced and left out of the write phase
expect_rc 0 "$IOLENS" trace -o "$T/W" -- /usr/bin/python3 -B -c 'import os, sys, time
for i, n in enumerate(("w1.dat", "w2.dat")):
    fd = os.open(os.path.join(sys.argv[1], n), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    os.write(fd, b"x" * 65536); os.close(fd)
    if i == 0: time.sleep(0.2)' "$T/d"
expect_rc 0 "$IOLENS" replay "$T/W" --root "$T/DW" --delays --json
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = sorted((x["open"], x["close"]) for x in d["sessions"] if x["bytes_written"] > 0 and x["path"].endswith(".dat"))
assert len(s) == 2, s
assert s[1][0] - s[0][1] > 0.15, ("the gap was not reproduced", s)
inside = (s[0][1] - s[0][0]) + (s[1][1] - s[1][0])
# (each of the 5 figures is printed to the microsecond: rounded by up to 0.5 us each)
assert abs(d["write_seconds"] - inside) < 2.6e-6, (d["write_seconds"], inside, s)' "$IOLENS_TMP/out" \
  && ok || fail "write_seconds is not the time the written files were open: $(cat "$IOLENS_TMP/out")"
finish
