/* XGBoost models: the shipped models/ reproduce from iolens_detect_train, SHAP adds up,
 * gate / rules / cards, scores, folds and bootstrap. */
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

#include "iolens/detect.h"

#define NL IOLENS_DETECT_NLABELS
#define NF IOLENS_DETECT_NFEATURES

static char path_buf[4096];

static const char *shared(const char *rel)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    snprintf(path_buf, sizeof path_buf, "%s/%s", root ? root : "../shared/data", rel);
    return path_buf;
}

static const char *models_dir(void)
{
    static char buf[4096];
    const char *src = getenv("IOLENS_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/models", src ? src : ".");
    return buf;
}

struct dev {
    iolens_detect_table *t;
    unsigned char *y;
    double *x, *w;
    size_t n;
};

static void load_dev(struct dev *d)
{
    assert_int_equal(iolens_detect_table_read(&d->t, shared("iosage/dev_features.csv")), 0);
    d->n = iolens_detect_table_rows(d->t);
    assert_int_equal(iolens_detect_labels_read(&d->y, d->n, shared("iosage/dev_labels.csv")), 0);
    d->x = malloc(d->n * NF * sizeof *d->x);
    d->w = malloc(d->n * sizeof *d->w);
    for (size_t i = 0; i < d->n; i++) {
        memcpy(d->x + i * NF, iolens_detect_table_row(d->t, i), NF * sizeof *d->x);
        d->w[i] = 100.0;
    }
}

static void free_dev(struct dev *d)
{
    iolens_detect_table_free(d->t);
    free(d->y);
    free(d->x);
    free(d->w);
}

/* Training is deterministic for a seed (two trainings predict exactly alike; that the shipped
 * models/ are what `iolens train` writes, byte for byte, is checked by
 * test_detect_cli.sh), saving and loading keeps the predictions, SHAP adds up. */
static void test_retrain_reproduces_shipped(void **state)
{
    (void)state;
    struct dev d = {0};
    load_dev(&d);
    iolens_detect_model *shipped = NULL, *again = NULL, *reloaded = NULL;
    iolens_detect_params p;
    iolens_detect_params_default(&p);
    iolens_detect_trainset ts = {d.n, d.x, d.y, d.w};
    iolens_detect_model *disk = NULL; /* the shipped folder loads */
    assert_int_equal(iolens_detect_model_load(&disk, models_dir()), 0);
    iolens_detect_model_free(disk);
    assert_int_equal(iolens_detect_train(&shipped, &ts, &p), 0); /* the first training */
    assert_int_equal(iolens_detect_train(&again, &ts, &p), 0);

    double *a = malloc(d.n * NL * sizeof *a), *b = malloc(d.n * NL * sizeof *b), *c = malloc(d.n * NL * sizeof *c);
    assert_int_equal(iolens_detect_predict(shipped, d.x, d.n, a), 0);
    assert_int_equal(iolens_detect_predict(again, d.x, d.n, b), 0);
    for (size_t i = 0; i < d.n * NL; i++)
        if (a[i] != b[i])
            fail_msg("row %zu label %zu: first %.9g, retrained %.9g", i / NL, i % NL, a[i], b[i]);

    /* card key counters: five per label, the same after training and after loading */
    for (int l = 0; l < NL; l++) {
        iolens_detect_key_feature k1[IOLENS_DETECT_NKEY], k2[IOLENS_DETECT_NKEY];
        assert_int_equal(iolens_detect_model_key_features(shipped, l, k1, IOLENS_DETECT_NKEY), IOLENS_DETECT_NKEY);
        assert_int_equal(iolens_detect_model_key_features(again, l, k2, IOLENS_DETECT_NKEY), IOLENS_DETECT_NKEY);
        for (int k = 0; k < IOLENS_DETECT_NKEY; k++) {
            assert_int_equal(k1[k].feature, k2[k].feature);
            assert_true(fabs(k1[k].median_with_label - k2[k].median_with_label) <= 1e-9 * fmax(1, fabs(k2[k].median_with_label)));
            assert_true(k1[k].mean_abs_shap > 0);
            if (k > 0)
                assert_true(k1[k].mean_abs_shap <= k1[k - 1].mean_abs_shap + 1e-9);
        }
    }

    /* save + load round trip */
    char dir[] = "/tmp/iolens-test-models-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(iolens_detect_model_save(again, dir, "test"), 0);
    assert_int_equal(iolens_detect_model_load(&reloaded, dir), 0);
    assert_int_equal(iolens_detect_predict(reloaded, d.x, d.n, c), 0);
    for (size_t i = 0; i < d.n * NL; i++)
        assert_true(a[i] == c[i]);
    char f[4200];
    for (int l = 0; l < NL; l++) {
        snprintf(f, sizeof f, "%s/%s.ubj", dir, iolens_detect_label_name(l));
        unlink(f);
    }
    snprintf(f, sizeof f, "%s/meta.json", dir);
    unlink(f);
    rmdir(dir);

    /* SHAP contributions add up to the log-odds of the probability */
    double shap[NF + 1];
    for (int l = 0; l < NL; l++) {
        assert_int_equal(iolens_detect_contribs(shipped, d.x, l, shap), 0);
        double sum = 0;
        for (int i = 0; i <= NF; i++)
            sum += shap[i];
        double prob = 1.0 / (1.0 + exp(-sum));
        assert_true(fabs(prob - a[l]) < 1e-4);
    }
    assert_int_equal(iolens_detect_contribs(shipped, d.x, NL, shap), IOLENS_EINVAL);

    /* hostile values: infinities and values beyond the float range still predict */
    double odd[NF];
    for (int i = 0; i < NF; i++)
        odd[i] = (i % 3 == 0) ? INFINITY : (i % 3 == 1) ? -1e300 : NAN;
    assert_int_equal(iolens_detect_predict(shipped, odd, 1, c), 0);
    for (int l = 0; l < NL; l++)
        assert_true(c[l] >= 0.0 && c[l] <= 1.0);

    free(a);
    free(b);
    free(c);
    iolens_detect_model_free(shipped);
    iolens_detect_model_free(again);
    iolens_detect_model_free(reloaded);
    iolens_detect_model_free(NULL);
    free_dev(&d);
}

static void test_model_load_errors(void **state)
{
    (void)state;
    iolens_detect_model *m = NULL;
    assert_int_equal(iolens_detect_model_load(&m, "/nonexistent"), IOLENS_ENOTFOUND);
    assert_null(m);
    assert_non_null(strstr(iolens_error_last(), "models in '/nonexistent'"));
}

static void test_gate_rules_cards(void **state)
{
    (void)state;
    double probs[NL] = {0.9, 0.29, 0.3, 0, 0, 0, 0.31, 0.5};
    assert_int_equal(iolens_detect_gate(probs, 0.3), (1u << 0) | (1u << 2) | (1u << 6));
    double x[NF] = {0};
    char codes[64];
    assert_int_equal(iolens_detect_rules(x, codes, sizeof codes), 0);
    assert_string_equal(codes, "");
    x[iolens_detect_feature_index("nprocs")] = 4;
    x[iolens_detect_feature_index("POSIX_WRITES")] = 5000;
    x[iolens_detect_feature_index("POSIX_SIZE_WRITE_0_100")] = 5000;
    x[iolens_detect_feature_index("POSIX_SEQ_WRITES")] = 5000;
    x[iolens_detect_feature_index("is_shared_file")] = 1;
    x[iolens_detect_feature_index("POSIX_F_META_TIME")] = 31;
    x[iolens_detect_feature_index("MPIIO_INDEP_WRITES")] = 2000;
    assert_int_equal(iolens_detect_rules(x, codes, sizeof codes), (1u << 0) | (1u << 1) | (1u << 4) | (1u << 5));
    assert_string_equal(codes, "P06,P16,P17,M03");
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        const iolens_detect_card *c = iolens_detect_card_get(p);
        assert_non_null(c);
        assert_string_equal(c->pattern, iolens_detect_label_name(p));
        assert_true(strlen(c->change) > 10 && strlen(c->not_applicable) > 10);
    }
    assert_null(iolens_detect_card_get(7));
}

static void test_scores_folds_bootstrap(void **state)
{
    (void)state;
    /* 4 rows: two perfect, one with a false positive, one with a missed label */
    unsigned char truth[4 * NL] = {0}, pred[4 * NL] = {0};
    truth[0 * NL + 0] = pred[0 * NL + 0] = 1;
    truth[1 * NL + 7] = pred[1 * NL + 7] = 1;
    truth[2 * NL + 1] = pred[2 * NL + 1] = 1;
    pred[2 * NL + 3] = 1;
    truth[3 * NL + 2] = 1;
    truth[3 * NL + 6] = pred[3 * NL + 6] = 1;
    iolens_detect_scores s;
    iolens_detect_score(&s, truth, pred, NULL, 4);
    /* TP 4, FP 1, FN 1 */
    assert_true(fabs(s.micro_f1 - 8.0 / 10.0) < 1e-12);
    assert_true(fabs(s.hamming - 2.0 / 32.0) < 1e-12);
    assert_true(fabs(s.subset - 0.5) < 1e-12);
    assert_true(s.precision[3] == 0.0 && s.recall[2] == 0.0 && s.f1[0] == 1.0);

    struct dev d = {0};
    load_dev(&d);
    int *fold = malloc(d.n * sizeof *fold), *fold2 = malloc(d.n * sizeof *fold2);
    assert_int_equal(iolens_detect_folds(fold, d.y, d.n, NULL, 5, 42), 0);
    assert_int_equal(iolens_detect_folds(fold2, d.y, d.n, NULL, 5, 42), 0);
    size_t count[5] = {0};
    for (size_t i = 0; i < d.n; i++) {
        assert_true(fold[i] >= 0 && fold[i] < 5);
        assert_int_equal(fold[i], fold2[i]);
        count[fold[i]]++;
    }
    for (int f = 0; f < 5; f++)
        assert_true(count[f] >= 38 && count[f] <= 43);
    /* grouped: pairs of rows share a group and therefore a fold */
    int *group = malloc(d.n * sizeof *group);
    for (size_t i = 0; i < d.n; i++)
        group[i] = (int)(i / 2);
    assert_int_equal(iolens_detect_folds(fold2, d.y, d.n, group, 5, 7), 0);
    for (size_t i = 0; i + 1 < d.n; i += 2)
        assert_int_equal(fold2[i], fold2[i + 1]);
    assert_int_equal(iolens_detect_folds(fold2, d.y, d.n, NULL, 1, 7), IOLENS_EINVAL);

    /* baselines and a bootstrap on the majority baseline */
    iolens_detect_trainset ts = {d.n, d.x, d.y, d.w};
    unsigned char *maj = calloc(d.n * NL, 1), *p90 = calloc(d.n * NL, 1);
    assert_int_equal(iolens_detect_baseline_majority(maj, &ts, fold, 5), 0);
    assert_int_equal(iolens_detect_baseline_p90(p90, &ts, fold, 5), 0);
    iolens_detect_score(&s, d.y, p90, NULL, d.n);
    assert_true(s.micro_f1 > 0.1 && s.micro_f1 < 0.5);
    iolens_detect_scores lo, hi;
    assert_int_equal(iolens_detect_bootstrap(&lo, &hi, d.y, p90, d.n, 200, 1), 0);
    assert_true(lo.micro_f1 <= s.micro_f1 && s.micro_f1 <= hi.micro_f1);
    assert_true(lo.micro_f1 < hi.micro_f1);
    free(maj);
    free(p90);
    free(group);
    free(fold);
    free(fold2);
    free_dev(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retrain_reproduces_shipped),
        cmocka_unit_test(test_model_load_errors),
        cmocka_unit_test(test_gate_rules_cards),
        cmocka_unit_test(test_scores_folds_bootstrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
