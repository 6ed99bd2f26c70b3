/*
 * Labelled synthetic I/O traces for tests and benchmarks. A class is a
 * temporal shape (when the job does I/O) crossed with an amplitude band (how
 * hard), the two things SAGE sets out to separate:
 *   shapes: burst at start, burst at end, periodic bursts, growing ramp,
 *           constant plateau;
 *   bands:  low (10-50 MiB/s) and high (1-5 GiB/s), two orders of magnitude
 *           apart.
 * Each trace gets its own length, phase positions, amplitude within the
 * band, multiplicative noise on active samples and sparse background noise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "temporal/internal.h"
#include "util/error.h"

static const char *const CLASS_NAMES[IOLENS_SYNTH_CLASSES] = {
    "start-low", "start-high", "end-low",    "end-high",    "periodic-low",
    "periodic-high", "growing-low", "growing-high", "plateau-low", "plateau-high"};

const char *iolens_synth_class_name(int label)
{
    return label >= 0 && label < IOLENS_SYNTH_CLASSES ? CLASS_NAMES[label] : "?";
}

static void make_trace(tser_rng *r, int label, size_t n, double *v)
{
    int shape = label / 2, high = label % 2;
    double amp = pow(10.0, (high ? 3.0 : 1.0) + 0.7 * tser_rng_unit(r));
    for (size_t i = 0; i < n; i++)
        v[i] = 0;
    double frac = 0.1 + 0.1 * tser_rng_unit(r); /* burst length, fraction of the run */
    size_t blen = (size_t)(frac * (double)n) + 1;
    switch (shape) {
    case 0: /* start */
        for (size_t i = 0; i < blen && i < n; i++)
            v[i] = amp;
        break;
    case 1: /* end */
        for (size_t i = n > blen ? n - blen : 0; i < n; i++)
            v[i] = amp;
        break;
    case 2: { /* periodic: 4-6 bursts */
        size_t bursts = 4 + tser_rng_below(r, 3), period = n / bursts, width = period / 4 + 1;
        size_t off = tser_rng_below(r, period / 2 + 1);
        for (size_t b = 0; b < bursts; b++)
            for (size_t i = 0; i < width; i++) {
                size_t p = off + b * period + i;
                if (p < n)
                    v[p] = amp;
            }
        break;
    }
    case 3: /* growing */
        for (size_t i = 0; i < n; i++)
            v[i] = amp * (double)(i + 1) / (double)n;
        break;
    default: /* plateau, with short idle edges */
        for (size_t i = n / 20; i < n - n / 20; i++)
            v[i] = amp;
        break;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i] > 0)
            v[i] *= exp(0.15 * tser_rng_normal(r));
        else if (tser_rng_unit(r) < 0.02)
            v[i] = amp * 0.05 * tser_rng_unit(r);
    }
}

int iolens_series_synth(iolens_series_set *set, size_t n, size_t length, uint64_t seed)
{
    if (length == 0)
        return iolens_series_synth_range(set, n, 100, 600, seed);
    return iolens_series_synth_range(set, n, length, length, seed);
}

int iolens_series_synth_range(iolens_series_set *set, size_t n, size_t min_len, size_t max_len, uint64_t seed)
{
    if (!set || min_len == 0 || min_len > max_len || max_len > IOLENS_SERIES_MAX_SAMPLES ||
        n > IOLENS_SERIES_MAX_COUNT)
        return iol_err(IOLENS_EINVAL, "synthetic traces: bad count or length");
    tser_rng r;
    tser_rng_seed(&r, seed ^ 0x5e7e5);
    for (size_t i = 0; i < n; i++) {
        int label = (int)(i % IOLENS_SYNTH_CLASSES);
        /* a fixed length draws nothing: the same traces as before ranges existed */
        size_t len = min_len == max_len ? min_len : min_len + tser_rng_below(&r, max_len - min_len + 1);
        double *v = malloc(len * sizeof *v);
        char *id = malloc(32);
        if (!v || !id) {
            free(v);
            free(id);
            return iol_err(IOLENS_ENOMEM, "out of memory (synthetic traces)");
        }
        snprintf(id, 32, "synth%zu", i);
        make_trace(&r, label, len, v);
        int rc = tser_set_push(set, id, IOLENS_DIR_WRITE, 1.0, v, len, label);
        if (rc)
            return rc;
    }
    return 0;
}
