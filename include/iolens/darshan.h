/*
 * iolens darshan — a from-scratch reader of Darshan logs (formats 3.00, 3.10,
 * 3.20, 3.21 and 3.41; both byte orders; zlib, bzip2 and uncompressed regions).
 *
 * Two ways to read a log:
 *
 *  1. Streaming (nothing but one record in memory at a time):
 *
 *        iolens_darshan_log *log;
 *        if (iolens_darshan_open(path, warn_fn, warn_ctx, &log) < 0) ...error...
 *        const iolens_darshan_header *h = iolens_darshan_header_get(log);
 *        const iolens_darshan_job *job = iolens_darshan_job_get(log);
 *        iolens_darshan_names_begin(log);             // name records, in file order
 *        while ((rc = iolens_darshan_names_next(log, &id, &name)) > 0) ...
 *        for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
 *            if (iolens_darshan_module_begin(log, m) <= 0) continue;   // absent/unknown
 *            const iolens_darshan_record *r;
 *            while ((rc = iolens_darshan_record_next(log, &r)) > 0) ...
 *        }
 *        iolens_darshan_close(log);
 *
 *     The job, exe and mount table are read by _open (the job region is at most
 *     a few KiB). A region is decompressed incrementally as records are asked for;
 *     a region made of several concatenated compressed streams is handled.
 *
 *  2. Convenience loader: iolens_darshan_load() reads everything into an
 *     iolens_darshan_data (names map + every record of every module).
 *
 * Records are typed: fixed-size modules expose their counters in the layout
 * of the *current* module version (old versions are up-converted, new fields
 * set to -1 as the reference does); LUSTRE, HEATMAP and DXT records expose
 * their variable parts in dedicated members. Counter names come from one table
 * per module (iolens_darshan_counter_name()).
 *
 * Hostile input: every read is bounds-checked; errors name the file, the
 * region and the byte offset; allocations are bounded by data actually
 * decompressed (never by a count read from the file).
 */
#ifndef IOLENS_DARSHAN_H
#define IOLENS_DARSHAN_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Module ids: the slot numbering of log format 3.41 (older formats are mapped
 * onto it; 3.00/3.10 "HDF5" maps to H5F and "PNETCDF" to PNETCDF_FILE). */
typedef enum iolens_darshan_module {
    IOLENS_DARSHAN_NULL = 0,
    IOLENS_DARSHAN_POSIX = 1,
    IOLENS_DARSHAN_MPIIO = 2,
    IOLENS_DARSHAN_H5F = 3,
    IOLENS_DARSHAN_H5D = 4,
    IOLENS_DARSHAN_PNETCDF_FILE = 5,
    IOLENS_DARSHAN_PNETCDF_VAR = 6,
    IOLENS_DARSHAN_BGQ = 7,
    IOLENS_DARSHAN_LUSTRE = 8,
    IOLENS_DARSHAN_STDIO = 9,
    IOLENS_DARSHAN_DXT_POSIX = 10,
    IOLENS_DARSHAN_DXT_MPIIO = 11,
    IOLENS_DARSHAN_MDHIM = 12,
    IOLENS_DARSHAN_APXC = 13,
    IOLENS_DARSHAN_APMPI = 14,
    IOLENS_DARSHAN_HEATMAP = 15,
    IOLENS_DARSHAN_DFS = 16,
    IOLENS_DARSHAN_DAOS = 17,
    IOLENS_DARSHAN_MOD_COUNT = 18
} iolens_darshan_module;

typedef enum iolens_darshan_comp {
    IOLENS_DARSHAN_COMP_ZLIB = 0,
    IOLENS_DARSHAN_COMP_BZIP2 = 1,
    IOLENS_DARSHAN_COMP_NONE = 2
} iolens_darshan_comp;

/** Location of one region in the file (len = compressed length). */
typedef struct iolens_darshan_region {
    uint64_t off;
    uint64_t len;
} iolens_darshan_region;

/** The log header (uncompressed part), with module slots mapped to ids. */
typedef struct iolens_darshan_header {
    char version[9];        /**< e.g. "3.41" */
    int major, minor;       /**< 3, 41 */
    int big_endian;         /**< 1 if the file was written big-endian (swapped on read) */
    int comp;               /**< iolens_darshan_comp */
    uint64_t header_size;   /**< 1328 (3.41) or 360 (older) */
    uint64_t partial_flag;  /**< bit m set: module id m ran out of memory (ids, not slots) */
    iolens_darshan_region job;      /**< job region (after any padding) */
    iolens_darshan_region name_map; /**< name-record region */
    iolens_darshan_region mod[IOLENS_DARSHAN_MOD_COUNT]; /**< by module id; len 0 = absent */
    uint32_t mod_ver[IOLENS_DARSHAN_MOD_COUNT];          /**< on-disk record version */
    uint64_t file_size;
    int n_unknown_slots;    /**< slots holding data of modules this reader does not know */
} iolens_darshan_header;

/** Job facts. Times are seconds since the epoch. */
typedef struct iolens_darshan_job {
    int64_t uid;
    int64_t start_time_sec, start_time_nsec; /**< nsec 0 before format 3.41 */
    int64_t end_time_sec, end_time_nsec;
    int64_t nprocs;
    int64_t jobid;
    double run_time;           /**< as darshan-parser computes it (see docs/darshan.md) */
    char metadata[1025];       /**< "key=value\n" lines, NUL-terminated */
    const char *exe;           /**< executable and arguments (owned by the log) */
} iolens_darshan_job;

/** One line of the mount table, in file order. */
typedef struct iolens_darshan_mount {
    const char *path;
    const char *fs_type;
} iolens_darshan_mount;

/** LUSTRE layout component (v2 layout; v1 records are up-converted). */
typedef struct iolens_darshan_lustre_comp {
    int64_t stripe_size, stripe_count, stripe_pattern, flags, ext_start, ext_end, mirror_id;
    char pool_name[17];
} iolens_darshan_lustre_comp;

/** One DXT segment (an I/O call). pthread_id is 0 when the log has none. */
typedef struct iolens_darshan_dxt_seg {
    int64_t offset, length;
    double start, end;
    uint64_t pthread_id;
} iolens_darshan_dxt_seg;

/** One module record. Pointers stay valid until the next record_next()/
 * module_begin()/close() on the same log (or for the life of an
 * iolens_darshan_data for loaded records). */
typedef struct iolens_darshan_record {
    int module;        /**< iolens_darshan_module */
    uint32_t version;  /**< on-disk version (the data is up-converted to the current one) */
    uint64_t id;       /**< record id (name hash) */
    int64_t rank;      /**< -1 = shared file reduced over all ranks */
    size_t ncounters;
    const int64_t *counters;   /**< current-version integer counters */
    size_t nfcounters;
    const double *fcounters;   /**< current-version floating-point counters */
    uint64_t file_rec_id;      /**< H5D: record id of the file the dataset belongs to */
    /** DFS/DAOS: pool and container UUIDs (16 bytes each); DAOS object id. */
    unsigned char pool_uuid[16], cont_uuid[16];
    uint64_t oid_hi, oid_lo;
    struct {
        int64_t num_comps, num_stripes;
        const iolens_darshan_lustre_comp *comps; /**< num_comps entries */
        const int64_t *osts;                     /**< num_stripes OST ids */
    } lustre;
    struct {
        double bin_width;        /**< seconds */
        int64_t nbins;
        const int64_t *write_bins, *read_bins; /**< nbins each, bytes per bin */
    } heatmap;
    struct {
        int64_t shared_record;
        char hostname[65];
        int64_t write_count, read_count;
        const iolens_darshan_dxt_seg *segs; /**< write_count writes then read_count reads */
        int has_pthread_id;                 /**< segments carried a pthread id on disk */
    } dxt;
} iolens_darshan_record;

typedef struct iolens_darshan_log iolens_darshan_log;

/* ---- module tables ---------------------------------------------------- */

/** Name as the reference prints it ("POSIX", "MPI-IO", "BG/Q", ...); "" if out of range. */
IOLENS_API const char *iolens_darshan_module_name(int module);
/** Module id from a name (as above), or -1. */
IOLENS_API int iolens_darshan_module_from_name(const char *name);
/** Current record version this reader converts records of the module to (0: unsupported). */
IOLENS_API uint32_t iolens_darshan_module_version(int module);
/** 1 if this reader decodes records of the module in that on-disk version. */
IOLENS_API int iolens_darshan_version_supported(int module, uint32_t version);
/** Number of integer / floating-point counters of the module's current version. */
IOLENS_API size_t iolens_darshan_counter_count(int module);
IOLENS_API size_t iolens_darshan_fcounter_count(int module);
/** Counter names ("POSIX_OPENS", "POSIX_F_READ_TIME"); NULL if out of range. */
IOLENS_API const char *iolens_darshan_counter_name(int module, size_t index);
IOLENS_API const char *iolens_darshan_fcounter_name(int module, size_t index);
/** Index of a counter by name, or -1 (searches integer counters, then fcounters
 * with *is_float set to 1). is_float may be NULL. */
IOLENS_API int iolens_darshan_counter_index(int module, const char *name, int *is_float);

/* ---- streaming reader ------------------------------------------------- */

/** Opens a log, reads and checks the header, the job region (job facts, exe,
 * mount table). warn (may be NULL) receives non-fatal warnings, e.g. unknown
 * modules. Returns 0 or a negative IOLENS_E* code. */
IOLENS_API int iolens_darshan_open(const char *path, iolens_warn_fn warn, void *warn_ctx,
                                   iolens_darshan_log **out);
/** Same as iolens_darshan_open() on a log held in memory (size bytes at data,
 * which must stay valid and unchanged until close). name is used in messages
 * (NULL: "<memory>"). */
IOLENS_API int iolens_darshan_open_mem(const void *data, size_t size, const char *name,
                                       iolens_warn_fn warn, void *warn_ctx, iolens_darshan_log **out);
/** Closes the log; NULL is a no-op. */
IOLENS_API void iolens_darshan_close(iolens_darshan_log *log);

IOLENS_API const char *iolens_darshan_path(const iolens_darshan_log *log);
IOLENS_API const iolens_darshan_header *iolens_darshan_header_get(const iolens_darshan_log *log);
IOLENS_API const iolens_darshan_job *iolens_darshan_job_get(const iolens_darshan_log *log);
/** Mount table (fs type and mount point of each entry, in file order). */
IOLENS_API size_t iolens_darshan_mount_count(const iolens_darshan_log *log);
IOLENS_API const iolens_darshan_mount *iolens_darshan_mount_at(const iolens_darshan_log *log,
                                                               size_t i);

/** 1 if the exe line ends with a line break within the first 4096 bytes of the job region.
 *  darshan-util reads the region into a buffer of that size and prints an empty exe otherwise
 *  (an exe too long for it, or one without a mount table after it); job->exe always holds the
 *  whole line. */
IOLENS_API int iolens_darshan_exe_terminated(const iolens_darshan_log *log);

/** Mount entry a file path resides on: the first entry (in the table's order of
 * decreasing mount-path length) whose path is a prefix of it, as the reference
 * matches; NULL if none (the reference prints "UNKNOWN"). */
IOLENS_API const iolens_darshan_mount *iolens_darshan_mount_find(const iolens_darshan_log *log,
                                                                 const char *path);

/** Starts iterating the name-record region. Returns 0 or an error. */
IOLENS_API int iolens_darshan_names_begin(iolens_darshan_log *log);
/** Next (id, name) pair in file order: 1 = got one, 0 = end, < 0 = error.
 * *name is valid until the next call. */
IOLENS_API int iolens_darshan_names_next(iolens_darshan_log *log, uint64_t *id, const char **name);

/** Starts iterating the records of one module. Returns 1 if the module has a
 * region and its version is supported, 0 if there is nothing to read (absent;
 * unknown/unsupported modules also warn through the callback), < 0 on error. */
IOLENS_API int iolens_darshan_module_begin(iolens_darshan_log *log, int module);
/** Next record of the current module: 1 = got one, 0 = end, < 0 = error.
 * POSIX v1 records that the reference omits (stdio counters present) are skipped. */
IOLENS_API int iolens_darshan_record_next(iolens_darshan_log *log, const iolens_darshan_record **rec);

/* ---- JSON ------------------------------------------------------------- */

/** Writes the whole log as one JSON document to out, streaming (constant
 * memory): {file, version, big_endian, compression, file_size, partial_flag,
 * regions, job{..., exe, metadata{}}, mounts[], names[{id,name}],
 * modules{NAME:{version, partial, records[{id, rank, counters{}, fcounters{},
 * + module parts}]}}}. Record ids are decimal strings. Iterates names and
 * modules of an open log (call right after open). On error the document is
 * left unterminated and a negative IOLENS_E* code is returned. */
IOLENS_API int iolens_darshan_write_json(iolens_darshan_log *log, FILE *out, int pretty);

/* ---- convenience loader ----------------------------------------------- */

typedef struct iolens_darshan_data iolens_darshan_data;

/** Reads a whole log (header, job, mounts, names, every record of every
 * known module, DXT included unless skip_dxt). */
IOLENS_API int iolens_darshan_load(const char *path, int skip_dxt, iolens_warn_fn warn,
                                   void *warn_ctx, iolens_darshan_data **out);
IOLENS_API void iolens_darshan_data_free(iolens_darshan_data *data);
IOLENS_API const iolens_darshan_log *iolens_darshan_data_log(const iolens_darshan_data *data);
/** Records of a module, in file order. */
IOLENS_API size_t iolens_darshan_data_count(const iolens_darshan_data *data, int module);
IOLENS_API const iolens_darshan_record *iolens_darshan_data_record(const iolens_darshan_data *data,
                                                                   int module, size_t i);
/** Name of a record id (first non-empty entry of the name region), or NULL. */
IOLENS_API const char *iolens_darshan_data_name(const iolens_darshan_data *data, uint64_t id);
/** All (id, name) pairs after de-duplication, in first-seen order. */
IOLENS_API size_t iolens_darshan_data_name_count(const iolens_darshan_data *data);
IOLENS_API int iolens_darshan_data_name_at(const iolens_darshan_data *data, size_t i,
                                           uint64_t *id, const char **name);

/* ---- whole columns (for bindings: one call per module, not one per record) ---- */

/** Copies every record of module m, in file order: rank[i], id[i], the module's integer
 *  counters into counters[i * iolens_darshan_counter_count(m) + k] and the floating-point ones
 *  into fcounters[i * iolens_darshan_fcounter_count(m) + k] (any pointer may be NULL; the
 *  arrays hold iolens_darshan_data_count(d, m) rows). 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_data_columns(const iolens_darshan_data *d, int m, int64_t *rank, uint64_t *id,
                                           int64_t *counters, double *fcounters);
/** Number of DXT segments of module m (DXT_POSIX or DXT_MPIIO), over every record. */
IOLENS_API int64_t iolens_darshan_data_dxt_count(const iolens_darshan_data *d, int m);
/** Copies the DXT segments of module m in record order (each record's writes, then its
 *  reads): segs[j], the index of its record record[j] (iolens_darshan_data_record), and
 *  is_write[j]; any pointer may be NULL; the arrays hold iolens_darshan_data_dxt_count()
 *  entries. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_data_dxt_segments(const iolens_darshan_data *d, int m, iolens_darshan_dxt_seg *segs,
                                                int64_t *record, unsigned char *is_write);
/** The same segments as separate columns, one entry per segment (any pointer may be NULL):
 *  the rank and id of its record, offset, length, start, end, pthread id, whether it is a
 *  write, and the index of its record. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_data_dxt_columns(const iolens_darshan_data *d, int m, int64_t *rank, uint64_t *id,
                                               int64_t *offset, int64_t *length, double *start, double *end,
                                               uint64_t *thread, unsigned char *is_write, int64_t *record);
/** Each record's hostname of DXT module m, NUL-padded in 65 bytes per record:
 *  out holds iolens_darshan_data_count(d, m) * 65 bytes. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_data_dxt_hostnames(const iolens_darshan_data *d, int m, char *out);

/* ---- writing, converting, merging and comparing logs ---------------------- */

/** A log to write: job, mount table, names and records, every record in the current
 *  version of its module (what the reader returns). Pointers stay the caller's. */
typedef struct iolens_darshan_image {
    const iolens_darshan_job *job;          /**< exe NULL = "" */
    const iolens_darshan_mount *mounts;     /**< nmounts entries, written in this order */
    size_t nmounts;
    const uint64_t *name_ids;               /**< nnames (id, name) pairs */
    const char *const *names;
    size_t nnames;
    uint64_t partial_flag;                  /**< bit m: module m ran out of memory */
    const iolens_darshan_record *const *records[IOLENS_DARSHAN_MOD_COUNT]; /**< by module */
    size_t nrecords[IOLENS_DARSHAN_MOD_COUNT];
    int comp;                               /**< iolens_darshan_comp */
} iolens_darshan_image;

/** Writes img as a log of format 3.41 (little-endian), each region one stream of img->comp.
 *  Modules the reader cannot hold (PNETCDF_VAR, MDHIM, APXC, APMPI) are refused. On error
 *  no file is left at path. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_write(const iolens_darshan_image *img, const char *path);

/** Bob Jenkins' lookup3 hashlittle(): the keyed 32-bit hash darshan-convert obfuscates with. */
IOLENS_API uint32_t iolens_darshan_hash32(const void *key, size_t len, uint32_t initval);

enum {
    IOLENS_DARSHAN_OBF_NAMES = 1, /**< names: "<mount point>/<hash>" or "<hash>" */
    IOLENS_DARSHAN_OBF_EXE = 2,   /**< exe and arguments: "<hash>" */
    IOLENS_DARSHAN_OBF_JOBID = 4, /**< job id (0 stays 0) */
    IOLENS_DARSHAN_OBF_UID = 8,
    IOLENS_DARSHAN_OBF_ALL = 15
};

typedef struct iolens_darshan_convert_opts {
    int comp;                 /**< iolens_darshan_comp of the output (ZLIB = 0 by default) */
    unsigned obfuscate;       /**< IOLENS_DARSHAN_OBF_* bits, hashed with key as darshan-convert does */
    uint32_t key;
    uint64_t modules;         /**< bit m: keep module m; 0 keeps every module */
    const uint64_t *ids;      /**< keep only the records (and names) of these ids; NULL: all */
    size_t nids;
    int reset_metadata;       /**< drop the job's metadata lines */
    const char *annotate;     /**< "key=value" lines (tab-separated) added to the metadata */
    double time_scale;        /**< > 0 and != 1: every record's duration counters (float counters
                                   named *_TIME) and the job's run time are multiplied by it
                                   (test corpora of varied logs) */
} iolens_darshan_convert_opts;

/** Rewrites the log at in as out (format 3.41: old records up-converted), with the changes of
 *  opts (NULL: none). in and out may be the same path. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_convert(const char *in, const char *out, const iolens_darshan_convert_opts *opts,
                                      iolens_warn_fn warn, void *warn_ctx);

/** Joins logs of one job into one, as darshan-merge does: the first log's job, exe and mount
 *  table, the earliest start and the latest end, the names of every log (one id with two
 *  names is an error), every module's records in input order, the partial flags OR'ed.
 *  0 or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_merge(const char *const *in, size_t n, const char *out, int comp,
                                    iolens_warn_fn warn, void *warn_ctx);

/** Compares two logs: job facts, names, and records matched by (module, id, rank), counter by
 *  counter (DXT segments and heatmap bins too). Writes one line per difference (json: one JSON
 *  document) to out; *ndiff (may be NULL) gets the number of differences. 0 or IOLENS_E*. */
IOLENS_API int iolens_darshan_diff(const char *a, const char *b, FILE *out, int json, size_t *ndiff,
                                   iolens_warn_fn warn, void *warn_ctx);

/* ------------------------------------------------------------------ */
/* One-line summaries of logs (darshan --summary, batch)                */
/* ------------------------------------------------------------------ */

/** Modules with volume and time columns in a summary, in column order. */
#define IOLENS_DARSHAN_SUMMARY_NMODS 7

/** Totals of one module of a log. */
typedef struct iolens_darshan_summary_mod {
    int present;
    int64_t records;
    int64_t bytes_read, bytes_written;
    double read_time, write_time, meta_time;
} iolens_darshan_summary_mod;

/** What a summary row says about one log. The log is streamed record by record (DXT
 *  regions are never decoded): memory is one record plus a set of at most 2^21 file ids (a
 *  log of more distinct files is read again, each pass counting one part of its ids). */
typedef struct iolens_darshan_summary {
    char version[9];
    int64_t jobid, uid, nprocs, start_time, end_time;
    double run_time;
    char *exe;             /**< owned; iolens_darshan_summary_release() */
    uint64_t partial_flag; /**< bit m: module m ran out of memory in the job */
    int64_t files;         /**< distinct file ids over the file modules */
    iolens_darshan_summary_mod mod[IOLENS_DARSHAN_SUMMARY_NMODS];
} iolens_darshan_summary;

/** The module of summary column group k (IOLENS_DARSHAN_POSIX, ...) and its column prefix
 *  ("posix", ...); -1 / NULL out of range. */
IOLENS_API int iolens_darshan_summary_module(int k, const char **column);
/** Summarises the log at path into *out (zeroed first). 0 or a negative IOLENS_E*; the
 *  message names the file and byte offset. */
IOLENS_API int iolens_darshan_summarize(const char *path, iolens_darshan_summary *out);
IOLENS_API void iolens_darshan_summary_release(iolens_darshan_summary *s);
/** The CSV header line (with '\n') of summary rows; first_columns (e.g. "index,log") comes
 *  first, then version, jobid, ... */
IOLENS_API void iolens_darshan_summary_csv_header(FILE *out, const char *first_columns);
/** The CSV fields of s (no leading comma, with '\n'). */
IOLENS_API void iolens_darshan_summary_csv_row(FILE *out, const iolens_darshan_summary *s);

/** The Darshan logs of inputs, as the commands that take many logs find them: a directory (one
 *  that is not a Recorder trace folder: no VERSION, recorder.mt or recorder.dat in it) stands for
 *  the *.darshan files below it, sorted, each directory read once (links to directories followed
 *  only with IOLENS_DARSHAN_FIND_FOLLOW_LINKS); anything else is kept as given. A directory
 *  without logs is an error naming it (with IOLENS_DARSHAN_FIND_ANY, it only adds nothing).
 *  *out (free with iolens_darshan_logs_free) gets *nout paths. 0 or a negative IOLENS_E*. */
enum { IOLENS_DARSHAN_FIND_FOLLOW_LINKS = 1, IOLENS_DARSHAN_FIND_ANY = 2, IOLENS_DARSHAN_FIND_RECORDER_TOO = 4 };
IOLENS_API int iolens_darshan_find_logs(char *const *inputs, size_t n, int flags, char ***out, size_t *nout,
                                        iolens_warn_fn warn, void *warn_ctx);
IOLENS_API void iolens_darshan_logs_free(char **v, size_t n);

/** Options of iolens_darshan_summary_write. */
typedef struct iolens_darshan_summary_opts {
    int threads;  /**< logs read at once (default 2 when 0) */
    int json;     /**< 1: one JSON document (an array of {log, ...}); 0: CSV with a header */
    void (*progress)(void *ctx, size_t done, size_t total); /**< after each log (may be NULL) */
    void *progress_ctx;
    iolens_warn_fn warn; /**< "skipped: <why>" per unreadable log (may be NULL) */
    void *warn_ctx;
} iolens_darshan_summary_opts;

/** One summary row per log (`iolens darshan --summary`), the logs read by several threads, the
 *  rows in the logs' order; unreadable logs are reported through warn and left out. *nread
 *  gets the rows written. 0 when at least one log was read, else a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_summary_write(FILE *out, char *const *logs, size_t n,
                                            const iolens_darshan_summary_opts *opts, size_t *nread);

/* ------------------------------------------------------------------ */
/* The texts of darshan-util (darshan-parser, darshan-dxt-parser)       */
/* ------------------------------------------------------------------ */

/** Sections of the darshan-parser text. */
enum {
    IOLENS_DARSHAN_TEXT_BASE = 1,   /**< the records (--base) */
    IOLENS_DARSHAN_TEXT_TOTAL = 2,  /**< per-module aggregates (--total) */
    IOLENS_DARSHAN_TEXT_FILE = 4,   /**< per-module file counts (--file) */
    IOLENS_DARSHAN_TEXT_PERF = 8,   /**< performance estimates (--perf) */
    IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE = 16, /**< print modules marked incomplete */
};
/** Returned by the text writers when a module holds incomplete data and
 *  IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE was not asked: the reference's message went to err. */
#define IOLENS_DARSHAN_TEXT_INCOMPLETE 1

/** The log at path as darshan-parser prints it, byte for byte: the sections of the mask
 *  (IOLENS_DARSHAN_TEXT_*) to out, the reference's diagnostics to err. 0,
 *  IOLENS_DARSHAN_TEXT_INCOMPLETE, or a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_write_text(FILE *out, FILE *err, const char *path, unsigned mask);
/** The same as darshan-dxt-parser prints it (IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE applies). */
IOLENS_API int iolens_darshan_write_dxt_text(FILE *out, FILE *err, const char *path, unsigned mask);
/** A human summary of the job (volumes, times, sizes, the top files, shared files' slowest and
 *  fastest rank; `iolens darshan --report`); color: headings and warnings in ANSI colours. 0 or
 *  a negative IOLENS_E*. */
IOLENS_API int iolens_darshan_write_report(FILE *out, const char *path, int color);

/** One API's job-level HEATMAP series: per bin, bytes summed over ranks and active ranks. */
typedef struct iolens_darshan_heatmap_series {
    char api[32];      /**< "POSIX", "MPIIO", "STDIO" (the record name after "heatmap:") */
    double bin_width;  /**< seconds */
    int64_t nbins;
    int64_t *read_bytes, *write_bytes, *active_ranks; /**< nbins each */
} iolens_darshan_heatmap_series;

/** The HEATMAP module of a log, one series per API, sorted by API name. */
typedef struct iolens_darshan_heatmap {
    size_t n;
    iolens_darshan_heatmap_series *series;
} iolens_darshan_heatmap;

/** Reads the HEATMAP series of the log at path (none when it has no HEATMAP module). 0 or a
 *  negative IOLENS_E*; the message names the file and byte offset. */
IOLENS_API int iolens_darshan_heatmap_read(const char *path, iolens_darshan_heatmap *out);
IOLENS_API void iolens_darshan_heatmap_release(iolens_darshan_heatmap *h);
/** The CSV header (`log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks`, the layout
 *  `iolens cluster` reads), after first_columns when given. */
IOLENS_API void iolens_darshan_heatmap_csv_header(FILE *out, const char *first_columns);
/** One CSV row per API and bin: prefix (if any), the log column, then the fields. */
IOLENS_API void iolens_darshan_heatmap_csv_rows(FILE *out, const iolens_darshan_heatmap *h, const char *prefix,
                                                const char *log);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_DARSHAN_H */
