/*
 * Clustering-quality metrics of the SAGE paper, §VI-A: PLD (eq. 1), SBD, DDTW,
 * cluster balance (normalised entropy), aggregate score; and the adjusted
 * Rand index for data with known classes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/error.h"

/* ------------------------------------------------------------------- NCC */

size_t tser_ncc_len(size_t n)
{
    size_t m = 2 * n - 1, p = 1;
    while (p * 2 <= m) /* p = 2^floor(log2(2n-1)) */
        p *= 2;
    return p * 2;
}

void tser_spectrum(const double *x, size_t n, size_t nfft, double *re, double *im)
{
    memset(re, 0, nfft * sizeof *re);
    memset(im, 0, nfft * sizeof *im);
    memcpy(re, x, n * sizeof *re);
    tser_fft(re, im, nfft, 0);
}

double tser_ncc_max(const double *are, const double *aim, const double *bre, const double *bim, size_t n,
                    size_t nfft, double norm_a, double norm_b, double *work, size_t *lag_index)
{
    double den = norm_a * norm_b;
    if (den < 1e-9) { /* tslearn: all zeros */
        if (lag_index)
            *lag_index = 0;
        return 0;
    }
    double *re = work, *im = work + nfft;
    for (size_t i = 0; i < nfft; i++) { /* A * conj(B) */
        re[i] = are[i] * bre[i] + aim[i] * bim[i];
        im[i] = aim[i] * bre[i] - are[i] * bim[i];
    }
    tser_fft(re, im, nfft, 1);
    double best = -INFINITY;
    size_t bi = 0;
    /* order of lags -(n-1)..(n-1): cc[nfft-n+1 .. nfft-1], cc[0 .. n-1] */
    for (size_t j = 0; j < 2 * n - 1; j++) {
        size_t src = j < n - 1 ? nfft - (n - 1) + j : j - (n - 1);
        double v = re[src] / (double)nfft / den;
        if (v > best) {
            best = v;
            bi = j;
        }
    }
    if (lag_index)
        *lag_index = bi;
    return best;
}

static double norm2(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

double iolens_sbd(const double *a, const double *b, size_t n)
{
    if (n == 0 || n > ((size_t)1 << 20))
        return NAN;
    size_t nfft = tser_ncc_len(n);
    double *buf = malloc(6 * nfft * sizeof *buf);
    if (!buf)
        return NAN;
    tser_spectrum(a, n, nfft, buf, buf + nfft);
    tser_spectrum(b, n, nfft, buf + 2 * nfft, buf + 3 * nfft);
    double m = tser_ncc_max(buf, buf + nfft, buf + 2 * nfft, buf + 3 * nfft, n, nfft, norm2(a, n),
                            norm2(b, n), buf + 4 * nfft, NULL);
    free(buf);
    return 1.0 - m;
}

/* ------------------------------------------------------------------- DTW */

double tser_dtw_acc(const double *a, size_t na, const double *b, size_t nb, int radius, double *acc,
                    size_t *path, size_t *plen)
{
    if (!na || !nb)
        return NAN;
    for (size_t i = 0; i < na; i++) {
        for (size_t j = 0; j < nb; j++) {
            double *cell = &acc[i * nb + j];
            if (radius >= 0 && (i > j ? i - j : j - i) > (size_t)radius) {
                *cell = INFINITY;
                continue;
            }
            double c = (a[i] - b[j]) * (a[i] - b[j]);
            double m;
            if (i == 0 && j == 0)
                m = 0;
            else {
                m = INFINITY;
                if (i > 0 && acc[(i - 1) * nb + j] < m)
                    m = acc[(i - 1) * nb + j];
                if (j > 0 && acc[i * nb + j - 1] < m)
                    m = acc[i * nb + j - 1];
                if (i > 0 && j > 0 && acc[(i - 1) * nb + j - 1] < m)
                    m = acc[(i - 1) * nb + j - 1];
            }
            *cell = c + m;
        }
    }
    if (path) { /* backtrack (diagonal first on ties, as tslearn) */
        size_t i = na - 1, j = nb - 1, k = 0;
        for (;;) {
            path[2 * k] = i;
            path[2 * k + 1] = j;
            k++;
            if (i == 0 && j == 0)
                break;
            if (i == 0)
                j--;
            else if (j == 0)
                i--;
            else {
                double d = acc[(i - 1) * nb + j - 1], u = acc[(i - 1) * nb + j], l = acc[i * nb + j - 1];
                if (d <= u && d <= l) {
                    i--;
                    j--;
                } else if (u <= l)
                    i--;
                else
                    j--;
            }
        }
        for (size_t p = 0; p < k / 2; p++) { /* to forward order */
            size_t q = k - 1 - p, ti = path[2 * p], tj = path[2 * p + 1];
            path[2 * p] = path[2 * q];
            path[2 * p + 1] = path[2 * q + 1];
            path[2 * q] = ti;
            path[2 * q + 1] = tj;
        }
        *plen = k;
    }
    return acc[na * nb - 1];
}

double iolens_dtw(const double *a, size_t na, const double *b, size_t nb, int radius)
{
    if (!na || !nb || na > 100000 || nb > 100000)
        return NAN;
    /* two rolling rows: O(nb) memory */
    double *prev = malloc(nb * sizeof *prev), *cur = malloc(nb * sizeof *cur);
    double r = NAN;
    if (!prev || !cur)
        goto done;
    /* the band must reach the corner when lengths differ */
    long rad = radius;
    if (rad >= 0 && (size_t)rad < (na > nb ? na - nb : nb - na))
        rad = (long)(na > nb ? na - nb : nb - na);
    for (size_t i = 0; i < na; i++) {
        for (size_t j = 0; j < nb; j++) {
            if (rad >= 0 && (long)(i > j ? i - j : j - i) > rad) {
                cur[j] = INFINITY;
                continue;
            }
            double c = (a[i] - b[j]) * (a[i] - b[j]), m;
            if (i == 0 && j == 0)
                m = 0;
            else {
                m = INFINITY;
                if (i > 0 && prev[j] < m)
                    m = prev[j];
                if (j > 0 && cur[j - 1] < m)
                    m = cur[j - 1];
                if (i > 0 && j > 0 && prev[j - 1] < m)
                    m = prev[j - 1];
            }
            cur[j] = c + m;
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    r = sqrt(prev[nb - 1]);
done:
    free(prev);
    free(cur);
    return r;
}

static void derivative(const double *q, size_t n, double *d)
{
    if (n < 3) {
        for (size_t i = 0; i < n; i++)
            d[i] = 0;
        return;
    }
    for (size_t i = 1; i + 1 < n; i++)
        d[i] = ((q[i] - q[i - 1]) + (q[i + 1] - q[i - 1]) / 2.0) / 2.0;
    d[0] = d[1];
    d[n - 1] = d[n - 2];
}

double iolens_ddtw(const double *a, size_t na, const double *b, size_t nb, int radius)
{
    if (!na || !nb || na > 100000 || nb > 100000)
        return NAN;
    double *da = malloc(na * sizeof *da), *db = malloc(nb * sizeof *db);
    double r = NAN;
    if (da && db) {
        derivative(a, na, da);
        derivative(b, nb, db);
        r = iolens_dtw(da, na, db, nb, radius);
    }
    free(da);
    free(db);
    return r;
}

/* ------------------------------------------------------------------- PLD */

double iolens_pld(const double *b, const double *a, size_t n, unsigned phases, unsigned levels)
{
    if (!n || !phases || !levels)
        return NAN;
    double amax = 0, bmax = 0;
    for (size_t i = 0; i < n; i++) {
        amax = fmax(amax, a[i]);
        bmax = fmax(bmax, b[i]);
    }
    if (amax <= 0)
        amax = bmax;
    if (amax <= 0)
        return 0;
    double sum = 0;
    for (unsigned p = 0; p < phases; p++) {
        size_t lo = (size_t)p * n / phases, hi = (size_t)(p + 1) * n / phases;
        if (hi <= lo) /* fewer samples than phases: the sample of this phase */
            hi = lo + 1 <= n ? lo + 1 : n;
        double sa = 0, sb = 0;
        for (size_t i = lo; i < hi; i++) {
            sa += a[i];
            sb += b[i];
        }
        double ma = sa / (double)(hi - lo), mb = sb / (double)(hi - lo);
        double la = floor((double)levels * ma / amax), lb = floor((double)levels * mb / amax);
        sum += fabs(lb - la);
    }
    return sum / ((double)phases * (double)levels);
}

/* ------------------------------------------------------- balance and ARI */

double iolens_entropy_balance(const size_t *sizes, size_t k)
{
    size_t total = 0, nonempty = 0;
    for (size_t c = 0; c < k; c++) {
        total += sizes[c];
        nonempty += sizes[c] > 0;
    }
    if (nonempty < 2)
        return 0;
    double h = 0;
    for (size_t c = 0; c < k; c++)
        if (sizes[c]) {
            double p = (double)sizes[c] / (double)total;
            h -= p * log(p);
        }
    return h / log((double)nonempty);
}

static double comb2(double x)
{
    return x * (x - 1) / 2;
}

double iolens_ari(const int *a, const int *b, size_t n)
{
    int ka = 0, kb = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] < 0 || b[i] < 0)
            return NAN;
        ka = a[i] + 1 > ka ? a[i] + 1 : ka;
        kb = b[i] + 1 > kb ? b[i] + 1 : kb;
    }
    if (n < 2 || (size_t)ka * (size_t)kb > ((size_t)1 << 26))
        return NAN;
    double *t = calloc((size_t)ka * (size_t)kb, sizeof *t);
    double *ra = calloc((size_t)ka, sizeof *ra), *rb = calloc((size_t)kb, sizeof *rb);
    double r = NAN;
    if (!t || !ra || !rb)
        goto done;
    for (size_t i = 0; i < n; i++) {
        t[(size_t)a[i] * (size_t)kb + (size_t)b[i]]++;
        ra[a[i]]++;
        rb[b[i]]++;
    }
    double sij = 0, sa = 0, sb = 0;
    for (size_t q = 0; q < (size_t)ka * (size_t)kb; q++)
        sij += comb2(t[q]);
    for (int q = 0; q < ka; q++)
        sa += comb2(ra[q]);
    for (int q = 0; q < kb; q++)
        sb += comb2(rb[q]);
    double expected = sa * sb / comb2((double)n), maxi = 0.5 * (sa + sb);
    r = maxi == expected ? 1.0 : (sij - expected) / (maxi - expected);
done:
    free(t);
    free(ra);
    free(rb);
    return r;
}

/* ----------------------------------------------------- metrics of a run */

static const char *const METRIC_NAMES[IOLENS_METRIC_COUNT] = {
    "intra_ddtw", "intra_sbd", "intra_pld", "inter_ddtw", "inter_sbd", "inter_pld", "balance"};

const char *iolens_metric_name(int i)
{
    return i >= 0 && i < IOLENS_METRIC_COUNT ? METRIC_NAMES[i] : NULL;
}

double iolens_metric_get(const iolens_cluster_metrics *m, int i)
{
    const double v[IOLENS_METRIC_COUNT] = {m->intra_ddtw, m->intra_sbd, m->intra_pld, m->inter_ddtw,
                                           m->inter_sbd,  m->inter_pld, m->balance};
    return i >= 0 && i < IOLENS_METRIC_COUNT ? v[i] : NAN;
}

int iolens_metric_higher_better(int i)
{
    return i >= 3;
}

#define PLD_PHASES 10
#define PLD_LEVELS 10
#define DDTW_WINDOW 60

struct intra_ctx {
    const iolens_clustering *c;
    const iolens_series_set *set;
    const size_t *pick;
    double *ddtw, *sbd, *pld;
    size_t L;
    int failed;
};

static void intra_range(void *p, size_t b, size_t e, unsigned w)
{
    struct intra_ctx *x = p;
    double *r = malloc(x->L * sizeof *r);
    (void)w;
    if (!r) {
        x->failed = 1;
        return;
    }
    for (size_t t = b; t < e; t++) {
        size_t i = x->pick[t];
        const struct series_rec *s = &x->set->s[i];
        iolens_resample(s->v, s->n, r, x->L);
        const double *cen = x->c->centroids + (size_t)x->c->labels[i] * x->c->clen;
        x->ddtw[t] = iolens_ddtw(r, x->L, cen, x->L, DDTW_WINDOW);
        x->sbd[t] = iolens_sbd(r, cen, x->L);
        x->pld[t] = iolens_pld(cen, r, x->L, PLD_PHASES, PLD_LEVELS);
    }
    free(r);
}

int iolens_cluster_metrics_compute(iolens_cluster_metrics *out, const iolens_clustering *c,
                                   const iolens_series_set *set, size_t max_traces, unsigned threads)
{
    int rc = 0;
    if (!out || !c || !set || set->n != c->n)
        return iol_err(IOLENS_EINVAL, "metrics need the clustering of this set");
    size_t n = c->n, m = 0, k = c->k, L = c->clen;
    size_t *pick = NULL;
    double *buf = NULL, *inter = NULL;
    if (max_traces == 0 || max_traces > n)
        max_traces = n;
    pick = malloc((max_traces ? max_traces : 1) * sizeof *pick);
    buf = malloc(3 * (max_traces ? max_traces : 1) * sizeof *buf);
    size_t npairs = k * (k - 1) / 2;
    inter = malloc(3 * (npairs ? npairs : 1) * sizeof *inter);
    if (!pick || !buf || !inter) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (metrics)");
        goto done;
    }
    for (size_t t = 0; t < max_traces; t++) /* evenly spaced traces */
        pick[m++] = t * n / max_traces;
    struct intra_ctx x = {c, set, pick, buf, buf + m, buf + 2 * m, L, 0};
    tser_parallel(threads, m, intra_range, &x);
    if (x.failed) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (metrics)");
        goto done;
    }
    out->intra_ddtw = tser_median(buf, m);
    out->intra_sbd = tser_median(buf + m, m);
    out->intra_pld = tser_median(buf + 2 * m, m);
    size_t q = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a + 1; b < k; b++, q++) {
            const double *ca = c->centroids + a * L, *cb = c->centroids + b * L;
            inter[q] = iolens_ddtw(ca, L, cb, L, DDTW_WINDOW);
            inter[npairs + q] = iolens_sbd(ca, cb, L);
            /* PLD is asymmetric: the mean of both directions */
            inter[2 * npairs + q] =
                0.5 * (iolens_pld(ca, cb, L, PLD_PHASES, PLD_LEVELS) + iolens_pld(cb, ca, L, PLD_PHASES, PLD_LEVELS));
        }
    out->inter_ddtw = npairs ? tser_median(inter, npairs) : NAN;
    out->inter_sbd = npairs ? tser_median(inter + npairs, npairs) : NAN;
    out->inter_pld = npairs ? tser_median(inter + 2 * npairs, npairs) : NAN;
    out->balance = iolens_entropy_balance(c->sizes, k);
done:
    free(pick);
    free(buf);
    free(inter);
    return rc;
}

void iolens_cluster_aggregate(const iolens_cluster_metrics *m, size_t n, double *norm, double *score)
{
    for (size_t s = 0; s < n; s++)
        score[s] = 0;
    for (int i = 0; i < IOLENS_METRIC_COUNT; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t s = 0; s < n; s++) {
            double v = iolens_metric_get(&m[s], i);
            if (isnan(v))
                continue;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
        for (size_t s = 0; s < n; s++) {
            double v = iolens_metric_get(&m[s], i), x;
            if (isnan(v))
                x = 0;
            else if (hi == lo)
                x = 1;
            else if (iolens_metric_higher_better(i))
                x = (v - lo) / (hi - lo);
            else
                x = (hi - v) / (hi - lo);
            if (norm)
                norm[s * IOLENS_METRIC_COUNT + (size_t)i] = x;
            score[s] += x / IOLENS_METRIC_COUNT;
        }
    }
}
