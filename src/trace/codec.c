/* Varints, zigzag and the shared predictors (see codec.h). */
#include "trace/codec.h"
#include "iolens/iolens.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

int iol_put_uv(iol_buf *b, uint64_t v)
{
    if (b->cap - b->len < 12) { /* room for 10 bytes and the NUL iol_buf keeps */
        int rc = iol_buf_reserve(b, 11);
        if (rc)
            return rc;
    }
    uint8_t *d = (uint8_t *)b->data + b->len;
    size_t n = 0;
    while (v >= 0x80) {
        d[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    d[n++] = (uint8_t)v;
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

uint64_t iol_get_uv(iol_cur *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (c->pos >= c->len) {
            c->bad = 1;
            return 0;
        }
        uint8_t byte = c->p[c->pos++];
        if (shift == 63 && byte > 1) {
            c->bad = 1;
            return 0;
        }
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static size_t slot_of(int64_t key, size_t cap)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

iol_offstate *iol_offmap_get(iol_offmap *m, int64_t key)
{
    if (m->used * 2 >= m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 16;
        iol_offstate *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < ncap; i++)
            ns[i].valid = -1;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->slots[i].valid < 0)
                continue;
            size_t s = slot_of(m->slots[i].key, ncap);
            while (ns[s].valid >= 0)
                s = (s + 1) & (ncap - 1);
            ns[s] = m->slots[i];
        }
        free(m->slots);
        m->slots = ns;
        m->cap = ncap;
    }
    size_t s = slot_of(key, m->cap);
    while (m->slots[s].valid >= 0) {
        if (m->slots[s].key == key)
            return &m->slots[s];
        s = (s + 1) & (m->cap - 1);
    }
    memset(&m->slots[s], 0, sizeof m->slots[s]);
    m->slots[s].key = key;
    m->used++;
    return &m->slots[s];
}

void iol_offmap_release(iol_offmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void iol_pred_init(iol_pred *p)
{
    memset(p, 0, sizeof *p);
    p->last_file = -1;
    p->max_file = -1;
}

void iol_pred_release(iol_pred *p) { iol_offmap_release(&p->offs); }

/* Offsets are predicted per (file, function): interleaved streams on one
 * file (writes at i*a, reads at j*b) each keep their own stride. */
static int64_t file_key(const iol_rawrec *r)
{
    uint64_t f = r->file >= 0 ? (uint64_t)r->file : (uint64_t)(-2 - (int64_t)r->fd);
    return (int64_t)(f * 1024u + r->func);
}

/* Wrapping arithmetic: predictions are exact in modulo-2^64 arithmetic. */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static uint64_t mag(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

static void off_update(iol_offstate *st, int64_t off, int64_t size)
{
    if (st->valid >= 1) {
        st->stride = wsub(off, st->off);
        st->valid = 2;
    } else {
        st->valid = 1;
    }
    st->off = off;
    st->size = size;
}

int iol_pred_encode(iol_pred *p, const iol_rawrec *r, int has_off, int64_t func, int64_t sig[IOL_SIG_NFIELDS])
{
    sig[IOL_SIG_FUNC] = func;
    sig[IOL_SIG_DEPTH] = r->depth;
    sig[IOL_SIG_ERR] = r->err;
    int64_t f = r->file;
    if (f < 0) {
        sig[IOL_SIG_FMODE] = IOL_FM_NONE;
        sig[IOL_SIG_FVAL] = 0;
    } else if (f == p->last_file) {
        sig[IOL_SIG_FMODE] = IOL_FM_LAST;
        sig[IOL_SIG_FVAL] = 0;
    } else if (f == p->max_file + 1) {
        sig[IOL_SIG_FMODE] = IOL_FM_NEXT;
        sig[IOL_SIG_FVAL] = 0;
    } else {
        sig[IOL_SIG_FMODE] = IOL_FM_LIT;
        sig[IOL_SIG_FVAL] = f;
    }
    if (f >= 0) {
        p->last_file = f;
        if (f > p->max_file)
            p->max_file = f;
    }
    sig[IOL_SIG_FD] = r->fd;
    int64_t off = r->a[0];
    if (!has_off) {
        sig[IOL_SIG_OMODE] = IOL_OM_RAW;
        sig[IOL_SIG_OVAL] = off;
    } else {
        iol_offstate *st = iol_offmap_get(&p->offs, file_key(r));
        if (!st)
            return IOLENS_ENOMEM;
        sig[IOL_SIG_OVAL] = 0;
        if (st->valid >= 1 && off == wadd(st->off, st->size)) {
            sig[IOL_SIG_OMODE] = IOL_OM_SEQ;
        } else if (st->valid >= 2 && off == wadd(st->off, st->stride)) {
            sig[IOL_SIG_OMODE] = IOL_OM_STRIDE;
        } else if (st->valid >= 1 && mag(wsub(off, st->off)) < mag(off)) {
            sig[IOL_SIG_OMODE] = IOL_OM_DELTA;
            sig[IOL_SIG_OVAL] = wsub(off, st->off);
        } else {
            sig[IOL_SIG_OMODE] = IOL_OM_ABS;
            sig[IOL_SIG_OVAL] = off;
        }
        off_update(st, off, r->a[1]);
    }
    sig[IOL_SIG_A1] = r->a[1];
    sig[IOL_SIG_A2] = r->a[2];
    sig[IOL_SIG_A3] = r->a[3];
    sig[IOL_SIG_RVAL] = 0;
    if (r->ret == r->a[1] && r->err == 0)
        sig[IOL_SIG_RMODE] = IOL_RM_SIZE;
    else if (has_off && r->ret == off && r->err == 0)
        sig[IOL_SIG_RMODE] = IOL_RM_OFF;
    else {
        sig[IOL_SIG_RMODE] = IOL_RM_LIT;
        sig[IOL_SIG_RVAL] = r->ret;
    }
    return 0;
}

int iol_pred_decode(iol_pred *p, const int64_t sig[IOL_SIG_NFIELDS], int has_off, iol_rawrec *r)
{
    r->depth = (uint8_t)sig[IOL_SIG_DEPTH];
    r->err = (int32_t)sig[IOL_SIG_ERR];
    int64_t f;
    switch (sig[IOL_SIG_FMODE]) {
    case IOL_FM_NONE: f = -1; break;
    case IOL_FM_LAST: f = p->last_file; break;
    case IOL_FM_NEXT: f = p->max_file + 1; break;
    case IOL_FM_LIT: f = sig[IOL_SIG_FVAL]; break;
    default: return IOLENS_EFORMAT;
    }
    if (f < -1 || f > INT32_MAX || (sig[IOL_SIG_FMODE] != IOL_FM_NONE && f < 0))
        return IOLENS_EFORMAT;
    r->file = (int32_t)f;
    if (f >= 0) {
        p->last_file = f;
        if (f > p->max_file)
            p->max_file = f;
    }
    if (sig[IOL_SIG_FD] < INT32_MIN || sig[IOL_SIG_FD] > INT32_MAX)
        return IOLENS_EFORMAT;
    r->fd = (int32_t)sig[IOL_SIG_FD];
    r->a[1] = sig[IOL_SIG_A1];
    r->a[2] = sig[IOL_SIG_A2];
    r->a[3] = sig[IOL_SIG_A3];
    int64_t off = sig[IOL_SIG_OVAL];
    if (!has_off) {
        if (sig[IOL_SIG_OMODE] != IOL_OM_RAW)
            return IOLENS_EFORMAT;
    } else {
        iol_offstate *st = iol_offmap_get(&p->offs, file_key(r));
        if (!st)
            return IOLENS_ENOMEM;
        switch (sig[IOL_SIG_OMODE]) {
        case IOL_OM_SEQ:
            if (st->valid < 1)
                return IOLENS_EFORMAT;
            off = wadd(st->off, st->size);
            break;
        case IOL_OM_STRIDE:
            if (st->valid < 2)
                return IOLENS_EFORMAT;
            off = wadd(st->off, st->stride);
            break;
        case IOL_OM_DELTA:
            if (st->valid < 1)
                return IOLENS_EFORMAT;
            off = wadd(st->off, sig[IOL_SIG_OVAL]);
            break;
        case IOL_OM_ABS: break;
        default: return IOLENS_EFORMAT;
        }
        off_update(st, off, r->a[1]);
    }
    r->a[0] = off;
    switch (sig[IOL_SIG_RMODE]) {
    case IOL_RM_LIT: r->ret = sig[IOL_SIG_RVAL]; break;
    case IOL_RM_SIZE: r->ret = r->a[1]; break;
    case IOL_RM_OFF: r->ret = off; break;
    default: return IOLENS_EFORMAT;
    }
    if (r->err < 0)
        return IOLENS_EFORMAT;
    return 0;
}
