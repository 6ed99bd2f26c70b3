# iolens whatif: a small real workload (2 ranks: 4 KiB shared-file writes with an fsync after each,
# reads, a file-per-process write) traced with iolens, its configs derived (--dry-run) and checked
# transform by transform, then one real round (base + variant replayed, same bytes moved).
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing"; exit 77; }
"$IOLENS" replay --help | grep -q 'MPI-IO back end: yes' || { echo "SKIP: iolens built without MPI"; exit 77; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$IOLENS_TMP
cat > "$T/small.json" <<JSON
{"nranks": 2, "file_configs": [
 {"name": "w", "method": "write", "file_names": ["$T/data/shared.dat"], "fsync": "every_write",
  "chunks": [{"transfer_size": "4k", "repetitions": 64}]},
 {"name": "r", "method": "read", "file_names": ["$T/data/shared.dat"],
  "chunks": [{"transfer_size": "4k", "repetitions": 64}]},
 {"name": "fpp", "method": "write", "file_names": ["$T/data/part.{rank}"], "file_per_process": true,
  "chunks": [{"transfer_size": "4k", "repetitions": 16}]}]}
JSON
# Under ASan the leak scan races Open MPI's threads in multi-rank jobs (see test_cli_replay_mpi.sh)
mpi=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --oversubscribe --allow-run-as-root)
expect_rc 0 "${mpi[@]}" -np 2 "$IOLENS" trace -o "$T/run.trace" -- "$IOLENS" replay "$T/small.json" --root "$T/orig"

# usage errors
expect_rc 2 "$IOLENS" whatif "$T/small.json"
expect_grep 'no detection without counters; name the patterns' "$T/err"
expect_rc 2 "$IOLENS" whatif "$T/run.trace" --rounds 0
expect_rc 2 "$IOLENS" whatif "$T/run.trace" --pattern healthy
"$IOLENS" whatif --help | grep -q '^usage: iolens whatif' && ok || fail "whatif --help"

# every transform, written to files (--dry-run --keep)
all=access_granularity,metadata_intensity,parallelism_efficiency,access_pattern,interface_choice,file_strategy,throughput_utilization
expect_rc 0 "$IOLENS" whatif "$T/run.trace" --dry-run --pattern $all --keep "$T/cfgs" --json
cp "$T/out" "$T/dry.json"
python3 - "$T/dry.json" "$T/cfgs" <<'PY' && ok || fail "dry-run configs ($T/dry.json)"
import json, os, sys
rep = json.load(open(sys.argv[1])); d = sys.argv[2]
assert rep["dry_run"] and rep["nranks"] == 2 and rep["detection"]["source"] == "--pattern"
st = {c["name"]: c for c in rep["configs"]}
applied = {"access_granularity", "interface_choice", "file_strategy", "throughput_utilization"}
for p in applied:
    assert st[p]["status"] == "applied", (p, st[p])
    assert os.path.exists(f"{d}/{p}.json"), p
assert st["access_pattern"]["status"] == "does not apply" and "already sequential" in st["access_pattern"]["note"]
assert st["parallelism_efficiency"]["status"] == "does not apply"
assert st["metadata_intensity"]["status"] == "no replay transform"
for p in ("access_pattern", "parallelism_efficiency", "metadata_intensity"):
    assert not os.path.exists(f"{d}/{p}.json"), p
load = lambda n: json.load(open(f"{d}/{n}.json"))
base = load("base")["file_configs"]
def step_bytes(s, nranks=2):
    return sum(c["transfer_size"] * c.get("repetitions", 0) for c in s["chunks"]) * nranks
# base = the global view of the trace: shared write with fsync per write, read, file per process
assert [s["method"] for s in base] == ["write", "read", "write"], base
assert base[0]["fsync"] == "every_write" and base[2]["file_per_process"]
assert all(c["transfer_size"] == 4096 for s in base for c in s["chunks"])
g = load("access_granularity")["file_configs"]
assert [c["transfer_size"] for c in g[0]["chunks"]] == [262144]   # 64 x 4 KiB: the rank's whole extent
assert [c["transfer_size"] for c in g[2]["chunks"]] == [65536]
for a, b in zip(base, g):
    assert step_bytes(a) == step_bytes(b), (a, b)
i = load("interface_choice")["file_configs"]
for k in (0, 1):
    assert i[k]["interface"] == "mpiio" and i[k]["hints"]["use_collective"] is True
assert i[2].get("interface", "posix") == "posix"            # file per process: not this card's
f = load("file_strategy")["file_configs"]
assert f[2]["file_per_process"] is False and len(f[2]["file_names"]) == 1
assert f[2]["interface"] == "mpiio" and f[2]["hints"]["use_collective"] is True
assert f[0].get("interface", "posix") == "posix"
t = load("throughput_utilization")["file_configs"]
assert t[0]["fsync"] == "close" and "striping: not applicable here" in st["throughput_utilization"]["note"]
PY

# detection (the shipped models) picks the patterns when --pattern is not given
expect_rc 0 "$IOLENS" whatif "$T/run.trace" --dry-run --json
python3 - "$T/out" <<'PY' && ok || fail "whatif detection ($T/out)"
import json, sys
rep = json.load(open(sys.argv[1])); d = rep["detection"]
assert d["source"] == "classifier" and abs(d["tau"] - 0.3) < 1e-9 and len(d["probabilities"]) == 8
assert [c["name"] for c in rep["configs"]] == ["base"] + d["patterns"]
assert all(d["probabilities"][p] >= 0.3 for p in d["patterns"])
PY

# one real round: the base and the access_granularity variant both run (mpirun -np 2)
# (its replays run under mpirun: no leak scan there, as above; the dry runs and the 1-rank run below keep it)
expect_rc 0 env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$IOLENS" whatif "$T/run.trace" --rounds 1 --pattern access_granularity,access_pattern --no-control --json --root "$T/wroot"
cp "$T/out" "$T/run1.json"
python3 - "$T/run1.json" <<'PY' && ok || fail "whatif --rounds 1 ($T/run1.json)"
import json, sys
rep = json.load(open(sys.argv[1]))
assert rep["rounds"] == 1 and not rep["dry_run"] and rep["measured"]
base, g, a = rep["configs"]
assert base["name"] == "base" and g["name"] == "access_granularity" and g["status"] == "applied"
assert a["status"] == "does not apply" and "runs" not in a
for c in (base, g):
    assert len(c["runs"]) == 1 and c["median_seconds"] > 0 and c["min_seconds"] <= c["max_seconds"]
    run = c["runs"][0]
    assert [s["method"] for s in run["steps"]] == ["write", "read", "write"]
    assert all(s["seconds"] > 0 and s["bandwidth_bytes_per_s"] > 0 for s in run["steps"])
assert base["bytes"] == g["bytes"] == 2 * (2 * 64 + 16) * 4096, (base["bytes"], g["bytes"])
assert [s["bytes"] for s in base["runs"][0]["steps"]] == [s["bytes"] for s in g["runs"][0]["steps"]]
assert g["speedup"] > 0 and abs(g["speedup"] - base["median_seconds"] / g["median_seconds"]) < 1e-9
p = g["paired"]  # the same round's base / variant: one ratio per round
assert len(p["ratios"]) == 1 and abs(p["ratios"][0] - base["runs"][0]["seconds"] / g["runs"][0]["seconds"]) < 1e-9
assert p["k"] == 0 and p["verdict"] == "unreliable" and p["interval_alone"] == "within noise" and p["median"] == p["ratios"][0]
assert "no interval" in p["reason"] and g["verdict"] == "unreliable" and not rep["control"], p
PY
[ -d "$T/wroot" ] && [ -z "$(ls -A "$T/wroot")" ] && ok || fail "whatif left files below --root: $(ls -A "$T/wroot")"

# the application's file system: without --root the runs go next to the traced data (here the
# nearest existing folder of it: the traced replay removed what it created), and the report names
# both file systems; a --root on another file-system type is refused unless --root-anywhere
expect_rc 0 env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$IOLENS" whatif "$T/run.trace" --rounds 1 --pattern access_granularity --json
python3 - "$T/out" "$T" <<'PY' && ok || fail "whatif default root ($T/out)"
import json, sys
rep = json.load(open(sys.argv[1]))
assert rep["traced_fs"]["path"].startswith(sys.argv[2] + "/orig"), rep["traced_fs"]
assert rep["replay_fs"]["path"] == sys.argv[2], rep["replay_fs"]
assert rep["replay_fs"]["type"] == rep["traced_fs"]["type"] and rep["replay_fs"]["type"], rep
PY
[ -z "$(ls -d "$T"/iolens-whatif.* 2>/dev/null)" ] && ok || fail "whatif left its runs' folder next to the traced data"
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" != "$(stat -f -c %T "$T")" ]; then
  shm=$(mktemp -d /dev/shm/iolens-whatif-test.XXXXXX)
  expect_rc 2 "$IOLENS" whatif "$T/run.trace" --rounds 1 --pattern access_granularity --root "$shm/r"
  expect_grep "the figures would not be the application's" "$IOLENS_TMP/err"
  [ ! -e "$shm/r" ] && ok || fail "a refused --root was left behind"
  expect_rc 0 env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$IOLENS" whatif "$T/run.trace" --rounds 1 --pattern access_granularity --root "$shm/r" --root-anywhere
  expect_grep "^replayed on tmpfs ($shm/r); traced data on " "$IOLENS_TMP/out"
  # data on /dev/shm is the application's data: whatif measures it there (detect keeps Darshan's
  # exclusion, and says so)
  mkdir -p "$shm/data"
  expect_rc 0 "$IOLENS" trace -o "$T/shm.trace" -- dd if=/dev/zero of="$shm/data/f" bs=4k count=256
  expect_rc 0 "$IOLENS" detect "$T/shm.trace"
  expect_grep "under a path Darshan leaves out" "$IOLENS_TMP/err"
  expect_rc 0 "$IOLENS" whatif "$T/shm.trace" --pattern access_granularity --rounds 1 --no-control --json
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); g=r["configs"][1]; assert r["measured"] and r["replay_fs"]["type"] == "tmpfs" and r["replay_fs"]["path"].startswith(sys.argv[2]) and g["status"] == "applied" and g["bytes"] == 256 * 4096, r' "$IOLENS_TMP/out" "$shm" && ok || fail "whatif of /dev/shm data ($IOLENS_TMP/out)"
  rm -rf "$shm"
fi

# a config with --pattern, one rank: runs without mpirun; the human table
cat > "$T/one.json" <<JSON
{"file_configs": [{"method": "write", "file_names": ["x.dat"], "fsync": "every_write",
  "chunks": [{"transfer_size": "4k", "repetitions": 32}]}]}
JSON
expect_rc 0 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization,interface_choice --rounds 1 --root "$T/wroot1"
expect_grep '^throughput_utilization .* [0-9.]*x ' "$T/out"
expect_grep 'interface_choice: does not apply: one rank' "$T/out"
# adaptive rounds (the default): at least 5, at most --max-rounds, the rounds run reported
expect_rc 0 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --max-rounds 7 --json --root "$T/wroot4"
python3 - "$T/out" <<'PY' && ok || fail "adaptive rounds ($T/out)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["adaptive_rounds"] and r["max_rounds"] == 7 and 5 <= r["rounds"] <= 7, r["rounds"]
base, t, c = r["configs"]  # the A/A control is on by default
assert r["control"] and c["name"] == "control" and len(c["runs"]) == r["rounds"]
assert len(t["paired"]["ratios"]) == r["rounds"] and len(base["runs"]) == r["rounds"]
p = t["paired"]
lo, hi = p["interval"]
assert p["verdict"] != "within noise" or hi / lo - 1 < 0.10 or r["rounds"] == 7, p
# the verdict is judged against the control; an unreliable one used every round it could
assert t["verdict"] == p["verdict"] in ("faster", "slower", "within noise", "unreliable") and p["reason"], p
assert p["verdict"] != "unreliable" or r["rounds"] == 7 or "runs last" in p["reason"], p
m = r["machine"]
assert m["cores"] >= 1 and len(m["rounds"]) == r["rounds"] and m["base_drift"] >= 1, m
assert all(x["load1"] is None or x["load1"] >= 0 for x in m["rounds"]), m
PY
expect_rc 2 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --rounds 3 --max-rounds 7
expect_rc 2 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --max-rounds 4
# --combine: one more variant with both changes, applied in order
expect_rc 0 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --combine throughput_utilization,access_granularity --rounds 2 --no-control --json --root "$T/wroot5"
python3 - "$T/out" <<'PY' && ok || fail "whatif --combine ($T/out)"
import json, sys
r = json.load(open(sys.argv[1]))
names = [c["name"] for c in r["configs"]]
assert names == ["base", "throughput_utilization", "throughput_utilization+access_granularity"], names
c = r["configs"][2]
assert c["status"] == "applied" and len(c["runs"]) == 2 and c["bytes"] == r["configs"][0]["bytes"], c
PY
expect_rc 2 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --combine nosuch,access_granularity --rounds 1
# many small files (split: one 4 KiB write per part): the config has one metadata step, not a step
# per file, and the metadata_intensity change applies to it
mkdir -p "$T/sp"; head -c 163840 /dev/urandom >"$T/sp/in"
expect_rc 0 "$IOLENS" trace -o "$T/split.trace" -- split -b 4096 "$T/sp/in" "$T/sp/part."
expect_rc 0 "$IOLENS" replay --config-from "$T/split.trace" -o "$T/split.json"
python3 - "$T/split.json" <<'PY' && ok || fail "small files as one metadata step ($T/split.json)"
import json, sys
steps = json.load(open(sys.argv[1]))["file_configs"]
md = [s for s in steps if s["method"] == "metadata"]
assert len(md) == 1 and md[0]["metadata"]["files_per_rank"] == 40 and md[0]["metadata"]["write_bytes"] == 4096, steps
assert len(steps) <= 3, len(steps)
PY
expect_rc 0 "$IOLENS" whatif "$T/split.trace" --pattern metadata_intensity --rounds 1 --no-control --json --root "$T/wroot6"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); b, m = r["configs"]; assert m["status"] == "applied" and m["bytes"] == b["bytes"] > 0, (b, m)' "$T/out" && ok || fail "metadata variant ($T/out)"
# a trace without data (40 files created by touch): one metadata step of 40 empty files, and
# whatif measures the metadata change (a record per file in one index file)
mkdir -p "$T/mo"
expect_rc 0 "$IOLENS" trace -o "$T/touch.trace" -- touch $(seq -f "$T/mo/f%g" 40)
expect_rc 0 "$IOLENS" replay --config-from "$T/touch.trace" -o "$T/touch.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["file_configs"]; assert len(s) == 1 and s[0]["method"] == "metadata" and s[0]["metadata"]["files_per_rank"] == 40, s' "$T/touch.json" && ok || fail "metadata-only trace ($T/touch.json)"
expect_rc 0 "$IOLENS" whatif "$T/touch.trace" --pattern metadata_intensity --rounds 1 --root "$T/wroot7" --no-control --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); b, m = r["configs"]; assert r["measured"] and m["status"] == "applied" and m["median_seconds"] > 0 and b["median_seconds"] > 0 and m["bytes"] == 40 * 64, (b, m)' "$T/out" && ok || fail "metadata variant of empty files ($T/out)"
expect_rc 0 "$IOLENS" whatif "$T/touch.trace" --pattern metadata_intensity --dry-run --root "$T/wroot8"
expect_grep 'metadata_intensity: applied: .*40 empty files per rank -> 40 records of 64 bytes' "$IOLENS_TMP/out"
# no change applies: nothing is replayed
expect_rc 0 "$IOLENS" whatif "$T/one.json" --pattern access_pattern,file_strategy --json --root "$T/wroot3"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert not r["measured"] and r["rounds"] == 0 and all("runs" not in c for c in r["configs"])' "$T/out" && ok || fail "nothing to measure ($T/out)"
[ ! -e "$T/wroot3" ] && ok || fail "whatif created --root with nothing to run"
# a replay that runs too long is stopped (--timeout), nothing is left behind
cat > "$T/slow.json" <<JSON
{"file_configs": [{"method": "compute", "compute": {"seconds": 60}},
  {"method": "write", "file_names": ["x.dat"], "chunks": [{"transfer_size": 10, "repetitions": 2}]}]}
JSON
expect_rc 1 "$IOLENS" whatif "$T/slow.json" --pattern access_granularity --rounds 1 --timeout 1 --root "$T/wroot2"
expect_grep 'ran longer than 1 s (the timeout): stopped' "$T/err"
[ -z "$(ls -A "$T/wroot2")" ] && ok || fail "the stopped run left files: $(ls -A "$T/wroot2")"
# the control (default): the base config run again as a variant (A/A), the same bytes, every round timed
expect_rc 0 "$IOLENS" whatif "$T/one.json" --pattern throughput_utilization --rounds 2 --json --root "$T/wroot9"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); c=[x for x in r["configs"] if x["name"] == "control"][0]; b=r["configs"][0]; assert c["status"] == "applied" and c["bytes"] == b["bytes"] and len(c["runs"]) == 2 and c["config"] == b["config"], c' "$T/out" && ok || fail "whatif --control ($T/out)"
# a config that is no JSON: its parse error, exit 1 (not a usage error)
printf '{bad json\n' >"$T/bad.json"
expect_rc 1 "$IOLENS" whatif "$T/bad.json"
expect_grep "not valid JSON" "$T/err"
finish
