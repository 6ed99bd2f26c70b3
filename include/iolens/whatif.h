/*
 * The closed loop (`iolens whatif`, docs/whatif.md): from a finished job's trace to the measured
 * effect of the changes its diagnosis recommends. The patterns of a trace are detected (the
 * shipped models, gate tau 0.3) or given; the trace's I/O becomes the base replay config (as
 * `iolens replay --config-from`); each pattern's card gives one variant of it
 * (iolens_replay_whatif); the base and every variant are replayed in rounds whose order rotates,
 * next to the traced data (the application's own file system); the report gives each change's
 * speed-up with a paired interval, of the I/O and of the whole run.
 *
 *     iolens_whatif_options o;
 *     iolens_whatif_options_init(&o);
 *     o.input = "run.trace";
 *     o.program = "/usr/bin/iolens";   (the program whose `replay` command runs each replay)
 *     iolens_whatif *w = NULL;
 *     if (iolens_whatif_run(&o, &w) == 0)
 *         iolens_whatif_write_table(w, stdout);
 *     iolens_whatif_free(w);
 */
#ifndef IOLENS_WHATIF_H
#define IOLENS_WHATIF_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct iolens_whatif_options {
    const char *input;    /**< a trace (iolens file or Recorder folder), or a replay CONFIG.json */
    const char *program;  /**< the iolens program that runs each replay (`PROGRAM replay CONFIG ...`) */
    const char *patterns; /**< comma-separated patterns to try instead of detecting them (needed for a
                               CONFIG.json); NULL: detected */
    const char *combine;  /**< also one variant with all these changes together (NULL: none) */
    int control;          /**< also the base itself as a variant (A/A: the noise floor every verdict is
                               judged against; default 1) */
    int np;               /**< ranks of each replay (0: the config's) */
    const char *root;     /**< where the runs' folder is made (NULL: next to the traced data) */
    int root_anywhere;    /**< allow a root on another file-system type than the traced data's */
    int rounds;           /**< exactly this many rounds; 0: adaptive, 5 to max_rounds */
    int max_rounds;       /**< the adaptive rounds' limit (default 21) */
    double timeout;       /**< seconds one replay may run (default 600) */
    const char *keep;     /**< keep the configs and each run's results in this folder (NULL: not) */
    const char *models;   /**< pattern models (NULL: $IOLENS_MODELS or the installed ones) */
    int all_paths;        /**< detection keeps the files Darshan leaves out */
    int library;          /**< an HDF5 program's trace replayed at the library level */
    int dry;              /**< build the configs, run nothing */
    int drop_caches;      /**< drop the page cache before every run (root) */
    int cold_reads;       /**< read steps start cold */
    iolens_warn_fn warn;  /**< non-fatal findings (may be NULL) */
    void *warn_ctx;
    void (*progress)(void *ctx, size_t done, size_t total); /**< after each run (may be NULL) */
    void *progress_ctx;
    volatile sig_atomic_t *stop; /**< set non-zero (a signal handler): the running replay is stopped
                                      and the run fails (may be NULL) */
} iolens_whatif_options;

/** Defaults: adaptive rounds up to 21, a 600 s timeout, the A/A control on, everything else off. */
IOLENS_API void iolens_whatif_options_init(iolens_whatif_options *o);

typedef struct iolens_whatif iolens_whatif;

/** Runs the loop. 0 with *out set (also for a dry run, or when no change applies: nothing was
 *  measured then); a negative IOLENS_E* otherwise, IOLENS_EINVAL for a wrong request (a pattern
 *  unknown, a config without patterns, a root on another file system). The object (write it,
 *  free it) may be set on failure too (NULL otherwise). */
IOLENS_API int iolens_whatif_run(const iolens_whatif_options *opts, iolens_whatif **out);
/** The report as one JSON document (every round's figures, the configs). 0, or <0 when the write
 *  failed. */
IOLENS_API int iolens_whatif_write_json(const iolens_whatif *w, FILE *out);
/** The report as text: detection, the table of speed-ups, the paired intervals, the notes. */
IOLENS_API int iolens_whatif_write_table(const iolens_whatif *w, FILE *out);
IOLENS_API void iolens_whatif_free(iolens_whatif *w);

#ifdef __cplusplus
}
#endif
#endif
