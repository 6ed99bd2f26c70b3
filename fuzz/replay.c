/* Fuzz target: the replay config parser (then normalisation round trip and a dry-run plan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "iolens/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_replay_config *cfg = NULL;
    if (iolens_replay_config_parse(&cfg, (const char *)data, size, "fuzz") < 0)
        return 0;
    /* a normalised config must parse again */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        iolens_replay_config_write(cfg, m);
        fclose(m);
        iolens_replay_config *again = NULL;
        if (iolens_replay_config_parse(&again, text, len, "normalised") < 0)
            abort();
        iolens_replay_config_free(again);
        free(text);
    }
    iolens_replay_options opt = {0};
    opt.dry_run = 1;
    opt.dry_run_ranks = 4;
    iolens_replay_result *res = NULL;
    if (iolens_replay_run(&res, cfg, &opt) == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            iolens_replay_result_write_json(res, null, 0);
            iolens_replay_result_write_table(res, null);
            fclose(null);
        }
    }
    iolens_replay_result_free(res);
    iolens_replay_config_free(cfg);
    return 0;
}
