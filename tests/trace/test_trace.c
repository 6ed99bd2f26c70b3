/* Unit tests of the trace format: codec, grammar, and lossless round trips of
 * synthetic spill files through iolens_trace_build and iolens_trace_open. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/trace.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/grammar.h"

static void test_varint(void **state)
{
    (void)state;
    iol_buf b = IOL_BUF_INIT;
    int64_t vals[] = {0, 1, -1, 63, -64, 1 << 20, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(iol_put_sv(&b, vals[i]), 0);
    iol_cur c = {(const uint8_t *)b.data, b.len, 0, 0};
    for (size_t i = 0; i < 8; i++)
        assert_true(iol_get_sv(&c) == vals[i]);
    assert_false(c.bad);
    (void)iol_get_uv(&c);
    assert_true(c.bad);
    iol_buf_release(&b);
}

/* expands the grammar and compares with the input */
static void expand(const iol_grammar *g, const iol_gsym *seq, size_t len, int64_t *out, size_t *n)
{
    for (size_t i = 0; i < len; i++)
        for (uint64_t e = 0; e < seq[i].exp; e++) {
            if (seq[i].sym >= 0)
                out[(*n)++] = seq[i].sym;
            else {
                const iol_grule *r = &g->rules[-seq[i].sym - 1];
                expand(g, g->pool + r->start, r->len, out, n);
            }
        }
}

static void test_grammar_loops(void **state)
{
    (void)state;
    /* nested loops: 3 x (open, 100 x (write, write), close), then junk */
    int64_t in[1000];
    size_t n = 0;
    for (int it = 0; it < 3; it++) {
        in[n++] = 0;
        for (int k = 0; k < 100; k++) {
            in[n++] = 1;
            in[n++] = 2;
        }
        in[n++] = 3;
    }
    in[n++] = 7;
    in[n++] = 1;
    iol_grammar g;
    iol_grammar_init(&g);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(iol_grammar_push(&g, in[i]), 0);
    assert_true(g.len <= 4);
    assert_true(g.nrules <= 3);
    int64_t out[1000];
    size_t m = 0;
    expand(&g, g.seq, g.len, out, &m);
    assert_int_equal(m, n);
    assert_memory_equal(out, in, n * sizeof *in);
    iol_grammar_release(&g);
}

/* ---- synthetic spill files ---- */
static void put(int fd, const void *p, size_t n) { assert_true(write(fd, p, n) == (ssize_t)n); }

static void chunk(int fd, uint32_t type, uint32_t tid, const void *p, size_t n)
{
    iol_rawchunk c = {IOL_RAW_CHUNK_MAGIC, type, tid, (uint32_t)n};
    put(fd, &c, sizeof c);
    if (n)
        put(fd, p, n);
}

static void header(int fd, int64_t pid)
{
    iol_rawhdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, IOL_RAW_MAGIC, 8);
    h.version = IOL_RAW_VERSION;
    h.rec_size = sizeof(iol_rawrec);
    h.pid = pid;
    h.ppid = 1;
    h.start_ns = 1000000000ull;
    h.nfuncs = IOL_F_COUNT;
    put(fd, &h, sizeof h);
}

static iol_rawrec rec(int func, uint64_t t, int32_t file, int32_t fd, int64_t ret, int64_t a0, int64_t a1)
{
    iol_rawrec r;
    memset(&r, 0, sizeof r);
    r.func = (uint16_t)func;
    r.t0 = 1000000000ull + t * 1000;
    r.t1 = r.t0 + 700;
    r.file = file;
    r.fd = fd;
    r.ret = ret;
    r.a[0] = a0;
    r.a[1] = a1;
    return r;
}

/* Writes the spill of one rank of the strided shared-file workload (and checkpoint files). */
static size_t strided_rank(const char *dir, int rank, int nranks, int m, iol_rawrec *all)
{
    char p[512];
    snprintf(p, sizeof p, "%s/p%d.0.raw", dir, 100 + rank);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    header(fd, 100 + rank);
    int32_t rk[2] = {rank, nranks};
    chunk(fd, IOL_RAW_RANK, 0, rk, sizeof rk);
    const char *shared = "/dev/shm/shared.dat";
    char buf[600];
    int32_t id = 0;
    memcpy(buf, &id, 4);
    memcpy(buf + 4, shared, strlen(shared));
    chunk(fd, IOL_RAW_PATH, 0, buf, 4 + strlen(shared));
    size_t n = 0;
    uint64_t t = 0;
    const int64_t MiB = 1 << 20;
    all[n++] = rec(IOL_F_open, t++, 0, -1, 3, O_CREAT | O_RDWR, 0644);
    for (int i = 0; i < m; i++)
        all[n++] = rec(IOL_F_pwrite, t += 3, 0, 3, MiB, ((int64_t)i * nranks + rank) * MiB, MiB);
    all[n++] = rec(IOL_F_fsync, t++, 0, 3, 0, 0, 0);
    for (int i = 0; i < m; i++)
        all[n++] = rec(IOL_F_pread, t += 2, 0, 3, MiB, ((int64_t)i * nranks + rank) * MiB, MiB);
    all[n++] = rec(IOL_F_close, t++, 0, 3, 0, 0, 0);
    for (int i = 0; i < m; i++) { /* checkpoint: a new file per iteration */
        char name[64];
        int nl = snprintf(name, sizeof name, "/dev/shm/ckpt/file_%d_r%d", i, rank);
        id = 1 + i;
        memcpy(buf, &id, 4);
        memcpy(buf + 4, name, (size_t)nl);
        chunk(fd, IOL_RAW_PATH, 0, buf, 4 + (size_t)nl);
        all[n++] = rec(IOL_F_open, t++, id, -1, 4, O_CREAT | O_WRONLY, 0644);
        all[n++] = rec(IOL_F_write, t += 5, id, 4, MiB, 0, MiB);
        all[n++] = rec(IOL_F_close, t++, id, 4, 0, 0, 0);
    }
    chunk(fd, IOL_RAW_RECS, 0, all, n * sizeof *all);
    chunk(fd, IOL_RAW_END, 0, NULL, 0);
    close(fd);
    return n;
}

static uint64_t structure_bytes(int nranks, int m, const char *dir, const char *out)
{
    iol_rawrec *recs = calloc((size_t)(5 * m + 8), sizeof *recs);
    for (int r = 0; r < nranks; r++)
        strided_rank(dir, r, nranks, m, recs);
    iolens_trace_stats st;
    assert_int_equal(iolens_trace_build(dir, out, NULL, &st), 0);
    if (getenv("IOLENS_TEST_VERBOSE"))
        fprintf(stderr, "N=%d M=%d: header %llu meta %llu struct %llu times %llu total %llu\n", nranks, m,
                (unsigned long long)st.bytes_header, (unsigned long long)st.bytes_meta,
                (unsigned long long)st.bytes_struct, (unsigned long long)st.bytes_times,
                (unsigned long long)st.bytes_total);
    /* decode and compare with what was written */
    iolens_evsource *s;
    assert_int_equal(iolens_trace_open(out, &s), 0);
    assert_int_equal(iolens_evsource_nranks(s), nranks);
    const iolens_file *files;
    size_t nf;
    assert_int_equal(iolens_evsource_files(s, &files, &nf), 0);
    assert_int_equal(nf, 1 + (size_t)m * (size_t)nranks);
    for (int r = 0; r < nranks; r++) {
        size_t n = strided_rank(dir, r, nranks, m, recs); /* regenerate the expected records */
        iolens_event ev;
        size_t k = 0;
        while (iolens_evsource_next(s, r, &ev) == 1) {
            assert_true(k < n);
            int32_t fd;
            int64_t a[4];
            assert_int_equal(iolens_trace_last_args(s, r, &fd, a), 0);
            assert_int_equal(fd, recs[k].fd);
            assert_true(a[0] == recs[k].a[0] && a[1] == recs[k].a[1]);
            assert_true(ev.ret == recs[k].ret);
            assert_true(ev.tend >= ev.tstart && ev.tstart >= 0);
            if (recs[k].file >= 0) {
                char want[64];
                if (recs[k].file == 0)
                    snprintf(want, sizeof want, "/dev/shm/shared.dat");
                else
                    snprintf(want, sizeof want, "/dev/shm/ckpt/file_%d_r%d", recs[k].file - 1, r);
                assert_string_equal(files[ev.file].path, want);
            }
            if (recs[k].func == IOL_F_write)
                assert_true(ev.offset == 0 && (ev.flags & IOLENS_EVF_OFFSET_IMPLICIT));
            k++;
        }
        assert_int_equal(k, n);
    }
    iolens_evsource_free(s);
    free(recs);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f %s/*.raw", dir);
    assert_int_equal(system(cmd), 0);
    return st.bytes_header + st.bytes_meta + st.bytes_struct;
}

static void test_roundtrip_constant_structure(void **state)
{
    (void)state;
    char dir[] = "/tmp/iolens-trace-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[600];
    snprintf(out, sizeof out, "%s/t.trace", dir);
    uint64_t s10 = structure_bytes(2, 10, dir, out);
    uint64_t s1000 = structure_bytes(2, 1000, dir, out);
    uint64_t s1000n4 = structure_bytes(4, 1000, dir, out);
    /* the structure does not grow with the number of iterations or of ranks */
    assert_true(s1000 <= s10 + s10 / 10 && s1000 + s1000 / 10 >= s10);
    assert_true(s1000n4 <= s1000 + s1000 / 10);
    unlink(out);
    rmdir(dir);
}

/* A preempted sample of the tracer's time after a call (15 us for a close whose next call came
 * 1 us later) is not taken off the gaps after that function: no gap after a function is shorter
 * than the tracer's time after it, so self_after is at most the shortest gap seen. */
static void test_self_bounded_by_gaps(void **state)
{
    (void)state;
    char dir[] = "/tmp/iolens-trace-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[600], out[600];
    snprintf(p, sizeof p, "%s/p100.0.raw", dir);
    snprintf(out, sizeof out, "%s/t.trace", dir);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    header(fd, 100);
    char buf[64];
    int32_t id = 0;
    memcpy(buf, &id, 4);
    memcpy(buf + 4, "/dev/shm/f", 10);
    chunk(fd, IOL_RAW_PATH, 0, buf, 14);
    iol_rawrec recs[128];
    uint64_t t = 1000000000ull;
    for (int i = 0; i < 64; i++) { /* open (3 us), 4 us, close (2 us), 1 us */
        recs[2 * i] = rec(IOL_F_open, 0, 0, -1, 3, O_CREAT | O_WRONLY, 0644);
        recs[2 * i].t0 = t;
        recs[2 * i].t1 = t + 3000;
        recs[2 * i + 1] = rec(IOL_F_close, 0, 0, 3, 0, 0, 0);
        recs[2 * i + 1].t0 = t + 7000;
        recs[2 * i + 1].t1 = t + 9000;
        t += 10000;
    }
    chunk(fd, IOL_RAW_RECS, 0, recs, sizeof recs);
    struct {
        iol_rawself self;
        iol_rawselff f[2];
    } self = {{2, 172000, 100}, {{IOL_F_close, 0, 1, 15000}, {IOL_F_read, 0, 1, 157000}}};
    chunk(fd, IOL_RAW_SELF, 0, &self, sizeof self);
    chunk(fd, IOL_RAW_END, 0, NULL, 0);
    close(fd);
    iolens_trace_stats st;
    assert_int_equal(iolens_trace_build(dir, out, NULL, &st), 0);
    iolens_evsource *s;
    assert_int_equal(iolens_trace_open(out, &s), 0);
    iolens_event ev;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) { /* the same figures after a rewind */
        assert_int_equal(iolens_evsource_rewind(s, 0), 0);
        while (iolens_evsource_next(s, 0, &ev) == 1) {
            double gap = ev.op == IOLENS_OP_CLOSE ? 1e-6 : 4e-6; /* one tick (1 us by default) more */
            assert_true(ev.self_after > 0 && ev.self_after <= gap + 1e-6 + 1e-9);
            n++;
        }
    }
    assert_int_equal(n, 256);
    iolens_evsource_free(s);
    unlink(out);
    unlink(p);
    rmdir(dir);
}

static void test_hostile(void **state)
{
    (void)state;
    iolens_evsource *s = NULL;
    assert_int_equal(iolens_trace_open_mem("IOLTRACE", 8, "x", &s), IOLENS_EFORMAT);
    assert_null(s);
    unsigned char junk[64] = "IOLTRACE\1\0\0\0\3\0\0\0";
    assert_int_equal(iolens_trace_open_mem(junk, sizeof junk, "x", &s), IOLENS_EFORMAT);
    assert_int_equal(iolens_trace_open("/nonexistent/t.trace", &s), IOLENS_EIO);
    iolens_evsource_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_grammar_loops),
        cmocka_unit_test(test_roundtrip_constant_structure),
        cmocka_unit_test(test_self_bounded_by_gaps),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
