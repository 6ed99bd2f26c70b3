#!/usr/bin/env bash
# iolens advise: the prompt (every element of the paper's, in the structure of the shared real
# prompts), the offline advice for every detected pattern of every shared log, and the client
# against a loopback chat-completions server (tests/advise/mock_llm.py) in each of its good and
# faulty behaviours; the API key never appears in any output, file or command line.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
T=$IOLENS_TMP
I=$IOLENS
D=$IOLENS_SHARED_DATA/darshan
KEY="sk-test-$(date +%s%N)-secret"
export IOLENS_LLM_API_KEY=$KEY
unset IOLENS_LLM_ENDPOINT IOLENS_LLM_MODEL
log=$D/public/apmpi_apxc__mpi-io-test.darshan

# --- the prompt --------------------------------------------------------------------------
printf '&time_control\n run_hours = 6\n io_form_history = 2\n/\n' >"$T/namelist.input"
expect_rc 0 "$I" advise --print-prompt --config "$T/namelist.input" "$log"
for want in "## Detected Bottlenecks" "**parallelism_efficiency** (confidence=" "## Key Contributing Features" \
    "|SHAP|=" "## Benchmark Evidence" "--- Card (ID: card:parallelism_efficiency) ---" \
    "median of training runs" "Induced in benchmarks by" "Where the inducing call sits" "Code BEFORE:" \
    "Code AFTER:" "## Job Darshan Summary" "## Per-file Evidence" "mpi-io-test.tmp.dat" \
    "independent and" "## Job Configuration Files" "io_form_history = 2" "## Task" "Respond in JSON" \
    "smallest correct change" "RULES:" "Do not invent settings" "When no change is justified"; do
  grep -qF -- "$want" "$T/out" && ok || fail "the prompt lacks '$want'"
done
# at most nine counters in the summary
n=$(sed -n '/^## Job Darshan Summary/,/^## Per-file/p' "$T/out" | grep -c '^  [A-Za-z_]*: ')
[ "$n" -ge 1 ] && [ "$n" -le 9 ] && ok || fail "$n counters in the summary"
# the sections of the real prompts (llm_cache_examples): every heading they have, ours has
ex=$IOLENS_SHARED_DATA/iosage/llm_cache_examples
if [ -d "$ex" ]; then
  for f in $(ls "$ex"/*.json | head -3); do
    for l in $(find "$D" -name '*.darshan' | sort | head -3); do
      "$I" advise --print-prompt "$l" >"$T/p.txt" 2>/dev/null
      /usr/bin/python3 - "$f" "$T/p.txt" <<'PY' && ok || fail "prompt structure of $(basename "$l") against $(basename "$f")"
import json, re, sys
real = json.load(open(sys.argv[1]))
ours = open(sys.argv[2]).read()
heads = [re.split(r"[(:]", h)[0].strip() for h in re.findall(r"^## (.+)$", real["user_prompt"], re.M)]
missing = [h for h in heads if h.split()[0] not in ours]
keys = re.findall(r'"([a-z_]+)":', real["user_prompt"])
missing += [k for k in keys if '"%s"' % k not in ours]
assert not missing, missing
assert "RULES:" in real["system_prompt"]
PY
    done
  done
fi
expect_rc 0 "$I" advise --print-prompt --json "$log"
/usr/bin/python3 -c "import json,sys; d=json.load(open('$T/out')); assert d['system'] and '## Task' in d['user']" && ok || fail "--print-prompt --json"

# --- offline: a recommendation for every detected pattern of every shared log -------------
# (one detect over all the logs, then one advise per log, checked together)
mapfile -t rels < <(shared_logs)
i=${#rels[@]}
"$I" detect --json "${rels[@]/#/$D/}" >"$T/d.json" 2>"$T/err" && ok || fail "detect of the shared logs: $(head -1 "$T/err")"
mkdir -p "$T/adv"
for k in "${!rels[@]}"; do
  "$I" advise --offline --json "$D/${rels[$k]}" >"$T/adv/$k.json" 2>"$T/adv/$k.err" || rm -f "$T/adv/$k.json"
done
nres=0
while IFS= read -r line; do
  nres=$((nres + 1))
  case $line in ok) ok ;; *) fail "$line" ;; esac
done < <(/usr/bin/python3 - "$T/d.json" "$T/adv" "$D" "${rels[@]}" <<'PY'
import json, os, sys
dets, adv, root, rels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
try:
    by_log = {d["log"]: d for d in json.load(open(dets))}
except Exception as e:
    by_log = {}
for k, rel in enumerate(rels):
    d = by_log.get(os.path.join(root, rel))
    if d is None:
        print("detect %s: no result" % rel); continue
    try:
        a = json.load(open("%s/%d.json" % (adv, k)))
    except Exception:
        print("advise --offline %s: %s" % (rel, open("%s/%d.err" % (adv, k)).readline().strip())); continue
    det = sorted(x["pattern"] if isinstance(x, dict) else x for x in d["detected"])
    got = sorted(r["bottleneck_dimension"] for r in a["recommendations"])
    if not (a["source"] == "template" and det == sorted(a["detected"]) == got):
        print("offline advice of %s: %s %s %s" % (rel, det, a["detected"], got)); continue
    if not all(r["template_based"] and r["code_before"] and r["code_after"]
               and r["kb_citation"] == "card:" + r["bottleneck_dimension"] for r in a["recommendations"]):
        print("offline advice of %s: a recommendation without code or citation" % rel); continue
    print("ok")
PY
)
[ "$nres" -eq "$i" ] && ok || fail "$nres results for $i logs"
[ "$i" -ge $(( ${IOLENS_TEST_SAMPLE:-1} > 1 ? 20 : 80 )) ] && ok || fail "only $i logs"
# no endpoint configured: the offline form
expect_rc 0 "$I" advise "$log"
expect_grep "template-based" "$T/out"

# --- against the loopback server ---------------------------------------------------------
srv_pid=
start() { # start MODE
  [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; wait "$srv_pid" 2>/dev/null
  rm -f "$T/port" "$T/requests"
  /usr/bin/python3 "$IOLENS_SOURCE_DIR/tests/advise/mock_llm.py" "$1" "$T/port" "$T/requests" &
  srv_pid=$!
  # (its port file is the event; the cap, 60 s, only for a server that never starts)
  for _ in $(seq 1200); do [ -s "$T/port" ] && break; sleep 0.05; done
  EP=http://127.0.0.1:$(cat "$T/port")/v1
}
trap '[ -n "$srv_pid" ] && kill $srv_pid 2>/dev/null; rm -rf "$T"' EXIT
leak() { # no output, error, request log or cache file holds the key
  if grep -rqF -- "$KEY" "$T/out" "$T/err" "$T/cache" 2>/dev/null; then fail "the key leaked ($1)"; else ok; fi
}

start ok
expect_rc 0 "$I" advise --endpoint "$EP" --model test-model --json "$log"
/usr/bin/python3 - "$T/out" "$T/requests" "$KEY" <<'PY' && ok || fail "validated answer"
import json, sys
a = json.load(open(sys.argv[1]))
recs = a["recommendations"]
good = [r for r in recs if r["valid"]]
bad = [r for r in recs if not r["valid"]]
assert a["source"] == "llm" and len(good) == len(a["detected"]) >= 1, a
assert len(bad) == 2 and len(bad[0]["problems"]) >= 3, bad
assert any("not among the detected" in p for p in bad[0]["problems"])
assert any("speed-up" in p for p in bad[0]["problems"])
assert bad[1]["problems"] == ["a setting or call the evidence does not contain (romio_no_such_hint)"], bad[1]
assert all(r["paired"] for r in recs)
reqs = [json.loads(l) for l in open(sys.argv[2])]
assert len(reqs) == 1 and reqs[0]["path"] == "/v1/chat/completions"
assert reqs[0]["temperature"] == 0 and reqs[0]["model"] == "test-model" and reqs[0]["roles"] == ["system", "user"]
assert reqs[0]["auth"] == "Bearer " + sys.argv[3]
PY
leak ok
# more real logs: every detected pattern gets its validated recommendation
n=0
for l in $(find "$D" -name '*.darshan' | sort); do
  "$I" advise --endpoint "$EP" --json "$l" >"$T/o2.json" 2>/dev/null || continue
  /usr/bin/python3 -c "
import json, sys
a = json.load(open('$T/o2.json'))
if not a['detected']: sys.exit(3)
good = sorted(r['bottleneck_dimension'] for r in a['recommendations'] if r['valid'])
sys.exit(0 if good == sorted(a['detected']) else 1)"
  case $? in 0) ok; n=$((n + 1));; 3) ;; *) fail "validated recommendations of $l";; esac
  [ $n -ge 3 ] && break
done
[ $n -ge 3 ] && ok || fail "only $n real logs with detected patterns advised"
expect_rc 0 "$I" advise --endpoint "$EP" "$log"
expect_grep "flagged: its pattern is not among the detected ones" "$T/out"
expect_grep "1 of 3 recommendations valid" "$T/out"
expect_grep "flagged: a setting or call the evidence does not contain (romio_no_such_hint)" "$T/out"
# the key from a file, and the cache: the second run asks nothing
reqs_extra=$(( $(wc -l <"$T/requests") - 2 ))
unset IOLENS_LLM_API_KEY
printf '%s\n' "$KEY" >"$T/key"
mkdir -p "$T/cache"
expect_rc 0 "$I" advise --endpoint "$EP" --key-file "$T/key" --cache "$T/cache" "$log"
expect_rc 0 "$I" advise --endpoint "$EP" --key-file "$T/key" --cache "$T/cache" "$log"
[ "$(wc -l <"$T/requests")" -eq $((3 + reqs_extra)) ] && ok || fail "the cached run asked the server again ($(wc -l <"$T/requests") requests)"
[ "$(ls "$T/cache" | wc -l)" -eq 1 ] && ok || fail "cache: $(ls "$T/cache")"
tail -1 "$T/requests" | grep -qF "Bearer $KEY" && ok || fail "the key file's key was not sent"
leak cache
export IOLENS_LLM_API_KEY=$KEY
# the key is never taken from the command line
expect_rc 2 "$I" advise --endpoint "$EP" --key "$KEY" "$log"
expect_grep "never taken from the command line" "$T/err"
# the endpoint from the environment
expect_rc 0 env IOLENS_LLM_ENDPOINT="$EP" "$I" advise "$log"
expect_grep "recommendations valid" "$T/out"

start fenced
expect_rc 0 "$I" advise --endpoint "$EP" "$log"
expect_grep "1 of 3 recommendations valid" "$T/out"
start none
expect_rc 0 "$I" advise --endpoint "$EP" "$log"
expect_grep "no change justified" "$T/out"
start malformed
expect_rc 1 "$I" advise --endpoint "$EP" --json "$log"
expect_grep "buy faster disks" "$T/out"
expect_grep "no JSON object" "$T/err"
start notchat
expect_rc 1 "$I" advise --endpoint "$EP" "$log"
expect_grep "sent no chat completion" "$T/err"
start truncated
expect_rc 1 "$I" advise --endpoint "$EP" --retries 1 "$log"
[ "$(wc -l <"$T/requests")" -eq 2 ] && ok || fail "truncated: $(wc -l <"$T/requests") requests, want 2"
start 429then
expect_rc 0 "$I" advise --endpoint "$EP" "$log"
[ "$(wc -l <"$T/requests")" -eq 2 ] && ok || fail "429 then success: $(wc -l <"$T/requests") requests"
start 500
expect_rc 1 "$I" advise --endpoint "$EP" --retries 2 "$log"
[ "$(wc -l <"$T/requests")" -eq 3 ] && ok || fail "500: $(wc -l <"$T/requests") requests, want 3"
expect_grep "HTTP 500" "$T/err"
expect_grep "the last of 3 attempts" "$T/err"
start slow
# while it waits on the server: no process's command line or environment shown to others holds the key
"$I" advise --endpoint "$EP" --timeout 1 --retries 1 "$log" >"$T/out" 2>"$T/err" &
adv=$!
sleep 0.6
printf '%s\n' "$KEY" >"$T/keypat" # (grep -f: the key is not in grep's own command line either)
if cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' | grep -qF -f "$T/keypat"; then fail "the key is in a command line"; else ok; fi
wait $adv
# (the server answers after 120 s: an advise that did not keep its timeout would have succeeded)
[ $? -eq 1 ] && ok || fail "slow server: advise did not fail (the timeout was not kept)"
grep -qi "timeout\|timed out" "$T/err" && ok || fail "the timeout is not said: $(cat "$T/err")"
start echo
expect_rc 0 "$I" advise --endpoint "$EP" --json "$log"
expect_grep "key removed" "$T/out"
leak echo
# a server that is not there
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null; srv_pid=
expect_rc 1 "$I" advise --endpoint "$EP" --retries 0 "$log"
leak refused
finish
