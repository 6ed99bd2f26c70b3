/* Chrome / Perfetto timeline export: the Trace Event Format's JSON object form ("Trace Event
 * Format", the document of the Chromium tracing project): one complete event ("ph": "X") per
 * call with its start and duration in microseconds, pid = rank, tid = thread, nested by depth
 * as the viewers nest events whose times contain each other, the call's arguments under "args";
 * metadata events name the processes and threads. A Darshan log gives its DXT segments. The
 * events are written as they are read: constant memory whatever the trace's size. */
#include "iolens/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/darshan.h"
#include "iolens/detect.h"
#include "iolens/event.h"
#include "iolens/recorder.h"
#include "iolens/trace.h"
#include "report/internal.h"
#include "util/error.h"
#include "util/jsonw.h"

static void meta_name(iol_jsonw *w, const char *what, int64_t pid, int64_t tid, const char *name)
{
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "name");
    iol_jsonw_str(w, what);
    iol_jsonw_key(w, "ph");
    iol_jsonw_str(w, "M");
    iol_jsonw_key(w, "pid");
    iol_jsonw_int(w, pid);
    iol_jsonw_key(w, "tid");
    iol_jsonw_int(w, tid);
    iol_jsonw_key(w, "args");
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "name");
    iol_jsonw_str(w, name);
    iol_jsonw_obj_end(w);
    iol_jsonw_obj_end(w);
}

static void begin_x(iol_jsonw *w, const char *name, const char *cat, double t0, double t1, int64_t pid, int64_t tid)
{
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "name");
    iol_jsonw_str(w, name);
    iol_jsonw_key(w, "cat");
    iol_jsonw_str(w, cat);
    iol_jsonw_key(w, "ph");
    iol_jsonw_str(w, "X");
    iol_jsonw_key(w, "ts");
    iol_jsonw_double(w, round(t0 * 1e9) / 1e3); /* microseconds, to the nanosecond */
    iol_jsonw_key(w, "dur");
    iol_jsonw_double(w, t1 > t0 ? round((t1 - t0) * 1e9) / 1e3 : 0);
    iol_jsonw_key(w, "pid");
    iol_jsonw_int(w, pid);
    iol_jsonw_key(w, "tid");
    iol_jsonw_int(w, tid);
}

static int events(iolens_evsource *src, iol_jsonw *w, int64_t *count)
{
    const iolens_file *files = NULL;
    size_t nfiles = 0;
    int rc = iolens_evsource_files(src, &files, &nfiles);
    int n = iolens_evsource_nranks(src);
    if (rc < 0)
        return rc;
    if (n < 0)
        return n;
    for (int r = 0; r < n; r++) {
        char b[32];
        snprintf(b, sizeof b, "rank %d", r);
        meta_name(w, "process_name", r, 0, b);
        uint32_t threads = 0;
        iolens_event e;
        while ((rc = iolens_evsource_next(src, r, &e)) > 0) {
            while (threads <= e.thread && threads < 4096) { /* name each thread once, when first seen */
                snprintf(b, sizeof b, threads ? "thread %u" : "main thread", threads);
                meta_name(w, "thread_name", r, threads, b);
                threads++;
            }
            begin_x(w, e.func ? e.func : iolens_op_name(e.op), iolens_layer_name(e.layer), e.tstart, e.tend, r, e.thread);
            iol_jsonw_key(w, "args");
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "op");
            iol_jsonw_str(w, iolens_op_name(e.op));
            iol_jsonw_key(w, "depth");
            iol_jsonw_uint(w, e.depth + e.lib_depth);
            if (e.file >= 0 && (size_t)e.file < nfiles) {
                iol_jsonw_key(w, "file");
                iol_jsonw_str(w, files[e.file].path);
            }
            if (e.offset >= 0) {
                iol_jsonw_key(w, "offset");
                iol_jsonw_int(w, e.offset);
            }
            if (e.size >= 0) {
                iol_jsonw_key(w, "size");
                iol_jsonw_int(w, e.size);
            }
            iol_jsonw_key(w, "ret");
            iol_jsonw_int(w, e.ret);
            if (e.err) {
                iol_jsonw_key(w, "errno");
                iol_jsonw_int(w, e.err);
            }
            if (e.nargs && e.args) {
                iol_jsonw_key(w, "call");
                iol_jsonw_arr_begin(w);
                for (uint32_t a = 0; a < e.nargs; a++)
                    iol_jsonw_str(w, e.args[a] ? e.args[a] : "");
                iol_jsonw_arr_end(w);
            }
            iol_jsonw_obj_end(w);
            iol_jsonw_obj_end(w);
            (*count)++;
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int dxt_events(const iolens_darshan_data *d, iol_jsonw *w, int64_t *count)
{
    static const int mods[2] = {IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO};
    int64_t named = -1;
    for (int k = 0; k < 2; k++) {
        size_t n = iolens_darshan_data_count(d, mods[k]);
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, mods[k], i);
            const char *name = iolens_darshan_data_name(d, r->id);
            if (r->rank > named) {
                char b[32];
                snprintf(b, sizeof b, "rank %" PRId64, r->rank);
                meta_name(w, "process_name", r->rank, 0, b);
                named = r->rank;
            }
            int64_t ns = r->dxt.write_count + r->dxt.read_count;
            for (int64_t s = 0; s < ns; s++) {
                const iolens_darshan_dxt_seg *g = &r->dxt.segs[s];
                int wr = s < r->dxt.write_count;
                begin_x(w, wr ? "write" : "read", k ? "MPIIO" : "POSIX", g->start, g->end, r->rank,
                        /* one row per module: POSIX below MPI-IO as the calls nest */
                        k ? 0 : 1);
                iol_jsonw_key(w, "args");
                iol_jsonw_obj_begin(w);
                iol_jsonw_key(w, "file");
                iol_jsonw_str(w, name ? name : "");
                iol_jsonw_key(w, "offset");
                iol_jsonw_int(w, g->offset);
                iol_jsonw_key(w, "length");
                iol_jsonw_int(w, g->length);
                if (r->dxt.hostname[0]) {
                    iol_jsonw_key(w, "host");
                    iol_jsonw_str(w, r->dxt.hostname);
                }
                iol_jsonw_obj_end(w);
                iol_jsonw_obj_end(w);
                (*count)++;
            }
        }
    }
    return 0;
}

int iol_report_open_trace(const char *input, int kind, iolens_warn_fn warn, void *ctx, iolens_evsource **src)
{
    if (kind == IOLENS_DETECT_KIND_TRACE)
        return iolens_trace_open(input, src);
    iolens_recorder_options ro;
    memset(&ro, 0, sizeof ro);
    ro.warn = warn;
    ro.warn_ctx = ctx;
    return iolens_recorder_open(input, src, &ro);
}

int iolens_report_chrome_trace(const char *input, FILE *out, int64_t *nevents, iolens_warn_fn warn, void *ctx)
{
    if (!input || !out)
        return iol_err(IOLENS_EINVAL, "iolens_report_chrome_trace: NULL argument");
    int kind = iolens_detect_kind(input);
    if (kind < 0)
        return kind;
    if (kind != IOLENS_DETECT_KIND_DARSHAN && kind != IOLENS_DETECT_KIND_TRACE && kind != IOLENS_DETECT_KIND_RECORDER)
        return iol_err(IOLENS_EUNSUPPORTED, "'%s' is not a binary Darshan log, an iolens trace or a Recorder trace "
                       "directory", input);
    iolens_evsource *src = NULL;
    iolens_darshan_data *d = NULL;
    int rc = 0;
    if (kind == IOLENS_DETECT_KIND_DARSHAN) {
        if ((rc = iolens_darshan_load(input, 0, warn, ctx, &d)) < 0)
            return rc;
        if (!iolens_darshan_data_count(d, IOLENS_DARSHAN_DXT_POSIX) && !iolens_darshan_data_count(d, IOLENS_DARSHAN_DXT_MPIIO)) {
            iolens_darshan_data_free(d);
            return iol_err(IOLENS_ENOTFOUND, "'%s' has no DXT segments: a timeline needs a log written with DXT "
                           "enabled (DXT_ENABLE_IO_TRACE=1), or a trace", input);
        }
    } else {
        rc = iol_report_open_trace(input, kind, warn, ctx, &src);
    }
    if (rc < 0)
        return rc;
    iol_jsonw w;
    int64_t count = 0;
    iol_jsonw_init(&w, out, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "displayTimeUnit");
    iol_jsonw_str(&w, "ms");
    iol_jsonw_key(&w, "otherData");
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "source");
    iol_jsonw_str(&w, input);
    iol_jsonw_key(&w, "producer");
    iol_jsonw_str(&w, "iolens");
    iol_jsonw_obj_end(&w);
    iol_jsonw_key(&w, "traceEvents");
    iol_jsonw_arr_begin(&w);
    rc = src ? events(src, &w, &count) : dxt_events(d, &w, &count);
    iol_jsonw_arr_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    iolens_evsource_free(src);
    iolens_darshan_data_free(d);
    if (rc == 0 && ferror(out))
        rc = iol_err(IOLENS_EIO, "cannot write the timeline");
    if (nevents)
        *nevents = count;
    return rc;
}
