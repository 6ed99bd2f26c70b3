"""features(), detect() and shap() against the command line (`iolens features --json`,
`iolens detect --json`) on shared logs of several kinds."""
import glob
import json
import math
import os
import subprocess

import pytest

import iolens

IOLENS = os.environ.get("IOLENS")
DATA = os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "darshan", "public")
LOGS = sorted(glob.glob(os.path.join(DATA, "*.darshan")))[::9]  # a spread of the shared logs

pytestmark = pytest.mark.skipif(not IOLENS or not LOGS or not os.environ.get("IOLENS_MODELS"),
                                reason="IOLENS, IOLENS_MODELS or the shared logs missing")


def cli(*args):
    return json.loads(subprocess.run([IOLENS, *args], check=True, capture_output=True, text=True).stdout)


def test_detect_equals_the_command_line():
    df = iolens.detect(LOGS)
    for d in cli("detect", "--json", *LOGS):
        row = df.loc[d["log"]]
        for label, p in d["probabilities"].items():
            assert math.isclose(row[label], p, rel_tol=1e-6, abs_tol=1e-9), (d["log"], label)
        assert row["detected"] == ";".join(x["pattern"] for x in d["detected"])


def test_features_equal_the_command_line():
    df = iolens.features(LOGS)
    for d in cli("features", "--json", *LOGS):
        row = df.loc[d["log"]]
        for name, v in d["features"].items():
            if v is None:
                assert math.isnan(row[name])
            else:
                assert math.isclose(row[name], v, rel_tol=1e-9, abs_tol=1e-12), (d["log"], name)


def test_shap_equals_the_command_line():
    d = next(x for x in cli("detect", "--json", *LOGS) if x["detected"])
    p = d["detected"][0]
    sr = iolens.shap(d["log"], p["pattern"])
    for c in p["top_contributions"]:
        assert math.isclose(sr[c["feature"]], c["shap"], rel_tol=1e-5, abs_tol=1e-7)
    assert math.isclose(sr.attrs["bias"], p["shap_bias"], rel_tol=1e-5, abs_tol=1e-7)
    with pytest.raises(iolens.IolensError, match="unknown pattern"):
        iolens.shap(d["log"], "no_such_pattern")
