/*
 * A labelled local corpus (`iolens corpus`, docs/detect.md): every sweep scenario config (one per
 * row of the sweeps' sweeps.tsv, a replay config whose description names its labels) in several
 * seeded variants (rank counts, repetition and file counts, particle counts, ordering seeds),
 * each run as `mpirun -np R PROGRAM trace -o TRACE -- PROGRAM replay VARIANT.json`; the model
 * features of the trace's Darshan counters become a row of OUT/features.csv (dev_features.csv
 * layout), the scenario's labels a row of OUT/labels.csv, every run a row of OUT/manifest.csv,
 * and OUT/configs/ holds the variant configs. The same seed gives the same configs.
 */
#ifndef IOLENS_CORPUS_H
#define IOLENS_CORPUS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One finished run, as it is reported (iolens_corpus_options.on_run). */
typedef struct iolens_corpus_run {
    const char *id;     /**< SCENARIO_rVARIANT */
    int ranks;
    double seconds;
    long long trace_bytes;
    int ok;
    const char *why;    /**< what failed (ok 0) */
} iolens_corpus_run;

typedef struct iolens_corpus_options {
    const char *out;       /**< output folder (default "corpus") */
    const char *configs;   /**< the scenario configs (default: the installed sweeps) */
    const char *scratch;   /**< where runs write (default $TMPDIR or /tmp; not under a path Darshan
                                excludes) */
    const char *mpirun;    /**< the MPI launcher (default "mpirun") */
    const char *program;   /**< the iolens program that traces and replays each run (required
                                unless dry) */
    const char *only, *exclude; /**< comma-separated shell patterns of scenario names (NULL: all) */
    uint64_t seed;         /**< seed of the variants (default 1) */
    int variants;          /**< runs per scenario (default 3) */
    int jobs;              /**< runs at a time (default 1) */
    double scale;          /**< multiplies repetition and file counts (default 1) */
    double timeout;        /**< seconds per run (default 600) */
    long long file_alignment; /**< POSIX_FILE_ALIGNMENT of the counters (default 1 MiB) */
    int rank_sweep;        /**< rank counts of the sweeps (sweeps.tsv) instead of 1-4 / 12-20 */
    int max_ranks;         /**< largest rank count with rank_sweep (default 32) */
    int keep;              /**< keep each run's folder */
    int dry;               /**< write the configs and the manifest, run nothing */
    iolens_warn_fn warn;   /**< failed runs and other findings (may be NULL) */
    void *warn_ctx;
    void (*progress)(void *ctx, size_t done, size_t total); /**< after each run (may be NULL) */
    void *progress_ctx;
    void (*on_run)(void *ctx, const iolens_corpus_run *run); /**< after each run (may be NULL) */
    void *on_run_ctx;
    volatile sig_atomic_t *stop; /**< set non-zero: the runs are stopped (may be NULL) */
} iolens_corpus_options;

IOLENS_API void iolens_corpus_options_init(iolens_corpus_options *o);

/** What a corpus build did. */
typedef struct iolens_corpus_stats {
    size_t runs, scenarios, failed;
    double seconds;        /**< wall time of the build */
    double run_seconds;    /**< the runs' own times, summed */
    long long trace_bytes; /**< the runs' traces */
    long long corpus_bytes; /**< features.csv + labels.csv + manifest.csv */
    char kept[4096];       /**< the runs' folder when it was kept (keep, or a run failed), else "" */
} iolens_corpus_stats;

/** Builds the corpus. 0 when every run gave its row (or a dry run planned them); a negative
 *  IOLENS_E* otherwise (IOLENS_EINVAL for a wrong request: a scratch folder
 *  Darshan excludes; IOLENS_ENOTFOUND: no scenario). st is filled either way. */
IOLENS_API int iolens_corpus_build(const iolens_corpus_options *opts, iolens_corpus_stats *st);

#ifdef __cplusplus
}
#endif
#endif
