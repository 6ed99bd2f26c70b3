#!/usr/bin/env bash
# Scores the shipped training combination (dev rows + real-program suite + rule-labelled logs,
# the defaults of `iolens train`) and, with --compare, the combination with the local corpus:
#
#   bench/detect/suite/eval.sh [--suite DIR] [--compare] [--bootstrap B]
#
# 1. the suite left out one program at a time (train without fio, score fio; ...), gate at tau 0.3,
#    per-pattern precision and recall: the figure for programs the models never saw;
# 2. the dev rows: 5-fold cross-validation (seeds 42, 1, 2), grouped by configuration, and left out
#    one benchmark at a time (ior, mdtest, dlio, h5bench, hacc_io, custom).
# Prints one line per score (Micro-F1 with its 95% bootstrap interval) and the per-pattern table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
DATA=${IOLENS_SHARED_DATA:-$src/../shared/data}
suite=$src/data/suite compare=0 boot=1000
while [ $# -gt 0 ]; do
  case $1 in
    --suite) suite=$2; shift 2 ;;
    --compare) compare=1; shift ;;
    --bootstrap) boot=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "eval.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$src/data/rule-logs.txt" | grep . | sed "s|^|$DATA/|" >"$tmp/rules.txt"
PY=/usr/bin/python3
line() { # line LABEL JSON
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[2])); g = [m for m in d["methods"] if m["name"].startswith("gate")][0]
c = [m for m in d["methods"] if m["name"].startswith("classifier")][0]
f = lambda s: "%.3f [%.3f, %.3f]" % (s["value"], s["lo"], s["hi"])
print("%-46s rows %3d  gate Micro-F1 %s  classifier %s" % (sys.argv[1], d["rows"], f(g["micro_f1"]), f(c["micro_f1"])))
PYEOF
}
table() { # table JSON
  "$PY" - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); g = [m for m in d["methods"] if m["name"].startswith("gate")][0]
print("  %-24s %-22s %-22s" % ("pattern (gate)", "precision", "recall"))
for k, v in g["labels"].items():
    print("  %-24s %.3f [%.3f, %.3f]   %.3f [%.3f, %.3f]" % (k, v["precision"]["value"], v["precision"]["lo"],
          v["precision"]["hi"], v["recall"]["value"], v["recall"]["lo"], v["recall"]["hi"]))
PYEOF
}
run() { # run NAME ARGS...: iolens eval --json into $tmp/NAME.json
  local name=$1; shift
  "$IOLENS" eval --json --bootstrap "$boot" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err" >&2; exit 1; }
}
combos=("shipped:--suite $suite --rule-logs $tmp/rules.txt")
[ $compare = 1 ] && combos+=("with-corpus:--suite $suite --rule-logs $tmp/rules.txt --corpus $src/data/corpus")
for c in "${combos[@]}"; do
  name=${c%%:*}; read -r -a args <<<"${c#*:}"
  echo "== $name: iolens eval ${args[*]//$tmp\/rules.txt/RULE_LOGS} ..."
  run "$name-suite" "${args[@]}" --score suite
  line "suite, leave one program out" "$tmp/$name-suite.json"
  table "$tmp/$name-suite.json"
  for s in 42 1 2; do
    run "$name-dev$s" "${args[@]}" --seed "$s"
    line "dev rows, 5-fold, seed $s" "$tmp/$name-dev$s.json"
  done
  run "$name-devcfg" "${args[@]}" --group config
  line "dev rows, grouped by configuration" "$tmp/$name-devcfg.json"
  run "$name-devprog" "${args[@]}" --group program
  line "dev rows, leave one benchmark out" "$tmp/$name-devprog.json"
done
echo "(RULE_LOGS: the logs of data/rule-logs.txt below $DATA)"
