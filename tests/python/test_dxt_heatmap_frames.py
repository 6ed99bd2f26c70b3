"""dxt() and heatmap() frames against the command line: the segments `iolens darshan --dxt`
prints (darshan-dxt-parser's layout) and the job-level bins of `iolens darshan --heatmap`."""
import csv
import glob
import io
import os
import subprocess

import pytest

import iolens

IOLENS = os.environ.get("IOLENS")
DATA = os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "darshan", "public")
DXT = [p for p in sorted(glob.glob(os.path.join(DATA, "*.darshan"))) if "dxt" in os.path.basename(p).lower()][:4]
HEAT = sorted(glob.glob(os.path.join(DATA, "e3sm_io_heatmap*.darshan")))

pytestmark = pytest.mark.skipif(not IOLENS, reason="IOLENS not set")


def run(*args):
    p = subprocess.run([IOLENS, *args], capture_output=True, text=True)
    return p.stdout


@pytest.mark.skipif(not DXT, reason="no DXT logs")
@pytest.mark.parametrize("log", DXT, ids=os.path.basename)
def test_dxt_equals_dxt_parser(log):
    lines = [l.split() for l in run("darshan", "--dxt", "--show-incomplete", log).splitlines()
             if l.startswith(" X_") or l.startswith("   X_")]
    want = {"X_POSIX": [], "X_MPIIO": []}
    for f in lines:
        # Module Rank Wt/Rd Segment Offset Length Start(s) End(s)
        want[f[0]].append((int(f[1]), f[2], int(f[4]), int(f[5]), float(f[6]), float(f[7])))
    with iolens.open(log) as d:
        for mod, key in (("DXT_POSIX", "X_POSIX"), ("DXT_MPIIO", "X_MPIIO")):
            df = d.dxt(mod)
            got = sorted((r.rank, r.op, r.offset, r.length, round(r.start, 4), round(r.end, 4))
                         for r in df.itertuples(index=False))
            ref = sorted((a, b, c, e, round(s, 4), round(t, 4)) for a, b, c, e, s, t in want[key])
            assert len(got) == len(ref), (mod, len(got), len(ref))
            assert all(g[:4] == r[:4] and abs(g[4] - r[4]) <= 1e-4 and abs(g[5] - r[5]) <= 1e-4
                       for g, r in zip(got, ref))


@pytest.mark.skipif(not HEAT, reason="no heatmap logs")
@pytest.mark.parametrize("log", HEAT, ids=os.path.basename)
def test_heatmap_equals_the_command_line(log):
    ref = list(csv.DictReader(io.StringIO(run("darshan", "--heatmap", log))))
    with iolens.open(log) as d:
        df = d.heatmap()
        job = df.groupby(["api", "bin"])[["read_bytes", "write_bytes"]].sum()
        for r in ref:
            got = job.loc[(r["module"], int(r["bin"]))]
            assert (got["read_bytes"], got["write_bytes"]) == (int(r["read_bytes"]), int(r["write_bytes"])), r
        assert len(job) >= len(ref)
