# Real programs' traces replay on the fly and from config: a stdio program (fgets
# over a text file: lines, not 4096-byte reads), fsync after every write, an HDF5 program and
# fio's space reservation.
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
# two fsyncs after every write: the config says so and its replay makes as many
expect_rc 0 "$IOLENS" trace -o "$T/fsync2.trace" -- /usr/bin/python3 -c "
import os
fd = os.open('$T/w/two.dat', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(32):
    os.write(fd, b'y' * 4096); os.fsync(fd); os.fsync(fd)
os.close(fd)"
expect_rc 0 "$IOLENS" replay --config-from "$T/fsync2.trace" -o "$T/fsync2.json"
expect_grep '"fsync_count": 2' "$T/fsync2.json"
expect_rc 0 "$IOLENS" trace -o "$T/fsync2-replay.trace" -- "$IOLENS" replay "$T/fsync2.json" --root "$T/r4b"
n=$("$IOLENS" trace --print "$T/fsync2-replay.trace" 2>/dev/null | grep -c 'fsync(')
[ "$n" -eq 64 ] && ok || fail "two fsyncs per write replayed as $n fsyncs for 32 writes, not 64"

# an HDF5 program: its config (HDF5 rewrites its superblock and rereads metadata in overlapping
# pieces) replays without reading past the end of what its write step wrote
if command -v h5pcc >/dev/null && h5pcc -o "$T/h5prog" "$IOLENS_SOURCE_DIR/tests/replay/h5prog.c" 2>/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  expect_rc 0 "$IOLENS" trace -o "$T/h5.trace" -- "$T/h5prog" "$T/w/f.h5" 8
  expect_rc 0 "$IOLENS" replay --config-from "$T/h5.trace" -o "$T/h5.json"
  expect_rc 0 "$IOLENS" replay "$T/h5.json" --root "$T/r5"
  expect_rc 0 "$IOLENS" replay "$T/h5.trace" --root "$T/r6"
else
  echo "skip: no h5pcc"
fi

# a metadata program (create, stat, unlink of 40 empty files): one metadata step, replayed with a
# rate per phase; on the fly every call is replayed
mkdir -p "$T/md"
expect_rc 0 "$IOLENS" trace -o "$T/md.trace" -- "$PROGRAMS" meta "$T/md" 40
expect_rc 0 "$IOLENS" replay --config-from "$T/md.trace" -o "$T/md.json"
expect_rc 0 "$IOLENS" replay "$T/md.json" --root "$T/r9" --json
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["file_configs"]
assert len(c) == 1 and c[0]["method"] == "metadata" and c[0]["metadata"]["files_per_rank"] == 40, c
ph = {p["phase"]: p for p in json.load(open(sys.argv[2]))["steps"][0]["phases"]}
assert sorted(ph) == ["create", "stat", "unlink"], ph
assert all(p["ops"] == 40 and p["seconds"] > 0 and p["ops_per_s"] > 0 for p in ph.values()), ph
' "$T/md.json" "$T/out" && ok || fail "metadata program: config or per-phase rates ($T/md.json, $T/out)"
expect_rc 0 "$IOLENS" replay "$T/md.trace" --root "$T/r10" --json
expect_grep '"calls": 163, "skipped": 0' "$T/out" # 160 metadata calls, 3 printf of its report to its output file
expect_grep '"failed": 0' "$T/out"
python3 -c '
import json, sys
m = {x["call"]: x for x in json.load(open(sys.argv[1]))["metadata"]}
assert all(m[k]["calls"] == 40 and m[k]["seconds"] > 0 for k in ("create", "close", "stat", "unlink")), m
# the phases one after the other: each kind spans at least its time inside, and the stats start
# after the last create and end before the first unlink
assert all(m[k]["span_seconds"] >= m[k]["seconds"] * 0.999 and m[k]["span_ops_per_s"] > 0 for k in m), m
assert m["create"]["last"] <= m["stat"]["first"] and m["stat"]["last"] <= m["unlink"]["first"], m
# the span of all calls holds that of every kind and is inside the wall time of the replay
j = json.load(open(sys.argv[1]))
assert max(x["span_seconds"] for x in m.values()) <= j["calls_seconds"] <= j["seconds"], j
' "$T/out" && ok || fail "on-the-fly metadata calls by kind ($T/out)"

# more distinct paths than the tracer's first hash table holds (2^16 slots, and 2^17 paths was
# once its limit): every call keeps its path, so the replay skips none (a property of the
# tracer's tables: the release build's run checks it)
if [ -z "${IOLENS_SANITIZED:-}" ]; then
big=$T
[ -d /dev/shm ] && [ -w /dev/shm ] && big=$(mktemp -d /dev/shm/iolens-paths.XXXXXX)
mkdir -p "$big/d"
expect_rc 0 "$IOLENS" trace -o "$T/many.trace" -- "$PROGRAMS" meta "$big/d" 135000
rm -rf "$big/d"
[ "$big" != "$T" ] && rmdir "$big"
"$IOLENS" view "$T/many.trace" > "$T/many.txt"
n=$(grep -c '???' "$T/many.txt" || true)
[ "$n" -eq 0 ] && ok || fail "$n calls of a 135,000-file trace lost their path"
grep -q "unlink.*/d/f\.134999 " "$T/many.txt" && ok || fail "the last file's unlink is not in the trace"
rm -f "$T/many.txt"
fi

# fio lays its file out with fallocate before the timed writes: the reservation is traced,
# replayed on the fly (the replay's own trace has it) and kept in the config (untimed there)
if command -v fio >/dev/null; then
  mkdir -p "$T/fio"
  expect_rc 0 "$IOLENS" trace -o "$T/fio.trace" -- fio --name=j --directory="$T/fio" --ioengine=psync \
    --rw=write --bs=64k --size=1m --fallocate=native
  expect_rc 0 "$IOLENS" trace --print "$T/fio.trace"
  expect_grep 'fallocate.*j.0.0", fd=[0-9]*, off=0, len=1048576, flags=0) = 0' "$T/out"
  expect_rc 0 "$IOLENS" replay --config-from "$T/fio.trace" -o "$T/fio.json"
  expect_grep '"preallocated": true' "$T/fio.json"
  expect_rc 0 "$IOLENS" replay "$T/fio.json" --root "$T/r7" --json
  expect_grep '"preallocated": true' "$T/out"
  expect_rc 0 "$IOLENS" trace -o "$T/fio-replay.trace" -- "$IOLENS" replay "$T/fio.trace" --root "$T/r8"
  expect_rc 0 "$IOLENS" trace --print "$T/fio-replay.trace"
  expect_grep 'fallocate.*r8.*j.0.0", fd=[0-9]*, off=0, len=1048576, flags=0) = 0' "$T/out"
  # fio checks its --directory (lstat, stat) before it makes its files: the replay creates the
  # directory that existed before fio ran, so none of the replayed calls fails where fio's succeeded
  expect_rc 0 "$IOLENS" replay "$T/fio.trace" --root "$T/r8b" --json
  /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); assert d["failed"] == 0, d["failed"]' "$T/out" && ok || fail "replayed calls of fio failed ($T/out)"
  # fio's pvsync2 engine reads and writes with preadv2 and pwritev2: traced with their offsets,
  # and replayed as the bytes they moved
  mkdir -p "$T/fiov2"
  expect_rc 0 "$IOLENS" trace -o "$T/fiov2.trace" -- fio --name=j --directory="$T/fiov2" --ioengine=pvsync2 \
    --rw=randrw --bs=4k --size=512k --randrepeat=1
  expect_rc 0 "$IOLENS" trace --print "$T/fiov2.trace"
  expect_grep 'preadv[0-9]*v2(".*j.0.0", fd=[0-9]*, off=[0-9]*, size=4096, iovcnt=1, flags=0) = 4096' "$T/out"
  nv2=$(grep -cE 'p(read|write)v[0-9]*v2\(".*j.0.0".*\) = 4096$' "$T/out")
  expect_rc 0 "$IOLENS" replay "$T/fiov2.trace" --root "$T/r-v2" --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] + d["bytes_written"] >= int(sys.argv[2]) * 4096, d' "$T/out" "$nv2" &&
    ok || fail "on-the-fly replay of fio pvsync2: not the $nv2 transfers of 4096 bytes ($T/out)"
  # fio's random reads turn read-ahead off (posix_fadvise RANDOM) and drop the file's pages first
  # (DONTNEED): the config's read step is cold and has read-ahead off, and the replay applies it
  mkdir -p "$T/fior"
  expect_rc 0 "$IOLENS" trace -o "$T/fior.trace" -- fio --name=j --directory="$T/fior" --ioengine=psync \
    --rw=randread --bs=4k --size=1m
  expect_rc 0 "$IOLENS" replay --config-from "$T/fior.trace" -o "$T/fior.json"
  /usr/bin/python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["file_configs"] if x["method"] == "read"]
assert len(s) == 1 and s[0]["cold"] and s[0]["access"] == "random" and s[0]["hints"]["disable_readahead"], s
' "$T/fior.json" && ok || fail "config of fio's random reads ($T/fior.json)"
  expect_rc 0 "$IOLENS" replay "$T/fior.json" --root "$T/r9"
  expect_grep 'disable_readahead: applied' "$T/out"
  # fio's metadata engines: the job (a process of its own, trace rank 1) creates or stats its
  # files, after fio's main process (rank 0) checked them. filestat's files were laid out before
  # fio ran: the on-the-fly replay makes them first (no replayed stat fails where fio's
  # succeeded), and the config makes them untimed (create: false); each process's calls are a step
  # of their own, with the program's time per file; the per-rank metadata spans are in the JSON
  mkdir -p "$T/fmd"
  fio --name=j --directory="$T/fmd" --ioengine=psync --rw=read --nrfiles=64 --filesize=4k --bs=4k \
    --create_only=1 >/dev/null 2>&1
  expect_rc 0 "$IOLENS" trace -o "$T/fst.trace" -- fio --name=j --directory="$T/fmd" --ioengine=filestat \
    --rw=read --nrfiles=64 --filesize=4k --bs=4k --openfiles=1
  expect_rc 0 "$IOLENS" replay "$T/fst.trace" --root "$T/r10b" --json
  /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); assert d["failed"] == 0, d["failed"]
st = [m for m in d["metadata"] if m["call"] == "stat"][0]
job = [x for x in st["ranks"] if x["rank"] == 1]
assert len(job) == 1 and job[0]["calls"] == 64 and job[0]["span_ops_per_s"] > 0, st
assert sum(x["calls"] for x in st["ranks"]) == st["calls"], st' "$T/out" && ok ||
    fail "on-the-fly replay of fio filestat: failed calls or per-rank stats ($T/out)"
  expect_rc 0 "$IOLENS" replay --config-from "$T/fst.trace" -o "$T/fst.json"
  /usr/bin/python3 -c 'import json, sys
s = [x["metadata"] for x in json.load(open(sys.argv[1]))["file_configs"]]
job = s[-1]
assert job["files_per_rank"] == 64 and job["create"] is False and job.get("stat", True) in (True, 1), s
assert job.get("gap_seconds", {}).get("stat", 0) > 0, s' "$T/fst.json" && ok ||
    fail "config of fio filestat: the job is not a stat step of 64 files found, with its time per file ($T/fst.json)"
  expect_rc 0 "$IOLENS" replay "$T/fst.json" --root "$T/r10c" --json
  /usr/bin/python3 -c 'import json, sys
ph = [p for s in json.load(open(sys.argv[1]))["steps"] for p in s.get("phases", [])]
assert ph[-1]["phase"] == "stat" and ph[-1]["ops"] == 64 and ph[-1]["ops_per_s"] > 0, ph' "$T/out" && ok ||
    fail "replay of fio filestat's config: its last phase is not 64 stats ($T/out)"
  mkdir -p "$T/fcr"
  expect_rc 0 "$IOLENS" trace -o "$T/fcr.trace" -- fio --name=j --directory="$T/fcr" --ioengine=filecreate \
    --rw=write --nrfiles=64 --filesize=4k --bs=4k --openfiles=1 --create_on_open=1
  expect_rc 0 "$IOLENS" replay --config-from "$T/fcr.trace" -o "$T/fcr.json"
  /usr/bin/python3 -c 'import json, sys
s = [x["metadata"] for x in json.load(open(sys.argv[1]))["file_configs"]]
assert len(s) == 1 and s[0]["files_per_rank"] == 64 and s[0].get("create", True) is True, s
assert s[0].get("stat") is False and s[0].get("gap_seconds", {}).get("create", 0) > 0, s' "$T/fcr.json" && ok ||
    fail "config of fio filecreate: not one create step of 64 files with fio's time per file ($T/fcr.json)"
else
  echo "skip: no fio"
fi

# tar and rm name their files relative to directory descriptors (mkdirat, openat, unlinkat): every
# call is traced by its full path, and the replays make and remove the same tree. rm's files
# existed before it ran: the on-the-fly replay makes them first, so none of its unlinks fails
if command -v tar >/dev/null; then
  mkdir -p "$T/tree/src/a/b"
  for i in $(seq 1 24); do echo "$i" >"$T/tree/src/a/f$i"; echo "$i" >"$T/tree/src/a/b/g$i"; done
  tar -cf "$T/tree.tar" -C "$T/tree" src
  mkdir -p "$T/untar"
  expect_rc 0 "$IOLENS" trace -o "$T/tar.trace" -- tar -xf "$T/tree.tar" -C "$T/untar"
  expect_rc 0 "$IOLENS" trace --print "$T/tar.trace"
  expect_grep "mkdirat(\"$T/untar/src/a/b\", mode=" "$T/out"
  # the attributes tar restores (times always; mode and owner as root): traced, and re-issued on
  # the replay's own files
  grep -qE " (futimens|utimensat)\(\"$T/untar/src/a/b/g24\"" "$T/out" && ok || fail "tar's times of g24 not traced ($T/out)"
  nattr=$(grep -cE ' (chmod|fchmod|fchmodat|chown|lchown|fchown|fchownat|utime|utimes|utimensat|futimens)\(' "$T/out")
  [ "$nattr" -ge 48 ] && ok || fail "tar -x: $nattr attribute calls traced for 48 files ($T/out)"
  expect_rc 0 "$IOLENS" trace -o "$T/rm.trace" -- rm -r "$T/untar/src"
  expect_rc 0 "$IOLENS" trace --print "$T/rm.trace"
  expect_grep "unlinkat(\"$T/untar/src/a/b/g7\", dirfd=[0-9]*, flags=0) = 0" "$T/out"
  expect_grep "unlinkat(\"$T/untar/src/a/b\", dirfd=[0-9]*, flags=512) = 0" "$T/out"
  expect_rc 0 "$IOLENS" replay "$T/tar.trace" --root "$T/r11" --json --keep
  python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); m = {x["call"]: x["calls"] for x in d["metadata"]}
assert d["failed"] == 0 and m.get("mkdir") == 3 and m.get("create") == 48, (d["failed"], m)
assert d["refused"] == 0 and m.get("other", 0) >= int(sys.argv[2]), (d["refused"], m)' "$T/out" "$nattr" &&
    ok || fail "on-the-fly replay of tar -x: directories, files and their attributes ($T/out)"
  [ -d "$T/r11$T/untar/src/a/b" ] && [ -f "$T/r11$T/untar/src/a/b/g24" ] && ok || fail "tar's tree not made by its replay"
  # tar creates each file relative to its folder's descriptor: so does the replay
  expect_rc 0 "$IOLENS" trace -o "$T/tar-replay.trace" -- "$IOLENS" replay "$T/tar.trace" --root "$T/r11b"
  expect_rc 0 "$IOLENS" trace --print "$T/tar-replay.trace"
  grep -E " openat(64)?\(\"$T/r11b$T/untar/src/a/b/g24\", flags=[^,]*, mode=[^,]*, dirfd=[0-9]+\) = [0-9]+\$" "$T/out" >/dev/null &&
    ok || fail "the replay of tar does not create g24 relative to its folder ($T/out)"
  expect_rc 0 "$IOLENS" replay "$T/rm.trace" --root "$T/r12" --json
  python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); m = {x["call"]: x["calls"] for x in d["metadata"]}
assert d["failed"] == 0 and m.get("unlink") == 48 and m.get("rmdir") == 3, (d["failed"], m)' "$T/out" &&
    ok || fail "on-the-fly replay of rm -r: unlinks and rmdirs ($T/out)"
  [ ! -e "$T/r12$T/untar/src" ] && ok || fail "the replay of rm -r left files"
  expect_rc 0 "$IOLENS" replay --config-from "$T/rm.trace" -o "$T/rm.json"
  python3 -c '
import json, sys
s = [x["metadata"] for x in json.load(open(sys.argv[1]))["file_configs"] if x["method"] == "metadata"]
assert len(s) == 1 and s[0]["files_per_rank"] == 24 and s[0].get("unlink", True) is True, s
assert s[0].get("create") is False, s' "$T/rm.json" && ok || fail "config of rm -r: not one unlink step of 24 files ($T/rm.json)"
  expect_rc 0 "$IOLENS" replay "$T/rm.json" --root "$T/r13"
  # find and tar -c open folders as files (no O_DIRECTORY: find opens "."), then stat what is in
  # them: the on-the-fly replay makes those folders folders, and every stat of it succeeds
  mkdir -p "$T/walk/a/b"
  for i in 1 2 3; do echo "$i" >"$T/walk/a/f$i"; echo "$i" >"$T/walk/a/b/g$i"; done
  expect_rc 0 "$IOLENS" trace -o "$T/find.trace" -- sh -c "cd '$T/walk' && find . -type f -newer a/f1"
  expect_rc 0 "$IOLENS" trace -o "$T/tarc.trace" -- tar -cf "$T/walk.tar" -C "$T" walk
  for w in find tarc; do
    expect_rc 0 "$IOLENS" replay "$T/$w.trace" --root "$T/r-$w" --json
    python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); m = {x["call"]: x["calls"] for x in d["metadata"]}
assert d["failed"] == 0 and m.get("stat", 0) >= 6, (d["failed"], m)' "$T/out" &&
      ok || fail "on-the-fly replay of $w: failed calls or stats missing ($T/out)"
  done
else
  echo "skip: no tar"
fi

# one file by two names: "s/t/../../a.txt" (cp run in a folder below) and "a.txt": one file to
# both replays, named without ".."; cat's 128 KiB reads of it replayed as the 5000 bytes they read
mkdir -p "$T/up/s/t"
head -c 5000 /dev/zero >"$T/up/a.txt"
expect_rc 0 "$IOLENS" trace -o "$T/up.trace" -- sh -c "cd '$T/up/s/t' && cp ../../a.txt ../../b.txt && cat '$T/up/a.txt' >/dev/null"
expect_rc 0 "$IOLENS" trace --print "$T/up.trace"
expect_grep "\"$T/up/s/t/../../a.txt\"" "$T/out"
expect_rc 0 "$IOLENS" replay "$T/up.trace" --root "$T/r-up" --json
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] == 10000 and d["bytes_written"] == 5000, d' "$T/out" &&
  ok || fail "on-the-fly replay of a file named with '..': bytes or failed calls ($T/out)"
expect_rc 0 "$IOLENS" replay --config-from "$T/up.trace" -o "$T/up.json"
/usr/bin/python3 -c 'import json, sys
names = [n for c in json.load(open(sys.argv[1]))["file_configs"] for n in c["file_names"]]
assert sorted(names) == [sys.argv[2] + "/up/a.txt", sys.argv[2] + "/up/b.txt"], names' "$T/up.json" "$T" &&
  ok || fail "config of a file named with '..': not one file each, named without '..' ($T/up.json)"
expect_rc 0 "$IOLENS" replay "$T/up.json" --root "$T/r-up2"

# coreutils and sed move their bytes with the _unlocked stdio calls (gnulib's unlocked-io) and
# getdelim; sort writes through a dup2 of its output onto 1. Traced, and replayed byte for byte
mkdir -p "$T/cu"
seq 1 3000 >"$T/cu/in.txt"
size=$(stat -c %s "$T/cu/in.txt")
expect_rc 0 "$IOLENS" trace -o "$T/sort.trace" -- sort -r "$T/cu/in.txt" -o "$T/cu/sorted.txt"
expect_rc 0 "$IOLENS" trace -o "$T/sed.trace" -- sed -i 's/1/x/g' "$T/cu/in.txt"
expect_rc 0 "$IOLENS" trace --print "$T/sort.trace"
expect_grep "fread_unlocked(\"$T/cu/in.txt\", fd=[0-9]*, size=1, nmemb=[0-9]*) = $size" "$T/out"
expect_grep "fwrite_unlocked(\"$T/cu/sorted.txt\", fd=1, size=1, nmemb=[0-9]*) = [0-9]*\$" "$T/out"
expect_rc 0 "$IOLENS" trace --print "$T/sed.trace"
expect_grep "getdelim(\"$T/cu/in.txt\", fd=[0-9]*, n=[0-9]*, delim=10) = 2\$" "$T/out"
for w in sort sed; do
  expect_rc 0 "$IOLENS" replay "$T/$w.trace" --root "$T/r-$w" --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["failed"] == 0 and d["bytes_read"] == n and d["bytes_written"] == n, d' "$T/out" "$size" &&
    ok || fail "on-the-fly replay of $w: not $size bytes read and written ($T/out)"
  expect_rc 0 "$IOLENS" replay --config-from "$T/$w.trace" -o "$T/$w.json"
  expect_rc 0 "$IOLENS" replay "$T/$w.json" --root "$T/r-$w-cfg"
done

# dd with O_DIRECT over a file that is not a whole number of blocks: its last read comes back
# short, and it turns O_DIRECT off (fcntl F_SETFL) to write the partial block. The replay asks
# for the same sizes, gets the same short read (its input ends where dd's read did) and sets the
# same flags, so no call fails. (Skipped where the file system has no O_DIRECT: tmpfs.)
mkdir -p "$T/dio"
head -c 3000000 /dev/urandom >"$T/dio/in.bin"
if dd if="$T/dio/in.bin" of="$T/dio/probe.bin" bs=1M iflag=direct oflag=direct status=none 2>/dev/null; then
  expect_rc 0 "$IOLENS" trace -o "$T/dio.trace" -- dd if="$T/dio/in.bin" of="$T/dio/out.bin" bs=1M iflag=direct \
    oflag=direct status=none
  expect_rc 0 "$IOLENS" replay "$T/dio.trace" --root "$T/r-dio" --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] == 3000000 and d["bytes_written"] == 3000000, d' "$T/out" &&
    ok || fail "on-the-fly replay of dd with O_DIRECT: bytes or failed calls ($T/out)"
else
  echo "skip: no O_DIRECT on $T"
fi

# SQLite (Python's sqlite3): its rollback journal is only ever read at its end (0 bytes); the
# config has no read step of nothing, and both replays run
mkdir -p "$T/sq"
expect_rc 0 "$IOLENS" trace -o "$T/sq.trace" -- /usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("create table t(a)")
c.executemany("insert into t values(?)", [(i,) for i in range(100)]); c.commit()
c.execute("insert into t select a from t"); c.commit(); c.close()' "$T/sq/p.db"
expect_rc 0 "$IOLENS" replay --config-from "$T/sq.trace" -o "$T/sq.json"
expect_grep "$T/sq/p.db-journal" "$T/sq.json"
expect_rc 0 "$IOLENS" replay "$T/sq.json" --root "$T/r-sq"
expect_rc 0 "$IOLENS" replay "$T/sq.trace" --root "$T/r-sq2" --json
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_written"] > 8192, d' "$T/out" && ok || fail "on-the-fly replay of SQLite ($T/out)"

# links made by ln (linkat, symlinkat) and read by readlink: traced with both names; on the fly
# the hard link is made between the replay's own files, the symbolic link is not made
mkdir -p "$T/ln"
expect_rc 0 "$IOLENS" trace -o "$T/ln.trace" -- sh -c "echo x >'$T/ln/f' && ln '$T/ln/f' '$T/ln/g' && ln -s f '$T/ln/s' && readlink '$T/ln/s'"
expect_rc 0 "$IOLENS" trace --print "$T/ln.trace"
grep -qE " link(at)?\(\"$T/ln/f\", .*to=\"$T/ln/g\"\) = 0\$" "$T/out" && ok || fail "ln's hard link not traced ($T/out)"
grep -qE " symlink(at)?\(\"$T/ln/s\", .*target=\"$T/ln/f\"\) = 0\$" "$T/out" && ok || fail "ln -s not traced ($T/out)"
grep -qE " readlink(at)?\(\"$T/ln/s\", .*\) = 1\$" "$T/out" && ok || fail "readlink not traced ($T/out)"
expect_rc 0 "$IOLENS" replay "$T/ln.trace" --root "$T/rl" --json --keep
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["refused"] == 0, d' "$T/out" && ok || fail "replay of ln: failed or refused calls ($T/out)"
[ "$(stat -c %h "$T/rl$T/ln/g" 2>/dev/null)" = 2 ] && [ ! -L "$T/rl$T/ln/s" ] && ok ||
  fail "replay of ln: no hard link g of f, or a symbolic link made ($T/rl)"

# a config whose read step passes the end of what its write step wrote is refused when it is read
# copies made by the kernel: cp (copy_file_range) and Python's shutil (sendfile) move a file's
# bytes in one call. The trace has one line for it; the counters leave it out as the Darshan
# runtime does, and count its bytes on both files with --all-calls; the on-the-fly replay makes
# the same copy and the config reads the source and writes the target
head -c 3000000 /dev/urandom >"$T/w/src.bin"
for prog in cp py; do
  if [ $prog = cp ]; then
    expect_rc 0 "$IOLENS" trace -o "$T/$prog.trace" -- cp "$T/w/src.bin" "$T/w/$prog.bin"
    fn=copy_file_range
  else
    expect_rc 0 "$IOLENS" trace -o "$T/$prog.trace" -- /usr/bin/python3 -S -c \
      'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])' "$T/w/src.bin" "$T/w/$prog.bin"
    fn=sendfile
  fi
  expect_rc 0 "$IOLENS" trace --print "$T/$prog.trace"
  [ "$(grep -cE "$fn(64)?\(\"$T/w/$prog.bin\", fd=[0-9]+, .*from=\"$T/w/src.bin\"\) = 3000000\$" "$T/out")" = 1 ] && ok ||
    fail "$prog: the trace has not one $fn line of 3000000 bytes from src.bin ($T/out)"
  expect_rc 0 "$IOLENS" darshan --from "$T/$prog.trace" -o "$T/$prog.darshan"
  expect_rc 0 "$IOLENS" darshan "$T/$prog.darshan"
  [ "$(awk -v f="$T/w/src.bin" '$4 == "POSIX_OPENS" && $6 == f {print $5}' "$T/out")" = 1 ] &&
    [ "$(awk -v f="$T/w/src.bin" '$4 == "POSIX_BYTES_READ" && $6 == f {print $5}' "$T/out")" = 0 ] &&
    [ "$(awk -v f="$T/w/$prog.bin" '$4 == "POSIX_BYTES_WRITTEN" && $6 == f {print $5}' "$T/out")" = 0 ] && ok ||
    fail "$prog: counters count the kernel's copy by default ($T/out)"
  expect_rc 0 "$IOLENS" darshan --from "$T/$prog.trace" -o "$T/$prog.darshan" --all-calls
  expect_rc 0 "$IOLENS" darshan "$T/$prog.darshan"
  [ "$(awk -v f="$T/w/src.bin" '$4 == "POSIX_BYTES_READ" && $6 == f {print $5}' "$T/out")" = 3000000 ] &&
    [ "$(awk -v f="$T/w/$prog.bin" '$4 == "POSIX_BYTES_WRITTEN" && $6 == f {print $5}' "$T/out")" = 3000000 ] && ok ||
    fail "$prog: counters do not read 3000000 bytes of src.bin and write them to $prog.bin ($T/out)"
  expect_rc 0 "$IOLENS" replay "$T/$prog.trace" --root "$T/rc_$prog" --json --keep
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] == d["bytes_written"] == 3000000, d' "$T/out" && ok ||
    fail "$prog: on-the-fly replay did not copy 3000000 bytes ($T/out)"
  [ "$(stat -c %s "$T/rc_$prog/$T/w/$prog.bin" 2>/dev/null)" = 3000000 ] && ok ||
    fail "$prog: on-the-fly replay's copy is not 3000000 bytes ($T/rc_$prog)"
  cmp -s "$T/w/src.bin" "$T/w/$prog.bin" && ok || fail "$prog: the traced copy differs from its source"
  expect_rc 0 "$IOLENS" replay --config-from "$T/$prog.trace" -o "$T/$prog.json"
  expect_rc 0 "$IOLENS" replay "$T/$prog.json" --root "$T/rk_$prog" --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
b = [(s["method"], s["bytes"]) for s in d["steps"]]
assert ("read", 3000000) in b and ("write", 3000000) in b, b' "$T/out" && ok ||
    fail "$prog: the config does not read and write 3000000 bytes ($T/out)"
done

# splice moves a file's bytes through a pipe (Python's os.splice): the file's side is traced as a
# read or a write, the pipe's on no file; the replay reads and writes the files' bytes
expect_rc 0 "$IOLENS" trace -o "$T/sp.trace" -- /usr/bin/python3 -S -c '
import os, sys
r, w = os.pipe()
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
moved = 0
while moved < 200000:
    n = os.splice(src, w, 50000, offset_src=moved)
    k = 0
    while k < n:
        k += os.splice(r, dst, n - k)
    moved += n
os.close(src); os.close(dst)' "$T/w/src.bin" "$T/w/sp.bin"
expect_rc 0 "$IOLENS" trace --print "$T/sp.trace"
grep -qE "^.* splice\(fd=[0-9]+, off=-1, len=50000, from_off=50000, from=\"$T/w/src.bin\"\) = 50000\$" "$T/out" &&
  grep -qE "^.* splice\(\"$T/w/sp.bin\", fd=[0-9]+, off=-1, len=[0-9]+, from_off=-1\) = [0-9]+\$" "$T/out" && ok ||
  fail "splice: the trace has not the file-to-pipe and pipe-to-file lines ($T/out)"
[ "$(stat -c %s "$T/w/sp.bin")" = 200000 ] && ok || fail "splice: the traced program did not copy 200000 bytes"
expect_rc 0 "$IOLENS" replay "$T/sp.trace" --root "$T/rc_sp" --json --keep
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] == 200000 and d["bytes_written"] == 200000, d' "$T/out" && ok ||
  fail "splice: the on-the-fly replay did not read and write 200000 bytes ($T/out)"
[ "$(stat -c %s "$T/rc_sp/$T/w/sp.bin" 2>/dev/null)" = 200000 ] && ok ||
  fail "splice: the replay's sp.bin is not 200000 bytes ($T/rc_sp)"
# the source's side at the offset the program gave: read there, the file position unmoved
rm -rf "$T/rc_sp"
expect_rc 0 "$IOLENS" trace -o "$T/sp_replay.trace" -- "$IOLENS" replay "$T/sp.trace" --root "$T/rc_sp"
expect_rc 0 "$IOLENS" trace --print "$T/sp_replay.trace"
grep -qE "pread(64)?\(\"$T/rc_sp$T/w/src.bin\", fd=[0-9]+, off=50000, size=50000[^)]*\) = 50000\$" "$T/out" && ok ||
  fail "splice: the replay does not read the source at the offset the program gave ($T/out)"

printf '%s\n' '{"nranks":1,"file_configs":[' \
  '{"method":"write","file_names":["x"],"chunks":[{"transfer_size":4096,"repetitions":2}]},' \
  '{"method":"read","file_names":["x"],"chunks":[{"transfer_size":4096,"repetitions":3}]}]}' >"$T/past.json"
expect_rc 1 "$IOLENS" replay "$T/past.json" --dry-run
expect_grep "reads 'x' up to byte 12288, but the steps before it write it only up to byte 8192" "$T/err"
# the same with two ranks, one writing and the other reading (laid out for the config's ranks)
printf '%s\n' '{"nranks":2,"file_configs":[' \
  '{"method":"write","file_names":["x"],"chunks":[{"transfer_size":4096,"ranks":[{"rank":0,"repetitions":2}]}]},' \
  '{"method":"read","file_names":["x"],"chunks":[{"transfer_size":4096,"ranks":[{"rank":1,"repetitions":3}]}]}]}' \
  >"$T/past2.json"
expect_rc 1 "$IOLENS" replay "$T/past2.json" --dry-run
expect_grep "reads 'x' up to byte 12288, but the steps before it write it only up to byte 8192" "$T/err"

# Python's zipfile writes an archive in one process and rereads its directory (and a member) in
# another: the config's read step passes what its write step wrote unless the write step is
# padded, on the rank that writes its last transfers; the config then replays
mkdir -p "$T/zip"
seq 1 20000 >"$T/zip/s.txt"
expect_rc 0 "$IOLENS" trace -o "$T/zip.trace" -- sh -c "cd '$T/zip' && /usr/bin/python3 -m zipfile -c a.zip s.txt &&
  /usr/bin/python3 -m zipfile -e a.zip x"
expect_rc 0 "$IOLENS" replay --config-from "$T/zip.trace" -o "$T/zip.json"
expect_rc 0 "$IOLENS" replay "$T/zip.json" --root "$T/r-zip"
# descriptors a process had open when it started: the shell opens "b" and "c" for cat, which
# writes them through descriptor 1 (">", and ">>" in append mode after the shell's echo wrote 6 bytes), and a
# forked Python child writes through its parent's descriptor. Each is noted at the start (or fork)
# with its status flags and position, its writes carry the file, both replays write every byte,
# and the counters keep none of cat's writes (the Darshan runtime does not see them either); the
# shell's echo writes through its own open, and the child's writes are its own record
mkdir -p "$T/inh"
head -c 50000 /dev/urandom >"$T/inh/a"
expect_rc 0 "$IOLENS" trace -o "$T/inh.trace" --darshan "$T/inh.darshan" -- sh -c "cd '$T/inh' && cat a > b &&
  echo hello > c && cat a >> c && /usr/bin/python3 -c 'import os, sys
f = open(\"d\", \"wb\", buffering=0); f.write(b\"p\" * 100)
pid = os.fork()
if pid == 0:
    f.write(b\"c\" * 1000); os._exit(0)
os.waitpid(pid, 0); f.close()'"
[ "$(stat -c %s "$T/inh/b")" = 50000 ] && [ "$(stat -c %s "$T/inh/c")" = 50006 ] &&
  [ "$(stat -c %s "$T/inh/d")" = 1100 ] && ok || fail "the programs did not write what they should"
expect_rc 0 "$IOLENS" trace --print "$T/inh.trace"
expect_grep "iolens_fd_at_start(\"$T/inh/b\", fd=1, flags=0x[0-9a-f]*, position=0) = 1" "$T/out"
expect_grep "iolens_fd_at_start(\"$T/inh/c\", fd=1, flags=0x[0-9a-f]*4[0-9a-f][0-9a-f], position=0) = 1" "$T/out"
expect_grep "iolens_fd_at_fork(\"$T/inh/d\", fd=[0-9]*, flags=0x[0-9a-f]*, position=100) = [0-9]*" "$T/out"
expect_grep "copy_file_range(\"$T/inh/b\", fd=1, off=-1, .*) = 50000\$" "$T/out"
expect_grep "write(\"$T/inh/c\", fd=1, size=50000, buf=page+[0-9]*) = 50000\$" "$T/out"
expect_rc 0 "$IOLENS" replay "$T/inh.trace" --root "$T/r-inh" --json --keep
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and d["bytes_read"] == 100000 and d["bytes_written"] == 100000 + 6 + 1100, d' "$T/out" &&
  ok || fail "on-the-fly replay of inherited descriptors: bytes or failed calls ($T/out)"
[ "$(stat -c %s "$T/r-inh/$T/inh/c")" = 50006 ] && [ "$(stat -c %s "$T/r-inh/$T/inh/d")" = 1100 ] &&
  ok || fail "on-the-fly replay: an inherited descriptor's writes not at its position"
expect_rc 0 "$IOLENS" replay --config-from "$T/inh.trace" -o "$T/inh.json"
expect_rc 0 "$IOLENS" replay "$T/inh.json" --root "$T/r-inh2"
expect_rc 0 "$IOLENS" darshan "$T/inh.darshan"
grep -E "POSIX_BYTES_WRITTEN	[1-9][0-9]*	$T/inh/b	|POSIX_BYTES_WRITTEN	[1-9][0-9]+	$T/inh/c	" "$T/out" && fail "counters kept writes to inherited descriptors" || ok
expect_grep "POSIX_BYTES_WRITTEN	6	$T/inh/c	" "$T/out"
expect_grep "POSIX_BYTES_WRITTEN	1000	$T/inh/d	" "$T/out"
# a program's output through stdio on the standard output its shell opened (awk: an fprintf and a
# putc per line): traced, and replayed byte for byte, through a stream of the replay's own
if command -v awk >/dev/null; then
  expect_rc 0 "$IOLENS" trace -o "$T/awk.trace" -- sh -c "awk 'BEGIN { for (i = 0; i < 20000; i++) print i }' >'$T/inh/awk.txt'"
  expect_rc 0 "$IOLENS" replay "$T/awk.trace" --root "$T/r-awk" --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["failed"] == 0 and d["bytes_written"] == n, d' "$T/out" "$(stat -c %s "$T/inh/awk.txt")" &&
    ok || fail "on-the-fly replay of awk's output: bytes or failed calls ($T/out)"
fi
# a parent that writes a file, forks a child that writes another right away, and writes a third
# 0.3 s after the child ended (fio: the main process lays out the job's file, its job writes it,
# and the main process writes its report at the end). Replayed with --delays, one process per
# traced process (mpirun): the child's file is written when the child wrote it, not held until
# the parent's next call
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mkdir -p "$T/par"
  expect_rc 0 "$IOLENS" trace -o "$T/par.trace" -- /usr/bin/python3 -B -c 'import os, sys, time
def put(n):
    fd = os.open(os.path.join(sys.argv[1], n), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    os.write(fd, b"x" * 65536); os.close(fd)
put("a.dat")
pid = os.fork()
if pid == 0:
    put("b.dat"); os._exit(0)
os.waitpid(pid, 0); time.sleep(0.3); put("c.dat")' "$T/par"
  expect_rc 0 "$IOLENS" replay "$T/par.trace" --root "$T/r-par" --delays --json
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
o = {x["path"].rsplit("/", 1)[1]: x["open"] for x in d["sessions"] if x["bytes_written"] > 0}
assert d["ranks"] == 2 and o["a.dat"] < o["b.dat"] < o["c.dat"] - 0.2, o' "$T/out" &&
    ok || fail "--delays: the child's write waited for the parent's later call ($T/out)"
fi
finish
