"""Writes a Darshan log (format 3.41, zlib) whose records have an old module version, as the
Darshan log format defines each layout (iolens's writer writes current versions only):
    mk_old_records.py OUT.darshan pnetcdf1|h5f1|h5f2 [big]
pnetcdf1: PNETCDF_FILE v1 (independent and collective opens; open start, close end);
h5f1: H5F v1 (opens; open start, close end); h5f2: H5F v2 (opens; four timestamps).
"big" writes the log big-endian."""
import struct
import sys
import zlib

KINDS = {
    # module slot, version, record format after (id, rank), two records
    "pnetcdf1": (5, 1, "2q2d", [(11, -1, 1, 2, 0.5, 9.25), (12, 1, 3, 0, 1.125, 7.0)]),
    "h5f1": (3, 1, "q2d", [(11, -1, 4, 0.5, 9.25), (12, 1, 2, 1.125, 7.0)]),
    "h5f2": (3, 2, "q4d", [(11, -1, 4, 0.5, 8.5, 0.75, 9.25), (12, 1, 2, 1.125, 6.0, 1.5, 7.0)]),
}

def main(out, kind, big):
    e = ">" if big else "<"
    slot, ver, fmt, rows = KINDS[kind]
    job = struct.pack(e + "7q", 1000, 1700000000, 0, 1700000010, 0, 2, 4242)
    job += b"lib_ver=3.4.0\nh=romio_no_indep_rw=true;cb_nodes=4\n".ljust(1024, b"\0")
    job += b"./old-app -n 2\nnfs\t/home\0"
    names = struct.pack(e + "Q", 11) + b"/home/u/a.nc\0" + struct.pack(e + "Q", 12) + b"/scratch/b.nc\0"
    recs = b"".join(struct.pack(e + "Qq" + fmt, *r) for r in rows)
    regions = [zlib.compress(job), zlib.compress(names), zlib.compress(recs)]
    hdr = bytearray(1328)
    hdr[0:4] = b"3.41"
    struct.pack_into(e + "Q", hdr, 8, 6567223)
    hdr[16] = 0  # zlib
    off = 1328
    struct.pack_into(e + "QQ", hdr, 32, off + len(regions[0]), len(regions[1]))
    struct.pack_into(e + "QQ", hdr, 48 + 16 * slot, off + len(regions[0]) + len(regions[1]), len(regions[2]))
    struct.pack_into(e + "I", hdr, 1072 + 4 * slot, ver)
    with open(out, "wb") as f:
        f.write(bytes(hdr) + b"".join(regions))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "big")
