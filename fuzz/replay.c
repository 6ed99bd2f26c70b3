/* Fuzz target: the replay config parser (then normalisation round trip, a dry-run plan, and
 * every what-if transform of iolens whatif, whose variants must parse again). */
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
    static const char *const patterns[] = {"access_granularity", "metadata_intensity", "parallelism_efficiency",
                                           "access_pattern",     "interface_choice",   "file_strategy",
                                           "throughput_utilization"};
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        iolens_replay_config *v = NULL;
        char note[512];
        int rc = iolens_replay_whatif(&v, cfg, patterns[p], 0, note, sizeof note);
        if ((rc == IOLENS_REPLAY_WHATIF_APPLIED) != (v != NULL))
            abort();
        iolens_replay_config_free(v);
    }
    iolens_replay_config_free(cfg);
    return 0;
}
