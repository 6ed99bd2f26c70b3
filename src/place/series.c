/*
 * Readers of the place module: I/O time series (wide, long and Darshan
 * heatmap CSV layouts) and the output of `iolens cluster -o DIR`.
 * Input is hostile: every number is checked, every allocation is bounded
 * by opts.max_samples, every error names the file and byte offset.
 */
#include "place/internal.h"
#include "iolens/temporal.h"
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
/* Adds a copy of one series; ids are unique. */
static int series_push(iolens_place_series *s, const char *name, const char *id, double step, const double *v,
                       size_t n)
{
    if (place_map_get(&s->index, id) >= 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': series '%.200s' appears twice", name, id);
    if (n > s->max_samples - s->total)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': more than %zu samples in total", name, s->max_samples);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        series_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
        s->e = e;
        s->cap = cap;
    }
    series_entry *e = &s->e[s->n];
    memset(e, 0, sizeof *e);
    e->id = strdup(id);
    e->v = malloc((n ? n : 1) * sizeof *e->v);
    if (!e->id || !e->v) {
        free(e->id);
        free(e->v);
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
    }
    if (n)
        memcpy(e->v, v, n * sizeof *v);
    e->len = e->cap = n;
    e->step = step;
    int rc = place_map_put(&s->index, e->id, s->n);
    if (rc) {
        free(e->id);
        free(e->v);
        return rc;
    }
    s->n++;
    s->total += n;
    return 0;
}

/* A heatmap series id of the series reader, "<log>:<module>:read|write": *mod_at points at the
 * module, *base_len is the length of "<log>:<module>". 0 if the id is not of that form. */
static int heat_id(const char *id, size_t *mod_at, size_t *base_len)
{
    const char *last = strrchr(id, ':');
    if (!last || last == id)
        return 0;
    const char *p = last - 1;
    while (p > id && *p != ':')
        p--;
    if (*p != ':')
        return 0;
    *mod_at = (size_t)(p + 1 - id);
    *base_len = (size_t)(last - id);
    return 1;
}

/* Every layout is read by the one series reader of `iolens cluster` (iolens_series_parse: wide
 * with or without a header and a label column, long, Darshan heatmap CSV); this keeps the
 * series the placement study asks for: of a heatmap, one module's read, write or total. */
int iolens_place_series_parse(iolens_place_series **out, const char *data, size_t len, const char *name,
                              const iolens_place_series_opts *opts)
{
    iolens_place_series_opts o = {0};
    if (opts)
        o = *opts;
    if (!out || (!data && len))
        return iol_err(IOLENS_EINVAL, "iolens_place_series_parse: NULL argument");
    *out = NULL;
    if (!name)
        name = "<input>";
    double step = o.step_seconds == 0 ? 1.0 : o.step_seconds;
    if (!(step > 0) || !isfinite(step))
        return iol_err(IOLENS_EINVAL, "sample step must be a positive number of seconds, not %g", step);
    const char *module = o.heatmap_module ? o.heatmap_module : "POSIX";
    iolens_series_set *set = NULL;
    iolens_place_series *s = calloc(1, sizeof *s);
    double *sum = NULL;
    int rc, heat = 0;
    if (!s) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
        goto done;
    }
    s->max_samples = o.max_samples ? o.max_samples : DEFAULT_MAX_SAMPLES;
    iolens_series_read_opts ro;
    iolens_series_read_opts_init(&ro);
    ro.step_s = step;
    if ((rc = iolens_series_set_new(&set)) || (rc = iolens_series_parse(set, data, len, name, &ro)))
        goto done;
    size_t n = iolens_series_set_count(set);
    for (size_t i = 0; i < n; i++) {
        iolens_series x;
        iolens_series_set_get(set, i, &x);
        if (x.direction == IOLENS_DIR_NONE) {
            if ((rc = series_push(s, name, x.id, x.step_s, x.mibs, x.n)))
                goto done;
            continue;
        }
        heat = 1;
        size_t at, bl;
        if (!heat_id(x.id, &at, &bl) || strlen(module) != bl - at || strncmp(x.id + at, module, bl - at))
            continue;
        if (o.heatmap_metric == IOLENS_PLACE_METRIC_READ || o.heatmap_metric == IOLENS_PLACE_METRIC_WRITE) {
            int want = o.heatmap_metric == IOLENS_PLACE_METRIC_READ ? IOLENS_DIR_READ : IOLENS_DIR_WRITE;
            if (x.direction == want && (rc = series_push(s, name, x.id, x.step_s, x.mibs, x.n)))
                goto done;
            continue;
        }
        /* total: the read series and the write series of one log and module, which the reader
         * gives one after the other with the same bins */
        if (x.direction != IOLENS_DIR_READ || i + 1 >= n)
            continue;
        iolens_series y;
        iolens_series_set_get(set, i + 1, &y);
        if (y.direction != IOLENS_DIR_WRITE || y.n != x.n || strncmp(x.id, y.id, bl))
            continue;
        free(sum);
        sum = malloc((x.n ? x.n : 1) * sizeof *sum);
        char *id = strndup(x.id, bl);
        if (!sum || !id) {
            free(id);
            rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
            goto done;
        }
        for (size_t k = 0; k < x.n; k++)
            sum[k] = x.mibs[k] + y.mibs[k];
        rc = series_push(s, name, id, x.step_s, sum, x.n);
        free(id);
        if (rc)
            goto done;
    }
    if (s->n == 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no series%s%s", name, heat ? " of module " : "",
                     heat ? module : "");
        goto done;
    }
    *out = s;
    s = NULL;
done:
    free(sum);
    iolens_series_set_free(set);
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
