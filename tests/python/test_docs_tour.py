"""docs/python.md's tour runs as written: every ```python block, in order, in one namespace,
with LOG (a shared Darshan log with DXT), TRACE (a trace of dd) and SERIES (a series CSV)."""
import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "python.md")
DATA = os.environ.get("IOLENS_SHARED_DATA", "")
LOG = os.path.join(DATA, "darshan", "public", "mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-"
                   "9815401321915095332_1.darshan")
SERIES = os.path.join(DATA, "timeseries", "heatmap_job.csv")
IOLENS = os.environ.get("IOLENS")


@pytest.mark.skipif(not IOLENS or not os.path.exists(LOG) or not os.environ.get("IOLENS_MODELS"),
                    reason="IOLENS, IOLENS_MODELS or the shared data missing")
def test_tour_runs(tmp_path, capsys):
    trace = tmp_path / "dd.trace"
    subprocess.run([IOLENS, "trace", "-o", str(trace), "--", "dd", "if=/dev/zero", "of=%s" % (tmp_path / "x"),
                    "bs=64k", "count=32", "status=none"], check=True, capture_output=True)
    blocks = re.findall(r"```python\n(.*?)```", open(DOC).read(), re.S)
    assert len(blocks) >= 4
    ns = {"LOG": LOG, "TRACE": str(trace), "SERIES": SERIES}
    for b in blocks:
        exec(compile(b, DOC, "exec"), ns)
    assert "POSIX" in ns["log"].modules and len(ns["calls"]) > 0 and len(ns["diag"]) == 2
    assert capsys.readouterr().out
