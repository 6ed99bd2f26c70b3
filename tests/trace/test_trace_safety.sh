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
expect_grep 'stopped tracing early because the program closed the tracer' "$T/t.err"
same_as_untraced closefrom-pipe 0
expect_grep '^pipe holds 0 bytes$' "$T/t.out"
# (the tracer's descriptor lies at the limit on open files, above every number the program can be
# given: a dup2 onto 100..120 misses it, and one onto the numbers above a raised limit replaces it)
same_as_untraced dup2-spill 0
expect_grep '^mine.dat holds 0 bytes$' "$T/t.out"
! grep -q 'stopped tracing early' "$T/t.err" && ok || fail "dup2 onto 100..120 reached the tracer's descriptor"
same_as_untraced dup2-top 0
expect_grep '^mine.dat holds 0 bytes$' "$T/t.out"
expect_grep 'stopped tracing early because the program made the tracer.s descriptor name another file' "$T/t.err"

# signals: the program sees its own dispositions (the defaults, then its handler), and its handler
# runs; Python's SIGINT is its own KeyboardInterrupt handler, as untraced
same_as_untraced signals 0
expect_grep '^signal 2: sigaction default, signal default$' "$T/t.out"
expect_grep '^signal 11: sigaction default, signal default$' "$T/t.out"
expect_grep '^handler ran 1 times; SIGINT now the program.s$' "$T/t.out"
py='import signal; print(signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))'
/usr/bin/python3 -c "$py" >"$T/py.u" 2>&1
expect_rc 0 "$IOLENS" trace -o "$T/py.trace" -- /usr/bin/python3 -c "$py"
cmp -s "$T/py.u" "$T/out" && ok || fail "python's signal handlers traced: $(cat "$T/out") (untraced: $(cat "$T/py.u"))"
/usr/bin/python3 -c 'import os, signal
try:
    os.kill(os.getpid(), signal.SIGINT); print("no KeyboardInterrupt")
except KeyboardInterrupt:
    print("KeyboardInterrupt")' >"$T/py.u" 2>&1
expect_rc 0 "$IOLENS" trace -o "$T/py.trace" -- /usr/bin/python3 -c 'import os, signal
try:
    os.kill(os.getpid(), signal.SIGINT); print("no KeyboardInterrupt")
except KeyboardInterrupt:
    print("KeyboardInterrupt")'
expect_grep '^KeyboardInterrupt$' "$T/out"
cmp -s "$T/py.u" "$T/out" && ok || fail "Ctrl-C in traced python: $(cat "$T/out")"
# a fatal signal still keeps the trace: the default disposition, killed by it, as untraced
expect_rc 143 "$IOLENS" trace -o "$T/term.trace" -- sh -c 'dd if=/dev/zero of="$1" bs=4k count=8 status=none; kill -TERM $$' sh "$T/term.dat"
"$IOLENS" trace --print "$T/term.trace" | grep -q 'write(' && ok || fail "the calls before SIGTERM were lost"

# every exec form keeps the calls before it and is no cut-short trace
for form in execl execlp execle execvpe fexecve; do
  same_as_untraced exec-$form 0
  expect_grep '^after exec$' "$T/t.out"
  ! grep -q 'ended without closing' "$T/t.err" && ok || fail "exec-$form: the trace was marked cut short"
  [ "$("$IOLENS" trace --print "$T/exec-$form.trace" | grep -cE ' pwrite(64)?\(')" -eq 10 ] && ok ||
    fail "exec-$form: the writes before the exec were lost"
done

# a small limit on open files: the program opens as many, with the same numbers, as untraced;
# where the limit leaves the tracer no room above the program's numbers, it says so and steps aside
for lim in 16 64; do
  rm -rf "$T/fu" "$T/ft"; mkdir -p "$T/fu" "$T/ft"
  (ulimit -n $lim; "$P" fds "$T/fu") >"$T/fds.u" 2>/dev/null
  (ulimit -n $lim; "$IOLENS" trace -o "$T/fds.trace" -- "$P" fds "$T/ft") >"$T/fds.t" 2>"$T/fds.err"
  cmp -s "$T/fds.u" "$T/fds.t" && ok || fail "ulimit -n $lim: traced '$(cat "$T/fds.t")', untraced '$(cat "$T/fds.u")'"
done
expect_grep 'leaves the tracer no descriptor above the program.s (ulimit -n): this process is not traced' "$T/fds.err"
# (a soft limit below the hard one: the tracer's descriptor goes at the soft limit, and traces)
rm -rf "$T/fu" "$T/ft"; mkdir -p "$T/fu" "$T/ft"
(ulimit -Sn 32; "$P" fds "$T/fu") >"$T/fds.u" 2>/dev/null
(ulimit -Sn 32; "$IOLENS" trace -o "$T/fds.trace" -- "$P" fds "$T/ft") >"$T/fds.t" 2>"$T/fds.err"
cmp -s "$T/fds.u" "$T/fds.t" && ok || fail "ulimit -Sn 32: traced '$(cat "$T/fds.t")', untraced '$(cat "$T/fds.u")'"
"$IOLENS" trace --print "$T/fds.trace" | grep -q ' open(' && ok || fail "ulimit -Sn 32: the program was not traced"

# a file system too small for the spill: the program's own writes succeed (the tracer stops
# before it fills it, and says so), the trace keeps what came before, the status is the program's;
# a trace that cannot be written at all: a warning, the program's status
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  mkdir -p "$T/small"
  unshare -m sh -c '
    mount -t tmpfs -o size=48m none "$1" || exit 99
    "$2" trace -o "$1/t.trace" -- dd if=/dev/zero of="$1/data" bs=4k count=10000 status=none
    echo "rc=$? data=$(stat -c %s "$1/data")"' sh "$T/small" "$IOLENS" >"$T/small.out" 2>"$T/small.err"
  expect_grep '^rc=0 data=40960000$' "$T/small.out"
  expect_grep 'so as not to fill the program.s file system' "$T/small.err"
  unshare -m sh -c '
    mount -t tmpfs -o size=1m none "$1" || exit 99
    head -c 1048576 /dev/zero >"$1/fill" 2>/dev/null
    "$2" trace -o "$1/t.trace" -- true; echo "rc=$?"' sh "$T/small" "$IOLENS" >"$T/small.out" 2>"$T/small.err"
  expect_grep '^rc=0$' "$T/small.out"
  expect_grep 'warning: no trace written (the program.s exit status is kept)' "$T/small.err"
else
  echo "skip: the small file system needs root and a mount namespace"
fi

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

# 5. a small file system under the spill (a 512 KiB tmpfs, as root): the program runs to its end
#    and exits as untraced, the spill stops before it fills the file system and the builder says so
if [ "$(id -u)" -eq 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=512k tmpfs "$T/full" 2>/dev/null; then
  rm -rf "$T/u"; mkdir -p "$T/u"
  expect_rc 0 "$IOLENS" trace -o "$T/full/t.trace" -- "$P" many "$T/u"
  expect_grep '^done$' "$T/out"
  grep -q 'so as not to fill the program.s file system' "$T/err" && ok || fail "small disk: not reported ($(head -3 "$T/err"))"
  # (the calls before the stop make the trace, written there; or, when it does not fit either, the
  # spill is kept with how to rebuild)
  if [ -s "$T/full/t.trace" ]; then
    "$IOLENS" trace --info "$T/full/t.trace" >/dev/null && ok || fail "small disk: the trace written is unreadable"
  else
    ls -d "$T"/full/t.trace.spill.* >/dev/null 2>&1 && ok || fail "small disk: no trace and the spill removed"
    grep -q 'trace --build' "$T/err" && ok || fail "small disk: how to rebuild not said"
  fi
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
