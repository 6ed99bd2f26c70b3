/* Fuzz target: the iolens trace reader (src/trace/decode.c, source.c). Opens
 * the input as a trace and walks every event of every rank. */
#define _DEFAULT_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
            /* the notes folded into HDF5 calls (the library-level replay reads them) */
            int nd, unl;
            int64_t st0, l[5], b[5], d[5];
            if (iolens_trace_last_hyperslab(s, r, &nd, &st0, l, b, d) == 1 && (nd < 0 || nd > 5 || st0 < 0))
                __builtin_trap();
            if (iolens_trace_last_dims(s, r, &nd, d, &unl) == 1 && (nd < 0 || nd > 255))
                __builtin_trap();
            iolens_trace_last_selection(s, r, &nd, l, d);
            iolens_trace_last_chunk(s, r, &nd, d);
        }
        iolens_evsource_rewind(s, r);
        (void)iolens_evsource_next(s, r, &ev);
        /* the job section: the command line joined, within the buffer whatever its length */
        iolens_trace_job j;
        char line[64];
        if (iolens_trace_proc_job(s, r, &j) == 1 &&
            (iolens_trace_job_command(&j, line, sizeof line) > j.argv_len || strnlen(line, sizeof line) == sizeof line))
            __builtin_trap();
    }
    iolens_trace_stats st;
    iolens_trace_info(s, &st);
    iolens_evsource_free(s);
    return 0;
}
