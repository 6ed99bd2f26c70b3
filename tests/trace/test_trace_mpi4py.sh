# An mpi4py program under iolens trace. Python loads mpi4py's extension module,
# and with it libmpi, with RTLD_LOCAL after the shim: the shim's MPI wrappers
# must still find PMPI_* and MPI_COMM_WORLD (it crashed in MPI_Init_thread).
# The program's results are unchanged, and its MPI-IO calls are in the trace.
. "$(dirname "$0")/../cli/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
PY=/usr/bin/python3
"$PY" -c 'import mpi4py.MPI' 2>/dev/null || { echo "SKIP: $PY cannot import mpi4py (Debian python3-mpi4py)"; exit 77; }
T=$IOLENS_TMP
cat >"$T/prog.py" <<'PYEOF'
import sys
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_WRONLY)
fh.Write_at_all(rank * 4096, bytes([65 + rank]) * 4096)
fh.Close()
with open(sys.argv[2] + "." + str(rank), "w") as f:
    f.write("%d %d\n" % (rank, size))
PYEOF
expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np 2 "$IOLENS" trace -o "$T/py.trace" -- "$PY" "$T/prog.py" "$T/data" "$T/out"
# the program did what it does untraced
[ "$(cat "$T/out.0" "$T/out.1" | tr '\n' ' ')" = "0 2 1 2 " ] && ok || fail "ranks saw another world"
[ "$(head -c 4096 "$T/data" | tr -d A | wc -c)" -eq 0 ] && [ "$(tail -c 4096 "$T/data" | tr -d B | wc -c)" -eq 0 ] && \
  [ "$(stat -c %s "$T/data")" -eq 8192 ] && ok || fail "the MPI-IO file is not what the program wrote"
expect_rc 0 "$IOLENS" trace --print "$T/py.trace"
for r in 0 1; do
  expect_grep "MPI_Init_thread(rank=$r, size=2)" "$T/out"
done
[ "$(grep -c 'MPI_File_write_at_all' "$T/out")" -eq 2 ] && ok || fail "not one MPI_File_write_at_all per rank"
expect_grep "MPI_File_open(.*$T/data" "$T/out"
# the preload form: rank 0 builds the trace at MPI_Finalize (needs MPI_COMM_WORLD)
rm -f "$T/data"
expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np 2 -x LD_PRELOAD="$IOLENS_SHIM" -x IOLENS_TRACE_OUT="$T/pre.trace" \
  "$PY" "$T/prog.py" "$T/data" "$T/out"
[ -f "$T/pre.trace" ] && ok || fail "no trace built at MPI_Finalize"
expect_rc 0 "$IOLENS" trace --print "$T/pre.trace"
[ "$(grep -c 'MPI_File_write_at_all' "$T/out")" -eq 2 ] && ok || fail "preload: not one MPI_File_write_at_all per rank"
finish
