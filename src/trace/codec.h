/*
 * Pieces shared by the trace encoder and decoder: varints, zigzag, and the
 * per-stream predictors that turn offsets, file references and results into
 * values that repeat from one loop iteration to the next.
 */
#ifndef IOLENS_TRACE_CODEC_H
#define IOLENS_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"
#include "util/buf.h"

static inline uint64_t iol_zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t iol_unzz(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

int iol_put_uv(iol_buf *b, uint64_t v);
static inline int iol_put_sv(iol_buf *b, int64_t v) { return iol_put_uv(b, iol_zz(v)); }

/* A bounded cursor over a decoded section. Errors are sticky. */
typedef struct iol_cur {
    const uint8_t *p;
    size_t len;
    size_t pos;
    int bad; /* set when a read ran past the end or a varint was too long */
} iol_cur;

uint64_t iol_get_uv(iol_cur *c);
static inline int64_t iol_get_sv(iol_cur *c) { return iol_unzz(iol_get_uv(c)); }

/* Per-file offset predictor of one stream (thread). */
typedef struct iol_offstate {
    int64_t key;
    int64_t off, size, stride;
    int valid; /* 0 none, 1 offset known, 2 stride known */
} iol_offstate;

typedef struct iol_offmap {
    iol_offstate *slots;
    size_t cap, used;
} iol_offmap;

/* Returns the state for key (created empty), or NULL when out of memory. */
iol_offstate *iol_offmap_get(iol_offmap *m, int64_t key);
void iol_offmap_release(iol_offmap *m);

/* Stream predictor state: offsets per file plus the last file references. */
typedef struct iol_pred {
    iol_offmap offs;
    int64_t last_file; /* -1 none */
    int64_t max_file;  /* highest file id referenced, -1 none */
} iol_pred;

void iol_pred_init(iol_pred *p);
void iol_pred_release(iol_pred *p);

/* Encodes a raw record into a signature (IOL_SIG_NFIELDS values); has_off
 * from funcs.def; func is the id to store. Returns 0 or IOLENS_ENOMEM. */
int iol_pred_encode(iol_pred *p, const iol_rawrec *r, int has_off, int64_t func, int64_t sig[IOL_SIG_NFIELDS]);
/* Inverse: fills file, fd, depth, err, ret, a[] of *r from a signature.
 * Returns 0, IOLENS_ENOMEM, or IOLENS_EFORMAT for an invalid mode. */
int iol_pred_decode(iol_pred *p, const int64_t sig[IOL_SIG_NFIELDS], int has_off, iol_rawrec *r);

#endif
