#!/usr/bin/env python3
"""Reading a Darshan log into DataFrames against the C reader alone.

    IOLENS_LIB=build/libiolens.so.0 PYTHONPATH=python /usr/bin/python3 bench/python/read_bench.py [LOG] [ROUNDS]

C: iolens_darshan_load of the whole log, DXT included (the library call the package makes, timed
through ctypes). Python: iolens.open(LOG, dxt=True), then every module's records() and both DXT
modules' dxt() as DataFrames. Medians over ROUNDS (default 7) rounds that alternate the two, after one warm-up run each (the
file in the page cache, pandas imported). Default LOG: the largest shared log."""
import ctypes
import glob
import os
import statistics
import sys
import time

import iolens

data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")
logs = sorted(glob.glob(os.path.join(os.environ.get("IOLENS_SHARED_DATA", data), "darshan", "**", "*.darshan"),
                        recursive=True), key=os.path.getsize)
log = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else logs[-1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7


def c_reader():
    h = ctypes.c_void_p()
    t = time.perf_counter()
    if iolens._load(log.encode(), 0, None, None, ctypes.byref(h)) < 0:
        raise SystemExit(iolens._error_last().decode())
    t = time.perf_counter() - t
    iolens._free(h)
    return t


def python_frames():
    t = time.perf_counter()
    with iolens.open(log, dxt=True) as d:
        n = sum(len(d.records(m)) for m in d.modules)
        n += len(d.dxt("DXT_POSIX")) + len(d.dxt("DXT_MPIIO"))
    return time.perf_counter() - t, n


c_reader(), python_frames()
cs, runs = [], []
for _ in range(rounds):  # alternated, so that both see the same state of the machine
    cs.append(c_reader())
    runs.append(python_frames())
c = statistics.median(cs)
p = statistics.median(r[0] for r in runs)
print("log: %s (%d bytes)" % (os.path.basename(log), os.path.getsize(log)))
print("C reader (iolens_darshan_load, DXT included): %.4f s" % c)
print("Python, every module's records and both DXT modules as DataFrames (%d rows): %.4f s" % (runs[0][1], p))
print("ratio Python / C: %.2f (of the best runs: %.2f)" % (p / c, min(r[0] for r in runs) / min(cs)))
