# MPI-IO from a Fortran program under the tracer. Open MPI's Fortran bindings (mpif.h, `use mpi`,
# `use mpi_f08`) call libmpi's PMPI_ entry points, never the MPI_ names: before the shim also
# exported its wrappers as PMPI_ (src/shim/mpiio.c), a Fortran program's trace had no MPI-IO
# call at all, its MPI-IO's POSIX calls at depth 0, and MPI_Init's own I/O in it. Checked: the
# program's results, its MPI-IO calls once each at depth 0 with their sizes and offsets, the
# rank of each process, MPI_Init's I/O left out, and the preload form's trace built at
# MPI_Finalize.
. "$(dirname "$0")/../cli/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
command -v mpifort >/dev/null || { echo "SKIP: mpifort not found (Debian gfortran, libopenmpi-dev)"; exit 77; }
T=$IOLENS_TMP
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpifort -O1 -o "$T/prog" "$IOLENS_SOURCE_DIR/tests/trace/fortran_mpiio.f90" || { fail "cannot compile fortran_mpiio.f90"; finish; }
expect_rc 0 mpirun -np 2 "$IOLENS" trace -o "$T/f.trace" -- "$T/prog" "$T/data"
# the program did what it does untraced (it aborts if a read-back differs)
[ "$(stat -c %s "$T/data")" -eq 81920 ] && [ "$(head -c 40960 "$T/data" | tr -d A | wc -c)" -eq 0 ] && \
  [ "$(tail -c 40960 "$T/data" | tr -d B | wc -c)" -eq 0 ] && ok || fail "the MPI-IO file is not what the program wrote"
expect_rc 0 "$IOLENS" trace --print "$T/f.trace"
cp "$T/out" "$T/print"
# rank, time, time, function, depth, ...: the depth-0 calls per rank and function
calls() { awk -v r="$1" -v f="$2" '$1 == r && $5 == 0 && index($6, f "(") == 1' "$T/print" | wc -l; }
for r in 0 1; do
  expect_grep "^$r .* MPI_Init(rank=$r, size=2)" "$T/print"
  [ "$(calls $r MPI_File_open)" -eq 1 ] && [ "$(calls $r MPI_File_write_at)" -eq 8 ] && \
    [ "$(calls $r MPI_File_write_at_all)" -eq 1 ] && [ "$(calls $r MPI_File_iwrite_at)" -eq 1 ] && \
    [ "$(calls $r MPI_Wait)" -eq 1 ] && [ "$(calls $r MPI_File_sync)" -eq 1 ] && \
    [ "$(calls $r MPI_File_read_at)" -eq 10 ] && [ "$(calls $r MPI_File_close)" -eq 1 ] && \
    [ "$(calls $r MPI_Finalize)" -eq 1 ] && ok || fail "rank $r: depth-0 MPI calls: $(awk -v r=$r '$1 == r && $5 == 0 {print $6}' "$T/print" | sed 's/(.*//' | sort | uniq -c | tr '\n' ' ')"
  # the POSIX calls of MPI-IO are inside the MPI-IO calls, not the program's own
  [ "$(awk -v r=$r '$1 == r && $5 == 0 && /pwrite|pread/' "$T/print" | wc -l)" -eq 0 ] && ok || fail "rank $r: POSIX transfers at depth 0"
done
grep -q "^1 .* MPI_File_write_at(\"$T/data\", fd=[0-9]*, off=$(( 13 * 4096 )), size=4096, typesize=1, count=4096" "$T/print" && ok || fail "rank 1's fourth write (offset 13 x 4096) not recorded as such: $(grep -m1 'MPI_File_write_at(' "$T/print")"
# MPI_Init's own I/O (Open MPI's shared-memory segments, its configuration) is not traced
[ "$(awk '$5 == 0 && /vader_segment|mca-params/' "$T/print" | wc -l)" -eq 0 ] && ok || fail "MPI_Init's I/O is in the trace"
# the preload form: rank 0 builds the trace at MPI_Finalize, reached through PMPI_Finalize
rm -f "$T/data"
expect_rc 0 mpirun -np 2 -x LD_PRELOAD="$IOLENS_SHIM" -x IOLENS_TRACE_OUT="$T/pre.trace" "$T/prog" "$T/data"
[ -f "$T/pre.trace" ] && ok || fail "no trace built at MPI_Finalize"
expect_rc 0 "$IOLENS" trace --print "$T/pre.trace"
[ "$(grep -c 'MPI_File_write_at_all(' "$T/out")" -eq 2 ] && ok || fail "preload: not one MPI_File_write_at_all per rank"
finish
