/*
 * Clustering time and quality on synthetic traces: SAGE and SAGE-2 on N
 * traces (default 100,000 of 300 points), k-means likewise, K-shape and
 * k-means(DTW) on a subset. Each method runs R times (default 3) with the
 * same seed; the median wall time and the adjusted Rand index against the
 * generating classes are printed as a table and as JSON lines.
 *
 *   bench_cluster [--n N] [--length L] [--repeat R] [--threads T] [--seed S]
 *                 [--kshape-n N] [--dtw-n N] [--methods a,b,...] [--quality 0|1]
 *
 * A method written `m@k` (e.g. `sage2,kmeans@k,kshape@k`) runs with the k
 * the last method without `@k` found, to compare methods at the same k. --quality 1
 * adds the purity against the generating classes (the share of traces in
 * their cluster's majority class) and the paper's intra-cluster metrics
 * (medians of PLD, SBD and DDTW over at most 5,000 evenly spaced traces).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolens/temporal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Share of the traces whose class is their cluster's majority class. */
static double purity_of(const iolens_clustering *c, const iolens_series_set *set)
{
    size_t n, k = iolens_clustering_k(c);
    const int *lab = iolens_clustering_labels(c, &n);
    size_t *count = calloc((k ? k : 1) * IOLENS_SYNTH_CLASSES, sizeof *count);
    if (!count || n == 0) {
        free(count);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        if (lab[i] >= 0 && (size_t)lab[i] < k && s.label >= 0 && s.label < IOLENS_SYNTH_CLASSES)
            count[(size_t)lab[i] * IOLENS_SYNTH_CLASSES + (size_t)s.label]++;
    }
    size_t major = 0;
    for (size_t c2 = 0; c2 < k; c2++) {
        size_t m = 0;
        for (int l = 0; l < IOLENS_SYNTH_CLASSES; l++)
            if (count[c2 * IOLENS_SYNTH_CLASSES + (size_t)l] > m)
                m = count[c2 * IOLENS_SYNTH_CLASSES + (size_t)l];
        major += m;
    }
    free(count);
    return (double)major / (double)n;
}

static double ari_of(const iolens_clustering *c, const iolens_series_set *set)
{
    size_t n;
    const int *lab = iolens_clustering_labels(c, &n);
    int *truth = malloc(n * sizeof *truth);
    if (!truth)
        return -2;
    for (size_t i = 0; i < n; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        truth[i] = s.label;
    }
    double r = iolens_ari(lab, truth, n);
    free(truth);
    return r;
}

int main(int argc, char **argv)
{
    size_t n = 100000, len = 300, repeat = 3, threads = 2, kshape_n = 2000, dtw_n = 300, quality = 0, seed = 1;
    const char *methods = "sage,sage2,kmeans,kshape,dtw,random";
    for (int i = 1; i + 1 < argc; i += 2) {
        size_t v = strtoull(argv[i + 1], NULL, 10);
        if (!strcmp(argv[i], "--n"))
            n = v;
        else if (!strcmp(argv[i], "--length"))
            len = v;
        else if (!strcmp(argv[i], "--repeat"))
            repeat = v ? v : 1;
        else if (!strcmp(argv[i], "--threads"))
            threads = v ? v : 1;
        else if (!strcmp(argv[i], "--kshape-n"))
            kshape_n = v;
        else if (!strcmp(argv[i], "--dtw-n"))
            dtw_n = v;
        else if (!strcmp(argv[i], "--quality"))
            quality = v;
        else if (!strcmp(argv[i], "--seed"))
            seed = v;
        else if (!strcmp(argv[i], "--methods"))
            methods = argv[i + 1];
        else {
            fprintf(stderr, "usage: bench_cluster [--n N] [--length L] [--repeat R] [--threads T] "
                            "[--kshape-n N] [--dtw-n N] [--methods a,b,m@k,...] [--seed S] [--quality 0|1]\n");
            return 2;
        }
    }
    iolens_series_set *set = NULL;
    if (iolens_series_set_new(&set) || iolens_series_synth(set, n, len, seed)) {
        fprintf(stderr, "bench_cluster: %s\n", iolens_error_last());
        return 1;
    }
    iolens_series_filter_in_place(set, NULL);
    printf("# %zu synthetic traces of %zu points (%d classes), %zu threads, median of %zu runs\n",
           iolens_series_set_count(set), len, IOLENS_SYNTH_CLASSES, threads, repeat);
    printf("%-9s %8s %5s %10s %10s %10s %7s", "method", "traces", "k", "median_s", "min_s", "cpu_s", "ARI");
    if (quality)
        printf(" %7s %10s %9s %9s", "purity", "intra_ddtw", "intra_sbd", "intra_pld");
    printf("\n");
    size_t last_k = 0;
    char *list = strdup(methods);
    char *save = NULL;
    for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        char *at = strstr(m, "@k");
        size_t fixed_k = 0;
        if (at && at[2] == '\0') {
            *at = '\0';
            fixed_k = last_k;
        }
        int method = iolens_cluster_method_parse(m);
        if (method < 0) {
            fprintf(stderr, "bench_cluster: unknown method '%s'\n", m);
            continue;
        }
        size_t sub = method == IOLENS_CLUSTER_KSHAPE ? kshape_n : method == IOLENS_CLUSTER_DTW ? dtw_n : 0;
        iolens_series_set *data = set;
        if (sub && sub < iolens_series_set_count(set)) { /* the first sub traces: classes stay balanced */
            if (iolens_series_set_new(&data))
                return 1;
            for (size_t i = 0; i < sub; i++) {
                iolens_series s;
                iolens_series_set_get(set, i, &s);
                iolens_series_set_add(data, s.id, s.direction, s.step_s, s.mibs, s.n, s.label);
            }
        }
        double *t = malloc(repeat * sizeof *t), *cpu = malloc(repeat * sizeof *cpu), ari = 0, purity = 0;
        iolens_cluster_metrics qm = {0};
        size_t k = 0;
        for (size_t r = 0; r < repeat; r++) {
            iolens_cluster_opts o;
            iolens_cluster_opts_init(&o);
            o.method = method;
            o.threads = (unsigned)threads;
            if (fixed_k)
                o.k = (unsigned)(fixed_k > 255 ? 255 : fixed_k);
            iolens_clustering *c = NULL;
            double t0 = now(), c0 = cpu_now();
            if (iolens_cluster_run(&c, data, &o)) {
                fprintf(stderr, "bench_cluster: %s: %s\n", m, iolens_error_last());
                return 1;
            }
            t[r] = now() - t0;
            cpu[r] = cpu_now() - c0;
            ari = ari_of(c, data);
            k = iolens_clustering_k(c);
            if (quality && r == 0) {
                purity = purity_of(c, data);
                if (iolens_cluster_metrics_compute(&qm, c, data, 5000, (unsigned)threads)) {
                    fprintf(stderr, "bench_cluster: metrics: %s\n", iolens_error_last());
                    return 1;
                }
            }
            iolens_clustering_free(c);
        }
        qsort(t, repeat, sizeof *t, cmpd);
        qsort(cpu, repeat, sizeof *cpu, cmpd);
        double med = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
        double cmed = repeat % 2 ? cpu[repeat / 2] : 0.5 * (cpu[repeat / 2 - 1] + cpu[repeat / 2]);
        char name[40];
        snprintf(name, sizeof name, "%s%s", m, fixed_k ? "@k" : "");
        printf("%-9s %8zu %5zu %10.2f %10.2f %10.2f %7.3f", name, iolens_series_set_count(data), k, med, t[0], cmed,
               ari);
        if (quality)
            printf(" %7.3f %10.2f %9.4f %9.4f", purity, qm.intra_ddtw, qm.intra_sbd, qm.intra_pld);
        printf("\n");
        fprintf(stderr, "{\"method\":\"%s\",\"traces\":%zu,\"length\":%zu,\"k\":%zu,\"median_s\":%.3f,\"min_s\":%.3f,"
                        "\"cpu_s\":%.3f,\"runs\":%zu,\"threads\":%zu,\"ari\":%.4f",
                name, iolens_series_set_count(data), len, k, med, t[0], cmed, repeat, threads, ari);
        if (quality)
            fprintf(stderr, ",\"purity\":%.4f,\"intra_ddtw\":%.4f,\"intra_sbd\":%.5f,\"intra_pld\":%.5f", purity,
                    qm.intra_ddtw, qm.intra_sbd, qm.intra_pld);
        fprintf(stderr, "}\n");
        if (!fixed_k)
            last_k = k;
        fflush(stdout);
        free(t);
        free(cpu);
        if (data != set)
            iolens_series_set_free(data);
    }
    free(list);
    iolens_series_set_free(set);
    return 0;
}
