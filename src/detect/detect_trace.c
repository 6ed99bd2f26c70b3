/*
 * Traces -> iolens_detect_input, through the counters module (no round trip
 * through a Darshan log file): an iolens trace file or a Recorder trace
 * directory is read as an event stream, iolens_counters_compute() turns it
 * into Darshan-equivalent records (Darshan's defaults: path exclusions,
 * shared-file reduction), and the records are given to the input by counter
 * name, as detect_darshan.c does for a binary log.
 *
 * num_files is IOSage's len(report.name_records) of the Darshan log the
 * run would have produced: the counters' name records
 * (iolens_counters_name_count: record paths, "heatmap:<API>", and the four
 * names "<STDIN>" "<STDOUT>" "<STDERR>" "heatmap:STDIO" that Darshan's STDIO
 * module registers at the first stdio call of the run). The real logs of
 * ../shared/data/darshan/generated show the rule: dd and small_writes (stdio
 * calls) have those four, large_seq (none) has not.
 *
 * The trace is read through a thin event-source proxy that counts calls on
 * named files, so that a trace whose every file falls under Darshan's path
 * exclusions gets a warning instead of silently empty features.
 *
 * iolens_detect_read() tells the four inputs apart by content and shape: a
 * directory is a Recorder trace, a file starting with "IOLTRACE" an iolens
 * trace, a file with the Darshan magic at byte 8 a binary Darshan log, any
 * other file darshan-parser text.
 */
#include "detect/detect_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/counters.h"
#include "iolens/darshan.h"
#include "iolens/recorder.h"
#include "iolens/trace.h"
#include "util/buf.h"
#include "util/error.h"

static int feed_records(iolens_detect_input *in, const iolens_counters *c, int m)
{
    size_t n = iolens_counters_count(c, m);
    if (n == 0)
        return 0;
    int rc = iolens_detect_input_add_module(in, iolens_darshan_module_name(m));
    if (rc < 0)
        return rc;
    if (m != IOLENS_DARSHAN_POSIX && m != IOLENS_DARSHAN_MPIIO && m != IOLENS_DARSHAN_STDIO)
        return 0; /* HEATMAP / DXT: no counters the features use */
    size_t nc = iolens_darshan_counter_count(m), nfc = iolens_darshan_fcounter_count(m);
    int *key = malloc((nc + nfc + 1) * sizeof *key);
    if (!key)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int *fkey = key + nc;
    for (size_t i = 0; i < nc; i++)
        key[i] = iolens_detect_input_key(in, iolens_darshan_counter_name(m, i));
    for (size_t i = 0; i < nfc; i++)
        fkey[i] = iolens_detect_input_key(in, iolens_darshan_fcounter_name(m, i));
    const char *mname = iolens_darshan_module_name(m);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        const iolens_darshan_record *r = iolens_counters_record(c, m, i);
        rc = iolens_detect_input_record(in, mname, r->rank, r->id, iolens_counters_name(c, r->id));
        for (size_t k = 0; k < r->ncounters && k < nc && rc >= 0; k++)
            if (key[k] >= 0)
                rc = iolens_detect_input_counter_key(in, key[k], r->counters[k]);
        for (size_t k = 0; k < r->nfcounters && k < nfc && rc >= 0; k++)
            if (fkey[k] >= 0)
                rc = iolens_detect_input_fcounter_key(in, fkey[k], r->fcounters[k]);
    }
    free(key);
    return rc < 0 ? rc : 0;
}

int iolens_detect_from_counters(iolens_detect_input **out, const iolens_counters *c)
{
    if (!out || !c)
        return iol_err(IOLENS_EINVAL, "no detect input output or counters");
    *out = NULL;
    iolens_detect_input *in = NULL;
    int rc = iolens_detect_input_new(&in);
    if (rc < 0)
        goto out;
    const iolens_darshan_job *job = iolens_counters_job(c);
    if ((rc = iolens_detect_input_set_job(in, job->nprocs, job->run_time)) < 0)
        goto out;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if ((rc = feed_records(in, c, m)) < 0)
            goto out;
    if ((rc = iolens_detect_input_set_name_count(in, iolens_counters_name_count(c))) < 0)
        goto out;
    *out = in;
    in = NULL;
out:
    iolens_detect_input_free(in);
    return rc;
}

/* Event-source proxy: forwards every call, counts calls on named files. */
struct spy {
    iolens_evsource *inner; /* not owned */
    uint64_t file_calls;    /* POSIX / MPI-IO / stdio calls on a file */
    uint64_t shm_calls;     /* of which on files under /dev/shm/ */
    const iolens_file *files;
    size_t nfiles;
    int have_files;
};
static int spy_nranks(void *impl) { return iolens_evsource_nranks(((struct spy *)impl)->inner); }
static double spy_start(void *impl) { return iolens_evsource_start_time(((struct spy *)impl)->inner); }
static int spy_files(void *impl, const iolens_file **out, size_t *count)
{
    return iolens_evsource_files(((struct spy *)impl)->inner, out, count);
}
static int spy_next(void *impl, int rank, iolens_event *out)
{
    struct spy *s = impl;
    int rc = iolens_evsource_next(s->inner, rank, out);
    if (rc > 0) {
        int on_file = out->file >= 0 && (out->layer == IOLENS_LAYER_STDIO || out->layer == IOLENS_LAYER_POSIX ||
                                         out->layer == IOLENS_LAYER_MPIIO);
        s->file_calls += on_file;
        if (on_file && !s->have_files) {
            s->have_files = 1;
            if (iolens_evsource_files(s->inner, &s->files, &s->nfiles) < 0)
                s->files = NULL, s->nfiles = 0;
        }
        if (on_file && (uint64_t)out->file < s->nfiles && s->files[out->file].path &&
            !strncmp(s->files[out->file].path, "/dev/shm/", 9))
            s->shm_calls++;
    }
    return rc;
}
static int spy_rewind(void *impl, int rank) { return iolens_evsource_rewind(((struct spy *)impl)->inner, rank); }
static void spy_free(void *impl) { (void)impl; }

void iolens_detect_read_opts_init(iolens_detect_read_opts *o)
{
    memset(o, 0, sizeof *o);
}

int iolens_detect_kind(const char *path)
{
    if (!path)
        return iol_err(IOLENS_EINVAL, "no path");
    struct stat st;
    if (stat(path, &st) != 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return IOLENS_DETECT_KIND_RECORDER;
    if (!S_ISREG(st.st_mode)) /* a pipe or FIFO: looking would take its bytes from the reader */
        return IOLENS_DETECT_KIND_TEXT;
    int rc = 0;
    FILE *f = iol_fopen_input(path, IOL_INPUT_NOWAIT, &rc);
    if (!f)
        return rc;
    unsigned char b[8];
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    if (got == sizeof b && !memcmp(b, "IOLTRACE", 8))
        return IOLENS_DETECT_KIND_TRACE;
    rc = iolens_detect_is_darshan(path);
    if (rc < 0)
        return rc;
    return rc ? IOLENS_DETECT_KIND_DARSHAN : IOLENS_DETECT_KIND_TEXT;
}

int iolens_detect_read_trace(iolens_detect_input **out, const char *path, const iolens_detect_read_opts *opts)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no detect input output or path");
    *out = NULL;
    iolens_detect_read_opts def;
    if (!opts) {
        iolens_detect_read_opts_init(&def);
        opts = &def;
    }
    int kind = iolens_detect_kind(path);
    if (kind < 0)
        return kind;
    if (kind != IOLENS_DETECT_KIND_TRACE && kind != IOLENS_DETECT_KIND_RECORDER)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': not an iolens trace (magic \"IOLTRACE\" at byte 0) "
                                       "nor a Recorder trace directory", path);
    iolens_evsource *src = NULL, *proxy = NULL;
    iolens_counters *c = NULL;
    struct spy spy = {NULL, 0, 0, NULL, 0, 0};
    static const iolens_evsource_ops spy_ops = {IOLENS_EVSOURCE_OPS_VERSION, "detect-spy", spy_nranks, spy_start,
                                                spy_files, spy_next, spy_rewind, spy_free};
    int rc;
    if (kind == IOLENS_DETECT_KIND_TRACE) {
        rc = iolens_trace_open(path, &src);
    } else {
        iolens_recorder_options ro;
        memset(&ro, 0, sizeof ro);
        ro.warn = opts->warn;
        ro.warn_ctx = opts->warn_ctx;
        rc = iolens_recorder_open(path, &src, &ro);
    }
    if (rc < 0)
        goto out;
    spy.inner = src;
    if ((rc = iolens_evsource_new(&proxy, &spy_ops, &spy)) < 0)
        goto out;
    iolens_counters_opts co;
    iolens_counters_opts_init(&co);
    co.all_paths = opts->all_paths;
    co.dxt = 0; /* DXT segments hold no counters; their ids are those of the POSIX/MPI-IO records */
    co.mounts = ""; /* the mount table does not enter the features */
    co.progress = opts->progress;
    co.progress_ctx = opts->progress_ctx;
    co.trace = src; /* the proxy forwards the trace's events: their descriptors are read there */
    if ((rc = iolens_counters_compute(proxy, &co, &c)) < 0)
        goto out;
    rc = iolens_detect_from_counters(out, c);
    if (rc >= 0 && opts->warn && !opts->all_paths && spy.file_calls > 0 &&
        iolens_counters_count(c, IOLENS_DARSHAN_POSIX) + iolens_counters_count(c, IOLENS_DARSHAN_MPIIO) +
                iolens_counters_count(c, IOLENS_DARSHAN_STDIO) ==
            0) {
        char msg[600];
        snprintf(msg, sizeof msg,
                 "'%s': every file of the trace is under a path Darshan leaves out (/dev/ /proc/ /etc/ /usr/ "
                 "...): the features are those of a run without file I/O (--all-paths keeps those files)",
                 path);
        opts->warn(opts->warn_ctx, msg);
    } else if (rc >= 0 && opts->warn && !opts->all_paths && spy.shm_calls > 0) {
        char msg[700];
        snprintf(msg, sizeof msg,
                 "'%s': %llu of the trace's %llu file calls are on files under /dev/shm/ (data on tmpfs), which "
                 "Darshan leaves out and so does this diagnosis: it rests on the other files (--all-paths keeps "
                 "them)",
                 path, (unsigned long long)spy.shm_calls, (unsigned long long)spy.file_calls);
        opts->warn(opts->warn_ctx, msg);
    }
out:
    iolens_counters_free(c);
    iolens_evsource_free(proxy);
    iolens_evsource_free(src);
    return rc;
}

int iolens_detect_read(iolens_detect_input **out, const char *path, const iolens_detect_read_opts *opts)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no detect input output or path");
    *out = NULL;
    iolens_detect_read_opts def;
    if (!opts) {
        iolens_detect_read_opts_init(&def);
        opts = &def;
    }
    int kind = iolens_detect_kind(path);
    switch (kind) {
    case IOLENS_DETECT_KIND_DARSHAN:
        return iolens_detect_read_darshan(out, path, opts->warn, opts->warn_ctx);
    case IOLENS_DETECT_KIND_TEXT:
        return iolens_detect_read_text(out, path, opts->warn, opts->warn_ctx);
    case IOLENS_DETECT_KIND_TRACE:
    case IOLENS_DETECT_KIND_RECORDER:
        return iolens_detect_read_trace(out, path, opts);
    default:
        return kind < 0 ? kind : iol_err(IOLENS_EINVAL, "'%s': unknown input kind", path);
    }
}
