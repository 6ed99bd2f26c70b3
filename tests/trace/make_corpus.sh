#!/usr/bin/env bash
# Regenerates fuzz/corpus/trace from real traced runs (valid traces, compressed
# and uncompressed), cut and bit-flipped variants. Run after a format change.
# usage: tests/trace/make_corpus.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$root/build}
I=$b/iolens; P=$b/tests/trace/trace_probe; C=$root/fuzz/corpus/trace
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
rm -f "$C"/*.trace; mkdir -p "$C" "$t/d"
"$I" trace -o "$C/probe_all.trace" -- "$P" all "$t/a.log" "$t/d" >/dev/null 2>&1
rm -rf "$t/d"; mkdir "$t/d"
"$I" trace -o "$C/threads_4x50.trace" -- "$P" threads "$t/t.log" "$t/d" 4 50 2>/dev/null
"$I" trace -o "$C/shell_fork.trace" -- sh -c "echo x > $t/d/f; cat $t/d/f >/dev/null" 2>/dev/null
# copies made by the kernel: cp (copy_file_range), Python's shutil (sendfile)
head -c 100000 /dev/urandom >"$t/d/s"
"$I" trace -o "$C/copy_cp.trace" -- cp "$t/d/s" "$t/d/c" 2>/dev/null
"$I" trace --layers posix -o "$C/copy_sendfile.trace" -- /usr/bin/python3 -S -c \
  'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])' "$t/d/s" "$t/d/e" 2>/dev/null
"$I" trace -o "$C/killed.trace" -- "$P" signal "$t/s.log" "$t/d" 15 2>/dev/null || true
rm -rf "$t/d"; mkdir "$t/d"
"$I" trace --no-compress -o "$C/raw_probe_all.trace" -- "$P" all "$t/a.log" "$t/d" >/dev/null 2>&1
rm -rf "$t/d"; mkdir "$t/d"
"$I" trace --no-compress -o "$C/raw_threads_2x20.trace" -- "$P" threads "$t/t.log" "$t/d" 2 20 2>/dev/null
# format 1.2's tracer cost per function (SELF section): dd's 12000 calls, about 190 sampled
"$I" trace -o "$C/dd_self.trace" -- dd if=/dev/zero of="$t/d/x" bs=512 count=6000 status=none 2>/dev/null
"$I" trace --no-compress -o "$C/raw_dd_self.trace" -- dd if=/dev/zero of="$t/d/x" bs=512 count=6000 status=none 2>/dev/null
# format 1.3's job section (command line, user, job id), the file's last section: a command
# line of 8 arguments with spaces and one of over 4096 bytes (cut at an argument)
SLURM_JOB_ID=31337 "$I" trace --no-compress -o "$C/raw_job.trace" -- sh -c 'echo "$@" >/dev/null' \
  "two words" 2 3 4 5 6 7 2>/dev/null
"$I" trace --no-compress -o "$C/raw_job_long.trace" -- /bin/true $(seq 1 1200) 2>/dev/null
# an HDF5 program's trace: its calls carry notes (hyperslab shape and start, dimensions, chunks)
H=$b/tests/trace/trace_h5_block
if [ -x "$H" ]; then
  mkdir -p "$t/h"
  "$I" trace -o "$C/hdf5_block.trace" -- "$H" 16 "$t/h" chunk >/dev/null 2>&1 || true
fi
python3 - "$C" <<'PY'
import random, sys
C = sys.argv[1]
random.seed(7)
for name in ('probe_all', 'raw_probe_all'):
    base = open(f'{C}/{name}.trace', 'rb').read()
    for n in (0, 8, 15, 40, 111, len(base) // 2, len(base) - 1):
        open(f'{C}/{name}_cut_{n}.trace', 'wb').write(base[:n])
    for k in range(10):
        b = bytearray(base)
        for _ in range(1 + k // 3):
            i = random.randrange(16 if name == 'probe_all' else 112, len(b))
            b[i] = random.randrange(256)
        open(f'{C}/{name}_flip_{k}.trace', 'wb').write(bytes(b))
    b = bytearray(base)
    b[16 + 24:16 + 32] = (1 << 40).to_bytes(8, 'little')
    open(f'{C}/{name}_huge_size.trace', 'wb').write(bytes(b))
# the per-function part of SELF is the file's last section: cut and flipped inside it
base = open(f'{C}/raw_dd_self.trace', 'rb').read()
for n in (1, 3, 9, 20):
    open(f'{C}/raw_dd_self_cut_end_{n}.trace', 'wb').write(base[:len(base) - n])
for k in range(4):
    b = bytearray(base)
    b[len(b) - 1 - random.randrange(24)] = random.randrange(256)
    open(f'{C}/raw_dd_self_flip_end_{k}.trace', 'wb').write(bytes(b))
# the job section: cut and flipped inside it, and a command line's length made huge
for name in ('raw_job', 'raw_job_long'):
    base = open(f'{C}/{name}.trace', 'rb').read()
    for n in (1, 2, 5, 12, 30):
        open(f'{C}/{name}_cut_end_{n}.trace', 'wb').write(base[:len(base) - n])
    for k in range(4):
        b = bytearray(base)
        b[len(b) - 1 - random.randrange(40)] = random.randrange(256)
        open(f'{C}/{name}_flip_end_{k}.trace', 'wb').write(bytes(b))
PY
ls "$C" | wc -l
