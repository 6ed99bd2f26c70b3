/*
 * iolens batch: the per-log work (summary, features, detection) over very many Darshan logs,
 * in one process or as every rank of an MPI job, resumable, with each log read in a worker
 * process so that a log that crashes or hangs the reader costs only itself.
 *
 * Layout of an output folder (docs/batch.md):
 *   inputs.txt                 the logs, one per line; a log's index is its line number - 1
 *   done.R.G                   manifest of rank R in run G (0 = first, then one per --resume):
 *                              "index ok" or "index error" per finished log
 *   TASK.R.G.csv, TASK.R.G.jsonl   result rows (TASK: summary, features, detect), index first
 *   errors.R.G.csv/.jsonl      the logs that could not be read, with the reason
 * iolens_batch_merge() joins the part files into TASK.csv, TASK.jsonl, errors.csv, errors.jsonl
 * in input order, each log once.
 */
#ifndef IOLENS_BATCH_H
#define IOLENS_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    IOLENS_BATCH_SUMMARY = 1,  /**< darshan --summary's row */
    IOLENS_BATCH_FEATURES = 2, /**< the model features (iolens features) */
    IOLENS_BATCH_DETECT = 4,   /**< pattern probabilities and the detected set (as detect) */
    IOLENS_BATCH_HEATMAP = 8,  /**< the job-level HEATMAP series (darshan --heatmap's rows) */
    IOLENS_BATCH_ALL = 15
};

/** Parses "summary,features,detect,heatmap" into IOLENS_BATCH_* bits; < 0 (message names the word)
 *  on an unknown task. */
IOLENS_API int iolens_batch_tasks_parse(const char *list, unsigned *tasks);

typedef struct iolens_batch_options {
    const char *out_dir;   /**< created if missing */
    unsigned tasks;        /**< IOLENS_BATCH_* bits */
    int resume;            /**< continue the run in out_dir: its inputs.txt, the logs not done */
    double timeout;        /**< seconds a worker may spend on one log (0: 60) */
    size_t max_mem;        /**< bytes a worker may allocate beyond its start (0: 256 MiB) */
    int block;             /**< logs handed out at a time (0: 8) */
    const char *models;    /**< detect: the models folder (NULL: the installed ones) */
    double tau;            /**< detect: the gate (0: IOLENS_DETECT_TAU) */
    int use_mpi;           /**< MPI is initialised: every rank of MPI_COMM_WORLD takes part */
    /** Rank 0: called after each log it finished and at the end (may be NULL); done counts
     *  the logs handed out to every rank, total those of this run. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    iolens_warn_fn warn;   /**< non-fatal findings (may be NULL) */
    void *warn_ctx;
} iolens_batch_options;

typedef struct iolens_batch_stats {
    uint64_t inputs;        /**< logs of the run (inputs.txt) */
    uint64_t done_before;   /**< already done by earlier runs (resume) */
    uint64_t ok, errors;    /**< finished by this run, over every rank */
    uint64_t crashed, timeouts; /**< of the errors: the worker died or ran out of time */
    double seconds;         /**< wall time of this run */
    int ranks;
    uint64_t peak_rss_kib;  /**< the largest peak resident size of a rank or its workers */
} iolens_batch_stats;

/** Runs the tasks over the logs (with opts->resume, inputs may be NULL: out_dir's list is
 *  used). Every rank calls it with the same arguments. 0 or a negative IOLENS_E*; a log that
 *  cannot be read is not an error of the run (it goes to the errors files). */
IOLENS_API int iolens_batch_run(const char *const *inputs, size_t n, const iolens_batch_options *opts,
                                iolens_batch_stats *stats);

/** Joins out_dir's part files (see above). *missing (may be NULL) gets the logs of
 *  inputs.txt that no run finished. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_batch_merge(const char *out_dir, uint64_t *missing, iolens_batch_stats *stats);

/** Writes n logs named gen-NNNNNNN.darshan into out_dir, each a real log of seeds (in turn)
 *  with its job id, uid, exe and names hashed with a per-log key and its durations scaled by
 *  a factor in [0.5, 2); a fraction `corrupt` of them (at random, seeded) truncated or with
 *  flipped bytes so that the reader refuses them, listed in out_dir/corrupt.txt. */
IOLENS_API int iolens_batch_generate(const char *const *seeds, size_t nseeds, size_t n, double corrupt,
                                     uint64_t seed, const char *out_dir,
                                     void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_BATCH_H */
