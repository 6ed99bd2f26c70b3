/*
 * Streaming JSON writer to a FILE*: constant memory whatever the document
 * size (a Darshan log can have millions of records, so building a jansson
 * tree first is not an option for output). Parsing uses jansson.
 *
 * Usage: iol_jsonw w; iol_jsonw_init(&w, stdout, 1);
 *        iol_jsonw_obj_begin(&w); iol_jsonw_key(&w, "n"); iol_jsonw_int(&w, 3);
 *        iol_jsonw_obj_end(&w);
 * Commas and indentation are handled by the writer.
 */
#ifndef IOLENS_UTIL_JSONW_H
#define IOLENS_UTIL_JSONW_H

#include <stdint.h>
#include <stdio.h>

#define IOL_JSONW_MAX_DEPTH 64

typedef struct iol_jsonw {
    FILE *out;
    int pretty;
    int depth;
    unsigned char first[IOL_JSONW_MAX_DEPTH]; /* no element written yet at this depth */
    int after_key;
} iol_jsonw;

void iol_jsonw_init(iol_jsonw *w, FILE *out, int pretty);
void iol_jsonw_obj_begin(iol_jsonw *w);
void iol_jsonw_obj_end(iol_jsonw *w);
void iol_jsonw_arr_begin(iol_jsonw *w);
void iol_jsonw_arr_end(iol_jsonw *w);
void iol_jsonw_key(iol_jsonw *w, const char *key);
void iol_jsonw_str(iol_jsonw *w, const char *s);
void iol_jsonw_strn(iol_jsonw *w, const char *s, size_t n);
void iol_jsonw_int(iol_jsonw *w, int64_t v);
void iol_jsonw_uint(iol_jsonw *w, uint64_t v);
void iol_jsonw_double(iol_jsonw *w, double v); /* NaN/Inf become null */
void iol_jsonw_bool(iol_jsonw *w, int v);
void iol_jsonw_null(iol_jsonw *w);
/* Ends the document with a newline. */
void iol_jsonw_finish(iol_jsonw *w);

#endif
