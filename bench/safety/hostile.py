#!/usr/bin/python3
"""Hostile inputs to every command that reads a file: for each seed (a trace of a real program, a
Recorder trace, Darshan logs of several formats and compressions, a replay config, time series, a
feature table) its damaged forms (cut at many lengths, bytes flipped, decompression bombs in zlib,
bzip2 and zstd, a sparse giant) and the inputs that are no files (devices, FIFOs with and without a
writer, links to them, a link loop, a folder), given to each command that reads that kind.

    bench/safety/hostile.py [--iolens PATH] [--jobs N] [--timeout S] [--quick] [--json FILE]

Each run is timed and measured (its peak resident size, from wait4): a crash (killed by a signal
other than the timeout's), a hang (still running after --timeout, default 10 s: killed), and a
run above 256 MiB + 4 times its input's size are reported one by one; then the totals, and the
load average before and after (the figure is a count, not a time: a busy machine only makes the
runs slower, and a hang is a run that outlived 10 s). Exit 1 when any run crashed, hung or
went over its memory.
"""
import argparse
import bz2
import json
import os
import random
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.environ.get("IOLENS_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
MIB = 1 << 20


def zstd_bomb(size):
    """A zstd frame of `size` zero bytes (the zstd program, when installed)."""
    if not shutil.which("zstd"):
        return None
    p = subprocess.run(["sh", "-c", "head -c %d /dev/zero | zstd -19 -c -q" % size], capture_output=True)
    return p.stdout if p.returncode == 0 else None


def variants(seed, kind, work, rnd, quick):
    """(name, path) of the damaged forms of seed, written below work."""
    data = open(seed, "rb").read() if os.path.isfile(seed) else None
    out = []

    def put(name, b):
        p = os.path.join(work, "%s.%s" % (os.path.basename(seed), name))
        with open(p, "wb") as f:
            f.write(b)
        out.append((name, p))

    if data is not None:
        cuts = sorted({0, 1, 4, 8, 16, 64, 300, len(data) // 4, len(data) // 2, len(data) - 1})
        if quick:
            cuts = cuts[::3]
        for n in cuts:
            if 0 <= n < len(data):
                put("cut%d" % n, data[:n])
        for k in range(4 if quick else 12):
            b = bytearray(data)
            for _ in range(1 + k % 3):
                i = rnd.randrange(len(b))
                b[i] ^= 1 << rnd.randrange(8)
            put("flip%d" % k, bytes(b))
        # a sparse giant with the seed's first bytes (its magic): the reader must not take it whole
        p = os.path.join(work, "%s.sparse" % os.path.basename(seed))
        with open(p, "wb") as f:
            f.write(data[:64])
            f.truncate(1 << 30)
        out.append(("sparse1G", p))
    if kind == "darshan" and data is not None and data[:4] == b"3.41":
        for codec, comp in (("zlib", 0), ("bzip2", 1)):
            b = bytearray(data)
            b[16] = comp
            c = zlib.compressobj(9) if comp == 0 else bz2.BZ2Compressor(9)
            block = bytes(MIB)
            z = b"".join(c.compress(block) for _ in range(512)) + c.flush()
            struct.pack_into("<QQ", b, 48 + 16, len(b), len(z))  # POSIX region, module slot 1
            put("bomb-" + codec, bytes(b) + z)
    if kind == "trace" and data is not None:
        z = zstd_bomb(256 * MIB)
        n = struct.unpack_from("<I", data, 12)[0] if len(data) >= 16 else 0
        for i in range(min(n, 16)):
            t, c, off, st, sz = struct.unpack_from("<IIQQQ", data, 16 + 32 * i)
            if t == 2 and z is not None:
                b = bytearray(data)
                struct.pack_into("<IIQQQ", b, 16 + 32 * i, t, 1, len(b), len(z), 256 * MIB)
                put("bomb-zstd", bytes(b) + z)
                b = bytearray(data)
                struct.pack_into("<Q", b, 16 + 32 * i + 24, 1 << 30)
                put("claims1G", bytes(b))
    return out


def special(work):
    """Inputs that are no regular files: (name, path, setup) where setup starts a writer if any."""
    out = [("dev-zero", "/dev/zero", None), ("dev-urandom", "/dev/urandom", None), ("dev-null", "/dev/null", None)]
    os.makedirs(os.path.join(work, "adir"), exist_ok=True)
    out.append(("folder", os.path.join(work, "adir"), None))
    loop = os.path.join(work, "loop")
    if not os.path.lexists(loop):
        os.symlink(loop, loop)
    out.append(("link-loop", loop, None))
    lz = os.path.join(work, "to-zero")
    if not os.path.lexists(lz):
        os.symlink("/dev/zero", lz)
    out.append(("link-dev-zero", lz, None))
    out.append(("fifo-idle", None, "idle"))
    out.append(("fifo-fed", None, "fed"))
    return out


def commands(iolens, work):
    """kind -> list of (label, argv with INPUT where the input goes, OUT for an output path)."""
    I = iolens
    trace = [("trace --info", [I, "trace", "--info", "INPUT"]), ("trace --print", [I, "trace", "--print", "INPUT"]),
             ("view", [I, "view", "INPUT"]), ("view --json", [I, "view", "--json", "INPUT"]),
             ("view --chrome-trace", [I, "view", "--chrome-trace", "INPUT", "-o", "OUT"]),
             ("convert", [I, "convert", "INPUT", "-o", "OUT"]),
             ("darshan --from", [I, "darshan", "--from", "INPUT", "-o", "OUT"]),
             ("detect", [I, "detect", "INPUT"]), ("features", [I, "features", "INPUT"]),
             ("report", [I, "report", "INPUT", "-o", "OUT"]),
             ("replay --config-from", [I, "replay", "--config-from", "INPUT", "-o", "OUT"]),
             ("replay --dry-run", [I, "replay", "INPUT", "--dry-run"]),
             ("whatif --dry-run", [I, "whatif", "INPUT", "--dry-run"])]
    darshan = [("darshan", [I, "darshan", "INPUT"]), ("darshan --json", [I, "darshan", "--json", "INPUT"]),
               ("darshan --total", [I, "darshan", "--total", "INPUT"]),
               ("darshan --file", [I, "darshan", "--file", "INPUT"]),
               ("darshan --perf", [I, "darshan", "--perf", "INPUT"]),
               ("darshan --dxt", [I, "darshan", "--dxt", "INPUT"]),
               ("darshan --heatmap", [I, "darshan", "--heatmap", "INPUT"]),
               ("darshan --report", [I, "darshan", "--report", "INPUT"]),
               ("darshan --summary", [I, "darshan", "--summary", "INPUT"]),
               ("darshan --convert", [I, "darshan", "--convert", "INPUT", "-o", "OUT"]),
               ("detect", [I, "detect", "INPUT"]), ("features", [I, "features", "INPUT"]),
               ("advise --offline", [I, "advise", "--offline", "INPUT"]),
               ("report", [I, "report", "INPUT", "-o", "OUT"]), ("cluster", [I, "cluster", "-o", "OUT", "INPUT"]),
               ("batch", [I, "batch", "INPUT", "--do", "summary,features,detect", "-o", "OUT", "-q"])]
    config = [("replay --dry-run", [I, "replay", "INPUT", "--dry-run"]),
              ("replay --print-config", [I, "replay", "--print-config", "INPUT"]),
              ("whatif --dry-run", [I, "whatif", "INPUT", "--pattern", "access_granularity", "--dry-run"])]
    series = [("cluster", [I, "cluster", "--no-metrics", "-o", "OUT", "INPUT"]),
              ("place --traces", [I, "place", "--traces", "INPUT", "--clusters", os.path.join(work, "adir"),
                                  "--jobs", "5", "--loads", "1", "--workloads", "1"])]
    table = [("eval --features", [I, "eval", "--features", "INPUT", "--labels", "INPUT", "--folds", "2", "--trees", "2"]),
             ("train --features", [I, "train", "--features", "INPUT", "--labels", "INPUT", "-o", "OUT", "--trees", "2"])]
    return {"trace": trace, "recorder": trace[:8] + trace[9:11], "darshan": darshan, "config": config,
            "series": series, "table": table}


class Result:
    __slots__ = ("label", "input", "rc", "sig", "secs", "kib", "limit_kib", "hung", "msg")


def run_one(argv, inp, label, timeout, work, n):
    out = os.path.join(work, "out.%d" % n)
    size = os.stat(inp[1]).st_size if inp[1] and os.path.isfile(inp[1]) else 0
    writer = None
    path = inp[1]
    if inp[2]:  # a FIFO of its own, idle or fed
        path = os.path.join(work, "fifo.%d" % n)
        os.mkfifo(path)
        if inp[2] == "fed":
            writer = subprocess.Popen(["sh", "-c", 'exec timeout %d cat /dev/urandom >"$1"' % (timeout + 5), "sh", path],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    args = [path if a == "INPUT" else (out if a == "OUT" else a) for a in argv]
    r = Result()
    r.label, r.input, r.hung, r.sig = label, inp[0], False, 0
    r.limit_kib = 256 * 1024 + 4 * size // 1024
    # (the peak resident size of the command itself, measured by time(1): a child forked from this
    # Python process would report the parent's pages as its own until its exec)
    rus = os.path.join(work, "rusage.%d" % n)
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M %x", "-o", rus] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    timer = threading.Timer(timeout, lambda: (os.killpg(p.pid, signal.SIGKILL) if p.poll() is None else None))
    timer.start()
    err = p.stderr.read(1 << 16)
    p.stderr.close()
    p.wait()
    timer.cancel()
    r.secs = time.monotonic() - t0
    r.hung = r.secs >= timeout and p.returncode < 0
    words = open(rus).read().split() if os.path.exists(rus) else []
    try:  # time(1) writes "Command terminated by signal N" before the figures of a killed command
        r.kib, r.rc = int(words[-2]), int(words[-1])
        if "signal" in words:
            r.sig = int(words[words.index("signal") + 1])
            r.rc = 128 + r.sig
    except (ValueError, IndexError):
        r.kib, r.rc = 0, p.returncode if p.returncode >= 0 else 128 - p.returncode
        r.sig = -p.returncode if p.returncode < 0 else 0
    if os.path.exists(rus):
        os.unlink(rus)
    text = err.decode(errors="replace")
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("Command ")]
    errs = [l for l in lines if "error" in l]
    r.msg = (errs[0] if errs else lines[0] if lines else "")[:200]
    if writer:
        writer.kill()
        writer.wait()
    for x in (path if inp[2] else None, out):
        if x and os.path.lexists(x):
            (shutil.rmtree if os.path.isdir(x) and not os.path.islink(x) else os.unlink)(x)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iolens", default=os.path.join(ROOT, "build", "iolens"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--quick", action="store_true", help="fewer cuts and flips (for a smoke run)")
    ap.add_argument("--json", help="write every run's figures there")
    a = ap.parse_args()
    rnd = random.Random(1)
    work = tempfile.mkdtemp(prefix="iolens-hostile.")
    load0 = open("/proc/loadavg").read().split()[:3]
    try:
        seeds = {}
        t = os.path.join(work, "dd.trace")
        subprocess.run([a.iolens, "trace", "-o", t, "--", "dd", "if=/dev/zero", "of=" + os.path.join(work, "dd.out"),
                        "bs=4k", "count=256", "status=none"], check=True, capture_output=True)
        seeds["trace"] = [t]
        rec = os.path.join(DATA, "recorder", "shared_n2_m10")
        seeds["recorder"] = [rec] if os.path.isdir(rec) else []
        dl = [os.path.join(DATA, "darshan", p) for p in (
            "generated/small_writes_4proc_dxt_heatmap.darshan", "generated/small_writes_4proc_dxt_heatmap.bzip2.darshan",
            "public/release_logs__mpi-io-test-ppc64-3.1.6.darshan", "public/release_logs__mpi-io-test-x86_64-3.2.1.darshan",
            "public/release_logs__mpi-io-test-ppc64-3.0.0.darshan")]
        seeds["darshan"] = [p for p in dl if os.path.exists(p)]
        seeds["config"] = [os.path.join(ROOT, "examples", "replay", "ior-like.json")]
        s = os.path.join(work, "series.csv")
        subprocess.run([a.iolens, "cluster", "--synth", "30", "--length", "50-80", "-o", s], check=True, capture_output=True)
        seeds["series"] = [s]
        f = os.path.join(work, "features.csv")
        subprocess.run([a.iolens, "features", "--csv", "-o", f] + seeds["darshan"][:2], check=True, capture_output=True)
        seeds["table"] = [f]
        cmds = commands(a.iolens, work)
        jobs = []
        for kind, paths in seeds.items():
            inputs = []
            for sd in paths:
                inputs += [(n, p, None) for n, p in variants(sd, kind, work, rnd, a.quick)]
                if os.path.isdir(sd):  # a Recorder trace folder: its files cut or flipped one at a time
                    for fn in sorted(os.listdir(sd))[: 2 if a.quick else 6]:
                        cp = os.path.join(work, "rec-" + fn)
                        shutil.copytree(sd, cp)
                        victim = os.path.join(cp, fn)
                        if os.path.isfile(victim):
                            b = open(victim, "rb").read()
                            open(victim, "wb").write(b[: len(b) // 2])
                        inputs.append(("rec-cut-" + fn, cp, None))
            inputs += special(work)
            for label, argv in cmds[kind]:
                for inp in inputs:
                    jobs.append((argv, inp, "%s [%s]" % (label, kind)))
        print("hostile inputs: %d runs of %d commands (%d in parallel, %.0f s timeout); load average %s"
              % (len(jobs), sum(len(v) for v in cmds.values()), a.jobs, a.timeout, " ".join(load0)), flush=True)
        results = []
        with ThreadPoolExecutor(a.jobs) as ex:
            futs = [ex.submit(run_one, argv, inp, label, a.timeout, work, n) for n, (argv, inp, label) in enumerate(jobs)]
            for k, fu in enumerate(futs):
                results.append(fu.result())
                if sys.stderr.isatty() and k % 50 == 0:
                    print("\r%d/%d" % (k, len(futs)), end="", file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            print("\r", end="", file=sys.stderr)
        crashes = [r for r in results if r.sig and not r.hung]
        hangs = [r for r in results if r.hung]
        fat = [r for r in results if r.kib > r.limit_kib]
        silent = [r for r in results if r.rc != 0 and not r.sig and "error" not in r.msg]
        for name, bad in (("crash", crashes), ("hang", hangs), ("over memory", fat), ("no error message", silent)):
            for r in bad:
                print("%s: %s on %s: exit %d, %.1f s, %d KiB (limit %d): %s" % (name, r.label, r.input, r.rc, r.secs,
                                                                                r.kib, r.limit_kib, r.msg))
        worst = max(results, key=lambda r: r.kib)
        slow = max(results, key=lambda r: r.secs)
        load1 = open("/proc/loadavg").read().split()[:3]
        print("runs %d: crashes %d, hangs over %.0f s %d, over 256 MiB + 4 x input %d, failures without an error "
              "message %d" % (len(results), len(crashes), a.timeout, len(hangs), len(fat), len(silent)))
        print("peak resident %.1f MiB (%s on %s); longest %.2f s (%s on %s); exit 0 on %d runs (inputs read as "
              "valid); load average after %s" % (worst.kib / 1024, worst.label, worst.input, slow.secs, slow.label,
                                                 slow.input, sum(r.rc == 0 for r in results), " ".join(load1)))
        if a.json:
            with open(a.json, "w") as f:
                json.dump([{k: getattr(r, k) for k in Result.__slots__} for r in results], f)
        return 1 if crashes or hangs or fat else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
