/* iolens_trace_write_events on every Recorder trace of ../shared/data/recorder:
 * the converted iolens trace decodes to the same events as the Recorder
 * reader gives (per rank: func, op, path, offset, size, and tstart/tend
 * within one tick of the trace resolution, 100 ns), and is smaller. */
#define _DEFAULT_SOURCE
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
#include <sys/stat.h>
#include <unistd.h>

#include "iolens/event.h"
#include "iolens/recorder.h"
#include "iolens/trace.h"

#define RES_NS 100

static const char *root(void)
{
    const char *r = getenv("IOLENS_SHARED_DATA");
    return r ? r : "../shared/data";
}

static const char *path_of(const iolens_file *f, size_t n, int64_t id)
{
    return id >= 0 && (size_t)id < n ? f[id].path : NULL;
}

/* Converts dir, compares every event, returns the number of events compared. */
static long check_trace(const char *dir, const char *name)
{
    char out[] = "/dev/shm/iolens-convert-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    iolens_evsource *rec = NULL, *tr = NULL;
    if (iolens_recorder_open(dir, &rec, NULL) < 0)
        fail_msg("%s: %s", name, iolens_error_last());
    iolens_trace_build_opts o = {RES_NS, 0};
    iolens_trace_stats st;
    uint64_t skipped = 99;
    if (iolens_trace_write_events(rec, out, &o, &st, &skipped) < 0)
        fail_msg("%s: %s", name, iolens_error_last());
    assert_int_equal(skipped, 0);
    if (iolens_trace_open(out, &tr) < 0)
        fail_msg("%s: %s", name, iolens_error_last());
    assert_int_equal(iolens_evsource_nranks(tr), iolens_evsource_nranks(rec));
    const iolens_file *rf, *tf;
    size_t nrf, ntf;
    assert_int_equal(iolens_evsource_files(rec, &rf, &nrf), 0);
    assert_int_equal(iolens_evsource_files(tr, &tf, &ntf), 0);
    long total = 0;
    double tol = RES_NS * 1e-9 + 1e-9;
    for (int r = 0; r < iolens_evsource_nranks(rec); r++) {
        iolens_event a, b;
        int ga, gb;
        long k = 0;
        while ((ga = iolens_evsource_next(rec, r, &a)) == 1) {
            gb = iolens_evsource_next(tr, r, &b);
            if (gb != 1)
                fail_msg("%s rank %d: the converted trace ends after %ld events", name, r, k);
            if (strcmp(a.func, b.func) || a.op != b.op || a.offset != b.offset || a.size != b.size)
                fail_msg("%s rank %d event %ld: %s op %d off %lld size %lld vs %s op %d off %lld size %lld", name,
                         r, k, a.func, a.op, (long long)a.offset, (long long)a.size, b.func, b.op,
                         (long long)b.offset, (long long)b.size);
            const char *pa = path_of(rf, nrf, a.file), *pb = path_of(tf, ntf, b.file);
            if ((pa == NULL) != (pb == NULL) || (pa && strcmp(pa, pb)))
                fail_msg("%s rank %d event %ld: path %s vs %s", name, r, k, pa ? pa : "-", pb ? pb : "-");
            if (fabs(a.tstart - b.tstart) > tol || fabs(a.tend - b.tend) > tol || b.tstart > a.tstart + 1e-9)
                fail_msg("%s rank %d event %ld: times %.9f %.9f vs %.9f %.9f", name, r, k, a.tstart, a.tend,
                         b.tstart, b.tend);
            assert_int_equal(a.depth, b.depth);
            assert_int_equal(a.thread, b.thread);
            k++;
        }
        assert_int_equal(ga, 0);
        assert_int_equal(iolens_evsource_next(tr, r, &b), 0);
        total += k;
    }
    assert_int_equal(st.ncalls, (uint64_t)total);
    /* sizes: the Recorder files (no _text/, no stdout log) vs the trace */
    uint64_t rbytes = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[8192];
        struct stat sb;
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || e->d_name[0] == '_' || (l > 4 && !strcmp(e->d_name + l - 4, ".txt")))
            continue;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p)
            continue;
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            rbytes += (uint64_t)sb.st_size;
    }
    closedir(d);
    printf("%-28s %6ld events  Recorder %8llu bytes  iolens %6llu bytes  %6.2fx\n", name, total,
           (unsigned long long)rbytes, (unsigned long long)st.bytes_total, (double)rbytes / (double)st.bytes_total);
    assert_true(st.bytes_total < rbytes);
    iolens_evsource_free(rec);
    iolens_evsource_free(tr);
    unlink(out);
    return total;
}

static void test_all_shared_traces(void **state)
{
    (void)state;
    char base[4096];
    snprintf(base, sizeof base, "%s/recorder", root());
    DIR *d = opendir(base);
    if (!d)
        skip();
    int n = 0;
    struct dirent *e;
    char **names = NULL;
    while ((e = readdir(d))) {
        char p[8192];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s/recorder.mt", base, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &sb) != 0)
            continue;
        names = realloc(names, (size_t)(n + 1) * sizeof *names);
        assert_non_null(names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    assert_true(n >= 1);
    for (int i = 0; i < n; i++) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", base, names[i]);
        assert_true(check_trace(p, names[i]) > 0);
        free(names[i]);
    }
    free(names);
}

/* Functions iolens does not trace are skipped and counted; bad arguments are refused. */

/* ---- HDF5 records as Recorder logs them ----------------------------------------------------
 * A source giving the calls of a real Recorder 2.5 trace of an HDF5 program (its hid_t
 * arguments as Recorder printed them: kind in bits 56-62, serial number below): the converted
 * trace names each object as the shim does and keeps what Recorder does not log as not known. */
typedef struct h5call {
    const char *func;
    iolens_layer layer;
    iolens_op op;
    uint32_t depth, lib_depth;
    const char *args; /* space-separated, as Recorder prints them */
} h5call;

#define FILE1 "/x/s_0.h5"
static const h5call *h5_calls;
static size_t h5_ncalls, h5_at;
static char h5_argbuf[64][64];
static const char *h5_argv[64];
static const iolens_file h5_files[] = {{0, FILE1}};

static int h5_nranks(void *impl) { (void)impl; return 1; }
static double h5_start(void *impl) { (void)impl; return 1.7e9; }
static int h5_filesf(void *impl, const iolens_file **out, size_t *n)
{
    (void)impl;
    *out = h5_files;
    *n = 1;
    return 0;
}
static int h5_next(void *impl, int rank, iolens_event *e)
{
    (void)impl;
    (void)rank;
    if (h5_at == h5_ncalls)
        return 0;
    const h5call *c = &h5_calls[h5_at];
    memset(e, 0, sizeof *e);
    e->func = c->func;
    e->layer = c->layer;
    e->op = c->op;
    e->depth = c->depth;
    e->lib_depth = c->lib_depth;
    e->tstart = 0.001 * (double)(h5_at + 1);
    e->tend = e->tstart + 0.0005;
    e->file = c->layer == IOLENS_LAYER_POSIX ? 0 : -1;
    e->offset = e->size = e->ret = -1;
    e->open_flags = e->mode = e->whence = -1;
    uint32_t n = 0;
    const char *a = c->args;
    while (*a && n < 64) {
        size_t l = strcspn(a, " ");
        snprintf(h5_argbuf[n], sizeof h5_argbuf[n], "%.*s", (int)l, a);
        h5_argv[n] = h5_argbuf[n];
        n++;
        a += l;
        a += *a == ' ';
    }
    e->nargs = n;
    e->args = h5_argv;
    h5_at++;
    return 1;
}
static int h5_rewind(void *impl, int rank)
{
    (void)impl;
    (void)rank;
    h5_at = 0;
    return 0;
}
static void h5_freef(void *impl) { (void)impl; }

#define H IOLENS_LAYER_HDF5
#define FID "72057594037927936"
#define GID "144115188075855872"
#define DA "360287970189639680"
#define DB "360287970189639681"

/* Converts calls, returns the converted trace (open) after checking each HDF5 record's name. */
static iolens_evsource *h5_convert(const h5call *calls, size_t n, const char *const *names, char *out)
{
    static const iolens_evsource_ops ops = {IOLENS_EVSOURCE_OPS_VERSION, "recorder-like", h5_nranks, h5_start,
                                            h5_filesf, h5_next, h5_rewind, h5_freef};
    h5_calls = calls;
    h5_ncalls = n;
    h5_at = 0;
    iolens_evsource *src = NULL, *tr = NULL;
    assert_int_equal(iolens_evsource_new(&src, &ops, NULL), 0);
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    iolens_trace_build_opts o = {RES_NS, 0};
    iolens_trace_stats st;
    uint64_t skipped = 0;
    if (iolens_trace_write_events(src, out, &o, &st, &skipped) < 0)
        fail_msg("%s", iolens_error_last());
    iolens_evsource_free(src);
    if (iolens_trace_open(out, &tr) < 0)
        fail_msg("%s", iolens_error_last());
    const iolens_file *tf;
    size_t ntf;
    assert_int_equal(iolens_evsource_files(tr, &tf, &ntf), 0);
    iolens_event e;
    size_t k = 0;
    while (iolens_evsource_next(tr, 0, &e) == 1) {
        while (k < n && strncmp(calls[k].func, "H5", 2) == 0 && strcmp(calls[k].func, e.func))
            k++; /* a call the trace format has no number for (H5Screate_simple) */
        assert_true(k < n);
        assert_string_equal(e.func, calls[k].func);
        const char *p = path_of(tf, ntf, e.file);
        if (names[k] && (!p || strcmp(p, names[k])))
            fail_msg("call %zu %s: name %s, expected %s", k, e.func, p ? p : "-", names[k]);
        assert_int_equal(e.depth, calls[k].depth);
        assert_int_equal(e.lib_depth, calls[k].lib_depth);
        k++;
    }
    assert_int_equal(iolens_evsource_rewind(tr, 0), 0);
    return tr;
}

/* The next event of func, with its slots. */
static void h5_find(iolens_evsource *tr, const char *func, int64_t a[4])
{
    iolens_event e;
    int32_t fd;
    while (iolens_evsource_next(tr, 0, &e) == 1)
        if (!strcmp(e.func, func)) {
            assert_int_equal(iolens_trace_last_args(tr, 0, &fd, a), 0);
            return;
        }
    fail_msg("no %s", func);
}

static void test_recorder_hdf5(void **state)
{
    (void)state;
    /* from a Recorder 2.5 trace of a C program: a file with dataset /a and group /grp holding
     * /grp/b; three writes of each (H5S_ALL, default transfer); reopened, /grp/b read */
    static const h5call calls[] = {
        {"H5Pset_dxpl_mpio", H, IOLENS_OP_OTHER, 0, 0, "720575940379279370 1"},
        {"H5Fcreate", H, IOLENS_OP_OPEN, 0, 0, FILE1 " 2 0 0"},
        {"open", IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 0, 1, FILE1 " 578 438"},
        {"H5Gcreate2", H, IOLENS_OP_OTHER, 0, 0, FID " grp 0 0 0"},
        {"H5Screate_simple", H, IOLENS_OP_OTHER, 0, 0, "2 %p %p"},
        {"H5Dcreate2", H, IOLENS_OP_OPEN, 0, 0, FID " a 216172782113783851 288230376151711746 0 0 0"},
        {"H5Dcreate2", H, IOLENS_OP_OPEN, 0, 0, GID " b 216172782113783851 288230376151711746 0 0 0"},
        {"H5Dwrite", H, IOLENS_OP_WRITE, 0, 0, DB " 216172782113783851 0 0 0 %p"},
        {"H5Dwrite", H, IOLENS_OP_WRITE, 0, 0, DA " 216172782113783851 0 0 720575940379279370 %p"},
        {"H5Dclose", H, IOLENS_OP_CLOSE, 0, 0, DA},
        {"pwrite", IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 1, FILE1 " %p 8192 10896"},
        {"H5Dclose", H, IOLENS_OP_CLOSE, 0, 0, DB},
        {"H5Gclose", H, IOLENS_OP_OTHER, 0, 0, GID},
        {"H5Fclose", H, IOLENS_OP_CLOSE, 0, 0, FID},
        {"H5Fopen", H, IOLENS_OP_OPEN, 0, 0, FILE1 " 0 0"},
        {"H5Dopen2", H, IOLENS_OP_OPEN, 0, 0, "72057594037927937 /grp/b 0"},
        {"H5Dread", H, IOLENS_OP_READ, 0, 0, "360287970189639682 216172782113783851 0 288230376151711747 0 %p"},
        {"H5Fflush", H, IOLENS_OP_FLUSH, 0, 0, "360287970189639682 0"},
        {"H5Dclose", H, IOLENS_OP_CLOSE, 0, 0, "360287970189639682"},
        {"H5Fclose", H, IOLENS_OP_CLOSE, 0, 0, "72057594037927937"},
    };
    static const char *const names[] = {NULL, FILE1, FILE1, FILE1 ":/grp", NULL, FILE1 ":/a", FILE1 ":/grp/b",
                                        FILE1 ":/grp/b", FILE1 ":/a", FILE1 ":/a", FILE1, FILE1 ":/grp/b",
                                        FILE1 ":/grp", FILE1, FILE1, FILE1 ":/grp/b", FILE1 ":/grp/b", FILE1,
                                        FILE1 ":/grp/b", FILE1};
    char out[] = "/dev/shm/iolens-convert-h5-XXXXXX";
    iolens_evsource *tr = h5_convert(calls, sizeof calls / sizeof calls[0], names, out);
    int64_t a[4];
    h5_find(tr, "H5Fcreate", a);
    assert_int_equal(a[0], 2); /* H5F_ACC_TRUNC */
    h5_find(tr, "H5Dcreate2", a);
    assert_int_equal(a[1], -1); /* the dataset's bytes: not logged */
    h5_find(tr, "H5Dwrite", a);
    assert_int_equal(a[0], 4);  /* H5S_ALL */
    assert_int_equal(a[1], -1); /* bytes: not logged */
    assert_int_equal(a[3], 0);  /* the default transfer list: independent */
    h5_find(tr, "H5Dwrite", a);
    assert_int_equal(a[3], 1); /* a list given H5Pset_dxpl_mpio(collective) */
    h5_find(tr, "H5Dread", a);
    assert_int_equal(a[0], -1); /* a selection of its own: not known */
    iolens_evsource_free(tr);
    unlink(out);

    /* h5py's way: objects opened by H5Oopen, of a kind the call does not show */
    static const h5call py[] = {
        {"H5Fopen", H, IOLENS_OP_OPEN, 0, 0, FILE1 " 0 0"},
        {"H5Oopen", H, IOLENS_OP_OPEN, 0, 0, FID " x 0"},
        {"H5Dread", H, IOLENS_OP_READ, 0, 0, DA " 216172782113783851 0 0 0 %p"},
        {"H5Oopen", H, IOLENS_OP_OPEN, 0, 0, FID " g 0"},
        {"H5Oopen", H, IOLENS_OP_OPEN, 0, 0, GID " y 0"},
        {"H5Dread", H, IOLENS_OP_READ, 0, 0, DB " 216172782113783851 0 0 0 %p"},
        {"H5Oclose", H, IOLENS_OP_CLOSE, 0, 0, DB},
        {"H5Oclose", H, IOLENS_OP_CLOSE, 0, 0, GID},
        {"H5Oclose", H, IOLENS_OP_CLOSE, 0, 0, DA},
        {"H5Fclose", H, IOLENS_OP_CLOSE, 0, 0, FID},
    };
    static const char *const pynames[] = {FILE1, FILE1 ":/x", FILE1 ":/x", FILE1 ":/g", FILE1 ":/g/y",
                                          FILE1 ":/g/y", FILE1 ":/g/y", FILE1 ":/g", FILE1 ":/x", FILE1};
    char out2[] = "/dev/shm/iolens-convert-h5-XXXXXX";
    tr = h5_convert(py, sizeof py / sizeof py[0], pynames, out2);
    iolens_evsource_free(tr);
    unlink(out2);
}

static void test_errors(void **state)
{
    (void)state;
    assert_true(iolens_trace_write_events(NULL, "/dev/shm/x", NULL, NULL, NULL) == IOLENS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_shared_traces),
        cmocka_unit_test(test_recorder_hdf5),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
