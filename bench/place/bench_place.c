/*
 * bench_place [HEATMAP_CSV]: time of placement + simulation of one 80-job
 * workload (seed Fig. 14's largest size), per policy, median of repeated
 * runs. Workloads come from 300 synthetic traces of known classes, and from
 * the real job-level Darshan heatmaps (read + write) when a path is given.
 */
#include "iolens/place.h"
#include "place_synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 21

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench_pool(const char *label, const iolens_place_pool *pool, int have_clusters)
{
    const double loads[] = {1.0, 3.0};
    for (size_t b = 0; b < 2; b++) {
        double lo, hi;
        iolens_place_load_range(pool, 80, &lo, &hi);
        double target = loads[b] < hi ? loads[b] : (lo + hi) / 2;
        iolens_place_workload w;
        if (iolens_place_workload_draw(&w, pool, 80, target, 0.02, 42)) {
            fprintf(stderr, "bench_place: %s\n", iolens_error_last());
            return 1;
        }
        for (int pol = 0; pol < 4; pol++) {
            if (pol == IOLENS_PLACE_CLUSTER && !have_clusters)
                continue;
            double t[REPEATS], g = 0;
            for (int r = 0; r < REPEATS; r++) {
                double t0 = now();
                if (iolens_place_run(&g, NULL, NULL, pool, &w, (iolens_place_policy)pol, 0, 1)) {
                    fprintf(stderr, "bench_place: %s\n", iolens_error_last());
                    iolens_place_workload_release(&w);
                    return 1;
                }
                t[r] = now() - t0;
            }
            qsort(t, REPEATS, sizeof t[0], cmp_double);
            printf("%-10s 80 jobs rho=%.2f %-12s median %9.3f ms  (min %.3f, max %.3f, %d runs)  stretch %.3f\n", label,
                   w.rho, iolens_place_policy_name((iolens_place_policy)pol), t[REPEATS / 2] * 1e3, t[0] * 1e3,
                   t[REPEATS - 1] * 1e3, REPEATS, g);
        }
        iolens_place_workload_release(&w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 1;
    char dir[] = "/tmp/iolens-bench-place-XXXXXX", path[512];
    iolens_place_series *s = NULL, *real = NULL;
    iolens_place_clusters *cl = NULL;
    iolens_place_pool *pool = NULL, *rpool = NULL;
    if (!mkdtemp(dir) || place_synth_write(dir, 300, 1)) {
        fprintf(stderr, "bench_place: cannot write synthetic traces\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/traces.csv", dir);
    iolens_place_series_opts so = {.step_seconds = PLACE_SYNTH_STEP};
    const iolens_place_clusters *sets[1];
    if (iolens_place_series_read(&s, path, &so) || iolens_place_clusters_read(&cl, dir))
        goto done;
    sets[0] = cl;
    if (iolens_place_pool_build(&pool, s, sets, 1, NULL) || bench_pool("synthetic", pool, 1))
        goto done;
    if (argc > 1) {
        /* Read + write: E3SM's writes make loads up to 3 reachable. */
        iolens_place_series_opts ro = {.heatmap_metric = IOLENS_PLACE_METRIC_TOTAL};
        if (iolens_place_series_read(&real, argv[1], &ro) || iolens_place_pool_build(&rpool, real, NULL, 0, NULL) ||
            bench_pool("heatmaps", rpool, 0))
            goto done;
    }
    rc = 0;
done:
    if (rc && iolens_error_last()[0])
        fprintf(stderr, "bench_place: %s\n", iolens_error_last());
    iolens_place_pool_free(pool);
    iolens_place_pool_free(rpool);
    iolens_place_clusters_free(cl);
    iolens_place_series_free(s);
    iolens_place_series_free(real);
    place_synth_remove(dir);
    return rc;
}
