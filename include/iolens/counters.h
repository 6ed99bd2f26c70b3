/*
 * iolens counters — Darshan-compatible counters, heatmaps and DXT computed
 * from any event stream (iolens traces, Recorder traces, ...), and a writer of
 * real Darshan logs (format 3.41, zlib).
 *
 *    iolens_evsource *src;                    // any producer, e.g. iolens_recorder_open()
 *    iolens_counters_opts o;
 *    iolens_counters_opts_init(&o);           // Darshan's defaults
 *    iolens_counters *c;
 *    if (iolens_counters_compute(src, &o, &c) < 0) ...error...
 *    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++)
 *        for (size_t i = 0; i < iolens_counters_count(c, m); i++) {
 *            const iolens_darshan_record *r = iolens_counters_record(c, m, i);
 *            ... iolens_counters_name(c, r->id) ...
 *        }
 *    iolens_counters_write(c, "out.darshan");
 *    iolens_counters_free(c);
 *
 * Records use the types of the Darshan reader (include/iolens/darshan.h):
 * POSIX v4, MPI-IO v3 and STDIO v2 counters in the reader's layout (counter
 * names from iolens_darshan_counter_name()), HEATMAP v1 records (one per rank
 * and API, named "heatmap:POSIX" ...), DXT_POSIX / DXT_MPIIO segments. The
 * semantics are those of the Darshan runtime; see docs/counters.md.
 */
#ifndef IOLENS_COUNTERS_H
#define IOLENS_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/darshan.h"
#include "iolens/event.h"
#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of a computation. */
typedef struct iolens_counters_opts {
    int64_t file_alignment;  /**< POSIX_FILE_ALIGNMENT (default 4096, the ext4/xfs block size) */
    int64_t mem_alignment;   /**< POSIX_MEM_ALIGNMENT (default 8); MEM_NOT_ALIGNED counts the
                                  transfers whose event has buf_pgoff1 (iolens traces: read, write,
                                  pread, pwrite) and a buffer not on a multiple of it (when it
                                  divides 4096) */
    int keep_per_rank;       /**< 1: no shared-file reduction (DARSHAN_DISABLE_SHARED_REDUCTION) */
    int all_paths;           /**< 1: keep files under /etc/ /dev/ /usr/ /bin/ /boot/ /lib/ /opt/
                                  /sbin/ /sys/ /proc/ /var/, which Darshan excludes by default;
                                  2: keep those under /dev/shm/ only (an application's data on
                                  tmpfs), leave out the rest */
    int heatmap;             /**< compute HEATMAP records (default 1) */
    int dxt;                 /**< compute DXT_POSIX / DXT_MPIIO records (default 1) */
    const char *exe;         /**< job exe and arguments (default "<unknown>") */
    const char *hostname;    /**< DXT hostname (default "") */
    int64_t uid, jobid;      /**< job facts (default 0) */
    /** Mount table "fs_type\tmount_path" lines ('\n'-separated); NULL = read
     *  /proc/self/mounts of the calling process. */
    const char *mounts;
    /** Called after each rank is read (may be NULL): ranks done so far, total ranks. */
    void (*progress)(void *ctx, int done, int total);
    void *progress_ctx;
    /** 1: count only glibc's pre-2.33 stat entry points (__xstat, __lxstat, __fxstat, their
     *  64-bit and *at forms), as a Darshan runtime that wraps only those sees a program built
     *  against glibc >= 2.33, whose stat()/lstat()/fstat() it misses (the IOSage sweep logs:
     *  POSIX_STATS 0 for mdtest's stat phase). Other stat calls then leave no trace in the
     *  counters (no record, no meta time). Default 0: every stat call counts. */
    int legacy_stat_only;
    /** 1: count the calls the Darshan runtime does not see as the calls they are: those made
     *  through glibc's fortified entry points (IOLENS_EVF_FORTIFIED: __fprintf_chk, __printf_chk,
     *  __fgets_chk, __fread_chk, __read_chk, __pread_chk, ... of a program built with
     *  _FORTIFY_SOURCE) and the copies the kernel makes between files (copy_file_range,
     *  sendfile, splice: cp and cat copy so). Default 0: like the runtime, which wraps none of
     *  them, they leave no trace in the counters (Debian's dd prints its report with
     *  __fprintf_chk: the runtime's log has no "<STDERR>"; cp's log has its files opened, not
     *  read or written). 1 also counts an MPI rank's calls before MPI_Init and after
     *  MPI_Finalize, which the runtime does not see either, at the trace's times. */
    int all_calls;
    /** 1 (default): records of the standard streams, as the runtime's STDIO module makes them:
     *  "<STDIN>", "<STDOUT>", "<STDERR>" for the stdio calls on stdin, stdout and stderr (one open
     *  at time 0; a stream neither read nor written makes none). 0: no such record (the report a
     *  replay prints is its own, not the workload's). Needs the calls' descriptors (iolens traces). */
    int std_streams;
    /** The iolens trace src reads its events from when src is a proxy that forwards them (NULL:
     *  src itself): the calls' descriptors and the stdio bytes moved are read there. */
    iolens_evsource *trace;
} iolens_counters_opts;

typedef struct iolens_counters iolens_counters;

/** 1 if Darshan leaves the file out by default (its path starts with /etc/ /dev/
 *  /usr/ /bin/ /boot/ /lib/ /opt/ /sbin/ /sys/ /proc/ or /var/), else 0 (also for NULL). */
IOLENS_API int iolens_counters_path_excluded(const char *path);

/** Fills o with the defaults above. */
IOLENS_API void iolens_counters_opts_init(iolens_counters_opts *o);

/** Reads every rank of src (rewinding each rank first) and computes the
 *  records. opts may be NULL (defaults). Returns 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_counters_compute(iolens_evsource *src, const iolens_counters_opts *opts,
                                       iolens_counters **out);
/** Frees; NULL is a no-op. */
IOLENS_API void iolens_counters_free(iolens_counters *c);

/** Job record (nprocs, start/end, exe); times are seconds since the epoch. */
IOLENS_API const iolens_darshan_job *iolens_counters_job(const iolens_counters *c);
IOLENS_API size_t iolens_counters_mount_count(const iolens_counters *c);
IOLENS_API const iolens_darshan_mount *iolens_counters_mount_at(const iolens_counters *c, size_t i);

/** Records of a module (POSIX, MPI-IO, STDIO, HEATMAP, DXT_POSIX, DXT_MPIIO). */
IOLENS_API size_t iolens_counters_count(const iolens_counters *c, int module);
IOLENS_API const iolens_darshan_record *iolens_counters_record(const iolens_counters *c,
                                                               int module, size_t i);
/** Path (or "heatmap:<API>") of a record id, or NULL. */
IOLENS_API const char *iolens_counters_name(const iolens_counters *c, uint64_t id);
/** Number of name records (what a Darshan log of the run lists: record paths,
 *  "heatmap:<API>", and "<STDIN>" "<STDOUT>" "<STDERR>" "heatmap:STDIO", which the
 *  runtime's STDIO module registers at the first stdio call of the run). */
IOLENS_API size_t iolens_counters_name_count(const iolens_counters *c);
/** Number of events read and of events that became counter updates. */
IOLENS_API uint64_t iolens_counters_events(const iolens_counters *c);

/** Writes a Darshan log (format 3.41, zlib) readable by darshan-parser and by
 *  iolens_darshan_open(). Returns 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_counters_write(const iolens_counters *c, const char *path);

/** Bob Jenkins' 64-bit lookup8 hash(k, len, level); Darshan's record id of a
 *  path is iolens_darshan_hash(path, strlen(path), 0). */
IOLENS_API uint64_t iolens_darshan_hash(const void *key, size_t len, uint64_t level);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_COUNTERS_H */
