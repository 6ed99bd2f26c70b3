/* Job-level I/O time series of a Darshan log: HEATMAP records summed over
 * ranks, or DXT segments binned at a chosen step when the log has no
 * HEATMAP. Uses only the public reader API (include/iolens/darshan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/darshan.h"
#include "temporal/internal.h"
#include "util/buf.h"
#include "util/error.h"

#define MIB 1048576.0

int iolens_series_darshan_log_name(const char *path, char *buf, size_t size)
{
    if (!path || !buf || !size)
        return iol_err(IOLENS_EINVAL, "invalid arguments (path or buffer)");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len + 1 > size)
        return iol_err(IOLENS_EINVAL, "log name of '%s' is longer than %zu bytes", path, size - 1);
    memcpy(buf, base, len + 1);
    char *sep = strstr(buf, "__");
    if (sep && sep != buf && sep[2]) { /* "<dir>__<file>" -> "<dir>/<file>" */
        sep[0] = '/';
        memmove(sep + 1, sep + 2, strlen(sep + 2) + 1);
    }
    return 0;
}

/* One API (heatmap category or DXT module) being accumulated. */
struct dcat {
    char name[64];
    double width;        /* HEATMAP: widest bin width of the category's records */
    size_t nbins;
    double *rd, *wr;     /* HEATMAP: bytes per bin */
};

static struct dcat *cat_find(struct dcat *cats, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cats[i].name, name))
            return &cats[i];
    return NULL;
}

static void heatmap_cat_name(const iolens_darshan_data *d, const iolens_darshan_record *r, char *out, size_t size)
{
    const char *name = iolens_darshan_data_name(d, r->id);
    if (name && !strncmp(name, "heatmap:", 8) && name[8])
        snprintf(out, size, "%s", name + 8);
    else if (name && *name)
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "HEATMAP-%016llx", (unsigned long long)r->id);
}

static int add_pair(iolens_series_set *set, const char *log, const char *cat, double step, const double *rd,
                    const double *wr, size_t n)
{
    iol_buf id = IOL_BUF_INIT;
    int rc;
    if ((rc = iol_buf_printf(&id, "%s:%s:read", log, cat)) ||
        (rc = iolens_series_set_add(set, id.data, IOLENS_DIR_READ, step, rd, n, -1)))
        goto done;
    iol_buf_reset(&id);
    if ((rc = iol_buf_printf(&id, "%s:%s:write", log, cat)) ||
        (rc = iolens_series_set_add(set, id.data, IOLENS_DIR_WRITE, step, wr, n, -1)))
        goto done;
done:
    iol_buf_release(&id);
    return rc;
}

static int from_heatmap(iolens_series_set *set, const iolens_darshan_data *d, const char *path, const char *log,
                        size_t nrec)
{
    struct dcat *cats = calloc(nrec, sizeof *cats);
    size_t ncat = 0;
    int rc = 0;
    if (!cats) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", path);
        goto done;
    }
    /* Pass 1: categories, their widest bin width and span. */
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_HEATMAP, i);
        if (!(r->heatmap.bin_width > 0) || !isfinite(r->heatmap.bin_width) || r->heatmap.bin_width > 1e9 ||
            r->heatmap.nbins < 0 || r->heatmap.nbins > (int64_t)IOLENS_SERIES_MAX_SAMPLES) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': HEATMAP record %zu has bin width %g and %lld bins",
                         path, i, r->heatmap.bin_width, (long long)r->heatmap.nbins);
            goto done;
        }
        char name[64];
        heatmap_cat_name(d, r, name, sizeof name);
        struct dcat *c = cat_find(cats, ncat, name);
        if (!c) {
            c = &cats[ncat++];
            memcpy(c->name, name, sizeof name);
        }
        if (r->heatmap.bin_width > c->width)
            c->width = r->heatmap.bin_width;
    }
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_HEATMAP, i);
        char name[64];
        heatmap_cat_name(d, r, name, sizeof name);
        struct dcat *c = cat_find(cats, ncat, name);
        double span = ceil((double)r->heatmap.nbins * r->heatmap.bin_width / c->width - 1e-9);
        if (span > (double)IOLENS_SERIES_MAX_SAMPLES) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': HEATMAP record %zu spans more than %u bins", path, i,
                         IOLENS_SERIES_MAX_SAMPLES);
            goto done;
        }
        if ((size_t)span > c->nbins)
            c->nbins = (size_t)span;
    }
    /* Pass 2: sum the bins of every rank (records of a narrower width fall
     * into the wider bin holding their middle). */
    for (size_t k = 0; k < ncat; k++) {
        cats[k].rd = calloc(cats[k].nbins ? cats[k].nbins : 1, sizeof(double));
        cats[k].wr = calloc(cats[k].nbins ? cats[k].nbins : 1, sizeof(double));
        if (!cats[k].rd || !cats[k].wr) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", path);
            goto done;
        }
    }
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_HEATMAP, i);
        char name[64];
        heatmap_cat_name(d, r, name, sizeof name);
        struct dcat *c = cat_find(cats, ncat, name);
        for (int64_t b = 0; b < r->heatmap.nbins; b++) {
            int64_t rb = r->heatmap.read_bins[b], wb = r->heatmap.write_bins[b];
            if (rb < 0 || wb < 0) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': HEATMAP record %zu has a negative byte count in bin %lld",
                             path, i, (long long)b);
                goto done;
            }
            size_t j = (size_t)floor(((double)b + 0.5) * r->heatmap.bin_width / c->width);
            if (j >= c->nbins)
                j = c->nbins - 1;
            c->rd[j] += (double)rb;
            c->wr[j] += (double)wb;
        }
    }
    for (size_t k = 0; k < ncat; k++) {
        struct dcat *c = &cats[k];
        for (size_t j = 0; j < c->nbins; j++) {
            c->rd[j] = c->rd[j] / c->width / MIB;
            c->wr[j] = c->wr[j] / c->width / MIB;
        }
        if ((rc = add_pair(set, log, c->name, c->width, c->rd, c->wr, c->nbins)))
            goto done;
    }
done:
    for (size_t k = 0; cats && k < ncat; k++) {
        free(cats[k].rd);
        free(cats[k].wr);
    }
    free(cats);
    return rc;
}

/* Appends the DXT segments of one module to the read (dir 0) and write (1) lists. */
static int dxt_collect(const iolens_darshan_data *d, int module, const char *path, iolens_transfer *t[2],
                       size_t n[2], double *tmax)
{
    size_t nrec = iolens_darshan_data_count(d, module);
    size_t need[2] = {0, 0};
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, module, i);
        if (r->dxt.write_count < 0 || r->dxt.read_count < 0 ||
            (uint64_t)r->dxt.write_count + (uint64_t)r->dxt.read_count > ((uint64_t)1 << 40))
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s record %zu has %lld writes and %lld reads", path,
                           iolens_darshan_module_name(module), i, (long long)r->dxt.write_count,
                           (long long)r->dxt.read_count);
        need[1] += (size_t)r->dxt.write_count;
        need[0] += (size_t)r->dxt.read_count;
    }
    for (int w = 0; w < 2; w++) {
        free(t[w]);
        t[w] = malloc((need[w] + 1) * sizeof **t); /* + the span marker of from_dxt */
        n[w] = 0;
        if (!t[w])
            return iol_err(IOLENS_ENOMEM, "out of memory reading the DXT segments of '%s'", path);
    }
    *tmax = 0;
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, module, i);
        int64_t total = r->dxt.write_count + r->dxt.read_count;
        for (int64_t s = 0; s < total; s++) {
            const iolens_darshan_dxt_seg *g = &r->dxt.segs[s];
            if (!isfinite(g->start) || !isfinite(g->end) || g->start < 0 || g->end < g->start || g->length < 0 ||
                g->end > 1e9)
                return iol_err(IOLENS_EFORMAT,
                               "cannot read '%s': %s record %zu segment %lld has bad times (%g..%g s) or length %lld",
                               path, iolens_darshan_module_name(module), i, (long long)s, g->start, g->end,
                               (long long)g->length);
            int w = s < r->dxt.write_count;
            t[w][n[w]++] = (iolens_transfer){g->start, g->end, (double)g->length};
            if (g->end > *tmax)
                *tmax = g->end;
        }
    }
    return 0;
}

static int from_dxt(iolens_series_set *set, const iolens_darshan_data *d, const char *path, const char *log,
                    double step, int *added)
{
    static const struct {
        int module;
        const char *name;
    } mods[] = {{IOLENS_DARSHAN_DXT_POSIX, "POSIX"}, {IOLENS_DARSHAN_DXT_MPIIO, "MPIIO"}};
    iolens_transfer *t[2] = {NULL, NULL};
    iol_buf id = IOL_BUF_INIT;
    int rc = 0;
    *added = 0;
    for (size_t m = 0; m < sizeof mods / sizeof mods[0]; m++) {
        if (!iolens_darshan_data_count(d, mods[m].module))
            continue;
        size_t n[2];
        double tmax = 0;
        if ((rc = dxt_collect(d, mods[m].module, path, t, n, &tmax)))
            goto done;
        for (int w = 0; w < 2; w++) {
            /* A zero-byte transfer at the last end gives both directions the same span. */
            t[w][n[w]++] = (iolens_transfer){tmax, tmax, 0};
            iol_buf_reset(&id);
            if ((rc = iol_buf_printf(&id, "%s:%s:%s", log, mods[m].name, w ? "write" : "read")) ||
                (rc = iolens_series_from_transfers(set, id.data, w ? IOLENS_DIR_WRITE : IOLENS_DIR_READ, step, t[w],
                                                   n[w])))
                goto done;
        }
        *added += 2;
    }
done:
    free(t[0]);
    free(t[1]);
    iol_buf_release(&id);
    return rc;
}

int iolens_series_from_darshan(iolens_series_set *set, const char *path, const char *log_name, double dxt_step_s,
                               int *source, iolens_warn_fn warn, void *warn_ctx)
{
    if (source)
        *source = IOLENS_DSERIES_NONE;
    if (!set || !path || !(dxt_step_s > 0) || !isfinite(dxt_step_s))
        return iol_err(IOLENS_EINVAL, "invalid arguments (set, path or DXT step)");
    char name[1024];
    iolens_darshan_data *d = NULL;
    size_t before = set->n;
    int rc, added = 0;
    if (log_name) {
        if (strlen(log_name) + 1 > sizeof name) {
            rc = iol_err(IOLENS_EINVAL, "log name '%.40s...' is too long", log_name);
            goto done;
        }
        strcpy(name, log_name);
    } else if ((rc = iolens_series_darshan_log_name(path, name, sizeof name))) {
        goto done;
    }
    if ((rc = iolens_darshan_load(path, 0, warn, warn_ctx, &d)))
        goto done;
    size_t nheat = iolens_darshan_data_count(d, IOLENS_DARSHAN_HEATMAP);
    if (nheat) {
        if ((rc = from_heatmap(set, d, path, name, nheat)))
            goto done;
        added = (int)(set->n - before);
        if (source)
            *source = IOLENS_DSERIES_HEATMAP;
    } else {
        if ((rc = from_dxt(set, d, path, name, dxt_step_s, &added)))
            goto done;
        if (source && added)
            *source = IOLENS_DSERIES_DXT;
    }
    rc = added;
done:
    if (rc < 0) { /* leave the set as it was */
        for (size_t i = before; i < set->n; i++) {
            free(set->s[i].id);
            free(set->s[i].v);
        }
        set->n = before;
    }
    iolens_darshan_data_free(d);
    return rc;
}
