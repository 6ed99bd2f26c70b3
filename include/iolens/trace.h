/*
 * iolens traces: build the compact trace file from the shim's spill files,
 * and read a trace back as an event stream (include/iolens/event.h).
 *
 * Format: docs/TRACE-FORMAT.md (magic "IOLTRACE", version 1.3).
 */
#ifndef IOLENS_TRACE_H
#define IOLENS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/event.h"
#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of iolens_trace_build(). Zero-initialise, then set what you need. */
typedef struct iolens_trace_build_opts {
    uint64_t resolution_ns; /**< timestamp resolution; 0 = 1000 (1 us) */
    int zstd_level;         /**< 0 = automatic (19, or 6 for timestamps over 1 MiB); negative = uncompressed */
} iolens_trace_build_opts;

/** Why a process stopped tracing before it ended (the shim turned itself off
 * and passed its calls through from then on). */
typedef enum iolens_trace_stop {
    IOLENS_STOP_NONE = 0,
    IOLENS_STOP_CLOSED = 1,   /**< the program closed the tracer's descriptor (close, close_range, closefrom) */
    IOLENS_STOP_REPLACED = 2, /**< the tracer's descriptor was made to name another file (dup2 onto it, reuse) */
    IOLENS_STOP_NOSPACE = 3,  /**< the file system ran out of space (or quota) for the spill */
    IOLENS_STOP_IOERROR = 4,  /**< a write to the spill failed otherwise */
    IOLENS_STOP_CAP = 5,      /**< the spill reached its cap or the free space it leaves its file system */
    IOLENS_STOP_COUNT = 6
} iolens_trace_stop;

/** A sentence for a stop reason ("" for IOLENS_STOP_NONE). */
IOLENS_API const char *iolens_trace_stop_text(int reason);

/** What iolens_trace_build() wrote (bytes per section, counts). */
typedef struct iolens_trace_stats {
    uint64_t nprocs;
    uint64_t ncalls;
    uint64_t nsignatures;  /**< summed over processes */
    uint64_t nrules;       /**< grammar rules summed over threads */
    uint64_t ngroups;      /**< distinct process structures after folding */
    uint64_t ntruncated;   /**< processes whose spill ended without a clean end mark */
    uint64_t bytes_header; /**< header + section directory */
    uint64_t bytes_meta;
    uint64_t bytes_struct;
    uint64_t bytes_times;
    uint64_t bytes_total;
    uint64_t nstopped[IOLENS_STOP_COUNT]; /**< processes that stopped tracing early, by reason (index 0 unused) */
} iolens_trace_stats;

/**
 * Reads every "*.raw" spill file of spill_dir (written by the shim) and
 * writes one trace file to out_path. stats may be NULL. Spill files cut short
 * (killed process, full disk) keep every whole record; their processes are
 * marked truncated. On failure *stats holds the counts of what was read
 * (ntruncated, nstopped), so that the caller can still say why.
 */
IOLENS_API int iolens_trace_build(const char *spill_dir, const char *out_path,
                                  const iolens_trace_build_opts *opts, iolens_trace_stats *stats);

/**
 * Removes what the trace builder and the shim put in spill_dir ("*.raw"
 * spill files, their ".off-*" markers, the "done.N" and "build.lock" files of
 * an MPI launch), then the folder itself if that left it empty. Any other
 * file is left alone. 0, or a negative code if an entry could not be removed.
 */
IOLENS_API int iolens_trace_remove_spill(const char *spill_dir);

/**
 * Writes into buf (size n, NUL-terminated, newline-separated) one sentence
 * per kind of process that did not trace to its end: stopped early, by
 * reason, and cut short without a reason (killed). Returns the number of
 * sentences (0: every process traced to its end).
 */
IOLENS_API int iolens_trace_build_warnings(const iolens_trace_stats *st, char *buf, size_t n);

/**
 * Merges n trace files into one (every process of every input becomes one
 * process of the output, ordered by MPI rank then start time), e.g. the
 * separate runs of a non-MPI workflow. Timestamps keep the coarsest input
 * resolution unless opts sets one. stats may be NULL.
 */
IOLENS_API int iolens_trace_merge(const char *const *inputs, size_t n, const char *out_path,
                                  const iolens_trace_build_opts *opts, iolens_trace_stats *stats);

/**
 * Writes the events of any event source (e.g. a Recorder trace from
 * iolens_recorder_open) as an iolens trace file, through the same encoder as
 * iolens_trace_build: each rank becomes one process (MPI rank = rank index).
 * opts->resolution_ns 0 (or opts NULL) = 100 ns, Recorder's default clock
 * resolution; times are rounded to the nanosecond, then truncated to the
 * resolution. Events whose function is not in iolens's traced-function
 * table are skipped and counted in *nskipped (may be NULL). Fields the
 * source does not record (Recorder: descriptors, return values) are filled
 * so that the trace decodes to the same file, offset and size per event.
 * The source is rewound; stats may be NULL.
 */
IOLENS_API int iolens_trace_write_events(iolens_evsource *src, const char *out_path,
                                         const iolens_trace_build_opts *opts, iolens_trace_stats *stats,
                                         uint64_t *nskipped);

/**
 * Opens a trace file as an event source (iolens_evsource_ops "iolens").
 * Ranks are the processes of the trace (MPI rank order, then other processes
 * in start order). Events of a rank come in start-time order across threads.
 * Events also carry their arguments as text (args/nargs), in the order of
 * the C call as Recorder prints them: descriptors, FILE* and MPI_File as the
 * file's path ("???" unknown), buffers as "%p", integers in decimal, fopen
 * modes as strings (docs/TRACE-FORMAT.md §5). Unlike func and the file
 * table, the args strings stay valid only until the next
 * iolens_evsource_next() for the same rank.
 */
IOLENS_API int iolens_trace_open(const char *path, iolens_evsource **out);

/** Same as iolens_trace_open on an in-memory image (name used in messages). */
IOLENS_API int iolens_trace_open_mem(const void *data, size_t size, const char *name, iolens_evsource **out);

/** Per-process facts of an open trace source (from iolens_trace_open). */
typedef struct iolens_trace_proc {
    int64_t pid;
    int64_t ppid;
    int32_t mpi_rank;  /**< -1 if not an MPI process */
    int truncated;     /**< the spill ended without a clean end mark */
    int stopped;       /**< iolens_trace_stop: why tracing stopped early, 0 if it did not */
    uint32_t nthreads;
    uint64_t ncalls;
} iolens_trace_proc;

/** Fills *out for rank; IOLENS_EINVAL if s is not an iolens trace source. */
IOLENS_API int iolens_trace_proc_info(iolens_evsource *s, int rank, iolens_trace_proc *out);

/** What the shim recorded of a traced process's job (format 1.3 and later): the command line,
 * the user and the batch system's job id. */
typedef struct iolens_trace_job {
    const char *argv;  /**< the arguments, each NUL-terminated, one after the other (argv_len bytes in
                        * all); NULL if not recorded. A command line of more than 4096 bytes is cut
                        * after its last whole argument below that */
    size_t argv_len;
    int64_t uid;       /**< real user id, -1 if not recorded */
    const char *jobid; /**< the job id the batch system put in the environment (SLURM_JOB_ID,
                        * PBS_JOBID, LSB_JOBID, COBALT_JOBID, FLUX_JOB_ID, the first set), "" when
                        * none was set; NULL if not recorded */
} iolens_trace_job;

/** Fills *out for rank: 1 when the trace recorded the process's job, 0 when not (a trace of an
 * older shim, a converted Recorder trace: *out then says nothing is recorded), IOLENS_EINVAL if
 * s is not an iolens trace source. Strings stay valid while s is open. */
IOLENS_API int iolens_trace_proc_job(iolens_evsource *s, int rank, iolens_trace_job *out);

/** The command line of job as one line, its arguments separated by spaces (Darshan's "exe"):
 * writes at most n bytes with the NUL into buf (n > 0) and returns the length of the whole
 * line (as snprintf). 0 and "" when the command line is not recorded. */
IOLENS_API size_t iolens_trace_job_command(const iolens_trace_job *job, char *buf, size_t n);

/** The tracer's own cost in a traced process, sampled on about one call in 64 (traces of
 * iolens 1.1 and later; 0 samples otherwise, e.g. a converted Recorder trace). */
typedef struct iolens_trace_self {
    uint64_t samples;
    double gap_seconds;   /**< mean tracer time a call adds to the gap after it (end stamp to return) */
    double clock_seconds; /**< mean time of one clock read */
} iolens_trace_self;

/** The same for the calls of one function of rank's process (format 1.2 and later): the k-th
 * function with samples (k from 0) in *func and *out (gap_seconds: the tracer's mean time
 * after such a call; clock_seconds 0). Returns 1, 0 past the last, or IOLENS_EINVAL if s is
 * not an iolens trace source. */
IOLENS_API int iolens_trace_proc_self_func(iolens_evsource *s, int rank, size_t k, const char **func,
                                           iolens_trace_self *out);

/** Below this many samples the mean is rough: one buffer flush among them (tens of
 * microseconds) weighs on it. A program whose calls are mostly HDF5 calls (not sampled) can
 * have a handful. */
#define IOLENS_TRACE_SELF_MIN_SAMPLES 16

/** Fills *out for rank; IOLENS_EINVAL if s is not an iolens trace source. */
IOLENS_API int iolens_trace_proc_self(iolens_evsource *s, int rank, iolens_trace_self *out);

/** Section sizes and counts of an open trace (ncalls etc. as in build). */
IOLENS_API int iolens_trace_info(iolens_evsource *s, iolens_trace_stats *out);

/** The name of the entry point the program called for e: e->func, or for an event flagged
 * IOLENS_EVF_FORTIFIED glibc's fortified entry point of that function ("__fprintf_chk"). */
IOLENS_API const char *iolens_trace_entry_name(const iolens_event *e);

/**
 * The raw arguments of the last event returned by iolens_evsource_next() for
 * rank: fd (or fileno / MPI file index) and a[4] as the shim recorded them
 * (docs/TRACE-FORMAT.md lists their meaning per function).
 */
IOLENS_API int iolens_trace_last_args(iolens_evsource *s, int rank, int32_t *fd, int64_t a[4]);

/**
 * For the last event of rank, an H5Dread or H5Dwrite whose file selection was a regular
 * hyperslab: the dataspace's rank (*ndims) and, for its first five dimensions in C order,
 * count x block (len) and stride. For a PnetCDF vara, vars or varm call: the number of
 * dimensions given (at most five, the variable's last ones) and, in C order, each count
 * (len) and stride (0 for vara, which takes none). 1 when the event has that shape, 0 when
 * not (another call, another selection, a trace of an older shim), IOLENS_EINVAL for a
 * source that is no iolens trace.
 */
IOLENS_API int iolens_trace_last_selection(iolens_evsource *s, int rank, int *ndims, int64_t len[5],
                                           int64_t stride[5]);

/**
 * For the last event of rank, an H5Dcreate2, H5Dopen2 or H5Oopen of a chunked dataset: the
 * chunk rank (*ndims) and its first five dimensions in C order. 1 when known, 0 when not.
 */
IOLENS_API int iolens_trace_last_chunk(iolens_evsource *s, int rank, int *ndims, int64_t dims[5]);

/**
 * For the last event of rank, an H5Dread or H5Dwrite whose file selection was a regular
 * hyperslab of at most five dimensions recorded by a shim that keeps where it starts: *start
 * the index, in C order, of its first element in the dataset's dimensions at the call, and the
 * H5Sselect_hyperslab count, block and stride per dimension in C order that select the same
 * elements (a dimension with several blocks of several elements each comes back as one block
 * of as many elements). 1 when known, 0 when not.
 */
IOLENS_API int iolens_trace_last_hyperslab(iolens_evsource *s, int rank, int *ndims, int64_t *start,
                                           int64_t count[5], int64_t block[5], int64_t stride[5]);

/**
 * For the last event of rank, an H5Dcreate2/1, H5Dopen2/1, H5Oopen of a dataset or an
 * H5Dset_extent: the dataset's rank (*ndims), its first five dimensions in C order, and in
 * *unlimited bit i set when dimension i has no maximum. 1 when known, 0 when not.
 */
IOLENS_API int iolens_trace_last_dims(iolens_evsource *s, int rank, int *ndims, int64_t dims[5], int *unlimited);

/**
 * For the last event iolens_evsource_next() returned for rank from an iolens trace: turns the
 * C return value of a stdio read or write into the bytes it moved, as the Darshan runtime
 * counts them (fgets at end of file 0, fgetc/fputc 1, fputs the string, fread/fwrite items x
 * size). Other events and other sources (Recorder: no return values) are left as they are.
 */
IOLENS_API void iolens_trace_stdio_moved(iolens_evsource *s, int rank, iolens_event *e);

#ifdef __cplusplus
}
#endif
#endif
