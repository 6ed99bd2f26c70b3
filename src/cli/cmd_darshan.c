/* iolens darshan: print a Darshan log like darshan-parser / darshan-dxt-parser. */
#include "cli.h"

#include "darshan_from.h"
#include "darshan_text.h"
#include "iolens/darshan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens darshan [--all] [--base] [--total] [--perf] [--file] [--show-incomplete] LOG\n"
            "       iolens darshan --dxt [--show-incomplete] LOG\n"
            "       iolens darshan --from TRACE -o LOG.darshan (see --from --help)\n\n"
            "Prints a Darshan log as darshan-parser does (or darshan-dxt-parser with --dxt).\n"
            "  --base             the log's records (default when no other section is asked)\n"
            "  --total            per-module aggregate of every counter\n"
            "  --file             per-module file counts (read-only, write-only, shared, ...)\n"
            "  --perf             per-module performance estimates (agg_perf_by_slowest, ...)\n"
            "  --all              --base --total --file --perf\n"
            "  --show-incomplete  print modules the runtime marked incomplete (else exit 1)\n"
            "  --dxt              print the DXT_POSIX/DXT_MPIIO traces\n"
            "Times are printed in the local time zone, like the reference (set TZ=UTC to compare).\n");
}

int cmd_darshan(int argc, char **argv)
{
    unsigned mask = 0;
    int dxt = 0;
    const char *path = NULL;
    if (iol_darshan_from_wanted(argc, argv))
        return iol_darshan_from_main(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--all")) {
            mask |= IOL_DT_BASE | IOL_DT_TOTAL | IOL_DT_FILE | IOL_DT_PERF;
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
        } else if (a[0] == '-' && a[1]) {
            cli_error("unknown option '%s'", a);
            usage(stderr);
            return CLI_USAGE;
        } else if (path) {
            cli_error("only one LOG can be given");
            return CLI_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!(mask & (IOL_DT_BASE | IOL_DT_TOTAL | IOL_DT_FILE | IOL_DT_PERF)))
        mask |= IOL_DT_BASE;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int rc = dxt ? iol_darshan_print_dxt(stdout, path, mask) : iol_darshan_print_parser(stdout, path, mask);
    fflush(stdout);
    if (rc == IOL_DT_INCOMPLETE)
        return CLI_FAIL;
    if (rc < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    return CLI_OK;
}
