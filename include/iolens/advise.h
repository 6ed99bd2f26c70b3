/*
 * advise: the recommendation step of IOSage ("IOSage: Detecting HPC I/O Bottleneck Patterns to
 * Guide LLM Recommendations", §III-D/E). The classifier decides the patterns; a prompt holds
 * them with their probabilities and SHAP contributions, the card of each (behavior, key counters
 * with the median of training runs, the change with code before and after), a summary of the
 * job's counters, per-file evidence and the job's configuration files; an OpenAI-compatible
 * chat-completions endpoint words the change, and its JSON answer is validated against what the
 * prompt holds. Offline, the cards' templates are filled with the log's evidence.
 *
 *     iolens_advise *a;
 *     iolens_advise_prepare(path, &opts, &a);        // detection, evidence, prompt
 *     iolens_advise_offline(a, stdout, 0);           // or:
 *     char *answer; iolens_advise_query(a, &opts, &answer);
 *     iolens_advise_report(a, answer, "llm", stdout, 0);
 *     iolens_advise_free(a);
 */
#ifndef IOLENS_ADVISE_H
#define IOLENS_ADVISE_H

#include <stddef.h>
#include <stdio.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct iolens_advise_opts {
    const char *models_dir;      /**< NULL: the shipped models */
    double tau;                  /**< gate; 0: IOLENS_DETECT_TAU */
    int all_paths;               /**< traces: keep files Darshan excludes */
    const char *const *configs;  /**< the job's configuration files (e.g. a namelist), put in the prompt */
    size_t nconfigs;
    const char *endpoint;        /**< base URL (".../v1" or the server root); NULL: IOLENS_LLM_ENDPOINT */
    const char *model;           /**< NULL: IOLENS_LLM_MODEL */
    const char *key_file;        /**< a file holding the API key; NULL: IOLENS_LLM_API_KEY (may be unset) */
    double timeout_s;            /**< per request; 0: 120 s */
    int retries;                 /**< after a 429, a 5xx or a timeout; < 0: 3 */
    const char *cache_dir;       /**< answers cached by the prompt's hash; NULL: no cache */
    iolens_warn_fn warn;
    void *warn_ctx;
} iolens_advise_opts;

IOLENS_API void iolens_advise_opts_init(iolens_advise_opts *o);

typedef struct iolens_advise iolens_advise;

/** Reads a log or a trace (as iolens detect does), decides the patterns and builds the prompt. */
IOLENS_API int iolens_advise_prepare(const char *input, const iolens_advise_opts *o, iolens_advise **out);
IOLENS_API void iolens_advise_free(iolens_advise *a);
IOLENS_API const char *iolens_advise_system_prompt(const iolens_advise *a);
IOLENS_API const char *iolens_advise_user_prompt(const iolens_advise *a);
/** Bit p set: pattern p (iolens_detect_label_name(p)) is detected and presented. */
IOLENS_API unsigned iolens_advise_detected(const iolens_advise *a);

/** The endpoint and model the options (or the environment) name; NULL when none. */
IOLENS_API const char *iolens_advise_endpoint(const iolens_advise_opts *o);
IOLENS_API const char *iolens_advise_model(const iolens_advise_opts *o);

/** Sends the prompt to the endpoint's /v1/chat/completions (temperature 0) and gives the
 *  answer's text (caller frees). Retries 429, 5xx and timeouts with a doubling back-off.
 *  The key is sent in the Authorization header only; the answer has every occurrence of it
 *  replaced by "[key removed]". With o->cache_dir, a cached answer is returned without a
 *  request, and a new one is stored. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_advise_query(iolens_advise *a, const iolens_advise_opts *o, char **answer);

/** Validates an answer (the JSON object it holds: {"diagnosis", "recommendations": [...]}) and
 *  writes the recommendations, each with what was found wrong with it (a pattern not detected,
 *  a citation of no card in the prompt, a speed-up the evidence does not hold, missing code),
 *  the whatif and paired commands that measure it. source names the answer ("llm", "cache");
 *  NULL: where the last iolens_advise_query got it.
 *  A malformed answer is IOLENS_EFORMAT (its raw text is kept in the JSON form). */
IOLENS_API int iolens_advise_report(const iolens_advise *a, const char *answer, const char *source, FILE *out,
                                    int json);

/** The cards' change templates filled with this log's evidence, marked as template-based: one
 *  recommendation per detected pattern (none, and a sentence saying so, when nothing is). */
IOLENS_API int iolens_advise_offline(const iolens_advise *a, FILE *out, int json);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_ADVISE_H */
