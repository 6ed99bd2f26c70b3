/*
 * Placement policies (§VII-B): round-robin, random, and the overlap-based
 * placement — greedy merging on the graph weighted by equation 2, then a
 * local search over moves and swaps.
 */
#include "place/internal.h"
#include "util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIE_EPS 1e-12

const char *iolens_place_policy_name(iolens_place_policy p)
{
    switch (p) {
    case IOLENS_PLACE_ROUND_ROBIN: return "round-robin";
    case IOLENS_PLACE_RANDOM: return "random";
    case IOLENS_PLACE_CLAIRVOYANT: return "clairvoyant";
    case IOLENS_PLACE_CLUSTER: return "cluster";
    }
    return "unknown";
}

/* Walks the I/O intervals of a job run alone from its start time. */
typedef struct io_walk {
    const iolens_place_job *job;
    size_t phase;
    double t;
    double bw;
} io_walk;

static int io_next(io_walk *w, double *a, double *b)
{
    while (w->phase < w->job->nphases) {
        const iolens_place_phase *p = &w->job->phases[w->phase++];
        if (!(p->amount > 0))
            continue;
        if (p->kind == IOLENS_PLACE_COMPUTE) {
            w->t += p->amount;
            continue;
        }
        *a = w->t;
        w->t += p->amount / w->bw;
        *b = w->t;
        return 1;
    }
    return 0;
}

static double io_total(const iolens_place_job *j, double bw)
{
    double s = 0;
    for (size_t i = 0; i < j->nphases; i++)
        if (j->phases[i].kind == IOLENS_PLACE_IO && j->phases[i].amount > 0)
            s += j->phases[i].amount / bw;
    return s;
}

double iolens_place_overlap(const iolens_place_job *a, const iolens_place_job *b, double bandwidth)
{
    if (!a || !b || !(bandwidth > 0))
        return 0.0;
    double ta = io_total(a, bandwidth), tb = io_total(b, bandwidth);
    if (ta <= 0 || tb <= 0)
        return 0.0;
    io_walk wa = {a, 0, a->start, bandwidth}, wb = {b, 0, b->start, bandwidth};
    double a0, a1, b0, b1, ov = 0;
    int ha = io_next(&wa, &a0, &a1), hb = io_next(&wb, &b0, &b1);
    while (ha && hb) {
        double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
        if (hi > lo)
            ov += hi - lo;
        if (a1 < b1)
            ha = io_next(&wa, &a0, &a1);
        else
            hb = io_next(&wb, &b0, &b1);
    }
    return 0.5 * (ov / ta + ov / tb);
}

double iolens_place_cost(const unsigned *ost, const double *w, size_t n)
{
    double c = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t k = j + 1; k < n; k++)
            if (ost[j] == ost[k])
                c += w[j * n + k];
    return c;
}

int iolens_place_greedy(unsigned *ost, const double *w, size_t n, unsigned nost)
{
    if (nost == 0 || (n && (!ost || !w)))
        return iol_err(IOLENS_EINVAL, "iolens_place_greedy: bad argument");
    if (n <= nost) {
        for (size_t j = 0; j < n; j++)
            ost[j] = (unsigned)j;
        return 0;
    }
    if (n > SIZE_MAX / sizeof(double) / n)
        return iol_err(IOLENS_ENOMEM, "greedy placement: %zu jobs is too many", n);
    int rc = 0;
    double *g = malloc(n * n * sizeof *g);
    size_t *size = malloc(n * sizeof *size), *node = malloc(n * sizeof *node);
    unsigned char *alive = malloc(n);
    if (!g || !size || !node || !alive) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory placing %zu jobs", n);
        goto done;
    }
    memcpy(g, w, n * n * sizeof *g);
    for (size_t j = 0; j < n; j++) {
        size[j] = 1;
        node[j] = j;
        alive[j] = 1;
    }
    for (size_t nodes = n; nodes > nost; nodes--) {
        size_t ba = 0, bb = 0;
        double best = INFINITY;
        size_t bsize = SIZE_MAX;
        for (size_t a = 0; a < n; a++) {
            if (!alive[a])
                continue;
            for (size_t b = a + 1; b < n; b++) {
                if (!alive[b])
                    continue;
                double x = g[a * n + b];
                size_t s = size[a] + size[b];
                if (x < best - TIE_EPS || (x <= best + TIE_EPS && s < bsize)) {
                    best = x;
                    bsize = s;
                    ba = a;
                    bb = b;
                }
            }
        }
        for (size_t x = 0; x < n; x++) {
            if (!alive[x] || x == ba || x == bb)
                continue;
            g[ba * n + x] += g[bb * n + x];
            g[x * n + ba] = g[ba * n + x];
        }
        alive[bb] = 0;
        size[ba] += size[bb];
        for (size_t j = 0; j < n; j++)
            if (node[j] == bb)
                node[j] = ba;
    }
    /* Number the surviving nodes 0..nost-1 in index order. */
    unsigned next = 0;
    for (size_t a = 0; a < n; a++) {
        if (!alive[a])
            continue;
        for (size_t j = 0; j < n; j++)
            if (node[j] == a)
                ost[j] = next;
        next++;
    }
done:
    free(g);
    free(size);
    free(node);
    free(alive);
    return rc;
}

/* Moves job j to OST dst, keeping c[x][o] = sum of w(x, y) over y on o. */
static void ls_move(unsigned *ost, double *c, const double *w, size_t n, unsigned nost, size_t j, unsigned dst)
{
    unsigned src = ost[j];
    for (size_t x = 0; x < n; x++) {
        if (x == j)
            continue;
        c[x * nost + src] -= w[x * n + j];
        c[x * nost + dst] += w[x * n + j];
    }
    ost[j] = dst;
}

long iolens_place_local_search(unsigned *ost, const double *w, size_t n, unsigned nost)
{
    if (nost == 0 || (n && (!ost || !w)))
        return iol_err(IOLENS_EINVAL, "iolens_place_local_search: bad argument");
    for (size_t j = 0; j < n; j++)
        if (ost[j] >= nost)
            return iol_err(IOLENS_EINVAL, "local search: job %zu is on OST %u of %u", j, ost[j], nost);
    if (n < 2)
        return 0;
    if (n > SIZE_MAX / sizeof(double) / nost)
        return iol_err(IOLENS_ENOMEM, "local search: too many jobs");
    double *c = calloc(n * nost, sizeof *c);
    if (!c)
        return iol_err(IOLENS_ENOMEM, "out of memory placing %zu jobs", n);
    for (size_t j = 0; j < n; j++)
        for (size_t x = 0; x < n; x++)
            if (x != j)
                c[j * nost + ost[x]] += w[j * n + x];
    long changes = 0;
    /* Each change lowers the cost by more than TIE_EPS, so this ends; the cap
     * only guards against pathological weights. */
    for (long iter = 0; iter < 1000000; iter++) {
        double best = -TIE_EPS;
        size_t bj = 0, bk = 0;
        unsigned bo = 0;
        int kind = 0; /* 1 move, 2 swap */
        for (size_t j = 0; j < n; j++) {
            unsigned a = ost[j];
            for (unsigned o = 0; o < nost; o++) {
                if (o == a)
                    continue;
                double d = c[j * nost + o] - c[j * nost + a];
                if (d < best) {
                    best = d;
                    kind = 1;
                    bj = j;
                    bo = o;
                }
            }
            for (size_t k = j + 1; k < n; k++) {
                unsigned b = ost[k];
                if (b == a)
                    continue;
                double d = c[j * nost + b] - c[j * nost + a] + c[k * nost + a] - c[k * nost + b] -
                           2 * w[j * n + k];
                if (d < best) {
                    best = d;
                    kind = 2;
                    bj = j;
                    bk = k;
                }
            }
        }
        if (!kind)
            break;
        if (kind == 1) {
            ls_move(ost, c, w, n, nost, bj, bo);
        } else {
            unsigned a = ost[bj], b = ost[bk];
            ls_move(ost, c, w, n, nost, bj, b);
            ls_move(ost, c, w, n, nost, bk, a);
        }
        changes++;
    }
    free(c);
    return changes;
}

int iolens_place_assign(unsigned *ost, iolens_place_policy policy, const iolens_place_job *seen, size_t n,
                        unsigned nost, double bandwidth, uint64_t seed)
{
    if (nost == 0 || (n && !ost))
        return iol_err(IOLENS_EINVAL, "iolens_place_assign: bad argument");
    if (policy == IOLENS_PLACE_ROUND_ROBIN) {
        for (size_t j = 0; j < n; j++)
            ost[j] = (unsigned)(j % nost);
        return 0;
    }
    if (policy == IOLENS_PLACE_RANDOM) {
        place_rng r = {seed};
        for (size_t j = 0; j < n; j++)
            ost[j] = (unsigned)place_rng_below(&r, nost);
        return 0;
    }
    if (policy != IOLENS_PLACE_CLAIRVOYANT && policy != IOLENS_PLACE_CLUSTER)
        return iol_err(IOLENS_EINVAL, "iolens_place_assign: unknown policy %d", (int)policy);
    if (n && (!seen || !(bandwidth > 0)))
        return iol_err(IOLENS_EINVAL, "iolens_place_assign: no jobs or bandwidth");
    if (n > 0 && n > SIZE_MAX / sizeof(double) / n)
        return iol_err(IOLENS_ENOMEM, "placement: %zu jobs is too many", n);
    double *w = calloc(n > 0 ? n * n : 1, sizeof *w);
    if (!w)
        return iol_err(IOLENS_ENOMEM, "out of memory placing %zu jobs", n);
    for (size_t j = 0; j < n; j++)
        for (size_t k = j + 1; k < n; k++)
            w[j * n + k] = w[k * n + j] = iolens_place_overlap(&seen[j], &seen[k], bandwidth);
    int rc = iolens_place_greedy(ost, w, n, nost);
    if (rc == 0) {
        long ch = iolens_place_local_search(ost, w, n, nost);
        rc = ch < 0 ? (int)ch : 0;
    }
    free(w);
    return rc;
}
