#!/bin/bash
# HDF5 calls in the trace: a probe through the parallel library calls every wrapped HDF5
# function and logs the line `iolens view` must print for it (the object's Darshan name, then
# the recorded arguments); the program's output and files are the same traced or not; the
# POSIX calls HDF5 makes are nested under the library call (lib depth 1) and keep io depth 0,
# so the POSIX counters and the replay see what they saw without the HDF5 layer; h5py (when
# installed) is traced too.
. "$(dirname "$0")/../cli/lib.sh"
: "${TRACE_HDF5_PROBE:?}" "${IOLENS_SHIM:?}"
T=$IOLENS_TMP
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# untraced, then traced: same output and exit status
mkdir -p "$T/plain" "$T/d"
expect_rc 0 "$TRACE_HDF5_PROBE" "$T/plain.log" "$T/plain"
cp "$IOLENS_TMP/out" "$T/plain.out"
expect_rc 0 "$IOLENS" trace -o "$T/h5.trace" --darshan "$T/h5.darshan" --darshan-all-paths -- "$TRACE_HDF5_PROBE" "$T/h5.log" "$T/d"
grep -v '^iolens' "$IOLENS_TMP/out" >"$T/traced.out"
cmp -s "$T/plain.out" "$T/traced.out" && ok || fail "traced output differs: $(diff "$T/plain.out" "$T/traced.out" | head -5)"
if command -v h5dump >/dev/null; then
  h5dump -d /g/d "$T/plain/probe.h5" | tail -n +2 >"$T/plain.dump"
  h5dump -d /g/d "$T/d/probe.h5" | tail -n +2 >"$T/traced.dump"
  cmp -s "$T/plain.dump" "$T/traced.dump" && ok || fail "the traced program wrote another dataset"
fi

# every HDF5 call, in order, with its arguments (the probe's own log is the truth)
expect_rc 0 "$IOLENS" view "$T/h5.trace"
awk '$6 == 3 { line = $4; for (i = 8; i < NF; i++) line = line " " $i; print line }' "$IOLENS_TMP/out" >"$T/h5.seen"
if cmp -s "$T/h5.log" "$T/h5.seen"; then ok; else fail "HDF5 calls differ from the probe's log: $(diff "$T/h5.log" "$T/h5.seen" | head -8)"; fi
[ "$(wc -l <"$T/h5.log")" -ge 38 ] && ok || fail "the probe logged only $(wc -l <"$T/h5.log") calls"
# HDF5 calls at depth 0; the file's POSIX and MPI-IO calls all inside them (lib depth 1, io depth 0 or 1)
awk '$6 == 3 && $5 != 0' "$IOLENS_TMP/out" >"$T/deep"
[ ! -s "$T/deep" ] && ok || fail "HDF5 calls not at depth 0: $(head -2 "$T/deep")"
expect_rc 0 "$IOLENS" view --json "$T/h5.trace"
python3 - "$IOLENS_TMP/out" "$T/d/probe.h5" <<'PY' && ok || fail "nesting of the HDF5 file's POSIX/MPI-IO calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
low = [e for e in ev if e["path"] == sys.argv[2] and e["layer"] in ("POSIX", "MPIIO")]
assert len(low) > 10, len(low)
assert all(e["lib_depth"] == 1 for e in low), [e for e in low if e["lib_depth"] != 1][:2]
assert any(e["layer"] == "POSIX" and e["op"] == "write" and e["depth"] == 1 for e in low)  # pwrite under MPI-IO
assert any(e["layer"] == "MPIIO" and e["depth"] == 0 for e in low)
h5 = [e for e in ev if e["layer"] == "HDF5"]
assert all(e["lib_depth"] == 0 and e["depth"] == 0 for e in h5)
w = [e for e in h5 if e["func"] == "H5Dwrite"]
assert [e["size"] for e in w] == [4096] * 4 + [12, 32768], [e["size"] for e in w]
PY

# the POSIX and MPI-IO counters are those of a trace without the HDF5 layer
rm -rf "$T/e"; mkdir -p "$T/e"
IOLENS_LAYERS=posix,stdio,mpiio expect_rc 0 "$IOLENS" trace -o "$T/noh5.trace" --darshan "$T/noh5.darshan" --darshan-all-paths -- "$TRACE_HDF5_PROBE" "$T/noh5.log" "$T/e"
expect_rc 0 "$IOLENS" view "$T/noh5.trace"
awk '$6 == 3' "$IOLENS_TMP/out" | grep -q . && fail "IOLENS_LAYERS without hdf5 still traced HDF5" || ok
counters() { # non-time counters of the probe's file, its folder name made the same
  "$IOLENS" darshan "$1" | awk -F'\t' -v f="$2/probe.h5" '($1 == "POSIX" || $1 == "MPI-IO") && $6 == f && $4 !~ /_F_|TIME|RANK|ALIGNMENT/ { print $1, $4, $5 }'
}
counters "$T/h5.darshan" "$T/d" >"$T/c1"
counters "$T/noh5.darshan" "$T/e" >"$T/c2"
[ -s "$T/c1" ] && cmp -s "$T/c1" "$T/c2" && ok || fail "counters differ with the HDF5 layer: $(diff "$T/c1" "$T/c2" | head -6)"
expect_grep "POSIX_WRITES" "$T/c1"
expect_grep "MPIIO_COLL_WRITES" "$T/c1"

# the H5F and H5D records of the probe's file and dataset, counted by hand from what it does:
# writes of 4 x 4 rows (regular hyperslabs, collective), 3 points, then the whole 32 x 256
# after the extent grew; reads of the whole dataset, then of 2 x 8 rows at stride 2
"$IOLENS" darshan "$T/h5.darshan" | awk -F'\t' -v f="$T/d/probe.h5" \
  '($1 == "H5F" && $6 == f) || ($1 == "H5D" && $6 == f ":/g/d") { if ($4 !~ /_F_|TIME|RANK|FILE_REC_ID/ && $5 != 0) print $4, $5 }' >"$T/h5c"
cat >"$T/h5c.want" <<'EOF2'
H5F_OPENS 2
H5F_FLUSHES 1
H5F_USE_MPIIO 1
H5D_OPENS 3
H5D_READS 3
H5D_WRITES 6
H5D_FLUSHES 1
H5D_BYTES_READ 49152
H5D_BYTES_WRITTEN 49164
H5D_RW_SWITCHES 1
H5D_REGULAR_HYPERSLAB_SELECTS 6
H5D_POINT_SELECTS 1
H5D_SIZE_READ_AGG_1K_10K 2
H5D_SIZE_READ_AGG_10K_100K 1
H5D_SIZE_WRITE_AGG_0_100 1
H5D_SIZE_WRITE_AGG_1K_10K 4
H5D_SIZE_WRITE_AGG_10K_100K 1
H5D_ACCESS1_ACCESS 4096
H5D_ACCESS1_LENGTH_D4 256
H5D_ACCESS1_LENGTH_D5 4
H5D_ACCESS1_STRIDE_D4 1
H5D_ACCESS1_STRIDE_D5 1
H5D_ACCESS2_ACCESS 32768
H5D_ACCESS3_ACCESS 8192
H5D_ACCESS3_LENGTH_D4 256
H5D_ACCESS3_LENGTH_D5 8
H5D_ACCESS3_STRIDE_D4 1
H5D_ACCESS3_STRIDE_D5 2
H5D_ACCESS4_ACCESS 12
H5D_ACCESS1_COUNT 4
H5D_ACCESS2_COUNT 2
H5D_ACCESS3_COUNT 2
H5D_ACCESS4_COUNT 1
H5D_DATASPACE_NDIMS 2
H5D_DATASPACE_NPOINTS 8192
H5D_DATATYPE_SIZE 4
H5D_CHUNK_SIZE_D1 256
H5D_CHUNK_SIZE_D2 4
H5D_USE_MPIIO_COLLECTIVE 1
EOF2
cmp -s "$T/h5c" "$T/h5c.want" && ok || fail "H5F/H5D counters: $(diff "$T/h5c.want" "$T/h5c" | head -8)"
# a dataset made and opened by the deprecated calls
"$IOLENS" darshan "$T/h5.darshan" | awk -F'\t' -v f="$T/d/probe.h5:/old" '$1 == "H5D" && $6 == f && $4 ~ /^H5D_(OPENS|USE_DEPRECATED|DATATYPE_SIZE|DATASPACE_NPOINTS)$/ { print $4, $5 }' >"$T/old"
printf '%s\n' "H5D_OPENS 2" "H5D_DATASPACE_NPOINTS 8" "H5D_DATATYPE_SIZE 2" "H5D_USE_DEPRECATED 1" >"$T/old.want"
cmp -s "$T/old" "$T/old.want" && ok || fail "H5Dcreate1/H5Dopen1: $(diff "$T/old.want" "$T/old" | head -4)"
# the dataset's FILE_REC_ID is its file's H5F record id
"$IOLENS" darshan "$T/h5.darshan" | awk -F'\t' -v f="$T/d/probe.h5" '$1 == "H5F" && $4 == "H5F_OPENS" && $6 == f { print $3 } $1 == "H5D" && $4 == "H5D_FILE_REC_ID" { print $5 }' | sort -u | wc -l >"$T/ids"
[ "$(cat "$T/ids")" = 1 ] && ok || fail "H5D_FILE_REC_ID is not the H5F record's id"

# two ranks: one shared H5D record (rank -1), counts summed, access shapes merged
if command -v mpirun >/dev/null; then
  mkdir -p "$T/m"
  expect_rc 0 mpirun --oversubscribe -np 2 "$IOLENS" trace -o "$T/m.trace" --darshan "$T/m.darshan" --darshan-all-paths -- "$TRACE_HDF5_PROBE" "$T/m.log" "$T/m"
  "$IOLENS" darshan "$T/m.darshan" | awk -F'\t' -v f="$T/m/probe.h5:/g/d" '$1 == "H5D" && $6 == f && $4 ~ /^H5D_(WRITES|BYTES_WRITTEN|ACCESS1_ACCESS|ACCESS1_COUNT|ACCESS4_COUNT)$/ { print $2, $4, $5 }' >"$T/mc"
  printf '%s\n' "-1 H5D_WRITES 12" "-1 H5D_BYTES_WRITTEN 98328" "-1 H5D_ACCESS1_ACCESS 4096" "-1 H5D_ACCESS1_COUNT 8" "-1 H5D_ACCESS4_COUNT 2" >"$T/mc.want"
  cmp -s "$T/mc" "$T/mc.want" && ok || fail "2 ranks: shared H5D record $(diff "$T/mc.want" "$T/mc" | head -6)"
fi

# The workload of the shared Darshan logs of HDF5 block writes (256 ranks, each one 1024 x 1024
# block of doubles; contiguous or chunked, independent or collective) on 4 ranks: every
# non-timing H5F/H5D counter the real log has non-zero, ours has, with the same value (counts
# scaled by 256 / 4), and no other
if command -v mpirun >/dev/null && [ -n "${H5_BLOCK:-}" ]; then
  for v in block block-chunk block-coll block-chunk-coll; do
    ref=$(ls "$IOLENS_SHARED_DATA"/darshan/public/*snyder_h5-${v}_id*.darshan.parser.txt 2>/dev/null | head -1)
    [ -n "$ref" ] || { echo "skip: no shared log of h5-$v"; continue; }
    rm -rf "$T/b"; mkdir -p "$T/b"
    expect_rc 0 mpirun --oversubscribe -np 4 "$IOLENS" trace -o "$T/b.trace" --darshan "$T/b.darshan" --darshan-all-paths -- \
      "$H5_BLOCK" 1024 "$T/b" $(echo "$v" | tr '-' ' ' | sed 's/block//')
    "$IOLENS" darshan "$T/b.darshan" >"$T/b.txt"
    python3 - "$ref" "$T/b.txt" 64 <<'PY' && ok || fail "h5-$v: H5F/H5D counters differ from the real log's"
import sys
scaled = {"H5D_OPENS", "H5D_WRITES", "H5D_BYTES_WRITTEN", "H5D_REGULAR_HYPERSLAB_SELECTS", "H5D_ACCESS1_COUNT",
          "H5D_DATASPACE_NPOINTS", "H5D_SIZE_WRITE_AGG_4M_10M", "H5F_OPENS"}
def counters(path, k):
    out = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 6 or f[0] not in ("H5F", "H5D") or "_F_" in f[3] or "RANK" in f[3] or f[3].endswith("FILE_REC_ID"):
            continue
        v = int(f[4])
        if v:
            out[f[3]] = v * (k if f[3] in scaled else 1)
    return out
ref, ours = counters(sys.argv[1], 1), counters(sys.argv[2], int(sys.argv[3]))
assert ref == ours, (sorted(set(ref.items()) ^ set(ours.items())))
PY
  done
fi

# at the I/O level the on-the-fly replay replays the POSIX/MPI-IO calls under the HDF5 calls
# and skips the HDF5 calls themselves (the library level: tests/replay/test_replay_hdf5.sh)
expect_rc 0 "$IOLENS" replay "$T/h5.trace" --root "$T/r1" --json --level io
cp "$IOLENS_TMP/out" "$T/r1.json"
expect_rc 0 "$IOLENS" replay "$T/noh5.trace" --root "$T/r2" --json
python3 - "$T/r1.json" "$IOLENS_TMP/out" "$(wc -l <"$T/h5.log")" <<'PY' && ok || fail "replays with and without the HDF5 layer differ"
import json, sys
a, b = (json.loads(open(p).read()) for p in sys.argv[1:3])
for k in ("calls", "bytes_written", "bytes_read", "failed"):
    assert a[k] == b[k], (k, a[k], b[k])
assert a["bytes_written"] > 80000 and a["failed"] == 0, a
assert a["skipped"] - b["skipped"] == int(sys.argv[3]), (a["skipped"], b["skipped"])
PY
expect_rc 0 "$IOLENS" replay --config-from "$T/h5.trace" -o "$T/h5.json"

# HDF5's own benchmark (serial library): a 256 x 1024-byte dataset in 16 x 1024 transfers, 2
# iterations: 32 writes and 32 reads of 16 KiB (regular hyperslabs), 2 files created and opened
if command -v h5perf_serial >/dev/null; then
  mkdir -p "$T/perf"
  (cd "$T/perf" && h5perf_serial -A hdf5 -e 256,1024 -x 16,1024 -i 2 >"$T/perf.plain" 2>&1) && ok || fail "h5perf_serial untraced"
  (cd "$T/perf" && "$IOLENS" trace -o "$T/perf.trace" -- h5perf_serial -A hdf5 -e 256,1024 -x 16,1024 -i 2 >"$T/perf.out" 2>"$T/perf.err") &&
    ok || fail "h5perf_serial traced: $(head -3 "$T/perf.err")"
  grep -c "Throughput" "$T/perf.plain" >"$T/p1"; grep -c "Throughput" "$T/perf.out" >"$T/p2"
  cmp -s "$T/p1" "$T/p2" && ok || fail "h5perf_serial's report changed under the tracer"
  "$IOLENS" view "$T/perf.trace" | awk '$6 == 3 { n[$4]++; if ($4 == "H5Dwrite" || $4 == "H5Dread") s[$4 " " $9 " " $10]++ }
    END { for (k in n) print k, n[k]; for (k in s) print k, s[k] }' | sort >"$T/perf.calls"
  printf '%s\n' "H5Dclose 4" "H5Dcreate2 2" "H5Dopen2 2" "H5Dread 32" "H5Dread 2 16384 32" "H5Dwrite 32" "H5Dwrite 2 16384 32" \
    "H5Fclose 4" "H5Fcreate 2" "H5Fopen 2" | sort >"$T/perf.want"
  cmp -s "$T/perf.calls" "$T/perf.want" && ok || fail "h5perf_serial's HDF5 calls: $(diff "$T/perf.want" "$T/perf.calls" | head -6)"
else
  echo "skip: no h5perf_serial (hdf5-tools)"
fi

# h5py: datasets opened by name lookup (H5Oopen, not wrapped) are named at their first read
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  cat >"$T/hp.py" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("x", (100, 1000), dtype="f8", chunks=(10, 1000))
    for i in range(10):
        d[i * 10:(i + 1) * 10, :] = np.full((10, 1000), i, dtype="f8")
with h5py.File(sys.argv[1], "r") as f:
    print(int(f["x"][:].sum()))
PY
  expect_rc 0 "$IOLENS" trace -o "$T/hp.trace" --darshan "$T/hp.darshan" -- /usr/bin/python3 "$T/hp.py" "$T/hp.h5"
  expect_grep "^450000$" "$IOLENS_TMP/out"
  expect_rc 0 "$IOLENS" view "$T/hp.trace"
  [ "$(grep -c " H5Dwrite 0 3 ( $T/hp.h5:/x 2 80000 8 " "$IOLENS_TMP/out")" = 10 ] && ok || fail "h5py: 10 writes of 80000 bytes to hp.h5:/x"
  [ "$(grep -c " H5Dread 0 3 ( $T/hp.h5:/x 2 800000 8 " "$IOLENS_TMP/out")" = 1 ] && ok || fail "h5py: one read of the whole dataset"
  "$IOLENS" darshan "$T/hp.darshan" | awk -F'\t' -v f="$T/hp.h5:/x" '$1 == "H5D" && $6 == f && $4 ~ /^H5D_(OPENS|READS|WRITES|BYTES_READ|BYTES_WRITTEN|DATASPACE_NPOINTS|CHUNK_SIZE_D[12])$/ { print $4, $5 }' >"$T/hpc"
  printf '%s\n' "H5D_OPENS 2" "H5D_READS 1" "H5D_WRITES 10" "H5D_BYTES_READ 800000" "H5D_BYTES_WRITTEN 800000" \
    "H5D_DATASPACE_NPOINTS 100000" "H5D_CHUNK_SIZE_D1 1000" "H5D_CHUNK_SIZE_D2 10" >"$T/hpc.want"
  cmp -s "$T/hpc" "$T/hpc.want" && ok || fail "h5py: H5D counters $(diff "$T/hpc.want" "$T/hpc" | head -6)"
else
  echo "skip: no h5py for /usr/bin/python3"
fi
finish
