/*
 * Fuzz target of iolens batch's readers (the run's list, manifests and part files, read by
 * iolens_batch_merge). The input is up to five files separated by NUL bytes: inputs.txt,
 * done.0.0, summary.0.0.csv, errors.0.0.jsonl and summary.1.0.csv, written into a scratch
 * folder that is merged and emptied again.
 */
#define _DEFAULT_SOURCE
#include "iolens/batch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"inputs.txt", "done.0.0", "summary.0.0.csv", "errors.0.0.jsonl",
                                    "summary.1.0.csv"};
static const char *const outputs[] = {"summary.csv", "summary.jsonl", "errors.csv", "errors.jsonl",
                                      "features.csv", "features.jsonl", "detect.csv", "detect.jsonl"};

static char dir[64];

static void remove_dir(void) { rmdir(dir); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/iolens-fuzz-batch.XXXXXX");
        if (!mkdtemp(dir)) {
            dir[0] = '\0';
            return 0;
        }
        atexit(remove_dir);
    }
    char p[128];
    size_t at = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const uint8_t *nul = at < size ? memchr(data + at, 0, size - at) : NULL;
        size_t len = at < size ? (nul ? (size_t)(nul - (data + at)) : size - at) : 0;
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        FILE *f = fopen(p, "wb");
        if (f) {
            if (len)
                fwrite(data + at, 1, len, f);
            fclose(f);
        }
        at += len + 1;
    }
    uint64_t missing = 0;
    iolens_batch_stats st;
    iolens_batch_merge(dir, &missing, &st);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        unlink(p);
    }
    for (size_t k = 0; k < sizeof outputs / sizeof *outputs; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, outputs[k]);
        unlink(p);
    }
    return 0;
}
