/* The paired statistics against hand-computed order statistics. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_rank), cmocka_unit_test(test_summary)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
