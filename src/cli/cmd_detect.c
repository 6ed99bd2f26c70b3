/* iolens detect: the seven I/O bottleneck patterns of logs, or of feature rows. */
#include "cli.h"
#include "opt.h"
#include "iolens/darshan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "util/jsonw.h"

enum { O_MODELS = 1, O_FEATURES, O_JSON, O_OUTPUT, O_CSV, O_RULES, O_TOP, O_TAU, O_ALL_PATHS, O_COLOR };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the output to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "one JSON document (the machine form)"},
    {O_FEATURES, 0, "features", "CSV", "feature rows in the layout of dev_features.csv instead of inputs"},
    {O_CSV, 0, "csv", NULL, "with --features: one CSV row per input row, one probability column per\n"
                            "label and `detected`"},
    {O_MODELS, 0, "models", "DIR", "model folder (default: $IOLENS_MODELS or the installed models, below)"},
    {O_RULES, 0, "rules", NULL, "add the Drishti-rule baseline's triggers"},
    {O_TOP, 0, "top", "N", "SHAP contributions shown per detected pattern (default 5)"},
    {O_TAU, 0, "tau", "T", "gate threshold, above 0 and at most 1 (default 0.3)"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "traces: keep files under /dev/ /proc/ /etc/ /usr/ ..., which Darshan\n"
                                        "(and so the default) leaves out"},
    {O_COLOR, 0, "color", "[=WHEN]", "colour the severities: auto (default: on a terminal, unless NO_COLOR\n"
                                     "is set), always, never"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nThe installed models: %s\n", iolens_detect_default_models_dir());
}

static const cli_spec spec = {
    "detect", "detect [options] LOG|TRACE|DIR...\ndetect --features FILE.csv [--csv|--json] [--models DIR] [--tau T]",
    "Decides which of the seven registered I/O bottleneck patterns a log shows with the\n"
    "trained XGBoost models (gate: a pattern is detected when its probability >= tau, 0.3).\n"
    "An input is a binary Darshan log, darshan-parser text output (--base or --all; gzip\n"
    "allowed), an iolens trace (iolens trace -o) or a Recorder trace directory, told apart\n"
    "by content; a folder that is not a Recorder trace stands for the Darshan logs below it.\n"
    "Traces are turned into Darshan counters first (docs/detect.md). For each input:\n"
    "probabilities, the detected set, top SHAP contributions, pattern cards and per-file\n"
    "evidence.",
    optv, NULL, more, 0};

struct opts {
    const char *models;
    const char *features;
    int json, csv, rules, top, all_paths;
    double tau;
};

static void detected_names(unsigned set, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t len = 0;
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if (set & (1u << p)) {
            int n = snprintf(buf + len, size - len, "%s%s", len ? ";" : "", iolens_detect_label_name(p));
            if (n < 0 || (size_t)n >= size - len)
                break;
            len += (size_t)n;
        }
}

/* The models are loaded when the first input has been read, so an input that cannot be read
 * (a FIFO nobody writes to, a missing file) fails without first paying for the load. */
struct models {
    const char *dir;
    iolens_detect_model *m;
    int failed;
};

static iolens_detect_model *models_get(struct models *ms)
{
    if (!ms->m && !ms->failed && iolens_detect_model_load(&ms->m, ms->dir) < 0) {
        ms->failed = 1;
        cli_lib_error();
    }
    return ms->m;
}

static int detect_features(const struct opts *o, struct models *ms)
{
    iolens_detect_model *m;
    iolens_detect_table *t = NULL;
    double *probs = NULL;
    int rc = CLI_FAIL;
    if (iolens_detect_table_read(&t, o->features) < 0) {
        cli_lib_error();
        goto out;
    }
    if (!(m = models_get(ms)))
        goto out;
    size_t n = iolens_detect_table_rows(t);
    probs = malloc((n ? n : 1) * IOLENS_DETECT_NLABELS * sizeof *probs);
    double *x = malloc((n ? n : 1) * IOLENS_DETECT_NFEATURES * sizeof *x);
    if (!probs || !x) {
        free(x);
        cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(x + i * IOLENS_DETECT_NFEATURES, iolens_detect_table_row(t, i), IOLENS_DETECT_NFEATURES * sizeof *x);
    int prc = iolens_detect_predict(m, x, n, probs);
    free(x);
    if (prc < 0) {
        cli_lib_error();
        goto out;
    }
    char names[512];
    if (o->json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 1);
        iol_jsonw_arr_begin(&w);
        for (size_t i = 0; i < n; i++) {
            const double *p = probs + i * IOLENS_DETECT_NLABELS;
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "row");
            iol_jsonw_uint(&w, i);
            iol_jsonw_key(&w, "probabilities");
            iol_jsonw_obj_begin(&w);
            for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
                iol_jsonw_key(&w, iolens_detect_label_name(l));
                iol_jsonw_double(&w, p[l]);
            }
            iol_jsonw_obj_end(&w);
            iol_jsonw_key(&w, "detected");
            iol_jsonw_arr_begin(&w);
            unsigned set = iolens_detect_gate(p, o->tau);
            for (int l = 0; l < IOLENS_DETECT_NPATTERNS; l++)
                if (set & (1u << l))
                    iol_jsonw_str(&w, iolens_detect_label_name(l));
            iol_jsonw_arr_end(&w);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_finish(&w);
    } else {
        /* CSV (also the default for feature rows) */
        for (int l = 0; l < IOLENS_DETECT_NLABELS; l++)
            printf("%s,", iolens_detect_label_name(l));
        printf("detected\n");
        for (size_t i = 0; i < n; i++) {
            const double *p = probs + i * IOLENS_DETECT_NLABELS;
            for (int l = 0; l < IOLENS_DETECT_NLABELS; l++)
                printf("%.6f,", p[l]);
            detected_names(iolens_detect_gate(p, o->tau), names, sizeof names);
            printf("%s\n", names);
        }
    }
    rc = fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
out:
    free(probs);
    iolens_detect_table_free(t);
    return rc;
}

struct contrib {
    int feature;
    double value;
};

static int cmp_contrib(const void *a, const void *b)
{
    double x = fabs(((const struct contrib *)a)->value), y = fabs(((const struct contrib *)b)->value);
    return x < y ? 1 : x > y ? -1 : 0;
}

#define MAX_FILES 5

/* One log: features, probabilities, gate, SHAP, cards, evidence. */
static int detect_log(const struct opts *o, struct models *ms, const char *path, iol_jsonw *w)
{
    iolens_detect_model *m = NULL;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES], probs[IOLENS_DETECT_NLABELS], shap[IOLENS_DETECT_NFEATURES + 1];
    iolens_detect_file files[MAX_FILES];
    struct contrib contribs[IOLENS_DETECT_NFEATURES];
    int rc = CLI_FAIL, nfiles;
    iolens_detect_diagnosis dg;
    if (cli_detect_read(&in, path, o->all_paths) < 0 || iolens_detect_input_features(in, x) < 0 ||
        (nfiles = iolens_detect_input_top_files(in, files, MAX_FILES)) < 0) {
        cli_lib_error();
        goto out;
    }
    if (!(m = models_get(ms)))
        goto out;
    if (iolens_detect_diagnose(m, x, nfiles, o->tau, &dg) < 0) {
        cli_lib_error();
        goto out;
    }
    /* No POSIX, MPI-IO or STDIO record (a trace whose files are all under Darshan's excluded
     * paths, or an empty log): nothing is detected; the probabilities are still shown. A card
     * the counters contradict is not presented. */
    memcpy(probs, dg.probs, sizeof probs);
    const int no_records = dg.no_records;
    const char *const *why = dg.why;
    unsigned set = dg.presented, demoted = dg.demoted;
    char codes[128];
    unsigned rules = iolens_detect_rules(x, codes, sizeof codes), ins_set = 0;
    iolens_detect_insight ins[24];
    int nins = o->rules ? iolens_detect_insights(x, ins, 24, &ins_set) : 0;
    nins = nins > 24 ? 24 : nins;
    char names[512];
    detected_names(set, names, sizeof names);

    if (w) {
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "log");
        iol_jsonw_str(w, path);
        iol_jsonw_key(w, "nprocs");
        iol_jsonw_double(w, x[iolens_detect_feature_index("nprocs")]);
        iol_jsonw_key(w, "runtime_seconds");
        iol_jsonw_double(w, x[iolens_detect_feature_index("runtime_seconds")]);
        iol_jsonw_key(w, "tau");
        iol_jsonw_double(w, o->tau);
        iol_jsonw_key(w, "no_file_records");
        iol_jsonw_bool(w, no_records);
        iol_jsonw_key(w, "probabilities");
        iol_jsonw_obj_begin(w);
        for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
            iol_jsonw_key(w, iolens_detect_label_name(l));
            iol_jsonw_double(w, probs[l]);
        }
        iol_jsonw_obj_end(w);
        iol_jsonw_key(w, "detected");
        iol_jsonw_arr_begin(w);
    } else {
        printf("%s  (nprocs %.0f, run time %.1f s, %.0f files)\n", path, x[iolens_detect_feature_index("nprocs")],
               x[iolens_detect_feature_index("runtime_seconds")], x[iolens_detect_feature_index("num_files")]);
        /* severities as Drishti prints them: HIGH (probability >= 0.7) and WARN for a detected
         * pattern, INFO for one the counters contradict, OK when none is detected */
        for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
            int on = l < IOLENS_DETECT_NPATTERNS && (set & (1u << l));
            const char *sev = probs[l] >= 0.7 ? CLI_SGR_HIGH : CLI_SGR_WARN;
            printf("  %s%-24s %.4f%s%s\n", on ? cli_sgr(sev) : "", iolens_detect_label_name(l), probs[l],
                   on ? (probs[l] >= 0.7 ? "  detected (HIGH)" : "  detected (WARN)")
                   /* healthy is the absence of a presented pattern, never reported beside one */
                   : l == IOLENS_DETECT_NPATTERNS && set ? "  (not reported: a pattern is detected)"
                                                         : "",
                   on ? cli_sgr(NULL) : "");
        }
        printf("  %sdetected (tau %.2f): %s%s\n", set ? cli_sgr(CLI_SGR_BOLD) : cli_sgr(CLI_SGR_OK), o->tau,
               no_records ? "none (no file record: nothing to diagnose; the console streams are not files, and --all-paths keeps excluded files)"
               : set      ? names
                          : "none (no registered pattern)",
               cli_sgr(NULL));
        for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
            if (demoted & (1u << p))
                printf("  %sINFO not presented: %s (%.4f):%s %s\n", cli_sgr(CLI_SGR_INFO), iolens_detect_label_name(p),
                       probs[p], cli_sgr(NULL), why[p]);
    }
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(set & (1u << p)))
            continue;
        if (iolens_detect_contribs(m, x, p, shap) < 0) {
            cli_lib_error();
            goto out;
        }
        for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++)
            contribs[i] = (struct contrib){i, shap[i]};
        qsort(contribs, IOLENS_DETECT_NFEATURES, sizeof contribs[0], cmp_contrib);
        const iolens_detect_card *card = iolens_detect_card_get(p);
        iolens_detect_key_feature key[IOLENS_DETECT_NKEY];
        int nkey = iolens_detect_model_key_features(m, p, key, IOLENS_DETECT_NKEY);
        if (nkey < 0)
            nkey = 0;
        if (w) {
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "pattern");
            iol_jsonw_str(w, card->pattern);
            iol_jsonw_key(w, "probability");
            iol_jsonw_double(w, probs[p]);
            iol_jsonw_key(w, "behavior");
            iol_jsonw_str(w, card->behavior);
            iol_jsonw_key(w, "change");
            iol_jsonw_str(w, card->change);
            iol_jsonw_key(w, "does_not_apply_when");
            iol_jsonw_str(w, card->not_applicable);
            iol_jsonw_key(w, "shap_bias");
            iol_jsonw_double(w, shap[IOLENS_DETECT_NFEATURES]);
            iol_jsonw_key(w, "top_contributions");
            iol_jsonw_arr_begin(w);
            for (int i = 0; i < o->top; i++) {
                iol_jsonw_obj_begin(w);
                iol_jsonw_key(w, "feature");
                iol_jsonw_str(w, iolens_detect_feature_name(contribs[i].feature));
                iol_jsonw_key(w, "value");
                iol_jsonw_double(w, x[contribs[i].feature]);
                iol_jsonw_key(w, "shap");
                iol_jsonw_double(w, contribs[i].value);
                iol_jsonw_obj_end(w);
            }
            iol_jsonw_arr_end(w);
            iol_jsonw_key(w, "key_counters");
            iol_jsonw_arr_begin(w);
            for (int k = 0; k < nkey; k++) {
                iol_jsonw_obj_begin(w);
                iol_jsonw_key(w, "feature");
                iol_jsonw_str(w, iolens_detect_feature_name(key[k].feature));
                iol_jsonw_key(w, "value");
                iol_jsonw_double(w, x[key[k].feature]);
                iol_jsonw_key(w, "median_in_training_runs_with_pattern");
                iol_jsonw_double(w, key[k].median_with_label);
                iol_jsonw_obj_end(w);
            }
            iol_jsonw_arr_end(w);
            iol_jsonw_obj_end(w);
        } else {
            printf("\n  %s%s%s (%.4f): %s\n", cli_sgr(probs[p] >= 0.7 ? CLI_SGR_HIGH : CLI_SGR_WARN), card->pattern, cli_sgr(NULL),
                   probs[p], card->behavior);
            printf("    top contributions (SHAP, log-odds; bias %+.3f):\n", shap[IOLENS_DETECT_NFEATURES]);
            for (int i = 0; i < o->top; i++)
                printf("      %+8.3f  %-28s = %.6g\n", contribs[i].value,
                       iolens_detect_feature_name(contribs[i].feature), x[contribs[i].feature]);
            if (nkey > 0) {
                printf("    key counters of the card (this log / median of training runs with the pattern):\n");
                for (int k = 0; k < nkey; k++)
                    if (isnan(key[k].median_with_label))
                        printf("      %-28s %12.6g / (missing)\n", iolens_detect_feature_name(key[k].feature),
                               x[key[k].feature]);
                    else
                        printf("      %-28s %12.6g / %.6g\n", iolens_detect_feature_name(key[k].feature),
                               x[key[k].feature], key[k].median_with_label);
            }
            printf("    %schange:%s %s\n", cli_sgr(CLI_SGR_BOLD), cli_sgr(NULL), card->change);
            printf("    does not apply when: %s\n", card->not_applicable);
        }
    }
    if (w) {
        iol_jsonw_arr_end(w);
        iol_jsonw_key(w, "demoted"); /* above the gate, but the counters contradict the card's premise */
        iol_jsonw_arr_begin(w);
        for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
            if (!(demoted & (1u << p)))
                continue;
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "pattern");
            iol_jsonw_str(w, iolens_detect_label_name(p));
            iol_jsonw_key(w, "probability");
            iol_jsonw_double(w, probs[p]);
            iol_jsonw_key(w, "reason");
            iol_jsonw_str(w, why[p]);
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_arr_end(w);
        iol_jsonw_key(w, "files");
        iol_jsonw_arr_begin(w);
        for (int i = 0; i < nfiles; i++) {
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "path");
            iol_jsonw_str(w, files[i].path);
            iol_jsonw_key(w, "bytes");
            iol_jsonw_int(w, files[i].bytes);
            iol_jsonw_key(w, "operations");
            iol_jsonw_int(w, files[i].ops);
            iol_jsonw_key(w, "small_operations");
            iol_jsonw_int(w, files[i].small_ops);
            iol_jsonw_key(w, "ranks");
            iol_jsonw_int(w, files[i].ranks);
            iol_jsonw_key(w, "mpiio_independent");
            iol_jsonw_int(w, files[i].mpiio_indep);
            iol_jsonw_key(w, "mpiio_collective");
            iol_jsonw_int(w, files[i].mpiio_coll);
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_arr_end(w);
        if (o->rules) {
            iol_jsonw_key(w, "rules");
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "insights");
            iol_jsonw_arr_begin(w);
            for (int i = 0; i < nins; i++) {
                iol_jsonw_obj_begin(w);
                iol_jsonw_key(w, "code");
                iol_jsonw_str(w, ins[i].code);
                iol_jsonw_key(w, "level");
                iol_jsonw_str(w, ins[i].level);
                iol_jsonw_key(w, "pattern");
                if (ins[i].pattern >= 0)
                    iol_jsonw_str(w, iolens_detect_label_name(ins[i].pattern));
                else
                    iol_jsonw_null(w);
                iol_jsonw_key(w, "message");
                iol_jsonw_str(w, ins[i].message);
                iol_jsonw_key(w, "recommendation");
                iol_jsonw_str(w, ins[i].recommendation);
                iol_jsonw_obj_end(w);
            }
            iol_jsonw_arr_end(w);
            iol_jsonw_key(w, "patterns");
            iol_jsonw_arr_begin(w);
            for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
                if (ins_set & (1u << p))
                    iol_jsonw_str(w, iolens_detect_label_name(p));
            iol_jsonw_arr_end(w);
            /* IOSage's mapping of Drishti's triggers (drishti_code_to_label.tsv), which labels
             * the rule-labelled training logs and which eval scores as "Drishti rules" */
            iol_jsonw_key(w, "iosage_mapping");
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "codes");
            iol_jsonw_str(w, codes);
            iol_jsonw_key(w, "patterns");
            iol_jsonw_arr_begin(w);
            for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
                if (rules & (1u << p))
                    iol_jsonw_str(w, iolens_detect_label_name(p));
            iol_jsonw_arr_end(w);
            iol_jsonw_obj_end(w);
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_obj_end(w);
    } else {
        if (nfiles > 0) {
            printf("\n  largest files:\n  %14s %10s %7s %6s %10s %10s  %s\n", "bytes", "ops", "small%", "ranks",
                   "mpiio-ind", "mpiio-coll", "path");
            for (int i = 0; i < nfiles; i++)
                printf("  %14lld %10lld %6.1f%% %6lld %10lld %10lld  %s\n", (long long)files[i].bytes,
                       (long long)files[i].ops, files[i].ops ? 100.0 * (double)files[i].small_ops / (double)files[i].ops : 0.0,
                       (long long)files[i].ranks, (long long)files[i].mpiio_indep, (long long)files[i].mpiio_coll,
                       files[i].path);
        }
        if (o->rules) {
            detected_names(ins_set, names, sizeof names);
            printf("\n  rules (Drishti's triggers and iolens's): %s\n", nins ? names[0] ? names : "no pattern" : "no trigger");
            for (int i = 0; i < nins; i++) {
                const char *sgr = !strcmp(ins[i].level, "HIGH") ? CLI_SGR_HIGH
                                  : !strcmp(ins[i].level, "WARN") ? CLI_SGR_WARN : CLI_SGR_INFO;
                printf("    %s%-4s %s%s %s%s%s\n", cli_sgr(sgr), ins[i].level, ins[i].code, cli_sgr(NULL), ins[i].message,
                       ins[i].pattern >= 0 ? " -> " : "", ins[i].pattern >= 0 ? iolens_detect_label_name(ins[i].pattern) : "");
                if (ins[i].recommendation[0])
                    printf("         recommendation: %s\n", ins[i].recommendation);
            }
            detected_names(rules, names, sizeof names);
            printf("  IOSage's mapping of Drishti's triggers: %s -> %s\n", codes[0] ? codes : "no trigger",
                   rules ? names : "no pattern");
        }
        printf("\n");
    }
    rc = CLI_OK;
out:
    iolens_detect_input_free(in);
    return rc;
}

int cmd_detect(int argc, char **argv)
{
    struct opts o = {getenv("IOLENS_MODELS"), NULL, 0, 0, 0, 5, 0, IOLENS_DETECT_TAU};
    const char *output = NULL;
    int color = CLI_COLOR_AUTO;
    cli_args a;
    if (cli_args_init(&a, &spec, argc, argv) < 0)
        return CLI_FAIL;
    int id;
    long top;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_JSON: o.json = 1; break;
        case O_CSV: o.csv = 1; break;
        case O_RULES: o.rules = 1; break;
        case O_ALL_PATHS: o.all_paths = 1; break;
        case O_COLOR:
            if (cli_color_value(a.val, &color) < 0)
                return cli_args_exit(&a, CLI_OPT_ERROR);
            break;
        case O_OUTPUT: output = a.val; break;
        case O_MODELS: o.models = a.val; break;
        case O_FEATURES: o.features = a.val; break;
        case O_TOP:
            if (cli_val_long(&a, 0, IOLENS_DETECT_NFEATURES, &top) < 0)
                return cli_args_exit(&a, CLI_OPT_ERROR);
            o.top = (int)top;
            break;
        case O_TAU:
            if (cli_val_double(&a, 1e-9, 1, &o.tau) < 0)
                return cli_args_exit(&a, CLI_OPT_ERROR);
            break;
        }
    }
    if (id == CLI_OPT_END && !o.features)
        id = cli_want_operands(&a, 1, -1, "LOG|TRACE|DIR");
    if (id == CLI_OPT_END && o.features && a.noperands)
        id = cli_usage_error(&spec, "give either --features FILE.csv or logs, not both");
    if (id == CLI_OPT_END && o.csv && !o.features)
        id = cli_usage_error(&spec, "--csv needs --features (use --json for logs)");
    if (id == CLI_OPT_END && o.csv && o.json)
        id = cli_usage_error(&spec, "--csv and --json exclude each other");
    if (id < 0)
        return cli_args_exit(&a, id);
    if (cli_output_to(output) < 0)
        return CLI_FAIL;
    cli_color_set(o.json || o.csv ? CLI_COLOR_NEVER : color);
    if (!o.models)
        o.models = iolens_detect_default_models_dir();
    struct models ms = {.dir = o.models};
    if (iolens_detect_model_check(o.models) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    if (o.features) {
        rc = detect_features(&o, &ms);
    } else {
        iol_jsonw w;
        if (o.json) {
            iol_jsonw_init(&w, stdout, 1);
            iol_jsonw_arr_begin(&w);
        }
        size_t nin = 0;
        char **inputs = cli_find_logs(a.noperands, a.operands, &nin); /* a folder: its logs */
        if (!inputs)
            rc = CLI_FAIL;
        for (size_t i = 0; i < nin && !ms.failed; i++)
            if (detect_log(&o, &ms, inputs[i], o.json ? &w : NULL) != CLI_OK)
                rc = CLI_FAIL;
        iolens_darshan_logs_free(inputs, nin);
        if (o.json) {
            iol_jsonw_arr_end(&w);
            iol_jsonw_finish(&w);
        }
    }
    iolens_detect_model_free(ms.m);
    return rc;
}
