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
    IOLENS_PAIRED_UNRELIABLE = 3,   /**< the noise measured beside it (an A/A control, drift, too few
                                         rounds) does not let the interval decide (iolens_paired_judge) */
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

/** "faster", "slower", "within noise" or "unreliable". */
IOLENS_API const char *iolens_paired_verdict_name(int verdict);

/** The noise measured beside a comparison, against which its interval is judged. */
typedef struct iolens_paired_noise {
    int has_control;                /**< an A/A control (the base run again as a variant) was measured */
    iolens_paired_summary control;  /**< its summary (base / base-again ratios) */
    double drift;                   /**< the base's drift over the rounds: the larger of (median of the
                                         first half of its times / median of the second half) and its
                                         inverse; 1 or 0: none or unknown */
    double load_per_core;           /**< the highest 1-minute load average per core over the rounds; < 0
                                         unknown */
    double seconds;                 /**< the shorter of the two sides' median times (0: unknown) */
    double min_seconds;             /**< the shortest time a side may take for its figure to count
                                         (0: none); see IOLENS_PAIRED_BUSY_FLOOR */
} iolens_paired_noise;

/** The shortest median time a side of a comparison needs on a busy machine (its load per core
 *  at least 1): shorter runs are decided by the scheduler's time slices, not by the change. */
#define IOLENS_PAIRED_BUSY_FLOOR 0.5

/**
 * The verdict of a comparison against the noise measured beside it. The noise band is the A/A
 * control's interval made symmetric around 1 ([1/B, B], B = max(its hi, 1/its lo)), widened to
 * sqrt(drift) when the base drifted, at least `negligible` (e.g. 1.02). A variant is faster
 * when its whole interval lies above B, slower when below 1/B; within noise when its interval
 * holds 1 and B is at most 1.25 (the control pins the machine down); otherwise unreliable,
 * and also when there is no interval (fewer than 5 ratios at 90%) or a side's median time is
 * under noise->min_seconds. Without a control, the
 * interval is judged against `negligible` alone and the reason says that no control ran.
 * The reason (NUL-terminated, may be NULL) says what the verdict rests on; for an unreliable
 * one, why and what to do. Returns the verdict (iolens_paired_verdict).
 */
IOLENS_API int iolens_paired_judge(const iolens_paired_summary *variant, const iolens_paired_noise *noise,
                                   double negligible, char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif
#endif
