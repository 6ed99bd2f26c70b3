/* The paired statistics against hand-computed order statistics. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "iolens/paired.h"

static void test_rank(void **state)
{
    (void)state;
    double cov;
    /* n = 11: P(B <= 2) = (1 + 11 + 55) / 2048, so [x_(3), x_(9)] covers 1 - 134/2048 */
    assert_int_equal(iolens_paired_rank(11, 0.90, &cov), 3);
    assert_true(fabs(cov - (1.0 - 134.0 / 2048.0)) < 1e-12);
    /* n = 5: [min, max] covers 1 - 2/32 = 0.9375; [x_(2), x_(4)] only 1 - 12/32 */
    assert_int_equal(iolens_paired_rank(5, 0.90, &cov), 1);
    assert_true(fabs(cov - 0.9375) < 1e-12);
    /* n = 4: even [min, max] covers only 1 - 2/16 = 0.875 */
    assert_int_equal(iolens_paired_rank(4, 0.90, &cov), 0);
    /* n = 20 at 0.95: P(B <= 5) = 21700 / 2^20 -> 0.9586; P(B <= 6) = 60460 / 2^20 -> 0.8847 */
    assert_int_equal(iolens_paired_rank(20, 0.95, &cov), 6);
    assert_true(fabs(cov - (1.0 - 2.0 * 21700.0 / 1048576.0)) < 1e-12);
}

static void test_summary(void **state)
{
    (void)state;
    iolens_paired_summary s;
    const double r[11] = {1.9, 2.1, 2.0, 1.8, 2.2, 2.05, 1.95, 2.3, 1.7, 2.15, 1.85};
    assert_int_equal(iolens_paired_summarize(r, 11, 0, &s), 0);
    assert_true(s.median == 2.0 && s.lo == 1.85 && s.hi == 2.15 && s.k == 3);
    assert_int_equal(s.verdict, IOLENS_PAIRED_FASTER);
    assert_true(r[0] == 1.9); /* the input is not sorted in place */
    const double same[5] = {0.9, 1.1, 1.0, 0.95, 1.05};
    assert_int_equal(iolens_paired_summarize(same, 5, 0.90, &s), 0);
    assert_true(s.lo == 0.9 && s.hi == 1.1 && s.median == 1.0);
    assert_int_equal(s.verdict, IOLENS_PAIRED_WITHIN_NOISE);
    assert_string_equal(iolens_paired_verdict_name(s.verdict), "within noise");
    const double slow[5] = {0.5, 0.6, 0.55, 0.52, 0.58};
    assert_int_equal(iolens_paired_summarize(slow, 5, 0.90, &s), 0);
    assert_int_equal(s.verdict, IOLENS_PAIRED_SLOWER);
    const double even[4] = {1.0, 4.0, 2.0, 3.0};
    assert_int_equal(iolens_paired_summarize(even, 4, 0.90, &s), 0);
    assert_true(s.median == 2.5 && s.k == 0 && s.verdict == IOLENS_PAIRED_WITHIN_NOISE);
    const double bad[2] = {1.0, 0.0};
    assert_int_equal(iolens_paired_summarize(bad, 2, 0.90, &s), IOLENS_EINVAL);
    assert_int_equal(iolens_paired_summarize(r, 0, 0.90, &s), IOLENS_EINVAL);
}

static iolens_paired_summary sum(double lo, double med, double hi)
{
    iolens_paired_summary s = {11, med, lo, hi, 3, 0.93, 0};
    return s;
}

/* Verdicts against the A/A control, drift and run length (the rules of iolens_paired_judge). */
static void test_judge(void **state)
{
    (void)state;
    char why[600];
    iolens_paired_noise quiet = {1, sum(0.98, 1.0, 1.03), 1, 0.1, 1, 0};
    iolens_paired_summary v = sum(1.8, 2.0, 2.2);
    assert_int_equal(iolens_paired_judge(&v, &quiet, 1.02, why, sizeof why), IOLENS_PAIRED_FASTER);
    v = sum(0.5, 0.55, 0.6);
    assert_int_equal(iolens_paired_judge(&v, &quiet, 1.02, why, sizeof why), IOLENS_PAIRED_SLOWER);
    v = sum(0.99, 1.0, 1.015);
    assert_int_equal(iolens_paired_judge(&v, &quiet, 1.02, why, sizeof why), IOLENS_PAIRED_WITHIN_NOISE);
    /* excludes 1 but not the control's band: not a verdict */
    v = sum(1.025, 1.03, 1.04);
    assert_int_equal(iolens_paired_judge(&v, &quiet, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    /* a failed A/A control (it moved 40%): a 1.3x interval that excludes 1 is not a verdict */
    iolens_paired_noise busy = {1, sum(1.2, 1.4, 1.6), 1, 3.5, 1, 0};
    v = sum(1.2, 1.3, 1.45);
    assert_int_equal(iolens_paired_judge(&v, &busy, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    assert_non_null(strstr(why, "A/A control came out 1.400x"));
    assert_non_null(strstr(why, "3.5 per core"));
    v = sum(4.0, 5.0, 6.0); /* an effect beyond the noise stays a verdict */
    assert_int_equal(iolens_paired_judge(&v, &busy, 1.02, why, sizeof why), IOLENS_PAIRED_FASTER);
    /* a wide but centred control: no change cannot be told from +-60% */
    iolens_paired_noise wide = {1, sum(0.625, 1.0, 1.6), 1, 0.2, 1, 0};
    v = sum(0.95, 1.0, 1.05);
    assert_int_equal(iolens_paired_judge(&v, &wide, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    /* a drifting base (fsync on ext4: 4x from first rounds to last) widens the band to 2x */
    iolens_paired_noise drift = {1, sum(0.98, 1.0, 1.03), 4.0, 0.1, 1, 0};
    v = sum(1.5, 1.7, 1.9);
    assert_int_equal(iolens_paired_judge(&v, &drift, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    assert_non_null(strstr(why, "drifted 4.00x"));
    v = sum(2.5, 3.0, 3.5);
    assert_int_equal(iolens_paired_judge(&v, &drift, 1.02, why, sizeof why), IOLENS_PAIRED_FASTER);
    /* runs shorter than the busy floor are decided by the scheduler, whatever the control says */
    iolens_paired_noise shortruns = {1, sum(0.98, 1.0, 1.03), 1, 2.0, 0.012, IOLENS_PAIRED_BUSY_FLOOR};
    v = sum(0.3, 0.4, 0.49);
    assert_int_equal(iolens_paired_judge(&v, &shortruns, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    assert_non_null(strstr(why, "0.012 s"));
    /* no control: the interval alone, and the reason says so; no interval: unreliable */
    iolens_paired_noise none = {0, sum(1, 1, 1), 1, -1, 0, 0};
    v = sum(1.1, 1.2, 1.3);
    assert_int_equal(iolens_paired_judge(&v, &none, 1.02, why, sizeof why), IOLENS_PAIRED_FASTER);
    assert_non_null(strstr(why, "no A/A control"));
    v.k = 0;
    assert_int_equal(iolens_paired_judge(&v, &none, 1.02, why, sizeof why), IOLENS_PAIRED_UNRELIABLE);
    assert_string_equal(iolens_paired_verdict_name(IOLENS_PAIRED_UNRELIABLE), "unreliable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_rank), cmocka_unit_test(test_summary),
                                       cmocka_unit_test(test_judge)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
