# MPI-IO under iolens trace at 1, 2 and 4 ranks: the decoded trace of every
# rank equals the rank's own log (depth-0 calls), and the trace is one file.
. "$(dirname "$0")/../cli/lib.sh"
# where in its page a transfer's buffer starts (buf=page+N) is not in the probes' logs
nobuf() { sed 's/, buf=page+[0-9]*//'; }
: "${TRACE_MPI_PROBE:?}"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
T=$IOLENS_TMP
for n in 1 2 4; do
  rm -rf "$T/d" "$T/logs" "$T/mpi$n.trace"*; mkdir -p "$T/d" "$T/logs"
  # what a killed earlier run leaves (the folder name of older versions, a rank's done mark): never counted in
  mkdir -p "$T/mpi$n.trace.spill"; : >"$T/mpi$n.trace.spill/done.0"
  expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np $n "$IOLENS" trace -o "$T/mpi$n.trace" -- "$TRACE_MPI_PROBE" "$T/logs" "$T/d"
  [ -f "$T/mpi$n.trace" ] && ok || fail "no trace at $n ranks"
  [ -z "$(ls -d "$T/mpi$n.trace.spill."* 2>/dev/null)" ] && ok || fail "spill folder left behind at $n ranks"
  [ -e "$T/mpi$n.trace.spill/done.0" ] && ok || fail "an earlier run's spill folder was touched"
  rm -rf "$T/mpi$n.trace.spill"
  expect_rc 0 "$IOLENS" trace --info "$T/mpi$n.trace" --json
  expect_grep "\"processes\": $n" "$T/out"
  cp "$T/out" "$T/info$n.json"
  for r in $(seq 0 $((n - 1))); do
    "$IOLENS" trace --print "$T/mpi$n.trace" --rank $r | nobuf | awk '$5 == 0 && $6 ~ /^MPI_/' | cut -d' ' -f6- >"$T/got"
    if cmp -s "$T/logs/log.$r" "$T/got"; then ok; else fail "rank $r of $n: trace differs from the log"; diff "$T/logs/log.$r" "$T/got" | head -10 >&2; fi
  done
  # MPI-IO's own POSIX calls are recorded inside the MPI-IO calls (depth 1)
  "$IOLENS" trace --print "$T/mpi$n.trace" | nobuf | awk '$5 == 1' | grep -q 'mpi.dat' && ok || fail "no depth-1 POSIX calls at $n ranks"
done
# Without the wrapper: mpirun -x LD_PRELOAD=shim -x IOLENS_TRACE_OUT=TRACE app; rank 0 builds the one
# trace file at MPI_Finalize (after a barrier) and removes the spill folder.
for n in 1 2 4; do
  rm -rf "$T/d" "$T/logs" "$T/pre$n.trace"*; mkdir -p "$T/d" "$T/logs"
  expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np $n -x LD_PRELOAD="$IOLENS_SHIM" -x IOLENS_TRACE_OUT="$T/pre$n.trace" \
    "$TRACE_MPI_PROBE" "$T/logs" "$T/d"
  expect_grep "wrote '$T/pre$n.trace': [0-9]* calls of $n process(es)" "$T/err"
  [ -f "$T/pre$n.trace" ] && ok || fail "no trace built at MPI_Finalize at $n ranks"
  ls -d "$T/pre$n.trace.spill"* >/dev/null 2>&1 && fail "spill folder left behind (preload, $n ranks)" || ok
  for r in $(seq 0 $((n - 1))); do
    "$IOLENS" trace --print "$T/pre$n.trace" --rank $r | nobuf | awk '$5 == 0 && $6 ~ /^MPI_/' | cut -d' ' -f6- >"$T/got"
    if cmp -s "$T/logs/log.$r" "$T/got"; then ok; else fail "preload rank $r of $n: trace differs from the log"; diff "$T/logs/log.$r" "$T/got" | head -10 >&2; fi
  done
  # the same application calls as under the wrapper (MPI-IO's own depth-1 calls name per-job files)
  # (not the polling calls, whose number depends on timing)
  "$IOLENS" trace --print "$T/pre$n.trace" | nobuf | awk '$5 == 0 && $6 !~ /^MPI_(Test|Waitany|Waitsome)/' | cut -d' ' -f1,2,6- >"$T/a"
  "$IOLENS" trace --print "$T/mpi$n.trace" | nobuf | awk '$5 == 0 && $6 !~ /^MPI_(Test|Waitany|Waitsome)/' | cut -d' ' -f1,2,6- >"$T/b"
  cmp -s "$T/a" "$T/b" && ok || fail "preload and wrapper traces differ at $n ranks"
done
# a relative IOLENS_TRACE_OUT is the launch folder's; only MPI-IO traced (--layers): still built
rm -rf "$T/d" "$T/logs"; mkdir -p "$T/d" "$T/logs"
(cd "$T" && mpirun --oversubscribe --allow-run-as-root -np 2 -x LD_PRELOAD="$IOLENS_SHIM" -x IOLENS_TRACE_OUT=rel.trace \
  -x IOLENS_LAYERS=mpiio "$TRACE_MPI_PROBE" "$T/logs" "$T/d" >/dev/null 2>&1)
expect_rc 0 "$IOLENS" trace --print "$T/rel.trace"
[ "$(awk '$6 !~ /^MPI_/' "$T/out" | wc -l)" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq "$(cat "$T"/logs/log.* | wc -l)" ] && ok || fail "--layers mpiio trace has other calls"

# MPI_Init_thread (MPI_THREAD_MULTIPLE) at 2 ranks
rm -rf "$T/d" "$T/logs"; mkdir -p "$T/d" "$T/logs"
expect_rc 0 mpirun --oversubscribe --allow-run-as-root -np 2 "$IOLENS" trace -o "$T/thr.trace" -- "$TRACE_MPI_PROBE" "$T/logs" "$T/d" thread
for r in 0 1; do
  "$IOLENS" trace --print "$T/thr.trace" --rank $r | nobuf | awk '$5 == 0 && $6 ~ /^MPI_/' | cut -d' ' -f6- >"$T/got"
  if cmp -s "$T/logs/log.$r" "$T/got"; then ok; else fail "MPI_Init_thread rank $r: trace differs from the log"; diff "$T/logs/log.$r" "$T/got" | head -10 >&2; fi
done
# MPI_Abort: the job fails as it would untraced, and the trace is written and readable
rm -rf "$T/d" "$T/abort.trace"; mkdir -p "$T/d"
timeout 120 mpirun --oversubscribe --allow-run-as-root -np 2 "$IOLENS" trace -o "$T/abort.trace" -- "$TRACE_MPI_PROBE" "$T/logs" "$T/d" abort >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && ok || fail "MPI_Abort run: exit $rc"
expect_rc 0 "$IOLENS" trace --print "$T/abort.trace"
[ "$(grep -c 'pwrite(' "$T/out")" -ge 50 ] && ok || fail "MPI_Abort trace lost rank 0's writes"
# MPI_Abort without the wrapper: no MPI_Finalize, so the spill folder stays and is built afterwards
rm -rf "$T/d" "$T/pab.trace"*; mkdir -p "$T/d"
timeout 120 mpirun --oversubscribe --allow-run-as-root -np 2 -x LD_PRELOAD="$IOLENS_SHIM" -x IOLENS_TRACE_OUT="$T/pab.trace" \
  "$TRACE_MPI_PROBE" "$T/logs" "$T/d" abort >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && ok || fail "MPI_Abort run (preload): exit $rc"
spill=$(ls -d "$T/pab.trace.spill"* 2>/dev/null | head -1)
[ -n "$spill" ] && ok || fail "no spill folder after MPI_Abort (preload)"
expect_rc 0 "$IOLENS" trace --build "$spill" -o "$T/pab.trace" --remove-spill
[ ! -e "$spill" ] && ok || fail "--remove-spill left the folder"
expect_rc 0 "$IOLENS" trace --print "$T/pab.trace"
[ "$(grep -c 'pwrite(' "$T/out")" -ge 50 ] && ok || fail "MPI_Abort trace (preload) lost rank 0's writes"
finish
