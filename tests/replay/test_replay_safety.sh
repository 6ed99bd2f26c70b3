# A replay never modifies what it did not create: for every call kind the
# on-the-fly and config replays issue, a sentinel tree that exists below the
# replay root before the replay has the same contents, sizes, modes and mtimes
# after it. Roots that would reach the application's own files are refused.
. "$(dirname "$0")/../cli/lib.sh"
: "${KINDS:?}"
T=$IOLENS_TMP

snap() { # snap ROOT: every entry with its mode; files with their size, mtime and content checksum
  # (a directory's own mtime moves when the replay creates and removes its files in it)
  (cd "$1" && find . -type d -printf '%p %y %m\n' | sort && find . ! -type d -printf '%p %y %s %m %T@\n' | sort &&
    find . -type f -exec sha256sum {} + | sort)
}

# sentinel ROOT WORKDIR: what the traced program's files look like below ROOT, with other contents
sentinel() {
  mkdir -p "$1$2/d"
  printf 'sentinel %s\n' "$2" >"$1$2/f"
  printf 'other\n' >"$1$2/g.keep"
  touch -d '2001-02-03 04:05:06' "$1$2/f" "$1$2/d" "$1$2/g.keep"
}

# check_kind MODE [LAUNCH...]: trace MODE, then replay it (on the fly and from config) onto a sentinel
check_kind() {
  local mode=$1; shift
  local W="$T/w/$mode" R="$T/r/$mode"
  rm -rf "$W" "$R"; mkdir -p "$W/d" "$R"
  head -c 8192 /dev/zero | tr '\0' 'o' >"$W/f"
  if ! "$@" "$IOLENS" trace -o "$T/$mode.trace" -- "$KINDS" "$mode" "$W" >/dev/null 2>"$T/trace.err"; then
    fail "$mode: traced run failed"; head -3 "$T/trace.err" >&2; return
  fi
  sentinel "$R" "$W"
  snap "$R" >"$T/before"
  "$@" "$IOLENS" replay "$T/$mode.trace" --root "$R" >"$T/out" 2>"$T/err"
  local rc=$?
  snap "$R" >"$T/after"
  cmp -s "$T/before" "$T/after" && ok || { fail "$mode: the on-the-fly replay changed files that existed before it"; diff "$T/before" "$T/after" | head -6 >&2; }
  case $mode in
    rename-from|rename-to|unlink|rmdir|mkdir-in) # not replayed onto what existed (said), or harmless
      [ "$rc" -eq 0 ] && ok || { fail "$mode: on-the-fly replay exit $rc"; head -3 "$T/err" >&2; } ;;
    *)
      [ "$rc" -eq 1 ] && grep -q 'existed before the replay' "$T/err" && ok ||
        { fail "$mode: on-the-fly replay not refused up front (exit $rc)"; head -3 "$T/err" >&2; } ;;
  esac
  # the same trace into an empty root replays
  rm -rf "$T/empty"
  "$@" "$IOLENS" replay "$T/$mode.trace" --root "$T/empty" >"$T/out" 2>"$T/err" && ok ||
    { fail "$mode: on-the-fly replay into an empty root failed"; head -3 "$T/err" >&2; }
  # the config replay of the same trace
  if "$IOLENS" replay --config-from "$T/$mode.trace" -o "$T/$mode.json" >/dev/null 2>&1; then
    "$@" "$IOLENS" replay "$T/$mode.json" --root "$R" >"$T/out" 2>"$T/err"
    snap "$R" >"$T/after"
    cmp -s "$T/before" "$T/after" && ok || { fail "$mode: the config replay changed files that existed before it"; diff "$T/before" "$T/after" | head -6 >&2; }
  fi
}

for k in trunc creat ftruncate fallocate punch fopen-w fopen-wplus fopen-a append pwrite write rename-from rename-to unlink rmdir mkdir-in; do
  check_kind "$k"
done
if command -v mpirun >/dev/null && [ -n "${KINDS_MPI:-}" ]; then
  KINDS=$KINDS_MPI
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  check_kind mpiio-write mpirun -np 1
  check_kind mpiio-delete mpirun -np 1
else
  echo "skip: MPI-IO kinds need mpirun"
fi

# a replay that fails part-way (a file size limit of 0: its first write fails with EFBIG) removes
# the files it created, and the next replay into the same root runs (the pipe keeps the limit
# off the error output)
R="$T/fail-root"; rm -rf "$R"
{ sh -c "trap '' XFSZ; ulimit -f 0; exec '$IOLENS' replay '$T/creat.trace' --root '$R'" 2>&1; echo "rc=$?"; } | cat >"$T/err"
grep -q '^rc=1$' "$T/err" && grep -q 'File too large' "$T/err" && ok || { fail "a replay that cannot write did not fail as such"; head -3 "$T/err" >&2; }
[ -z "$(find "$R" ! -type d | head -1)" ] && ok || fail "a failed replay left what it created: $(find "$R" ! -type d | head -3)"
expect_rc 0 "$IOLENS" replay "$T/creat.trace" --root "$R"

# config replays (write, read, metadata steps): every file a config makes, made to exist beforehand
# with other contents, is refused and left as it was
# (the metadata sweep with 2 ranks of 20 files, not 16 of 500: the refusal is the same for any)
sed -e 's/"files_per_rank": 500/"files_per_rank": 20/' -e 's/"nranks": 16/"nranks": 2/' \
  "$IOLENS_SOURCE_DIR/examples/replay/sweeps/mdtest_fpp_explosion.json" >"$T/mdtest_fpp_small.json"
for c in posix-hints.json ior-like.json "$T/mdtest_fpp_small.json"; do
  case $c in /*) ;; *) c=$IOLENS_SOURCE_DIR/examples/replay/$c ;; esac
  R="$T/cfg-root"; rm -rf "$R"
  if ! "$IOLENS" replay "$c" --root "$R" --keep >/dev/null 2>"$T/err"; then
    fail "$c: the config replay failed in an empty root"; head -3 "$T/err" >&2; continue
  fi
  find "$R" -type f | while IFS= read -r f; do printf 'sentinel\n' >"$f"; touch -d '2001-02-03 04:05:06' "$f"; done
  snap "$R" >"$T/before"
  "$IOLENS" replay "$c" --root "$R" >/dev/null 2>"$T/err"
  rc=$?
  snap "$R" >"$T/after"
  if [ -n "$(find "$R" -type f | head -1)" ]; then # (a metadata step that removes its files leaves only folders)
    [ "$rc" -eq 1 ] && grep -q 'already exists' "$T/err" && ok || { fail "$c: not refused onto existing files (exit $rc)"; head -2 "$T/err" >&2; }
  fi
  cmp -s "$T/before" "$T/after" && ok || { fail "$c: the config replay changed files that existed before it"; diff "$T/before" "$T/after" | head -6 >&2; }
done

# roots that would reach the application's own files
W="$T/w/trunc"
sha256sum <"$W/f" >"$T/w.sum"
expect_rc 1 "$IOLENS" replay "$T/trunc.trace" --root /
expect_grep "is the file system's root" "$T/err"
expect_rc 1 "$IOLENS" replay "$T/trunc.trace" --root "$W"
expect_grep "holds the traced file '$W/f'" "$T/err"
expect_rc 1 "$IOLENS" replay "$T/trunc.trace" --root "$T"
expect_grep "holds the traced file" "$T/err"
expect_rc 1 sh -c "cd / && exec '$IOLENS' replay '$T/trunc.trace'"
expect_grep "is the file system's root" "$T/err"
ln -s / "$T/slash"
expect_rc 1 "$IOLENS" replay "$T/trunc.trace" --root "$T/slash"
expect_grep "is the file system's root" "$T/err"
[ "$(cat "$T/w.sum")" = "$(sha256sum <"$W/f")" ] && ok || fail "the traced file itself was changed"
"$IOLENS" replay --config-from "$T/write.trace" -o "$T/cfg.json" >/dev/null 2>&1
expect_rc 1 "$IOLENS" replay "$T/cfg.json" --root /
expect_grep "is the file system's root" "$T/err"

# a config whose file name names the root itself is refused when it is read (--dry-run, --print-config too)
printf '{"name":"x","file_configs":[{"method":"write","file_names":["%s"],"chunks":[{"transfer_size":4096,"repetitions":2}]}]}\n' / >"$T/slash.json"
printf '{"name":"x","file_configs":[{"method":"write","file_names":["%s"],"chunks":[{"transfer_size":4096,"repetitions":2}]}]}\n' . >"$T/dot.json"
for c in slash dot; do
  expect_rc 1 "$IOLENS" replay "$T/$c.json" --dry-run --root "$T/e2"
  expect_grep "names the replay root itself" "$T/err"
  expect_rc 1 "$IOLENS" replay "$T/$c.json" --print-config
done
finish
