# The tracer never changes what the program does, whatever it does to its
# descriptors or however it exits; the trace builder says what happened and
# never removes what it did not make.
. "$(dirname "$0")/../cli/lib.sh"
: "${TORTURE:?}" "${IOLENS_SHIM:?}"
T=$IOLENS_TMP
P=$TORTURE

# same_as_untraced MODE WANT_RC: runs MODE untraced and traced; same stdout, same exit status
same_as_untraced() {
  local mode=$1 want=$2
  rm -rf "$T/u" "$T/t"; mkdir -p "$T/u" "$T/t"
  timeout 60 "$P" "$mode" "$T/u" >"$T/u.out" 2>/dev/null
  local urc=$?
  timeout 60 "$IOLENS" trace -o "$T/$mode.trace" -- "$P" "$mode" "$T/t" >"$T/t.out" 2>"$T/t.err"
  local trc=$?
  [ "$urc" -eq "$want" ] && ok || fail "$mode untraced: exit $urc (want $want)"
  [ "$trc" -eq "$want" ] && ok || { fail "$mode traced: exit $trc (want $want)"; head -5 "$T/t.err" >&2; }
  cmp -s "$T/u.out" "$T/t.out" && ok || { fail "$mode: traced output differs"; diff "$T/u.out" "$T/t.out" | head >&2; }
}

# 1. closefrom (glibc's, through its internal close_range) and a raw close_range:
#    the program's next descriptor 100 is a memfd or a pipe the tracer never writes into
same_as_untraced closefrom-memfd 0
expect_grep '^memfd 100 holds 0 bytes$' "$T/t.out"
expect_grep 'stopped tracing early because the program closed the tracer' "$T/t.err"
"$IOLENS" trace --print "$T/closefrom-memfd.trace" >"$T/p" && ok || fail "trace of closefrom-memfd unreadable"
[ "$(grep -cE ' pwrite(64)?\(' "$T/p")" -eq 10 ] && ok || fail "calls before closefrom not kept"
same_as_untraced rawclose-memfd 0
expect_grep '^memfd 100 holds 0 bytes$' "$T/t.out"
expect_grep 'stopped tracing early because the program made the tracer.s descriptor name another file' "$T/t.err"
same_as_untraced closefrom-pipe 0
expect_grep '^pipe holds 0 bytes$' "$T/t.out"
same_as_untraced dup2-spill 0
expect_grep '^mine.dat holds 0 bytes$' "$T/t.out"
expect_grep 'stopped tracing early because the program made the tracer.s descriptor name another file' "$T/t.err"

# 2. _Exit and quick_exit keep the whole trace (quick_exit's handlers included)
same_as_untraced _Exit 3
"$IOLENS" trace --print "$T/_Exit.trace" >"$T/p"
[ "$(grep -cE ' pwrite(64)?\(' "$T/p")" -eq 1010 ] && ok || fail "_Exit: $(grep -cE ' pwrite(64)?\(' "$T/p") of 1010 pwrites kept"
! grep -q 'ended without closing' "$T/t.err" && ok || fail "_Exit: trace reported cut short"
same_as_untraced quick_exit 4
"$IOLENS" trace --print "$T/quick_exit.trace" >"$T/p"
[ "$(grep -cE ' pwrite(64)?\(' "$T/p")" -eq 1010 ] && ok || fail "quick_exit: pwrites lost"
expect_grep ' write(.*q.dat.*= 8' "$T/p"

# 3. --build --remove-spill removes only the spill files it used
rm -rf "$T/sp"; mkdir -p "$T/sp" "$T/w"
IOLENS_TRACE_DIR="$T/sp" LD_PRELOAD="$IOLENS_SHIM" "$P" _Exit "$T/w" >/dev/null
echo keep >"$T/sp/notes.txt"; mkdir "$T/sp/sub"; echo keep >"$T/sp/sub/x"
expect_rc 0 "$IOLENS" trace --build "$T/sp" -o "$T/b.trace" --remove-spill
[ -f "$T/sp/notes.txt" ] && [ -f "$T/sp/sub/x" ] && ok || fail "--remove-spill removed files it did not make"
! ls "$T/sp"/*.raw >/dev/null 2>&1 && ok || fail "--remove-spill left the spill files"
rm -rf "$T/sp2"; mkdir -p "$T/sp2"
IOLENS_TRACE_DIR="$T/sp2" LD_PRELOAD="$IOLENS_SHIM" "$P" _Exit "$T/w" >/dev/null
expect_rc 0 "$IOLENS" trace --build "$T/sp2" -o "$T/b2.trace" --remove-spill
[ ! -e "$T/sp2" ] && ok || fail "--remove-spill left an empty spill folder"

# 4. the trace cannot be written (-o on a full device): the spill is kept, and how to rebuild is said
rm -rf "$T/sp3"; mkdir -p "$T/sp3"
IOLENS_TRACE_DIR="$T/sp3" LD_PRELOAD="$IOLENS_SHIM" "$P" _Exit "$T/w" >/dev/null
expect_rc 1 "$IOLENS" trace --build "$T/sp3" -o /dev/full --remove-spill
ls "$T/sp3"/*.raw >/dev/null 2>&1 && ok || fail "spill removed although the trace was not written"
expect_grep "trace --build $T/sp3 -o TRACE" "$T/err"

# 5. a full file system under the spill (a 512 KiB tmpfs, as root): the program runs to its end,
#    the builder says the disk was full, and the spill is kept with how to rebuild
if [ "$(id -u)" -eq 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=512k tmpfs "$T/full" 2>/dev/null; then
  rm -rf "$T/u"; mkdir -p "$T/u"
  expect_rc 1 "$IOLENS" trace -o "$T/full/t.trace" -- "$P" many "$T/u"
  expect_grep '^done$' "$T/out"
  grep -q 'ran out of space' "$T/err" && ok || fail "full disk: not reported ($(head -3 "$T/err"))"
  ls -d "$T"/full/t.trace.spill.* >/dev/null 2>&1 && ok || fail "full disk: spill removed"
  grep -q 'trace --build' "$T/err" && ok || fail "full disk: how to rebuild not said"
  umount "$T/full"
else
  echo "skip: full-disk check needs root and tmpfs mounts"
fi

# 6. a statically linked program: said so, and its own exit status returned
if printf 'int main(void){return 5;}\n' >"$T/st.c" && cc -static -o "$T/st" "$T/st.c" 2>/dev/null; then
  expect_rc 5 "$IOLENS" trace -o "$T/st.trace" -- "$T/st"
  expect_grep "is statically linked: the tracer cannot be loaded into it" "$T/err"
  [ ! -e "$T/st.trace" ] && ok || fail "a trace was written for a static program"
else
  echo "skip: no static C library"
fi

# 7. launched as MPI ranks: each job has its own spill folder; a stale one is refused
rm -rf "$T"/m.trace*
mk_rank() { env OMPI_COMM_WORLD_RANK=$1 OMPI_COMM_WORLD_SIZE=2 PMIX_NAMESPACE=$2 "$IOLENS" trace -o "$T/m.trace" -- "$P" _Exit "$T/w"; }
mkdir -p "$T/m.trace.spill.old"; : >"$T/m.trace.spill.old/done.1"
IOLENS_TRACE_DIR="$T/m.trace.spill.old" LD_PRELOAD="$IOLENS_SHIM" "$P" _Exit "$T/w" >/dev/null
expect_rc 3 mk_rank 0 new
[ ! -e "$T/m.trace" ] && ok || fail "trace built before rank 1 finished (a stale folder counted)"
expect_rc 3 mk_rank 1 new
"$IOLENS" trace --info "$T/m.trace" >"$T/i" 2>&1 && ok || fail "MPI-launched trace not built"
expect_grep 'processes *2$' "$T/i"
[ -d "$T/m.trace.spill.old" ] && ok || fail "another job's spill folder was touched"
mkdir -p "$T/m.trace.spill.again"; : >"$T/m.trace.spill.again/done.0"
expect_rc 1 mk_rank 0 again
expect_grep "left from an earlier run" "$T/err"

# 8. --rank out of range or malformed
expect_rc 2 "$IOLENS" trace --print "$T/_Exit.trace" --rank -1
expect_rc 2 "$IOLENS" trace --print "$T/_Exit.trace" --rank 99999999999
expect_rc 1 "$IOLENS" trace --print "$T/_Exit.trace" --rank 7
expect_grep "has 1 process(es): --rank wants 0 to 0" "$T/err"
finish
