#!/usr/bin/env python3
"""Builds fuzz/corpus/darshan_log from small Darshan logs given on the command
line: for each log, truncations at a few offsets (inside the header, the job
region, the name region, the module regions) and a few seeded byte mutations
(header fields, region offsets/lengths, compressed payload). The shared logs
themselves are never copied: every output differs from its source.

usage: make_darshan_corpus.py OUTDIR LOG...
"""
import hashlib
import os
import random
import sys


def emit(outdir, data):
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(20261130)
    for path in sys.argv[2:]:
        data = open(path, "rb").read()
        n = len(data)
        for cut in sorted({8, 64, 200, 360, 700, 1328, n // 2, n - 100, n - 1}):
            if 0 < cut < n:
                emit(outdir, data[:cut])
        for _ in range(6):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                pos = rng.randrange(0, min(n, 1400)) if rng.random() < 0.6 else rng.randrange(n)
                b[pos] = rng.randrange(256)
            if bytes(b) != data:
                emit(outdir, bytes(b))


if __name__ == "__main__":
    main()
