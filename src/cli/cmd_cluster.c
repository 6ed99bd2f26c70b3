/* iolens cluster: SAGE / SAGE-2 classes of I/O time series, baselines, metrics. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"
#include "iolens/event.h"
#include "iolens/recorder.h"
#include "iolens/temporal.h"
#include "iolens/trace.h"
#include "util/jsonw.h"

#include <limits.h>
#ifdef IOLENS_HAVE_MPI
#include <limits.h>
#include <mpi.h>
#endif

enum {
    O_METHOD = 1, O_OUTPUT, O_SEED, O_K, O_THREADS, O_STEP, O_FORMAT, O_MIN_SAMPLES, O_MAX_SAMPLES, O_MIN_NONZERO,
    O_ZERO_BELOW, O_WINDOW, O_GENOME, O_RESAMPLE, O_METRICS_MAX, O_NO_METRICS, O_JSON, O_COMPARE, O_METHODS,
    O_SYNTH, O_LENGTH
};
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "DIR|FILE", "the result folder: assignments.csv, centroids.csv, clusters.csv,\n"
                                          "alphabet.csv, metrics.csv, metrics.json and centroids.svg; with\n"
                                          "--synth, the CSV file (default: standard output)"},
    {O_JSON, 0, "json", NULL, "the summary as one JSON document on standard output (the machine form)"},
    {O_METHOD, 0, "method", "M", "clustering method: sage, sage2, kmeans, kshape, dtw or random (default sage)"},
    {O_SEED, 0, "seed", "S", "random seed (default 0); results are deterministic for a seed"},
    {O_K, 0, "k", "K", "a fixed number of clusters, 1 to 255, instead of the elbow search"},
    {O_THREADS, 0, "threads", "T", "worker threads, 1 to 64 (default 2)"},
    {O_STEP, 0, "step", "S", "seconds per sample of wide/long inputs and bin width of DXT segments and\n"
                             "traces (default 1)"},
    {O_FORMAT, 0, "format", "F", "auto, wide, long or heatmap (default auto)"},
    {O_MIN_SAMPLES, 0, "min-samples", "N", "drop series shorter than N samples (default 20)"},
    {O_MAX_SAMPLES, 0, "max-samples", "N", "drop series longer than N samples (default: no limit)"},
    {O_MIN_NONZERO, 0, "min-nonzero", "N", "drop series with fewer than N samples >= the threshold (default 5)"},
    {O_ZERO_BELOW, 0, "zero-below", "X", "samples below X MiB/s become 0 (default 1)"},
    {O_WINDOW, 0, "window", "W", "SAGE window, 1 to 64 (default 5)"},
    {O_GENOME, 0, "genome-length", "L", "SAGE genome length in symbols (default 60)"},
    {O_RESAMPLE, 0, "resample", "L", "baselines' and metrics' resample length (default 300)"},
    {O_METRICS_MAX, 0, "metrics-max", "N", "traces entering the intra metrics (default 5000, 0 = all)"},
    {O_NO_METRICS, 0, "no-metrics", NULL, "skip the metrics"},
    {O_COMPARE, 0, "compare", NULL, "run several methods on the same data: metric table, aggregate score\n"
                                    "(the SAGE paper, Fig. 8/9) and clustering time of each"},
    {O_METHODS, 0, "methods", "LIST", "methods of --compare, comma-separated (default all six)"},
    {O_SYNTH, 0, "synth", "N", "write N labelled synthetic traces (CSV with a label column)"},
    {O_LENGTH, 0, "length", "L|MIN-MAX", "length of synthetic traces, fixed or uniform in MIN..MAX\n"
                                         "(default 100-600)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "cluster", "cluster [--method M] [-o DIR] [--seed S] [options] INPUT...\n"
               "cluster --compare [--methods M1,M2,...] [-o DIR] INPUT...\n"
               "cluster --synth N [--length L|MIN-MAX] [--seed S] [-o FILE]",
    "Groups I/O time series (one per job and direction) by when and how hard they do I/O\n"
    "(SAGE), or with a baseline, and reports the clustering-quality metrics.\n"
    "INPUT: CSV, wide (id,v0,v1,... in MiB/s), long (id,t,value) or a Darshan heatmap\n"
    "table (log,module,bin_width_s,bin,read_bytes,write_bytes,...; read and write series\n"
    "are separate). '-' reads stdin. Also, detected by content: Darshan logs (job-level\n"
    "read and write series per API from HEATMAP records, else from DXT segments at --step),\n"
    "Recorder trace directories and iolens trace files (read/write calls binned at --step).\n"
    "Under mpirun, the work of each series is shared over the ranks; the result is the same.",
    optv, NULL, NULL, 0};

struct opts {
    iolens_cluster_opts co;
    iolens_series_read_opts ro;
    iolens_filter_opts fo;
    const char *out_dir, *synth_out, *methods;
    size_t synth_n, synth_len, synth_len_max, metrics_max;
    int synth, compare, json, no_metrics;
    int rank; /* > 0: a rank of an MPI job other than the first, which alone reads out the result */
};

#ifdef IOLENS_HAVE_MPI
/* The ranks' shares of an array, joined on every rank (iolens_cluster_dist.gather). */
static int mpi_gather(void *ctx, void *buf, const size_t *counts, const size_t *displs)
{
    int size = *(const int *)ctx, fits = 1;
    for (int r = 0; r < size; r++)
        fits &= counts[r] <= INT_MAX && displs[r] <= INT_MAX;
    if (fits) {
        int *c = malloc(2 * (size_t)size * sizeof *c);
        if (!c)
            return -1;
        for (int r = 0; r < size; r++) {
            c[r] = (int)counts[r];
            c[size + r] = (int)displs[r];
        }
        int e = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, c, c + size, MPI_BYTE, MPI_COMM_WORLD);
        free(c);
        return e == MPI_SUCCESS ? 0 : -1;
    }
    for (int r = 0; r < size; r++) /* more than 2 GiB: each rank's share in pieces */
        for (size_t at = 0; at < counts[r];) {
            size_t m = counts[r] - at < ((size_t)1 << 30) ? counts[r] - at : (size_t)1 << 30;
            if (MPI_Bcast((char *)buf + displs[r] + at, (int)m, MPI_BYTE, r, MPI_COMM_WORLD) != MPI_SUCCESS)
                return -1;
            at += m;
        }
    return 0;
}
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct prog {
    cli_progress bar;
    const char *stage;
    char label[64];
    int active;
};

static void progress_cb(void *ctx, const char *stage, size_t done, size_t total)
{
    struct prog *p = ctx;
    if (!isatty(STDERR_FILENO))
        return;
    if (!p->active || p->stage != stage) {
        if (p->active)
            cli_progress_end(&p->bar);
        snprintf(p->label, sizeof p->label, "cluster: %-12.12s", stage);
        cli_progress_init(&p->bar, p->label, total ? total : 1);
        p->stage = stage;
        p->active = 1;
    }
    if (done > p->bar.done)
        cli_progress_step(&p->bar, done - p->bar.done);
}

static void progress_done(struct prog *p)
{
    if (p->active)
        cli_progress_end(&p->bar);
    p->active = 0;
    p->stage = NULL;
}

static int has_labels(const iolens_series_set *set)
{
    size_t n = iolens_series_set_count(set);
    for (size_t i = 0; i < n; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        if (s.label < 0)
            return 0;
    }
    return n > 0;
}

static double ari_of(const iolens_clustering *c, const iolens_series_set *set)
{
    if (!has_labels(set))
        return NAN;
    size_t n;
    const int *lab = iolens_clustering_labels(c, &n);
    int *truth = malloc(n * sizeof *truth);
    if (!truth)
        return NAN;
    for (size_t i = 0; i < n; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        truth[i] = s.label;
    }
    double r = iolens_ari(lab, truth, n);
    free(truth);
    return r;
}

static void json_num(iol_jsonw *w, const char *key, double v)
{
    iol_jsonw_key(w, key);
    iol_jsonw_double(w, v);
}

static void json_metrics(iol_jsonw *w, const iolens_cluster_metrics *m)
{
    iol_jsonw_key(w, "metrics");
    iol_jsonw_obj_begin(w);
    for (int i = 0; i < IOLENS_METRIC_COUNT; i++)
        json_num(w, iolens_metric_name(i), iolens_metric_get(m, i));
    iol_jsonw_obj_end(w);
}

static void json_run(iol_jsonw *w, const iolens_clustering *c, const iolens_cluster_metrics *m, double secs,
                     double ari, size_t ntraces, int with_clusters)
{
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "method");
    iol_jsonw_str(w, iolens_cluster_method_name(iolens_clustering_method(c)));
    iol_jsonw_key(w, "traces");
    iol_jsonw_uint(w, ntraces);
    iol_jsonw_key(w, "k");
    iol_jsonw_uint(w, iolens_clustering_k(c));
    iol_jsonw_key(w, "merged_small");
    iol_jsonw_uint(w, iolens_clustering_merged(c));
    json_num(w, "time_s", secs);
    json_num(w, "ari", ari);
    if (m)
        json_metrics(w, m);
    if (with_clusters) {
        iol_jsonw_key(w, "clusters");
        iol_jsonw_arr_begin(w);
        for (size_t q = 0; q < iolens_clustering_k(c); q++) {
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "cluster");
            iol_jsonw_uint(w, q);
            iol_jsonw_key(w, "name");
            iol_jsonw_str(w, iolens_clustering_name(c, q));
            iol_jsonw_key(w, "size");
            iol_jsonw_uint(w, iolens_clustering_size(c, q));
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_arr_end(w);
    }
    iol_jsonw_obj_end(w);
}

static int write_metrics_files(const char *dir, const iolens_clustering *c, const iolens_cluster_metrics *m,
                               double secs, double ari, size_t ntraces)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "metric,value\n");
    for (int i = 0; m && i < IOLENS_METRIC_COUNT; i++)
        fprintf(f, "%s,%.6g\n", iolens_metric_name(i), iolens_metric_get(m, i));
    fprintf(f, "k,%zu\ntraces,%zu\ntime_s,%.6g\n", iolens_clustering_k(c), ntraces, secs);
    if (!isnan(ari))
        fprintf(f, "ari,%.6g\n", ari);
    if (fclose(f)) {
        cli_error("cannot write '%s'", path);
        return -1;
    }
    snprintf(path, sizeof path, "%s/metrics.json", dir);
    if (!(f = fopen(path, "w"))) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    iol_jsonw w;
    iol_jsonw_init(&w, f, 1);
    json_run(&w, c, m, secs, ari, ntraces, 1);
    iol_jsonw_finish(&w);
    if (fclose(f)) {
        cli_error("cannot write '%s'", path);
        return -1;
    }
    return 0;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
    }
    cli_error("cannot create folder '%s': %s", dir, strerror(errno ? errno : ENOTDIR));
    return -1;
}

static int do_synth(const struct opts *o)
{
    iolens_series_set *set = NULL;
    int rc = CLI_FAIL;
    if (iolens_series_set_new(&set) || (o->synth_len_max ? iolens_series_synth_range(set, o->synth_n, o->synth_len, o->synth_len_max, o->co.seed)
                                                          : iolens_series_synth(set, o->synth_n, o->synth_len, o->co.seed))) {
        cli_lib_error();
        goto done;
    }
    FILE *f = o->synth_out ? fopen(o->synth_out, "w") : stdout;
    if (!f) {
        cli_error("cannot write '%s': %s", o->synth_out, strerror(errno));
        goto done;
    }
    int wr = iolens_series_write_csv(set, f);
    if (f != stdout && fclose(f))
        wr = -1;
    if (wr) {
        cli_error("cannot write '%s'", o->synth_out ? o->synth_out : "<stdout>");
        goto done;
    }
    rc = CLI_OK;
done:
    iolens_series_set_free(set);
    return rc;
}

enum input_kind { IN_CSV, IN_DARSHAN, IN_TRACE, IN_RECORDER };

/* Input kind by content: a directory is a Recorder trace; otherwise the magic numbers. */
static int input_kind(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st))
        return IN_CSV; /* the CSV reader reports the error */
    if (S_ISDIR(st.st_mode))
        return IN_RECORDER;
    if (!S_ISREG(st.st_mode))
        return IN_CSV; /* a pipe is read once, as text; the reader refuses devices */
    unsigned char b[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return IN_CSV;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n >= 8 && !memcmp(b, "IOLTRACE", 8))
        return IN_TRACE;
    if (n == 16) {
        uint64_t le = 0, be = 0;
        for (int i = 0; i < 8; i++) {
            le |= (uint64_t)b[8 + i] << (8 * i);
            be = be << 8 | b[8 + i];
        }
        if (le == 6567223u || be == 6567223u) /* DARSHAN_MAGIC */
            return IN_DARSHAN;
    }
    return IN_CSV;
}

/* Series id of a trace: its base name without trailing slashes. */
static void trace_id(const char *path, char *buf, size_t size)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(buf, size, "%.*s", (int)(len - start), path + start);
}

static int read_one(const struct opts *o, iolens_series_set *raw, const char *path)
{
    int kind = input_kind(path), rc;
    if (kind == IN_DARSHAN) {
        int src;
        rc = iolens_series_from_darshan(raw, path, NULL, o->ro.step_s, &src, cli_warn_cb, NULL);
        if (rc == 0 && !o->json)
            cli_warn("%s: no HEATMAP or DXT records, no series", path);
        return rc < 0 ? rc : 0;
    }
    if (kind == IN_TRACE || kind == IN_RECORDER) {
        iolens_evsource *src = NULL;
        char id[1024];
        trace_id(path, id, sizeof id);
        if (kind == IN_TRACE)
            rc = iolens_trace_open(path, &src);
        else {
            iolens_recorder_options ro;
            memset(&ro, 0, sizeof ro);
            ro.warn = cli_warn_cb;
            rc = iolens_recorder_open(path, &src, &ro);
        }
        if (rc == 0)
            rc = iolens_series_from_events(raw, src, id, -1, o->ro.step_s);
        iolens_evsource_free(src);
        return rc;
    }
    return iolens_series_read_file(raw, strcmp(path, "-") ? path : "/dev/stdin", &o->ro);
}

static int read_inputs(const struct opts *o, char **inputs, int ninputs, iolens_series_set **out)
{
    iolens_series_set *raw = NULL;
    *out = NULL;
    if (iolens_series_set_new(&raw))
        goto fail;
    for (int i = 0; i < ninputs; i++) {
        if (read_one(o, raw, inputs[i]))
            goto fail;
    }
    size_t nread = iolens_series_set_count(raw), kept = iolens_series_filter_in_place(raw, &o->fo);
    if (!o->json && !o->rank)
        fprintf(stderr, "cluster: %zu series read, %zu kept after pre-processing\n", nread, kept);
    *out = raw;
    return 0;
fail:
    cli_lib_error();
    iolens_series_set_free(raw);
    return -1;
}

static int run_one(const struct opts *o, const iolens_series_set *set, int method, iolens_clustering **c,
                   double *secs)
{
    iolens_cluster_opts co = o->co;
    struct prog p = {0};
    co.method = method;
    co.progress = o->rank ? NULL : progress_cb;
    co.progress_ctx = &p;
    double t0 = now();
    int rc = iolens_cluster_run(c, set, &co);
    *secs = now() - t0;
    progress_done(&p);
    if (rc) {
        cli_lib_error();
        return -1;
    }
    return 0;
}

static int do_cluster(const struct opts *o, const iolens_series_set *set)
{
    iolens_clustering *c = NULL;
    iolens_cluster_metrics m, *mp = NULL;
    double secs;
    int rc = CLI_FAIL;
    size_t n = iolens_series_set_count(set);
    if (run_one(o, set, o->co.method, &c, &secs))
        goto done;
    if (o->rank) { /* the result is the first rank's to read out */
        rc = CLI_OK;
        goto done;
    }
    if (!o->no_metrics) {
        if (iolens_cluster_metrics_compute(&m, c, set, o->metrics_max, o->co.threads)) {
            cli_lib_error();
            goto done;
        }
        mp = &m;
    }
    double ari = ari_of(c, set);
    if (iolens_clustering_merged(c))
        fprintf(stderr, "cluster: %zu of the %zu clusters found held fewer than %u traces (or none) and were merged "
                        "into their nearest: %zu clusters\n",
                iolens_clustering_merged(c), iolens_clustering_k(c) + iolens_clustering_merged(c), o->co.min_cluster,
                iolens_clustering_k(c));
    if (o->out_dir) {
        if (make_dir(o->out_dir))
            goto done;
        if (iolens_clustering_write(c, set, o->out_dir)) {
            cli_lib_error();
            goto done;
        }
        if (write_metrics_files(o->out_dir, c, mp, secs, ari, n))
            goto done;
    }
    if (o->json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 1);
        json_run(&w, c, mp, secs, ari, n, 1);
        iol_jsonw_finish(&w);
    } else {
        printf("method %s: %zu traces in %zu clusters (%.3f s)\n", iolens_cluster_method_name(o->co.method), n,
               iolens_clustering_k(c), secs);
        for (size_t q = 0; q < iolens_clustering_k(c); q++)
            printf("  cluster %-6s %zu traces\n", iolens_clustering_name(c, q), iolens_clustering_size(c, q));
        if (mp) {
            printf("metrics:\n");
            for (int i = 0; i < IOLENS_METRIC_COUNT; i++)
                printf("  %-11s %.4g\n", iolens_metric_name(i), iolens_metric_get(mp, i));
        }
        if (!isnan(ari))
            printf("adjusted Rand index vs labels: %.3f\n", ari);
        if (o->out_dir)
            printf("wrote %s/{assignments,centroids,clusters,metrics}.csv, metrics.json, centroids.svg\n", o->out_dir);
    }
    rc = CLI_OK;
done:
    iolens_clustering_free(c);
    return rc;
}

static int do_compare(const struct opts *o, const iolens_series_set *set)
{
    int methods[IOLENS_CLUSTER_NMETHODS], nm = 0, rc = CLI_FAIL;
    char *list = strdup(o->methods ? o->methods : "sage,sage2,kmeans,kshape,dtw,random");
    iolens_cluster_metrics m[IOLENS_CLUSTER_NMETHODS];
    double secs[IOLENS_CLUSTER_NMETHODS], ari[IOLENS_CLUSTER_NMETHODS], score[IOLENS_CLUSTER_NMETHODS];
    double norm[IOLENS_CLUSTER_NMETHODS * IOLENS_METRIC_COUNT];
    size_t ks[IOLENS_CLUSTER_NMETHODS];
    size_t n = iolens_series_set_count(set);
    if (!list)
        return CLI_FAIL;
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int mth = iolens_cluster_method_parse(t);
        if (mth < 0 || nm == IOLENS_CLUSTER_NMETHODS) {
            cli_error("unknown or repeated method '%s' in --methods", t);
            free(list);
            return CLI_USAGE;
        }
        methods[nm++] = mth;
    }
    free(list);
    if (o->rank) { /* another rank of an MPI job: its share of each clustering */
        for (int i = 0; i < nm; i++) {
            iolens_clustering *c = NULL;
            if (run_one(o, set, methods[i], &c, &secs[i]))
                return CLI_FAIL;
            iolens_clustering_free(c);
        }
        return CLI_OK;
    }
    if (o->out_dir && make_dir(o->out_dir))
        return CLI_FAIL;
    for (int i = 0; i < nm; i++) {
        iolens_clustering *c = NULL;
        if (run_one(o, set, methods[i], &c, &secs[i]))
            return CLI_FAIL;
        if (iolens_cluster_metrics_compute(&m[i], c, set, o->metrics_max, o->co.threads)) {
            cli_lib_error();
            iolens_clustering_free(c);
            return CLI_FAIL;
        }
        ari[i] = ari_of(c, set);
        ks[i] = iolens_clustering_k(c);
        if (o->out_dir) {
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", o->out_dir, iolens_cluster_method_name(methods[i]));
            if (make_dir(sub) || iolens_clustering_write(c, set, sub) ||
                write_metrics_files(sub, c, &m[i], secs[i], ari[i], n)) {
                if (iolens_error_last_code())
                    cli_lib_error();
                iolens_clustering_free(c);
                return CLI_FAIL;
            }
        }
        iolens_clustering_free(c);
    }
    iolens_cluster_aggregate(m, (size_t)nm, norm, score);
    FILE *csv = NULL;
    if (o->out_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/compare.csv", o->out_dir);
        if (!(csv = fopen(path, "w"))) {
            cli_error("cannot write '%s': %s", path, strerror(errno));
            return CLI_FAIL;
        }
        fprintf(csv, "method,k,time_s,ari,aggregate");
        for (int j = 0; j < IOLENS_METRIC_COUNT; j++)
            fprintf(csv, ",%s,%s_norm", iolens_metric_name(j), iolens_metric_name(j));
        fputc('\n', csv);
        for (int i = 0; i < nm; i++) {
            fprintf(csv, "%s,%zu,%.6g,%.6g,%.6g", iolens_cluster_method_name(methods[i]), ks[i], secs[i], ari[i],
                    score[i]);
            for (int j = 0; j < IOLENS_METRIC_COUNT; j++)
                fprintf(csv, ",%.6g,%.4f", iolens_metric_get(&m[i], j), norm[i * IOLENS_METRIC_COUNT + j]);
            fputc('\n', csv);
        }
        if (fclose(csv)) {
            cli_error("cannot write compare.csv");
            return CLI_FAIL;
        }
    }
    if (o->json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 1);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "traces");
        iol_jsonw_uint(&w, n);
        iol_jsonw_key(&w, "methods");
        iol_jsonw_arr_begin(&w);
        for (int i = 0; i < nm; i++) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "method");
            iol_jsonw_str(&w, iolens_cluster_method_name(methods[i]));
            iol_jsonw_key(&w, "k");
            iol_jsonw_uint(&w, ks[i]);
            json_num(&w, "time_s", secs[i]);
            json_num(&w, "ari", ari[i]);
            json_num(&w, "aggregate", score[i]);
            json_metrics(&w, &m[i]);
            iol_jsonw_key(&w, "normalised");
            iol_jsonw_obj_begin(&w);
            for (int j = 0; j < IOLENS_METRIC_COUNT; j++)
                json_num(&w, iolens_metric_name(j), norm[i * IOLENS_METRIC_COUNT + j]);
            iol_jsonw_obj_end(&w);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
        return CLI_OK;
    }
    printf("%zu traces; each cell: median value (normalised score, 1 = best)\n", n);
    printf("%-12s", "");
    for (int i = 0; i < nm; i++)
        printf(" %17s", iolens_cluster_method_name(methods[i]));
    printf("\n");
    for (int j = 0; j < IOLENS_METRIC_COUNT; j++) {
        printf("%-12s", iolens_metric_name(j));
        for (int i = 0; i < nm; i++)
            printf(" %10.4g (%4.2f)", iolens_metric_get(&m[i], j), norm[i * IOLENS_METRIC_COUNT + j]);
        printf("\n");
    }
    printf("%-12s", "aggregate");
    for (int i = 0; i < nm; i++)
        printf(" %17.2f", score[i]);
    printf("\n%-12s", "clusters");
    for (int i = 0; i < nm; i++)
        printf(" %17zu", ks[i]);
    printf("\n%-12s", "time (s)");
    for (int i = 0; i < nm; i++)
        printf(" %17.3f", secs[i]);
    if (has_labels(set)) {
        printf("\n%-12s", "ARI");
        for (int i = 0; i < nm; i++)
            printf(" %17.3f", ari[i]);
    }
    printf("\n");
    rc = CLI_OK;
    return rc;
}

int cmd_cluster(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof o);
    iolens_cluster_opts_init(&o.co);
    iolens_series_read_opts_init(&o.ro);
    iolens_filter_opts_init(&o.fo);
    o.metrics_max = 5000;
    static const char *const formats[] = {"auto", "wide", "long", "heatmap", NULL};
    static const int format_of[] = {IOLENS_SERIES_AUTO, IOLENS_SERIES_WIDE, IOLENS_SERIES_LONG, IOLENS_SERIES_HEATMAP};
    static const char *const methods[] = {"sage", "sage2", "kmeans", "kshape", "dtw", "random", NULL};
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id, rc = CLI_USAGE, k;
    long n;
    double d;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_METHOD:
            if (cli_val_choice(&a, methods, &k) < 0)
                return CLI_USAGE;
            o.co.method = iolens_cluster_method_parse(a.val);
            break;
        case O_OUTPUT: o.out_dir = a.val; break;
        case O_METHODS: o.methods = a.val; break;
        case O_FORMAT:
            if (cli_val_choice(&a, formats, &k) < 0)
                return CLI_USAGE;
            o.ro.format = format_of[k];
            break;
        case O_STEP:
            if (cli_val_double(&a, 1e-9, 1e9, &d) < 0)
                return CLI_USAGE;
            o.ro.step_s = d;
            break;
        case O_ZERO_BELOW:
            if (cli_val_double(&a, 0, 1e12, &d) < 0)
                return CLI_USAGE;
            o.fo.zero_below = d;
            break;
        case O_LENGTH: {
            char *end;
            errno = 0;
            const char *v = a.val;
            unsigned long long lo = strtoull(v, &end, 10), hi = 0;
            int bad = errno || end == v || v[0] == '-' || (*end && *end != '-') || lo == 0;
            if (!bad && *end == '-') {
                const char *h = end + 1;
                hi = strtoull(h, &end, 10);
                bad = errno || end == h || *end || h[0] == '-' || lo > hi;
            }
            if (bad)
                return cli_args_exit(&a, cli_usage_error(&spec, "--length wants L or MIN-MAX with 1 <= MIN <= MAX, "
                                                                "not '%s'", v));
            o.synth_len = (size_t)lo;
            o.synth_len_max = (size_t)hi;
            break;
        }
        case O_COMPARE: o.compare = 1; break;
        case O_JSON: o.json = 1; break;
        case O_NO_METRICS: o.no_metrics = 1; break;
        case O_SEED: case O_K: case O_THREADS: case O_MIN_SAMPLES: case O_MAX_SAMPLES: case O_MIN_NONZERO:
        case O_WINDOW: case O_GENOME: case O_RESAMPLE: case O_METRICS_MAX: case O_SYNTH: {
            long lo = id == O_K || id == O_THREADS || id == O_WINDOW || id == O_GENOME || id == O_RESAMPLE ||
                      id == O_SYNTH ? 1 : 0;
            long hi = id == O_K ? 255 : id == O_THREADS ? 64 : id == O_WINDOW ? 64 : id == O_GENOME || id == O_RESAMPLE
                      ? 100000 : id == O_SYNTH ? 100000000L : LONG_MAX;
            if (cli_val_long(&a, lo, hi, &n) < 0)
                return CLI_USAGE;
            size_t sz = (size_t)n;
            switch (id) {
            case O_SEED: o.co.seed = sz; break;
            case O_K: o.co.k = (unsigned)sz; break;
            case O_THREADS: o.co.threads = (unsigned)sz; break;
            case O_MIN_SAMPLES: o.fo.min_samples = sz; break;
            case O_MAX_SAMPLES: o.fo.max_samples = sz; break;
            case O_MIN_NONZERO: o.fo.min_nonzero = sz; break;
            case O_WINDOW: o.co.window = (unsigned)sz; break;
            case O_GENOME: o.co.genome_len = (unsigned)sz; break;
            case O_RESAMPLE: o.co.resample_len = (unsigned)sz; break;
            case O_METRICS_MAX: o.metrics_max = sz; break;
            default: o.synth = 1; o.synth_n = sz; break;
            }
            break;
        }
        }
    }
    if (id < 0)
        return cli_args_exit(&a, id);
    char **inputs = a.operands;
    int ninputs = a.noperands;
    if (o.synth) {
        if (ninputs)
            return cli_args_exit(&a, cli_usage_error(&spec, "--synth takes no INPUT"));
        o.synth_out = o.out_dir;
        return do_synth(&o);
    }
    if (cli_want_operands(&a, 1, -1, "INPUT") < 0)
        return CLI_USAGE;
#ifdef IOLENS_HAVE_MPI
    /* on the ranks of an MPI job: every rank reads the inputs and computes its share of each
     * series' work; the first one writes the result, the same as one process's */
    int mpi = cli_launched_by_mpirun(), nranks = 1;
    iolens_cluster_dist dist = {0, 1, mpi_gather, &nranks};
    if (mpi) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &o.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        dist.rank = o.rank;
        dist.size = nranks;
        o.co.dist = &dist;
        FILE *out = o.rank ? freopen("/dev/null", "w", stdout) : stdout; /* the first rank speaks */
        (void)out;
    }
#endif
    iolens_series_set *set = NULL;
    if (read_inputs(&o, inputs, ninputs, &set)) {
        rc = CLI_FAIL;
        goto out;
    }
    if (iolens_series_set_count(set) == 0) {
        cli_error("no series left to cluster after pre-processing (see --min-samples, --min-nonzero)");
        rc = CLI_FAIL;
    } else {
        rc = o.compare ? do_compare(&o, set) : do_cluster(&o, set);
    }
    iolens_series_set_free(set);
out:
#ifdef IOLENS_HAVE_MPI
    if (o.co.dist) {
        if (rc != CLI_OK) /* the other ranks would wait for this one in their next gather */
            MPI_Abort(MPI_COMM_WORLD, rc);
        MPI_Finalize();
    }
#endif
    return rc;
}
