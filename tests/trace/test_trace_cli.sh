# iolens trace on real programs: the decoded trace equals each program's own
# log of what it called (arguments, results, errno, order per thread).
. "$(dirname "$0")/../cli/lib.sh"
# where in its page a transfer's buffer starts (buf=page+N) is not in the probes' logs
# (without the notes of descriptors the probe had open when it started: not calls, see 1c)
nobuf() { sed -e 's/, buf=page+[0-9]*//' -e '/iolens_fd_at_[a-z]*(/d'; }
: "${TRACE_PROBE:?}" "${IOLENS_SHIM:?}"
P=$TRACE_PROBE
T=$IOLENS_TMP
calls() { awk '$5 == 0' | cut -d' ' -f6- | nobuf; } # drop rank, thread, tstart, tend, depth

# This test once hit its 300 s limit in a full parallel run and never alone: if it is still
# running after 240 s, say where (the processes and their stacks) before ctest kills it.
(
  trap 'kill $s 2>/dev/null; exit 0' TERM
  sleep 240 </dev/null >/dev/null 2>&1 &
  s=$!
  wait $s
  echo "watchdog: still running after 240 s"
  ps -eo pid,ppid,stat,wchan:32,etime,args --forest | awk '$1 != 2 && $2 != 2' # not the kernel's threads
  for p in $(pgrep -f "trace_probe|iolens" || true); do
    echo "== $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
    if command -v gdb >/dev/null; then gdb -batch -p "$p" -ex "thread apply all bt" 2>/dev/null | grep -E '^(#|Thread)'
    else cat "/proc/$p/stack" 2>/dev/null; fi
  done
) >&2 &
watchdog=$!
trap 'kill $watchdog 2>/dev/null' EXIT

# 1. every wrapped POSIX and stdio function, single thread
mkdir -p "$T/d"
expect_rc 0 "$IOLENS" trace -o "$T/all.trace" -- "$P" all "$T/all.log" "$T/d"
cp "$T/out" "$T/all.stdout"
expect_rc 0 "$IOLENS" trace --print "$T/all.trace"
calls <"$T/out" >"$T/all.got"
if diff "$T/all.log" "$T/all.got" >"$T/all.diff"; then ok; else fail "decoded trace differs from the probe's log"; head -20 "$T/all.diff" >&2; fi
[ "$(wc -l <"$T/all.log")" -ge 120 ] && ok || fail "probe log too short"
# the shim records where in its page each read/write buffer starts (trace/format.h IOL_BUFPOS)
"$IOLENS" trace --print "$T/all.trace" | awk '$5 == 0' | grep -E ' p?(read|write)(64)?\(' >"$T/rw"
[ -s "$T/rw" ] && ! grep -vqE ', buf=page\+[0-9]+\)' "$T/rw" && ok || fail "read/write calls without their buffer position"
expect_rc 0 "$IOLENS" trace --print "$T/all.trace" --json
expect_grep '"func":"pwrite64"' "$T/out"
expect_rc 0 "$IOLENS" trace --info "$T/all.trace" --json
expect_grep '"calls"' "$T/out"

# 1a. iolens view: recorder2text's layout with every argument in the C call's order
expect_rc 0 "$IOLENS" view "$T/all.trace"
[ "$(grep -vc ' iolens_fd_at_' "$T/out")" -eq "$(wc -l <"$T/all.got")" ] && ok || fail "view and --print disagree on the number of calls"
expect_grep "^0 [0-9.]* [0-9.]* pwrite 0 0 ( $T/d/a.dat %p 64 200 )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* open 0 0 ( $T/d/a.dat 578 420 )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* mmap 0 0 ( %p 4096 3 1 $T/d/a.dat 0 )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* rename 0 0 ( $T/d/b.dat $T/d/sub )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* fopen 0 5 ( $T/d/s.txt w+ )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* fwrite 0 5 ( %p 8 4 $T/d/s.txt )\$" "$T/out"
expect_grep "^0 [0-9.]* [0-9.]* read 0 0 ( ??? %p 10 )\$" "$T/out"
expect_rc 0 "$IOLENS" view --json "$T/all.trace"
expect_grep '"func":"pwrite64",.*"args":\[".*a.dat","%p","64","264"\]' "$T/out"

# 1c. the descriptors it had open when it started: its standard output and error (files here), as
# the test runs it, each noted with its status flags and position before its first call
expect_rc 0 "$IOLENS" trace --print "$T/all.trace"
expect_grep "^0 0 [0-9.]* [0-9.]* 0 iolens_fd_at_start(\"$T/out\", fd=1, flags=0x[0-9a-f]*1, position=0) = 1\$" "$T/out"
expect_grep "^0 0 [0-9.]* [0-9.]* 0 iolens_fd_at_start(\"$T/err\", fd=2, flags=0x[0-9a-f]*1, position=0) = 2\$" "$T/out"

# 1b. every wrapped POSIX and stdio function in 4 threads at once: each thread's calls equal its log
rm -rf "$T/d"; mkdir -p "$T/d"
expect_rc 0 "$IOLENS" trace -o "$T/at.trace" -- "$P" allthreads "$T/at.log" "$T/d" 4
"$IOLENS" trace --print "$T/at.trace" | nobuf | awk '$5 == 0' | cut -d' ' -f2,6- |
  awk -v out="$T/at.got" '{ t = $1; line = substr($0, length($1) + 2)
    if (!(t in k) && match(line, /\/t[0-9]+\//)) k[t] = substr(line, RSTART + 2, RLENGTH - 3)
    buf[t] = buf[t] line "\n" } END { for (t in buf) printf "%s", buf[t] > (out "." k[t]) }'
for k in 0 1 2 3; do
  if cmp -s "$T/at.log.$k" "$T/at.got.$k"; then ok; else fail "thread $k: decoded trace differs from its log"; diff "$T/at.log.$k" "$T/at.got.$k" | head -5 >&2; fi
done
[ "$(cat "$T"/at.got.* | wc -l)" -eq "$("$IOLENS" trace --print "$T/at.trace" | nobuf | awk '$5 == 0' | wc -l)" ] && ok || fail "calls outside the 4 threads"

# 2. the same program untraced: same output, same results and errno values
rm -rf "$T/d"; mkdir -p "$T/d"
"$P" all "$T/plain.log" "$T/d" >"$T/out" # (the same output file: the log names it)
cp "$T/out" "$T/plain.stdout"
# (the names mkstemp and friends make of their templates are random: tmpN + 6 characters)
tmpnames() { sed -E 's/(tmp[0-9])[A-Za-z0-9]{6}/\1XXXXXX/g' "$1"; }
[ "$(tmpnames "$T/plain.log")" = "$(tmpnames "$T/all.log")" ] && ok || fail "traced and untraced runs differ (results/errno)"
cmp -s "$T/plain.stdout" "$T/all.stdout" && ok || fail "traced and untraced outputs differ"

# 3. 8 threads x 100000 calls (25000 in a sanitizer build): nothing lost, nothing duplicated,
# order per thread kept (sorted bytewise: the locale's collation took 8 s of the test)
rm -rf "$T/d"; mkdir -p "$T/d"
ncalls=100000; [ -n "${IOLENS_SANITIZED:-}" ] && ncalls=25000
expect_rc 0 "$IOLENS" trace -o "$T/thr.trace" -- "$P" threads "$T/thr.log" "$T/d" 8 $ncalls
"$IOLENS" trace --print "$T/thr.trace" | nobuf | awk '$5 == 0 { t = $2; n[t]++; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); match($0, /"[^"]*"/); print substr($0, RSTART, RLENGTH), n[t], $0 }' | LC_ALL=C sort >"$T/thr.got"
awk '{ t = $1; n[t]++; $1 = ""; sub(/^ +/, ""); match($0, /"[^"]*"/); print substr($0, RSTART, RLENGTH), n[t], $0 }' "$T/thr.log" | LC_ALL=C sort >"$T/thr.want"
[ "$(wc -l <"$T/thr.want")" -eq $((8 * ncalls + 16)) ] && ok || fail "thread log has $(wc -l <"$T/thr.want") lines"
cmp -s "$T/thr.want" "$T/thr.got" && ok || fail "multi-threaded trace differs from the threads' logs"
rm -f "$T/thr.got" "$T/thr.want" "$T/thr.log"

# 4. killed by a signal: the trace reads fully or is reported truncated, never a crash
for sig in 11 15 9; do
  rm -rf "$T/d"; mkdir -p "$T/d"
  expect_rc $((128 + sig)) "$IOLENS" trace -o "$T/sig$sig.trace" -- "$P" signal "$T/sig.log" "$T/d" $sig
  expect_rc 0 "$IOLENS" trace --print "$T/sig$sig.trace"
  expect_grep 'truncated' "$T/err"
  calls <"$T/out" >"$T/sig.got"
  if [ $sig -eq 9 ]; then
    # SIGKILL cannot be caught: what was flushed is a prefix of what was called
    head -n "$(wc -l <"$T/sig.got")" "$T/sig.log" | cmp -s - "$T/sig.got" && ok || fail "SIGKILL trace is not a prefix"
  else
    cmp -s "$T/sig.log" "$T/sig.got" && ok || fail "signal $sig: trace differs from the log"
  fi
done

# 5. trace folder full (ENOSPC): the program completes as untraced; the trace reads or reports truncation
mnt="$T/small"
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  rm -rf "$T/d"; mkdir -p "$T/d"
  LD_PRELOAD=$IOLENS_SHIM IOLENS_TRACE_DIR=$mnt "$P" threads "$T/full.log" "$T/d" 1 20000
  [ $? -eq 0 ] && ok || fail "program failed with a full trace folder"
  rm -rf "$T/d"; mkdir -p "$T/d"
  "$P" threads "$T/full.plain" "$T/d" 1 20000
  cmp -s "$T/full.log" "$T/full.plain" && ok || fail "full trace folder changed the program's results"
  expect_rc 0 "$IOLENS" trace --build "$mnt" -o "$T/full.trace"
  grep -qE 'ran out of space|so as not to fill' "$T/err" && ok || fail "a full trace folder not reported: $(head -2 "$T/err")"
  expect_rc 0 "$IOLENS" trace --print "$T/full.trace"
  umount "$mnt"
else
  echo "note: cannot mount a small tmpfs here; ENOSPC check skipped"
fi

# 6. a trace cut anywhere is refused with a message naming the file and byte offset
head -c 100 "$T/all.trace" >"$T/cut.trace"
expect_rc 1 "$IOLENS" trace --print "$T/cut.trace"
expect_grep "cannot read '.*cut.trace'.* at byte [0-9]" "$T/err"

# 7. fork + exec: every process is its own rank of the trace
echo hello >"$T/in.txt"
expect_rc 0 "$IOLENS" trace -o "$T/sh.trace" -- sh -c "cat '$T/in.txt' > '$T/out.txt'; cat '$T/out.txt' >/dev/null"
expect_rc 0 "$IOLENS" trace --info "$T/sh.trace" --json
awk -F: '/"processes"/ { exit !($2 + 0 >= 3) }' "$T/out" && ok || fail "fork+exec children are not separate processes"
expect_rc 0 "$IOLENS" trace --print "$T/sh.trace"
grep -q "^[1-9][0-9]* .* open(\"$T/in.txt\"" "$T/out" && ok || fail "the child's open is not in its own rank"
grep -q "^0 .* open64(\"$T/out.txt\"" "$T/out" && ok || fail "the shell's redirection is not in rank 0"

# 7b. an image that records nothing before it execs (env, iolens handing a command to
# iolens-full) leaves no empty process: one process, the one that did the I/O
expect_rc 0 "$IOLENS" trace -o "$T/env.trace" -- env dd if="$T/in.txt" of="$T/env.txt" status=none
expect_rc 0 "$IOLENS" trace --info "$T/env.trace" --json
awk -F: '/"processes"/ { exit !($2 + 0 == 1) }' "$T/out" && ok || fail "env's image before its exec is a process of the trace ($T/out)"
expect_rc 0 "$IOLENS" trace -o "$T/self.trace" -- "$IOLENS" replay "$T/env.trace" --root "$T/self-root"
expect_rc 0 "$IOLENS" trace --info "$T/self.trace" --json
awk -F: '/"processes"/ { exit !($2 + 0 == 1) }' "$T/out" && ok || fail "iolens running iolens-full is two processes ($T/out)"

# 8. merging separate runs: each input process becomes a rank, every call kept
expect_rc 0 "$IOLENS" trace --merge "$T/all.trace" "$T/sh.trace" -o "$T/merged.trace"
"$IOLENS" trace --print "$T/merged.trace" --rank 0 | calls >"$T/m0"
cmp -s "$T/all.log" "$T/m0" && ok || fail "merged trace lost calls of the first run"
n_sh=$("$IOLENS" trace --print "$T/sh.trace" | nobuf | wc -l)
n_m=$("$IOLENS" trace --print "$T/merged.trace" | nobuf | wc -l)
[ "$n_m" -eq $((n_sh + $(wc -l <"$T/m0"))) ] && ok || fail "merged trace has $n_m calls"

# 8a. the tracer's own cost (format 1.1 SELF section): sampled on about one call in 64, kept by
# merge; a trace of format 1.0 (without it) still reads and says it is not recorded
expect_rc 0 "$IOLENS" trace -o "$T/dd.trace" -- dd if=/dev/zero of="$T/dd.out" bs=512 count=6400
expect_rc 0 "$IOLENS" trace --info "$T/dd.trace" --json
/usr/bin/python3 - "$T/out" <<'PYEOF' && ok || fail "tracer cost not sampled as expected ($T/out)"
import json, sys
d = json.load(open(sys.argv[1]))
n = d["calls"]
assert n // 160 <= d["tracer_samples"] <= n // 25, (n, d["tracer_samples"])
# seconds, not nanoseconds: bounds of units, not of speed (a sample the scheduler preempts on a
# loaded machine takes milliseconds)
assert 1e-9 < d["tracer_gap_seconds"] < 0.1 and 0 < d["clock_read_seconds"] < 0.1, d
# format 1.2: the same per function, every sample of the process in one of them
f = d["tracer_gap_by_function"]
assert f and sum(x["samples"] for x in f) == d["tracer_samples"], f
assert all(1e-9 < x["gap_seconds"] < 1.0 for x in f), f
assert {x["function"] for x in f} & {"read", "write"}, f
PYEOF
expect_rc 0 "$IOLENS" trace --info "$T/dd.trace"
expect_grep '^tracer cost [0-9.]* us per call between calls, clock read [0-9.]* us ([0-9]* sampled calls)$' "$T/out"
expect_grep '^tracer cost after [a-z0-9_]* [0-9.]* us ([0-9]*)' "$T/out"
expect_rc 0 "$IOLENS" trace --merge "$T/dd.trace" "$T/all.trace" -o "$T/ddm.trace"
expect_rc 0 "$IOLENS" trace --info "$T/dd.trace" --json
s1=$(grep -o '"tracer_samples": *[0-9]*' "$T/out")
expect_rc 0 "$IOLENS" trace --info "$T/ddm.trace" --json
s2=$(grep -o '"tracer_samples": *[0-9]*' "$T/out")
[ -n "$s1" ] && [ "${s1##* }" -le "${s2##* }" ] && ok || fail "merge lost the tracer cost ($s1 -> $s2)"
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert sum(x["samples"] for x in d["tracer_gap_by_function"]) == d["tracer_samples"]' "$T/out" && ok ||
  fail "merge lost the tracer cost per function ($T/out)"
old10=$(dirname "$0")/../../fuzz/corpus/trace/probe_all.trace
expect_rc 0 "$IOLENS" trace --info "$old10"
expect_grep '^tracer cost not recorded$' "$T/out"
expect_grep '^command     not recorded$' "$T/out"
# (and its fseek's position after the call, recorded since 1.4, is unknown, not 0)
expect_rc 0 "$IOLENS" trace --print "$old10"
expect_grep 'fseek(".*", fd=[0-9]*, off=4, whence=0, at=-1) = 0$' "$T/out"

# 8b. the job: each process's command line (its arguments as given, spaces kept inside one),
# user and batch job id (format 1.3); through a merge, into Darshan's job record and the report
expect_rc 0 env SLURM_JOB_ID=4711 "$IOLENS" trace -o "$T/job.trace" -- sh -c 'cat "$1" >/dev/null' job-sh "$T/dd.out"
expect_rc 0 "$IOLENS" trace --info "$T/job.trace" --json
/usr/bin/python3 - "$T/out" "$T/dd.out" "$(id -u)" <<'PYEOF' && ok || fail "job not recorded as run ($T/out)"
import json, sys
d = json.load(open(sys.argv[1]))
cmds = {c["command"]: c["processes"] for c in d["commands"]}
assert cmds == {'sh -c cat "$1" >/dev/null job-sh ' + sys.argv[2]: 1, "cat " + sys.argv[2]: 1}, cmds
assert d["uid"] == int(sys.argv[3]) and d["jobid"] == "4711", d
PYEOF
expect_rc 0 "$IOLENS" trace --info "$T/job.trace"
expect_grep "^command     sh -c cat \"\$1\" >/dev/null job-sh $T/dd.out (1 process)$" "$T/out"
expect_grep "^job         uid $(id -u), job id 4711$" "$T/out"
expect_rc 0 "$IOLENS" trace --merge "$T/dd.trace" "$T/job.trace" -o "$T/jobm.trace"
expect_rc 0 "$IOLENS" trace --info "$T/jobm.trace"
expect_grep "^command     dd if=/dev/zero of=$T/dd.out bs=512 count=6400 (1 process)$" "$T/out"
expect_grep "^            cat $T/dd.out (1 process)$" "$T/out"
expect_rc 0 "$IOLENS" darshan --from "$T/job.trace" -o "$T/job.darshan"
expect_rc 0 "$IOLENS" darshan "$T/job.darshan"
expect_grep "^# exe: sh -c cat \"\$1\" >/dev/null job-sh $T/dd.out $" "$T/out"
expect_grep '^# jobid: 4711$' "$T/out"
expect_rc 0 "$IOLENS" darshan --from "$T/job.trace" -o "$T/job2.darshan" --exe "given"
expect_rc 0 "$IOLENS" darshan "$T/job2.darshan"
expect_grep '^# exe: given$' "$T/out"
# the runtime's /proc/self/cmdline reading stops at an empty argument and at a newline
expect_rc 0 "$IOLENS" trace -o "$T/e1.trace" -- /bin/true a "" b
expect_rc 0 "$IOLENS" darshan --from "$T/e1.trace" -o "$T/e1.darshan"
expect_rc 0 "$IOLENS" darshan "$T/e1.darshan"
expect_grep '^# exe: /bin/true a $' "$T/out"
expect_rc 0 "$IOLENS" trace -o "$T/e2.trace" -- /bin/true one "two
three" four
expect_rc 0 "$IOLENS" darshan --from "$T/e2.trace" -o "$T/e2.darshan"
expect_rc 0 "$IOLENS" darshan "$T/e2.darshan"
expect_grep '^# exe: /bin/true one two$' "$T/out"
# without a job id in the environment, Darshan's: the pid of the (first) process
expect_rc 0 env -u SLURM_JOB_ID -u PBS_JOBID -u LSB_JOBID -u COBALT_JOBID -u FLUX_JOB_ID \
  "$IOLENS" trace -o "$T/nojob.trace" -- cat "$T/dd.out"
expect_rc 0 "$IOLENS" darshan --from "$T/nojob.trace" -o "$T/nojob.darshan"
expect_rc 0 "$IOLENS" darshan "$T/nojob.darshan"
expect_grep '^# jobid: [1-9][0-9]*$' "$T/out"

# 9. usage errors
expect_rc 2 "$IOLENS" trace
expect_rc 2 "$IOLENS" trace --layers bogus -- true
expect_rc 0 "$IOLENS" trace -o "$T/true.trace" --layers stdio -- true
expect_rc 127 "$IOLENS" trace -o "$T/none.trace" -- /nonexistent/iolens-program
expect_rc 3 "$IOLENS" trace -o "$T/three.trace" -- sh -c 'exit 3'
expect_rc 1 "$IOLENS" trace --print "$T/nonexistent.trace"
expect_grep "cannot open '.*nonexistent.trace'" "$T/err"
finish
