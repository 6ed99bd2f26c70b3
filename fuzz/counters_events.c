/* Fuzz target of the counters module: the input is a sequence of 64-byte
 * events (rank, layer, op, flags, file, offset, size, ret, tstart, tend as raw
 * values: NaN, inf, INT64_MAX, negative sizes ... all reach the counter rules),
 * fed through an event source; the records are computed (with and without the
 * shared-file reduction) and written as a Darshan log to /dev/null. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/counters.h"

#define EV_BYTES 64
#define NRANKS 3

typedef struct fsrc {
    const uint8_t *data;
    size_t n;
    size_t pos[NRANKS];
    iolens_file files[4];
} fsrc;

static int f_nranks(void *impl) { (void)impl; return NRANKS; }
static double f_start(void *impl) { (void)impl; return 1.7e9; }
static int f_files(void *impl, const iolens_file **out, size_t *count)
{
    fsrc *f = impl;
    *out = f->files;
    *count = 4;
    return 0;
}
static int f_next(void *impl, int rank, iolens_event *out)
{
    fsrc *f = impl;
    static const char *const funcs[] = {"write", "fileno", "MPI_File_write_all", "fdopen",
                                        "fdatasync", "MPI_File_iread_begin", "pread", "fflush"};
    while (f->pos[rank] + EV_BYTES <= f->n) {
        const uint8_t *p = f->data + f->pos[rank];
        f->pos[rank] += EV_BYTES;
        if (p[0] % NRANKS != (unsigned)rank)
            continue;
        memset(out, 0, sizeof *out);
        out->rank = rank;
        out->thread = p[1];
        out->layer = (iolens_layer)(p[2] % 7);
        out->op = (iolens_op)(p[3] % 17);
        out->flags = p[4];
        out->func = funcs[p[5] % 8];
        out->file = (int64_t)(int8_t)p[6] % 5;
        out->open_flags = (int8_t)p[7];
        memcpy(&out->offset, p + 8, 8);
        memcpy(&out->size, p + 16, 8);
        memcpy(&out->ret, p + 24, 8);
        memcpy(&out->tstart, p + 32, 8);
        memcpy(&out->tend, p + 40, 8);
        memcpy(&out->mode, p + 48, 4);
        out->whence = -1;
        return 1;
    }
    return 0;
}
static int f_rewind(void *impl, int rank)
{
    ((fsrc *)impl)->pos[rank] = 0;
    return 0;
}
static void f_free(void *impl) { free(impl); }
static const iolens_evsource_ops fuzz_ops = {IOLENS_EVSOURCE_OPS_VERSION, "fuzz", f_nranks, f_start,
                                             f_files, f_next, f_rewind, f_free};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    for (int per_rank = 0; per_rank < 2; per_rank++) {
        fsrc *f = calloc(1, sizeof *f);
        if (!f)
            return 0;
        f->data = data;
        f->n = size;
        static const char *const paths[] = {"/data/a", "/dev/x", "/data/shared", ""};
        for (int i = 0; i < 4; i++) {
            f->files[i].id = i;
            f->files[i].path = paths[i];
        }
        iolens_evsource *s;
        if (iolens_evsource_new(&s, &fuzz_ops, f) < 0) {
            free(f);
            return 0;
        }
        iolens_counters_opts o;
        iolens_counters_opts_init(&o);
        o.keep_per_rank = per_rank;
        o.all_paths = per_rank;
        o.file_alignment = size % 7;
        o.mounts = "ext4\t/\ntmpfs\t/dev";
        iolens_counters *c = NULL;
        if (iolens_counters_compute(s, &o, &c) == 0)
            iolens_counters_write(c, "/dev/null");
        iolens_counters_free(c);
        iolens_evsource_free(s);
    }
    return 0;
}
