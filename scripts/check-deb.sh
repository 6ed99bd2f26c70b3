#!/usr/bin/env bash
# The Debian package on this machine: built with CPack from a build folder, installed with apt-get
# (its dependencies resolved by apt), then the installed /usr/bin/iolens run on real inputs with
# the source and build trees hidden from it (a private mount namespace with an empty folder
# mounted over them; when this machine does not allow that, the trees stay visible but every
# command runs from / with no IOLENS_* variable set). The package is removed at the end.
#   scripts/check-deb.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: check-deb.sh BUILD_DIR}" && pwd)
shared=$(cd "$root/.." && pwd)/shared/data
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
(cd "$build" && rm -f iolens_*.deb && cpack -G DEB >/dev/null)
deb=$(ls "$build"/iolens_*.deb)
echo "check-deb: $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q "$deb" >/dev/null
w=$(mktemp -d); trap '$SUDO apt-get remove -y -q iolens >/dev/null 2>&1 || true; rm -rf "$w"' EXIT
cat >"$w/run.sh" <<EOS
set -eu
cd /
env | grep -q '^IOLENS' && { echo "IOLENS variables set"; exit 1; }
[ ! -e "$root/src" ] || echo "check-deb: (the source tree is visible: no private mount namespace here)"
log=$shared/darshan/generated/small_writes_4proc_dxt_heatmap.darshan
/usr/bin/iolens darshan "\$log" | head -3
/usr/bin/iolens darshan --report "\$log" >/dev/null
/usr/bin/iolens detect "\$log" | tail -2
mkdir -p "$w/data"
/usr/bin/iolens trace -o "$w/dd.trace" -- dd if=/dev/zero of="$w/data/x" bs=4k count=256 oflag=dsync status=none
/usr/bin/iolens trace --print "$w/dd.trace" >/dev/null
/usr/bin/iolens darshan --from "$w/dd.trace" -o "$w/dd.darshan"
/usr/bin/iolens detect "$w/dd.trace" | tail -1
/usr/bin/iolens replay --config-from "$w/dd.trace" -o "$w/dd.json"
/usr/bin/iolens replay "$w/dd.json" --root "$w/r1" >/dev/null
/usr/bin/iolens replay "$w/dd.trace" --root "$w/r2" >/dev/null
/usr/bin/iolens whatif "$w/dd.trace" --rounds 1 >/dev/null
/usr/bin/iolens paired -n 3 -- true -- true >/dev/null
/usr/bin/iolens corpus --help >/dev/null
/usr/bin/iolens report "\$log" -o "$w/report.html"
# the Python package, where Debian's python3 finds it (/usr/lib/python3/dist-packages)
/usr/bin/python3 -c 'import sys, iolens; d = iolens.open(sys.argv[1]); assert d.job["nprocs"] > 0; print("python:", iolens.__file__, d.modules)' "\$log"
echo "check-deb: the installed iolens ran every command"
EOS
hide() { # an empty folder over the source tree (and the build tree inside it) for this run only
  env -i PATH=/usr/bin:/bin unshare -m sh -c "mount -t tmpfs none '$root' && sh '$w/run.sh'"
}
if env -i PATH=/usr/bin:/bin unshare -m true 2>/dev/null; then
  hide
else
  env -i PATH=/usr/bin:/bin sh "$w/run.sh"
fi
