/* Readers of the place module: series layouts, cluster output, hostile input,
 * and the real Darshan heatmap series of ../shared/data/timeseries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iolens/place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static iolens_place_series *parse(const char *text, const iolens_place_series_opts *o)
{
    iolens_place_series *s = NULL;
    int rc = iolens_place_series_parse(&s, text, strlen(text), "t.csv", o);
    if (rc)
        print_message("parse: %s\n", iolens_error_last());
    assert_int_equal(rc, 0);
    return s;
}

static void parse_fails(const char *text, int code, const char *needle)
{
    iolens_place_series *s = NULL;
    assert_int_equal(iolens_place_series_parse(&s, text, strlen(text), "bad.csv", NULL), code);
    assert_null(s);
    if (needle && !strstr(iolens_error_last(), needle)) {
        print_message("message '%s' lacks '%s'\n", iolens_error_last(), needle);
        fail();
    }
}

static void test_wide(void **state)
{
    (void)state;
    iolens_place_series *s = parse("id,v0,v1,v2\r\na,1,2,3\r\n\"b,x\",0.5,,\n\nc\n", NULL);
    assert_int_equal(iolens_place_series_count(s), 3);
    size_t n;
    const double *v = iolens_place_series_values(s, 0, &n);
    assert_int_equal(n, 3);
    assert_true(v[2] == 3.0);
    assert_string_equal(iolens_place_series_id(s, 1), "b,x");
    v = iolens_place_series_values(s, 1, &n);
    assert_int_equal(n, 1);
    assert_true(v[0] == 0.5);
    iolens_place_series_values(s, 2, &n);
    assert_int_equal(n, 0);
    assert_true(iolens_place_series_step(s, 0) == 1.0);
    assert_int_equal(iolens_place_series_find(s, "c"), 2);
    assert_int_equal(iolens_place_series_find(s, "zz"), IOLENS_ENOTFOUND);
    iolens_place_series_free(s);
}

static void test_long(void **state)
{
    (void)state;
    iolens_place_series_opts o = {.step_seconds = 2.0};
    iolens_place_series *s = parse("id,t,value\nx,4,7\ny,0,1\nx,0,2\n", &o);
    assert_int_equal(iolens_place_series_count(s), 2);
    size_t n;
    const double *v = iolens_place_series_values(s, 0, &n);
    assert_int_equal(n, 3); /* samples at 0, 2, 4 s */
    assert_true(v[0] == 2 && v[1] == 0 && v[2] == 7);
    assert_true(iolens_place_series_step(s, 0) == 2.0);
    iolens_place_series_free(s);
}

static void test_heatmap(void **state)
{
    (void)state;
    const char *t = "log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks\n"
                    "a.darshan,POSIX,0.5,1,1048576,524288,1\n"
                    "a.darshan,STDIO,0.5,0,99,99,1\n"
                    "a.darshan,POSIX,0.5,0,0,0,0\n";
    iolens_place_series *s = parse(t, NULL);
    assert_int_equal(iolens_place_series_count(s), 1);
    assert_string_equal(iolens_place_series_id(s, 0), "a.darshan:POSIX:read");
    size_t n;
    const double *v = iolens_place_series_values(s, 0, &n);
    assert_int_equal(n, 2);
    assert_true(fabs(v[1] - 2.0) < EPS); /* 1 MiB read in 0.5 s */
    assert_true(iolens_place_series_step(s, 0) == 0.5);
    iolens_place_series_free(s);
    iolens_place_series_opts tot = {.heatmap_metric = IOLENS_PLACE_METRIC_TOTAL};
    s = parse(t, &tot);
    assert_string_equal(iolens_place_series_id(s, 0), "a.darshan:POSIX");
    v = iolens_place_series_values(s, 0, &n);
    assert_true(fabs(v[1] - 3.0) < EPS); /* 1.5 MiB read + written in 0.5 s */
    iolens_place_series_free(s);
    iolens_place_series_opts o = {.heatmap_module = "STDIO", .heatmap_metric = IOLENS_PLACE_METRIC_READ};
    s = parse(t, &o);
    assert_string_equal(iolens_place_series_id(s, 0), "a.darshan:STDIO:read");
    v = iolens_place_series_values(s, 0, &n);
    assert_true(fabs(v[0] - 99 / 0.5 / 1048576.0) < EPS);
    iolens_place_series_free(s);
}

/* The series are read by the reader of `iolens cluster` (iolens_series_parse): the same
 * inputs give the same series or the same error in both commands. */
static void test_hostile_series(void **state)
{
    (void)state;
    parse_fails("", IOLENS_EFORMAT, "no records");
    parse_fails("id,v0\n", IOLENS_EFORMAT, "no series");
    parse_fails("id,v0\na,-1\n", IOLENS_EFORMAT, "negative");
    parse_fails("id,v0\na,nan\n", IOLENS_EFORMAT, "not a finite number");
    parse_fails("id,v0\na,1e999\n", IOLENS_EFORMAT, "not a finite number");
    parse_fails("id,v0\na,1x\n", IOLENS_EFORMAT, "not a finite number");
    parse_fails("id,v0\na,1\na,2\n", IOLENS_EFORMAT, "appears twice");
    parse_fails("id,v0\n\"a,1\n", IOLENS_EFORMAT, "unterminated");
    parse_fails("id,v0\n,1\n", IOLENS_EFORMAT, "series id of 0 bytes");
    parse_fails("id,t,value\na,1\n", IOLENS_EFORMAT, "want id,t,value");
    parse_fails("id,t,value\na,-1,1\n", IOLENS_EFORMAT, "negative");
    /* A far sample time would need a huge allocation: refused. */
    parse_fails("id,t,value\na,1e15,1\n", IOLENS_EFORMAT, "beyond the limit");
    parse_fails("id,t,value\na,20000000,1\n", IOLENS_EFORMAT, "beyond the limit");
    parse_fails("log,module,bin_width_s,bin,read_bytes,write_bytes\nx,POSIX,0,0,1,1\n", IOLENS_EFORMAT,
                "bad bin width");
    parse_fails("log,module,bin_width_s,bin,read_bytes,write_bytes\nx,POSIX,1,0.5,1,1\n", IOLENS_EFORMAT,
                "bad bin width");
    parse_fails("log,module,bin_width_s,bin,read_bytes,write_bytes\nx,POSIX,1,0,1,1\nx,POSIX,2,1,1,1\n",
                IOLENS_EFORMAT, "differs from");
    parse_fails("log,module,bin_width_s,bin,read_bytes,write_bytes\nx,POSIX,1,0,1\n", IOLENS_EFORMAT,
                "want >= 6");
    parse_fails("log,module,bin\nx,POSIX,1\n", IOLENS_EFORMAT, "heatmap header must start with");
    parse_fails("log,module,bin_width_s,bin,read_bytes,write_bytes\nx,STDIO,1,0,1,1\n", IOLENS_EFORMAT,
                "no series of module POSIX");
    /* A headerless wide file and ragged rows: read as `iolens cluster` reads them. */
    iolens_place_series *h = parse("a,1,2,3\nb,4\n", NULL);
    assert_int_equal(iolens_place_series_count(h), 2);
    size_t hn;
    const double *hv = iolens_place_series_values(h, 1, &hn);
    assert_int_equal(hn, 1);
    assert_true(hv[0] == 4);
    iolens_place_series_free(h);
    /* A label column is not a sample. */
    h = parse("id,label,v0,v1\na,3,5,6\n", NULL);
    hv = iolens_place_series_values(h, 0, &hn);
    assert_int_equal(hn, 2);
    assert_true(hv[0] == 5 && hv[1] == 6);
    iolens_place_series_free(h);
    /* A NUL byte inside a number. */
    const char nul[] = "id,v0\na,1\0002\n";
    iolens_place_series *s = NULL;
    assert_int_equal(iolens_place_series_parse(&s, nul, sizeof nul - 1, "nul.csv", NULL), IOLENS_EFORMAT);
    /* A custom bound on samples. */
    iolens_place_series_opts o = {.max_samples = 4};
    assert_int_equal(iolens_place_series_parse(&s, "id,t,value\na,9,1\n", 17, "x", &o), IOLENS_ENOMEM);
    assert_int_equal(iolens_place_series_read(&s, "/nonexistent/x.csv", NULL), IOLENS_EIO);
}

static void test_clusters(void **state)
{
    (void)state;
    const char *a = "id,cluster\nj1,0\nj2,late\n";
    const char *c = "cluster,step_seconds=2.5\n0,1,2,3\nlate,0,0,9\n";
    iolens_place_clusters *cl = NULL;
    assert_int_equal(iolens_place_clusters_parse(&cl, a, strlen(a), c, strlen(c), "dir"), 0);
    assert_int_equal(iolens_place_clusters_count(cl), 2);
    assert_true(iolens_place_clusters_step(cl) == 2.5);
    long k = iolens_place_clusters_of(cl, "j2");
    assert_int_equal(k, 1);
    assert_string_equal(iolens_place_clusters_label(cl, 1), "late");
    size_t n;
    const double *v = iolens_place_clusters_centroid(cl, 1, &n);
    assert_int_equal(n, 3);
    assert_true(v[2] == 9);
    assert_int_equal(iolens_place_clusters_of(cl, "nope"), IOLENS_ENOTFOUND);
    iolens_place_clusters_free(cl);
    iolens_place_clusters_free(NULL);

    struct {
        const char *a, *c, *needle;
    } bad[] = {
        {"id,cluster\nj1,7\n", "cluster,step_seconds=1\n0,1\n", "has no centroid"},
        {"id,cluster\nj1,0\nj1,0\n", "cluster,step_seconds=1\n0,1\n", "assigned twice"},
        {"id,klass\nj1,0\n", "cluster,step_seconds=1\n0,1\n", "header must be"},
        {"id,cluster\nj1,0\n", "cluster,step=1\n0,1\n", "step_seconds"},
        {"id,cluster\nj1,0\n", "cluster,step_seconds=0\n0,1\n", "step_seconds"},
        {"id,cluster\nj1,0\n", "cluster,step_seconds=1\n0\n", "no sample"},
        {"id,cluster\nj1,0\n", "cluster,step_seconds=1\n0,1\n0,2\n", "two centroids"},
        {"id,cluster\nj1,0\n", "cluster,step_seconds=1\n0,-1\n", "negative"},
        {"id,cluster\n", "cluster,step_seconds=1\n0,1\n", "no trace assigned"},
        {"id,cluster\nj1\n", "cluster,step_seconds=1\n0,1\n", "cluster field"},
        {"", "", "empty file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cl = NULL;
        assert_int_equal(iolens_place_clusters_parse(&cl, bad[i].a, strlen(bad[i].a), bad[i].c, strlen(bad[i].c), "d"),
                         IOLENS_EFORMAT);
        assert_null(cl);
        if (!strstr(iolens_error_last(), bad[i].needle)) {
            print_message("case %zu: '%s' lacks '%s'\n", i, iolens_error_last(), bad[i].needle);
            fail();
        }
    }
    assert_int_equal(iolens_place_clusters_read(&cl, "/nonexistent-dir"), IOLENS_EIO);
}

/* The real job-level heatmaps: 40 logs have POSIX rows; the E3SM-IO log has
 * 114 bins of 6.4 s whose bytes add up to the 304,689 MB read + written. */
static void test_real_heatmap(void **state)
{
    (void)state;
    const char *root = getenv("IOLENS_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/timeseries/heatmap_job.csv", root ? root : "../shared/data");
    FILE *f = fopen(path, "r");
    if (!f)
        skip();
    fclose(f);
    iolens_place_series *s = NULL;
    iolens_place_series_opts tot = {.heatmap_metric = IOLENS_PLACE_METRIC_TOTAL};
    assert_int_equal(iolens_place_series_read(&s, path, &tot), 0);
    assert_int_equal(iolens_place_series_count(s), 40);
    long k = iolens_place_series_find(s, "e3sm_io_heatmaps_and_dxt/e3sm_io_heatmap_only.darshan:POSIX");
    assert_true(k >= 0);
    size_t n;
    const double *v = iolens_place_series_values(s, (size_t)k, &n);
    assert_int_equal(n, 114);
    double step = iolens_place_series_step(s, (size_t)k);
    assert_true(fabs(step - 6.4) < EPS);
    double bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += v[i] * step * 1048576.0;
    assert_true(fabs(bytes - (25722213.0 + 304663273053.0)) < 1.0);
    /* Bin 10: 2,022,881,040 bytes written in 6.4 s. */
    assert_true(fabs(v[10] - 2022881040.0 / 6.4 / 1048576.0) < 1e-6);
    iolens_place_series_free(s);
    /* Default: the read series, named as `iolens cluster` names it. */
    assert_int_equal(iolens_place_series_read(&s, path, NULL), 0);
    k = iolens_place_series_find(s, "e3sm_io_heatmaps_and_dxt/e3sm_io_heatmap_only.darshan:POSIX:read");
    assert_true(k >= 0);
    v = iolens_place_series_values(s, (size_t)k, &n);
    bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += v[i] * step * 1048576.0;
    assert_true(fabs(bytes - 25722213.0) < 1e-3);
    iolens_place_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wide),    cmocka_unit_test(test_long),     cmocka_unit_test(test_heatmap),
        cmocka_unit_test(test_hostile_series), cmocka_unit_test(test_clusters), cmocka_unit_test(test_real_heatmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
