#!/usr/bin/python3
"""Which tests run lines that no other test runs: the evidence for the sanitizer stage's choice.

    scripts/test-coverage.py BUILD_DIR [-j N] [-o REPORT.json] [--keep DIR] [--only RE] [--exclude RE]
                             [--sanitized]

BUILD_DIR is a build configured with gcov instrumentation (scripts/test.sh does not make one):

    cmake -S . -B build-cov -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=--coverage \\
          -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage && cmake --build build-cov

Every ctest test of BUILD_DIR runs once, N at a time, each with its own GCOV_PREFIX (every
process it starts, the tracer's shim in traced programs included, writes its counts there);
gcov reads each test's counts; the lines of src/ each test runs are compared. Printed per test:
its time, the lines it runs, and the lines it runs that no other test runs ("own"); then a
greedy cover (cheapest new line first) of every line the whole suite runs, and the tests left
out of it, whose every line another test runs. -o writes the same as JSON.
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def tests_of(build):
    j = json.loads(subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                                  capture_output=True, text=True).stdout)
    out = []
    for t in j["tests"]:
        env, wd = {}, build
        for p in t.get("properties", []):
            if p["name"] == "ENVIRONMENT":
                for kv in p["value"]:
                    k, _, v = kv.partition("=")
                    env[k] = v
            if p["name"] == "WORKING_DIRECTORY":
                wd = p["value"]
        out.append({"name": t["name"], "command": t["command"], "env": env, "cwd": wd})
    return out


def run_one(t, prefix):
    env = dict(os.environ)
    env.update(t["env"])
    env["GCOV_PREFIX"] = prefix
    if "IOLENS_TMP" in env:
        shutil.rmtree(env["IOLENS_TMP"], ignore_errors=True)
        os.makedirs(env["IOLENS_TMP"], exist_ok=True)
    t0 = time.monotonic()
    p = subprocess.run(t["command"], cwd=t["cwd"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode, time.monotonic() - t0


def lines_of(prefix, build, src):
    """(file, line) pairs run, from the .gcda files below prefix (their .gcno are in build)."""
    seen = set()
    dirs = {}
    for root, _, files in os.walk(prefix):
        for f in files:
            if f.endswith(".gcda"):
                dirs.setdefault(root, []).append(f)
    for root, files in dirs.items():
        objdir = root[len(prefix):] or "/"
        for f in files:
            gcno = os.path.join(objdir, f[:-5] + ".gcno")
            if os.path.exists(gcno) and not os.path.exists(os.path.join(root, f[:-5] + ".gcno")):
                os.symlink(gcno, os.path.join(root, f[:-5] + ".gcno"))
        p = subprocess.run(["gcov", "--json-format", "--stdout", "-o", root] + [os.path.join(root, f) for f in files],
                           cwd=root, capture_output=True)
        for doc in p.stdout.splitlines():
            try:
                j = json.loads(doc)
            except ValueError:
                continue
            for fi in j.get("files", []):
                name = os.path.normpath(os.path.join(j.get("current_working_directory", ""), fi["file"]))
                if not name.startswith(src + "/src/"):
                    continue
                rel = name[len(src) + 1:]
                for ln in fi["lines"]:
                    if ln["count"] > 0:
                        seen.add((rel, ln["line_number"]))
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-o")
    ap.add_argument("--keep")
    ap.add_argument("--only", help="a regular expression of the tests to run")
    ap.add_argument("--exclude", help="a regular expression of tests to leave out")
    ap.add_argument("--analyze", action="store_true",
                    help="run nothing: read the counts a run with --keep DIR left there (their times from -o)")
    ap.add_argument("--keep-in", help="a regular expression of tests never left out (e.g. the hostile-input ones)")
    ap.add_argument("--sanitized", action="store_true",
                    help="run the CLI tests as a sanitizer build runs them (IOLENS_SANITIZED=1, IOLENS_TEST_SAMPLE=4)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tests = tests_of(build)
    import re
    if a.only:
        tests = [t for t in tests if re.search(a.only, t["name"])]
    if a.exclude:
        tests = [t for t in tests if not re.search(a.exclude, t["name"])]
    if a.sanitized:
        for t in tests:
            if "IOLENS" in t["env"]:
                t["env"].update({"IOLENS_SANITIZED": "1", "IOLENS_TEST_SAMPLE": "4"})
    work = a.keep or tempfile.mkdtemp(prefix="iolens-cov.")
    os.makedirs(work, exist_ok=True)
    res = {}
    if a.analyze:
        old = json.load(open(a.o))["tests"]
        res = {t["name"]: {"rc": old[t["name"]]["rc"], "seconds": old[t["name"]]["seconds"]}
               for t in tests if t["name"] in old}
    else:
        with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
            futs = {ex.submit(run_one, t, os.path.join(work, t["name"])): t for t in tests}
            for n, f in enumerate(concurrent.futures.as_completed(futs), 1):
                t = futs[f]
                rc, sec = f.result()
                res[t["name"]] = {"rc": rc, "seconds": round(sec, 1)}
                print(f"[{n}/{len(tests)}] {t['name']}: exit {rc}, {sec:.1f} s", file=sys.stderr, flush=True)
    cov = {}
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for name, s in zip(res, ex.map(lambda n: lines_of(os.path.join(work, n), build, src), list(res))):
            cov[name] = s
    count = {}
    for s in cov.values():
        for x in s:
            count[x] = count.get(x, 0) + 1
    for name in res:
        res[name]["lines"] = len(cov[name])
        res[name]["own"] = sum(1 for x in cov[name] if count[x] == 1)
        res[name]["own_lines"] = sorted("%s:%d" % x for x in cov[name] if count[x] == 1)[:50]
    # greedy cover: the test with the most new lines per second first
    left, chosen = set(count), []
    while left:
        best = max(res, key=lambda n: (len(cov[n] & left) / max(res[n]["seconds"], 0.1), -res[n]["seconds"]))
        gain = len(cov[best] & left)
        if gain == 0:
            break
        chosen.append((best, gain))
        left -= cov[best]
    chosen_names = {n for n, _ in chosen}
    print("%-28s %8s %7s %7s %s" % ("test", "seconds", "lines", "own", "in the cover (new lines)"))
    order = {n: i for i, (n, _) in enumerate(chosen)}
    for name in sorted(res, key=lambda n: -res[n]["seconds"]):
        r = res[name]
        c = "yes (%d, #%d)" % (dict(chosen)[name], order[name] + 1) if name in chosen_names else "no"
        print("%-28s %8.1f %7d %7d %s%s" % (name, r["seconds"], r["lines"], r["own"], c,
                                            "" if r["rc"] in (0, 77) else "  (exit %d)" % r["rc"]))
    # the other way round: from the whole suite, the longest test whose every line another kept test
    # runs is left out, until none is
    keep_in = re.compile(a.keep_in) if a.keep_in else None
    kept = set(res)
    runs = dict(count)
    for name in sorted(res, key=lambda n: -res[n]["seconds"]):
        if keep_in and keep_in.search(name):
            continue
        if all(runs[x] > 1 for x in cov[name]):
            kept.discard(name)
            for x in cov[name]:
                runs[x] -= 1
    dropped = sorted(set(res) - kept, key=lambda n: -res[n]["seconds"])
    print("every line kept without (%d tests, %.0f s): %s" % (len(dropped), sum(res[n]["seconds"] for n in dropped),
                                                           " ".join(dropped)))
    out = sorted(n for n in res if n not in chosen_names)
    print("lines run by the suite: %d; the cover: %d tests, %.0f s; left out (%d, %.0f s): %s" % (
        len(count), len(chosen), sum(res[n]["seconds"] for n in chosen_names), len(out),
        sum(res[n]["seconds"] for n in out), " ".join(out)))
    if a.o:
        json.dump({"lines": len(count), "tests": res, "cover": chosen, "left_out": out, "left_out_one_by_one": dropped},
                  open(a.o, "w"), indent=1)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
