/* Fuzz target: the iolens trace reader (src/trace/decode.c, source.c). Opens
 * the input as a trace and walks every event of every rank. */
#include <stddef.h>
#include <stdint.h>

#include "iolens/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_evsource *s;
    if (iolens_trace_open_mem(data, size, "fuzz", &s))
        return 0;
    const iolens_file *files;
    size_t nf;
    iolens_evsource_files(s, &files, &nf);
    for (int r = 0; r < iolens_evsource_nranks(s); r++) {
        iolens_event ev;
        while (iolens_evsource_next(s, r, &ev) == 1) {
            int32_t fd;
            int64_t a[4];
            iolens_trace_last_args(s, r, &fd, a);
            if (ev.file >= (int64_t)nf)
                __builtin_trap();
        }
        iolens_evsource_rewind(s, r);
        (void)iolens_evsource_next(s, r, &ev);
    }
    iolens_trace_stats st;
    iolens_trace_info(s, &st);
    iolens_evsource_free(s);
    return 0;
}
