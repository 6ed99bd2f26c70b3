/*
 * Readers of the place module: I/O time series (wide, long and Darshan
 * heatmap CSV layouts) and the output of `iolens cluster --out DIR`.
 * Input is hostile: every number is checked, every allocation is bounded
 * by opts.max_samples, every error names the file and byte offset.
 */
#include "place/internal.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_SAMPLES ((size_t)1 << 24)
#define MAX_FILE_BYTES ((size_t)1 << 31)
#define MIB 1048576.0

typedef struct series_entry {
    char *id;
    double *v;
    unsigned char *seen; /* long and heatmap layouts: sample already given */
    size_t len;
    size_t cap;
    double step;
} series_entry;

struct iolens_place_series {
    series_entry *e;
    size_t n;
    size_t cap;
    size_t total; /* samples allocated, bounded by max_samples */
    size_t max_samples;
    place_map index;
};

enum layout { LAYOUT_WIDE, LAYOUT_LONG, LAYOUT_HEATMAP };

void iolens_place_series_free(iolens_place_series *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->e[i].id);
        free(s->e[i].v);
        free(s->e[i].seen);
    }
    free(s->e);
    place_map_release(&s->index);
    free(s);
}

size_t iolens_place_series_count(const iolens_place_series *s) { return s ? s->n : 0; }

const char *iolens_place_series_id(const iolens_place_series *s, size_t i)
{
    return s && i < s->n ? s->e[i].id : NULL;
}

const double *iolens_place_series_values(const iolens_place_series *s, size_t i, size_t *len)
{
    if (!s || i >= s->n) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = s->e[i].len;
    return s->e[i].v;
}

double iolens_place_series_step(const iolens_place_series *s, size_t i)
{
    return s && i < s->n ? s->e[i].step : 0.0;
}

long iolens_place_series_find(const iolens_place_series *s, const char *id)
{
    long k = s ? place_map_get(&s->index, id) : -1;
    return k < 0 ? IOLENS_ENOTFOUND : k;
}

/* Adds a series named by the current field; *idx gets its index. Takes no
 * ownership of anything on failure. */
static int series_add(iolens_place_series *s, const place_csv *c, double step, size_t *idx)
{
    int rc;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        series_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
        s->e = e;
        s->cap = cap;
    }
    series_entry *e = &s->e[s->n];
    memset(e, 0, sizeof *e);
    if ((rc = place_csv_strdup(c, &e->id, "series id")))
        return rc;
    e->step = step;
    if ((rc = place_map_put(&s->index, e->id, s->n))) {
        free(e->id);
        return rc;
    }
    *idx = s->n++;
    return 0;
}

/* Makes room for sample k of series e (zero-filled up to it). */
static int series_reserve(iolens_place_series *s, series_entry *e, size_t k, int track,
                          const place_csv *c)
{
    if (k < e->cap)
        goto grow_len;
    size_t cap = e->cap ? e->cap : 16;
    while (cap <= k)
        cap *= 2;
    if (k >= s->max_samples || cap - e->cap > s->max_samples - s->total)
        return iol_err(IOLENS_ENOMEM,
                       "cannot read '%s': more than %zu samples in total (sample %zu of '%s' at byte %zu)",
                       c->name, s->max_samples, k, e->id, c->off);
    double *v = realloc(e->v, cap * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
    e->v = v;
    if (track) {
        unsigned char *seen = realloc(e->seen, cap);
        if (!seen)
            return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
        memset(seen + e->cap, 0, cap - e->cap);
        e->seen = seen;
    }
    s->total += cap - e->cap;
    e->cap = cap;
grow_len:
    if (k >= e->len) {
        for (size_t i = e->len; i <= k; i++)
            e->v[i] = 0.0;
        e->len = k + 1;
    }
    return 0;
}

static int set_sample(iolens_place_series *s, size_t idx, size_t k, double v, const place_csv *c)
{
    int rc = series_reserve(s, &s->e[idx], k, 1, c);
    if (rc)
        return rc;
    series_entry *e = &s->e[idx];
    if (e->seen[k])
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': sample %zu of '%s' given twice (line %zu, byte %zu)",
                       c->name, k, e->id, c->line, c->off);
    e->seen[k] = 1;
    e->v[k] = v;
    return 0;
}

static int check_sample(const place_csv *c, double v)
{
    if (v < 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': negative sample on line %zu at byte %zu", c->name,
                       c->line, c->off);
    return 0;
}

/* Wide: header `id,v0,...,v(m-1)`; rows `id,x0,x1,...` with at most m
 * values; trailing empty cells end a shorter series. */
static int read_wide(iolens_place_series *s, place_csv *c, size_t ncols, double step)
{
    int rc;
    for (;;) {
        rc = place_csv_field(c);
        if (rc <= 0)
            return rc;
        size_t idx;
        if (place_map_get(&s->index, c->field.data) >= 0)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': series '%.200s' appears twice (line %zu, byte %zu)",
                           c->name, c->field.data, c->line, c->off);
        if ((rc = series_add(s, c, step, &idx)))
            return rc;
        size_t col = 0, empties = 0;
        while (!c->eol) {
            if ((rc = place_csv_field(c)) < 0)
                return rc;
            if (++col >= ncols)
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': line %zu has more than the %zu values of the header (byte %zu)",
                               c->name, c->line, ncols - 1, c->off);
            if (c->field.len == 0) {
                empties++;
                continue;
            }
            if (empties)
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty sample before a value on line %zu (byte %zu)",
                               c->name, c->line, c->off);
            double v;
            if ((rc = place_csv_double(c, &v, "sample")) || (rc = check_sample(c, v)))
                return rc;
            if ((rc = series_reserve(s, &s->e[idx], col - 1, 0, c)))
                return rc;
            s->e[idx].v[col - 1] = v;
        }
    }
}

/* Long: rows `id,t,value`, t in seconds, in any order. */
static int read_long(iolens_place_series *s, place_csv *c, double step)
{
    int rc;
    for (;;) {
        rc = place_csv_field(c);
        if (rc <= 0)
            return rc;
        long found = place_map_get(&s->index, c->field.data);
        size_t idx;
        if (found >= 0)
            idx = (size_t)found;
        else if ((rc = series_add(s, c, step, &idx)))
            return rc;
        double t, v;
        if ((rc = place_csv_need(c, "t")) || (rc = place_csv_double(c, &t, "time")))
            return rc;
        if ((rc = place_csv_need(c, "value")) || (rc = place_csv_double(c, &v, "value")) ||
            (rc = check_sample(c, v)))
            return rc;
        if (!c->eol)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': more than 3 fields on line %zu (byte %zu)",
                           c->name, c->line, c->pos);
        double k = nearbyint(t / step);
        if (t >= 0 && k < 1e15 && !(k < (double)s->max_samples))
            return iol_err(IOLENS_ENOMEM, "cannot read '%s': time %g would make more than %zu samples in total (line %zu)",
                           c->name, t, s->max_samples, c->line);
        if (t < 0 || !(k < (double)s->max_samples) || fabs(t / step - k) > 1e-6 * (k > 1 ? k : 1))
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': time %g is not a sample time (step %g s) on line %zu",
                           c->name, t, step, c->line);
        if ((rc = set_sample(s, idx, (size_t)k, v, c)))
            return rc;
    }
}

/* Heatmap: `log,module,bin_width_s,bin,read_bytes,write_bytes[,...]`
 * (columns found by name), rows of other modules skipped. */
static int read_heatmap(iolens_place_series *s, place_csv *c, const int col[6], size_t ncols,
                        const char *module, iolens_place_metric metric)
{
    enum { C_LOG, C_MODULE, C_WIDTH, C_BIN, C_READ, C_WRITE };
    int rc;
    char *log = NULL;
    for (;;) {
        double num[6] = {0};
        int keep = 1;
        free(log);
        log = NULL;
        rc = place_csv_field(c);
        if (rc <= 0)
            goto done;
        for (size_t j = 0; j < ncols; j++) {
            if (j > 0 && (rc = place_csv_need(c, "heatmap")))
                goto done;
            for (int k = 0; k < 6; k++) {
                if ((size_t)col[k] != j)
                    continue;
                if (k == C_LOG) {
                    if ((rc = place_csv_strdup(c, &log, "log name")))
                        goto done;
                } else if (k == C_MODULE) {
                    keep = !strcmp(c->field.data, module);
                } else if (keep && (rc = place_csv_double(c, &num[k], "heatmap number"))) {
                    goto done;
                }
            }
        }
        if (!c->eol) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': line %zu has more fields than the header (byte %zu)",
                         c->name, c->line, c->pos);
            goto done;
        }
        if (!keep)
            continue;
        double w = num[C_WIDTH], bin = num[C_BIN];
        double bytes = metric == IOLENS_PLACE_METRIC_READ    ? num[C_READ]
                       : metric == IOLENS_PLACE_METRIC_WRITE ? num[C_WRITE]
                                                             : num[C_READ] + num[C_WRITE];
        if (!(w > 0) || !(bin >= 0) || bin != floor(bin) || !(bin < (double)s->max_samples) ||
            num[C_READ] < 0 || num[C_WRITE] < 0 || !isfinite(bytes)) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bad bin width, bin or byte count on line %zu (byte %zu)",
                         c->name, c->line, c->off);
            goto done;
        }
        /* The id `iolens cluster` gives the series. */
        char *id = NULL;
        const char *suffix = metric == IOLENS_PLACE_METRIC_READ ? ":read" : metric == IOLENS_PLACE_METRIC_WRITE ? ":write" : "";
        size_t idlen = strlen(log) + 1 + strlen(module) + strlen(suffix) + 1;
        if (!(id = malloc(idlen))) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
            goto done;
        }
        snprintf(id, idlen, "%s:%s%s", log, module, suffix);
        free(log);
        log = id;
        long found = place_map_get(&s->index, log);
        size_t idx;
        if (found >= 0) {
            idx = (size_t)found;
            if (s->e[idx].step != w) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bin width of '%.200s' changes on line %zu",
                             c->name, log, c->line);
                goto done;
            }
        } else {
            /* series_add copies the current field: give it the log name. */
            iol_buf_reset(&c->field);
            if ((rc = iol_buf_puts(&c->field, log)) || (rc = series_add(s, c, w, &idx)))
                goto done;
        }
        if ((rc = set_sample(s, idx, (size_t)bin, bytes / w / MIB, c)))
            goto done;
    }
done:
    free(log);
    return rc;
}

/* Reads the header and picks the layout. */
static int read_header(place_csv *c, enum layout *lay, size_t *ncols, int col[6])
{
    static const char *const names[6] = {"log", "module", "bin_width_s", "bin", "read_bytes", "write_bytes"};
    int rc = place_csv_field(c);
    if (rc == 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty file, no header", c->name);
    if (rc < 0)
        return rc;
    char first[16] = "", second[16] = "", third[16] = "";
    size_t n = 0;
    for (int k = 0; k < 6; k++)
        col[k] = -1;
    for (;;) {
        char *dst = n == 0 ? first : n == 1 ? second : n == 2 ? third : NULL;
        if (dst && c->field.len < 16)
            memcpy(dst, c->field.data, c->field.len + 1);
        for (int k = 0; k < 6; k++)
            if (col[k] < 0 && !strcmp(c->field.data, names[k]))
                col[k] = (int)n;
        if (++n > ((size_t)1 << 26))
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': header with too many columns", c->name);
        if (c->eol)
            break;
        if ((rc = place_csv_field(c)) < 0)
            return rc;
    }
    *ncols = n;
    int heat = 1;
    for (int k = 0; k < 6; k++)
        heat &= col[k] >= 0;
    if (heat) {
        *lay = LAYOUT_HEATMAP;
        return 0;
    }
    if (!strcmp(first, "log"))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': heatmap header lacks one of log, module, bin_width_s, bin, read_bytes, write_bytes",
                       c->name);
    if (n == 3 && !strcmp(second, "t") && !strcmp(third, "value")) {
        *lay = LAYOUT_LONG;
        return 0;
    }
    if (n < 2)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': header has no sample column (want `id,v0,v1,...`, `id,t,value` or a heatmap header)",
                       c->name);
    *lay = LAYOUT_WIDE;
    return 0;
}

int iolens_place_series_parse(iolens_place_series **out, const char *data, size_t len, const char *name,
                              const iolens_place_series_opts *opts)
{
    iolens_place_series_opts o = {0};
    if (opts)
        o = *opts;
    if (!out || (!data && len))
        return iol_err(IOLENS_EINVAL, "iolens_place_series_parse: NULL argument");
    *out = NULL;
    double step = o.step_seconds == 0 ? 1.0 : o.step_seconds;
    if (!(step > 0) || !isfinite(step))
        return iol_err(IOLENS_EINVAL, "sample step must be a positive number of seconds, not %g", step);
    const char *module = o.heatmap_module ? o.heatmap_module : "POSIX";
    place_csv c;
    place_csv_init(&c, data, len, name);
    int rc;
    iolens_place_series *s = calloc(1, sizeof *s);
    if (!s) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c.name);
        goto done;
    }
    s->max_samples = o.max_samples ? o.max_samples : DEFAULT_MAX_SAMPLES;
    enum layout lay = LAYOUT_WIDE;
    size_t ncols = 0;
    int col[6];
    if ((rc = read_header(&c, &lay, &ncols, col)))
        goto done;
    if (lay == LAYOUT_WIDE)
        rc = read_wide(s, &c, ncols, step);
    else if (lay == LAYOUT_LONG)
        rc = read_long(s, &c, step);
    else
        rc = read_heatmap(s, &c, col, ncols, module, o.heatmap_metric);
    if (rc)
        goto done;
    if (s->n == 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no series%s%s", c.name,
                     lay == LAYOUT_HEATMAP ? " of module " : "", lay == LAYOUT_HEATMAP ? module : "");
        goto done;
    }
    for (size_t i = 0; i < s->n; i++) {
        free(s->e[i].seen);
        s->e[i].seen = NULL;
    }
    *out = s;
    s = NULL;
done:
    place_csv_release(&c);
    iolens_place_series_free(s);
    return rc < 0 ? rc : 0;
}

int iolens_place_series_read(iolens_place_series **out, const char *path, const iolens_place_series_opts *opts)
{
    iol_buf b = IOL_BUF_INIT;
    int rc = iol_read_input(path, MAX_FILE_BYTES, NULL, 0, 1, &b);
    if (rc == 0)
        rc = iolens_place_series_parse(out, b.data ? b.data : "", b.len, path, opts);
    iol_buf_release(&b);
    return rc;
}

/* -------------------------------------------------------------- clusters */

struct iolens_place_clusters {
    char **label;
    double **centroid;
    size_t *len;
    size_t n, cap;
    double step;
    place_map label_index;
    char **ids; /* assigned trace ids */
    size_t nids, idcap;
    place_map id_index; /* id -> cluster */
};

void iolens_place_clusters_free(iolens_place_clusters *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->label[i]);
        free(c->centroid[i]);
    }
    for (size_t i = 0; i < c->nids; i++)
        free(c->ids[i]);
    free(c->label);
    free(c->centroid);
    free(c->len);
    free(c->ids);
    place_map_release(&c->label_index);
    place_map_release(&c->id_index);
    free(c);
}

size_t iolens_place_clusters_count(const iolens_place_clusters *c) { return c ? c->n : 0; }

const char *iolens_place_clusters_label(const iolens_place_clusters *c, size_t k)
{
    return c && k < c->n ? c->label[k] : NULL;
}

const double *iolens_place_clusters_centroid(const iolens_place_clusters *c, size_t k, size_t *len)
{
    if (!c || k >= c->n) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = c->len[k];
    return c->centroid[k];
}

double iolens_place_clusters_step(const iolens_place_clusters *c) { return c ? c->step : 0.0; }

long iolens_place_clusters_of(const iolens_place_clusters *c, const char *id)
{
    long k = c ? place_map_get(&c->id_index, id) : -1;
    return k < 0 ? IOLENS_ENOTFOUND : k;
}

static int read_centroids(iolens_place_clusters *cl, place_csv *c, size_t max_samples)
{
    int rc = place_csv_field(c);
    if (rc == 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty file, want `cluster,step_seconds=<s>`", c->name);
    if (rc < 0)
        return rc;
    if (strcmp(c->field.data, "cluster") || c->eol)
        goto bad_header;
    if ((rc = place_csv_field(c)) < 0)
        return rc;
    if (strncmp(c->field.data, "step_seconds=", 13) || !c->eol)
        goto bad_header;
    memmove(c->field.data, c->field.data + 13, c->field.len - 13 + 1);
    c->field.len -= 13;
    if ((rc = place_csv_double(c, &cl->step, "step_seconds")))
        return rc;
    if (!(cl->step > 0))
        goto bad_header;
    size_t total = 0;
    for (;;) {
        rc = place_csv_field(c);
        if (rc <= 0)
            return rc;
        if (place_map_get(&cl->label_index, c->field.data) >= 0)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': cluster '%.100s' has two centroids (line %zu)",
                           c->name, c->field.data, c->line);
        if (cl->n == cl->cap) {
            size_t cap = cl->cap ? cl->cap * 2 : 16;
            char **l = realloc(cl->label, cap * sizeof *l);
            if (l)
                cl->label = l;
            double **v = realloc(cl->centroid, cap * sizeof *v);
            if (v)
                cl->centroid = v;
            size_t *n = realloc(cl->len, cap * sizeof *n);
            if (n)
                cl->len = n;
            if (!l || !v || !n)
                return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
            cl->cap = cap;
        }
        size_t k = cl->n;
        cl->label[k] = NULL;
        cl->centroid[k] = NULL;
        cl->len[k] = 0;
        if ((rc = place_csv_strdup(c, &cl->label[k], "cluster label")))
            return rc;
        cl->n++;
        if ((rc = place_map_put(&cl->label_index, cl->label[k], k)))
            return rc;
        size_t cap = 0;
        while (!c->eol) {
            double v;
            if ((rc = place_csv_field(c)) < 0 || (rc = place_csv_double(c, &v, "centroid sample")))
                return rc;
            if (v < 0)
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': negative centroid sample on line %zu (byte %zu)",
                               c->name, c->line, c->off);
            if (cl->len[k] == cap) {
                if (total + 64 > max_samples)
                    return iol_err(IOLENS_ENOMEM, "cannot read '%s': more than %zu centroid samples", c->name,
                                   max_samples);
                size_t ncap = cap ? cap * 2 : 64;
                if (ncap - cap > max_samples - total)
                    ncap = cap + (max_samples - total);
                double *p = realloc(cl->centroid[k], ncap * sizeof *p);
                if (!p)
                    return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
                total += ncap - cap;
                cl->centroid[k] = p;
                cap = ncap;
            }
            cl->centroid[k][cl->len[k]++] = v;
        }
        if (cl->len[k] == 0)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': centroid of cluster '%.100s' has no sample (line %zu)",
                           c->name, cl->label[k], c->line);
    }
bad_header:
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': first line must be `cluster,step_seconds=<s>` with s > 0",
                   c->name);
}

static int read_assignments(iolens_place_clusters *cl, place_csv *c)
{
    int rc = place_csv_field(c);
    if (rc == 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty file, want header `id,cluster`", c->name);
    if (rc < 0)
        return rc;
    int ok = !strcmp(c->field.data, "id") && !c->eol;
    if (ok && (rc = place_csv_field(c)) < 0)
        return rc;
    if (!ok || strcmp(c->field.data, "cluster") || !c->eol)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': header must be `id,cluster`", c->name);
    for (;;) {
        rc = place_csv_field(c);
        if (rc <= 0)
            return rc;
        if (place_map_get(&cl->id_index, c->field.data) >= 0)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': trace '%.200s' assigned twice (line %zu)", c->name,
                           c->field.data, c->line);
        if (cl->nids == cl->idcap) {
            size_t cap = cl->idcap ? cl->idcap * 2 : 64;
            char **p = realloc(cl->ids, cap * sizeof *p);
            if (!p)
                return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
            cl->ids = p;
            cl->idcap = cap;
        }
        char *id = NULL;
        if ((rc = place_csv_strdup(c, &id, "trace id")))
            return rc;
        cl->ids[cl->nids++] = id;
        if ((rc = place_csv_need(c, "cluster")))
            return rc;
        long k = place_map_get(&cl->label_index, c->field.data);
        if (k < 0)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': cluster '%.100s' of '%.200s' has no centroid (line %zu)",
                           c->name, c->field.data, id, c->line);
        if (!c->eol)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': more than 2 fields on line %zu", c->name, c->line);
        if ((rc = place_map_put(&cl->id_index, id, (size_t)k)))
            return rc;
    }
}

int iolens_place_clusters_parse(iolens_place_clusters **out, const char *assignments, size_t alen,
                                const char *centroids, size_t clen, const char *name)
{
    if (!out || (!assignments && alen) || (!centroids && clen))
        return iol_err(IOLENS_EINVAL, "iolens_place_clusters_parse: NULL argument");
    *out = NULL;
    char aname[512], cname[512];
    snprintf(aname, sizeof aname, "%s/assignments.csv", name ? name : "<memory>");
    snprintf(cname, sizeof cname, "%s/centroids.csv", name ? name : "<memory>");
    place_csv ca, cc;
    place_csv_init(&ca, assignments, alen, aname);
    place_csv_init(&cc, centroids, clen, cname);
    int rc;
    iolens_place_clusters *cl = calloc(1, sizeof *cl);
    if (!cl) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", cname);
        goto done;
    }
    if ((rc = read_centroids(cl, &cc, DEFAULT_MAX_SAMPLES)) || (rc = read_assignments(cl, &ca)))
        goto done;
    if (cl->nids == 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no trace assigned", aname);
        goto done;
    }
    *out = cl;
    cl = NULL;
done:
    place_csv_release(&ca);
    place_csv_release(&cc);
    iolens_place_clusters_free(cl);
    return rc < 0 ? rc : 0;
}

int iolens_place_clusters_read(iolens_place_clusters **out, const char *dir)
{
    iol_buf a = IOL_BUF_INIT, c = IOL_BUF_INIT, path = IOL_BUF_INIT;
    int rc;
    if ((rc = iol_buf_printf(&path, "%s/assignments.csv", dir)) || (rc = iol_read_input(path.data, MAX_FILE_BYTES, NULL, 0, 1, &a)))
        goto done;
    iol_buf_reset(&path);
    if ((rc = iol_buf_printf(&path, "%s/centroids.csv", dir)) || (rc = iol_read_input(path.data, MAX_FILE_BYTES, NULL, 0, 1, &c)))
        goto done;
    rc = iolens_place_clusters_parse(out, a.data ? a.data : "", a.len, c.data ? c.data : "", c.len, dir);
done:
    iol_buf_release(&a);
    iol_buf_release(&c);
    iol_buf_release(&path);
    return rc;
}
