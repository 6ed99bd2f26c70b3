/* Paired comparison statistics (include/iolens/paired.h). The interval for the median is
 * the classical distribution-free one: with n independent ratios, the k-th smallest and the
 * k-th largest enclose the true median with probability 1 - 2 P(B <= k - 1), B ~ Bin(n, 1/2). */
#include "iolens/paired.h"
#include "util/error.h"
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* P(B <= j) for B ~ Binomial(n, 1/2), in logs (n up to a few thousand without overflow). */
static double binom_cdf_half(size_t n, size_t j)
{
    double sum = 0;
    for (size_t i = 0; i <= j && i <= n; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) - (double)n * log(2.0));
    return sum > 1 ? 1 : sum;
}

size_t iolens_paired_rank(size_t n, double min_coverage, double *coverage)
{
    size_t best = 0;
    double cov = 0;
    for (size_t k = 1; 2 * k <= n; k++) {
        double c = 1 - 2 * binom_cdf_half(n, k - 1);
        if (c + 1e-12 < min_coverage)
            break;
        best = k;
        cov = c;
    }
    if (coverage)
        *coverage = cov;
    return best;
}

int iolens_paired_summarize(const double *ratios, size_t n, double min_coverage, iolens_paired_summary *out)
{
    if (!ratios || !out || n == 0)
        return iol_err(IOLENS_EINVAL, "no ratios to summarise");
    double *v = malloc(n * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ratios[i]) || ratios[i] <= 0) {
            free(v);
            return iol_err(IOLENS_EINVAL, "ratio %zu is %g: ratios must be finite and positive", i, ratios[i]);
        }
        v[i] = ratios[i];
    }
    qsort(v, n, sizeof *v, iol_cmp_double);
    memset(out, 0, sizeof *out);
    out->n = n;
    out->median = iol_median_sorted(v, n);
    out->k = iolens_paired_rank(n, min_coverage > 0 ? min_coverage : 0.90, &out->coverage);
    out->lo = out->k ? v[out->k - 1] : out->median;
    out->hi = out->k ? v[n - out->k] : out->median;
    out->verdict = !out->k ? IOLENS_PAIRED_WITHIN_NOISE
                   : out->lo > 1 ? IOLENS_PAIRED_FASTER
                   : out->hi < 1 ? IOLENS_PAIRED_SLOWER
                                 : IOLENS_PAIRED_WITHIN_NOISE;
    free(v);
    return 0;
}

const char *iolens_paired_verdict_name(int verdict)
{
    switch (verdict) {
    case IOLENS_PAIRED_FASTER: return "faster";
    case IOLENS_PAIRED_SLOWER: return "slower";
    default: return "within noise";
    }
}
