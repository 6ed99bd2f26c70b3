/* iolens darshan: print a Darshan log like darshan-parser / darshan-dxt-parser. */
#include "cli.h"

#include "darshan_modes.h"
#include "darshan_from.h"
#include "darshan_tools.h"
#include "darshan_text.h"
#include "iolens/darshan.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens darshan [--all] [--base] [--total] [--perf] [--file] [--show-incomplete] LOG\n"
            "       iolens darshan --dxt [--show-incomplete] LOG\n"
            "       iolens darshan --json [--pretty] LOG\n"
            "       iolens darshan --heatmap LOG\n"
            "       iolens darshan --report LOG\n"
            "       iolens darshan --summary [--json] [-j N] FILE_OR_DIR...\n"
            "       iolens darshan --from TRACE -o LOG.darshan (see --from --help)\n"
            "       iolens darshan --convert LOG -o OUT | --merge LOG... -o OUT | --diff A B\n"
            "                      (see --convert --help)\n\n"
            "Prints a Darshan log as darshan-parser does (or darshan-dxt-parser with --dxt).\n"
            "  --base             the log's records (default when no other section is asked)\n"
            "  --total            per-module aggregate of every counter\n"
            "  --file             per-module file counts (read-only, write-only, shared, ...)\n"
            "  --perf             per-module performance estimates (agg_perf_by_slowest, ...)\n"
            "  --all              --base --total --file --perf --show-incomplete\n"
            "  --show-incomplete  print modules the runtime marked incomplete (else exit 1)\n"
            "  --dxt              print the DXT_POSIX/DXT_MPIIO traces\n"
            "  --json             the whole log as one JSON document (job, mounts, names, records)\n"
            "  --heatmap          job-level HEATMAP series as CSV (bytes per bin summed over ranks)\n"
            "  --report           human summary of the job (volumes, times, sizes, top files)\n"
            "  --color[=WHEN]     --report: colour headings and warnings: auto (default: on a\n"
            "                     terminal, unless NO_COLOR is set), always, never\n"
            "  -o, --output FILE  write there instead of stdout ('-': stdout)\n"
            "  --summary          one CSV row (JSON object with --json) per log; directories are\n"
            "                     searched recursively for *.darshan; unreadable logs are reported\n"
            "                     and skipped (exit 0 if at least one log was read); links to\n"
            "                     directories are not followed, each directory is read once\n"
            "  --follow-links     with --summary: follow links to directories too\n"
            "  -j N               threads for --summary (default 2)\n"
            "Times are printed in the local time zone, like the reference (set TZ=UTC to compare).\n");
}

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

int cmd_darshan(int argc, char **argv)
{
    unsigned mask = 0;
    int dxt = 0, json = 0, pretty = 0, heatmap = 0, summary = 0, report = 0, jobs = 2, follow = 0;
    int color = CLI_COLOR_AUTO, crc;
    const char *path = NULL, *outp = NULL;
    if (iol_darshan_from_wanted(argc, argv))
        return iol_darshan_from_main(argc, argv);
    if (iol_darshan_tools_wanted(argc, argv))
        return iol_darshan_tools_main(argc, argv);
    int npaths = 0;
    char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            goto out;
        } else if (!strcmp(a, "--all")) { /* darshan-parser's --all shows incomplete data too */
            mask |= IOL_DT_BASE | IOL_DT_TOTAL | IOL_DT_FILE | IOL_DT_PERF | IOL_DT_SHOW_INCOMPLETE;
        } else if (!strcmp(a, "--base")) {
            mask |= IOL_DT_BASE;
        } else if (!strcmp(a, "--total")) {
            mask |= IOL_DT_TOTAL;
        } else if (!strcmp(a, "--file")) {
            mask |= IOL_DT_FILE;
        } else if (!strcmp(a, "--perf")) {
            mask |= IOL_DT_PERF;
        } else if (!strcmp(a, "--show-incomplete")) {
            mask |= IOL_DT_SHOW_INCOMPLETE;
        } else if (!strcmp(a, "--dxt")) {
            dxt = 1;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
            outp = argv[++i];
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--pretty")) {
            pretty = 1;
        } else if (!strcmp(a, "--heatmap")) {
            heatmap = 1;
        } else if (!strcmp(a, "--summary")) {
            summary = 1;
        } else if (!strcmp(a, "--follow-links")) {
            follow = 1;
        } else if (!strcmp(a, "--report")) {
            report = 1;
        } else if ((crc = cli_color_option(a, &color)) != 0) {
            if (crc < 0) {
                rc = CLI_USAGE;
                goto out;
            }
        } else if (!strcmp(a, "-j") || !strncmp(a, "--jobs=", 7) || (!strncmp(a, "-j", 2) && a[2])) {
            const char *v = !strcmp(a, "-j") ? (i + 1 < argc ? argv[++i] : NULL) : a[1] == 'j' ? a + 2 : a + 7;
            char *end;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || n < 1 || n > 256) {
                cli_error("-j needs a number of threads between 1 and 256");
                rc = CLI_USAGE;
                goto out;
            }
            jobs = (int)n;
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("darshan", a, usage);
            rc = CLI_USAGE;
            goto out;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    cli_color_set(report ? color : CLI_COLOR_NEVER); /* the other modes are darshan-parser's text */
    if (dxt + heatmap + summary + report + (json && !summary) > 1) {
        cli_error("--dxt, --json, --heatmap, --report and --summary are exclusive (--json goes with --summary)");
        rc = CLI_USAGE;
        goto out;
    }
    if (npaths == 0) {
        usage(stderr);
        rc = CLI_USAGE;
        goto out;
    }
    if (npaths > 1 && !summary) {
        cli_error("only one LOG can be given (--summary takes several)");
        rc = CLI_USAGE;
        goto out;
    }
    if (cli_output_to(outp) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    if (summary) {
        rc = iol_darshan_summary(npaths, paths, jobs, json, follow);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("cannot write '%s': %s", outp && strcmp(outp, "-") ? outp : "stdout", strerror(errno));
            rc = CLI_FAIL;
        }
        goto out;
    }
    path = paths[0];
    if (!(mask & (IOL_DT_BASE | IOL_DT_TOTAL | IOL_DT_FILE | IOL_DT_PERF)))
        mask |= IOL_DT_BASE;
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
        lrc = iol_darshan_print_report(out, path);
    else if (dxt)
        lrc = iol_darshan_print_dxt(out, path, mask);
    else
        lrc = iol_darshan_print_parser(out, path, mask);
    if (fflush(out) != 0 || ferror(out)) {
        cli_error("cannot write '%s': %s", outp && strcmp(outp, "-") ? outp : "stdout", strerror(errno));
        if (lrc >= 0)
            lrc = IOL_DT_WRITE_FAILED;
    }
    if (lrc == IOL_DT_WRITE_FAILED) {
        rc = CLI_FAIL;
        goto out;
    }
    if (lrc == IOL_DT_INCOMPLETE) {
        rc = CLI_FAIL;
    } else if (lrc < 0) {
        cli_lib_error();
        rc = CLI_FAIL;
    }
out:
    free(paths);
    return rc;
}
