/* iolens train: the eight XGBoost label models from labeled rows (biquality weighting). */
#define _DEFAULT_SOURCE /* realpath */
#include "cli.h"
#include "opt.h"
#include "util/buf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/detect.h"

enum { O_DATA = 1, O_FEATURES, O_LABELS, O_WEIGHT, O_CORPUS, O_CORPUS_WEIGHT, O_CORPUS_TIMING, O_NO_CORPUS,
       O_SUITE, O_NO_SUITE, O_SUITE_WEIGHT, O_RULE_LOGS, O_NO_RULE_LOGS, O_RULE_WEIGHT, O_TIMING, O_OUTPUT,
       O_FORCE, O_SEED, O_TREES, O_COUNTS };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "DIR", "model folder to write (default ./models); the installed models (below,\n"
                                     "or $IOLENS_MODELS) only with --force"},
    {O_FORCE, 0, "force", NULL, "write into the models iolens uses"},
    {O_DATA, 0, "data", "DIR", "shared data folder (default $IOLENS_SHARED_DATA or the installed one,\n"
                               "below); reads DIR/iosage/dev_features.csv and dev_labels.csv"},
    {O_FEATURES, 0, "features", "CSV", "feature rows in the layout of dev_features.csv"},
    {O_LABELS, 0, "labels", "CSV", "label rows in the layout of dev_labels.csv"},
    {O_WEIGHT, 0, "weight", "W", "weight of those rows (default 100)"},
    {O_CORPUS, 0, "corpus", "DIR", "labeled rows of a local corpus (iolens corpus -o DIR: features.csv,\n"
                                   "labels.csv), e.g. data/corpus (iolens corpus --seed 1); default none\n"
                                   "(it lowers the leave-one-program-out scores, docs/detect.md)"},
    {O_NO_CORPUS, 0, "no-corpus", NULL, "no corpus rows (the default)"},
    {O_CORPUS_WEIGHT, 0, "corpus-weight", "W", "weight of the corpus rows (default 100)"},
    {O_CORPUS_TIMING, 0, "corpus-timing", NULL, "keep the corpus rows' timing features (implies --timing; default:\n"
                                                "missing, since they were measured on this machine, not the\n"
                                                "labeled runs' system)"},
    {O_SUITE, 0, "suite", "DIR", "labelled rows of the real-program suite (bench/detect/suite/run.sh -o DIR);\n"
                                 "default the shipped data/suite"},
    {O_NO_SUITE, 0, "no-suite", NULL, "no suite rows"},
    {O_SUITE_WEIGHT, 0, "suite-weight", "W", "weight of the suite rows (default 1000)"},
    {O_RULE_LOGS, 0, "rule-logs", "LIST", "file listing logs (one path a line: binary .darshan logs or\n"
                                          "darshan-parser dumps) labeled by the Drishti-rule mapping of\n"
                                          "drishti_code_to_label.tsv (default the shipped data/rule-logs.txt)"},
    {O_NO_RULE_LOGS, 0, "no-rule-logs", NULL, "no rule-labeled rows (with --no-suite: the dev rows only)"},
    {O_RULE_WEIGHT, 0, "rule-weight", "W", "weight of the rule-labeled rows (default 1)"},
    {O_TIMING, 0, "timing", NULL, "let the model use the timing features (run time, *_TIME, bandwidths,\n"
                                  "time shares) of the dev and rule rows; default: missing to the model"},
    {O_COUNTS, 0, "counts", NULL, "let the model use the STDIO counts (operations, bytes, offsets);\n"
                                  "default: missing to the model, which sees the stdio shares"},
    {O_SEED, 0, "seed", "N", "random seed (default 42)"},
    {O_TREES, 0, "trees", "N", "trees per model, 1 to 100000 (default 500)"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nThe installed models: %s\nThe training rows: %s\nThe shared data folder: %s\n",
            iolens_detect_default_models_dir(), iolens_detect_default_training_dir(), iolens_detect_default_data_dir());
}

static const cli_spec spec = {
    "train", "train [--data DIR] [--features CSV --labels CSV] [--weight W]\n"
             "      [--corpus DIR] [--corpus-weight W] [--corpus-timing]\n"
             "      [--suite DIR | --no-suite] [--suite-weight W]\n"
             "      [--rule-logs LIST | --no-rule-logs] [--rule-weight W]\n"
             "      [--timing] [--counts] [-o DIR] [--seed N] [--trees N]",
    "Trains one XGBoost model per pattern plus one for \"healthy\" (seed hyper-parameters,\n"
    "per-label scale_pos_weight = min(neg/pos, 100)) with biquality weights: configuration-\n"
    "labeled rows at W (100), local corpus rows at the corpus weight, rule-labeled logs at the\n"
    "rule weight (1). Deterministic for a seed (one thread). Without options it trains the\n"
    "shipped models again (into ./models) from the dev rows, the real-program suite (the training\n"
    "rows' suite/) and the logs that the training rows' rule-logs.txt names (paths below the data\n"
    "folder).",
    optv, NULL, more, 0};

static void on_progress(void *ctx, unsigned long done, unsigned long total)
{
    cli_progress *p = ctx;
    (void)total;
    if (done > p->done)
        cli_progress_step(p, done - p->done);
}

void cli_detect_rows_release(struct cli_detect_rows *r)
{
    for (int b = 0; b < 3; b++)
        iolens_detect_table_free(r->tables[b]);
    free(r->x);
    free(r->xm);
    free(r->w);
    free(r->y);
    memset(r, 0, sizeof *r);
}

/* Paths of a list file: one a line, blank lines and '#' comments skipped; relative paths are
 * taken relative to base when base is given (the default list names logs below the data folder). */
static int read_list(const char *list, const char *base, char ***out, size_t *n)
{
    iol_buf b = IOL_BUF_INIT; /* read whole (at most 64 MiB of text): devices, directories and binary data refused */
    if (iol_read_input(list, (size_t)64 << 20, NULL, 0, 1, &b) < 0) {
        cli_lib_error();
        iol_buf_release(&b);
        return CLI_FAIL;
    }
    char **paths = NULL;
    size_t cap = 0;
    *n = 0;
    char *text = b.data ? b.data : "";
    size_t lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        line[strcspn(line, "\r")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (strlen(line) >= 4096) {
            cli_error("cannot read '%s': line %zu is longer than a path can be", list, lineno);
            goto fail;
        }
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **p = realloc(paths, ncap * sizeof *p);
            if (!p)
                goto oom;
            paths = p;
            cap = ncap;
        }
        if (base && line[0] != '/') {
            size_t len = strlen(base) + strlen(line) + 2;
            if (!(paths[*n] = malloc(len)))
                goto oom;
            snprintf(paths[*n], len, "%s/%s", base, line);
        } else if (!(paths[*n] = strdup(line)))
            goto oom;
        (*n)++;
    }
    iol_buf_release(&b);
    if (*n == 0) {
        free(paths);
        cli_error("'%s' names no log (one path a line; blank lines and '#' comments are skipped)", list);
        return CLI_FAIL;
    }
    *out = paths;
    return CLI_OK;
oom:
    cli_error("out of memory reading '%s'", list);
fail:
    iol_buf_release(&b);
    for (size_t i = 0; i < *n; i++)
        free(paths[i]);
    free(paths);
    return CLI_FAIL;
}

/* One configuration-labeled table: features and their labels. */
static int load_table(struct iolens_detect_table **t, unsigned char **y, const char *features, const char *labels)
{
    if (iolens_detect_table_read(t, features) < 0 ||
        iolens_detect_labels_read(y, iolens_detect_table_rows(*t), labels) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cli_detect_timing_feature(int i)
{
    static const char *const derived[] = {"runtime_seconds",     "read_bw_mb_s",       "write_bw_mb_s",
                                          "total_bw_mb_s",       "metadata_time_ratio", "read_time_fraction",
                                          "write_time_fraction", "time_imbalance",      "io_duration",
                                          "io_active_fraction",  NULL};
    const char *n = iolens_detect_feature_name(i);
    if (!n)
        return 0;
    for (int k = 0; derived[k]; k++)
        if (!strcmp(n, derived[k]))
            return 1;
    size_t len = strlen(n);
    return (strstr(n, "_F_") && strstr(n, "TIME")) || (len > 10 && !strcmp(n + len - 10, "_TIME_SIZE"));
}

int cli_detect_count_feature(int i)
{
    const char *n = iolens_detect_feature_name(i);
    if (!n || i >= IOLENS_DETECT_NIOSAGE || cli_detect_timing_feature(i))
        return 0;
    return !strncmp(n, "STDIO_", 6);
}

int cli_detect_rows_load(struct cli_detect_rows *r, const struct cli_detect_sources *src)
{
    memset(r, 0, sizeof *r);
    int rc = CLI_FAIL;
    char **paths = NULL;
    size_t npaths = 0;
    double *rx = NULL;
    unsigned char *ry = NULL, *by[3] = {NULL, NULL, NULL};
    struct iolens_detect_table *bt[3] = {NULL, NULL, NULL};
    const char *dirs[3] = {NULL, src->corpus, src->suite};
    const double bw[3] = {src->weight, src->corpus_weight, src->suite_weight};
    if (load_table(&bt[0], &by[0], src->features, src->labels) != CLI_OK)
        goto out;
    for (int b = 1; b < 3; b++)
        if (dirs[b]) {
            char cf[4096], cl[4096];
            snprintf(cf, sizeof cf, "%s/features.csv", dirs[b]);
            snprintf(cl, sizeof cl, "%s/labels.csv", dirs[b]);
            if (load_table(&bt[b], &by[b], cf, cl) != CLI_OK)
                goto out;
        }
    if (src->rule_list) {
        if (read_list(src->rule_list, src->rule_base, &paths, &npaths) != CLI_OK)
            goto out;
        if (iolens_detect_rule_rows(&rx, &ry, (const char *const *)paths, npaths, cli_warn_cb, NULL) < 0) {
            cli_lib_error();
            goto out;
        }
    }
    size_t nb[3];
    for (int b = 0; b < 3; b++)
        nb[b] = bt[b] ? iolens_detect_table_rows(bt[b]) : 0;
    r->n_dev = nb[0];
    r->n_corpus = nb[1];
    r->n_suite = nb[2];
    r->n_rule = npaths;
    r->n = nb[0] + nb[1] + nb[2] + npaths;
    const size_t nf = IOLENS_DETECT_NFEATURES, nl = IOLENS_DETECT_NLABELS;
    r->x = malloc((r->n ? r->n : 1) * nf * sizeof *r->x);
    r->xm = malloc((r->n ? r->n : 1) * nf * sizeof *r->xm);
    r->w = malloc((r->n ? r->n : 1) * sizeof *r->w);
    r->y = malloc((r->n ? r->n : 1) * nl);
    if (!r->x || !r->xm || !r->w || !r->y) {
        cli_error("out of memory");
        goto out;
    }
    /* blocks in order: the scored kind first, then the others in source order */
    const int first = (src->scored >= 0 && src->scored < 3 && bt[src->scored]) ? src->scored : 0;
    int order[3] = {first, 0, 0};
    for (int b = 0, j = 1; b < 3; b++)
        if (b != first)
            order[j++] = b;
    size_t at = 0;
    for (int j = 0; j < 3; j++) {
        int b = order[j];
        r->kind[j] = b;
        r->n_block[j] = nb[b];
        for (size_t i = 0; i < nb[b]; i++, at++) {
            memcpy(r->x + at * nf, iolens_detect_table_row(bt[b], i), nf * sizeof *r->x);
            memcpy(r->y + at * nl, by[b] + i * nl, nl);
            r->w[at] = bw[b];
        }
    }
    for (size_t j = 0; j < npaths; j++, at++) {
        memcpy(r->x + at * nf, rx + j * nf, nf * sizeof *r->x);
        memcpy(r->y + at * nl, ry + j * nl, nl);
        r->w[at] = src->rule_weight;
    }
    /* The corpus rows' timing features were measured on this machine (2 cores, ext4, page cache,
     * MiB-sized runs), not on the Lustre system whose runs the labels describe: e.g.
     * metadata_time_ratio 0.9 for a local mdtest_fpp_explosion run against 0.03-0.19 in the sweep
     * logs, POSIX_F_MAX_READ_TIME 20x theirs for HACC-IO. The model sees them as missing
     * (XGBoost's default branch), so timing splits are learned from the real logs only. */
    memcpy(r->xm, r->x, r->n * nf * sizeof *r->x);
    /* Without --timing no row's timing features reach the model (docs/detect.md, "Timing
     * features"): dev-row cross-validation rises without them (5-fold 0.951 -> 0.966, grouped by
     * configuration 0.904 -> 0.929), so run times, bandwidths and time shares of one system
     * generalise worse than the counts; the features are still computed and printed. */
    if (!src->timing) {
        for (size_t i = 0; i < r->n; i++)
            for (size_t f = 0; f < nf; f++)
                if (cli_detect_timing_feature((int)f))
                    r->xm[i * nf + f] = NAN;
    } else if (!src->corpus_timing) { /* --timing: the locally measured rows (corpus, suite) stay without */
        size_t c0 = 0;
        for (int j = 0; j < 3; j++) {
            if (r->kind[j] != 0)
                for (size_t i = c0; i < c0 + r->n_block[j]; i++)
                    for (size_t f = 0; f < nf; f++)
                        if (cli_detect_timing_feature((int)f))
                            r->xm[i * nf + f] = NAN;
            c0 += r->n_block[j];
        }
    }
    /* Without --counts the STDIO counts are missing to the model (docs/detect.md, "Portable
     * features"): the dev rows' count a benchmark's report on stdout, which a log's features leave
     * out (the console streams are not files), so a tree that splits on STDIO_WRITES learns which
     * benchmark printed a report, not what makes I/O slow; the stdio shares carry over. Masking
     * every whole-job count as well was measured and lowered every score (docs/detect.md). */
    if (!src->counts)
        for (size_t f = 0; f < nf; f++)
            if (cli_detect_count_feature((int)f))
                for (size_t i = 0; i < r->n; i++)
                    r->xm[i * nf + f] = NAN;
    /* Rank numbers never reach the model, --timing or not: which rank happened to be the fastest
     * or the slowest differs between identical runs (the detected set would change with it). */
    for (size_t f = 0; f < nf; f++) {
        const char *fname = iolens_detect_feature_name((int)f);
        if (fname && (!strcmp(fname, "POSIX_FASTEST_RANK") || !strcmp(fname, "POSIX_SLOWEST_RANK")))
            for (size_t i = 0; i < r->n; i++)
                r->xm[i * nf + f] = NAN;
    }
    r->n_conf = r->n_block[0];
    for (int j = 0; j < 3; j++) {
        r->tables[j] = bt[order[j]];
        bt[order[j]] = NULL;
    }
    r->table = r->tables[0];
    rc = CLI_OK;
out:
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(rx);
    free(ry);
    for (int b = 0; b < 3; b++) {
        free(by[b]);
        iolens_detect_table_free(bt[b]);
    }
    if (rc != CLI_OK)
        cli_detect_rows_release(r);
    return rc;
}

const char *cli_detect_rows_cell(const struct cli_detect_rows *r, size_t i, const char *column)
{
    for (int j = 0; j < 3; j++) {
        if (i < r->n_block[j])
            return r->tables[j] ? iolens_detect_table_cell(r->tables[j], i, column) : NULL;
        i -= r->n_block[j];
    }
    return NULL;
}

int cmd_train(int argc, char **argv)
{
    const char *data = getenv("IOLENS_SHARED_DATA");
    const char *features = NULL, *labels = NULL, *rule_list = NULL, *out = "models";
    const char *corpus = NULL, *suite = NULL;
    double weight = 100.0, rule_weight = 1.0, corpus_weight = CLI_CORPUS_WEIGHT, suite_weight = CLI_SUITE_WEIGHT;
    int corpus_timing = 0, no_corpus = 0, no_rule_logs = 0, timing = 0, no_suite = 0, force = 0, counts = 0;
    iolens_detect_params params;
    iolens_detect_params_default(&params);
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long n;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_CORPUS_TIMING: corpus_timing = timing = 1; break;
        case O_NO_CORPUS: no_corpus = 1; break;
        case O_TIMING: timing = 1; break;
        case O_COUNTS: counts = 1; break;
        case O_NO_SUITE: no_suite = 1; break;
        case O_NO_RULE_LOGS: no_rule_logs = 1; break;
        case O_FORCE: force = 1; break;
        case O_DATA: data = a.val; break;
        case O_FEATURES: features = a.val; break;
        case O_LABELS: labels = a.val; break;
        case O_RULE_LOGS: rule_list = a.val; break;
        case O_CORPUS: corpus = a.val; break;
        case O_SUITE: suite = a.val; break;
        case O_OUTPUT: out = a.val; break;
        case O_SUITE_WEIGHT: case O_CORPUS_WEIGHT: case O_WEIGHT: case O_RULE_WEIGHT: {
            double w;
            if (cli_val_double(&a, 1e-12, 1e12, &w) < 0)
                return CLI_USAGE;
            *(id == O_SUITE_WEIGHT ? &suite_weight : id == O_CORPUS_WEIGHT ? &corpus_weight
              : id == O_WEIGHT ? &weight : &rule_weight) = w;
            break;
        }
        case O_SEED:
            if (cli_val_long(&a, 0, LONG_MAX, &n) < 0)
                return CLI_USAGE;
            params.seed = (uint64_t)n;
            break;
        case O_TREES:
            if (cli_val_long(&a, 1, 100000, &n) < 0)
                return CLI_USAGE;
            params.n_trees = (int)n;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 0, 0, "");
    if (id < 0)
        return cli_args_exit(&a, id);
    char rout[PATH_MAX], rship[PATH_MAX];
    if (!force && realpath(out, rout) && realpath(iolens_detect_default_models_dir(), rship) && !strcmp(rout, rship)) {
        cli_error("'%s' holds the models iolens uses (%s): writing there replaces them; give another "
                  "-o DIR, or --force", out, rship);
        return CLI_FAIL;
    }
    if (!data)
        data = iolens_detect_default_data_dir();
    char fpath[4096], lpath[4096];
    if (!features)
        snprintf(fpath, sizeof fpath, "%s/iosage/dev_features.csv", data), features = fpath;
    if (!labels)
        snprintf(lpath, sizeof lpath, "%s/iosage/dev_labels.csv", data), labels = lpath;

    if ((no_corpus && corpus) || (no_rule_logs && rule_list) || (no_suite && suite)) {
        cli_error("--no-corpus / --no-suite / --no-rule-logs contradict --corpus / --suite / --rule-logs");
        return CLI_USAGE;
    }
    /* the shipped models' training inputs (docs/detect.md, "Models") */
    char rpath[4096], spath[4096];
    const char *rule_base = NULL;
    if (!suite && !no_suite)
        snprintf(spath, sizeof spath, "%s/suite", iolens_detect_default_training_dir()), suite = spath;
    if (!rule_list && !no_rule_logs) {
        snprintf(rpath, sizeof rpath, "%s/rule-logs.txt", iolens_detect_default_training_dir());
        rule_list = rpath;
        rule_base = data;
    }

    int rc = CLI_FAIL;
    struct cli_detect_rows rows;
    iolens_detect_model *m = NULL;
    struct cli_detect_sources src = {features, labels, weight,      corpus,    corpus_weight, 0,    corpus_timing,
                                     rule_list, rule_weight, rule_base, timing, suite, suite_weight, counts};
    if (cli_detect_rows_load(&rows, &src) != CLI_OK)
        return CLI_FAIL;
    cli_progress prog;
    cli_progress_init(&prog, "training", (unsigned long)IOLENS_DETECT_NLABELS * (unsigned long)params.n_trees);
    params.progress = on_progress;
    params.progress_ctx = &prog;
    iolens_detect_trainset ts = {rows.n, rows.xm, rows.y, rows.w};
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
    char note[640], cnote[256] = "";
    if (corpus)
        snprintf(cnote, sizeof cnote, ", %zu local corpus rows at weight %g (timing features %s)", rows.n_corpus,
                 corpus_weight, corpus_timing && timing ? "kept" : "missing");
    if (suite)
        snprintf(cnote + strlen(cnote), sizeof cnote - strlen(cnote), ", %zu real-program suite rows at weight %g",
                 rows.n_suite, suite_weight);
    snprintf(note, sizeof note,
             "%zu configuration-labeled rows at weight %g (dev_features.csv / dev_labels.csv)%s, %zu rule-labeled "
             "logs at weight %g%s%s; rank numbers (POSIX_FASTEST_RANK, POSIX_SLOWEST_RANK) not used",
             rows.n_dev, weight, cnote, rows.n_rule, rule_weight,
             timing ? "" : "; timing features not used (missing in every row)",
             counts ? "" : "; STDIO counts not used (the stdio shares are)");
    if (iolens_detect_model_save(m, out, note) < 0) {
        cli_lib_error();
        goto out;
    }
    printf("trained %d models (%d trees each) on %zu rows (%zu configuration-labeled at weight %g%s, %zu "
           "rule-labeled at weight %g%s), seed %llu -> %s\n",
           IOLENS_DETECT_NLABELS, params.n_trees, rows.n, rows.n_dev, weight, cnote, rows.n_rule, rule_weight,
           timing ? "" : "; timing features not used", (unsigned long long)params.seed, out);
    rc = CLI_OK;
out:
    iolens_detect_model_free(m);
    cli_detect_rows_release(&rows);
    return rc;
}
