/* iolens darshan: print a Darshan log like darshan-parser / darshan-dxt-parser. */
#include "cli.h"
#include "opt.h"

#include "darshan_from.h"
#include "darshan_tools.h"
#include "iolens/darshan.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

enum { O_ALL = 1, O_BASE, O_TOTAL, O_FILE, O_PERF, O_SHOW_INC, O_DXT, O_JSON, O_PRETTY, O_HEATMAP, O_REPORT,
       O_COLOR, O_OUTPUT, O_SUMMARY, O_FOLLOW, O_JOBS, O_FROM, O_CONVERT, O_MERGE, O_DIFF };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write there instead of standard output ('-': standard output)"},
    {O_BASE, 0, "base", NULL, "the log's records (the default when no other section is asked)"},
    {O_TOTAL, 0, "total", NULL, "per-module aggregate of every counter"},
    {O_FILE, 0, "file", NULL, "per-module file counts (read-only, write-only, shared, ...)"},
    {O_PERF, 0, "perf", NULL, "per-module performance estimates (agg_perf_by_slowest, ...)"},
    {O_ALL, 0, "all", NULL, "--base --total --file --perf --show-incomplete"},
    {O_SHOW_INC, 0, "show-incomplete", NULL, "print modules the runtime marked incomplete (else exit 1)"},
    {O_DXT, 0, "dxt", NULL, "print the DXT_POSIX/DXT_MPIIO traces (as darshan-dxt-parser)"},
    {O_JSON, 0, "json", NULL, "the whole log as one JSON document (job, mounts, names, records);\n"
                              "with --summary, one JSON document of the rows"},
    {O_PRETTY, 0, "pretty", NULL, "with --json: indented"},
    {O_HEATMAP, 0, "heatmap", NULL, "job-level HEATMAP series as CSV (bytes per bin summed over ranks)"},
    {O_REPORT, 0, "report", NULL, "human summary of the job (volumes, times, sizes, top files)"},
    {O_COLOR, 0, "color", "[=WHEN]", "--report: colour headings and warnings: auto (default: on a\n"
                                     "terminal, unless NO_COLOR is set), always, never"},
    {O_SUMMARY, 0, "summary", NULL, "one CSV row (JSON with --json) per log; directories are searched\n"
                                    "recursively for *.darshan; unreadable logs are reported and skipped\n"
                                    "(exit 0 if at least one log was read); links to directories are not\n"
                                    "followed, each directory is read once"},
    {O_FOLLOW, 0, "follow-links", NULL, "with --summary: follow links to directories too"},
    {O_JOBS, 'j', "jobs", "N", "threads for --summary, 1 to 256 (default 2)"},
    {O_FROM, 0, "from", "TRACE", "write a log computed from a trace (see `iolens darshan --from --help`)"},
    {O_CONVERT, 0, "convert", NULL, "rewrite a log as darshan-convert (see `iolens darshan --convert --help`)"},
    {O_MERGE, 0, "merge", NULL, "join logs as darshan-merge (see `iolens darshan --convert --help`)"},
    {O_DIFF, 0, "diff", NULL, "compare two logs (see `iolens darshan --convert --help`)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "darshan", "darshan [--all] [--base] [--total] [--perf] [--file] [--show-incomplete] LOG\n"
               "darshan --dxt [--show-incomplete] LOG\n"
               "darshan --json [--pretty] LOG\n"
               "darshan --heatmap LOG\n"
               "darshan --report LOG\n"
               "darshan --summary [--json] [-j N] FILE_OR_DIR...\n"
               "darshan --from TRACE -o LOG.darshan\n"
               "darshan --convert LOG -o OUT | --merge LOG... -o OUT | --diff A B",
    "Prints a Darshan log as darshan-parser does (or darshan-dxt-parser with --dxt).",
    optv, "Times are printed in the local time zone, like the reference (set TZ=UTC to compare).", NULL, 0};

static int run_json(FILE *out, const char *path, int pretty)
{
    iolens_darshan_log *log = NULL;
    int rc = iolens_darshan_open(path, cli_warn_cb, NULL, &log);
    if (rc == 0)
        rc = iolens_darshan_write_json(log, out, pretty);
    iolens_darshan_close(log);
    return rc;
}

/* --heatmap: the job-level series as CSV, the log named by its file name. */
static int print_heatmap(FILE *out, const char *path)
{
    iolens_darshan_heatmap h;
    int rc = iolens_darshan_heatmap_read(path, &h);
    if (rc < 0)
        return rc;
    const char *base = strrchr(path, '/');
    iolens_darshan_heatmap_csv_header(out, NULL);
    iolens_darshan_heatmap_csv_rows(out, &h, NULL, base ? base + 1 : path);
    iolens_darshan_heatmap_release(&h);
    return 0;
}

/* --summary: the logs found below the inputs, one row each */
static int summary_rows(int npaths, char **paths, int jobs, int json, int follow)
{
    char **logs = NULL;
    size_t n = 0, nread = 0;
    int flags = IOLENS_DARSHAN_FIND_ANY | IOLENS_DARSHAN_FIND_RECORDER_TOO | (follow ? IOLENS_DARSHAN_FIND_FOLLOW_LINKS : 0);
    if (iolens_darshan_find_logs(paths, (size_t)npaths, flags, &logs, &n, cli_warn_cb, NULL) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    cli_progress prog = {.label = "darshan summary"};
    iolens_darshan_summary_opts o = {jobs, json, cli_progress_cb, &prog, cli_warn_cb, NULL};
    int rc = iolens_darshan_summary_write(stdout, logs, n, &o, &nread);
    if (prog.start)
        cli_progress_end(&prog);
    if (rc < 0)
        cli_lib_error();
    else if (nread < n)
        cli_warn("%zu of %zu logs skipped", n - nread, n);
    iolens_darshan_logs_free(logs, n);
    return rc < 0 ? CLI_FAIL : CLI_OK;
}

int cmd_darshan(int argc, char **argv)
{
    unsigned mask = 0;
    int dxt = 0, json = 0, pretty = 0, heatmap = 0, summary = 0, report = 0, jobs = 2, follow = 0;
    int color = CLI_COLOR_AUTO;
    const char *path = NULL, *outp = NULL;
    if (iol_darshan_from_wanted(argc, argv))
        return iol_darshan_from_main(argc, argv);
    if (iol_darshan_tools_wanted(argc, argv))
        return iol_darshan_tools_main(argc, argv);
    int rc = CLI_OK;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long n;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_ALL: /* darshan-parser's --all shows incomplete data too */
            mask |= IOLENS_DARSHAN_TEXT_BASE | IOLENS_DARSHAN_TEXT_TOTAL | IOLENS_DARSHAN_TEXT_FILE | IOLENS_DARSHAN_TEXT_PERF | IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE;
            break;
        case O_BASE: mask |= IOLENS_DARSHAN_TEXT_BASE; break;
        case O_TOTAL: mask |= IOLENS_DARSHAN_TEXT_TOTAL; break;
        case O_FILE: mask |= IOLENS_DARSHAN_TEXT_FILE; break;
        case O_PERF: mask |= IOLENS_DARSHAN_TEXT_PERF; break;
        case O_SHOW_INC: mask |= IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE; break;
        case O_DXT: dxt = 1; break;
        case O_OUTPUT: outp = a.val; break;
        case O_JSON: json = 1; break;
        case O_PRETTY: pretty = 1; break;
        case O_HEATMAP: heatmap = 1; break;
        case O_SUMMARY: summary = 1; break;
        case O_FOLLOW: follow = 1; break;
        case O_REPORT: report = 1; break;
        case O_COLOR:
            if (cli_color_value(a.val, &color) < 0)
                return CLI_USAGE;
            break;
        case O_JOBS:
            if (cli_val_long(&a, 1, 256, &n) < 0)
                return CLI_USAGE;
            jobs = (int)n;
            break;
        default: break; /* --from, --convert, --merge, --diff went to their own parsers */
        }
    }
    if (id < 0)
        return cli_args_exit(&a, id);
    char **paths = a.operands;
    int npaths = a.noperands;
    cli_color_set(report ? color : CLI_COLOR_NEVER); /* the other modes are darshan-parser's text */
    if (dxt + heatmap + summary + report + (json && !summary) > 1)
        return cli_usage_error(&spec, "--dxt, --json, --heatmap, --report and --summary exclude each other (--json "
                                      "goes with --summary)"), CLI_USAGE;
    if (cli_want_operands(&a, 1, summary ? -1 : 1, summary ? "FILE_OR_DIR" : "LOG") < 0)
        return CLI_USAGE;
    if (cli_output_to(outp) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    if (summary) {
        rc = summary_rows(npaths, paths, jobs, json, follow);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("cannot write '%s': %s", outp && strcmp(outp, "-") ? outp : "stdout", strerror(errno));
            rc = CLI_FAIL;
        }
        goto out;
    }
    path = paths[0];
    if (!(mask & (IOLENS_DARSHAN_TEXT_BASE | IOLENS_DARSHAN_TEXT_TOTAL | IOLENS_DARSHAN_TEXT_FILE | IOLENS_DARSHAN_TEXT_PERF)))
        mask |= IOLENS_DARSHAN_TEXT_BASE;
    FILE *out = stdout;
    static char obuf[1 << 16];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    /* one thread writes a dump of up to millions of short pieces (a DXT log: 955,704 lines):
     * stdio's lock around each piece took a fifth of the time */
    __fsetlocking(out, FSETLOCKING_BYCALLER);
    int lrc;
    if (json)
        lrc = run_json(out, path, pretty);
    else if (heatmap)
        lrc = print_heatmap(out, path);
    else if (report)
        lrc = iolens_darshan_write_report(out, path, cli_color_enabled());
    else if (dxt)
        lrc = iolens_darshan_write_dxt_text(out, stderr, path, mask);
    else
        lrc = iolens_darshan_write_text(out, stderr, path, mask);
    if (fflush(out) != 0 || ferror(out)) {
        cli_error("cannot write '%s': %s", outp && strcmp(outp, "-") ? outp : "stdout", strerror(errno));
        rc = CLI_FAIL;
        goto out;
    }
    if (lrc == IOLENS_DARSHAN_TEXT_INCOMPLETE) {
        rc = CLI_FAIL;
    } else if (lrc < 0) {
        cli_lib_error();
        rc = CLI_FAIL;
    }
out:
    return rc;
}
