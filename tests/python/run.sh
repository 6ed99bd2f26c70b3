# The Python API's tests (pytest) against the build's shared library; skipped (77) without pandas
# or pytest in Debian's Python.
PY=/usr/bin/python3
$PY -c 'import pandas, pytest' 2>/dev/null || { echo "SKIP: python3-pandas and python3-pytest are needed"; exit 77; }
cd "$(dirname "$0")" && exec $PY -m pytest -q -p no:cacheprovider .
