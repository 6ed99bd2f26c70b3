/* Unit tests of src/temporal: readers, pre-processing, metrics on hand-computed
 * cases (incl. the qualitative example of seed 001 Fig. 7), Kneedle, k-means++,
 * SAGE / SAGE-2 recovery of synthetic classes, and the real heatmap series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/darshan.h"
#include "iolens/event.h"
#include "iolens/temporal.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* ------------------------------------------------------------- readers */

static iolens_series_set *parse(const char *text, int expect_rc)
{
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    int rc = iolens_series_parse(set, text, strlen(text), "t.csv", NULL);
    if (expect_rc == 0)
        assert_int_equal(rc, 0);
    else
        assert_true(rc < 0);
    return set;
}

static void test_read_wide(void **state)
{
    (void)state;
    iolens_series_set *set = parse("id,label,v0,v1,v2\na,3,1,2,3\n\"b,x\",-1,4.5,,\r\nc,0,7\n", 0);
    assert_int_equal(iolens_series_set_count(set), 3);
    iolens_series s;
    iolens_series_set_get(set, 1, &s);
    assert_string_equal(s.id, "b,x");
    assert_int_equal(s.n, 1); /* trailing empty fields dropped */
    NEAR(s.mibs[0], 4.5, 1e-12);
    assert_int_equal(s.label, -1);
    iolens_series_set_get(set, 0, &s);
    assert_int_equal(s.label, 3);
    assert_int_equal(s.n, 3);
    NEAR(s.step_s, 1.0, 0);
    iolens_series_set_free(set);
    /* no header: every row is data */
    set = parse("j1,0,5,0\nj2,1,1\n", 0);
    assert_int_equal(iolens_series_set_count(set), 2);
    iolens_series_set_get(set, 0, &s);
    assert_int_equal(s.n, 3);
    iolens_series_set_free(set);
}

static void test_read_long(void **state)
{
    (void)state;
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    const char *t = "id,t,value\nx,0,1\ny,4,2\nx,2,3\nx,2,1\n";
    iolens_series_read_opts o;
    iolens_series_read_opts_init(&o);
    o.step_s = 2.0;
    assert_int_equal(iolens_series_parse(set, t, strlen(t), "long.csv", &o), 0);
    assert_int_equal(iolens_series_set_count(set), 2);
    iolens_series s;
    iolens_series_set_get(set, 0, &s);
    assert_string_equal(s.id, "x");
    assert_int_equal(s.n, 2);
    NEAR(s.mibs[0], 1, 0);
    NEAR(s.mibs[1], 4, 0); /* two samples at t = 2 s add up */
    NEAR(s.step_s, 2.0, 0);
    iolens_series_set_get(set, 1, &s);
    assert_int_equal(s.n, 3);
    NEAR(s.mibs[2], 2, 0);
    iolens_series_set_free(set);
}

static void test_read_heatmap(void **state)
{
    (void)state;
    iolens_series_set *set = parse("log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks\n"
                                   "a.darshan,POSIX,0.5,0,1048576,0,1\n"
                                   "a.darshan,POSIX,0.5,2,0,2097152,1\n"
                                   "a.darshan,STDIO,0.5,0,10,0,1\n",
                                   0);
    assert_int_equal(iolens_series_set_count(set), 4);
    iolens_series s;
    iolens_series_set_get(set, 0, &s);
    assert_string_equal(s.id, "a.darshan:POSIX:read");
    assert_int_equal(s.direction, IOLENS_DIR_READ);
    assert_int_equal(s.n, 3);
    NEAR(s.mibs[0], 2.0, 1e-12); /* 1 MiB in 0.5 s */
    NEAR(s.step_s, 0.5, 0);
    iolens_series_set_get(set, 1, &s);
    assert_string_equal(s.id, "a.darshan:POSIX:write");
    NEAR(s.mibs[2], 4.0, 1e-12);
    NEAR(s.mibs[1], 0.0, 0);
    iolens_series_set_free(set);
}

static void test_read_hostile(void **state)
{
    (void)state;
    const char *bad[] = {
        "id,t,value\nx,-1,3\n",                  /* negative time */
        "a,1,nan\n",                             /* not finite */
        "a,1,-2\n",                              /* negative bandwidth */
        "a,\"1,2\n",                             /* unterminated quote */
        "id,t,value\nx,1e30,1\n",                /* index far beyond the limit */
        "id,t,value\nx,5000000,1\n",             /* sparse index out of proportion */
        "log,module,bin_width_s,bin,read_bytes,write_bytes\na,P,0,0,1,1\n", /* zero width */
        "log,module,bin_width_s,bin,read_bytes,write_bytes\na,P,1,0,1,1\na,P,2,1,1,1\n",
        "log,module,bin_width_s,bin,read_bytes,write_bytes\na,P,1\n",
        ",1,2\n", /* empty id */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        iolens_series_set *set = parse(bad[i], -1);
        assert_int_equal(iolens_series_set_count(set), 0);
        assert_true(strstr(iolens_error_last(), "t.csv") != NULL);
        iolens_series_set_free(set);
    }
    iolens_series_set *set = parse("a,1,2\nb,3,x\n", -1);
    assert_non_null(strstr(iolens_error_last(), "at byte 6"));
    iolens_series_set_free(set);
}

static void test_filter(void **state)
{
    (void)state;
    iolens_series_set *set, *out;
    assert_int_equal(iolens_series_set_new(&set), 0);
    double a[25], b[10], c[25];
    for (int i = 0; i < 25; i++) {
        a[i] = i % 2 ? 5.0 : 0.5; /* 12 samples >= 1 MiB/s */
        c[i] = i < 4 ? 100 : 0.9; /* only 4 non-zero after thresholding */
    }
    for (int i = 0; i < 10; i++)
        b[i] = 100;
    assert_int_equal(iolens_series_set_add(set, "a", IOLENS_DIR_READ, 1, a, 25, -1), 0);
    assert_int_equal(iolens_series_set_add(set, "b", IOLENS_DIR_READ, 1, b, 10, -1), 0);
    assert_int_equal(iolens_series_set_add(set, "c", IOLENS_DIR_WRITE, 1, c, 25, -1), 0);
    assert_true(iolens_series_set_add(set, "bad", 0, 1, (double[]){NAN}, 1, -1) < 0);
    iolens_filter_opts fo;
    iolens_filter_opts_init(&fo);
    assert_int_equal(iolens_series_filter(&out, set, &fo), 0);
    assert_int_equal(iolens_series_set_count(out), 1);
    iolens_series s;
    iolens_series_set_get(out, 0, &s);
    assert_string_equal(s.id, "a");
    NEAR(s.mibs[0], 0.0, 0);
    NEAR(s.mibs[1], 5.0, 0);
    iolens_series_set_free(out);
    fo.min_samples = 5;
    fo.min_nonzero = 1;
    assert_int_equal(iolens_series_filter(&out, set, &fo), 0);
    assert_int_equal(iolens_series_set_count(out), 3);
    iolens_series_set_free(out);
    iolens_series_set_free(set);
}

/* --------------------------------------------- transfers and event streams */

static void test_transfers(void **state)
{
    (void)state;
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    /* 4 MiB over [0.5, 2.5) s at 1 s bins: 1, 2, 1 MiB; 1 MiB at t = 3 (zero duration) */
    iolens_transfer t[2] = {{0.5, 2.5, 4 * 1048576.0}, {3.0, 3.0, 1048576.0}};
    assert_int_equal(iolens_series_from_transfers(set, "j", IOLENS_DIR_WRITE, 1.0, t, 2), 0);
    iolens_series s;
    iolens_series_set_get(set, 0, &s);
    assert_int_equal(s.n, 4);
    NEAR(s.mibs[0], 1.0, 1e-12);
    NEAR(s.mibs[1], 2.0, 1e-12);
    NEAR(s.mibs[2], 1.0, 1e-12);
    NEAR(s.mibs[3], 1.0, 1e-12);
    iolens_transfer bad = {2.0, 1.0, 5};
    assert_true(iolens_series_from_transfers(set, "x", 0, 1.0, &bad, 1) < 0);
    iolens_series_set_free(set);
}

/* A two-rank in-memory event stream, as a producer would provide. */
struct mini_src {
    iolens_event ev[2][3];
    int pos[2];
};

static int mini_nranks(void *impl)
{
    (void)impl;
    return 2;
}

static double mini_start(void *impl)
{
    (void)impl;
    return 0;
}

static int mini_files(void *impl, const iolens_file **out, size_t *count)
{
    (void)impl;
    *out = NULL;
    *count = 0;
    return 0;
}

static int mini_next(void *impl, int rank, iolens_event *out)
{
    struct mini_src *m = impl;
    if (m->pos[rank] >= 3)
        return 0;
    *out = m->ev[rank][m->pos[rank]++];
    return 1;
}

static int mini_rewind(void *impl, int rank)
{
    struct mini_src *m = impl;
    m->pos[rank] = 0;
    return 0;
}

static void mini_free(void *impl)
{
    free(impl);
}

static void test_events(void **state)
{
    (void)state;
    static const iolens_evsource_ops ops = {IOLENS_EVSOURCE_OPS_VERSION, "mini", mini_nranks, mini_start,
                                            mini_files, mini_next, mini_rewind, mini_free};
    struct mini_src *m = calloc(1, sizeof *m);
    assert_non_null(m);
    const double MiB = 1048576.0;
    m->ev[0][0] = (iolens_event){.layer = IOLENS_LAYER_POSIX, .op = IOLENS_OP_WRITE, .tstart = 0.0, .tend = 1.0,
                                 .size = (int64_t)(2 * MiB), .ret = (int64_t)(2 * MiB)};
    m->ev[0][1] = (iolens_event){.layer = IOLENS_LAYER_POSIX, .op = IOLENS_OP_OPEN, .tstart = 1.0, .tend = 1.1};
    m->ev[0][2] = (iolens_event){.depth = 1, .layer = IOLENS_LAYER_POSIX, .op = IOLENS_OP_READ, .tstart = 2.0,
                                 .tend = 2.5, .size = (int64_t)MiB, .ret = (int64_t)MiB}; /* nested: skipped */
    m->ev[1][0] = (iolens_event){.rank = 1, .layer = IOLENS_LAYER_POSIX, .op = IOLENS_OP_READ, .tstart = 2.0,
                                 .tend = 2.5, .size = (int64_t)MiB, .ret = (int64_t)MiB};
    m->ev[1][1] = (iolens_event){.rank = 1, .layer = IOLENS_LAYER_MPIIO, .op = IOLENS_OP_WRITE, .tstart = 0.2,
                                 .tend = 0.4, .size = (int64_t)(8 * MiB), .ret = -1};
    m->ev[1][2] = (iolens_event){.rank = 1, .layer = IOLENS_LAYER_POSIX, .op = IOLENS_OP_WRITE, .flags = IOLENS_EVF_FAILED,
                                 .tstart = 0.2, .tend = 0.4, .size = 100, .ret = -1};
    iolens_evsource *src;
    assert_int_equal(iolens_evsource_new(&src, &ops, m), 0);
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    assert_int_equal(iolens_series_from_events(set, src, "job", IOLENS_LAYER_POSIX, 1.0), 0);
    assert_int_equal(iolens_series_from_events(set, src, "all", -1, 1.0), 0);
    assert_int_equal(iolens_series_set_count(set), 4);
    iolens_series r, w;
    iolens_series_set_get(set, 0, &r);
    iolens_series_set_get(set, 1, &w);
    assert_string_equal(r.id, "job:read");
    assert_string_equal(w.id, "job:write");
    assert_int_equal(r.n, 3);
    assert_int_equal(w.n, 3);
    NEAR(r.mibs[2], 1.0, 1e-12);
    NEAR(w.mibs[0], 2.0, 1e-12);
    NEAR(w.mibs[1], 0.0, 0); /* the write ends exactly at 1 s: bin 1 gets nothing */
    iolens_series_set_get(set, 3, &w);
    NEAR(w.mibs[0], 10.0, 1e-12); /* + the MPI-IO write (size used when ret < 0) */
    iolens_series_set_free(set);
    iolens_evsource_free(src);
}

/* -------------------------------------------------------------- metrics */

static void test_pld_hand(void **state)
{
    (void)state;
    /* 10 points, P = 10 phases of one point, l = 10 levels of width Amax/10 */
    double a[10] = {10, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    double b[10] = {10, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    NEAR(iolens_pld(b, a, 10, 10, 10), 0.0, 1e-12);
    double b2[10] = {20, 0, 0, 0, 0, 0, 0, 0, 0, 10}; /* levels 20 vs 10 and 10 vs 5 */
    NEAR(iolens_pld(b2, a, 10, 10, 10), 15.0 / 100, 1e-12);
    /* 20 points: phase means; a level is 1.0 wide (Amax = 10) */
    double c[20] = {0}, d[20] = {0};
    c[0] = 10;
    c[1] = 6;  /* phase 0 mean 8 -> level 8 */
    d[0] = 3;
    d[1] = 3;  /* phase 0 mean 3 -> level 3 */
    d[19] = 4; /* phase 9 mean 2 -> level 2 vs 0 */
    NEAR(iolens_pld(d, c, 20, 10, 10), (5.0 + 2.0) / 100, 1e-12);
    /* a B above the peak of A is penalised in proportion (levels are not capped) */
    double e[10] = {30, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    NEAR(iolens_pld(e, a, 10, 10, 10), 20.0 / 100, 1e-12);
    /* both all zero: 0 */
    double z[10] = {0};
    NEAR(iolens_pld(z, z, 10, 10, 10), 0.0, 0);
}

/* Seed Fig. 7: a slightly changed copy of A scores closer than A x 2, which
 * scores closer than A delayed by 30% of the duration, under PLD; SBD gives
 * the scaled copy 0. */
static void test_pld_fig7(void **state)
{
    (void)state;
    const double phase[10] = {130, 260, 510, 1000, 520, 250, 120, 60, 10, 0};
    double a[100], small[100], twice[100], delayed[100];
    for (int i = 0; i < 100; i++) {
        a[i] = phase[i / 10] * (1.0 + 0.1 * sin(i * 1.3)); /* not flat inside a phase */
        small[i] = a[i] * (1.0 + 0.04 * cos(i * 0.7));
        twice[i] = 2 * a[i];
    }
    for (int i = 0; i < 100; i++)
        delayed[i] = i < 30 ? 0 : a[i - 30];
    double p_small = iolens_pld(small, a, 100, 10, 10);
    double p_twice = iolens_pld(twice, a, 100, 10, 10);
    double p_delay = iolens_pld(delayed, a, 100, 10, 10);
    assert_true(p_small < p_twice);
    assert_true(p_twice < p_delay);
    assert_true(p_small <= 0.03);
    NEAR(iolens_sbd(twice, a, 100), 0.0, 1e-9);
    assert_true(iolens_sbd(small, a, 100) > 0);
}

static void test_sbd_hand(void **state)
{
    (void)state;
    double a[3] = {1, 2, 3}, b[3] = {3, 2, 1};
    /* cross-correlation at lags -2..2: 1, 4, 10, 12, 9; |a||b| = 14 */
    NEAR(iolens_sbd(a, b, 3), 1.0 - 12.0 / 14.0, 1e-12);
    double c[3] = {1, 0, 0}, d[3] = {0, 1, 0};
    NEAR(iolens_sbd(c, d, 3), 0.0, 1e-12); /* a pure shift */
    NEAR(iolens_sbd(a, a, 3), 0.0, 1e-12);
    double z[3] = {0, 0, 0};
    NEAR(iolens_sbd(a, z, 3), 1.0, 1e-12); /* norms product < 1e-9: NCC all zero */
}

static void test_dtw_hand(void **state)
{
    (void)state;
    double a[3] = {0, 1, 2}, b[4] = {0, 1, 1, 2};
    NEAR(iolens_dtw(a, 3, b, 4, -1), 0.0, 1e-12);
    double c[3] = {1, 2, 3};
    /* free warping: (0,0)=1,(1,0)=0,(2,1)=0,(2,2)=1 -> sqrt 2; band 0: diagonal -> sqrt 3 */
    NEAR(iolens_dtw(a, 3, c, 3, -1), sqrt(2.0), 1e-12);
    NEAR(iolens_dtw(a, 3, c, 3, 0), sqrt(3.0), 1e-12);
    /* derivative of a line is constant: DDTW of two parallel lines is 0 */
    double l1[4] = {0, 1, 2, 3}, l2[4] = {5, 6, 7, 8};
    NEAR(iolens_ddtw(l1, 4, l2, 4, 60), 0.0, 1e-12);
    /* [0,2,0] -> derivative [1,1,1] (endpoints copied); [0,0,0] -> [0,0,0]: sqrt 3 */
    double p[3] = {0, 2, 0}, f[3] = {0, 0, 0};
    NEAR(iolens_ddtw(p, 3, f, 3, 60), sqrt(3.0), 1e-12);
}

static void test_balance_ari(void **state)
{
    (void)state;
    size_t s1[2] = {5, 5}, s2[2] = {10, 0}, s3[3] = {1, 1, 2};
    NEAR(iolens_entropy_balance(s1, 2), 1.0, 1e-12);
    NEAR(iolens_entropy_balance(s2, 2), 0.0, 1e-12);
    NEAR(iolens_entropy_balance(s3, 3), -(0.5 * log(0.25) + 0.5 * log(0.5)) / log(3.0), 1e-12);
    int t[4] = {0, 0, 1, 1}, p[4] = {0, 0, 1, 2}, q[4] = {1, 1, 0, 0};
    NEAR(iolens_ari(t, p, 4), 4.0 / 7.0, 1e-12); /* scikit-learn's documented example: 0.57 */
    NEAR(iolens_ari(t, q, 4), 1.0, 1e-12);
    int u[6] = {0, 0, 0, 1, 1, 1}, v[6] = {0, 1, 2, 0, 1, 2};
    NEAR(iolens_ari(u, v, 6), -1.2 / 3.3, 1e-12); /* (0 - 6*3/15) / (4.5 - 1.2) */
}

static void test_aggregate(void **state)
{
    (void)state;
    iolens_cluster_metrics m[2] = {{1, 0.1, 0.1, 5, 0.5, 0.5, 1.0}, {2, 0.2, 0.2, 4, 0.4, 0.4, 0.5}};
    double norm[2 * IOLENS_METRIC_COUNT], score[2];
    iolens_cluster_aggregate(m, 2, norm, score);
    NEAR(score[0], 1.0, 1e-12);
    NEAR(score[1], 0.0, 1e-12);
    m[1].balance = 1.0; /* a tie gives 1 to both */
    m[1].inter_pld = NAN;
    iolens_cluster_aggregate(m, 2, norm, score);
    NEAR(norm[IOLENS_METRIC_COUNT + 6], 1.0, 0);
    NEAR(norm[IOLENS_METRIC_COUNT + 5], 0.0, 0);
    NEAR(norm[5], 1.0, 0);
}

/* ----------------------------------------------------- Kneedle, k-means */

static void test_kneedle(void **state)
{
    (void)state;
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8] = {100, 40, 20, 15, 12, 10, 9, 8};
    /* D = [0, .509, .584, .495, .385, ...]: max at x = 3, threshold .584 - 1/7, D(x=5) below it */
    assert_int_equal(iolens_kneedle(x, y, 8), 2);
    double x2[10] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, y2[10] = {1000, 600, 350, 200, 180, 165, 150, 140, 130, 120};
    assert_int_equal(iolens_kneedle(x2, y2, 10), 3); /* k = 5 */
    double lin[5] = {5, 4, 3, 2, 1}, xl[5] = {1, 2, 3, 4, 5};
    assert_int_equal(iolens_kneedle(xl, lin, 5), -1); /* a straight line has no knee */
}

static void test_kmeans_hand(void **state)
{
    (void)state;
    double X[6] = {0, 0.1, 0.2, 10, 10.1, 10.2}, C[2], C2[2], in, in2;
    int lab[6], lab2[6];
    assert_int_equal(iolens_kmeans(X, 6, 1, 2, 42, 1, C, lab, &in), 0);
    NEAR(in, 0.04, 1e-9);
    NEAR(fmin(C[0], C[1]), 0.1, 1e-12);
    NEAR(fmax(C[0], C[1]), 10.1, 1e-12);
    assert_int_equal(lab[0], lab[2]);
    assert_int_not_equal(lab[0], lab[3]);
    /* deterministic for a seed whatever the number of threads */
    double Y[400];
    for (int i = 0; i < 200; i++) {
        Y[2 * i] = (i % 4) * 3 + 0.01 * (i % 7);
        Y[2 * i + 1] = (i % 3) * 5 + 0.02 * (i % 5);
    }
    double D[24], D2[24];
    int l1[200], l2[200];
    assert_int_equal(iolens_kmeans(Y, 200, 2, 12, 7, 1, D, l1, &in), 0);
    assert_int_equal(iolens_kmeans(Y, 200, 2, 12, 7, 2, D2, l2, &in2), 0);
    assert_memory_equal(l1, l2, sizeof l1);
    assert_memory_equal(D, D2, sizeof D);
    NEAR(in, in2, 0);
    /* k-means++ spreads the two first centres: with k = 2 on two far blobs
     * every seed finds them */
    for (uint64_t seed = 0; seed < 20; seed++) {
        assert_int_equal(iolens_kmeans(X, 6, 1, 2, seed, 1, C2, lab2, &in2), 0);
        NEAR(in2, 0.04, 1e-9);
    }
    assert_true(iolens_kmeans(X, 6, 1, 7, 1, 1, C2, lab2, &in2) < 0); /* k > n */
}

/* ----------------------------------------------------- clustering runs */

static double ari_of(const iolens_clustering *c, const iolens_series_set *set)
{
    size_t n;
    const int *lab = iolens_clustering_labels(c, &n);
    int *truth = malloc(n * sizeof *truth);
    for (size_t i = 0; i < n; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        truth[i] = s.label;
    }
    double r = iolens_ari(lab, truth, n);
    free(truth);
    return r;
}

/* Thresholds (docs/cluster.md): on 300 synthetic traces of 10 classes
 * (5 shapes x 2 amplitude bands, lengths 100..600), SAGE and SAGE-2 reach an
 * ARI of about 0.5-0.6 with the default settings; random is ~0. We require 0.4. */
#define SAGE_MIN_ARI 0.4

static void test_sage_synthetic(void **state)
{
    (void)state;
    iolens_series_set *set, *filt;
    assert_int_equal(iolens_series_set_new(&set), 0);
    /* (a sanitizer build: 150 traces, its SAGE runs ten times slower than the release's) */
#ifdef __SANITIZE_ADDRESS__
    const size_t nsynth = 150;
#else
    const size_t nsynth = 300;
#endif
    assert_int_equal(iolens_series_synth(set, nsynth, 0, 11), 0);
    assert_int_equal(iolens_series_filter(&filt, set, NULL), 0);
    assert_int_equal(iolens_series_set_count(filt), nsynth);
    for (int method = IOLENS_CLUSTER_SAGE; method <= IOLENS_CLUSTER_SAGE2; method++) {
        iolens_cluster_opts o;
        iolens_cluster_opts_init(&o);
        o.method = method;
        o.seed = 5;
        iolens_clustering *c;
        assert_int_equal(iolens_cluster_run(&c, filt, &o), 0);
        double ari = ari_of(c, filt);
        printf("%s: k = %zu, ARI = %.3f, %zu symbols\n", iolens_cluster_method_name(method),
               iolens_clustering_k(c), ari, iolens_clustering_alphabet_size(c));
        assert_true(ari > SAGE_MIN_ARI);
        /* alphabet: Z1 last, zeros; levels by increasing bandwidth */
        size_t ns = iolens_clustering_alphabet_size(c), w;
        const double *cen;
        assert_string_equal(iolens_clustering_symbol(c, ns - 1, &cen, &w), "Z1");
        assert_int_equal(w, 5);
        NEAR(cen[0] + cen[4], 0, 0);
        const double *c1, *c2;
        assert_string_equal(iolens_clustering_symbol(c, 0, &c1, NULL), "A1");
        if (!strcmp(iolens_clustering_symbol(c, 1, &c2, NULL), "A2"))
            assert_true(c1[0] + c1[1] + c1[2] + c1[3] + c1[4] < c2[0] + c2[1] + c2[2] + c2[3] + c2[4]);
        /* no cluster under 5 traces; names */
        for (size_t q = 0; q < iolens_clustering_k(c); q++)
            assert_true(iolens_clustering_size(c, q) >= 5);
        if (method == IOLENS_CLUSTER_SAGE2)
            assert_true(!strncmp(iolens_clustering_name(c, 0), "α", strlen("α")));
        /* genome of a trace: ceil(n / 5) symbols */
        iolens_series s;
        iolens_series_set_get(filt, 0, &s);
        size_t gl;
        assert_non_null(iolens_clustering_genome(c, 0, &gl));
        assert_int_equal(gl, (s.n + 4) / 5);
        iolens_clustering_free(c);
    }
    /* deterministic for a seed, whatever the number of threads (a smaller
     * elbow range keeps this check cheap) */
    iolens_clustering *r1, *r2;
    iolens_cluster_opts o;
    iolens_cluster_opts_init(&o);
    o.method = IOLENS_CLUSTER_SAGE2;
    o.kmax = 8;
    o.seed = 77;
    o.threads = 1;
    assert_int_equal(iolens_cluster_run(&r1, filt, &o), 0);
    o.threads = 2;
    assert_int_equal(iolens_cluster_run(&r2, filt, &o), 0);
    size_t n;
    const int *l1 = iolens_clustering_labels(r1, &n), *l2 = iolens_clustering_labels(r2, NULL);
    assert_memory_equal(l1, l2, n * sizeof *l1);
    assert_int_equal(iolens_clustering_k(r1), iolens_clustering_k(r2));
    iolens_clustering_free(r1);
    iolens_clustering_free(r2);
    /* random is near 0 */
    o.method = IOLENS_CLUSTER_RANDOM;
    o.k = 10;
    iolens_clustering *c;
    assert_int_equal(iolens_cluster_run(&c, filt, &o), 0);
    double ari = ari_of(c, filt);
    printf("random: k = %zu, ARI = %.3f\n", iolens_clustering_k(c), ari);
    assert_true(fabs(ari) < 0.1);
    iolens_clustering_free(c);
    iolens_series_set_free(filt);
    iolens_series_set_free(set);
}

static void test_kshape_dtw_small(void **state)
{
    (void)state;
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    assert_int_equal(iolens_series_synth(set, 60, 120, 3), 0);
    for (int method = IOLENS_CLUSTER_KSHAPE; method <= IOLENS_CLUSTER_DTW; method++) {
        iolens_cluster_opts o;
        iolens_cluster_opts_init(&o);
        o.method = method;
        o.k = 5;
        o.resample_len = 60;
        iolens_clustering *c;
        assert_int_equal(iolens_cluster_run(&c, set, &o), 0);
        double ari = ari_of(c, set);
        printf("%s: k = %zu, ARI = %.3f\n", iolens_cluster_method_name(method), iolens_clustering_k(c), ari);
        assert_true(iolens_clustering_k(c) >= 1 && iolens_clustering_k(c) <= 5);
        assert_true(ari > 0.05);
        iolens_cluster_metrics m;
        assert_int_equal(iolens_cluster_metrics_compute(&m, c, set, 0, 2), 0);
        assert_true(m.intra_sbd >= 0 && m.intra_sbd <= 2);
        iolens_clustering_free(c);
    }
    iolens_series_set_free(set);
}

/* A file is read in 1 MiB windows as it is parsed: records, quoted ids ("" and commas inside)
 * and CRLF line ends that straddle a window give what the whole text in memory gives. */
static void test_read_file_windows(void **state)
{
    (void)state;
    char path[] = "/tmp/iolens-series-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w+");
    assert_non_null(f);
    fputs("id,label", f);
    for (int j = 0; j < 40; j++)
        fprintf(f, ",v%d", j);
    fputs("\r\n", f);
    for (int i = 0; i < 9000; i++) { /* about 2.4 MB */
        fprintf(f, "\"job \"\"%d\"\", a,b\",%d", i, i % 7);
        for (int j = 0; j < 40; j++)
            fprintf(f, ",%d.%03d", (i + j) % 97, (i * 31 + j) % 1000);
        fputs(i % 3 ? "\r\n" : "\n", f);
    }
    fflush(f);
    long size = ftell(f);
    assert_true(size > 2 * (1 << 20)); /* three windows */
    char *text = malloc((size_t)size);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    iolens_series_set *a, *b;
    assert_int_equal(iolens_series_set_new(&a), 0);
    assert_int_equal(iolens_series_set_new(&b), 0);
    assert_int_equal(iolens_series_read_file(a, path, NULL), 0);
    assert_int_equal(iolens_series_parse(b, text, (size_t)size, path, NULL), 0);
    assert_int_equal(iolens_series_set_count(a), 9000);
    assert_int_equal(iolens_series_set_count(b), 9000);
    for (size_t i = 0; i < 9000; i++) {
        iolens_series x, y;
        iolens_series_set_get(a, i, &x);
        iolens_series_set_get(b, i, &y);
        assert_string_equal(x.id, y.id);
        assert_int_equal(x.label, y.label);
        assert_int_equal(x.n, y.n);
        assert_memory_equal(x.mibs, y.mibs, x.n * sizeof *x.mibs);
    }
    iolens_series s;
    iolens_series_set_get(a, 4321, &s);
    assert_string_equal(s.id, "job \"4321\", a,b");
    assert_int_equal(s.n, 40);
    iolens_series_set_free(a);
    iolens_series_set_free(b);
    free(text);
    unlink(path);
}

/* ------------------------------------------------------------ real data */

static void test_real_heatmap(void **state)
{
    (void)state;
    const char *root = getenv("IOLENS_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/timeseries/heatmap_job.csv", root ? root : "../shared/data");
    if (access(path, R_OK) != 0) {
        printf("skip: %s missing\n", path);
        skip();
    }
    iolens_series_set *set, *filt;
    assert_int_equal(iolens_series_set_new(&set), 0);
    assert_int_equal(iolens_series_read_file(set, path, NULL), 0);
    /* 95 (log, module) records x read/write */
    assert_int_equal(iolens_series_set_count(set), 190);
    iolens_series s;
    iolens_series_set_get(set, 0, &s);
    assert_true(strstr(s.id, "dlio_logs/snyder_python3_id3116902-2110365") == s.id);
    assert_true(strstr(s.id, ":POSIX:read") != NULL);
    NEAR(s.step_s, 0.8, 1e-12);
    assert_int_equal(s.n, 174);
    NEAR(s.mibs[0], 7027.0 / 0.8 / 1048576.0, 1e-12); /* first row of the file */
    /* E3SM: 114 bins of 6.4 s */
    int found = 0;
    for (size_t i = 0; i < iolens_series_set_count(set); i++) {
        iolens_series_set_get(set, i, &s);
        if (strstr(s.id, "e3sm_io_heatmap_only.darshan:POSIX:write")) {
            found = 1;
            assert_int_equal(s.n, 114);
            NEAR(s.step_s, 6.4, 1e-12);
        }
    }
    assert_true(found);
    assert_int_equal(iolens_series_filter(&filt, set, NULL), 0);
    assert_true(iolens_series_set_count(filt) >= 10);
    iolens_cluster_opts o;
    iolens_cluster_opts_init(&o);
    o.method = IOLENS_CLUSTER_SAGE2;
    iolens_clustering *c;
    assert_int_equal(iolens_cluster_run(&c, filt, &o), 0);
    assert_true(iolens_clustering_k(c) >= 1);
    iolens_cluster_metrics m;
    assert_int_equal(iolens_cluster_metrics_compute(&m, c, filt, 0, 2), 0);
    assert_true(m.intra_pld >= 0 && m.intra_pld <= 1);
    /* output files, the centroids contract with the placement tool */
    char dir[] = "/tmp/iolens-temporal-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(iolens_clustering_write(c, filt, dir), 0);
    snprintf(path, sizeof path, "%s/centroids.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "cluster,step_seconds=0.8\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(!strncmp(line, "0,", 2));
    fclose(f);
    const char *files[] = {"assignments.csv", "centroids.csv", "clusters.csv", "alphabet.csv", "centroids.svg"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        assert_int_equal(access(path, R_OK), 0);
        unlink(path);
    }
    rmdir(dir);
    iolens_clustering_free(c);
    iolens_series_set_free(filt);
    iolens_series_set_free(set);
}

/* Every shared Darshan log with HEATMAP records gives series; those of the logs
 * covered by heatmap_job.csv equal the CSV's (ids, step, bytes per bin). */
static const iolens_series *find_series(const iolens_series_set *set, const char *id, iolens_series *buf)
{
    for (size_t i = 0; i < iolens_series_set_count(set); i++) {
        iolens_series_set_get(set, i, buf);
        if (!strcmp(buf->id, id))
            return buf;
    }
    return NULL;
}

static size_t count_prefix(const iolens_series_set *set, const char *log)
{
    size_t n = 0, len = strlen(log);
    iolens_series s;
    for (size_t i = 0; i < iolens_series_set_count(set); i++) {
        iolens_series_set_get(set, i, &s);
        if (!strncmp(s.id, log, len) && s.id[len] == ':')
            n++;
    }
    return n;
}

static void test_darshan_logs(void **state)
{
    (void)state;
    const char *root = getenv("IOLENS_SHARED_DATA");
    char path[4096], line[8192];
    if (!root)
        root = "../shared/data";
    snprintf(path, sizeof path, "%s/darshan/INDEX.tsv", root);
    FILE *idx = fopen(path, "r");
    snprintf(path, sizeof path, "%s/timeseries/heatmap_job.csv", root);
    if (!idx || access(path, R_OK) != 0) {
        if (idx)
            fclose(idx);
        printf("skip: shared Darshan logs or heatmap_job.csv missing\n");
        skip();
    }
    iolens_series_set *csv;
    assert_int_equal(iolens_series_set_new(&csv), 0);
    assert_int_equal(iolens_series_read_file(csv, path, NULL), 0);
    size_t nheat = 0, ncovered = 0, nseries = 0;
    assert_non_null(fgets(line, sizeof line, idx)); /* header */
    while (fgets(line, sizeof line, idx)) {
        char *file = strtok(line, "\t"), *col = NULL;
        for (int k = 1; k < 7; k++)
            col = strtok(NULL, "\t");
        assert_non_null(col); /* modules(name:ver) */
        if (!strstr(col, "HEATMAP:"))
            continue;
        nheat++;
        snprintf(path, sizeof path, "%s/darshan/%s", root, file);
        iolens_series_set *set;
        assert_int_equal(iolens_series_set_new(&set), 0);
        int src = -1;
        int n = iolens_series_from_darshan(set, path, NULL, 1.0, &src, NULL, NULL);
        if (n <= 0)
            printf("%s: %d\n", path, n);
        assert_true(n > 0 && n % 2 == 0);
        assert_int_equal(src, IOLENS_DSERIES_HEATMAP);
        assert_int_equal((size_t)n, iolens_series_set_count(set));
        nseries += (size_t)n;
        char log[1024];
        assert_int_equal(iolens_series_darshan_log_name(path, log, sizeof log), 0);
        size_t in_csv = count_prefix(csv, log);
        if (in_csv) {
            ncovered++;
            assert_int_equal(in_csv, (size_t)n);
            for (size_t i = 0; i < (size_t)n; i++) {
                iolens_series s, t;
                iolens_series_set_get(set, i, &s);
                const iolens_series *c = find_series(csv, s.id, &t);
                if (!c)
                    printf("not in heatmap_job.csv: %s\n", s.id);
                assert_non_null(c);
                assert_int_equal(s.direction, c->direction);
                NEAR(s.step_s, c->step_s, 1e-9);
                assert_int_equal(s.n, c->n);
                for (size_t j = 0; j < s.n; j++) /* bytes per bin */
                    NEAR(s.mibs[j] * s.step_s * 1048576.0, c->mibs[j] * c->step_s * 1048576.0, 1e-3);
            }
        }
        iolens_series_set_free(set);
    }
    fclose(idx);
    printf("darshan: %zu logs with HEATMAP, %zu series, %zu logs compared with heatmap_job.csv\n", nheat, nseries,
           ncovered);
    assert_true(nheat >= 20);
    assert_true(ncovered >= 20);
    iolens_series_set_free(csv);
}

/* A log without HEATMAP: DXT segments binned at the step; every byte lands in a bin. */
static void test_darshan_dxt(void **state)
{
    (void)state;
    const char *root = getenv("IOLENS_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path,
             "%s/darshan/public/hdf5_diagonal_write_only__hdf5_diagonal_write_bytes_range_dxt.darshan",
             root ? root : "../shared/data");
    if (access(path, R_OK) != 0) {
        printf("skip: %s missing\n", path);
        skip();
    }
    iolens_darshan_data *d;
    assert_int_equal(iolens_darshan_load(path, 0, NULL, NULL, &d), 0);
    double want[2] = {0, 0}, tmax = 0; /* read, write bytes of DXT_POSIX */
    for (size_t i = 0; i < iolens_darshan_data_count(d, IOLENS_DARSHAN_DXT_POSIX); i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_DXT_POSIX, i);
        for (int64_t k = 0; k < r->dxt.write_count + r->dxt.read_count; k++) {
            want[k < r->dxt.write_count] += (double)r->dxt.segs[k].length;
            if (r->dxt.segs[k].end > tmax)
                tmax = r->dxt.segs[k].end;
        }
    }
    iolens_darshan_data_free(d);
    assert_true(want[1] > 0);
    iolens_series_set *set;
    assert_int_equal(iolens_series_set_new(&set), 0);
    int src = -1;
    assert_int_equal(iolens_series_from_darshan(set, path, "diag", 0.01, &src, NULL, NULL), 2);
    assert_int_equal(src, IOLENS_DSERIES_DXT);
    for (size_t i = 0; i < 2; i++) {
        iolens_series s;
        iolens_series_set_get(set, i, &s);
        assert_string_equal(s.id, i ? "diag:POSIX:write" : "diag:POSIX:read");
        NEAR(s.step_s, 0.01, 1e-15);
        assert_int_equal(s.n, (size_t)floor(tmax / 0.01) + 1);
        double sum = 0;
        for (size_t j = 0; j < s.n; j++)
            sum += s.mibs[j] * 0.01 * 1048576.0;
        NEAR(sum, want[i], 1e-6 * (want[i] + 1));
    }
    /* not a Darshan log: an error, the set unchanged */
    snprintf(path, sizeof path, "%s/timeseries/heatmap_job.csv", root ? root : "../shared/data");
    assert_true(iolens_series_from_darshan(set, path, NULL, 1.0, &src, NULL, NULL) < 0);
    assert_int_equal(iolens_series_set_count(set), 2);
    char name[64];
    assert_int_equal(iolens_series_darshan_log_name("/x/dlio_logs__a__b.darshan", name, sizeof name), 0);
    assert_string_equal(name, "dlio_logs/a__b.darshan");
    assert_int_equal(iolens_series_darshan_log_name("plain.darshan", name, sizeof name), 0);
    assert_string_equal(name, "plain.darshan");
    iolens_series_set_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_wide),     cmocka_unit_test(test_read_long),
        cmocka_unit_test(test_read_heatmap),  cmocka_unit_test(test_read_hostile),
        cmocka_unit_test(test_filter),        cmocka_unit_test(test_transfers),
        cmocka_unit_test(test_events),        cmocka_unit_test(test_pld_hand),
        cmocka_unit_test(test_pld_fig7),      cmocka_unit_test(test_sbd_hand),
        cmocka_unit_test(test_dtw_hand),      cmocka_unit_test(test_balance_ari),
        cmocka_unit_test(test_aggregate),     cmocka_unit_test(test_kneedle),
        cmocka_unit_test(test_kmeans_hand),   cmocka_unit_test(test_sage_synthetic),
        cmocka_unit_test(test_kshape_dtw_small), cmocka_unit_test(test_read_file_windows),
        cmocka_unit_test(test_real_heatmap), cmocka_unit_test(test_darshan_logs), cmocka_unit_test(test_darshan_dxt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
