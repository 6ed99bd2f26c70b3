/* iolens report: one offline HTML page of a job (src/report). */
#include "cli.h"
#include "util/fs.h"
#include "opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "iolens/report.h"

enum { O_OUTPUT = 1, O_JSON, O_JSON_FILE, O_TIMELINE, O_WHATIF, O_CLUSTER, O_MODELS, O_NO_DIAG, O_TAU, O_MAX_SEG };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "the page, or its JSON with --json (default: standard output)"},
    {O_JSON, 0, "json", NULL, "the figures drawn, as one JSON document, instead of the page (the machine form)"},
    {O_JSON_FILE, 0, "json-file", "FILE", "also write that JSON document to FILE, with the page on the output"},
    {O_TIMELINE, 0, "timeline", "FILE", "also write every call as a Trace Event Format timeline (as\n"
                                        "`iolens view --chrome-trace`), linked from the page's timeline"},
    {O_WHATIF, 0, "whatif", "FILE", "output of `iolens whatif --json` to show"},
    {O_CLUSTER, 0, "cluster", "DIR", "output folder of `iolens cluster -o DIR` to show: centroids with axes\n"
                                     "and units, cluster sizes, this job's clusters"},
    {O_MODELS, 0, "models", "DIR", "pattern models (default: $IOLENS_MODELS or the installed ones, below)"},
    {O_NO_DIAG, 0, "no-diagnosis", NULL, "leave the diagnosis out"},
    {O_TAU, 0, "tau", "T", "gate threshold of the diagnosis, between 0 and 1 (default 0.3)"},
    {O_MAX_SEG, 0, "max-segments", "N", "timeline segments drawn at most (default 20000)"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nThe installed models: %s\n", iolens_detect_default_models_dir());
}

static const cli_spec spec = {
    "report", "report [options] LOG|TRACE|RECORDER_DIR",
    "Writes one self-contained HTML page of a job (inline SVG and CSS: no script, nothing\n"
    "loaded from elsewhere; it opens from a file on an air-gapped machine): the job and its\n"
    "file systems, I/O cost and operation counts per module, access-size histograms and the\n"
    "common access sizes, data access by category (read-only, write-only, read-write; shared\n"
    "or per process), a heatmap of bytes over time per rank (the log's heatmap module, or DXT\n"
    "segments), a per-rank timeline of the DXT segments (sampled for big jobs), the diagnosis\n"
    "(pattern probabilities, SHAP contributions, cards, largest files, the rule baseline) and\n"
    "what-if results, and the clusters of a set of jobs. A trace is turned into Darshan\n"
    "counters and DXT segments first.",
    optv, NULL, more, 0};

int cmd_report(int argc, char **argv)
{
    iolens_report_options opt;
    iolens_report_options_init(&opt);
    const char *outp = NULL, *jsonp = NULL;
    int json = 0;
    cli_args a;
    if (cli_args_init(&a, &spec, argc, argv) < 0)
        return CLI_FAIL;
    int id;
    long n;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_OUTPUT: outp = a.val; break;
        case O_JSON: json = 1; break;
        case O_JSON_FILE: jsonp = a.val; break;
        case O_TIMELINE: opt.timeline_file = a.val; break;
        case O_WHATIF: opt.whatif_json = a.val; break;
        case O_CLUSTER: opt.cluster_dir = a.val; break;
        case O_MODELS: opt.models_dir = a.val; break;
        case O_NO_DIAG: opt.no_diagnosis = 1; break;
        case O_TAU:
            if (cli_val_double(&a, 1e-9, 1 - 1e-9, &opt.tau) < 0)
                return cli_args_exit(&a, CLI_OPT_ERROR);
            break;
        case O_MAX_SEG:
            if (cli_val_long(&a, 1, 10000000, &n) < 0)
                return cli_args_exit(&a, CLI_OPT_ERROR);
            opt.max_segments = (int)n;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 1, 1, "LOG|TRACE|RECORDER_DIR");
    if (id == CLI_OPT_END && json && jsonp)
        id = cli_usage_error(&spec, "--json writes the JSON on the output; --json-file writes it beside the page");
    if (id < 0)
        return cli_args_exit(&a, id);
    const char *input = a.operands[0];
    cli_args_free(&a);
    opt.warn = cli_warn_cb;
    /* the page links the timeline by its name when both are in one folder, else by its path */
    char href[4096];
    if (opt.timeline_file) {
        const char *ts = strrchr(opt.timeline_file, '/'), *ps = outp ? strrchr(outp, '/') : NULL;
        size_t td = ts ? (size_t)(ts - opt.timeline_file) : 0, pd = ps ? (size_t)(ps - outp) : 0;
        if (outp && td == pd && !strncmp(opt.timeline_file, outp, td))
            snprintf(href, sizeof href, "%s", ts ? ts + 1 : opt.timeline_file);
        else
            snprintf(href, sizeof href, "%s", opt.timeline_file);
        opt.timeline_href = href;
    }
    if (outp && cli_output_to(outp) < 0)
        return CLI_FAIL;
    FILE *jf = NULL, *page = stdout;
    iol_atomic ja; /* (whole or not at all, as -o) */
    if (jsonp && !(jf = iol_atomic_fopen(&ja, jsonp, "w"))) {
        cli_error("cannot write '%s': %s", jsonp, strerror(errno));
        return CLI_FAIL;
    }
    if (json && !(page = fopen("/dev/null", "w"))) {
        cli_error("cannot open /dev/null");
        return CLI_FAIL;
    }
    int rc = iolens_report_write(input, &opt, page, json ? stdout : jf);
    if (page != stdout)
        fclose(page);
    if (jf && iol_atomic_fclose(&ja, jf, rc == 0) != 0 && rc == 0) {
        cli_error("cannot write '%s': %s", jsonp, strerror(errno));
        return CLI_FAIL;
    }
    if (rc < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (fflush(stdout) != 0) {
        cli_error("cannot write the report");
        return CLI_FAIL;
    }
    return CLI_OK;
}
