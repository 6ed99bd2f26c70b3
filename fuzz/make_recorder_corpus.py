#!/usr/bin/env python3
"""Builds fuzz/corpus/recorder_trace/ from the small shared Recorder traces:
each trace as a container ({u8 name_len; name; u32 size; bytes}...), plus
truncated and mutated variants and a few hand-made malicious grammars.
Files named fuzz-* were added later from libFuzzer runs (small inputs that
increased coverage, `-merge=1`); this script does not produce them.
Usage: fuzz/make_recorder_corpus.py ../shared/data/recorder fuzz/corpus/recorder_trace"""
import os, random, struct, sys, zlib

src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
rng = random.Random(4)

def container(files):
    out = b""
    for name, data in files:
        out += bytes([len(name)]) + name.encode() + struct.pack("<I", len(data)) + data
    return out

def block(payload):
    c = zlib.compress(payload)
    return struct.pack("<QQ", len(c), len(payload)) + c

def load(trace):
    d = os.path.join(src, trace)
    names = [n for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))
             and not n.endswith(".txt")]
    return [(n, open(os.path.join(d, n), "rb").read()) for n in names]

def write(name, data):
    open(os.path.join(dst, name), "wb").write(data)

for trace in ["shared_n2_m10", "ckpt_n2_m10", "shared_n4_m10", "nonmpi_dd_1000x1MiB"]:
    files = load(trace)
    write(trace, container(files))
    for k in range(6):  # truncate one file
        i = rng.randrange(len(files))
        f = list(files)
        n, d = f[i]
        f[i] = (n, d[: rng.randrange(len(d) + 1)])
        write(f"{trace}-trunc{k}", container(f))
    for k in range(6):  # flip bytes in one file
        i = rng.randrange(len(files))
        f = list(files)
        n, d = f[i]
        d = bytearray(d)
        for _ in range(rng.randrange(1, 5)):
            if d:
                d[rng.randrange(len(d))] = rng.randrange(256)
        f[i] = (n, bytes(d))
        write(f"{trace}-flip{k}", container(f))

# malicious grammars on shared_n2_m10's metadata and signatures
base = dict(load("shared_n2_m10"))
def grammar_trace(words, records):
    ts_blk = block(b"\0" * (8 * records))
    f = dict(base)
    f["ug.mt"] = struct.pack("<3i", 0, 0, 1)
    f["ug.cfg"] = block(struct.pack(f"<{len(words)}i", *words))
    f["recorder.ts"] = struct.pack("<QQ", len(ts_blk), len(ts_blk)) + ts_blk + ts_blk
    return container(sorted(f.items()))
write("grammar-cycle", grammar_trace([2, -1, 2, 0, 1, -2, 1, -2, 1, -1, 1], 1))
write("grammar-huge", grammar_trace([3, -1, 1, -2, 2000000000, -2, 1, -3, 2000000000, -3, 1, 0, 2000000000], 1))
write("grammar-empty-rules", grammar_trace([3, -1, 2, 0, 1, -2, 2000000000, -2, 1, -3, 2000000000, -3, 0], 1))
write("grammar-sizes", grammar_trace([1, -1, 1, 0, 2], 3))
