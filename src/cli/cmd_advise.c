/* iolens advise: the recommendation step (src/advise). */
#include "cli.h"
#include "opt.h"

#include <stdlib.h>
#include <string.h>

#include "iolens/advise.h"
#include "iolens/detect.h"
#include "util/jsonw.h"

enum { O_CONFIG = 1, O_ENDPOINT, O_MODEL, O_KEY_FILE, O_OUTPUT, O_CACHE, O_MODELS, O_TIMEOUT, O_RETRIES, O_TAU,
       O_OFFLINE, O_PRINT_PROMPT, O_JSON, O_ALL_PATHS, O_KEY, O_API_KEY };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write there instead of standard output"},
    {O_JSON, 0, "json", NULL, "one JSON document (the raw answer is kept when it is malformed)"},
    {O_CONFIG, 0, "config", "FILE", "a configuration file of the job, put in the prompt (repeatable)"},
    {O_ENDPOINT, 0, "endpoint", "URL", "server base URL, e.g. http://127.0.0.1:8080/v1 (default\n"
                                       "$IOLENS_LLM_ENDPOINT)"},
    {O_MODEL, 0, "model", "NAME", "model name (default $IOLENS_LLM_MODEL)"},
    {O_KEY_FILE, 0, "key-file", "FILE", "a file holding the API key; otherwise $IOLENS_LLM_API_KEY (the key is\n"
                                        "never taken from the command line, never printed or stored)"},
    {O_OFFLINE, 0, "offline", NULL, "no model: the cards' changes filled with this log's evidence (the\n"
                                    "default when no endpoint is set)"},
    {O_PRINT_PROMPT, 0, "print-prompt", NULL, "print the system and user prompt, send nothing"},
    {O_CACHE, 0, "cache", "DIR", "answers kept under the prompt's hash: a repeated run asks nothing"},
    {O_TIMEOUT, 0, "timeout", "S", "seconds per request, up to 3600 (default 120)"},
    {O_RETRIES, 0, "retries", "N", "retries after a 429, a 5xx or a timeout, with a doubling back-off\n"
                                   "from 0.5 s, 0 to 10 (default 3)"},
    {O_MODELS, 0, "models", "DIR", "pattern models (default: $IOLENS_MODELS or the installed ones, below)"},
    {O_TAU, 0, "tau", "T", "gate threshold, between 0 and 1 (default 0.3)"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "traces: keep files Darshan leaves out"},
    {O_KEY, 0, "key", "[=KEY]", NULL},
    {O_API_KEY, 0, "api-key", "[=KEY]", NULL},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nThe installed models: %s\n", iolens_detect_default_models_dir());
}

static const cli_spec spec = {
    "advise", "advise [--config FILE]... [--endpoint URL] [--model NAME] [--key-file FILE]\n"
              "       [--offline] [--print-prompt] [--json] [-o FILE] [--cache DIR]\n"
              "       [--timeout S] [--retries N] [--models DIR] [--tau T] [--all-paths] LOG|TRACE",
    "Detects the job's I/O bottleneck patterns (as iolens detect), builds the prompt of the\n"
    "recommendation step (the patterns with their probabilities and SHAP contributions, the\n"
    "card of each with its key counters and the change as code before and after, a summary of\n"
    "the job's counters, the largest files, the configuration files), asks an OpenAI-compatible\n"
    "chat-completions endpoint (temperature 0) for the smallest correct changes, and checks the\n"
    "JSON answer against the prompt: a recommendation for a pattern not detected, citing no card\n"
    "of the prompt, without code, or with a speed-up the evidence does not hold is flagged.\n"
    "Each recommendation comes with the commands that measure it (whatif, paired).",
    optv,
    "Exit status: 0 advice given (flagged recommendations included); 1 the input or the\n"
    "endpoint failed, or the answer was malformed; 2 usage.",
    more, 0};

int cmd_advise(int argc, char **argv)
{
    iolens_advise_opts o;
    iolens_advise_opts_init(&o);
    o.warn = cli_warn_cb;
    const char **configs = calloc((size_t)argc, sizeof *configs);
    if (!configs) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int offline = 0, print_prompt = 0, json = 0, rc = CLI_USAGE;
    const char *outp = NULL;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long r;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_CONFIG: configs[o.nconfigs++] = a.val; break;
        case O_ENDPOINT: o.endpoint = a.val; break;
        case O_MODEL: o.model = a.val; break;
        case O_KEY_FILE: o.key_file = a.val; break;
        case O_OUTPUT: outp = a.val; break;
        case O_CACHE: o.cache_dir = a.val; break;
        case O_MODELS: o.models_dir = a.val; break;
        case O_TIMEOUT:
            if (cli_val_double(&a, 1e-3, 3600, &o.timeout_s) < 0)
                id = CLI_OPT_ERROR;
            break;
        case O_RETRIES:
            if (cli_val_long(&a, 0, 10, &r) < 0)
                id = CLI_OPT_ERROR;
            o.retries = (int)r;
            break;
        case O_TAU:
            if (cli_val_double(&a, 1e-9, 1 - 1e-9, &o.tau) < 0)
                id = CLI_OPT_ERROR;
            break;
        case O_OFFLINE: offline = 1; break;
        case O_PRINT_PROMPT: print_prompt = 1; break;
        case O_JSON: json = 1; break;
        case O_ALL_PATHS: o.all_paths = 1; break;
        case O_KEY:
        case O_API_KEY:
            id = cli_usage_error(&spec, "the API key is never taken from the command line (other users see it): set "
                                        "IOLENS_LLM_API_KEY or give --key-file FILE");
            break;
        }
        if (id < 0)
            break;
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 1, 1, "LOG|TRACE");
    if (id < 0) {
        free(configs);
        return cli_args_exit(&a, id);
    }
    o.configs = configs;
    if (!offline && !print_prompt && !iolens_advise_endpoint(&o))
        offline = 1; /* no endpoint configured: the template-based advice */
    if (cli_output_to(outp) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    iolens_advise *adv = NULL;
    if (iolens_advise_prepare(a.operands[0], &o, &adv) < 0) {
        cli_lib_error();
        rc = CLI_FAIL;
        goto out;
    }
    int lrc = 0;
    if (print_prompt) {
        if (json) {
            iol_jsonw w;
            iol_jsonw_init(&w, stdout, 0);
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "system");
            iol_jsonw_str(&w, iolens_advise_system_prompt(adv));
            iol_jsonw_key(&w, "user");
            iol_jsonw_str(&w, iolens_advise_user_prompt(adv));
            iol_jsonw_obj_end(&w);
            iol_jsonw_finish(&w);
            fputc('\n', stdout);
        } else {
            printf("=== system ===\n%s\n=== user ===\n%s", iolens_advise_system_prompt(adv),
                   iolens_advise_user_prompt(adv));
        }
    } else if (offline) {
        lrc = iolens_advise_offline(adv, stdout, json);
    } else {
        char *answer = NULL;
        lrc = iolens_advise_query(adv, &o, &answer);
        if (lrc == 0)
            lrc = iolens_advise_report(adv, answer, NULL, stdout, json);
        free(answer);
    }
    if (fflush(stdout) != 0 && lrc == 0) {
        cli_error("cannot write the output");
        lrc = -1;
    }
    if (lrc < 0)
        cli_lib_error();
    rc = lrc < 0 ? CLI_FAIL : CLI_OK;
    iolens_advise_free(adv);
out:
    free(configs);
    return rc;
}
