#!/usr/bin/env python3
"""Compares the Darshan counters of an original run and of its replay, apart from timing.

    darshan_compare.py ORIGINAL.json REPLAY.json ROOT [--label L]

Both files are `iolens darshan --json LOG`. The replay wrote every file below ROOT
(`/a/b` became `ROOT/a/b`): its record names are mapped back before comparing.
Compared: every record of the original (POSIX, MPI-IO, STDIO counters and the non-time
fcounters; DXT offsets and lengths per rank, in order); timing is left out (counters and
fcounters whose name has TIME, FASTEST_RANK / SLOWEST_RANK, which the times decide, and
MAX_*_TIME_SIZE, the size of the slowest call). The standard streams' records ("<STDOUT>", ...)
are not compared: a replay does not print what the program printed. Records of the replay that are not below
ROOT are the replay's own inputs (config, trace) and are listed, not compared; files of the
MPI library (Open MPI's shared-file-pointer files under /tmp/ompi.*/pid.N/) are compared with
the pid and communicator ids masked.
Prints one line per difference and exits 1 if there is any.
"""
import json
import re
import sys

TIMING = ("TIME", "FASTEST_RANK", "SLOWEST_RANK")
STREAMS = ("<STDIN>", "<STDOUT>", "<STDERR>")


def library_name(name):
    """MPI library files (Open MPI's shared file pointer files) carry the job's pid and ids."""
    name = re.sub(r"/pid\.\d+/", "/pid.N/", name)
    return re.sub(r"_cid-(\d+)-\d+\.sm$", r"_cid-\1-N.sm", name)


def load(path, root=None, known=None):
    j = json.load(open(path))
    names = {n["id"]: library_name(n["name"]) for n in j["names"]}
    recs, extra = {}, []
    for mod, body in j["modules"].items():
        if mod == "HEATMAP":
            continue  # bytes per time bin: timing
        for r in body.get("records", []):
            name = names.get(r["id"], r["id"])
            if name in STREAMS:
                if root is not None:
                    extra.append((mod, name))
                continue  # the terminal's: a replay does not print what the program printed
            if root is not None:
                if name.startswith(root + "/"):
                    name = name[len(root):]
                elif not name.startswith("heatmap:") and name not in known:
                    extra.append((mod, name))
                    continue
            recs[(mod, name, r["rank"])] = r
    return recs, extra


def values(mod, r):
    if mod.startswith("DXT"):
        return {k: [(x["offset"], x["length"]) for x in r.get(k, [])] for k in ("writes", "reads")}
    out = {}
    for group in ("counters", "fcounters"):
        for k, v in r.get(group, {}).items():
            if not any(t in k for t in TIMING):
                out[k] = v
    return out


def main():
    args = sys.argv[1:]
    label = ""
    if "--label" in args:
        i = args.index("--label")
        label = args[i + 1] + ": "
        del args[i:i + 2]
    orig, _ = load(args[0])
    rep, extra = load(args[1], args[2].rstrip("/"), {k[1] for k in orig})
    diffs = 0
    for key, r in sorted(orig.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        mod, name, rank = key
        if key not in rep:
            print(f"{label}{mod} {name} rank {rank}: record missing in the replay")
            diffs += 1
            continue
        a, b = values(mod, r), values(mod, rep[key])
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                va, vb = a.get(k), b.get(k)
                if mod.startswith("DXT"):
                    va, vb = f"{len(va or [])} ops", f"{len(vb or [])} ops (first difference at op " + \
                        str(next((i for i, (x, y) in enumerate(zip(va or [], vb or [])) if x != y),
                                 min(len(va or []), len(vb or [])))) + ")"
                print(f"{label}{mod} {name} rank {rank} {k}: original {va}, replay {vb}")
                diffs += 1
    for key in sorted(set(rep) - set(orig)):
        print(f"{label}{key[0]} {key[1]} rank {key[2]}: record only in the replay")
        diffs += 1
    compared = len(orig)
    print(f"{label}{compared} records compared, {diffs} differences; replay's own files not compared: "
          + (", ".join(sorted({n for _, n in extra})) or "none"))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
