/*
 * The study end to end: synthetic traces of known classes (with a cluster
 * output in the `iolens cluster -o` format written by the test), and the
 * real heatmap series of ../shared/data/timeseries with trivial clusterings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iolens/place.h"
#include "place_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Mean geometric-mean stretch of one policy at one (size, load). */
static double mean_of(const iolens_place_result *r, size_t n, unsigned jobs, double load, iolens_place_policy p,
                      int method)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].jobs == jobs && r[i].rho_target == load && r[i].policy == p && r[i].method == method) {
            s += r[i].geomean_stretch;
            k++;
        }
    assert_true(k > 0);
    return s / (double)k;
}

static void test_synthetic_classes(void **state)
{
    (void)state;
    char dir[] = "/tmp/iolens-place-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char traces[512];
    snprintf(traces, sizeof traces, "%s/traces.csv", dir);
    assert_int_equal(place_synth_write(dir, 90, 2024), 0);

    iolens_place_series *s = NULL;
    iolens_place_series_opts so = {.step_seconds = PLACE_SYNTH_STEP};
    assert_int_equal(iolens_place_series_read(&s, traces, &so), 0);
    assert_int_equal(iolens_place_series_count(s), 90);
    iolens_place_clusters *cl = NULL;
    assert_int_equal(iolens_place_clusters_read(&cl, dir), 0);
    assert_int_equal(iolens_place_clusters_count(cl), 3);
    iolens_place_pool *pool = NULL;
    const iolens_place_clusters *sets[1] = {cl};
    assert_int_equal(iolens_place_pool_build(&pool, s, sets, 1, NULL), 0);
    assert_int_equal(iolens_place_pool_count(pool), 90);
    assert_int_equal(iolens_place_pool_nost(pool), 4);

    const unsigned jobs[] = {80};
    const double loads[] = {1.0, 1.5, 2.0};
    iolens_place_study_opts o = {.jobs = jobs, .njobs = 1, .loads = loads, .nloads = 3, .workloads = 4, .seed = 7};
    iolens_place_result *r = NULL;
    size_t n = 0;
    assert_int_equal(iolens_place_study(&r, &n, pool, &o), 0);
    assert_int_equal(n, 1 * 3 * 4 * 4);
    for (size_t i = 0; i < n; i++) {
        assert_true(r[i].geomean_stretch >= 1.0 - 1e-9);
        assert_true(fabs(r[i].rho - r[i].rho_target) <= 0.02 + 1e-12);
    }
    for (size_t b = 0; b < 3; b++) {
        double rr = mean_of(r, n, 80, loads[b], IOLENS_PLACE_ROUND_ROBIN, -1);
        double cv = mean_of(r, n, 80, loads[b], IOLENS_PLACE_CLAIRVOYANT, -1);
        double cb = mean_of(r, n, 80, loads[b], IOLENS_PLACE_CLUSTER, 0);
        double rd = mean_of(r, n, 80, loads[b], IOLENS_PLACE_RANDOM, -1);
        print_message("rho=%.1f  round-robin %.3f  random %.3f  clairvoyant %.3f (%+.1f%%)  cluster %.3f (%+.1f%%)\n",
                      loads[b], rr, rd, cv, 100 * (cv - rr) / rr, cb, 100 * (cb - rr) / rr);
        assert_true(cv < rr);
        /* Known classes with faithful centroids: the cluster policy also wins. */
        assert_true(cb < rr);
    }
    /* Same seed, same results. */
    iolens_place_result *r2 = NULL;
    size_t n2 = 0;
    assert_int_equal(iolens_place_study(&r2, &n2, pool, &o), 0);
    assert_int_equal(n2, n);
    for (size_t i = 0; i < n; i++)
        assert_true(r2[i].geomean_stretch == r[i].geomean_stretch);
    free(r2);
    free(r);
    iolens_place_pool_free(pool);
    iolens_place_clusters_free(cl);
    iolens_place_series_free(s);
    place_synth_remove(dir);
}

static void test_workload_draw(void **state)
{
    (void)state;
    char dir[] = "/tmp/iolens-place-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(place_synth_write(dir, 30, 5), 0);
    char traces[512];
    snprintf(traces, sizeof traces, "%s/traces.csv", dir);
    iolens_place_series *s = NULL;
    iolens_place_series_opts so = {.step_seconds = PLACE_SYNTH_STEP};
    assert_int_equal(iolens_place_series_read(&s, traces, &so), 0);
    iolens_place_pool *pool = NULL;
    iolens_place_pool_opts po = {.nost = 2, .horizon = 4000};
    assert_int_equal(iolens_place_pool_build(&pool, s, NULL, 0, &po), 0);
    assert_true(iolens_place_pool_horizon(pool) == 4000);
    iolens_place_workload w;
    double lo, hi;
    iolens_place_load_range(pool, 20, &lo, &hi);
    double target = (lo + hi) / 2;
    assert_int_equal(iolens_place_workload_draw(&w, pool, 20, target, 0.02, 99), 0);
    assert_int_equal(w.n, 20);
    double rho = 0;
    for (size_t j = 0; j < w.n; j++) {
        rho += iolens_place_pool_io_isol(pool, w.entry[j]);
        assert_true(w.start[j] >= 0);
        assert_true(w.start[j] + iolens_place_pool_duration(pool, w.entry[j]) <= 4000 + 1e-9);
        if (j)
            assert_true(w.start[j] >= w.start[j - 1]);
    }
    rho /= 2 * 4000.0;
    assert_true(fabs(rho - w.rho) < 1e-9);
    assert_true(fabs(rho - target) <= 0.02);
    iolens_place_workload_release(&w);
    /* Out of reach: a clear error. */
    assert_int_equal(iolens_place_workload_draw(&w, pool, 20, hi + 1, 0.02, 1), IOLENS_EINVAL);
    assert_non_null(strstr(iolens_error_last(), "cannot be reached"));
    iolens_place_pool_free(pool);
    iolens_place_series_free(s);
    place_synth_remove(dir);
}

/* Writes a trivial clustering of the series: every trace its own cluster
 * (centroid = its own samples), or all in one cluster. */
static void write_trivial(const char *dir, const iolens_place_series *s, int own)
{
    char p[512];
    snprintf(p, sizeof p, "%s/assignments.csv", dir);
    FILE *a = fopen(p, "w");
    snprintf(p, sizeof p, "%s/centroids.csv", dir);
    FILE *c = fopen(p, "w");
    assert_non_null(a);
    assert_non_null(c);
    fprintf(a, "id,cluster\n");
    fprintf(c, "cluster,step_seconds=1\n");
    for (size_t i = 0; i < iolens_place_series_count(s); i++) {
        fprintf(a, "\"%s\",%zu\n", iolens_place_series_id(s, i), own ? i : 0);
        if (!own)
            continue;
        size_t n;
        const double *v = iolens_place_series_values(s, i, &n);
        fprintf(c, "%zu", i);
        for (size_t k = 0; k < n; k++)
            fprintf(c, ",%.17g", v[k]);
        if (n == 0)
            fprintf(c, ",0");
        fprintf(c, "\n");
    }
    if (!own)
        fprintf(c, "0,0,5,5,0\n");
    fclose(a);
    fclose(c);
}

static void test_real_series_trivial_clusterings(void **state)
{
    (void)state;
    const char *root = getenv("IOLENS_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/timeseries/heatmap_job.csv", root ? root : "../shared/data");
    if (access(path, R_OK))
        skip();
    iolens_place_series *s = NULL;
    iolens_place_series_opts tot = {.heatmap_metric = IOLENS_PLACE_METRIC_TOTAL};
    assert_int_equal(iolens_place_series_read(&s, path, &tot), 0);
    char own_dir[] = "/tmp/iolens-place-XXXXXX", one_dir[] = "/tmp/iolens-place-XXXXXX";
    assert_non_null(mkdtemp(own_dir));
    assert_non_null(mkdtemp(one_dir));
    write_trivial(own_dir, s, 1);
    write_trivial(one_dir, s, 0);
    iolens_place_clusters *own = NULL, *one = NULL;
    assert_int_equal(iolens_place_clusters_read(&own, own_dir), 0);
    assert_int_equal(iolens_place_clusters_read(&one, one_dir), 0);
    const iolens_place_clusters *sets[2] = {own, one};
    iolens_place_pool *pool = NULL;
    assert_int_equal(iolens_place_pool_build(&pool, s, sets, 2, NULL), 0);
    /* 40 POSIX series (read + write), 8 without a sample >= 1 MiB/s. */
    assert_int_equal(iolens_place_pool_count(pool) + iolens_place_pool_skipped(pool), 40);
    assert_int_equal(iolens_place_pool_skipped(pool), 8);
    assert_int_equal(iolens_place_pool_unclustered(pool), 0);

    const unsigned jobs[] = {40};
    const double loads[] = {1.0, 2.0};
    iolens_place_study_opts o = {.jobs = jobs, .njobs = 1, .loads = loads, .nloads = 2, .workloads = 3, .seed = 3};
    iolens_place_result *r = NULL;
    size_t n = 0;
    assert_int_equal(iolens_place_study(&r, &n, pool, &o), 0);
    assert_int_equal(n, 2 * 3 * 5);
    for (size_t i = 0; i < n; i += 5) {
        /* round-robin, random, clairvoyant, cluster(own), cluster(one) */
        assert_int_equal(r[i].policy, IOLENS_PLACE_ROUND_ROBIN);
        assert_int_equal(r[i + 3].policy, IOLENS_PLACE_CLUSTER);
        assert_int_equal(r[i + 3].method, 0);
        /* A trace's own series as its centroid is the clairvoyant view. */
        assert_true(fabs(r[i + 3].geomean_stretch - r[i + 2].geomean_stretch) < 1e-12);
        for (size_t q = 0; q < 5; q++)
            assert_true(r[i + q].geomean_stretch >= 1.0 - 1e-9);
    }
    for (size_t b = 0; b < 2; b++) {
        double rr = mean_of(r, n, 40, loads[b], IOLENS_PLACE_ROUND_ROBIN, -1);
        double cv = mean_of(r, n, 40, loads[b], IOLENS_PLACE_CLAIRVOYANT, -1);
        double one_c = mean_of(r, n, 40, loads[b], IOLENS_PLACE_CLUSTER, 1);
        print_message("real series rho=%.0f: round-robin %.3f clairvoyant %.3f one-cluster %.3f\n", loads[b], rr, cv,
                      one_c);
        assert_true(cv < rr);
    }
    free(r);
    iolens_place_pool_free(pool);
    iolens_place_clusters_free(own);
    iolens_place_clusters_free(one);
    iolens_place_series_free(s);
    place_synth_remove(own_dir);
    place_synth_remove(one_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_classes),
        cmocka_unit_test(test_workload_draw),
        cmocka_unit_test(test_real_series_trivial_clusterings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
