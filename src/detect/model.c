/*
 * The eight label models (seven patterns + healthy) through the XGBoost C API:
 * binary:logistic, hist, the seed's hyper-parameters, a per-label
 * scale_pos_weight = min(neg/pos, 100) and per-row (biquality) weights.
 * Saved as <label>.ubj plus meta.json (feature order, labels, parameters).
 */
#include "detect/detect_internal.h"

#include <dlfcn.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/buf.h"
#include "util/stats.h"
#include <errno.h>
#include <sys/stat.h>
#include <xgboost/c_api.h>

#include "util/error.h"
#include "util/share.h"
#include "util/jsonw.h"

struct iolens_detect_model {
    BoosterHandle booster[IOLENS_DETECT_NLABELS];
    iolens_detect_params params;
    double scale_pos_weight[IOLENS_DETECT_NLABELS];
    size_t train_rows;
    double train_weight;
    /* card key counters: the features with the largest mean |SHAP| over the training rows,
     * with their median over the training rows that carry the label */
    int nkey[IOLENS_DETECT_NLABELS];
    iolens_detect_key_feature key[IOLENS_DETECT_NLABELS][IOLENS_DETECT_NKEY];
};

static int compute_key_features(iolens_detect_model *m, int l, DMatrixHandle dm, const iolens_detect_trainset *ts);

static int xgb_fail(const char *what)
{
    return iol_err(IOLENS_EDEPEND, "xgboost: %s: %s", what, XGBGetLastError());
}

void iolens_detect_params_default(iolens_detect_params *p)
{
    p->n_trees = 500;
    p->max_depth = 6;
    p->eta = 0.05;
    p->subsample = 0.8;
    p->colsample = 0.8;
    p->alpha = 0.1;
    p->lambda = 1.0;
    p->min_child_weight = 5;
    p->gamma = 0.1;
    p->max_pos_weight = 100;
    p->seed = 42;
    p->nthread = 1;
    p->progress = NULL;
    p->progress_ctx = NULL;
}

/* Found at run time (util/share.h), never compiled in: an installed iolens reads
 * <prefix>/share/iolens, a build tree the links CMake makes in <build>/share/iolens. */
static char models_dir[4096], data_dir[4096], training_dir[4096];
static pthread_once_t dirs_once = PTHREAD_ONCE_INIT;

static void find_dirs(void)
{
    iol_share_path(models_dir, sizeof models_dir, "models");
    iol_share_path(training_dir, sizeof training_dir, "data");
    const char *env = getenv("IOLENS_SHARED_DATA");
    if (env && *env)
        snprintf(data_dir, sizeof data_dir, "%s", env);
    else
        iol_share_path(data_dir, sizeof data_dir, "shared-data");
}

const char *iolens_detect_default_models_dir(void)
{
    pthread_once(&dirs_once, find_dirs);
    return models_dir;
}

const char *iolens_detect_default_data_dir(void)
{
    pthread_once(&dirs_once, find_dirs);
    return data_dir;
}

const char *iolens_detect_default_training_dir(void)
{
    pthread_once(&dirs_once, find_dirs);
    return training_dir;
}

static float *to_float(const double *x, size_t n)
{
    float *f = malloc((n ? n : 1) * IOLENS_DETECT_NFEATURES * sizeof *f);
    if (!f)
        return NULL;
    /* XGBoost rejects infinities: clamp to the float range (NaN stays "missing") */
    for (size_t i = 0; i < n * IOLENS_DETECT_NFEATURES; i++)
        f[i] = x[i] > FLT_MAX ? FLT_MAX : x[i] < -FLT_MAX ? -FLT_MAX : (float)x[i];
    return f;
}

/* XGBoost reads a model's trees in an OpenMP loop over every core (its nthread parameter does
 * not reach it): the team's threads then spin on the other cores for milliseconds after each of
 * the eight models, a third more CPU than the load itself (and taken from whatever runs beside
 * a detect). omp_one_thread(1) makes this thread's next regions single-threaded and returns what
 * to restore: omp_one_thread(-that) puts it back. OpenMP's functions are looked up in the process
 * (libgomp comes with libxgboost), so nothing links them; without them both calls do nothing. */
static int omp_one_thread(int set)
{
    int (*get)(void);
    void (*put)(int);
    *(void **)&get = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    *(void **)&put = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (!get || !put)
        return 0;
    if (set > 0) {
        int was = get();
        put(1);
        return was;
    }
    if (set < 0)
        put(-set);
    return 0;
}

static int dmatrix(DMatrixHandle *dm, const double *x, size_t n)
{
    float *f = to_float(x, n);
    if (!f)
        return iol_err(IOLENS_ENOMEM, "out of memory converting %zu feature rows", n);
    int rc = 0;
    /* one thread: a matrix of a few rows built by OpenMP's team left its threads spinning on
     * the other cores after it (a quarter of a detect's time, and the CPU of whatever ran
     * beside it) */
    if (XGDMatrixCreateFromMat_omp(f, n, IOLENS_DETECT_NFEATURES, NAN, dm, 1) != 0)
        rc = xgb_fail("creating a feature matrix");
    free(f);
    return rc;
}

static int set_param(BoosterHandle b, const char *k, double v)
{
    char val[64];
    snprintf(val, sizeof val, "%.17g", v);
    if (XGBoosterSetParam(b, k, val) != 0)
        return xgb_fail(k);
    return 0;
}

static int set_params(BoosterHandle b, const iolens_detect_params *p, double spw)
{
    int rc = 0;
    if (XGBoosterSetParam(b, "objective", "binary:logistic") || XGBoosterSetParam(b, "tree_method", "hist") ||
        XGBoosterSetParam(b, "eval_metric", "logloss") || XGBoosterSetParam(b, "verbosity", "0"))
        return xgb_fail("setting parameters");
    if ((rc = set_param(b, "max_depth", p->max_depth)) < 0 || (rc = set_param(b, "eta", p->eta)) < 0 ||
        (rc = set_param(b, "subsample", p->subsample)) < 0 ||
        (rc = set_param(b, "colsample_bytree", p->colsample)) < 0 ||
        (rc = set_param(b, "alpha", p->alpha)) < 0 || (rc = set_param(b, "lambda", p->lambda)) < 0 ||
        (rc = set_param(b, "min_child_weight", p->min_child_weight)) < 0 ||
        (rc = set_param(b, "gamma", p->gamma)) < 0 ||
        (rc = set_param(b, "scale_pos_weight", spw)) < 0 ||
        (rc = set_param(b, "seed", (double)(p->seed & 0x7fffffff))) < 0 ||
        (rc = set_param(b, "nthread", p->nthread > 0 ? p->nthread : 1)) < 0)
        return rc;
    return 0;
}

void iolens_detect_model_free(iolens_detect_model *m)
{
    if (!m)
        return;
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++)
        if (m->booster[l])
            XGBoosterFree(m->booster[l]);
    free(m);
}

int iolens_detect_train(iolens_detect_model **out, const iolens_detect_trainset *ts, const iolens_detect_params *p)
{
    if (!out || !ts || !p || !ts->x || !ts->y || ts->n == 0)
        return iol_err(IOLENS_EINVAL, "no training rows");
    if (p->n_trees < 1 || p->n_trees > 100000 || p->max_depth < 1 || p->max_depth > 30)
        return iol_err(IOLENS_EINVAL, "training parameters out of range (trees %d, depth %d)", p->n_trees,
                       p->max_depth);
    *out = NULL;
    int rc = 0;
    DMatrixHandle dm = NULL;
    float *label = NULL, *weight = NULL;
    iolens_detect_model *m = calloc(1, sizeof *m);
    if (!m)
        return iol_err(IOLENS_ENOMEM, "out of memory allocating models");
    m->params = *p;
    m->train_rows = ts->n;
    label = malloc(ts->n * sizeof *label);
    weight = malloc(ts->n * sizeof *weight);
    if (!label || !weight) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory allocating labels");
        goto out;
    }
    for (size_t i = 0; i < ts->n; i++) {
        weight[i] = ts->w ? (float)ts->w[i] : 1.0f;
        m->train_weight += weight[i];
    }
    if ((rc = dmatrix(&dm, ts->x, ts->n)) < 0)
        goto out;
    if (XGDMatrixSetFloatInfo(dm, "weight", weight, ts->n) != 0) {
        rc = xgb_fail("setting weights");
        goto out;
    }
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        double pos = 0, neg = 0;
        for (size_t i = 0; i < ts->n; i++) {
            label[i] = (float)ts->y[i * IOLENS_DETECT_NLABELS + l];
            if (label[i] > 0.5f)
                pos++;
            else
                neg++;
        }
        double spw = pos > 0 ? neg / pos : 1.0;
        if (spw > p->max_pos_weight)
            spw = p->max_pos_weight;
        m->scale_pos_weight[l] = spw;
        if (XGDMatrixSetFloatInfo(dm, "label", label, ts->n) != 0) {
            rc = xgb_fail("setting labels");
            goto out;
        }
        if (XGBoosterCreate(&dm, 1, &m->booster[l]) != 0) {
            rc = xgb_fail("creating a booster");
            goto out;
        }
        if ((rc = set_params(m->booster[l], p, spw)) < 0)
            goto out;
        for (int it = 0; it < p->n_trees; it++)
            if (XGBoosterUpdateOneIter(m->booster[l], it, dm) != 0) {
                rc = xgb_fail("training");
                goto out;
            } else if (p->progress) {
                p->progress(p->progress_ctx, (unsigned long)l * (unsigned long)p->n_trees + (unsigned long)it + 1,
                            (unsigned long)IOLENS_DETECT_NLABELS * (unsigned long)p->n_trees);
            }
        if ((rc = compute_key_features(m, l, dm, ts)) < 0)
            goto out;
    }
    *out = m;
    m = NULL;
out:
    if (dm)
        XGDMatrixFree(dm);
    free(label);
    free(weight);
    iolens_detect_model_free(m);
    return rc;
}

int iolens_detect_model_save(const iolens_detect_model *m, const char *dir, const char *note)
{
    if (!m || !dir)
        return iol_err(IOLENS_EINVAL, "no model or folder");
    char path[4096];
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        snprintf(path, sizeof path, "%s/%s.ubj", dir, iolens_detect_label_name(l));
        if (XGBoosterSaveModel(m->booster[l], path) != 0)
            return iol_err(IOLENS_EIO, "cannot write '%s': %s", path, XGBGetLastError());
    }
    snprintf(path, sizeof path, "%s/meta.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot write '%s'", path);
    int major, minor, patch;
    XGBoostVersion(&major, &minor, &patch);
    iol_jsonw w;
    iol_jsonw_init(&w, f, 1);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "format");
    iol_jsonw_str(&w, "iolens-detect-models");
    iol_jsonw_key(&w, "version");
    iol_jsonw_int(&w, 1);
    char ver[32];
    snprintf(ver, sizeof ver, "%d.%d.%d", major, minor, patch);
    iol_jsonw_key(&w, "xgboost");
    iol_jsonw_str(&w, ver);
    iol_jsonw_key(&w, "tau");
    iol_jsonw_double(&w, IOLENS_DETECT_TAU);
    iol_jsonw_key(&w, "note");
    iol_jsonw_str(&w, note ? note : "");
    iol_jsonw_key(&w, "training_rows");
    iol_jsonw_uint(&w, m->train_rows);
    iol_jsonw_key(&w, "training_weight");
    iol_jsonw_double(&w, m->train_weight);
    iol_jsonw_key(&w, "params");
    iol_jsonw_obj_begin(&w);
    const iolens_detect_params *p = &m->params;
    iol_jsonw_key(&w, "objective");
    iol_jsonw_str(&w, "binary:logistic");
    iol_jsonw_key(&w, "tree_method");
    iol_jsonw_str(&w, "hist");
    iol_jsonw_key(&w, "n_trees");
    iol_jsonw_int(&w, p->n_trees);
    iol_jsonw_key(&w, "max_depth");
    iol_jsonw_int(&w, p->max_depth);
    iol_jsonw_key(&w, "eta");
    iol_jsonw_double(&w, p->eta);
    iol_jsonw_key(&w, "subsample");
    iol_jsonw_double(&w, p->subsample);
    iol_jsonw_key(&w, "colsample_bytree");
    iol_jsonw_double(&w, p->colsample);
    iol_jsonw_key(&w, "alpha");
    iol_jsonw_double(&w, p->alpha);
    iol_jsonw_key(&w, "lambda");
    iol_jsonw_double(&w, p->lambda);
    iol_jsonw_key(&w, "min_child_weight");
    iol_jsonw_double(&w, p->min_child_weight);
    iol_jsonw_key(&w, "gamma");
    iol_jsonw_double(&w, p->gamma);
    iol_jsonw_key(&w, "max_pos_weight");
    iol_jsonw_double(&w, p->max_pos_weight);
    iol_jsonw_key(&w, "seed");
    iol_jsonw_uint(&w, p->seed);
    iol_jsonw_key(&w, "nthread");
    iol_jsonw_int(&w, p->nthread);
    iol_jsonw_obj_end(&w);
    iol_jsonw_key(&w, "labels");
    iol_jsonw_arr_begin(&w);
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "name");
        iol_jsonw_str(&w, iolens_detect_label_name(l));
        iol_jsonw_key(&w, "file");
        char fname[96];
        snprintf(fname, sizeof fname, "%s.ubj", iolens_detect_label_name(l));
        iol_jsonw_str(&w, fname);
        iol_jsonw_key(&w, "scale_pos_weight");
        iol_jsonw_double(&w, m->scale_pos_weight[l]);
        iol_jsonw_key(&w, "key_features");
        iol_jsonw_arr_begin(&w);
        for (int k = 0; k < m->nkey[l]; k++) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "name");
            iol_jsonw_str(&w, iolens_detect_feature_name(m->key[l][k].feature));
            iol_jsonw_key(&w, "mean_abs_shap");
            iol_jsonw_double(&w, m->key[l][k].mean_abs_shap);
            iol_jsonw_key(&w, "median_with_label");
            iol_jsonw_double(&w, m->key[l][k].median_with_label);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    iol_jsonw_key(&w, "features");
    iol_jsonw_arr_begin(&w);
    for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++)
        iol_jsonw_str(&w, iolens_detect_feature_name(i));
    iol_jsonw_arr_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return iol_err(IOLENS_EIO, "cannot write '%s'", path);
    return 0;
}

int iolens_detect_model_check(const char *dir)
{
    if (!dir)
        return iol_err(IOLENS_EINVAL, "no model folder");
    struct stat dst;
    const char *why = stat(dir, &dst) != 0 ? strerror(errno) : !S_ISDIR(dst.st_mode) ? "not a folder" : NULL;
    if (why)
        return iol_err(IOLENS_ENOTFOUND, "cannot read the models in '%s': %s (a folder written by `iolens train`; "
                       "--models DIR or IOLENS_MODELS names another)", dir, why);
    char path[4096];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return iol_err(IOLENS_ENOTFOUND, "cannot read the models in '%s': no meta.json there (not a folder "
                       "written by `iolens train`)", dir);
    return 0;
}

int iolens_detect_model_load(iolens_detect_model **out, const char *dir)
{
    if (!out || !dir)
        return iol_err(IOLENS_EINVAL, "no model output or folder");
    *out = NULL;
    int rc = 0;
    char path[4096];
    json_t *meta = NULL;
    iolens_detect_model *m = calloc(1, sizeof *m);
    if (!m)
        return iol_err(IOLENS_ENOMEM, "out of memory allocating models");
    iolens_detect_params_default(&m->params);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_error_t jerr;
    if ((rc = iolens_detect_model_check(dir)) < 0)
        goto out;
    iol_buf mb = IOL_BUF_INIT; /* read as any input: devices and endless pipes refused */
    rc = iol_read_input(path, (size_t)16 << 20, NULL, 0, 1, &mb);
    if (rc < 0) {
        iol_buf_release(&mb);
        goto out;
    }
    meta = json_loadb(mb.data ? mb.data : "", mb.len, JSON_REJECT_DUPLICATES, &jerr);
    iol_buf_release(&mb);
    if (!meta) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %d (line %d)", path, jerr.text, jerr.position,
                     jerr.line);
        goto out;
    }
    json_t *fmt = json_object_get(meta, "format"), *feats = json_object_get(meta, "features");
    json_t *labels = json_object_get(meta, "labels");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "iolens-detect-models")) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': not an iolens detect model folder", path);
        goto out;
    }
    if (json_array_size(feats) != IOLENS_DETECT_NFEATURES || json_array_size(labels) != IOLENS_DETECT_NLABELS) {
        rc = iol_err(IOLENS_EFORMAT,
                     "cannot read '%s': %zu features and %zu labels, this build expects %d and %d (models of "
                     "another iolens version: retrain them with iolens train)",
                     path, json_array_size(feats), json_array_size(labels), IOLENS_DETECT_NFEATURES,
                     IOLENS_DETECT_NLABELS);
        goto out;
    }
    for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++) {
        const char *s = json_string_value(json_array_get(feats, (size_t)i));
        if (!s || strcmp(s, iolens_detect_feature_name(i))) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': feature %d is '%s', this build expects '%s'", path, i,
                         s ? s : "(not a string)", iolens_detect_feature_name(i));
            goto out;
        }
    }
    json_t *params = json_object_get(meta, "params");
    json_t *nt = json_object_get(params, "n_trees");
    if (json_is_integer(nt))
        m->params.n_trees = (int)json_integer_value(nt);
    json_t *rows = json_object_get(meta, "training_rows");
    if (json_is_integer(rows))
        m->train_rows = (size_t)json_integer_value(rows);
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        json_t *e = json_array_get(labels, (size_t)l);
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || strcmp(name, iolens_detect_label_name(l))) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': label %d is not '%s'", path, l, iolens_detect_label_name(l));
            goto out;
        }
        json_t *spw = json_object_get(e, "scale_pos_weight");
        m->scale_pos_weight[l] = json_is_number(spw) ? json_number_value(spw) : 1.0;
        json_t *keys = json_object_get(e, "key_features"), *kf;
        size_t ki;
        json_array_foreach(keys, ki, kf)
        {
            int fi = iolens_detect_feature_index(json_string_value(json_object_get(kf, "name")));
            json_t *ms = json_object_get(kf, "mean_abs_shap"), *md = json_object_get(kf, "median_with_label");
            if (fi < 0 || !json_is_number(ms) || !(json_is_number(md) || json_is_null(md)) ||
                m->nkey[l] >= IOLENS_DETECT_NKEY) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s/meta.json': bad key feature %zu of '%s'", dir, ki, name);
                goto out;
            }
            m->key[l][m->nkey[l]++] = (iolens_detect_key_feature){fi, json_number_value(ms),
                                                                        json_is_null(md) ? NAN : json_number_value(md)};
        }
        snprintf(path, sizeof path, "%s/%s.ubj", dir, name);
        if (XGBoosterCreate(NULL, 0, &m->booster[l]) != 0) {
            rc = xgb_fail("creating a booster");
            goto out;
        }
        int loaded = omp_one_thread(1), err = XGBoosterLoadModel(m->booster[l], path);
        omp_one_thread(-loaded);
        if (err != 0) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': %s", path, XGBGetLastError());
            goto out;
        }
        if (XGBoosterSetParam(m->booster[l], "nthread", "1") != 0) {
            rc = xgb_fail("setting nthread");
            goto out;
        }
        bst_ulong nf = 0;
        if (XGBoosterGetNumFeature(m->booster[l], &nf) != 0 || nf != IOLENS_DETECT_NFEATURES) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': model has %llu features, not %d", path,
                         (unsigned long long)nf, IOLENS_DETECT_NFEATURES);
            goto out;
        }
    }
    *out = m;
    m = NULL;
out:
    json_decref(meta);
    iolens_detect_model_free(m);
    return rc;
}

static const char predict_value[] =
    "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, \"strict_shape\": false}";
static const char predict_contrib[] =
    "{\"type\": 2, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, \"strict_shape\": false}";

int iolens_detect_predict(iolens_detect_model *m, const double *x, size_t n, double *out)
{
    if (!m || (!x && n) || (!out && n))
        return iol_err(IOLENS_EINVAL, "no model, rows or output");
    if (n == 0)
        return 0;
    DMatrixHandle dm = NULL;
    int rc = dmatrix(&dm, x, n);
    if (rc < 0)
        return rc;
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        const bst_ulong *shape = NULL;
        bst_ulong dim = 0;
        const float *res = NULL;
        if (XGBoosterPredictFromDMatrix(m->booster[l], dm, predict_value, &shape, &dim, &res) != 0) {
            rc = xgb_fail("predicting");
            goto out;
        }
        bst_ulong total = 1;
        for (bst_ulong d = 0; d < dim; d++)
            total *= shape[d];
        if (total != n) {
            rc = iol_err(IOLENS_EDEPEND, "xgboost: %llu predictions for %zu rows", (unsigned long long)total, n);
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            out[i * IOLENS_DETECT_NLABELS + l] = res[i];
    }
out:
    XGDMatrixFree(dm);
    return rc;
}

int iolens_detect_contribs(iolens_detect_model *m, const double *row, int label, double *out)
{
    if (!m || !row || !out || label < 0 || label >= IOLENS_DETECT_NLABELS)
        return iol_err(IOLENS_EINVAL, "no model, row, output or bad label %d", label);
    DMatrixHandle dm = NULL;
    int rc = dmatrix(&dm, row, 1);
    if (rc < 0)
        return rc;
    const bst_ulong *shape = NULL;
    bst_ulong dim = 0;
    const float *res = NULL;
    if (XGBoosterPredictFromDMatrix(m->booster[label], dm, predict_contrib, &shape, &dim, &res) != 0) {
        rc = xgb_fail("computing SHAP contributions");
        goto out;
    }
    bst_ulong total = 1;
    for (bst_ulong d = 0; d < dim; d++)
        total *= shape[d];
    if (total != IOLENS_DETECT_NFEATURES + 1) {
        rc = iol_err(IOLENS_EDEPEND, "xgboost: %llu contributions, expected 158", (unsigned long long)total);
        goto out;
    }
    for (int i = 0; i <= IOLENS_DETECT_NFEATURES; i++)
        out[i] = res[i];
out:
    XGDMatrixFree(dm);
    return rc;
}

static int compute_key_features(iolens_detect_model *m, int l, DMatrixHandle dm, const iolens_detect_trainset *ts)
{
    const bst_ulong *shape = NULL;
    bst_ulong dim = 0;
    const float *res = NULL;
    if (XGBoosterPredictFromDMatrix(m->booster[l], dm, predict_contrib, &shape, &dim, &res) != 0)
        return xgb_fail("computing SHAP contributions of the training rows");
    bst_ulong total = 1;
    for (bst_ulong d = 0; d < dim; d++)
        total *= shape[d];
    const size_t stride = IOLENS_DETECT_NFEATURES + 1;
    if (total != ts->n * stride)
        return iol_err(IOLENS_EDEPEND, "xgboost: %llu contributions for %zu rows", (unsigned long long)total, ts->n);
    double mean[IOLENS_DETECT_NFEATURES] = {0};
    for (size_t i = 0; i < ts->n; i++)
        for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
            mean[f] += fabs(res[i * stride + (size_t)f]) / (double)ts->n;
    double *v = malloc(ts->n * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory computing key features");
    m->nkey[l] = 0;
    unsigned char used[IOLENS_DETECT_NFEATURES] = {0};
    for (int k = 0; k < IOLENS_DETECT_NKEY; k++) {
        int best = -1;
        for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
            if (!used[f] && mean[f] > 0 && (best < 0 || mean[f] > mean[best]))
                best = f;
        if (best < 0)
            break;
        used[best] = 1;
        size_t nv = 0;
        for (size_t i = 0; i < ts->n; i++)
            if (ts->y[i * IOLENS_DETECT_NLABELS + l] && !isnan(ts->x[i * IOLENS_DETECT_NFEATURES + best]))
                v[nv++] = ts->x[i * IOLENS_DETECT_NFEATURES + best]; /* missing (NaN) values have no median */
        double med = NAN;
        if (nv) {
            qsort(v, nv, sizeof *v, iol_cmp_double);
            med = iol_median_sorted(v, nv);
        }
        m->key[l][m->nkey[l]++] = (iolens_detect_key_feature){best, mean[best], med};
    }
    free(v);
    return 0;
}

int iolens_detect_model_key_features(const iolens_detect_model *m, int label, iolens_detect_key_feature *out, int max)
{
    if (!m || label < 0 || label >= IOLENS_DETECT_NLABELS || (!out && max > 0))
        return iol_err(IOLENS_EINVAL, "no model or bad label %d", label);
    int n = m->nkey[label] < max ? m->nkey[label] : max;
    for (int k = 0; k < n; k++)
        out[k] = m->key[label][k];
    return n;
}
