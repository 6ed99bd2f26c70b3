# iolens place on synthetic traces of known classes (cluster output in the
# `iolens cluster -o` format) and on the real Darshan heatmap series.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
: "${PLACE_SYNTH:?}"
T=$IOLENS_TMP

expect_rc 0 "$IOLENS" place --help
expect_grep 'usage: iolens place' "$T/out"
expect_rc 2 "$IOLENS" place
expect_grep 'traces is required' "$T/err"
expect_rc 2 "$IOLENS" place --traces x --osts 0
expect_rc 2 "$IOLENS" place --traces x --loads 1,,x
expect_rc 2 "$IOLENS" place --traces x --policy best
expect_rc 2 "$IOLENS" place --traces x --schedule --policy cluster
expect_rc 2 "$IOLENS" place --traces x --bogus 1
expect_rc 1 "$IOLENS" place --traces "$T/missing.csv"
expect_grep "iolens: error: cannot" "$T/err"

# Synthetic traces of three known classes.
mkdir -p "$T/syn"
"$PLACE_SYNTH" "$T/syn" 90 11 || fail "place_synth"
expect_rc 0 "$IOLENS" place --traces "$T/syn/traces.csv" --step 10 --clusters "sage=$T/syn" \
  --jobs 80 --loads 1,2 --workloads 2 --seed 5 --json
expect_grep '"results"' "$T/out"
n=$(grep -o '"geomean_stretch"' "$T/out" | wc -l)
[ "$n" -eq 16 ] && ok || fail "want 16 results (2 loads x 2 workloads x 4 policies), got $n"
for p in round-robin random clairvoyant cluster; do expect_grep "\"policy\":\"$p\"" "$T/out"; done
expect_grep '"clusters":"sage"' "$T/out"
expect_grep '"jobs":80' "$T/out"
cp "$T/out" "$T/first.json"
# Same seed, same output.
expect_rc 0 "$IOLENS" place --traces "$T/syn/traces.csv" --step 10 --clusters "sage=$T/syn" \
  --jobs 80 --loads 1,2 --workloads 2 --seed 5 --json
cmp -s "$T/out" "$T/first.json" && ok || fail "same seed gave different results"
# The human table (Fig. 14): one row per policy, one column per load.
expect_rc 0 "$IOLENS" place --traces "$T/syn/traces.csv" --step 10 --clusters "$T/syn" \
  --jobs 80 --loads 1,2 --workloads 2
expect_grep '^80 jobs  *rho=1  *rho=2$' "$T/out"
expect_grep '^  clairvoyant  *[-+][0-9.]*  *[-+][0-9.]*$' "$T/out"
expect_grep "^  cluster (syn)" "$T/out"
expect_grep '^  random ' "$T/out"
expect_grep '^  round-robin stretch' "$T/out"
# A load out of reach is skipped with a warning.
expect_rc 0 "$IOLENS" place --traces "$T/syn/traces.csv" --step 10 --jobs 4 --loads 1,50 --workloads 1
expect_grep 'load 50 is out of reach' "$T/err"

# --schedule: one OST per trace, start times from a CSV.
{ echo "id,start"; for i in $(seq 0 89); do printf 't%03d,%d\n' "$i" $((i * 7)); done; } > "$T/starts.csv"
expect_rc 0 "$IOLENS" place --schedule --traces "$T/syn/traces.csv" --step 10 --clusters "$T/syn" \
  --starts "$T/starts.csv" --osts 3
expect_grep '^policy cluster, 3 OSTs' "$T/out"
n=$(awk '$1 ~ /^t[0-9][0-9][0-9]$/ && $3 ~ /^[0-2]$/' "$T/out" | wc -l)
[ "$n" -eq 90 ] && ok || fail "want 90 placed traces on OSTs 0-2, got $n"
expect_grep '^t010  *70 ' "$T/out"
expect_rc 0 "$IOLENS" place --schedule --traces "$T/syn/traces.csv" --step 10 --policy round-robin --json
expect_grep '"policy":"round-robin"' "$T/out"
expect_grep '"id":"t004","ost":0' "$T/out"
head -5 "$T/starts.csv" > "$T/few.csv"
expect_rc 1 "$IOLENS" place --schedule --traces "$T/syn/traces.csv" --step 10 --starts "$T/few.csv"
expect_grep "gives no start time" "$T/err"

# Broken cluster outputs.
mkdir -p "$T/bad"
printf 'id,cluster\nt000,start\n' > "$T/bad/assignments.csv"
cp "$T/syn/centroids.csv" "$T/bad/"
expect_rc 0 "$IOLENS" place --schedule --traces "$T/syn/traces.csv" --step 10 --clusters "$T/bad"
expect_grep "89 traces of .* have no cluster in $T/bad: left out" "$T/err"
n=$(awk '$1 ~ /^t[0-9][0-9][0-9]$/' "$T/out" | wc -l)
[ "$n" -eq 1 ] && ok || fail "want only the clustered trace placed, got $n"
printf 'cluster\n' > "$T/bad/centroids.csv"
expect_rc 1 "$IOLENS" place --traces "$T/syn/traces.csv" --step 10 --clusters "$T/bad"
expect_grep "centroids.csv'" "$T/err"

# Real series: the job-level Darshan heatmaps, with a trivial clustering
# (every log in one cluster) written here in the contract format; series ids
# are those of `iolens cluster` (<log>:<module>[:read|:write]).
skip_unless_data timeseries/heatmap_job.csv
H="$IOLENS_SHARED_DATA/timeseries/heatmap_job.csv"
mkdir -p "$T/one"
{ echo "id,cluster"; awk -F, 'NR > 1 && $2 == "POSIX" && !seen[$1]++ { print $1 ":POSIX,all" }' "$H"; } > "$T/one/assignments.csv"
printf 'cluster,step_seconds=1\nall,0,50,50,0,0,50,50,0\n' > "$T/one/centroids.csv"
expect_rc 0 "$IOLENS" place --traces "$H" --metric total --clusters "$T/one" --jobs 40 --loads 1,2 --workloads 2 --json
n=$(grep -o '"geomean_stretch"' "$T/out" | wc -l)
[ "$n" -eq 16 ] && ok || fail "want 16 results on the real series, got $n"
expect_grep '"pool":32' "$T/out"
# Reads (the default): DLIO jobs only within a 150 s horizon, slower OSTs.
sed 's/:POSIX,all$/:POSIX:read,all/' "$T/one/assignments.csv" > "$T/one/a" && mv "$T/one/a" "$T/one/assignments.csv"
expect_rc 0 "$IOLENS" place --traces "$H" --clusters "$T/one" --horizon 150 --bandwidth 200 --jobs 40 --loads 1 --workloads 2
expect_grep '^  clairvoyant  *[-+][0-9.]*$' "$T/out"
expect_grep '^  cluster (one)  *[-+][0-9.]*$' "$T/out"
expect_rc 0 "$IOLENS" place --schedule --traces "$H"
expect_grep 'e3sm_io_heatmap_only.darshan:POSIX:read' "$T/out"
expect_grep '(9 traces without I/O or cluster left out)' "$T/out"
expect_rc 0 "$IOLENS" place --schedule --traces "$H" --metric write --module MPIIO --json
expect_grep '"policy":"clairvoyant"' "$T/out"
expect_grep 'e3sm_io_heatmap_only.darshan:MPIIO:write' "$T/out"
finish
