"""cluster() against `iolens cluster -o DIR`: the same assignments and centroids for the same
input and seed, from a file and from the same series given in memory."""
import os
import subprocess

import pandas as pd
import pytest

import iolens

IOLENS = os.environ.get("IOLENS")
CSV = os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "timeseries", "heatmap_job.csv")

pytestmark = pytest.mark.skipif(not IOLENS or not os.path.exists(CSV), reason="IOLENS or the shared series missing")


@pytest.mark.parametrize("method", ["sage", "kmeans"])
def test_cluster_equals_the_command_line(tmp_path, method):
    subprocess.run([IOLENS, "cluster", "--method", method, "--seed", "3", "-o", str(tmp_path), CSV], check=True,
                   capture_output=True)
    ref = pd.read_csv(tmp_path / "assignments.csv", dtype=str).set_index("id")["cluster"]
    a, c = iolens.cluster(CSV, method=method, seed=3)
    assert len(a) == len(ref) and (a["cluster"] == ref.reindex(a.index)).all()
    assert c["size"].sum() == len(a)
    with open(tmp_path / "centroids.csv") as f:
        next(f)
        cen = {l.split(",")[0]: [float(x) for x in l.split(",")[1:]] for l in f}
    assert set(cen) == set(c.index)


def test_cluster_in_memory_series():
    series = {"a%d" % i: [0.0] * 5 + [100.0 + i] * 20 + [0.0] * 5 for i in range(8)}
    series.update({"b%d" % i: [50.0 + i] * 30 for i in range(8)})
    a, c = iolens.cluster(series, method="kmeans", k=2, seed=1)
    assert len(a) == 16 and len(c) == 2
    assert a.loc["a0", "cluster"] == a.loc["a7", "cluster"] != a.loc["b0", "cluster"] == a.loc["b7", "cluster"]
    with pytest.raises(iolens.IolensError, match="unknown method"):
        iolens.cluster(series, method="nope")
