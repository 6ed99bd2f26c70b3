/*
 * iolens place — OST placement from cluster centroids, with a disk-sharing
 * simulator (the SAGE paper, §VII).
 *
 * Pieces, usable on their own:
 *  - series:    a reader for I/O time series (MiB/s per sample) in the CSV
 *               layouts `iolens cluster` reads: wide `id,v0,v1,...`, long
 *               `id,t,value`, and the job-level Darshan heatmap CSV
 *               `log,module,bin_width_s,bin,read_bytes,write_bytes,...`;
 *  - clusters:  the output of `iolens cluster --out DIR` (assignments.csv and
 *               centroids.csv);
 *  - phases:    a series cut into compute phases (samples below a threshold,
 *               1 MiB/s in the paper; fixed duration) and I/O phases (MiB to
 *               move; duration depends on the bandwidth obtained);
 *  - simulate:  O OSTs of equal bandwidth, each shared equally by the I/O
 *               phases active on it (fluid model, event-driven, exact);
 *  - place:     round-robin, random, and the overlap-based placement of §VII-B
 *               (greedy merging on equation 2's overlap graph, then local
 *               search over moves and swaps);
 *  - study:     workloads of n jobs at storage load rho (equation 3), several
 *               per load, every policy simulated: the data of the paper's Fig. 14.
 *
 * All functions return 0 (or a count) on success and a negative IOLENS_E*
 * code on failure with iolens_error_last() set. Objects are opaque; every
 * _free(NULL) is a no-op. Randomness is explicit (seeds), never global.
 */
#ifndef IOLENS_PLACE_H
#define IOLENS_PLACE_H

#include "iolens/iolens.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- series */

/** Which bytes of a Darshan heatmap row make the series. */
typedef enum iolens_place_metric {
    IOLENS_PLACE_METRIC_READ = 0,  /**< read bytes (default; the paper's Fig. 14 uses reads) */
    IOLENS_PLACE_METRIC_WRITE = 1,
    IOLENS_PLACE_METRIC_TOTAL = 2, /**< read + write */
} iolens_place_metric;

typedef struct iolens_place_series_opts {
    /** Seconds per sample of the wide and long layouts (0 means 1 s). In the
     *  long layout `t` is a time in seconds, sample index round(t / step). */
    double step_seconds;
    /** Heatmap layout: module whose rows are used (NULL means "POSIX").
     *  Series ids are those `iolens cluster` gives: `<log>:<module>:read`,
     *  `<log>:<module>:write`, or `<log>:<module>` for the total. Samples are
     *  bytes per bin / bin_width / 2^20. */
    const char *heatmap_module;
    iolens_place_metric heatmap_metric;
    /** Bound on the samples held in total (0 means 2^24): hostile input
     *  cannot make the reader allocate more. */
    size_t max_samples;
} iolens_place_series_opts;

typedef struct iolens_place_series iolens_place_series;

/** Reads a series file (layout detected from its header line). opts may be
 *  NULL for the defaults. Samples must be finite and >= 0; ids unique. */
IOLENS_API int iolens_place_series_read(iolens_place_series **out, const char *path,
                                        const iolens_place_series_opts *opts);
/** Same from memory; name is used in messages. */
IOLENS_API int iolens_place_series_parse(iolens_place_series **out, const char *data,
                                         size_t len, const char *name,
                                         const iolens_place_series_opts *opts);
IOLENS_API size_t iolens_place_series_count(const iolens_place_series *s);
IOLENS_API const char *iolens_place_series_id(const iolens_place_series *s, size_t i);
/** Samples in MiB/s of series i; *len gets their number. */
IOLENS_API const double *iolens_place_series_values(const iolens_place_series *s, size_t i,
                                                    size_t *len);
/** Seconds per sample of series i. */
IOLENS_API double iolens_place_series_step(const iolens_place_series *s, size_t i);
/** Index of the series with that id, or IOLENS_ENOTFOUND (no message set). */
IOLENS_API long iolens_place_series_find(const iolens_place_series *s, const char *id);
IOLENS_API void iolens_place_series_free(iolens_place_series *s);

/* -------------------------------------------------------------- clusters */

typedef struct iolens_place_clusters iolens_place_clusters;

/** Reads DIR/assignments.csv (`id,cluster`) and DIR/centroids.csv (first
 *  line `cluster,step_seconds=<s>`, then `cluster,v0,v1,...` in MiB/s).
 *  Cluster labels are strings; every assigned cluster must have a centroid. */
IOLENS_API int iolens_place_clusters_read(iolens_place_clusters **out, const char *dir);
IOLENS_API int iolens_place_clusters_parse(iolens_place_clusters **out, const char *assignments,
                                           size_t alen, const char *centroids, size_t clen,
                                           const char *name);
IOLENS_API size_t iolens_place_clusters_count(const iolens_place_clusters *c);
IOLENS_API const char *iolens_place_clusters_label(const iolens_place_clusters *c, size_t k);
IOLENS_API const double *iolens_place_clusters_centroid(const iolens_place_clusters *c, size_t k,
                                                        size_t *len);
IOLENS_API double iolens_place_clusters_step(const iolens_place_clusters *c);
/** Cluster index of a trace id, or IOLENS_ENOTFOUND (no message set). */
IOLENS_API long iolens_place_clusters_of(const iolens_place_clusters *c, const char *id);
IOLENS_API void iolens_place_clusters_free(iolens_place_clusters *c);

/* ---------------------------------------------------------------- phases */

typedef enum iolens_place_phase_kind {
    IOLENS_PLACE_COMPUTE = 0, /**< amount = seconds */
    IOLENS_PLACE_IO = 1,      /**< amount = MiB to move (OST-seconds in the recorded model) */
} iolens_place_phase_kind;

typedef struct iolens_place_phase {
    iolens_place_phase_kind kind;
    double amount;
} iolens_place_phase;

/** A job for the simulator and the placement: a start time and its phases. */
typedef struct iolens_place_job {
    double start;
    const iolens_place_phase *phases;
    size_t nphases;
} iolens_place_job;

/** Cuts a series into phases (§VII-A): maximal runs of samples below
 *  threshold (MiB/s) become compute phases of run * step seconds, runs at or
 *  above it I/O phases of sum(v) * step MiB. *out (caller frees) may be NULL
 *  when *nout is 0. */
IOLENS_API int iolens_place_phases_from_series(iolens_place_phase **out, size_t *nout,
                                               const double *v, size_t n, double step,
                                               double threshold);
/** The same, with I/O phases measured by their duration (run * step
 *  OST-seconds) instead of the MiB they moved: IOLENS_PLACE_IO_RECORDED. */
IOLENS_API int iolens_place_phases_timed(iolens_place_phase **out, size_t *nout, const double *v,
                                         size_t n, double step, double threshold);

/** Resamples a series to n samples spanning the same duration as the
 *  original scaled to n * step_out: sample i is the mean of the source
 *  function (piecewise constant over [0, 1)) over [i/n, (i+1)/n). This is the
 *  "centroid rescaled to the job's duration". out has n slots. */
IOLENS_API int iolens_place_rescale(double *out, size_t n, const double *src, size_t srclen);

/* ------------------------------------------------------------- simulator */

/** What one job experienced in a simulation. */
typedef struct iolens_place_outcome {
    double end;      /**< time its last phase ended */
    double io_time;  /**< T_j: total time its I/O phases lasted */
    double io_isol;  /**< T_j^isol: the same alone on an OST (MiB / bandwidth) */
    double stretch;  /**< io_time / io_isol (1 for a job without I/O) */
} iolens_place_outcome;

/** Simulates jobs on nost OSTs of bandwidth MiB/s; job j uses OST ost[j].
 *  Fluid model: the k I/O phases active on an OST each progress at
 *  bandwidth / k. out has njobs slots; *geomean (may be NULL) gets the
 *  geometric mean stretch of the jobs that do I/O. */
IOLENS_API int iolens_place_simulate(iolens_place_outcome *out, double *geomean,
                                     const iolens_place_job *jobs, size_t njobs,
                                     const unsigned *ost, unsigned nost, double bandwidth);

/* ------------------------------------------------------------- placement */

typedef enum iolens_place_policy {
    IOLENS_PLACE_ROUND_ROBIN = 0,
    IOLENS_PLACE_RANDOM = 1,
    IOLENS_PLACE_CLAIRVOYANT = 2, /**< overlap placement on the real phases */
    IOLENS_PLACE_CLUSTER = 3,     /**< overlap placement on centroid phases */
} iolens_place_policy;

/** "round-robin", "random", "clairvoyant", "cluster". */
IOLENS_API const char *iolens_place_policy_name(iolens_place_policy p);

/** Equation 2: w(a,b) = (t_ov / Ta + t_ov / Tb) / 2 where t_ov is the time
 *  both jobs do I/O when run in isolation from their start times at the given
 *  bandwidth, Ta, Tb their I/O times (a term with T = 0 counts 0). */
IOLENS_API double iolens_place_overlap(const iolens_place_job *a, const iolens_place_job *b,
                                       double bandwidth);

/** Step 1 of §VII-B on an n x n symmetric weight matrix (row-major): while
 *  more than nost nodes remain, merge the two joined by the lightest edge
 *  (ties: fewest jobs, then lowest node indices), edges of a merged node
 *  summed. ost[j] gets the node (0..nost-1) of job j. */
IOLENS_API int iolens_place_greedy(unsigned *ost, const double *w, size_t n, unsigned nost);
/** Step 2: best-improvement local search over moving one job or swapping
 *  two, until no change lowers the total overlap of co-located pairs.
 *  Returns the number of changes applied. */
IOLENS_API long iolens_place_local_search(unsigned *ost, const double *w, size_t n,
                                          unsigned nost);
/** Sum of w over pairs placed on the same OST. */
IOLENS_API double iolens_place_cost(const unsigned *ost, const double *w, size_t n);

/** Places jobs (as the policy sees them: real phases for clairvoyant,
 *  predicted ones for cluster) with the given policy. Round-robin goes by
 *  job index; random uses seed. */
IOLENS_API int iolens_place_assign(unsigned *ost, iolens_place_policy policy,
                                   const iolens_place_job *seen, size_t n, unsigned nost,
                                   double bandwidth, uint64_t seed);

/* ----------------------------------------------------------------- study */

/** A set of traces ready for the study: real phases of each trace, and for
 *  each cluster set, the phases of its cluster's centroid rescaled to the
 *  trace's duration. Traces without I/O are left out. */
typedef struct iolens_place_pool iolens_place_pool;

/** How long an I/O phase takes alone on an OST. The paper does not give its
 *  OSTs' bandwidth; docs/place.md discusses the choice. */
typedef enum iolens_place_io_model {
    /** The paper's: an I/O phase moves the MiB it moved in the trace, on an
     *  OST of `bandwidth` MiB/s shared equally by the phases active on it.
     *  Alone, a phase of a trace far below that bandwidth takes less time
     *  than recorded. The default. */
    IOLENS_PLACE_IO_VOLUME = 0,
    /** Alone, an I/O phase lasts as long as it did in the trace: it uses its
     *  OST whole, and k phases on one OST each progress at 1/k. Phases are
     *  measured in OST-seconds and the pool's bandwidth is 1. */
    IOLENS_PLACE_IO_RECORDED = 1,
} iolens_place_io_model;

/** How a workload of n jobs at a load is drawn from the pool. */
typedef enum iolens_place_draw {
    /** The paper's: n jobs drawn at random, kept when their load is within
     *  the tolerance; far from the pool's mean load the draws come from the
     *  exponentially tilted pool that conditioning on the load gives. The
     *  default. */
    IOLENS_PLACE_DRAW_CONDITIONED = 0,
    /** n random jobs, then random replacements that bring the load closer:
     *  a few extreme jobs carry the load. */
    IOLENS_PLACE_DRAW_REPLACE = 1,
} iolens_place_draw;

typedef struct iolens_place_pool_opts {
    double threshold; /**< MiB/s below which a sample is compute (0 means 1) */
    iolens_place_io_model io_model;
    iolens_place_draw draw; /**< how workloads are drawn from this pool */
    /** IOLENS_PLACE_IO_VOLUME: OST bandwidth in MiB/s; 0: the
     *  bandwidth_quantile of the traces' I/O samples. Ignored by
     *  IOLENS_PLACE_IO_RECORDED. */
    double bandwidth;
    /** Quantile in (0, 1] of the I/O samples (those >= threshold) of every
     *  trace taken as the OST bandwidth when bandwidth is 0 (0 means 0.999:
     *  one noisy sample does not set it; 1 is the largest sample). */
    double bandwidth_quantile;
    /** Horizon H in seconds (0: the longest isolated job duration). Traces
     *  longer than H in isolation are left out. */
    double horizon;
    unsigned nost;    /**< number of OSTs (0 means 4) */
} iolens_place_pool_opts;

/** clusters[m] (m < nclusters) may be NULL. A trace missing from a non-NULL
 *  cluster set has no class for the cluster-based policy: it is left out of
 *  the pool (counted by iolens_place_pool_unclustered()). */
IOLENS_API int iolens_place_pool_build(iolens_place_pool **out, const iolens_place_series *traces,
                                       const iolens_place_clusters *const *clusters,
                                       size_t nclusters, const iolens_place_pool_opts *opts);
IOLENS_API size_t iolens_place_pool_count(const iolens_place_pool *p);
/** Index in the series set of pool entry i. */
IOLENS_API size_t iolens_place_pool_trace(const iolens_place_pool *p, size_t i);
/** Traces of the series set left out (no I/O, longer than H, or no cluster). */
IOLENS_API size_t iolens_place_pool_skipped(const iolens_place_pool *p);
/** Of those, traces left out because a cluster set has no class for them. */
IOLENS_API size_t iolens_place_pool_unclustered(const iolens_place_pool *p);
/** Simulated OST bandwidth: MiB/s, or 1 (OST-seconds per second) in the
 *  recorded model. */
IOLENS_API double iolens_place_pool_bandwidth(const iolens_place_pool *p);
IOLENS_API iolens_place_io_model iolens_place_pool_io_model(const iolens_place_pool *p);
IOLENS_API double iolens_place_pool_horizon(const iolens_place_pool *p);
IOLENS_API unsigned iolens_place_pool_nost(const iolens_place_pool *p);
/** Isolated I/O time and duration of pool entry i. */
IOLENS_API double iolens_place_pool_io_isol(const iolens_place_pool *p, size_t i);
IOLENS_API double iolens_place_pool_duration(const iolens_place_pool *p, size_t i);
/** Job of pool entry i starting at start: real phases (method < 0) or the
 *  phases predicted by cluster set method. */
IOLENS_API iolens_place_job iolens_place_pool_job(const iolens_place_pool *p, size_t i,
                                                  double start, int method);
IOLENS_API void iolens_place_pool_free(iolens_place_pool *p);

/** Loads (equation 3) reachable with n jobs of the pool: n times the
 *  smallest and the largest per-job load. */
IOLENS_API void iolens_place_load_range(const iolens_place_pool *p, size_t n, double *lo, double *hi);

/** A workload: n pool entries with start times, sorted by start time. */
typedef struct iolens_place_workload {
    size_t n;
    size_t *entry;  /**< pool entry of each job */
    double *start;  /**< start time of each job, in [0, H - duration] */
    double rho;     /**< storage load of equation 3 */
} iolens_place_workload;

/** Draws n jobs (with replacement, by the pool's iolens_place_draw) until
 *  rho is within tol of target, then start times uniformly so every job fits
 *  in H. IOLENS_EINVAL when the
 *  target cannot be reached with n jobs of this pool. Free with
 *  iolens_place_workload_release(). */
IOLENS_API int iolens_place_workload_draw(iolens_place_workload *w, const iolens_place_pool *p,
                                          size_t n, double target, double tol, uint64_t seed);
IOLENS_API void iolens_place_workload_release(iolens_place_workload *w);

/** Places and simulates a workload with one policy (method: cluster set for
 *  IOLENS_PLACE_CLUSTER, ignored otherwise). ost (may be NULL) gets the
 *  placement, outcome (may be NULL) each job's result. */
IOLENS_API int iolens_place_run(double *geomean, unsigned *ost, iolens_place_outcome *outcome,
                                const iolens_place_pool *p, const iolens_place_workload *w,
                                iolens_place_policy policy, int method, uint64_t seed);

/** One line of the study (one workload, one policy). */
typedef struct iolens_place_result {
    unsigned jobs;
    double rho_target;
    double rho;          /**< load actually drawn */
    unsigned workload;   /**< 0-based index among the workloads of that load */
    iolens_place_policy policy;
    int method;          /**< cluster set index for IOLENS_PLACE_CLUSTER, else -1 */
    double geomean_stretch;
} iolens_place_result;

typedef struct iolens_place_study_opts {
    const unsigned *jobs;   /**< workload sizes (e.g. 40, 80) */
    size_t njobs;
    const double *loads;    /**< target loads (e.g. 0.5 ... 3) */
    size_t nloads;
    unsigned workloads;     /**< random workloads per (size, load) */
    uint64_t seed;
    double tol;             /**< load tolerance (0 means 0.02) */
    /** Called after each workload (may be NULL). */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
} iolens_place_study_opts;

/** Runs the study: for every size, load and workload, round-robin, random,
 *  clairvoyant and every cluster set of the pool. Loads out of
 *  iolens_place_load_range() for a size are skipped (no result lines). *out (caller frees) gets
 *  *nout results in that order. */
IOLENS_API int iolens_place_study(iolens_place_result **out, size_t *nout,
                                  const iolens_place_pool *p, const iolens_place_study_opts *opts);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_PLACE_H */
