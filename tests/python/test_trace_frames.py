"""The Python API's event frames against `iolens view --json` (the same calls, field for field)
for a trace of a real program (dd under the tracer) and the shared Recorder traces."""
import glob
import json
import os
import subprocess

import pytest

import iolens

IOLENS = os.environ.get("IOLENS")
REC = sorted(d for d in glob.glob(os.path.join(os.environ.get("IOLENS_SHARED_DATA", ""), "recorder", "*"))
             if os.path.isdir(d) and not d.endswith("_text") and glob.glob(os.path.join(d, "*.mt")))


def view(path):
    out = subprocess.run([IOLENS, "view", "--json", path], check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines()]


def same(df, want):
    assert len(df) == len(want)
    for row, w in zip(df.itertuples(index=False), want):
        assert (row.rank, row.thread, row.depth, row.function, row.layer, row.op, row.file, row.offset, row.size) == \
            (w["rank"], w["thread"], w["depth"], w["func"], w["layer"], w["op"], w["path"] or "", w["offset"], w["size"])
        assert abs(row.start - w["tstart"]) < 1e-9 and abs(row.end - w["tend"]) < 1e-9


@pytest.mark.skipif(not IOLENS, reason="IOLENS (the program) not set")
def test_trace_of_dd(tmp_path):
    src = tmp_path / "in"
    src.write_bytes(os.urandom(200000))
    t = tmp_path / "dd.trace"
    subprocess.run([IOLENS, "trace", "-o", str(t), "--", "dd", "if=%s" % src, "of=%s" % (tmp_path / "out"), "bs=4k",
                    "status=none"], check=True, capture_output=True)
    with iolens.open(t) as tr:
        assert isinstance(tr, iolens.Trace) and tr.nranks == 1
        df = tr.events()
        same(df, view(str(t)))
        writes = df[(df.op == "write") & (df.file == str(tmp_path / "out"))]
        assert writes["size"].sum() == 200000 and (writes["ret"] == writes["size"]).all()
        chunks = list(tr.events(chunk=17))
        assert sum(len(c) for c in chunks) == len(df) and max(len(c) for c in chunks) == 17


@pytest.mark.skipif(not IOLENS or not REC, reason="no Recorder traces or IOLENS not set")
@pytest.mark.parametrize("d", REC, ids=os.path.basename)
def test_recorder_traces(d):
    with iolens.open(d) as tr:
        same(tr.events(), view(d))


def test_not_a_trace(tmp_path):
    p = tmp_path / "x.trace"
    p.write_bytes(b"IOLTRACE" + b"\\0" * 5)
    with pytest.raises(iolens.IolensError, match="x.trace"):
        iolens.open(p).events()
