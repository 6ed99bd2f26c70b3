#!/bin/bash
# NetCDF calls in the trace: a probe calls every data function of netCDF-C's API (150 entry
# points) and the file, variable and parallel calls, and logs each name; the trace holds
# exactly those calls in that order, with the netCDF-4 file's HDF5 calls nested beneath them
# (lib depth 1) and its POSIX calls beneath those (lib depth 2); the program's output and file
# are the same traced or not. Then Debian's own NetCDF programs: ncgen writes a file from CDL,
# ncdump and nccopy read it; each variable's reads and writes add up to its size; their output
# is unchanged. Without the netcdf layer the HDF5, MPI-IO and POSIX calls are the same.
. "$(dirname "$0")/../cli/lib.sh"
: "${TRACE_NETCDF_PROBE:?}" "${IOLENS_SHIM:?}"
T=$IOLENS_TMP
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
P=$TRACE_NETCDF_PROBE
have_dump=0
command -v ncdump >/dev/null && command -v ncgen >/dev/null && command -v nccopy >/dev/null && have_dump=1

# untraced, then traced: same output, exit status and file
mkdir -p "$T/plain" "$T/d"
expect_rc 0 "$P" "$T/plain.log" "$T/plain"
cp "$IOLENS_TMP/out" "$T/plain.out"
expect_rc 0 "$IOLENS" trace -o "$T/n.trace" -- "$P" "$T/n.log" "$T/d"
grep -v '^iolens' "$IOLENS_TMP/out" >"$T/traced.out"
cmp -s "$T/plain.out" "$T/traced.out" && ok || fail "traced output differs: $(diff "$T/plain.out" "$T/traced.out" | head -5)"
if [ $have_dump -eq 1 ]; then
  (cd "$T/plain" && ncdump serial.nc) >"$T/plain.dump"
  (cd "$T/d" && ncdump serial.nc) >"$T/traced.dump"
  [ -s "$T/plain.dump" ] && cmp -s "$T/plain.dump" "$T/traced.dump" && ok || fail "the traced program wrote another file"
fi

# every NetCDF call, in order, at depth 0 (the probe's log is the truth)
expect_rc 0 "$IOLENS" view "$T/n.trace"
cp "$IOLENS_TMP/out" "$T/n.view"
awk '$6 == 8 && $5 == 0 { print $4 }' "$T/n.view" >"$T/seen"
cmp -s "$T/n.log" "$T/seen" && ok || fail "NetCDF calls differ from the probe's log: $(diff "$T/n.log" "$T/seen" | head -6)"
[ "$(sort -u "$T/n.log" | grep -c '^nc_[pg][ue]t_var')" -eq 150 ] && ok || fail "the probe called $(sort -u "$T/n.log" | grep -c '^nc_[pg][ue]t_var') data functions, not 150"
awk '$6 == 8 && $5 != 0' "$T/n.view" >"$T/deep"
[ ! -s "$T/deep" ] && ok || fail "NetCDF calls not at depth 0: $(head -2 "$T/deep")"
# arguments: a variable's name, varid, elements, type size (a string is a pointer); bytes
expect_grep "nc_def_var 0 8 ( $T/d/serial.nc:m 3 8 4 " "$T/n.view"
expect_grep "nc_def_var 0 8 ( $T/d/serial.nc:s 2 4 8 " "$T/n.view"
expect_grep "nc_put_vara_int 0 8 ( $T/d/serial.nc:m 3 32 )" "$T/n.view"
expect_grep "nc_get_vara_double 0 8 ( $T/d/serial.nc:d 0 32 )" "$T/n.view"
expect_grep "nc_put_vars_ushort 0 8 ( $T/d/serial.nc:d 0 16 )" "$T/n.view"
expect_grep "nc_var_par_access 0 8 ( $T/d/par.nc:p 0 1 )" "$T/n.view"
expect_grep "nc_create_par 0 8 ( $T/d/par.nc " "$T/n.view"
expect_rc 0 "$IOLENS" view --json "$T/n.trace"
python3 - "$IOLENS_TMP/out" "$T/d/serial.nc" <<'PY' && ok || fail "nesting of the netCDF-4 file's HDF5 and POSIX calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
nc = [e for e in ev if e["layer"] == "NETCDF"]
assert len(nc) > 170 and all(e["lib_depth"] == 0 and e["depth"] == 0 for e in nc)
h5 = [e for e in ev if e["layer"] == "HDF5"]
assert len(h5) > 50 and all(e["lib_depth"] == 1 for e in h5), set(e["lib_depth"] for e in h5)
assert any(e["func"] == "H5Fcreate" and e["path"] == sys.argv[2] for e in h5)
assert any(e["func"] == "H5Dwrite" for e in h5)
px = [e for e in ev if e["layer"] == "POSIX" and e["path"] == sys.argv[2] and e["op"] in ("read", "write")]
assert px and all(e["lib_depth"] == 2 for e in px), set(e["lib_depth"] for e in px)
PY

# the parallel part at 2 ranks: each rank's collective write of its 4 elements
if command -v mpirun >/dev/null; then
  rm -rf "$T/d2"; mkdir -p "$T/d2"
  expect_rc 0 mpirun -np 2 "$IOLENS" trace -o "$T/n2.trace" -- "$P" "$T/n2.log" "$T/d2"
  expect_rc 0 "$IOLENS" view "$T/n2.trace"
  n=$(awk -v f="$T/d2/par.nc:p" '$6 == 8 && $4 == "nc_put_vara_double" && $8 == f && $10 == 32' "$IOLENS_TMP/out" | awk '{ print $1 }' | sort -u | tr '\n' ' ')
  [ "$n" = "0 1 " ] && ok || fail "2 ranks: the parallel writes are of ranks '$n'"
fi

# Debian's NetCDF programs
if [ $have_dump -eq 1 ]; then
  cat >"$T/f.cdl" <<'EOF'
netcdf f {
dimensions:
  t = UNLIMITED ; x = 5 ;
variables:
  double temp(t, x) ;
    temp:units = "K" ;
  int step(t) ;
  float grid(x) ;
data:
  temp = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 ;
  step = 1, 2, 3 ;
  grid = 0.5, 1.5, 2.5, 3.5, 4.5 ;
}
EOF
  # bytes moved per variable (puts or gets of the file's variables)
  moved() { "$IOLENS" view "$1" | awk -v f="$2" -v op="$3" '$6 == 8 && $4 ~ op && index($8, f ":") == 1 { b[$8] += $10 } END { for (v in b) print v, b[v] }' | sort; }
  sizes() { printf '%s:grid 20\n%s:step 12\n%s:temp 120\n' "$1" "$1" "$1"; }
  expect_rc 0 ncgen -k nc4 -o "$T/plain.nc" "$T/f.cdl"
  expect_rc 0 "$IOLENS" trace -o "$T/gen.trace" -- ncgen -k nc4 -o "$T/f.nc" "$T/f.cdl"
  expect_rc 0 "$IOLENS" view "$T/gen.trace"
  [ "$(awk '$6 == 8 && $4 == "nc_def_var"' "$IOLENS_TMP/out" | wc -l)" -eq 3 ] && ok || fail "ncgen: not 3 nc_def_var"
  expect_grep "nc_create 0 8 ( $T/f.nc " "$IOLENS_TMP/out"
  expect_grep "nc_def_var 0 8 ( $T/f.nc:temp 0 5 8 " "$IOLENS_TMP/out"
  moved "$T/gen.trace" "$T/f.nc" '^nc_put_' >"$T/gen.bytes"
  sizes "$T/f.nc" | cmp -s - "$T/gen.bytes" && ok || fail "ncgen's writes: $(tr '\n' ' ' <"$T/gen.bytes")"
  ncdump "$T/plain.nc" | tail -n +2 >"$T/dump.plain"
  expect_rc 0 "$IOLENS" trace -o "$T/dump.trace" -- ncdump "$T/f.nc"
  grep -v '^iolens' "$IOLENS_TMP/out" | tail -n +2 >"$T/dump.traced"
  cmp -s "$T/dump.plain" "$T/dump.traced" && ok || fail "ncdump's output differs traced: $(diff "$T/dump.plain" "$T/dump.traced" | head -4)"
  moved "$T/dump.trace" "$T/f.nc" '^nc_get_' >"$T/dump.bytes"
  sizes "$T/f.nc" | cmp -s - "$T/dump.bytes" && ok || fail "ncdump's reads: $(tr '\n' ' ' <"$T/dump.bytes")"
  expect_rc 0 "$IOLENS" trace -o "$T/copy.trace" -- nccopy -k classic "$T/f.nc" "$T/g.nc"
  moved "$T/copy.trace" "$T/f.nc" '^nc_get_' >"$T/copy.in"
  moved "$T/copy.trace" "$T/g.nc" '^nc_put_' >"$T/copy.out"
  sizes "$T/f.nc" | cmp -s - "$T/copy.in" && ok || fail "nccopy's reads: $(tr '\n' ' ' <"$T/copy.in")"
  # a classic file stores the int record variable the same way: 12 bytes
  sizes "$T/g.nc" | cmp -s - "$T/copy.out" && ok || fail "nccopy's writes: $(tr '\n' ' ' <"$T/copy.out")"
  [ "$(ncdump "$T/g.nc" | tail -n +2)" = "$(cat "$T/dump.plain")" ] && ok || fail "nccopy traced made another file"
fi

# without the netcdf layer: no NetCDF calls, the same HDF5, MPI-IO and POSIX calls on the
# probe's files (the HDF5 calls then at lib depth 0)
rm -rf "$T/e"; mkdir -p "$T/e"
IOLENS_LAYERS=posix,stdio,mpiio,hdf5 expect_rc 0 "$IOLENS" trace -o "$T/nn.trace" -- "$P" "$T/nn.log" "$T/e"
expect_rc 0 "$IOLENS" view "$T/nn.trace"
awk '$6 == 8' "$IOLENS_TMP/out" | grep -q . && fail "IOLENS_LAYERS without netcdf still traced NetCDF" || ok
calls() { awk -v d="$2" '$6 != 8 && index($0, d "/") { print $4, $6 }' "$1" | sort | uniq -c; } # the probe's files' calls
calls "$T/n.view" "$T/d" >"$T/k1"
calls "$IOLENS_TMP/out" "$T/e" >"$T/k2"
[ -s "$T/k1" ] && cmp -s "$T/k1" "$T/k2" && ok || fail "calls under NetCDF differ without its layer: $(diff "$T/k1" "$T/k2" | head -6)"
finish
