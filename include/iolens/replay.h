/*
 * iolens replay — FBench-style what-if benchmarks.
 *
 * A replay config (JSON, docs/REPLAY-CONFIG.md, docs/replay-config.schema.json)
 * lists steps ("file_configs") run in order: write/read phases over shared or
 * per-process files through POSIX, stdio or MPI-IO with hints, compute phases
 * and mdtest-like metadata phases. Each step is timed as FBench's Algorithm 1:
 * from the earliest open to the latest close across ranks.
 *
 * Safety: every file is created fresh below a root directory (absolute
 * paths are remapped below it, '..' and symbolic-link escapes are refused),
 * a file that already exists is never overwritten or removed, and what the
 * replay created is removed at the end unless keep is set.
 *
 * MPI: when the library is built with MPI (iolens_replay_have_mpi()), the
 * caller initialises MPI and sets use_mpi; ranks are MPI_COMM_WORLD. Without
 * MPI the POSIX and stdio back ends run as one process (rank 0 of 1).
 */
#ifndef IOLENS_REPLAY_H
#define IOLENS_REPLAY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iolens/event.h"
#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct iolens_replay_config iolens_replay_config;
typedef struct iolens_replay_result iolens_replay_result;

/** Parses a config from memory. source names it in error messages, which
 *  carry the JSON path of the offending value, e.g.
 *  "'x.json': file_configs[2].chunks[0].transfer_size: must be between 1 and ...". */
IOLENS_API int iolens_replay_config_parse(iolens_replay_config **out, const char *text, size_t len,
                                          const char *source);
/** Reads and parses a config file (at most 64 MiB). */
IOLENS_API int iolens_replay_config_load(iolens_replay_config **out, const char *path);
IOLENS_API void iolens_replay_config_free(iolens_replay_config *cfg);
/** Number of steps (file_configs). */
IOLENS_API size_t iolens_replay_config_count(const iolens_replay_config *cfg);
/** Ranks the config was written for (its "nranks"), or 0 when not stated. */
IOLENS_API int iolens_replay_config_nranks(const iolens_replay_config *cfg);
/** 1 when a step uses the MPI-IO interface. */
IOLENS_API int iolens_replay_config_needs_mpi(const iolens_replay_config *cfg);
/** 1 if a step uses the HDF5 interface. */
IOLENS_API int iolens_replay_config_needs_hdf5(const iolens_replay_config *cfg);
/** Writes the config back as JSON (normalised: sizes in bytes). */
IOLENS_API int iolens_replay_config_write(const iolens_replay_config *cfg, FILE *out);
/** Writes the JSON Schema of the config format (generated from the option tables). */
IOLENS_API int iolens_replay_schema_write(FILE *out);

/** 1 when this build has the MPI-IO back end. */
IOLENS_API int iolens_replay_have_mpi(void);
/** The back ends of this build, e.g. "posix stdio mpiio hdf5". */
IOLENS_API const char *iolens_replay_backends(void);

typedef struct iolens_replay_options {
    const char *root;    /**< directory every replayed file lives below (created if missing) */
    int dry_run;         /**< plan only: sizes, files, hints; no I/O */
    int dry_run_ranks;   /**< ranks to plan for (0: the config's nranks, else 1) */
    int keep;            /**< keep the files the replay created */
    int use_mpi;         /**< MPI is initialised by the caller: use MPI_COMM_WORLD */
    iolens_warn_fn warn; /**< optional warnings callback */
    void *warn_ctx;
    /** optional progress: called on rank 0 after each step */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /** read steps start cold: before a read step, untimed, each rank writes back and drops the
     *  cached pages of the file it reads (fdatasync + posix_fadvise DONTNEED), as a program
     *  reading data written long before (or fio, which invalidates its files' cache) sees it */
    int cold_reads;
    /** optional: set non-zero (a signal handler) to stop the replay; it stops between transfers
     *  (between steps where every rank's transfers are collective), removes what it created
     *  unless keep is set, and returns IOLENS_EINTR */
    volatile sig_atomic_t *stop;
} iolens_replay_options;

/** Runs (or plans) a config. On MPI, every rank calls it; the result of
 *  rank 0 holds every rank's figures, the others only their own. */
IOLENS_API int iolens_replay_run(iolens_replay_result **out, const iolens_replay_config *cfg,
                                 const iolens_replay_options *opt);
IOLENS_API void iolens_replay_result_free(iolens_replay_result *r);

/** Figures of one step. */
typedef struct iolens_replay_step_stats {
    const char *name;      /**< step name ("file_configs[i]" when unnamed) */
    const char *method;    /**< "write", "read", "compute", "metadata" */
    const char *interface; /**< "posix", "stdio", "mpiio", "hdf5" */
    int nranks;
    int64_t bytes;         /**< bytes moved by every rank */
    int64_t ops;           /**< I/O or metadata operations by every rank */
    double seconds;        /**< Algorithm 1: latest close - earliest open */
    double bandwidth;      /**< bytes / seconds (0 for compute) */
    int64_t verify_errors; /**< bytes read back that differ from the written pattern */
} iolens_replay_step_stats;

IOLENS_API size_t iolens_replay_result_count(const iolens_replay_result *r);
IOLENS_API int iolens_replay_result_step(const iolens_replay_result *r, size_t i, iolens_replay_step_stats *out);
/** Status of a hint of step i as reported ("applied", "not applicable here: ...", ...); NULL if absent. */
IOLENS_API const char *iolens_replay_result_hint(const iolens_replay_result *r, size_t i, const char *hint);
/** Value the MPI library reports for an info key after open (MPI_File_get_info); NULL if absent. */
IOLENS_API const char *iolens_replay_result_mpi_info(const iolens_replay_result *r, size_t i, const char *key);
/** Machine form (JSON) and human form (table). */
IOLENS_API int iolens_replay_result_write_json(const iolens_replay_result *r, FILE *out, int pretty);
IOLENS_API int iolens_replay_result_write_table(const iolens_replay_result *r, FILE *out);

/**
 * Global view (FBench 3.2): builds a config from an event stream: groups
 * reads and writes by file, operation, rank and transfer size, merges the
 * operations of each open-close session, detects shared files versus file
 * per process (same per-rank shape over one file per rank) and counts
 * identical sessions as total_repeats.
 */
IOLENS_API int iolens_replay_config_from_events(iolens_replay_config **out, iolens_evsource *src);

/** Options of the global view; zeroed = the defaults. */
typedef struct iolens_replay_gv_options {
    int all_paths; /**< 1: keep every file. 0: leave out the files Darshan excludes by default
                        (iolens_counters_path_excluded: /etc/ /proc/ /sys/ /usr/ /dev/ ...), except
                        under /dev/shm/, and those of the MPI runtime's session directory
                        (<tmp>/ompi.<host>.<uid>/...), then drop the processes left without reads
                        or writes that are not MPI ranks (an Open MPI singleton's ORTE/PMIx helper) */
    int level;     /**< IOLENS_REPLAY_LEVEL_LIBRARY: the program's own HDF5 calls make hdf5 steps
                        (H5Dwrite/H5Dread selections as transfers of the file, its access list's
                        alignment and collective metadata, its datasets' largest chunk), the calls
                        made inside them are left out; else (0) the POSIX, stdio and MPI-IO calls */
} iolens_replay_gv_options;

/** What the global view left out. */
typedef struct iolens_replay_gv_report {
    int64_t files_excluded; /**< files with reads or writes left out by the path exclusions */
    int ranks_in;           /**< processes ("ranks") of the event source */
    int ranks_dropped;      /**< non-MPI processes without reads or writes, left out */
} iolens_replay_gv_report;

/** iolens_replay_config_from_events with options (NULL: defaults, as
 *  iolens_replay_config_from_events); report (may be NULL) says what was left out. */
IOLENS_API int iolens_replay_config_from_events_opts(iolens_replay_config **out, iolens_evsource *src,
                                                     const iolens_replay_gv_options *opts,
                                                     iolens_replay_gv_report *report);

/** Opens a trace for replay, detected by content: a directory is read as a
 *  Recorder trace (iolens_recorder_open), a file starting with "IOLTRACE" as
 *  an iolens trace (iolens_trace_open); anything else is IOLENS_EFORMAT. */
IOLENS_API int iolens_replay_trace_open(const char *path, iolens_evsource **out);

/** Kinds of namespace calls the on-the-fly replay counts and times. */
enum { IOLENS_REPLAY_META_CREATE, IOLENS_REPLAY_META_OPEN, IOLENS_REPLAY_META_CLOSE, IOLENS_REPLAY_META_STAT,
       IOLENS_REPLAY_META_UNLINK, IOLENS_REPLAY_META_MKDIR, IOLENS_REPLAY_META_RMDIR, IOLENS_REPLAY_META_RENAME,
       IOLENS_REPLAY_META_OTHER, IOLENS_REPLAY_NMETA };

/** Options of the on-the-fly replay. */
typedef struct iolens_replay_trace_options {
    const char *root;    /**< every replayed file lives below it (created if missing) */
    int delays;          /**< 1: before each call, wait the recorded gap since the end of the previous replayed
                              call, less the tracer's own time in that gap (iolens_trace_proc_self) */
    double speed;        /**< with delays: gaps divided by speed (0 or 1 = as recorded) */
    int keep;            /**< keep the files the replay created (default: remove them) */
    int rank;            /**< replay only this rank; -1: every rank in turn, one after the other */
    iolens_warn_fn warn; /**< optional warnings callback */
    void *warn_ctx;
    int use_mpi;         /**< MPI is initialised by the caller: with N > 1 processes (the trace's ranks),
                              process r replays rank r, MPI-IO included; with one process MPI-IO calls
                              of a one-rank trace are replayed too */
    int all_processes;   /**< replay every process of the trace; by default, in a trace with MPI ranks, the
                              processes that are not MPI ranks and read or write no replayed file (an MPI
                              runtime's helpers) are left out and the ranks keep their trace order */
    int level;           /**< IOLENS_REPLAY_LEVEL_*: which calls of an HDF5 program are re-issued */
    int hdf5_xfer;       /**< library level: 0 each transfer's mode as recorded, 1 every transfer independent,
                              2 every transfer collective (a what-if of the transfer property list) */
    int64_t hdf5_align_threshold; /**< library level, with hdf5_alignment > 0: H5Pset_alignment(threshold,
                                       alignment) on every file instead of the program's own setting */
    int64_t hdf5_alignment;
    /** optional: set non-zero (a signal handler) to stop the replay; it stops before its next
     *  call (or wait), removes what it created unless keep is set, and returns IOLENS_EINTR */
    volatile sig_atomic_t *stop;
} iolens_replay_trace_options;

/** Levels of iolens_replay_trace_options.level. */
enum {
    IOLENS_REPLAY_LEVEL_AUTO = 0, /**< the library level when the trace has HDF5 calls and this build has HDF5 */
    IOLENS_REPLAY_LEVEL_IO = 1,   /**< the POSIX, stdio and MPI-IO calls, those made inside HDF5 calls too */
    IOLENS_REPLAY_LEVEL_LIBRARY = 2 /**< HDF5 calls re-issued through HDF5, the calls made inside them not */
};

/** 1 when this build replays HDF5 calls through HDF5 (IOLENS_REPLAY_LEVEL_LIBRARY), else 0. */
IOLENS_API int iolens_replay_has_hdf5(void);

/** 1 when the source has application-level HDF5 calls, 0 if not, <0 on error. */
IOLENS_API int iolens_replay_trace_has_hdf5(iolens_evsource *src);

/** One open-close session of the on-the-fly replay (times in seconds since the replay started). */
typedef struct iolens_replay_session {
    int32_t rank;
    int64_t file;          /**< index into the source's file table */
    const char *path;      /**< the traced path (owned by the source) */
    double open, close;    /**< just before the open, just after the close */
    int64_t bytes_read, bytes_written;
} iolens_replay_session;

/** What the on-the-fly replay did. */
typedef struct iolens_replay_trace_stats {
    int nranks;            /**< ranks replayed */
    int64_t calls;         /**< calls re-issued */
    int64_t skipped;       /**< application calls not replayed (other layers, system files, failed calls) */
    int64_t bytes_written;
    int64_t bytes_read;
    double seconds;        /**< wall time of the replay */
    int64_t failed;        /**< metadata calls that succeeded in the trace but failed in the replay */
    int64_t refused;       /**< unlink/rename/rmdir of paths that existed before the replay (never touched) */
    double write_seconds;  /**< how long a session that wrote was open: the union of their open-close
                                intervals (FBench Algorithm 1, latest close - earliest open, where
                                they overlap; the time between them left out) */
    double read_seconds;   /**< the same over the sessions that read */
    int prepare_failed;    /**< the failure was found before any call was replayed (every MPI rank alike) */
    iolens_replay_session *sessions; /**< every rank's sessions in rank order (on MPI rank 0 only);
                                          free with iolens_replay_trace_stats_release() */
    size_t nsessions;
    /** Replayed namespace calls by kind (iolens_replay_meta_kind_name()): how many, and the seconds
     *  spent inside them, summed over the processes. */
    int64_t meta_calls[IOLENS_REPLAY_NMETA];
    double meta_seconds[IOLENS_REPLAY_NMETA];
    /** The span of each kind: from the start of its first call to the end of its last, over
     *  every process (seconds on the replay's clock; 0 and 0 when none). A metadata benchmark
     *  runs its phases one after the other, so calls / span is the rate it reports per phase. */
    double meta_first[IOLENS_REPLAY_NMETA], meta_last[IOLENS_REPLAY_NMETA];
    /** The same per replayed rank, row r * IOLENS_REPLAY_NMETA + kind for r < meta_ranks (every rank's on
     *  MPI rank 0): calls, and the span of its calls of that kind. A program of several processes
     *  runs its phases in some of them (fio's jobs are processes of their own after its main
     *  process's checks): the rate of one process's phase is calls / (last - first) of its row.
     *  NULL when no namespace call was replayed; freed by iolens_replay_trace_stats_release(). */
    int64_t *meta_rank_calls;
    double *meta_rank_first, *meta_rank_last;
    int meta_ranks; /**< rows of meta_rank_*: the trace's replayed ranks (0 when NULL) */
    /** With delays: the tracer's own time per call (iolens_trace_proc_self) taken off each
     *  recorded gap between calls, the largest over the replayed ranks; 0 when the trace has none. */
    double tracer_gap_seconds;
    int level;             /**< the level replayed: IOLENS_REPLAY_LEVEL_IO or _LIBRARY */
    int64_t library_calls; /**< of calls: HDF5 calls re-issued through HDF5 */
    /** The time of the replayed calls: from the start of the calls (the trace's first calls
     *  decoded, the ranks started together) to the end of the last call, over every process;
     *  ranks replayed one after another in one process add theirs. This is what compares with
     *  the traced run's span of calls: seconds also holds the set-up and the decoding. */
    double calls_seconds;
} iolens_replay_trace_stats;

/** Name of a kind of iolens_replay_trace_stats.meta_calls: "create", "open", "close", "stat",
 *  "unlink", "mkdir", "rmdir", "rename", "other"; NULL out of range. */
IOLENS_API const char *iolens_replay_meta_kind_name(int kind);

/** Frees what a stats structure owns (the sessions); the structure itself is the caller's. */
IOLENS_API void iolens_replay_trace_stats_release(iolens_replay_trace_stats *stats);

/** 1 when the source has application-level MPI-IO calls (a replay needs MPI), 0 if not, <0 on error. */
IOLENS_API int iolens_replay_trace_needs_mpi(iolens_evsource *src);
/** Ranks an on-the-fly replay of src replays (the trace's processes less the ones left out, as
 *  iolens_replay_trace_run() selects them with all_processes), or <0 on error. */
IOLENS_API int iolens_replay_trace_ranks(iolens_evsource *src, int all_processes);

/**
 * On-the-fly replay: each rank re-issues its own application-level POSIX,
 * stdio and (under MPI, one process per traced rank) MPI-IO calls in order (open with the recorded flags and mode, read and
 * write of the recorded sizes — pread/pwrite at the recorded offsets —,
 * seeks to the recorded resulting offset, fsync, fflush, close) on paths
 * remapped below opt->root ('..' and symbolic links refused). Files under
 * /proc, /sys, /dev (but /dev/shm), /etc, /usr, /lib and /run are skipped; a file the trace
 * reads without creating it is created as large as the trace reads from it.
 * Metadata calls (stat, access, mkdir, rmdir, unlink, rename, opendir,
 * readdir, ftruncate) are re-issued on the remapped paths; a path that
 * existed before the replay is never unlinked, renamed or removed.
 * MPI-IO: collective calls must match across ranks (same calls on the same
 * files in the same order) or the replay refuses before issuing anything.
 * Without MPI (or with fewer processes than ranks) MPI-IO calls are skipped.
 * HDF5 calls (opt->level): at the library level each is re-issued through HDF5 (files with
 * the recorded driver and access settings, datasets of the recorded type size, dimensions
 * and chunks, reads and writes of the recorded hyperslab and transfer mode) and the MPI-IO
 * and POSIX calls made inside them are not; at the I/O level those calls are replayed and
 * the HDF5 calls skipped. The library level replays only HDF5 files the trace creates.
 */
IOLENS_API int iolens_replay_trace_run(iolens_evsource *src, const iolens_replay_trace_options *opt,
                                       iolens_replay_trace_stats *stats);

/* ------------------------------------------------------------------ */
/* What-if transforms (docs/whatif.md)                                  */
/* ------------------------------------------------------------------ */

/** Outcomes of iolens_replay_whatif (>= 0). */
enum {
    IOLENS_REPLAY_WHATIF_NOTHING = 0,     /**< the change does not apply: nothing to change in this config */
    IOLENS_REPLAY_WHATIF_APPLIED = 1,     /**< *out is the changed config */
    IOLENS_REPLAY_WHATIF_NO_TRANSFORM = 2 /**< the card's change cannot be expressed as a replay config here */
};

/** One-line summary of the transform of a pattern (a detect label such as
 *  "access_granularity"), or NULL when the name is not one of the seven patterns. */
IOLENS_API const char *iolens_replay_whatif_summary(const char *pattern);

/**
 * The change template of a pattern's card (iolens_detect_card_get) applied to a
 * config, for a run of nranks ranks (<= 0: the config's nranks, else 1):
 *   access_granularity      read/write transfers < 1 MiB become 1 MiB (or the rank's whole extent
 *                           of the chunk when smaller; a strided block caps them), same bytes per
 *                           rank and chunk: repetitions recomputed, a remainder kept as a last chunk
 *   interface_choice        shared-file posix/stdio steps -> mpiio, and mpiio/hdf5 steps, with
 *                           use_collective (needs nranks >= 2)
 *   access_pattern          random/strided -> sequential
 *   file_strategy           file-per-process read/write steps -> one shared file, collective MPI-IO
 *   throughput_utilization  "fsync": "every_write" -> "close"
 *   parallelism_efficiency  per-rank repetitions (imbalance factors, FBench rank lists) equalised
 *                           per chunk, same total; compute seconds and metadata file counts too
 *   metadata_intensity      metadata steps with data: their small files become records of one
 *                           shared file (a write step, and a read step when they are read back)
 * Returns IOLENS_REPLAY_WHATIF_APPLIED with *out (free with iolens_replay_config_free),
 * IOLENS_REPLAY_WHATIF_NOTHING or _NO_TRANSFORM with *out NULL, or a negative IOLENS_E* code.
 * note (may be NULL) receives what was changed, step by step, or why nothing was.
 */
IOLENS_API int iolens_replay_whatif(iolens_replay_config **out, const iolens_replay_config *base,
                                    const char *pattern, int nranks, char *note, size_t note_size);

#ifdef __cplusplus
}
#endif
#endif
