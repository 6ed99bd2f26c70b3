/* iolens eval: cross-validated scores of the classifier beside the rule and trivial baselines. */
#include "cli.h"
#include "opt.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "util/jsonw.h"

#define NL IOLENS_DETECT_NLABELS
#define NF IOLENS_DETECT_NFEATURES

enum { O_JSON = 1, O_OUTPUT, O_DATA, O_FEATURES, O_LABELS, O_RULE_LOGS, O_PREDICTIONS, O_CORPUS_TIMING, O_TIMING, O_COUNTS,
       O_CORPUS, O_CORPUS_WEIGHT, O_SUITE, O_SUITE_WEIGHT, O_SCORE, O_RULE_WEIGHT, O_WEIGHT, O_GROUP, O_FOLDS, O_SEED,
       O_BOOTSTRAP, O_TREES };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the scores to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "one JSON document (the machine form)"},
    {O_DATA, 0, "data", "DIR", "shared data folder (default $IOLENS_SHARED_DATA or the installed one)"},
    {O_FEATURES, 0, "features", "CSV", "feature rows in the layout of dev_features.csv"},
    {O_LABELS, 0, "labels", "CSV", "label rows in the layout of dev_labels.csv"},
    {O_GROUP, 0, "group", "G", "row; config: keep rows of one configuration (scenario without its\n"
                               "_rN/_repN suffix, or one job) in one fold, scoring configurations held\n"
                               "out of training; program: leave one program out, a fold per program\n"
                               "(_benchmark: ior, mdtest, ..., fio, dd, tar, ...); the rows of that\n"
                               "program in every other source leave training with it (--folds ignored)"},
    {O_FOLDS, 0, "folds", "K", "folds, 2 to 100 (default 5)"},
    {O_SEED, 0, "seed", "N", "seed (default 42)"},
    {O_BOOTSTRAP, 0, "bootstrap", "B", "resamples, 10 to 100000 (default 1000)"},
    {O_TREES, 0, "trees", "N", "trees per model, 1 to 100000 (default 500)"},
    {O_WEIGHT, 0, "weight", "W", "weight of the configuration-labeled rows (default 100)"},
    {O_RULE_LOGS, 0, "rule-logs", "LIST", "logs (one path a line: binary .darshan logs or darshan-parser dumps)\n"
                                          "labeled by the Drishti-rule mapping, added to every training fold at\n"
                                          "--rule-weight, never scored"},
    {O_RULE_WEIGHT, 0, "rule-weight", "W", "weight of the rule-labeled rows (default 1)"},
    {O_CORPUS, 0, "corpus", "DIR", "rows of a local corpus (iolens corpus -o DIR) at --corpus-weight; with\n"
                                   "--score dev (default) they join every training fold"},
    {O_CORPUS_WEIGHT, 0, "corpus-weight", "W", "weight of the corpus rows (default 100)"},
    {O_TIMING, 0, "timing", NULL, "let the model use the timing features of the dev and rule rows\n"
                                  "(default: missing to the model in every row, as in the shipped models)"},
    {O_CORPUS_TIMING, 0, "corpus-timing", NULL, "keep the corpus rows' timing features too (implies --timing)"},
    {O_COUNTS, 0, "counts", NULL, "let the model use the STDIO counts (operations, bytes, offsets);\n"
                                  "default: missing to the model, as in the shipped models"},
    {O_SUITE, 0, "suite", "DIR", "rows of the real-program suite (bench/detect/suite/run.sh -o DIR) at\n"
                                 "--suite-weight; they join every training fold unless scored"},
    {O_SUITE_WEIGHT, 0, "suite-weight", "W", "weight of the suite rows (default 1000)"},
    {O_SCORE, 0, "score", "S", "dev (default); corpus: score the corpus rows instead, folds over the\n"
                               "corpus grouped by scenario (every variant of a held-out scenario is out\n"
                               "of training; --group row splits by run), the dev rows in every training\n"
                               "fold; suite: score the suite rows (default grouping: program)"},
    {O_PREDICTIONS, 0, "predictions", "CSV", "write each scored row's out-of-fold probabilities and sets"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "eval", "eval [--data DIR] [--features CSV --labels CSV] [--folds K] [--seed N]\n"
            "     [--group row|config|program] [--bootstrap B] [--trees N] [--json]\n"
            "     [--weight W] [--rule-logs LIST [--rule-weight W]]\n"
            "     [--corpus DIR [--corpus-weight W] [--corpus-timing]]\n"
            "     [--suite DIR [--suite-weight W]] [--score dev|corpus|suite] [--timing] [--counts]",
    "k-fold cross-validation of the pattern classifier on labeled feature rows (default: the\n"
    "201 dev rows of IOSage), stratified by label set, with Micro-F1, Macro-F1, Hamming loss,\n"
    "subset accuracy and per-label precision / recall / F1 with 95% bootstrap intervals, for\n"
    "the classifier (8 models at 0.5), the gate (7 pattern models at tau 0.3), the Drishti-rule\n"
    "baseline and the paper's two trivial baselines (90th percentile, majority class).",
    optv, NULL, NULL, 0};

/* Configuration key of a scenario: without a trailing _r<N> / _rep<N>; "<job>.<step>" -> job. */
static void config_key(const char *scenario, char *out, size_t size)
{
    snprintf(out, size, "%s", scenario ? scenario : "");
    size_t len = strlen(out);
    size_t d = len;
    while (d > 0 && isdigit((unsigned char)out[d - 1]))
        d--;
    if (d < len && d >= 2 && out[d - 1] == 'r' && out[d - 2] == '_')
        out[d - 2] = '\0';
    else if (d < len && d >= 4 && !strncmp(out + d - 4, "_rep", 4))
        out[d - 4] = '\0';
    else if (d < len && d > 0 && out[d - 1] == '.') {
        int digits = 1;
        for (size_t i = 0; i + 1 < d; i++)
            digits &= isdigit((unsigned char)out[i]) != 0;
        if (digits)
            out[d - 1] = '\0';
    }
}

struct keyed_row {
    char key[200];
    size_t row;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->row < y->row ? -1 : x->row > y->row);
}

/* group[i] = index of row i's configuration; returns the number of groups (0: out of memory). */
static size_t config_groups(const iolens_detect_table *t, int *group, size_t n)
{
    struct keyed_row *k = malloc(n * sizeof *k);
    if (!k)
        return 0;
    for (size_t i = 0; i < n; i++) {
        config_key(iolens_detect_table_cell(t, i, "_scenario"), k[i].key, sizeof k[i].key);
        k[i].row = i;
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    size_t ng = 0;
    for (size_t j = 0; j < n; j++) {
        if (j > 0 && strcmp(k[j].key, k[j - 1].key))
            ng++;
        group[k[j].row] = (int)ng;
    }
    free(k);
    return n ? ng + 1 : 0;
}

/* Leave one program out: fold[i] = index of row i's program among the scored rows' programs
 * (k of them); rows of the other configuration-labelled blocks whose program is one of them get
 * that fold (they leave training with it but are not scored), the rest -1. Returns k (0: fewer
 * than two programs, -1: out of memory). */
static int program_folds(const struct cli_detect_rows *r, int *fold, size_t nconf_all)
{
    size_t n = r->n_conf;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
        return -1;
    int k = 0;
    for (size_t i = 0; i < nconf_all; i++) {
        const char *p = cli_detect_rows_cell(r, i, "_benchmark");
        p = p && *p ? p : "(none)";
        int f = -1;
        for (int j = 0; j < k; j++)
            if (!strcmp(names[j], p))
                f = j;
        if (f < 0 && i < n) {
            names[k] = p;
            f = k++;
        }
        fold[i] = f;
    }
    free(names);
    return k >= 2 ? k : 0;
}

struct method {
    const char *name;
    unsigned char *pred;
    iolens_detect_scores s, lo, hi;
};

static void print_cell(double v, double lo, double hi)
{
    printf("  %.3f [%.3f,%.3f]", v, lo, hi);
}

static void json_score(iol_jsonw *w, const char *key, double v, double lo, double hi)
{
    iol_jsonw_key(w, key);
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "value");
    iol_jsonw_double(w, v);
    iol_jsonw_key(w, "lo");
    iol_jsonw_double(w, lo);
    iol_jsonw_key(w, "hi");
    iol_jsonw_double(w, hi);
    iol_jsonw_obj_end(w);
}

static void on_progress(void *ctx, unsigned long done, unsigned long total)
{
    cli_progress *p = ctx;
    (void)total;
    if (done > p->done)
        cli_progress_step(p, done - p->done);
}

static void put_set(FILE *f, const unsigned char *v)
{
    int first = 1;
    for (int l = 0; l < NL; l++)
        if (v[l]) {
            fprintf(f, "%s%s", first ? "" : ";", iolens_detect_label_name(l));
            first = 0;
        }
}

/* One line per scored row: scenario, fold, truth, gate's set, the eight out-of-fold probabilities. */
static int write_predictions(const char *path, const iolens_detect_table *t, const double *oof,
                             const unsigned char *y, const unsigned char *gate, const unsigned char *rules,
                             const int *fold, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("cannot write '%s'", path);
        return CLI_FAIL;
    }
    fprintf(f, "row,scenario,fold,truth,gate,rules");
    for (int l = 0; l < NL; l++)
        fprintf(f, ",p_%s", iolens_detect_label_name(l));
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        const char *sc = iolens_detect_table_cell(t, i, "_scenario");
        fprintf(f, "%zu,%s,%d,", i + 1, sc && !strpbrk(sc, ",\"\n") ? sc : "", fold[i]);
        put_set(f, y + i * NL);
        fputc(',', f);
        put_set(f, gate + i * NL);
        fputc(',', f);
        put_set(f, rules + i * NL);
        for (int l = 0; l < NL; l++)
            fprintf(f, ",%.6f", oof[i * NL + l]);
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) || bad) {
        cli_error("cannot write '%s'", path);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_eval(int argc, char **argv)
{
    const char *data = getenv("IOLENS_SHARED_DATA"), *features = NULL, *labels = NULL, *rule_list = NULL;
    const char *corpus = NULL, *pred_path = NULL, *suite = NULL;
    double weight = 100.0, rule_weight = 1.0, corpus_weight = CLI_CORPUS_WEIGHT, suite_weight = CLI_SUITE_WEIGHT;
    int corpus_timing = 0, timing = 0, counts = 0;
    int k = 5, reps = 1000, json = 0, by_config = -1, score_corpus = 0;
    iolens_detect_params params;
    iolens_detect_params_default(&params);
    static const char *const scores[] = {"dev", "corpus", "suite", NULL};
    static const char *const groups[] = {"row", "config", "program", NULL};
    const char *output = NULL;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long nv;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_OUTPUT: output = a.val; break;
        case O_DATA: data = a.val; break;
        case O_FEATURES: features = a.val; break;
        case O_LABELS: labels = a.val; break;
        case O_RULE_LOGS: rule_list = a.val; break;
        case O_PREDICTIONS: pred_path = a.val; break;
        case O_CORPUS_TIMING: corpus_timing = timing = 1; break;
        case O_TIMING: timing = 1; break;
        case O_COUNTS: counts = 1; break;
        case O_CORPUS: corpus = a.val; break;
        case O_SUITE: suite = a.val; break;
        case O_SCORE:
            if (cli_val_choice(&a, scores, &score_corpus) < 0)
                return CLI_USAGE;
            break;
        case O_GROUP:
            if (cli_val_choice(&a, groups, &by_config) < 0)
                return CLI_USAGE;
            break;
        case O_CORPUS_WEIGHT: case O_SUITE_WEIGHT: case O_RULE_WEIGHT: case O_WEIGHT: {
            double w;
            if (cli_val_double(&a, 1e-12, 1e12, &w) < 0)
                return CLI_USAGE;
            *(id == O_SUITE_WEIGHT ? &suite_weight : id == O_CORPUS_WEIGHT ? &corpus_weight
              : id == O_WEIGHT ? &weight : &rule_weight) = w;
            break;
        }
        case O_FOLDS:
            if (cli_val_long(&a, 2, 100, &nv) < 0)
                return CLI_USAGE;
            k = (int)nv;
            break;
        case O_SEED:
            if (cli_val_long(&a, 0, LONG_MAX, &nv) < 0)
                return CLI_USAGE;
            params.seed = (uint64_t)nv;
            break;
        case O_BOOTSTRAP:
            if (cli_val_long(&a, 10, 100000, &nv) < 0)
                return CLI_USAGE;
            reps = (int)nv;
            break;
        case O_TREES:
            if (cli_val_long(&a, 1, 100000, &nv) < 0)
                return CLI_USAGE;
            params.n_trees = (int)nv;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 0, 0, "");
    if (id < 0)
        return cli_args_exit(&a, id);
    if (output && cli_output_to(output) < 0)
        return CLI_FAIL;
    if ((score_corpus == 1 && !corpus) || (score_corpus == 2 && !suite)) {
        cli_usage_error(&spec, "--score %s needs --%s DIR", score_corpus == 1 ? "corpus" : "suite",
                        score_corpus == 1 ? "corpus" : "suite");
        return CLI_USAGE;
    }
    if (by_config < 0) /* corpus: scenarios held out of training by default; suite: programs */
        by_config = score_corpus;
    if (!data)
        data = iolens_detect_default_data_dir();
    char fpath[4096], lpath[4096];
    if (!features)
        snprintf(fpath, sizeof fpath, "%s/iosage/dev_features.csv", data), features = fpath;
    if (!labels)
        snprintf(lpath, sizeof lpath, "%s/iosage/dev_labels.csv", data), labels = lpath;

    int rc = CLI_FAIL;
    struct cli_detect_rows rows = {0};
    double *oof = NULL;
    int *fold = NULL, *group = NULL;
    static const char *const method_names[] = {"classifier (8 models at 0.5)", "gate (7 patterns at tau 0.3)",
                                               "Drishti rules", "trivial: 90th percentile",
                                               "trivial: majority class", "rules of detect --rules"};
    struct method methods[6];
    const int nmethods = 6;
    memset(methods, 0, sizeof methods);
    for (int m = 0; m < nmethods; m++)
        methods[m].name = method_names[m];
    struct cli_detect_sources src = {features,  labels,      weight, corpus, corpus_weight, score_corpus, corpus_timing,
                                     rule_list, rule_weight, NULL,   timing, suite,         suite_weight, counts};
    if (cli_detect_rows_load(&rows, &src) != CLI_OK)
        goto out;
    const double scored_weight = score_corpus == 1 ? corpus_weight : score_corpus == 2 ? suite_weight : weight;
    static const char *const kind_names[] = {"dev", "corpus", "suite"};
    /* the first block (dev rows, or corpus rows with --score corpus) is scored; the other
     * configuration-labeled block and the rule-labeled rows only ever train (fold -1) */
    size_t n = rows.n_conf, nall = rows.n;
    const double *x = rows.x;
    const unsigned char *y = rows.y;
    if (by_config != 2 && n < (size_t)k) {
        cli_error("%zu rows cannot fill %d folds", n, k);
        goto out;
    }
    oof = malloc(nall * NL * sizeof *oof);
    fold = malloc(nall * sizeof *fold);
    group = malloc(n * sizeof *group);
    for (int m = 0; m < nmethods; m++)
        methods[m].pred = calloc(nall * NL, 1);
    if (!oof || !fold || !group) {
        cli_error("out of memory");
        goto out;
    }
    for (int m = 0; m < nmethods; m++)
        if (!methods[m].pred) {
            cli_error("out of memory");
            goto out;
        }
    size_t ngroups = n;
    for (size_t i = 0; i < n; i++)
        group[i] = (int)i;
    const size_t nconf_all = rows.n_block[0] + rows.n_block[1] + rows.n_block[2];
    for (size_t i = n; i < nall; i++)
        fold[i] = -1;
    if (by_config == 2) {
        int kp = program_folds(&rows, fold, nconf_all);
        if (kp < 0) {
            cli_error("out of memory");
            goto out;
        }
        if (kp == 0) {
            cli_error("the scored rows name fewer than two programs (_benchmark): nothing to leave out");
            goto out;
        }
        k = kp;
        ngroups = (size_t)kp;
    } else {
        if (by_config && (ngroups = config_groups(rows.table, group, n)) == 0) {
            cli_error("out of memory");
            goto out;
        }
        if (iolens_detect_folds(fold, y, n, group, k, params.seed) < 0) {
            cli_lib_error();
            goto out;
        }
    }
    iolens_detect_trainset ts = {nall, rows.xm, rows.y, rows.w}; /* the model's matrix */
    iolens_detect_trainset tsb = {nall, rows.x, rows.y, rows.w}; /* the baselines see the rows as read */
    cli_progress prog;
    cli_progress_init(&prog, "cross-validating", (unsigned long)k * NL * (unsigned long)params.n_trees);
    params.progress = on_progress;
    params.progress_ctx = &prog;
    int cvrc = iolens_detect_cv(oof, &ts, &params, fold, k);
    cli_progress_end(&prog);
    if (cvrc < 0 || iolens_detect_baseline_p90(methods[3].pred, &tsb, fold, k) < 0 ||
        iolens_detect_baseline_majority(methods[4].pred, &tsb, fold, k) < 0) {
        cli_lib_error();
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const double *p = oof + i * NL;
        for (int l = 0; l < NL; l++)
            methods[0].pred[i * NL + l] = p[l] >= 0.5;
        unsigned gate = iolens_detect_gate(p, IOLENS_DETECT_TAU);
        unsigned rules = iolens_detect_rules(x + i * NF, NULL, 0), ins = 0;
        iolens_detect_insights(x + i * NF, NULL, 0, &ins);
        for (int l = 0; l < IOLENS_DETECT_NPATTERNS; l++) {
            methods[1].pred[i * NL + l] = (gate >> l) & 1u;
            methods[2].pred[i * NL + l] = (rules >> l) & 1u;
            methods[5].pred[i * NL + l] = (ins >> l) & 1u;
        }
        methods[1].pred[i * NL + IOLENS_DETECT_NPATTERNS] = gate == 0;
        methods[2].pred[i * NL + IOLENS_DETECT_NPATTERNS] = rules == 0;
        methods[5].pred[i * NL + IOLENS_DETECT_NPATTERNS] = ins == 0;
    }
    if (pred_path && write_predictions(pred_path, rows.table, oof, y, methods[1].pred, methods[5].pred, fold, n) != CLI_OK)
        goto out;
    for (int m = 0; m < nmethods; m++) {
        iolens_detect_score(&methods[m].s, y, methods[m].pred, NULL, n);
        if (iolens_detect_bootstrap(&methods[m].lo, &methods[m].hi, y, methods[m].pred, n, reps, params.seed + 1) <
            0) {
            cli_lib_error();
            goto out;
        }
    }

    if (json) {
        iol_jsonw jw;
        iol_jsonw_init(&jw, stdout, 1);
        iol_jsonw_obj_begin(&jw);
        iol_jsonw_key(&jw, "scored");
        iol_jsonw_str(&jw, kind_names[rows.kind[0]]);
        iol_jsonw_key(&jw, "rows");
        iol_jsonw_uint(&jw, n);
        iol_jsonw_key(&jw, "weight");
        iol_jsonw_double(&jw, scored_weight);
        iol_jsonw_key(&jw, "dev_rows");
        iol_jsonw_uint(&jw, rows.n_dev);
        iol_jsonw_key(&jw, "dev_weight");
        iol_jsonw_double(&jw, weight);
        iol_jsonw_key(&jw, "corpus_rows");
        iol_jsonw_uint(&jw, rows.n_corpus);
        iol_jsonw_key(&jw, "corpus_weight");
        iol_jsonw_double(&jw, corpus_weight);
        iol_jsonw_key(&jw, "suite_rows");
        iol_jsonw_uint(&jw, rows.n_suite);
        iol_jsonw_key(&jw, "suite_weight");
        iol_jsonw_double(&jw, suite_weight);
        iol_jsonw_key(&jw, "rule_rows");
        iol_jsonw_uint(&jw, rows.n_rule);
        iol_jsonw_key(&jw, "rule_weight");
        iol_jsonw_double(&jw, rule_weight);
        iol_jsonw_key(&jw, "folds");
        iol_jsonw_int(&jw, k);
        iol_jsonw_key(&jw, "group");
        iol_jsonw_str(&jw, by_config == 2 ? "program" : by_config ? "config" : "row");
        iol_jsonw_key(&jw, "groups");
        iol_jsonw_uint(&jw, ngroups);
        iol_jsonw_key(&jw, "seed");
        iol_jsonw_uint(&jw, params.seed);
        iol_jsonw_key(&jw, "trees");
        iol_jsonw_int(&jw, params.n_trees);
        iol_jsonw_key(&jw, "bootstrap");
        iol_jsonw_int(&jw, reps);
        iol_jsonw_key(&jw, "methods");
        iol_jsonw_arr_begin(&jw);
        for (int m = 0; m < nmethods; m++) {
            const struct method *me = &methods[m];
            iol_jsonw_obj_begin(&jw);
            iol_jsonw_key(&jw, "name");
            iol_jsonw_str(&jw, me->name);
            json_score(&jw, "micro_f1", me->s.micro_f1, me->lo.micro_f1, me->hi.micro_f1);
            json_score(&jw, "macro_f1", me->s.macro_f1, me->lo.macro_f1, me->hi.macro_f1);
            json_score(&jw, "hamming", me->s.hamming, me->lo.hamming, me->hi.hamming);
            json_score(&jw, "subset", me->s.subset, me->lo.subset, me->hi.subset);
            iol_jsonw_key(&jw, "labels");
            iol_jsonw_obj_begin(&jw);
            for (int l = 0; l < NL; l++) {
                iol_jsonw_key(&jw, iolens_detect_label_name(l));
                iol_jsonw_obj_begin(&jw);
                json_score(&jw, "precision", me->s.precision[l], me->lo.precision[l], me->hi.precision[l]);
                json_score(&jw, "recall", me->s.recall[l], me->lo.recall[l], me->hi.recall[l]);
                json_score(&jw, "f1", me->s.f1[l], me->lo.f1[l], me->hi.f1[l]);
                iol_jsonw_obj_end(&jw);
            }
            iol_jsonw_obj_end(&jw);
            iol_jsonw_obj_end(&jw);
        }
        iol_jsonw_arr_end(&jw);
        iol_jsonw_obj_end(&jw);
        iol_jsonw_finish(&jw);
    } else {
        char other[256] = "";
        static const char *const long_names[] = {"configuration-labeled dev", "local corpus", "real-program suite"};
        const double wk[3] = {weight, corpus_weight, suite_weight};
        for (int j = 1; j < 3; j++)
            if (rows.n_block[j])
                snprintf(other + strlen(other), sizeof other - strlen(other), "%zu %s rows (weight %g) and ",
                         rows.n_block[j], long_names[rows.kind[j]], wk[rows.kind[j]]);
        if (by_config == 2)
            printf("%zu %s rows (weight %g) scored leaving one program out (%d programs; a program's rows\n"
                   "in every source leave training with it); %s%zu rule-labeled rows (weight %g) in every\n"
                   "training fold; seed %llu, %d trees; 95%% intervals from %d bootstrap resamples\n\n",
                   n, long_names[rows.kind[0]], scored_weight, k, other, rows.n_rule, rule_weight,
                   (unsigned long long)params.seed, params.n_trees, reps);
        else
            printf("%zu %s rows (weight %g) scored by %d-fold CV stratified by label set, grouped by\n"
                   "%s (%zu groups); %s%zu rule-labeled rows (weight %g) in every training fold; seed %llu,\n"
                   "%d trees; 95%% intervals from %d bootstrap resamples of the out-of-fold predictions\n\n",
                   n, long_names[rows.kind[0]], scored_weight, k, by_config ? "configuration" : "row", ngroups,
                   other, rows.n_rule, rule_weight, (unsigned long long)params.seed, params.n_trees, reps);
        printf("%-30s  %-20s  %-20s  %-20s  %-20s\n", "method", "Micro-F1", "Macro-F1", "Hamming (lower better)",
               "Subset accuracy");
        for (int m = 0; m < nmethods; m++) {
            const struct method *me = &methods[m];
            printf("%-30s", me->name);
            print_cell(me->s.micro_f1, me->lo.micro_f1, me->hi.micro_f1);
            print_cell(me->s.macro_f1, me->lo.macro_f1, me->hi.macro_f1);
            print_cell(me->s.hamming, me->lo.hamming, me->hi.hamming);
            print_cell(me->s.subset, me->lo.subset, me->hi.subset);
            printf("\n");
        }
        for (int m = 0; m < 3; m++) {
            const struct method *me = &methods[m];
            printf("\nper label, %s:\n%-24s  %-20s  %-20s  %-20s\n", me->name, "label", "precision", "recall", "F1");
            for (int l = 0; l < NL; l++) {
                printf("%-24s", iolens_detect_label_name(l));
                print_cell(me->s.precision[l], me->lo.precision[l], me->hi.precision[l]);
                print_cell(me->s.recall[l], me->lo.recall[l], me->hi.recall[l]);
                print_cell(me->s.f1[l], me->lo.f1[l], me->hi.f1[l]);
                printf("\n");
            }
        }
    }
    rc = CLI_OK;
out:
    for (int m = 0; m < nmethods; m++)
        free(methods[m].pred);
    cli_detect_rows_release(&rows);
    free(oof);
    free(fold);
    free(group);
    return rc;
}
