/* iolens advise: the recommendation step (src/advise). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "iolens/advise.h"
#include "iolens/detect.h"
#include "util/jsonw.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens advise [--config FILE]... [--endpoint URL] [--model NAME] [--key-file FILE]\n"
            "                     [--offline] [--print-prompt] [--json] [-o FILE] [--cache DIR]\n"
            "                     [--timeout S] [--retries N] [--models DIR] [--tau T] [--all-paths] LOG|TRACE\n\n"
            "Detects the job's I/O bottleneck patterns (as iolens detect), builds the prompt of the\n"
            "recommendation step (the patterns with their probabilities and SHAP contributions, the\n"
            "card of each with its key counters and the change as code before and after, a summary of\n"
            "the job's counters, the largest files, the configuration files), asks an OpenAI-compatible\n"
            "chat-completions endpoint (temperature 0) for the smallest correct changes, and checks the\n"
            "JSON answer against the prompt: a recommendation for a pattern not detected, citing no card\n"
            "of the prompt, without code, or with a speed-up the evidence does not hold is flagged.\n"
            "Each recommendation comes with the commands that measure it (whatif, paired).\n\n"
            "  --config FILE     a configuration file of the job, put in the prompt (repeatable)\n"
            "  --endpoint URL    server base URL, e.g. http://127.0.0.1:8080/v1 (default\n"
            "                    $IOLENS_LLM_ENDPOINT)\n"
            "  --model NAME      model name (default $IOLENS_LLM_MODEL)\n"
            "  --key-file FILE   a file holding the API key; otherwise $IOLENS_LLM_API_KEY (the key is\n"
            "                    never taken from the command line, never printed or stored)\n"
            "  --offline         no model: the cards' changes filled with this log's evidence (the\n"
            "                    default when no endpoint is set)\n"
            "  --print-prompt    print the system and user prompt, send nothing\n"
            "  --json            one JSON document (the raw answer is kept when it is malformed)\n"
            "  -o, --output FILE write there instead of stdout\n"
            "  --cache DIR       answers kept under the prompt's hash: a repeated run asks nothing\n"
            "  --timeout S       seconds per request (default 120)\n"
            "  --retries N       retries after a 429, a 5xx or a timeout, with a doubling back-off\n"
            "                    from 0.5 s (default 3)\n"
            "  --models DIR      pattern models (default $IOLENS_MODELS or %s)\n"
            "  --tau T           gate threshold (default 0.3)\n"
            "  --all-paths       traces: keep files Darshan leaves out\n"
            "Exit status: 0 advice given (flagged recommendations included); 1 the input or the\n"
            "endpoint failed, or the answer was malformed; 2 usage.\n",
            iolens_detect_default_models_dir());
}

int cmd_advise(int argc, char **argv)
{
    static const char *const with_value[] = {"--config", "--endpoint", "--model", "--key-file", "-o", "--output",
                                             "--cache", "--timeout", "--retries", "--models", "--tau", NULL};
    cli_permute(argc, argv, with_value);
    iolens_advise_opts o;
    iolens_advise_opts_init(&o);
    o.warn = cli_warn_cb;
    const char **configs = calloc((size_t)argc, sizeof *configs);
    if (!configs) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int offline = 0, print_prompt = 0, json = 0, rc = CLI_USAGE, i = 1;
    const char *outp = NULL;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        char *end;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = CLI_OK;
            goto out;
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--config") && has) {
            configs[o.nconfigs++] = argv[++i];
        } else if (!strcmp(a, "--endpoint") && has) {
            o.endpoint = argv[++i];
        } else if (!strcmp(a, "--model") && has) {
            o.model = argv[++i];
        } else if (!strcmp(a, "--key-file") && has) {
            o.key_file = argv[++i];
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has) {
            outp = argv[++i];
        } else if (!strcmp(a, "--cache") && has) {
            o.cache_dir = argv[++i];
        } else if (!strcmp(a, "--models") && has) {
            o.models_dir = argv[++i];
        } else if (!strcmp(a, "--timeout") && has) {
            o.timeout_s = strtod(argv[++i], &end);
            if (*end || !(o.timeout_s > 0 && o.timeout_s <= 3600)) {
                cli_error("--timeout wants seconds between 0 and 3600, not '%s'", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--retries") && has) {
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 0 || r > 10) {
                cli_error("--retries wants a number from 0 to 10, not '%s'", argv[i]);
                goto out;
            }
            o.retries = (int)r;
        } else if (!strcmp(a, "--tau") && has) {
            o.tau = strtod(argv[++i], &end);
            if (*end || !(o.tau > 0 && o.tau < 1)) {
                cli_error("--tau wants a number between 0 and 1, not '%s'", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--offline")) {
            offline = 1;
        } else if (!strcmp(a, "--print-prompt")) {
            print_prompt = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--all-paths")) {
            o.all_paths = 1;
        } else if (!strncmp(a, "--key=", 6) || !strcmp(a, "--key") || !strcmp(a, "--api-key")) {
            cli_error("the API key is never taken from the command line (other users see it): set "
                      "IOLENS_LLM_API_KEY or give --key-file FILE");
            goto out;
        } else {
            rc = cli_unknown_option("advise", a, usage);
            goto out;
        }
    }
    if (i + 1 != argc) {
        cli_error(i >= argc ? "advise needs one LOG or TRACE" : "advise takes one LOG or TRACE");
        goto out;
    }
    o.configs = configs;
    if (!offline && !print_prompt && !iolens_advise_endpoint(&o))
        offline = 1; /* no endpoint configured: the template-based advice */
    if (cli_output_to(outp) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    iolens_advise *adv = NULL;
    if (iolens_advise_prepare(argv[i], &o, &adv) < 0) {
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
