/* Fuzz target: the spill-file reader and the trace encoder (src/trace/spill.c,
 * encode.c). The input is one spill file; the trace built from it is then read
 * back completely. The corpus comes from tests/trace/make_spill_corpus.sh. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string.h>

#include "iolens/trace.h"
#include "trace/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs whose spill header this iolens accepts (the corpus replay requires most). */
long iolens_fuzz_passed;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iol_rawhdr h;
    if (size >= sizeof h) {
        memcpy(&h, data, sizeof h);
        iolens_fuzz_passed += !memcmp(h.magic, IOL_RAW_MAGIC, 8) && h.version == IOL_RAW_VERSION &&
                              h.rec_size == sizeof(iol_rawrec) && h.nfuncs == IOL_F_COUNT;
    }
    char dir[] = "/tmp/iolens-fuzz-spill-XXXXXX", spill[64], out[64];
    if (!mkdtemp(dir))
        return 0;
    snprintf(spill, sizeof spill, "%s/p1.0.raw", dir);
    snprintf(out, sizeof out, "%s/t.trace", dir);
    FILE *f = fopen(spill, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
        iolens_trace_build_opts o = {0, 1};
        if (iolens_trace_build(dir, out, &o, NULL) == 0) {
            iolens_evsource *s;
            if (iolens_trace_open(out, &s) == 0) {
                iolens_event ev;
                for (int r = 0; r < iolens_evsource_nranks(s); r++) {
                    while (iolens_evsource_next(s, r, &ev) == 1)
                        ;
                    iolens_trace_job j;
                    char line[4200];
                    if (iolens_trace_proc_job(s, r, &j) == 1 &&
                        iolens_trace_job_command(&j, line, sizeof line) >= sizeof line)
                        __builtin_trap(); /* a command line is at most IOL_RAW_MAX_CMDLINE bytes */
                }
                iolens_evsource_free(s);
            } else {
                __builtin_trap(); /* what the writer wrote, the reader must read */
            }
        }
    }
    unlink(out);
    unlink(spill);
    rmdir(dir);
    return 0;
}
