#!/usr/bin/python3
"""MPI-IO writer/reader over mpi4py for the detection suite.

    mpiio.py DIR [--size BYTES] [--count N] [--collective] [--random] [--strided]
                 [--fpp] [--sync] [--read] [--imbalance F] [--root-only] [--report N] [--seed S]

Every rank writes COUNT transfers of SIZE bytes: to one shared file (default; --fpp: a file per
rank), contiguous per rank (default), interleaved across ranks (--strided), or in a shuffled
order of the same blocks (--random); independent (MPI_File_write_at) or collective
(MPI_File_write_at_all); --sync calls MPI_File_sync after every transfer; --read reads the
file back with the same pattern; --imbalance F gives rank 0 F times the transfers of the others;
--root-only: rank 0 alone moves data (the others only open the file, or nothing with --fpp);
--report N: rank 0 prints a report of N lines on its stdout through the C library's stdio, as a
benchmark written in C does (printf and fflush), which Darshan's STDIO module sees as <STDOUT>.
"""
import ctypes
import argparse
import os
import random

from mpi4py import MPI


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--collective", action="store_true")
    ap.add_argument("--random", action="store_true")
    ap.add_argument("--strided", action="store_true")
    ap.add_argument("--fpp", action="store_true")
    ap.add_argument("--sync", action="store_true")
    ap.add_argument("--read", action="store_true")
    ap.add_argument("--imbalance", type=float, default=1.0)
    ap.add_argument("--root-only", action="store_true")
    ap.add_argument("--report", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, nprocs = comm.Get_rank(), comm.Get_size()
    counts = [int(a.count * a.imbalance) if r == 0 else (0 if a.root_only else a.count) for r in range(nprocs)]
    mine = counts[rank]
    if a.fpp:
        fcomm, path, base = MPI.COMM_SELF, os.path.join(a.dir, "data.%d" % rank), [0]
    else:
        fcomm, path = comm, os.path.join(a.dir, "data.shared")
        base = [sum(counts[:rank])]
    blocks = list(range(mine))
    if a.random:
        random.Random(a.seed * 1000 + rank).shuffle(blocks)

    def offset(b):
        if a.fpp:
            return b * a.size
        if a.strided:
            return (b * nprocs + rank) * a.size
        return (base[0] + b) * a.size

    buf = bytearray(os.urandom(16)) * (a.size // 16) + bytearray(a.size % 16)
    fh = MPI.File.Open(fcomm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
    # collective calls need the same number of calls on every rank: the others pass empty buffers
    rounds = max(counts) if (a.collective and not a.fpp) else mine
    for i in range(rounds):
        n = a.size if i < mine else 0
        off = offset(blocks[i]) if i < mine else 0
        view = memoryview(buf)[:n]
        if a.collective:
            fh.Write_at_all(off, view)
        else:
            fh.Write_at(off, view)
        if a.sync:
            fh.Sync()
    if a.read:
        if not a.fpp:
            comm.Barrier()
        for i in range(rounds):
            n = a.size if i < mine else 0
            off = offset(blocks[i]) if i < mine else 0
            view = memoryview(buf)[:n]
            if a.collective:
                fh.Read_at_all(off, view)
            else:
                fh.Read_at(off, view)
    fh.Close()
    if a.report and rank == 0:
        libc = ctypes.CDLL(None)
        out = ctypes.c_void_p.in_dll(libc, "stdout")
        for i in range(a.report):
            libc.fprintf(out, b"%-12s %8d %12.3f MiB/s %10.4f s\n", b"write", i, ctypes.c_double(1000.0 + i),
                         ctypes.c_double(0.001 * i))
            if i % 16 == 15:
                libc.fflush(out)
        libc.fflush(out)


if __name__ == "__main__":
    main()
