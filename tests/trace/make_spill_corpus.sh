#!/usr/bin/env bash
# Regenerates fuzz/corpus/trace_spill from real spills the shim wrote while real
# programs ran (whole, cut at chunk and byte boundaries, bit-flipped), so that
# the fuzz target starts past the spill header. Run after any change of the
# spill format or of the traced-function table (funcs.def): the header records
# the table's size, and a stale corpus is rejected at the header (the corpus
# test, fuzz_corpus_trace_spill, then fails).
# usage: tests/trace/make_spill_corpus.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$root/build}
S=$b/src/shim/libiolens_shim.so; P=$b/tests/trace/trace_probe; K=$b/tests/trace/trace_torture
C=$root/fuzz/corpus/trace_spill
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
rm -f "$C"/*.raw; mkdir -p "$C" "$t/d"
spill() { local name=$1; shift; rm -rf "$t/d"; mkdir -p "$t/d"; IOLENS_SHIM_SPILL="$C/$name.raw" LD_PRELOAD=$S "$@" >/dev/null 2>&1 || true; }
spill probe_all "$P" all "$t/a.log" "$t/d"
spill threads_3x40 "$P" threads "$t/t.log" "$t/d" 3 40
spill exit_early "$K" _Exit "$t/d"
spill closefrom "$K" closefrom-memfd "$t/d"
spill dd_4k dd if=/dev/zero of="$t/d/x" bs=4k count=8 status=none
spill dd_self dd if=/dev/zero of="$t/d/x" bs=512 count=200 status=none  # SELF with its per-function part
spill shell sh -c "echo x > $t/d/f; cat $t/d/f"
SLURM_JOB_ID=31337 spill job_long /bin/true $(seq 1 1200)  # a JOB chunk with a command line cut at 4096 bytes
H=$b/tests/trace/trace_hdf5_probe
if [ -x "$H" ]; then OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 spill hdf5_probe "$H" "$t/h.log" "$t/d"; fi
/usr/bin/python3 - "$C" <<'PY'
import random, struct, sys
C = sys.argv[1]
random.seed(11)
HDR = 48  # sizeof(iol_rawhdr)
# extreme process ids: the encoder stores ppid - pid, which must not overflow
base = bytearray(open(f'{C}/dd_4k.raw', 'rb').read())
struct.pack_into('<qq', base, 16, -(1 << 63), (1 << 63) - 1)
open(f'{C}/dd_4k_extreme_pids.raw', 'wb').write(bytes(base))
for name in ('probe_all', 'threads_3x40', 'dd_4k', 'dd_self'):
    base = open(f'{C}/{name}.raw', 'rb').read()
    # cut at chunk boundaries and inside chunks
    at, cuts = HDR, []
    while at + 16 <= len(base) and len(cuts) < 6:
        magic, typ, thr, n = struct.unpack_from('<IIII', base, at)
        cuts.append(at + 16 + n // 2)
        at += 16 + n
    for n in cuts[:4] + [HDR, HDR + 7, len(base) - 3]:
        open(f'{C}/{name}_cut_{n}.raw', 'wb').write(base[:n])
    for k in range(6):  # flipped bits past the header
        b = bytearray(base)
        for _ in range(1 + k):
            i = random.randrange(HDR, len(b))
            b[i] ^= 1 << random.randrange(8)
        open(f'{C}/{name}_flip_{k}.raw', 'wb').write(bytes(b))
# the JOB chunk (right after the header): its command length past the chunk, past the bound,
# its job id past the bound, the chunk cut
base = open(f'{C}/job_long.raw', 'rb').read()
magic, typ, thr, n = struct.unpack_from('<IIII', base, HDR)
assert typ == 6
for name, cl in (('past_chunk', n), ('past_bound', 5000), ('zero', 0)):
    b = bytearray(base)
    struct.pack_into('<I', b, HDR + 16 + 4, cl)
    open(f'{C}/job_len_{name}.raw', 'wb').write(bytes(b))
b = bytearray(base)  # 80 bytes of job id: more than the bound
cl = struct.unpack_from('<I', b, HDR + 20)[0]
b[HDR + 16 + 8 + cl:HDR + 16 + n] = b'7' * 80
struct.pack_into('<I', b, HDR + 12, 8 + cl + 80)
open(f'{C}/job_id_long.raw', 'wb').write(bytes(b))
for k in (3, 10, n // 2):
    open(f'{C}/job_cut_{k}.raw', 'wb').write(base[:HDR + 16 + k])
PY
rm -f "$C"/*.off-*
ls "$C" | wc -l
