# Determinism on real programs: three traced runs of each of five programs give the same
# detected set (dd with 4 KiB and 1 MiB blocks, tar over many small files, an fsync-per-write
# program, and a 4-rank MPI-IO program; more runs: DETECT_REPEAT_RUNS=10, or the suite's
# bench/detect/suite/check.sh --repeat 10).
. "$(dirname "$0")/../cli/lib.sh"
: "${PROGRAMS:?}"
T=$IOLENS_TMP
mkdir -p "$T/src"
for i in $(seq 1 200); do printf 'file %d\n' "$i" >"$T/src/f$i.txt"; done
runs=${DETECT_REPEAT_RUNS:-3}
check() { # check NAME CMD...: the detected sets of $runs traced runs are all the same
  local name=$1; shift
  rm -f "$T/sets"
  for k in $(seq 1 "$runs"); do
    rm -rf "$T/w"; mkdir -p "$T/w"
    if ! "$@" >/dev/null 2>"$T/err"; then fail "$name run $k failed"; head -3 "$T/err" >&2; return; fi
    "$IOLENS" detect --json "$T/run.trace" 2>/dev/null |
      /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print(",".join(sorted(p["pattern"] for p in d["detected"])) or "none")' >>"$T/sets"
  done
  [ "$(wc -l <"$T/sets")" -eq "$runs" ] && [ "$(sort -u "$T/sets" | wc -l)" -eq 1 ] && ok ||
    fail "$name: detected sets differ over $runs runs: $(sort "$T/sets" | uniq -c | tr '\n' ' ')"
  echo "$name: $(head -1 "$T/sets")"
}
check dd-4k "$IOLENS" trace -o "$T/run.trace" -- dd if=/dev/zero of="$T/w/x" bs=4k count=2000 status=none
check dd-1m "$IOLENS" trace -o "$T/run.trace" -- dd if=/dev/zero of="$T/w/x" bs=1M count=32 status=none
check tar "$IOLENS" trace -o "$T/run.trace" -- tar -cf "$T/w/a.tar" -C "$T/src" .
check fsync "$IOLENS" trace -o "$T/run.trace" -- "$PROGRAMS" fsync "$T/w" 200
if command -v mpirun >/dev/null && command -v mpicc >/dev/null &&
   mpicc -O1 -o "$T/mpiprog" "$IOLENS_SOURCE_DIR/tests/replay/otf_mpi_prog.c" 2>/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  check mpiio-4 mpirun --oversubscribe -np 4 "$IOLENS" trace -o "$T/run.trace" -- "$T/mpiprog" "$T/w" 3
else
  echo "skip: the MPI program needs mpirun and mpicc"
fi
finish
