#!/usr/bin/env bash
# bench/replay/delays.sh [BUILD_DIR] [RUNS] [GAP_MS] [BURSTS]
# How well `iolens replay TRACE --delays` reproduces the gaps of a traced workload.
# A C program writes BURSTS bursts of 16 x 64 KiB with GAP_MS of sleep ("compute") between
# them; it is traced with iolens, replayed on the fly with --delays under the tracer, and the
# gaps (first write of a burst to the first write of the next) and the total time (first to
# last call on the data file) of both traces are compared. Prints the median error over RUNS.
set -euo pipefail
build=${1:-build}; runs=${2:-5}; gap=${3:-100}; bursts=${4:-6}
I=$(cd "$build" && pwd)/iolens
w=$(mktemp -d /dev/shm/iolens-delays.XXXXXX); trap 'rm -rf "$w"' EXIT
cat > "$w/gaps.c" <<'PROG'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    static char buf[65536];
    char p[4096];
    int gap = atoi(argv[2]), bursts = atoi(argv[3]);
    snprintf(p, sizeof p, "%s/gaps.dat", argv[1]);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int b = 0; b < bursts; b++) {
        for (int i = 0; i < 16; i++)
            if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
        if (b + 1 < bursts) usleep((useconds_t)gap * 1000);
    }
    close(fd);
    return 0;
}
PROG
cc -O2 -o "$w/gaps" "$w/gaps.c"
mkdir -p "$w/d"
times() { "$I" trace --print "$1" | awk '/"[^"]*\/d\/gaps.dat"/ && !/stat\(|mkdir\(|unlink\(/ {print $3, $4, ($0 ~ / write\(/)}'; }
for r in $(seq "$runs"); do
  "$I" trace -o "$w/T" -- "$w/gaps" "$w/d" "$gap" "$bursts" 2>/dev/null
  rm -rf "$w/D" # --keep leaves the replayed file, which the next replay must not overwrite
  "$I" trace -o "$w/R" -- "$I" replay "$w/T" --root "$w/D" --delays --keep >/dev/null 2>&1
  times "$w/T" > "$w/T.t"; times "$w/R" > "$w/R.t"
  paste "$w/T.t" "$w/R.t" | awk -v run="$r" '
    NR == 1 { t0 = $1; r0 = $4 } { t1 = $2; r1 = $5 }
    $3 == 1 { n++; if ((n - 1) % 16 == 0) { if (n > 1) { g = $1 - pt; h = $4 - pr; printf "gap %d %.6f %.6f\n", run, g, h }; pt = $1; pr = $4 } }
    END { printf "total %d %.6f %.6f\n", run, t1 - t0, r1 - r0 }'
done > "$w/all"
python3 - "$w/all" "$gap" <<'PY'
import statistics, sys
gaps, tot = [], []
for line in open(sys.argv[1]):
    k, _, a, b = line.split(); a, b = float(a), float(b)
    (gaps if k == "gap" else tot).append(((b - a) / a * 100, a, b))
def show(name, v):
    e = [x[0] for x in v]
    print(f"{name}: n={len(v)} recorded median {statistics.median(x[1] for x in v):.4f} s, replayed median "
          f"{statistics.median(x[2] for x in v):.4f} s, error median {statistics.median(e):+.2f}% "
          f"(median |error| {statistics.median(abs(x) for x in e):.2f}%, max |error| {max(abs(x) for x in e):.2f}%)")
show(f"gaps ({sys.argv[2]} ms of sleep + the burst)", gaps)
show("total time", tot)
PY
