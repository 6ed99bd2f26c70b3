/* iolens report: one self-contained HTML page of a job (inline SVG and CSS, no script, no
 * network): the job, I/O cost and operations per module, access sizes, data access by category,
 * heatmap, per-rank timeline, diagnosis, what-if results. */
#ifndef IOLENS_REPORT_H
#define IOLENS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct iolens_report_options {
    const char *models_dir;  /**< pattern models (NULL: iolens_detect_default_models_dir()) */
    int no_diagnosis;        /**< 1: leave the diagnosis out (no models needed) */
    double tau;              /**< gate threshold (0: 0.3) */
    const char *whatif_json; /**< output of `iolens whatif --json` to show (NULL: none) */
    const char *cluster_dir; /**< output folder of `iolens cluster --out` to show (NULL: none) */
    /** Every call as a Trace Event Format timeline (iolens_report_chrome_trace) written to this
     *  file, and linked from the page's timeline section by timeline_href (NULL: not written) */
    const char *timeline_file, *timeline_href;
    int max_segments;        /**< timeline: segments drawn at most (0: 20000) */
    iolens_warn_fn warn;     /**< non-fatal findings (may be NULL) */
    void *warn_ctx;
} iolens_report_options;

/** Fills o with the defaults. */
IOLENS_API void iolens_report_options_init(iolens_report_options *o);

/** Writes the report of input (a binary Darshan log, an iolens trace or a Recorder trace
 *  directory, told apart by content) to out as HTML; json_out (may be NULL) gets the same
 *  figures as JSON. 0, or a negative IOLENS_E* with the message in iolens_last_error(). */
IOLENS_API int iolens_report_write(const char *input, const iolens_report_options *opt, FILE *out, FILE *json_out);

/** Writes the calls of input (an iolens trace, a Recorder trace directory, or a Darshan log's
 *  DXT segments) as a timeline in the Trace Event Format (JSON object form) that Perfetto and
 *  chrome://tracing load: one complete event per call (microseconds; pid = rank, tid = thread),
 *  its arguments under "args". *nevents (may be NULL) gets the number of call events. 0, or a
 *  negative IOLENS_E* (IOLENS_ENOTFOUND: a log without DXT). */
IOLENS_API int iolens_report_chrome_trace(const char *input, FILE *out, int64_t *nevents, iolens_warn_fn warn,
                                          void *warn_ctx);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_REPORT_H */
