# --config-from of an MPI program traced without mpirun (an Open MPI singleton): the trace also
# holds the ORTE/PMIx helper processes the singleton starts, which read /proc, /sys and /etc.
# By default the config leaves out the files Darshan excludes and then the processes without
# other reads or writes that are not MPI ranks: one rank, the program's own file. --all-paths
# keeps every file and process. The config then replays as a singleton, in iolens-replay.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
command -v mpicc >/dev/null || { echo "SKIP: mpicc missing"; exit 77; }
"$IOLENS" replay --help | grep -q 'MPI-IO back end: yes' || { echo "SKIP: iolens built without MPI"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T="$IOLENS_TMP"
mpicc -O1 -o "$T/plain" "$IOLENS_SOURCE_DIR/bench/replay/ior_plain.c" || { fail "cannot compile ior_plain.c"; finish; }
mkdir -p "$T/orig"
expect_rc 0 "$IOLENS" trace -o "$T/S" -- "$T/plain" mpiio-indep 4096 16 "$T/orig"
report=$(stat -c %s "$T/out") # (its report, on the standard output the test opened for it)
# the trace has more than one process: the program and its helper(s)
"$IOLENS" view "$T/S" | awk '{print $1}' | sort -u > "$T/procs"
[ "$(wc -l < "$T/procs")" -ge 2 ] && ok || fail "expected helper processes in a singleton's trace: $(cat "$T/procs")"
expect_rc 0 "$IOLENS" replay --config-from "$T/S" -o "$T/cfg.json"
expect_grep "left out [1-9][0-9]* file(s) under system paths" "$T/err"
expect_grep "process(es) without other reads or writes that are not MPI ranks; --all-paths keeps them" "$T/err"
python3 - "$T/cfg.json" "$T/orig/testfile" <<'PY' && ok || fail "default config of the singleton trace: $(cat "$T/cfg.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["nranks"] == 1, c["nranks"]
fc = c["file_configs"]
assert [f["method"] for f in fc] == ["write", "read"], fc
for f in fc:
    assert f["file_names"] == [sys.argv[2]] and f["interface"] == "mpiio", f
    # (a chunk may carry the program's time between its calls, gap_seconds: a timing estimate)
    assert [(x["transfer_size"], x["repetitions"]) for x in f["chunks"]] == [(4096, 16)], f["chunks"]
PY
# --all-paths: every process is a rank again and the system files are back
expect_rc 0 "$IOLENS" replay --config-from "$T/S" --all-paths -o "$T/all.json"
python3 - "$T/all.json" <<'PY' && ok || fail "--all-paths config of the singleton trace"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["nranks"] >= 2, c["nranks"]
names = [n for f in c["file_configs"] for n in f["file_names"]]
assert any(n.startswith(("/proc/", "/sys/", "/etc/")) for n in names), names
PY
expect_rc 2 "$IOLENS" replay "$T/cfg.json" --all-paths
expect_grep "all-paths goes with --config-from" "$T/err"
# the default config replays as a singleton (MPI-IO step, no mpirun)
expect_rc 0 "$IOLENS" replay "$T/cfg.json" --root "$T/root" --json
python3 - "$T/out" <<'PY' && ok || fail "singleton replay of the config"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nranks"] == 1 and [s["bytes"] for s in r["steps"]] == [65536, 65536], r
PY
# on the fly: the helpers are left out as well (they are not MPI ranks and read or write no
# replayed file; they also walk /sys with openat(dirfd, "..")), and the program replays as a
# singleton, its MPI-IO calls included
expect_rc 0 "$IOLENS" replay "$T/S" --root "$T/otf" --json
expect_grep "left out [1-9][0-9]* of the trace's [2-9][0-9]* processes: not MPI ranks" "$T/err"
python3 - "$T/out" "$report" <<'PY' && ok || fail "on-the-fly replay of the singleton trace"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] == 1 and j["failed"] == 0, j
assert j["bytes_written"] == 65536 + int(sys.argv[2]) and j["bytes_read"] == 65536, j
PY
# --all-paths keeps every process: with --serial one process then replays each in turn, MPI-IO
# skipped (its report, written with printf, is not)
expect_rc 0 "$IOLENS" replay "$T/S" --root "$T/otf2" --all-paths --json --serial
python3 - "$T/out" "$report" <<'PY' && ok || fail "on-the-fly replay of the singleton trace, --all-paths"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] >= 2 and j["bytes_written"] == int(sys.argv[2]), j  # only its report
PY
# MPI runs go to iolens-replay (beside iolens): the process then has an MPI application's shared
# libraries, without HDF5 and XGBoost (docs/REPLAY-CONFIG.md, fidelity); IOLENS_REPLAY_LEAN=0
# keeps the replay in iolens itself
if [ -x "$(dirname "$IOLENS")/iolens-replay" ]; then
  LD_DEBUG=files "$IOLENS" replay "$T/cfg.json" --root "$T/root2" > /dev/null 2> "$T/ld" && ok || fail "replay with LD_DEBUG"
  grep -q 'needed by .*/iolens-replay' "$T/ld" && ok || fail "iolens replay did not run iolens-replay"
  grep 'needed by .*/iolens-replay' "$T/ld" | grep -Eq 'libhdf5|libxgboost' && fail "iolens-replay loads HDF5 or XGBoost" || ok
  IOLENS_REPLAY_LEAN=0 LD_DEBUG=files "$IOLENS" replay "$T/cfg.json" --root "$T/root3" > /dev/null 2> "$T/ld" && ok || fail "replay in iolens"
  grep -q 'needed by .*/iolens-replay' "$T/ld" && fail "IOLENS_REPLAY_LEAN=0 still ran iolens-replay" || ok
fi
finish
