/*
 * The event stream: one of iolens's three canonical forms (see
 * docs/TRACE-FORMAT.md). Per rank, the ordered I/O calls
 * with their arguments and start/end times. Produced by the iolens trace
 * reader, the Recorder trace reader and (partially) Darshan DXT; consumed
 * by counters, time series, features and replay.
 *
 * Every producer implements iolens_evsource_ops; consumers only see
 * iolens_evsource and never the producer's format.
 */
#ifndef IOLENS_EVENT_H
#define IOLENS_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The I/O layer a call belongs to (Recorder's "type" column uses 0..4 the same way). */
typedef enum iolens_layer {
    IOLENS_LAYER_POSIX = 0,
    IOLENS_LAYER_MPIIO = 1,
    IOLENS_LAYER_MPI = 2,
    IOLENS_LAYER_HDF5 = 3,
    IOLENS_LAYER_USER = 4,
    IOLENS_LAYER_STDIO = 5, /* Recorder counts stdio as POSIX; iolens keeps it apart */
    IOLENS_LAYER_OTHER = 6,
    IOLENS_LAYER_PNETCDF = 7,
    IOLENS_LAYER_NETCDF = 8,
} iolens_layer;

/** Whether a layer is an I/O library (HDF5, PnetCDF, NetCDF) whose calls are made of the POSIX and
 *  MPI-IO calls recorded beneath them (those carry lib_depth > 0). */
static inline int iolens_layer_is_library(iolens_layer l)
{
    return l == IOLENS_LAYER_HDF5 || l == IOLENS_LAYER_PNETCDF || l == IOLENS_LAYER_NETCDF;
}

/** What a call does, independent of its exact entry point (pwrite64 and
 *  MPI_File_write_at_all are both IOLENS_OP_WRITE). */
typedef enum iolens_op {
    IOLENS_OP_OTHER = 0,
    IOLENS_OP_OPEN,
    IOLENS_OP_CLOSE,
    IOLENS_OP_READ,
    IOLENS_OP_WRITE,
    IOLENS_OP_SEEK,
    IOLENS_OP_SYNC,
    IOLENS_OP_STAT,
    IOLENS_OP_TRUNCATE,
    IOLENS_OP_META, /* mkdir, unlink, rename, access, opendir, ... */
    IOLENS_OP_DUP,
    IOLENS_OP_MMAP,
    IOLENS_OP_FLUSH,
    IOLENS_OP_SET_VIEW,
    IOLENS_OP_WAIT, /* completion of a non-blocking MPI-IO request */
    IOLENS_OP_INIT,
    IOLENS_OP_FINALIZE,
} iolens_op;

/** Event flags. */
#define IOLENS_EVF_COLLECTIVE 0x1u /* MPI-IO collective call */
#define IOLENS_EVF_NONBLOCKING 0x2u /* MPI-IO non-blocking (i*) call */
#define IOLENS_EVF_FAILED 0x4u /* the call returned an error (err holds errno) */
#define IOLENS_EVF_OFFSET_IMPLICIT 0x8u /* offset was the file pointer, resolved by the producer */
#define IOLENS_EVF_OFFSET_UNKNOWN 0x10u /* offset could not be determined */
/* the source's read of a copy between files made by the kernel (copy_file_range, sendfile): the
 * same call as the next event, the target's write; both have the bytes copied as size */
#define IOLENS_EVF_COPY_SOURCE 0x20u
/* the program called the function's fortified entry point (glibc's _FORTIFY_SOURCE:
 * __fprintf_chk for fprintf, __read_chk for read, ...), which the event names by the plain
 * function; iolens_trace_entry_name() gives the entry point's name */
#define IOLENS_EVF_FORTIFIED 0x40u

/**
 * One call. Strings (func, path, args) point into memory owned by the
 * source and stay valid until the source is freed.
 */
typedef struct iolens_event {
    int32_t rank;        /**< MPI rank (0 for non-MPI) */
    uint32_t thread;     /**< thread index within the process (0 = main) */
    uint32_t depth;      /**< call depth among POSIX, stdio and MPI-IO calls: 0 for calls made by the
                              application or its I/O library, 1 for calls made inside such a call */
    iolens_layer layer;
    iolens_op op;
    uint32_t flags;      /**< IOLENS_EVF_* */
    const char *func;    /**< entry point name as called, e.g. "pwrite64" */
    double tstart;       /**< seconds since the job start */
    double tend;
    int64_t file;        /**< file identity: index into the source's file table, -1 if none */
    int64_t offset;      /**< byte offset of a read/write (resolved), or seek result; -1 if not applicable */
    int64_t size;        /**< bytes requested (read/write), or count*datatype size for MPI-IO */
    int64_t ret;         /**< return value (bytes moved, new fd, 0, ...) */
    int32_t err;         /**< errno of a failed call, else 0 */
    int32_t open_flags;  /**< open flags / MPI amode, or -1 */
    int32_t mode;        /**< creation mode (fallocate: its mode argument), or -1 */
    int32_t whence;      /**< lseek/fseek whence, or -1 */
    uint32_t nargs;      /**< number of textual arguments */
    const char *const *args; /**< every argument as text, as Recorder prints it (may be NULL when nargs == 0) */
    /* added for replay fidelity; producers that memset the event leave it "not recorded" */
    uint32_t buf_pgoff1; /**< read/write: 1 + the data buffer's address modulo 4096 (where in a page it
                              starts); 0 when not recorded (Recorder, DXT, traces of older shims) */
    uint32_t lib_depth;  /**< nesting inside traced I/O library calls (HDF5, PnetCDF, NetCDF): an H5Dwrite is at 0, the
                              MPI-IO and POSIX calls it makes at 1 (their depth is counted apart, so
                              depth 0 stays "the calls made at that layer") */
    double self_after;   /**< seconds the tracer spent after this call, before the program went on
                              (the mean over the sampled calls of its function, else of its process,
                              at most the shortest gap after a call of the function, one tick added):
                              part of the recorded gap before the next call that was not the
                              program's; 0 when not recorded */
} iolens_event;

/** Whether an open is not a call but a descriptor the process already had open when it started
 *  ("iolens_fd_at_start": a shell's redirection, a file kept across exec) or was forked
 *  ("iolens_fd_at_fork"): open_flags its status flags, offset its position then (-1 unknown). */
static inline int iolens_event_is_fd_note(const iolens_event *e)
{
    return e->op == IOLENS_OP_OPEN && e->func && !strncmp(e->func, "iolens_fd_at_", 13);
}

/** A file identity of a source: its path. */
typedef struct iolens_file {
    int64_t id;
    const char *path;
} iolens_file;

typedef struct iolens_evsource iolens_evsource;

/** What a producer implements (versioned, as fio's ioengine_ops). */
typedef struct iolens_evsource_ops {
    int version; /**< IOLENS_EVSOURCE_OPS_VERSION */
    const char *name; /**< "iolens", "recorder", "dxt" */
    /** Number of ranks in the job. */
    int (*nranks)(void *impl);
    /** Job start in seconds since the epoch (0 if unknown). */
    double (*start_time)(void *impl);
    /** File table: *count entries; pointer valid until free. */
    int (*files)(void *impl, const iolens_file **out, size_t *count);
    /** Next event of the given rank in call order: 1 got one, 0 end, <0 error. */
    int (*next)(void *impl, int rank, iolens_event *out);
    /** Restart the given rank from its first event. */
    int (*rewind)(void *impl, int rank);
    void (*free)(void *impl);
} iolens_evsource_ops;

#define IOLENS_EVSOURCE_OPS_VERSION 1

/** Wraps a producer's implementation; takes ownership of impl. */
IOLENS_API int iolens_evsource_new(iolens_evsource **out, const iolens_evsource_ops *ops, void *impl);
IOLENS_API int iolens_evsource_nranks(const iolens_evsource *s);
IOLENS_API double iolens_evsource_start_time(const iolens_evsource *s);
IOLENS_API int iolens_evsource_files(iolens_evsource *s, const iolens_file **out, size_t *count);
IOLENS_API int iolens_evsource_next(iolens_evsource *s, int rank, iolens_event *out);
IOLENS_API int iolens_evsource_rewind(iolens_evsource *s, int rank);
IOLENS_API const char *iolens_evsource_kind(const iolens_evsource *s);
/** Frees the source and everything it owns; NULL is a no-op. */
IOLENS_API void iolens_evsource_free(iolens_evsource *s);

/** Writes one event as one line of JSON (JSON Lines: the machine form of `iolens view` and
 *  `iolens trace --print`): rank, thread, tstart, tend (seconds since the job's start, shortest
 *  round-trip), func, depth, lib_depth, layer, op, file (index, -1 none), path (null when none),
 *  offset, size, collective, offset_implicit, offset_unknown, ret, errno, args (the textual
 *  arguments, where the source has them); with slots (an iolens trace's call:
 *  iolens_trace_last_args()), fd and slots (the four raw argument slots) and, when recorded,
 *  buf_page_offset. Returns 0, or <0 when the write failed. */
IOLENS_API int iolens_event_write_json(FILE *out, const iolens_event *ev, const iolens_file *files, size_t nfiles,
                                       const int32_t *fd, const int64_t *slots);

/** Readable names ("write", "POSIX"). */
IOLENS_API const char *iolens_op_name(iolens_op op);
IOLENS_API const char *iolens_layer_name(iolens_layer layer);

#ifdef __cplusplus
}
#endif
#endif
