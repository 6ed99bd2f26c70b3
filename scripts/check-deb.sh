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
/usr/bin/iolens corpus --dry-run --only 'ior_*' --variants 1 -o "$w/corpus" >/dev/null
/usr/bin/iolens report "\$log" -o "$w/report.html"
/usr/bin/iolens view "$w/dd.trace" >/dev/null
/usr/bin/iolens view --json "$shared/recorder/shared_n2_m10" >/dev/null
/usr/bin/iolens convert "$shared/recorder/shared_n2_m10" -o "$w/rec.trace" >/dev/null
/usr/bin/iolens features "\$log" >/dev/null
/usr/bin/iolens advise --offline "\$log" >/dev/null
/usr/bin/iolens batch "\$log" --do summary,detect -q -o "$w/batch"
/usr/bin/iolens batch --merge "$w/batch" -q
/usr/bin/iolens darshan --heatmap "\$log" >"$w/hm.csv"
/usr/bin/iolens cluster --synth 60 --length 100-200 -o "$w/s.csv"
/usr/bin/iolens cluster --method sage --no-metrics -o "$w/cl" "$w/s.csv" >/dev/null
/usr/bin/iolens place --traces "$w/s.csv" --clusters "$w/cl" --jobs 20 --loads 1 --workloads 1 >/dev/null
/usr/bin/iolens train --data "$shared" --no-suite --no-rule-logs --trees 5 -o "$w/models" >/dev/null
/usr/bin/iolens eval --data "$shared" --folds 2 --trees 5 --bootstrap 10 >/dev/null
for c in \$(/usr/bin/iolens help | awk '/^commands:/{f=1;next} f&&NF&&\$1!="help"{print \$1}'); do
  /usr/bin/iolens "\$c" --help | head -1 | grep -q "^usage: iolens \$c" || { echo "check-deb: \$c --help"; exit 1; }
done
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
