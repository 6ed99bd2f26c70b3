/*
 * bench_detect MODELS_DIR REPS LOG.txt...
 *
 * Per darshan-parser text log, medians over REPS runs (ms) of:
 *   counters->features   counter records already in memory (what a Darshan-reader
 *                        adapter feeds) aggregated into the 157 features
 *   predict              the 8 XGBoost models on that row
 *   counters+predict     the two together: feature extraction + inference per log
 *   text end-to-end      parsing the text too (read from memory), features, predict
 * Each as "wall/cpu": wall-clock and thread CPU time (the CPU time is the robust figure on a
 * shared machine; XGBoost runs with one thread, in the calling thread).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolens/detect.h"

struct rec {
    char module[16];
    int64_t rank;
    uint64_t id;
    char name[48];
    double value;
    int isf;
    int new_record;
};

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct timer {
    double w0, c0;
};

static void tstart(struct timer *t)
{
    t->w0 = clock_ms(CLOCK_MONOTONIC);
    t->c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

static void tstop(const struct timer *t, double *wall, double *cpu)
{
    *cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - t->c0;
    *wall = clock_ms(CLOCK_MONOTONIC) - t->w0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    *len = (size_t)n;
    return b;
}

/* Record lines of the text (the bench's own minimal reading; warnings are not spliced). */
static struct rec *records_of(const char *text, size_t *n, int64_t *nprocs, double *run_time)
{
    size_t cap = 1024;
    struct rec *r = malloc(cap * sizeof *r);
    *n = 0;
    const char *p = text;
    char line[4096];
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= sizeof line)
            len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : p + strlen(p);
        if (!strncmp(line, "# nprocs: ", 10))
            *nprocs = strtoll(line + 10, NULL, 10);
        if (!strncmp(line, "# run time: ", 12))
            *run_time = strtod(line + 12, NULL);
        struct rec x = {0};
        char val[64];
        if (line[0] == '#' ||
            sscanf(line, "%15[^\t]\t%ld\t%lu\t%47[^\t]\t%63[^\t]", x.module, &x.rank, &x.id, x.name, val) != 5)
            continue;
        x.value = strtod(val, NULL);
        x.isf = strstr(x.name, "_F_") != NULL;
        x.new_record = *n == 0 || strcmp(r[*n - 1].module, x.module) || r[*n - 1].rank != x.rank || r[*n - 1].id != x.id;
        if (*n == cap)
            r = realloc(r, (cap *= 2) * sizeof *r);
        r[(*n)++] = x;
    }
    return r;
}

static void features_from_records(const struct rec *r, size_t n, int64_t nprocs, double run_time, double *x)
{
    iolens_detect_input *in = NULL;
    iolens_detect_input_new(&in);
    iolens_detect_input_set_job(in, nprocs, run_time);
    for (size_t i = 0; i < n; i++) {
        if (r[i].new_record) {
            iolens_detect_input_record(in, r[i].module, r[i].rank, r[i].id, NULL);
            iolens_detect_input_add_module(in, r[i].module);
        }
        if (r[i].isf)
            iolens_detect_input_fcounter(in, r[i].name, r[i].value);
        else
            iolens_detect_input_counter(in, r[i].name, (int64_t)r[i].value);
    }
    iolens_detect_input_features(in, x);
    iolens_detect_input_free(in);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_detect MODELS_DIR REPS LOG.txt...\n");
        return 2;
    }
    iolens_detect_model *m = NULL;
    if (iolens_detect_model_load(&m, argv[1]) < 0) {
        fprintf(stderr, "bench_detect: %s\n", iolens_error_last());
        return 1;
    }
    int reps = atoi(argv[2]);
    if (reps < 1)
        reps = 1;
    double *t = malloc((size_t)reps * sizeof *t), *c = malloc((size_t)reps * sizeof *c);
    printf("%-22s %8s %7s  %-15s %-15s %-15s %-15s\n", "log", "counters", "MB", "features_ms", "predict_ms",
           "both_ms", "text_e2e_ms");
    printf("%-22s %8s %7s  %-15s %-15s %-15s %-15s\n", "", "", "", "wall/cpu", "wall/cpu", "wall/cpu", "wall/cpu");
    for (int a = 3; a < argc; a++) {
        size_t len;
        char *text = slurp(argv[a], &len);
        if (!text) {
            fprintf(stderr, "bench_detect: cannot read '%s'\n", argv[a]);
            continue;
        }
        size_t n;
        int64_t nprocs = 1;
        double run_time = 0, x[IOLENS_DETECT_NFEATURES], probs[IOLENS_DETECT_NLABELS], med[4], cmed[4];
        struct timer tm;
        struct rec *r = records_of(text, &n, &nprocs, &run_time);
        features_from_records(r, n, nprocs, run_time, x); /* warm up */
        iolens_detect_predict(m, x, 1, probs);
        for (int i = 0; i < reps; i++) {
            tstart(&tm);
            features_from_records(r, n, nprocs, run_time, x);
            tstop(&tm, &t[i], &c[i]);
        }
        med[0] = median(t, reps);
        cmed[0] = median(c, reps);
        for (int i = 0; i < reps; i++) {
            tstart(&tm);
            iolens_detect_predict(m, x, 1, probs);
            tstop(&tm, &t[i], &c[i]);
        }
        med[1] = median(t, reps);
        cmed[1] = median(c, reps);
        for (int i = 0; i < reps; i++) {
            tstart(&tm);
            features_from_records(r, n, nprocs, run_time, x);
            iolens_detect_predict(m, x, 1, probs);
            tstop(&tm, &t[i], &c[i]);
        }
        med[2] = median(t, reps);
        cmed[2] = median(c, reps);
        for (int i = 0; i < reps; i++) {
            tstart(&tm);
            iolens_detect_input *in = NULL;
            if (iolens_detect_parse_text(&in, text, len, argv[a], NULL, NULL) == 0) {
                iolens_detect_input_features(in, x);
                iolens_detect_predict(m, x, 1, probs);
            }
            iolens_detect_input_free(in);
            tstop(&tm, &t[i], &c[i]);
        }
        med[3] = median(t, reps);
        cmed[3] = median(c, reps);
        const char *base = strrchr(argv[a], '/');
        char cell[4][32];
        for (int k = 0; k < 4; k++)
            snprintf(cell[k], sizeof cell[k], "%.3f/%.3f", med[k], cmed[k]);
        printf("%-22s %8zu %7.2f  %-15s %-15s %-15s %-15s\n", base ? base + 1 : argv[a], n, (double)len / 1e6, cell[0],
               cell[1], cell[2], cell[3]);
        free(r);
        free(text);
    }
    free(t);
    free(c);
    iolens_detect_model_free(m);
    return 0;
}
