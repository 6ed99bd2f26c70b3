/*
 * Paired comparison statistics: base and variant run back to back in each round
 * (alternating which goes first); the effect is the median of the per-round ratios,
 * with a distribution-free order-statistic interval for that median, as a change is
 * validated by repeated paired runs in "IOSage: A Framework for I/O Bottleneck Detection
 * and Recommendation" (its validation of recommended changes).
 */
#ifndef IOLENS_PAIRED_H
#define IOLENS_PAIRED_H

#include <stddef.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Verdict of a paired comparison (ratio = base / variant time, or variant / base metric). */
typedef enum iolens_paired_verdict {
    IOLENS_PAIRED_WITHIN_NOISE = 0, /**< the interval holds 1 */
    IOLENS_PAIRED_FASTER = 1,       /**< the whole interval is above 1: the variant is faster */
    IOLENS_PAIRED_SLOWER = 2,       /**< the whole interval is below 1 */
} iolens_paired_verdict;

/** The median of n ratios and its order-statistic interval. */
typedef struct iolens_paired_summary {
    size_t n;          /**< ratios */
    double median;
    double lo, hi;     /**< the k-th smallest and the k-th largest ratio */
    size_t k;          /**< 1-based rank of lo (0: too few ratios for an interval; lo = hi = median) */
    double coverage;   /**< 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2): the chance the interval holds the true median */
    int verdict;       /**< iolens_paired_verdict */
} iolens_paired_summary;

/**
 * The largest k (1 <= k <= n/2) whose interval [x_(k), x_(n+1-k)] covers the median with
 * probability at least min_coverage (e.g. 0.90: 11 ratios give the 3rd and the 9th, 93.5%),
 * writing its coverage to *coverage. 0 when even [min, max] covers less (n < 5 at 0.90).
 */
IOLENS_API size_t iolens_paired_rank(size_t n, double min_coverage, double *coverage);

/**
 * Summarises n ratios (copied and sorted; the input is not changed): median, interval at
 * min_coverage (0 = 0.90) and verdict. IOLENS_EINVAL for n == 0 or a ratio that is not
 * finite and positive.
 */
IOLENS_API int iolens_paired_summarize(const double *ratios, size_t n, double min_coverage,
                                       iolens_paired_summary *out);

/** "faster", "slower" or "within noise". */
IOLENS_API const char *iolens_paired_verdict_name(int verdict);

#ifdef __cplusplus
}
#endif
#endif
