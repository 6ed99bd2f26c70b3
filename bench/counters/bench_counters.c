/*
 * Counter computation speed: events per second through iolens_counters_compute().
 *
 *   build/bench/counters/bench_counters [--runs N] [--events N] [--stdout-ranks R] [--csv] [TRACE_DIR...]
 *
 * Inputs, each fed from memory so that only the counters are timed:
 *   synthetic: N events (default 2,000,000) over 4 ranks x 16 files, POSIX
 *              reads/writes of 6 sizes with strided and consecutive offsets,
 *              some seeks/opens/closes, plus MPI-IO and STDIO calls;
 *   every Recorder trace given (default: the shared_* and ckpt_* traces of
 *              $IOLENS_SHARED_DATA/recorder), decoded once into memory first.
 *   stdout:    R ranks (--stdout-ranks, default 2048; 0 leaves it out) whose
 *              standard output and error were one file the batch system opened
 *              (an iolens_fd_at_start note of descriptors 1 and 2 each), each
 *              writing 50 lines to it with write(1, ...): calls on a file the
 *              processes had open when they started, which make no record.
 * For each input, three configurations (all records / no DXT / no DXT and no
 * heatmap), N runs each (default 5); prints the median wall time and events/s.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolens/counters.h"
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

/* An in-memory event source: events grouped by rank. */
typedef struct memsrc {
    int nranks;
    iolens_file *files;
    size_t nfiles;
    iolens_event *ev;
    size_t nev, cap;
    size_t *first, *count, *pos;
    iolens_evsource *owner; /* keeps the strings of a decoded trace alive */
} memsrc;

static int m_nranks(void *impl) { return ((memsrc *)impl)->nranks; }
static double m_start(void *impl) { (void)impl; return 0; }
static int m_files(void *impl, const iolens_file **out, size_t *count)
{
    memsrc *m = impl;
    *out = m->files;
    *count = m->nfiles;
    return 0;
}
static int m_next(void *impl, int rank, iolens_event *out)
{
    memsrc *m = impl;
    if (m->pos[rank] >= m->count[rank])
        return 0;
    *out = m->ev[m->first[rank] + m->pos[rank]++];
    return 1;
}
static int m_rewind(void *impl, int rank)
{
    ((memsrc *)impl)->pos[rank] = 0;
    return 0;
}
static void m_free(void *impl) { (void)impl; /* owned by main */ }
static const iolens_evsource_ops mem_ops = {IOLENS_EVSOURCE_OPS_VERSION, "memory", m_nranks, m_start,
                                            m_files, m_next, m_rewind, m_free};

static iolens_event *push(memsrc *m)
{
    if (m->nev == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4096;
        m->ev = realloc(m->ev, m->cap * sizeof *m->ev);
        if (!m->ev) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    return &m->ev[m->nev++];
}

static void index_ranks(memsrc *m)
{
    m->first = calloc((size_t)m->nranks, sizeof(size_t));
    m->count = calloc((size_t)m->nranks, sizeof(size_t));
    m->pos = calloc((size_t)m->nranks, sizeof(size_t));
    for (size_t i = 0; i < m->nev; i++)
        if (m->count[m->ev[i].rank]++ == 0)
            m->first[m->ev[i].rank] = i;
}

static void synthetic(memsrc *m, long long n)
{
    static char paths[16][32];
    m->nranks = 4;
    m->nfiles = 16;
    m->files = calloc(16, sizeof *m->files);
    for (int i = 0; i < 16; i++) {
        snprintf(paths[i], sizeof paths[i], "/scratch/bench/f%d", i);
        m->files[i].id = i;
        m->files[i].path = paths[i];
    }
    static const int64_t sizes[] = {64, 700, 3000, 4096, 65536, 1 << 20};
    long long per = n / 4;
    unsigned seed = 12345;
    for (int r = 0; r < 4; r++) {
        double t = 0;
        int64_t off[16] = {0};
        for (long long i = 0; i < per; i++) {
            seed = seed * 1103515245u + 12345u;
            iolens_event *e = push(m);
            memset(e, 0, sizeof *e);
            e->rank = r;
            int f = (int)((seed >> 8) % 16);
            e->file = f;
            e->tstart = t;
            t += 1e-5 * (1 + (seed >> 20) % 7);
            e->tend = t;
            e->ret = -1;
            e->open_flags = e->mode = e->whence = -1;
            unsigned k = (seed >> 4) % 100;
            e->layer = k < 85 ? IOLENS_LAYER_POSIX : k < 95 ? IOLENS_LAYER_MPIIO : IOLENS_LAYER_STDIO;
            if (k % 50 == 7) {
                e->op = IOLENS_OP_OPEN;
                e->func = e->layer == IOLENS_LAYER_MPIIO ? "MPI_File_open" : e->layer == IOLENS_LAYER_STDIO ? "fopen" : "open";
                e->offset = e->size = -1;
            } else if (k % 50 == 9) {
                e->op = IOLENS_OP_SEEK;
                e->func = "lseek";
                e->offset = off[f] = 0;
                e->size = -1;
            } else {
                int w = (seed >> 12) & 1;
                e->op = w ? IOLENS_OP_WRITE : IOLENS_OP_READ;
                e->func = w ? "pwrite" : "pread";
                e->size = sizes[(seed >> 16) % 6];
                e->offset = off[f];
                off[f] += e->size + ((seed >> 24) % 3 == 0 ? 4096 : 0);
            }
        }
    }
    index_ranks(m);
}

static void stdout_ranks(memsrc *m, int nranks)
{
    static const char path[] = "/scratch/job.out";
    m->nranks = nranks;
    m->nfiles = 1;
    m->files = calloc(1, sizeof *m->files);
    m->files[0].path = path;
    for (int r = 0; r < nranks; r++) {
        double t = 0;
        for (int i = 0; i < 52; i++) {
            iolens_event *e = push(m);
            memset(e, 0, sizeof *e);
            e->rank = r;
            e->file = 0;
            e->layer = IOLENS_LAYER_POSIX;
            e->open_flags = e->mode = e->whence = -1;
            e->tstart = t;
            t += 1e-5;
            e->tend = t;
            if (i < 2) { /* descriptors 1 and 2, open when the process started */
                e->op = IOLENS_OP_OPEN;
                e->func = "iolens_fd_at_start";
                e->ret = 1 + i;
                e->offset = 0;
                e->size = -1;
            } else {
                e->op = IOLENS_OP_WRITE;
                e->func = "write";
                e->size = e->ret = 40;
                e->offset = -1;
                e->flags = IOLENS_EVF_OFFSET_UNKNOWN;
            }
        }
    }
    index_ranks(m);
}

static int load_trace(memsrc *m, const char *dir)
{
    iolens_evsource *s;
    if (iolens_recorder_open(dir, &s, NULL) < 0) {
        fprintf(stderr, "%s: %s\n", dir, iolens_error_last());
        return -1;
    }
    m->owner = s;
    m->nranks = iolens_evsource_nranks(s);
    const iolens_file *files;
    iolens_evsource_files(s, &files, &m->nfiles);
    m->files = malloc((m->nfiles ? m->nfiles : 1) * sizeof *m->files);
    memcpy(m->files, files, m->nfiles * sizeof *m->files);
    for (int r = 0; r < m->nranks; r++) {
        iolens_evsource_rewind(s, r);
        iolens_event e;
        while (iolens_evsource_next(s, r, &e) > 0) {
            e.rank = r;
            *push(m) = e;
        }
    }
    index_ranks(m);
    return 0;
}

static void bench(const char *name, memsrc *m, int runs, int csv)
{
    static const char *const cfg[] = {"all", "no-dxt", "no-dxt-no-heatmap"};
    for (int k = 0; k < 3; k++) {
        double *t = calloc((size_t)runs, sizeof *t);
        for (int i = 0; i < runs; i++) {
            iolens_evsource *s;
            iolens_evsource_new(&s, &mem_ops, m);
            iolens_counters_opts o;
            iolens_counters_opts_init(&o);
            o.all_paths = 1;
            o.mounts = "ext4\t/";
            o.dxt = k == 0;
            o.heatmap = k < 2;
            iolens_counters *c;
            double t0 = now();
            if (iolens_counters_compute(s, &o, &c) < 0) {
                fprintf(stderr, "%s: %s\n", name, iolens_error_last());
                exit(1);
            }
            t[i] = now() - t0;
            iolens_counters_free(c);
            iolens_evsource_free(s);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        double med = t[runs / 2];
        if (csv)
            printf("%s,%s,%zu,%.6f,%.0f\n", name, cfg[k], m->nev, med, (double)m->nev / med);
        else
            printf("%-36s %-18s %10zu events  %9.4f s  %8.2f M events/s\n", name, cfg[k], m->nev, med,
                   (double)m->nev / med / 1e6);
        free(t);
    }
}

static void memsrc_release(memsrc *m)
{
    iolens_evsource_free(m->owner);
    free(m->files);
    free(m->ev);
    free(m->first);
    free(m->count);
    free(m->pos);
    memset(m, 0, sizeof *m);
}

int main(int argc, char **argv)
{
    int runs = 5, csv = 0, out_ranks = 2048;
    long long nev = 2000000;
    int first_dir = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc)
            nev = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--stdout-ranks") && i + 1 < argc)
            out_ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else {
            first_dir = i;
            break;
        }
    }
    if (runs < 1)
        runs = 1;
    if (csv)
        printf("input,config,events,median_s,events_per_s\n");
    memsrc m = {0};
    synthetic(&m, nev);
    bench("synthetic", &m, runs, csv);
    memsrc_release(&m);
    if (out_ranks > 0) {
        char name[64];
        snprintf(name, sizeof name, "stdout, %d ranks", out_ranks);
        stdout_ranks(&m, out_ranks);
        bench(name, &m, runs, csv);
        memsrc_release(&m);
    }
    const char *data = getenv("IOLENS_SHARED_DATA");
    char base[4096];
    snprintf(base, sizeof base, "%s/recorder", data ? data : "../shared/data");
    static const char *const defaults[] = {"shared_n2_m1000", "shared_n4_m1000_bothPR", "ckpt_n2_m1000", NULL};
    for (int i = first_dir; i < argc || (first_dir == argc && defaults[i - first_dir]); i++) {
        char dir[8300];
        if (first_dir < argc)
            snprintf(dir, sizeof dir, "%s", argv[i]);
        else
            snprintf(dir, sizeof dir, "%s/%s", base, defaults[i - first_dir]);
        if (load_trace(&m, dir) == 0) {
            const char *slash = strrchr(dir, '/');
            bench(slash ? slash + 1 : dir, &m, runs, csv);
        }
        memsrc_release(&m);
        if (first_dir < argc && i + 1 >= argc)
            break;
    }
    return 0;
}
