#!/usr/bin/python3
"""HDF5 writer over h5py for the detection suite.

    h5.py DIR [--rows N] [--row-bytes B] [--per-call R] [--mpio [--collective]] [--datasets D] [--random]

Writes a 2-D uint8 dataset of N rows x B bytes (D datasets) R rows per h5py assignment; with
--mpio every rank of MPI_COMM_WORLD writes its contiguous share of the rows to one shared file
through HDF5's MPI-IO driver, independent or --collective; --random assigns the blocks in a
shuffled order.
"""
import argparse
import os

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rows", type=int, default=1024)
    ap.add_argument("--row-bytes", type=int, default=4096)
    ap.add_argument("--per-call", type=int, default=1)
    ap.add_argument("--datasets", type=int, default=1)
    ap.add_argument("--mpio", action="store_true")
    ap.add_argument("--collective", action="store_true")
    ap.add_argument("--random", action="store_true")
    a = ap.parse_args()
    rank, nprocs = 0, 1
    kw = {}
    if a.mpio:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        rank, nprocs = comm.Get_rank(), comm.Get_size()
        kw = dict(driver="mpio", comm=comm)
    path = os.path.join(a.dir, "data.h5")
    share = a.rows // nprocs
    lo = rank * share
    block = np.full((a.per_call, a.row_bytes), rank + 1, dtype=np.uint8)
    with h5py.File(path, "w", **kw) as f:
        for d in range(a.datasets):
            ds = f.create_dataset("d%d" % d, (share * nprocs, a.row_bytes), dtype=np.uint8)
            starts = list(range(lo, lo + share, a.per_call))
            if a.random:
                np.random.default_rng(rank + 1).shuffle(starts)
            for r in starts:
                n = min(a.per_call, lo + share - r)
                if a.mpio and a.collective:
                    with ds.collective:
                        ds[r:r + n] = block[:n]
                else:
                    ds[r:r + n] = block[:n]


if __name__ == "__main__":
    main()
