/* iolens darshan --convert / --merge / --diff: the option parsing around the library's
 * iolens_darshan_convert, _merge and _diff. */
#include "cli.h"
#include "opt.h"

#include "darshan_tools.h"
#include "iolens/darshan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_CONVERT = 1, O_MERGE, O_DIFF, O_OUTPUT, O_JSON, O_BZIP2, O_NOCOMP, O_OBF, O_OBF_NAMES, O_OBF_EXE,
       O_OBF_JOBID, O_OBF_UID, O_RESET, O_ANNOTATE, O_KEY, O_MODULES, O_FILE };
static const cli_opt optv[] = {
    {O_CONVERT, 0, "convert", NULL, "rewrite LOG in the current format (3.41, records up-converted), as\n"
                                    "darshan-convert does"},
    {O_MERGE, 0, "merge", NULL, "join logs of one job: the first log's job, exe and mounts, the earliest\n"
                                "start and latest end, every record (darshan-merge without --shared-redux)"},
    {O_DIFF, 0, "diff", NULL, "compare two logs record by record (matched by module, id and rank): one\n"
                              "line per difference (job fields, names, then MODULE RANK ID COUNTER NAME\n"
                              "A B, tab-separated) and '# N differences'"},
    {O_OUTPUT, 'o', "output", "OUT.darshan", "the log to write (--convert, --merge)"},
    {O_JSON, 0, "json", NULL, "--diff: one JSON document {a, b, items, differences, equal}"},
    {O_BZIP2, 0, "bzip2", NULL, "compress the output with bzip2 (default zlib)"},
    {O_NOCOMP, 0, "no-compression", NULL, "do not compress the output"},
    {O_OBF, 0, "obfuscate", NULL, "all four below; names and the exe become keyed hashes (lookup3, as\n"
                                  "darshan-convert computes them), so the same key gives the same names;\n"
                                  "record ids are kept"},
    {O_OBF_NAMES, 0, "obfuscate-names", NULL, "hash the file names"},
    {O_OBF_EXE, 0, "obfuscate-exe", NULL, "hash the executable"},
    {O_OBF_JOBID, 0, "obfuscate-jobid", NULL, "hash the job id"},
    {O_OBF_UID, 0, "obfuscate-uid", NULL, "hash the user id"},
    {O_KEY, 0, "key", "N", "the hash key, a 32-bit integer (default 0)"},
    {O_MODULES, 0, "modules", "M,...", "keep only these modules (POSIX,MPI-IO,STDIO,DXT_POSIX,...)"},
    {O_FILE, 0, "file", "ID", "keep only the records (and the name) of this record id; repeatable"},
    {O_RESET, 0, "reset-metadata", NULL, "drop the job's metadata lines"},
    {O_ANNOTATE, 0, "annotate", "'k=v<TAB>k=v'", "add metadata lines"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "darshan --convert", "darshan --convert LOG -o OUT.darshan [--bzip2|--no-compression] [--obfuscate] [--key N]\n"
                         "        [--modules M,...] [--file ID]... [--reset-metadata] [--annotate 'k=v<TAB>k=v']\n"
                         "darshan --merge LOG... -o OUT.darshan [--bzip2|--no-compression]\n"
                         "darshan --diff LOG_A LOG_B [--json]",
    "Rewrites, joins and compares Darshan logs. The exit status of --diff is 0 when the logs were\n"
    "compared, whatever the differences.",
    optv, NULL, NULL, 0};

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
    uint64_t *ids = calloc((size_t)argc, sizeof *ids);
    if (!ids) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long long k;
    while ((id = cli_next(&a)) > 0) {
        int which = id == O_CONVERT ? CONVERT : id == O_MERGE ? MERGE : id == O_DIFF ? DIFF : NONE;
        if (which != NONE) {
            if (mode != NONE && mode != which) {
                id = cli_usage_error(&spec, "--convert, --merge and --diff exclude each other");
                break;
            }
            mode = which;
            continue;
        }
        switch (id) {
        case O_OUTPUT: outp = a.val; break;
        case O_JSON: json = 1; break;
        case O_BZIP2: o.comp = IOLENS_DARSHAN_COMP_BZIP2; break;
        case O_NOCOMP: o.comp = IOLENS_DARSHAN_COMP_NONE; break;
        case O_OBF: o.obfuscate |= IOLENS_DARSHAN_OBF_ALL; break;
        case O_OBF_NAMES: o.obfuscate |= IOLENS_DARSHAN_OBF_NAMES; break;
        case O_OBF_EXE: o.obfuscate |= IOLENS_DARSHAN_OBF_EXE; break;
        case O_OBF_JOBID: o.obfuscate |= IOLENS_DARSHAN_OBF_JOBID; break;
        case O_OBF_UID: o.obfuscate |= IOLENS_DARSHAN_OBF_UID; break;
        case O_RESET: o.reset_metadata = 1; break;
        case O_ANNOTATE: o.annotate = a.val; break;
        case O_KEY: {
            char *end;
            errno = 0;
            k = strtoll(a.val, &end, 10);
            if (!*a.val || *end || errno || k < INT32_MIN || k > UINT32_MAX)
                id = cli_usage_error(&spec, "--key wants a 32-bit integer, not '%s'", a.val);
            o.key = (uint32_t)k; /* darshan-convert's atoi() key, as the hash's 32-bit seed */
            break;
        }
        case O_MODULES:
            if (parse_modules(a.val, &o.modules) < 0)
                id = CLI_OPT_ERROR;
            break;
        case O_FILE: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(a.val, &end, 10);
            if (!*a.val || *end || errno || a.val[0] == '-')
                id = cli_usage_error(&spec, "--file wants a record id (an unsigned decimal number), not '%s'", a.val);
            ids[o.nids++] = v;
            break;
        }
        }
        if (id < 0)
            break;
    }
    if (id < 0) {
        free(ids);
        return cli_args_exit(&a, id);
    }
    const char **paths = (const char **)a.operands;
    size_t npaths = (size_t)a.noperands;
    if (o.nids)
        o.ids = ids;
    if (mode == DIFF) {
        if (npaths != 2 || outp) {
            cli_usage_error(&spec, "--diff compares two logs and writes to stdout: --diff LOG_A LOG_B [--json]");
            goto out;
        }
        size_t nd = 0;
        rc = iolens_darshan_diff(paths[0], paths[1], stdout, json, &nd, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
        if (rc == CLI_OK && json)
            fputc('\n', stdout);
        if (rc != CLI_OK)
            cli_lib_error();
        else if (nd > 0)
            rc = CLI_FAIL; /* as diff(1): 1 when the logs differ */
        goto out;
    }
    if (!outp) {
        cli_usage_error(&spec, "%s needs -o OUT.darshan", mode == CONVERT ? "--convert" : "--merge");
        goto out;
    }
    if (mode == CONVERT) {
        if (npaths != 1) {
            cli_usage_error(&spec, "--convert takes one LOG (--merge joins several)");
            goto out;
        }
        rc = iolens_darshan_convert(paths[0], outp, &o, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
    } else {
        if (npaths < 1) {
            cli_usage_error(&spec, "--merge needs at least one LOG");
            goto out;
        }
        if (o.obfuscate || o.modules || o.nids || o.reset_metadata || o.annotate) {
            cli_usage_error(&spec, "--merge takes only -o and the compression; run --convert on its output");
            goto out;
        }
        rc = iolens_darshan_merge(paths, npaths, outp, o.comp, cli_warn_cb, NULL) < 0 ? CLI_FAIL : CLI_OK;
    }
    if (rc != CLI_OK)
        cli_lib_error();
out:
    free(ids);
    return rc;
}
