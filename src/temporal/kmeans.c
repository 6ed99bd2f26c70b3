/*
 * k-means as scikit-learn does it (k-means++ with 2 + floor(ln k) local
 * trials, Lloyd with tol = 1e-4 x mean feature variance, empty clusters take
 * the farthest points), written once over an abstract "space" so that the
 * same code clusters dense vectors and SAGE's symbol sequences (whose
 * feature vectors are never materialised), plus Kneedle and the elbow search.
 *
 * Determinism: the assignment step runs in parallel over disjoint ranges and
 * every reduction (centroid sums, inertia) is sequential, so results depend
 * on the seed only, never on the number of threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/error.h"

struct km_space {
    size_t n;    /* points */
    size_t cdim; /* length of a centroid vector */
    void *ctx;
    /* builds lookup tables for centroids C (k x cdim); may be NULL */
    int (*prepare)(void *ctx, const double *C, size_t k);
    /* squared distance from point i to centroid c of the prepared set */
    double (*dist)(void *ctx, const double *C, size_t i, size_t c);
    /* squared distance between points i and j */
    double (*pdist)(void *ctx, size_t i, size_t j);
    /* centroid vector of point i */
    void (*point_vec)(void *ctx, size_t i, double *out);
    /* means of the points idx[0..m) by label into C (non-empty clusters), sizes */
    void (*update)(void *ctx, const size_t *idx, size_t m, const int *labels, size_t k, double *C,
                   size_t *sizes);
    /* mean over features of the variance of points idx[0..m) */
    double (*mean_var)(void *ctx, const size_t *idx, size_t m);
};

/* ---------------------------------------------------------------- dense */
struct dense {
    const double *X;
    size_t d;
};

static double dense_d2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

static double dense_dist(void *ctx, const double *C, size_t i, size_t c)
{
    struct dense *x = ctx;
    return dense_d2(x->X + i * x->d, C + c * x->d, x->d);
}

static double dense_pdist(void *ctx, size_t i, size_t j)
{
    struct dense *x = ctx;
    return dense_d2(x->X + i * x->d, x->X + j * x->d, x->d);
}

static void dense_point(void *ctx, size_t i, double *out)
{
    struct dense *x = ctx;
    memcpy(out, x->X + i * x->d, x->d * sizeof *out);
}

static void dense_update(void *ctx, const size_t *idx, size_t m, const int *labels, size_t k,
                         double *C, size_t *sizes)
{
    struct dense *x = ctx;
    memset(sizes, 0, k * sizeof *sizes);
    for (size_t c = 0; c < k; c++)
        for (size_t j = 0; j < x->d; j++)
            C[c * x->d + j] = 0;
    for (size_t t = 0; t < m; t++) {
        const double *p = x->X + idx[t] * x->d;
        double *c = C + (size_t)labels[t] * x->d;
        for (size_t j = 0; j < x->d; j++)
            c[j] += p[j];
        sizes[labels[t]]++;
    }
    for (size_t c = 0; c < k; c++)
        if (sizes[c])
            for (size_t j = 0; j < x->d; j++)
                C[c * x->d + j] /= (double)sizes[c];
}

static double dense_mean_var(void *ctx, const size_t *idx, size_t m)
{
    struct dense *x = ctx;
    double tot = 0;
    for (size_t j = 0; j < x->d; j++) {
        double s = 0, s2 = 0;
        for (size_t t = 0; t < m; t++) {
            double v = x->X[idx[t] * x->d + j];
            s += v;
            s2 += v * v;
        }
        double mu = s / (double)m, var = s2 / (double)m - mu * mu;
        tot += var > 0 ? var : 0;
    }
    return x->d ? tot / (double)x->d : 0;
}

static struct km_space dense_space(struct dense *x, size_t n)
{
    return (struct km_space){n, x->d, x, NULL, dense_dist, dense_pdist, dense_point, dense_update,
                             dense_mean_var};
}

/* ---------------------------------------------------------- categorical */
struct cat {
    const tser_catdata *d;
    double *table; /* k x len x nsym */
    size_t tk;
    double *sd;    /* nsym x nsym squared distances between embeddings */
    size_t *cnt;   /* scratch for update: k x len x nsym */
    size_t cntk;
};

static int cat_prepare(void *ctx, const double *C, size_t k)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    if (k > x->tk) {
        double *t = realloc(x->table, k * d->len * d->nsym * sizeof *t);
        if (!t)
            return iol_err(IOLENS_ENOMEM, "out of memory (k-means tables)");
        x->table = t;
        x->tk = k;
    }
    for (size_t c = 0; c < k; c++)
        for (size_t p = 0; p < d->len; p++) {
            const double *cv = C + (c * d->len + p) * d->dim;
            double *row = x->table + (c * d->len + p) * d->nsym;
            for (size_t s = 0; s < d->nsym; s++)
                row[s] = dense_d2(d->E + s * d->dim, cv, d->dim);
        }
    return 0;
}

static double cat_dist(void *ctx, const double *C, size_t i, size_t c)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    const uint16_t *q = d->seq + i * d->len;
    const double *t = x->table + c * d->len * d->nsym;
    double s = 0;
    (void)C;
    for (size_t p = 0; p < d->len; p++, t += d->nsym)
        s += t[q[p]];
    return s;
}

static double cat_pdist(void *ctx, size_t i, size_t j)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    const uint16_t *a = d->seq + i * d->len, *b = d->seq + j * d->len;
    double s = 0;
    for (size_t p = 0; p < d->len; p++)
        s += x->sd[(size_t)a[p] * d->nsym + b[p]];
    return s;
}

static void cat_point(void *ctx, size_t i, double *out)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    for (size_t p = 0; p < d->len; p++)
        memcpy(out + p * d->dim, d->E + (size_t)d->seq[i * d->len + p] * d->dim, d->dim * sizeof *out);
}

static void cat_update(void *ctx, const size_t *idx, size_t m, const int *labels, size_t k,
                       double *C, size_t *sizes)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    size_t per = d->len * d->nsym;
    if (k > x->cntk) { /* allocation failure leaves the centroids unchanged */
        size_t *c = realloc(x->cnt, k * per * sizeof *c);
        if (!c)
            return;
        x->cnt = c;
        x->cntk = k;
    }
    memset(x->cnt, 0, k * per * sizeof *x->cnt);
    memset(sizes, 0, k * sizeof *sizes);
    for (size_t t = 0; t < m; t++) {
        const uint16_t *q = d->seq + idx[t] * d->len;
        size_t *row = x->cnt + (size_t)labels[t] * per;
        for (size_t p = 0; p < d->len; p++)
            row[p * d->nsym + q[p]]++;
        sizes[labels[t]]++;
    }
    for (size_t c = 0; c < k; c++) {
        if (!sizes[c])
            continue;
        for (size_t p = 0; p < d->len; p++) {
            double *cv = C + (c * d->len + p) * d->dim;
            memset(cv, 0, d->dim * sizeof *cv);
            const size_t *cr = x->cnt + c * per + p * d->nsym;
            for (size_t s = 0; s < d->nsym; s++) {
                if (!cr[s])
                    continue;
                double w = (double)cr[s] / (double)sizes[c];
                const double *e = d->E + s * d->dim;
                for (size_t j = 0; j < d->dim; j++)
                    cv[j] += w * e[j];
            }
        }
    }
}

static double cat_mean_var(void *ctx, const size_t *idx, size_t m)
{
    struct cat *x = ctx;
    const tser_catdata *d = x->d;
    size_t *cnt = calloc(d->nsym, sizeof *cnt);
    if (!cnt || !m) {
        free(cnt);
        return 0;
    }
    double tot = 0;
    for (size_t p = 0; p < d->len; p++) {
        memset(cnt, 0, d->nsym * sizeof *cnt);
        for (size_t t = 0; t < m; t++)
            cnt[d->seq[idx[t] * d->len + p]]++;
        for (size_t j = 0; j < d->dim; j++) {
            double s = 0, s2 = 0;
            for (size_t q = 0; q < d->nsym; q++) {
                double v = d->E[q * d->dim + j];
                s += (double)cnt[q] * v;
                s2 += (double)cnt[q] * v * v;
            }
            double mu = s / (double)m, var = s2 / (double)m - mu * mu;
            tot += var > 0 ? var : 0;
        }
    }
    free(cnt);
    size_t feats = d->len * d->dim;
    return tot / (double)(feats ? feats : 1);
}

/* ----------------------------------------------------------------- core */

struct assign_ctx {
    const struct km_space *sp;
    const double *C;
    size_t k;
    const size_t *idx; /* NULL: identity */
    int *labels;
    double *dist2;
};

/* Dense points: a tight loop without indirect calls (the hot path). */
static void assign_dense_range(struct assign_ctx *a, size_t b, size_t e)
{
    const struct dense *x = a->sp->ctx;
    size_t d = x->d;
    for (size_t t = b; t < e; t++) {
        const double *p = x->X + (a->idx ? a->idx[t] : t) * d;
        double best = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < a->k; c++) {
            const double *q = a->C + c * d;
            double s = 0;
            for (size_t j = 0; j < d && s < best; j++) {
                double u = p[j] - q[j];
                s += u * u;
            }
            if (s < best) {
                best = s;
                bl = (int)c;
            }
        }
        a->labels[t] = bl;
        if (a->dist2)
            a->dist2[t] = best;
    }
}

/* Symbol sequences: table lookups, stopping a centroid once it cannot win. */
static void assign_cat_range(struct assign_ctx *a, size_t b, size_t e)
{
    const struct cat *x = a->sp->ctx;
    const tser_catdata *d = x->d;
    size_t per = d->len * d->nsym;
    for (size_t t = b; t < e; t++) {
        const uint16_t *q = d->seq + (a->idx ? a->idx[t] : t) * d->len;
        double best = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < a->k; c++) {
            const double *tab = x->table + c * per;
            double s = 0;
            for (size_t p = 0; p < d->len && s < best; p++, tab += d->nsym)
                s += tab[q[p]];
            if (s < best) {
                best = s;
                bl = (int)c;
            }
        }
        a->labels[t] = bl;
        if (a->dist2)
            a->dist2[t] = best;
    }
}

static void assign_range(void *p, size_t b, size_t e, unsigned w)
{
    struct assign_ctx *a = p;
    (void)w;
    if (a->sp->dist == dense_dist) {
        assign_dense_range(a, b, e);
        return;
    }
    if (a->sp->dist == cat_dist) {
        assign_cat_range(a, b, e);
        return;
    }
    for (size_t t = b; t < e; t++) {
        size_t i = a->idx ? a->idx[t] : t;
        double best = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < a->k; c++) {
            double dd = a->sp->dist(a->sp->ctx, a->C, i, c);
            if (dd < best) {
                best = dd;
                bl = (int)c;
            }
        }
        a->labels[t] = bl;
        if (a->dist2)
            a->dist2[t] = best;
    }
}

/* Labels of points idx[0..m) (and their distances), the points shared over the processes of
 * dist (NULL: this one alone). */
static int km_assign(const struct km_space *sp, const double *C, size_t k, const size_t *idx, size_t m,
                     unsigned threads, int *labels, double *dist2, const iolens_cluster_dist *dist)
{
    if (sp->prepare) {
        int rc = sp->prepare(sp->ctx, C, k);
        if (rc)
            return rc;
    }
    struct assign_ctx a = {sp, C, k, idx, labels, dist2};
    void *outs[2] = {labels, dist2};
    size_t sizes[2] = {sizeof *labels, sizeof *dist2};
    return tser_parallel_dist(dist, threads, m, assign_range, &a, dist2 ? 2 : 1, outs, sizes);
}

/* Every point's label, the points shared over the processes of dist. */
static int km_assign_all(const struct km_space *sp, const double *C, size_t k, unsigned threads, int *labels,
                         double *dist2, const iolens_cluster_dist *dist)
{
    return km_assign(sp, C, k, NULL, sp->n, threads, labels, dist2, dist);
}

/* min(pdist(i, j), cap), stopping early once the partial sum reaches cap
 * (every term is non-negative, so the result is exact). */
static double pdist_capped(const struct km_space *sp, size_t i, size_t j, double cap)
{
    if (sp->pdist == dense_pdist) {
        const struct dense *x = sp->ctx;
        const double *a = x->X + i * x->d, *b = x->X + j * x->d;
        double s = 0;
        for (size_t q = 0; q < x->d && s < cap; q++)
            s += (a[q] - b[q]) * (a[q] - b[q]);
        return s < cap ? s : cap;
    }
    if (sp->pdist == cat_pdist) {
        const struct cat *x = sp->ctx;
        const tser_catdata *d = x->d;
        const uint16_t *a = d->seq + i * d->len, *b = d->seq + j * d->len;
        double s = 0;
        for (size_t p = 0; p < d->len && s < cap; p++)
            s += x->sd[(size_t)a[p] * d->nsym + b[p]];
        return s < cap ? s : cap;
    }
    double dd = sp->pdist(sp->ctx, i, j);
    return dd < cap ? dd : cap;
}

struct cand_ctx {
    const struct km_space *sp;
    const size_t *idx;
    size_t centre;        /* point index of the candidate */
    const double *closest; /* NULL: no cap */
    double *row;
};

static void cand_range(void *p, size_t b, size_t e, unsigned w)
{
    struct cand_ctx *c = p;
    (void)w;
    for (size_t t = b; t < e; t++)
        c->row[t] = pdist_capped(c->sp, c->centre, c->idx[t], c->closest ? c->closest[t] : INFINITY);
}

/* k-means++ (scikit-learn's greedy variant). Distances run in parallel,
 * sums sequentially (the result does not depend on the thread count). */
static int km_init(const struct km_space *sp, const size_t *idx, size_t m, size_t k, tser_rng *rng,
                   unsigned threads, double *C)
{
    int rc = 0;
    size_t trials = 2 + (size_t)floor(log((double)k));
    double *closest = malloc(m * sizeof *closest);
    double *cand = malloc(trials * m * sizeof *cand);
    double *cum = malloc(m * sizeof *cum);
    size_t *cid = malloc(trials * sizeof *cid);
    if (!closest || !cand || !cum || !cid) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (k-means++)");
        goto done;
    }
    size_t first = tser_rng_below(rng, m);
    sp->point_vec(sp->ctx, idx[first], C);
    double pot = 0;
    struct cand_ctx cc = {sp, idx, idx[first], NULL, closest};
    unsigned th = m >= 4096 ? threads : 1; /* thread start-up costs more on small samples */
    tser_parallel(th, m, cand_range, &cc);
    for (size_t t = 0; t < m; t++)
        pot += closest[t];
    for (size_t c = 1; c < k; c++) {
        double acc = 0;
        for (size_t t = 0; t < m; t++)
            cum[t] = (acc += closest[t]);
        for (size_t r = 0; r < trials; r++) {
            double target = tser_rng_unit(rng) * pot;
            size_t lo = 0, hi = m; /* first t with cum[t] > target (searchsorted right... left) */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cum[mid] < target)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            cid[r] = lo < m ? lo : m - 1;
        }
        size_t best = 0;
        double best_pot = INFINITY;
        for (size_t r = 0; r < trials; r++) {
            double p = 0;
            double *row = cand + r * m;
            struct cand_ctx cr = {sp, idx, idx[cid[r]], closest, row};
            tser_parallel(th, m, cand_range, &cr);
            for (size_t t = 0; t < m; t++)
                p += row[t];
            if (p < best_pot) {
                best_pot = p;
                best = r;
            }
        }
        memcpy(closest, cand + best * m, m * sizeof *closest);
        pot = best_pot;
        sp->point_vec(sp->ctx, idx[cid[best]], C + c * sp->cdim);
    }
done:
    free(closest);
    free(cand);
    free(cum);
    free(cid);
    return rc;
}

/* Hamerly's bounds for dense points: the same labels as plain Lloyd (first
 * argmin), skipping the points whose assignment cannot have changed. */
struct hamerly_ctx {
    const struct dense *x;
    const double *C;
    size_t k;
    const size_t *idx;
    int *labels;
    double *u, *l;     /* upper bound to the own centre, lower bound to the others */
    const double *s;   /* half the distance from each centre to its closest other */
    int full;          /* first pass: scan every centre */
};

static void hamerly_range(void *p, size_t b, size_t e, unsigned w)
{
    struct hamerly_ctx *h = p;
    size_t d = h->x->d;
    (void)w;
    for (size_t t = b; t < e; t++) {
        const double *pt = h->x->X + h->idx[t] * d;
        if (!h->full) {
            int a = h->labels[t];
            double m = h->s[a] > h->l[t] ? h->s[a] : h->l[t];
            if (h->u[t] <= m)
                continue;
            h->u[t] = sqrt(dense_d2(pt, h->C + (size_t)a * d, d));
            if (h->u[t] <= m)
                continue;
        }
        double best = INFINITY, second = INFINITY;
        int bl = 0;
        for (size_t c = 0; c < h->k; c++) {
            double dd = dense_d2(pt, h->C + c * d, d);
            if (dd < best) {
                second = best;
                best = dd;
                bl = (int)c;
            } else if (dd < second) {
                second = dd;
            }
        }
        h->labels[t] = bl;
        h->u[t] = sqrt(best);
        h->l[t] = sqrt(second);
    }
}

static void exact_d2(const struct km_space *sp, const double *C, const size_t *idx, size_t m, const int *labels,
                     double *d2)
{
    for (size_t t = 0; t < m; t++)
        d2[t] = sp->dist(sp->ctx, C, idx[t], (size_t)labels[t]);
}

/* Fits k centroids on points idx[0..m) (k <= m). labels (m) may be NULL. */
static int hamerly_all(struct hamerly_ctx *h, unsigned threads, size_t m, const iolens_cluster_dist *dist)
{
    void *outs[3] = {h->labels, h->u, h->l};
    size_t sizes[3] = {sizeof *h->labels, sizeof *h->u, sizeof *h->l};
    return tser_parallel_dist(dist, threads, m, hamerly_range, h, 3, outs, sizes);
}

/* The assignment steps are shared over the processes of dist (NULL: this one alone); every
 * other step is the same on each. */
static int km_fit(const struct km_space *sp, const size_t *idx, size_t m, size_t k, uint64_t seed,
                  unsigned threads, double *C, int *labels_out, double *inertia, const iolens_cluster_dist *dist)
{
    int rc = 0;
    int dense = sp->dist == dense_dist && k > 1;
    tser_rng rng;
    tser_rng_seed(&rng, seed);
    int *labels = malloc(m * sizeof *labels);
    int *prev = malloc(m * sizeof *prev);
    double *d2 = malloc(m * sizeof *d2);
    double *old = malloc(k * sp->cdim * sizeof *old);
    size_t *sizes = malloc(k * sizeof *sizes);
    double *u = dense ? malloc(m * sizeof *u) : NULL, *l = dense ? malloc(m * sizeof *l) : NULL;
    double *hs = dense ? malloc(2 * k * sizeof *hs) : NULL;
    if (!labels || !prev || !d2 || !old || !sizes || (dense && (!u || !l || !hs))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (k-means of %zu points)", m);
        goto done;
    }
    if ((rc = km_init(sp, idx, m, k, &rng, threads, C)))
        goto done;
    double tol = 1e-4 * sp->mean_var(sp->ctx, idx, m);
    struct hamerly_ctx h = {sp->ctx, C, k, idx, labels, u, l, hs, 1};
    int converged_assign = 0;
    for (int it = 0; it < 300; it++) {
        rc = dense ? hamerly_all(&h, threads, m, dist) : km_assign(sp, C, k, idx, m, threads, labels, d2, dist);
        if (rc)
            goto done;
        h.full = 0;
        if (it > 0 && !memcmp(labels, prev, m * sizeof *labels)) {
            converged_assign = 1;
            break; /* strict convergence */
        }
        memcpy(prev, labels, m * sizeof *labels);
        memcpy(old, C, k * sp->cdim * sizeof *old);
        sp->update(sp->ctx, idx, m, labels, k, C, sizes);
        /* empty clusters take the points farthest from their centres */
        int any_empty = 0;
        for (size_t c = 0; c < k; c++)
            any_empty |= sizes[c] == 0;
        if (any_empty && dense)
            exact_d2(sp, old, idx, m, labels, d2);
        for (size_t c = 0; c < k; c++) {
            if (sizes[c])
                continue;
            size_t far = 0;
            for (size_t t = 1; t < m; t++)
                if (d2[t] > d2[far])
                    far = t;
            sp->point_vec(sp->ctx, idx[far], C + c * sp->cdim);
            d2[far] = -1;
            h.full = 1; /* bounds are void */
        }
        double shift = 0;
        for (size_t j = 0; j < k * sp->cdim; j++) {
            double t = C[j] - old[j];
            shift += t * t;
        }
        if (dense && !h.full) { /* move the bounds with the centres */
            size_t d = sp->cdim;
            double maxd = 0;
            for (size_t c = 0; c < k; c++) {
                hs[k + c] = sqrt(dense_d2(C + c * d, old + c * d, d));
                maxd = hs[k + c] > maxd ? hs[k + c] : maxd;
            }
            for (size_t t = 0; t < m; t++) {
                u[t] += hs[k + (size_t)labels[t]];
                l[t] -= maxd;
            }
            for (size_t c = 0; c < k; c++) {
                double mn = INFINITY;
                for (size_t c2 = 0; c2 < k; c2++)
                    if (c2 != c) {
                        double dd = dense_d2(C + c * d, C + c2 * d, d);
                        mn = dd < mn ? dd : mn;
                    }
                hs[c] = 0.5 * sqrt(mn);
            }
        }
        if (shift <= tol) {
            rc = dense ? hamerly_all(&h, threads, m, dist) : km_assign(sp, C, k, idx, m, threads, labels, d2, dist);
            if (rc)
                goto done;
            converged_assign = 1;
            break;
        }
    }
    if (!converged_assign) { /* iteration limit: labels of the final centres */
        rc = dense ? hamerly_all(&h, threads, m, dist) : km_assign(sp, C, k, idx, m, threads, labels, d2, dist);
        if (rc)
            goto done;
    }
    if (dense || k == 1)
        exact_d2(sp, C, idx, m, labels, d2);
    double in = 0;
    for (size_t t = 0; t < m; t++)
        in += d2[t];
    *inertia = in;
    if (labels_out)
        memcpy(labels_out, labels, m * sizeof *labels);
done:
    free(labels);
    free(prev);
    free(d2);
    free(old);
    free(sizes);
    free(u);
    free(l);
    free(hs);
    return rc;
}

int iolens_kmeans(const double *X, size_t n, size_t d, size_t k, uint64_t seed, unsigned threads,
                  double *centroids, int *labels, double *inertia)
{
    if (!X || !n || !d || !k || k > n || !centroids)
        return iol_err(IOLENS_EINVAL, "k-means needs 1 <= k <= n points");
    size_t *idx = malloc(n * sizeof *idx);
    if (!idx)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    struct dense x = {X, d};
    struct km_space sp = dense_space(&x, n);
    double in = 0;
    int rc = km_fit(&sp, idx, n, k, seed, threads, centroids, labels, &in, NULL);
    if (inertia)
        *inertia = in;
    free(idx);
    return rc;
}

/* ---------------------------------------------------------------- Kneedle */

long iolens_kneedle(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return -1;
    double xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
    for (size_t i = 1; i < n; i++) {
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]);
        ymax = fmax(ymax, y[i]);
    }
    if (xmax == xmin)
        return -1;
    double *xn = malloc(n * sizeof *xn), *dd = malloc(n * sizeof *dd);
    long knee = -1;
    if (!xn || !dd)
        goto done;
    double yn_max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        xn[i] = (x[i] - xmin) / (xmax - xmin);
        dd[i] = ymax > ymin ? (y[i] - ymin) / (ymax - ymin) : 0;
        yn_max = fmax(yn_max, dd[i]);
    }
    for (size_t i = 0; i < n; i++) /* decreasing + convex: y <- max - y; difference curve */
        dd[i] = (yn_max - dd[i]) - xn[i];
    double mean_dx = (xn[n - 1] - xn[0]) / (double)(n - 1);
    double thr = 0;
    long thr_index = -1;
    for (size_t i = 0; i + 1 < n; i++) {
        double l = i ? dd[i - 1] : dd[i], r = dd[i + 1];
        int is_max = dd[i] >= l && dd[i] >= r;
        int is_min = dd[i] <= l && dd[i] <= r;
        if (thr_index < 0 && !is_max)
            continue; /* the scan starts at the first maximum */
        if (is_max) {
            thr = dd[i] - fabs(mean_dx);
            thr_index = (long)i;
        }
        if (is_min)
            thr = 0;
        if (dd[i + 1] < thr) {
            knee = thr_index;
            break;
        }
    }
done:
    free(xn);
    free(dd);
    return knee;
}

/* ------------------------------------------------------------ elbow search */

/* m indices sampled without replacement from [0,n) (all if m >= n), sorted. */
size_t *tser_sample(size_t n, size_t m, uint64_t seed, size_t *got)
{
    if (m >= n || m == 0)
        m = n;
    size_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    if (m == n) {
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
    } else { /* selection sampling (Knuth's algorithm S): sorted, O(n), no big scratch */
        tser_rng rng;
        tser_rng_seed(&rng, seed ^ 0x5a17e5a17e5ULL);
        size_t chosen = 0;
        for (size_t i = 0; i < n && chosen < m; i++)
            if (tser_rng_unit(&rng) * (double)(n - i) < (double)(m - chosen))
                idx[chosen++] = i;
        m = chosen;
    }
    *got = m;
    return idx;
}

/* Sample size bounded so that one pass costs about budget distance terms. */
static size_t work_cap(size_t sample, size_t per_point, size_t budget)
{
    size_t cap = budget / (per_point ? per_point : 1);
    if (cap < 1000)
        cap = 1000;
    return sample < cap ? sample : cap;
}

/* The inertia of a fit at each k of kmin..kmin+nk-1 on the sample ie (ys). The fits are
 * independent (each seeded by its k): the processes of cfg->dist share them, a process taking
 * every size-th k (the larger k cost more), and every process gets every inertia. */
static int elbow_fits(const struct km_space *sp, const size_t *ie, size_t ne, size_t kmin, size_t nk,
                      const tser_km_cfg *cfg, double *C, double *ys)
{
    const iolens_cluster_dist *d = cfg->dist;
    if (!d || d->size <= 1) {
        int rc = 0;
        for (size_t t = 0; t < nk && !rc; t++)
            rc = km_fit(sp, ie, ne, kmin + t, cfg->seed + kmin + t, cfg->threads, C, NULL, &ys[t], NULL);
        return rc;
    }
    /* slot order: rank 0's k's, then rank 1's, ...: each rank's slots are contiguous */
    size_t p = (size_t)d->size, r = (size_t)d->rank;
    size_t *cnt = malloc(2 * p * sizeof *cnt), *at = malloc(nk * sizeof *at);
    double *slot = malloc(nk * sizeof *slot);
    int rc = 0;
    if (!cnt || !at || !slot) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (elbow search)");
        goto done;
    }
    size_t q = 0;
    for (size_t j = 0; j < p; j++) {
        cnt[p + j] = q * sizeof *slot;
        for (size_t t = j; t < nk; t += p)
            at[t] = q++;
        cnt[j] = q * sizeof *slot - cnt[p + j];
    }
    for (size_t t = r; t < nk && !rc; t += p)
        rc = km_fit(sp, ie, ne, kmin + t, cfg->seed + kmin + t, cfg->threads, C, NULL, &slot[at[t]], NULL);
    int grc = tser_dist_gather(d, slot, cnt, cnt + p); /* every rank takes part, failed or not */
    if (!rc)
        rc = grc;
    for (size_t t = 0; t < nk && !rc; t++)
        ys[t] = slot[at[t]];
done:
    free(cnt);
    free(at);
    free(slot);
    return rc;
}

/* Chooses k, fits it on the fit sample, assigns every point. C allocated. */
static int km_elbow(const struct km_space *sp, size_t per_point, const tser_km_cfg *cfg, int *labels,
                    double **Cout, double *curve)
{
    int rc = 0;
    size_t ne = 0, nf = 0, k;
    size_t *ie = NULL, *ifit = NULL;
    double *C = NULL;
    *Cout = NULL;
    if (sp->n == 0)
        return iol_err(IOLENS_EINVAL, "nothing to cluster");
    if (cfg->kfixed) {
        k = cfg->kfixed < sp->n ? cfg->kfixed : sp->n;
    } else {
        ie = tser_sample(sp->n, work_cap(cfg->elbow_sample, per_point, 600000), cfg->seed + 1, &ne);
        if (!ie) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        size_t kmin = cfg->kmin ? cfg->kmin : 1, kmax = cfg->kmax;
        if (kmax > ne)
            kmax = ne;
        if (kmax < kmin) {
            k = kmax ? kmax : 1;
        } else if (kmax - kmin + 1 < 3) {
            k = kmin; /* Kneedle needs three points */
        } else {
            size_t nk = kmax - kmin + 1;
            double *xs = malloc(nk * sizeof *xs), *ys = malloc(nk * sizeof *ys);
            C = malloc(kmax * sp->cdim * sizeof *C);
            if (!xs || !ys || !C) {
                free(xs);
                free(ys);
                rc = iol_err(IOLENS_ENOMEM, "out of memory (elbow search)");
                goto done;
            }
            for (size_t kk = kmin; kk <= kmax; kk++)
                xs[kk - kmin] = (double)kk;
            rc = elbow_fits(sp, ie, ne, kmin, nk, cfg, C, ys);
            for (size_t kk = kmin; kk <= kmax && !rc && curve; kk++)
                curve[kk] = ys[kk - kmin];
            /* The optimal inertia never grows with k; a fit that came out
             * worse than one with fewer clusters is a local optimum of
             * k-means, and a bump it leaves in the curve reads as a knee
             * (seen: 0.79 at k = 3, 0.87 at k = 4 on 5,000 genomes, and a
             * knee at 3 where the data has 10 classes). Kneedle gets the
             * best inertia found with at most k clusters. */
            for (size_t t = 1; t < nk && !rc; t++)
                if (ys[t] > ys[t - 1])
                    ys[t] = ys[t - 1];
            long knee = rc ? -1 : iolens_kneedle(xs, ys, nk);
            if (knee < 0) { /* no knee: the point farthest below the chord */
                knee = 0;
                double best = -INFINITY;
                for (size_t t = 0; t < nk; t++) {
                    double chord = ys[0] + (ys[nk - 1] - ys[0]) * (double)t / (double)(nk - 1);
                    if (chord - ys[t] > best) {
                        best = chord - ys[t];
                        knee = (long)t;
                    }
                }
            }
            k = kmin + (size_t)knee;
            free(xs);
            free(ys);
            free(C);
            C = NULL;
            if (rc)
                goto done;
        }
    }
    ifit = tser_sample(sp->n, work_cap(cfg->fit_sample, per_point, 30000000), cfg->seed + 2, &nf);
    C = malloc(k * sp->cdim * sizeof *C);
    if (!ifit || !C) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    if (k > nf)
        k = nf;
    double inertia;
    if ((rc = km_fit(sp, ifit, nf, k, cfg->seed + 1000, cfg->threads, C, NULL, &inertia, cfg->dist)))
        goto done;
    if ((rc = km_assign_all(sp, C, k, cfg->threads, labels, NULL, cfg->dist)))
        goto done;
    *Cout = C;
    C = NULL;
    rc = (int)k;
done:
    free(ie);
    free(ifit);
    free(C);
    return rc;
}

int tser_kmeans_elbow(const double *X, size_t n, size_t d, const tser_km_cfg *cfg, double **centroids,
                      double *inertia_curve)
{
    /* labels are recomputed by the caller with tser_assign when needed */
    int *labels = malloc((n ? n : 1) * sizeof *labels);
    if (!labels)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    struct dense x = {X, d};
    struct km_space sp = dense_space(&x, n);
    int rc = km_elbow(&sp, d, cfg, labels, centroids, inertia_curve);
    free(labels);
    return rc;
}

int tser_assign(const double *X, size_t n, size_t d, const double *C, size_t k, unsigned threads,
                int *labels, double *dist2)
{
    return tser_assign_dist(X, n, d, C, k, threads, labels, dist2, NULL);
}

int tser_assign_dist(const double *X, size_t n, size_t d, const double *C, size_t k, unsigned threads,
                     int *labels, double *dist2, const iolens_cluster_dist *dist)
{
    struct dense x = {X, d};
    struct km_space sp = dense_space(&x, n);
    return km_assign_all(&sp, C, k, threads, labels, dist2, dist);
}

int tser_catkmeans_elbow(const tser_catdata *data, const tser_km_cfg *cfg, int *labels, double **centroids)
{
    struct cat x = {data, NULL, 0, NULL, NULL, 0};
    int rc;
    x.sd = malloc(data->nsym * data->nsym * sizeof *x.sd);
    if (!x.sd) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t a = 0; a < data->nsym; a++)
        for (size_t b = 0; b < data->nsym; b++)
            x.sd[a * data->nsym + b] = dense_d2(data->E + a * data->dim, data->E + b * data->dim, data->dim);
    struct km_space sp = {data->n, data->len * data->dim, &x, cat_prepare, cat_dist, cat_pdist,
                          cat_point, cat_update, cat_mean_var};
    rc = km_elbow(&sp, data->len, cfg, labels, centroids, NULL);
done:
    free(x.sd);
    free(x.table);
    free(x.cnt);
    return rc;
}

/* ------------------------------------------------------- small clusters */

size_t tser_merge_small(int *labels, size_t n, double *C, size_t k, size_t d, size_t min_size, int *group)
{
    size_t *size = calloc(k ? k : 1, sizeof *size);
    int *map = malloc((k ? k : 1) * sizeof *map);
    if (!size || !map) { /* cannot merge: leave as is */
        free(size);
        free(map);
        return k;
    }
    for (size_t i = 0; i < n; i++)
        size[labels[i]]++;
    for (size_t c = 0; c < k; c++)
        map[c] = (int)c;
    for (;;) {
        /* the smallest non-empty cluster under the threshold */
        size_t small = k;
        for (size_t c = 0; c < k; c++)
            if (size[c] && size[c] < min_size && (small == k || size[c] < size[small]))
                small = c;
        if (small == k)
            break;
        size_t best = k;
        double bd = INFINITY;
        for (size_t c = 0; c < k; c++) {
            if (c == small || !size[c] || (group && group[c] != group[small]))
                continue;
            double dd = dense_d2(C + c * d, C + small * d, d);
            if (dd < bd) {
                bd = dd;
                best = c;
            }
        }
        if (best == k) { /* alone in its group: it stays */
            size[small] += (size_t)1 << 40; /* mark as settled */
            continue;
        }
        double ws = (double)size[small], wb = (double)size[best];
        for (size_t j = 0; j < d; j++)
            C[best * d + j] = (C[best * d + j] * wb + C[small * d + j] * ws) / (wb + ws);
        size[best] += size[small];
        size[small] = 0;
        map[small] = (int)best;
    }
    /* resolve chains of merges and renumber 0..k'-1 */
    int *newid = malloc(k * sizeof *newid);
    size_t kk = 0;
    if (!newid) {
        free(size);
        free(map);
        return k;
    }
    for (size_t c = 0; c < k; c++)
        newid[c] = size[c] ? (int)kk++ : -1;
    for (size_t i = 0; i < n; i++) {
        int c = labels[i];
        while (map[c] != c)
            c = map[c];
        labels[i] = newid[c];
    }
    for (size_t c = 0; c < k; c++)
        if (newid[c] >= 0 && (size_t)newid[c] != c)
            memmove(C + (size_t)newid[c] * d, C + c * d, d * sizeof *C);
    if (group)
        for (size_t c = 0; c < k; c++)
            if (newid[c] >= 0)
                group[newid[c]] = group[c];
    free(newid);
    free(size);
    free(map);
    return kk;
}
