# The library level of the on-the-fly replay: the HDF5 calls of real programs re-issued
# through HDF5, the MPI-IO and POSIX calls made inside them not. A 4-rank block write
# (chunked, collective; the workload of the shared Darshan logs of HDF5 block writes), HDF5's
# own benchmark h5perf_serial, and h5py (groups, chunks, an attribute, an extendible dataset,
# files closed by dropping their last reference). The replayed file has the original's
# dataset shape and chunks; the what-if options change the transfer mode and the alignment.
. "$(dirname "$0")/../cli/lib.sh"
: "${H5_BLOCK:?}"
T=$IOLENS_TMP
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
jget() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$IOLENS_TMP/out" "$1"; }
# h5dump's description of a file's datasets: shapes and storage layout, not the types (the
# replay writes a type of the recorded size that needs no conversion) nor the attributes (an
# attribute h5py makes with H5Acreate_by_name is not traced, its writes are)
shape() { h5dump -H -p -A 0 "$1" | grep -E 'DATASET|DATASPACE|CHUNKED|CONTIGUOUS|GROUP' | sed 's/^ *//'; }

if command -v mpirun >/dev/null; then
  mkdir -p "$T/b"
  expect_rc 0 mpirun -np 4 "$IOLENS" trace -o "$T/blk.trace" -- "$H5_BLOCK" 256 "$T/b" chunk coll
  expect_rc 0 "$IOLENS" replay "$T/blk.trace" --root "$T/r1" --json --keep
  [ "$(jget level)" = hdf5 ] && ok || fail "block write: not replayed at the library level: $(head -c 300 "$IOLENS_TMP/out")"
  # 4 ranks x H5Fcreate, H5Dcreate2, H5Dwrite, H5Dclose, H5Fclose and 3 property lists
  [ "$(jget library_calls)" = 32 ] && ok || fail "block write: $(jget library_calls) HDF5 calls replayed, want 32"
  [ "$(jget bytes_written)" = $((512 * 512 * 8)) ] && ok || fail "block write: $(jget bytes_written) bytes written"
  [ "$(jget ranks)" = 4 ] && ok || fail "block write: $(jget ranks) ranks"
  if command -v h5dump >/dev/null; then
    shape "$T/b/h5_block.h5" >"$T/s.orig"
    shape "$T/r1/${T#/}/b/h5_block.h5" >"$T/s.replay"
    cmp -s "$T/s.orig" "$T/s.replay" && grep -q "CHUNKED ( 256, 256 )" "$T/s.replay" && ok ||
      fail "block write: the replayed file's datasets differ: $(diff "$T/s.orig" "$T/s.replay" | head -4)"
  fi
  # what-ifs of the transfer property list and of the alignment: same bytes
  expect_rc 0 "$IOLENS" replay "$T/blk.trace" --root "$T/r2" --json --hdf5-xfer independent
  [ "$(jget bytes_written)" = $((512 * 512 * 8)) ] && ok || fail "--hdf5-xfer independent: $(jget bytes_written) bytes"
  expect_rc 0 "$IOLENS" replay "$T/blk.trace" --root "$T/r3" --json --hdf5-alignment 1048576 --keep
  [ "$(jget bytes_written)" = $((512 * 512 * 8)) ] && ok || fail "--hdf5-alignment: $(jget bytes_written) bytes"
  # the global view at the library level: hdf5 steps of the program's own calls, with its
  # transfer mode and chunks (4 ranks x one 512 KiB collective H5Dwrite), replayed through HDF5
  expect_rc 0 "$IOLENS" replay --config-from "$T/blk.trace" --level hdf5 -o "$T/blk.json"
  /usr/bin/python3 - "$T/blk.json" <<'PY' && ok || fail "--config-from --level hdf5: $(head -c 400 "$T/blk.json")"
import json, sys
c = json.load(open(sys.argv[1]))
s = c["file_configs"]
assert c["nranks"] == 4 and len(s) == 1, c
w = s[0]
assert w["method"] == "write" and w["interface"] == "hdf5" and w["hints"]["use_collective"] is True, w
assert w["hdf5"]["chunk"] == 256 * 256 * 8 and w["chunks"] == [{"transfer_size": 512 * 1024, "repetitions": 1}], w
PY
  expect_rc 0 "$IOLENS" replay "$T/blk.json" --root "$T/r1c" --json
  /usr/bin/python3 - "$IOLENS_TMP/out" <<'PY' && ok || fail "replay of the hdf5 config: $(head -c 400 "$IOLENS_TMP/out")"
import json, sys
st = json.load(open(sys.argv[1]))["steps"][0]
assert st["interface"] == "hdf5" and st["bytes"] == 4 * 512 * 1024, st
h = st["hints"]
assert h["hdf5.chunk"].startswith("applied: the dataset is chunked in 524288-byte chunks"), h
PY
  # the I/O level: the MPI-IO and POSIX calls the HDF5 calls made, no HDF5 call
  expect_rc 0 "$IOLENS" replay "$T/blk.trace" --root "$T/r4" --json --level io
  [ "$(jget level)" = io ] && [ "$(jget library_calls)" = 0 ] && ok || fail "--level io: $(head -c 300 "$IOLENS_TMP/out")"
  [ "$(jget bytes_written)" -ge $((512 * 512 * 8)) ] && ok || fail "--level io: $(jget bytes_written) bytes"
  # the closed loop at the library level: the independent program's trace, made collective
  mkdir -p "$T/bi"
  expect_rc 0 mpirun -np 4 "$IOLENS" trace -o "$T/ind.trace" -- "$H5_BLOCK" 256 "$T/bi"
  expect_rc 0 "$IOLENS" whatif "$T/ind.trace" --level hdf5 --pattern interface_choice,access_pattern --rounds 2 --json --root "$T/wi" --root-anywhere
  /usr/bin/python3 - "$IOLENS_TMP/out" <<'PY' && ok || fail "whatif --level hdf5: $(head -c 400 "$IOLENS_TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["configs"]}
assert v["interface_choice"]["status"] == "applied", v["interface_choice"]
assert "4 of 4 dataset transfers independent" in v["interface_choice"]["note"], v["interface_choice"]["note"]
assert v["access_pattern"]["status"] == "no replay transform", v["access_pattern"]
for k in ("base", "interface_choice"):
    runs = v[k]["runs"]
    assert len(runs) == 2 and all(r["bytes"] == 512 * 512 * 8 and r["seconds"] > 0 for r in runs), runs
PY
  expect_rc 0 "$IOLENS" whatif "$T/blk.trace" --level hdf5 --pattern interface_choice --dry-run
  expect_grep "every dataset transfer is collective already" "$IOLENS_TMP/out"
else
  echo "skip: no mpirun"
fi
expect_rc 2 "$IOLENS" replay "$T/blk.trace" --level posix
expect_rc 2 "$IOLENS" replay "$T/blk.trace" --hdf5-xfer sometimes
expect_rc 2 "$IOLENS" replay "$T/blk.trace" --level io --hdf5-xfer collective
expect_rc 2 "$IOLENS" whatif "$T/blk.trace" --level hdf5 --combine interface_choice,access_pattern

# HDF5's own benchmark: 2 files created, closed and opened again, 32 writes and 32 reads of 16 KiB;
# its report goes to its standard output, a file the shell opened for it, which is replayed too
if command -v h5perf_serial >/dev/null; then
  mkdir -p "$T/perf"
  (cd "$T/perf" && "$IOLENS" trace -o "$T/perf.trace" -- h5perf_serial -A hdf5 -e 256,1024 -x 16,1024 -i 2 >"$T/perf.out" 2>"$T/perf.err") &&
    ok || fail "h5perf_serial traced"
  expect_rc 0 "$IOLENS" replay "$T/perf.trace" --root "$T/r5" --json
  [ "$(jget level)" = hdf5 ] && ok || fail "h5perf_serial: not replayed at the library level"
  report=$(stat -c %s "$T/perf.out")
  [ "$(jget bytes_written)" = $((32 * 16384 + report)) ] && [ "$(jget bytes_read)" = $((32 * 16384)) ] && ok ||
    fail "h5perf_serial: $(jget bytes_written) bytes written, $(jget bytes_read) read, want $((32 * 16384)) + $report, $((32 * 16384))"
else
  echo "skip: no h5perf_serial (hdf5-tools)"
fi

# h5py: a group made as a dataset's parent, chunks, an attribute, an extendible dataset grown
# by H5Dset_extent, a whole-dataset write; files closed by dropping the last reference
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  mkdir -p "$T/w"
  cat >"$T/hp.py" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("g/x", (1000, 100), dtype="f8", chunks=(100, 100))
    for i in range(10):
        d[i * 100:(i + 1) * 100, :] = np.ones((100, 100))
    f.attrs["a"] = 3
    f.create_dataset("y", data=np.arange(5000))
    z = f.create_dataset("z", (0, 10), maxshape=(None, 10), chunks=(10, 10), dtype="i4")
    for i in range(5):
        z.resize((i + 1) * 10, axis=0)
        z[i * 10:(i + 1) * 10, :] = i
with h5py.File(sys.argv[1], "r") as f:
    print(f["g/x"][:].sum() + f["y"][10:20].sum() + f["z"][:].sum())
PY
  "$IOLENS" trace -o "$T/hp.trace" -- /usr/bin/python3 "$T/hp.py" "$T/w/hp.h5" >/dev/null 2>"$T/err" && ok ||
    fail "h5py traced"
  expect_rc 0 "$IOLENS" replay "$T/hp.trace" --root "$T/r6" --json --keep
  [ "$(jget level)" = hdf5 ] && ok || fail "h5py: not replayed at the library level"
  # 10 x 80,000 + 40,000 + 5 x 400 bytes written; 800,000 + 80 + 2,000 read through HDF5
  [ "$(jget bytes_written)" = 842000 ] && ok || fail "h5py: $(jget bytes_written) bytes written, want 842000"
  if command -v h5dump >/dev/null; then
    shape "$T/w/hp.h5" >"$T/h.orig"
    shape "$T/r6/${T#/}/w/hp.h5" >"$T/h.replay"
    cmp -s "$T/h.orig" "$T/h.replay" && grep -q "( 50, 10 ) / ( H5S_UNLIMITED, 10 )" "$T/h.replay" && ok ||
      fail "h5py: the replayed file's datasets differ: $(diff "$T/h.orig" "$T/h.replay" | head -6)"
  fi
  # a file the program only opens is not made again at the library level: without --level the
  # I/O level replays its reads (said on stderr); with --level hdf5 refused before anything runs
  cat >"$T/rd.py" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    print(f["y"][:].sum())
PY
  expect_rc 0 "$IOLENS" trace -o "$T/rd.trace" -- /usr/bin/python3 "$T/rd.py" "$T/w/hp.h5"
  expect_rc 0 "$IOLENS" replay "$T/rd.trace" --root "$T/r7" --json
  expect_grep "opens without creating it: replayed at the I/O level" "$IOLENS_TMP/err"
  [ "$(jget level)" = io ] && [ "$(jget bytes_read)" -gt 800 ] && ok ||
    fail "h5py reader: not replayed at the I/O level, or nothing read ($IOLENS_TMP/out)"
  expect_rc 1 "$IOLENS" replay "$T/rd.trace" --root "$T/r7b" --level hdf5
  expect_grep "opens without creating it" "$IOLENS_TMP/err"
  expect_rc 0 "$IOLENS" replay "$T/rd.trace" --root "$T/r8" --level io
else
  echo "skip: no h5py for /usr/bin/python3"
fi
finish
