# Endless and blocking inputs: /dev/zero, /dev/urandom, a FIFO nobody writes to and a
# FIFO fed with random bytes, given as every input of every command. Each command
# ends within 5 s with a clear error, below 256 MiB of resident memory.
. "$(dirname "$0")/lib.sh"
T=$IOLENS_TMP
command -v /usr/bin/time >/dev/null 2>&1 || { echo "SKIP: /usr/bin/time missing"; exit 77; }
LIMIT_KB=$((256 * 1024))
mkdir -p "$T/clusters" "$T/spilldir"

# run_one LABEL CMD...: INPUT in CMD is replaced by each hostile input in turn
run_one() {
  local label=$1; shift
  local kind
  for kind in zero urandom fifo-idle fifo-fed; do
    local in writer=""
    case $kind in
      zero) in=/dev/zero ;;
      urandom) in=/dev/urandom ;;
      fifo-idle) in="$T/idle.fifo"; rm -f "$in"; mkfifo "$in" ;;
      fifo-fed) in="$T/fed.fifo"; rm -f "$in"; mkfifo "$in"
        # (timeout also covers the writer's open, which blocks until a reader comes)
        timeout 8 sh -c 'exec cat /dev/urandom >"$1"' sh "$in" >/dev/null 2>&1 &
        writer=$! ;;
    esac
    local args=() a
    for a in "$@"; do [ "$a" = INPUT ] && args+=("$in") || args+=("$a"); done
    /usr/bin/time -f '%e %M' -o "$T/rusage" timeout -s KILL 10 "${args[@]}" >/dev/null 2>"$T/err" </dev/null
    local rc=$?
    # time(1) writes "Command exited with non-zero status N" (or "terminated by signal") first
    read -r secs kb < <(tail -1 "$T/rusage" 2>/dev/null) || { secs=99; kb=0; }
    if [ "$rc" -eq 137 ] || [ "$rc" -eq 124 ] || awk -v s="$secs" 'BEGIN { exit !(s >= 5) }'; then
      fail "$label on $kind: did not end within 5 s (${secs} s)"
    elif [ "${kb:-0}" -gt "$LIMIT_KB" ]; then
      fail "$label on $kind: ${kb} KiB resident"
    elif [ "$rc" -eq 0 ]; then
      fail "$label on $kind: exit 0"
    elif ! grep -q 'error' "$T/err"; then
      fail "$label on $kind: exit $rc without an error message ($(head -c 200 "$T/err"))"
    else
      ok
    fi
    [ -n "$writer" ] && { kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; }
    rm -f "$T/idle.fifo" "$T/fed.fifo"
  done
}

I=$IOLENS
run_one "trace --print" "$I" trace --print INPUT
run_one "trace --info" "$I" trace --info INPUT
run_one "trace --merge" "$I" trace --merge INPUT -o "$T/m.trace"
run_one "trace --build" "$I" trace --build INPUT -o "$T/b.trace"
run_one "view" "$I" view INPUT
run_one "view --json" "$I" view --json INPUT
run_one "convert" "$I" convert INPUT -o "$T/c.trace"
run_one "darshan" "$I" darshan INPUT
run_one "darshan --report" "$I" darshan --report INPUT
run_one "darshan --json" "$I" darshan --json INPUT
run_one "darshan --heatmap" "$I" darshan --heatmap INPUT
run_one "darshan --dxt" "$I" darshan --dxt INPUT
run_one "darshan --summary" "$I" darshan --summary INPUT
run_one "darshan --from" "$I" darshan --from INPUT -o "$T/d.darshan"
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
run_one "train --rule-logs" "$I" train --rule-logs INPUT -o "$T/models"
run_one "train --features" "$I" train --features INPUT --labels INPUT -o "$T/models"
run_one "eval --rule-logs" "$I" eval --rule-logs INPUT --folds 2 --trees 2
run_one "eval --features" "$I" eval --features INPUT --labels INPUT
run_one "cluster" "$I" cluster -o "$T/cl" INPUT
run_one "place --traces" "$I" place --traces INPUT --clusters "$T/clusters"
run_one "replay config" "$I" replay INPUT --root "$T/root"
run_one "replay --config-from" "$I" replay --config-from INPUT -o "$T/cfg.json"
run_one "whatif" "$I" whatif INPUT --dry-run

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
finish
