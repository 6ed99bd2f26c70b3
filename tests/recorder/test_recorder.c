/* The Recorder reader's event stream on the real traces of
 * ../shared/data/recorder (workloads described in its INDEX.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/event.h"
#include "iolens/recorder.h"
#include "util/buf.h"

#define MIB 1048576LL

static char *trace_path(const char *name)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    static char path[4096];
    snprintf(path, sizeof path, "%s/recorder/%s", root ? root : "../shared/data", name);
    return path;
}

static int have(const char *name)
{
    struct stat st;
    return stat(trace_path(name), &st) == 0;
}

static iolens_evsource *open_trace(const char *name)
{
    iolens_evsource *src = NULL;
    int rc = iolens_recorder_open(trace_path(name), &src, NULL);
    if (rc < 0)
        fail_msg("%s: %s", name, iolens_error_last());
    return src;
}

/* shared_nN_mM: each rank pwrite()s M x 1 MiB at (i*N+rank)*1MiB, fsync, then
 * pread()s them back; records/rank = 2M+3. */
static void check_shared(const char *name, int N, long M)
{
    if (!have(name))
        skip();
    iolens_evsource *src = open_trace(name);
    assert_int_equal(iolens_evsource_nranks(src), N);
    assert_true(iolens_evsource_start_time(src) > 1.6e9);
    const iolens_file *files;
    size_t nfiles;
    assert_int_equal(iolens_evsource_files(src, &files, &nfiles), 0);
    assert_int_equal(nfiles, 1);
    assert_non_null(strstr(files[0].path, "shared.dat"));
    char *seen = calloc((size_t)(M * N), 2);
    for (int r = 0; r < N; r++) {
        iolens_event ev;
        long records = 0, writes = 0, reads = 0;
        int64_t wbytes = 0, rbytes = 0;
        double prev = -1;
        int rc;
        while ((rc = iolens_evsource_next(src, r, &ev)) == 1) {
            records++;
            assert_int_equal(ev.rank, r);
            assert_true(ev.tstart >= prev);
            assert_true(ev.tend >= ev.tstart);
            prev = ev.tstart;
            assert_int_equal(ev.layer, IOLENS_LAYER_POSIX);
            assert_int_equal(ev.file, 0);
            if (ev.op == IOLENS_OP_WRITE || ev.op == IOLENS_OP_READ) {
                int w = ev.op == IOLENS_OP_WRITE;
                assert_string_equal(ev.func, w ? "pwrite" : "pread");
                assert_int_equal(ev.size, MIB);
                assert_int_equal(ev.nargs, 4);
                /* the offset is one of this rank's blocks, each hit once */
                assert_true(ev.offset >= 0 && ev.offset % MIB == 0);
                long blk = (long)(ev.offset / MIB);
                assert_int_equal(blk % N, r);
                assert_true(blk < M * N);
                assert_int_equal(seen[(size_t)blk * 2 + (size_t)w], 0);
                seen[(size_t)blk * 2 + (size_t)w] = 1;
                if (w) {
                    writes++;
                    wbytes += ev.size;
                } else {
                    reads++;
                    rbytes += ev.size;
                }
            } else {
                assert_true(ev.op == IOLENS_OP_OPEN || ev.op == IOLENS_OP_SYNC || ev.op == IOLENS_OP_CLOSE);
            }
        }
        assert_int_equal(rc, 0);
        assert_int_equal(records, 2 * M + 3);
        assert_int_equal(writes, M);
        assert_int_equal(reads, M);
        assert_int_equal(wbytes, M * MIB);
        assert_int_equal(rbytes, M * MIB);
        /* rewind gives the same stream again */
        assert_int_equal(iolens_evsource_rewind(src, r), 0);
        long again = 0;
        while (iolens_evsource_next(src, r, &ev) == 1)
            again++;
        assert_int_equal(again, records);
    }
    free(seen);
    iolens_evsource_free(src);
}

static void test_shared_n2_m10(void **s) { (void)s; check_shared("shared_n2_m10", 2, 10); }
static void test_shared_n2_m100(void **s) { (void)s; check_shared("shared_n2_m100", 2, 100); }
static void test_shared_n2_m1000(void **s) { (void)s; check_shared("shared_n2_m1000", 2, 1000); }
static void test_shared_n4_m10(void **s) { (void)s; check_shared("shared_n4_m10", 4, 10); }
/* inter- and intra-process pattern recognition: offsets "a*r+b" (and pwrite
 * offsets relative to the first one) must resolve to the real offsets */
static void test_shared_n4_m1000_bothPR(void **s) { (void)s; check_shared("shared_n4_m1000_bothPR", 4, 1000); }

static void test_pattern_offsets_resolved(void **s)
{
    (void)s;
    if (!have("shared_n4_m1000_bothPR"))
        skip();
    iolens_evsource *src = open_trace("shared_n4_m1000_bothPR");
    long patterns = 0;
    for (int r = 0; r < 4; r++) {
        iolens_event ev;
        long i = 0;
        while (iolens_evsource_next(src, r, &ev) == 1) {
            if (ev.op != IOLENS_OP_WRITE)
                continue;
            /* i-th pwrite of rank r is at (i*4 + r) MiB, whatever the text says */
            assert_int_equal(ev.offset, (i * 4 + r) * MIB);
            patterns += strstr(ev.args[3], "*r+") != NULL;
            i++;
        }
        assert_int_equal(i, 1000);
    }
    assert_true(patterns >= 4000); /* every pwrite was stored as a*r+b */
    iolens_evsource_free(src);
}

/* ckpt_nN_mM: M x open(file_<i>_r<rank>)/write(1 MiB)/close; records/rank = 3M */
static void check_ckpt(const char *name, int N, long M)
{
    if (!have(name))
        skip();
    iolens_evsource *src = open_trace(name);
    const iolens_file *files;
    size_t nfiles;
    assert_int_equal(iolens_evsource_files(src, &files, &nfiles), 0);
    assert_int_equal((long)nfiles, N * M);
    for (int r = 0; r < N; r++) {
        iolens_event ev;
        long records = 0, writes = 0;
        int64_t bytes = 0;
        char want[64];
        while (iolens_evsource_next(src, r, &ev) == 1) {
            records++;
            assert_true(ev.file >= 0 && (size_t)ev.file < nfiles);
            if (ev.op == IOLENS_OP_OPEN) {
                snprintf(want, sizeof want, "/file_%ld_r%d", writes, r);
                assert_non_null(strstr(files[ev.file].path, want));
                assert_true(ev.open_flags >= 0);
                assert_int_equal(ev.mode, 0644);
            }
            if (ev.op == IOLENS_OP_WRITE) {
                assert_string_equal(ev.func, "write");
                assert_int_equal(ev.offset, 0); /* implicit: right after open */
                assert_true(ev.flags & IOLENS_EVF_OFFSET_IMPLICIT);
                bytes += ev.size;
                writes++;
            }
        }
        assert_int_equal(records, 3 * M);
        assert_int_equal(writes, M);
        assert_int_equal(bytes, M * MIB);
    }
    iolens_evsource_free(src);
}

static void test_ckpt_n2_m10(void **s) { (void)s; check_ckpt("ckpt_n2_m10", 2, 10); }
static void test_ckpt_n2_m1000(void **s) { (void)s; check_ckpt("ckpt_n2_m1000", 2, 1000); }

/* dd if=/dev/zero of=/dev/shm/ddtest bs=1M count=1000, traced without MPI */
static void test_nonmpi_dd(void **s)
{
    (void)s;
    if (!have("nonmpi_dd_1000x1MiB"))
        skip();
    iolens_evsource *src = open_trace("nonmpi_dd_1000x1MiB");
    assert_int_equal(iolens_evsource_nranks(src), 1);
    const iolens_file *files;
    size_t nfiles;
    iolens_evsource_files(src, &files, &nfiles);
    iolens_event ev;
    int64_t wbytes = 0, rbytes = 0, next_off = 0;
    long writes = 0, dups = 0;
    while (iolens_evsource_next(src, 0, &ev) == 1) {
        if (ev.op == IOLENS_OP_DUP) {
            /* Recorder logs dup2's descriptors as numbers ("3 0"); each is the
             * file dd has just opened, not a file named "3" */
            assert_true(ev.file >= 0);
            assert_string_equal(files[ev.file].path, dups++ ? "/dev/shm/ddtest" : "/dev/zero");
        } else if (ev.op == IOLENS_OP_WRITE) {
            assert_string_equal(files[ev.file].path, "/dev/shm/ddtest");
            assert_int_equal(ev.offset, next_off); /* sequential, through dup2'ed stdout */
            next_off += ev.size;
            wbytes += ev.size;
            writes++;
        } else if (ev.op == IOLENS_OP_READ) {
            assert_string_equal(files[ev.file].path, "/dev/zero");
            rbytes += ev.size;
        }
    }
    assert_int_equal(dups, 2);
    for (size_t i = 0; i < nfiles; i++)
        assert_string_not_equal(files[i].path, "3");
    assert_int_equal(writes, 1000);
    assert_int_equal(wbytes, 1000 * MIB);
    assert_int_equal(rbytes, 1000 * MIB);
    iolens_evsource_free(src);
}

/* Reading from memory gives exactly what reading the directory gives. */
static void test_memory_provider(void **s)
{
    (void)s;
    const char *name = "shared_n4_m10";
    if (!have(name))
        skip();
    static const char *const names[] = {"VERSION", "recorder.mt", "recorder.cst", "ug.mt", "ug.cfg", "recorder.ts"};
    iol_buf content[6];
    iolens_recorder_memfile mf[6];
    for (int i = 0; i < 6; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", trace_path(name), names[i]);
        content[i] = (iol_buf)IOL_BUF_INIT;
        assert_int_equal(iol_read_file(p, 1 << 24, &content[i]), 0);
        mf[i] = (iolens_recorder_memfile){names[i], (const uint8_t *)content[i].data, content[i].len};
    }
    iolens_recorder *a, *b;
    assert_int_equal(iolens_recorder_read(trace_path(name), &a, NULL), 0);
    assert_int_equal(iolens_recorder_read_mem(mf, 6, "mem", &b, NULL), 0);
    assert_string_equal(iolens_recorder_version(b), "2.5.0");
    assert_int_equal(iolens_recorder_nranks(b), 4);
    for (int r = 0; r < 4; r++) {
        char *ta = NULL, *tb = NULL;
        size_t la = 0, lb = 0;
        FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
        assert_int_equal(iolens_recorder_write_text(a, r, fa, NULL), 23);
        assert_int_equal(iolens_recorder_write_text(b, r, fb, NULL), 23);
        fclose(fa);
        fclose(fb);
        assert_int_equal(la, lb);
        assert_memory_equal(ta, tb, la);
        assert_int_equal(iolens_recorder_record_count(b, r), 23);
        free(ta);
        free(tb);
    }
    assert_true(iolens_recorder_record_count(b, 4) < 0);
    iolens_recorder_free(a);
    iolens_recorder_free(b);
    iolens_recorder_free(NULL);
    for (int i = 0; i < 6; i++)
        iol_buf_release(&content[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_n2_m10),
        cmocka_unit_test(test_shared_n2_m100),
        cmocka_unit_test(test_shared_n2_m1000),
        cmocka_unit_test(test_shared_n4_m10),
        cmocka_unit_test(test_shared_n4_m1000_bothPR),
        cmocka_unit_test(test_pattern_offsets_resolved),
        cmocka_unit_test(test_ckpt_n2_m10),
        cmocka_unit_test(test_ckpt_n2_m1000),
        cmocka_unit_test(test_nonmpi_dd),
        cmocka_unit_test(test_memory_provider),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
