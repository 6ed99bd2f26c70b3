/*
 * Baselines of the SAGE paper, §V-A, on every trace resampled to L points by
 * linear interpolation: k-means (Euclidean, elbow 2..50 with Kneedle),
 * K-shape (tslearn semantics, see ../shared/design/reference/algorithms.md),
 * k-means with DTW and DBA centroids, and random. The seed's Table I runs
 * the elbow for SAGE, SAGE-2, k-means (and Tsfresh) only, so K-shape, DTW
 * and random use the k of the k-means elbow unless a k is given. Every
 * method merges clusters of fewer than min_cluster traces into the closest
 * centroid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/error.h"

static size_t kmeans_k(const double *X, size_t n, size_t L, const iolens_cluster_opts *o, double **C,
                       int *rc)
{
    tser_km_cfg cfg = {o->kmin, o->kmax, o->k, o->elbow_sample, o->fit_sample, o->seed, o->threads, o->dist};
    int r = tser_kmeans_elbow(X, n, L, &cfg, C, NULL);
    if (r < 0) {
        *rc = r;
        return 0;
    }
    return (size_t)r;
}

/* Means of the rows of X by label (k x d). */
static void means(const double *X, size_t n, size_t d, const int *labels, size_t k, double *C)
{
    size_t *cnt = calloc(k, sizeof *cnt);
    memset(C, 0, k * d * sizeof *C);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++)
            C[(size_t)labels[i] * d + j] += X[i * d + j];
        if (cnt)
            cnt[labels[i]]++;
    }
    for (size_t c = 0; c < k && cnt; c++)
        if (cnt[c])
            for (size_t j = 0; j < d; j++)
                C[c * d + j] /= (double)cnt[c];
    free(cnt);
}

/* ------------------------------------------------------------- K-shape */

struct kshape {
    const double *Z; /* n x L, z-normalised */
    size_t n, L, nfft, k;
    double *C;       /* k x L */
    double *Cre, *Cim, *Cnorm;
    int *labels;
    double *dist;
    int failed;
};

static void zscore(const double *x, size_t L, double *out)
{
    double mu = 0, var = 0;
    for (size_t j = 0; j < L; j++)
        mu += x[j];
    mu /= (double)L;
    for (size_t j = 0; j < L; j++)
        var += (x[j] - mu) * (x[j] - mu);
    double sd = sqrt(var / (double)L);
    for (size_t j = 0; j < L; j++)
        out[j] = sd > 0 ? (x[j] - mu) / sd : 0;
}

static double vnorm(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

static void ks_assign_range(void *p, size_t b, size_t e, unsigned w)
{
    struct kshape *ks = p;
    size_t nf = ks->nfft;
    double *buf = malloc(4 * nf * sizeof *buf);
    (void)w;
    if (!buf) {
        ks->failed = 1;
        return;
    }
    for (size_t i = b; i < e; i++) {
        const double *x = ks->Z + i * ks->L;
        tser_spectrum(x, ks->L, nf, buf, buf + nf);
        double nx = vnorm(x, ks->L), best = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < ks->k; c++) {
            double d = 1.0 - tser_ncc_max(buf, buf + nf, ks->Cre + c * nf, ks->Cim + c * nf, ks->L, nf, nx,
                                          ks->Cnorm[c], buf + 2 * nf, NULL);
            if (d < best) {
                best = d;
                bl = (int)c;
            }
        }
        ks->labels[i] = bl;
        ks->dist[i] = best;
    }
    free(buf);
}

/* Assigns by SBD (the series shared over the processes of dist); returns the inertia (mean of
 * D^2), -1 if a cluster is empty. */
static double ks_assign(struct kshape *ks, unsigned threads, const iolens_cluster_dist *dist)
{
    for (size_t c = 0; c < ks->k; c++) {
        tser_spectrum(ks->C + c * ks->L, ks->L, ks->nfft, ks->Cre + c * ks->nfft, ks->Cim + c * ks->nfft);
        ks->Cnorm[c] = vnorm(ks->C + c * ks->L, ks->L);
    }
    void *outs[2] = {ks->labels, ks->dist};
    size_t sizes[2] = {sizeof *ks->labels, sizeof *ks->dist};
    if (tser_parallel_dist(dist, threads, ks->n, ks_assign_range, ks, 2, outs, sizes) < 0)
        ks->failed = 1;
    ks->failed = tser_dist_any(dist, ks->failed);
    size_t *cnt = calloc(ks->k, sizeof *cnt);
    if (!cnt) {
        ks->failed = 1;
        return -1;
    }
    double in = 0;
    for (size_t i = 0; i < ks->n; i++) {
        cnt[ks->labels[i]]++;
        in += ks->dist[i] * ks->dist[i];
    }
    int empty = 0;
    for (size_t c = 0; c < ks->k; c++)
        empty |= cnt[c] == 0;
    free(cnt);
    return empty ? -1 : in / (double)ks->n;
}

/* Shape extraction for cluster c: align members to the centroid, top
 * eigenvector of Q S Q by power iteration, sign, z-normalise. */
static int ks_extract(struct kshape *ks, size_t c, double *Y, double *v, double *u)
{
    size_t L = ks->L, nf = ks->nfft, m = 0;
    double *buf = malloc(6 * nf * sizeof *buf);
    if (!buf)
        return iol_err(IOLENS_ENOMEM, "out of memory (K-shape)");
    const double *cen = ks->C + c * L;
    double ncen = vnorm(cen, L);
    tser_spectrum(cen, L, nf, buf + 4 * nf, buf + 5 * nf);
    for (size_t i = 0; i < ks->n; i++) {
        if (ks->labels[i] != (int)c)
            continue;
        const double *x = ks->Z + i * L;
        double *y = Y + m * L;
        if (ncen > 0) {
            size_t idx;
            tser_spectrum(x, L, nf, buf, buf + nf);
            tser_ncc_max(buf + 4 * nf, buf + 5 * nf, buf, buf + nf, L, nf, ncen, vnorm(x, L), buf + 2 * nf, &idx);
            long sh = (long)idx - (long)(L - 1);
            memset(y, 0, L * sizeof *y);
            if (sh >= 0)
                memcpy(y + sh, x, (L - (size_t)sh) * sizeof *y);
            else
                memcpy(y, x - sh, (L - (size_t)(-sh)) * sizeof *y);
        } else {
            memcpy(y, x, L * sizeof *y);
        }
        m++;
    }
    free(buf);
    if (m == 0)
        return 0;
    /* power iteration on M = Q Y^T Y Q, start from the centred old centroid */
    double *w = malloc(m * sizeof *w);
    if (!w)
        return iol_err(IOLENS_ENOMEM, "out of memory (K-shape)");
    for (size_t j = 0; j < L; j++)
        v[j] = cen[j] + 1e-3 * (double)((j * 2654435761u) % 1000) / 1000.0;
    for (int it = 0; it < 200; it++) {
        double mu = 0;
        for (size_t j = 0; j < L; j++)
            mu += v[j];
        mu /= (double)L;
        for (size_t j = 0; j < L; j++)
            u[j] = v[j] - mu; /* Q v */
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            for (size_t j = 0; j < L; j++)
                s += Y[i * L + j] * u[j];
            w[i] = s;
        }
        memset(u, 0, L * sizeof *u);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < L; j++)
                u[j] += Y[i * L + j] * w[i];
        mu = 0;
        for (size_t j = 0; j < L; j++)
            mu += u[j];
        mu /= (double)L;
        double nu = 0;
        for (size_t j = 0; j < L; j++) {
            u[j] -= mu;
            nu += u[j] * u[j];
        }
        nu = sqrt(nu);
        if (nu < 1e-300)
            break;
        double diff = 0;
        for (size_t j = 0; j < L; j++) {
            double t = u[j] / nu;
            diff += (t - v[j]) * (t - v[j]);
            v[j] = t;
        }
        if (diff < 1e-20)
            break;
    }
    free(w);
    double dp = 0, dm = 0; /* sign: the one closer to the aligned members */
    for (size_t i = 0; i < m; i++) {
        double sp = 0, sm = 0;
        for (size_t j = 0; j < L; j++) {
            sp += (Y[i * L + j] - v[j]) * (Y[i * L + j] - v[j]);
            sm += (Y[i * L + j] + v[j]) * (Y[i * L + j] + v[j]);
        }
        dp += sqrt(sp);
        dm += sqrt(sm);
    }
    if (dm < dp)
        for (size_t j = 0; j < L; j++)
            v[j] = -v[j];
    zscore(v, L, ks->C + c * L);
    return 0;
}

static int kshape_fit(struct kshape *ks, const iolens_cluster_opts *o, double *inertia)
{
    int rc = 0;
    size_t L = ks->L;
    tser_rng rng;
    tser_rng_seed(&rng, o->seed ^ 0x6b73);
    double *old = malloc(ks->k * L * sizeof *old), *Y = malloc(ks->n * L * sizeof *Y);
    double *v = malloc(L * sizeof *v), *u = malloc(L * sizeof *u);
    size_t *perm = malloc(ks->n * sizeof *perm);
    if (!old || !Y || !v || !u || !perm) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (K-shape)");
        goto done;
    }
    double in = -1;
    for (int attempt = 0; attempt < 10 && in < 0; attempt++) {
        for (size_t i = 0; i < ks->n; i++) /* k distinct random series */
            perm[i] = i;
        for (size_t c = 0; c < ks->k; c++) {
            size_t j = c + tser_rng_below(&rng, ks->n - c), t = perm[c];
            perm[c] = perm[j];
            perm[j] = t;
            memcpy(ks->C + c * L, ks->Z + perm[c] * L, L * sizeof *v);
        }
        in = ks_assign(ks, o->threads, o->dist);
        for (int it = 0; it < 100 && in >= 0 && !ks->failed; it++) {
            memcpy(old, ks->C, ks->k * L * sizeof *old);
            for (size_t c = 0; c < ks->k; c++)
                if ((rc = ks_extract(ks, c, Y, v, u)))
                    goto done;
            double nin = ks_assign(ks, o->threads, o->dist);
            if (nin < 0 || fabs(in - nin) < 1e-6 || nin > in) {
                memcpy(ks->C, old, ks->k * L * sizeof *old);
                nin = ks_assign(ks, o->threads, o->dist);
                in = nin;
                break;
            }
            in = nin;
            tser_progress(o, "kshape", (size_t)it + 1, 100);
        }
    }
    if (ks->failed)
        rc = iol_err(IOLENS_ENOMEM, "out of memory (K-shape)");
    else if (in < 0)
        rc = iol_err(IOLENS_EINVAL, "K-shape: an empty cluster in 10 attempts with k = %zu", ks->k);
    *inertia = in;
done:
    free(old);
    free(Y);
    free(v);
    free(u);
    free(perm);
    return rc;
}

/* --------------------------------------------------------- DTW + DBA */

struct dtwk {
    const double *X;
    size_t n, L, k;
    const double *C;
    int *labels;
    double *dist;
    int failed;
};

static void dtw_assign_range(void *p, size_t b, size_t e, unsigned w)
{
    struct dtwk *x = p;
    double *acc = malloc(x->L * x->L * sizeof *acc);
    (void)w;
    if (!acc) {
        x->failed = 1;
        return;
    }
    for (size_t i = b; i < e; i++) {
        double best = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < x->k; c++) {
            double d = tser_dtw_acc(x->X + i * x->L, x->L, x->C + c * x->L, x->L, -1, acc, NULL, NULL);
            if (d < best) {
                best = d;
                bl = (int)c;
            }
        }
        x->labels[i] = bl;
        x->dist[i] = best;
    }
    free(acc);
}

/* DBA of the members of cluster c, starting from C[c]. */
static int dba(const double *X, size_t n, size_t L, const int *labels, int c, double *bary)
{
    double *acc = malloc(L * L * sizeof *acc), *sum = malloc(L * sizeof *sum), *cnt = malloc(L * sizeof *cnt);
    size_t *path = malloc(4 * L * sizeof *path);
    int rc = 0;
    if (!acc || !sum || !cnt || !path) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (DBA)");
        goto done;
    }
    double prev = INFINITY;
    for (int it = 0; it < 30; it++) {
        memset(sum, 0, L * sizeof *sum);
        memset(cnt, 0, L * sizeof *cnt);
        double cost = 0;
        for (size_t i = 0; i < n; i++) {
            if (labels[i] != c)
                continue;
            size_t plen;
            cost += tser_dtw_acc(bary, L, X + i * L, L, -1, acc, path, &plen);
            for (size_t q = 0; q < plen; q++) {
                sum[path[2 * q]] += X[i * L + path[2 * q + 1]];
                cnt[path[2 * q]] += 1;
            }
        }
        for (size_t j = 0; j < L; j++)
            if (cnt[j] > 0)
                bary[j] = sum[j] / cnt[j];
        if (prev - cost < 1e-5)
            break;
        prev = cost;
    }
done:
    free(acc);
    free(sum);
    free(cnt);
    free(path);
    return rc;
}

/* k-means++: each series' DTW to the newest centre c, kept if nearer than the ones before. */
struct dtw_near {
    const struct dtwk *x;
    const double *c;
    double *closest;
    int first, failed;
};

static void dtw_near_range(void *p, size_t b, size_t e, unsigned w)
{
    struct dtw_near *dn = p;
    size_t L = dn->x->L;
    double *acc = malloc(L * L * sizeof *acc);
    (void)w;
    if (!acc) {
        dn->failed = 1;
        return;
    }
    for (size_t i = b; i < e; i++) {
        double d = tser_dtw_acc(dn->x->X + i * L, L, dn->c, L, -1, acc, NULL, NULL);
        dn->closest[i] = dn->first || d < dn->closest[i] ? d : dn->closest[i];
    }
    free(acc);
}

static int dtw_fit(struct dtwk *x, double *C, const iolens_cluster_opts *o)
{
    size_t L = x->L, k = x->k, n = x->n;
    tser_rng rng;
    tser_rng_seed(&rng, o->seed ^ 0xd7);
    double *closest = malloc(n * sizeof *closest), *acc = malloc(L * L * sizeof *acc);
    int rc = 0;
    if (!closest || !acc) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (DTW k-means)");
        goto done;
    }
    /* k-means++ with DTW (one trial per centre) */
    size_t first = tser_rng_below(&rng, n);
    memcpy(C, x->X + first * L, L * sizeof *C);
    for (size_t c = 1; c < k; c++) {
        struct dtw_near dn = {x, C + (c - 1) * L, closest, c == 1, 0};
        void *outs[1] = {closest};
        size_t sizes[1] = {sizeof *closest};
        if (tser_parallel_dist(o->dist, o->threads, n, dtw_near_range, &dn, 1, outs, sizes) < 0)
            dn.failed = 1;
        if (tser_dist_any(o->dist, dn.failed)) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory (DTW k-means)");
            goto done;
        }
        double pot = 0;
        for (size_t i = 0; i < n; i++)
            pot += closest[i];
        double target = tser_rng_unit(&rng) * pot, cum = 0;
        size_t pick = n - 1;
        for (size_t i = 0; i < n; i++)
            if ((cum += closest[i]) > target) {
                pick = i;
                break;
            }
        memcpy(C + c * L, x->X + pick * L, L * sizeof *C);
    }
    x->C = C;
    double prev = INFINITY;
    for (int it = 0; it < 50; it++) {
        void *outs[2] = {x->labels, x->dist};
        size_t sizes[2] = {sizeof *x->labels, sizeof *x->dist};
        if (tser_parallel_dist(o->dist, o->threads, n, dtw_assign_range, x, 2, outs, sizes) < 0)
            x->failed = 1;
        if (tser_dist_any(o->dist, x->failed)) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory (DTW k-means)");
            goto done;
        }
        double in = 0;
        for (size_t i = 0; i < n; i++)
            in += x->dist[i];
        if (fabs(prev - in) < 1e-6)
            break;
        prev = in;
        for (size_t c = 0; c < k; c++) {
            size_t m = 0, far = 0;
            for (size_t i = 0; i < n; i++) {
                m += x->labels[i] == (int)c;
                if (x->dist[i] > x->dist[far])
                    far = i;
            }
            if (!m) { /* empty cluster: the farthest series */
                memcpy(C + c * L, x->X + far * L, L * sizeof *C);
                x->dist[far] = 0;
                continue;
            }
            if ((rc = dba(x->X, n, L, x->labels, (int)c, C + c * L)))
                goto done;
        }
        tser_progress(o, "dtw", (size_t)it + 1, 50);
    }
done:
    free(closest);
    free(acc);
    return rc;
}

/* ------------------------------------------------------------- driver */

int tser_cluster_baseline(struct iolens_clustering *res, const iolens_series_set *set,
                          const iolens_cluster_opts *o)
{
    int rc = 0;
    size_t n = set->n, L = o->resample_len, k;
    double *X = NULL, *C = NULL, *Z = NULL;
    struct kshape ks = {0};
    if ((rc = tser_resampled(set, L, &X)))
        return rc;
    tser_progress(o, "k-means elbow", 0, 1);
    if (o->method == IOLENS_CLUSTER_KMEANS || !o->k) {
        k = kmeans_k(X, n, L, o, &C, &rc);
        if (rc)
            goto done;
    } else {
        k = o->k < n ? o->k : n;
        if (!(C = malloc(k * L * sizeof *C))) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
    }
    switch (o->method) {
    case IOLENS_CLUSTER_KMEANS:
        rc = tser_assign_dist(X, n, L, C, k, o->threads, res->labels, NULL, o->dist);
        break;
    case IOLENS_CLUSTER_RANDOM: {
        tser_rng rng;
        tser_rng_seed(&rng, o->seed ^ 0x7a4d);
        for (size_t i = 0; i < n; i++)
            res->labels[i] = (int)tser_rng_below(&rng, k);
        means(X, n, L, res->labels, k, C);
        break;
    }
    case IOLENS_CLUSTER_KSHAPE: {
        Z = malloc(n * L * sizeof *Z);
        ks.nfft = tser_ncc_len(L);
        ks.Cre = malloc(k * ks.nfft * sizeof *ks.Cre);
        ks.Cim = malloc(k * ks.nfft * sizeof *ks.Cim);
        ks.Cnorm = malloc(k * sizeof *ks.Cnorm);
        ks.dist = malloc(n * sizeof *ks.dist);
        if (!Z || !ks.Cre || !ks.Cim || !ks.Cnorm || !ks.dist) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory (K-shape)");
            break;
        }
        for (size_t i = 0; i < n; i++)
            zscore(X + i * L, L, Z + i * L);
        ks.Z = Z;
        ks.n = n;
        ks.L = L;
        ks.k = k;
        ks.C = C;
        ks.labels = res->labels;
        double in;
        rc = kshape_fit(&ks, o, &in);
        break;
    }
    case IOLENS_CLUSTER_DTW: {
        struct dtwk x = {X, n, L, k, NULL, res->labels, NULL, 0};
        if (!(x.dist = malloc(n * sizeof *x.dist))) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            break;
        }
        rc = dtw_fit(&x, C, o);
        free(x.dist);
        break;
    }
    default:
        rc = iol_err(IOLENS_EINVAL, "unknown method %d", o->method);
    }
    if (rc)
        goto done;
    res->k = tser_merge_small(res->labels, n, C, k, L, o->min_cluster, NULL);
    res->merged = k - res->k;
done:
    free(X);
    free(C);
    free(Z);
    free(ks.Cre);
    free(ks.Cim);
    free(ks.Cnorm);
    free(ks.dist);
    return rc;
}
