/* iolens features: the model features of logs (CSV or JSON): IOSage's 157, then iolens's iol_* ones. */
#include "cli.h"
#include "darshan_modes.h"

#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "util/jsonw.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens features [--csv|--json] [--all-paths] [-o FILE] LOG|TRACE...\n\n"
                 "Prints the 162 model features computed from each input's counters: IOSage's 157\n"
                 "(feature_cols_157.json order, aggregation rules of its features.tsv), then 5 process-level\n"
                 "iol_* features from the records (docs/detect.md). An input is a binary\n"
                 "Darshan log, darshan-parser text output (--base or --all; gzip allowed), an iolens\n"
                 "trace (iolens trace -o) or a Recorder trace directory, told apart by content; traces\n"
                 "are turned into Darshan counters first (docs/detect.md). CSV (default): a header\n"
                 "`log,<162 names>`, one row per input.\n"
                 "  --all-paths  traces: keep files under /dev/ /proc/ /etc/ /usr/ ..., which Darshan\n"
                 "               (and so the default) leaves out\n"
                 "  -o, --output FILE  write the output to FILE (- : standard output)\n");
}

static void print_num(double v)
{
    char buf[40];
    iol_fmt_double(buf, sizeof buf, v);
    fputs(buf, stdout);
}

int cmd_features(int argc, char **argv)
{
    int json = 0, all_paths = 0, first = argc;
    const char *output = NULL;
    static const char *const valued[] = {"-o", "--output", NULL};
    cli_permute(argc, argv, valued);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--csv")) {
            json = 0;
        } else if (!strcmp(argv[i], "--all-paths")) {
            all_paths = 1;
        } else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            output = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option("features", argv[i], usage);
            return CLI_USAGE;
        } else {
            first = i;
            break;
        }
    }
    if (first >= argc) {
        cli_error("no log given");
        usage(stderr);
        return CLI_USAGE;
    }
    int nin = 0;
    char **inputs = iol_darshan_expand_inputs(argc - first, argv + first, &nin); /* a folder: its logs */
    if (!inputs)
        return CLI_FAIL;
    if (cli_output_to(output) < 0) {
        iol_darshan_inputs_free(inputs, nin);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    iol_jsonw w;
    if (json) {
        iol_jsonw_init(&w, stdout, 1);
        iol_jsonw_arr_begin(&w);
    } else {
        printf("log");
        for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
            printf(",%s", iolens_detect_feature_name(f));
        printf("\n");
    }
    for (int i = 0; i < nin; i++) {
        iolens_detect_input *in = NULL;
        double x[IOLENS_DETECT_NFEATURES];
        if (cli_detect_read(&in, inputs[i], all_paths) < 0 || iolens_detect_input_features(in, x) < 0) {
            cli_lib_error();
            iolens_detect_input_free(in);
            rc = CLI_FAIL;
            continue;
        }
        iolens_detect_input_free(in);
        if (json) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "log");
            iol_jsonw_str(&w, inputs[i]);
            iol_jsonw_key(&w, "features");
            iol_jsonw_obj_begin(&w);
            for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++) {
                iol_jsonw_key(&w, iolens_detect_feature_name(f));
                iol_jsonw_double(&w, x[f]);
            }
            iol_jsonw_obj_end(&w);
            iol_jsonw_obj_end(&w);
        } else {
            /* quote the path only when it needs it */
            if (strpbrk(inputs[i], ",\"\n")) {
                putchar('"');
                for (const char *s = inputs[i]; *s; s++) {
                    if (*s == '"')
                        putchar('"');
                    putchar(*s);
                }
                putchar('"');
            } else {
                fputs(inputs[i], stdout);
            }
            for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++) {
                putchar(',');
                print_num(x[f]);
            }
            printf("\n");
        }
    }
    if (json) {
        iol_jsonw_arr_end(&w);
        iol_jsonw_finish(&w);
    }
    iol_darshan_inputs_free(inputs, nin);
    return rc;
}
