/* Small shared tools of the temporal module: RNG, parallel loop, median, FFT. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/stats.h"
#include "util/error.h"

/* xoshiro256** seeded by splitmix64: fast, reproducible on every platform. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tser_rng_seed(tser_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t tser_rng_next(tser_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double tser_rng_unit(tser_rng *r)
{
    return (double)(tser_rng_next(r) >> 11) * 0x1.0p-53;
}

size_t tser_rng_below(tser_rng *r, size_t n)
{
    return n ? (size_t)(tser_rng_unit(r) * (double)n) % n : 0;
}

double tser_rng_normal(tser_rng *r)
{
    double u1 = tser_rng_unit(r), u2 = tser_rng_unit(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

struct par_job {
    tser_range_fn fn;
    void *ctx;
    size_t begin, end;
    unsigned worker;
};

static void *par_main(void *arg)
{
    struct par_job *j = arg;
    j->fn(j->ctx, j->begin, j->end, j->worker);
    return NULL;
}

#define TSER_MAX_THREADS 64

int tser_parallel(unsigned threads, size_t n, tser_range_fn fn, void *ctx)
{
    if (threads > TSER_MAX_THREADS)
        threads = TSER_MAX_THREADS;
    if (threads <= 1 || n < 2 * (size_t)threads) {
        if (n)
            fn(ctx, 0, n, 0);
        return 0;
    }
    struct par_job jobs[TSER_MAX_THREADS];
    pthread_t tids[TSER_MAX_THREADS];
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].fn = fn;
        jobs[t].ctx = ctx;
        jobs[t].begin = n * t / threads;
        jobs[t].end = n * (t + 1) / threads;
        jobs[t].worker = t;
    }
    /* worker 0 runs on the calling thread; if a thread cannot start, its
     * chunk runs inline, so the result never depends on thread creation. */
    for (unsigned t = 1; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, par_main, &jobs[t]) != 0)
            jobs[t].fn = NULL;
    }
    par_main(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (jobs[t].fn)
            pthread_join(tids[t], NULL);
        else {
            jobs[t].fn = fn;
            par_main(&jobs[t]);
        }
    }
    return 0;
}

void tser_dist_share(const iolens_cluster_dist *dist, size_t n, size_t *b, size_t *e)
{
    if (!dist || dist->size <= 1) {
        *b = 0;
        *e = n;
        return;
    }
    size_t r = (size_t)dist->rank, p = (size_t)dist->size;
    *b = n / p * r + (r < n % p ? r : n % p);
    *e = *b + n / p + (r < n % p);
}

int tser_dist_gather(const iolens_cluster_dist *dist, void *buf, const size_t *counts, const size_t *displs)
{
    if (!dist || dist->size <= 1)
        return 0;
    int rc = dist->gather(dist->ctx, buf, counts, displs);
    return rc < 0 ? iol_err(IOLENS_EIO, "the %d processes could not share their results", dist->size) : 0;
}

int tser_dist_any(const iolens_cluster_dist *dist, int flag)
{
    if (!dist || dist->size <= 1)
        return flag != 0;
    size_t p = (size_t)dist->size;
    int *f = calloc(p, sizeof *f);
    size_t *cnt = malloc(2 * p * sizeof *cnt);
    if (!f || !cnt) {
        free(f);
        free(cnt);
        return 1;
    }
    for (size_t r = 0; r < p; r++) {
        cnt[r] = sizeof *f;
        cnt[p + r] = r * sizeof *f;
    }
    f[dist->rank] = flag != 0;
    int any = tser_dist_gather(dist, f, cnt, cnt + p) < 0;
    for (size_t r = 0; r < p; r++)
        any |= f[r];
    free(f);
    free(cnt);
    return any;
}

struct shifted {
    tser_range_fn fn;
    void *ctx;
    size_t base;
};

static void shifted_range(void *arg, size_t b, size_t e, unsigned w)
{
    const struct shifted *s = arg;
    s->fn(s->ctx, s->base + b, s->base + e, w);
}

int tser_parallel_dist(const iolens_cluster_dist *dist, unsigned threads, size_t n, tser_range_fn fn, void *ctx,
                       size_t nout, void *const *outs, const size_t *sizes)
{
    if (!dist || dist->size <= 1)
        return tser_parallel(threads, n, fn, ctx);
    if (dist->rank < 0 || dist->rank >= dist->size || !dist->gather)
        return iol_err(IOLENS_EINVAL, "rank %d of %d processes", dist->rank, dist->size);
    size_t b, e;
    tser_dist_share(dist, n, &b, &e);
    struct shifted s = {fn, ctx, b};
    int rc = tser_parallel(threads, e - b, shifted_range, &s);
    size_t p = (size_t)dist->size;
    size_t *cnt = malloc(2 * p * sizeof *cnt);
    if (!cnt)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t j = 0; j < nout && !rc; j++) {
        for (size_t r = 0; r < p; r++) {
            iolens_cluster_dist one = *dist;
            one.rank = (int)r;
            size_t rb, re;
            tser_dist_share(&one, n, &rb, &re);
            cnt[r] = (re - rb) * sizes[j];
            cnt[p + r] = rb * sizes[j];
        }
        rc = tser_dist_gather(dist, outs[j], cnt, cnt + p);
    }
    free(cnt);
    return rc;
}

double tser_median(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* NaN values do not count */
        if (!isnan(v[i]))
            v[m++] = v[i];
    if (!m)
        return NAN;
    qsort(v, m, sizeof *v, iol_cmp_double);
    return iol_median_sorted(v, m);
}

void tser_progress(const iolens_cluster_opts *o, const char *stage, size_t done, size_t total)
{
    if (o && o->progress)
        o->progress(o->progress_ctx, stage, done, total);
}

void tser_fft(double *re, double *im, size_t n, int inv)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        double ang = 6.283185307179586 / (double)len * (inv ? 1 : -1);
        double wr = cos(ang), wi = sin(ang);
        for (size_t i = 0; i < n; i += len) {
            double cr = 1, ci = 0;
            for (size_t k = 0; k < len / 2; k++) {
                size_t a = i + k, b = i + k + len / 2;
                double xr = re[b] * cr - im[b] * ci, xi = re[b] * ci + im[b] * cr;
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
                double nr = cr * wr - ci * wi;
                ci = cr * wi + ci * wr;
                cr = nr;
            }
        }
    }
}

void iolens_resample(const double *x, size_t n, double *out, size_t m)
{
    if (!m)
        return;
    if (n == 0) {
        memset(out, 0, m * sizeof *out);
        return;
    }
    if (n == 1 || m == 1) {
        for (size_t i = 0; i < m; i++)
            out[i] = n == 1 ? x[0] : x[0];
        if (m == 1 && n > 1) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += x[i];
            out[0] = s / (double)n;
        }
        return;
    }
    double scale = (double)(n - 1) / (double)(m - 1);
    for (size_t i = 0; i < m; i++) {
        double p = (double)i * scale;
        size_t j = (size_t)p;
        if (j >= n - 1) {
            out[i] = x[n - 1];
            continue;
        }
        double f = p - (double)j;
        out[i] = x[j] * (1 - f) + x[j + 1] * f;
    }
}

struct resample_ctx {
    const iolens_series_set *set;
    size_t m;
    double *out;
};

static void resample_range(void *p, size_t b, size_t e, unsigned w)
{
    struct resample_ctx *c = p;
    (void)w;
    for (size_t i = b; i < e; i++)
        iolens_resample(c->set->s[i].v, c->set->s[i].n, c->out + i * c->m, c->m);
}

int tser_resampled(const iolens_series_set *set, size_t m, double **out)
{
    *out = NULL;
    if (set->n && m > SIZE_MAX / sizeof(double) / set->n)
        return iol_err(IOLENS_ENOMEM, "resampled matrix of %zu x %zu is too large", set->n, m);
    double *r = malloc((set->n ? set->n : 1) * m * sizeof *r);
    if (!r)
        return iol_err(IOLENS_ENOMEM, "out of memory resampling %zu series", set->n);
    struct resample_ctx c = {set, m, r};
    tser_parallel(2, set->n, resample_range, &c);
    *out = r;
    return 0;
}
