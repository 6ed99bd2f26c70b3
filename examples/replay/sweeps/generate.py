#!/usr/bin/env python3
"""Writes one replay config per scenario of ../shared/data/iosage/sweeps.tsv.

Sizes are scaled down to fit a 2-core machine (4 ranks, a few MiB per rank)
while keeping what induces each label: transfer sizes, access order, file
strategy, interface, fsync policy, metadata counts, imbalance factors.
Run from this folder: ./generate.py   (the JSON files are committed).
./generate.py --python-startup: the DLIO and load_imbalance.py configs start with the
interpreter's start-up I/O (a "startup" step; not committed, see PY_STARTUP).
"""
import json
import os
import sys

OUT = os.path.dirname(os.path.abspath(__file__))
K, M = 1024, 1024 * 1024
ALL = []

# The sweep's rank counts per scenario (sweeps.tsv "ranks"), kept in each config as "_sweep_ranks"
# (free text to the replay engine) for `iolens corpus --ranks sweep`.
SWEEP_RANKS = [
    ("ior_small_posix", [4, 16]), ("ior_small_direct", [4, 16]), ("ior_misaligned", [4, 16]),
    ("ior_random_posix", [4, 16, 64]), ("ior_random_small", [4, 16]),
    ("ior_interface_posix_shared", [16, 32, 64, 128]), ("ior_interface_mpiio_indep", [16, 32, 64, 128]),
    ("ior_file_explosion", [64, 128, 256]), ("ior_fsync_per_write", [4, 16]),
    ("ior_healthy_collective", [16, 32, 64, 128]), ("ior_healthy_posix_fpp", [16, 32, 64]),
    ("ior_healthy_large_seq", [4, 16]), ("ior_io500_hard", [16, 64, 256]), ("ior_io500_easy", [16, 64, 256]),
    ("ior_e2e_", [16, 64]), ("ior_boost_random_shared", [4, 16, 64]), ("ior_boost_fpp_many", [32, 64, 128]),
    ("ior_boost_fsync", [4, 16, 32]), ("ior_boost_healthy_collective", [32, 64, 128]),
    ("mdtest_meta_shared", [4, 16]), ("mdtest_meta_unique", [4, 16, 64]), ("mdtest_meta_cross", [32, 64, 128]),
    ("mdtest_fpp_explosion", [32, 64, 128]), ("mdtest_deep_tree_", [4, 16]), ("mdtest_healthy", [4, 16]),
    ("mdtest_io500_hard", [16, 64, 256]), ("mdtest_io500_easy", [16, 64]), ("dlio_", [4, 8]),
    ("h5b_indep_small_single_ost", [32, 64, 128]), ("h5b_indep_large_healthy", [4, 8, 16]),
    ("h5b_collective_large_healthy", [16, 32, 64, 128]), ("h5b_", [16, 32, 64]),
    ("hacc_posix_shared_large", [16, 32, 64]), ("hacc_fpp_many_ranks", [32, 64, 128]),
    ("hacc_posix_shared_single_ost", [32, 64, 128]), ("hacc_mpiio_collective_healthy", [16, 32, 64, 128]),
    ("hacc_fpp_healthy", [4, 8, 16]), ("hacc_posix_shared_small_single_ost", [32, 64, 128]),
    ("hacc_posix_shared_small", [16, 32, 64]), ("hacc_fpp_small_many", [32, 64, 128]),
    ("hacc_posix_shared_many_single_ost", [32, 64, 128]), ("custom_", [4, 16, 64]),
]


def sweep_ranks(name):
    for prefix, ranks in SWEEP_RANKS:  # the first matching prefix (specific ones come first)
        if name.startswith(prefix):
            return ranks
    raise SystemExit(f"{name}: no sweeps.tsv rank counts")


# The Python programs (DLIO, load_imbalance.py) start with the interpreter's import I/O, which the
# sweep logs of these scenarios carry (hundreds of library files per rank). Its shape, measured on
# this machine: `iolens trace -o T -- /usr/bin/python3 -c 'import argparse, json, os, sys, time,
# numpy'` (Debian 12, Python 3.11, python3-numpy 1.24.2; `iolens view T`): 140 compiled modules
# read (sizes below, in import order), 17 extension modules stat()ed only, OpenSSL's configuration
# read through stdio (391 fgets, 12,843 bytes). The replay's "startup" step does the same calls in
# a library tree of the run (docs/REPLAY-CONFIG.md).
PY_MODULE_BYTES = [
    6458, 12648, 2317, 11133, 335, 113663, 19315, 86449, 14820, 18760, 46634, 78038, 1069, 9679, 31821,
    49873, 5951, 1847, 8179, 25033, 23809, 14221, 15188, 3648, 16810, 16279, 5158, 6604, 516, 5907, 868,
    4912, 564, 57327, 9218, 101509, 796, 10350, 6352, 67772, 7470, 148, 55219, 96209, 86634, 381, 7514,
    1793, 21022, 15251, 3690, 9166, 13682, 91749, 34680, 134304, 14239, 32612, 13198, 17469, 295, 298,
    75585, 4834, 87576, 44097, 13411, 21320, 12781, 29520, 54929, 205951, 13850, 5269, 37827, 108975,
    26800, 3981, 7454, 2736, 9207, 18185, 23845, 9879, 37840, 496, 37603, 2101, 104615, 37844, 20931,
    209849, 41821, 70346, 45913, 56259, 44479, 19596, 37157, 105307, 34958, 13138, 36732, 26952, 37725,
    10311, 30440, 7087, 8447, 57038, 8403, 7167, 56072, 32804, 49415, 74291, 60149, 61807, 61571, 59512,
    7736, 2702, 2863, 28445, 11471, 12337, 34525, 3699, 69834, 21986, 1700, 312787, 141793, 36725,
    13853, 6661, 7470, 30359, 3724, 79154,
]
PY_STARTUP = {"name": "interpreter start-up", "method": "startup",
              "startup": {"modules": [{"bytes": b} for b in PY_MODULE_BYTES], "extensions": 17,
                          "config_lines": 391, "config_line_bytes": 33}}
PYTHON_PROGRAMS = ("dlio_", "custom_")
# Off by default: tried for the held-out corpus score and rejected (docs/detect.md, "Rank scale and
# interpreter start-up"); `./generate.py --python-startup` writes the configs with the step.
WITH_STARTUP = "--python-startup" in sys.argv[1:]


def save(name, label, source, steps, nranks=4, params=None, note=None):
    desc = f"sweeps.tsv scenario {name}: label {label}. Original: {source}"
    if note:
        desc += f". Replay: {note}"
    cfg = {"version": 1, "name": name, "description": desc, "nranks": nranks,
           "_sweep_ranks": sweep_ranks(name)}
    if params:
        cfg["optimization_params"] = params
    for st in steps:
        # IOR's and mdtest's POSIX back end, HACC-IO and the Python programs (DLIO, load_imbalance.py)
        # position with lseek() before each read()/write(): the sweep logs have POSIX_SEEKS = reads + writes
        if st.get("interface", "posix") == "posix" and st["method"] in ("write", "read", "metadata"):
            st["seek"] = True
    if WITH_STARTUP and name.startswith(PYTHON_PROGRAMS):
        steps = [dict(PY_STARTUP, file_names=[f"{name}/python"])] + steps
    cfg["file_configs"] = steps
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    ALL.append(name)


def ior(name, label, source, t, b, s, fpp=False, api="posix", fsync_close=False, odirect=False,
        random=False, fsync_write=False, collective=None, params=None, note=None, nranks=4):
    reps = (b // t) * s
    base = {"interface": api, "chunks": [{"transfer_size": t, "repetitions": reps}]}
    if fpp:
        base["file_names"] = [f"{name}/testfile.{{rank}}"]
        base["file_per_process"] = True
    else:
        base["file_names"] = [f"{name}/testfile"]
    if random:
        base["access"] = "random"
        base["seed"] = 42
    elif s > 1 and not fpp:
        base["access"] = "strided"
        base["block_size"] = b
    if fsync_write:
        base["fsync"] = "every_write"
    elif fsync_close:
        base["fsync"] = "close"
    hints = {}
    if odirect:
        hints["use_direct"] = True
    if collective is not None:
        hints["use_collective"] = collective
    if hints:
        base["hints"] = hints
    w = dict(name="write", method="write", **base)
    r = dict(name="read", method="read", **base)
    if r.get("fsync") == "every_write":  # IOR -Y syncs after writes: a read phase has none
        del r["fsync"]
    save(name, label, source, [w, r], nranks=nranks, params=params, note=note)


def rnd(*a, **k):
    return ior(*a, random=True, **k)


ROMIO_OFF = {"romio_cb_read": "disable", "romio_cb_write": "disable", "romio_ds_read": "disable",
             "romio_ds_write": "disable"}
STRIPE1 = {"lustre_stripe_count": 1}
STRIPE_ALL = {"lustre_stripe_count": -1}

# ---- IOR ----
ior("ior_small_posix", "access_granularity", "-a POSIX -t {64..2048} -b 64K -s 100 -F -e -C -w -r; stripe 1",
    256, 64 * K, 20, fpp=True, fsync_close=True, params=STRIPE1, note="t=256 B, -s 20")
ior("ior_small_direct", "access_granularity", "-a POSIX -t {4096,8192,16384} -b 1M -s 100 -F -C -w -r --posix.odirect",
    4096, 1 * M, 4, fpp=True, odirect=True, params=STRIPE1, note="t=4 KiB, -s 4")
ior("ior_misaligned", "access_granularity", "-a POSIX -t {1000,1500,3000,7000} -b t*1000 -s 50 -F -e -C -w -r",
    1000, 1000 * 1000, 2, fpp=True, fsync_close=True, params=STRIPE1, note="t=1000, -s 2")
rnd("ior_random_posix", "access_pattern", "-a POSIX -t {4096,65536,1048576} -b 100M -s 10 -z -e -w -r --posix.odirect (shared)",
    65536, 4 * M, 1, fsync_close=True, odirect=True, params=STRIPE1, note="t=64 KiB, -b 4M -s 1")
rnd("ior_random_small", "access_pattern+access_granularity", "-a POSIX -t {512,1024} -b 10M -s 50 -F -z -e -C -w -r",
    512, 256 * K, 4, fpp=True, fsync_close=True, note="t=512, -b 256K -s 4")
ior("ior_interface_posix_shared", "interface_choice", "-a POSIX -t 1M -b 100M -s 4 -e -C -w -r --posix.odirect (shared)",
    1 * M, 4 * M, 2, fsync_close=True, odirect=True, note="-b 4M -s 2")
ior("ior_interface_mpiio_indep", "interface_choice", "-a MPIIO -t 1M -b 100M -s 4 -e -C -w -r; romio cb/ds disabled",
    1 * M, 4 * M, 2, api="mpiio", fsync_close=True, collective=False, params=ROMIO_OFF, note="-b 4M -s 2")
ior("ior_file_explosion", "file_strategy", "-a POSIX -t 64K -b 10M -s 10 -F -e -C -w -r --posix.odirect, 64-256 ranks",
    64 * K, 1 * M, 2, fpp=True, fsync_close=True, odirect=True, nranks=16, note="16 ranks, -b 1M -s 2")
ior("ior_fsync_per_write", "throughput_utilization", "-a POSIX -t {64K,1M} -b 100M -s 4 -F -e -C -w -r -Y",
    64 * K, 2 * M, 2, fpp=True, fsync_write=True, note="t=64K -b 2M -s 2")
ior("ior_healthy_collective", "healthy", "-a MPIIO -t 4M -b 1G -s 4 -c -e -C -w -r; stripe -1; romio_cb_write=enable",
    4 * M, 8 * M, 2, api="mpiio", fsync_close=True, collective=True,
    params={"romio_cb_write": "enable", "striping_factor": 4}, note="-b 8M -s 2")
ior("ior_healthy_posix_fpp", "healthy", "-a POSIX -t 4M -b 1G -s 4 -F -e -C -w -r --posix.odirect; stripe -1",
    4 * M, 8 * M, 2, fpp=True, fsync_close=True, odirect=True, params=STRIPE_ALL, note="-b 8M -s 2")
ior("ior_healthy_large_seq", "healthy", "-a POSIX -t {1M,4M,16M} -b 1G -s 4 -F -e -C -w -r --posix.odirect",
    4 * M, 16 * M, 1, fpp=True, fsync_close=True, odirect=True, params=STRIPE_ALL, note="t=4M -b 16M -s 1")
ior("ior_io500_hard", "access_granularity+interface_choice", "-a POSIX -t 47008 -b 47008 -s 1000 -e -C -w -r (shared)",
    47008, 47008, 100, fsync_close=True, note="-s 100")
ior("ior_io500_easy", "healthy", "-a POSIX -t 1M -b 1G -s 4 -F -e -C -w -r --posix.odirect",
    1 * M, 16 * M, 1, fpp=True, fsync_close=True, odirect=True, note="-b 16M -s 1")
ior("ior_e2e_posix_shared", "interface_choice", "-a POSIX -t 1M -b 100M -s 4 -e -C -w -r (shared)",
    1 * M, 4 * M, 2, fsync_close=True, note="-b 4M -s 2")
ior("ior_e2e_mpiio_coll", "healthy", "-a MPIIO -c -t 1M -b 100M -s 4 -e -C -w -r",
    1 * M, 4 * M, 2, api="mpiio", fsync_close=True, collective=True, note="-b 4M -s 2")
rnd("ior_boost_random_shared", "access_pattern", "SLURM 17310653 steps 0-23: ior -a POSIX -z -t {4K..256K} -b 10M -s 10 -e -w -r (shared)",
    16 * K, 1 * M, 2, fsync_close=True, note="t=16K -b 1M -s 2")
ior("ior_boost_fpp_many", "file_strategy", "SLURM 17310653 steps 24-41: ior -a POSIX -t {64K,1M} -b 10M -s 10 -F -e -w -r; stripe 1; 32-128 ranks",
    64 * K, 1 * M, 2, fpp=True, fsync_close=True, params=STRIPE1, nranks=16, note="16 ranks")
ior("ior_boost_fsync", "throughput_utilization", "SLURM 17310653 steps 42-59: ior -a POSIX -t {64K,1M} -b 100M -s 4 -e -w -r -Y; stripe 1",
    64 * K, 2 * M, 2, fsync_write=True, params=STRIPE1, note="t=64K -b 2M -s 2")
ior("ior_boost_healthy_collective", "healthy", "SLURM 17310653 steps 60-65: ior -a MPIIO -c -t 4M -b 1G -s 4 -e -w -r; stripe -1",
    4 * M, 8 * M, 2, api="mpiio", fsync_close=True, collective=True, note="-b 8M -s 2")


# ---- mdtest ----
def mdtest(name, label, source, n, w=0, e=0, unique=False, depth=0, branching=1, nranks=4, note=None):
    md = {"files_per_rank": n, "unique_dir": unique, "write_bytes": w, "read_bytes": e}
    if depth:
        md["depth"] = depth
        md["branching"] = branching
    save(name, label, source, [{"name": "create-stat-read-unlink", "method": "metadata",
                                "file_names": [f"{name}/tree"], "metadata": md}], nranks=nranks, note=note)


mdtest("mdtest_meta_shared", "metadata_intensity", "mdtest -n {1000..50000} -w 0 -e 0 -F (shared dir)", 2000,
       note="-n 2000")
mdtest("mdtest_meta_unique", "metadata_intensity", "mdtest -n {5000,10000,50000} -w 0 -e 0 -F -u", 2000, unique=True,
       note="-n 2000")
mdtest("mdtest_meta_cross", "metadata_intensity", "mdtest -n {5000,10000} -w 64 -e 64 -F -N <nranks>", 2000, 64, 64,
       note="-n 2000; the -N neighbour read-back is read by the writer here")
mdtest("mdtest_fpp_explosion", "file_strategy", "mdtest -n {100..5000} -w 4096 -e 4096 -F -u, 32-128 ranks", 500,
       4096, 4096, unique=True, nranks=16, note="16 ranks, -n 500")
for d, b in [(3, 2), (3, 5), (5, 2), (5, 5), (10, 2)]:
    mdtest(f"mdtest_deep_tree_d{d}_b{b}", "metadata_intensity", f"mdtest -n 100 -w 0 -e 0 -u -z {d} -b {b}", 100,
           unique=True, depth=d, branching=b)
mdtest("mdtest_healthy", "healthy", "mdtest -n {10,50} -w 1M -e 1M -F -u", 10, M, M, unique=True)
mdtest("mdtest_io500_hard", "metadata_intensity", "mdtest -n {1000,5000,10000} -w 3901 -e 3901 -F (shared dir)", 1000,
       3901, 3901, note="-n 1000")
mdtest("mdtest_io500_easy", "healthy", "mdtest -n {100,500} -F -u", 100, unique=True)


# ---- DLIO ----
def dlio_small(rl):
    name = f"dlio_small_rl{rl}"
    save(name, "access_granularity",
         f"DLIO unet3d_v100 npz record_length={rl} num_files_train=1000 samples/file=1 batch=1 read_threads=1 "
         "computation_time=0.01 epochs=2",
         [{"name": "epoch", "method": "metadata", "total_repeats": 2, "file_names": [f"{name}/train"],
           "metadata": {"files_per_rank": 250, "unique_dir": False, "write_bytes": rl, "read_bytes": rl,
                        "stat": True, "unlink": True}},
          {"name": "compute", "method": "compute", "total_repeats": 2, "compute": {"kind": "sleep", "seconds": 0.05}}],
         note="each rank creates, reads back and removes its 250 samples (one file each) per epoch")


for rl in (64, 256, 1024, 4096):
    dlio_small(rl)
for ms in ("1e8", "5e8", "1e9"):
    mb = {"1e8": 2, "5e8": 8, "1e9": 16}[ms]
    name = f"dlio_ckpt_ms{ms}"
    save(name, "throughput_utilization",
         f"DLIO rl=65536 files=100 samples/file=10 batch=8 threads=4 comp=0.5 epochs=5 checkpoint every epoch model_size={ms}",
         [{"name": "read-epoch", "method": "read", "file_names": [f"{name}/data.{{rank}}"], "file_per_process": True,
           "total_repeats": 5, "chunks": [{"transfer_size": 65536, "repetitions": 64}]},
          {"name": "compute", "method": "compute", "total_repeats": 5, "compute": {"kind": "sleep", "seconds": 0.05}},
          {"name": "checkpoint", "method": "write", "file_names": [f"{name}/ckpt.{{rank}}"], "file_per_process": True,
           "total_repeats": 5, "fsync": "close", "chunks": [{"transfer_size": 1048576, "repetitions": mb}]}],
         note=f"checkpoint of {mb} MiB per rank per epoch, fsync on close")
for rl in (1048576, 4194304):
    name = f"dlio_healthy_rl{rl}"
    save(name, "healthy", f"DLIO record_length={rl} files=100 samples/file=10 batch=32 threads=8 comp=1.0 epochs=3",
         [{"name": "read-epoch", "method": "read", "file_names": [f"{name}/data.{{rank}}"], "file_per_process": True,
           "total_repeats": 3, "chunks": [{"transfer_size": rl, "repetitions": 8 * M // rl}]},
          {"name": "compute", "method": "compute", "total_repeats": 3, "compute": {"kind": "busy", "seconds": 0.05}}])
save("dlio_shuffle", "access_pattern",
     "DLIO rl=65536 files=5000 samples/file=1 batch=1 threads=1 sample_shuffle=random file_shuffle=random comp=0.01 epochs=2",
     [{"name": "read-epoch", "method": "read", "file_names": ["dlio_shuffle/data"], "access": "random", "seed": 7,
       "total_repeats": 2, "chunks": [{"transfer_size": 65536, "repetitions": 64}]},
      {"name": "compute", "method": "compute", "total_repeats": 2, "compute": {"kind": "sleep", "seconds": 0.02}}],
     note="shuffled samples as random 64 KiB reads of a shared file")


# ---- h5bench: through the HDF5 library (parallel HDF5 over MPI-IO), so the logs carry HDF5's own
# metadata I/O (superblock, object headers: small unaligned writes) as h5bench's do ----
def h5b(name, label, source, dim, ts, coll, interleaved=False, params=None, nranks=4):
    if interleaved:
        # compound type (array of structs, 32 B per particle): each timestep is one contiguous
        # write of dim records per rank -- the sweep logs' dominant access is 32 x DIM_1 bytes and
        # they have no read phase (hence h5b_interleaved_access relabeled healthy)
        chunk = {"transfer_size": 32 * dim, "repetitions": ts}
    else:
        # 8 float particle properties per timestep, one contiguous write of dim values each
        chunk = {"transfer_size": 4 * dim, "repetitions": 8 * ts}
    step = {"interface": "hdf5", "file_names": [f"{name}/h5bench.h5"], "hints": {"use_collective": coll},
            "chunks": [chunk], "access": "strided"}
    # h5bench_write and h5bench_read are separate programs, so separate logs: every sweep log of h5bench
    # has writes or reads, never both (POSIX_RW_SWITCHES 0). A read log would need its file written
    # untraced beforehand, so the configs are the write logs.
    steps = [dict(name="write", method="write", **step)]
    save(name, label, source, steps, nranks=nranks, params=params,
         note="through the HDF5 library: one 1-D dataset per transfer size; h5bench_write only")


h5b("h5b_indep_small", "interface_choice", "COLLECTIVE_DATA=NO CONTIG DIM_1=1024 TIMESTEPS=10; stripe 1; cb disabled",
    1024, 10, False, params={**ROMIO_OFF})
h5b("h5b_interleaved_access", "healthy", "COLL=YES INTERLEAVED DIM_1=262144 TS=10", 262144, 2, True, interleaved=True)
h5b("h5b_collective_small", "access_granularity", "COLL=YES CONTIG DIM_1=128 TS=20", 128, 20, True)
h5b("h5b_collective_large_healthy", "healthy", "COLL=YES CONTIG DIM_1=4194304 TS=5; stripe -1; cb enabled",
    4194304, 1, True, params={"romio_cb_write": "enable", "romio_cb_read": "enable"})
h5b("h5b_indep_large_healthy", "healthy", "COLL=NO CONTIG DIM_1=4194304 TS=5; stripe -1", 4194304, 1, False)
h5b("h5b_indep_small_interleaved", "access_granularity+interface_choice", "COLL=NO INTERLEAVED DIM_1=256 TS=20",
    256, 20, False, interleaved=True)
h5b("h5b_indep_interleaved", "interface_choice", "COLL=NO INTERLEAVED DIM_1=524288 TS=10", 524288, 2, False,
    interleaved=True)
h5b("h5b_indep_small_single_ost", "access_granularity+interface_choice+throughput_utilization",
    "COLL=NO CONTIG DIM_1=512 TS=20; stripe 1", 512, 20, False, params={"striping_factor": 1})


# ---- HACC-IO: 9 arrays per rank (7 floats, one int64, one uint16 = 38 B per particle) ----
# As in the sweep logs: particle counts (so transfer sizes) of the sweep; a rank's 9 arrays back to back
# (shared file: rank-major blocks, 8 of 9 writes consecutive), no fsync, and hacc_io_mpiio writes with
# independent MPI_File_write_at (the logs: MPIIO_INDEP_WRITES 9 per rank, no collective writes).
def hacc(name, label, source, particles, mode, params=None, nranks=4):
    sizes = [4] * 7 + [8, 2]
    chunks = [{"transfer_size": s * particles, "repetitions": 1} for s in sizes]
    step = {"chunks": chunks}
    if mode == "fpp":
        step["file_names"] = [f"{name}/hacc.{{rank}}"]
        step["file_per_process"] = True
    else:
        step["file_names"] = [f"{name}/hacc.shared"]
        step["rank_blocks"] = True
    if mode == "mpiio":
        step["interface"] = "mpiio"
        step["hints"] = {"use_collective": False}
    save(name, label, source, [dict(name="checkpoint", method="write", **step),
                               dict(name="restart", method="read", **step)], nranks=nranks, params=params)


hacc("hacc_posix_shared_large", "interface_choice", "hacc_io_posix_shared 1,000,000 particles/rank", 1000000, "shared")
hacc("hacc_fpp_many_ranks", "file_strategy", "hacc_io_fpp 100,000 particles, 32-128 ranks", 100000, "fpp", nranks=16)
hacc("hacc_posix_shared_single_ost", "throughput_utilization", "hacc_io_posix_shared 500,000 particles; stripe 1",
     500000, "shared", params=STRIPE1)
hacc("hacc_mpiio_collective_healthy", "healthy", "hacc_io_mpiio_shared 1,000,000 particles; cb enabled", 1000000,
     "mpiio", params={"romio_cb_write": "enable"})
hacc("hacc_fpp_healthy", "healthy", "hacc_io_fpp 2,000,000 particles; stripe -1", 2000000, "fpp", params=STRIPE_ALL)
hacc("hacc_posix_shared_small", "access_granularity+interface_choice", "hacc_io_posix_shared 100 particles", 100, "shared")
hacc("hacc_posix_shared_small_single_ost", "access_granularity+interface_choice+throughput_utilization",
     "hacc_io_posix_shared 200 particles; stripe 1", 200, "shared", params=STRIPE1)
hacc("hacc_fpp_small_many", "file_strategy+access_granularity", "hacc_io_fpp 50 particles, 32-128 ranks", 50, "fpp",
     nranks=16)
hacc("hacc_posix_shared_many_single_ost", "interface_choice+throughput_utilization",
     "hacc_io_posix_shared 500,000 particles; stripe 1", 500000, "shared", params=STRIPE1)


# ---- custom load imbalance (mpi4py) ----
def imbalance(name, label, factor, mb):
    # load_imbalance.py writes (and reads back) a rank's MB in 64 MB chunks: mb MiB per rank (64 + 36 for
    # 100), rank 0 factor x mb MiB in 64 MiB chunks (the sweep logs: f2_mb10 has one 20 MiB write and three
    # 10 MiB ones). Sizes as in the sweep: transfer sizes are what the labels are read from.
    def split(total):
        return [64] * (total // 64) + ([total % 64] if total % 64 else [])
    # (ranks 1-3 listed: the scenario runs on 4 ranks, its corpus variants on 2 or 4)
    others = [{"rank": r, "repetitions": 1} for r in range(1, 4)]
    chunks = [{"transfer_size": t * M, "ranks": others} for t in split(mb)]
    for t in split(factor * mb):  # rank 0's own chunks
        chunks.append({"transfer_size": t * M, "ranks": [{"rank": 0, "repetitions": 1}]})
    # "imbalance": [1] only marks the workload as one that needs several ranks (iolens corpus variants)
    step = {"file_names": [f"{name}/rank.{{rank}}"], "file_per_process": True, "imbalance": [1], "chunks": chunks}
    save(name, label, f"load_imbalance.py: own file per rank, rank 0 writes {factor}x{mb} MB, others {mb} MB; "
         "64 MB chunks + flush; fsync; read back",
         [dict(name="write", method="write", fsync="close", **step), dict(name="read", method="read", **step)],
         note=f"{mb} MiB per rank, rank 0 {factor * mb} MiB, in transfers of at most 64 MiB")


for f in (2, 5, 10, 20):
    for mb in (10, 50):
        imbalance(f"custom_imbalance_f{f}_mb{mb}", "parallelism_efficiency", f, mb)
for mb in (50, 100):
    imbalance(f"custom_balanced_mb{mb}", "healthy", 1, mb)

print(f"{len(ALL)} configs")
