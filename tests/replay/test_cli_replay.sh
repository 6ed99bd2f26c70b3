# iolens replay (no MPI launcher): examples, dry runs of every sweeps.tsv scenario, errors, JSON results.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
ex="$IOLENS_SOURCE_DIR/examples/replay"
skip_unless_data iosage/sweeps.tsv

expect_rc 0 "$IOLENS" replay --help
expect_grep 'usage: iolens replay' "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS" replay
expect_rc 2 "$IOLENS" replay --bogus x.json

# every scenario of the labeled sweeps has a config, and each plans cleanly
n=0
while IFS=$'\t' read -r bench prefix rest; do
  [ "$bench" = benchmark ] && continue
  n=$((n + 1))
  # the scenario prefix names the config (brace sets and SLURM steps map to their documented variants)
  case "$prefix" in
    *17310653\ steps\ 0-23*) want=ior_boost_random_shared ;;
    *17310653\ steps\ 24-41*) want=ior_boost_fpp_many ;;
    *17310653\ steps\ 42-59*) want=ior_boost_fsync ;;
    *17310653\ steps\ 60-65*) want=ior_boost_healthy_collective ;;
    *) want=$(echo "$prefix" | sed 's/ \/ .*//; s/{\([^,}]*\)[^}]*}/\1/g') ;;
  esac
  if ls "$ex/sweeps/$want"*.json >/dev/null 2>&1; then ok; else fail "no config for sweep scenario '$prefix' ($want)"; fi
done < "$IOLENS_SHARED_DATA/iosage/sweeps.tsv"
[ "$n" -ge 49 ] && ok || fail "only $n sweep rows read"
# (test_replay_config plans a dry run of every config in-process; here the command itself)
for f in "$ex"/sweeps/ior_interface_mpiio_indep.json "$ex"/sweeps/mdtest_meta_unique.json "$ex"/*.json; do
  expect_rc 0 "$IOLENS" replay "$f" --dry-run --json --root "$IOLENS_TMP/never"
  expect_grep '"dry_run": true' "$IOLENS_TMP/out"
done
[ ! -e "$IOLENS_TMP/never" ] && ok || fail "a dry run created the root"
expect_rc 0 "$IOLENS" replay "$ex/sweeps/ior_file_explosion.json" --dry-run
expect_grep 'dry run for 16 rank(s)' "$IOLENS_TMP/out"

# a real POSIX run of the IOR-like example: bytes, Algorithm 1 time, per rank and per repeat, cleanup
expect_rc 0 "$IOLENS" replay "$ex/ior-like.json" --root "$IOLENS_TMP/root" --json
expect_grep '"bytes": 16777216' "$IOLENS_TMP/out"
expect_grep '"verify_errors": 0' "$IOLENS_TMP/out"
expect_grep '"repeats": \[' "$IOLENS_TMP/out"
expect_grep '"file": "scratch/ior/testfile"' "$IOLENS_TMP/out"
[ ! -e "$IOLENS_TMP/root" ] && ok || fail "the replay left files behind"
expect_rc 0 "$IOLENS" replay "$ex/posix-hints.json" --root "$IOLENS_TMP/root" --keep
expect_grep 'hint lustre_stripe_count: not applicable here' "$IOLENS_TMP/out"
expect_grep 'hint preallocate: applied' "$IOLENS_TMP/out"
expect_grep 'hint disable_readahead: applied' "$IOLENS_TMP/out"
# an MPI-IO hint on a POSIX step is said per step, not dropped
cat >"$IOLENS_TMP/mpihints.json" <<'EOF2'
{"file_configs": [{"method": "write", "file_names": ["x.dat"], "hints": {"use_collective": true, "romio_cb_write": "enable"},
 "chunks": [{"transfer_size": 4096, "repetitions": 4}]}]}
EOF2
expect_rc 0 "$IOLENS" replay "$IOLENS_TMP/mpihints.json" --root "$IOLENS_TMP/root-mh" --json
/usr/bin/python3 - "$IOLENS_TMP/out" <<'PY' && ok || fail "MPI-IO hints on a POSIX step: not reported per step"
import json, sys
h = json.load(open(sys.argv[1]))["steps"][0]["hints"]
h = {x["name"]: x["status"] for x in h} if isinstance(h, list) else h
assert all(h[k].startswith("not applicable here: an MPI-IO hint") for k in ("use_collective", "romio_cb_write")), h
PY
[ -f "$IOLENS_TMP/root/fpp/data.00000" ] && ok || fail "--keep did not keep the file"
# files of an earlier run are never overwritten
expect_rc 1 "$IOLENS" replay "$ex/posix-hints.json" --root "$IOLENS_TMP/root"
expect_grep "already exists" "$IOLENS_TMP/err"

# bad configs: the error names the JSON path
printf '{"file_configs":[{"method":"write","file_names":["f"],"chunks":[{"transfer_size":1,"repetitions":1}]},{"method":"read","file_names":["f"],"chunks":[{"transfer_size":-4,"repetitions":1}]}]}' > "$IOLENS_TMP/bad.json"
expect_rc 1 "$IOLENS" replay "$IOLENS_TMP/bad.json"
expect_grep "file_configs\[1\].chunks\[0\].transfer_size: must be between 1" "$IOLENS_TMP/err"
printf '{"file_configs":[{"method":"write","file_names":["../../x"],"chunks":[{"transfer_size":1,"repetitions":1}]}]}' > "$IOLENS_TMP/esc.json"
expect_rc 1 "$IOLENS" replay "$IOLENS_TMP/esc.json"
expect_grep "file_configs\[0\].file_names\[0\]: path '../../x' escapes the replay root" "$IOLENS_TMP/err"
expect_rc 1 "$IOLENS" replay "$IOLENS_TMP/missing.json"
# a missing trace is a clear error (trace-driven replay: test_cli_replay_trace.sh)
expect_rc 1 "$IOLENS" replay --config-from "$IOLENS_TMP/trace.iolens"
expect_grep "cannot open .*No such file" "$IOLENS_TMP/err"

# the schema is generated from the option tables
expect_rc 0 "$IOLENS" replay --schema
cmp -s "$IOLENS_TMP/out" "$IOLENS_SOURCE_DIR/docs/replay-config.schema.json" && ok || fail "docs/replay-config.schema.json is stale"
# --cold-reads: the read step starts with the file's pages written back and dropped (untimed);
# the same bytes move
cat >"$IOLENS_TMP/cold.json" <<'JSON'
{"file_configs": [
 {"method": "write", "file_names": ["c.dat"], "chunks": [{"transfer_size": "64k", "repetitions": 64}]},
 {"method": "read", "file_names": ["c.dat"], "chunks": [{"transfer_size": "64k", "repetitions": 64}]}]}
JSON
expect_rc 0 "$IOLENS" replay "$IOLENS_TMP/cold.json" --root "$IOLENS_TMP/cold" --cold-reads --json
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; assert [x["bytes"] for x in s] == [4194304, 4194304], s' "$IOLENS_TMP/out" && ok || fail "--cold-reads replay ($IOLENS_TMP/out)"
finish
