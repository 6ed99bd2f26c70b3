/*
 * Fuzz target of the place module's readers. The first byte picks what the
 * rest is: even = a time-series CSV (then, if it parses, a pool is built and
 * a 3-job workload placed and simulated with every policy); odd = a cluster
 * output, assignments.csv and centroids.csv separated by the first NUL byte.
 */
#include "iolens/place.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_series(const char *p, size_t n, unsigned mode)
{
    iolens_place_series_opts o = {.max_samples = 4096, .step_seconds = (mode & 2) ? 0.5 : 0,
                                  .heatmap_metric = (iolens_place_metric)((mode >> 2) % 3)};
    iolens_place_series *s = NULL;
    if (iolens_place_series_parse(&s, p, n, "fuzz", &o))
        return;
    iolens_place_pool *pool = NULL;
    iolens_place_pool_opts po = {.nost = 2};
    if (iolens_place_pool_build(&pool, s, NULL, 0, &po) == 0) {
        double lo, hi;
        iolens_place_load_range(pool, 3, &lo, &hi);
        iolens_place_workload w;
        if (iolens_place_workload_draw(&w, pool, 3, (lo + hi) / 2 + 0.01, 0.5, 7) == 0) {
            for (int pol = 0; pol < 3; pol++) {
                double g;
                iolens_place_run(&g, NULL, NULL, pool, &w, (iolens_place_policy)pol, -1, 1);
            }
            iolens_place_workload_release(&w);
        }
    }
    iolens_place_pool_free(pool);
    iolens_place_series_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    if (!(mode & 1)) {
        run_series(p, n, mode);
        return 0;
    }
    const char *nul = memchr(p, '\0', n);
    size_t alen = nul ? (size_t)(nul - p) : n;
    const char *c = nul ? nul + 1 : "";
    size_t clen = nul ? n - alen - 1 : 0;
    iolens_place_clusters *cl = NULL;
    if (iolens_place_clusters_parse(&cl, p, alen, c, clen, "fuzz") == 0) {
        size_t k = iolens_place_clusters_count(cl);
        for (size_t i = 0; i < k; i++) {
            size_t len;
            const double *v = iolens_place_clusters_centroid(cl, i, &len);
            double out[16];
            iolens_place_rescale(out, 16, v, len);
        }
    }
    iolens_place_clusters_free(cl);
    return 0;
}
