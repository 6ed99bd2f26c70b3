/* Fuzz target: darshan-parser text -> counter records -> 157 features + file evidence. */
#include <stddef.h>
#include <stdint.h>

#include "iolens/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_detect_input *in = NULL;
    if (iolens_detect_parse_text(&in, (const char *)data, size, "fuzz", NULL, NULL) == 0) {
        double x[IOLENS_DETECT_NFEATURES];
        iolens_detect_file files[4];
        (void)iolens_detect_input_features(in, x);
        (void)iolens_detect_input_top_files(in, files, 4);
        char codes[128];
        (void)iolens_detect_rules(x, codes, sizeof codes);
    }
    iolens_detect_input_free(in);
    return 0;
}
