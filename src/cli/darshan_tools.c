/* iolens darshan --convert / --merge / --diff: the option parsing around the library's
 * iolens_darshan_convert, _merge and _diff. */
#include "cli.h"

#include "darshan_tools.h"
#include "iolens/darshan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens darshan --convert LOG -o OUT.darshan [--bzip2|--no-compression]\n"
            "                      [--obfuscate | --obfuscate-names --obfuscate-exe --obfuscate-jobid\n"
            "                       --obfuscate-uid] [--key N] [--modules M,...] [--file ID]...\n"
            "                      [--reset-metadata] [--annotate 'k=v<TAB>k=v']\n"
            "       iolens darshan --merge LOG... -o OUT.darshan [--bzip2|--no-compression]\n"
            "       iolens darshan --diff LOG_A LOG_B [--json]\n\n"
            "--convert rewrites a log in the current format (format 3.41, records up-converted),\n"
            "as darshan-convert does:\n"
            "  --bzip2, --no-compression  compression of the output (default zlib)\n"
            "  --obfuscate        all four below; names and the exe become keyed hashes (lookup3,\n"
            "                     as darshan-convert computes them), so the same key gives the same\n"
            "                     names; record ids are kept\n"
            "  --key N            the hash key (default 0)\n"
            "  --modules M,...    keep only these modules (POSIX,MPI-IO,STDIO,DXT_POSIX,...)\n"
            "  --file ID          keep only the records (and the name) of this record id; repeatable\n"
            "  --reset-metadata   drop the job's metadata lines; --annotate adds some\n"
            "--merge joins logs of one job: the first log's job, exe and mounts, the earliest start\n"
            "and latest end, every record (darshan-merge without --shared-redux).\n"
            "--diff compares two logs record by record (matched by module, id and rank) and\n"
            "prints one line per difference: job fields, names, then\n"
            "  MODULE<TAB>RANK<TAB>ID<TAB>COUNTER<TAB>NAME<TAB>A<TAB>B\n"
            "and '# N differences'; --json prints one document {a, b, items, differences, equal}.\n"
            "The exit status is 0 when the logs were compared, whatever the differences.\n");
}

int iol_darshan_tools_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--convert") || !strcmp(argv[i], "--merge") || !strcmp(argv[i], "--diff"))
            return 1;
    return 0;
}

static int parse_modules(const char *s, uint64_t *mask)
{
    char buf[512];
    if (strlen(s) >= sizeof buf) {
        cli_error("--modules: list too long");
        return -1;
    }
    strcpy(buf, s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int m = iolens_darshan_module_from_name(t);
        if (m <= 0) {
            cli_error("--modules: unknown module '%s' (POSIX, MPI-IO, STDIO, H5F, H5D, PNETCDF_FILE, "
                      "LUSTRE, DXT_POSIX, DXT_MPIIO, HEATMAP, DFS, DAOS, BG/Q)", t);
            return -1;
        }
        *mask |= UINT64_C(1) << m;
    }
    if (!*mask) {
        cli_error("--modules: no module named");
        return -1;
    }
    return 0;
}

int iol_darshan_tools_main(int argc, char **argv)
{
    enum { NONE, CONVERT, MERGE, DIFF };
    int mode = NONE;
    const char *outp = NULL;
    int json = 0, rc = CLI_USAGE;
    iolens_darshan_convert_opts o;
    memset(&o, 0, sizeof o);
    const char **paths = calloc((size_t)argc, sizeof *paths);
    uint64_t *ids = calloc((size_t)argc, sizeof *ids);
    size_t npaths = 0;
    if (!paths || !ids) {
        cli_error("out of memory");
        free(paths);
        free(ids);
        return CLI_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        int which = !strcmp(a, "--convert") ? CONVERT : !strcmp(a, "--merge") ? MERGE : !strcmp(a, "--diff") ? DIFF : NONE;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = CLI_OK;
            goto out;
        } else if (which != NONE) {
            if (mode != NONE && mode != which) {
                cli_error("--convert, --merge and --diff are exclusive");
                goto out;
            }
            mode = which;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has) {
            outp = argv[++i];
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--bzip2")) {
            o.comp = IOLENS_DARSHAN_COMP_BZIP2;
        } else if (!strcmp(a, "--no-compression")) {
            o.comp = IOLENS_DARSHAN_COMP_NONE;
        } else if (!strcmp(a, "--obfuscate")) {
            o.obfuscate |= IOLENS_DARSHAN_OBF_ALL;
        } else if (!strcmp(a, "--obfuscate-names")) {
            o.obfuscate |= IOLENS_DARSHAN_OBF_NAMES;
        } else if (!strcmp(a, "--obfuscate-exe")) {
            o.obfuscate |= IOLENS_DARSHAN_OBF_EXE;
        } else if (!strcmp(a, "--obfuscate-jobid")) {
            o.obfuscate |= IOLENS_DARSHAN_OBF_JOBID;
        } else if (!strcmp(a, "--obfuscate-uid")) {
            o.obfuscate |= IOLENS_DARSHAN_OBF_UID;
        } else if (!strcmp(a, "--reset-metadata")) {
            o.reset_metadata = 1;
        } else if (!strcmp(a, "--annotate") && has) {
            o.annotate = argv[++i];
        } else if (!strcmp(a, "--key") && has) {
            char *end;
            errno = 0;
            long long k = strtoll(argv[++i], &end, 10);
            if (*end || errno || k < INT32_MIN || k > UINT32_MAX) {
                cli_error("--key wants a 32-bit integer, not '%s'", argv[i]);
                goto out;
            }
            o.key = (uint32_t)k; /* darshan-convert's atoi() key, as the hash's 32-bit seed */
        } else if (!strcmp(a, "--modules") && has) {
            if (parse_modules(argv[++i], &o.modules) < 0)
                goto out;
        } else if (!strcmp(a, "--file") && has) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-') {
                cli_error("--file wants a record id (an unsigned decimal number), not '%s'", argv[i]);
                goto out;
            }
            ids[o.nids++] = v;
        } else if (!strcmp(a, "--")) {
            while (++i < argc)
                paths[npaths++] = argv[i];
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("darshan --convert", a, usage);
            goto out;
        } else {
            paths[npaths++] = a;
        }
    }
    if (o.nids)
        o.ids = ids;
    if (mode == DIFF) {
        if (npaths != 2 || outp) {
            cli_error("--diff compares two logs and writes to stdout: --diff LOG_A LOG_B [--json]");
            goto out;
        }
        size_t nd = 0;
        rc = iolens_darshan_diff(paths[0], paths[1], stdout, json, &nd, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
        if (rc == CLI_OK && json)
            fputc('\n', stdout);
        if (rc != CLI_OK)
            cli_lib_error();
        goto out;
    }
    if (!outp) {
        cli_error("%s needs -o OUT.darshan", mode == CONVERT ? "--convert" : "--merge");
        goto out;
    }
    if (mode == CONVERT) {
        if (npaths != 1) {
            cli_error("--convert takes one LOG (--merge joins several)");
            goto out;
        }
        rc = iolens_darshan_convert(paths[0], outp, &o, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
    } else {
        if (npaths < 1) {
            cli_error("--merge needs at least one LOG");
            goto out;
        }
        if (o.obfuscate || o.modules || o.nids || o.reset_metadata || o.annotate) {
            cli_error("--merge takes only -o and the compression; run --convert on its output");
            goto out;
        }
        rc = iolens_darshan_merge(paths, npaths, outp, o.comp, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
    }
    if (rc != CLI_OK)
        cli_lib_error();
out:
    free(paths);
    free(ids);
    return rc;
}
