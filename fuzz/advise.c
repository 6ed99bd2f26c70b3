/*
 * Fuzz target of advise's answer reader and validator: the input is a model's answer (any
 * text: JSON, a fenced block in prose, garbage), checked against a fixed prompt holding two
 * detected patterns, in the text form then the JSON form.
 */
#include "advise/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static iolens_advise a;
    static char input[] = "fuzz.darshan", sys[] = "RULES: MPI_File_write_at_all",
                user[] = "## Detected Bottlenecks\n  - **access_granularity**\n  - **interface_choice**\n"
                         "romio_cb_write 2.5x card:access_granularity";
    a.input = input;
    a.system = sys;
    a.user = user;
    a.set = 1u | (1u << 4);
    a.is_trace = 1;
    char *text = malloc(size + 1);
    FILE *out = fopen("/dev/null", "w");
    if (text && out) {
        memcpy(text, data, size);
        text[size] = '\0';
        iolens_advise_report(&a, text, NULL, out, 0);
        iolens_advise_report(&a, text, "llm", out, 1);
    }
    if (out)
        fclose(out);
    free(text);
    return 0;
}
