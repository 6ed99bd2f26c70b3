/* Paired comparison statistics (include/iolens/paired.h). The interval for the median is
 * the classical distribution-free one: with n independent ratios, the k-th smallest and the
 * k-th largest enclose the true median with probability 1 - 2 P(B <= k - 1), B ~ Bin(n, 1/2). */
#include "iolens/paired.h"
#include "util/error.h"
#include "util/stats.h"

#include <math.h>
#include <stdio.h>
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
    case IOLENS_PAIRED_UNRELIABLE: return "unreliable";
    default: return "within noise";
    }
}

/* The noise band beyond which a control that holds the machine down still allows "within noise". */
#define QUIET_BAND 1.25

int iolens_paired_judge(const iolens_paired_summary *v, const iolens_paired_noise *noise, double negligible,
                        char *reason, size_t cap)
{
    char tmp[8];
    if (!reason || !cap) {
        reason = tmp;
        cap = sizeof tmp;
    }
    reason[0] = 0;
    if (!(negligible >= 1) || !isfinite(negligible))
        negligible = 1;
    if (!v || v->k == 0) {
        snprintf(reason, cap, "%zu round(s) give no interval at 90%%: run 5 or more", v ? v->n : (size_t)0);
        return IOLENS_PAIRED_UNRELIABLE;
    }
    if (noise && noise->min_seconds > 0 && noise->seconds > 0 && noise->seconds < noise->min_seconds) {
        snprintf(reason, cap, "a side's runs last %.3f s (median), under the %.2f s a figure needs on a machine this "
                 "busy (load %.1f per core): the scheduler's time slices decide it, not the change; run on a quieter "
                 "machine or give the runs more I/O", noise->seconds, noise->min_seconds, noise->load_per_core);
        return IOLENS_PAIRED_UNRELIABLE;
    }
    double band = negligible;
    const iolens_paired_summary *c = noise && noise->has_control ? &noise->control : NULL;
    int control_off = 0;
    if (c && c->k > 0 && c->lo > 0) {
        double b = c->hi > 1 / c->lo ? c->hi : 1 / c->lo;
        band = b > band ? b : band;
        control_off = c->lo > negligible || c->hi < 1 / negligible;
    }
    double drift = noise && noise->drift > 1 && isfinite(noise->drift) ? noise->drift : 1;
    if (drift > 1.25 && sqrt(drift) > band)
        band = sqrt(drift);
    char busy[96] = "";
    if (noise && noise->load_per_core > 1)
        snprintf(busy, sizeof busy, " (the machine's load was %.1f per core)", noise->load_per_core);
    char what[320] = "";
    if (c && c->k == 0)
        snprintf(what, sizeof what, "the A/A control has no interval (%zu rounds)", c->n);
    else if (control_off)
        snprintf(what, sizeof what, "the A/A control came out %.3fx [%.3f, %.3f] where it should hold 1: the runs are "
                 "not alike%s", c->median, c->lo, c->hi, busy);
    else if (c)
        snprintf(what, sizeof what, "the A/A control's noise is +-%.0f%%%s", 100 * (band - 1), busy);
    else
        snprintf(what, sizeof what, "no A/A control ran: the noise of this machine is not known%s", busy);
    char dr[96] = "";
    if (drift > 1.25)
        snprintf(dr, sizeof dr, "; the base drifted %.2fx from the first rounds to the last", drift);
    if (!c) { /* the interval alone: within noise when it lies within `negligible` of 1 or holds 1 */
        int in = v->lo >= 1 / negligible && v->hi <= negligible;
        int r = in ? IOLENS_PAIRED_WITHIN_NOISE : v->lo > 1 ? IOLENS_PAIRED_FASTER : v->hi < 1 ? IOLENS_PAIRED_SLOWER
                                                                                        : IOLENS_PAIRED_WITHIN_NOISE;
        snprintf(reason, cap, "the interval [%.3f, %.3f] alone (%s%s)", v->lo, v->hi, what, dr);
        return r;
    }
    if (v->lo > band) {
        snprintf(reason, cap, "the interval [%.3f, %.3f] lies above the noise band [%.3f, %.3f] (%s%s)", v->lo, v->hi,
                 1 / band, band, what, dr);
        return IOLENS_PAIRED_FASTER;
    }
    if (v->hi < 1 / band) {
        snprintf(reason, cap, "the interval [%.3f, %.3f] lies below the noise band [%.3f, %.3f] (%s%s)", v->lo, v->hi,
                 1 / band, band, what, dr);
        return IOLENS_PAIRED_SLOWER;
    }
    int holds_one = v->lo <= negligible && v->hi >= 1 / negligible;
    if (holds_one && band <= QUIET_BAND && c && c->k > 0 && !control_off) {
        snprintf(reason, cap, "the interval [%.3f, %.3f] holds no change (%s%s)", v->lo, v->hi, what, dr);
        return IOLENS_PAIRED_WITHIN_NOISE;
    }
    snprintf(reason, cap, "the interval [%.3f, %.3f] does not clear the noise band [%.3f, %.3f]: %s%s; run more rounds "
             "(--rounds), on a quieter machine, or with the control's spread in mind", v->lo, v->hi, 1 / band, band,
             what, dr);
    return IOLENS_PAIRED_UNRELIABLE;
}
