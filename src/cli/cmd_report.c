/* iolens report: one offline HTML page of a job (src/report). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "iolens/report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens report [-o REPORT.html] [--json FILE] [--timeline FILE] [--whatif WHATIF.json]\n"
            "                     [--cluster DIR] [--models DIR] [--no-diagnosis] [--tau T] [--max-segments N]\n"
            "                     LOG|TRACE|RECORDER_DIR\n\n"
            "Writes one self-contained HTML page of a job (inline SVG and CSS: no script, nothing\n"
            "loaded from elsewhere; it opens from a file on an air-gapped machine): the job and its\n"
            "file systems, I/O cost and operation counts per module, access-size histograms and the\n"
            "common access sizes, data access by category (read-only, write-only, read-write; shared\n"
            "or per process), a heatmap of bytes over time per rank (the log's heatmap module, or DXT\n"
            "segments), a per-rank timeline of the DXT segments (sampled for big jobs), the diagnosis\n"
            "(pattern probabilities, SHAP contributions, cards, largest files, the rule baseline) and\n"
            "what-if results, and the clusters of a set of jobs. A trace is turned into Darshan\n"
            "counters and DXT segments first.\n\n"
            "  -o, --output FILE  the page (default: standard output)\n"
            "  --json FILE        also write the figures drawn as JSON (the machine form)\n"
            "  --timeline FILE    also write every call as a Trace Event Format timeline (as\n"
            "                     `iolens view --chrome-trace`), linked from the page's timeline\n"
            "  --whatif FILE      output of `iolens whatif --json` to show\n"
            "  --cluster DIR      output folder of `iolens cluster --out DIR` to show: centroids\n"
            "                     with axes and units, cluster sizes, this job's clusters\n"
            "  --models DIR       pattern models (default $IOLENS_MODELS or %s)\n"
            "  --no-diagnosis     leave the diagnosis out\n"
            "  --tau T            gate threshold of the diagnosis (default 0.3)\n"
            "  --max-segments N   timeline segments drawn at most (default 20000)\n",
            iolens_detect_default_models_dir());
}

int cmd_report(int argc, char **argv)
{
    static const char *const with_value[] = {"-o", "--output", "--json", "--timeline", "--whatif", "--cluster", "--models", "--tau",
                                             "--max-segments", NULL};
    cli_permute(argc, argv, with_value);
    iolens_report_options opt;
    iolens_report_options_init(&opt);
    const char *outp = NULL, *jsonp = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return CLI_OK;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has) {
            outp = argv[++i];
        } else if (!strcmp(a, "--json") && has) {
            jsonp = argv[++i];
        } else if (!strcmp(a, "--timeline") && has) {
            opt.timeline_file = argv[++i];
        } else if (!strcmp(a, "--whatif") && has) {
            opt.whatif_json = argv[++i];
        } else if (!strcmp(a, "--cluster") && has) {
            opt.cluster_dir = argv[++i];
        } else if (!strcmp(a, "--models") && has) {
            opt.models_dir = argv[++i];
        } else if (!strcmp(a, "--no-diagnosis")) {
            opt.no_diagnosis = 1;
        } else if (!strcmp(a, "--tau") && has) {
            char *end;
            opt.tau = strtod(argv[++i], &end);
            if (*end || !(opt.tau > 0 && opt.tau < 1)) {
                cli_error("--tau wants a number between 0 and 1, not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--max-segments") && has) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 10000000) {
                cli_error("--max-segments wants a count from 1 to 10000000, not '%s'", argv[i]);
                return CLI_USAGE;
            }
            opt.max_segments = (int)n;
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else {
            cli_unknown_option("report", a, usage);
            return CLI_USAGE;
        }
    }
    if (i + 1 != argc) {
        usage(stderr);
        return CLI_USAGE;
    }
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
    FILE *jf = NULL;
    if (jsonp && !(jf = fopen(jsonp, "w"))) {
        cli_error("cannot write '%s'", jsonp);
        return CLI_FAIL;
    }
    int rc = iolens_report_write(argv[i], &opt, stdout, jf);
    if (jf && fclose(jf) != 0 && rc == 0) {
        cli_error("cannot write '%s'", jsonp);
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
