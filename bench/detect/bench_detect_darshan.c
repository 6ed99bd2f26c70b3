/*
 * bench_detect_darshan [--all-paths] MODELS_DIR REPS LOG.darshan|TRACE...
 *
 * Inputs may also be iolens traces and Recorder trace directories (read with
 * iolens_detect_read(): the trace -> counters -> detect input path of
 * `iolens detect TRACE`; --all-paths keeps files Darshan excludes).
 * Per binary Darshan log, the median over REPS runs (ms) of the whole path of
 * `iolens detect` minus printing: open the log, stream every record into the
 * detect input (iolens_detect_read_darshan), the 157 features, the 8 XGBoost
 * predictions. "wall/cpu": wall-clock and thread CPU time (the CPU time is the
 * robust figure on a shared machine; XGBoost runs in the calling thread).
 * The file is read from the page cache (one warm-up run first).
 * Last lines: the median, 90th percentile and maximum of the per-log medians,
 * and how many logs are within 2 ms (the target).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "iolens/detect.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

/* Bytes of a file, or of the files of a directory (a Recorder trace). */
static double input_bytes(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return (double)st.st_size;
    double sum = 0;
    DIR *d = opendir(path);
    struct dirent *e;
    char p[8192];
    while (d && (e = readdir(d))) {
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            sum += (double)st.st_size;
    }
    if (d)
        closedir(d);
    return sum;
}

static int one_run(iolens_detect_model *m, const char *path, double *probs, int all_paths)
{
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    iolens_detect_read_opts o;
    iolens_detect_read_opts_init(&o);
    o.all_paths = all_paths;
    int rc = iolens_detect_read(&in, path, &o);
    if (rc == 0)
        rc = iolens_detect_input_features(in, x);
    if (rc == 0)
        rc = iolens_detect_predict(m, x, 1, probs);
    iolens_detect_input_free(in);
    return rc;
}

int main(int argc, char **argv)
{
    int all_paths = argc > 1 && !strcmp(argv[1], "--all-paths");
    if (all_paths) {
        argv++;
        argc--;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: bench_detect_darshan [--all-paths] MODELS_DIR REPS LOG.darshan|TRACE...\n");
        return 2;
    }
    iolens_detect_model *m = NULL;
    if (iolens_detect_model_load(&m, argv[1]) < 0) {
        fprintf(stderr, "bench_detect_darshan: %s\n", iolens_error_last());
        return 1;
    }
    int reps = atoi(argv[2]);
    if (reps < 1)
        reps = 1;
    int nlogs = argc - 3, done = 0, within = 0, rc = 0;
    double *t = malloc((size_t)reps * sizeof *t), *c = malloc((size_t)reps * sizeof *c);
    double *mw = malloc((size_t)nlogs * sizeof *mw), *mc = malloc((size_t)nlogs * sizeof *mc);
    if (!t || !c || !mw || !mc) {
        fprintf(stderr, "bench_detect_darshan: out of memory\n");
        rc = 1;
        goto out;
    }
    printf("%-60s %9s  %-17s\n", "log", "KiB", "e2e_ms wall/cpu");
    for (int a = 3; a < argc; a++) {
        double probs[IOLENS_DETECT_NLABELS];
        double bytes = input_bytes(argv[a]);
        if (bytes < 0 || one_run(m, argv[a], probs, all_paths) < 0) {
            fprintf(stderr, "bench_detect_darshan: %s: %s\n", argv[a], iolens_error_last());
            rc = 1;
            continue;
        }
        for (int i = 0; i < reps; i++) {
            double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
            one_run(m, argv[a], probs, all_paths);
            c[i] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
            t[i] = clock_ms(CLOCK_MONOTONIC) - w0;
        }
        mw[done] = median(t, reps);
        mc[done] = median(c, reps);
        within += mw[done] <= 2.0;
        const char *base = strrchr(argv[a], '/');
        base = base ? base + 1 : argv[a];
        char cell[40];
        snprintf(cell, sizeof cell, "%.3f/%.3f", mw[done], mc[done]);
        printf("%-60.60s %9.1f  %-17s\n", base, bytes / 1024.0, cell);
        done++;
    }
    if (done) {
        qsort(mw, (size_t)done, sizeof *mw, cmp_d);
        qsort(mc, (size_t)done, sizeof *mc, cmp_d);
        int p90 = (int)((done - 1) * 0.9 + 0.5);
        printf("\n%d logs, %d reps each; per-log medians (ms, wall/cpu):\n", done, reps);
        printf("  median %.3f/%.3f   p90 %.3f/%.3f   max %.3f/%.3f   within 2 ms (wall): %d of %d\n",
               median(mw, done), median(mc, done), mw[p90], mc[p90], mw[done - 1], mc[done - 1], within, done);
    }
out:
    free(t);
    free(c);
    free(mw);
    free(mc);
    iolens_detect_model_free(m);
    return rc;
}
