/* darshan-parser text reader: the three real sample dumps of ../shared/data/iosage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"

static char path_buf[4096];

static const char *sample(const char *year, const char *kind)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    snprintf(path_buf, sizeof path_buf, "%s/iosage/sample_darshan_parser_outputs/%s/sample_%s_%s", root ? root : "../shared/data",
             year, year, kind);
    return path_buf;
}

static int warnings;
static void count_warn(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
    warnings++;
}

/* Value of "total_NAME: v" in a darshan-parser --total dump, NAN if absent. */
static double total_of(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512], key[256];
    snprintf(key, sizeof key, "total_%s: ", name);
    double v = NAN;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) {
            v = strtod(line + strlen(key), NULL);
            break;
        }
    fclose(f);
    return v;
}

static double feat(const double *x, const char *name)
{
    int i = iolens_detect_feature_index(name);
    assert_true(i >= 0);
    return x[i];
}

static void check_year(const char *year)
{
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES], xf[IOLENS_DETECT_NFEATURES];
    warnings = 0;
    assert_int_equal(iolens_detect_read_text(&in, sample(year, "base.txt"), count_warn, NULL), 0);
    assert_int_equal(warnings, 0); /* the interleaved warning is spliced out, nothing else is bad */
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    iolens_detect_input_free(in);

    /* job facts from the job info of the same log */
    json_error_t err;
    json_t *job = json_load_file(sample(year, "job_info.json"), 0, &err);
    assert_non_null(job);
    assert_true(feat(x, "nprocs") == (double)json_integer_value(json_object_get(job, "nprocs")));
    assert_true(fabs(feat(x, "runtime_seconds") - json_real_value(json_object_get(job, "runtime_seconds"))) < 1e-3);
    int has_mpiio = 0, has_stdio = 0, has_apmpi = 0;
    json_t *mods = json_object_get(job, "modules"), *m;
    size_t k;
    json_array_foreach(mods, k, m)
    {
        has_mpiio |= !strcmp(json_string_value(m), "MPI-IO");
        has_stdio |= !strcmp(json_string_value(m), "STDIO");
        has_apmpi |= !strcmp(json_string_value(m), "APMPI");
    }
    json_decref(job);
    assert_true(feat(x, "has_mpiio") == has_mpiio);
    assert_true(feat(x, "has_stdio") == has_stdio);
    assert_true(feat(x, "has_apmpi") == has_apmpi);

    /* sums and maxima agree with darshan-parser's own --total aggregation */
    static const char *const sums[] = {
        "POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS", "POSIX_BYTES_READ",
        "POSIX_BYTES_WRITTEN", "POSIX_CONSEC_READS", "POSIX_SEQ_WRITES", "POSIX_SIZE_READ_0_100",
        "POSIX_SIZE_READ_100K_1M", "POSIX_SIZE_WRITE_0_100", "POSIX_SIZE_WRITE_1M_4M", "POSIX_MAX_BYTE_READ",
        "POSIX_MAX_BYTE_WRITTEN", "POSIX_FILE_NOT_ALIGNED", "MPIIO_INDEP_WRITES", "MPIIO_COLL_WRITES", "MPIIO_BYTES_WRITTEN", "MPIIO_INDEP_OPENS"};
    const char *totals = sample(year, "total.txt");
    char tpath[4096];
    snprintf(tpath, sizeof tpath, "%s", totals);
    int compared = 0;
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        double t = total_of(tpath, sums[i]);
        if (isnan(t))
            continue; /* module absent from this log */
        if (feat(x, sums[i]) != t)
            fail_msg("%s %s: features %.17g, darshan-parser --total %.17g", year, sums[i], feat(x, sums[i]), t);
        compared++;
    }
    assert_true(compared >= 14);
    /* STDIO: the console streams (<STDIN>, <STDOUT>, <STDERR>) are left out of the features,
     * which darshan-parser's totals include: never more than the totals */
    static const char *const stdio[] = {"STDIO_OPENS", "STDIO_WRITES", "STDIO_BYTES_WRITTEN"};
    for (size_t i = 0; i < sizeof stdio / sizeof stdio[0]; i++) {
        double t = total_of(tpath, stdio[i]);
        if (!isnan(t) && feat(x, stdio[i]) > t)
            fail_msg("%s %s: features %.17g above darshan-parser --total %.17g", year, stdio[i], feat(x, stdio[i]), t);
    }
    double rt = total_of(tpath, "POSIX_F_READ_TIME");
    assert_true(fabs(feat(x, "POSIX_F_READ_TIME") - rt) < 1e-3);

    /* the --all dump (base + totals + perf + dxt) gives the same features */
    assert_int_equal(iolens_detect_read_text(&in, sample(year, "full.txt"), count_warn, NULL), 0);
    assert_int_equal(iolens_detect_input_features(in, xf), 0);
    iolens_detect_input_free(in);
    for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++)
        if (!(x[i] == xf[i]))
            fail_msg("%s %s: base %.17g, full %.17g", year, iolens_detect_feature_name(i), x[i], xf[i]);
}

static void test_samples(void **state)
{
    (void)state;
    check_year("2024");
    check_year("2025");
    check_year("2026");
}

static void test_hostile_text(void **state)
{
    (void)state;
    iolens_detect_input *in = NULL;
    const char *junk = "hello\nworld\n";
    assert_int_equal(iolens_detect_parse_text(&in, junk, strlen(junk), "junk", NULL, NULL), IOLENS_EFORMAT);
    assert_null(in);
    assert_non_null(strstr(iolens_error_last(), "not darshan-parser output"));

    const char *bad = "# darshan log version: 3.41\n# nprocs: 4\n"
                      "POSIX\t0\t7\tPOSIX_READS\t12\t/f\t/\text4\n"
                      "POSIX\tx\t7\tPOSIX_READS\t12\t/f\t/\text4\n"
                      "POSIX\t0\t7\tPOSIX_WRI# Warning: no log utility handlers defined for module APMPI, SKIPPING.\n"
                      "TES\t3\t/f\t/\text4\n"
                      "POSIX\t0\t99999999999999999999999\tPOSIX_READS\t1\n";
    warnings = 0;
    assert_int_equal(iolens_detect_parse_text(&in, bad, strlen(bad), "bad", count_warn, NULL), 0);
    assert_int_equal(warnings, 1);
    double x[IOLENS_DETECT_NFEATURES];
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "POSIX_READS") == 12.0);
    assert_true(feat(x, "POSIX_WRITES") == 3.0);
    assert_true(feat(x, "nprocs") == 4.0);
    assert_true(feat(x, "is_shared_file") == 1.0);
    iolens_detect_input_free(in);
    assert_int_equal(iolens_detect_read_text(&in, "/nonexistent/x.txt", NULL, NULL), IOLENS_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_hostile_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
