/*
 * SAGE and SAGE-2 (the SAGE paper, §IV): alphabet learning on windows of W
 * samples (shapes = k-means on the differences of z-normalised windows;
 * amplitude levels = k-means on raw bandwidth within each shape, one shared
 * number of levels), genome translation, normalisation to L symbols,
 * similarity vectors and the final clustering (one step for SAGE; letters
 * then levels for SAGE-2).
 *
 * Choices the seed leaves open (documented in docs/cluster.md):
 *  - a trace of n samples has ceil(n/W) windows; the last partial window is
 *    padded with its last sample (a flat end, not an artificial drop);
 *  - a window "without I/O" (all samples 0 after pre-processing) is Z1, and
 *    Z1's similarity vector is all zeros (it is similar to nothing);
 *  - a constant non-zero window has a zero shape vector (std 0);
 *  - shapes are learnt on a sample of at most fit_sample non-zero windows and
 *    every window is then translated with the learnt alphabet.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/error.h"

#define MAX_SHAPES 50
#define MAX_W 64
static const char LETTERS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYabcdefghijklmnopqrstuvwxy";

struct alphabet {
    size_t W, ks, ka;   /* window, shapes, shared number of levels */
    double *shape_c;    /* ks x (W-1) */
    size_t *nlev;       /* levels actually learnt per shape (<= ka) */
    size_t *base;       /* first symbol of each shape */
    double *amp_c;      /* symbol centroids, nsym x W (Z1 = zeros) */
    size_t nsym;        /* including Z1 = nsym-1 */
};

static void alphabet_release(struct alphabet *a)
{
    free(a->shape_c);
    free(a->nlev);
    free(a->base);
    free(a->amp_c);
}

static void window_of(const struct series_rec *r, size_t j, size_t W, double *out)
{
    for (size_t t = 0; t < W; t++) {
        size_t p = j * W + t;
        out[t] = r->n == 0 ? 0 : r->v[p < r->n ? p : r->n - 1];
    }
}

static int all_zero(const double *w, size_t W)
{
    for (size_t t = 0; t < W; t++)
        if (w[t] > 0)
            return 0;
    return 1;
}

static void shape_vec(const double *w, size_t W, double *out)
{
    double mu = 0, var = 0;
    for (size_t t = 0; t < W; t++)
        mu += w[t];
    mu /= (double)W;
    for (size_t t = 0; t < W; t++)
        var += (w[t] - mu) * (w[t] - mu);
    double sd = sqrt(var / (double)W);
    for (size_t t = 0; t + 1 < W; t++)
        out[t] = sd > 0 ? (w[t + 1] - w[t]) / sd : 0;
}

static double d2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

static size_t nearest(const double *x, const double *C, size_t k, size_t d)
{
    size_t best = 0;
    double bd = INFINITY;
    for (size_t c = 0; c < k; c++) {
        double dd = d2(x, C + c * d, d);
        if (dd < bd) {
            bd = dd;
            best = c;
        }
    }
    return best;
}

static uint16_t symbolise(const struct alphabet *a, const double *w)
{
    if (all_zero(w, a->W))
        return (uint16_t)(a->nsym - 1);
    double sv[MAX_W];
    shape_vec(w, a->W, sv);
    size_t s = nearest(sv, a->shape_c, a->ks, a->W - 1);
    size_t l = nearest(w, a->amp_c + a->base[s] * a->W, a->nlev[s], a->W);
    return (uint16_t)(a->base[s] + l);
}

static size_t windows_of(const struct series_rec *r, size_t W)
{
    return r->n ? (r->n + W - 1) / W : 1;
}

/* --------------------------------------------------- alphabet learning */

struct level_sort {
    double mean;
    size_t idx;
};

static int cmp_level(const void *x, const void *y)
{
    const struct level_sort *a = x, *b = y;
    return (a->mean > b->mean) - (a->mean < b->mean);
}

static int learn_alphabet(struct alphabet *a, const iolens_series_set *set, const iolens_cluster_opts *o)
{
    int rc = 0;
    size_t W = a->W, nnz = 0;
    double *S = NULL, *R = NULL, *Cs = NULL, *Rs = NULL, *Ca = NULL;
    size_t *pick = NULL, *order = NULL, *cnt = NULL;
    int *lab = NULL;
    double win[MAX_W];
    /* count non-zero windows, then sample at most fit_sample of them */
    for (size_t i = 0; i < set->n; i++)
        for (size_t j = 0; j < windows_of(&set->s[i], W); j++) {
            window_of(&set->s[i], j, W, win);
            nnz += !all_zero(win, W);
        }
    a->ks = 0;
    if (nnz == 0) { /* only Z1 */
        a->nsym = 1;
        a->amp_c = calloc(W, sizeof *a->amp_c);
        a->nlev = calloc(1, sizeof *a->nlev);
        a->base = calloc(1, sizeof *a->base);
        a->shape_c = calloc(1, sizeof *a->shape_c);
        if (!a->amp_c || !a->nlev || !a->base || !a->shape_c)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        return 0;
    }
    size_t m = 0;
    pick = tser_sample(nnz, o->fit_sample, o->seed ^ 0xa1fa, &m);
    S = malloc(m * (W - 1) * sizeof *S);
    R = malloc(m * W * sizeof *R);
    lab = malloc(m * sizeof *lab);
    if (!pick || !S || !R || !lab) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory (%zu windows)", m);
        goto done;
    }
    size_t z = 0, t = 0;
    for (size_t i = 0; i < set->n && t < m; i++)
        for (size_t j = 0; j < windows_of(&set->s[i], W) && t < m; j++) {
            window_of(&set->s[i], j, W, win);
            if (all_zero(win, W))
                continue;
            if (pick[t] == z) {
                memcpy(R + t * W, win, W * sizeof *win);
                shape_vec(win, W, S + t * (W - 1));
                t++;
            }
            z++;
        }
    tser_progress(o, "shapes", 0, 1);
    tser_km_cfg cfg = {o->kmin, o->kmax < MAX_SHAPES ? o->kmax : MAX_SHAPES, 0, o->elbow_sample,
                       o->fit_sample, o->seed ^ 0x5ba9e, o->threads, o->dist};
    rc = tser_kmeans_elbow(S, m, W - 1, &cfg, &Cs, NULL);
    if (rc < 0)
        goto done;
    a->ks = (size_t)rc;
    a->shape_c = Cs;
    Cs = NULL;
    rc = tser_assign_dist(S, m, W - 1, a->shape_c, a->ks, o->threads, lab, NULL, o->dist);
    if (rc)
        goto done;
    /* amplitude: group the sampled raw windows by shape */
    tser_progress(o, "levels", 0, 1);
    cnt = calloc(a->ks + 1, sizeof *cnt);
    order = malloc(m * sizeof *order);
    Rs = malloc(m * W * sizeof *Rs);
    if (!cnt || !order || !Rs) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t q = 0; q < m; q++)
        cnt[lab[q] + 1]++;
    for (size_t s = 0; s < a->ks; s++)
        cnt[s + 1] += cnt[s]; /* cnt[s] = first row of shape s */
    {
        size_t *fill = calloc(a->ks, sizeof *fill);
        if (!fill) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t q = 0; q < m; q++) {
            size_t s = (size_t)lab[q];
            memcpy(Rs + (cnt[s] + fill[s]++) * W, R + q * W, W * sizeof *R);
        }
        free(fill);
    }
    /* one shared number of levels: elbow over the summed inertia of all shapes */
    size_t kmin = o->kmin ? o->kmin : 2, kmax = o->level_kmax;
    size_t per_shape_cap = o->elbow_sample / a->ks;
    if (per_shape_cap < 300)
        per_shape_cap = 300;
    Ca = malloc((kmax + 1) * W * sizeof *Ca);
    if (!Ca) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    size_t ka = kmin;
    if (kmax >= kmin + 2) {
        size_t nk = kmax - kmin + 1;
        double xs[64], ys[64];
        if (nk > 64)
            nk = 64;
        for (size_t kk = kmin; kk < kmin + nk; kk++) {
            double tot = 0;
            for (size_t s = 0; s < a->ks && !rc; s++) {
                size_t ns = cnt[s + 1] - cnt[s];
                size_t step = ns > per_shape_cap ? ns / per_shape_cap : 1, ne = ns / step;
                double *sub = malloc((ne ? ne : 1) * W * sizeof *sub), in = 0;
                if (!sub) {
                    rc = iol_err(IOLENS_ENOMEM, "out of memory");
                    break;
                }
                for (size_t q = 0; q < ne; q++)
                    memcpy(sub + q * W, Rs + (cnt[s] + q * step) * W, W * sizeof *sub);
                if (ne > 0)
                    rc = iolens_kmeans(sub, ne, W, kk < ne ? kk : ne, o->seed + kk + 97 * s, o->threads,
                                       Ca, NULL, &in);
                free(sub);
                tot += in;
            }
            if (rc)
                goto done;
            xs[kk - kmin] = (double)kk;
            ys[kk - kmin] = tot;
            tser_progress(o, "levels", kk - kmin + 1, nk);
        }
        long knee = iolens_kneedle(xs, ys, nk);
        ka = kmin + (size_t)(knee < 0 ? 0 : knee);
    } else if (kmax >= 1 && kmax < kmin) {
        ka = kmax;
    }
    a->ka = ka;
    /* fit the levels of each shape, numbered by increasing bandwidth */
    a->nlev = calloc(a->ks, sizeof *a->nlev);
    a->base = calloc(a->ks, sizeof *a->base);
    a->amp_c = malloc((a->ks * ka + 1) * W * sizeof *a->amp_c);
    if (!a->nlev || !a->base || !a->amp_c) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    size_t sym = 0;
    for (size_t s = 0; s < a->ks; s++) {
        size_t ns = cnt[s + 1] - cnt[s];
        size_t kk = ka < ns ? ka : ns;
        a->base[s] = sym;
        if (kk == 0) { /* a shape with no sampled window: one level at its mean */
            kk = 1;
            memset(Ca, 0, W * sizeof *Ca);
        } else {
            double in;
            if ((rc = iolens_kmeans(Rs + cnt[s] * W, ns, W, kk, o->seed + 7919 * (s + 1), o->threads, Ca,
                                    NULL, &in)))
                goto done;
        }
        struct level_sort ls[64];
        for (size_t l = 0; l < kk; l++) {
            double mu = 0;
            for (size_t j = 0; j < W; j++)
                mu += Ca[l * W + j];
            ls[l] = (struct level_sort){mu, l};
        }
        qsort(ls, kk, sizeof *ls, cmp_level);
        for (size_t l = 0; l < kk; l++)
            memcpy(a->amp_c + (sym + l) * W, Ca + ls[l].idx * W, W * sizeof *Ca);
        a->nlev[s] = kk;
        sym += kk;
    }
    memset(a->amp_c + sym * W, 0, W * sizeof *a->amp_c); /* Z1 */
    a->nsym = sym + 1;
done:
    free(S);
    free(R);
    free(Cs);
    free(Rs);
    free(Ca);
    free(pick);
    free(order);
    free(cnt);
    free(lab);
    return rc;
}

/* ------------------------------------------------- genome translation */

struct translate_ctx {
    const iolens_series_set *set;
    const struct alphabet *a;
    uint16_t **genome;
    size_t *glen;
    uint16_t *norm; /* n x L */
    size_t L;
    int failed;
};

static void translate_range(void *arg, size_t b, size_t e, unsigned w)
{
    struct translate_ctx *c = arg;
    const struct alphabet *a = c->a;
    size_t W = a->W;
    double win[MAX_W];
    (void)w;
    double *cat = NULL;
    size_t catcap = 0;
    for (size_t i = b; i < e; i++) {
        const struct series_rec *r = &c->set->s[i];
        size_t n = windows_of(r, W);
        uint16_t *g = c->genome[i];
        for (size_t j = 0; j < n; j++) {
            window_of(r, j, W, win);
            g[j] = symbolise(a, win);
        }
        c->glen[i] = n;
        uint16_t *out = c->norm + i * c->L;
        if (n <= c->L) { /* stretch: nearest neighbour */
            for (size_t p = 0; p < c->L; p++)
                out[p] = g[p * n / c->L];
            continue;
        }
        /* shrink: each bin's symbol centroids concatenated, resampled to W, re-symbolised */
        for (size_t p = 0; p < c->L; p++) {
            size_t s0 = p * n / c->L, s1 = (p + 1) * n / c->L;
            size_t len = (s1 - s0) * W;
            if (len > catcap) {
                double *nc = realloc(cat, len * sizeof *nc);
                if (!nc) {
                    c->failed = 1;
                    free(cat);
                    return;
                }
                cat = nc;
                catcap = len;
            }
            for (size_t q = s0; q < s1; q++)
                memcpy(cat + (q - s0) * W, a->amp_c + (size_t)g[q] * W, W * sizeof *cat);
            iolens_resample(cat, len, win, W);
            out[p] = symbolise(a, win);
        }
    }
    free(cat);
}

/* Every process's genomes (series [b, e) of its share are symbols off[b]..off[e] of block). */
static int gather_genomes(const iolens_cluster_dist *dist, uint16_t *block, const size_t *off, size_t n)
{
    if (!dist || dist->size <= 1)
        return 0;
    size_t p = (size_t)dist->size;
    size_t *cnt = malloc(2 * p * sizeof *cnt);
    if (!cnt)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t r = 0; r < p; r++) {
        iolens_cluster_dist one = *dist;
        one.rank = (int)r;
        size_t b, e;
        tser_dist_share(&one, n, &b, &e);
        cnt[r] = (off[e] - off[b]) * sizeof *block;
        cnt[p + r] = off[b] * sizeof *block;
    }
    int rc = tser_dist_gather(dist, block, cnt, cnt + p);
    free(cnt);
    return rc;
}

/* --------------------------------------------------- similarity vectors */

static double cosine(const double *x, const double *y, size_t d)
{
    double xy = 0, xx = 0, yy = 0;
    for (size_t j = 0; j < d; j++) {
        xy += x[j] * y[j];
        xx += x[j] * x[j];
        yy += y[j] * y[j];
    }
    return xx > 0 && yy > 0 ? xy / sqrt(xx * yy) : 0;
}

/* E (nitems+1 x nitems): cosine similarities of the centroids; the last row
 * (Z) is zeros. A zero centroid is similar to itself only. */
static double *similarity(const double *cent, size_t nitems, size_t d)
{
    size_t dim = nitems ? nitems : 1;
    double *E = calloc((nitems + 1) * dim, sizeof *E);
    if (!E)
        return NULL;
    for (size_t s = 0; s < nitems; s++)
        for (size_t t = 0; t < nitems; t++)
            E[s * dim + t] = s == t ? 1.0 : cosine(cent + s * d, cent + t * d, d);
    return E;
}

/* The centroid of a letter used for its similarities: the mean of its level
 * centroids scaled to unit norm, i.e. its up-and-down pattern in bandwidth
 * space, whatever its amplitude. (Cosines of the centroids in the space of
 * differences of z-normalised windows make every pair of noisy shapes nearly
 * orthogonal, so that a letter ends up closer to Z than to another letter and
 * the first stage of SAGE-2 loses when I/O happens; the values of the seed's
 * Fig. 3, all positive, are those of non-negative centroids.) */
static double *letter_centroids(const struct alphabet *a)
{
    double *lc = calloc((a->ks ? a->ks : 1) * a->W, sizeof *lc);
    if (!lc)
        return NULL;
    for (size_t s = 0; s < a->ks; s++)
        for (size_t l = 0; l < a->nlev[s]; l++) {
            const double *c = a->amp_c + (a->base[s] + l) * a->W;
            double nn = 0;
            for (size_t j = 0; j < a->W; j++)
                nn += c[j] * c[j];
            nn = sqrt(nn);
            for (size_t j = 0; j < a->W && nn > 0; j++)
                lc[s * a->W + j] += c[j] / nn / (double)a->nlev[s];
        }
    return lc;
}

static const char *const GREEK[] = {"α", "β", "γ", "δ", "ε", "ζ", "η", "θ", "ι", "κ", "λ", "μ",
                                    "ν", "ξ", "ο", "π", "ρ", "σ", "τ", "υ", "φ", "χ", "ψ", "ω"};

static int set_name(char **slot, const char *fmt_a, size_t a, size_t b)
{
    char buf[48];
    if (fmt_a)
        snprintf(buf, sizeof buf, "%s%zu", fmt_a, b);
    else
        snprintf(buf, sizeof buf, "g%zu.%zu", a, b);
    free(*slot);
    *slot = strdup(buf);
    return *slot ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
}

/* SAGE-2 second stage: inside each shape group, cluster the level sequences. */
static int sage2_levels(struct iolens_clustering *res, const uint16_t *lv, size_t L, size_t ka,
                        const int *group, size_t ng, const iolens_cluster_opts *o)
{
    int rc = 0;
    size_t n = res->n, dim = ka ? ka : 1, total = 0;
    double *E = calloc((ka ? ka : 1) * dim, sizeof *E);
    size_t *members = malloc(n * sizeof *members);
    uint16_t *sub = malloc(n * L * sizeof *sub);
    int *lab = malloc(n * sizeof *lab);
    char **names = NULL;
    if (!E || !members || !sub || !lab) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t l = 0; l < ka; l++) /* level l+1 -> l ones then zeros */
        for (size_t j = 0; j < l; j++)
            E[l * dim + j] = 1.0;
    for (size_t g = 0; g < ng; g++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if ((size_t)group[i] == g) {
                memcpy(sub + m * L, lv + i * L, L * sizeof *sub);
                members[m++] = i;
            }
        if (!m)
            continue;
        tser_catdata cd = {sub, m, L, E, ka ? ka : 1, dim};
        tser_km_cfg cfg = {o->kmin, o->kmax, 0, o->elbow_sample, o->fit_sample, o->seed + 31 * g, o->threads,
                           o->dist};
        double *C = NULL;
        rc = tser_catkmeans_elbow(&cd, &cfg, lab, &C);
        if (rc < 0)
            goto done;
        size_t k = tser_merge_small(lab, m, C, (size_t)rc, L * dim, o->min_cluster, NULL);
        res->merged += (size_t)rc - k;
        /* order the level clusters by mean level (increasing bandwidth) */
        struct level_sort ls[256];
        size_t kk = k < 256 ? k : 256;
        for (size_t c = 0; c < kk; c++) {
            double s = 0;
            for (size_t j = 0; j < L * dim; j++)
                s += C[c * L * dim + j];
            ls[c] = (struct level_sort){s, c};
        }
        qsort(ls, kk, sizeof *ls, cmp_level);
        size_t rank[256];
        for (size_t c = 0; c < kk; c++)
            rank[ls[c].idx] = c;
        free(C);
        char **nn = realloc(names, (total + kk) * sizeof *nn);
        if (!nn) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        names = nn;
        for (size_t c = 0; c < kk; c++) {
            names[total + c] = NULL;
            if ((rc = g < 24 ? set_name(&names[total + c], GREEK[g], 0, c + 1)
                             : set_name(&names[total + c], NULL, g, c + 1)))
                goto done;
        }
        for (size_t t = 0; t < m; t++)
            res->labels[members[t]] = (int)(total + rank[lab[t] < (int)kk ? lab[t] : 0]);
        /* names were created in rank order */
        total += kk;
    }
    res->k = total;
    res->names = names;
    names = NULL;
done:
    if (names) {
        for (size_t c = 0; c < total; c++)
            free(names[c]);
        free(names);
    }
    free(E);
    free(members);
    free(sub);
    free(lab);
    return rc;
}

int tser_cluster_sage(struct iolens_clustering *res, const iolens_series_set *set,
                      const iolens_cluster_opts *o, int two_stage)
{
    int rc = 0;
    struct alphabet a = {0};
    size_t n = set->n, L = o->genome_len;
    a.W = o->window;
    uint16_t *norm = NULL, *lv = NULL;
    size_t *off = NULL;
    double *E = NULL, *C = NULL;
    int *group = NULL;
    if (a.W < 2 || a.W > MAX_W || L == 0)
        return iol_err(IOLENS_EINVAL, "SAGE needs a window of 2..%d samples and a genome length > 0", MAX_W);
    if ((rc = learn_alphabet(&a, set, o)))
        goto done;
    if (a.nsym > 65535) {
        rc = iol_err(IOLENS_EINVAL, "alphabet of %zu symbols is too large", a.nsym);
        goto done;
    }
    /* genomes */
    tser_progress(o, "genomes", 0, 1);
    res->genomes = calloc(n, sizeof *res->genomes);
    res->genome_len = calloc(n, sizeof *res->genome_len);
    norm = malloc(n * L * sizeof *norm);
    off = malloc((n + 1) * sizeof *off);
    if (!res->genomes || !res->genome_len || !norm || !off) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    off[0] = 0; /* the genomes in one block, series after series */
    for (size_t i = 0; i < n; i++)
        off[i + 1] = off[i] + windows_of(&set->s[i], a.W);
    if (!(res->genome_block = malloc((off[n] ? off[n] : 1) * sizeof *res->genome_block))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory for %zu genome symbols", off[n]);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        res->genomes[i] = res->genome_block + off[i];
    struct translate_ctx tc = {set, &a, res->genomes, res->genome_len, norm, L, 0};
    void *outs[2] = {norm, res->genome_len};
    size_t sizes[2] = {L * sizeof *norm, sizeof *res->genome_len};
    if ((rc = tser_parallel_dist(o->dist, o->threads, n, translate_range, &tc, 2, outs, sizes)) < 0 ||
        (rc = gather_genomes(o->dist, res->genome_block, off, n)) < 0)
        goto done;
    if (tc.failed) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory translating genomes");
        goto done;
    }
    /* alphabet into the result */
    res->nsym = a.nsym;
    res->window = a.W;
    res->sym_names = calloc(a.nsym, sizeof *res->sym_names);
    res->sym_centroids = malloc(a.nsym * a.W * sizeof *res->sym_centroids);
    if (!res->sym_names || !res->sym_centroids) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(res->sym_centroids, a.amp_c, a.nsym * a.W * sizeof *a.amp_c);
    for (size_t s = 0; s < a.ks; s++)
        for (size_t l = 0; l < a.nlev[s]; l++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%c%zu", LETTERS[s], l + 1);
            if (!(res->sym_names[a.base[s] + l] = strdup(buf))) {
                rc = iol_err(IOLENS_ENOMEM, "out of memory");
                goto done;
            }
        }
    if (!(res->sym_names[a.nsym - 1] = strdup("Z1"))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    tser_progress(o, "clusters", 0, 1);
    if (!two_stage) {
        size_t ns = a.nsym - 1, dim = ns ? ns : 1;
        if (!(E = similarity(a.amp_c, ns, a.W))) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        tser_catdata cd = {norm, n, L, E, a.nsym, dim};
        tser_km_cfg cfg = {o->kmin, o->kmax, o->k, o->elbow_sample, o->fit_sample, o->seed, o->threads, o->dist};
        rc = tser_catkmeans_elbow(&cd, &cfg, res->labels, &C);
        if (rc < 0)
            goto done;
        res->k = tser_merge_small(res->labels, n, C, (size_t)rc, L * dim, o->min_cluster, NULL);
        res->merged = (size_t)rc - res->k;
        rc = 0;
        goto done;
    }
    /* SAGE-2, stage 1: letters only */
    lv = malloc(n * L * sizeof *lv);
    group = malloc(n * sizeof *group);
    if (!lv || !group) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    uint16_t *letter_of = malloc(a.nsym * sizeof *letter_of), *level_of = malloc(a.nsym * sizeof *level_of);
    if (!letter_of || !level_of) {
        free(letter_of);
        free(level_of);
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < a.ks; s++)
        for (size_t l = 0; l < a.nlev[s]; l++) {
            letter_of[a.base[s] + l] = (uint16_t)s;
            level_of[a.base[s] + l] = (uint16_t)l;
        }
    letter_of[a.nsym - 1] = (uint16_t)a.ks; /* Z */
    level_of[a.nsym - 1] = 0;               /* Z1 is level 1 */
    uint16_t *letters = malloc(n * L * sizeof *letters);
    if (!letters) {
        free(letter_of);
        free(level_of);
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t q = 0; q < n * L; q++) {
        letters[q] = letter_of[norm[q]];
        lv[q] = level_of[norm[q]];
    }
    free(letter_of);
    free(level_of);
    size_t dim = a.ks ? a.ks : 1;
    double *letter_c = letter_centroids(&a);
    E = letter_c ? similarity(letter_c, a.ks, a.W) : NULL;
    free(letter_c);
    if (!E) {
        free(letters);
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    tser_catdata cd = {letters, n, L, E, a.ks + 1, dim};
    tser_km_cfg cfg = {o->kmin, o->kmax, o->k, o->elbow_sample, o->fit_sample, o->seed, o->threads, o->dist};
    rc = tser_catkmeans_elbow(&cd, &cfg, group, &C);
    free(letters);
    if (rc < 0)
        goto done;
    size_t ng = tser_merge_small(group, n, C, (size_t)rc, L * dim, o->min_cluster, NULL);
    res->merged = (size_t)rc - ng;
    tser_progress(o, "levels of each shape cluster", 0, 1);
    rc = sage2_levels(res, lv, L, a.ka ? a.ka : 1, group, ng, o);
done:
    alphabet_release(&a);
    free(off);
    free(norm);
    free(lv);
    free(E);
    free(C);
    free(group);
    return rc;
}
