/* Streaming decode of a Recorder trace: grammar expansion with an explicit
 * stack, timestamps inflated on demand, events and recorder2text lines. */
#include "recorder/rec_internal.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TS_CHUNK 8192
#define POS_UNKNOWN INT64_MIN

#define OPEN_STACK 64

typedef struct rec_frame { uint32_t rule, pos, reps; } rec_frame;
typedef struct rec_fh { const char *fh; int64_t file; } rec_fh;

enum { LVL_THREADS = 8, LVL_MAX = 16 };

typedef struct rec_cursor {
    int rank;
    const rec_grammar *g;
    const rec_cst *cst;
    rec_frame *stack;
    uint32_t sp;
    int32_t pend_term;
    uint64_t pend_reps;
    uint64_t emitted;
    /* timestamps */
    rec_file own_ts;          /* 2.4: <rank>.ts */
    const uint8_t *ts_src;
    size_t ts_len;            /* raw bytes, or compressed bytes */
    size_t ts_off;            /* file offset of the rank's block */
    int ts_z;
    z_stream zs;
    int zs_live;
    uint8_t buf[TS_CHUNK];
    size_t buf_len, buf_pos;
    size_t raw_pos;
    double prev;
    char label[4200];
    /* per-rank state for offsets and files */
    int64_t *pos;
    int64_t *first_off;
    rec_fh *fhs;
    size_t nfh, cap_fh;
    uint64_t *tids;
    uint32_t ntids;
    /* POSIX/stdio files opened and not yet closed, most recent last: the
     * guess for a dup/dup2 whose descriptor Recorder logged as a number */
    int64_t open_stk[OPEN_STACK];
    uint32_t nopen;
    /* the layer of the latest call at each Recorder level, per thread: a call's
     * enclosing calls are the latest ones at the levels below its own */
    uint8_t lvl_layer[LVL_THREADS][LVL_MAX];
} rec_cursor;

static void cursor_free(rec_cursor *c)
{
    if (!c)
        return;
    if (c->zs_live)
        inflateEnd(&c->zs);
    rec_file_release(&c->own_ts);
    free(c->stack);
    free(c->pos);
    free(c->first_off);
    free(c->fhs);
    free(c->tids);
    free(c);
}

void rec_cursors_free(iolens_recorder *rec)
{
    if (!rec->cursors)
        return;
    for (int r = 0; r < rec->nranks; r++) {
        cursor_free(rec->cursors[r]);
        rec->cursors[r] = NULL;
    }
}

__attribute__((format(printf, 2, 3))) static int ts_error(rec_cursor *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': rank %d: %s", c->label, c->rank, msg);
}

static int cursor_new(iolens_recorder *rec, int rank, rec_cursor **out)
{
    int rc = 0;
    rec_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    c->rank = rank;
    c->g = &rec->grammars[rec->ug[rank]];
    c->cst = &rec->csts[rec->ipc ? 0 : rank];
    c->stack = malloc(c->g->nrules * sizeof *c->stack);
    c->pos = malloc((rec->nfiles ? rec->nfiles : 1) * sizeof *c->pos);
    c->first_off = malloc((rec->nfuncs ? rec->nfuncs : 1) * sizeof *c->first_off);
    if (!c->stack || !c->pos || !c->first_off) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < rec->nfiles; i++)
        c->pos[i] = POS_UNKNOWN;
    for (uint32_t i = 0; i < rec->nfuncs; i++)
        c->first_off[i] = POS_UNKNOWN;
    c->pend_term = -1;
    if (c->g->count > 0) {
        c->stack[0] = (rec_frame){c->g->start, 0, 1};
        c->sp = 1;
    }
    uint64_t need = c->g->count * 8; /* count <= max_records, no overflow */
    size_t blob_at = 0;
    if (rec->major == 2 && rec->minor <= 4) {
        char name[32];
        snprintf(name, sizeof name, "%d.ts", rank);
        if ((rc = rec_load(&rec->prov, name, &c->own_ts)) < 0)
            goto fail;
        snprintf(c->label, sizeof c->label, "%s/%s", rec->prov.label, name);
        c->ts_src = c->own_ts.data;
        c->ts_len = c->own_ts.size;
    } else {
        snprintf(c->label, sizeof c->label, "%s/%s", rec->prov.label, rec->ts.name);
        blob_at = (size_t)rec->ts_off[rank];
        c->ts_src = rec->ts.data + blob_at;
        c->ts_len = (size_t)rec->ts_len[rank];
        c->ts_z = rec->ts_compression;
        c->ts_off = blob_at;
    }
    if (c->ts_z) {
        rec_cur cur = {c->ts_src, c->ts_len, 0, c->label, NULL, blob_at};
        uint64_t csize, dsize;
        if ((rc = rec_rd_u64(&cur, &csize, "timestamp block size")) < 0 ||
            (rc = rec_rd_u64(&cur, &dsize, "timestamp block size")) < 0)
            goto fail;
        if (csize != c->ts_len - 16) {
            rc = ts_error(c, "compressed timestamp block at byte %zu claims %llu bytes, its slot holds %zu", blob_at,
                          (unsigned long long)csize, c->ts_len - 16);
            goto fail;
        }
        if (dsize != need) {
            rc = ts_error(c, "%llu timestamp bytes (block at byte %zu) for a grammar of %llu records "
                          "(inconsistent sizes)", (unsigned long long)dsize, blob_at, (unsigned long long)c->g->count);
            goto fail;
        }
        if (inflateInit(&c->zs) != Z_OK) {
            rc = iol_err(IOLENS_ENOMEM, "cannot initialise zlib");
            goto fail;
        }
        c->zs_live = 1;
        c->zs.next_in = (Bytef *)(uintptr_t)(c->ts_src + 16);
        c->zs.avail_in = (uInt)csize;
    } else if (c->ts_len != need) {
        rc = ts_error(c, "%zu timestamp bytes (at byte %zu) for a grammar of %llu records (inconsistent sizes)",
                      c->ts_len, blob_at, (unsigned long long)c->g->count);
        goto fail;
    }
    *out = c;
    return 0;
fail:
    cursor_free(c);
    return rc;
}

static int next_ts(rec_cursor *c, uint32_t ts[2])
{
    if (!c->ts_z) {
        memcpy(ts, c->ts_src + c->raw_pos, 8); /* length checked at creation */
        c->raw_pos += 8;
        goto swap;
    }
    while (c->buf_len - c->buf_pos < 8) {
        size_t keep = c->buf_len - c->buf_pos;
        memmove(c->buf, c->buf + c->buf_pos, keep);
        c->buf_len = keep;
        c->buf_pos = 0;
        c->zs.next_out = c->buf + keep;
        c->zs.avail_out = (uInt)(TS_CHUNK - keep);
        int zr = inflate(&c->zs, Z_NO_FLUSH);
        c->buf_len = TS_CHUNK - c->zs.avail_out;
        if (zr != Z_OK && zr != Z_STREAM_END)
            return ts_error(c, "corrupt compressed timestamps after %llu records (zlib error %d, block at byte %zu)",
                            (unsigned long long)c->emitted, zr, c->ts_off);
        if (zr == Z_STREAM_END && c->buf_len - c->buf_pos < 8)
            return ts_error(c, "compressed timestamps (block at byte %zu) end after %llu records of %llu", c->ts_off,
                            (unsigned long long)c->emitted, (unsigned long long)c->g->count);
    }
    memcpy(ts, c->buf + c->buf_pos, 8);
    c->buf_pos += 8;
swap:
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    ts[0] = __builtin_bswap32(ts[0]);
    ts[1] = __builtin_bswap32(ts[1]);
#endif
    return 0;
}

/* Next terminal of the rank's expansion: 1 found, 0 end. Rules that produce
 * nothing are skipped, so each step ends within one pass down the stack. */
static int next_terminal(rec_cursor *c, uint32_t *term)
{
    while (c->pend_reps == 0) {
        if (c->sp == 0)
            return 0;
        rec_frame *f = &c->stack[c->sp - 1];
        const rec_rule *r = &c->g->rules[f->rule];
        if (f->pos == r->nsym) {
            if (--f->reps > 0)
                f->pos = 0;
            else
                c->sp--;
            continue;
        }
        const rec_sym *s = &r->syms[f->pos++];
        if (s->exp == 0)
            continue;
        if (s->val >= 0) {
            c->pend_term = s->val;
            c->pend_reps = s->exp;
        } else {
            uint32_t child = (uint32_t)(-1 - s->val);
            if (c->g->rules[child].count == 0)
                continue;
            /* no cycles (checked at load), so the depth stays below nrules */
            c->stack[c->sp++] = (rec_frame){child, 0, s->exp};
        }
    }
    c->pend_reps--;
    *term = (uint32_t)c->pend_term;
    return 1;
}

static int64_t *fh_slot(rec_cursor *c, const char *fh, int create)
{
    for (size_t i = 0; i < c->nfh; i++)
        if (!strcmp(c->fhs[i].fh, fh))
            return &c->fhs[i].file;
    if (!create)
        return NULL;
    if (c->nfh == c->cap_fh) {
        size_t cap = c->cap_fh ? c->cap_fh * 2 : 8;
        rec_fh *n = realloc(c->fhs, cap * sizeof *n);
        if (!n)
            return NULL;
        c->fhs = n;
        c->cap_fh = cap;
    }
    c->fhs[c->nfh] = (rec_fh){fh, -1};
    return &c->fhs[c->nfh++].file;
}

static uint32_t thread_index(rec_cursor *c, uint64_t tid)
{
    if (tid == 0)
        return 0;
    for (uint32_t i = 0; i < c->ntids; i++)
        if (c->tids[i] == tid)
            return i;
    if (c->ntids >= 4096)
        return c->ntids - 1;
    uint64_t *n = realloc(c->tids, (c->ntids + 1) * sizeof *n);
    if (!n)
        return 0;
    c->tids = n;
    c->tids[c->ntids] = tid;
    return c->ntids++;
}

/* Fills the offset, file and position state of an event. */
static void resolve(iolens_recorder *rec, rec_cursor *c, const rec_sig *s, iolens_event *ev)
{
    ev->file = s->file;
    ev->offset = -1;
    if (s->fh) {
        int64_t *slot = fh_slot(c, s->fh, 0);
        ev->file = slot ? *slot : -1;
        if (s->op == IOLENS_OP_CLOSE && slot)
            *slot = -1;
    } else if (s->fh_new) {
        int64_t *slot = fh_slot(c, s->fh_new, 1);
        if (slot)
            *slot = s->file;
    }
    int have = 0;
    int64_t off = 0;
    if (s->off_kind == REC_OFF_NUM) {
        off = s->off;
        have = 1;
    } else if (s->off_kind == REC_OFF_PATTERN) {
        for (uint32_t j = 0; j < rec->npat_funcs; j++)
            if (rec->pat_funcs[j] == s->func_id) {
                int64_t r = rec->subrank[(size_t)c->rank * rec->npat_funcs + j], m;
                have = !__builtin_mul_overflow(s->off_a, r, &m) && !__builtin_add_overflow(m, s->off_b, &off);
            }
    }
    if (have && s->intra && s->func_id < rec->nfuncs) {
        int64_t *first = &c->first_off[s->func_id];
        if (*first == POS_UNKNOWN)
            *first = off;
        else if (__builtin_add_overflow(off, *first, &off))
            have = 0;
    }
    if (s->op == IOLENS_OP_DUP && ev->file < 0 && c->nopen)
        ev->file = c->open_stk[c->nopen - 1];
    int64_t *pos = ev->file >= 0 && (size_t)ev->file < rec->nfiles ? &c->pos[ev->file] : NULL;
    switch (s->op) {
    case IOLENS_OP_OPEN:
        if (pos && s->layer != IOLENS_LAYER_MPIIO) {
            if (c->nopen == OPEN_STACK) { /* forget the oldest */
                memmove(c->open_stk, c->open_stk + 1, (OPEN_STACK - 1) * sizeof c->open_stk[0]);
                c->nopen--;
            }
            c->open_stk[c->nopen++] = ev->file;
            int append = (s->open_flags >= 0 && (s->open_flags & 02000)) ||
                         (s->layer == IOLENS_LAYER_STDIO && s->nargs > 1 && strchr(s->args[1], 'a'));
            *pos = append ? POS_UNKNOWN : 0;
        }
        break;
    case IOLENS_OP_CLOSE:
        /* positions are tracked per path and survive close: a dup'ed
         * descriptor (dd's dup2 onto stdout) keeps using the file */
        for (uint32_t i = c->nopen; pos && s->layer != IOLENS_LAYER_MPIIO && i-- > 0;)
            if (c->open_stk[i] == ev->file) {
                memmove(c->open_stk + i, c->open_stk + i + 1, (c->nopen - i - 1) * sizeof c->open_stk[0]);
                c->nopen--;
                break;
            }
        break;
    case IOLENS_OP_SEEK:
        if (s->layer == IOLENS_LAYER_MPIIO)
            break;
        if (pos && have && s->whence == 0)
            *pos = off;
        else if (pos && have && s->whence == 1 && *pos != POS_UNKNOWN) {
            if (__builtin_add_overflow(*pos, off, pos) || *pos < 0)
                *pos = POS_UNKNOWN;
        }
        else if (pos && s->whence >= 0)
            *pos = POS_UNKNOWN;
        ev->offset = pos && *pos != POS_UNKNOWN ? *pos : -1;
        return;
    case IOLENS_OP_READ:
    case IOLENS_OP_WRITE:
        if (s->off_kind != REC_OFF_NONE) {
            ev->offset = have ? off : -1;
            if (!have)
                ev->flags |= IOLENS_EVF_OFFSET_UNKNOWN;
        } else if (pos && *pos != POS_UNKNOWN && s->size >= 0 && s->layer != IOLENS_LAYER_MPIIO) {
            ev->offset = *pos;
            ev->flags |= IOLENS_EVF_OFFSET_IMPLICIT;
            /* assumes the whole request was transferred */
            if (__builtin_add_overflow(*pos, s->size, pos))
                *pos = POS_UNKNOWN;
        } else {
            ev->flags |= IOLENS_EVF_OFFSET_UNKNOWN;
            if (pos)
                *pos = POS_UNKNOWN;
        }
        return;
    default:
        break;
    }
    if (have)
        ev->offset = off;
}

/* Recorder's level counts every enclosing traced call; iolens counts the enclosing POSIX,
 * stdio and MPI-IO calls (depth) apart from the enclosing library calls (lib_depth), so a
 * pwrite made inside an H5Dwrite stays a call made at its own layer (depth 0, lib_depth 1),
 * as the shim records it. Calls are logged in the order they start, so the enclosing call at
 * each lower level is the latest one seen at that level in the same thread. */
static void split_depth(rec_cursor *c, const rec_sig *s, iolens_event *ev)
{
    uint32_t t = ev->thread, lv = s->depth;
    if (t >= LVL_THREADS || lv >= LVL_MAX)
        return;
    c->lvl_layer[t][lv] = (uint8_t)s->layer;
    uint32_t lib = 0;
    for (uint32_t i = 0; i < lv; i++)
        lib += iolens_layer_is_library((iolens_layer)c->lvl_layer[t][i]);
    ev->depth = lv - lib;
    ev->lib_depth = lib;
}

/* 1 record, 0 end, <0 error. */
static int cursor_next(iolens_recorder *rec, rec_cursor *c, iolens_event *ev, const rec_sig **sig)
{
    uint32_t term, ts[2];
    if (!next_terminal(c, &term))
        return 0;
    int rc = next_ts(c, ts);
    if (rc < 0)
        return rc;
    const rec_sig *s = &c->cst->sigs[term];
    /* the same arithmetic as Recorder's reader, so text output matches */
    double tstart = ts[0] * rec->res + c->prev;
    double tend = ts[1] * rec->res + c->prev;
    c->prev = tstart;
    c->emitted++;
    memset(ev, 0, sizeof *ev);
    ev->rank = c->rank;
    ev->thread = thread_index(c, s->tid);
    ev->depth = s->depth;
    split_depth(c, s, ev);
    ev->layer = s->layer;
    ev->op = s->op;
    ev->flags = s->flags;
    ev->func = s->func;
    ev->tstart = tstart;
    ev->tend = tend;
    ev->size = s->size;
    ev->ret = -1;
    ev->open_flags = s->open_flags;
    ev->mode = s->mode;
    ev->whence = s->whence;
    ev->nargs = s->user ? 0 : s->nargs;
    ev->args = s->user || !s->nargs ? NULL : (const char *const *)s->args;
    resolve(rec, c, s, ev);
    *sig = s;
    return 1;
}

static int get_cursor(iolens_recorder *rec, int rank, rec_cursor **out)
{
    if (rank < 0 || rank >= rec->nranks)
        return iol_err(IOLENS_EINVAL, "rank %d out of range (the trace has %d ranks)", rank, rec->nranks);
    if (!rec->cursors[rank]) {
        int rc = cursor_new(rec, rank, &rec->cursors[rank]);
        if (rc < 0)
            return rc;
    }
    *out = rec->cursors[rank];
    return 0;
}

int64_t iolens_recorder_write_text(iolens_recorder *rec, int rank, FILE *out, const char *prefix)
{
    rec_cursor *c = NULL;
    cursor_free(rank >= 0 && rank < rec->nranks ? rec->cursors[rank] : NULL);
    if (rank >= 0 && rank < rec->nranks)
        rec->cursors[rank] = NULL;
    int rc = get_cursor(rec, rank, &c);
    if (rc < 0)
        return rc;
    int64_t lines = 0;
    iolens_event ev;
    const rec_sig *s;
    int d = rec->decimals;
    while ((rc = cursor_next(rec, c, &ev, &s)) == 1) {
        if (prefix)
            fputs(prefix, out);
        fprintf(out, "%.*f %.*f %s %d %d (", d, ev.tstart, d, ev.tend, s->func, (int)s->depth, s->rtype);
        for (uint32_t i = 0; !s->user && i < s->nargs; i++) {
            fputc(' ', out);
            fputs(s->args[i], out);
        }
        fputs(" )\n", out);
        lines++;
    }
    cursor_free(rec->cursors[rank]);
    rec->cursors[rank] = NULL;
    if (rc < 0)
        return rc;
    if (ferror(out))
        return iol_err(IOLENS_EIO, "cannot write the text of rank %d", rank);
    return lines;
}

/* ---- event source ---- */
static int ev_nranks(void *impl) { return ((iolens_recorder *)impl)->nranks; }
static double ev_start(void *impl) { return ((iolens_recorder *)impl)->start_ts; }
static int ev_files(void *impl, const iolens_file **out, size_t *count)
{
    iolens_recorder *rec = impl;
    *out = rec->files;
    *count = rec->nfiles;
    return 0;
}
static int ev_next(void *impl, int rank, iolens_event *out)
{
    iolens_recorder *rec = impl;
    rec_cursor *c = NULL;
    const rec_sig *s;
    int rc = get_cursor(rec, rank, &c);
    return rc < 0 ? rc : cursor_next(rec, c, out, &s);
}
static int ev_rewind(void *impl, int rank)
{
    iolens_recorder *rec = impl;
    if (rank < 0 || rank >= rec->nranks)
        return iol_err(IOLENS_EINVAL, "rank %d out of range", rank);
    cursor_free(rec->cursors[rank]);
    rec->cursors[rank] = NULL;
    return 0;
}
static void ev_free(void *impl) { iolens_recorder_free(impl); }

static const iolens_evsource_ops recorder_ops = {
    IOLENS_EVSOURCE_OPS_VERSION, "recorder", ev_nranks, ev_start, ev_files, ev_next, ev_rewind, ev_free,
};

int iolens_recorder_evsource(iolens_recorder *rec, iolens_evsource **out)
{
    *out = NULL;
    if (!rec)
        return iol_err(IOLENS_EINVAL, "no Recorder trace");
    return iolens_evsource_new(out, &recorder_ops, rec);
}

int iolens_recorder_open(const char *dir, iolens_evsource **out, const iolens_recorder_options *opt)
{
    iolens_recorder *rec;
    *out = NULL;
    int rc = iolens_recorder_read(dir, &rec, opt);
    if (rc < 0)
        return rc;
    return iolens_recorder_evsource(rec, out);
}
