# Coverage of the probes: every function the shim wraps (its exported symbols,
# and every name of src/trace/funcs.def) is called by a ground-truth probe, so
# that a wrapper without a probe cannot slip in. The probes' calls are compared
# with their own logs by cli_trace and cli_trace_mpi; this test checks that
# the probes call everything:
#   - each exported wrapper is imported by a probe binary (called through the
#     dynamic linker, hence through the shim);
#   - each funcs.def name appears in the decoded trace of a probe run.
. "$(dirname "$0")/../cli/lib.sh"
: "${TRACE_PROBE:?}" "${IOLENS_SHIM:?}" "${IOLENS_SOURCE_DIR:?}"
T=$IOLENS_TMP
command -v nm >/dev/null || { echo "SKIP: nm not found"; exit 77; }

# Exports that record nothing themselves: they keep the trace consistent across
# exit/exec/threads (exercised by cli_trace's signal, fork+exec and thread tests, and by
# cli_trace_safety's closefrom, _Exit and quick_exit programs).
lifecycle="_exit _Exit execv execve execvp pthread_create close_range closefrom"

nm -D --defined-only "$IOLENS_SHIM" | awk '$2 == "T" || $2 == "W" { print $3 }' | sort -u >"$T/exports.all"
# PMPI_X is the MPI_X wrapper itself under a second name (an alias, for Fortran bindings, which
# call PMPI_; cli_trace_fortran): it must be the same address as MPI_X, and is then checked as MPI_X
nm -D --defined-only "$IOLENS_SHIM" | awk '$2 == "T" || $2 == "W" { print $3, $1 }' | sort >"$T/addr"
awk '{ a[$1] = $2 } END { for (n in a) if (n ~ /^PMPI_/) { m = substr(n, 2); if (a[m] != a[n]) print n } }' "$T/addr" >"$T/badalias"
[ ! -s "$T/badalias" ] && ok || fail "PMPI_ exports that are not their MPI_ wrapper: $(tr '\n' ' ' <"$T/badalias")"
grep -v '^PMPI_' "$T/exports.all" >"$T/exports"
[ "$(wc -l <"$T/exports")" -ge 90 ] && ok || fail "the shim exports only $(wc -l <"$T/exports") functions"
sed -n 's/^IOL_FN(\([A-Za-z0-9_]*\),.*/\1/p' "$IOLENS_SOURCE_DIR/src/trace/funcs.def" | sort -u >"$T/funcs"
# notes the HDF5 wrappers record with a call (a selection's shape, a dataset's chunks): no
# wrapper of their own, and the reader folds them into the call
notes="H5Sget_regular_hyperslab H5Pget_chunk"
for n in $notes; do grep -vx "$n" "$T/funcs" >"$T/funcs.n"; mv "$T/funcs.n" "$T/funcs"; done
[ "$(wc -l <"$T/funcs")" -ge 100 ] && ok || fail "funcs.def lists only $(wc -l <"$T/funcs") functions"

# Without MPI headers the shim has no MPI wrappers and there is no MPI probe.
probes="$TRACE_PROBE"
have_mpi=0
if grep -qx MPI_File_open "$T/exports"; then
  if [ -n "${TRACE_MPI_PROBE:-}" ] && command -v mpirun >/dev/null; then
    have_mpi=1
    probes="$probes $TRACE_MPI_PROBE"
  else
    echo "SKIP: the shim wraps MPI-IO but no MPI probe or mpirun is available"; exit 77
  fi
else
  grep -v '^MPI_' "$T/funcs" >"$T/funcs.nompi"; mv "$T/funcs.nompi" "$T/funcs"
fi

# The HDF5 wrappers are always built (the shim looks HDF5 up at run time); their probe needs
# Debian's parallel HDF5 to build: without it they are left out of this check.
have_hdf5=0
if [ -n "${TRACE_HDF5_PROBE:-}" ] && [ $have_mpi -eq 1 ]; then
  have_hdf5=1
  probes="$probes $TRACE_HDF5_PROBE"
else
  echo "note: no HDF5 probe: the HDF5 wrappers are not checked"
  grep -v '^H5' "$T/funcs" >"$T/funcs.noh5"; mv "$T/funcs.noh5" "$T/funcs"
  grep -v '^H5' "$T/exports" >"$T/exports.noh5"; mv "$T/exports.noh5" "$T/exports"
fi

# 1. funcs.def and the exports agree: every traced name is a wrapper
comm -23 "$T/funcs" "$T/exports" >"$T/missing"
[ ! -s "$T/missing" ] && ok || fail "funcs.def names without a wrapper: $(tr '\n' ' ' <"$T/missing")"

# 2. every wrapper is called by a probe
for p in $probes; do nm -D --undefined-only "$p" | awk '{ print $NF }' | sed 's/@.*//'; done | sort -u >"$T/imports"
for f in $lifecycle; do echo "$f"; done | sort >"$T/lifecycle"
comm -23 "$T/exports" "$T/lifecycle" | comm -23 - "$T/imports" >"$T/uncalled"
if [ ! -s "$T/uncalled" ]; then ok; else fail "wrapped but called by no probe: $(tr '\n' ' ' <"$T/uncalled")"; fi
comm -13 "$T/exports" "$T/lifecycle" >"$T/stale"
[ ! -s "$T/stale" ] && ok || fail "lifecycle list names functions the shim no longer exports: $(tr '\n' ' ' <"$T/stale")"

# 3. every traced name shows up in the decoded trace of a probe run (depth 0)
mkdir -p "$T/d"
expect_rc 0 "$IOLENS" trace -o "$T/all.trace" -- "$TRACE_PROBE" all "$T/all.log" "$T/d"
"$IOLENS" trace --print "$T/all.trace" | awk '$5 == 0 { sub(/\(.*/, "", $6); print $6 }' >"$T/seen"
if [ $have_mpi -eq 1 ]; then
  for mode in plain thread; do
    rm -rf "$T/d" "$T/logs"; mkdir -p "$T/d" "$T/logs"
    expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np 1 "$IOLENS" trace -o "$T/mpi.trace" -- \
      "$TRACE_MPI_PROBE" "$T/logs" "$T/d" $mode
    "$IOLENS" trace --print "$T/mpi.trace" | awk '$5 == 0 { sub(/\(.*/, "", $6); print $6 }' >>"$T/seen"
  done
fi
if [ $have_hdf5 -eq 1 ]; then
  rm -rf "$T/d"; mkdir -p "$T/d"
  expect_rc 0 "$IOLENS" trace -o "$T/h5.trace" -- "$TRACE_HDF5_PROBE" "$T/h5.log" "$T/d"
  "$IOLENS" trace --print "$T/h5.trace" | awk '$5 == 0 { sub(/\(.*/, "", $6); print $6 }' >>"$T/seen"
fi
sort -u "$T/seen" -o "$T/seen"
comm -23 "$T/funcs" "$T/seen" >"$T/unseen"
if [ ! -s "$T/unseen" ]; then ok; else fail "traced functions no probe run recorded: $(tr '\n' ' ' <"$T/unseen")"; fi
finish
