/*
 * Evaluation: seeded label-stratified (optionally grouped) k-fold splits,
 * out-of-fold probabilities of the classifier, the seed's two trivial
 * baselines (per-label majority; per-pattern 90th-percentile thresholds),
 * multi-label scores and percentile bootstrap intervals.
 */
#include "detect/detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/stats.h"

#define NL IOLENS_DETECT_NLABELS
#define NF IOLENS_DETECT_NFEATURES

struct group_key {
    int group;
    unsigned labels;
    uint64_t shuffle;
};

static int cmp_group_key(const void *a, const void *b)
{
    const struct group_key *x = a, *y = b;
    if (x->labels != y->labels)
        return x->labels < y->labels ? -1 : 1;
    if (x->shuffle != y->shuffle)
        return x->shuffle < y->shuffle ? -1 : 1;
    return x->group < y->group ? -1 : x->group > y->group;
}

static unsigned label_mask(const unsigned char *y, size_t row)
{
    unsigned m = 0;
    for (int l = 0; l < NL; l++)
        if (y[row * NL + l])
            m |= 1u << l;
    return m;
}

int iolens_detect_folds(int *fold, const unsigned char *y, size_t n, const int *group, int k, uint64_t seed)
{
    if (!fold || !y || n == 0 || k < 2 || (size_t)k > n)
        return iol_err(IOLENS_EINVAL, "bad fold request (%zu rows, k = %d)", n, k);
    /* group ids are compacted through a map; a group's stratum is the label set of its first row */
    iol_u64map ids = {0};
    struct group_key *keys = calloc(n, sizeof *keys);
    int rc = 0;
    size_t ng = 0;
    if (!keys) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory assigning folds");
        goto out;
    }
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = group ? (uint64_t)(uint32_t)group[i] : (uint64_t)i;
        long s = iol_u64map_slot(&ids, g, -1);
        if (s < 0) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory assigning folds");
            goto out;
        }
        if (ids.vals[s] < 0) {
            ids.vals[s] = (int64_t)ng;
            keys[ng] = (struct group_key){(int)ng, label_mask(y, i), iol_rand_next(&state)};
            ng++;
        }
    }
    if (ng < (size_t)k) {
        rc = iol_err(IOLENS_EINVAL, "%zu groups cannot fill %d folds", ng, k);
        goto out;
    }
    qsort(keys, ng, sizeof *keys, cmp_group_key);
    int *group_fold = malloc(ng * sizeof *group_fold);
    if (!group_fold) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory assigning folds");
        goto out;
    }
    /* deal the sorted groups round-robin, starting each stratum where the last ended */
    for (size_t j = 0; j < ng; j++)
        group_fold[keys[j].group] = (int)(j % (size_t)k);
    for (size_t i = 0; i < n; i++) {
        uint64_t g = group ? (uint64_t)(uint32_t)group[i] : (uint64_t)i;
        fold[i] = group_fold[ids.vals[iol_u64map_find(&ids, g)]];
    }
    free(group_fold);
out:
    free(keys);
    iol_u64map_release(&ids);
    return rc;
}

/* Rows of fold f (test) or of the other folds, fold -1 included (train). */
static size_t select_rows(size_t *rows, const int *fold, size_t n, int f, int test)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((fold[i] == f) == test)
            rows[m++] = i;
    return m;
}

struct cv_progress {
    const iolens_detect_params *outer;
    unsigned long offset, total;
};

static void cv_progress_cb(void *ctx, unsigned long done, unsigned long total)
{
    struct cv_progress *c = ctx;
    (void)total;
    c->outer->progress(c->outer->progress_ctx, c->offset + done, c->total);
}

int iolens_detect_cv(double *oof, const iolens_detect_trainset *ts, const iolens_detect_params *p, const int *fold, int k)
{
    if (!oof || !ts || !p || !fold || k < 2 || ts->n == 0)
        return iol_err(IOLENS_EINVAL, "bad cross-validation request");
    int rc = 0;
    size_t n = ts->n;
    size_t *rows = malloc(n * sizeof *rows);
    double *x = malloc(n * NF * sizeof *x), *w = malloc(n * sizeof *w), *probs = malloc(n * NL * sizeof *probs);
    unsigned char *y = malloc(n * NL);
    iolens_detect_model *m = NULL;
    if (!rows || !x || !w || !probs || !y) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory for cross-validation");
        goto out;
    }
    struct cv_progress cp = {p, 0, (unsigned long)k * NL * (unsigned long)p->n_trees};
    iolens_detect_params fp = *p;
    if (p->progress) {
        fp.progress = cv_progress_cb;
        fp.progress_ctx = &cp;
    }
    for (int f = 0; f < k; f++) {
        size_t nt = select_rows(rows, fold, n, f, 0);
        for (size_t j = 0; j < nt; j++) {
            memcpy(x + j * NF, ts->x + rows[j] * NF, NF * sizeof *x);
            memcpy(y + j * NL, ts->y + rows[j] * NL, NL);
            w[j] = ts->w ? ts->w[rows[j]] : 1.0;
        }
        iolens_detect_trainset fold_ts = {nt, x, y, w};
        if ((rc = iolens_detect_train(&m, &fold_ts, &fp)) < 0)
            goto out;
        size_t ne = select_rows(rows, fold, n, f, 1);
        for (size_t j = 0; j < ne; j++)
            memcpy(x + j * NF, ts->x + rows[j] * NF, NF * sizeof *x);
        if ((rc = iolens_detect_predict(m, x, ne, probs)) < 0)
            goto out;
        for (size_t j = 0; j < ne; j++)
            memcpy(oof + rows[j] * NL, probs + j * NL, NL * sizeof *probs);
        iolens_detect_model_free(m);
        m = NULL;
        cp.offset += NL * (unsigned long)p->n_trees;
    }
out:
    iolens_detect_model_free(m);
    free(rows);
    free(x);
    free(w);
    free(probs);
    free(y);
    return rc;
}

int iolens_detect_baseline_majority(unsigned char *pred, const iolens_detect_trainset *ts, const int *fold, int k)
{
    if (!pred || !ts || !fold || k < 2)
        return iol_err(IOLENS_EINVAL, "bad baseline request");
    for (int f = 0; f < k; f++) {
        double pos[NL] = {0}, tot = 0;
        for (size_t i = 0; i < ts->n; i++)
            if (fold[i] != f) {
                for (int l = 0; l < NL; l++)
                    pos[l] += ts->y[i * NL + l];
                tot++;
            }
        for (size_t i = 0; i < ts->n; i++)
            if (fold[i] == f)
                for (int l = 0; l < NL; l++)
                    pred[i * NL + l] = (unsigned char)(pos[l] * 2 > tot);
    }
    return 0;
}

/* One to three related features per pattern; high = 1 when high values mark the pattern. */
struct p90_rule {
    int pattern;
    int feature;
    int high;
};

static const struct p90_rule p90_rules[] = {
    {0, FI_small_io_ratio, 1},       {0, FI_avg_write_size, 0},      {0, FI_avg_read_size, 0},
    {1, FI_metadata_time_ratio, 1},  {1, FI_stats_per_op, 1},        {1, FI_opens_per_op, 1},
    {2, FI_byte_imbalance, 1},       {2, FI_time_imbalance, 1},      {3, FI_seq_read_ratio, 0},
    {3, FI_seq_write_ratio, 0},      {4, FI_MPIIO_INDEP_WRITES, 1},  {4, FI_MPIIO_INDEP_READS, 1},
    {5, FI_num_files, 1},            {5, FI_POSIX_OPENS, 1},         {6, FI_fsync_ratio, 1},
    {6, FI_POSIX_F_MAX_WRITE_TIME, 1},
};
#define N_P90 (sizeof p90_rules / sizeof p90_rules[0])

/* Linear-interpolated quantile of sorted v[0..n-1]. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

int iolens_detect_baseline_p90(unsigned char *pred, const iolens_detect_trainset *ts, const int *fold, int k)
{
    if (!pred || !ts || !fold || k < 2)
        return iol_err(IOLENS_EINVAL, "bad baseline request");
    double *v = malloc(ts->n * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory for the percentile baseline");
    for (int f = 0; f < k; f++) {
        double thr[N_P90];
        for (size_t r = 0; r < N_P90; r++) {
            size_t m = 0;
            for (size_t i = 0; i < ts->n; i++)
                if (fold[i] != f)
                    v[m++] = ts->x[i * NF + p90_rules[r].feature];
            qsort(v, m, sizeof *v, iol_cmp_double);
            thr[r] = m ? quantile(v, m, p90_rules[r].high ? 0.9 : 0.1) : 0.0;
        }
        for (size_t i = 0; i < ts->n; i++) {
            if (fold[i] != f)
                continue;
            unsigned set = 0;
            for (size_t r = 0; r < N_P90; r++) {
                double xv = ts->x[i * NF + p90_rules[r].feature];
                if (p90_rules[r].high ? xv > thr[r] : xv < thr[r])
                    set |= 1u << p90_rules[r].pattern;
            }
            for (int l = 0; l < IOLENS_DETECT_NPATTERNS; l++)
                pred[i * NL + l] = (unsigned char)((set >> l) & 1u);
            pred[i * NL + IOLENS_DETECT_NPATTERNS] = (unsigned char)(set == 0);
        }
    }
    free(v);
    return 0;
}

void iolens_detect_score(iolens_detect_scores *s, const unsigned char *truth, const unsigned char *pred,
                         const size_t *rows, size_t n)
{
    double tp[NL] = {0}, fp[NL] = {0}, fn[NL] = {0}, wrong = 0, exact = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = rows ? rows[j] : j;
        int all = 1;
        for (int l = 0; l < NL; l++) {
            int t = truth[i * NL + l] != 0, p = pred[i * NL + l] != 0;
            tp[l] += t && p;
            fp[l] += !t && p;
            fn[l] += t && !p;
            if (t != p) {
                wrong++;
                all = 0;
            }
        }
        exact += all;
    }
    double TP = 0, FP = 0, FN = 0, macro = 0;
    for (int l = 0; l < NL; l++) {
        TP += tp[l];
        FP += fp[l];
        FN += fn[l];
        s->precision[l] = tp[l] + fp[l] > 0 ? tp[l] / (tp[l] + fp[l]) : 0.0;
        s->recall[l] = tp[l] + fn[l] > 0 ? tp[l] / (tp[l] + fn[l]) : 0.0;
        s->f1[l] = 2 * tp[l] + fp[l] + fn[l] > 0 ? 2 * tp[l] / (2 * tp[l] + fp[l] + fn[l]) : 0.0;
        macro += s->f1[l];
    }
    s->micro_f1 = 2 * TP + FP + FN > 0 ? 2 * TP / (2 * TP + FP + FN) : 0.0;
    s->macro_f1 = macro / NL;
    s->hamming = n ? wrong / ((double)n * NL) : 0.0;
    s->subset = n ? exact / (double)n : 0.0;
}

#define N_METRICS (4 + 3 * NL)

static void flatten(const iolens_detect_scores *s, double *v)
{
    v[0] = s->micro_f1;
    v[1] = s->macro_f1;
    v[2] = s->hamming;
    v[3] = s->subset;
    for (int l = 0; l < NL; l++) {
        v[4 + l] = s->precision[l];
        v[4 + NL + l] = s->recall[l];
        v[4 + 2 * NL + l] = s->f1[l];
    }
}

static void unflatten(iolens_detect_scores *s, const double *v)
{
    s->micro_f1 = v[0];
    s->macro_f1 = v[1];
    s->hamming = v[2];
    s->subset = v[3];
    for (int l = 0; l < NL; l++) {
        s->precision[l] = v[4 + l];
        s->recall[l] = v[4 + NL + l];
        s->f1[l] = v[4 + 2 * NL + l];
    }
}

int iolens_detect_bootstrap(iolens_detect_scores *lo, iolens_detect_scores *hi, const unsigned char *truth,
                            const unsigned char *pred, size_t n, int reps, uint64_t seed)
{
    if (!lo || !hi || !truth || !pred || n == 0 || reps < 10 || reps > 1000000)
        return iol_err(IOLENS_EINVAL, "bad bootstrap request (%zu rows, %d repetitions)", n, reps);
    int rc = 0;
    size_t *rows = malloc(n * sizeof *rows);
    double *vals = malloc((size_t)reps * N_METRICS * sizeof *vals), *col = malloc((size_t)reps * sizeof *col);
    if (!rows || !vals || !col) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory for the bootstrap");
        goto out;
    }
    uint64_t state = seed;
    for (int b = 0; b < reps; b++) {
        for (size_t j = 0; j < n; j++)
            rows[j] = (size_t)(iol_rand_unit(&state) * (double)n);
        iolens_detect_scores s;
        iolens_detect_score(&s, truth, pred, rows, n);
        flatten(&s, vals + (size_t)b * N_METRICS);
    }
    double vlo[N_METRICS], vhi[N_METRICS];
    for (int m = 0; m < N_METRICS; m++) {
        for (int b = 0; b < reps; b++)
            col[b] = vals[(size_t)b * N_METRICS + m];
        qsort(col, (size_t)reps, sizeof *col, iol_cmp_double);
        vlo[m] = quantile(col, (size_t)reps, 0.025);
        vhi[m] = quantile(col, (size_t)reps, 0.975);
    }
    unflatten(lo, vlo);
    unflatten(hi, vhi);
out:
    free(rows);
    free(vals);
    free(col);
    return rc;
}
