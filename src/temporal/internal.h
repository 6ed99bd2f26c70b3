/* Internal pieces shared by the files of src/temporal/. */
#ifndef IOLENS_TEMPORAL_INTERNAL_H
#define IOLENS_TEMPORAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/temporal.h"

/* ------------------------------------------------------------- the set */
struct series_rec {
    char *id;
    int direction;
    double step_s;
    size_t n;
    double *v;
    int label;
};

struct iolens_series_set {
    struct series_rec *s;
    size_t n, cap;
};

/* Takes ownership of id and v (freed on failure). */
int tser_set_push(iolens_series_set *set, char *id, int direction, double step_s, double *v,
                  size_t n, int label);

/* ---------------------------------------------------------------- rng */
typedef struct tser_rng {
    uint64_t s[4];
} tser_rng;
void tser_rng_seed(tser_rng *r, uint64_t seed);
uint64_t tser_rng_next(tser_rng *r);
double tser_rng_unit(tser_rng *r); /* [0,1) */
size_t tser_rng_below(tser_rng *r, size_t n);
double tser_rng_normal(tser_rng *r);

/* ------------------------------------------------------- parallel loop */
/* Runs fn(ctx, begin, end, worker) over [0,n) split into `threads`
 * contiguous chunks (pthreads; inline when threads <= 1 or n is small). */
typedef void (*tser_range_fn)(void *ctx, size_t begin, size_t end, unsigned worker);
int tser_parallel(unsigned threads, size_t n, tser_range_fn fn, void *ctx);
/* The same over the processes of dist (NULL: this one alone): each runs its share of [0, n)
 * with `threads`; then, for each of the nout arrays of per-item results (outs[j], sizes[j]
 * bytes an item), every process's share is gathered so that every process holds all of it. */
int tser_parallel_dist(const iolens_cluster_dist *dist, unsigned threads, size_t n, tser_range_fn fn, void *ctx,
                       size_t nout, void *const *outs, const size_t *sizes);
/* This process's share of [0, n): [*b, *e). */
void tser_dist_share(const iolens_cluster_dist *dist, size_t n, size_t *b, size_t *e);
/* Whether flag is set on any process of dist (every process calls it: a process that failed
 * alone must not leave the others waiting in their next gather). */
int tser_dist_any(const iolens_cluster_dist *dist, int flag);
/* Gathers an array of per-process parts given by byte ranges (counts, displs of dist->size). */
int tser_dist_gather(const iolens_cluster_dist *dist, void *buf, const size_t *counts, const size_t *displs);

/* ------------------------------------------------------------ k-means */
/* Dense k-means on a subsample with elbow: chooses k in [kmin,kmax] by
 * Kneedle over inertia on at most elbow_sample points, fits it on at most
 * fit_sample points. centroids is allocated (k x d). Returns k or < 0. */
typedef struct tser_km_cfg {
    unsigned kmin, kmax, kfixed;
    size_t elbow_sample, fit_sample;
    uint64_t seed;
    unsigned threads;
    const iolens_cluster_dist *dist; /* the final assignment of every point is shared (NULL: not) */
} tser_km_cfg;
int tser_kmeans_elbow(const double *X, size_t n, size_t d, const tser_km_cfg *cfg,
                      double **centroids, double *inertia_curve /* may be NULL, kmax+1 */);
/* Nearest centroid of each of n points; labels (n), optional dist2 (n). */
int tser_assign(const double *X, size_t n, size_t d, const double *C, size_t k, unsigned threads,
                int *labels, double *dist2);
/* The same, the points shared over the processes of dist (NULL: this one alone). */
int tser_assign_dist(const double *X, size_t n, size_t d, const double *C, size_t k, unsigned threads,
                     int *labels, double *dist2, const iolens_cluster_dist *dist);
/* m indices drawn without replacement from [0,n) (all if m == 0 or m >= n),
 * increasing; *got = how many. NULL when out of memory. */
size_t *tser_sample(size_t n, size_t m, uint64_t seed, size_t *got);

/* Categorical sequences: n sequences of len symbols (uint16 ids < nsym);
 * symbol s is embedded as E[s] (nsym x dim); a sequence's feature vector is
 * the concatenation of its symbols' embeddings. k-means in that space
 * without materialising the features. */
typedef struct tser_catdata {
    const uint16_t *seq; /* n x len */
    size_t n, len;
    const double *E;     /* nsym x dim */
    size_t nsym, dim;
} tser_catdata;
/* Fits with the elbow on subsamples (as tser_kmeans_elbow) and assigns all
 * n sequences: labels (n); centroids allocated (k x len x dim). Returns k. */
int tser_catkmeans_elbow(const tser_catdata *data, const tser_km_cfg *cfg, int *labels,
                         double **centroids);

/* Merges clusters smaller than min_size into the closest centroid (squared
 * Euclidean distance between centroid vectors of dimension d; group[c] >= 0
 * restricts merging to clusters of the same group). Centroids are weighted
 * means. Relabels to 0..k'-1 keeping order; returns k'. */
size_t tser_merge_small(int *labels, size_t n, double *centroids, size_t k, size_t d,
                        size_t min_size, int *group);

/* ---------------------------------------------------- resampled matrix */
/* n x m matrix of every series resampled to m points. */
int tser_resampled(const iolens_series_set *set, size_t m, double **out);

/* --------------------------------------------------------- result type */
struct iolens_clustering {
    int method;
    size_t n, k;
    size_t merged; /* clusters of fewer than min_cluster traces merged away (all stages) */
    int *labels;
    size_t *sizes;
    char **names;
    double *centroids; /* k x clen, mean of resampled members (MiB/s) */
    size_t clen;
    /* SAGE */
    size_t nsym, window;
    char **sym_names;
    double *sym_centroids; /* nsym x window */
    uint16_t **genomes;   /* into genome_block: series i's at an offset */
    uint16_t *genome_block;
    size_t *genome_len;
};
int tser_result_new(struct iolens_clustering **out, int method, size_t n);
/* Computes sizes, default names and centroids from labels. */
int tser_result_finish(struct iolens_clustering *c, const iolens_series_set *set, size_t clen);

int tser_cluster_sage(struct iolens_clustering *c, const iolens_series_set *set,
                      const iolens_cluster_opts *o, int two_stage);
int tser_cluster_baseline(struct iolens_clustering *c, const iolens_series_set *set,
                          const iolens_cluster_opts *o);

/* ------------------------------------------------- cross-correlation */
/* FFT length used by NCC for series of n points: 2^(1+floor(log2(2n-1))). */
size_t tser_ncc_len(size_t n);
/* Spectrum of x (n points zero-padded to nfft): re, im (nfft each). */
void tser_spectrum(const double *x, size_t n, size_t nfft, double *re, double *im);
/* max over lags of NCC(a, b) from the spectra of a and b and their norms;
 * *lag_index = first argmax in 0..2n-2 (lag = index - (n-1)). work: 2*nfft. */
double tser_ncc_max(const double *are, const double *aim, const double *bre, const double *bim,
                    size_t n, size_t nfft, double norm_a, double norm_b, double *work,
                    size_t *lag_index);
/* DTW with squared local cost; returns the accumulated cost (not its sqrt).
 * acc: scratch of na*nb doubles; path (optional, 2*(na+nb)) receives the
 * warping path as (i,j) pairs, *plen its length. radius < 0: no band. */
double tser_dtw_acc(const double *a, size_t na, const double *b, size_t nb, int radius, double *acc,
                    size_t *path, size_t *plen);

/* ------------------------------------------------------------- misc */
double tser_median(double *v, size_t n); /* sorts v */
void tser_progress(const iolens_cluster_opts *o, const char *stage, size_t done, size_t total);
/* FFT of size n (power of two), in place, re/im arrays; inverse if inv (unscaled). */
void tser_fft(double *re, double *im, size_t n, int inv);

#endif
