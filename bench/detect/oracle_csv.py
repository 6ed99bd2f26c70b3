#!/usr/bin/env python3
"""The "Lustre facts as an oracle" experiment of docs/detect.md: copies of the dev rows
and of a local corpus in which two columns that are zero in every row (POSIX_RENAME_SOURCES,
POSIX_RENAME_TARGETS) carry what the local corpus cannot measure: stripe count 1 (the scenario's
sweeps.tsv parameters say `stripe 1`, or its name `single_ost`) and the rank count the scenario ran
at on the real system (dev rows: their nprocs; corpus rows: the median of the scenario's sweeps.tsv
ranks). Not a feature of iolens: a measurement of how much those facts would be worth.

    bench/detect/oracle_csv.py ../shared/data/iosage data/corpus OUT
    iolens eval --features OUT/dev_features.csv --labels OUT/dev_labels.csv --corpus OUT/corpus \\
        --rule-logs L --score corpus
"""
import csv
import os
import re
import shutil
import statistics
import sys


def expand(p):
    m = re.search(r"\{([^}]*)\}", p)
    if not m:
        return [p]
    return [y for x in m.group(1).split(",") for y in expand(p[:m.start()] + x + p[m.end():])]


def scenarios(sweeps):
    """(prefix, ranks, stripe1) longest prefix first, and the SLURM job steps of the IOR boost runs."""
    rows = [l.rstrip("\n").split("\t") for l in open(sweeps)][1:]
    boost = ["ior_boost_random_shared", "ior_boost_fpp_many", "ior_boost_fsync", "ior_boost_healthy_collective"]
    pref, steps, bi = [], {}, 0
    for r in rows:
        if r[1].startswith("("):  # SLURM job 17310653 steps a-b, the corpus's ior_boost_* configs in order
            rl = [int(x) for x in re.findall(r"\d+", r[4])]
            s1 = int("stripe 1" in r[3])
            lo, hi = map(int, re.search(r"steps (\d+)-(\d+)", r[1]).groups())
            for st in range(lo, hi + 1):
                steps["17310653.%d" % st] = (rl, s1)
            pref.append((boost[bi], rl, s1))
            bi += 1
            continue
        ranks = r[4].split("/")
        for k, p in enumerate(x.strip() for x in r[1].split("/")):
            rl = [int(x) for x in re.findall(r"\d+", ranks[min(k, len(ranks) - 1)])]
            for e in expand(p):
                pref.append((e, rl, int("stripe 1" in r[3] or "single_ost" in e)))
    pref.sort(key=lambda x: -len(x[0]))
    return pref, steps


def rewrite(fin, lin, fout, pref, steps, real_ranks):
    feats, labels = list(csv.DictReader(open(fin))), list(csv.DictReader(open(lin)))
    for f, l in zip(feats, labels):
        scen = l["scenario"]
        rl, s1 = steps.get(scen, (None, 0))
        if rl is None:
            rl, s1 = next(((r, s) for p, r, s in pref if scen.startswith(p)), (None, 0))
        f["POSIX_RENAME_SOURCES"] = str(s1)
        f["POSIX_RENAME_TARGETS"] = f["nprocs"] if real_ranks or not rl else str(statistics.median(rl))
    with open(fout, "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=list(feats[0].keys()))
        w.writeheader()
        w.writerows(feats)
    return sum(f["POSIX_RENAME_SOURCES"] == "1" for f in feats), len(feats)


def main():
    iosage, corpus, out = sys.argv[1:4]
    os.makedirs(os.path.join(out, "corpus"), exist_ok=True)
    pref, steps = scenarios(os.path.join(iosage, "sweeps.tsv"))
    d = rewrite(os.path.join(iosage, "dev_features.csv"), os.path.join(iosage, "dev_labels.csv"),
                os.path.join(out, "dev_features.csv"), pref, steps, True)
    c = rewrite(os.path.join(corpus, "features.csv"), os.path.join(corpus, "labels.csv"),
                os.path.join(out, "corpus", "features.csv"), pref, steps, False)
    shutil.copy(os.path.join(iosage, "dev_labels.csv"), out)
    for f in ("labels.csv", "manifest.csv"):
        shutil.copy(os.path.join(corpus, f), os.path.join(out, "corpus"))
    print("stripe-1 rows: dev %d of %d, corpus %d of %d" % (d + c))


if __name__ == "__main__":
    main()
