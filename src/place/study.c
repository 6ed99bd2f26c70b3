/*
 * The placement study (§VII-C): a pool of traces turned into jobs, workloads
 * drawn at a storage load, every policy placed and simulated.
 */
#include "place/internal.h"
#include "util/error.h"
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool_entry {
    size_t trace;
    iolens_place_phase *real;
    size_t nreal;
    iolens_place_phase **pred; /* per cluster set (NULL when the set is absent) */
    size_t *npred;
    double io_isol;
    double duration;
} pool_entry;

struct iolens_place_pool {
    pool_entry *e;
    size_t n;
    size_t nmethods;
    size_t skipped;
    size_t unclustered;
    double bandwidth, horizon;
    unsigned nost;
    iolens_place_io_model model;
    iolens_place_draw draw;
};

static void entry_release(pool_entry *e, size_t nmethods)
{
    free(e->real);
    if (e->pred)
        for (size_t m = 0; m < nmethods; m++)
            free(e->pred[m]);
    free(e->pred);
    free(e->npred);
}

void iolens_place_pool_free(iolens_place_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        entry_release(&p->e[i], p->nmethods);
    free(p->e);
    free(p);
}

size_t iolens_place_pool_count(const iolens_place_pool *p) { return p ? p->n : 0; }
size_t iolens_place_pool_trace(const iolens_place_pool *p, size_t i) { return p && i < p->n ? p->e[i].trace : 0; }
size_t iolens_place_pool_skipped(const iolens_place_pool *p) { return p ? p->skipped : 0; }
size_t iolens_place_pool_unclustered(const iolens_place_pool *p) { return p ? p->unclustered : 0; }
double iolens_place_pool_bandwidth(const iolens_place_pool *p) { return p ? p->bandwidth : 0; }
double iolens_place_pool_horizon(const iolens_place_pool *p) { return p ? p->horizon : 0; }
unsigned iolens_place_pool_nost(const iolens_place_pool *p) { return p ? p->nost : 0; }
iolens_place_io_model iolens_place_pool_io_model(const iolens_place_pool *p)
{
    return p ? p->model : IOLENS_PLACE_IO_RECORDED;
}

static int cut(const iolens_place_pool *p, iolens_place_phase **out, size_t *nout, const double *v, size_t n,
               double step, double threshold)
{
    return p->model == IOLENS_PLACE_IO_RECORDED ? iolens_place_phases_timed(out, nout, v, n, step, threshold)
                                                : iolens_place_phases_from_series(out, nout, v, n, step, threshold);
}
double iolens_place_pool_io_isol(const iolens_place_pool *p, size_t i) { return p && i < p->n ? p->e[i].io_isol : 0; }
double iolens_place_pool_duration(const iolens_place_pool *p, size_t i) { return p && i < p->n ? p->e[i].duration : 0; }

iolens_place_job iolens_place_pool_job(const iolens_place_pool *p, size_t i, double start, int method)
{
    iolens_place_job j = {start, NULL, 0};
    if (!p || i >= p->n)
        return j;
    const pool_entry *e = &p->e[i];
    if (method < 0 || (size_t)method >= p->nmethods || !e->pred[method]) {
        j.phases = e->real;
        j.nphases = e->nreal;
    } else {
        j.phases = e->pred[method];
        j.nphases = e->npred[method];
    }
    return j;
}

/* Phases of the centroid of the trace's cluster, rescaled to its duration. */
static int predict(const iolens_place_pool *p, pool_entry *e, size_t m, const iolens_place_clusters *cl, const char *id, size_t len,
                   double step, double threshold)
{
    long k = iolens_place_clusters_of(cl, id);
    if (k < 0)
        return iol_err(IOLENS_ENOTFOUND, "trace '%s' has no cluster in cluster set %zu", id, m + 1);
    size_t clen;
    const double *cv = iolens_place_clusters_centroid(cl, (size_t)k, &clen);
    double *v = malloc((len ? len : 1) * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory rescaling a centroid");
    int rc = iolens_place_rescale(v, len, cv, clen);
    if (rc == 0)
        rc = cut(p, &e->pred[m], &e->npred[m], v, len, step, threshold);
    free(v);
    return rc;
}

/* The q-quantile (nearest rank) of every sample >= threshold of the traces. */
static int sample_quantile(double *out, const iolens_place_series *traces, double threshold, double q)
{
    if (!(q > 0 && q <= 1))
        return iol_err(IOLENS_EINVAL, "bandwidth quantile %g is not in (0, 1]", q);
    size_t nt = iolens_place_series_count(traces), total = 0;
    for (size_t t = 0; t < nt; t++) {
        size_t len;
        const double *v = iolens_place_series_values(traces, t, &len);
        for (size_t i = 0; i < len; i++)
            total += v[i] >= threshold;
    }
    if (total == 0)
        return iol_err(IOLENS_EINVAL, "no trace reaches %g MiB/s: there is no I/O to place", threshold);
    double *all = malloc(total * sizeof *all);
    if (!all)
        return iol_err(IOLENS_ENOMEM, "out of memory sorting %zu samples", total);
    size_t k = 0;
    for (size_t t = 0; t < nt; t++) {
        size_t len;
        const double *v = iolens_place_series_values(traces, t, &len);
        for (size_t i = 0; i < len; i++)
            if (v[i] >= threshold)
                all[k++] = v[i];
    }
    qsort(all, total, sizeof *all, iol_cmp_double);
    size_t rank = (size_t)ceil(q * (double)total);
    *out = all[(rank ? rank : 1) - 1];
    free(all);
    return 0;
}

int iolens_place_pool_build(iolens_place_pool **out, const iolens_place_series *traces,
                            const iolens_place_clusters *const *clusters, size_t nclusters,
                            const iolens_place_pool_opts *opts)
{
    if (!out || !traces || (nclusters && !clusters))
        return iol_err(IOLENS_EINVAL, "iolens_place_pool_build: NULL argument");
    *out = NULL;
    iolens_place_pool_opts o = {0};
    if (opts)
        o = *opts;
    double threshold = o.threshold == 0 ? 1.0 : o.threshold;
    if (!(threshold > 0) || !isfinite(threshold) || o.bandwidth < 0 || o.bandwidth_quantile < 0 || !isfinite(o.bandwidth) ||
        o.horizon < 0 || !isfinite(o.horizon))
        return iol_err(IOLENS_EINVAL, "threshold, bandwidth and horizon must be positive numbers");
    size_t nt = iolens_place_series_count(traces);
    int rc = 0;
    iolens_place_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->e = calloc(nt ? nt : 1, sizeof *p->e))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory building a pool of %zu traces", nt);
        goto done;
    }
    p->nmethods = nclusters;
    p->nost = o.nost ? o.nost : 4;
    p->model = o.io_model;
    p->draw = o.draw;
    if (p->draw != IOLENS_PLACE_DRAW_CONDITIONED && p->draw != IOLENS_PLACE_DRAW_REPLACE) {
        rc = iol_err(IOLENS_EINVAL, "unknown workload draw %d", (int)p->draw);
        goto done;
    }
    if (p->model != IOLENS_PLACE_IO_RECORDED && p->model != IOLENS_PLACE_IO_VOLUME) {
        rc = iol_err(IOLENS_EINVAL, "unknown I/O model %d", (int)p->model);
        goto done;
    }
    p->bandwidth = p->model == IOLENS_PLACE_IO_RECORDED ? 1.0 : o.bandwidth;
    if (p->bandwidth == 0 && (rc = sample_quantile(&p->bandwidth, traces, threshold,
                                                   o.bandwidth_quantile == 0 ? 0.999 : o.bandwidth_quantile)))
        goto done;
    for (size_t t = 0; t < nt; t++) {
        size_t len;
        const double *v = iolens_place_series_values(traces, t, &len);
        double step = iolens_place_series_step(traces, t);
        pool_entry *e = &p->e[p->n];
        memset(e, 0, sizeof *e);
        e->trace = t;
        if ((rc = cut(p, &e->real, &e->nreal, v, len, step, threshold)))
            goto done;
        for (size_t i = 0; i < e->nreal; i++) {
            double a = e->real[i].amount;
            if (e->real[i].kind == IOLENS_PLACE_IO)
                e->io_isol += a / p->bandwidth;
            e->duration += e->real[i].kind == IOLENS_PLACE_IO ? a / p->bandwidth : a;
        }
        if (!(e->io_isol > 0) || (o.horizon > 0 && e->duration > o.horizon)) {
            entry_release(e, 0);
            p->skipped++;
            continue;
        }
        /* A trace some clustering left out (e.g. too short for it) has no
         * class: the cluster-based policy cannot place it, so it leaves the
         * pool, counted apart. */
        int classified = 1;
        for (size_t m = 0; m < nclusters; m++)
            if (clusters[m] && iolens_place_clusters_of(clusters[m], iolens_place_series_id(traces, t)) < 0)
                classified = 0;
        if (!classified) {
            entry_release(e, 0);
            p->skipped++;
            p->unclustered++;
            continue;
        }
        p->n++;
        e->pred = calloc(nclusters ? nclusters : 1, sizeof *e->pred);
        e->npred = calloc(nclusters ? nclusters : 1, sizeof *e->npred);
        if (!e->pred || !e->npred) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory building a pool of %zu traces", nt);
            goto done;
        }
        for (size_t m = 0; m < nclusters; m++)
            if (clusters[m] && (rc = predict(p, e, m, clusters[m], iolens_place_series_id(traces, t), len, step,
                                             threshold)))
                goto done;
    }
    if (p->n == 0) {
        rc = iol_err(IOLENS_EINVAL, "no trace does I/O (samples >= %g MiB/s)%s%s", threshold,
                     o.horizon > 0 ? ", fits in the horizon" : "", nclusters ? " and has a cluster" : "");
        goto done;
    }
    p->horizon = o.horizon;
    if (p->horizon == 0)
        for (size_t i = 0; i < p->n; i++)
            if (p->e[i].duration > p->horizon)
                p->horizon = p->e[i].duration;
    *out = p;
    p = NULL;
done:
    iolens_place_pool_free(p);
    return rc;
}

/* ------------------------------------------------------------- workloads */

void iolens_place_workload_release(iolens_place_workload *w)
{
    if (!w)
        return;
    free(w->entry);
    free(w->start);
    memset(w, 0, sizeof *w);
}

static double entry_load(const iolens_place_pool *p, size_t i)
{
    return p->e[i].io_isol / ((double)p->nost * p->horizon);
}

/* The tilted weight of job i, exp(theta * (load_i - lmax) / lmax): theta is in units of
 * 1 / lmax, so exp() stays finite. */
static double tilt_weight(const iolens_place_pool *p, size_t i, double theta, double lmax)
{
    return exp(theta * (entry_load(p, i) - lmax) / (lmax > 0 ? lmax : 1));
}

/* Mean load of one job drawn with P(i) proportional to tilt_weight(i). */
static double tilted_mean(const iolens_place_pool *p, double theta, double lmax)
{
    double z = 0, m = 0;
    for (size_t i = 0; i < p->n; i++) {
        double e = tilt_weight(p, i, theta, lmax);
        z += e;
        m += e * entry_load(p, i);
    }
    return z > 0 ? m / z : 0;
}

/* The load of a workload, summed afresh (without the drift of incremental updates). */
static double workload_load(const iolens_place_pool *p, const size_t *entry, size_t n)
{
    double sum = 0;
    for (size_t j = 0; j < n; j++)
        sum += entry_load(p, entry[j]);
    return sum;
}

void iolens_place_load_range(const iolens_place_pool *p, size_t n, double *lo, double *hi)
{
    double a = INFINITY, b = 0;
    for (size_t i = 0; p && i < p->n; i++) {
        double l = entry_load(p, i);
        a = l < a ? l : a;
        b = l > b ? l : b;
    }
    *lo = p && p->n ? (double)n * a : 0;
    *hi = (double)n * b;
}

/* Random replacements kept when they bring the load closer (the draw
 * iolens used before it followed the paper: it fills a workload with a few
 * extreme jobs, and the rest at random). */
static int draw_replace(size_t *entry, double *sum_out, const iolens_place_pool *p, size_t n, double target,
                        double tol, place_rng *r)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            entry[j] = place_rng_below(r, p->n);
            sum += entry_load(p, entry[j]);
        }
        for (size_t step = 0; step < 200 * n + 2000 && fabs(sum - target) > tol; step++) {
            size_t slot = place_rng_below(r, n), best = entry[slot];
            double bs = sum;
            for (int tries = 0; tries < 8; tries++) {
                size_t cand = place_rng_below(r, p->n);
                double ns = sum - entry_load(p, entry[slot]) + entry_load(p, cand);
                if (fabs(ns - target) < fabs(bs - target)) {
                    best = cand;
                    bs = ns;
                }
            }
            entry[slot] = best;
            sum = bs;
        }
        sum = workload_load(p, entry, n);
        if (fabs(sum - target) <= tol) {
            *sum_out = sum;
            return 1;
        }
    }
    return 0;
}

/* The paper's draw: iid jobs kept when their load is on target. 1 when drawn
 * (entry[], *sum_out), 0 when no workload was found, -1 out of memory. */
static int draw_conditioned(size_t *entry, double *sum_out, const iolens_place_pool *p, size_t n, double target,
                            double tol, place_rng *r)
{
    /* The paper draws workloads at random until their load is within tol of
     * the target: iid draws, kept when their sum hits. Far from the pool's
     * mean load that almost never happens, so the jobs are drawn from the
     * exponentially tilted pool, P(i) proportional to exp(theta * load_i),
     * theta set so that n draws have the target as their mean load; the
     * draws are then kept only when their load is within tol, as in the
     * paper. iid draws conditioned on their sum follow that tilted law as n
     * grows (the Gibbs conditioning principle), so this samples what the
     * paper's rejection would, without its cost; theta = 0 near the mean is
     * the paper's plain draw. */
    double theta = 0, sum = 0;
    int found = 0;
    double *cdf = malloc(p->n * sizeof *cdf);
    if (!cdf)
        return -1;
    {
        double lmax = 0;
        for (size_t i = 0; i < p->n; i++)
            lmax = entry_load(p, i) > lmax ? entry_load(p, i) : lmax;
        double per = target / (double)n, tlo = -1.0, thi = 1.0;
        double mean = tilted_mean(p, 0, lmax);
        if (fabs(mean - per) * (double)n > tol / 4) {
            if (per > mean) {
                tlo = 0;
                while (thi < 1e6 && tilted_mean(p, thi, lmax) < per)
                    thi *= 2;
            } else {
                thi = 0;
                while (tlo > -1e6 && tilted_mean(p, tlo, lmax) > per)
                    tlo *= 2;
            }
            for (int it = 0; it < 100; it++) {
                double mid = 0.5 * (tlo + thi);
                if (tilted_mean(p, mid, lmax) < per)
                    tlo = mid;
                else
                    thi = mid;
            }
            theta = 0.5 * (tlo + thi);
        }
        double acc = 0;
        for (size_t i = 0; i < p->n; i++) {
            acc += tilt_weight(p, i, theta, lmax);
            cdf[i] = acc;
        }
    }
    for (long attempt = 0; attempt < 20000 && !found; attempt++) {
        sum = 0;
        for (size_t j = 0; j < n; j++) {
            double u = place_rng_unit(r) * cdf[p->n - 1];
            size_t a = 0, b = p->n - 1; /* first i with cdf[i] > u */
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (cdf[m] > u)
                    b = m;
                else
                    a = m + 1;
            }
            entry[j] = a;
            sum += entry_load(p, a);
        }
        found = fabs(sum - target) <= tol;
    }
    free(cdf);
    /* A small or lopsided pool (one job with most of the I/O) can make even
     * tilted draws miss: start from the replacement draw instead. */
    if (!found)
        found = draw_replace(entry, &sum, p, n, target, tol, r);
    /* Then a random walk over the workloads on target: replace one job, or
     * two, by random jobs of the pool, kept when the load stays within tol.
     * Its stationary law is that of iid draws kept when on target, the
     * paper's rejection, whichever start it had. */
    for (size_t step = 0; found && step < 200 * n; step++) {
        size_t a = place_rng_below(r, n), b = place_rng_below(r, n);
        size_t na = place_rng_below(r, p->n), nb = place_rng_below(r, p->n);
        int two = place_rng_unit(r) < 0.5 && a != b;
        double ns = sum - entry_load(p, entry[a]) + entry_load(p, na);
        if (two)
            ns += entry_load(p, nb) - entry_load(p, entry[b]);
        if (fabs(ns - target) <= tol) {
            entry[a] = na;
            if (two)
                entry[b] = nb;
            sum = ns;
        }
    }
    if (found) {
        sum = workload_load(p, entry, n);
        found = fabs(sum - target) <= tol;
    }
    *sum_out = sum;
    return found;
}

int iolens_place_workload_draw(iolens_place_workload *w, const iolens_place_pool *p, size_t n, double target,
                               double tol, uint64_t seed)
{
    if (!w || !p || n == 0 || !(target > 0) || !(tol > 0))
        return iol_err(IOLENS_EINVAL, "iolens_place_workload_draw: bad argument");
    memset(w, 0, sizeof *w);
    double lo, hi;
    iolens_place_load_range(p, n, &lo, &hi);
    if (lo > target + tol || hi < target - tol)
        return iol_err(IOLENS_EINVAL, "load %g cannot be reached with %zu jobs of this pool (%.3g to %.3g)", target, n,
                       lo, hi);
    int rc = 0;
    size_t *entry = malloc(n * sizeof *entry), *order = malloc(n * sizeof *order);
    double *start = malloc(n * sizeof *start);
    if (!entry || !start || !order) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory drawing %zu jobs", n);
        goto done;
    }
    place_rng r = {seed};
    int found = 0;
    double sum = 0;
    if (p->draw == IOLENS_PLACE_DRAW_REPLACE)
        found = draw_replace(entry, &sum, p, n, target, tol, &r);
    else if ((found = draw_conditioned(entry, &sum, p, n, target, tol, &r)) < 0) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory drawing %zu jobs", n);
        goto done;
    }
    if (!found) {
        rc = iol_err(IOLENS_EINVAL, "could not draw %zu jobs at load %g +- %g from this pool", n, target, tol);
        goto done;
    }
    for (size_t j = 0; j < n; j++)
        start[j] = place_rng_unit(&r) * (p->horizon - p->e[entry[j]].duration);
    /* Sort by start time (insertion sort: n is small). */
    for (size_t j = 0; j < n; j++)
        order[j] = j;
    for (size_t j = 1; j < n; j++) {
        size_t x = order[j], k = j;
        while (k > 0 && start[order[k - 1]] > start[x]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = x;
    }
    w->entry = malloc(n * sizeof *w->entry);
    w->start = malloc(n * sizeof *w->start);
    if (!w->entry || !w->start) {
        iolens_place_workload_release(w);
        rc = iol_err(IOLENS_ENOMEM, "out of memory drawing %zu jobs", n);
        goto done;
    }
    for (size_t j = 0; j < n; j++) {
        w->entry[j] = entry[order[j]];
        w->start[j] = start[order[j]];
    }
    w->n = n;
    w->rho = sum;
done:
    free(entry);
    free(start);
    free(order);
    return rc;
}

int iolens_place_run(double *geomean, unsigned *ost, iolens_place_outcome *outcome, const iolens_place_pool *p,
                     const iolens_place_workload *w, iolens_place_policy policy, int method, uint64_t seed)
{
    if (!p || !w || w->n == 0 || (policy == IOLENS_PLACE_CLUSTER && (method < 0 || (size_t)method >= p->nmethods)))
        return iol_err(IOLENS_EINVAL, "iolens_place_run: bad argument");
    size_t n = w->n;
    int rc = 0;
    iolens_place_job *real = malloc(n * sizeof *real), *seen = malloc(n * sizeof *seen);
    unsigned *o = ost ? ost : malloc(n * sizeof *o);
    iolens_place_outcome *res = outcome ? outcome : malloc(n * sizeof *res);
    if (!real || !seen || !o || !res) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory running %zu jobs", n);
        goto done;
    }
    for (size_t j = 0; j < n; j++) {
        if (w->entry[j] >= p->n) {
            rc = iol_err(IOLENS_EINVAL, "workload job %zu names pool entry %zu of %zu", j, w->entry[j], p->n);
            goto done;
        }
        real[j] = iolens_place_pool_job(p, w->entry[j], w->start[j], -1);
        seen[j] = policy == IOLENS_PLACE_CLUSTER ? iolens_place_pool_job(p, w->entry[j], w->start[j], method)
                                                 : real[j];
        if (policy == IOLENS_PLACE_CLUSTER && !p->e[w->entry[j]].pred[method]) {
            rc = iol_err(IOLENS_EINVAL, "cluster set %d has no prediction", method + 1);
            goto done;
        }
    }
    if ((rc = iolens_place_assign(o, policy, seen, n, p->nost, p->bandwidth, seed)))
        goto done;
    double g;
    if ((rc = iolens_place_simulate(res, &g, real, n, o, p->nost, p->bandwidth)))
        goto done;
    if (geomean)
        *geomean = g;
done:
    free(real);
    free(seen);
    if (o != ost)
        free(o);
    if (res != outcome)
        free(res);
    return rc;
}

int iolens_place_study(iolens_place_result **out, size_t *nout, const iolens_place_pool *p,
                       const iolens_place_study_opts *opts)
{
    if (!out || !nout || !p || !opts || (opts->njobs && !opts->jobs) || (opts->nloads && !opts->loads))
        return iol_err(IOLENS_EINVAL, "iolens_place_study: NULL argument");
    *out = NULL;
    *nout = 0;
    size_t per = 3 + p->nmethods;
    size_t total = opts->njobs * opts->nloads * opts->workloads;
    double tol = opts->tol > 0 ? opts->tol : 0.02;
    int rc = 0;
    iolens_place_result *res = calloc(total > 0 ? total * per : 1, sizeof *res);
    if (!res)
        return iol_err(IOLENS_ENOMEM, "out of memory for %zu results", total * per);
    size_t k = 0, done_w = 0;
    for (size_t a = 0; a < opts->njobs; a++) {
        for (size_t b = 0; b < opts->nloads; b++) {
            double lo, hi;
            iolens_place_load_range(p, opts->jobs[a], &lo, &hi);
            if (lo > opts->loads[b] + tol || hi < opts->loads[b] - tol) {
                done_w += opts->workloads; /* unreachable: skipped, see iolens_place_load_range() */
                continue;
            }
            for (unsigned wk = 0; wk < opts->workloads; wk++) {
                uint64_t ws = place_seed_mix(opts->seed, ((uint64_t)opts->jobs[a] << 40) ^ ((uint64_t)b << 20) ^ wk);
                iolens_place_workload w;
                if ((rc = iolens_place_workload_draw(&w, p, opts->jobs[a], opts->loads[b], tol, ws)))
                    goto done;
                for (size_t q = 0; q < per; q++) {
                    iolens_place_policy pol = q < 3 ? (iolens_place_policy)q : IOLENS_PLACE_CLUSTER;
                    int method = q < 3 ? -1 : (int)(q - 3);
                    iolens_place_result *r = &res[k];
                    r->jobs = opts->jobs[a];
                    r->rho_target = opts->loads[b];
                    r->rho = w.rho;
                    r->workload = wk;
                    r->policy = pol;
                    r->method = method;
                    rc = iolens_place_run(&r->geomean_stretch, NULL, NULL, p, &w, pol, method,
                                          place_seed_mix(ws, 1));
                    if (rc)
                        break;
                    k++;
                }
                iolens_place_workload_release(&w);
                if (rc)
                    goto done;
                done_w++;
                if (opts->progress)
                    opts->progress(opts->progress_ctx, done_w, total);
            }
        }
    }
    *out = res;
    *nout = k;
    res = NULL;
done:
    free(res);
    return rc;
}
