"""The package's ctypes mirrors of the C structs have the C structs' sizes: a field added in C and
not in Python would have the library write past the end of a struct Python allocated."""
import ctypes
import os
import shutil
import subprocess

import pytest

import iolens

INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(iolens.__file__)))),
                       "include")
MIRRORS = {  # C type: (header, mirror)
    "iolens_event": ("iolens/event.h", iolens._Event),
    "iolens_file": ("iolens/event.h", iolens._File),
    "iolens_recorder_options": ("iolens/recorder.h", iolens._RecorderOptions),
    "iolens_darshan_job": ("iolens/darshan.h", iolens._Job),
    "iolens_darshan_mount": ("iolens/darshan.h", iolens._Mount),
    "iolens_darshan_dxt_seg": ("iolens/darshan.h", iolens._Seg),
    "iolens_darshan_record": ("iolens/darshan.h", iolens._Record),
    "iolens_detect_read_opts": ("iolens/detect.h", iolens._ReadOpts),
    "iolens_detect_file": ("iolens/detect.h", iolens._DetectFile),
    "iolens_series": ("iolens/temporal.h", iolens._SeriesView),
    "iolens_series_read_opts": ("iolens/temporal.h", iolens._ReadSeriesOpts),
    "iolens_filter_opts": ("iolens/temporal.h", iolens._FilterOpts),
    "iolens_cluster_opts": ("iolens/temporal.h", iolens._ClusterOpts),
}


@pytest.mark.skipif(not shutil.which("cc") or not os.path.isdir(INCLUDE), reason="no C compiler or headers")
def test_mirrors_have_the_c_sizes(tmp_path):
    headers = sorted({h for h, _ in MIRRORS.values()})
    src = "".join('#include "%s"\n' % h for h in headers) + "#include <stdio.h>\nint main(void)\n{\n"
    src += "".join('    printf("%s %%zu\\n", sizeof(%s));\n' % (n, n) for n in MIRRORS) + "    return 0;\n}\n"
    (tmp_path / "sizes.c").write_text(src)
    subprocess.run(["cc", "-std=c17", "-I", INCLUDE, "-o", str(tmp_path / "sizes"), str(tmp_path / "sizes.c")],
                   check=True)
    out = subprocess.run([str(tmp_path / "sizes")], check=True, capture_output=True, text=True).stdout
    sizes = dict((n, int(s)) for n, s in (line.split() for line in out.splitlines()))
    wrong = {n: (sizes[n], ctypes.sizeof(m)) for n, (_, m) in MIRRORS.items() if sizes[n] != ctypes.sizeof(m)}
    assert not wrong, "C size, Python size: %r" % wrong
