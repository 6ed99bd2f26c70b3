# Real programs of the detection suite (bench/detect/suite), run afresh and diagnosed from their
# traces with `iolens detect` (bench/detect/suite/check.sh): (1) a sample of the suite, every
# pattern and every program in it twice or more: no presented pattern's card contradicts the
# run's counters, and the detected set is the one its configuration induces (the shipped models
# were trained on these configurations: a regression check; the whole suite is the bench's,
# `check.sh` with no --only, and the held-out figures are eval.sh's); (2) two runs each of three
# programs (fio, an mpi4py MPI-IO program, h5py; cli_detect_repeat repeats dd, tar and others)
# give one detected set (ten runs each: `check.sh --repeat 10 --only ...`).
. "$(dirname "$0")/../cli/lib.sh"
S=$IOLENS_SOURCE_DIR/bench/detect/suite
T=$IOLENS_TMP
for need in fio tar dd split sqlite3 mpirun find du; do
  command -v "$need" >/dev/null || { echo "skip: needs $need (scripts/install-deps.sh installs it)"; finish; }
done
/usr/bin/python3 -c 'import h5py, mpi4py' 2>/dev/null || { echo "skip: needs python3-h5py-mpi, python3-mpi4py"; finish; }
export IOLENS
mkdir -p "$T/scratch"
# (1) the sample
sample='^(dd_4k|dd_1m|dd_parallel_imbalance|dd_parallel_shared|find_2000|tar_c_small|tar_x_small|sqlite_wal|'
sample+='split_1m_parts|fio_fsync_1m|fio_randwrite_1m|fio_shared_write_4k_4jobs|fio_imbalance_2jobs|'
sample+='fio_explosion_4jobs|mpiio_rand_1m_2|mpiio_sync_1m_2|h5py_rows_4k|h5py_random_slabs_1m)$'
want=$(grep -v '^#' "$S/suite.tsv" | cut -f1 | grep -cE "$sample")
if bash "$S/check.sh" -o "$T/all" --scratch "$T/scratch" --only "$sample" >"$T/all.log" 2>&1; then
  cat "$T/all.log"
  n=$(wc -l <"$T/all/runs.txt")
  [ "$n" -eq "$want" ] && ok || fail "$n of $want suite runs diagnosed"
  awk '$5 != "-" {print}' "$T/all/runs.txt" >"$T/contradict"
  [ ! -s "$T/contradict" ] && ok || fail "cards contradict the counters: $(tr '\n' ';' <"$T/contradict")"
  awk '$3 != $4 {print $1 ": detected " $3 ", configuration " $4}' "$T/all/runs.txt" >"$T/differ"
  # at most one fresh run may differ (the whole suite: 96 of 96 matched when the models shipped)
  [ "$(wc -l <"$T/differ")" -le 1 ] && ok || fail "$(wc -l <"$T/differ") sample runs differ from their labels: $(tr '\n' ';' <"$T/differ")"
else
  fail "suite runs failed: $(tail -5 "$T/all.log")"
fi
# (2) two runs each of three programs
rep='^(fio_shared_write_4k_4jobs|mpiio_rand_4k_4|h5py_mpio_indep_4k_4)$'
runs=${DETECT_REPEAT_RUNS:-2}
if bash "$S/check.sh" -o "$T/rep" --scratch "$T/scratch" --only "$rep" --repeat "$runs" >"$T/rep.log" 2>&1; then
  [ "$(wc -l <"$T/rep/runs.txt")" -eq $((3 * runs)) ] && ok || fail "runs missing: $(tail -3 "$T/rep.log")"
  grep '^summary: .*differ over' "$T/rep.log" >"$T/rep.differ" || true
  [ ! -s "$T/rep.differ" ] && ok || fail "$(cat "$T/rep.differ")"
  for name in $(cut -d' ' -f1 "$T/rep/runs.txt" | sort -u); do
    echo "$name: $(awk -v n="$name" '$1 == n {print $3}' "$T/rep/runs.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
  done
else
  fail "repeated suite runs failed: $(tail -5 "$T/rep.log")"
fi
finish
