/*
 * Jobs as phases, and the disk-sharing simulator (§VII-A).
 *
 * Fluid model, event-driven: between two events the set of I/O phases active
 * on each OST is fixed and each progresses at bandwidth / k. Instead of
 * decrementing every phase's remaining MiB (which accumulates rounding), each
 * OST keeps its "service" S(t) = integral of bandwidth / k(t) dt, the MiB any
 * one of its active phases has received; a phase joining at S0 with b MiB
 * ends when S reaches S0 + b. The next completion on an OST is then its
 * smallest target, reached after (target - S) * k / bandwidth seconds.
 */
#include "place/internal.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cut_phases(iolens_place_phase **out, size_t *nout, const double *v, size_t n, double step,
                      double threshold, int timed)
{
    if (!out || !nout || (!v && n) || !(step > 0) || !isfinite(step) || !(threshold > 0))
        return iol_err(IOLENS_EINVAL, "iolens_place_phases_from_series: bad argument");
    *out = NULL;
    *nout = 0;
    size_t runs = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || (v[i] >= threshold) != (v[i - 1] >= threshold))
            runs++;
    if (runs == 0)
        return 0;
    iolens_place_phase *ph = malloc(runs * sizeof *ph);
    if (!ph)
        return iol_err(IOLENS_ENOMEM, "out of memory cutting a series of %zu samples into phases", n);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        int io = v[i] >= threshold;
        double sum = 0;
        size_t j = i;
        for (; j < n && (v[j] >= threshold) == io; j++)
            sum += v[j];
        ph[k].kind = io ? IOLENS_PLACE_IO : IOLENS_PLACE_COMPUTE;
        ph[k].amount = io && !timed ? sum * step : (double)(j - i) * step;
        if (!isfinite(ph[k].amount)) {
            free(ph);
            return iol_err(IOLENS_EINVAL, "a phase of %zu samples from sample %zu moves more than a double holds", j - i, i);
        }
        k++;
        i = j;
    }
    *out = ph;
    *nout = k;
    return 0;
}

int iolens_place_phases_from_series(iolens_place_phase **out, size_t *nout, const double *v, size_t n,
                                    double step, double threshold)
{
    return cut_phases(out, nout, v, n, step, threshold, 0);
}

int iolens_place_phases_timed(iolens_place_phase **out, size_t *nout, const double *v, size_t n, double step,
                              double threshold)
{
    return cut_phases(out, nout, v, n, step, threshold, 1);
}

int iolens_place_rescale(double *out, size_t n, const double *src, size_t srclen)
{
    if ((!out && n) || !src || srclen == 0)
        return iol_err(IOLENS_EINVAL, "iolens_place_rescale: empty source");
    if (n == srclen) { /* exact copy, no rounding */
        memcpy(out, src, n * sizeof *out);
        return 0;
    }
    /* Source sample j covers [j/srclen, (j+1)/srclen); out sample i is the
     * average over [i/n, (i+1)/n). Work in units of 1/(n*srclen). */
    for (size_t i = 0; i < n; i++) {
        double lo = (double)i * (double)srclen, hi = lo + (double)srclen; /* in 1/(n*srclen) */
        size_t j = (size_t)(lo / (double)n);
        double acc = 0;
        for (; j < srclen; j++) {
            double a = (double)j * (double)n, b = a + (double)n;
            if (a >= hi)
                break;
            double l = a > lo ? a : lo, r = b < hi ? b : hi;
            if (r > l)
                acc += src[j] * (r - l);
        }
        out[i] = acc / (double)srclen;
    }
    return 0;
}

enum job_state { WAITING, COMPUTING, DOING_IO, DONE };

typedef struct sim_job {
    enum job_state state;
    size_t phase;
    double until;      /* WAITING: start; COMPUTING: end of the compute phase */
    double target;     /* DOING_IO: OST service level at which the phase ends */
    double t_end;      /* DOING_IO: predicted end, from the last event */
    double io_started; /* DOING_IO: when the phase began */
} sim_job;

typedef struct sim_ost {
    double service; /* MiB received by each active phase since t = 0 */
    size_t active;
} sim_ost;

/* Moves job j into its next phase at time now (skipping empty phases). */
static void sim_advance(sim_job *sj, const iolens_place_job *job, sim_ost *ost, double now)
{
    while (sj->phase < job->nphases) {
        const iolens_place_phase *p = &job->phases[sj->phase];
        if (!(p->amount > 0)) {
            sj->phase++;
            continue;
        }
        if (p->kind == IOLENS_PLACE_IO) {
            sj->state = DOING_IO;
            sj->target = ost->service + p->amount;
            sj->io_started = now;
            ost->active++;
        } else {
            sj->state = COMPUTING;
            sj->until = now + p->amount;
        }
        return;
    }
    sj->state = DONE;
}

int iolens_place_simulate(iolens_place_outcome *out, double *geomean, const iolens_place_job *jobs,
                          size_t njobs, const unsigned *ost, unsigned nost, double bandwidth)
{
    if ((njobs && (!out || !jobs || !ost)) || nost == 0 || !(bandwidth > 0) || !isfinite(bandwidth))
        return iol_err(IOLENS_EINVAL, "iolens_place_simulate: bad argument");
    int rc = 0;
    sim_job *sj = calloc(njobs ? njobs : 1, sizeof *sj);
    sim_ost *so = calloc(nost, sizeof *so);
    if (!sj || !so) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory simulating %zu jobs", njobs);
        goto done;
    }
    size_t remaining = 0;
    for (size_t j = 0; j < njobs; j++) {
        if (ost[j] >= nost || !isfinite(jobs[j].start) || (jobs[j].nphases && !jobs[j].phases)) {
            rc = iol_err(IOLENS_EINVAL, "simulate: job %zu has OST %u of %u or a bad start", j, ost[j], nost);
            goto done;
        }
        memset(&out[j], 0, sizeof out[j]);
        for (size_t p = 0; p < jobs[j].nphases; p++) {
            const iolens_place_phase *ph = &jobs[j].phases[p];
            if (!isfinite(ph->amount) || ph->amount < 0) {
                rc = iol_err(IOLENS_EINVAL, "simulate: phase %zu of job %zu has amount %g", p, j, ph->amount);
                goto done;
            }
            if (ph->kind == IOLENS_PLACE_IO)
                out[j].io_isol += ph->amount / bandwidth;
        }
        sj[j].state = WAITING;
        sj[j].until = jobs[j].start;
        out[j].end = jobs[j].start;
        remaining++;
    }
    double now = -INFINITY;
    while (remaining) {
        /* Next event: a start, a compute end, or the first I/O end per OST. */
        double next = INFINITY;
        for (size_t j = 0; j < njobs; j++)
            if ((sj[j].state == WAITING || sj[j].state == COMPUTING) && sj[j].until < next)
                next = sj[j].until;
        for (size_t j = 0; j < njobs; j++) {
            if (sj[j].state != DOING_IO)
                continue;
            const sim_ost *o = &so[ost[j]];
            double t = now + (sj[j].target - o->service) * (double)o->active / bandwidth;
            sj[j].t_end = t;
            if (t < next)
                next = t;
        }
        if (!(next < INFINITY)) {
            rc = iol_err(IOLENS_EINVAL, "simulate: no next event with %zu jobs left", remaining);
            goto done;
        }
        if (next < now)
            next = now;
        if (now > -INFINITY)
            for (unsigned o = 0; o < nost; o++)
                if (so[o].active)
                    so[o].service += (next - now) * bandwidth / (double)so[o].active;
        now = next;
        /* I/O completions first (they free bandwidth), then the others. A
         * phase ends when its predicted end is this event (so every event
         * makes progress even when the clock is too large to advance by the
         * remaining time) or when its OST's service reached its target (the
         * tolerance absorbs rounding in the service sums). */
        for (size_t j = 0; j < njobs; j++) {
            if (sj[j].state != DOING_IO)
                continue;
            sim_ost *o = &so[ost[j]];
            double tol = 1e-9 * (fabs(sj[j].target) > 1 ? fabs(sj[j].target) : 1);
            if (sj[j].t_end > now && sj[j].target - o->service > tol)
                continue;
            out[j].io_time += now - sj[j].io_started;
            o->active--;
            sj[j].state = COMPUTING; /* placeholder, advanced below */
            sj[j].until = now;
        }
        for (size_t j = 0; j < njobs; j++) {
            if ((sj[j].state != WAITING && sj[j].state != COMPUTING) || sj[j].until > now)
                continue;
            if (sj[j].state == COMPUTING)
                sj[j].phase++;
            sim_advance(&sj[j], &jobs[j], &so[ost[j]], now);
            if (sj[j].state == DONE) {
                out[j].end = now;
                remaining--;
            }
        }
        /* An idle OST restarts its service count (keeps numbers small). */
        for (unsigned o = 0; o < nost; o++)
            if (!so[o].active)
                so[o].service = 0;
    }
    double logsum = 0;
    size_t nio = 0;
    for (size_t j = 0; j < njobs; j++) {
        out[j].stretch = out[j].io_isol > 0 ? out[j].io_time / out[j].io_isol : 1.0;
        if (out[j].io_isol > 0) {
            logsum += log(out[j].stretch);
            nio++;
        }
    }
    if (geomean)
        *geomean = nio ? exp(logsum / (double)nio) : 1.0;
done:
    free(sj);
    free(so);
    return rc;
}
