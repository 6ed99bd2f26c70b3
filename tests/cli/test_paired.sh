# iolens paired: two real commands, alternating, median ratio with its order-statistic interval.
. "$(dirname "$0")/lib.sh"
T=$IOLENS_TMP
# a known ratio through --metric: B prints 20, A prints 10 -> exactly 2, interval [2, 2], faster
expect_rc 0 "$IOLENS" paired -n 7 --warmup 0 --json --metric 'value=([0-9.]+)' -- sh -c 'echo value=10' -- sh -c 'echo value=20'
/usr/bin/python3 -c "
import json, sys; d = json.load(open('$T/out'))
ok = d['median'] == 2.0 and d['interval'] == [2.0, 2.0] and d['verdict'] == 'faster' and len(d['ratios']) == 7 and d['k'] == 1
sys.exit(0 if ok else 1)" && ok || fail "metric ratio: $(tr -d '\n ' <"$T/out" | head -c 300)"
# ^ anchors at a line's start, not only the output's: the second line's number is the metric
expect_rc 0 "$IOLENS" paired -n 5 --warmup 0 --metric '^write ([0-9.]+)' -- sh -c 'echo a; echo write 10' -- sh -c 'echo b; echo write 30'
expect_grep 'median of 5 rounds: 3$' "$T/out"
# wall time: sleep 0.4 against sleep 0.1 -> B is about four times as fast (each run also pays its
# start-up: the same milliseconds on both sides, tens of them on a loaded machine)
expect_rc 0 "$IOLENS" paired -n 5 --json -- sleep 0.4 -- sleep 0.1
/usr/bin/python3 -c "
import json, sys; d = json.load(open('$T/out'))
# the median is that of the per-pair ratios it reports; about 4, less the start-up each run adds
# to both sides (within [2, 4.5] up to 0.2 s of it a run)
import statistics
r = [x / y for x, y in zip(d['a'], d['b'])]
ok = abs(statistics.median(r) - d['median']) < 1e-9 and 2 <= d['median'] <= 4.5
sys.exit(0 if ok and d['verdict'] == 'faster' and d['interval'][0] <= d['median'] <= d['interval'][1] else 1)" &&
  ok || fail "sleep 0.4 vs 0.1: $(tr -d '\n ' <"$T/out" | head -c 300)"
expect_rc 0 "$IOLENS" paired -n 5 --warmup 0 -- sleep 0.3 -- sleep 0.05
expect_grep '^verdict: faster$' "$T/out"
expect_grep '^interval: \[.*\] (ratios 1 and 5 of 5, sorted: 93.8% coverage)$' "$T/out"
# stops on a failing command or audit; usage errors
expect_rc 1 "$IOLENS" paired -n 3 --warmup 0 -- true -- false
expect_grep "command B ('false') exited with 1" "$T/err"
expect_rc 1 "$IOLENS" paired -n 3 --warmup 0 --audit 'exit 3' -- true -- true
expect_grep "the audit command failed after round 1" "$T/err"
expect_rc 1 "$IOLENS" paired -n 3 --warmup 0 --metric 'nothing=([0-9]+)' -- true -- true
expect_grep "printed nothing that matches --metric" "$T/err"
expect_rc 2 "$IOLENS" paired -n 3 -- true
expect_rc 2 "$IOLENS" paired -n 0 -- true -- true
expect_rc 0 "$IOLENS" paired --help
finish
