/* iolens train: the eight XGBoost label models from labeled rows (biquality weighting). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/detect.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens train [--data DIR] [--features CSV --labels CSV] [--weight W]\n"
            "                    [--rule-logs LIST [--rule-weight W]] [--out DIR] [--seed N] [--trees N]\n\n"
            "Trains one XGBoost model per pattern plus one for \"healthy\" (seed hyper-parameters,\n"
            "per-label scale_pos_weight = min(neg/pos, 100)) with biquality weights: configuration-\n"
            "labeled rows at W (100), rule-labeled logs at the rule weight (1). Deterministic for a\n"
            "seed (one thread). Without options it rebuilds the shipped models/.\n\n"
            "  --data DIR        shared data folder (default $IOLENS_SHARED_DATA or %s);\n"
            "                    reads DIR/iosage/dev_features.csv and dev_labels.csv\n"
            "  --features CSV    feature rows in the layout of dev_features.csv\n"
            "  --labels CSV      label rows in the layout of dev_labels.csv\n"
            "  --weight W        weight of those rows (default 100)\n"
            "  --rule-logs LIST  file listing darshan-parser dumps (one path a line) labeled by the\n"
            "                    Drishti-rule mapping of drishti_code_to_label.tsv\n"
            "  --rule-weight W   weight of the rule-labeled rows (default 1)\n"
            "  --out DIR         model folder to write (default %s)\n"
            "  --seed N          random seed (default 42)\n"
            "  --trees N         trees per model (default 500)\n",
            iolens_detect_default_data_dir(), iolens_detect_default_models_dir());
}

static void on_progress(void *ctx, unsigned long done, unsigned long total)
{
    cli_progress *p = ctx;
    (void)total;
    if (done > p->done)
        cli_progress_step(p, done - p->done);
}

void cli_detect_rows_release(struct cli_detect_rows *r)
{
    iolens_detect_table_free(r->table);
    free(r->x);
    free(r->w);
    free(r->y);
    memset(r, 0, sizeof *r);
}

/* Paths of a list file: one a line, blank lines and '#' comments skipped. */
static int read_list(const char *list, char ***out, size_t *n)
{
    FILE *f = fopen(list, "r");
    if (!f) {
        cli_error("cannot read '%s': %s", list, strerror(errno));
        return CLI_FAIL;
    }
    char line[8192];
    char **paths = NULL;
    size_t cap = 0;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **p = realloc(paths, ncap * sizeof *p);
            if (!p)
                goto oom;
            paths = p;
            cap = ncap;
        }
        if (!(paths[*n] = strdup(line)))
            goto oom;
        (*n)++;
    }
    fclose(f);
    *out = paths;
    return CLI_OK;
oom:
    fclose(f);
    for (size_t i = 0; i < *n; i++)
        free(paths[i]);
    free(paths);
    cli_error("out of memory reading '%s'", list);
    return CLI_FAIL;
}

int cli_detect_rows_load(struct cli_detect_rows *r, const char *features, const char *labels, double weight,
                         const char *rule_list, double rule_weight)
{
    memset(r, 0, sizeof *r);
    int rc = CLI_FAIL;
    char **paths = NULL;
    size_t npaths = 0;
    double *rx = NULL;
    unsigned char *ry = NULL;
    if (iolens_detect_table_read(&r->table, features) < 0 ||
        iolens_detect_labels_read(&r->y, iolens_detect_table_rows(r->table), labels) < 0) {
        cli_lib_error();
        goto out;
    }
    r->n_conf = iolens_detect_table_rows(r->table);
    if (rule_list) {
        if (read_list(rule_list, &paths, &npaths) != CLI_OK)
            goto out;
        if (iolens_detect_rule_rows(&rx, &ry, (const char *const *)paths, npaths, cli_warn_cb, NULL) < 0) {
            cli_lib_error();
            goto out;
        }
    }
    r->n = r->n_conf + npaths;
    const size_t nf = IOLENS_DETECT_NFEATURES, nl = IOLENS_DETECT_NLABELS;
    r->x = malloc((r->n ? r->n : 1) * nf * sizeof *r->x);
    r->w = malloc((r->n ? r->n : 1) * sizeof *r->w);
    unsigned char *y = realloc(r->y, (r->n ? r->n : 1) * nl);
    if (!r->x || !r->w || !y) {
        cli_error("out of memory");
        goto out;
    }
    r->y = y;
    for (size_t i = 0; i < r->n_conf; i++) {
        memcpy(r->x + i * nf, iolens_detect_table_row(r->table, i), nf * sizeof *r->x);
        r->w[i] = weight;
    }
    for (size_t j = 0; j < npaths; j++) {
        memcpy(r->x + (r->n_conf + j) * nf, rx + j * nf, nf * sizeof *r->x);
        memcpy(r->y + (r->n_conf + j) * nl, ry + j * nl, nl);
        r->w[r->n_conf + j] = rule_weight;
    }
    rc = CLI_OK;
out:
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(rx);
    free(ry);
    if (rc != CLI_OK)
        cli_detect_rows_release(r);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    const char *data = getenv("IOLENS_SHARED_DATA");
    const char *features = NULL, *labels = NULL, *rule_list = NULL, *out = iolens_detect_default_models_dir();
    double weight = 100.0, rule_weight = 1.0;
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
        else if (!strcmp(a, "--rule-logs"))
            rule_list = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--weight") && (weight = strtod(v, &end), *end == '\0') && weight > 0)
            ;
        else if (!strcmp(a, "--rule-weight") && (rule_weight = strtod(v, &end), *end == '\0') && rule_weight > 0)
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
    struct cli_detect_rows rows;
    iolens_detect_model *m = NULL;
    if (cli_detect_rows_load(&rows, features, labels, weight, rule_list, rule_weight) != CLI_OK)
        return CLI_FAIL;
    cli_progress prog;
    cli_progress_init(&prog, "training", (unsigned long)IOLENS_DETECT_NLABELS * (unsigned long)params.n_trees);
    params.progress = on_progress;
    params.progress_ctx = &prog;
    iolens_detect_trainset ts = {rows.n, rows.x, rows.y, rows.w};
    int trc = iolens_detect_train(&m, &ts, &params);
    cli_progress_end(&prog);
    if (trc < 0) {
        cli_lib_error();
        goto out;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create '%s': %s", out, strerror(errno));
        goto out;
    }
    char note[512];
    snprintf(note, sizeof note,
             "%zu configuration-labeled rows at weight %g (dev_features.csv / dev_labels.csv), %zu rule-labeled logs "
             "at weight %g",
             rows.n_conf, weight, rows.n - rows.n_conf, rule_weight);
    if (iolens_detect_model_save(m, out, note) < 0) {
        cli_lib_error();
        goto out;
    }
    printf("trained %d models (%d trees each) on %zu rows (%zu configuration-labeled at weight %g, %zu rule-labeled "
           "at weight %g), seed %llu -> %s\n",
           IOLENS_DETECT_NLABELS, params.n_trees, rows.n, rows.n_conf, weight, rows.n - rows.n_conf, rule_weight,
           (unsigned long long)params.seed, out);
    rc = CLI_OK;
out:
    iolens_detect_model_free(m);
    cli_detect_rows_release(&rows);
    return rc;
}
