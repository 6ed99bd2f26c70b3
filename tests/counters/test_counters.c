/* Unit tests of the counters module: each Darshan counter rule on hand-made
 * event sequences, lookup8 ids against real logs, Recorder traces of
 * ../shared/data/recorder against their workloads, and the write/read round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/counters.h"
#include "iolens/darshan.h"
#include "iolens/recorder.h"

static char data_dir[4096];

/* ---- a hand-made event source ------------------------------------------------------------ */

#define MAXEV 4096
typedef struct mock {
    int nranks;
    iolens_event ev[4][MAXEV];
    size_t n[4], pos[4];
    iolens_file files[4];
} mock;

static int m_nranks(void *impl) { return ((mock *)impl)->nranks; }
static double m_start(void *impl) { (void)impl; return 1700000000.5; }
static int m_files(void *impl, const iolens_file **out, size_t *count)
{
    mock *m = impl;
    *out = m->files;
    *count = 4;
    return 0;
}
static int m_next(void *impl, int rank, iolens_event *out)
{
    mock *m = impl;
    if (m->pos[rank] >= m->n[rank])
        return 0;
    *out = m->ev[rank][m->pos[rank]++];
    return 1;
}
static int m_rewind(void *impl, int rank)
{
    ((mock *)impl)->pos[rank] = 0;
    return 0;
}
static void m_free(void *impl) { free(impl); }
static const iolens_evsource_ops mock_ops = {IOLENS_EVSOURCE_OPS_VERSION, "mock", m_nranks, m_start,
                                             m_files, m_next, m_rewind, m_free};

static mock *mock_new(int nranks)
{
    mock *m = calloc(1, sizeof *m);
    m->nranks = nranks;
    static const char *paths[] = {"/data/a", "/data/b", "/data/shared", "/data/d"};
    for (int i = 0; i < 4; i++) {
        m->files[i].id = i;
        m->files[i].path = paths[i];
    }
    return m;
}

static void add(mock *m, int rank, iolens_layer layer, iolens_op op, const char *func, int64_t file,
                int64_t off, int64_t size, double t1, double t2)
{
    iolens_event *e = &m->ev[rank][m->n[rank]++];
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->layer = layer;
    e->op = op;
    e->func = func;
    e->file = file;
    e->offset = off;
    e->size = size;
    e->ret = -1;
    e->tstart = t1;
    e->tend = t2;
    e->open_flags = e->mode = e->whence = -1;
}

static iolens_counters *compute(mock *m, const iolens_counters_opts *o)
{
    iolens_evsource *s;
    assert_int_equal(iolens_evsource_new(&s, &mock_ops, m), 0);
    iolens_counters *c = NULL;
    assert_int_equal(iolens_counters_compute(s, o, &c), 0);
    iolens_evsource_free(s);
    return c;
}

static const iolens_darshan_record *rec_of(const iolens_counters *c, int module, const char *path,
                                           int64_t rank)
{
    uint64_t id = iolens_darshan_hash(path, strlen(path), 0);
    for (size_t i = 0; i < iolens_counters_count(c, module); i++) {
        const iolens_darshan_record *r = iolens_counters_record(c, module, i);
        if (r->id == id && r->rank == rank)
            return r;
    }
    return NULL;
}

static int64_t C(const iolens_darshan_record *r, const char *name)
{
    int isf = 0;
    int i = iolens_darshan_counter_index(r->module, name, &isf);
    assert_true(i >= 0 && !isf);
    return r->counters[i];
}

static double F(const iolens_darshan_record *r, const char *name)
{
    int isf = 0;
    int i = iolens_darshan_counter_index(r->module, name, &isf);
    assert_true(i >= 0 && isf);
    return r->fcounters[i];
}

#define PX IOLENS_LAYER_POSIX

/* seq/consec, strides and access sizes (top 4 of the candidates, 0 not tracked) */
static void test_posix_access_rules(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    double t = 0.01;
    add(m, 0, PX, IOLENS_OP_OPEN, "open", 0, -1, -1, t, t + 0.001);
    /* writes: 10 x 100 B consecutive from 0, then 5 x 10 B with stride 90, then 2 x 7 B, 1 x 5 B, 1 x 3 B */
    int64_t off = 0;
    for (int i = 0; i < 10; i++, off += 100, t += 0.01)
        add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, off, 100, t, t + 0.001);
    for (int i = 0; i < 5; i++, off += 100, t += 0.01)
        add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, off, 10, t, t + 0.001);
    /* after the 5 x 10 B writes the last byte written is off-91 */
    for (int i = 0; i < 2; i++, off += 7, t += 0.01)
        add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, off, 7, t, t + 0.001);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, off, 5, t, t + 0.001);
    off += 5;
    t += 0.01;
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 3, t, t + 0.001); /* backwards: not seq */
    t += 0.01;
    add(m, 0, PX, IOLENS_OP_READ, "pread", 0, 4096, 50, t, t + 0.001); /* aligned read */
    add(m, 0, PX, IOLENS_OP_CLOSE, "close", 0, -1, -1, t + 0.01, t + 0.011);
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_non_null(r);
    assert_int_equal(C(r, "POSIX_OPENS"), 1);
    assert_int_equal(C(r, "POSIX_WRITES"), 19);
    assert_int_equal(C(r, "POSIX_READS"), 1);
    assert_int_equal(C(r, "POSIX_BYTES_WRITTEN"), 1000 + 50 + 14 + 5 + 3);
    /* seq: all forward writes after the first (offset 0 is not > 0): 17; consec: 9 (100 B run) +
     * 1 (first 10 B write right after it) + 0 (first 7 B follows a gap) + 1 (second 7 B) + 1 (5 B) */
    assert_int_equal(C(r, "POSIX_SEQ_WRITES"), 17);
    assert_int_equal(C(r, "POSIX_CONSEC_WRITES"), 12);
    /* first read at 4096 > last byte read (0): seq, stride 4095 */
    assert_int_equal(C(r, "POSIX_SEQ_READS"), 1);
    assert_int_equal(C(r, "POSIX_MAX_BYTE_WRITTEN"), off - 1);
    assert_int_equal(C(r, "POSIX_MAX_BYTE_READ"), 4096 + 49);
    assert_int_equal(C(r, "POSIX_RW_SWITCHES"), 1);
    /* every write except the ones at offset 0 is unaligned to 4096 */
    assert_int_equal(C(r, "POSIX_FILE_NOT_ALIGNED"), 19 - 2);
    assert_int_equal(C(r, "POSIX_SIZE_WRITE_0_100"), 19);
    assert_int_equal(C(r, "POSIX_SIZE_READ_0_100"), 1);
    /* access sizes: 100 x10, 10 x5, 7 x2, 5 x1, 3 x1, 50 x1: top 4 by count, ties by larger value */
    assert_int_equal(C(r, "POSIX_ACCESS1_ACCESS"), 100);
    assert_int_equal(C(r, "POSIX_ACCESS1_COUNT"), 10);
    assert_int_equal(C(r, "POSIX_ACCESS2_ACCESS"), 10);
    assert_int_equal(C(r, "POSIX_ACCESS2_COUNT"), 5);
    assert_int_equal(C(r, "POSIX_ACCESS3_ACCESS"), 7);
    assert_int_equal(C(r, "POSIX_ACCESS3_COUNT"), 2);
    assert_int_equal(C(r, "POSIX_ACCESS4_COUNT"), 1);
    /* strides: 90 x4 (between the 10 B writes), then 90 for the first 7 B write: 5; the read is
     * the first one (last byte read still 0): stride 0, which is not tracked */
    assert_int_equal(C(r, "POSIX_STRIDE1_STRIDE"), 90);
    assert_int_equal(C(r, "POSIX_STRIDE1_COUNT"), 5);
    assert_int_equal(C(r, "POSIX_STRIDE2_COUNT"), 0);
    assert_int_equal(C(r, "POSIX_STRIDE3_COUNT"), 0);
    assert_int_equal(C(r, "POSIX_MMAPS"), -1);
    assert_int_equal(C(r, "POSIX_FILE_ALIGNMENT"), 4096);
    assert_true(fabs(F(r, "POSIX_F_OPEN_START_TIMESTAMP") - 0.01) < 1e-12);
    iolens_counters_free(c);

    /* configurable alignment: 100 divides every offset of the first 15 writes */
    m = mock_new(1);
    for (int i = 0; i < 4; i++)
        add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, i * 100, 100, 0.1 * i, 0.1 * i + 0.01);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 450, 100, 1, 1.01);
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.file_alignment = 100;
    c = compute(m, &o);
    r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_int_equal(C(r, "POSIX_FILE_NOT_ALIGNED"), 1);
    assert_int_equal(C(r, "POSIX_FILE_ALIGNMENT"), 100);
    iolens_counters_free(c);
}

/* more than 32 distinct sizes: only the first 32 are candidates */
static void test_access_candidates(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    double t = 0;
    int64_t off = 0;
    for (int s = 1; s <= 32; s++, t += 0.01) { /* 32 sizes once each */
        add(m, 0, PX, IOLENS_OP_WRITE, "write", 0, off, s, t, t + 0.001);
        off += s;
    }
    for (int k = 0; k < 5; k++, t += 0.01) { /* size 1000 is the 33rd: never tracked */
        add(m, 0, PX, IOLENS_OP_WRITE, "write", 0, off, 1000, t, t + 0.001);
        off += 1000;
    }
    for (int k = 0; k < 3; k++, t += 0.01) {
        add(m, 0, PX, IOLENS_OP_WRITE, "write", 0, off, 17, t, t + 0.001);
        off += 17;
    }
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_int_equal(C(r, "POSIX_ACCESS1_ACCESS"), 17);
    assert_int_equal(C(r, "POSIX_ACCESS1_COUNT"), 4);
    /* the rest tie at 1: updated online as the runtime does, each size seen goes in above the
     * smaller ones of equal count, so the largest three stay (the Darshan runtime built from its
     * source wrote 17 (4), 32, 31, 30 for the same writes) */
    assert_int_equal(C(r, "POSIX_ACCESS2_COUNT"), 1);
    assert_int_equal(C(r, "POSIX_ACCESS2_ACCESS"), 32);
    assert_int_equal(C(r, "POSIX_ACCESS3_ACCESS"), 31);
    assert_int_equal(C(r, "POSIX_ACCESS4_ACCESS"), 30);
    iolens_counters_free(c);
}

/* overlapping calls of one rank (threads) are not counted twice */
static void test_overlapping_time(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 10, 1.0, 2.0);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 10, 10, 1.5, 2.5); /* overlaps by 0.5 */
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 20, 10, 1.6, 2.2); /* inside: adds nothing */
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 30, 10, 3.0, 3.25);
    add(m, 0, PX, IOLENS_OP_READ, "pread", 0, 0, 10, 1.0, 2.0); /* reads have their own clock */
    add(m, 0, PX, IOLENS_OP_SYNC, "fsync", 0, -1, -1, 3.2, 3.5); /* fsync is write time */
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_true(fabs(F(r, "POSIX_F_WRITE_TIME") - (1.5 + 0.25 + 0.25)) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_READ_TIME") - 1.0) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_MAX_WRITE_TIME") - 1.0) < 1e-9);
    assert_int_equal(C(r, "POSIX_MAX_WRITE_TIME_SIZE"), 10);
    assert_int_equal(C(r, "POSIX_FSYNCS"), 1);
    assert_true(fabs(F(r, "POSIX_F_WRITE_START_TIMESTAMP") - 1.0) < 1e-12);
    assert_true(fabs(F(r, "POSIX_F_WRITE_END_TIMESTAMP") - 3.25) < 1e-12);
    iolens_counters_free(c);
}

/* heatmap: 0.1 s bins, width doubles past 200 bins, bytes split by overlap */
static void test_heatmap(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 1000, 0.05, 0.25); /* bins 0,1,2 */
    add(m, 0, PX, IOLENS_OP_READ, "pread", 0, 0, 77, 0.31, 0.32);
    iolens_counters *c = compute(m, NULL);
    assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_HEATMAP), 1);
    const iolens_darshan_record *h = iolens_counters_record(c, IOLENS_DARSHAN_HEATMAP, 0);
    assert_string_equal(iolens_counters_name(c, h->id), "heatmap:POSIX");
    assert_true(fabs(h->heatmap.bin_width - 0.1) < 1e-12);
    assert_int_equal(h->heatmap.nbins, 4);
    assert_int_equal(h->heatmap.write_bins[0], 250);
    assert_int_equal(h->heatmap.write_bins[1], 500);
    assert_int_equal(h->heatmap.write_bins[2], 250);
    assert_int_equal(h->heatmap.read_bins[3], 77);
    iolens_counters_free(c);

    m = mock_new(1);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 100, 0.01, 0.02);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 100, 0.15, 0.16);
    add(m, 0, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 300, 45.0, 45.01); /* 45 s: width 0.4 */
    c = compute(m, NULL);
    h = iolens_counters_record(c, IOLENS_DARSHAN_HEATMAP, 0);
    assert_true(fabs(h->heatmap.bin_width - 0.4) < 1e-12);
    assert_int_equal(h->heatmap.nbins, 113);
    assert_int_equal(h->heatmap.write_bins[0], 200); /* the two first bins merged */
    assert_int_equal(h->heatmap.write_bins[112], 300);
    int64_t sum = 0;
    for (int64_t i = 0; i < h->heatmap.nbins; i++)
        sum += h->heatmap.write_bins[i];
    assert_int_equal(sum, 500);
    iolens_counters_free(c);
}

/* shared file reduction: sums, fastest/slowest, population variances */
static void test_shared_reduction(void **state)
{
    (void)state;
    mock *m = mock_new(4);
    for (int r = 0; r < 4; r++) {
        double d = 0.1 * (r + 1); /* rank r spends d s writing */
        add(m, r, PX, IOLENS_OP_OPEN, "open", 2, -1, -1, 0.0, 0.0);
        add(m, r, PX, IOLENS_OP_WRITE, "pwrite", 2, r * 1000, (r + 1) * 100, 1.0, 1.0 + d);
        add(m, r, PX, IOLENS_OP_WRITE, "pwrite", 1, 0, 10, 2.0, 2.1); /* file b: all ranks */
        if (r < 2)
            add(m, r, PX, IOLENS_OP_WRITE, "pwrite", 3, 0, 10, 2.0, 2.1); /* file d: 2 of 4 ranks */
    }
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/shared", -1);
    assert_non_null(r);
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/shared", 0));
    assert_int_equal(C(r, "POSIX_OPENS"), 4);
    assert_int_equal(C(r, "POSIX_WRITES"), 4);
    assert_int_equal(C(r, "POSIX_BYTES_WRITTEN"), 1000);
    assert_int_equal(C(r, "POSIX_MAX_BYTE_WRITTEN"), 3000 + 399);
    assert_int_equal(C(r, "POSIX_FASTEST_RANK"), 0);
    assert_int_equal(C(r, "POSIX_FASTEST_RANK_BYTES"), 100);
    assert_int_equal(C(r, "POSIX_SLOWEST_RANK"), 3);
    assert_int_equal(C(r, "POSIX_SLOWEST_RANK_BYTES"), 400);
    assert_true(fabs(F(r, "POSIX_F_FASTEST_RANK_TIME") - 0.1) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_SLOWEST_RANK_TIME") - 0.4) < 1e-9);
    /* times 0.1..0.4: mean 0.25, variance 0.0125; bytes 100..400: variance 12500 */
    assert_true(fabs(F(r, "POSIX_F_VARIANCE_RANK_TIME") - 0.0125) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_VARIANCE_RANK_BYTES") - 12500.0) < 1e-6);
    assert_true(fabs(F(r, "POSIX_F_WRITE_TIME") - 1.0) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_WRITE_END_TIMESTAMP") - 1.4) < 1e-9);
    assert_int_equal(C(r, "POSIX_ACCESS1_COUNT"), 1);
    assert_non_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/b", -1));
    /* a file only some ranks opened keeps its per-rank records */
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/d", -1));
    assert_non_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/d", 1));
    /* DXT is never reduced */
    assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_DXT_POSIX), 10);
    assert_int_equal(iolens_counters_job(c)->nprocs, 4);
    iolens_counters_free(c);

    m = mock_new(2);
    for (int k = 0; k < 2; k++)
        add(m, k, PX, IOLENS_OP_WRITE, "pwrite", 2, 0, 10, 0, 1);
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.keep_per_rank = 1;
    c = compute(m, &o);
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/shared", -1));
    assert_non_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/shared", 1));
    iolens_counters_free(c);
}

static void count_progress(void *ctx, int done, int total)
{
    int *calls = ctx;
    assert_int_equal(total, 3);
    assert_int_equal(done, ++*calls);
}

/* the progress callback is called once per rank */
static void test_progress(void **state)
{
    (void)state;
    mock *m = mock_new(3);
    add(m, 1, PX, IOLENS_OP_WRITE, "pwrite", 0, 0, 10, 0, 1);
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    int calls = 0;
    o.progress = count_progress;
    o.progress_ctx = &calls;
    iolens_counters *c = compute(m, &o);
    assert_int_equal(calls, 3);
    iolens_counters_free(c);
}

/* MPI-IO kinds and STDIO counters */
static void test_mpiio_stdio(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, IOLENS_LAYER_MPIIO, IOLENS_OP_OPEN, "MPI_File_open", 0, -1, -1, 0.1, 0.2);
    m->ev[0][0].open_flags = 9;
    add(m, 0, IOLENS_LAYER_MPIIO, IOLENS_OP_WRITE, "MPI_File_write_at_all", 0, 0, 4096, 0.3, 0.4);
    m->ev[0][1].flags = IOLENS_EVF_COLLECTIVE;
    add(m, 0, IOLENS_LAYER_MPIIO, IOLENS_OP_WRITE, "MPI_File_write_at", 0, 4096, 4096, 0.5, 0.6);
    add(m, 0, IOLENS_LAYER_MPIIO, IOLENS_OP_READ, "MPI_File_iread_at", 0, 0, 100, 0.7, 0.8);
    m->ev[0][3].flags = IOLENS_EVF_NONBLOCKING;
    add(m, 0, IOLENS_LAYER_MPIIO, IOLENS_OP_SYNC, "MPI_File_sync", 0, -1, -1, 0.8, 0.9);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_OPEN, "fopen", 1, -1, -1, 1.0, 1.1);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_WRITE, "fwrite", 1, 0, 20, 1.2, 1.3);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_WRITE, "fprintf", 1, 20, 5, 1.3, 1.4);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_FLUSH, "fflush", 1, -1, -1, 1.4, 1.5);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_OTHER, "fileno", 1, -1, -1, 1.45, 1.46);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_CLOSE, "fclose", 1, -1, -1, 1.5, 1.6);
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_MPIIO, "/data/a", 0);
    assert_int_equal(C(r, "MPIIO_COLL_OPENS"), 1);
    assert_int_equal(C(r, "MPIIO_MODE"), 9);
    assert_int_equal(C(r, "MPIIO_COLL_WRITES"), 1);
    assert_int_equal(C(r, "MPIIO_INDEP_WRITES"), 1);
    assert_int_equal(C(r, "MPIIO_NB_READS"), 1);
    assert_int_equal(C(r, "MPIIO_SYNCS"), 1);
    assert_int_equal(C(r, "MPIIO_BYTES_WRITTEN"), 8192);
    assert_int_equal(C(r, "MPIIO_RW_SWITCHES"), 1);
    assert_int_equal(C(r, "MPIIO_SIZE_WRITE_AGG_1K_10K"), 2);
    assert_int_equal(C(r, "MPIIO_ACCESS1_ACCESS"), 4096);
    assert_int_equal(C(r, "MPIIO_ACCESS1_COUNT"), 2);
    assert_true(fabs(F(r, "MPIIO_F_WRITE_TIME") - 0.3) < 1e-9); /* 2 writes + sync */
    r = rec_of(c, IOLENS_DARSHAN_STDIO, "/data/b", 0);
    assert_int_equal(C(r, "STDIO_OPENS"), 1);
    assert_int_equal(C(r, "STDIO_WRITES"), 2);
    assert_int_equal(C(r, "STDIO_FLUSHES"), 1);
    assert_int_equal(C(r, "STDIO_BYTES_WRITTEN"), 25);
    assert_int_equal(C(r, "STDIO_MAX_BYTE_WRITTEN"), 24);
    assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_DXT_MPIIO), 1);
    r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/b", 0);
    assert_non_null(r);
    assert_int_equal(C(r, "POSIX_FILENOS"), 1);
    assert_int_equal(C(r, "POSIX_OPENS"), 1); /* the runtime counts fileno() as an open too */
    assert_true(fabs(F(r, "POSIX_F_OPEN_START_TIMESTAMP") - 1.45) < 1e-9);
    iolens_counters_free(c);
}

/* The runtime's STDIO module registers <STDIN> <STDOUT> <STDERR> heatmap:STDIO at the
 * first stdio call of the run, on any stream (real logs: dd and small_writes have them,
 * large_seq, without stdio calls, has not) */
static void test_stdio_names(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, "open", 0, -1, -1, 0.1, 0.2);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, "write", 0, 0, 100, 0.3, 0.4);
    iolens_counters *c = compute(m, NULL);
    assert_int_equal(iolens_counters_name_count(c), 2); /* /data/a, heatmap:POSIX */
    assert_null(iolens_counters_name(c, iolens_darshan_hash("<STDERR>", 8, 0)));
    iolens_counters_free(c);
    m = mock_new(1);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, "open", 0, -1, -1, 0.1, 0.2);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, "write", 0, 0, 100, 0.3, 0.4);
    add(m, 0, IOLENS_LAYER_STDIO, IOLENS_OP_WRITE, "fprintf", -1, -1, 33, 0.5, 0.6); /* stderr: no file */
    c = compute(m, NULL);
    assert_int_equal(iolens_counters_name_count(c), 6);
    assert_string_equal(iolens_counters_name(c, iolens_darshan_hash("<STDERR>", 8, 0)), "<STDERR>");
    assert_string_equal(iolens_counters_name(c, iolens_darshan_hash("heatmap:STDIO", 13, 0)), "heatmap:STDIO");
    assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_STDIO), 0); /* names only */
    iolens_counters_free(c);
}

/* dup2 opens a new reference: POSIX_OPENS counts it as well as POSIX_DUPS, as the
 * real nonmpi_dd_64MiB log shows (dd: open + dup2 -> OPENS 2, DUPS 1) */
static void test_dup_counts_open(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, "open", 0, -1, -1, 0.1, 0.2);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_DUP, "dup2", 0, -1, -1, 0.3, 0.4);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, "write", 0, 0, 100, 0.5, 0.6);
    iolens_counters *c = compute(m, NULL);
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_non_null(r);
    assert_int_equal(C(r, "POSIX_OPENS"), 2);
    assert_int_equal(C(r, "POSIX_DUPS"), 1);
    assert_true(fabs(F(r, "POSIX_F_OPEN_START_TIMESTAMP") - 0.1) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_OPEN_END_TIMESTAMP") - 0.4) < 1e-9);
    assert_true(fabs(F(r, "POSIX_F_META_TIME") - 0.2) < 1e-9);
    iolens_counters_free(c);
}

/* The runtime wraps no mkdir/unlink/access: such calls on a path make no record (a traced
 * replay's mkdir of its root made one, so no run had a single shared POSIX file); on a path
 * that has a record they change nothing; rename is wrapped and keeps its record. */
static void test_meta_calls_make_no_record(void **state)
{
    (void)state;
    mock *m = mock_new(1);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_META, "mkdir", 1, -1, -1, 0.05, 0.06);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, "open", 0, -1, -1, 0.1, 0.2);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, "write", 0, 0, 100, 0.3, 0.4);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, "close", 0, -1, -1, 0.5, 0.6);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_META, "unlink", 0, -1, -1, 0.7, 0.8);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_META, "access", 3, -1, -1, 0.9, 1.0);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_META, "rename", 2, -1, -1, 1.1, 1.2);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_META, "rename", 0, -1, -1, 1.3, 1.4);
    iolens_counters *c = compute(m, NULL);
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/b", 0));
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/d", 0));
    /* rename counts on a file with a record (the runtime looks its record up), makes none */
    assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/shared", 0));
    const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
    assert_non_null(r);
    assert_int_equal(C(r, "POSIX_OPENS"), 1);
    assert_int_equal(C(r, "POSIX_WRITES"), 1);
    assert_int_equal(C(r, "POSIX_RENAME_SOURCES"), 1);
    assert_true(fabs(F(r, "POSIX_F_META_TIME") - 0.3) < 1e-9);
    iolens_counters_free(c);
}

/* legacy_stat_only: stat/lstat/fstat (glibc >= 2.33 entry points) are not seen, __xstat is */
static void test_legacy_stat_only(void **state)
{
    (void)state;
    iolens_counters_opts o;
    for (int legacy = 0; legacy < 2; legacy++) {
        mock *m = mock_new(1);
        add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_STAT, "lstat", 1, -1, -1, 0.05, 0.06);
        add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, "open", 0, -1, -1, 0.1, 0.2);
        add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_STAT, "fstat", 0, -1, -1, 0.3, 0.4);
        add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_STAT, "__xstat64", 0, -1, -1, 0.5, 0.6);
        iolens_counters_opts_init(&o);
        o.legacy_stat_only = legacy;
        iolens_counters *c = compute(m, &o);
        const iolens_darshan_record *r = rec_of(c, IOLENS_DARSHAN_POSIX, "/data/a", 0);
        assert_non_null(r);
        assert_int_equal(C(r, "POSIX_STATS"), legacy ? 1 : 2);
        if (legacy)
            assert_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/b", 0));
        else
            assert_non_null(rec_of(c, IOLENS_DARSHAN_POSIX, "/data/b", 0));
        iolens_counters_free(c);
    }
}

/* lookup8: the id of every named record of the real generated logs */
static void test_lookup8_ids(void **state)
{
    (void)state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/darshan/generated", data_dir);
    DIR *d = opendir(dir);
    if (!d)
        skip();
    struct dirent *de;
    int checked = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 8 || strcmp(de->d_name + l - 8, ".darshan"))
            continue;
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        iolens_darshan_data *dd;
        assert_int_equal(iolens_darshan_load(p, 1, NULL, NULL, &dd), 0);
        for (size_t i = 0; i < iolens_darshan_data_name_count(dd); i++) {
            uint64_t id;
            const char *name;
            assert_int_equal(iolens_darshan_data_name_at(dd, i, &id, &name), 0);
            if (strstr(de->d_name, "converted") && name[0] != '/')
                continue;
            assert_int_equal(iolens_darshan_hash(name, strlen(name), 0), id);
            checked++;
        }
        iolens_darshan_data_free(dd);
    }
    closedir(d);
    assert_true(checked > 20);
    assert_int_equal(iolens_darshan_hash("/scratch/bench/data/small.posix.0", 33, 0), 9689067429656925023ull);
}

static iolens_counters *recorder_counters(const char *name, int per_rank)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/recorder/%s", data_dir, name);
    iolens_evsource *s;
    if (iolens_recorder_open(p, &s, NULL) < 0) {
        fprintf(stderr, "%s\n", iolens_error_last());
        return NULL;
    }
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.all_paths = 1; /* the traces live under /dev/shm */
    o.keep_per_rank = per_rank;
    o.mounts = "tmpfs\t/dev/shm\next4\t/";
    iolens_counters *c = NULL;
    assert_int_equal(iolens_counters_compute(s, &o, &c), 0);
    iolens_evsource_free(s);
    return c;
}

/* shared_nN_mM: N ranks pwrite M x 1 MiB at (i*N+rank) MiB, fsync, pread them back */
static void test_recorder_shared(void **state)
{
    (void)state;
    static const struct { const char *name; int n, m; } cases[] = {
        {"shared_n2_m100", 2, 100}, {"shared_n2_m1000", 2, 1000}, {"shared_n4_m10", 4, 10},
        {"shared_n4_m1000_bothPR", 4, 1000}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        iolens_counters *c = recorder_counters(cases[k].name, 0);
        if (!c)
            skip();
        int64_t n = cases[k].n, m = cases[k].m;
        assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_POSIX), 1);
        const iolens_darshan_record *r = iolens_counters_record(c, IOLENS_DARSHAN_POSIX, 0);
        assert_int_equal(r->rank, -1);
        assert_string_equal(iolens_counters_name(c, r->id), "/dev/shm/iorlike-data/shared.dat");
        assert_int_equal(C(r, "POSIX_OPENS"), n);
        assert_int_equal(C(r, "POSIX_WRITES"), n * m);
        assert_int_equal(C(r, "POSIX_READS"), n * m);
        assert_int_equal(C(r, "POSIX_BYTES_WRITTEN"), n * m << 20);
        assert_int_equal(C(r, "POSIX_BYTES_READ"), n * m << 20);
        assert_int_equal(C(r, "POSIX_MAX_BYTE_WRITTEN"), (n * m << 20) - 1);
        assert_int_equal(C(r, "POSIX_FSYNCS"), n);
        assert_int_equal(C(r, "POSIX_SIZE_WRITE_100K_1M"), n * m); /* exactly 1 MiB */
        /* every access after the first of each rank is forward (rank 0's first at 0 is not) */
        assert_int_equal(C(r, "POSIX_SEQ_WRITES"), n * m - 1);
        assert_int_equal(C(r, "POSIX_SEQ_READS"), n * m - 1);
        assert_int_equal(C(r, "POSIX_CONSEC_WRITES"), 0);
        assert_int_equal(C(r, "POSIX_STRIDE1_STRIDE"), (n - 1) << 20);
        assert_int_equal(C(r, "POSIX_STRIDE1_COUNT"), 2 * n * (m - 1));
        assert_int_equal(C(r, "POSIX_ACCESS1_ACCESS"), 1 << 20);
        assert_int_equal(C(r, "POSIX_ACCESS1_COUNT"), 2 * n * m);
        assert_int_equal(C(r, "POSIX_RW_SWITCHES"), n);
        assert_int_equal(C(r, "POSIX_FILE_NOT_ALIGNED"), 0);
        /* heatmap bytes equal the byte counters */
        int64_t hw = 0, hr = 0;
        for (size_t i = 0; i < iolens_counters_count(c, IOLENS_DARSHAN_HEATMAP); i++) {
            const iolens_darshan_record *h = iolens_counters_record(c, IOLENS_DARSHAN_HEATMAP, i);
            for (int64_t b = 0; b < h->heatmap.nbins; b++) {
                hw += h->heatmap.write_bins[b];
                hr += h->heatmap.read_bins[b];
            }
        }
        assert_int_equal(hw, n * m << 20);
        assert_int_equal(hr, n * m << 20);
        assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_DXT_POSIX), (size_t)n);
        assert_int_equal(iolens_counters_job(c)->nprocs, n);
        iolens_counters_free(c);
    }
}

/* ckpt_nN_mM: N ranks, M x open(file_<i>_r<rank>) / write 1 MiB / close */
static void test_recorder_ckpt(void **state)
{
    (void)state;
    iolens_counters *c = recorder_counters("ckpt_n2_m100", 0);
    if (!c)
        skip();
    assert_int_equal(iolens_counters_count(c, IOLENS_DARSHAN_POSIX), 200);
    for (size_t i = 0; i < 200; i++) {
        const iolens_darshan_record *r = iolens_counters_record(c, IOLENS_DARSHAN_POSIX, i);
        assert_true(r->rank >= 0 && r->rank < 2);
        assert_int_equal(C(r, "POSIX_OPENS"), 1);
        assert_int_equal(C(r, "POSIX_WRITES"), 1);
        assert_int_equal(C(r, "POSIX_BYTES_WRITTEN"), 1 << 20);
        assert_int_equal(C(r, "POSIX_SEQ_WRITES"), 0);
        char suffix[16];
        snprintf(suffix, sizeof suffix, "_r%d", (int)r->rank);
        assert_non_null(strstr(iolens_counters_name(c, r->id), suffix));
    }
    iolens_counters_free(c);
    /* dd: 1000 x 1 MiB read from /dev/zero and written to one file, consecutively */
    c = recorder_counters("nonmpi_dd_1000x1MiB", 0);
    const iolens_darshan_record *w = rec_of(c, IOLENS_DARSHAN_POSIX, "/dev/shm/ddtest", 0);
    assert_non_null(w);
    assert_int_equal(C(w, "POSIX_WRITES"), 1000);
    assert_int_equal(C(w, "POSIX_BYTES_WRITTEN"), 1000LL << 20);
    assert_int_equal(C(w, "POSIX_CONSEC_WRITES"), 999);
    assert_int_equal(C(w, "POSIX_SEQ_WRITES"), 999);
    iolens_counters_free(c);
}

/* computed counters -> written .darshan -> reader: the same records */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *const traces[] = {"shared_n4_m10", "ckpt_n2_m10"};
    for (int per_rank = 0; per_rank < 2; per_rank++)
        for (size_t k = 0; k < 2; k++) {
            iolens_counters *c = recorder_counters(traces[k], per_rank);
            if (!c)
                skip();
            char path[] = "/dev/shm/iolens-ctr-XXXXXX";
            int fd = mkstemp(path);
            assert_true(fd >= 0);
            close(fd);
            assert_int_equal(iolens_counters_write(c, path), 0);
            iolens_darshan_data *d;
            assert_int_equal(iolens_darshan_load(path, 0, NULL, NULL, &d), 0);
            const iolens_darshan_log *log = iolens_darshan_data_log(d);
            const iolens_darshan_job *j = iolens_darshan_job_get(log);
            assert_int_equal(j->nprocs, iolens_counters_job(c)->nprocs);
            assert_int_equal(j->start_time_sec, iolens_counters_job(c)->start_time_sec);
            assert_string_equal(j->exe, "<unknown>");
            assert_int_equal(iolens_darshan_mount_count(log), 2);
            assert_string_equal(iolens_darshan_mount_find(log, "/dev/shm/x")->fs_type, "tmpfs");
            int mods[] = {IOLENS_DARSHAN_POSIX, IOLENS_DARSHAN_MPIIO, IOLENS_DARSHAN_STDIO,
                          IOLENS_DARSHAN_HEATMAP, IOLENS_DARSHAN_DXT_POSIX};
            for (size_t mi = 0; mi < 5; mi++) {
                int mod = mods[mi];
                assert_int_equal(iolens_darshan_data_count(d, mod), iolens_counters_count(c, mod));
                for (size_t i = 0; i < iolens_counters_count(c, mod); i++) {
                    const iolens_darshan_record *a = iolens_counters_record(c, mod, i);
                    const iolens_darshan_record *b = iolens_darshan_data_record(d, mod, i);
                    assert_int_equal(a->id, b->id);
                    assert_int_equal(a->rank, b->rank);
                    assert_string_equal(iolens_counters_name(c, a->id), iolens_darshan_data_name(d, b->id));
                    assert_int_equal(a->ncounters, b->ncounters);
                    assert_int_equal(a->nfcounters, b->nfcounters);
                    if (a->ncounters)
                        assert_memory_equal(a->counters, b->counters, a->ncounters * 8);
                    if (a->nfcounters)
                        assert_memory_equal(a->fcounters, b->fcounters, a->nfcounters * 8);
                    if (mod == IOLENS_DARSHAN_HEATMAP) {
                        assert_int_equal(a->heatmap.nbins, b->heatmap.nbins);
                        assert_true(a->heatmap.bin_width == b->heatmap.bin_width);
                        assert_memory_equal(a->heatmap.write_bins, b->heatmap.write_bins, (size_t)a->heatmap.nbins * 8);
                        assert_memory_equal(a->heatmap.read_bins, b->heatmap.read_bins, (size_t)a->heatmap.nbins * 8);
                    }
                    if (mod == IOLENS_DARSHAN_DXT_POSIX) {
                        assert_int_equal(a->dxt.write_count, b->dxt.write_count);
                        assert_int_equal(a->dxt.read_count, b->dxt.read_count);
                        assert_memory_equal(a->dxt.segs, b->dxt.segs,
                                            (size_t)(a->dxt.write_count + a->dxt.read_count) * sizeof *a->dxt.segs);
                    }
                }
            }
            iolens_darshan_data_free(d);
            unlink(path);
            iolens_counters_free(c);
        }
}

int main(void)
{
    const char *d = getenv("IOLENS_SHARED_DATA");
    snprintf(data_dir, sizeof data_dir, "%s", d ? d : "../shared/data");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posix_access_rules), cmocka_unit_test(test_access_candidates),
        cmocka_unit_test(test_overlapping_time),   cmocka_unit_test(test_heatmap),
        cmocka_unit_test(test_shared_reduction),   cmocka_unit_test(test_mpiio_stdio),
        cmocka_unit_test(test_lookup8_ids),        cmocka_unit_test(test_recorder_shared),
        cmocka_unit_test(test_recorder_ckpt),      cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_progress),          cmocka_unit_test(test_dup_counts_open), cmocka_unit_test(test_meta_calls_make_no_record), cmocka_unit_test(test_legacy_stat_only),
        cmocka_unit_test(test_stdio_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
