# Done-when 1, second half: the replay's own trace has the Darshan counters of the original's, apart
# from timing. IOR-like runs of bench/replay/ior_plain.c (POSIX shared and file per process, MPI-IO
# independent and collective) are traced with `iolens trace --darshan`, then replayed from the
# config --config-from builds and on the fly, each under the tracer; tests/replay/darshan_compare.py
# compares every record (counters, non-time fcounters, DXT offsets and lengths) after mapping the
# replay's paths back from below --root. The root is not under /dev/ (Darshan skips /dev/ paths).
# The full matrix (1 MiB and 4 KiB, 1, 2, 4 ranks) is bench/replay/darshan.sh.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "SKIP: mpirun/mpicc missing"; exit 77; }
"$IOLENS" replay --help | grep -q 'MPI-IO back end: yes' || { echo "SKIP: iolens built without MPI"; exit 77; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T="$IOLENS_TMP"
mpicc -O1 -o "$T/plain" "$IOLENS_SOURCE_DIR/bench/replay/ior_plain.c" || { fail "cannot compile ior_plain.c"; finish; }

check() { # MODE SIZE COUNT RANKS [BUFFER_OFFSET]
  local mode=$1 size=$2 count=$3 np=$4 d="$T/$1-$2-$4${5:+-b$5}" x=()
  [ -z "${5:-}" ] || x=(-x IOR_PLAIN_BUF_OFFSET="$5")
  mkdir -p "$d/orig"
  expect_rc 0 mpirun -np "$np" "${x[@]}" "$IOLENS" trace -o "$d/T" --darshan "$d/T.darshan" -- "$T/plain" "$mode" "$size" "$count" "$d/orig"
  expect_rc 0 "$IOLENS" replay --config-from "$d/T" -o "$d/cfg.json"
  if [ -n "${5:-}" ]; then
    # the buffer's place in its page, carried from the trace into the config (write and read step)
    [ "$(grep -c "\"buffer_offset\": $5," "$d/cfg.json")" -eq 2 ] && ok || { fail "config lacks buffer_offset $5"; cat "$d/cfg.json" >&2; }
    "$IOLENS" trace --print "$d/T" | awk '$5 == 0' | grep -c "testfile.*buf=page+$5)" > "$d/nbuf"
    [ "$(cat "$d/nbuf")" -eq $((2 * count * np)) ] && ok || fail "trace: $(cat "$d/nbuf") transfers at page+$5"
  fi
  expect_rc 0 mpirun -np "$np" "$IOLENS" trace -o "$d/RC" --darshan "$d/RC.darshan" -- "$IOLENS" replay "$d/cfg.json" --root "$d/rc"
  expect_rc 0 mpirun -np "$np" "$IOLENS" trace -o "$d/RO" --darshan "$d/RO.darshan" -- "$IOLENS" replay "$d/T" --root "$d/ro"
  for x in T RC RO; do "$IOLENS" darshan --json "$d/$x.darshan" > "$d/$x.json" || fail "darshan --json $d/$x.darshan"; done
  if [ -n "${5:-}" ]; then # a buffer off the 8-byte grid: Darshan's MEM_NOT_ALIGNED counts every transfer
    for x in T RC RO; do
      n=$(python3 -c 'import json,sys; print(sum(r["counters"]["POSIX_MEM_NOT_ALIGNED"] for r in json.load(open(sys.argv[1]))["modules"]["POSIX"]["records"]))' "$d/$x.json")
      [ "$n" -eq $((2 * count * np)) ] && ok || fail "$x: POSIX_MEM_NOT_ALIGNED $n, expected $((2 * count * np))"
    done
  fi
  for x in RC:rc:config RO:ro:on-the-fly; do
    IFS=: read -r log root what <<< "$x"
    if python3 "$IOLENS_SOURCE_DIR/tests/replay/darshan_compare.py" "$d/T.json" "$d/$log.json" "$d/$root" \
         --label "$mode $size x $count, $np ranks, $what" > "$d/$log.cmp"; then ok; else fail "Darshan counters differ:"; cat "$d/$log.cmp" >&2; fi
    # something was compared: the data file's POSIX record at least
    grep -q '[1-9][0-9]* records compared, 0 differences' "$d/$log.cmp" && ok || fail "$(tail -1 "$d/$log.cmp")"
  done
  rm -rf "$d"
}
# two cells keep the test short (under ASan too); bench/replay/darshan.sh runs all 24
check posix-shared 4096 16 2
check mpiio-coll 4096 16 2
check posix-shared 4096 16 2 100   # the original's buffer 100 bytes after a page start
finish
