"""export(): one file per table, CSV without pyarrow (Parquet where it is installed), whose rows
read back equal the frames."""
import glob
import os

import pandas as pd
import pytest

import iolens

DATA = os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "darshan", "public")
LOG = os.path.join(DATA, "mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan")


@pytest.mark.skipif(not os.path.exists(LOG), reason="shared log missing")
def test_export_csv(tmp_path):
    files = iolens.export(LOG, tmp_path, format="csv")
    names = sorted(os.path.basename(f) for f in files)
    with iolens.open(LOG) as d:
        assert names == sorted(["%s.csv" % m for m in d.modules] + ["DXT_POSIX.csv", "DXT_MPIIO.csv"])
        back = pd.read_csv(tmp_path / "POSIX.csv")
        df = d.records("POSIX")
        assert list(back.columns) == list(df.columns) and len(back) == len(df)
        assert (back["POSIX_BYTES_WRITTEN"].to_numpy() == df["POSIX_BYTES_WRITTEN"].to_numpy()).all()
    with pytest.raises(iolens.IolensError, match="format"):
        iolens.export(LOG, tmp_path, format="xls")


def test_export_auto_picks_what_is_there(tmp_path):
    if not os.path.exists(LOG):
        pytest.skip("shared log missing")
    files = iolens.export(LOG, tmp_path)
    try:
        import pyarrow  # noqa: F401
        assert all(f.endswith(".parquet") for f in files)
    except ImportError:
        assert all(f.endswith(".csv") for f in files)
