#!/bin/bash
# PnetCDF calls in the trace: a probe calls every data function of the API (550 entry points:
# every kind, typed and flexible, blocking and non-blocking) and the file and variable calls,
# and logs each name; the trace holds exactly those calls in that order, at lib depth 0 with
# the file's MPI-IO and POSIX calls nested under them; the program's output and file are the
# same traced or not; the PNETCDF_FILE and PNETCDF_VAR counters equal a hand count of the
# probe's calls (Darshan's rules), at 1 rank and reduced over 2; without the pnetcdf layer
# the MPI-IO and POSIX counters are the same.
. "$(dirname "$0")/../cli/lib.sh"
: "${TRACE_PNETCDF_PROBE:?}" "${IOLENS_SHIM:?}"
T=$IOLENS_TMP
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
P=$TRACE_PNETCDF_PROBE

# untraced, then traced: same output, exit status and file
mkdir -p "$T/plain" "$T/d"
expect_rc 0 "$P" "$T/plain.log" "$T/plain"
cp "$IOLENS_TMP/out" "$T/plain.out"
expect_rc 0 "$IOLENS" trace -o "$T/p.trace" --darshan "$T/p.darshan" --darshan-all-paths -- "$P" "$T/p.log" "$T/d"
grep -v '^iolens' "$IOLENS_TMP/out" >"$T/traced.out"
cmp -s "$T/plain.out" "$T/traced.out" && ok || fail "traced output differs: $(diff "$T/plain.out" "$T/traced.out" | head -5)"
# (late is never written: PnetCDF does not fill, so its values are whatever the disk held)
if command -v ncmpidump >/dev/null; then
  (cd "$T/plain" && ncmpidump -v d,c,m probe.nc) >"$T/plain.dump"
  (cd "$T/d" && ncmpidump -v d,c,m probe.nc) >"$T/traced.dump"
  [ -s "$T/plain.dump" ] && cmp -s "$T/plain.dump" "$T/traced.dump" && ok || fail "the traced program wrote another file"
fi

# every PnetCDF call, in order (the probe's log is the truth), at depth 0
expect_rc 0 "$IOLENS" view "$T/p.trace"
awk '$6 == 7 { print $4 }' "$IOLENS_TMP/out" >"$T/seen"
cmp -s "$T/p.log" "$T/seen" && ok || fail "PnetCDF calls differ from the probe's log: $(diff "$T/p.log" "$T/seen" | head -6)"
[ "$(sort -u "$T/p.log" | grep -c '_var')" -ge 550 ] && ok || fail "the probe called only $(sort -u "$T/p.log" | grep -c '_var') data functions"
awk '$6 == 7 && $5 != 0' "$IOLENS_TMP/out" >"$T/deep"
[ ! -s "$T/deep" ] && ok || fail "PnetCDF calls not at depth 0: $(head -2 "$T/deep")"
# arguments: a variable's name, varid, points, type size; a read's varid and bytes
expect_grep "ncmpi_def_var 0 7 ( $T/d/probe.nc:m 2 8 4 " "$IOLENS_TMP/out"
expect_grep "ncmpi_put_vara_int_all 0 7 ( $T/d/probe.nc:m 2 32 -1 -1 )" "$IOLENS_TMP/out"
expect_grep "ncmpi_get_vara_all 0 7 ( $T/d/probe.nc:d 0 32 4 -1 )" "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" view --json "$T/p.trace"
python3 - "$IOLENS_TMP/out" "$T/d/probe.nc" <<'PY' && ok || fail "nesting of the PnetCDF file's MPI-IO/POSIX calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
low = [e for e in ev if e["path"] == sys.argv[2] and e["layer"] in ("POSIX", "MPIIO")]
assert len(low) > 10, len(low)
assert all(e["lib_depth"] == 1 for e in low), [e for e in low if e["lib_depth"] != 1][:2]
assert any(e["layer"] == "MPIIO" and e["depth"] == 0 for e in low)
pn = [e for e in ev if e["layer"] == "PNETCDF"]
assert len(pn) > 600 and all(e["lib_depth"] == 0 and e["depth"] == 0 for e in pn)
PY

# the counters, by hand. Variable d (double, 4 elements): 12 forms (11 numeric types and the
# flexible API) of each kind, independent and collective: 24 calls of each blocking kind
# (+1 vara read after reopening), 12 non-blocking (+1 iput var1); vard 2 each way. Bytes per
# call: var1 8, vara 32, vars 16, varm 32, varn 32, var 32 (152 a set), vard 8.
pvar() { # the non-time counters of a variable's record: COUNTER VALUE
  "$IOLENS" darshan "$1" | awk -F'\t' -v n="$2" -v r="$3" '$1 == "PNETCDF_VAR" && $6 == n && $2 == r && $4 !~ /_F_|TIME_SIZE|RANK/ { print $4, $5 }'
}
pfile() {
  "$IOLENS" darshan "$1" | awk -F'\t' -v n="$2" -v r="$3" '$1 == "PNETCDF_FILE" && $6 == n && $2 == r && $4 !~ /_F_/ { print $4, $5 }'
}
has() { grep -qx "$2 $3" "$1" && ok || fail "$(basename "$1"): expected $2 = $3, got '$(grep "^$2 " "$1")'"; }
pvar "$T/p.darshan" "$T/d/probe.nc:d" 0 >"$T/d1"
for k in VAR VAR1 VARS VARM VARN; do has "$T/d1" PNETCDF_VAR_PUT_$k 24; has "$T/d1" PNETCDF_VAR_GET_$k 24; done
has "$T/d1" PNETCDF_VAR_PUT_VARA 24; has "$T/d1" PNETCDF_VAR_GET_VARA 25
has "$T/d1" PNETCDF_VAR_PUT_VARD 2; has "$T/d1" PNETCDF_VAR_GET_VARD 2
for k in VAR VARA VARS VARM VARN; do has "$T/d1" PNETCDF_VAR_IPUT_$k 12; has "$T/d1" PNETCDF_VAR_IGET_$k 12; has "$T/d1" PNETCDF_VAR_BPUT_$k 12; done
has "$T/d1" PNETCDF_VAR_IPUT_VAR1 13; has "$T/d1" PNETCDF_VAR_IGET_VAR1 12; has "$T/d1" PNETCDF_VAR_BPUT_VAR1 12
has "$T/d1" PNETCDF_VAR_OPENS 2             # def_var, inq_varid
has "$T/d1" PNETCDF_VAR_INDEP_WRITES 73      # 6 x 12 + vard
has "$T/d1" PNETCDF_VAR_COLL_WRITES 73
has "$T/d1" PNETCDF_VAR_INDEP_READS 73
has "$T/d1" PNETCDF_VAR_COLL_READS 74        # + the read after reopening
has "$T/d1" PNETCDF_VAR_NB_WRITES 145        # iput and bput 6 x 12, + 1
has "$T/d1" PNETCDF_VAR_NB_READS 72
has "$T/d1" PNETCDF_VAR_BYTES_WRITTEN 7320   # 24 x 152 + 2 x 8 + 24 x 152 + 8
has "$T/d1" PNETCDF_VAR_BYTES_READ 5520      # 24 x 152 + 2 x 8 + 12 x 152 + 32
has "$T/d1" PNETCDF_VAR_RW_SWITCHES 7        # W R W R (iput bput) W R (iput) W R
has "$T/d1" PNETCDF_VAR_SIZE_WRITE_AGG_0_100 291
has "$T/d1" PNETCDF_VAR_SIZE_READ_AGG_0_100 219
has "$T/d1" PNETCDF_VAR_NDIMS 1; has "$T/d1" PNETCDF_VAR_NPOINTS 4; has "$T/d1" PNETCDF_VAR_DATATYPE_SIZE 8
# the four most common accesses: 32 bytes without a shape (var, varn), 8 (var1, vard), vara's
# 32 bytes of count 4 (stride 0: it takes none), varm's count 4 stride 1 (vars's 16 bytes, as
# frequent, ranks below the larger access)
has "$T/d1" PNETCDF_VAR_ACCESS1_ACCESS 32; has "$T/d1" PNETCDF_VAR_ACCESS1_COUNT 168; has "$T/d1" PNETCDF_VAR_ACCESS1_LENGTH_D1 0
has "$T/d1" PNETCDF_VAR_ACCESS2_ACCESS 8; has "$T/d1" PNETCDF_VAR_ACCESS2_COUNT 89
has "$T/d1" PNETCDF_VAR_ACCESS3_ACCESS 32; has "$T/d1" PNETCDF_VAR_ACCESS3_LENGTH_D1 4; has "$T/d1" PNETCDF_VAR_ACCESS3_STRIDE_D1 0
has "$T/d1" PNETCDF_VAR_ACCESS3_COUNT 85
has "$T/d1" PNETCDF_VAR_ACCESS4_ACCESS 32; has "$T/d1" PNETCDF_VAR_ACCESS4_STRIDE_D1 1; has "$T/d1" PNETCDF_VAR_ACCESS4_COUNT 84
# c (char): the typed text form only; m (int [2][x]): one 2-D write, D1 the first dimension
pvar "$T/p.darshan" "$T/d/probe.nc:c" 0 >"$T/c1"
has "$T/c1" PNETCDF_VAR_COLL_WRITES 6; has "$T/c1" PNETCDF_VAR_NB_WRITES 12; has "$T/c1" PNETCDF_VAR_NB_READS 6
has "$T/c1" PNETCDF_VAR_BYTES_WRITTEN 76; has "$T/c1" PNETCDF_VAR_BYTES_READ 57; has "$T/c1" PNETCDF_VAR_RW_SWITCHES 5
has "$T/c1" PNETCDF_VAR_DATATYPE_SIZE 1
pvar "$T/p.darshan" "$T/d/probe.nc:m" 0 >"$T/m1"
has "$T/m1" PNETCDF_VAR_BYTES_WRITTEN 32; has "$T/m1" PNETCDF_VAR_NDIMS 2; has "$T/m1" PNETCDF_VAR_NPOINTS 8
has "$T/m1" PNETCDF_VAR_ACCESS1_LENGTH_D1 2; has "$T/m1" PNETCDF_VAR_ACCESS1_LENGTH_D2 4
# r: a record variable; the whole-variable write counts the records written (1)
pvar "$T/p.darshan" "$T/d/rec.nc:r" 0 >"$T/r1"
has "$T/r1" PNETCDF_VAR_IS_RECORD_VAR 1; has "$T/r1" PNETCDF_VAR_NPOINTS 4; has "$T/r1" PNETCDF_VAR_NDIMS 2
has "$T/r1" PNETCDF_VAR_BYTES_WRITTEN 64
# the variable's file: its record id, and the file counters
fid=$("$IOLENS" darshan "$T/p.darshan" | awk -F'\t' -v n="$T/d/probe.nc" '$1 == "PNETCDF_FILE" && $6 == n { print $3; exit }')
has "$T/d1" PNETCDF_VAR_FILE_REC_ID "$fid"
pfile "$T/p.darshan" "$T/d/probe.nc" 0 >"$T/f1"
has "$T/f1" PNETCDF_FILE_CREATES 1; has "$T/f1" PNETCDF_FILE_OPENS 1; has "$T/f1" PNETCDF_FILE_REDEFS 1
has "$T/f1" PNETCDF_FILE_SYNCS 1; has "$T/f1" PNETCDF_FILE_INDEP_WAITS 1
has "$T/f1" PNETCDF_FILE_COLL_WAITS 79       # the write batch, and each of the 78 reads
has "$T/f1" PNETCDF_FILE_WAIT_FAILURES 0
# the bytes PnetCDF says it moved (the data and the header): at least the variables' bytes
w=$(awk '$1 == "PNETCDF_FILE_BYTES_WRITTEN" { print $2 }' "$T/f1")
[ "${w:-0}" -gt 3000 ] && ok || fail "PNETCDF_FILE_BYTES_WRITTEN $w"
expect_rc 0 "$IOLENS" darshan --json "$T/p.darshan"
expect_grep '"file_rec_id"' "$IOLENS_TMP/out"

# 2 ranks: one shared record per variable, counts summed
command -v mpirun >/dev/null || { echo "SKIP: no mpirun for the 2-rank run"; finish; }
rm -rf "$T/d2"; mkdir -p "$T/d2"
expect_rc 0 mpirun -np 2 "$IOLENS" trace -o "$T/p2.trace" --darshan "$T/p2.darshan" --darshan-all-paths -- "$P" "$T/p2.log" "$T/d2"
pvar "$T/p2.darshan" "$T/d2/probe.nc:d" -1 >"$T/d2v"
has "$T/d2v" PNETCDF_VAR_PUT_VARA 48; has "$T/d2v" PNETCDF_VAR_COLL_WRITES 146; has "$T/d2v" PNETCDF_VAR_OPENS 4
has "$T/d2v" PNETCDF_VAR_NPOINTS 8
# each rank: 7320 with whole-variable accesses of 64 bytes instead of 32 (48 writes)
has "$T/d2v" PNETCDF_VAR_BYTES_WRITTEN $(( 2 * (7320 + 48 * 32) ))
# whole-variable accesses are now 64 bytes: var1 and vard (8 bytes, 89 a rank) come first
has "$T/d2v" PNETCDF_VAR_ACCESS1_ACCESS 8; has "$T/d2v" PNETCDF_VAR_ACCESS1_COUNT 178
pvar "$T/p2.darshan" "$T/d2/rec.nc:r" -1 >"$T/r2"
has "$T/r2" PNETCDF_VAR_BYTES_WRITTEN $(( 2 * (32 + 64) ))   # a record each, then 2 records each
pfile "$T/p2.darshan" "$T/d2/probe.nc" -1 >"$T/f2"
has "$T/f2" PNETCDF_FILE_CREATES 2; has "$T/f2" PNETCDF_FILE_COLL_WAITS 158
[ "$(pvar "$T/p2.darshan" "$T/d2/probe.nc:d" 0 | wc -l)" -eq 0 ] && ok || fail "per-rank records left after the reduction"

# without the pnetcdf layer: no PnetCDF calls, and the same MPI-IO and POSIX counters
rm -rf "$T/e"; mkdir -p "$T/e"
IOLENS_LAYERS=posix,stdio,mpiio expect_rc 0 "$IOLENS" trace -o "$T/np.trace" --darshan "$T/np.darshan" --darshan-all-paths -- "$P" "$T/np.log" "$T/e"
expect_rc 0 "$IOLENS" view "$T/np.trace"
awk '$6 == 7' "$IOLENS_TMP/out" | grep -q . && fail "IOLENS_LAYERS without pnetcdf still traced PnetCDF" || ok
counters() {
  "$IOLENS" darshan "$1" | awk -F'\t' -v f="$2/probe.nc" '($1 == "POSIX" || $1 == "MPI-IO") && $6 == f && $4 !~ /_F_|TIME|RANK|ALIGNMENT/ { print $1, $4, $5 }'
}
counters "$T/p.darshan" "$T/d" >"$T/k1"
counters "$T/np.darshan" "$T/e" >"$T/k2"
[ -s "$T/k1" ] && cmp -s "$T/k1" "$T/k2" && ok || fail "counters differ with the PnetCDF layer: $(diff "$T/k1" "$T/k2" | head -6)"
expect_grep "MPIIO_COLL_WRITES" "$T/k1"
expect_rc 2 "$IOLENS" trace --layers posix,adios -o "$T/x.trace" -- true
expect_grep "unknown layer 'adios'" "$IOLENS_TMP/err"
finish
