#!/usr/bin/env bash
# Real programs nobody wrote for iolens, each traced once, then replayed on the fly and from the
# config --config-from builds of its trace: whether each step runs, and whether the on-the-fly
# replay reads and writes the bytes the program did. The programs are Debian's (coreutils, sed,
# grep, tar, find, gzip, xz, dd (with O_DIRECT where DIR has it), Python's zipfile, sqlite
# through Python, git, HDF5 and NetCDF tools, fio's engines, and programs whose standard input or
# output a shell opened, or that write through a parent's descriptor after a fork),
# each skipped when missing; their inputs are made in a scratch folder first. Columns:
#   calls        calls in the trace
#   read, write  bytes the program read and wrote (its traced POSIX and stdio calls on files
#                outside system paths, those HDF5 and NetCDF made inside their calls too, as each
#                call reports what it moved) / bytes the on-the-fly replay moved
#   otf, cfg, run  exit status of the on-the-fly replay, of --config-from, of the config's replay
#                (-: not run; cfg 1 with "no reads or writes" is a trace without data to replay)
# A row ends in "!" when a step failed for another reason or the bytes differ.
#
#   bench/replay/real_programs.sh [--dir DIR] [--keep]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
PY=/usr/bin/python3
dir=/dev/shm keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "real_programs.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
W=$(mktemp -d "$dir/iolens-real.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$W"' EXIT
cd "$W"
mkdir -p in/tree/a/b out
seq 1 50000 >in/seq.txt
head -c 3000000 /dev/urandom >in/rand.bin
for i in $(seq 1 40); do echo "$i" >"in/tree/a/f$i"; echo "$i" >"in/tree/a/b/g$i"; done
ln -s f1 in/tree/a/link
tar -cf in/t.tar -C in tree
if $PY -c 'import h5py' 2>/dev/null; then
  $PY -c 'import h5py, numpy as n
with h5py.File("in/d.h5", "w") as f:
    f["x"] = n.arange(200000.0)
    f.create_dataset("c", data=n.ones((100, 100)), chunks=(10, 10), compression="gzip")'
fi
command -v ncgen >/dev/null && printf 'netcdf d { dimensions: x = 1000 ; variables: double v(x) ; data: v = 1, 2, 3 ; }\n' |
  ncgen -k nc4 -o in/d.nc -

# bytes read and written by the traced calls on files outside system paths (what each moved)
traced_bytes() {
  "$IOLENS" view --json "$1" | $PY -c '
import json, sys
sysp = ("/proc/", "/sys/", "/dev/", "/etc/", "/usr/", "/lib", "/run/", "pipe:", "socket:")
items = {"fread", "fwrite", "fread_unlocked", "fwrite_unlocked"}
line = {"fgets", "fgets_unlocked", "getline", "getdelim"}
char = {"fgetc", "getc", "fputc", "putc", "fgetc_unlocked", "getc_unlocked", "fputc_unlocked", "putc_unlocked",
        "putchar"}
rd = wr = 0
for l in sys.stdin:
    e = json.loads(l)
    p = e.get("path") or ""
    if e["depth"] or e["errno"] or e["op"] not in ("read", "write") or e["layer"] not in ("POSIX", "STDIO"):
        continue
    if not p or (p.startswith(sysp) and not p.startswith("/dev/shm/")):
        continue
    f, r, s = e["func"], e["ret"], e["slots"]
    if e["layer"] == "POSIX":
        n = max(r, 0)
    elif f in items:
        n = max(r, 0) * s[2]
    elif f in line:
        n = max(r, 0)
    elif f in char:
        n = 1 if r >= 0 else 0
    elif f.startswith("fputs") or f == "puts":
        n = s[1] if r >= 0 else 0
    elif f == "fscanf":
        n = max(s[1], 0)
    else:
        n = max(r, 0)
    if e["op"] == "read":
        rd += n
    else:
        wr += n
print(rd, wr)'
}

printf '%-12s %7s %21s %21s %4s %4s %4s\n' program calls "read (prog/replay)" "write (prog/replay)" otf cfg run
n=0 bad=0
run() {
  local name=$1; shift
  command -v "$1" >/dev/null || { printf '%-12s (no %s)\n' "$name" "$1"; return 0; }
  rm -rf out r1 r2; mkdir out
  "$IOLENS" trace -q -o "$name.trace" -- "$@" >/dev/null 2>"$name.err" || true
  local calls tr tw otf cfg run rr rw mark=""
  calls=$("$IOLENS" trace --info --json "$name.trace" 2>/dev/null | $PY -c 'import json, sys
try:
    print(json.load(sys.stdin)["calls"])
except Exception:
    print("-")')
  read -r tr tw < <(traced_bytes "$name.trace")
  otf=0; "$IOLENS" replay "$name.trace" --root r1 --json >"$name.otf.json" 2>"$name.otf.err" || otf=$?
  read -r rr rw < <($PY -c 'import json,sys
try:
    d = json.load(open(sys.argv[1])); print(d["bytes_read"], d["bytes_written"])
except Exception:
    print("-", "-")' "$name.otf.json")
  cfg=0; "$IOLENS" replay --config-from "$name.trace" -o "$name.json" 2>"$name.cfg.err" || cfg=$?
  run=-
  if [ "$cfg" = 0 ]; then run=0; "$IOLENS" replay "$name.json" --root r2 >/dev/null 2>"$name.run.err" || run=$?; fi
  { [ "$otf" != 0 ] || [ "$run" != 0 -a "$run" != - ] || [ "$rr" != "$tr" ] || [ "$rw" != "$tw" ] ||
    { [ "$cfg" != 0 ] && ! grep -q "no reads or writes" "$name.cfg.err"; }; } && { mark=" !"; bad=$((bad + 1)); }
  n=$((n + 1))
  printf '%-12s %7s %10s/%-10s %10s/%-10s %4s %4s %4s%s\n' "$name" "$calls" "$tr" "$rr" "$tw" "$rw" "$otf" "$cfg" "$run" "$mark"
  rm -rf out r1 r2
}
run cp-r cp -r in/tree out/tree
run cp cp in/rand.bin out/r.bin
run dd dd if=in/rand.bin of=out/dd.bin bs=4k conv=fsync status=none
run dd-skip dd if=in/rand.bin of=out/dd.bin bs=64k skip=3 seek=5 count=10 status=none
run tar-c tar -cf out/t.tar -C in tree
run tar-x tar -xf in/t.tar -C out
run find find in -type f -newer in/seq.txt
run gzip gzip -k -c in/seq.txt
run xz xz -k -c in/seq.txt
run zstd zstd -q -f in/rand.bin -o out/r.zst
run sort sort -r in/seq.txt -o out/sorted.txt
run sed sed -n 's/1/x/gp' in/seq.txt
run grep grep -c 5 in/seq.txt
run wc wc -l in/seq.txt
run split split -l 10000 in/seq.txt out/p.
run md5sum md5sum in/rand.bin in/seq.txt
run shuf shuf -o out/s.txt in/seq.txt
run python $PY -c "open('out/p.txt', 'w').write(open('in/seq.txt').read() * 2)"
run sqlite $PY -c "import sqlite3; c = sqlite3.connect('out/db'); c.execute('create table t(a)'); c.executemany('insert into t values(?)', [(i,) for i in range(1000)]); c.commit(); c.close()"
# files a shell opens for the program (its standard input and output), and a forked child writing
# through its parent's descriptor
run sh-cat sh -c "cat in/rand.bin > out/c.bin"
run sh-append sh -c "cat in/seq.txt > out/c.txt && cat in/seq.txt >> out/c.txt"
run sh-sort sh -c "sort -r < in/seq.txt > out/s.txt"
run sh-gzip sh -c "gzip -c in/seq.txt > out/s.gz"
run sh-seq sh -c "seq 1 200000 > out/seq.txt"
run sh-python sh -c "$PY -c 'for i in range(100000): print(i)' > out/p.txt"
run py-fork $PY -c "import os
f = open('out/f.bin', 'wb', buffering=0)
f.write(b'p' * 100000)
if os.fork() == 0:
    f.write(b'c' * 100000); os._exit(0)
os.wait(); f.close()"
run zipfile sh -c "$PY -m zipfile -c out/a.zip in/seq.txt && $PY -m zipfile -e out/a.zip out/x"
if dd if=in/rand.bin of=in/probe bs=1M iflag=direct oflag=direct status=none 2>/dev/null && rm -f in/probe; then
  run dd-direct dd if=in/rand.bin of=out/dd.bin bs=1M iflag=direct oflag=direct status=none
else
  printf '%-12s (no O_DIRECT on %s)\n' dd-direct "$dir"
fi
run git sh -c "cd out && git init -q g && cp ../in/seq.txt g/ && cd g && git add . && git -c user.name=a -c user.email=b commit -qm x"
[ -f in/d.h5 ] && run h5dump h5dump -d x in/d.h5
[ -f in/d.h5 ] && run h5repack h5repack in/d.h5 out/r.h5
[ -f in/d.nc ] && run nccopy nccopy in/d.nc out/c.nc
for eng in psync pvsync2 sync; do
  run "fio-$eng" fio --name=j --directory=out --ioengine=$eng --rw=randrw --bs=4k --size=2m --output=/dev/null
done
echo "$n programs, $bad with a failed step or other bytes"
