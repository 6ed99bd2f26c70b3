/*
 * Decode throughput of the Darshan reader over the shared logs.
 *
 *   build/bench/darshan/bench_darshan [--runs N] [--json] [LOG_OR_DIR...]
 *
 * Without arguments: every *.darshan under $IOLENS_SHARED_DATA/darshan and
 * $IOLENS_SHARED_DATA/aiio (default ../shared/data). Each run passes over all
 * logs in three modes:
 *   decode: open + every name + every record of every module (DXT included),
 *           through the streaming API, nothing written;
 *   json:   open + iolens_darshan_write_json() to /dev/null;
 *   text:   `iolens darshan LOG` (darshan-parser layout) to /dev/null.
 * Prints, per mode, the median over N runs (default 5) of the wall time of a
 * whole pass, as MB of log per second and records per second (records =
 * those the decode mode counts). Logs are read from the page cache after the
 * first pass (warm-cache figures). Logs the reader rejects are left out.
 * The median CPU time of the process is printed too: on a shared machine it
 * is the steadier figure. The text mode's warnings (stderr) are discarded.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>


#include "iolens/darshan.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

struct list {
    char **v;
    size_t n, cap;
};

static void add(struct list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            exit(1);
    }
    l->v[l->n++] = strdup(p);
}

static void walk(struct list *l, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0)
            continue;
        size_t n = strlen(p);
        if (S_ISDIR(st.st_mode))
            walk(l, p);
        else if (n > 8 && !strcmp(p + n - 8, ".darshan"))
            add(l, p);
    }
    if (d)
        closedir(d);
}

/* decode mode: returns records or -1 */
static long long decode(const char *path)
{
    iolens_darshan_log *log;
    if (iolens_darshan_open(path, NULL, NULL, &log) < 0)
        return -1;
    long long n = 0;
    uint64_t id;
    const char *name;
    int rc = iolens_darshan_names_begin(log);
    while (rc == 0 && (rc = iolens_darshan_names_next(log, &id, &name)) > 0)
        ;
    for (int m = 1; rc >= 0 && m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if ((rc = iolens_darshan_module_begin(log, m)) <= 0)
            continue;
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(log, &r)) > 0)
            n++;
    }
    iolens_darshan_close(log);
    return rc < 0 ? -1 : n;
}

static int json(const char *path, FILE *devnull)
{
    iolens_darshan_log *log;
    if (iolens_darshan_open(path, NULL, NULL, &log) < 0)
        return -1;
    int rc = iolens_darshan_write_json(log, devnull, 0);
    iolens_darshan_close(log);
    return rc;
}

int main(int argc, char **argv)
{
    int runs = 5, as_json = 0;
    struct list logs = {0};
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            walk(&logs, argv[i]);
        else
            add(&logs, argv[i]);
    }
    if (runs < 1)
        runs = 1;
    if (logs.n == 0) {
        const char *dd = getenv("IOLENS_SHARED_DATA");
        char p[4096];
        snprintf(p, sizeof p, "%s/darshan", dd ? dd : "../shared/data");
        walk(&logs, p);
        snprintf(p, sizeof p, "%s/aiio", dd ? dd : "../shared/data");
        walk(&logs, p);
    }
    if (logs.n)
        qsort(logs.v, logs.n, sizeof *logs.v, cmp_str);
    /* keep the logs the reader accepts; count bytes and records once */
    double bytes = 0;
    long long records = 0;
    size_t kept = 0;
    for (size_t i = 0; i < logs.n; i++) {
        long long n = decode(logs.v[i]);
        struct stat st;
        if (n < 0 || stat(logs.v[i], &st) != 0) {
            fprintf(stderr, "bench_darshan: skipping %s: %s\n", logs.v[i], iolens_error_last());
            free(logs.v[i]);
            continue;
        }
        bytes += (double)st.st_size;
        records += n;
        logs.v[kept++] = logs.v[i];
    }
    logs.n = kept;
    if (!kept) {
        fprintf(stderr, "bench_darshan: no log\n");
        return 1;
    }
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull)
        return 1;
    static const char *const modes[] = {"decode", "json", "text"};
    double med[3], medc[3];
    double *t = malloc((size_t)runs * sizeof *t), *c = malloc((size_t)runs * sizeof *c);
    int saved_err = dup(STDERR_FILENO), null_fd = open("/dev/null", O_WRONLY);
    if (!t || !c || saved_err < 0 || null_fd < 0)
        return 1;
    for (int m = 0; m < 3; m++) {
        if (m == 2) {
            fflush(stderr);
            dup2(null_fd, STDERR_FILENO);
        }
        for (int r = 0; r < runs; r++) {
            double t0 = now(), c0 = cpu();
            for (size_t i = 0; i < logs.n; i++) {
                if (m == 0)
                    decode(logs.v[i]);
                else if (m == 1)
                    json(logs.v[i], devnull);
                else
                    iolens_darshan_write_text(devnull, devnull, logs.v[i], IOLENS_DARSHAN_TEXT_BASE | IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE);
            }
            t[r] = now() - t0;
            c[r] = cpu() - c0;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        qsort(c, (size_t)runs, sizeof *c, cmp_double);
        med[m] = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
        medc[m] = runs % 2 ? c[runs / 2] : (c[runs / 2 - 1] + c[runs / 2]) / 2;
    }
    fflush(stderr);
    dup2(saved_err, STDERR_FILENO);
    close(saved_err);
    close(null_fd);
    if (as_json) {
        printf("{\"logs\": %zu, \"bytes\": %.0f, \"records\": %lld, \"runs\": %d", logs.n, bytes, records, runs);
        for (int m = 0; m < 3; m++)
            printf(", \"%s\": {\"median_s\": %.6f, \"median_cpu_s\": %.6f, \"mb_per_s\": %.3f, "
                   "\"records_per_s\": %.0f, \"mb_per_cpu_s\": %.3f}",
                   modes[m], med[m], medc[m], bytes / 1e6 / med[m], (double)records / med[m],
                   bytes / 1e6 / medc[m]);
        printf("}\n");
    } else {
        printf("%zu logs, %.2f MB, %lld records; median of %d runs per mode\n", logs.n, bytes / 1e6, records,
               runs);
        printf("%-8s %10s %10s %14s %10s %12s\n", "mode", "median s", "MB/s", "records/s", "cpu s",
               "MB/cpu-s");
        for (int m = 0; m < 3; m++)
            printf("%-8s %10.4f %10.2f %14.0f %10.4f %12.2f\n", modes[m], med[m], bytes / 1e6 / med[m],
                   (double)records / med[m], medc[m], bytes / 1e6 / medc[m]);
    }
    free(t);
    free(c);
    fclose(devnull);
    for (size_t i = 0; i < logs.n; i++)
        free(logs.v[i]);
    free(logs.v);
    return 0;
}
