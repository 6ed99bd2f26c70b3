/*
 * Fuzz target for the Darshan log reader: the input is one log, opened from
 * memory with iolens_darshan_open_mem(). Everything is iterated through the
 * streaming API (names, every module's records, their variable parts) and
 * through the JSON writer.
 * Corpus: fuzz/corpus/darshan_log (fuzz/make_darshan_corpus.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iolens/darshan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch_record(const iolens_darshan_record *r)
{
    uint64_t acc = r->id ^ (uint64_t)r->rank;
    for (size_t i = 0; i < r->ncounters; i++)
        acc += (uint64_t)r->counters[i];
    for (size_t i = 0; i < r->nfcounters; i++)
        acc += (uint64_t)(int64_t)(r->fcounters[i] == r->fcounters[i] ? 1 : 0);
    if (r->module == IOLENS_DARSHAN_LUSTRE) {
        for (int64_t i = 0; i < r->lustre.num_comps; i++)
            acc += (uint64_t)r->lustre.comps[i].stripe_count + strlen(r->lustre.comps[i].pool_name);
        for (int64_t i = 0; i < r->lustre.num_stripes; i++)
            acc += (uint64_t)r->lustre.osts[i];
    } else if (r->module == IOLENS_DARSHAN_HEATMAP) {
        for (int64_t i = 0; i < r->heatmap.nbins; i++)
            acc += (uint64_t)r->heatmap.read_bins[i] + (uint64_t)r->heatmap.write_bins[i];
    } else if (r->module == IOLENS_DARSHAN_DXT_POSIX || r->module == IOLENS_DARSHAN_DXT_MPIIO) {
        int64_t n = r->dxt.write_count + r->dxt.read_count;
        for (int64_t i = 0; i < n; i++)
            acc += (uint64_t)r->dxt.segs[i].offset + (uint64_t)r->dxt.segs[i].length;
        acc += strlen(r->dxt.hostname);
    }
    sink += acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_darshan_log *log;
    if (iolens_darshan_open_mem(data, size, "fuzz", NULL, NULL, &log) < 0)
        return 0;
    const iolens_darshan_job *job = iolens_darshan_job_get(log);
    sink += strlen(job->exe) + strlen(job->metadata);
    for (size_t i = 0; i < iolens_darshan_mount_count(log); i++) {
        const iolens_darshan_mount *m = iolens_darshan_mount_at(log, i);
        sink += strlen(m->path) + strlen(m->fs_type);
    }
    if (iolens_darshan_names_begin(log) == 0) {
        uint64_t id;
        const char *name;
        while (iolens_darshan_names_next(log, &id, &name) > 0) {
            sink += id + strlen(name);
            (void)iolens_darshan_mount_find(log, name);
        }
    }
    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (iolens_darshan_module_begin(log, m) <= 0)
            continue;
        const iolens_darshan_record *r;
        while (iolens_darshan_record_next(log, &r) > 0)
            touch_record(r);
    }
    iolens_darshan_close(log);
    /* the JSON writer over the same input */
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (devnull && iolens_darshan_open_mem(data, size, "fuzz", NULL, NULL, &log) == 0) {
        (void)iolens_darshan_write_json(log, devnull, 0);
        iolens_darshan_close(log);
    }
    return 0;
}
