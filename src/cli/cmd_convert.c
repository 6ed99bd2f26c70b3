/* iolens convert: write an iolens trace from a Recorder trace, and say how
 * much smaller it is. */
#define _DEFAULT_SOURCE
#include "cli.h"

#include "iolens/recorder.h"
#include "iolens/trace.h"
#include "util/jsonw.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens convert [--json] [--resolution NS] RECORDER_DIR -o TRACE\n\n"
            "Writes the calls of a Recorder trace (2.4, 2.5, 3.x) as an iolens trace\n"
            "(docs/TRACE-FORMAT.md) and prints the size of both.\n"
            "  -o TRACE          the iolens trace to write\n"
            "  --resolution NS   timestamp resolution in nanoseconds (default 100,\n"
            "                    Recorder's default clock resolution)\n"
            "  --json            the sizes as one JSON object\n");
}

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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--resolution")) {
            if (i + 1 >= argc) {
                cli_error("%s needs a value", a);
                usage(stderr);
                return CLI_USAGE;
            }
            if (!strcmp(a, "--resolution")) {
                char *end;
                unsigned long long v = strtoull(argv[++i], &end, 10);
                if (*end || !argv[i][0] || argv[i][0] == '-' || v == 0 || v > 1000000000ull) {
                    cli_error("invalid resolution '%s' (nanoseconds, 1 to 1000000000)", argv[i]);
                    return CLI_USAGE;
                }
                opts.resolution_ns = v;
            } else {
                out = argv[++i];
            }
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("convert", a, usage);
            return CLI_USAGE;
        } else if (!dir) {
            dir = a;
        } else {
            cli_error("unexpected argument '%s'", a);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (!dir || !out) {
        usage(stderr);
        return CLI_USAGE;
    }
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
