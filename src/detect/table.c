/*
 * Feature tables and label tables in CSV (the layout of dev_features.csv /
 * dev_labels.csv): a header row, RFC 4180 quoting ("a,b" and "" inside
 * quotes), LF or CRLF line ends. Columns are found by name.
 */
#include "detect/detect_internal.h"

#include <errno.h>
#include <math.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

#define MAX_CSV_BYTES ((size_t)1 << 30)

struct iolens_detect_table {
    char *text;      /* unescaped cells, NUL-terminated, in place */
    char **cells;    /* (nrows + 1) * ncols: header first */
    size_t ncols, nrows;
    double *x;       /* nrows * NFEATURES */
    double *extra;   /* nrows * EX_COUNT */
};

/* Splits text (modified in place) into cells. Every row must have ncols cells. */
static int csv_split(iolens_detect_table *t, const char *name)
{
    char *p = t->text, *w = t->text;
    size_t cap = 0, n = 0, row_cells = 0;
    size_t line = 1;
    char **cells = NULL;
    int rc = 0;
    while (*p) {
        char *start = w;
        int quoted = 0;
        if (*p == '"') {
            quoted = 1;
            p++;
            for (;;) {
                if (!*p) {
                    rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': unterminated quoted field at line %zu", name, line);
                    goto out;
                }
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n')
                    line++;
                *w++ = *p++;
            }
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r') {
            if (quoted) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': text after a closing quote at line %zu", name, line);
                goto out;
            }
            *w++ = *p++;
        }
        char sep = *p;
        if (sep == '\r') {
            p++;
            if (*p == '\n')
                p++;
            sep = '\n';
        } else if (sep) {
            p++;
        }
        *w++ = '\0';
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            char **c = realloc(cells, ncap * sizeof *c);
            if (!c) {
                rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
                goto out;
            }
            cells = c;
            cap = ncap;
        }
        cells[n++] = start;
        row_cells++;
        if (sep == '\n' || sep == '\0') {
            if (row_cells == 1 && start[0] == '\0' && !quoted) { /* blank line */
                n--;
            } else if (t->ncols == 0) {
                t->ncols = row_cells;
            } else if (row_cells != t->ncols) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': line %zu has %zu fields, the header has %zu", name,
                             line, row_cells, t->ncols);
                goto out;
            }
            row_cells = 0;
            line++;
        }
    }
    if (row_cells != 0 && t->ncols && row_cells != t->ncols) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated last line %zu", name, line);
        goto out;
    }
    if (t->ncols == 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no header row", name);
        goto out;
    }
    t->nrows = n / t->ncols - 1;
    t->cells = cells;
    cells = NULL;
out:
    free(cells);
    return rc;
}

static long column_of(const iolens_detect_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (!strcmp(t->cells[c], name))
            return (long)c;
    return -1;
}

static int parse_number(const char *s, double *out)
{
    if (!*s) {
        *out = 0.0;
        return 0;
    }
    if (!strcmp(s, "True") || !strcmp(s, "true")) {
        *out = 1.0;
        return 0;
    }
    if (!strcmp(s, "False") || !strcmp(s, "false")) {
        *out = 0.0;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        return -1;
    *out = isfinite(v) ? v : 0.0;
    return 0;
}

static int table_from_text(iolens_detect_table **out, char *text, const char *name)
{
    static const char *const extra_names[EX_COUNT] = {"MPIIO_NB_READS", "POSIX_F_OPEN_START_TIMESTAMP",
                                                      "POSIX_F_CLOSE_END_TIMESTAMP"};
    int rc = 0;
    iolens_detect_table *t = calloc(1, sizeof *t);
    if (!t) {
        free(text);
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
    }
    t->text = text;
    rc = csv_split(t, name);
    if (rc < 0)
        goto fail;
    long fcol[FI_COUNT], ecol[EX_COUNT];
    for (int f = 0; f < FI_COUNT; f++) {
        fcol[f] = column_of(t, iolens_detect_feature_name(f));
        if (fcol[f] < 0 && f >= IOLENS_DETECT_NIOSAGE)
            continue; /* an iol_* feature the table does not have: missing */
        if (fcol[f] < 0) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no column '%s' (feature %d of 157)", name,
                         iolens_detect_feature_name(f), f);
            goto fail;
        }
    }
    for (int e = 0; e < EX_COUNT; e++)
        ecol[e] = column_of(t, extra_names[e]);
    t->x = calloc(t->nrows ? t->nrows * FI_COUNT : 1, sizeof *t->x);
    t->extra = calloc(t->nrows ? t->nrows * EX_COUNT : 1, sizeof *t->extra);
    if (!t->x || !t->extra) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
        goto fail;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        char **row = t->cells + (r + 1) * t->ncols;
        for (int f = 0; f < FI_COUNT; f++)
            if (fcol[f] < 0 || (f >= IOLENS_DETECT_NIOSAGE && !strcasecmp(row[fcol[f]], "nan")))
                t->x[r * FI_COUNT + f] = NAN;
            else if (parse_number(row[fcol[f]], &t->x[r * FI_COUNT + f]) < 0) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': row %zu column '%s' is not a number: '%.40s'", name,
                             r + 1, iolens_detect_feature_name(f), row[fcol[f]]);
                goto fail;
            }
        iolens_detect_portable(t->x + r * FI_COUNT);
        for (int e = 0; e < EX_COUNT; e++)
            if (ecol[e] >= 0 && parse_number(row[ecol[e]], &t->extra[r * EX_COUNT + e]) < 0) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': row %zu column '%s' is not a number", name, r + 1,
                             extra_names[e]);
                goto fail;
            }
    }
    *out = t;
    return 0;
fail:
    iolens_detect_table_free(t);
    return rc;
}

int iolens_detect_table_parse(iolens_detect_table **out, const char *text, size_t len, const char *name)
{
    if (!out || (!text && len))
        return iol_err(IOLENS_EINVAL, "no table output or text");
    *out = NULL;
    char *copy = malloc(len + 1);
    if (!copy)
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    size_t nul = strlen(copy);
    if (nul != len) {
        free(copy);
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': NUL byte at byte %zu", name, nul);
    }
    return table_from_text(out, copy, name);
}

int iolens_detect_table_read(iolens_detect_table **out, const char *path)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no table output or path");
    *out = NULL;
    iol_buf b = IOL_BUF_INIT;
    int rc = iol_read_input(path, MAX_CSV_BYTES, NULL, 0, 1, &b);
    if (rc < 0)
        return rc;
    rc = iolens_detect_table_parse(out, b.data ? b.data : "", b.len, path);
    iol_buf_release(&b);
    return rc;
}

void iolens_detect_table_free(iolens_detect_table *t)
{
    if (!t)
        return;
    free(t->text);
    free(t->cells);
    free(t->x);
    free(t->extra);
    free(t);
}

size_t iolens_detect_table_rows(const iolens_detect_table *t)
{
    return t ? t->nrows : 0;
}

const double *iolens_detect_table_row(const iolens_detect_table *t, size_t i)
{
    return (t && i < t->nrows) ? t->x + i * FI_COUNT : NULL;
}

const double *iolens_detect_table_extra(const iolens_detect_table *t, size_t i)
{
    return (t && i < t->nrows) ? t->extra + i * EX_COUNT : NULL;
}

const char *iolens_detect_table_cell(const iolens_detect_table *t, size_t i, const char *name)
{
    if (!t || i >= t->nrows || !name)
        return NULL;
    long c = column_of(t, name);
    return c < 0 ? NULL : t->cells[(i + 1) * t->ncols + (size_t)c];
}

int iolens_detect_labels_read(unsigned char **out, size_t n, const char *path)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no labels output or path");
    *out = NULL;
    int rc = 0;
    unsigned char *y = NULL;
    iol_buf b = IOL_BUF_INIT;
    iolens_detect_table t = {0};
    rc = iol_read_input(path, MAX_CSV_BYTES, NULL, 0, 1, &b);
    if (rc < 0)
        goto out;
    t.text = iol_buf_detach(&b, NULL);
    if (!t.text) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': empty file", path);
        goto out;
    }
    rc = csv_split(&t, path);
    if (rc < 0)
        goto out;
    if (t.nrows != n) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': %zu label rows for %zu feature rows", path, t.nrows, n);
        goto out;
    }
    y = calloc(n ? n * IOLENS_DETECT_NLABELS : 1, 1);
    if (!y) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", path);
        goto out;
    }
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        long c = column_of(&t, iolens_detect_label_name(l));
        if (c < 0) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no label column '%s'", path, iolens_detect_label_name(l));
            goto out;
        }
        for (size_t r = 0; r < n; r++) {
            const char *s = t.cells[(r + 1) * t.ncols + (size_t)c];
            if (strcmp(s, "0") && strcmp(s, "1")) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': row %zu label '%s' is '%.20s', not 0 or 1", path, r + 1,
                             iolens_detect_label_name(l), s);
                goto out;
            }
            y[r * IOLENS_DETECT_NLABELS + l] = (unsigned char)(s[0] == '1');
        }
    }
    *out = y;
    y = NULL;
out:
    free(y);
    free(t.text);
    free(t.cells);
    iol_buf_release(&b);
    return rc;
}
