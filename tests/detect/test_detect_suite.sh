# Real programs of the detection suite (bench/detect/suite), run afresh: (1) one run of a job per
# pattern gets the detected set its labels say; (2) ten runs of each of five programs (fio, dd,
# tar, an mpi4py MPI-IO program, h5py) give identical detected sets.
. "$(dirname "$0")/../cli/lib.sh"
S=$IOLENS_SOURCE_DIR/bench/detect/suite
T=$IOLENS_TMP
for need in fio tar dd mpirun; do
  command -v "$need" >/dev/null || { echo "skip: needs $need (scripts/install-deps.sh installs it)"; finish; exit; }
done
/usr/bin/python3 -c 'import h5py, mpi4py' 2>/dev/null || { echo "skip: needs python3-h5py-mpi, python3-mpi4py"; finish; exit; }
export IOLENS TMPDIR=$T
# detected SETS: one line per row of DIR/features.csv: scenario,detected (sorted, "healthy" when none)
sets() {
  "$IOLENS" detect --features "$1/features.csv" --csv >"$1/pred.csv" || return 1
  /usr/bin/python3 - "$1" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/features.csv"))); pred = list(csv.DictReader(open(d + "/pred.csv")))
labels = {r["scenario"]: r for r in csv.DictReader(open(d + "/labels.csv"))}
pats = ["access_granularity", "metadata_intensity", "parallelism_efficiency", "access_pattern",
        "interface_choice", "file_strategy", "throughput_utilization"]
for r, p in zip(rows, pred):
    got = ";".join(sorted(filter(None, p["detected"].split(";")))) or "healthy"
    want = ";".join(sorted(x for x in pats if labels[r["_scenario"]][x] == "1")) or "healthy"
    print(r["_config"], got, want)
PY
}
# (1) a job per pattern, once
one='^(fio_write_1m|fio_randwrite_4k|fio_fsync_1m|fio_shared_write_1m_4jobs|fio_imbalance_2jobs|fio_create_2000|fio_explosion_2jobs|dd_4k|tar_x_empty|ls_long_2000|mpiio_indep_4k_4|mpiio_coll_1m_4|h5py_mpio_indep_4k_4)$'
if bash "$S/run.sh" -o "$T/one" --only "$one" >"$T/one.log" 2>&1 && sets "$T/one" >"$T/one.sets"; then
  [ "$(wc -l <"$T/one.sets")" -eq 13 ] && ok || fail "13 runs expected: $(cat "$T/one.log")"
  while read -r name got want; do
    [ "$got" = "$want" ] && ok || fail "$name: detected $got, its configuration induces $want"
  done <"$T/one.sets"
else
  fail "suite runs failed: $(tail -5 "$T/one.log")"
fi
# (2) ten runs each of five programs
rep='^(fio_shared_write_4k_4jobs|dd_4k|tar_c_small|mpiio_rand_4k_4|h5py_mpio_indep_4k_4)$'
if bash "$S/run.sh" -o "$T/rep" --only "$rep" --repeat "${DETECT_REPEAT_RUNS:-10}" >"$T/rep.log" 2>&1 &&
   sets "$T/rep" >"$T/rep.sets"; then
  [ "$(wc -l <"$T/rep.sets")" -eq $((5 * ${DETECT_REPEAT_RUNS:-10})) ] && ok || fail "runs missing: $(tail -3 "$T/rep.log")"
  for name in $(cut -d' ' -f1 "$T/rep.sets" | sort -u); do
    n=$(awk -v n="$name" '$1 == n {print $2}' "$T/rep.sets" | sort -u | wc -l)
    [ "$n" -eq 1 ] && ok || fail "$name: detected sets differ over repeated runs: $(awk -v n="$name" '$1 == n {print $2}' "$T/rep.sets" | sort | uniq -c | tr '\n' ' ')"
    echo "$name: $(awk -v n="$name" '$1 == n {print $2; exit}' "$T/rep.sets")"
  done
else
  fail "repeated suite runs failed: $(tail -5 "$T/rep.log")"
fi
finish
