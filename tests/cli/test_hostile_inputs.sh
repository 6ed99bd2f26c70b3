# Endless and blocking inputs: /dev/zero, /dev/urandom, a FIFO nobody writes to and a
# FIFO fed with random bytes, given as every input of every command. Each command ends (a
# generous cap: 60 s, where a quiet machine takes under 4) with a clear error, below 256 MiB of
# resident memory. The idle FIFOs all wait at once (each command waits up to 3 s for a writer).
. "$(dirname "$0")/lib.sh"
T=$IOLENS_TMP
command -v /usr/bin/time >/dev/null 2>&1 || { echo "SKIP: /usr/bin/time missing"; exit 77; }
LIMIT_KB=$((256 * 1024))
# a sanitizer build's allocator keeps shadow memory, redzones and a quarantine of freed blocks
# (a 141 MiB refusal of a Darshan bomb resides at 318 MiB under AddressSanitizer): twice the bound
# there; the release build's tests hold the bound itself
[ "${IOLENS_SANITIZED:-0}" = 1 ] && LIMIT_KB=$((2 * LIMIT_KB))
CAP=60
mkdir -p "$T/clusters" "$T/spilldir" "$T/case"
ncase=0

# run_case N LABEL KIND CMD...: one command on one hostile input (INPUT in CMD; OUT its own
# output path); its verdict in $T/case/N.verdict
run_case() {
  local n=$1 label=$2 kind=$3; shift 3
  local in writer="" d=$T/case/$n
  case $kind in
    zero) in=/dev/zero ;;
    urandom) in=/dev/urandom ;;
    fifo-idle) in="$d.fifo"; mkfifo "$in" ;;
    fifo-fed) in="$d.fifo"; mkfifo "$in"
      # (timeout also covers the writer's open, which blocks until a reader comes)
      timeout $CAP sh -c 'exec cat /dev/urandom >"$1"' sh "$in" >/dev/null 2>&1 &
      writer=$! ;;
  esac
  local args=() a
  for a in "$@"; do
    case $a in INPUT) args+=("$in") ;; OUT) args+=("$d.out") ;; *) args+=("$a") ;; esac
  done
  /usr/bin/time -f '%e %M' -o "$d.rusage" timeout -s KILL $CAP "${args[@]}" >/dev/null 2>"$d.err" </dev/null
  local rc=$? secs kb
  # time(1) writes "Command exited with non-zero status N" (or "terminated by signal") first
  read -r secs kb < <(tail -1 "$d.rusage" 2>/dev/null) || { secs=99; kb=0; }
  if [ "$rc" -eq 137 ] || [ "$rc" -eq 124 ]; then
    echo "$label on $kind: did not end within $CAP s" >"$d.verdict"
  elif [ "${kb:-0}" -gt "$LIMIT_KB" ]; then
    echo "$label on $kind: ${kb} KiB resident" >"$d.verdict"
  elif [ "$rc" -eq 0 ]; then
    echo "$label on $kind: exit 0" >"$d.verdict"
  elif ! grep -q 'error' "$d.err"; then
    echo "$label on $kind: exit $rc without an error message ($(head -c 200 "$d.err"))" >"$d.verdict"
  else
    echo ok >"$d.verdict"
  fi
  [ -n "$writer" ] && { kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; }
  rm -f "$d.fifo"
}

# run_one LABEL CMD...: INPUT in CMD is replaced by each hostile input in turn; the idle FIFO
# case runs in the background
run_one() {
  local label=$1 kind; shift
  for kind in zero urandom fifo-fed; do
    ncase=$((ncase + 1)); run_case "$ncase" "$label" "$kind" "$@"
  done
  ncase=$((ncase + 1)); run_case "$ncase" "$label" fifo-idle "$@" &
}

I=$IOLENS
run_one "trace --print" "$I" trace --print INPUT
run_one "trace --info" "$I" trace --info INPUT
run_one "trace --merge" "$I" trace --merge INPUT -o OUT
run_one "trace --build" "$I" trace --build INPUT -o OUT
run_one "view" "$I" view INPUT
run_one "view --json" "$I" view --json INPUT
run_one "convert" "$I" convert INPUT -o OUT
run_one "darshan" "$I" darshan INPUT
run_one "darshan --report" "$I" darshan --report INPUT
run_one "darshan --json" "$I" darshan --json INPUT
run_one "darshan --heatmap" "$I" darshan --heatmap INPUT
run_one "darshan --dxt" "$I" darshan --dxt INPUT
run_one "darshan --summary" "$I" darshan --summary INPUT
run_one "darshan --from" "$I" darshan --from INPUT -o OUT
run_one "detect" "$I" detect INPUT
run_one "detect --features" "$I" detect --features INPUT
run_one "detect --models" "$I" detect --models INPUT "$T/none.darshan"
run_one "features" "$I" features INPUT
run_one "advise" "$I" advise --offline INPUT
GOODLOG=$(find "$IOLENS_SHARED_DATA/darshan" -name '*.darshan' 2>/dev/null | sort | head -1)
if [ -n "$GOODLOG" ]; then
  run_one "advise --config" "$I" advise --offline --config INPUT "$GOODLOG"
  run_one "advise --key-file" "$I" advise --endpoint http://127.0.0.1:9/v1 --retries 0 --key-file INPUT "$GOODLOG"
fi
run_one "train --rule-logs" "$I" train --rule-logs INPUT -o OUT
run_one "train --features" "$I" train --features INPUT --labels INPUT -o OUT
run_one "eval --rule-logs" "$I" eval --rule-logs INPUT --folds 2 --trees 2
run_one "eval --features" "$I" eval --features INPUT --labels INPUT
run_one "cluster" "$I" cluster -o OUT INPUT
run_one "place --traces" "$I" place --traces INPUT --clusters "$T/clusters"
run_one "replay config" "$I" replay INPUT --root OUT
run_one "replay --config-from" "$I" replay --config-from INPUT -o OUT
run_one "whatif" "$I" whatif INPUT --dry-run
wait
for v in "$T"/case/*.verdict; do
  if [ "$(cat "$v")" = ok ]; then ok; else fail "$(cat "$v")"; fi
done
[ "$(ls "$T"/case/*.verdict | wc -l)" -eq "$ncase" ] && ok || fail "$(ls "$T"/case/*.verdict | wc -l) verdicts of $ncase cases"
# (no message says its prefix twice)
! grep -l 'error: iolens: error' "$T"/case/*.err >/dev/null 2>&1 && ok || fail "a message prefixed twice: $(grep -h 'error: iolens: error' "$T"/case/*.err | head -1)"

# a directory where a list or a file is wanted
mkdir -p "$T/adir"
expect_rc 1 "$IOLENS" train --rule-logs "$T/adir" -o "$T/models"
expect_grep "is a directory" "$T/err"
printf '# nothing\n\n' >"$T/empty.list"
expect_rc 1 "$IOLENS" eval --rule-logs "$T/empty.list" --folds 2
expect_grep "names no log" "$T/err"
expect_rc 1 "$IOLENS" detect --models "$T/adir" "$T/adir"
expect_grep "no meta.json there" "$T/err"
expect_rc 1 "$IOLENS" detect --models "$T/nowhere" "$T/adir"
expect_grep "cannot read the models in '$T/nowhere': No such file" "$T/err"
# missing inputs are named as missing, whatever the command
for c in "view M" "convert M -o $T/o" "darshan --from M -o $T/o" "replay M" "trace --print M" "detect M" "advise M" "cluster -o $T/o M"; do
  expect_rc 1 $IOLENS ${c//M/$T/missing}
  grep -q "cannot open '$T/missing'.*No such file" "$T/err" && ok || fail "$c on a missing path: $(head -1 "$T/err")"
done

# darshan --summary: directory links are not followed (a loop ends), each directory is read once
L=$(find "$IOLENS_SHARED_DATA/darshan" -name '*.darshan' | head -1)
if [ -n "$L" ]; then
  mkdir -p "$T/sl/a"; cp "$L" "$T/sl/a/x.darshan"
  ln -s .. "$T/sl/a/up"; ln -s "$T/sl/a" "$T/sl/b"; ln -s "$T/sl/b" "$T/sl/a/c"; ln -s "$T/sl/a/x.darshan" "$T/sl/y.darshan"
  for f in "" --follow-links; do
    /usr/bin/time -f '%e %M' -o "$T/rusage" timeout 10 "$IOLENS" darshan --summary $f "$T/sl" >"$T/out" 2>"$T/err"
    [ "$(wc -l <"$T/out")" -eq 3 ] && ok || fail "darshan --summary $f over links: $(($(wc -l <"$T/out") - 1)) rows (want 2)"
  done
fi
# large and inflating inputs: refused early, in bounded memory (the cap: 256 MiB and 4 times the
# input's size), with a message naming the file and what is wrong
within() { # within LIMIT_KB LABEL CMD...: exit 1, an error, below LIMIT_KB of resident memory
  local lim=$1 label=$2; shift 2
  /usr/bin/time -f '%e %M' -o "$T/rusage" timeout -s KILL $CAP "$@" >/dev/null 2>"$T/err" </dev/null
  local rc=$? secs kb
  read -r secs kb < <(tail -1 "$T/rusage" 2>/dev/null) || kb=0
  [ $rc -eq 1 ] && grep -q 'error' "$T/err" && [ "${kb:-0}" -le "$lim" ] && ok ||
    fail "$label: exit $rc, ${kb} KiB: $(head -c 200 "$T/err")"
}
truncate -s 2G "$T/sparse2g"
for c in "trace --info" "view" "darshan --from" "trace --print" "replay"; do
  within $LIMIT_KB "$c on a 2 GB file that is no trace" $IOLENS $c "$T/sparse2g" $([ "$c" = "darshan --from" ] && echo "-o $T/x.darshan")
done
grep -q "iolens trace (no IOLTRACE magic at byte 0)" "$T/err" && ok || fail "2 GB non-trace: $(head -1 "$T/err")"
rm -f "$T/sparse2g"
# a trace whose section claims a size far beyond what it stores (a decompression bomb's header)
expect_rc 0 "$IOLENS" trace -o "$T/small.trace" -- true
/usr/bin/python3 - "$T/small.trace" "$T/bomb.trace" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", d, 12)[0]
for i in range(n):
    t, c, off, st, sz = struct.unpack_from("<IIQQQ", d, 16 + 32 * i)
    if t == 2:  # the structure section: it says it inflates to 1 GiB
        struct.pack_into("<Q", d, 16 + 32 * i + 24, 1 << 30)
open(sys.argv[2], "wb").write(d)
PY
within $LIMIT_KB "trace --info on an inflating trace" "$IOLENS" trace --info "$T/bomb.trace"
expect_grep "implausible section size" "$T/err"
# a Darshan log whose POSIX region inflates to 1 GiB of zeros (1 MiB compressed)
DD=$IOLENS_SHARED_DATA/darshan/generated/nonmpi_dd_64MiB.darshan
if [ -e "$DD" ]; then
  /usr/bin/python3 - "$DD" "$T/bomb.darshan" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
# 1 GiB of zeros deflated, made of one MiB's stream repeated: after a full flush the same input
# deflates to the same bytes (a third of a second instead of five for deflating the whole GiB)
mb, c = bytes(1 << 20), zlib.compressobj(9)
first = c.compress(mb) + c.flush(zlib.Z_FULL_FLUSH)
block = c.compress(mb) + c.flush(zlib.Z_FULL_FLUSH)
last = c.compress(mb) + c.flush()
adler = 1
for _ in range(1024):
    adler = zlib.adler32(mb, adler)
z = first + block * 1022 + last[:-4] + struct.pack(">I", adler)
struct.pack_into("<QQ", d, 48 + 16, len(d), len(z))  # the POSIX region (module 1 of format 3.41)
open(sys.argv[2], "wb").write(d + z)
PY
  lim=$((LIMIT_KB + 4 * $(stat -c %s "$T/bomb.darshan") / 1024))
  for c in "darshan" "darshan --json" "darshan --total" "darshan --file" "detect" "report"; do
    within $lim "$c on a Darshan decompression bomb" $IOLENS $c "$T/bomb.darshan"
  done
  expect_grep "decompression bomb" "$T/err"
fi

# -o names a file that is kept until the command succeeds: a failure leaves it as it was
printf 'precious\n' >"$T/keep.html"
expect_rc 1 "$IOLENS" report "$T/nosuch" -o "$T/keep.html"
[ "$(cat "$T/keep.html")" = precious ] && ok || fail "report of a missing input emptied -o"
expect_rc 1 "$IOLENS" darshan "$T/bomb.darshan" -o "$T/keep.html"
[ "$(cat "$T/keep.html")" = precious ] && ok || fail "a failed darshan emptied -o"
L0=$(find "$IOLENS_SHARED_DATA/darshan" -name '*noposix*.darshan' | head -1)
if [ -n "$L0" ]; then
  expect_rc 1 "$IOLENS" view --chrome-trace "$L0" -o "$T/keep.html"
  [ "$(cat "$T/keep.html")" = precious ] && ok || fail "view --chrome-trace of a log without DXT emptied -o"
fi
ls -A "$T" | grep -q '\.iolens-' && fail "temporary outputs left: $(ls -A "$T" | grep '\.iolens-')" || ok
finish
