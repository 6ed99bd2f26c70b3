/*
 * Traces -> detect input (src/detect/detect_trace.c), on the real Recorder
 * traces of ../shared/data/recorder:
 *   - the counters handed over directly (iolens_detect_from_counters) give the
 *     same 157 features as the Darshan log the counters module writes of the
 *     same counters, read back by the binary-log adapter (num_files included:
 *     the log's name records are the counters' names);
 *   - input kinds are told apart by content and shape (directory, "IOLTRACE",
 *     Darshan magic, text);
 *   - Darshan's path exclusions apply by default: the traces live in /dev/shm,
 *     so without all_paths they have no file records (and a warning says so);
 *   - hostile inputs (a truncated iolens trace, an empty directory) fail cleanly.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolens/counters.h"
#include "iolens/detect.h"
#include "iolens/recorder.h"

static char dir_buf[4096];

static const char *rec_dir(const char *name)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    snprintf(dir_buf, sizeof dir_buf, "%s/recorder/%s", root ? root : "../shared/data", name);
    return dir_buf;
}

static int have(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int warnings;
static char last_warning[1024];
static void on_warn(void *ctx, const char *msg)
{
    (void)ctx;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static double feat(const double *x, const char *name)
{
    int i = iolens_detect_feature_index(name);
    assert_true(i >= 0);
    return x[i];
}

/* Counters given directly == the Darshan log written of the same counters, read back. */
static void check_direct_vs_log(const char *name)
{
    const char *dir = rec_dir(name);
    if (!have(dir))
        skip();
    iolens_evsource *src = NULL;
    assert_int_equal(iolens_recorder_open(dir, &src, NULL), 0);
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.all_paths = 1; /* the workloads wrote to /dev/shm */
    o.mounts = "";
    iolens_counters *c = NULL;
    assert_int_equal(iolens_counters_compute(src, &o, &c), 0);
    char log[] = "/tmp/iolens-trace-adapter-XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(iolens_counters_write(c, log), 0);

    iolens_detect_input *a = NULL, *b = NULL;
    assert_int_equal(iolens_detect_from_counters(&a, c), 0);
    assert_int_equal(iolens_detect_read_darshan(&b, log, NULL, NULL), 0);
    double xa[IOLENS_DETECT_NFEATURES], xb[IOLENS_DETECT_NFEATURES];
    assert_int_equal(iolens_detect_input_features(a, xa), 0);
    assert_int_equal(iolens_detect_input_features(b, xb), 0);
    for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++) {
        const char *fn = iolens_detect_feature_name(f);
        /* the run time goes through the log's sec + nsec job fields */
        double tol = !strcmp(fn, "runtime_seconds") || !strcmp(fn, "io_active_fraction") ? 1e-6 * fabs(xb[f]) + 1e-9 : 0;
        if (fabs(xa[f] - xb[f]) > tol)
            fail_msg("%s: feature %s direct %.17g, via the Darshan log %.17g", name, fn, xa[f], xb[f]);
    }
    assert_true(feat(xa, "POSIX_WRITES") > 0);
    /* no stdio call in these runs: the name records are the files and heatmap:POSIX */
    assert_true(feat(xa, "num_files") == (double)iolens_counters_name_count(c));
    iolens_detect_input_free(a);
    iolens_detect_input_free(b);
    iolens_counters_free(c);
    iolens_evsource_free(src);
    unlink(log);
}

static void test_direct_vs_log_shared(void **state)
{
    (void)state;
    check_direct_vs_log("shared_n4_m10");
}

static void test_direct_vs_log_ckpt(void **state)
{
    (void)state;
    check_direct_vs_log("ckpt_n2_m100");
}

/* shared_n2_m100: 2 ranks, each pwrite()s 100 x 1 MiB into one file, fsync, preads them back */
static void test_read_recorder(void **state)
{
    (void)state;
    const char *dir = rec_dir("shared_n2_m100");
    if (!have(dir))
        skip();
    assert_int_equal(iolens_detect_kind(dir), IOLENS_DETECT_KIND_RECORDER);
    iolens_detect_read_opts o;
    iolens_detect_read_opts_init(&o);
    o.all_paths = 1;
    o.warn = on_warn;
    warnings = 0;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    assert_int_equal(iolens_detect_read(&in, dir, &o), 0);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_int_equal(warnings, 0);
    assert_true(feat(x, "nprocs") == 2);
    assert_true(feat(x, "POSIX_WRITES") == 200);
    assert_true(feat(x, "POSIX_READS") == 200);
    assert_true(feat(x, "POSIX_BYTES_WRITTEN") == 200.0 * 1048576);
    assert_true(feat(x, "POSIX_FSYNCS") == 2);
    assert_true(feat(x, "is_shared_file") == 1);
    assert_true(feat(x, "num_files") == 2); /* the file and heatmap:POSIX */
    assert_true(feat(x, "has_mpiio") == 0);
    iolens_detect_input_free(in);

    /* Darshan's exclusions by default: the file is /dev/shm/..., so nothing is kept */
    o.all_paths = 0;
    warnings = 0;
    assert_int_equal(iolens_detect_read(&in, dir, &o), 0);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "POSIX_WRITES") == 0);
    assert_int_equal(warnings, 1);
    assert_non_null(strstr(last_warning, "--all-paths"));
    iolens_detect_input_free(in);
}

static void test_kinds_and_errors(void **state)
{
    (void)state;
    char tmp[] = "/tmp/iolens-trace-kinds-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char p[4200];
    /* a truncated iolens trace: the magic only */
    snprintf(p, sizeof p, "%s/t.trace", tmp);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("IOLTRACE\1\0", f);
    fclose(f);
    assert_int_equal(iolens_detect_kind(p), IOLENS_DETECT_KIND_TRACE);
    iolens_detect_input *in = NULL;
    assert_true(iolens_detect_read(&in, p, NULL) < 0);
    assert_null(in);
    assert_non_null(strstr(iolens_error_last(), "t.trace"));
    /* text */
    snprintf(p, sizeof p, "%s/x.txt", tmp);
    f = fopen(p, "wb");
    assert_non_null(f);
    fputs("# darshan log version: 3.41\n", f);
    fclose(f);
    assert_int_equal(iolens_detect_kind(p), IOLENS_DETECT_KIND_TEXT);
    assert_true(iolens_detect_read_trace(&in, p, NULL) < 0); /* not a trace */
    unlink(p);
    /* an empty directory is no Recorder trace */
    assert_int_equal(iolens_detect_kind(tmp), IOLENS_DETECT_KIND_RECORDER);
    snprintf(p, sizeof p, "%s/t.trace", tmp);
    unlink(p);
    assert_true(iolens_detect_read(&in, tmp, NULL) < 0);
    assert_null(in);
    rmdir(tmp);
    assert_true(iolens_detect_kind("/nonexistent/iolens/x") < 0);
    assert_true(iolens_detect_from_counters(&in, NULL) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direct_vs_log_shared),
        cmocka_unit_test(test_direct_vs_log_ckpt),
        cmocka_unit_test(test_read_recorder),
        cmocka_unit_test(test_kinds_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
