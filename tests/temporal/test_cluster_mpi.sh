#!/bin/bash
# `mpirun -np N iolens cluster`: the ranks share each series' work (genomes, the assignment of
# every series) and the result is byte for byte the one of a single process, for every method,
# at 2 and 3 ranks (one rank's share then has more series than another's), and DTW at 2.
. "$(dirname "$0")/../cli/lib.sh"
T=$IOLENS_TMP
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# (301 series; a sanitizer build 101: three ranks still get shares of unequal size)
n=${CLUSTER_MPI_SERIES:-301}
expect_rc 0 "$IOLENS" cluster --synth "$n" --length 100-200 --seed 11 -o "$T/syn.csv"
same() { # same DIR1 DIR2: every output but the timings
  local bad=""
  for f in "$1"/*; do
    b=$(basename "$f")
    case $b in metrics.csv | metrics.json) grep -v '^time_s' "$f" | grep -v '"time_s"' >"$T/a"; grep -v '^time_s' "$2/$b" | grep -v '"time_s"' >"$T/b" ;;
      *) cp "$f" "$T/a"; cp "$2/$b" "$T/b" ;;
    esac
    cmp -s "$T/a" "$T/b" || bad="$bad $b"
  done
  [ -z "$bad" ] && ok || fail "$3: differs from one process:$bad"
}
# (a sanitizer build: SAGE-2 and K-shape, whose shares differ most, at 3 ranks, whose shares are
# uneven; the release build runs all four at 2 and 3)
methods="sage sage2 kmeans kshape" nps="2 3"
[ -n "${IOLENS_SANITIZED:-}" ] && methods="sage2 kshape" nps=3
for m in $methods; do
  expect_rc 0 "$IOLENS" cluster --method $m --threads 2 --seed 5 -o "$T/one_$m" "$T/syn.csv"
  for np in $nps; do
    expect_rc 0 mpirun -np $np "$IOLENS" cluster --method $m --threads 1 --seed 5 -o "$T/mpi${np}_$m" "$T/syn.csv"
    same "$T/one_$m" "$T/mpi${np}_$m" "$m at $np ranks"
  done
done
# DTW (its k-means++ and every assignment shared) on a set it can do in seconds
expect_rc 0 "$IOLENS" cluster --synth 80 --length 60-90 --seed 12 -o "$T/small.csv"
expect_rc 0 "$IOLENS" cluster --method dtw --k 4 --seed 5 --resample 60 -o "$T/one_dtw" "$T/small.csv"
expect_rc 0 mpirun -np 2 "$IOLENS" cluster --method dtw --k 4 --threads 1 --seed 5 --resample 60 -o "$T/mpi2_dtw" "$T/small.csv"
same "$T/one_dtw" "$T/mpi2_dtw" "dtw at 2 ranks"
# the first rank alone writes the summary (a sanitizer build: this job's leaks are scanned)
expect_rc 0 env IOLENS_MPI_LEAKS=1 mpirun -np 2 "$IOLENS" cluster --method sage --seed 5 --no-metrics "$T/syn.csv"
[ "$(grep -c "^method sage: $n traces" "$T/out")" -eq 1 ] && ok || fail "summary lines: $(grep -c '^method' "$T/out")"
[ "$(grep -c 'series read' "$T/err")" -eq 1 ] && ok || fail "the other ranks spoke too"
# an error on every rank ends the job with it
expect_rc 1 mpirun -np 2 "$IOLENS" cluster "$T/does-not-exist.csv"
expect_grep "cannot open" "$T/err"
finish
