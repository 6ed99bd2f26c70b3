/* iolens train: the eight XGBoost label models from configuration-labeled rows. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/detect.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens train [--data DIR] [--features CSV --labels CSV] [--weight W] [--out DIR]\n"
            "                    [--seed N] [--trees N]\n\n"
            "Trains one XGBoost model per pattern plus one for \"healthy\" (seed hyper-parameters,\n"
            "per-label scale_pos_weight = min(neg/pos, 100)), every row weighted W (biquality:\n"
            "configuration-labeled rows 100). Deterministic for a seed (one thread).\n\n"
            "  --data DIR       shared data folder (default $IOLENS_SHARED_DATA or %s);\n"
            "                   reads DIR/iosage/dev_features.csv and dev_labels.csv\n"
            "  --features CSV   feature rows in the layout of dev_features.csv\n"
            "  --labels CSV     label rows in the layout of dev_labels.csv\n"
            "  --weight W       sample weight of these rows (default 100)\n"
            "  --out DIR        model folder to write (default %s)\n"
            "  --seed N         random seed (default 42)\n"
            "  --trees N        trees per model (default 500)\n",
            iolens_detect_default_data_dir(), iolens_detect_default_models_dir());
}

static void on_progress(void *ctx, unsigned long done, unsigned long total)
{
    cli_progress *p = ctx;
    (void)total;
    if (done > p->done)
        cli_progress_step(p, done - p->done);
}

int cmd_train(int argc, char **argv)
{
    const char *data = getenv("IOLENS_SHARED_DATA");
    const char *features = NULL, *labels = NULL, *out = iolens_detect_default_models_dir();
    double weight = 100.0;
    iolens_detect_params params;
    iolens_detect_params_default(&params);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (i + 1 >= argc) {
            cli_error("unknown option or missing value: '%s'", a);
            usage(stderr);
            return CLI_USAGE;
        }
        const char *v = argv[++i];
        char *end = NULL;
        if (!strcmp(a, "--data"))
            data = v;
        else if (!strcmp(a, "--features"))
            features = v;
        else if (!strcmp(a, "--labels"))
            labels = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--weight") && (weight = strtod(v, &end), *end == '\0') && weight > 0)
            ;
        else if (!strcmp(a, "--seed") && (params.seed = strtoull(v, &end, 10), *end == '\0'))
            ;
        else if (!strcmp(a, "--trees") && (params.n_trees = (int)strtol(v, &end, 10), *end == '\0') &&
                 params.n_trees > 0 && params.n_trees <= 100000)
            ;
        else {
            cli_error("bad option or value: '%s %s'", a, v);
            return CLI_USAGE;
        }
    }
    if (!data)
        data = iolens_detect_default_data_dir();
    char fpath[4096], lpath[4096];
    if (!features)
        snprintf(fpath, sizeof fpath, "%s/iosage/dev_features.csv", data), features = fpath;
    if (!labels)
        snprintf(lpath, sizeof lpath, "%s/iosage/dev_labels.csv", data), labels = lpath;

    int rc = CLI_FAIL;
    iolens_detect_table *t = NULL;
    unsigned char *y = NULL;
    double *w = NULL;
    iolens_detect_model *m = NULL;
    if (iolens_detect_table_read(&t, features) < 0 ||
        iolens_detect_labels_read(&y, iolens_detect_table_rows(t), labels) < 0) {
        cli_lib_error();
        goto out;
    }
    size_t n = iolens_detect_table_rows(t);
    w = malloc((n ? n : 1) * sizeof *w);
    double *x = malloc((n ? n : 1) * IOLENS_DETECT_NFEATURES * sizeof *x);
    if (!w || !x) {
        free(x);
        cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        w[i] = weight;
        memcpy(x + i * IOLENS_DETECT_NFEATURES, iolens_detect_table_row(t, i), IOLENS_DETECT_NFEATURES * sizeof *x);
    }
    cli_progress prog;
    cli_progress_init(&prog, "training", (unsigned long)IOLENS_DETECT_NLABELS * (unsigned long)params.n_trees);
    params.progress = on_progress;
    params.progress_ctx = &prog;
    iolens_detect_trainset ts = {n, x, y, w};
    int trc = iolens_detect_train(&m, &ts, &params);
    cli_progress_end(&prog);
    free(x);
    if (trc < 0) {
        cli_lib_error();
        goto out;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create '%s': %s", out, strerror(errno));
        goto out;
    }
    char note[512];
    snprintf(note, sizeof note, "%zu configuration-labeled rows at weight %g (dev_features.csv / dev_labels.csv)", n,
             weight);
    if (iolens_detect_model_save(m, out, note) < 0) {
        cli_lib_error();
        goto out;
    }
    printf("trained %d models (%d trees each) on %zu rows, weight %g, seed %llu -> %s\n", IOLENS_DETECT_NLABELS,
           params.n_trees, n, weight, (unsigned long long)params.seed, out);
    rc = CLI_OK;
out:
    iolens_detect_model_free(m);
    iolens_detect_table_free(t);
    free(y);
    free(w);
    return rc;
}
