/* Fuzz target: feature-table CSV (layout of dev_features.csv). */
#include <stddef.h>
#include <stdint.h>

#include "iolens/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_detect_table *t = NULL;
    if (iolens_detect_table_parse(&t, (const char *)data, size, "fuzz") == 0) {
        double x[IOLENS_DETECT_NFEATURES];
        for (size_t i = 0; i < iolens_detect_table_rows(t); i++) {
            const double *row = iolens_detect_table_row(t, i);
            for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
                x[f] = row[f];
            iolens_detect_derive(x, iolens_detect_table_extra(t, i));
            (void)iolens_detect_table_cell(t, i, "_scenario");
        }
    }
    iolens_detect_table_free(t);
    return 0;
}
