/*
 * On-disk layouts of iolens traces, in one header shared by every writer and
 * reader (the shim, the encoder, the reader). Described for users in
 * docs/TRACE-FORMAT.md; change both together and bump the version.
 *
 * Two formats:
 *  - the raw spill file: what the shim appends while the program runs
 *    (fixed-size binary records, crash tolerant: a reader keeps every whole
 *    chunk and reports a cut one);
 *  - the trace file: the compact, lossless, versioned single file built from
 *    the spill files of every process of a job.
 */
#ifndef IOLENS_TRACE_FORMAT_H
#define IOLENS_TRACE_FORMAT_H

#include <stdint.h>

/* ---- function ids (index in funcs.def) ---- */
enum iol_func_id {
#define IOL_FN(sym, layer, op, has_off) IOL_F_##sym,
#include "trace/funcs.def"
#undef IOL_FN
    IOL_F_COUNT
};

/* ---- raw spill file ("p<pid>.<n>.raw" in the spill directory) ----
 * file  := header chunk*
 * header: struct iol_rawhdr
 * chunk : struct iol_rawchunk, then `bytes` bytes of payload:
 *   RECS : bytes/sizeof(struct iol_rawrec) records of one thread, in completion order
 *   PATH : i32 path id, then the path bytes (no NUL); written before the first RECS chunk
 *          whose records name it (paths named since the last RECS go out together)
 *   RANK : i32 MPI rank, i32 MPI world size
 *   END  : empty; the process finished its trace cleanly
 *   SELF : u64 samples, u64 post_ns, u64 pre_ns: the tracer's own time around sampled calls
 *          (written before END; see struct iol_rawself), then the same per function:
 *          (bytes - 24) / 24 struct iol_rawselff (an older shim wrote none)
 *   JOB  : u32 uid, u32 command bytes, the command line (its arguments, each NUL-terminated,
 *          as /proc/PID/cmdline), then the batch system's job id (no NUL; may be empty);
 *          written right after the header (older shims wrote none)
 * A spill whose process had to stop tracing early has an empty sibling file
 * "<spill>.off-<reason>", reason one of IOL_RAW_OFF_NAMES (index = code):
 *   closed   : the program closed the tracer's descriptor (close, close_range, closefrom)
 *   replaced : the descriptor was made to name another file (dup2 onto it, reuse)
 *   nospace  : a write failed for lack of space (ENOSPC, EDQUOT)
 *   ioerror  : a write failed otherwise
 *   cap      : the spill reached its cap (IOLENS_TRACE_SPILL_MAX) or the free space it must leave
 *              on its file system (a twentieth of it, and 128 MiB)
 */
#define IOL_RAW_OFF_SUFFIX ".off-"
enum { IOL_RAW_OFF_NONE = 0, IOL_RAW_OFF_CLOSED = 1, IOL_RAW_OFF_REPLACED = 2, IOL_RAW_OFF_NOSPACE = 3,
       IOL_RAW_OFF_IOERROR = 4, IOL_RAW_OFF_CAP = 5, IOL_RAW_OFF_COUNT = 6 };
#define IOL_RAW_OFF_NAMES "closed", "replaced", "nospace", "ioerror", "cap"

#define IOL_RAW_MAGIC "IOLRAW01"
#define IOL_RAW_VERSION 1u
#define IOL_RAW_CHUNK_MAGIC 0x4b4e4843u /* "CHNK" */
#define IOL_RAW_MAX_PATH 4096u
#define IOL_RAW_MAX_CHUNK (64u << 20)

typedef struct iol_rawhdr {
    char magic[8];
    uint32_t version;
    uint32_t rec_size;     /* sizeof(struct iol_rawrec) */
    int64_t pid;
    int64_t ppid;
    uint64_t start_ns;     /* CLOCK_REALTIME at shim start */
    uint32_t nfuncs;       /* IOL_F_COUNT of the writer */
    uint32_t reserved;
} iol_rawhdr;

enum iol_rawchunk_type { IOL_RAW_RECS = 1, IOL_RAW_PATH = 2, IOL_RAW_RANK = 3, IOL_RAW_END = 4, IOL_RAW_SELF = 5,
                         IOL_RAW_JOB = 6 };

/* Bounds of the JOB chunk's strings (a longer command line is cut at an argument). */
#define IOL_RAW_MAX_CMDLINE 4096u
#define IOL_RAW_MAX_JOBID 64u

/* The tracer's own cost, sampled on about one call in 64 of each thread: post_ns sums, over
 * the sampled calls, the time from the call's end stamp (t1) to the record being committed,
 * which is where the tracer spends its time between the program's calls (the record, the
 * buffer flushes, one clock read); pre_ns sums the time of one clock read before the start
 * stamp (t0). Gaps between recorded calls include about post_ns / samples of tracer time. */
typedef struct iol_rawself {
    uint64_t samples;
    uint64_t post_ns;
    uint64_t pre_ns;
} iol_rawself;

/* post_ns of the sampled calls of one function (writer's id): an open that names a new path
 * costs the tracer several times what a read does, and a replay takes the tracer's time out of
 * the gap after each call by the function it follows. */
typedef struct iol_rawselff {
    uint32_t func;
    uint32_t pad;
    uint64_t samples;
    uint64_t post_ns;
} iol_rawselff;

typedef struct iol_rawchunk {
    uint32_t magic;
    uint32_t type;
    uint32_t thread; /* thread index within the process (0 = main) */
    uint32_t bytes;
} iol_rawchunk;

/* The buffer of a read or write (POSIX read, write, pread(64), pwrite(64), also in their
 * fortified forms, and every MPI-IO read/write): its address modulo 4096 plus 1, in bits
 * 32-44 of slot a2, which those calls otherwise leave 0 (POSIX) or fill with a datatype size
 * below 2^32 (MPI-IO). 0 there: not recorded (traces of older shims, converted Recorder traces).
 * The reader moves it to iolens_event.buf_pgoff1 and clears those bits. */
#define IOL_BUFPOS_SHIFT 32
#define IOL_BUFPOS_MASK 0x1fffu
#define IOL_BUFPOS(p) ((p) ? (int64_t)(((uintptr_t)(p) & 4095u) + 1u) << IOL_BUFPOS_SHIFT : 0)

/* A record's depth byte: bits 0-3 the nesting inside traced POSIX, stdio and MPI-IO calls (an
 * MPI-IO call's pwrite is at 1), bits 4-7 the nesting inside traced library calls (HDF5): an
 * H5Dwrite is at 0, its MPI_File_write_at_all at io 0, lib 1, that call's pwrite at io 1, lib 1.
 * So "io depth 0" still means the calls the program (or its I/O library) made at that layer,
 * which is what counters and replay read; each saturates at 15. */
#define IOL_DEPTH_IO_MASK 15u
#define IOL_DEPTH_LIB_SHIFT 4
#define IOL_DEPTH_PACK(io, lib)                                                                    \
    ((uint8_t)(((unsigned)(io) > 15u ? 15u : (unsigned)(io)) |                                     \
               (((unsigned)(lib) > 15u ? 15u : (unsigned)(lib)) << IOL_DEPTH_LIB_SHIFT)))

typedef struct iol_rawrec {
    uint16_t func;   /* enum iol_func_id */
    uint8_t depth;   /* IOL_DEPTH_PACK(io, lib): 0 = called by the application */
    uint8_t pad;
    int32_t err;     /* errno after a failed call, else 0 */
    uint64_t t0;     /* CLOCK_REALTIME ns */
    uint64_t t1;
    int32_t file;    /* path id (process-wide), -1 if none */
    int32_t fd;      /* descriptor used (or fileno of a FILE*, MPI file handle index), -1 if none */
    int64_t ret;
    int64_t a[4];
} iol_rawrec;

/* ---- trace file ----
 * header  : magic[8] "IOLTRACE", u16 major, u16 minor, u32 nsections
 * directory: nsections x struct iol_tsect (little-endian, packed as written)
 * sections : payloads at their offsets
 */
#define IOL_TRACE_MAGIC "IOLTRACE"
#define IOL_TRACE_MAJOR 1u
#define IOL_TRACE_MINOR 4u
#define IOL_TRACE_HDR_SIZE 16u
#define IOL_TRACE_SECT_SIZE 32u
#define IOL_TRACE_MAX_SECTIONS 16u

/* SELF (since 1.1, optional): u64 nprocs, then per process (META's order) uv samples,
 * uv post_ns, uv pre_ns (iol_rawself). Readers before 1.1 skip it. */
/* JOB (since 1.3, optional): uv nprocs, then per process uv uid + 1 (0: not recorded), uv
 * command bytes, the command line (JOB chunk), uv job id bytes, the job id. Readers before 1.3
 * skip it. */
enum iol_tsect_type { IOL_TS_META = 1, IOL_TS_STRUCT = 2, IOL_TS_TIMES = 3, IOL_TS_SELF = 4, IOL_TS_JOB = 5 };
enum iol_tsect_codec { IOL_CODEC_RAW = 0, IOL_CODEC_ZSTD = 1 };

typedef struct iol_tsect {
    uint32_t type;
    uint32_t codec;
    uint64_t offset;
    uint64_t stored;  /* bytes in the file */
    uint64_t size;    /* bytes after decompression */
} iol_tsect;

/* A signature: the fields of one call relative to predictable values. */
enum iol_sig_field {
    IOL_SIG_FUNC, IOL_SIG_DEPTH, IOL_SIG_ERR, IOL_SIG_FMODE, IOL_SIG_FVAL, IOL_SIG_FD,
    IOL_SIG_OMODE, IOL_SIG_OVAL, IOL_SIG_A1, IOL_SIG_A2, IOL_SIG_A3, IOL_SIG_RMODE,
    IOL_SIG_RVAL, IOL_SIG_NFIELDS
};
/* file reference modes */
enum { IOL_FM_NONE = 0, IOL_FM_LAST = 1, IOL_FM_NEXT = 2, IOL_FM_LIT = 3 };
/* offset modes (functions with has_offset); others store a0 literally (IOL_OM_RAW) */
enum { IOL_OM_RAW = 0, IOL_OM_SEQ = 1, IOL_OM_STRIDE = 2, IOL_OM_DELTA = 3, IOL_OM_ABS = 4 };
/* return-value modes */
enum { IOL_RM_LIT = 0, IOL_RM_SIZE = 1, IOL_RM_OFF = 2 };

/* Bounds a reader enforces on hostile input. */
#define IOL_TRACE_MAX_PROCS (1u << 20)
#define IOL_TRACE_MAX_SECTION_BYTES (1ull << 32)
#define IOL_TRACE_MAX_THREADS 65536u

#endif
