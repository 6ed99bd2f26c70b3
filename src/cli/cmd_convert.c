/* iolens convert: write an iolens trace from a Recorder trace, and say how
 * much smaller it is. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "opt.h"

#include "iolens/recorder.h"
#include "iolens/trace.h"
#include "util/jsonw.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { O_OUTPUT = 1, O_JSON, O_RES };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "TRACE", "the iolens trace to write (required)"},
    {O_JSON, 0, "json", NULL, "the sizes as one JSON document (the machine form)"},
    {O_RES, 0, "resolution", "NS", "timestamp resolution in nanoseconds, 1 to 1000000000 (default 100,\n"
                                   "Recorder's default clock resolution)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "convert", "convert [--json] [--resolution NS] RECORDER_DIR -o TRACE",
    "Writes the calls of a Recorder trace (2.4, 2.5, 3.x) as an iolens trace\n"
    "(docs/TRACE-FORMAT.md) and prints the size of both.",
    optv, NULL, NULL, 0};

static int has_suffix(const char *s, const char *suf)
{
    size_t l = strlen(s), m = strlen(suf);
    return l > m && !strcmp(s + l - m, suf);
}

/* Bytes of the Recorder trace files in dir (not the _text/ golden files or
 * Recorder's stdout log next to them). */
static int recorder_bytes(const char *dir, uint64_t *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    uint64_t sum = 0;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!(strcmp(n, "VERSION") == 0 || has_suffix(n, ".mt") || has_suffix(n, ".cst") ||
              has_suffix(n, ".cfg") || has_suffix(n, ".ts") || has_suffix(n, ".dat")))
            continue;
        char p[4400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, n);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
    }
    closedir(d);
    *out = sum;
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    int json = 0;
    iolens_trace_build_opts opts = {0, 0};
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long res;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_OUTPUT: out = a.val; break;
        case O_RES:
            if (cli_val_long(&a, 1, 1000000000L, &res) < 0)
                return CLI_USAGE;
            opts.resolution_ns = (uint64_t)res;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 1, 1, "RECORDER_DIR");
    if (id == CLI_OPT_END && !out)
        id = cli_usage_error(&spec, "no -o TRACE given (the iolens trace to write)");
    if (id < 0)
        return cli_args_exit(&a, id);
    dir = a.operands[0];
    iolens_evsource *src = NULL;
    if (iolens_recorder_open(dir, &src, NULL) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    iolens_trace_stats st;
    uint64_t skipped = 0, rbytes = 0;
    int rc = iolens_trace_write_events(src, out, &opts, &st, &skipped);
    iolens_evsource_free(src);
    if (rc < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (skipped)
        cli_warn("%llu calls of functions iolens does not trace were left out", (unsigned long long)skipped);
    if (recorder_bytes(dir, &rbytes) < 0) {
        cli_error("cannot list '%s': %s", dir, strerror(errno));
        return CLI_FAIL;
    }
    double ratio = st.bytes_total ? (double)rbytes / (double)st.bytes_total : 0;
    if (json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 0);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "recorder");
        iol_jsonw_str(&w, dir);
        iol_jsonw_key(&w, "trace");
        iol_jsonw_str(&w, out);
        iol_jsonw_key(&w, "ranks");
        iol_jsonw_uint(&w, st.nprocs);
        iol_jsonw_key(&w, "calls");
        iol_jsonw_uint(&w, st.ncalls);
        iol_jsonw_key(&w, "skipped");
        iol_jsonw_uint(&w, skipped);
        iol_jsonw_key(&w, "recorder_bytes");
        iol_jsonw_uint(&w, rbytes);
        iol_jsonw_key(&w, "iolens_bytes");
        iol_jsonw_uint(&w, st.bytes_total);
        iol_jsonw_key(&w, "ratio");
        iol_jsonw_double(&w, ratio);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
    } else {
        printf("converted %s: %llu ranks, %llu calls\n", dir, (unsigned long long)st.nprocs,
               (unsigned long long)st.ncalls);
        printf("Recorder %llu bytes -> iolens %llu bytes (%.2fx smaller) in %s\n", (unsigned long long)rbytes,
               (unsigned long long)st.bytes_total, ratio, out);
    }
    if (fflush(stdout) != 0) {
        cli_error("cannot write the output: %s", strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}
