/* The counter rules against the real Darshan runtime: the DXT segments of the
 * real logs of ../shared/data/darshan/generated (every read and write the
 * runtime saw, with offsets, lengths and times) are replayed as an event
 * stream, and the counters iolens computes from them are compared with the
 * counters the runtime wrote in the same log. Only counters that the segments
 * determine are compared (opens, seeks, syncs and metadata times are not in DXT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/counters.h"
#include "iolens/darshan.h"

static char data_dir[4096];

typedef struct dxsrc {
    int nranks;
    iolens_file *files;
    size_t nfiles;
    iolens_event *ev; /* all events, grouped by rank */
    size_t nev, *first, *count, *pos;
} dxsrc;

static int d_nranks(void *impl) { return ((dxsrc *)impl)->nranks; }
static double d_start(void *impl) { (void)impl; return 0; }
static int d_files(void *impl, const iolens_file **out, size_t *count)
{
    dxsrc *d = impl;
    *out = d->files;
    *count = d->nfiles;
    return 0;
}
static int d_next(void *impl, int rank, iolens_event *out)
{
    dxsrc *d = impl;
    if (d->pos[rank] >= d->count[rank])
        return 0;
    *out = d->ev[d->first[rank] + d->pos[rank]++];
    return 1;
}
static int d_rewind(void *impl, int rank)
{
    ((dxsrc *)impl)->pos[rank] = 0;
    return 0;
}
static void d_free(void *impl)
{
    dxsrc *d = impl;
    free(d->files);
    free(d->ev);
    free(d->first);
    free(d->count);
    free(d->pos);
    free(d);
}
static const iolens_evsource_ops dx_ops = {IOLENS_EVSOURCE_OPS_VERSION, "dxt", d_nranks, d_start,
                                           d_files, d_next, d_rewind, d_free};

static int cmp_ev(const void *a, const void *b)
{
    const iolens_event *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->tstart != y->tstart)
        return x->tstart < y->tstart ? -1 : 1;
    return 0;
}

static iolens_evsource *dxt_source(const iolens_darshan_data *dd)
{
    dxsrc *d = calloc(1, sizeof *d);
    d->nranks = (int)iolens_darshan_job_get(iolens_darshan_data_log(dd))->nprocs;
    d->nfiles = iolens_darshan_data_name_count(dd);
    d->files = calloc(d->nfiles, sizeof *d->files);
    for (size_t i = 0; i < d->nfiles; i++) {
        uint64_t id;
        iolens_darshan_data_name_at(dd, i, &id, &d->files[i].path);
        d->files[i].id = (int64_t)i;
    }
    size_t cap = 1024;
    d->ev = malloc(cap * sizeof *d->ev);
    int mods[2] = {IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO};
    for (int mi = 0; mi < 2; mi++)
        for (size_t i = 0; i < iolens_darshan_data_count(dd, mods[mi]); i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(dd, mods[mi], i);
            int64_t file = -1;
            for (size_t k = 0; k < d->nfiles; k++) {
                uint64_t id;
                const char *n;
                iolens_darshan_data_name_at(dd, k, &id, &n);
                if (id == r->id)
                    file = (int64_t)k;
            }
            for (int64_t s = 0; s < r->dxt.write_count + r->dxt.read_count; s++) {
                if (d->nev == cap)
                    d->ev = realloc(d->ev, (cap *= 2) * sizeof *d->ev);
                const iolens_darshan_dxt_seg *g = &r->dxt.segs[s];
                iolens_event *e = &d->ev[d->nev++];
                memset(e, 0, sizeof *e);
                e->rank = (int32_t)r->rank;
                e->layer = mi == 0 ? IOLENS_LAYER_POSIX : IOLENS_LAYER_MPIIO;
                e->op = s < r->dxt.write_count ? IOLENS_OP_WRITE : IOLENS_OP_READ;
                e->func = mi == 0 ? (e->op == IOLENS_OP_WRITE ? "pwrite" : "pread")
                                  : (e->op == IOLENS_OP_WRITE ? "MPI_File_write_at" : "MPI_File_read_at");
                e->file = file;
                e->offset = g->offset;
                e->size = e->ret = g->length;
                e->tstart = g->start;
                e->tend = g->end;
                e->open_flags = e->mode = e->whence = -1;
            }
        }
    /* a file the runtime reduced was opened by every rank: DXT only has the ranks that did I/O,
     * so give every rank the open a trace would hold (counts of opens are not compared) */
    for (int mi = 0; mi < 2; mi++) {
        int mod = mi == 0 ? IOLENS_DARSHAN_POSIX : IOLENS_DARSHAN_MPIIO;
        for (size_t i = 0; i < iolens_darshan_data_count(dd, mod); i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(dd, mod, i);
            if (r->rank != -1)
                continue;
            for (size_t k = 0; k < d->nfiles; k++) {
                uint64_t id;
                const char *n;
                iolens_darshan_data_name_at(dd, k, &id, &n);
                if (id != r->id)
                    continue;
                for (int rank = 0; rank < d->nranks; rank++) {
                    if (d->nev == cap)
                        d->ev = realloc(d->ev, (cap *= 2) * sizeof *d->ev);
                    iolens_event *e = &d->ev[d->nev++];
                    memset(e, 0, sizeof *e);
                    e->rank = rank;
                    e->layer = mi == 0 ? IOLENS_LAYER_POSIX : IOLENS_LAYER_MPIIO;
                    e->op = IOLENS_OP_OPEN;
                    e->func = mi == 0 ? "open" : "MPI_File_open";
                    e->file = (int64_t)k;
                    e->offset = e->size = e->ret = -1;
                    e->open_flags = e->mode = e->whence = -1;
                    e->tstart = e->tend = 1e-9; /* before any I/O */
                }
            }
        }
    }
    qsort(d->ev, d->nev, sizeof *d->ev, cmp_ev);
    d->first = calloc((size_t)d->nranks, sizeof(size_t));
    d->count = calloc((size_t)d->nranks, sizeof(size_t));
    d->pos = calloc((size_t)d->nranks, sizeof(size_t));
    for (size_t i = 0; i < d->nev; i++) {
        int r = d->ev[i].rank;
        if (d->count[r]++ == 0)
            d->first[r] = i;
    }
    iolens_evsource *s;
    assert_int_equal(iolens_evsource_new(&s, &dx_ops, d), 0);
    return s;
}

static const char *const posix_cmp[] = {
    "POSIX_READS", "POSIX_WRITES", "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_MAX_BYTE_READ",
    "POSIX_MAX_BYTE_WRITTEN", "POSIX_CONSEC_READS", "POSIX_CONSEC_WRITES", "POSIX_SEQ_READS",
    "POSIX_SEQ_WRITES", "POSIX_RW_SWITCHES", "POSIX_FILE_NOT_ALIGNED", "POSIX_FILE_ALIGNMENT",
    "POSIX_MEM_ALIGNMENT", "POSIX_MAX_READ_TIME_SIZE", "POSIX_MAX_WRITE_TIME_SIZE", NULL};
static const char *const mpiio_cmp[] = {
    "MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN", "MPIIO_RW_SWITCHES", "MPIIO_MAX_READ_TIME_SIZE",
    "MPIIO_MAX_WRITE_TIME_SIZE", NULL};

static int compare_counter(const iolens_darshan_record *a, const iolens_darshan_record *b, size_t i,
                           const char *path)
{
    if (a->counters[i] == b->counters[i])
        return 0;
    fprintf(stderr, "%s rank %lld %s: iolens %lld, darshan %lld\n", path, (long long)b->rank,
            iolens_darshan_counter_name(b->module, i), (long long)a->counters[i],
            (long long)b->counters[i]);
    return 1;
}

static int cmp_named(const iolens_darshan_record *a, const iolens_darshan_record *b, const char *name,
                     const char *path)
{
    int i = iolens_darshan_counter_index(b->module, name, NULL);
    assert_true(i >= 0);
    return compare_counter(a, b, (size_t)i, path);
}

static void compare_log(const char *name)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/darshan/generated/%s", data_dir, name);
    iolens_darshan_data *dd;
    if (iolens_darshan_load(p, 0, NULL, NULL, &dd) < 0)
        skip();
    iolens_evsource *s = dxt_source(dd);
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.mounts = "ext4\t/";
    iolens_counters *c = NULL;
    assert_int_equal(iolens_counters_compute(s, &o, &c), 0);
    int bad = 0, compared = 0;
    int mods[2] = {IOLENS_DARSHAN_POSIX, IOLENS_DARSHAN_MPIIO};
    for (int mi = 0; mi < 2; mi++) {
        int mod = mods[mi];
        for (size_t i = 0; i < iolens_darshan_data_count(dd, mod); i++) {
            const iolens_darshan_record *b = iolens_darshan_data_record(dd, mod, i);
            const iolens_darshan_record *a = NULL;
            for (size_t k = 0; k < iolens_counters_count(c, mod); k++) {
                const iolens_darshan_record *x = iolens_counters_record(c, mod, k);
                if (x->id == b->id && x->rank == b->rank)
                    a = x;
            }
            const char *path = iolens_darshan_data_name(dd, b->id);
            int has_io = b->counters[mod == IOLENS_DARSHAN_POSIX ? 3 : 2] + b->counters[mod == IOLENS_DARSHAN_POSIX ? 4 : 3] > 0;
            if (mod == IOLENS_DARSHAN_MPIIO)
                has_io = iolens_darshan_counter_index(mod, "MPIIO_BYTES_WRITTEN", NULL) >= 0 &&
                         (b->counters[iolens_darshan_counter_index(mod, "MPIIO_BYTES_WRITTEN", NULL)] +
                          b->counters[iolens_darshan_counter_index(mod, "MPIIO_BYTES_READ", NULL)]) > 0;
            if (!has_io)
                continue; /* no reads/writes: nothing in DXT */
            if (!a) {
                fprintf(stderr, "%s rank %lld: no record computed\n", path, (long long)b->rank);
                bad++;
                continue;
            }
            const char *const *names = mod == IOLENS_DARSHAN_POSIX ? posix_cmp : mpiio_cmp;
            for (int k = 0; names[k]; k++, compared++)
                bad += cmp_named(a, b, names[k], path);
            /* size histograms, strides and common access sizes: every one of them */
            for (size_t k = 0; k < b->ncounters; k++) {
                const char *n = iolens_darshan_counter_name(mod, k);
                if (strstr(n, "_SIZE_") || strstr(n, "STRIDE") || strstr(n, "ACCESS")) {
                    bad += compare_counter(a, b, k, path);
                    compared++;
                }
            }
        }
    }
    /* heatmap byte totals equal the byte counters, in the real log and in ours */
    int64_t hw_real = 0, hw_ours = 0, bytes = 0;
    for (size_t i = 0; i < iolens_darshan_data_count(dd, IOLENS_DARSHAN_HEATMAP); i++) {
        const iolens_darshan_record *h = iolens_darshan_data_record(dd, IOLENS_DARSHAN_HEATMAP, i);
        if (strcmp(iolens_darshan_data_name(dd, h->id), "heatmap:POSIX"))
            continue;
        for (int64_t b = 0; b < h->heatmap.nbins; b++)
            hw_real += h->heatmap.write_bins[b] + h->heatmap.read_bins[b];
    }
    for (size_t i = 0; i < iolens_counters_count(c, IOLENS_DARSHAN_HEATMAP); i++) {
        const iolens_darshan_record *h = iolens_counters_record(c, IOLENS_DARSHAN_HEATMAP, i);
        if (strcmp(iolens_counters_name(c, h->id), "heatmap:POSIX"))
            continue;
        for (int64_t b = 0; b < h->heatmap.nbins; b++)
            hw_ours += h->heatmap.write_bins[b] + h->heatmap.read_bins[b];
    }
    for (size_t i = 0; i < iolens_darshan_data_count(dd, IOLENS_DARSHAN_POSIX); i++) {
        const iolens_darshan_record *b = iolens_darshan_data_record(dd, IOLENS_DARSHAN_POSIX, i);
        bytes += b->counters[14] + b->counters[15];
    }
    /* heatmap bins: same width and same bytes per bin (the log has more bins when the job
     * ended after its last I/O: the runtime sizes the record by the job end time) */
    int heat_compared = 0;
    for (size_t i = 0; i < iolens_darshan_data_count(dd, IOLENS_DARSHAN_HEATMAP); i++) {
        const iolens_darshan_record *h = iolens_darshan_data_record(dd, IOLENS_DARSHAN_HEATMAP, i);
        for (size_t k = 0; k < iolens_counters_count(c, IOLENS_DARSHAN_HEATMAP); k++) {
            const iolens_darshan_record *o2 = iolens_counters_record(c, IOLENS_DARSHAN_HEATMAP, k);
            if (o2->id != h->id || o2->rank != h->rank)
                continue;
            assert_true(o2->heatmap.bin_width == h->heatmap.bin_width);
            assert_true(o2->heatmap.nbins <= h->heatmap.nbins);
            for (int64_t bb = 0; bb < o2->heatmap.nbins; bb++) {
                assert_int_equal(o2->heatmap.write_bins[bb], h->heatmap.write_bins[bb]);
                assert_int_equal(o2->heatmap.read_bins[bb], h->heatmap.read_bins[bb]);
            }
            heat_compared++;
        }
    }
    assert_int_equal(heat_compared, 8); /* POSIX and MPI-IO of 4 ranks */
    assert_int_equal(hw_ours, bytes);
    assert_int_equal(hw_real, bytes);
    /* the records survive the writer and the reader (POSIX and MPI-IO, reduced and per rank) */
    char tmp[] = "/dev/shm/iolens-ctr-vs-XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(iolens_counters_write(c, tmp), 0);
    iolens_darshan_data *back;
    assert_int_equal(iolens_darshan_load(tmp, 0, NULL, NULL, &back), 0);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        assert_int_equal(iolens_darshan_data_count(back, m), iolens_counters_count(c, m));
        for (size_t i = 0; i < iolens_counters_count(c, m); i++) {
            const iolens_darshan_record *x = iolens_counters_record(c, m, i);
            const iolens_darshan_record *y = iolens_darshan_data_record(back, m, i);
            assert_int_equal(x->id, y->id);
            assert_int_equal(x->rank, y->rank);
            if (x->ncounters)
                assert_memory_equal(x->counters, y->counters, x->ncounters * 8);
        }
    }
    assert_true(iolens_counters_count(c, IOLENS_DARSHAN_MPIIO) > 0);
    iolens_darshan_data_free(back);
    unlink(tmp);
    fprintf(stderr, "%s: %d counters compared, %d differ\n", name, compared, bad);
    assert_true(compared > 100);
    assert_int_equal(bad, 0);
    iolens_counters_free(c);
    iolens_evsource_free(s);
    iolens_darshan_data_free(dd);
}

static void test_small_writes(void **state)
{
    (void)state;
    compare_log("small_writes_4proc_dxt_heatmap.darshan");
}

static void test_large_seq(void **state)
{
    (void)state;
    compare_log("large_seq_4proc_dxt_heatmap.darshan");
}

int main(void)
{
    const char *d = getenv("IOLENS_SHARED_DATA");
    snprintf(data_dir, sizeof data_dir, "%s", d ? d : "../shared/data");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_small_writes),
                                       cmocka_unit_test(test_large_seq)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
