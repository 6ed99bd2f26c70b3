/* Time series sets, CSV readers (wide, long, Darshan heatmap), writer, filter. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/event.h"
#include "iolens/trace.h"
#include "temporal/internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strindex.h"

#define MIB 1048576.0
#define MAX_FILE_BYTES ((size_t)8 << 30)
#define MAX_ID_LEN 4096

int iolens_series_set_new(iolens_series_set **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
}

void iolens_series_set_free(iolens_series_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++) {
        free(set->s[i].id);
        free(set->s[i].v);
    }
    free(set->s);
    free(set);
}

int tser_set_push(iolens_series_set *set, char *id, int direction, double step_s, double *v,
                  size_t n, int label)
{
    if (set->n >= IOLENS_SERIES_MAX_COUNT) {
        free(id);
        free(v);
        return iol_err(IOLENS_ENOMEM, "more than %u series", IOLENS_SERIES_MAX_COUNT);
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        struct series_rec *s = realloc(set->s, cap * sizeof *s);
        if (!s) {
            free(id);
            free(v);
            return iol_err(IOLENS_ENOMEM, "out of memory adding series");
        }
        set->s = s;
        set->cap = cap;
    }
    set->s[set->n++] = (struct series_rec){id, direction, step_s, n, v, label};
    return 0;
}

int iolens_series_set_add(iolens_series_set *set, const char *id, int direction, double step_s,
                          const double *mibs, size_t n, int label)
{
    if (!set || !id || (n && !mibs) || !(step_s > 0) || !isfinite(step_s))
        return iol_err(IOLENS_EINVAL, "invalid series (id, values or step)");
    if (n > IOLENS_SERIES_MAX_SAMPLES)
        return iol_err(IOLENS_EINVAL, "series '%s' has %zu samples (limit %u)", id, n,
                       IOLENS_SERIES_MAX_SAMPLES);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(mibs[i]) || mibs[i] < 0)
            return iol_err(IOLENS_EINVAL, "series '%s': sample %zu is not a finite value >= 0", id, i);
    char *c = strdup(id);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!c || !v) {
        free(c);
        free(v);
        return iol_err(IOLENS_ENOMEM, "out of memory adding series '%s'", id);
    }
    if (n)
        memcpy(v, mibs, n * sizeof *v);
    return tser_set_push(set, c, direction, step_s, v, n, label);
}

size_t iolens_series_set_count(const iolens_series_set *set)
{
    return set ? set->n : 0;
}

void iolens_series_set_get(const iolens_series_set *set, size_t i, iolens_series *out)
{
    const struct series_rec *r = &set->s[i];
    *out = (iolens_series){r->id, r->direction, r->step_s, r->n, r->v, r->label};
}

void iolens_series_read_opts_init(iolens_series_read_opts *o)
{
    o->format = IOLENS_SERIES_AUTO;
    o->step_s = 1.0;
}

/* ------------------------------------------------------------ CSV records */

struct csv {
    const char *data; /* the input, or the window of it read last from fd */
    size_t len, pos;
    int fd;           /* read in windows of CSV_WINDOW bytes; -1: data is the whole input */
    char *win;
    size_t base;      /* byte offset of data[0] in the input */
    size_t max_bytes; /* fd: the most the input may hold */
    int again;        /* csv_next returns the current record once more */
    const char *name;
    size_t line_start; /* byte offset of the current record */
    /* fields of the current record: NUL-separated in buf, offsets in off */
    iol_buf buf;
    size_t *off;
    size_t nf, cap;
};

static int csv_field_end(struct csv *c)
{
    if (c->nf == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        if (cap > (size_t)IOLENS_SERIES_MAX_SAMPLES + 16)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': more than %u fields in the record at byte %zu",
                           c->name, IOLENS_SERIES_MAX_SAMPLES, c->line_start);
        size_t *o = realloc(c->off, cap * sizeof *o);
        if (!o)
            return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
        c->off = o;
        c->cap = cap;
    }
    c->off[c->nf++] = c->buf.len + 1; /* start of the next field */
    return iol_buf_append(&c->buf, "", 1);
}

#define CSV_WINDOW ((size_t)1 << 20)

/* 1 when data[pos] is a byte of the input (the next window read if needed), 0 at its end,
 * negative on a read error or an input larger than max_bytes. */
static int csv_fill(struct csv *c)
{
    if (c->pos < c->len)
        return 1;
    if (c->fd < 0)
        return 0;
    if (!c->win && !(c->win = malloc(CSV_WINDOW)))
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
    c->base += c->len;
    c->data = c->win;
    c->pos = c->len = 0;
    ssize_t n = iol_input_read(c->fd, c->win, CSV_WINDOW);
    if (n < 0)
        return iol_err(IOLENS_EIO, "cannot read '%s' at byte %zu: %s", c->name, c->base, strerror(errno));
    if ((size_t)n > c->max_bytes - c->base)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': larger than the %zu-byte limit at byte %zu", c->name,
                       c->max_bytes, c->base);
    c->len = (size_t)n;
    return n > 0;
}

/* Reads the next non-empty record. Returns 1 if one was read, 0 at the end. */
static int csv_next(struct csv *c)
{
    if (c->again) {
        c->again = 0;
        return 1;
    }
    for (;;) {
        int more = csv_fill(c);
        if (more <= 0)
            return more;
        iol_buf_reset(&c->buf);
        c->nf = 0;
        c->line_start = c->base + c->pos;
        int quoted = 0, in_quotes = 0, any = 0;
        if (iol_buf_reserve(&c->buf, 64))
            return -1;
        c->buf.data[0] = '\0';
        int got;
        while ((got = csv_fill(c)) > 0) {
            char ch = c->data[c->pos];
            if (in_quotes) {
                if (ch == '"') {
                    c->pos++;
                    if ((got = csv_fill(c)) < 0)
                        return got;
                    if (got && c->data[c->pos] == '"') {
                        if (iol_buf_append(&c->buf, "\"", 1))
                            return -1;
                        c->pos++;
                        continue;
                    }
                    in_quotes = 0;
                    continue;
                }
                if (iol_buf_append(&c->buf, &ch, 1))
                    return -1;
                c->pos++;
                continue;
            }
            if (ch == '\n' || ch == '\r') {
                c->pos++;
                if (ch == '\r' && (got = csv_fill(c)) > 0 && c->data[c->pos] == '\n')
                    c->pos++;
                if (got < 0)
                    return got;
                break;
            }
            c->pos++;
            any = 1;
            if (ch == ',') {
                if (csv_field_end(c) < 0)
                    return -1;
                quoted = 0;
                continue;
            }
            if (ch == '"' && !quoted) {
                quoted = 1;
                in_quotes = 1;
                continue;
            }
            if (ch == '\0')
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': NUL byte at byte %zu", c->name, c->base + c->pos - 1);
            if (iol_buf_append(&c->buf, &ch, 1))
                return -1;
        }
        if (got < 0)
            return got;
        if (in_quotes)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': unterminated quote in the record at byte %zu",
                           c->name, c->line_start);
        if (!any && c->buf.len == 0)
            continue; /* empty line */
        if (csv_field_end(c) < 0)
            return -1;
        return 1;
    }
}

static const char *csv_field(const struct csv *c, size_t i)
{
    return c->buf.data + (i == 0 ? 0 : c->off[i - 1]);
}

static void csv_release(struct csv *c)
{
    iol_buf_release(&c->buf);
    free(c->off);
    free(c->win);
}

static int parse_double(const struct csv *c, size_t field, double *out, int allow_empty)
{
    const char *s = csv_field(c, field);
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) {
        if (allow_empty) {
            *out = 0;
            return 0;
        }
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty field %zu in the record at byte %zu",
                       c->name, field + 1, c->line_start);
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end || !isfinite(v))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': field %zu ('%.40s') is not a finite number in the record at byte %zu",
                       c->name, field + 1, csv_field(c, field), c->line_start);
    *out = v;
    return 0;
}

static int parse_nonneg(const struct csv *c, size_t field, double *out, int allow_empty)
{
    int rc = parse_double(c, field, out, allow_empty);
    if (rc == 0 && *out < 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': negative value in field %zu of the record at byte %zu",
                       c->name, field + 1, c->line_start);
    return rc;
}

static int parse_label(const struct csv *c, size_t field, int *out)
{
    double v;
    int rc = parse_double(c, field, &v, 0);
    if (rc)
        return rc;
    if (v != floor(v) || v < -1 || v > 1e6)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': label '%.40s' is not an integer in -1..1000000 (record at byte %zu)",
                       c->name, csv_field(c, field), c->line_start);
    *out = (int)v;
    return 0;
}

static int check_id(const struct csv *c, const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > MAX_ID_LEN)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': series id of %zu bytes in the record at byte %zu (1..%d)",
                       c->name, n, c->line_start, MAX_ID_LEN);
    return 0;
}

/* ------------------------------------------------ keyed accumulators */

/* A series under construction, found by key (hash map with open addressing). */
struct acc {
    char *key; /* id (long) or log\x1fmodule (heatmap) */
    double *a, *b; /* samples (b: heatmap writes) */
    size_t n, cap;
    double step;
    int label;
};

struct accmap {
    struct acc *v;
    size_t n, cap;
    iol_strindex index; /* by key */
    size_t total; /* samples allocated, bounded */
    size_t budget;
};

static const char *acc_key(const void *ctx, size_t i) { return ((const struct accmap *)ctx)->v[i].key; }

static int accmap_get(struct accmap *m, const char *key, struct acc **out)
{
    size_t at;
    if (iol_strindex_reserve(&m->index, m->n, acc_key, m))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    long found = iol_strindex_find(&m->index, key, acc_key, m, &at);
    if (found >= 0) {
        *out = &m->v[found];
        return 0;
    }
    if (m->n >= IOLENS_SERIES_MAX_COUNT)
        return iol_err(IOLENS_ENOMEM, "more than %u series", IOLENS_SERIES_MAX_COUNT);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct acc *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        m->v = v;
        m->cap = cap;
    }
    struct acc *a = &m->v[m->n];
    memset(a, 0, sizeof *a);
    a->label = -1;
    a->step = -1;
    if (!(a->key = strdup(key)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    iol_strindex_set(&m->index, at, m->n++);
    *out = a;
    return 0;
}

/* Makes index idx addressable in a (and b if two), zero-filling. */
static int acc_reach(struct accmap *m, struct acc *a, size_t idx, int two, const struct csv *c)
{
    if (idx >= IOLENS_SERIES_MAX_SAMPLES)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': sample index %zu beyond the limit of %u samples (record at byte %zu)",
                       c->name, idx, IOLENS_SERIES_MAX_SAMPLES, c->line_start);
    if (idx < a->cap) {
        if (idx >= a->n)
            a->n = idx + 1;
        return 0;
    }
    size_t cap = a->cap ? a->cap : 16;
    while (cap <= idx)
        cap *= 2;
    if (m->total + (cap - a->cap) > m->budget)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': sparse sample index %zu would need more memory than the input justifies (record at byte %zu)",
                       c->name, idx, c->line_start);
    double *na = realloc(a->a, cap * sizeof *na);
    if (!na)
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
    a->a = na;
    memset(na + a->cap, 0, (cap - a->cap) * sizeof *na);
    if (two) {
        double *nb = realloc(a->b, cap * sizeof *nb);
        if (!nb)
            return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
        a->b = nb;
        memset(nb + a->cap, 0, (cap - a->cap) * sizeof *nb);
    }
    m->total += cap - a->cap;
    a->cap = cap;
    a->n = idx + 1;
    return 0;
}

static void accmap_release(struct accmap *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].a);
        free(m->v[i].b);
    }
    free(m->v);
    iol_strindex_free(&m->index);
}

/* -------------------------------------------------------------- formats */

static int add_copy(iolens_series_set *set, const char *id, int dir, double step, const double *v,
                    size_t n, int label)
{
    char *c = strdup(id);
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!c || !x) {
        free(c);
        free(x);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    if (n)
        memcpy(x, v, n * sizeof *x);
    return tser_set_push(set, c, dir, step, x, n, label);
}

/* o: the columns before `log` (1 in iolens batch's heatmap.csv, whose first column is the log's
 * index in the run). */
static int parse_heatmap(iolens_series_set *set, struct csv *c, struct accmap *m, size_t o)
{
    int rc;
    iol_buf key = IOL_BUF_INIT;
    while ((rc = csv_next(c)) > 0) {
        if (c->nf < 6 + o) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': heatmap record at byte %zu has %zu fields (want >= %zu)",
                         c->name, c->line_start, c->nf, 6 + o);
            goto done;
        }
        double width, bin, rd, wr;
        if ((rc = parse_double(c, 2 + o, &width, 0)) || (rc = parse_nonneg(c, 3 + o, &bin, 0)) ||
            (rc = parse_nonneg(c, 4 + o, &rd, 0)) || (rc = parse_nonneg(c, 5 + o, &wr, 0)))
            goto done;
        if (!(width > 0) || width > 1e9 || bin != floor(bin) || bin >= (double)IOLENS_SERIES_MAX_SAMPLES) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bad bin width or bin index in the record at byte %zu",
                         c->name, c->line_start);
            goto done;
        }
        if ((rc = check_id(c, csv_field(c, o))))
            goto done;
        iol_buf_reset(&key);
        if ((rc = iol_buf_printf(&key, "%s:%s", csv_field(c, o), csv_field(c, 1 + o))))
            goto done;
        struct acc *a;
        if ((rc = accmap_get(m, key.data, &a)))
            goto done;
        if (a->step < 0)
            a->step = width;
        else if (a->step != width) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bin width %g differs from %g for '%s' (record at byte %zu)",
                         c->name, width, a->step, key.data, c->line_start);
            goto done;
        }
        if ((rc = acc_reach(m, a, (size_t)bin, 1, c)))
            goto done;
        a->a[(size_t)bin] += rd / width / MIB;
        a->b[(size_t)bin] += wr / width / MIB;
    }
    if (rc < 0)
        goto done;
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        struct acc *a = &m->v[i];
        iol_buf_reset(&key);
        if ((rc = iol_buf_printf(&key, "%s:read", a->key)) ||
            (rc = add_copy(set, key.data, IOLENS_DIR_READ, a->step, a->a, a->n, -1)))
            break;
        iol_buf_reset(&key);
        if ((rc = iol_buf_printf(&key, "%s:write", a->key)) ||
            (rc = add_copy(set, key.data, IOLENS_DIR_WRITE, a->step, a->b, a->n, -1)))
            break;
    }
done:
    iol_buf_release(&key);
    return rc;
}

static int parse_long(iolens_series_set *set, struct csv *c, struct accmap *m, double step,
                      int has_label)
{
    int rc;
    while ((rc = csv_next(c)) > 0) {
        if (c->nf < (size_t)(3 + has_label)) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': record at byte %zu has %zu fields (want id,t,value%s)",
                         c->name, c->line_start, c->nf, has_label ? ",label" : "");
            goto done;
        }
        double t, v;
        if ((rc = check_id(c, csv_field(c, 0))) || (rc = parse_nonneg(c, 1, &t, 0)) ||
            (rc = parse_nonneg(c, 2, &v, 0)))
            goto done;
        double idx = floor(t / step + 0.5);
        if (idx >= (double)IOLENS_SERIES_MAX_SAMPLES) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': time %g beyond the limit of %u samples (record at byte %zu)",
                         c->name, t, IOLENS_SERIES_MAX_SAMPLES, c->line_start);
            goto done;
        }
        struct acc *a;
        if ((rc = accmap_get(m, csv_field(c, 0), &a)) || (rc = acc_reach(m, a, (size_t)idx, 0, c)))
            goto done;
        a->a[(size_t)idx] += v;
        if (has_label && (rc = parse_label(c, 3, &a->label)))
            goto done;
    }
    if (rc < 0)
        goto done;
    for (size_t i = 0; i < m->n && rc == 0; i++)
        rc = add_copy(set, m->v[i].key, IOLENS_DIR_NONE, step, m->v[i].a, m->v[i].n, m->v[i].label);
done:
    return rc;
}

static int parse_wide(iolens_series_set *set, struct csv *c, double step, int has_label)
{
    int rc;
    while ((rc = csv_next(c)) > 0) {
        size_t first = 1 + (size_t)has_label;
        if (c->nf < first) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': record at byte %zu has no %s",
                         c->name, c->line_start, has_label ? "label" : "id");
            goto done;
        }
        if ((rc = check_id(c, csv_field(c, 0))))
            goto done;
        int label = -1;
        if (has_label && (rc = parse_label(c, 1, &label)))
            goto done;
        size_t n = c->nf - first;
        while (n > 0 && !*csv_field(c, first + n - 1)) /* trailing empty fields (ragged rows) */
            n--;
        double *v = malloc((n ? n : 1) * sizeof *v);
        char *id = strdup(csv_field(c, 0));
        if (!v || !id) {
            free(v);
            free(id);
            rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", c->name);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            if ((rc = parse_nonneg(c, first + i, &v[i], 1))) {
                free(v);
                free(id);
                goto done;
            }
        }
        if ((rc = tser_set_push(set, id, IOLENS_DIR_NONE, step, v, n, label)))
            goto done;
    }
done:
    return rc;
}

static int field_is(const struct csv *c, size_t i, const char *s)
{
    return i < c->nf && !strcmp(csv_field(c, i), s);
}

/* The records of c (the whole input in memory, or read from its descriptor) into set; size:
 * the input's bytes (its largest possible size when not known), which bounds the memory a
 * long-format input may make the reader take. */
static int parse_csv(iolens_series_set *set, struct csv *cp, size_t size, const iolens_series_read_opts *o)
{
    iolens_series_read_opts def;
    if (!o) {
        iolens_series_read_opts_init(&def);
        o = &def;
    }
    const char *name = cp->name;
    double step = o->step_s;
    if (!(step > 0) || !isfinite(step))
        return iol_err(IOLENS_EINVAL, "step must be a positive number of seconds");
    size_t before = set->n;
    struct csv c = *cp;
    struct accmap m = {0};
    m.budget = ((size_t)1 << 20) + (size < SIZE_MAX / 64 ? 64 * size : SIZE_MAX / 2);
    int rc = csv_next(&c);
    if (rc <= 0) {
        if (rc == 0)
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no records", name);
        goto done;
    }
    int fmt = o->format;
    size_t hm_off = field_is(&c, 0, "index") && field_is(&c, 1, "log") ? 1 : 0; /* iolens batch's heatmap.csv */
    int header = field_is(&c, 0, "id") || field_is(&c, hm_off, "log");
    if (fmt == IOLENS_SERIES_AUTO) {
        if (field_is(&c, hm_off, "log"))
            fmt = IOLENS_SERIES_HEATMAP; /* its header is checked below */
        else if (field_is(&c, 0, "id") && field_is(&c, 1, "t") && field_is(&c, 2, "value"))
            fmt = IOLENS_SERIES_LONG;
        else
            fmt = IOLENS_SERIES_WIDE;
    }
    int has_label = 0;
    if (fmt == IOLENS_SERIES_LONG)
        has_label = header && field_is(&c, 3, "label");
    else if (fmt == IOLENS_SERIES_WIDE)
        has_label = header && field_is(&c, 1, "label");
    if (!header) { /* the first record is data: parse it again */
        c.again = 1;
    } else if (fmt == IOLENS_SERIES_HEATMAP &&
               !(field_is(&c, hm_off, "log") && field_is(&c, 1 + hm_off, "module") &&
                 field_is(&c, 2 + hm_off, "bin_width_s") && field_is(&c, 3 + hm_off, "bin") &&
                 field_is(&c, 4 + hm_off, "read_bytes") && field_is(&c, 5 + hm_off, "write_bytes"))) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': heatmap header must start with log,module,bin_width_s,bin,read_bytes,write_bytes",
                     name);
        goto done;
    }
    if (fmt == IOLENS_SERIES_HEATMAP)
        rc = parse_heatmap(set, &c, &m, hm_off);
    else if (fmt == IOLENS_SERIES_LONG)
        rc = parse_long(set, &c, &m, step, has_label);
    else if (fmt == IOLENS_SERIES_WIDE)
        rc = parse_wide(set, &c, step, has_label);
    else
        rc = iol_err(IOLENS_EINVAL, "unknown series format %d", fmt);
done:
    if (rc < 0) { /* leave the set as it was */
        for (size_t i = before; i < set->n; i++) {
            free(set->s[i].id);
            free(set->s[i].v);
        }
        set->n = before;
    }
    accmap_release(&m);
    csv_release(&c);
    return rc < 0 ? rc : 0;
}

int iolens_series_parse(iolens_series_set *set, const char *data, size_t len, const char *name,
                        const iolens_series_read_opts *o)
{
    if (!set || (!data && len))
        return iol_err(IOLENS_EINVAL, "invalid arguments");
    struct csv c = {.data = data, .len = len, .fd = -1, .name = name ? name : "<input>"};
    return parse_csv(set, &c, len, o);
}

/* Read as it is parsed, a window at a time: a 1.5 GB CSV of 10^6 series needs the series'
 * memory, not the text's as well. */
int iolens_series_read_file(iolens_series_set *set, const char *path, const iolens_series_read_opts *o)
{
    if (!set || !path)
        return iol_err(IOLENS_EINVAL, "invalid arguments");
    int fd = iol_open_input(path, 0);
    if (fd < 0)
        return fd;
    struct stat st;
    size_t size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : MAX_FILE_BYTES;
    struct csv c = {.data = "", .fd = fd, .max_bytes = MAX_FILE_BYTES, .name = path};
    int rc = parse_csv(set, &c, size, o);
    iol_input_close(fd);
    return rc;
}

int iolens_series_write_csv(const iolens_series_set *set, FILE *out)
{
    size_t maxn = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->s[i].n > maxn)
            maxn = set->s[i].n;
    fputs("id,label", out);
    for (size_t j = 0; j < maxn; j++)
        fprintf(out, ",v%zu", j);
    fputc('\n', out);
    for (size_t i = 0; i < set->n; i++) {
        iol_csv_field(out, set->s[i].id);
        fprintf(out, ",%d", set->s[i].label);
        for (size_t j = 0; j < set->s[i].n; j++)
            fprintf(out, ",%.6g", set->s[i].v[j]);
        fputc('\n', out);
    }
    if (ferror(out))
        return iol_err(IOLENS_EIO, "cannot write the series CSV");
    return 0;
}

void iolens_filter_opts_init(iolens_filter_opts *o)
{
    o->min_samples = 20;
    o->max_samples = 0;
    o->zero_below = 1.0;
    o->min_nonzero = 5;
}

/* Whether series r passes the filter. */
static int filter_keeps(const struct series_rec *r, const iolens_filter_opts *o)
{
    if (r->n < o->min_samples || (o->max_samples && r->n > o->max_samples))
        return 0;
    size_t nz = 0;
    for (size_t j = 0; j < r->n; j++)
        nz += r->v[j] >= o->zero_below && r->v[j] > 0;
    return nz >= o->min_nonzero && nz > 0;
}

size_t iolens_series_filter_in_place(iolens_series_set *set, const iolens_filter_opts *o)
{
    iolens_filter_opts def;
    if (!o) {
        iolens_filter_opts_init(&def);
        o = &def;
    }
    if (!set)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < set->n; i++) {
        struct series_rec *r = &set->s[i];
        if (!filter_keeps(r, o)) {
            free(r->id);
            free(r->v);
            continue;
        }
        for (size_t j = 0; j < r->n; j++)
            if (r->v[j] < o->zero_below)
                r->v[j] = 0;
        set->s[k++] = *r;
    }
    set->n = k;
    return k;
}

int iolens_series_filter(iolens_series_set **out, const iolens_series_set *in, const iolens_filter_opts *o)
{
    iolens_filter_opts def;
    if (!o) {
        iolens_filter_opts_init(&def);
        o = &def;
    }
    int rc = iolens_series_set_new(out);
    if (rc)
        return rc;
    for (size_t i = 0; i < in->n; i++) {
        const struct series_rec *r = &in->s[i];
        if (!filter_keeps(r, o))
            continue;
        char *id = strdup(r->id);
        double *v = malloc(r->n * sizeof *v);
        if (!id || !v) {
            free(id);
            free(v);
            rc = iol_err(IOLENS_ENOMEM, "out of memory filtering series");
            break;
        }
        for (size_t j = 0; j < r->n; j++)
            v[j] = r->v[j] < o->zero_below ? 0 : r->v[j];
        if ((rc = tser_set_push(*out, id, r->direction, r->step_s, v, r->n, r->label)))
            break;
    }
    if (rc) {
        iolens_series_set_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ------------------------------------------------- transfers and events */

/* Adds one transfer to the bins (grows them); Darshan heatmap's proportional split. */
static int bin_transfer(double **bins, size_t *n, size_t *cap, double bin_s, const iolens_transfer *t)
{
    if (!isfinite(t->tstart) || !isfinite(t->tend) || !isfinite(t->bytes) || t->tstart < 0 ||
        t->tend < t->tstart || t->bytes < 0)
        return iol_err(IOLENS_EINVAL, "transfer with bad times or size (%g..%g s, %g bytes)", t->tstart, t->tend,
                       t->bytes);
    double last = floor(t->tend / bin_s);
    if (last >= (double)IOLENS_SERIES_MAX_SAMPLES)
        return iol_err(IOLENS_EINVAL, "transfer ending at %g s is beyond %u bins of %g s", t->tend,
                       IOLENS_SERIES_MAX_SAMPLES, bin_s);
    size_t b0 = (size_t)floor(t->tstart / bin_s), b1 = (size_t)last;
    if (b1 + 1 > *cap) {
        size_t nc = *cap ? *cap : 64;
        while (nc < b1 + 1)
            nc *= 2;
        double *nb = realloc(*bins, nc * sizeof *nb);
        if (!nb)
            return iol_err(IOLENS_ENOMEM, "out of memory binning transfers");
        memset(nb + *cap, 0, (nc - *cap) * sizeof *nb);
        *bins = nb;
        *cap = nc;
    }
    if (b1 + 1 > *n)
        *n = b1 + 1;
    double dur = t->tend - t->tstart;
    if (dur <= 0 || b0 == b1) {
        (*bins)[b0] += t->bytes;
        return 0;
    }
    for (size_t b = b0; b <= b1; b++) {
        double lo = fmax(t->tstart, (double)b * bin_s), hi = fmin(t->tend, (double)(b + 1) * bin_s);
        if (hi > lo)
            (*bins)[b] += t->bytes * (hi - lo) / dur;
    }
    return 0;
}

static int push_bins(iolens_series_set *set, const char *id, int direction, double bin_s, double *bins, size_t n)
{
    for (size_t b = 0; b < n; b++)
        bins[b] = bins[b] / bin_s / MIB;
    return iolens_series_set_add(set, id, direction, bin_s, bins, n, -1);
}

int iolens_series_from_transfers(iolens_series_set *set, const char *id, int direction, double bin_s,
                                 const iolens_transfer *t, size_t n)
{
    if (!set || !id || (n && !t) || !(bin_s > 0) || !isfinite(bin_s))
        return iol_err(IOLENS_EINVAL, "invalid arguments (set, id, transfers or bin width)");
    double *bins = NULL;
    size_t nb = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = bin_transfer(&bins, &nb, &cap, bin_s, &t[i]);
    if (!rc)
        rc = push_bins(set, id, direction, bin_s, bins ? bins : (double[]){0}, nb);
    free(bins);
    return rc;
}

int iolens_series_from_events(iolens_series_set *set, struct iolens_evsource *src, const char *id, int layer,
                              double bin_s)
{
    if (!set || !src || !id || !(bin_s > 0) || !isfinite(bin_s))
        return iol_err(IOLENS_EINVAL, "invalid arguments (set, source, id or bin width)");
    double *bins[2] = {NULL, NULL};
    size_t nb[2] = {0, 0}, cap[2] = {0, 0};
    int rc = 0, nranks = iolens_evsource_nranks(src);
    iol_buf name = IOL_BUF_INIT;
    if (nranks < 0) {
        rc = nranks;
        goto done;
    }
    for (int r = 0; r < nranks && !rc; r++) {
        if ((rc = iolens_evsource_rewind(src, r)) < 0)
            goto done;
        iolens_event ev;
        int got;
        while ((got = iolens_evsource_next(src, r, &ev)) > 0) {
            if (ev.depth != 0 || (ev.op != IOLENS_OP_READ && ev.op != IOLENS_OP_WRITE) ||
                (layer >= 0 ? (int)ev.layer != layer : iolens_layer_is_library(ev.layer)) || /* a library's calls: */
                (ev.flags & IOLENS_EVF_FAILED)) /* their bytes are those of the MPI-IO/POSIX calls they make */
                continue;
            iolens_trace_stdio_moved(src, r, &ev); /* stdio return values as bytes moved */
            double bytes = (double)(ev.ret >= 0 ? ev.ret : ev.size);
            if (bytes <= 0)
                continue;
            iolens_transfer t = {ev.tstart, ev.tend, bytes};
            int w = ev.op == IOLENS_OP_WRITE;
            if ((rc = bin_transfer(&bins[w], &nb[w], &cap[w], bin_s, &t)))
                goto done;
        }
        if (got < 0) {
            rc = got;
            goto done;
        }
    }
    size_t n = nb[0] > nb[1] ? nb[0] : nb[1]; /* both directions over the same span */
    for (int w = 0; w < 2; w++) {
        double *full = calloc(n ? n : 1, sizeof *full);
        if (!full) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        if (nb[w])
            memcpy(full, bins[w], nb[w] * sizeof *full);
        iol_buf_reset(&name);
        rc = iol_buf_printf(&name, "%s:%s", id, w ? "write" : "read");
        if (!rc)
            rc = push_bins(set, name.data, w ? IOLENS_DIR_WRITE : IOLENS_DIR_READ, bin_s, full, n);
        free(full);
        if (rc)
            goto done;
    }
done:
    free(bins[0]);
    free(bins[1]);
    iol_buf_release(&name);
    return rc;
}
