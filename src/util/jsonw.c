#include "util/jsonw.h"
#include "util/buf.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void iol_jsonw_init(iol_jsonw *w, FILE *out, int pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
    w->first[0] = 1;
}

static void indent(iol_jsonw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Called before any value or key: writes the separator. */
static void before_value(iol_jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth])
            fputc(',', w->out);
        indent(w);
    }
    w->first[w->depth] = 0;
}

static void open_container(iol_jsonw *w, int ch)
{
    before_value(w);
    fputc(ch, w->out);
    if (w->depth + 1 < IOL_JSONW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_container(iol_jsonw *w, int ch)
{
    int empty = w->first[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty)
        indent(w);
    fputc(ch, w->out);
}

void iol_jsonw_obj_begin(iol_jsonw *w) { open_container(w, '{'); }
void iol_jsonw_obj_end(iol_jsonw *w) { close_container(w, '}'); }
void iol_jsonw_arr_begin(iol_jsonw *w) { open_container(w, '['); }
void iol_jsonw_arr_end(iol_jsonw *w) { close_container(w, ']'); }

static int plain_char(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f; }

static void write_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && plain_char((unsigned char)s[run]))
            run++;
        if (run > i) { /* bytes >= 0x80 pass through (paths are byte strings) */
            fwrite(s + i, 1, run - i, out);
            i = run;
            continue;
        }
        unsigned char c = (unsigned char)s[i++];
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default: fprintf(out, "\\u%04x", c);
        }
    }
    fputc('"', out);
}

/* Decimal digits of v without printf (the writer's hot path). */
static void write_u64(FILE *out, uint64_t v, int neg)
{
    char buf[IOL_FMT_INT_MAX];
    fwrite(buf, 1, iol_fmt_u64(buf, v, neg), out);
}

void iol_jsonw_key(iol_jsonw *w, const char *key)
{
    before_value(w);
    write_string(w->out, key, strlen(key));
    fputs(w->pretty ? ": " : ":", w->out);
    w->after_key = 1;
}

void iol_jsonw_strn(iol_jsonw *w, const char *s, size_t n)
{
    before_value(w);
    write_string(w->out, s, n);
}

void iol_jsonw_str(iol_jsonw *w, const char *s)
{
    if (!s) {
        iol_jsonw_null(w);
        return;
    }
    iol_jsonw_strn(w, s, strlen(s));
}

void iol_jsonw_int(iol_jsonw *w, int64_t v)
{
    before_value(w);
    write_u64(w->out, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void iol_jsonw_uint(iol_jsonw *w, uint64_t v)
{
    before_value(w);
    write_u64(w->out, v, 0);
}

void iol_jsonw_double(iol_jsonw *w, double v)
{
    before_value(w);
    if (!isfinite(v))
        fputs("null", w->out);
    else if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
        /* integral values: the digits %.15g would print */
        int64_t i = (int64_t)v;
        write_u64(w->out, i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i, i < 0);
    } else {
        char tmp[32];
        iol_fmt_double(tmp, sizeof tmp, v);
        fputs(tmp, w->out);
    }
}

void iol_jsonw_bool(iol_jsonw *w, int v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void iol_jsonw_null(iol_jsonw *w)
{
    before_value(w);
    fputs("null", w->out);
}

void iol_jsonw_finish(iol_jsonw *w) { fputc('\n', w->out); }
