/* Simulator, phases and placement algorithms against hand-computed cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iolens/place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C(x) {IOLENS_PLACE_COMPUTE, (x)}
#define IO(x) {IOLENS_PLACE_IO, (x)}
#define EPS 1e-9

static void test_phases_from_series(void **state)
{
    (void)state;
    const double v[] = {0, 0.5, 5, 10, 0, 2};
    iolens_place_phase *ph;
    size_t n;
    assert_int_equal(iolens_place_phases_from_series(&ph, &n, v, 6, 2.0, 1.0), 0);
    assert_int_equal(n, 4);
    assert_int_equal(ph[0].kind, IOLENS_PLACE_COMPUTE);
    assert_true(fabs(ph[0].amount - 4.0) < EPS); /* 2 samples of 2 s */
    assert_int_equal(ph[1].kind, IOLENS_PLACE_IO);
    assert_true(fabs(ph[1].amount - 30.0) < EPS); /* (5 + 10) MiB/s * 2 s */
    assert_int_equal(ph[2].kind, IOLENS_PLACE_COMPUTE);
    assert_true(fabs(ph[2].amount - 2.0) < EPS);
    assert_true(fabs(ph[3].amount - 4.0) < EPS);
    free(ph);
    /* Exactly the threshold counts as I/O; an empty series has no phase. */
    const double w[] = {1.0};
    assert_int_equal(iolens_place_phases_from_series(&ph, &n, w, 1, 1.0, 1.0), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ph[0].kind, IOLENS_PLACE_IO);
    free(ph);
    assert_int_equal(iolens_place_phases_from_series(&ph, &n, w, 0, 1.0, 1.0), 0);
    assert_int_equal(n, 0);
    assert_int_equal(iolens_place_phases_from_series(&ph, &n, w, 1, 0.0, 1.0), IOLENS_EINVAL);
}

static void test_rescale(void **state)
{
    (void)state;
    double out[4];
    const double a[] = {1, 3};
    assert_int_equal(iolens_place_rescale(out, 4, a, 2), 0);
    assert_true(fabs(out[0] - 1) < EPS && fabs(out[1] - 1) < EPS && fabs(out[2] - 3) < EPS && fabs(out[3] - 3) < EPS);
    const double b[] = {1, 2, 3};
    assert_int_equal(iolens_place_rescale(out, 2, b, 3), 0);
    assert_true(fabs(out[0] - 4.0 / 3) < EPS);
    assert_true(fabs(out[1] - 8.0 / 3) < EPS);
    /* Same length: identity. */
    assert_int_equal(iolens_place_rescale(out, 3, b, 3), 0);
    assert_true(fabs(out[0] - 1) < EPS && fabs(out[1] - 2) < EPS && fabs(out[2] - 3) < EPS);
}

/* One job alone: compute 3 s, 50 MiB at 10 MiB/s (5 s), compute 1 s. */
static void test_sim_alone(void **state)
{
    (void)state;
    const iolens_place_phase p[] = {C(3), IO(50), C(1)};
    iolens_place_job j = {2.0, p, 3};
    unsigned ost = 0;
    iolens_place_outcome o;
    double g;
    assert_int_equal(iolens_place_simulate(&o, &g, &j, 1, &ost, 4, 10.0), 0);
    assert_true(fabs(o.end - 11.0) < EPS);
    assert_true(fabs(o.io_time - 5.0) < EPS);
    assert_true(fabs(o.io_isol - 5.0) < EPS);
    assert_true(fabs(o.stretch - 1.0) < EPS);
    assert_true(fabs(g - 1.0) < EPS);
}

/* Two jobs of 100 MiB from t = 0: sharing one OST each gets 5 MiB/s and both
 * end at 20 (stretch 2); on two OSTs they end at 10 (stretch 1). */
static void test_sim_two_equal(void **state)
{
    (void)state;
    const iolens_place_phase p[] = {IO(100)};
    iolens_place_job j[2] = {{0, p, 1}, {0, p, 1}};
    iolens_place_outcome o[2];
    double g;
    unsigned same[2] = {1, 1}, apart[2] = {0, 1};
    assert_int_equal(iolens_place_simulate(o, &g, j, 2, same, 2, 10.0), 0);
    assert_true(fabs(o[0].end - 20) < EPS && fabs(o[1].end - 20) < EPS);
    assert_true(fabs(g - 2.0) < EPS);
    assert_int_equal(iolens_place_simulate(o, &g, j, 2, apart, 2, 10.0), 0);
    assert_true(fabs(o[0].end - 10) < EPS && fabs(o[1].end - 10) < EPS);
    assert_true(fabs(g - 1.0) < EPS);
}

/* A: 100 MiB from 0. B: compute 5 s then 20 MiB, same OST, 10 MiB/s.
 * [0,5) A alone gets 50; from 5 both at 5 MiB/s: B ends at 9 (A at 70);
 * A alone again: 30 more in 3 s, ends at 12. Stretch A 12/10, B 4/2. */
static void test_sim_join(void **state)
{
    (void)state;
    const iolens_place_phase pa[] = {IO(100)}, pb[] = {C(5), IO(20)};
    iolens_place_job j[2] = {{0, pa, 1}, {0, pb, 2}};
    unsigned ost[2] = {0, 0};
    iolens_place_outcome o[2];
    double g;
    assert_int_equal(iolens_place_simulate(o, &g, j, 2, ost, 1, 10.0), 0);
    assert_true(fabs(o[0].end - 12) < EPS);
    assert_true(fabs(o[1].end - 9) < EPS);
    assert_true(fabs(o[0].stretch - 1.2) < EPS);
    assert_true(fabs(o[1].stretch - 2.0) < EPS);
    assert_true(fabs(g - sqrt(2.4)) < EPS);
}

/* Three from 0 on one OST: 60, 30, 30 MiB at 9 MiB/s, 3 MiB/s each.
 * B and C end together at 10 (A has 30); A alone ends at 10 + 30/9. */
static void test_sim_three(void **state)
{
    (void)state;
    const iolens_place_phase pa[] = {IO(60)}, pb[] = {IO(30)};
    iolens_place_job j[3] = {{0, pa, 1}, {0, pb, 1}, {0, pb, 1}};
    unsigned ost[3] = {0, 0, 0};
    iolens_place_outcome o[3];
    assert_int_equal(iolens_place_simulate(o, NULL, j, 3, ost, 1, 9.0), 0);
    assert_true(fabs(o[1].end - 10) < EPS && fabs(o[2].end - 10) < EPS);
    assert_true(fabs(o[0].end - (10 + 30.0 / 9)) < EPS);
    assert_true(fabs(o[1].stretch - 3) < EPS);
    assert_true(fabs(o[0].stretch - (10 + 30.0 / 9) / (60.0 / 9)) < EPS);
}

/* Several phases and simultaneous events. A: 20 MiB, compute 2, 20 MiB;
 * B: 40 MiB; one OST at 10 MiB/s. Both at 5: A's first phase ends at 4 (B
 * at 20); B alone until 6 gets 20 more and ends at 6 exactly when A's
 * compute ends; A alone 2 s more, ends at 8. A: io 6 / 4, B: 6 / 4. */
static void test_sim_phases(void **state)
{
    (void)state;
    const iolens_place_phase pa[] = {IO(20), C(2), IO(20)}, pb[] = {IO(40)};
    iolens_place_job j[2] = {{0, pa, 3}, {0, pb, 1}};
    unsigned ost[2] = {0, 0};
    iolens_place_outcome o[2];
    assert_int_equal(iolens_place_simulate(o, NULL, j, 2, ost, 1, 10.0), 0);
    assert_true(fabs(o[0].end - 8) < EPS);
    assert_true(fabs(o[1].end - 6) < EPS);
    assert_true(fabs(o[0].io_time - 6) < EPS);
    assert_true(fabs(o[0].stretch - 1.5) < EPS);
    assert_true(fabs(o[1].stretch - 1.5) < EPS);
}

static void test_sim_errors(void **state)
{
    (void)state;
    const iolens_place_phase p[] = {IO(-1)};
    iolens_place_job j = {0, p, 1};
    unsigned ost = 0, bad = 3;
    iolens_place_outcome o;
    assert_int_equal(iolens_place_simulate(&o, NULL, &j, 1, &ost, 1, 10.0), IOLENS_EINVAL);
    const iolens_place_phase q[] = {IO(1)};
    j.phases = q;
    assert_int_equal(iolens_place_simulate(&o, NULL, &j, 1, &bad, 2, 10.0), IOLENS_EINVAL);
    assert_int_equal(iolens_place_simulate(&o, NULL, &j, 1, &ost, 1, 0.0), IOLENS_EINVAL);
    assert_int_equal(iolens_place_simulate(&o, NULL, &j, 1, &ost, 0, 1.0), IOLENS_EINVAL);
}

/* A clock so large that the remaining time of a phase does not change it
 * (1e20 + 1 == 1e20): the simulation still ends, each event making progress. */
static void test_sim_huge_clock(void **state)
{
    (void)state;
    const iolens_place_phase p[] = {IO(1), C(1), IO(3)};
    iolens_place_job j[2] = {{1e20, p, 3}, {1e20, p, 3}};
    unsigned ost[2] = {0, 0};
    iolens_place_outcome o[2];
    assert_int_equal(iolens_place_simulate(o, NULL, j, 2, ost, 1, 10.0), 0);
    assert_true(o[0].end >= 1e20 && o[1].end >= 1e20);
}

/* Independent reference: the same fluid model written the direct way
 * (remaining MiB per phase, decremented between events). */
typedef struct ref_job {
    int state; /* 0 wait, 1 compute, 2 io, 3 done */
    size_t ph;
    double until, rem, io_start, io_time, end;
} ref_job;

static void ref_next(ref_job *r, const iolens_place_job *j, double now)
{
    for (; r->ph < j->nphases; r->ph++) {
        if (j->phases[r->ph].amount <= 0)
            continue;
        if (j->phases[r->ph].kind == IOLENS_PLACE_IO) {
            r->state = 2;
            r->rem = j->phases[r->ph].amount;
            r->io_start = now;
        } else {
            r->state = 1;
            r->until = now + j->phases[r->ph].amount;
        }
        return;
    }
    r->state = 3;
    r->end = now;
}

static void ref_simulate(ref_job *r, const iolens_place_job *j, size_t n, const unsigned *ost, unsigned nost, double bw)
{
    size_t *k = calloc(nost, sizeof *k);
    for (size_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].until = j[i].start;
    }
    double now = 0;
    for (;;) {
        for (unsigned o = 0; o < nost; o++)
            k[o] = 0;
        for (size_t i = 0; i < n; i++)
            if (r[i].state == 2)
                k[ost[i]]++;
        double next = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double t = r[i].state <= 1 ? r[i].until : r[i].state == 2 ? now + r[i].rem * (double)k[ost[i]] / bw : INFINITY;
            next = t < next ? t : next;
        }
        if (next == INFINITY)
            break;
        for (size_t i = 0; i < n; i++)
            if (r[i].state == 2)
                r[i].rem -= (next - now) * bw / (double)k[ost[i]];
        now = next;
        for (size_t i = 0; i < n; i++)
            if (r[i].state == 2 && r[i].rem <= 1e-9 * j[i].phases[r[i].ph].amount) {
                r[i].io_time += now - r[i].io_start;
                r[i].state = 1; /* the phase index advances below */
                r[i].until = now;
            }
        for (size_t i = 0; i < n; i++)
            if (r[i].state <= 1 && r[i].until <= now) {
                if (r[i].state == 1)
                    r[i].ph++;
                ref_next(&r[i], &j[i], now);
            }
    }
    free(k);
}

static void test_sim_random_vs_reference(void **state)
{
    (void)state;
    srand(12345);
    for (int sc = 0; sc < 200; sc++) {
        size_t n = 1 + (size_t)(rand() % 12);
        unsigned nost = 1 + (unsigned)(rand() % 3);
        iolens_place_job j[12];
        iolens_place_phase ph[12][8];
        unsigned ost[12];
        for (size_t i = 0; i < n; i++) {
            size_t np = 1 + (size_t)(rand() % 8);
            for (size_t p = 0; p < np; p++) {
                ph[i][p].kind = (p + (size_t)(rand() % 2)) % 2 ? IOLENS_PLACE_IO : IOLENS_PLACE_COMPUTE;
                ph[i][p].amount = 0.5 + (double)(rand() % 100);
            }
            j[i].start = (double)(rand() % 50);
            j[i].phases = ph[i];
            j[i].nphases = np;
            ost[i] = (unsigned)(rand() % (int)nost);
        }
        iolens_place_outcome o[12];
        ref_job r[12];
        assert_int_equal(iolens_place_simulate(o, NULL, j, n, ost, nost, 7.0), 0);
        ref_simulate(r, j, n, ost, nost, 7.0);
        for (size_t i = 0; i < n; i++) {
            assert_true(fabs(o[i].end - r[i].end) < 1e-6);
            assert_true(fabs(o[i].io_time - r[i].io_time) < 1e-6);
            assert_true(o[i].stretch >= 1 - 1e-9);
        }
    }
}

static void test_overlap(void **state)
{
    (void)state;
    const iolens_place_phase p100[] = {IO(100)}, pc[] = {C(10), IO(50)};
    iolens_place_job a = {0, p100, 1}, b = {5, p100, 1}, c = {0, pc, 2};
    /* A does I/O over [0,10), B over [5,15), C over [10,15) at 10 MiB/s. */
    assert_true(fabs(iolens_place_overlap(&a, &b, 10) - 0.5) < EPS);
    assert_true(fabs(iolens_place_overlap(&a, &c, 10) - 0.0) < EPS);
    assert_true(fabs(iolens_place_overlap(&b, &c, 10) - 0.75) < EPS);
    assert_true(fabs(iolens_place_overlap(&a, &a, 10) - 1.0) < EPS);
    const iolens_place_phase none[] = {C(10)};
    iolens_place_job d = {0, none, 1};
    assert_true(iolens_place_overlap(&a, &d, 10) == 0.0);
}

/* Four jobs, two OSTs. Greedy: (2,3) is lightest (0.1); then 0.7 ties
 * between (0,{2,3}) and (1,{2,3}) at the same size: the first wins, giving
 * {0,2,3},{1}. Local search moves 2 next to 1: {0,3},{1,2}, cost 0.5, the
 * best of all 2-partitions. */
static void test_greedy_and_local_search(void **state)
{
    (void)state;
    double w[16] = {0};
#define W(a, b, x) (w[(a) * 4 + (b)] = w[(b) * 4 + (a)] = (x))
    W(0, 1, 1.0);
    W(0, 2, 0.4);
    W(1, 2, 0.2);
    W(0, 3, 0.3);
    W(1, 3, 0.5);
    W(2, 3, 0.1);
    unsigned ost[4];
    assert_int_equal(iolens_place_greedy(ost, w, 4, 2), 0);
    assert_int_equal(ost[0], 0);
    assert_int_equal(ost[1], 1);
    assert_int_equal(ost[2], 0);
    assert_int_equal(ost[3], 0);
    assert_true(fabs(iolens_place_cost(ost, w, 4) - 0.8) < EPS);
    assert_int_equal(iolens_place_local_search(ost, w, 4, 2), 1);
    assert_int_equal(ost[0], 0);
    assert_int_equal(ost[1], 1);
    assert_int_equal(ost[2], 1);
    assert_int_equal(ost[3], 0);
    assert_true(fabs(iolens_place_cost(ost, w, 4) - 0.5) < EPS);
}

/* Ties on weight go to the pair with the fewest jobs: with all weights 0,
 * (0,1) merges first, then (2,3) (2 jobs) rather than ({0,1},2) (3 jobs). */
static void test_greedy_ties_fewest_jobs(void **state)
{
    (void)state;
    double w[16] = {0};
    unsigned ost[4];
    assert_int_equal(iolens_place_greedy(ost, w, 4, 2), 0);
    assert_int_equal(ost[0], ost[1]);
    assert_int_equal(ost[2], ost[3]);
    assert_int_not_equal(ost[0], ost[2]);
    /* Fewer jobs than OSTs: one each. */
    assert_int_equal(iolens_place_greedy(ost, w, 3, 8), 0);
    assert_true(ost[0] == 0 && ost[1] == 1 && ost[2] == 2);
}

/* Fig. 13's merged edge: merging two nodes sums their edges. (1,2) merges
 * first (0.05); its edges become 1.0 + 0.4 = 1.4 to 0 and 0.5 + 0.6 = 1.1
 * to 3, so (0,3) at 0.9 is the next lightest: {0,3},{1,2}. (Averaging the
 * edges instead would give 0.55 and merge {1,2,3}.) */
static void test_greedy_sums_edges(void **state)
{
    (void)state;
    double w[16] = {0};
    W(0, 1, 1.0);
    W(0, 2, 0.4);
    W(1, 2, 0.05);
    W(0, 3, 0.9);
    W(1, 3, 0.5);
    W(2, 3, 0.6);
    unsigned ost[4];
    assert_int_equal(iolens_place_greedy(ost, w, 4, 2), 0);
    assert_int_equal(ost[1], ost[2]);
    assert_int_equal(ost[0], ost[3]);
    assert_int_not_equal(ost[0], ost[1]);
}

/* On random instances the local search ends in a local optimum: no single
 * move or swap lowers the cost (checked by brute force). */
static void test_local_search_is_local_optimum(void **state)
{
    (void)state;
    srand(777);
    for (int it = 0; it < 50; it++) {
        size_t n = 2 + (size_t)(rand() % 9);
        unsigned nost = 2 + (unsigned)(rand() % 3);
        double w[100];
        for (size_t a = 0; a < n; a++) {
            w[a * n + a] = 0;
            for (size_t b = a + 1; b < n; b++)
                w[a * n + b] = w[b * n + a] = (double)(rand() % 1000) / 1000.0;
        }
        unsigned ost[10];
        assert_int_equal(iolens_place_greedy(ost, w, n, nost), 0);
        double before = iolens_place_cost(ost, w, n);
        assert_true(iolens_place_local_search(ost, w, n, nost) >= 0);
        double cost = iolens_place_cost(ost, w, n);
        assert_true(cost <= before + EPS);
        for (size_t j = 0; j < n; j++) {
            unsigned keep = ost[j];
            for (unsigned o = 0; o < nost; o++) {
                ost[j] = o;
                assert_true(iolens_place_cost(ost, w, n) >= cost - 1e-9);
            }
            ost[j] = keep;
            for (size_t k = j + 1; k < n; k++) {
                unsigned a = ost[j], b = ost[k];
                ost[j] = b;
                ost[k] = a;
                assert_true(iolens_place_cost(ost, w, n) >= cost - 1e-9);
                ost[j] = a;
                ost[k] = b;
            }
        }
    }
}

static void test_assign_baselines(void **state)
{
    (void)state;
    unsigned a[10], b[10], c[10];
    assert_int_equal(iolens_place_assign(a, IOLENS_PLACE_ROUND_ROBIN, NULL, 10, 4, 1, 0), 0);
    for (unsigned j = 0; j < 10; j++)
        assert_int_equal(a[j], j % 4);
    assert_int_equal(iolens_place_assign(b, IOLENS_PLACE_RANDOM, NULL, 10, 4, 1, 42), 0);
    assert_int_equal(iolens_place_assign(c, IOLENS_PLACE_RANDOM, NULL, 10, 4, 1, 42), 0);
    assert_memory_equal(b, c, sizeof b);
    for (unsigned j = 0; j < 10; j++)
        assert_true(b[j] < 4);
    /* Clairvoyant separates the two jobs that overlap fully. */
    const iolens_place_phase p[] = {IO(100)}, q[] = {C(50), IO(100)};
    iolens_place_job j[3] = {{0, p, 1}, {0, p, 1}, {0, q, 2}};
    assert_int_equal(iolens_place_assign(a, IOLENS_PLACE_CLAIRVOYANT, j, 3, 2, 10, 0), 0);
    assert_int_not_equal(a[0], a[1]);
    assert_string_equal(iolens_place_policy_name(IOLENS_PLACE_CLUSTER), "cluster");
    assert_string_equal(iolens_place_policy_name(IOLENS_PLACE_ROUND_ROBIN), "round-robin");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases_from_series),
        cmocka_unit_test(test_rescale),
        cmocka_unit_test(test_sim_alone),
        cmocka_unit_test(test_sim_two_equal),
        cmocka_unit_test(test_sim_join),
        cmocka_unit_test(test_sim_three),
        cmocka_unit_test(test_sim_phases),
        cmocka_unit_test(test_sim_errors),
        cmocka_unit_test(test_sim_huge_clock),
        cmocka_unit_test(test_sim_random_vs_reference),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_greedy_and_local_search),
        cmocka_unit_test(test_greedy_ties_fewest_jobs),
        cmocka_unit_test(test_greedy_sums_edges),
        cmocka_unit_test(test_local_search_is_local_optimum),
        cmocka_unit_test(test_assign_baselines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
