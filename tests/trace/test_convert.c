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
static void test_errors(void **state)
{
    (void)state;
    assert_true(iolens_trace_write_events(NULL, "/dev/shm/x", NULL, NULL, NULL) == IOLENS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_shared_traces),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
