#!/usr/bin/env bash
# The placement experiment of the SAGE paper (§VII) on synthetic pools with known classes.
#
# Each pool: N labelled synthetic read series of jobs lasting 10 to 60 minutes (one sample a
# second, `iolens cluster --synth N --length 600-3600`), clustered by SAGE, SAGE-2, k-means and
# K-shape; then `iolens place` with the paper's settings (4 OSTs, 40 and 80 jobs, loads 0.5 to 3,
# 10 workloads per load) and iolens's defaults for what the paper leaves open (docs/place.md):
# OST bandwidth the 99.9th percentile of the I/O samples, workloads drawn at random and kept on
# target. Then the same on the first pool with one choice changed at a time.
#
#   bench/place/paper.sh [BUILD_DIR] [POOLS] [N] [OUT.md]
#
# Prints, per setting, workload size and policy, the difference in geometric-mean I/O stretch
# against round-robin in % (mean over the workloads of all pools; negative = better), as a
# Markdown table on stdout (and to OUT.md if given). Figures only; nothing is asserted.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
pools=${2:-3}
n=${3:-3000}
out=${4:-}
iolens=$build/iolens
py=/usr/bin/python3
scratch=$(mktemp -d "${TMPDIR:-/dev/shm}/iolens-place.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
methods="sage sage2 kmeans kshape"

for p in $(seq 1 "$pools"); do
  d=$scratch/pool$p
  mkdir -p "$d"
  "$iolens" cluster --synth "$n" --length 600-3600 --seed "$p" -o "$d/s.csv"
  cl=()
  for m in $methods; do
    "$iolens" cluster --method "$m" --seed "$p" -o "$d/$m" --no-metrics "$d/s.csv" > /dev/null 2>&1
    cl+=(--clusters "$m=$d/$m")
  done
  echo "pool $p: $n series, clustered by $methods" >&2
  "$iolens" place --traces "$d/s.csv" "${cl[@]}" --seed "$p" --json > "$d/default.json"
  if [ "$p" = 1 ]; then
    "$iolens" place --traces "$d/s.csv" "${cl[@]}" --seed "$p" --json --bandwidth max > "$d/max.json"
    "$iolens" place --traces "$d/s.csv" "${cl[@]}" --seed "$p" --json --bandwidth recorded > "$d/recorded.json"
    "$iolens" place --traces "$d/s.csv" "${cl[@]}" --seed "$p" --json --draw replace > "$d/replace.json"
    # the pool without its always-busy classes (growing, plateau: labels 6-9)
    awk -F, 'NR == 1 || $2 < 6' "$d/s.csv" > "$d/bursty.csv"
    bc=()
    for m in $methods; do
      "$iolens" cluster --method "$m" --seed "$p" -o "$d/b$m" --no-metrics "$d/bursty.csv" > /dev/null 2>&1
      bc+=(--clusters "$m=$d/b$m")
    done
    "$iolens" place --traces "$d/bursty.csv" "${bc[@]}" --seed "$p" --json > "$d/bursty.json"
  fi
done

"$py" - "$scratch" "$pools" "$n" "$out" <<'PY'
import glob, json, sys, collections
scratch, pools, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
settings = [("default", "paper's settings, iolens defaults (%d pools of %d series)" % (pools, n)),
            ("max", "OST bandwidth = largest sample (`--bandwidth max`)"),
            ("recorded", "each I/O phase as long alone as recorded (`--bandwidth recorded`)"),
            ("replace", "workloads drawn by replacements towards the load (`--draw replace`)"),
            ("bursty", "pool without the always-busy classes (growing, plateau)")]
lines = []
for key, title in settings:
    files = sorted(glob.glob(f"{scratch}/pool*/{key}.json"))
    if not files:
        continue
    runs = []
    for f in files:
        runs += json.load(open(f))["results"]
    rr = {}
    for r in runs:
        if r["policy"] == "round-robin":
            rr[(r["jobs"], r["rho"], r["workload"], r.get("_f"))] = r["geomean_stretch"]
    # key a workload by (file, jobs, rho, workload): rebuild per file
    acc = collections.defaultdict(list)
    loads = set()
    for f in files:
        res = json.load(open(f))["results"]
        base = {(r["jobs"], r["rho"], r["workload"]): r["geomean_stretch"] for r in res if r["policy"] == "round-robin"}
        for r in res:
            if r["policy"] == "round-robin":
                continue
            name = r["policy"] if r["policy"] != "cluster" else r["clusters"]
            g0 = base[(r["jobs"], r["rho"], r["workload"])]
            acc[(r["jobs"], name, r["rho"])].append(100 * (r["geomean_stretch"] - g0) / g0)
            loads.add(r["rho"])
    loads = sorted(loads)
    lines.append(f"\n**{title}**\n")
    lines.append("| jobs | policy | " + " | ".join(f"ρ={l:g}" for l in loads) + " |")
    lines.append("|---|---|" + "---|" * len(loads))
    for jobs in sorted({k[0] for k in acc}):
        for name in ["clairvoyant", "sage", "sage2", "kmeans", "kshape", "random"]:
            cells = []
            for l in loads:
                v = acc.get((jobs, name, l))
                cells.append(f"{sum(v)/len(v):+.1f}" if v else "–")
            if any(c != "–" for c in cells):
                lines.append(f"| {jobs} | {name} | " + " | ".join(cells) + " |")
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
if out:
    open(out, "w").write(text)
PY
