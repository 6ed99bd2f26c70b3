/* Merging traces: every process of every input becomes a process of one
 * trace (e.g. the separate runs of a non-MPI workflow). The inputs are
 * decoded back to spill files and encoded again, so the result is exactly
 * what tracing all of them at once would have produced. */
#define _DEFAULT_SOURCE
#include "iolens/trace.h"
#include "trace/decode.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int iolens_trace_merge(const char *const *inputs, size_t n, const char *out_path, const iolens_trace_build_opts *opts,
                       iolens_trace_stats *stats)
{
    if (!inputs || n == 0 || !out_path)
        return iol_err(IOLENS_EINVAL, "nothing to merge");
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s.merge.XXXXXX", out_path) >= sizeof dir || !mkdtemp(dir))
        return iol_err(IOLENS_EIO, "cannot create a scratch folder next to '%s'", out_path);
    int rc = 0;
    unsigned seq = 0;
    uint64_t res = opts && opts->resolution_ns ? opts->resolution_ns : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        iol_buf b = IOL_BUF_INIT;
        iol_trace *t = NULL;
        rc = iol_read_input(inputs[i], (size_t)1 << 34, IOL_TRACE_MAGIC, 8, 0, &b);
        if (!rc)
            rc = iol_trace_load(b.data ? b.data : "", b.len, inputs[i], &t);
        iol_buf_release(&b);
        if (!rc) {
            if (!res || t->res_ns > res)
                res = t->res_ns; /* the coarsest input resolution: nothing is invented */
            rc = iol_trace_write_spills(t, dir, &seq);
        }
        iol_trace_release(t);
    }
    if (!rc) {
        iolens_trace_build_opts o = {res, opts ? opts->zstd_level : 0};
        rc = iolens_trace_build(dir, out_path, &o, stats);
    }
    iol_scratch_remove(dir);
    return rc;
}
