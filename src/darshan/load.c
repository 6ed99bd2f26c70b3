/* Convenience loader: a whole Darshan log in memory. */
#include "darshan/internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

struct name_ent {
    uint64_t id;
    char *name;
};

struct iolens_darshan_data {
    iolens_darshan_log *log;
    struct name_ent *names; /* first-seen order */
    size_t nnames, names_cap;
    size_t *slots;          /* open-addressing hash: index+1 into names, 0 = empty */
    size_t nslots;
    iolens_darshan_record *recs[IOLENS_DARSHAN_MOD_COUNT];
    size_t nrecs[IOLENS_DARSHAN_MOD_COUNT], caps[IOLENS_DARSHAN_MOD_COUNT];
};

static size_t hash_id(uint64_t id, size_t nslots)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)(id & (nslots - 1));
}

static struct name_ent *name_find(const iolens_darshan_data *d, uint64_t id)
{
    if (!d->nslots)
        return NULL;
    for (size_t h = hash_id(id, d->nslots);; h = (h + 1) & (d->nslots - 1)) {
        size_t s = d->slots[h];
        if (!s)
            return NULL;
        if (d->names[s - 1].id == id)
            return &d->names[s - 1];
    }
}

static int rehash(iolens_darshan_data *d)
{
    size_t n = d->nslots ? d->nslots * 2 : 1024;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return iol_err(IOLENS_ENOMEM, "out of memory for the name table");
    free(d->slots);
    d->slots = s;
    d->nslots = n;
    for (size_t i = 0; i < d->nnames; i++) {
        size_t h = hash_id(d->names[i].id, n);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = i + 1;
    }
    return 0;
}

static int name_add(iolens_darshan_data *d, uint64_t id, const char *name)
{
    struct name_ent *e = name_find(d, id);
    if (e) { /* keep the first entry, but let a non-empty name replace an empty one */
        if (e->name[0] == '\0' && name[0] != '\0') {
            char *c = strdup(name);
            if (!c)
                return iol_err(IOLENS_ENOMEM, "out of memory for the name table");
            free(e->name);
            e->name = c;
        }
        return 0;
    }
    if ((d->nnames + 1) * 2 > d->nslots && rehash(d) < 0)
        return IOLENS_ENOMEM;
    if (d->nnames == d->names_cap) {
        size_t nc = d->names_cap ? d->names_cap * 2 : 256;
        struct name_ent *p = realloc(d->names, nc * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "out of memory for the name table");
        d->names = p;
        d->names_cap = nc;
    }
    char *c = strdup(name);
    if (!c)
        return iol_err(IOLENS_ENOMEM, "out of memory for the name table");
    d->names[d->nnames].id = id;
    d->names[d->nnames].name = c;
    size_t h = hash_id(id, d->nslots);
    while (d->slots[h])
        h = (h + 1) & (d->nslots - 1);
    d->slots[h] = ++d->nnames;
    return 0;
}

static void *dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

static void record_free(iolens_darshan_record *r)
{
    free((void *)r->counters);
    free((void *)r->fcounters);
    free((void *)r->lustre.comps);
    free((void *)r->lustre.osts);
    free((void *)r->heatmap.write_bins);
    free((void *)r->dxt.segs);
}

static int record_clone(const iolens_darshan_record *src, iolens_darshan_record *dst)
{
    *dst = *src;
    dst->counters = dup_mem(src->counters, src->ncounters * sizeof(int64_t));
    dst->fcounters = dup_mem(src->fcounters, src->nfcounters * sizeof(double));
    dst->lustre.comps = NULL;
    dst->lustre.osts = NULL;
    dst->heatmap.write_bins = dst->heatmap.read_bins = NULL;
    dst->dxt.segs = NULL;
    int ok = dst->counters && dst->fcounters;
    if (src->lustre.comps) {
        dst->lustre.comps = dup_mem(src->lustre.comps,
                                    (size_t)src->lustre.num_comps * sizeof *src->lustre.comps);
        dst->lustre.osts = dup_mem(src->lustre.osts, (size_t)src->lustre.num_stripes * 8);
        ok = ok && dst->lustre.comps && dst->lustre.osts;
    }
    if (src->heatmap.write_bins) {
        int64_t *b = dup_mem(src->heatmap.write_bins, (size_t)src->heatmap.nbins * 16);
        dst->heatmap.write_bins = b;
        dst->heatmap.read_bins = b ? b + src->heatmap.nbins : NULL;
        ok = ok && b;
    }
    if (src->dxt.segs) {
        dst->dxt.segs = dup_mem(src->dxt.segs, (size_t)(src->dxt.write_count + src->dxt.read_count) *
                                                   sizeof *src->dxt.segs);
        ok = ok && dst->dxt.segs;
    }
    if (!ok) {
        record_free(dst);
        return iol_err(IOLENS_ENOMEM, "out of memory while loading records");
    }
    return 0;
}

int iolens_darshan_load(const char *path, int skip_dxt, iolens_warn_fn warn, void *warn_ctx,
                        iolens_darshan_data **out)
{
    if (!out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_load: NULL argument");
    *out = NULL;
    iolens_darshan_data *d = calloc(1, sizeof *d);
    if (!d)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int rc = iolens_darshan_open(path, warn, warn_ctx, &d->log);
    if (rc < 0)
        goto fail;
    if ((rc = iolens_darshan_names_begin(d->log)) < 0)
        goto fail;
    uint64_t id;
    const char *name;
    while ((rc = iolens_darshan_names_next(d->log, &id, &name)) > 0)
        if ((rc = name_add(d, id, name)) < 0)
            goto fail;
    if (rc < 0)
        goto fail;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (skip_dxt && (m == IOLENS_DARSHAN_DXT_POSIX || m == IOLENS_DARSHAN_DXT_MPIIO))
            continue;
        rc = iolens_darshan_module_begin(d->log, m);
        if (rc < 0)
            goto fail;
        if (rc == 0)
            continue;
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(d->log, &r)) > 0) {
            if (d->nrecs[m] == d->caps[m]) {
                size_t nc = d->caps[m] ? d->caps[m] * 2 : 16;
                iolens_darshan_record *p = realloc(d->recs[m], nc * sizeof *p);
                if (!p) {
                    rc = iol_err(IOLENS_ENOMEM, "out of memory while loading records");
                    goto fail;
                }
                d->recs[m] = p;
                d->caps[m] = nc;
            }
            if ((rc = record_clone(r, &d->recs[m][d->nrecs[m]])) < 0)
                goto fail;
            d->nrecs[m]++;
        }
        if (rc < 0)
            goto fail;
    }
    *out = d;
    return 0;
fail:
    iolens_darshan_data_free(d);
    return rc;
}

void iolens_darshan_data_free(iolens_darshan_data *d)
{
    if (!d)
        return;
    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        for (size_t i = 0; i < d->nrecs[m]; i++)
            record_free(&d->recs[m][i]);
        free(d->recs[m]);
    }
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i].name);
    free(d->names);
    free(d->slots);
    iolens_darshan_close(d->log);
    free(d);
}

const iolens_darshan_log *iolens_darshan_data_log(const iolens_darshan_data *d) { return d->log; }

size_t iolens_darshan_data_count(const iolens_darshan_data *d, int m)
{
    return m >= 0 && m < IOLENS_DARSHAN_MOD_COUNT ? d->nrecs[m] : 0;
}

const iolens_darshan_record *iolens_darshan_data_record(const iolens_darshan_data *d, int m,
                                                        size_t i)
{
    if (m < 0 || m >= IOLENS_DARSHAN_MOD_COUNT || i >= d->nrecs[m])
        return NULL;
    return &d->recs[m][i];
}

const char *iolens_darshan_data_name(const iolens_darshan_data *d, uint64_t id)
{
    const struct name_ent *e = name_find(d, id);
    return e ? e->name : NULL;
}

size_t iolens_darshan_data_name_count(const iolens_darshan_data *d) { return d->nnames; }

int iolens_darshan_data_name_at(const iolens_darshan_data *d, size_t i, uint64_t *id,
                                const char **name)
{
    if (i >= d->nnames)
        return iol_err(IOLENS_ENOTFOUND, "name index %zu out of range", i);
    *id = d->names[i].id;
    *name = d->names[i].name;
    return 0;
}

/* ---- whole columns, for bindings (one call per module instead of one per record) ---- */

int iolens_darshan_data_columns(const iolens_darshan_data *d, int m, int64_t *rank, uint64_t *id, int64_t *counters,
                                double *fcounters)
{
    if (!d || m < 0 || m >= IOLENS_DARSHAN_MOD_COUNT)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_data_columns: bad argument");
    size_t ni = iolens_darshan_counter_count(m), nf = iolens_darshan_fcounter_count(m);
    for (size_t i = 0; i < d->nrecs[m]; i++) {
        const iolens_darshan_record *r = &d->recs[m][i];
        if (rank)
            rank[i] = r->rank;
        if (id)
            id[i] = r->id;
        for (size_t k = 0; counters && k < ni; k++)
            counters[i * ni + k] = k < r->ncounters ? r->counters[k] : 0;
        for (size_t k = 0; fcounters && k < nf; k++)
            fcounters[i * nf + k] = k < r->nfcounters ? r->fcounters[k] : 0;
    }
    return 0;
}

int64_t iolens_darshan_data_dxt_count(const iolens_darshan_data *d, int m)
{
    if (!d || (m != IOLENS_DARSHAN_DXT_POSIX && m != IOLENS_DARSHAN_DXT_MPIIO))
        return iol_err(IOLENS_EINVAL, "iolens_darshan_data_dxt_count: not a DXT module");
    int64_t n = 0;
    for (size_t i = 0; i < d->nrecs[m]; i++)
        n += d->recs[m][i].dxt.write_count + d->recs[m][i].dxt.read_count;
    return n;
}

int iolens_darshan_data_dxt_segments(const iolens_darshan_data *d, int m, iolens_darshan_dxt_seg *segs,
                                     int64_t *record, unsigned char *is_write)
{
    int64_t at = iolens_darshan_data_dxt_count(d, m);
    if (at < 0)
        return (int)at;
    at = 0;
    for (size_t i = 0; i < d->nrecs[m]; i++) {
        const iolens_darshan_record *r = &d->recs[m][i];
        int64_t ns = r->dxt.write_count + r->dxt.read_count;
        if (ns > 0 && segs)
            memcpy(segs + at, r->dxt.segs, (size_t)ns * sizeof *segs);
        for (int64_t k = 0; k < ns; k++) {
            if (record)
                record[at + k] = (int64_t)i;
            if (is_write)
                is_write[at + k] = k < r->dxt.write_count;
        }
        at += ns;
    }
    return 0;
}

int iolens_darshan_data_dxt_columns(const iolens_darshan_data *d, int m, int64_t *rank, uint64_t *id, int64_t *offset,
                                    int64_t *length, double *start, double *end, uint64_t *thread,
                                    unsigned char *is_write, int64_t *record)
{
    int64_t at = iolens_darshan_data_dxt_count(d, m);
    if (at < 0)
        return (int)at;
    at = 0;
    for (size_t i = 0; i < d->nrecs[m]; i++) {
        const iolens_darshan_record *r = &d->recs[m][i];
        int64_t ns = r->dxt.write_count + r->dxt.read_count;
        for (int64_t k = 0; k < ns; k++) {
            const iolens_darshan_dxt_seg *g = &r->dxt.segs[k];
            int64_t j = at + k;
            if (rank)
                rank[j] = r->rank;
            if (id)
                id[j] = r->id;
            if (offset)
                offset[j] = g->offset;
            if (length)
                length[j] = g->length;
            if (start)
                start[j] = g->start;
            if (end)
                end[j] = g->end;
            if (thread)
                thread[j] = g->pthread_id;
            if (is_write)
                is_write[j] = k < r->dxt.write_count;
            if (record)
                record[j] = (int64_t)i;
        }
        at += ns;
    }
    return 0;
}

int iolens_darshan_data_dxt_hostnames(const iolens_darshan_data *d, int m, char *out)
{
    if (!d || m <= 0 || m >= IOLENS_DARSHAN_MOD_COUNT || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_data_dxt_hostnames: bad argument");
    for (size_t i = 0; i < d->nrecs[m]; i++) {
        char *o = out + 65 * i;
        memset(o, 0, 65);
        memcpy(o, d->recs[m][i].dxt.hostname, strnlen(d->recs[m][i].dxt.hostname, 64));
    }
    return 0;
}
