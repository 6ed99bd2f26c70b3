/* CSV field reader and string map of the place module (see internal.h). */
#include "place/internal.h"
#include "util/error.h"
#include "util/strindex.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void place_csv_init(place_csv *c, const char *data, size_t len, const char *name)
{
    memset(c, 0, sizeof *c);
    c->data = data;
    c->len = len;
    c->name = name ? name : "<memory>";
    c->line = 1;
    c->eol = 1;
}

void place_csv_release(place_csv *c) { iol_buf_release(&c->field); }

static int field_put(place_csv *c, const char *p, size_t n)
{
    if (c->field.len + n > PLACE_CSV_FIELD_MAX)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': field longer than %d bytes at byte %zu",
                       c->name, PLACE_CSV_FIELD_MAX, c->off);
    return iol_buf_append(&c->field, p, n);
}

/* After a field: consumes the separator and records whether the record ended. */
static int field_end(place_csv *c)
{
    if (c->pos >= c->len) {
        c->eol = 1;
        return 1;
    }
    char ch = c->data[c->pos];
    if (ch == ',') {
        c->pos++;
        c->eol = 0;
        return 1;
    }
    if (ch == '\r' && c->pos + 1 < c->len && c->data[c->pos + 1] == '\n')
        c->pos++;
    if (c->data[c->pos] == '\n') {
        c->pos++;
        c->eol = 1;
        c->line++;
        return 1;
    }
    if (ch == '\r' && c->pos + 1 >= c->len) {
        c->pos++;
        c->eol = 1;
        return 1;
    }
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': unexpected character after a quoted field at byte %zu",
                   c->name, c->pos);
}

int place_csv_field(place_csv *c)
{
    iol_buf_reset(&c->field);
    if (c->eol) {
        /* At a record start: skip blank lines, detect the end. */
        while (c->pos < c->len) {
            char ch = c->data[c->pos];
            if (ch == '\n') {
                c->line++;
                c->pos++;
            } else if (ch == '\r' && c->pos + 1 < c->len && c->data[c->pos + 1] == '\n') {
                c->pos++;
            } else {
                break;
            }
        }
        if (c->pos >= c->len)
            return 0;
    }
    c->off = c->pos;
    int rc = iol_buf_reserve(&c->field, 0);
    if (rc)
        return rc;
    if (c->pos < c->len && c->data[c->pos] == '"') {
        c->pos++;
        for (;;) {
            const char *q = c->pos < c->len ? memchr(c->data + c->pos, '"', c->len - c->pos) : NULL;
            if (!q)
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': unterminated quoted field at byte %zu",
                               c->name, c->off);
            size_t n = (size_t)(q - (c->data + c->pos));
            for (size_t i = 0; i < n; i++)
                if (c->data[c->pos + i] == '\n')
                    c->line++;
            if ((rc = field_put(c, c->data + c->pos, n)))
                return rc;
            c->pos += n + 1;
            if (c->pos < c->len && c->data[c->pos] == '"') {
                if ((rc = field_put(c, "\"", 1)))
                    return rc;
                c->pos++;
                continue;
            }
            break;
        }
        return field_end(c);
    }
    size_t start = c->pos;
    while (c->pos < c->len && c->data[c->pos] != ',' && c->data[c->pos] != '\n')
        c->pos++;
    size_t n = c->pos - start;
    if (n && c->data[start + n - 1] == '\r' && (c->pos >= c->len || c->data[c->pos] == '\n'))
        n--;
    if ((rc = field_put(c, c->data + start, n)))
        return rc;
    if (c->pos >= c->len) {
        c->eol = 1;
        return 1;
    }
    c->eol = c->data[c->pos] == '\n';
    if (c->eol)
        c->line++;
    c->pos++;
    return 1;
}

int place_csv_need(place_csv *c, const char *what)
{
    if (c->eol)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': line %zu ends before the %s field at byte %zu",
                       c->name, c->line - (c->pos > 0 && c->data[c->pos - 1] == '\n'), what, c->pos);
    int rc = place_csv_field(c);
    if (rc == 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated before the %s field at byte %zu",
                       c->name, what, c->pos);
    return rc < 0 ? rc : 0;
}

/* The line of the field just read: the reader has counted the newline that ended it. */
static size_t field_line(const place_csv *c)
{
    return c->line - (c->eol && c->pos > 0 && c->data[c->pos - 1] == '\n');
}

int place_csv_double(const place_csv *c, double *v, const char *what)
{
    char tmp[80];
    const char *s = c->field.data ? c->field.data : "";
    size_t n = c->field.len;
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= sizeof tmp)
        goto bad;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (memchr(tmp, '\0', n))
        goto bad;
    char *end = NULL;
    double x = strtod(tmp, &end);
    if (end != tmp + n || !isfinite(x))
        goto bad;
    *v = x;
    return 0;
bad:
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': bad %s '%.40s' on line %zu at byte %zu", c->name,
                   what, c->field.data ? c->field.data : "", field_line(c), c->off);
}

int place_csv_skip_record(place_csv *c)
{
    while (!c->eol) {
        int rc = place_csv_field(c);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
    }
    return 0;
}

int place_csv_strdup(const place_csv *c, char **out, const char *what)
{
    if (c->field.len == 0 || memchr(c->field.data, '\0', c->field.len))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': empty or invalid %s on line %zu at byte %zu",
                       c->name, what, field_line(c), c->off);
    char *p = malloc(c->field.len + 1);
    if (!p)
        return iol_err(IOLENS_ENOMEM, "out of memory copying a %s", what);
    memcpy(p, c->field.data, c->field.len + 1);
    *out = p;
    return 0;
}

/* ------------------------------------------------------------------ map */

long place_map_get(const place_map *m, const char *key)
{
    if (!m->cap)
        return -1;
    size_t i = (size_t)iol_str_hash(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (!strcmp(m->keys[i], key))
            return (long)m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

static int map_grow(place_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    const char **keys = calloc(cap, sizeof *keys);
    size_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return iol_err(IOLENS_ENOMEM, "out of memory growing an index to %zu entries", cap);
    }
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->keys[j])
            continue;
        size_t i = (size_t)iol_str_hash(m->keys[j]) & (cap - 1);
        while (keys[i])
            i = (i + 1) & (cap - 1);
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int place_map_put(place_map *m, const char *key, size_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        int rc = map_grow(m);
        if (rc)
            return rc;
    }
    size_t i = (size_t)iol_str_hash(key) & (m->cap - 1);
    while (m->keys[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

void place_map_release(place_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
