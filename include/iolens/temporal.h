/*
 * Temporal classes of I/O: time series of bandwidth per job and direction,
 * SAGE and SAGE-2 clustering (seed 001, §IV), baselines (k-means, K-shape,
 * k-means with DTW, random) and the clustering-quality metrics of §VI-A.
 *
 * Time series. One series = one job and one direction (read or write), the
 * bandwidth in MiB/s at a fixed step (seconds per sample). Producers (CSV
 * readers here; Darshan HEATMAP/DXT, iolens and Recorder traces in other
 * modules) append series to an iolens_series_set with
 * iolens_series_set_add(); every analysis takes a set, so any producer plugs
 * in without this module knowing its format.
 *
 * Input formats read by iolens_series_read_file()/iolens_series_parse():
 *   - heatmap: header `log,module,bin_width_s,bin,read_bytes,write_bytes[,...]`
 *     (the job-level layout `iolens darshan --heatmap` emits, as in
 *     ../shared/data/timeseries/heatmap_job.csv). One read series and one
 *     write series per (log, module), ids `<log>:<module>:read|write`,
 *     step = bin_width_s, value = bytes / bin_width_s / 2^20. A first column
 *     `index` before `log` (iolens batch's heatmap.csv) is skipped.
 *   - long: header `id,t,value[,label]`; t in seconds (sample index =
 *     round(t / step)), missing samples are 0.
 *   - wide: one series per row `id,v0,v1,...` (MiB/s, one sample per step);
 *     an optional header whose first field is `id`, and when its second field
 *     is `label` every row's second field is an integer class label
 *     (as written by iolens_series_write_csv and `iolens cluster --synth`).
 * Parsers treat input as hostile: bounded sizes, finite non-negative values,
 * errors name the file and byte offset.
 */
#ifndef IOLENS_TEMPORAL_H
#define IOLENS_TEMPORAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- series */

typedef enum iolens_direction {
    IOLENS_DIR_NONE = 0,
    IOLENS_DIR_READ = 1,
    IOLENS_DIR_WRITE = 2,
} iolens_direction;

/** A read-only view of one series held by a set (valid while the set lives
 *  and is not modified). */
typedef struct iolens_series {
    const char *id;
    int direction;        /**< iolens_direction */
    double step_s;        /**< seconds per sample, > 0 */
    size_t n;             /**< number of samples */
    const double *mibs;   /**< n samples, MiB/s, finite and >= 0 */
    int label;            /**< ground-truth class (synthetic data) or -1 */
} iolens_series;

typedef struct iolens_series_set iolens_series_set;

/** Hard bounds applied by every reader (hostile input). */
#define IOLENS_SERIES_MAX_SAMPLES (1u << 24)  /* per series */
#define IOLENS_SERIES_MAX_COUNT (1u << 24)    /* per set */

IOLENS_API int iolens_series_set_new(iolens_series_set **out);
IOLENS_API void iolens_series_set_free(iolens_series_set *set);
/** Copies id and values. Values must be finite and >= 0; step_s > 0. */
IOLENS_API int iolens_series_set_add(iolens_series_set *set, const char *id, int direction,
                                     double step_s, const double *mibs, size_t n, int label);
IOLENS_API size_t iolens_series_set_count(const iolens_series_set *set);
/** Fills *out with a view of series i (i < count). */
IOLENS_API void iolens_series_set_get(const iolens_series_set *set, size_t i, iolens_series *out);

typedef enum iolens_series_format {
    IOLENS_SERIES_AUTO = 0,
    IOLENS_SERIES_WIDE = 1,
    IOLENS_SERIES_LONG = 2,
    IOLENS_SERIES_HEATMAP = 3,
} iolens_series_format;

typedef struct iolens_series_read_opts {
    int format;      /**< iolens_series_format; AUTO detects from the header */
    double step_s;   /**< step of wide and long inputs (default 1 s) */
} iolens_series_read_opts;

IOLENS_API void iolens_series_read_opts_init(iolens_series_read_opts *o);
/** Appends the series of one CSV file to set. `name` is used in messages. */
IOLENS_API int iolens_series_parse(iolens_series_set *set, const char *data, size_t len,
                                   const char *name, const iolens_series_read_opts *o);
IOLENS_API int iolens_series_read_file(iolens_series_set *set, const char *path,
                                       const iolens_series_read_opts *o);
/** Writes the set in wide format with a label column (`id,label,v0,...`). */
IOLENS_API int iolens_series_write_csv(const iolens_series_set *set, FILE *out);

/** Pre-processing of seed §V-B, applied to each series independently (read
 *  and write series of a job are filtered independently). */
typedef struct iolens_filter_opts {
    size_t min_samples;  /**< drop series shorter than this (default 20) */
    size_t max_samples;  /**< drop series longer than this (0 = no limit) */
    double zero_below;   /**< samples below this many MiB/s become 0 (default 1) */
    size_t min_nonzero;  /**< drop series with fewer non-zero samples (default 5) */
} iolens_filter_opts;

IOLENS_API void iolens_filter_opts_init(iolens_filter_opts *o);
/** Builds *out with the kept (and thresholded) series of in. */
IOLENS_API int iolens_series_filter(iolens_series_set **out, const iolens_series_set *in,
                                    const iolens_filter_opts *o);
/** The same in place: the series dropped are freed, the kept ones
 *  thresholded where they are, so no second copy of the samples is ever
 *  held (10^6 series of 300 samples are 2.4 GB). Returns the number kept. */
IOLENS_API size_t iolens_series_filter_in_place(iolens_series_set *set, const iolens_filter_opts *o);

/** One transfer: `bytes` moved between `tstart` and `tend` (seconds since
 *  the job start), e.g. a DXT segment or a traced read/write call. */
typedef struct iolens_transfer {
    double tstart, tend;
    double bytes;
} iolens_transfer;

/** Bins transfers into a series of bandwidth at step bin_s seconds, as the
 *  Darshan HEATMAP module does: a transfer spanning several bins is split
 *  in proportion to the time spent in each, a zero-duration transfer puts
 *  all its bytes in its bin. The series spans [0, max tend). Appends it to
 *  set as (id, direction); n may be 0 (an empty series). */
IOLENS_API int iolens_series_from_transfers(iolens_series_set *set, const char *id, int direction,
                                            double bin_s, const iolens_transfer *t, size_t n);

struct iolens_evsource;
/** Appends the read and the write series (`<id>:read`, `<id>:write`) of an
 *  event stream (include/iolens/event.h): the bytes moved (ret, or size when
 *  ret < 0) by the application-level (depth 0) read and write calls of every
 *  rank, of one layer (`layer` >= 0, an iolens_layer) or of all layers (-1),
 *  binned at bin_s seconds. The source is rewound first and left at its end. */
IOLENS_API int iolens_series_from_events(iolens_series_set *set, struct iolens_evsource *src, const char *id,
                                         int layer, double bin_s);

/** Where the series of a Darshan log came from. */
typedef enum iolens_darshan_series_source {
    IOLENS_DSERIES_NONE = 0,     /**< no HEATMAP nor DXT record: no series */
    IOLENS_DSERIES_HEATMAP = 1,  /**< HEATMAP records */
    IOLENS_DSERIES_DXT = 2,      /**< DXT_POSIX / DXT_MPIIO segments */
} iolens_darshan_series_source;

/** Appends the job-level read and write series of the Darshan log at path,
 *  one pair per API: `<log>:<API>:read` and `<log>:<API>:write`. With
 *  HEATMAP records: the records of each category (API = the record name
 *  after "heatmap:", e.g. POSIX, MPIIO, STDIO) summed over ranks, step = the
 *  records' bin width (as the heatmap CSV reader gives for the same log).
 *  Without: the DXT_POSIX and DXT_MPIIO segments (API POSIX, MPIIO) binned
 *  at dxt_step_s with iolens_series_from_transfers(). log_name NULL derives
 *  <log> from the path (iolens_series_darshan_log_name). *source (may be
 *  NULL) says which. Returns the number of series added (0 for a log with
 *  neither) or a negative error; on error the set is left as it was. */
IOLENS_API int iolens_series_from_darshan(iolens_series_set *set, const char *path, const char *log_name,
                                          double dxt_step_s, int *source, iolens_warn_fn warn, void *warn_ctx);
/** The <log> of a Darshan log path as the heatmap CSVs name it: the file's
 *  base name, its first "__" turned into "/" (the shared data stores
 *  `<dir>/<file>` of darshan-logs as `<dir>__<file>`). */
IOLENS_API int iolens_series_darshan_log_name(const char *path, char *buf, size_t size);

/** Appends n labelled synthetic traces (seed-like classes: burst at start,
 *  burst at end, periodic, growing, constant plateau, each at a low and a
 *  high amplitude band = 10 classes; noise; lengths uniform in 100..600
 *  unless length > 0). Deterministic for a seed. */
IOLENS_API int iolens_series_synth(iolens_series_set *set, size_t n, size_t length, uint64_t seed);
/** The same with lengths uniform in min_len..max_len (1 <= min_len <=
 *  max_len): e.g. 600..3600 one-second samples for jobs of 10 to 60
 *  minutes. iolens_series_synth(set, n, 0, seed) is (100, 600). */
IOLENS_API int iolens_series_synth_range(iolens_series_set *set, size_t n, size_t min_len, size_t max_len,
                                         uint64_t seed);
#define IOLENS_SYNTH_CLASSES 10
/** Name of a synthetic class ("start-low", ...), or "?" */
IOLENS_API const char *iolens_synth_class_name(int label);

/** Linear-interpolation resampling of x (n points) to out (m points). */
IOLENS_API void iolens_resample(const double *x, size_t n, double *out, size_t m);

/* ------------------------------------------------------------ clustering */

typedef enum iolens_cluster_method {
    IOLENS_CLUSTER_SAGE = 0,
    IOLENS_CLUSTER_SAGE2 = 1,
    IOLENS_CLUSTER_KMEANS = 2,
    IOLENS_CLUSTER_KSHAPE = 3,
    IOLENS_CLUSTER_DTW = 4,
    IOLENS_CLUSTER_RANDOM = 5,
} iolens_cluster_method;
#define IOLENS_CLUSTER_NMETHODS 6

/** "sage", "sage2", "kmeans", "kshape", "dtw", "random"; NULL if unknown. */
IOLENS_API const char *iolens_cluster_method_name(int method);
/** Returns the method or -1. */
IOLENS_API int iolens_cluster_method_parse(const char *name);

typedef void (*iolens_progress_fn)(void *ctx, const char *stage, size_t done, size_t total);

/** Processes sharing one clustering (MPI ranks, say): each runs iolens_cluster_run on the same
 *  set with the same options and computes its share of the per-series work (genomes, the
 *  assignment of every series); gather then makes every share everyone's. The result is the
 *  same as one process's, whatever the number of processes. */
typedef struct iolens_cluster_dist {
    int rank, size; /**< this process, of size (>= 1) */
    /** On every process: buf holds this process's bytes [displs[rank], displs[rank] + counts[rank]);
     *  on return it holds every process's. 0, or < 0 (iolens_error set) on failure. */
    int (*gather)(void *ctx, void *buf, const size_t *counts, const size_t *displs);
    void *ctx;
} iolens_cluster_dist;

typedef struct iolens_cluster_opts {
    int method;              /**< iolens_cluster_method */
    uint64_t seed;           /**< every random choice derives from it */
    unsigned threads;        /**< worker threads (default 2); results do not depend on it */
    unsigned window;         /**< SAGE window W (default 5) */
    unsigned genome_len;     /**< SAGE genome length L in symbols (default 60 = 300 points / W) */
    unsigned resample_len;   /**< baselines' and metrics' resample length (default 300) */
    unsigned kmin, kmax;     /**< elbow search range (default 2..50) */
    unsigned level_kmax;     /**< SAGE amplitude levels searched in kmin..level_kmax (default 10) */
    unsigned k;              /**< fixed number of clusters (0 = elbow; K-shape, DTW and random
                                  default to the k-means elbow, as in the seed's Table I) */
    unsigned min_cluster;    /**< clusters smaller than this merge into the closest (default 5) */
    size_t elbow_sample;     /**< points per k in the elbow search (default 5000) */
    size_t fit_sample;       /**< points used to fit the chosen k (default 200000); all
                                  points are then assigned to the nearest centroid */
    iolens_progress_fn progress;
    void *progress_ctx;
    const iolens_cluster_dist *dist; /**< NULL (default): this process does all the work */
} iolens_cluster_opts;

IOLENS_API void iolens_cluster_opts_init(iolens_cluster_opts *o);

typedef struct iolens_clustering iolens_clustering;

/** Clusters every series of set (at least 1). */
IOLENS_API int iolens_cluster_run(iolens_clustering **out, const iolens_series_set *set,
                                  const iolens_cluster_opts *o);
IOLENS_API void iolens_clustering_free(iolens_clustering *c);
IOLENS_API int iolens_clustering_method(const iolens_clustering *c);
/** Number of clusters k (clusters are 0..k-1, none empty). */
IOLENS_API size_t iolens_clustering_k(const iolens_clustering *c);
/** Clusters that the method found but merged into their nearest because
 *  they held fewer than min_cluster traces (SAGE-2: both stages), or came
 *  out empty: k + this is what the elbow (or --k) asked for. */
IOLENS_API size_t iolens_clustering_merged(const iolens_clustering *c);
/** Cluster of each series (n = count of the clustered set). */
IOLENS_API const int *iolens_clustering_labels(const iolens_clustering *c, size_t *n);
IOLENS_API size_t iolens_clustering_size(const iolens_clustering *c, size_t cluster);
/** Display name: "3" for most methods, "α2" (UTF-8) for SAGE-2. */
IOLENS_API const char *iolens_clustering_name(const iolens_clustering *c, size_t cluster);
/** Centroid = mean of the members resampled to resample_len points, MiB/s. */
IOLENS_API const double *iolens_clustering_centroid(const iolens_clustering *c, size_t cluster,
                                                    size_t *len);
/** SAGE alphabet: number of symbols (0 for baselines), including Z1 (last). */
IOLENS_API size_t iolens_clustering_alphabet_size(const iolens_clustering *c);
/** Symbol s: name ("B3", "Z1"), its W-point centroid in MiB/s. */
IOLENS_API const char *iolens_clustering_symbol(const iolens_clustering *c, size_t s,
                                                const double **centroid, size_t *w);
/** Genome of series i before normalisation (symbol indices); NULL for baselines. */
IOLENS_API const uint16_t *iolens_clustering_genome(const iolens_clustering *c, size_t i, size_t *n);

/** Writes DIR/assignments.csv (`id,cluster`), DIR/centroids.csv (header
 *  `cluster,step_seconds=<s>`, then `cluster,v0,v1,...`: each centroid
 *  resampled to the median length of its members, MiB/s at step s = median
 *  step of the set), DIR/clusters.csv (`cluster,name,size`), DIR/alphabet.csv
 *  (SAGE methods) and DIR/centroids.svg. DIR must exist. */
IOLENS_API int iolens_clustering_write(const iolens_clustering *c, const iolens_series_set *set,
                                       const char *dir);

/* --------------------------------------------------------------- metrics */

typedef struct iolens_cluster_metrics {
    double intra_ddtw, intra_sbd, intra_pld;  /**< medians, lower is better */
    double inter_ddtw, inter_sbd, inter_pld;  /**< medians, higher is better (NaN if k = 1) */
    double balance;                           /**< normalised entropy, higher is better */
} iolens_cluster_metrics;
#define IOLENS_METRIC_COUNT 7
/** "intra_ddtw", ... in the order of the struct. */
IOLENS_API const char *iolens_metric_name(int i);
IOLENS_API double iolens_metric_get(const iolens_cluster_metrics *m, int i);
/** 1 if higher is better. */
IOLENS_API int iolens_metric_higher_better(int i);

/** Metrics of a clustering of set: traces and centroids are compared at
 *  resample_len points; at most max_traces (0 = all) evenly spaced traces
 *  enter the intra medians. */
IOLENS_API int iolens_cluster_metrics_compute(iolens_cluster_metrics *out, const iolens_clustering *c,
                                              const iolens_series_set *set, size_t max_traces,
                                              unsigned threads);
/** Aggregate score of seed §VI-A over n strategies: each metric min-max
 *  normalised to [0,1] across strategies (1 = best, all 1 on a tie, a NaN
 *  metric = 0), score = mean. norm (n x IOLENS_METRIC_COUNT) may be NULL. */
IOLENS_API void iolens_cluster_aggregate(const iolens_cluster_metrics *m, size_t n, double *norm,
                                         double *score);

/** PLD(B, A) of eq. 1: both series already of equal length n, cut into P
 *  phases (sample i in phase floor(i*P/n)); levels of width Amax/levels where
 *  Amax = max of a; level = floor(levels * phase_mean / Amax). Amax = 0:
 *  Amax = max of b, and 0 if both are all zero. */
IOLENS_API double iolens_pld(const double *b, const double *a, size_t n, unsigned phases,
                             unsigned levels);
/** Shape-based distance, 1 - max NCC (tslearn semantics); n <= 2^20. */
IOLENS_API double iolens_sbd(const double *a, const double *b, size_t n);
/** DTW (squared local cost, sqrt of the total) with a Sakoe-Chiba radius
 *  (< 0: none). */
IOLENS_API double iolens_dtw(const double *a, size_t na, const double *b, size_t nb, int radius);
/** Derivative DTW: Keogh-Pazzani derivative, endpoints copied from their
 *  neighbours (the paper's rule; series of 1-2 points have derivative 0). */
IOLENS_API double iolens_ddtw(const double *a, size_t na, const double *b, size_t nb, int radius);
/** Normalised Shannon entropy of cluster sizes; empty clusters do not count;
 *  0 when fewer than 2 clusters are non-empty. */
IOLENS_API double iolens_entropy_balance(const size_t *sizes, size_t k);
/** Adjusted Rand index of two labelings (labels >= 0). */
IOLENS_API double iolens_ari(const int *a, const int *b, size_t n);

/* ------------------------------------------------------ building blocks */

/** Kneedle (kneed semantics, curve convex, direction decreasing, S = 1,
 *  offline): index of the first knee in x[0..n), or -1 if none. */
IOLENS_API long iolens_kneedle(const double *x, const double *y, size_t n);

/** k-means (k-means++ init with 2 + floor(ln k) local trials, Lloyd with
 *  scikit-learn's tolerance and empty-cluster rule) of n points of dimension
 *  d (row-major X). Writes centroids (k x d), labels (n) and returns the
 *  inertia in *inertia. Deterministic for a seed whatever threads is. */
IOLENS_API int iolens_kmeans(const double *X, size_t n, size_t d, size_t k, uint64_t seed,
                             unsigned threads, double *centroids, int *labels, double *inertia);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_TEMPORAL_H */
