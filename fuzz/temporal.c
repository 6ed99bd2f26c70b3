/*
 * Fuzz target of the time-series readers (wide, long and Darshan heatmap CSV).
 * The first byte picks the format (auto, wide, long, heatmap) and the step;
 * every series parsed is then pre-processed and, when the input is small,
 * clustered with SAGE and its metrics computed, so the whole path from bytes
 * to classes is exercised.
 */
#include <stddef.h>
#include <stdint.h>

#include "iolens/temporal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    iolens_series_set *set = NULL, *filt = NULL;
    iolens_clustering *c = NULL;
    iolens_series_read_opts o;
    iolens_series_read_opts_init(&o);
    o.format = data[0] & 3;
    o.step_s = (data[0] & 4) ? 0.5 : 1.0;
    int deep = (data[0] & 8) != 0;
    if (iolens_series_set_new(&set))
        return 0;
    if (iolens_series_parse(set, (const char *)data + 1, size - 1, "fuzz.csv", &o) == 0 && deep &&
        iolens_series_set_count(set) <= 64) {
        iolens_filter_opts fo;
        iolens_filter_opts_init(&fo);
        fo.min_samples = 5;
        fo.min_nonzero = 1;
        fo.max_samples = 2000;
        if (iolens_series_filter(&filt, set, &fo) == 0 && iolens_series_set_count(filt) > 0) {
            iolens_cluster_opts co;
            iolens_cluster_opts_init(&co);
            co.kmax = 6;
            co.level_kmax = 4;
            co.threads = 1;
            co.resample_len = 50;
            co.method = (data[0] & 16) ? IOLENS_CLUSTER_SAGE2 : IOLENS_CLUSTER_SAGE;
            if (iolens_cluster_run(&c, filt, &co) == 0) {
                iolens_cluster_metrics m;
                iolens_cluster_metrics_compute(&m, c, filt, 0, 1);
            }
        }
    }
    iolens_clustering_free(c);
    iolens_series_set_free(filt);
    iolens_series_set_free(set);
    return 0;
}
