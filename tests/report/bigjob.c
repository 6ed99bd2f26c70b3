/* Writes the Darshan log of a synthetic job of N processes through the public API, for the
 * report's tests and bench at scales the shared logs do not reach (65,536 processes): every
 * process opens one shared file and one file of its own, writes 4 chunks of 1 MiB to the shared
 * file at its offset and 16 KiB to its own, reads its chunks back, and closes both; rank r
 * starts at r * 1 µs, so the heatmap and timeline have structure.
 *   bigjob N OUT.darshan */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/counters.h"
#include "iolens/event.h"

#define PER_RANK 14

struct src {
    int n;
    int *pos;
    iolens_file *files; /* 0: shared, 1 + r: rank r's own */
    char **names;
};

static int s_nranks(void *impl) { return ((struct src *)impl)->n; }
static double s_start(void *impl) { (void)impl; return 1733000000.0; }
static int s_files(void *impl, const iolens_file **out, size_t *count)
{
    struct src *s = impl;
    *out = s->files;
    *count = (size_t)s->n + 1;
    return 0;
}

static int s_next(void *impl, int rank, iolens_event *e)
{
    struct src *s = impl;
    int k = s->pos[rank];
    if (k >= PER_RANK)
        return 0;
    s->pos[rank]++;
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->layer = IOLENS_LAYER_POSIX;
    e->offset = e->size = -1;
    e->open_flags = e->mode = e->whence = -1;
    double t = 1e-6 * rank + 0.01 * k;
    e->tstart = t;
    e->tend = t + 0.004;
    int64_t own = 1 + rank;
    static const struct {
        iolens_op op;
        const char *func;
        int own;
    } plan[PER_RANK] = {{IOLENS_OP_OPEN, "open", 0},   {IOLENS_OP_OPEN, "open", 1},   {IOLENS_OP_WRITE, "pwrite", 0},
                        {IOLENS_OP_WRITE, "pwrite", 0}, {IOLENS_OP_WRITE, "pwrite", 0}, {IOLENS_OP_WRITE, "pwrite", 0},
                        {IOLENS_OP_WRITE, "pwrite", 1}, {IOLENS_OP_READ, "pread", 0},  {IOLENS_OP_READ, "pread", 0},
                        {IOLENS_OP_READ, "pread", 0},   {IOLENS_OP_READ, "pread", 0},  {IOLENS_OP_READ, "pread", 1},
                        {IOLENS_OP_CLOSE, "close", 0},  {IOLENS_OP_CLOSE, "close", 1}};
    e->op = plan[k].op;
    e->func = plan[k].func;
    e->file = plan[k].own ? own : 0;
    if (e->op == IOLENS_OP_OPEN) {
        e->open_flags = 0102; /* O_RDWR | O_CREAT */
        e->mode = 0644;
        e->ret = 3 + plan[k].own;
    } else if (e->op == IOLENS_OP_WRITE || e->op == IOLENS_OP_READ) {
        int chunk = (k - (e->op == IOLENS_OP_WRITE ? 2 : 7)) & 3;
        e->size = plan[k].own ? 16384 : 1048576;
        e->offset = plan[k].own ? 0 : ((int64_t)rank * 4 + chunk) * 1048576;
        e->ret = e->size;
    }
    return 1;
}

static int s_rewind(void *impl, int rank)
{
    ((struct src *)impl)->pos[rank] = 0;
    return 0;
}

static void s_free(void *impl)
{
    struct src *s = impl;
    for (int i = 0; i <= s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->files);
    free(s->pos);
    free(s);
}

static const iolens_evsource_ops ops = {IOLENS_EVSOURCE_OPS_VERSION, "bigjob", s_nranks, s_start, s_files, s_next,
                                        s_rewind, s_free};

int main(int argc, char **argv)
{
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: bigjob NPROCS OUT.darshan\n");
        return 2;
    }
    struct src *s = calloc(1, sizeof *s);
    s->n = atoi(argv[1]);
    s->pos = calloc((size_t)s->n, sizeof *s->pos);
    s->files = calloc((size_t)s->n + 1, sizeof *s->files);
    s->names = calloc((size_t)s->n + 1, sizeof *s->names);
    for (int i = 0; i <= s->n; i++) {
        s->names[i] = malloc(64);
        if (i)
            snprintf(s->names[i], 64, "/scratch/job/rank%06d.dat", i - 1);
        else
            snprintf(s->names[i], 64, "/scratch/job/shared.dat");
        s->files[i].id = i;
        s->files[i].path = s->names[i];
    }
    iolens_evsource *src = NULL;
    if (iolens_evsource_new(&src, &ops, s) < 0) {
        fprintf(stderr, "bigjob: %s\n", iolens_error_last());
        return 1;
    }
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.exe = "/scratch/bin/bigjob --synthetic";
    o.mounts = "lustre\t/scratch\next4\t/\n";
    o.jobid = 4242;
    iolens_counters *c = NULL;
    int rc = iolens_counters_compute(src, &o, &c);
    if (rc == 0)
        rc = iolens_counters_write(c, argv[2]);
    if (rc < 0)
        fprintf(stderr, "bigjob: %s\n", iolens_error_last());
    iolens_counters_free(c);
    iolens_evsource_free(src);
    return rc < 0;
}
