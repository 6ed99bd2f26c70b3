/*
 * Decode speed of the Recorder reader over the shared traces.
 *
 *   build/bench/recorder/bench_recorder [--runs N] [--csv] [TRACE_DIR...]
 *
 * Without directories, every trace under $IOLENS_SHARED_DATA/recorder (or
 * ../shared/data/recorder). For each trace, N runs (default 5) of
 *   open:   read metadata, signature tables and grammars,
 *   decode: expand every rank through the event stream (after open),
 *   text:   open the trace + write every rank as recorder2text lines to /dev/null,
 * and prints the median wall time and records per second.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "iolens/event.h"
#include "iolens/recorder.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static long long dir_bytes(const char *dir)
{
    long long total = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && strstr(e->d_name, ".txt") == NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            total += st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

/* One run: open (*topen) then decode every rank through the event stream
 * (*tdec); returns records decoded or -1. */
static long long run_events(const char *dir, double *topen, double *tdec)
{
    iolens_evsource *src;
    double t0 = now();
    if (iolens_recorder_open(dir, &src, NULL) < 0)
        return -1;
    double t1 = now();
    long long n = 0;
    int rc = 0;
    for (int r = 0; r < iolens_evsource_nranks(src) && rc >= 0; r++) {
        iolens_event ev;
        while ((rc = iolens_evsource_next(src, r, &ev)) == 1)
            n++;
    }
    *topen = t1 - t0;
    *tdec = now() - t1;
    iolens_evsource_free(src);
    return rc < 0 ? -1 : n;
}

static long long run_text(const char *dir, FILE *devnull)
{
    iolens_recorder *rec;
    if (iolens_recorder_read(dir, &rec, NULL) < 0)
        return -1;
    long long n = 0;
    for (int r = 0; r < iolens_recorder_nranks(rec); r++) {
        int64_t k = iolens_recorder_write_text(rec, r, devnull, NULL);
        if (k < 0) {
            n = -1;
            break;
        }
        n += k;
    }
    iolens_recorder_free(rec);
    return n;
}

static int bench_one(const char *dir, int runs, int csv, FILE *devnull)
{
    double *to = calloc((size_t)runs, sizeof *to), *te = calloc((size_t)runs, sizeof *te),
           *tt = calloc((size_t)runs, sizeof *tt);
    long long records = 0;
    int status = 0;
    for (int i = 0; i < runs; i++) {
        records = run_events(dir, &to[i], &te[i]);
        double t1 = now();
        long long k = run_text(dir, devnull);
        double t2 = now();
        if (records < 0 || k != records) {
            fprintf(stderr, "bench_recorder: cannot decode '%s': %s\n", dir, iolens_error_last());
            status = 1;
            goto done;
        }
        tt[i] = t2 - t1;
    }
    qsort(to, (size_t)runs, sizeof *to, cmp_double);
    qsort(te, (size_t)runs, sizeof *te, cmp_double);
    qsort(tt, (size_t)runs, sizeof *tt, cmp_double);
    double mo = to[runs / 2], me = te[runs / 2], mt = tt[runs / 2];
    const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    long long bytes = dir_bytes(dir);
    if (csv)
        printf("%s,%lld,%lld,%.6f,%.6f,%.0f,%.6f,%.0f\n", name, records, bytes, mo, me, records / me, mt,
               records / mt);
    else
        printf("%-38s %8lld %8lld %9.5f %9.5f %12.0f %9.5f %12.0f\n", name, records, bytes, mo, me, records / me,
               mt, records / mt);
done:
    free(to);
    free(te);
    free(tt);
    return status;
}

int main(int argc, char **argv)
{
    int runs = 5, csv = 0, status = 0, ndirs = 0;
    char **dirs = calloc((size_t)argc + 64, sizeof *dirs);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--help")) {
            printf("usage: bench_recorder [--runs N] [--csv] [TRACE_DIR...]\n");
            free(dirs);
            return 0;
        } else
            dirs[ndirs++] = strdup(argv[i]);
    }
    if (!ndirs) {
        const char *root = getenv("IOLENS_SHARED_DATA");
        char base[4096];
        snprintf(base, sizeof base, "%s/recorder", root ? root : "../shared/data");
        DIR *d = opendir(base);
        struct dirent *e;
        while (d && (e = readdir(d)) && ndirs < 64) {
            char p[4400], mt[4420];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", base, e->d_name);
            snprintf(mt, sizeof mt, "%s/recorder.mt", p);
            if (e->d_name[0] != '.' && stat(mt, &st) == 0)
                dirs[ndirs++] = strdup(p);
        }
        if (d)
            closedir(d);
        if (!ndirs) {
            fprintf(stderr, "bench_recorder: no traces under '%s'\n", base);
            free(dirs);
            return 1;
        }
        qsort(dirs, (size_t)ndirs, sizeof *dirs, cmp_str);
    }
    FILE *devnull = fopen("/dev/null", "w");
    if (csv)
        printf("trace,records,trace_bytes,open_median_s,decode_median_s,decode_records_per_s,text_median_s,"
               "text_records_per_s\n");
    else
        printf("median of %d runs. open = read metadata, signatures, grammars; decode = expand every rank\n"
               "to the event stream; text = open + recorder2text lines to /dev/null\n"
               "%-38s %8s %8s %9s %9s %12s %9s %12s\n", runs, "trace", "records", "bytes", "open_s", "decode_s",
               "decode_rec/s", "text_s", "text_rec/s");
    for (int i = 0; i < ndirs; i++) {
        status |= bench_one(dirs[i], runs, csv, devnull);
        free(dirs[i]);
    }
    free(dirs);
    if (devnull)
        fclose(devnull);
    return status;
}
