# The replay's sandbox, against a user who changes the root while a replay runs: a folder swapped
# for a link to a folder outside the root (POSIX and stdio programs), four replays into one root
# at once, a replay stopped by SIGTERM or SIGINT, one killed outright, and a metadata step past
# the size cap. Every wait is for an event (a file appearing, a process ending) with a 60 s cap.
. "$(dirname "$0")/../cli/lib.sh"
: "${PROGRAMS:?}"
T=$IOLENS_TMP
# wait_for PATH: until it exists (or 60 s pass: then 1)
wait_for() {
  local k
  for k in $(seq 6000); do [ -e "$1" ] && return 0; sleep 0.01; done
  return 1
}

# 1. a folder swapped for a link during a --delays replay: the program writes D/f1, waits 0.3 s,
# then creates, writes and removes D/f2; while the replay waits (3 s: --speed 0.1), D is renamed
# and a link to an outside folder holding a precious f2 takes its place. The outside folder is
# left as it was.
for kind in posix stdio; do
  W=$T/w-$kind R=$T/r-$kind O=$T/outside-$kind
  mkdir -p "$W/D" "$O"
  printf 'precious\n' >"$O/f2"
  cp -p "$O/f2" "$T/f2.want"
  args=(swap "$W/D" 0.3); [ $kind = stdio ] && args+=(stdio)
  expect_rc 0 "$IOLENS" trace -o "$T/swap-$kind.trace" -- "$PROGRAMS" "${args[@]}"
  rm -rf "$W/D"/*
  "$IOLENS" replay "$T/swap-$kind.trace" --delays --speed 0.1 --root "$R" >"$T/swap.out" 2>"$T/swap.err" &
  pid=$!
  RD=$R$W/D
  if wait_for "$RD/f1"; then
    mv "$RD" "$RD.old" && ln -s "$O" "$RD" && ok || fail "$kind: could not swap the folder"
  else
    fail "$kind: the replay never wrote D/f1"
  fi
  wait $pid
  rc=$?
  [ "$(ls -A "$O")" = f2 ] && cmp -s "$O/f2" "$T/f2.want" && ok ||
    fail "$kind: the outside folder changed: $(ls -lA "$O" | tail -n +2 | tr '\n' ';')"
  if [ $kind = stdio ]; then # (fopen walks the name: the swap is seen, the replay stops)
    [ $rc -eq 1 ] && grep -q 'was replaced during the replay' "$T/swap.err" && ok ||
      fail "stdio: the swapped folder was not refused (exit $rc): $(head -2 "$T/swap.err")"
  else # (the calls are made in the folder held beneath the root: the real one, now D.old)
    [ $rc -eq 0 ] && ok || fail "posix: exit $rc: $(head -2 "$T/swap.err")"
    [ ! -e "$RD.old/f2" ] && ok || fail "posix: f2 was not removed from the held folder"
  fi
done

# 2. four replays into one root at once: the first holds it, the three started while it runs
# refuse, naming the root; it still runs to the end
W=$T/w-lock; mkdir -p "$W/D"
expect_rc 0 "$IOLENS" trace -o "$T/lock.trace" -- "$PROGRAMS" swap "$W/D" 0.3
R=$T/r-lock
"$IOLENS" replay "$T/lock.trace" --delays --speed 0.1 --root "$R" >"$T/lock0.out" 2>"$T/lock0.err" &
first=$!
wait_for "$R$W/D/f1" || fail "the first replay never started"
pids=()
for k in 1 2 3; do
  "$IOLENS" replay "$T/lock.trace" --delays --root "$R" >"$T/lock$k.out" 2>"$T/lock$k.err" &
  pids+=($!)
done
for k in 1 2 3; do
  wait "${pids[$((k - 1))]}"; rc=$?
  [ $rc -eq 1 ] && grep -q "replay root '$R' is in use by another replay (process $first)" "$T/lock$k.err" && ok ||
    fail "concurrent replay $k: exit $rc: $(head -1 "$T/lock$k.err")"
done
wait $first && ok || fail "the first replay failed: $(head -2 "$T/lock0.err")"
[ ! -e "$R" ] && ok || fail "the root the first replay made is still there: $(find "$R" | head -3)"
# (the config replays refuse the same way)
printf '{"file_configs": [{"method": "compute", "compute": {"seconds": 3}}, {"method": "write", "file_names": ["x"], "chunks": [{"transfer_size": 4096, "repetitions": 4}]}]}\n' >"$T/slow.json"
mkdir -p "$T/r-cfg"
"$IOLENS" replay "$T/slow.json" --root "$T/r-cfg" >/dev/null 2>"$T/cfg0.err" &
first=$!
wait_for "$T/r-cfg/.iolens-replay" || fail "the config replay never marked its root"
expect_rc 1 "$IOLENS" replay "$T/slow.json" --root "$T/r-cfg"
expect_grep "is in use by another replay (process $first)" "$T/err"
wait $first && ok || fail "the first config replay failed: $(head -2 "$T/cfg0.err")"

# 3. stopped by SIGTERM or SIGINT while it waits: it says so, removes what it created (the root
# it made too), and the next replay into that root runs; killed outright (SIGKILL), the root is
# refused with what to do, and runs again once it is removed
W=$T/w-sig; mkdir -p "$W/D"
expect_rc 0 "$IOLENS" trace -o "$T/sig.trace" -- "$PROGRAMS" swap "$W/D" 0.2
for sig in TERM INT; do
  R=$T/r-$sig
  # (a background job ignores SIGINT unless told otherwise: the replay runs in a shell that resets it)
  bash -c 'trap - INT; exec "$@"' sh "$IOLENS" replay "$T/sig.trace" --delays --speed 0.02 --root "$R" \
    >"$T/sig.out" 2>"$T/sig.err" &
  pid=$!
  wait_for "$R$W/D/f1" || fail "SIG$sig: the replay never wrote D/f1"
  kill -$sig $pid
  wait $pid; rc=$?
  [ $rc -eq 1 ] && grep -q "interrupted (SIG$sig): the replay stopped and removed what it had created" "$T/sig.err" &&
    ok || fail "SIG$sig: exit $rc: $(head -2 "$T/sig.err")"
  [ ! -e "$R" ] && ok || fail "SIG$sig: left $(find "$R" | head -3 | tr '\n' ' ')"
  expect_rc 0 "$IOLENS" replay "$T/sig.trace" --root "$R"
done
R=$T/r-KILL
"$IOLENS" replay "$T/sig.trace" --delays --speed 0.02 --root "$R" >/dev/null 2>&1 &
pid=$!
wait_for "$R$W/D/f1" || fail "SIGKILL: the replay never wrote D/f1"
kill -KILL $pid; wait $pid
expect_rc 1 "$IOLENS" replay "$T/sig.trace" --root "$R"
expect_grep "replay root '$R' holds what an interrupted replay left (process $pid, started on " "$T/err"
expect_grep "remove it (rm -rf '$R') or choose another --root" "$T/err"
rm -rf "$R"
expect_rc 0 "$IOLENS" replay "$T/sig.trace" --root "$R"

# 4. a metadata step is held to the size cap (files and bytes a rank makes), dry run or not
printf '{"file_configs": [{"method": "metadata", "file_names": ["t"], "metadata": {"files_per_rank": 1000000000, "write_bytes": 10485760}}]}\n' >"$T/md.json"
expect_rc 1 "$IOLENS" replay "$T/md.json" --dry-run
expect_grep "files_per_rank: must be between 1 and 10000000, got 1000000000" "$T/err"
printf '{"file_configs": [{"method": "metadata", "file_names": ["t"], "metadata": {"files_per_rank": 10000000, "write_bytes": 1048576}}]}\n' >"$T/md.json"
expect_rc 1 "$IOLENS" replay "$T/md.json" --dry-run
expect_grep "write_bytes: 10485760000000 bytes per rank is absurd (limit 1 TiB)" "$T/err"
finish
