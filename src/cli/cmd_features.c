/* iolens features: the model features of logs (CSV or JSON): IOSage's 157, then iolens's iol_* ones. */
#include "cli.h"
#include "opt.h"
#include "iolens/darshan.h"

#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "util/jsonw.h"

enum { O_JSON = 1, O_CSV, O_ALL_PATHS, O_OUTPUT };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the output to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "one JSON document: an array of {log, features} (the machine form)"},
    {O_CSV, 0, "csv", NULL, "CSV (the default): a header `log,<171 names>`, one row per input"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "traces: keep files under /dev/ /proc/ /etc/ /usr/ ..., which Darshan\n"
                                        "(and so the default) leaves out"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "features", "features [options] LOG|TRACE|DIR...",
    "Prints the 171 model features computed from each input's counters: IOSage's 157\n"
    "(feature_cols_157.json order, aggregation rules of its features.tsv), then 14 iol_* features,\n"
    "from the records and shares of the counts (docs/detect.md). An input is a binary Darshan log,\n"
    "darshan-parser text output (--base or --all; gzip allowed), an iolens trace (iolens trace -o)\n"
    "or a Recorder trace directory, told apart by content; a folder that is not a Recorder trace\n"
    "stands for the Darshan logs below it. Traces are turned into Darshan counters first.",
    optv, NULL, NULL, 0};

static void print_num(double v)
{
    char buf[40];
    iol_fmt_double(buf, sizeof buf, v);
    fputs(buf, stdout);
}

int cmd_features(int argc, char **argv)
{
    int json = 0, all_paths = 0;
    const char *output = NULL;
    cli_args a;
    if (cli_args_init(&a, &spec, argc, argv) < 0)
        return CLI_FAIL;
    int id;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_CSV: json = 0; break;
        case O_ALL_PATHS: all_paths = 1; break;
        case O_OUTPUT: output = a.val; break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 1, -1, "LOG|TRACE|DIR");
    if (id < 0)
        return cli_args_exit(&a, id);
    size_t nin = 0;
    char **inputs = cli_find_logs(a.noperands, a.operands, &nin); /* a folder: its logs */
    cli_args_free(&a);
    if (!inputs)
        return CLI_FAIL;
    if (cli_output_to(output) < 0) {
        iolens_darshan_logs_free(inputs, nin);
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
    for (size_t i = 0; i < nin; i++) {
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
    iolens_darshan_logs_free(inputs, nin);
    return rc;
}
