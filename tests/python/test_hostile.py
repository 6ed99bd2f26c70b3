"""Bad inputs give the Python API a clear error: an IolensError whose message names the file (and,
for a damaged trace, what is wrong with it), never an empty one, never a crash. The inputs: a real
trace (dd under the tracer) cut at many lengths and with bytes flipped, other kinds of file, a
folder, a missing path."""
import os
import subprocess

import pytest

import iolens

IOLENS = os.environ.get("IOLENS")


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    t = d / "dd.trace"
    subprocess.run([IOLENS, "trace", "-o", str(t), "--", "dd", "if=/dev/zero", "of=%s" % (d / "out"), "bs=4k",
                    "count=64", "status=none"], check=True, capture_output=True)
    return t


def bad_inputs(trace, d):
    data = trace.read_bytes()
    cases = []
    for n in sorted({0, 1, 7, 8, 12, 16, 40, 64, 100, len(data) // 3, len(data) // 2, len(data) - 1}):
        cases.append(("cut%d" % n, data[:n]))
    for k in range(0, len(data), max(1, len(data) // 24)):
        b = bytearray(data)
        b[k] ^= 0xFF
        cases.append(("flip%d" % k, bytes(b)))
    cases += [("text", b"not a trace\n"), ("zeros", bytes(4096)), ("json", b'{"a": 1}\n')]
    paths = []
    for name, b in cases:
        p = d / name
        p.write_bytes(b)
        paths.append(p)
    return paths + [d / "missing", d]


@pytest.mark.skipif(not IOLENS, reason="IOLENS (the program) not set")
def test_bad_traces_say_why(trace, tmp_path):
    errors = 0
    for p in bad_inputs(trace, tmp_path):
        try:
            t = iolens.Trace(p)
        except iolens.IolensError as e:
            errors += 1
            msg = str(e)
            assert msg.strip(), "an empty message for %s" % p
            assert str(p) in msg or os.path.basename(str(p)) in msg, "%s: %r does not name the file" % (p, msg)
            continue
        # (a flip in a timestamp or a size can leave a readable trace: it reads to its end)
        try:
            t.events()
        except iolens.IolensError as e:
            assert str(e).strip(), "an empty message reading %s" % p
        finally:
            t.close()
    assert errors >= 15
