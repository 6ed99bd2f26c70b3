# iolens corpus on a tiny subset (3 scenarios x 2 variants, small counts): rows produced, labels as
# in sweeps.tsv, counters that match the configs, reproducible for a seed; train/eval --corpus.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data iosage/sweeps.tsv
skip_unless_data iosage/dev_features.csv
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing"; exit 77; }
"$IOLENS" replay --help | grep -q 'MPI-IO back end: yes' || { echo "SKIP: iolens built without MPI"; exit 77; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the shim is preloaded into sanitized programs; Open MPI keeps its allocations until exit
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:handle_segv=0:detect_leaks=0"
SW="$IOLENS_SHARED_DATA/iosage/sweeps.tsv"
ONLY='ior_small_posix,mdtest_healthy,h5b_indep_small'
A="$IOLENS_TMP/a" B="$IOLENS_TMP/b" C="$IOLENS_TMP/c"

expect_rc 0 "$IOLENS" corpus --help
expect_grep '^usage: iolens corpus' "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" corpus -o "$IOLENS_TMP/x" --scratch /dev/shm --only ior_small_posix
expect_grep 'Darshan excludes' "$IOLENS_TMP/err"
expect_rc 1 "$IOLENS" corpus -o "$IOLENS_TMP/x" --only 'no_such_scenario*'
expect_grep 'no scenario config' "$IOLENS_TMP/err"
expect_rc 2 "$IOLENS" corpus --variants 0

# the corpus: 6 runs, 6 rows
expect_rc 0 "$IOLENS" corpus -o "$A" --seed 7 --variants 2 --scale 0.5 --only "$ONLY" --scratch "$IOLENS_TMP"
expect_grep '6 runs of 3 scenarios (seed 7, 2 variants, scale 0.5): 6 rows, 0 failed' "$IOLENS_TMP/out"
[ "$(wc -l <"$A/features.csv")" -eq 7 ] && [ "$(wc -l <"$A/labels.csv")" -eq 7 ] && [ "$(wc -l <"$A/manifest.csv")" -eq 7 ] \
  && ok || fail "row counts"
[ "$(head -1 "$A/features.csv" | tr ',' '\n' | grep -vc '^_')" -eq 171 ] && ok || fail "171 feature columns (IOSage's 157 and 14 iol_*)"
head -1 "$A/labels.csv" | grep -q '^job_id,benchmark,scenario,n_ranks,n_darshan_files,label_source,access_granularity,metadata_intensity,parallelism_efficiency,access_pattern,interface_choice,file_strategy,throughput_utilization,healthy$' \
  && ok || fail "labels header is that of dev_labels.csv"
[ -z "$(ls "$IOLENS_TMP" | grep iolens-corpus-)" ] && ok || fail "run folders left behind"

# column of a CSV by header name: col FILE NAME
col() { awk -F, -v n="$2" 'NR==1 {for (i = 1; i <= NF; i++) if ($i == n) c = i; next} {print $c}' "$1"; }
# labels: every row carries its scenario's label_by_construction of sweeps.tsv
bad=0
for s in ior_small_posix mdtest_healthy h5b_indep_small; do
  want=$(awk -F'\t' -v s="$s" '$2 == s {print $3}' "$SW")
  [ -n "$want" ] || { fail "$s not in sweeps.tsv"; continue; }
  for l in access_granularity metadata_intensity parallelism_efficiency access_pattern interface_choice file_strategy throughput_utilization healthy; do
    exp=0; case "+$want+" in *"+$l+"*) exp=1 ;; esac
    got=$(paste -d, <(col "$A/labels.csv" scenario) <(col "$A/labels.csv" $l) | awk -F, -v s="$s" '$1 ~ "^"s"_r[0-9]+$" {print $2}' | sort -u)
    [ "$got" = "$exp" ] || { bad=1; echo "  $s $l: got '$got' want $exp" >&2; }
  done
done
[ "$bad" -eq 0 ] && ok || fail "labels differ from sweeps.tsv"

# the counters come from the runs: nprocs = the manifest's ranks, bytes as configured
[ "$(col "$A/features.csv" nprocs | tr '\n' ' ')" = "$(col "$A/manifest.csv" ranks | tr '\n' ' ')" ] && ok || fail "nprocs vs ranks"
for r in 1 2; do
  cfg="$A/configs/ior_small_posix_r$r.json"
  t=$(jq '.file_configs[0].chunks[0].transfer_size' "$cfg")
  n=$(jq '.file_configs[0].chunks[0].repetitions' "$cfg")
  np=$(jq '.nranks' "$cfg")
  row=$(grep -n ",ior_small_posix_r$r,ior_small_posix," "$A/features.csv" | cut -d: -f1)
  w=$(col "$A/features.csv" POSIX_BYTES_WRITTEN | sed -n "$((row - 1))p")
  rd=$(col "$A/features.csv" POSIX_BYTES_READ | sed -n "$((row - 1))p")
  sm=$(col "$A/features.csv" POSIX_SIZE_WRITE_100_1K | sed -n "$((row - 1))p")
  [ "$w" = "$((t * n * np))" ] && [ "$rd" = "$w" ] && [ "$sm" = "$((n * np))" ] && ok \
    || fail "ior_small_posix_r$r: written $w read $rd small $sm, want $((t * n * np)) bytes of $((n * np)) writes"
done
# h5b_indep_small goes through MPI-IO, independently
for r in 1 2; do
  row=$(grep -n ",h5b_indep_small_r$r,h5b_indep_small," "$A/features.csv" | cut -d: -f1)
  iw=$(col "$A/features.csv" MPIIO_INDEP_WRITES | sed -n "$((row - 1))p")
  cw=$(col "$A/features.csv" MPIIO_COLL_WRITES | sed -n "$((row - 1))p")
  [ "$iw" -gt 0 ] && [ "$cw" = 0 ] && ok || fail "h5b_indep_small_r$r: independent $iw, collective $cw"
done
# the replay's bookkeeping stays out of the counters: h5b_indep_small's only POSIX file is its
# shared .h5 (no record for the replay root, its mkdir or dups, no OMPIO lock-test or /tmp/ompi.*
# files), the config file is not read through stdio; IOR's POSIX back end seeks before each transfer
for r in 1 2; do
  row=$(grep -n ",h5b_indep_small_r$r,h5b_indep_small," "$A/features.csv" | cut -d: -f1)
  sh=$(col "$A/features.csv" is_shared_file | sed -n "$((row - 1))p")
  [ "$sh" = 1 ] && ok || fail "h5b_indep_small_r$r: is_shared_file $sh, want 1 (one POSIX file)"
  row=$(grep -n ",ior_small_posix_r$r,ior_small_posix," "$A/features.csv" | cut -d: -f1)
  v() { col "$A/features.csv" "$1" | sed -n "$((row - 1))p"; }
  [ "$(v POSIX_SEEKS)" = "$(( $(v POSIX_READS) + $(v POSIX_WRITES) ))" ] && [ "$(v POSIX_DUPS)" = 0 ] && \
    [ "$(v STDIO_OPENS)" = 0 ] && ok || fail "ior_small_posix_r$r: seeks $(v POSIX_SEEKS) reads $(v POSIX_READS) \
writes $(v POSIX_WRITES) dups $(v POSIX_DUPS) stdio opens $(v STDIO_OPENS)"
done
[ "$(col "$A/manifest.csv" status | sort -u)" = ok ] && ok || fail "manifest status"
awk -F, 'NR > 1 && !($14 > 0 && $13 > 0) {exit 1}' "$A/manifest.csv" && ok || fail "manifest run time / trace size"

# reproducible: the same seed gives the same configs and the same non-timing features
# (a sanitizer build: the POSIX scenario alone; the release build also reruns the HDF5 one)
again="ior_small_posix h5b_indep_small"; [ -n "${IOLENS_SANITIZED:-}" ] && again=ior_small_posix
expect_rc 0 "$IOLENS" corpus -o "$B" --seed 7 --variants 2 --scale 0.5 --only "$(echo $again | tr ' ' ,)" --scratch "$IOLENS_TMP"
for f in $(for x in $again; do echo "${x}_r1 ${x}_r2"; done); do
  cmp -s "$A/configs/$f.json" "$B/configs/$f.json" && ok || fail "config $f differs between runs of one seed"
done
# timing-derived features (documented in docs/detect.md) are left out of the comparison
TIMING='runtime_seconds|.*_F_.*|.*(FASTEST|SLOWEST)_RANK.*|.*_TIME_SIZE|.*_bw_mb_s|metadata_time_ratio|read_time_fraction|write_time_fraction|time_imbalance|byte_imbalance|io_duration|io_active_fraction'
keep=$(head -1 "$A/features.csv" | tr ',' '\n' | grep -n . | grep -vE "^[0-9]+:($TIMING)\$" | grep -v ':_' | cut -d: -f1 | paste -sd,)
[ "$(echo "$keep" | tr ',' '\n' | wc -l)" -gt 120 ] && ok || fail "too few non-timing features: $keep"
sel() { grep -E ",($(echo $again | tr ' ' '|'))_r[12]," "$1" | cut -d, -f"$keep" | sort; }
[ "$(sel "$A/features.csv")" = "$(sel "$B/features.csv")" ] && ok || {
  fail "non-timing features differ between runs of one seed"
  diff <(sel "$A/features.csv" | tr ',' '\n') <(sel "$B/features.csv" | tr ',' '\n') | head -5 >&2; }
# another seed gives other variants (variant 1 is the example config itself)
expect_rc 0 "$IOLENS" corpus -o "$C" --seed 8 --variants 3 --only 'ior_small_posix' --dry-run
expect_grep 'planned 3 runs of 1 scenarios' "$IOLENS_TMP/out"
cmp -s "$C/configs/ior_small_posix_r1.json" "$B/configs/ior_small_posix_r1.json" && fail "scale 1 vs 0.5 give one config" || ok
[ "$(col "$C/manifest.csv" status | sort -u)" = planned ] && ok || fail "dry run statuses"
n_ior=$(ls "$IOLENS_SOURCE_DIR"/examples/replay/sweeps/ior_*.json | grep -vc -e ior_boost_ -e ior_e2e_)
expect_rc 0 "$IOLENS" corpus -o "$IOLENS_TMP/d" --only 'ior_*' --exclude 'ior_boost_*,ior_e2e_*' --variants 1 --dry-run
expect_grep "planned $n_ior runs of $n_ior scenarios" "$IOLENS_TMP/out"
[ ! -e "$C/features.csv" ] || [ "$(wc -l <"$C/features.csv")" -eq 1 ] && ok || fail "dry run wrote rows"

# --ranks sweep: the sweep's rank counts (sweeps.tsv, "_sweep_ranks"), at most --max-ranks; per-rank
# counts shrink by config ranks / ranks; load_imbalance's "others" list gains the added ranks
S="$IOLENS_TMP/s"
expect_rc 0 "$IOLENS" corpus -o "$S" --seed 1 --variants 3 --ranks sweep --max-ranks 32 \
    --only 'ior_interface_posix_shared,custom_balanced_mb50,ior_small_posix' --dry-run
python3 - "$S" "$IOLENS_SOURCE_DIR/examples/replay/sweeps" <<'PY' && ok || fail "--ranks sweep configs"
import csv, json, sys
out, src = sys.argv[1], sys.argv[2]
for r in csv.DictReader(open(f"{out}/manifest.csv")):
    base = json.load(open(f"{src}/{r['scenario']}.json"))
    cfg = json.load(open(f"{out}/{r['config']}"))
    allowed = [n for n in base["_sweep_ranks"] if n <= 32]
    n = cfg["nranks"]
    assert "_sweep_ranks" not in cfg, r["run"]
    assert n in allowed and (r["variant"] != "1" or n == allowed[0]), (r["run"], n, allowed)
    assert int(r["ranks"]) == n
    if r["scenario"] == "ior_interface_posix_shared" and r["variant"] == "1":
        # 16 ranks for the config's 4: a quarter of the repetitions per rank, in whole segments
        b = base["file_configs"][0]["chunks"][0]["repetitions"]
        seg = base["file_configs"][0]["block_size"] // base["file_configs"][0]["chunks"][0]["transfer_size"]
        assert cfg["file_configs"][0]["chunks"][0]["repetitions"] == max(seg, round(b / 4 / seg) * seg), r["run"]
    for st in cfg["file_configs"]:
        for ch in st.get("chunks", []):
            if "ranks" in ch:
                for e in ch["ranks"]:
                    assert e["rank"] < n
    if r["scenario"].startswith("custom_"):
        for st in cfg["file_configs"]:
            if st["method"] in ("write", "read"):
                others = st["chunks"][0]["ranks"]
                assert sorted(e["rank"] for e in others) == list(range(1, n)), (r["run"], others)
PY
# the local policy ignores "_sweep_ranks": the configs of data/corpus, same hashes
expect_rc 0 "$IOLENS" corpus -o "$IOLENS_TMP/l" --seed 1 --ranks local --only 'ior_small_posix,mdtest_healthy' --dry-run
[ "$(col "$IOLENS_TMP/l/manifest.csv" config_fnv1a)" = \
  "$(grep -e '^ior_small_posix_r' -e '^mdtest_healthy_r' "$IOLENS_SOURCE_DIR/data/corpus/manifest.csv" | cut -d, -f11)" ] &&
  ok || fail "--ranks local: not the configs of data/corpus"

# training and held-out evaluation with the corpus as the third kind of rows
expect_rc 0 "$IOLENS" train --trees 10 --corpus "$A" --corpus-weight 5 -o "$IOLENS_TMP/m"
expect_grep '6 local corpus rows at weight 5 (timing features missing)' "$IOLENS_TMP/m/meta.json"
expect_rc 0 "$IOLENS" train --trees 10 --corpus "$A" --corpus-timing -o "$IOLENS_TMP/m2"
expect_grep 'local corpus rows at weight 100 (timing features kept)' "$IOLENS_TMP/m2/meta.json"
expect_rc 0 "$IOLENS" eval --trees 10 --folds 3 --bootstrap 20 --corpus "$A" --score corpus --json
expect_grep '"scored": "corpus"' "$IOLENS_TMP/out"
expect_grep '"rows": 6' "$IOLENS_TMP/out"
expect_grep '"groups": 3' "$IOLENS_TMP/out"
expect_grep '"dev_rows": 201' "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" eval --score corpus
expect_rc 0 "$IOLENS" eval --trees 5 --folds 3 --bootstrap 20 --corpus "$A" --corpus-timing --score corpus
expect_rc 0 "$IOLENS" eval --trees 5 --folds 3 --bootstrap 20 --corpus "$A" --json
expect_grep '"scored": "dev"' "$IOLENS_TMP/out"
expect_grep '"rows": 201' "$IOLENS_TMP/out"
expect_grep '"corpus_rows": 6' "$IOLENS_TMP/out"
finish
