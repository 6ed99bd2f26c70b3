/* Darshan-compatible counters from an event stream (semantics: the Darshan
 * runtime's POSIX, MPI-IO and STDIO modules, heatmap and DXT; see
 * ../shared/design/reference/darshan-log-format.md §8 and docs/counters.md). */
#include "counters/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/trace.h"
#include "util/error.h"

#define HEAT_BINS 200
#define HEAT_WIDTH0 0.1

void iolens_counters_opts_init(iolens_counters_opts *o)
{
    memset(o, 0, sizeof *o);
    o->file_alignment = 4096;
    o->mem_alignment = 8;
    o->heatmap = 1;
    o->dxt = 1;
    o->std_streams = 1;
}

/* ---- record table -------------------------------------------------------------------- */

typedef struct ctab {
    size_t *slot; /* index+1 into crecs, 0 = empty */
    size_t cap;
} ctab;

static uint64_t key_hash(int module, int64_t file, int32_t rank)
{
    uint64_t h = (uint64_t)file * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(uint32_t)rank << 7) ^
                 (uint64_t)module * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    return h * 0x94d049bb133111ebull;
}

static int ctab_grow(iolens_counters *c, ctab *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 256;
    size_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    for (size_t i = 0; i < c->ncrecs; i++) {
        iol_crec *r = c->crecs[i];
        size_t h = (size_t)key_hash(r->module, r->file, r->rank) & (ncap - 1);
        while (ns[h])
            h = (h + 1) & (ncap - 1);
        ns[h] = i + 1;
    }
    free(t->slot);
    t->slot = ns;
    t->cap = ncap;
    return 0;
}

static int add_name(iolens_counters *c, uint64_t id, const char *name)
{
    /* id set (open addressing over indices + 1), rebuilt when half full */
    if ((c->nnames + 1) * 2 > c->name_set_cap) {
        size_t ncap = c->name_set_cap ? c->name_set_cap * 2 : 256;
        size_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        for (size_t i = 0; i < c->nnames; i++) {
            size_t h = (size_t)(c->name_ids[i] * 0x9e3779b97f4a7c15ull >> 20) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = i + 1;
        }
        free(c->name_set);
        c->name_set = ns;
        c->name_set_cap = ncap;
    }
    size_t h = (size_t)(id * 0x9e3779b97f4a7c15ull >> 20) & (c->name_set_cap - 1);
    while (c->name_set[h]) {
        if (c->name_ids[c->name_set[h] - 1] == id)
            return 0;
        h = (h + 1) & (c->name_set_cap - 1);
    }
    c->name_set[h] = c->nnames + 1;
    if (c->nnames == c->capnames) {
        size_t ncap = c->capnames ? c->capnames * 2 : 64;
        uint64_t *ni = realloc(c->name_ids, ncap * sizeof *ni);
        if (!ni)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        c->name_ids = ni;
        char **nn = realloc(c->names, ncap * sizeof *nn);
        if (!nn)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        c->names = nn;
        c->capnames = ncap;
    }
    char *s = strdup(name);
    if (!s)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    c->name_ids[c->nnames] = id;
    c->names[c->nnames++] = s;
    return 0;
}

static void crec_init(iol_crec *r, const iolens_counters_opts *o)
{
    if (r->module == IOLENS_DARSHAN_POSIX) {
        r->c[IOL_DC_POSIX_MMAPS] = -1; /* not monitored unless mmap calls are seen */
        r->c[IOL_DC_POSIX_MEM_ALIGNMENT] = o->mem_alignment;
        /* (a standard stream's record, file -2 - stream: its name is on no file system the
         * runtime knows, whose block size it takes: -1, and no call counts as not aligned) */
        r->c[IOL_DC_POSIX_FILE_ALIGNMENT] = r->file <= -2 ? -1 : o->file_alignment;
    }
}

/* The slot of (module, file, rank) in t: its record's, or the free one it would take
 * (t->cap > 0). */
static size_t crec_slot(const iolens_counters *c, const ctab *t, int module, int64_t file, int32_t rank)
{
    size_t h = (size_t)key_hash(module, file, rank) & (t->cap - 1);
    while (t->slot[h]) {
        const iol_crec *r = c->crecs[t->slot[h] - 1];
        if (r->module == module && r->file == file && r->rank == rank)
            break;
        h = (h + 1) & (t->cap - 1);
    }
    return h;
}

/* The record of (module, file, rank) if there is one. */
static iol_crec *crec_find(const iolens_counters *c, const ctab *t, int module, int64_t file, int32_t rank)
{
    if (t->cap == 0)
        return NULL;
    size_t h = crec_slot(c, t, module, file, rank);
    return t->slot[h] ? c->crecs[t->slot[h] - 1] : NULL;
}

static int crec_get(iolens_counters *c, ctab *t, int module, int64_t file, int32_t rank,
                    const char *path, iol_crec **out)
{
    int rc;
    if (t->cap == 0 || (c->ncrecs + 1) * 2 > t->cap)
        if ((rc = ctab_grow(c, t)) < 0)
            return rc;
    size_t h = crec_slot(c, t, module, file, rank);
    if (t->slot[h]) {
        *out = c->crecs[t->slot[h] - 1];
        return 0;
    }
    if (c->ncrecs == c->capcrecs) {
        size_t ncap = c->capcrecs ? c->capcrecs * 2 : 64;
        iol_crec **n = realloc(c->crecs, ncap * sizeof *n);
        if (!n)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        c->crecs = n;
        c->capcrecs = ncap;
    }
    iol_crec *r = calloc(1, sizeof *r);
    if (!r)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    r->module = module;
    r->file = file;
    r->rank = rank;
    r->id = iolens_darshan_hash(path, strlen(path), 0);
    crec_init(r, &c->opts);
    c->crecs[c->ncrecs++] = r;
    t->slot[h] = c->ncrecs;
    *out = r;
    return add_name(c, r->id, path);
}

/* ---- counter rules --------------------------------------------------------------------- */

/* Darshan's size buckets: <101, <1025, <10241, ... (exactly 1 MiB is in 100K_1M). */
static int size_bucket(int64_t sz)
{
    static const int64_t lim[] = {101, 1025, 10241, 102401, 1048577, 4194305, 10485761,
                                  104857601, 1073741825};
    for (int i = 0; i < 9; i++)
        if (sz < lim[i])
            return i;
    return 9;
}

/* Saturating arithmetic: hostile producers may hand offsets and sizes near INT64_MAX. */
static int64_t sadd(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* A time is used only when finite (NaN/inf become 0). */
static double fin(double t) { return isfinite(t) ? t : 0; }

/* Non-overlapping accumulation: a call that starts before the previous one
 * of the same kind ended only adds the part after that end. */
static void timer_no_overlap(double *sum, double t1, double t2, double *last)
{
    double from = t1 > *last ? t1 : *last;
    if (t2 > from)
        *sum += t2 - from;
    if (t2 > *last)
        *last = t2;
}

/* The runtime's four most common values (access sizes, strides; H5D access shapes of nv values),
 * updated online as Darshan's DARSHAN_UPDATE_COMMON_VAL_COUNTERS does since its 3.1 release: the
 * slots vals[4][nv], cnts[4] stay ordered by decreasing count, equal counts by decreasing first
 * value; v, now seen freq times, goes in after the slots above it, then the others but v's old
 * slot, as long as there is room. A first value of 0 is never put in. */
static void common_update1(int64_t *vals, int64_t *cnts, int64_t v, int64_t freq);

static void common_update(int64_t *vals, int64_t *cnts, const int64_t *v, int nv, int64_t freq)
{
    if (v[0] == 0)
        return;
    if (nv == 1) {
        common_update1(vals, cnts, v[0], freq);
        return;
    }
    int64_t tv[4 * IOL_H5D_NVALS] = {0}, tc[4] = {0};
    size_t sz = (size_t)nv * sizeof *v;
    int k = 0, i = 0;
    for (; i < 4 && (cnts[i] > freq || (cnts[i] == freq && vals[i * nv] > v[0])); i++, k++) {
        memcpy(&tv[k * nv], &vals[i * nv], sz);
        tc[k] = cnts[i];
    }
    if (k == 4)
        return;
    memcpy(&tv[k * nv], v, sz);
    tc[k++] = freq;
    for (; k < 4 && i < 4; i++)
        if (memcmp(&vals[i * nv], v, sz)) {
            memcpy(&tv[k * nv], &vals[i * nv], sz);
            tc[k++] = cnts[i];
        }
    memcpy(vals, tv, 4 * sz);
    memcpy(cnts, tc, sizeof tc);
}

/* common_update of one value (access sizes, strides: at every read and write), in place: v's
 * old slot (or the last, when v has none) is dropped and the slots from v's place on move down
 * one. */
static void common_update1(int64_t *vals, int64_t *cnts, int64_t v, int64_t freq)
{
    int i = 0;
    while (i < 4 && (cnts[i] > freq || (cnts[i] == freq && vals[i] > v)))
        i++;
    if (i == 4)
        return;
    int old = i;
    while (old < 4 && vals[old] != v) /* (only at or below v's place: it had a lower count) */
        old++;
    if (old == 4)
        old = 3;
    for (int k = old; k > i; k--) {
        vals[k] = vals[k - 1];
        cnts[k] = cnts[k - 1];
    }
    vals[i] = v;
    cnts[i] = freq;
}

/* One value seen: counted among the values the runtime tracks per record (the first IOL_CV_MAX
 * distinct ones, 0 among them though it never takes a slot; later ones are not counted), then
 * into the slots vals, cnts. */
static void cv_seen(iol_cv *cand, int *n, int64_t *vals, int64_t *cnts, int64_t val)
{
    int i = 0;
    while (i < *n && cand[i].val != val)
        i++;
    if (i == *n) {
        if (*n == IOL_CV_MAX)
            return;
        cand[i].val = val;
        cand[i].cnt = 0;
        (*n)++;
    }
    cand[i].cnt++;
    common_update(vals, cnts, &val, 1, cand[i].cnt);
}

/* The runtime's merge of two ranks' slots (a shared record's reduction): a value both hold is
 * counted once, in x's slot; then x's slots and out's, each put in as the online update does. */
static void common_merge(int64_t *ov, int64_t *oc, const int64_t *xv0, const int64_t *xc0, int nv)
{
    int64_t xv[4 * IOL_H5D_NVALS], xc[4];
    size_t sz = (size_t)nv * sizeof *xv;
    memcpy(xv, xv0, 4 * sz);
    memcpy(xc, xc0, sizeof xc);
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++)
            if (!memcmp(&xv[j * nv], &ov[k * nv], sz)) {
                memset(&ov[k * nv], 0, sz);
                xc[j] = sadd(xc[j], oc[k]);
                oc[k] = 0;
            }
    int64_t tv[4 * IOL_H5D_NVALS] = {0}, tc[4] = {0};
    for (int j = 0; j < 4; j++)
        common_update(tv, tc, &xv[j * nv], nv, xc[j]);
    for (int j = 0; j < 4; j++)
        common_update(tv, tc, &ov[j * nv], nv, oc[j]);
    memcpy(ov, tv, 4 * sz);
    memcpy(oc, tc, sizeof tc);
}

/* Counter indices of a module's read/write timing, reads [0] and writes [1]. */
typedef struct rw_idx {
    int start[2], end[2], max_time[2], max_size[2], time[2];
} rw_idx;

/* The runtime's timing of a read or write: the first start and last end, the slowest call and
 * its size, the time in calls without overlap. */
static void rw_times(iol_crec *r, const iolens_event *e, int is_write, int64_t bytes, const rw_idx *x)
{
    int w = is_write != 0;
    double *f = r->f;
    if (f[x->start[w]] == 0 || f[x->start[w]] > e->tstart)
        f[x->start[w]] = e->tstart;
    f[x->end[w]] = e->tend;
    double el = e->tend - e->tstart;
    if (f[x->max_time[w]] < el) {
        f[x->max_time[w]] = el;
        r->c[x->max_size[w]] = bytes;
    }
    timer_no_overlap(&f[x->time[w]], e->tstart, e->tend, w ? &r->last_write_end : &r->last_read_end);
}

/* The offset the runtime gives a transfer: a pread's or pwrite's own, else the one it keeps per
 * record (0 at every open, a seek's result, the end of the record's last transfer, pread and
 * pwrite included), not the descriptor's real position, which the producer resolved: they part
 * after a pread between two reads, a call the runtime does not count (fscanf matching nothing),
 * two descriptors of one file. */
static int64_t runtime_offset(const iol_crec *r, const iolens_event *e)
{
    return e->offset >= 0 && !(e->flags & (IOLENS_EVF_OFFSET_UNKNOWN | IOLENS_EVF_OFFSET_IMPLICIT)) ? e->offset
                                                                                                   : r->offset;
}

static void posix_rw(iol_crec *r, const iolens_event *e, int64_t bytes, int is_write)
{
    int64_t *c = r->c;
    int64_t off = runtime_offset(r, e);
    int64_t *last = is_write ? &r->last_byte_written : &r->last_byte_read;
    if (off > *last)
        c[is_write ? IOL_DC_POSIX_SEQ_WRITES : IOL_DC_POSIX_SEQ_READS]++;
    if (off == sadd(*last, 1))
        c[is_write ? IOL_DC_POSIX_CONSEC_WRITES : IOL_DC_POSIX_CONSEC_READS]++;
    int64_t stride = (off > 0 && off > *last && *last != 0) ? sadd(sadd(off, -*last), -1) : 0;
    int64_t end = sadd(off, bytes);
    *last = sadd(end, -1);
    r->offset = end;
    int mb = is_write ? IOL_DC_POSIX_MAX_BYTE_WRITTEN : IOL_DC_POSIX_MAX_BYTE_READ;
    if (c[mb] < *last)
        c[mb] = *last;
    int bw = is_write ? IOL_DC_POSIX_BYTES_WRITTEN : IOL_DC_POSIX_BYTES_READ;
    c[bw] = sadd(c[bw], bytes);
    c[is_write ? IOL_DC_POSIX_WRITES : IOL_DC_POSIX_READS]++;
    c[(is_write ? IOL_DC_POSIX_SIZE_WRITE_0_100 : IOL_DC_POSIX_SIZE_READ_0_100) + size_bucket(bytes)]++;
    cv_seen(r->acc, &r->nacc, &c[IOL_DC_POSIX_ACCESS1_ACCESS], &c[IOL_DC_POSIX_ACCESS1_COUNT], bytes);
    cv_seen(r->str, &r->nstr, &c[IOL_DC_POSIX_STRIDE1_STRIDE], &c[IOL_DC_POSIX_STRIDE1_COUNT], stride);
    int64_t al = c[IOL_DC_POSIX_FILE_ALIGNMENT];
    if (al > 0 && off % al != 0)
        c[IOL_DC_POSIX_FILE_NOT_ALIGNED]++;
    /* the buffer's address modulo the memory alignment, when the producer recorded where in
     * its page the buffer starts (iolens traces: read, write, pread, pwrite) */
    int64_t ma = c[IOL_DC_POSIX_MEM_ALIGNMENT];
    if (ma > 0 && 4096 % ma == 0 && e->buf_pgoff1 >= 1 && e->buf_pgoff1 <= 4096 && (e->buf_pgoff1 - 1) % ma != 0)
        c[IOL_DC_POSIX_MEM_NOT_ALIGNED]++;
    if (r->last_io == (is_write ? 1 : 2))
        c[IOL_DC_POSIX_RW_SWITCHES]++;
    r->last_io = is_write ? 2 : 1;
    static const rw_idx x = {{IOL_DC_POSIX_F_READ_START_TIMESTAMP, IOL_DC_POSIX_F_WRITE_START_TIMESTAMP},
                             {IOL_DC_POSIX_F_READ_END_TIMESTAMP, IOL_DC_POSIX_F_WRITE_END_TIMESTAMP},
                             {IOL_DC_POSIX_F_MAX_READ_TIME, IOL_DC_POSIX_F_MAX_WRITE_TIME},
                             {IOL_DC_POSIX_MAX_READ_TIME_SIZE, IOL_DC_POSIX_MAX_WRITE_TIME_SIZE},
                             {IOL_DC_POSIX_F_READ_TIME, IOL_DC_POSIX_F_WRITE_TIME}};
    rw_times(r, e, is_write, bytes, &x);
}

static void open_close_ts(double *f, int start, int end, const iolens_event *e)
{
    if (f[start] == 0 || f[start] > e->tstart)
        f[start] = e->tstart;
    f[end] = e->tend;
}

static int dxt_add(iol_crec *r, const iolens_event *e, int64_t off, int64_t bytes, int is_write)
{
    iolens_darshan_dxt_seg **segs = is_write ? &r->wseg : &r->rseg;
    size_t *n = is_write ? &r->nw : &r->nr, *cap = is_write ? &r->capw : &r->capr;
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        iolens_darshan_dxt_seg *p = realloc(*segs, ncap * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory for DXT segments");
        *segs = p;
        *cap = ncap;
    }
    iolens_darshan_dxt_seg *s = &(*segs)[(*n)++];
    s->offset = off;
    s->length = bytes;
    s->start = e->tstart;
    s->end = e->tend;
    s->pthread_id = e->thread;
    return 0;
}

/* dup*() and fileno() open a new reference to the file: the runtime counts them
 * in POSIX_OPENS as well as in DUPS / FILENOS (darshan-parser: "POSIX_OPENS counter
 * includes both POSIX_FILENOS and POSIX_DUPS counts"; the real nonmpi_dd_64MiB log
 * has OPENS 2 = 1 open + 1 dup2), with open timestamps and meta time. */
static void posix_refopen(iol_crec *r, const iolens_event *e, int counter)
{
    r->c[IOL_DC_POSIX_OPENS]++;
    r->c[counter]++;
    open_close_ts(r->f, IOL_DC_POSIX_F_OPEN_START_TIMESTAMP, IOL_DC_POSIX_F_OPEN_END_TIMESTAMP, e);
    timer_no_overlap(&r->f[IOL_DC_POSIX_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
}

static void posix_event(iol_crec *r, const iolens_event *e)
{
    int64_t *c = r->c;
    double *f = r->f;
    const char *fn = e->func ? e->func : "";
    switch (e->op) {
    case IOLENS_OP_OPEN:
        c[IOL_DC_POSIX_OPENS]++;
        if (e->mode > 0) /* the runtime's rule: an open with a mode (O_CREAT) sets it, others keep it */
            c[IOL_DC_POSIX_MODE] = e->mode;
        r->offset = 0;
        r->last_byte_read = r->last_byte_written = 0;
        open_close_ts(f, IOL_DC_POSIX_F_OPEN_START_TIMESTAMP, IOL_DC_POSIX_F_OPEN_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_POSIX_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_CLOSE:
        open_close_ts(f, IOL_DC_POSIX_F_CLOSE_START_TIMESTAMP, IOL_DC_POSIX_F_CLOSE_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_POSIX_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_SEEK:
        c[IOL_DC_POSIX_SEEKS]++;
        if (e->offset >= 0)
            r->offset = e->offset;
        timer_no_overlap(&f[IOL_DC_POSIX_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_SYNC:
        c[strstr(fn, "fdatasync") ? IOL_DC_POSIX_FDSYNCS : IOL_DC_POSIX_FSYNCS]++;
        timer_no_overlap(&f[IOL_DC_POSIX_F_WRITE_TIME], e->tstart, e->tend, &r->last_write_end);
        break;
    case IOLENS_OP_STAT:
        c[IOL_DC_POSIX_STATS]++;
        timer_no_overlap(&f[IOL_DC_POSIX_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_MMAP:
        if (c[IOL_DC_POSIX_MMAPS] < 0)
            c[IOL_DC_POSIX_MMAPS] = 0;
        c[IOL_DC_POSIX_MMAPS]++;
        break;
    case IOLENS_OP_DUP:
        posix_refopen(r, e, IOL_DC_POSIX_DUPS);
        break;
    default:
        break;
    }
}

static void stdio_rw(iol_crec *r, const iolens_event *e, int64_t bytes, int is_write)
{
    int64_t *c = r->c;
    double *f = r->f;
    int64_t off = runtime_offset(r, e);
    int mb = is_write ? IOL_DC_STDIO_MAX_BYTE_WRITTEN : IOL_DC_STDIO_MAX_BYTE_READ;
    int64_t end = sadd(off, bytes);
    if (bytes > 0 && c[mb] < sadd(end, -1))
        c[mb] = sadd(end, -1);
    r->offset = end;
    int bw = is_write ? IOL_DC_STDIO_BYTES_WRITTEN : IOL_DC_STDIO_BYTES_READ;
    c[bw] = sadd(c[bw], bytes);
    c[is_write ? IOL_DC_STDIO_WRITES : IOL_DC_STDIO_READS]++;
    int ts = is_write ? IOL_DC_STDIO_F_WRITE_START_TIMESTAMP : IOL_DC_STDIO_F_READ_START_TIMESTAMP;
    int te = is_write ? IOL_DC_STDIO_F_WRITE_END_TIMESTAMP : IOL_DC_STDIO_F_READ_END_TIMESTAMP;
    if (f[ts] == 0 || f[ts] > e->tstart)
        f[ts] = e->tstart;
    f[te] = e->tend;
    if (is_write)
        timer_no_overlap(&f[IOL_DC_STDIO_F_WRITE_TIME], e->tstart, e->tend, &r->last_write_end);
    else
        timer_no_overlap(&f[IOL_DC_STDIO_F_READ_TIME], e->tstart, e->tend, &r->last_read_end);
}

static void stdio_event(iol_crec *r, const iolens_event *e)
{
    int64_t *c = r->c;
    double *f = r->f;
    const char *fn = e->func ? e->func : "";
    switch (e->op) {
    case IOLENS_OP_OPEN:
        c[strcmp(fn, "fdopen") ? IOL_DC_STDIO_OPENS : IOL_DC_STDIO_FDOPENS]++;
        r->offset = 0;
        open_close_ts(f, IOL_DC_STDIO_F_OPEN_START_TIMESTAMP, IOL_DC_STDIO_F_OPEN_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_STDIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_CLOSE:
        open_close_ts(f, IOL_DC_STDIO_F_CLOSE_START_TIMESTAMP, IOL_DC_STDIO_F_CLOSE_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_STDIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_SEEK:
        c[IOL_DC_STDIO_SEEKS]++;
        if (e->offset >= 0)
            r->offset = e->offset;
        timer_no_overlap(&f[IOL_DC_STDIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_FLUSH:
    case IOLENS_OP_SYNC:
        c[IOL_DC_STDIO_FLUSHES]++;
        timer_no_overlap(&f[IOL_DC_STDIO_F_WRITE_TIME], e->tstart, e->tend, &r->last_write_end);
        break;
    default:
        break;
    }
}

static void mpiio_rw(iol_crec *r, const iolens_event *e, int64_t bytes, int is_write)
{
    int64_t *c = r->c;
    const char *fn = e->func ? e->func : "";
    int kind; /* 0 indep, 1 coll, 2 split, 3 nb */
    if (strstr(fn, "_begin") || strstr(fn, "_end"))
        kind = 2;
    else if (e->flags & IOLENS_EVF_NONBLOCKING)
        kind = 3;
    else if ((e->flags & IOLENS_EVF_COLLECTIVE) || strstr(fn, "_all") || strstr(fn, "_ordered"))
        kind = 1;
    else
        kind = 0;
    static const int rd[] = {IOL_DC_MPIIO_INDEP_READS, IOL_DC_MPIIO_COLL_READS,
                             IOL_DC_MPIIO_SPLIT_READS, IOL_DC_MPIIO_NB_READS};
    static const int wr[] = {IOL_DC_MPIIO_INDEP_WRITES, IOL_DC_MPIIO_COLL_WRITES,
                             IOL_DC_MPIIO_SPLIT_WRITES, IOL_DC_MPIIO_NB_WRITES};
    c[is_write ? wr[kind] : rd[kind]]++;
    int bw = is_write ? IOL_DC_MPIIO_BYTES_WRITTEN : IOL_DC_MPIIO_BYTES_READ;
    c[bw] = sadd(c[bw], bytes);
    c[(is_write ? IOL_DC_MPIIO_SIZE_WRITE_AGG_0_100 : IOL_DC_MPIIO_SIZE_READ_AGG_0_100) +
      size_bucket(bytes)]++;
    cv_seen(r->acc, &r->nacc, &c[IOL_DC_MPIIO_ACCESS1_ACCESS], &c[IOL_DC_MPIIO_ACCESS1_COUNT], bytes);
    if (r->last_io == (is_write ? 1 : 2))
        c[IOL_DC_MPIIO_RW_SWITCHES]++;
    r->last_io = is_write ? 2 : 1;
    static const rw_idx x = {{IOL_DC_MPIIO_F_READ_START_TIMESTAMP, IOL_DC_MPIIO_F_WRITE_START_TIMESTAMP},
                             {IOL_DC_MPIIO_F_READ_END_TIMESTAMP, IOL_DC_MPIIO_F_WRITE_END_TIMESTAMP},
                             {IOL_DC_MPIIO_F_MAX_READ_TIME, IOL_DC_MPIIO_F_MAX_WRITE_TIME},
                             {IOL_DC_MPIIO_MAX_READ_TIME_SIZE, IOL_DC_MPIIO_MAX_WRITE_TIME_SIZE},
                             {IOL_DC_MPIIO_F_READ_TIME, IOL_DC_MPIIO_F_WRITE_TIME}};
    rw_times(r, e, is_write, bytes, &x);
}

/* args: the call's raw arguments where the source has them (iolens traces), else NULL. An open
 * counts as the runtime counts it: independent on a communicator of one process (PnetCDF opens
 * the file so for its independent mode), collective otherwise; one with hints given counts in
 * MPIIO_HINTS. Without the arguments every MPI_File_open is collective. */
static void mpiio_event(iol_crec *r, const iolens_event *e, const int64_t *args)
{
    int64_t *c = r->c;
    double *f = r->f;
    const char *fn = e->func ? e->func : "";
    int open_call = !strcmp(fn, "MPI_File_open");
    switch (e->op) {
    case IOLENS_OP_OPEN:
        c[((e->flags & IOLENS_EVF_COLLECTIVE) || open_call) && !(open_call && args && args[2] == 1)
              ? IOL_DC_MPIIO_COLL_OPENS
              : IOL_DC_MPIIO_INDEP_OPENS]++;
        if (open_call && args && args[1] == 1)
            c[IOL_DC_MPIIO_HINTS]++;
        if (e->open_flags >= 0)
            c[IOL_DC_MPIIO_MODE] = e->open_flags;
        open_close_ts(f, IOL_DC_MPIIO_F_OPEN_START_TIMESTAMP, IOL_DC_MPIIO_F_OPEN_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_MPIIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_CLOSE:
        open_close_ts(f, IOL_DC_MPIIO_F_CLOSE_START_TIMESTAMP, IOL_DC_MPIIO_F_CLOSE_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_MPIIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    case IOLENS_OP_SYNC:
        c[IOL_DC_MPIIO_SYNCS]++;
        timer_no_overlap(&f[IOL_DC_MPIIO_F_WRITE_TIME], e->tstart, e->tend, &r->last_write_end);
        break;
    case IOLENS_OP_SET_VIEW:
        c[IOL_DC_MPIIO_VIEWS]++;
        timer_no_overlap(&f[IOL_DC_MPIIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        break;
    default:
        if (strstr(fn, "set_info")) {
            c[IOL_DC_MPIIO_HINTS]++;
            timer_no_overlap(&f[IOL_DC_MPIIO_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        }
        break;
    }
}

/* ---- heatmap --------------------------------------------------------------------------- */

static size_t heat_hash(int api, int32_t rank)
{
    uint64_t k = ((uint64_t)(uint32_t)api << 32 | (uint32_t)rank) * 0x9e3779b97f4a7c15ull;
    return (size_t)(k >> 17 ^ k);
}

/* The heat record of (api, rank), found through heat_slot (a linear scan over every record
 * made the heatmap of a 65,536-process job quadratic in its processes). */
static int heat_get(iolens_counters *c, int api, int32_t rank, iol_heat **out)
{
    size_t mask = c->heat_cap - 1, at = 0;
    if (c->heat_cap) {
        for (at = heat_hash(api, rank) & mask; c->heat_slot[at]; at = (at + 1) & mask) {
            iol_heat *h = c->heats[c->heat_slot[at] - 1];
            if (h->api == api && h->rank == rank) {
                *out = h;
                return 0;
            }
        }
    }
    if (2 * (c->nheats + 1) > c->heat_cap) { /* grow the index, then find the new one's slot */
        size_t ncap = c->heat_cap ? c->heat_cap * 2 : 64;
        size_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        for (size_t i = 0; i < c->nheats; i++) {
            size_t j = heat_hash(c->heats[i]->api, c->heats[i]->rank) & (ncap - 1);
            while (ns[j])
                j = (j + 1) & (ncap - 1);
            ns[j] = i + 1;
        }
        free(c->heat_slot);
        c->heat_slot = ns;
        c->heat_cap = ncap;
        mask = ncap - 1;
        for (at = heat_hash(api, rank) & mask; c->heat_slot[at];)
            at = (at + 1) & mask;
    }
    if (c->nheats == c->capheats) {
        size_t ncap = c->capheats ? c->capheats * 2 : 16;
        iol_heat **n = realloc(c->heats, ncap * sizeof *n);
        if (!n)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        c->heats = n;
        c->capheats = ncap;
    }
    iol_heat *h = calloc(1, sizeof *h);
    if (!h)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    c->heat_slot[at] = c->nheats + 1;
    h->api = api;
    h->rank = rank;
    h->width = HEAT_WIDTH0;
    c->heats[c->nheats++] = h;
    *out = h;
    return 0;
}

/* Doubles the bin width (merging bins pairwise) until t fits in 200 bins. */
static void heat_fit(iol_heat *h, double t)
{
    while (t >= h->width * HEAT_BINS && h->width < 1e12) {
        for (int i = 0; i < HEAT_BINS / 2; i++) {
            h->wbins[i] = sadd(h->wbins[2 * i], h->wbins[2 * i + 1]);
            h->rbins[i] = sadd(h->rbins[2 * i], h->rbins[2 * i + 1]);
        }
        for (int i = HEAT_BINS / 2; i < HEAT_BINS; i++)
            h->wbins[i] = h->rbins[i] = 0;
        h->width *= 2;
    }
}

static int heat_bin(const iol_heat *h, double t)
{
    if (!(t > 0))
        return 0;
    double b = t / h->width;
    return b >= HEAT_BINS - 1 ? HEAT_BINS - 1 : (int)b;
}

/* Adds bytes over [t1, t2], split across bins by time overlap (the last bin
 * gets the rounding remainder, so totals are exact). */
static void heat_add(iol_heat *h, double t1, double t2, int64_t bytes, int is_write)
{
    if (t2 < t1)
        t2 = t1;
    heat_fit(h, t2);
    int64_t *bins = is_write ? h->wbins : h->rbins;
    int b1 = heat_bin(h, t1), b2 = heat_bin(h, t2);
    h->used = 1;
    if (b1 == b2 || !(t2 > t1)) {
        bins[b1] = sadd(bins[b1], bytes);
        return;
    }
    int64_t left = bytes;
    for (int b = b1; b < b2; b++) {
        double lo = b == b1 ? t1 : b * h->width, hi = (b + 1) * h->width;
        double d = (double)bytes * ((hi - lo) / (t2 - t1));
        int64_t share = !(d > 0) ? 0 : d >= (double)left ? left : llround(d);
        if (share > left)
            share = left;
        bins[b] = sadd(bins[b], share);
        left -= share;
    }
    bins[b2] = sadd(bins[b2], left);
}

/* ---- event loop ------------------------------------------------------------------------- */

static const char *const excluded[] = {"/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/",
                                       "/opt/", "/sbin/", "/sys/", "/proc/", "/var/", NULL};

int iolens_counters_path_excluded(const char *p)
{
    if (!p)
        return 0;
    for (int i = 0; excluded[i]; i++)
        if (!strncmp(p, excluded[i], strlen(excluded[i])))
            return 1;
    return 0;
}

/* A path the counters leave out: Darshan's exclusions (all_paths 0), none (1), or those but
 * /dev/shm/, where an application's data on tmpfs lives (2). */
static int skip_path(const struct iolens_counters *c, const char *p)
{
    if (c->opts.all_paths == 1 || !iolens_counters_path_excluded(p))
        return 0;
    return !(c->opts.all_paths == 2 && !strncmp(p, "/dev/shm/", 9));
}

/* Times sanitized: hostile producers may give NaN/inf/huge. */
static void sane_times(iolens_event *e)
{
    e->tstart = fin(e->tstart);
    e->tend = fin(e->tend);
    if (e->tstart < 0)
        e->tstart = 0;
    if (e->tend < e->tstart)
        e->tend = e->tstart;
    if (e->tend > 1e9) /* no trace lasts 30 years: keeps timestamps convertible */
        e->tend = e->tstart = 1e9;
}

static int layer_module(iolens_layer l)
{
    switch (l) {
    case IOLENS_LAYER_POSIX: return IOLENS_DARSHAN_POSIX;
    case IOLENS_LAYER_MPIIO: return IOLENS_DARSHAN_MPIIO;
    case IOLENS_LAYER_STDIO: return IOLENS_DARSHAN_STDIO;
    default: return -1;
    }
}

/* The runtime's descriptor table starts empty: a descriptor the process had open when it started
 * (iolens_fd_at_start: a shell's redirection) makes no record and neither do its calls, until the
 * process opens the file itself (then its calls count, through either descriptor). A descriptor
 * kept at fork (iolens_fd_at_fork) is the parent's open, not one of the child's. 1: leave the
 * event out. */
static int inherited(iolens_counters *c, const iolens_event *e)
{
    int note = iolens_event_is_fd_note(e);
    if (note && strcmp(e->func + 13, "start"))
        return 1;
    size_t f = (size_t)e->file;
    int marked = f < c->ninh_file && c->inh_file[f];
    if (!note && !marked)
        return 0;
    size_t i = 0;
    while (marked && i < c->ninh && (c->inh[i].file != e->file || c->inh[i].rank != e->rank))
        i++;
    int found = marked && i < c->ninh;
    if (note) {
        if (found)
            return 1;
        if (f >= c->ninh_file) {
            size_t n = f + 1 > 2 * c->ninh_file ? f + 1 : 2 * c->ninh_file;
            uint32_t *p = realloc(c->inh_file, n * sizeof *p);
            if (!p)
                return iol_err(IOLENS_ENOMEM, "counters: out of memory");
            memset(p + c->ninh_file, 0, (n - c->ninh_file) * sizeof *p);
            c->inh_file = p;
            c->ninh_file = n;
        }
        if (c->ninh == c->capinh) {
            size_t n = c->capinh ? 2 * c->capinh : 16;
            struct iol_inh *p = realloc(c->inh, n * sizeof *p);
            if (!p)
                return iol_err(IOLENS_ENOMEM, "counters: out of memory");
            c->inh = p;
            c->capinh = n;
        }
        c->inh[c->ninh++] = (struct iol_inh){e->file, e->rank};
        c->inh_file[f]++;
        return 1;
    }
    if (!found)
        return 0;
    if (e->op == IOLENS_OP_OPEN && !(e->flags & IOLENS_EVF_FAILED) && !(e->func && !strcmp(e->func, "fdopen"))) {
        c->inh[i] = c->inh[--c->ninh];
        c->inh_file[f]--;
        return 0;
    }
    return 1;
}

/* A rank's state of its descriptors, dropped before the next rank is read (the ranks are read
 * one after the other): its inherited entries (kept, each call of every rank on a job's shared
 * output file would look through the entries of all ranks before it: time quadratic in the ranks,
 * bench_counters --stdout-ranks) and its standard streams. */
static void rank_start(iolens_counters *c)
{
    for (size_t k = 0; k < c->ninh; k++)
        if ((size_t)c->inh[k].file < c->ninh_file)
            c->inh_file[c->inh[k].file]--;
    c->ninh = 0;
    c->std_file[0] = c->std_file[1] = c->std_file[2] = -1;
    memset(c->posix_std, 0, sizeof c->posix_std);
    c->stdio_live = 0;
}

/* The standard streams. The runtime's STDIO module opens a record for each of stdin, stdout and
 * stderr when it starts ("<STDIN>", "<STDOUT>", "<STDERR>": one open at time 0, an offset of its
 * own from 0), counts the stdio calls on those streams there, and leaves out at the end the ones
 * that were neither read nor written. The module starts at the process's first stdio call it
 * wraps (on any stream; fileno() is the POSIX module's). fileno() on a standard stream once it
 * has opens a POSIX record of the same name for its descriptor, where the POSIX calls on the
 * descriptor count from then on (until it is closed); before, the runtime knows no name for
 * the stream and makes no record (Debian's dd asks stderr's fileno at exit, before its first
 * wrapped stdio call, the fflush just after: the runtime's log of dd has no "<STDERR>"; checked
 * with the runtime built from its source). A call is on a standard stream when its descriptor
 * is 0, 1 or 2 and names the file
 * that descriptor named when the process started, or no file (a terminal, a pipe). The stream
 * (0, 1, 2), or -1. */
static int std_stream(iolens_counters *c, const iolens_event *e, int32_t ev_fd, int module, int is_fileno)
{
    if (iolens_event_is_fd_note(e)) {
        if (!strcmp(e->func + 13, "start") && e->ret >= 0 && e->ret <= 2)
            c->std_file[e->ret] = e->file;
        return -1;
    }
    int64_t fd = is_fileno ? e->ret : ev_fd;
    if (fd < 0 || fd > 2 || (e->file >= 0 && e->file != c->std_file[fd]))
        return -1;
    if (module == IOLENS_DARSHAN_STDIO || is_fileno || (module == IOLENS_DARSHAN_POSIX && c->posix_std[fd]))
        return (int)fd;
    return -1;
}

/* Does the runtime count this stdio read or write (its result ret, as the call returned it)?
 * Its STDIO wrappers record one only when it moved something by the call's own measure: fread
 * and fwrite a positive count of items, fputs and the printf family a positive result, fgets a
 * line, fgetc, getc, fputc and putc a character (not EOF); fscanf any result but 0 (its end of
 * input, -1, too, with the bytes it consumed). So a loop's last fgets (NULL), a read at the end
 * of a file (fread 0, fgetc EOF) and a fscanf that matched nothing count for nothing; the call
 * still starts the STDIO module (on_event: stdio_live). Any other call counts. */
static int stdio_counted(const iolens_event *e, int64_t ret)
{
    if (e->layer != IOLENS_LAYER_STDIO || (e->op != IOLENS_OP_READ && e->op != IOLENS_OP_WRITE) || !e->func ||
        (e->flags & IOLENS_EVF_FAILED))
        return 1;
    const char *f = e->func;
    if (!strcmp(f, "fscanf"))
        return ret != 0;
    if (!strcmp(f, "fread") || !strcmp(f, "fwrite") || !strcmp(f, "fputs") || !strcmp(f, "fprintf") ||
        !strcmp(f, "vfprintf") || !strcmp(f, "printf") || !strcmp(f, "vprintf"))
        return ret > 0;
    if (!strcmp(f, "fgets") || !strcmp(f, "fgetc") || !strcmp(f, "getc") || !strcmp(f, "fputc") || !strcmp(f, "putc"))
        return ret >= 0;
    return 1;
}

/* rename(old, new) as the runtime's wrapper counts it: nothing unless old has a POSIX record
 * (a file the rank opened, or a target of an earlier rename); then old's RENAME_SOURCES and meta
 * time, and new's record (made if need be, unless the runtime skips the path) RENAME_TARGETS
 * and, the first time, RENAMED_FROM old's record id. to: new's file id (-1 unknown). */
static int posix_rename(iolens_counters *c, ctab *t, const iolens_event *ev, int64_t to, const char *to_path)
{
    iolens_event e = *ev;
    sane_times(&e);
    if ((e.flags & IOLENS_EVF_FAILED) || e.file < 0)
        return 0;
    iol_crec *r = crec_find(c, t, IOLENS_DARSHAN_POSIX, e.file, e.rank);
    if (!r)
        return 0;
    r->c[IOL_DC_POSIX_RENAME_SOURCES]++;
    timer_no_overlap(&r->f[IOL_DC_POSIX_F_META_TIME], e.tstart, e.tend, &r->last_meta_end);
    if (to < 0 || !to_path || !to_path[0] || (skip_path(c, to_path)))
        return 0;
    uint64_t from = r->id; /* (r may move when the table grows) */
    iol_crec *n = NULL;
    int rc = crec_get(c, t, IOLENS_DARSHAN_POSIX, to, e.rank, to_path, &n);
    if (rc < 0)
        return rc;
    n->c[IOL_DC_POSIX_RENAME_TARGETS]++;
    if (!n->c[IOL_DC_POSIX_RENAMED_FROM])
        n->c[IOL_DC_POSIX_RENAMED_FROM] = (int64_t)from;
    return 0;
}

/* The path of file id (NULL if none): files[] is indexed by id in every producer; fall back to a
 * search. */
static const char *file_path(const iolens_file *files, size_t nfiles, int64_t id)
{
    if (id < 0)
        return NULL;
    if ((size_t)id < nfiles && files[id].id == id)
        return files[id].path;
    for (size_t k = 0; k < nfiles; k++)
        if (files[k].id == id)
            return files[k].path;
    return NULL;
}

/* The file a rename named as its new path, and that path in *to_path: an iolens trace's from the
 * call's slot a2 (a file id), another source's from its second argument, found in the file
 * table. -1 when not known. */
static int64_t rename_target(iolens_evsource *trace, int rank, const iolens_event *e, int is_iolens,
                             const iolens_file *files, size_t nfiles, const char **to_path)
{
    *to_path = NULL;
    if (is_iolens) {
        int32_t fd;
        int64_t a[4];
        if (iolens_trace_last_args(trace, rank, &fd, a) < 0 || !(*to_path = file_path(files, nfiles, a[2])))
            return -1;
        return a[2];
    }
    for (size_t k = 0; e->nargs >= 2 && e->args[1] && k < nfiles; k++)
        if (!strcmp(files[k].path, e->args[1])) {
            *to_path = files[k].path;
            return files[k].id;
        }
    return -1;
}

/* ev_fd: the call's descriptor where the source records one (iolens traces), else -1; args: the
 * call's raw arguments when read (an MPI_File_open of an iolens trace), else NULL; counted: 0 for
 * a stdio call the runtime wraps but does not count (stdio_counted) */
static int on_event(iolens_counters *c, ctab *t, const iolens_event *ev, int32_t ev_fd, const int64_t *args,
                    int counted, const char *path)
{
    iolens_event tmp = *ev;
    sane_times(&tmp);
    const iolens_event *e = &tmp;
    int module = layer_module(e->layer);
    int is_fileno = e->func && !strcmp(e->func, "fileno");
    if (is_fileno)
        module = IOLENS_DARSHAN_POSIX; /* the runtime counts fileno() on the fd's POSIX record */
    if (e->tend > c->max_end)
        c->max_end = e->tend;
    /* The runtime's STDIO module wraps neither the _unlocked calls nor getline and getdelim
     * (glibc's headers make getline a call of __getdelim), nor puts and putchar (it wraps printf
     * and vprintf), nor ftell, ftello and fgetpos (it counts fseek, fseeko, fsetpos and rewind as
     * seeks): none of them makes a record or counts */
    /* nor glibc's fortified entry points, nor the kernel's copies (iolens_counters_opts.all_calls) */
    if (!c->opts.all_calls &&
        ((e->flags & IOLENS_EVF_FORTIFIED) ||
         ((e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE) && e->func &&
          (e->func[0] == 'c' || e->func[0] == 's') &&
          (!strcmp(e->func, "copy_file_range") || !strncmp(e->func, "sendfile", 8) || !strcmp(e->func, "splice")))))
        return 0;
    if (e->layer == IOLENS_LAYER_STDIO && e->func &&
        (strstr(e->func, "_unlocked") || !strcmp(e->func, "getline") || !strcmp(e->func, "getdelim") ||
         !strcmp(e->func, "puts") || !strcmp(e->func, "putchar") || !strncmp(e->func, "ftell", 5) ||
         !strncmp(e->func, "fgetpos", 7)))
        return 0;
    if (e->layer == IOLENS_LAYER_STDIO && !is_fileno)
        c->stdio_live = 1;
    if (e->layer == IOLENS_LAYER_STDIO && !is_fileno && !c->stdio_started) {
        /* The runtime's STDIO module starts at the first stdio call of the run (on any
         * stream) and registers these names whether or not it keeps records: the real
         * dd and small_writes logs have them, large_seq (no stdio call) has not. */
        static const char *const names[] = {"<STDIN>", "<STDOUT>", "<STDERR>", "heatmap:STDIO"};
        c->stdio_started = 1;
        for (int i = 0; i < 4; i++) {
            int rc = add_name(c, iolens_darshan_hash(names[i], strlen(names[i]), 0), names[i]);
            if (rc < 0)
                return rc;
        }
    }
    if (!counted)
        return 0;
    int std = c->opts.std_streams && (module == IOLENS_DARSHAN_POSIX || module == IOLENS_DARSHAN_STDIO)
                  ? std_stream(c, e, ev_fd, module, is_fileno)
                  : -1;
    int64_t file = e->file;
    if (std >= 0 && is_fileno && !c->stdio_live)
        return 0; /* (see std_stream) */
    if (std >= 0) {
        static const char *const std_names[] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
        path = std_names[std];
        file = -2 - std; /* a record of its own, the same on every rank */
        tmp.offset = -1; /* the record's own offset (see std_stream) */
        tmp.flags |= IOLENS_EVF_OFFSET_UNKNOWN;
    } else {
        if (module < 0 || e->file < 0 || !path || !path[0])
            return 0;
        if ((module == IOLENS_DARSHAN_POSIX || module == IOLENS_DARSHAN_STDIO) && (c->ninh || e->op == IOLENS_OP_OPEN)) {
            int rc = inherited(c, e);
            if (rc)
                return rc < 0 ? rc : 0;
        }
    }
    if (e->flags & IOLENS_EVF_FAILED)
        return 0;
    if (std < 0 && skip_path(c, path))
        return 0;
    /* The runtime's POSIX module wraps no mkdir, rmdir, unlink, access, opendir, ...: such a
     * call on a path no wrapped call touched leaves no record (a replay's mkdir of its root
     * directory made a record of its own, so no run had a single shared POSIX file). rename
     * is wrapped (POSIX_RENAME_*: posix_rename); renameat and renameat2 are not, nor are chmod,
     * chown, utime and their kin, nor truncate by path. */
    if (module == IOLENS_DARSHAN_POSIX && e->op == IOLENS_OP_META)
        return 0;
    if (module == IOLENS_DARSHAN_POSIX && e->op == IOLENS_OP_TRUNCATE && e->func && !strncmp(e->func, "truncate", 8))
        return 0;
    if (module == IOLENS_DARSHAN_POSIX && e->op == IOLENS_OP_STAT && c->opts.legacy_stat_only &&
        !(e->func && !strncmp(e->func, "__", 2)))
        return 0;
    iol_crec *r = NULL;
    int rc = crec_get(c, t, module, file, e->rank, path, &r);
    if (rc < 0)
        return rc;
    if (std >= 0 && module == IOLENS_DARSHAN_STDIO && r->c[IOL_DC_STDIO_OPENS] == 0)
        r->c[IOL_DC_STDIO_OPENS] = 1; /* the module's own open of the stream, at time 0 */
    int is_rw = e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE;
    if (is_fileno) {
        posix_refopen(r, e, IOL_DC_POSIX_FILENOS);
        if (std >= 0)
            c->posix_std[std] = 1;
        return 0;
    }
    if (!is_rw) {
        if (std >= 0 && module == IOLENS_DARSHAN_POSIX && e->op == IOLENS_OP_CLOSE)
            c->posix_std[std] = 0;
        if (module == IOLENS_DARSHAN_POSIX)
            posix_event(r, e);
        else if (module == IOLENS_DARSHAN_STDIO)
            stdio_event(r, e);
        else
            mpiio_event(r, e, args);
        return 0;
    }
    int is_write = e->op == IOLENS_OP_WRITE;
    /* POSIX/STDIO: bytes moved (the return value when the producer has it); MPI-IO:
     * count x datatype size, as the runtime counts (the return value is an error code) */
    int64_t bytes = module != IOLENS_DARSHAN_MPIIO && e->ret >= 0 ? e->ret : e->size;
    if (bytes < 0)
        return 0;
    int64_t off = module == IOLENS_DARSHAN_POSIX ? runtime_offset(r, e) /* (DXT's offsets are the runtime's too) */
                  : (e->offset >= 0 && !(e->flags & IOLENS_EVF_OFFSET_UNKNOWN)) ? e->offset
                                                                                 : r->offset;
    if (c->opts.dxt && module != IOLENS_DARSHAN_STDIO && (rc = dxt_add(r, e, off, bytes, is_write)) < 0)
        return rc;
    if (c->opts.heatmap) {
        iol_heat *h = NULL;
        if ((rc = heat_get(c, module, e->rank, &h)) < 0)
            return rc;
        heat_add(h, e->tstart, e->tend, bytes, is_write);
    }
    if (module == IOLENS_DARSHAN_POSIX)
        posix_rw(r, e, bytes, is_write);
    else if (module == IOLENS_DARSHAN_STDIO)
        stdio_rw(r, e, bytes, is_write);
    else
        mpiio_rw(r, e, bytes, is_write);
    return 0;
}

/* ---- HDF5: the H5F and H5D modules ------------------------------------------------------
 * The rules of Darshan's HDF5 runtime module (per file: opens, flushes, the MPI-IO driver,
 * open/close times; per dataset: opens, reads, writes, bytes as selected elements x the
 * dataset's type size, selections, the four most common access shapes, the dataspace, the
 * chunks, collective transfers, times). Datasets are named "<file>:<object path>". */

/* One access of shape v: counted among the shapes (at most IOL_CV_MAX kept), then the slots
 * (the module's ACCESS1_ACCESS and ACCESS1_COUNT). */
static int h5_access(iol_crec *r, const int64_t *v, int acc1, int count1)
{
    int i = 0;
    for (; i < r->nh5acc && memcmp(r->h5acc[i].v, v, sizeof r->h5acc[i].v); i++)
        ;
    if (i == r->nh5acc) {
        if (r->nh5acc == IOL_CV_MAX)
            return 0; /* the runtime tracks no more shapes */
        if (!r->h5acc && !(r->h5acc = calloc(IOL_CV_MAX, sizeof *r->h5acc)))
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        memcpy(r->h5acc[i].v, v, sizeof r->h5acc[i].v);
        r->nh5acc++;
    }
    r->h5acc[i].freq++;
    common_update(&r->c[acc1], &r->c[count1], v, IOL_H5D_NVALS, r->h5acc[i].freq);
    return 0;
}

/* "<file>:<object path>": the file's part (the name before the first ":/"). */
static uint64_t h5_file_rec_id(const char *dset)
{
    const char *colon = strstr(dset, ":/");
    return iolens_darshan_hash(dset, colon ? (size_t)(colon - dset) : strlen(dset), 0);
}

static int h5f_event(iol_crec *r, const iolens_event *e, const int64_t *a)
{
    int64_t *c = r->c;
    double *f = r->f;
    switch (e->op) {
    case IOLENS_OP_OPEN:
        c[IOL_DC_H5F_OPENS]++;
        c[IOL_DC_H5F_USE_MPIIO] = a[2] == 1;
        open_close_ts(f, IOL_DC_H5F_F_OPEN_START_TIMESTAMP, IOL_DC_H5F_F_OPEN_END_TIMESTAMP, e);
        break;
    case IOLENS_OP_FLUSH:
        c[IOL_DC_H5F_FLUSHES]++;
        break;
    case IOLENS_OP_CLOSE:
        open_close_ts(f, IOL_DC_H5F_F_CLOSE_START_TIMESTAMP, IOL_DC_H5F_F_CLOSE_END_TIMESTAMP, e);
        break;
    default: return 0;
    }
    timer_no_overlap(&f[IOL_DC_H5F_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
    return 0;
}

static int h5d_event(iolens_evsource *src, int rank, iol_crec *r, const iolens_event *e, const int64_t *a,
                     const char *path)
{
    int64_t *c = r->c;
    double *f = r->f;
    if (e->op == IOLENS_OP_OPEN) { /* a1 the dataset's bytes, a2 its type size, a3 its rank */
        c[IOL_DC_H5D_OPENS]++;
        c[IOL_DC_H5D_USE_DEPRECATED] = !strcmp(e->func, "H5Dcreate1") || !strcmp(e->func, "H5Dopen1");
        open_close_ts(f, IOL_DC_H5D_F_OPEN_START_TIMESTAMP, IOL_DC_H5D_F_OPEN_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_H5D_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        c[IOL_DC_H5D_DATASPACE_NDIMS] = a[3];
        c[IOL_DC_H5D_DATASPACE_NPOINTS] = a[1] >= 0 && a[2] > 0 ? a[1] / a[2] : -1;
        c[IOL_DC_H5D_DATATYPE_SIZE] = a[2];
        int n;
        int64_t d[5];
        if (iolens_trace_last_chunk(src, rank, &n, d) == 1) {
            n = n < 5 ? n : 5;
            for (int i = 0; i < n; i++) /* D1 the fastest-varying dimension */
                c[IOL_DC_H5D_CHUNK_SIZE_D1 + i] = d[n - i - 1];
        }
        r->file_rec_id = h5_file_rec_id(path);
        return 0;
    }
    if (e->op == IOLENS_OP_FLUSH || e->op == IOLENS_OP_CLOSE) {
        if (e->op == IOLENS_OP_FLUSH)
            c[IOL_DC_H5D_FLUSHES]++;
        else
            open_close_ts(f, IOL_DC_H5D_F_CLOSE_START_TIMESTAMP, IOL_DC_H5D_F_CLOSE_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_H5D_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        return 0;
    }
    if (e->op != IOLENS_OP_READ && e->op != IOLENS_OP_WRITE)
        return 0;
    /* a0 the file selection, a1 bytes in memory, a2 the memory type size, a3 the transfer mode */
    int w = e->op == IOLENS_OP_WRITE;
    c[w ? IOL_DC_H5D_WRITES : IOL_DC_H5D_READS]++;
    if (r->last_io == (w ? 1 : 2))
        c[IOL_DC_H5D_RW_SWITCHES]++;
    r->last_io = w ? 2 : 1;
    int64_t v[IOL_H5D_NVALS] = {0};
    if (a[0] == 1)
        c[IOL_DC_H5D_POINT_SELECTS]++;
    else if (a[0] == 3)
        c[IOL_DC_H5D_IRREGULAR_HYPERSLAB_SELECTS]++;
    else if (a[0] == 2) {
        c[IOL_DC_H5D_REGULAR_HYPERSLAB_SELECTS]++;
        int nd;
        int64_t len[5], stride[5];
        if (iolens_trace_last_selection(src, rank, &nd, len, stride) == 1)
            for (int i = 0; i < 5; i++) { /* D1 the fastest-varying of the first five dimensions */
                v[1 + i] = len[4 - i];
                v[6 + i] = stride[4 - i];
            }
    }
    int64_t npoints = a[1] >= 0 && a[2] > 0 ? a[1] / a[2] : 0;
    int64_t bytes = (int64_t)((uint64_t)npoints * (uint64_t)(c[IOL_DC_H5D_DATATYPE_SIZE] > 0 ? c[IOL_DC_H5D_DATATYPE_SIZE] : 0));
    if (a[1] >= 0) { /* bytes not known (a converted Recorder trace): neither sized nor an access */
        int bw = w ? IOL_DC_H5D_BYTES_WRITTEN : IOL_DC_H5D_BYTES_READ;
        c[bw] = sadd(c[bw], bytes);
        c[(w ? IOL_DC_H5D_SIZE_WRITE_AGG_0_100 : IOL_DC_H5D_SIZE_READ_AGG_0_100) + size_bucket(bytes)]++;
        v[0] = bytes;
        int rc = h5_access(r, v, IOL_DC_H5D_ACCESS1_ACCESS, IOL_DC_H5D_ACCESS1_COUNT);
        if (rc < 0)
            return rc;
    }
    if (a[3] == 1)
        c[IOL_DC_H5D_USE_MPIIO_COLLECTIVE] = 1;
    static const rw_idx x = {{IOL_DC_H5D_F_READ_START_TIMESTAMP, IOL_DC_H5D_F_WRITE_START_TIMESTAMP},
                             {IOL_DC_H5D_F_READ_END_TIMESTAMP, IOL_DC_H5D_F_WRITE_END_TIMESTAMP},
                             {IOL_DC_H5D_F_MAX_READ_TIME, IOL_DC_H5D_F_MAX_WRITE_TIME},
                             {IOL_DC_H5D_MAX_READ_TIME_SIZE, IOL_DC_H5D_MAX_WRITE_TIME_SIZE},
                             {IOL_DC_H5D_F_READ_TIME, IOL_DC_H5D_F_WRITE_TIME}};
    rw_times(r, e, w, bytes, &x);
    return 0;
}

/* An HDF5 event of an iolens trace: into its file's H5F record or its dataset's H5D record. */
static int h5_event(iolens_counters *c, ctab *t, iolens_evsource *src, int rank, const iolens_event *ev,
                    const char *path)
{
    if (ev->file < 0 || !path || !path[0] || (ev->flags & IOLENS_EVF_FAILED) || !ev->func)
        return 0;
    if (skip_path(c, path))
        return 0;
    int32_t fd;
    int64_t a[4];
    if (iolens_trace_last_args(src, rank, &fd, a) < 0)
        return 0; /* not an iolens trace: its HDF5 arguments are not these slots */
    iolens_event e = *ev;
    sane_times(&e);
    if (e.tend > c->max_end)
        c->max_end = e.tend;
    const char *fn = e.func;
    int rc;
    iol_crec *r = NULL;
    if (!strncmp(fn, "H5F", 3)) {
        if ((rc = crec_get(c, t, IOLENS_DARSHAN_H5F, e.file, rank, path, &r)) < 0)
            return rc;
        return h5f_event(r, &e, a);
    }
    int dset = !strncmp(fn, "H5D", 3) || (!strcmp(fn, "H5Oopen") && a[2] > 0);
    if (!strcmp(fn, "H5Oclose")) /* a dataset's if it has a record */
        dset = crec_find(c, t, IOLENS_DARSHAN_H5D, e.file, rank) != NULL;
    if (!dset || !strcmp(fn, "H5Dset_extent"))
        return 0;
    if ((rc = crec_get(c, t, IOLENS_DARSHAN_H5D, e.file, rank, path, &r)) < 0)
        return rc;
    return h5d_event(src, rank, r, &e, a, path);
}

/* ---- PnetCDF: the PNETCDF_FILE and PNETCDF_VAR modules --------------------------------------
 * The rules of Darshan's PnetCDF runtime module. Per file: creates, opens, redefs, syncs,
 * waits (independent, collective, failed), the bytes the library moved (asked at close), times.
 * Per variable ("<file>:<variable>"): define/inquire opens, calls by API (put/get/iput/iget/
 * bput x var/var1/vara/vars/varm/varn/vard), independent, collective and non-blocking reads
 * and writes, bytes, sizes, the four most common access shapes (bytes, then the counts and
 * strides of the last five dimensions, the slowest first), the variable's shape, times. The
 * shim computed each access's bytes when the call was made (funcs.def). */

/* The API of a data call from its name: dir 0 put, 1 get, 2 iput, 3 iget, 4 bput; kind 0 var,
 * 1 var1, 2 vara, 3 vars, 4 varm, 5 varn, 6 vard; coll: an _all call. -1 when not one. */
static int pnc_api(const char *fn, int *dir, int *kind, int *coll)
{
    static const char *const dirs[] = {"ncmpi_put_var", "ncmpi_get_var", "ncmpi_iput_var", "ncmpi_iget_var",
                                       "ncmpi_bput_var"};
    for (int d = 0; d < 5; d++) {
        size_t n = strlen(dirs[d]);
        if (strncmp(fn, dirs[d], n))
            continue;
        const char *k = fn + n;
        static const char kinds[] = "1asmnd";
        const char *at = *k && *k != '_' ? strchr(kinds, *k) : NULL;
        if (*k && *k != '_' && (!at || (k[1] && k[1] != '_')))
            return -1;
        *dir = d;
        *kind = at ? (int)(at - kinds) + 1 : 0;
        size_t l = strlen(fn);
        *coll = l > 4 && !strcmp(fn + l - 4, "_all");
        return 0;
    }
    return -1;
}

static int pnc_file_event(iol_crec *r, const iolens_event *e, const int64_t *a)
{
    int64_t *c = r->c;
    double *f = r->f;
    const char *fn = e->func;
    if (e->op == IOLENS_OP_WAIT) { /* counted whether it failed or not */
        int coll = !strcmp(fn, "ncmpi_wait_all");
        if (e->flags & IOLENS_EVF_FAILED)
            c[IOL_DC_PNETCDF_FILE_WAIT_FAILURES]++;
        else
            c[coll ? IOL_DC_PNETCDF_FILE_COLL_WAITS : IOL_DC_PNETCDF_FILE_INDEP_WAITS]++;
        open_close_ts(f, IOL_DC_PNETCDF_FILE_F_WAIT_START_TIMESTAMP, IOL_DC_PNETCDF_FILE_F_WAIT_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_PNETCDF_FILE_F_WAIT_TIME], e->tstart, e->tend, &r->last_read_end);
        return 0;
    }
    if (e->flags & IOLENS_EVF_FAILED)
        return 0;
    if (!strcmp(fn, "ncmpi_create") || !strcmp(fn, "ncmpi_open")) {
        c[fn[6] == 'c' ? IOL_DC_PNETCDF_FILE_CREATES : IOL_DC_PNETCDF_FILE_OPENS]++;
        open_close_ts(f, IOL_DC_PNETCDF_FILE_F_OPEN_START_TIMESTAMP, IOL_DC_PNETCDF_FILE_F_OPEN_END_TIMESTAMP, e);
    } else if (!strcmp(fn, "ncmpi_close")) {
        for (int k = 0; k < 2; k++) { /* a1 bytes written, a2 bytes read; one unknown: -1 for good */
            int i = k ? IOL_DC_PNETCDF_FILE_BYTES_READ : IOL_DC_PNETCDF_FILE_BYTES_WRITTEN;
            c[i] = a[1 + k] >= 0 && c[i] >= 0 ? sadd(c[i], a[1 + k]) : -1;
        }
        open_close_ts(f, IOL_DC_PNETCDF_FILE_F_CLOSE_START_TIMESTAMP, IOL_DC_PNETCDF_FILE_F_CLOSE_END_TIMESTAMP, e);
    } else if (!strcmp(fn, "ncmpi_redef")) {
        c[IOL_DC_PNETCDF_FILE_REDEFS]++;
    } else if (!strcmp(fn, "ncmpi_sync")) {
        c[IOL_DC_PNETCDF_FILE_SYNCS]++;
    } else if (strcmp(fn, "ncmpi_enddef")) {
        return 0; /* begin/end_indep_data: not timed by Darshan */
    }
    timer_no_overlap(&f[IOL_DC_PNETCDF_FILE_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
    return 0;
}

static int pnc_var_event(iolens_evsource *src, int rank, iol_crec *r, const iolens_event *e, const int64_t *a,
                         const char *path)
{
    int64_t *c = r->c;
    double *f = r->f;
    if (e->op == IOLENS_OP_OPEN) { /* def_var, inq_varid: a1 points, a2 type size, a3 rank | record | name split */
        c[IOL_DC_PNETCDF_VAR_OPENS]++;
        open_close_ts(f, IOL_DC_PNETCDF_VAR_F_OPEN_START_TIMESTAMP, IOL_DC_PNETCDF_VAR_F_OPEN_END_TIMESTAMP, e);
        timer_no_overlap(&f[IOL_DC_PNETCDF_VAR_F_META_TIME], e->tstart, e->tend, &r->last_meta_end);
        uint64_t a3 = (uint64_t)a[3];
        if (a3 >> 16 & 1)
            c[IOL_DC_PNETCDF_VAR_IS_RECORD_VAR] = 1;
        c[IOL_DC_PNETCDF_VAR_NPOINTS] = a[1];
        c[IOL_DC_PNETCDF_VAR_NDIMS] = (int64_t)(a3 & 0xffff);
        c[IOL_DC_PNETCDF_VAR_DATATYPE_SIZE] = a[2];
        size_t flen = (size_t)(a3 >> 32), plen = strlen(path);
        r->file_rec_id = iolens_darshan_hash(path, flen > 0 && flen < plen ? flen : plen, 0);
        return 0;
    }
    int dir, kind, coll;
    if (pnc_api(e->func, &dir, &kind, &coll) < 0 || a[1] < 0)
        return 0;
    static const int first[5] = {IOL_DC_PNETCDF_VAR_PUT_VAR, IOL_DC_PNETCDF_VAR_GET_VAR, IOL_DC_PNETCDF_VAR_IPUT_VAR,
                                 IOL_DC_PNETCDF_VAR_IGET_VAR, IOL_DC_PNETCDF_VAR_BPUT_VAR};
    c[first[dir] + kind]++;
    int w = dir != 1 && dir != 3;
    int64_t bytes = a[1];
    c[w ? IOL_DC_PNETCDF_VAR_BYTES_WRITTEN : IOL_DC_PNETCDF_VAR_BYTES_READ] =
        sadd(c[w ? IOL_DC_PNETCDF_VAR_BYTES_WRITTEN : IOL_DC_PNETCDF_VAR_BYTES_READ], bytes);
    if (r->last_io == (w ? 1 : 2))
        c[IOL_DC_PNETCDF_VAR_RW_SWITCHES]++;
    r->last_io = w ? 2 : 1;
    c[(w ? IOL_DC_PNETCDF_VAR_SIZE_WRITE_AGG_0_100 : IOL_DC_PNETCDF_VAR_SIZE_READ_AGG_0_100) + size_bucket(bytes)]++;
    int64_t v[IOL_H5D_NVALS] = {0};
    v[0] = bytes;
    int nd;
    int64_t len[5], stride[5];
    if (kind >= 2 && kind <= 4 && iolens_trace_last_selection(src, rank, &nd, len, stride) == 1)
        for (int i = 0; i < 5; i++) {
            v[1 + i] = len[i];
            v[6 + i] = stride[i];
        }
    int rc = h5_access(r, v, IOL_DC_PNETCDF_VAR_ACCESS1_ACCESS, IOL_DC_PNETCDF_VAR_ACCESS1_COUNT);
    if (rc < 0)
        return rc;
    static const rw_idx x = {{IOL_DC_PNETCDF_VAR_F_READ_START_TIMESTAMP, IOL_DC_PNETCDF_VAR_F_WRITE_START_TIMESTAMP},
                             {IOL_DC_PNETCDF_VAR_F_READ_END_TIMESTAMP, IOL_DC_PNETCDF_VAR_F_WRITE_END_TIMESTAMP},
                             {IOL_DC_PNETCDF_VAR_F_MAX_READ_TIME, IOL_DC_PNETCDF_VAR_F_MAX_WRITE_TIME},
                             {IOL_DC_PNETCDF_VAR_MAX_READ_TIME_SIZE, IOL_DC_PNETCDF_VAR_MAX_WRITE_TIME_SIZE},
                             {IOL_DC_PNETCDF_VAR_F_READ_TIME, IOL_DC_PNETCDF_VAR_F_WRITE_TIME}};
    rw_times(r, e, w, bytes, &x);
    if (dir >= 2)
        c[w ? IOL_DC_PNETCDF_VAR_NB_WRITES : IOL_DC_PNETCDF_VAR_NB_READS]++;
    else
        c[w ? (coll ? IOL_DC_PNETCDF_VAR_COLL_WRITES : IOL_DC_PNETCDF_VAR_INDEP_WRITES)
            : (coll ? IOL_DC_PNETCDF_VAR_COLL_READS : IOL_DC_PNETCDF_VAR_INDEP_READS)]++;
    return 0;
}

/* A PnetCDF event of an iolens trace: into its file's or its variable's record. */
static int pnc_event(iolens_counters *c, ctab *t, iolens_evsource *src, int rank, const iolens_event *ev,
                     const char *path)
{
    if (ev->file < 0 || !path || !path[0] || !ev->func)
        return 0;
    if (skip_path(c, path))
        return 0;
    int32_t fd;
    int64_t a[4];
    if (iolens_trace_last_args(src, rank, &fd, a) < 0)
        return 0;
    iolens_event e = *ev;
    sane_times(&e);
    if (e.tend > c->max_end)
        c->max_end = e.tend;
    int var = !strcmp(e.func, "ncmpi_def_var") || !strcmp(e.func, "ncmpi_inq_varid") ||
              e.op == IOLENS_OP_READ || e.op == IOLENS_OP_WRITE;
    if (var && ((e.flags & IOLENS_EVF_FAILED) || a[1] < 0))
        return 0; /* failed, or a variable the shim could not name or shape */
    iol_crec *r = NULL;
    int rc = crec_get(c, t, var ? IOLENS_DARSHAN_PNETCDF_VAR : IOLENS_DARSHAN_PNETCDF_FILE, e.file, rank, path, &r);
    if (rc < 0)
        return rc;
    return var ? pnc_var_event(src, rank, r, &e, a, path) : pnc_file_event(r, &e, a);
}

/* ---- finalisation and shared-file reduction --------------------------------------------- */

typedef struct modinfo {
    int module;
    int ni, nf;
    int acc1, str1; /* index of ACCESS1_ACCESS / STRIDE1_STRIDE, -1 if none */
    int fastest, fastest_time;
    int br, bw, tr, tw, tm;
} modinfo;

static const modinfo *mod_info(int module)
{
    static const modinfo m[] = {
        {IOLENS_DARSHAN_POSIX, IOL_DC_POSIX_NUM_I, IOL_DC_POSIX_NUM_F, IOL_DC_POSIX_ACCESS1_ACCESS,
         IOL_DC_POSIX_STRIDE1_STRIDE, IOL_DC_POSIX_FASTEST_RANK, IOL_DC_POSIX_F_FASTEST_RANK_TIME,
         IOL_DC_POSIX_BYTES_READ, IOL_DC_POSIX_BYTES_WRITTEN, IOL_DC_POSIX_F_READ_TIME,
         IOL_DC_POSIX_F_WRITE_TIME, IOL_DC_POSIX_F_META_TIME},
        {IOLENS_DARSHAN_MPIIO, IOL_DC_MPIIO_NUM_I, IOL_DC_MPIIO_NUM_F, IOL_DC_MPIIO_ACCESS1_ACCESS, -1,
         IOL_DC_MPIIO_FASTEST_RANK, IOL_DC_MPIIO_F_FASTEST_RANK_TIME, IOL_DC_MPIIO_BYTES_READ,
         IOL_DC_MPIIO_BYTES_WRITTEN, IOL_DC_MPIIO_F_READ_TIME, IOL_DC_MPIIO_F_WRITE_TIME,
         IOL_DC_MPIIO_F_META_TIME},
        {IOLENS_DARSHAN_STDIO, IOL_DC_STDIO_NUM_I, IOL_DC_STDIO_NUM_F, -1, -1,
         IOL_DC_STDIO_FASTEST_RANK, IOL_DC_STDIO_F_FASTEST_RANK_TIME, IOL_DC_STDIO_BYTES_READ,
         IOL_DC_STDIO_BYTES_WRITTEN, IOL_DC_STDIO_F_READ_TIME, IOL_DC_STDIO_F_WRITE_TIME,
         IOL_DC_STDIO_F_META_TIME},
        /* H5F has no per-rank extremes; H5D's access shapes are merged apart (common_merge) */
        {IOLENS_DARSHAN_H5F, IOL_DC_H5F_NUM_I, IOL_DC_H5F_NUM_F, -1, -1, -1, -1, -1, -1, -1, -1,
         IOL_DC_H5F_F_META_TIME},
        {IOLENS_DARSHAN_H5D, IOL_DC_H5D_NUM_I, IOL_DC_H5D_NUM_F, -1, -1, IOL_DC_H5D_FASTEST_RANK,
         IOL_DC_H5D_F_FASTEST_RANK_TIME, IOL_DC_H5D_BYTES_READ, IOL_DC_H5D_BYTES_WRITTEN,
         IOL_DC_H5D_F_READ_TIME, IOL_DC_H5D_F_WRITE_TIME, IOL_DC_H5D_F_META_TIME},
        /* PNETCDF_FILE as H5F; PNETCDF_VAR as H5D */
        {IOLENS_DARSHAN_PNETCDF_FILE, IOL_DC_PNETCDF_FILE_NUM_I, IOL_DC_PNETCDF_FILE_NUM_F, -1, -1, -1, -1, -1, -1, -1,
         -1, IOL_DC_PNETCDF_FILE_F_META_TIME},
        {IOLENS_DARSHAN_PNETCDF_VAR, IOL_DC_PNETCDF_VAR_NUM_I, IOL_DC_PNETCDF_VAR_NUM_F, -1, -1,
         IOL_DC_PNETCDF_VAR_FASTEST_RANK, IOL_DC_PNETCDF_VAR_F_FASTEST_RANK_TIME, IOL_DC_PNETCDF_VAR_BYTES_READ,
         IOL_DC_PNETCDF_VAR_BYTES_WRITTEN, IOL_DC_PNETCDF_VAR_F_READ_TIME, IOL_DC_PNETCDF_VAR_F_WRITE_TIME,
         IOL_DC_PNETCDF_VAR_F_META_TIME},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i].module == module)
            return &m[i];
    return NULL;
}


/* Is counter i (integer) of the module a "max" (else summed)? returns 0 sum, 1 max, 2 first,
 * 3 skip (handled apart) */
static int int_rule(int module, int i)
{
    if (module == IOLENS_DARSHAN_POSIX) {
        if (i == IOL_DC_POSIX_MODE || i == IOL_DC_POSIX_MEM_ALIGNMENT || i == IOL_DC_POSIX_FILE_ALIGNMENT ||
            i == IOL_DC_POSIX_RENAMED_FROM)
            return 2; /* value of the last rank */
        if (i == IOL_DC_POSIX_MAX_BYTE_READ || i == IOL_DC_POSIX_MAX_BYTE_WRITTEN)
            return 1;
        if (i == IOL_DC_POSIX_MMAPS)
            return 4;
        if (i == IOL_DC_POSIX_MAX_READ_TIME_SIZE || i == IOL_DC_POSIX_MAX_WRITE_TIME_SIZE ||
            i >= IOL_DC_POSIX_STRIDE1_STRIDE)
            return 3;
    } else if (module == IOLENS_DARSHAN_MPIIO) {
        if (i == IOL_DC_MPIIO_MODE)
            return 2;
        if (i == IOL_DC_MPIIO_MAX_READ_TIME_SIZE || i == IOL_DC_MPIIO_MAX_WRITE_TIME_SIZE ||
            i >= IOL_DC_MPIIO_ACCESS1_ACCESS)
            return 3;
    } else if (module == IOLENS_DARSHAN_H5F) {
        if (i == IOL_DC_H5F_USE_MPIIO)
            return 1; /* any rank's */
    } else if (module == IOLENS_DARSHAN_H5D) {
        if (i == IOL_DC_H5D_USE_MPIIO_COLLECTIVE || i == IOL_DC_H5D_USE_DEPRECATED)
            return 1;
        if (i == IOL_DC_H5D_DATASPACE_NDIMS || i == IOL_DC_H5D_DATASPACE_NPOINTS || i == IOL_DC_H5D_DATATYPE_SIZE ||
            (i >= IOL_DC_H5D_CHUNK_SIZE_D1 && i <= IOL_DC_H5D_CHUNK_SIZE_D5))
            return 2;
        if (i == IOL_DC_H5D_MAX_READ_TIME_SIZE || i == IOL_DC_H5D_MAX_WRITE_TIME_SIZE ||
            (i >= IOL_DC_H5D_ACCESS1_ACCESS && i <= IOL_DC_H5D_ACCESS4_COUNT) || i >= IOL_DC_H5D_FASTEST_RANK)
            return 3;
    } else if (module == IOLENS_DARSHAN_PNETCDF_FILE) {
        return 0;
    } else if (module == IOLENS_DARSHAN_PNETCDF_VAR) {
        if (i == IOL_DC_PNETCDF_VAR_IS_RECORD_VAR)
            return 1;
        if (i == IOL_DC_PNETCDF_VAR_NDIMS || i == IOL_DC_PNETCDF_VAR_NPOINTS || i == IOL_DC_PNETCDF_VAR_DATATYPE_SIZE)
            return 2;
        if (i == IOL_DC_PNETCDF_VAR_MAX_READ_TIME_SIZE || i == IOL_DC_PNETCDF_VAR_MAX_WRITE_TIME_SIZE ||
            (i >= IOL_DC_PNETCDF_VAR_ACCESS1_ACCESS && i <= IOL_DC_PNETCDF_VAR_ACCESS4_COUNT) ||
            i >= IOL_DC_PNETCDF_VAR_FASTEST_RANK)
            return 3;
    } else {
        if (i == IOL_DC_STDIO_MAX_BYTE_READ || i == IOL_DC_STDIO_MAX_BYTE_WRITTEN)
            return 1;
        if (i >= IOL_DC_STDIO_FASTEST_RANK)
            return 3;
    }
    return 0;
}

/* float rule: 0 sum, 1 max, 2 min-nonzero start, 3 skip */
static int flt_rule(int module, int i)
{
    const char *n = iolens_darshan_fcounter_name(module, (size_t)i);
    if (strstr(n, "FASTEST") || strstr(n, "SLOWEST") || strstr(n, "VARIANCE"))
        return 3;
    if (strstr(n, "START_TIMESTAMP"))
        return 2;
    if (strstr(n, "END_TIMESTAMP") || strstr(n, "_MAX_"))
        return 1;
    return 0;
}

/* Reduces the records r[0..n) (one per rank, in rank order) into out (rank -1). */
static void reduce(iol_crec *out, iol_crec **r, size_t n)
{
    int module = r[0]->module;
    const modinfo *mi = mod_info(module);
    double tmin = 0, tmax = 0, sum_t = 0, sum_t2 = 0, sum_b = 0, sum_b2 = 0;
    int64_t fr = 0, sr = 0, fb = 0, sb = 0;
    out->module = module;
    out->file = r[0]->file;
    out->rank = -1;
    out->id = r[0]->id;
    for (size_t k = 0; k < n; k++) {
        const iol_crec *x = r[k];
        for (int i = 0; i < mi->ni; i++) {
            int rule = int_rule(module, i);
            if (rule == 0)
                out->c[i] = sadd(out->c[i], x->c[i]);
            else if (rule == 1 && (k == 0 || x->c[i] > out->c[i]))
                out->c[i] = x->c[i];
            else if (rule == 2) /* the runtime's reduced MODE is a later rank's (not rank 0's): its
                                 * MPI_Reduce's order; the real 4-rank logs have the 0 of the ranks
                                 * that did not create the file, the runtime's log of 2 ranks had
                                 * rank 0's mode */
                out->c[i] = x->c[i];
            else if (rule == 4)
                out->c[i] = k == 0 ? x->c[i] : (x->c[i] < 0 ? out->c[i] : sadd(out->c[i] < 0 ? 0 : out->c[i], x->c[i]));
        }
        for (int i = 0; i < mi->nf; i++) {
            int rule = flt_rule(module, i);
            if (rule == 0)
                out->f[i] += x->f[i];
            else if (rule == 1 && x->f[i] > out->f[i])
                out->f[i] = x->f[i];
            else if (rule == 2 && x->f[i] > 0 && (out->f[i] == 0 || x->f[i] < out->f[i]))
                out->f[i] = x->f[i];
        }
        if (module == IOLENS_DARSHAN_POSIX || module == IOLENS_DARSHAN_MPIIO || module == IOLENS_DARSHAN_H5D ||
            module == IOLENS_DARSHAN_PNETCDF_VAR) {
            int p = module == IOLENS_DARSHAN_POSIX, m = module == IOLENS_DARSHAN_MPIIO, h = module == IOLENS_DARSHAN_H5D;
            int mrs = p ? IOL_DC_POSIX_MAX_READ_TIME_SIZE : m ? IOL_DC_MPIIO_MAX_READ_TIME_SIZE
                    : h ? IOL_DC_H5D_MAX_READ_TIME_SIZE : IOL_DC_PNETCDF_VAR_MAX_READ_TIME_SIZE;
            int mws = p ? IOL_DC_POSIX_MAX_WRITE_TIME_SIZE : m ? IOL_DC_MPIIO_MAX_WRITE_TIME_SIZE
                    : h ? IOL_DC_H5D_MAX_WRITE_TIME_SIZE : IOL_DC_PNETCDF_VAR_MAX_WRITE_TIME_SIZE;
            int mrt = p ? IOL_DC_POSIX_F_MAX_READ_TIME : m ? IOL_DC_MPIIO_F_MAX_READ_TIME
                    : h ? IOL_DC_H5D_F_MAX_READ_TIME : IOL_DC_PNETCDF_VAR_F_MAX_READ_TIME;
            int mwt = p ? IOL_DC_POSIX_F_MAX_WRITE_TIME : m ? IOL_DC_MPIIO_F_MAX_WRITE_TIME
                    : h ? IOL_DC_H5D_F_MAX_WRITE_TIME : IOL_DC_PNETCDF_VAR_F_MAX_WRITE_TIME;
            /* the max time was already merged above (rule 1): take the size of the rank holding it */
            if (x->f[mrt] >= out->f[mrt] && (k == 0 || x->f[mrt] > 0))
                out->c[mrs] = x->c[mrs];
            if (x->f[mwt] >= out->f[mwt] && (k == 0 || x->f[mwt] > 0))
                out->c[mws] = x->c[mws];
        }
        if (mi->acc1 >= 0)
            common_merge(&out->c[mi->acc1], &out->c[mi->acc1 + 4], &x->c[mi->acc1], &x->c[mi->acc1 + 4], 1);
        if (mi->str1 >= 0)
            common_merge(&out->c[mi->str1], &out->c[mi->str1 + 4], &x->c[mi->str1], &x->c[mi->str1 + 4], 1);
        if (module == IOLENS_DARSHAN_H5D)
            common_merge(&out->c[IOL_DC_H5D_ACCESS1_ACCESS], &out->c[IOL_DC_H5D_ACCESS1_COUNT],
                         &x->c[IOL_DC_H5D_ACCESS1_ACCESS], &x->c[IOL_DC_H5D_ACCESS1_COUNT], IOL_H5D_NVALS);
        if (module == IOLENS_DARSHAN_PNETCDF_VAR)
            common_merge(&out->c[IOL_DC_PNETCDF_VAR_ACCESS1_ACCESS], &out->c[IOL_DC_PNETCDF_VAR_ACCESS1_COUNT],
                         &x->c[IOL_DC_PNETCDF_VAR_ACCESS1_ACCESS], &x->c[IOL_DC_PNETCDF_VAR_ACCESS1_COUNT],
                         IOL_H5D_NVALS);
        if (mi->fastest < 0)
            continue;
        double t = x->f[mi->tr] + x->f[mi->tw] + x->f[mi->tm];
        int64_t b = sadd(x->c[mi->br], x->c[mi->bw]);
        if (k == 0 || t < tmin) {
            tmin = t;
            fr = x->rank;
            fb = b;
        }
        if (k == 0 || t > tmax) {
            tmax = t;
            sr = x->rank;
            sb = b;
        }
        sum_t += t;
        sum_t2 += t * t;
        sum_b += (double)b;
        sum_b2 += (double)b * (double)b;
        /* DXT segments move to the reduced record */
    }
    out->file_rec_id = r[0]->file_rec_id;
    if (mi->fastest < 0)
        return;
    out->c[mi->fastest] = fr;
    out->c[mi->fastest + 1] = fb;
    out->c[mi->fastest + 2] = sr;
    out->c[mi->fastest + 3] = sb;
    out->f[mi->fastest_time] = tmin;
    out->f[mi->fastest_time + 1] = tmax;
    double dn = (double)n;
    double vt = sum_t2 / dn - (sum_t / dn) * (sum_t / dn);
    double vb = sum_b2 / dn - (sum_b / dn) * (sum_b / dn);
    out->f[mi->fastest_time + 2] = vt > 0 ? vt : 0;
    if (module != IOLENS_DARSHAN_STDIO || mi->nf > mi->fastest_time + 3)
        out->f[mi->fastest_time + 3] = vb > 0 ? vb : 0;
}

static int cmp_crec(const void *a, const void *b)
{
    const iol_crec *x = *(iol_crec *const *)a, *y = *(iol_crec *const *)b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int push_out(iol_crec ***out, size_t *n, size_t *cap, iol_crec *r)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        iol_crec **p = realloc(*out, ncap * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        *out = p;
        *cap = ncap;
    }
    (*out)[(*n)++] = r;
    return 0;
}

static int add_record(iolens_counters *c, int module, iolens_darshan_record **arr, size_t *cap,
                      iolens_darshan_record **rec)
{
    size_t n = c->nrecs[module];
    if (n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        iolens_darshan_record *p = realloc(*arr, ncap * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "counters: out of memory");
        *arr = p;
        *cap = ncap;
    }
    *rec = &(*arr)[c->nrecs[module]++];
    memset(*rec, 0, sizeof **rec);
    (*rec)->module = module;
    (*rec)->version = iolens_darshan_module_version(module);
    return 0;
}

/* DXT: one record per file and rank (never reduced), writes then reads. */
static int build_dxt(iolens_counters *c, iol_crec *r, iolens_darshan_record **arr, size_t *cap)
{
    if (r->nw + r->nr == 0 || r->module == IOLENS_DARSHAN_STDIO)
        return 0;
    int module = r->module == IOLENS_DARSHAN_POSIX ? IOLENS_DARSHAN_DXT_POSIX : IOLENS_DARSHAN_DXT_MPIIO;
    iolens_darshan_dxt_seg *segs = realloc(r->wseg, (r->nw + r->nr) * sizeof *segs);
    if (!segs)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory for DXT segments");
    if (r->nr)
        memcpy(segs + r->nw, r->rseg, r->nr * sizeof *segs);
    r->wseg = segs;
    r->capw = r->nw + r->nr;
    iolens_darshan_record *d = NULL;
    int rc = add_record(c, module, arr, cap, &d);
    if (rc < 0)
        return rc;
    d->id = r->id;
    d->rank = r->rank;
    snprintf(d->dxt.hostname, sizeof d->dxt.hostname, "%s", c->opts.hostname ? c->opts.hostname : "");
    d->dxt.write_count = (int64_t)r->nw;
    d->dxt.read_count = (int64_t)r->nr;
    d->dxt.segs = segs;
    d->dxt.has_pthread_id = 1;
    return 0;
}

static int finish(iolens_counters *c, int nranks)
{
    int rc = 0;
    iol_crec **out = NULL;
    size_t nout = 0, capout = 0;
    size_t caps[IOLENS_DARSHAN_MOD_COUNT] = {0};
    /* the standard streams' STDIO records neither read nor written are left out (std_stream) */
    size_t n = 0;
    for (size_t i = 0; i < c->ncrecs; i++) {
        iol_crec *r = c->crecs[i];
        if (r->module == IOLENS_DARSHAN_STDIO && r->file <= -2 && r->c[IOL_DC_STDIO_READS] == 0 &&
            r->c[IOL_DC_STDIO_WRITES] == 0) {
            free(r->wseg);
            free(r->rseg);
            free(r->h5acc);
            free(r);
            continue;
        }
        c->crecs[n++] = r;
    }
    c->ncrecs = n;
    if (n)
        qsort(c->crecs, n, sizeof *c->crecs, cmp_crec);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && c->crecs[j]->module == c->crecs[i]->module && c->crecs[j]->file == c->crecs[i]->file)
            j++;
        if (!c->opts.keep_per_rank && nranks > 1 && j - i == (size_t)nranks) {
            iol_crec *red = calloc(1, sizeof *red);
            if (!red) {
                rc = iol_err(IOLENS_ENOMEM, "counters: out of memory");
                goto out;
            }
            reduce(red, c->crecs + i, j - i);
            if ((rc = push_out(&out, &nout, &capout, red)) < 0) {
                free(red);
                goto out;
            }
        } else {
            for (size_t k = i; k < j; k++)
                if ((rc = push_out(&out, &nout, &capout, c->crecs[k])) < 0)
                    goto out;
        }
        i = j;
    }
    /* reduced records become owned by the table (after the originals) */
    for (size_t i = 0; i < nout; i++) {
        iol_crec *r = out[i];
        if (r->rank == -1 && (rc = push_out(&c->crecs, &c->ncrecs, &c->capcrecs, r)) < 0)
            goto out;
    }
    for (size_t i = 0; i < nout; i++) {
        iol_crec *r = out[i];
        iolens_darshan_record *d = NULL;
        if ((rc = add_record(c, r->module, &c->recs[r->module], &caps[r->module], &d)) < 0)
            goto out;
        const modinfo *mi = mod_info(r->module);
        d->id = r->id;
        d->rank = r->rank;
        d->ncounters = (size_t)mi->ni;
        d->counters = r->c;
        d->nfcounters = (size_t)mi->nf;
        d->fcounters = r->f;
        d->file_rec_id = r->file_rec_id;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = build_dxt(c, c->crecs[i], &c->recs[c->crecs[i]->module == IOLENS_DARSHAN_POSIX
                                                          ? IOLENS_DARSHAN_DXT_POSIX
                                                          : IOLENS_DARSHAN_DXT_MPIIO],
                            &caps[c->crecs[i]->module == IOLENS_DARSHAN_POSIX ? IOLENS_DARSHAN_DXT_POSIX
                                                                               : IOLENS_DARSHAN_DXT_MPIIO])) < 0)
            goto out;
    for (int api = 0; api < IOLENS_DARSHAN_MOD_COUNT; api++)
        for (size_t i = 0; i < c->nheats; i++) {
            iol_heat *h = c->heats[i];
            if (h->api != api || !h->used)
                continue;
            char name[32];
            snprintf(name, sizeof name, "heatmap:%s", api == IOLENS_DARSHAN_MPIIO ? "MPIIO" : iolens_darshan_module_name(api));
            iolens_darshan_record *d = NULL;
            if ((rc = add_record(c, IOLENS_DARSHAN_HEATMAP, &c->recs[IOLENS_DARSHAN_HEATMAP],
                                 &caps[IOLENS_DARSHAN_HEATMAP], &d)) < 0)
                goto out;
            d->id = iolens_darshan_hash(name, strlen(name), 0);
            d->rank = h->rank;
            heat_fit(h, c->max_end);
            double nbd = c->max_end / h->width + 1;
            int64_t nb = nbd >= HEAT_BINS ? HEAT_BINS : (int64_t)nbd;
            d->heatmap.bin_width = h->width;
            d->heatmap.nbins = nb > HEAT_BINS ? HEAT_BINS : nb;
            d->heatmap.write_bins = h->wbins;
            d->heatmap.read_bins = h->rbins;
            if ((rc = add_name(c, d->id, name)) < 0)
                goto out;
        }
out:
    free(out);
    return rc;
}

/* ---- job and mounts ------------------------------------------------------------------------ */

#define IOL_JOB_STR_MAX 3015 /* exe + mount lines in the 4 KiB job region */

/* File system types the runtime leaves out of the mount table. */
static int fs_skipped(const char *type)
{
    static const char *const skip[] = {"tmpfs",    "proc",     "sysfs",      "devpts",
                                       "binfmt_misc", "fusectl", "debugfs",  "securityfs",
                                       "nfsd",     "none",     "rpc_pipefs", "hugetlbfs",
                                       "cgroup",   NULL};
    for (int i = 0; skip[i]; i++)
        if (!strcmp(type, skip[i]))
            return 1;
    return 0;
}

static int mount_seen(const iolens_counters *c, const char *type, const char *path)
{
    for (size_t i = 0; i < c->nmounts; i++)
        if (!strcmp(c->mounts[i].path, path) && !strcmp(c->mounts[i].fs_type, type))
            return 1;
    return 0;
}

static int set_mounts(iolens_counters *c)
{
    char *text = NULL;
    size_t tlen = 0;
    int from_proc = !c->opts.mounts;
    if (from_proc) {
        FILE *f = fopen("/proc/self/mounts", "r");
        if (f) {
            FILE *m = open_memstream(&text, &tlen);
            char line[4096];
            while (m && fgets(line, sizeof line, f)) {
                char dev[1024], path[1024], type[256];
                if (sscanf(line, "%1023s %1023s %255s", dev, path, type) == 3 && !fs_skipped(type))
                    fprintf(m, "%s\t%s\n", type, path);
            }
            if (m)
                fclose(m);
            fclose(f);
        }
    } else {
        text = strdup(c->opts.mounts);
    }
    if (!text)
        text = strdup("");
    if (!text)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    size_t nl = 1;
    for (const char *p = text; *p; p++)
        nl += *p == '\n';
    c->mounts = calloc(nl, sizeof *c->mounts);
    if (!c->mounts) {
        free(text);
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    }
    c->mount_strings = text;
    size_t budget = strlen(c->exe);
    for (char *save = NULL, *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(ln, '\t');
        if (!tab || !tab[1] || tab == ln)
            continue;
        *tab = '\0';
        if (mount_seen(c, ln, tab + 1))
            continue;
        size_t need = strlen(ln) + strlen(tab + 1) + 2;
        if (budget + need > IOL_JOB_STR_MAX)
            break;
        budget += need;
        c->mounts[c->nmounts].fs_type = ln;
        c->mounts[c->nmounts].path = tab + 1;
        c->nmounts++;
    }
    return 0;
}

/* The command line as the Darshan runtime writes it as "exe". An MPI process's from the
 * arguments MPI_Init is given: joined by single spaces. Any other's from /proc/self/cmdline,
 * read with fgets and each NUL made a space: every argument followed by a space, up to an
 * empty argument (two NULs end it) or a newline (darshan-util ends the exe there). Returns
 * the length written into buf (n > 0, NUL-terminated). */
static size_t darshan_exe(const iolens_trace_job *j, int mpi, char *buf, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < j->argv_len && len + 1 < n;) {
        const char *a = j->argv + i;
        size_t l = strnlen(a, j->argv_len - i);
        if (!mpi && !l && i)
            break;
        const char *nl = mpi ? NULL : memchr(a, '\n', l);
        size_t take = nl ? (size_t)(nl - a) : l;
        if (take > n - 1 - len)
            take = n - 1 - len;
        memcpy(buf + len, a, take);
        len += take;
        i += l + 1;
        if (nl)
            break;
        if ((!mpi || i < j->argv_len) && len + 1 < n)
            buf[len++] = ' ';
    }
    buf[len] = 0;
    return len;
}

/* What an iolens trace recorded of the job (format 1.3), where the options leave it unset: the
 * first process's command line as "exe" (rank 0 of an MPI job; darshan_exe), its user, and the
 * batch system's job id, else that process's pid (the Darshan runtime's rule: an integer from
 * the job id variable, else the pid). line holds the command. */
static void job_from_trace(iolens_counters *c, iolens_evsource *trace, char *line, size_t n)
{
    int nr = iolens_evsource_nranks(trace);
    for (int r = 0; r < nr; r++) {
        iolens_trace_job j;
        iolens_trace_proc pi;
        if (iolens_trace_proc_job(trace, r, &j) != 1 || iolens_trace_proc_info(trace, r, &pi) < 0)
            continue;
        if (!c->opts.exe && j.argv && darshan_exe(&j, pi.mpi_rank >= 0, line, n))
            c->opts.exe = line;
        if (!c->opts.uid && j.uid > 0)
            c->opts.uid = j.uid;
        if (!c->opts.jobid) {
            long long id;
            c->opts.jobid = j.jobid && sscanf(j.jobid, "%lld", &id) == 1 && id == (int)id ? id : pi.pid;
        }
        return;
    }
}

static int set_job(iolens_counters *c, iolens_evsource *src, iolens_evsource *trace, int nranks)
{
    char line[IOL_JOB_STR_MAX + 1];
    const char *kind = iolens_evsource_kind(trace);
    if (kind && !strcmp(kind, "iolens"))
        job_from_trace(c, trace, line, sizeof line);
    const char *exe = c->opts.exe ? c->opts.exe : "<unknown>";
    size_t el = strlen(exe);
    if (el > IOL_JOB_STR_MAX - 12)
        el = IOL_JOB_STR_MAX - 12;
    c->exe = malloc(el + 13);
    if (!c->exe)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    memcpy(c->exe, exe, el);
    strcpy(c->exe + el, el < strlen(exe) ? "<TRUNCATED>" : "");
    for (char *p = c->exe; *p; p++)
        if (*p == '\n')
            *p = ' '; /* a newline would start the mount table */
    iolens_darshan_job *j = &c->job;
    double st = iolens_evsource_start_time(src);
    if (!(st > 0) || st > 1e12)
        st = 0;
    double en = st + c->max_end;
    if (c->win_ranks) { /* the runtime's job: from the first MPI_Init's end to its last record */
        en = st + (c->win_end > c->win_from ? c->win_end : c->win_from);
        st += c->win_from;
    }
    j->uid = c->opts.uid;
    j->jobid = c->opts.jobid;
    j->nprocs = nranks;
    j->start_time_sec = (int64_t)st;
    j->start_time_nsec = (int64_t)((st - (double)j->start_time_sec) * 1e9);
    j->end_time_sec = (int64_t)en;
    j->end_time_nsec = (int64_t)((en - (double)j->end_time_sec) * 1e9);
    j->run_time = ((double)j->end_time_sec + (double)j->end_time_nsec / 1e9) -
                  ((double)j->start_time_sec + (double)j->start_time_nsec / 1e9);
    snprintf(j->metadata, sizeof j->metadata, "lib_ver=iolens\nsource=%s\n", iolens_evsource_kind(src));
    j->exe = c->exe;
    c->opts.exe = NULL; /* (line, which it may point to, ends here) */
    return set_mounts(c);
}

/* The window of what the runtime records on an MPI rank: it starts when MPI_Init (or
 * MPI_Init_thread) returns and ends when MPI_Finalize starts; its timestamps count from the
 * start (Darshan's runtime initialises in its MPI_Init wrapper and shuts down in its
 * MPI_Finalize one). *from: the end of the rank's MPI_Init in the source's times, found by
 * reading the rank up to it; -1 when the rank is no MPI process of an iolens trace, or has no
 * MPI_Init (a trace without the MPI layer): then every call counts, at the source's times. */
static int mpi_window(iolens_counters *c, iolens_evsource *src, iolens_evsource *trace, int rank, double *from)
{
    *from = -1;
    if (c->opts.all_calls)
        return 0;
    const char *kind = iolens_evsource_kind(trace);
    iolens_trace_proc pi;
    if (!kind || strcmp(kind, "iolens") || iolens_trace_proc_info(trace, rank, &pi) < 0 || pi.mpi_rank < 0)
        return 0; /* (a Recorder trace starts in MPI_Init, as the runtime does) */
    int rc = iolens_evsource_rewind(src, rank);
    iolens_event e;
    while (rc >= 0 && (rc = iolens_evsource_next(src, rank, &e)) > 0)
        if (e.op == IOLENS_OP_INIT && e.layer == IOLENS_LAYER_MPI) {
            *from = e.tend > 0 ? e.tend : 0;
            break;
        }
    return rc < 0 ? rc : 0;
}

/* A call of an MPI rank outside the runtime's window (mpi_window): not counted, and a file it
 * opened before MPI_Init is one the runtime never saw opened, whose descriptor's calls it does not
 * count after either (as a descriptor the process had when it started: inherited). */
static int before_window(iolens_counters *c, const iolens_event *e, int rank)
{
    if (e->op != IOLENS_OP_OPEN || (e->flags & IOLENS_EVF_FAILED) || e->file < 0 ||
        (e->layer != IOLENS_LAYER_POSIX && e->layer != IOLENS_LAYER_STDIO))
        return 0;
    iolens_event note = *e;
    note.func = "iolens_fd_at_start";
    note.rank = rank;
    int rc = inherited(c, &note);
    return rc < 0 ? rc : 0;
}

/* ---- public ---------------------------------------------------------------------------------- */

int iolens_counters_compute(iolens_evsource *src, const iolens_counters_opts *opts,
                            iolens_counters **out)
{
    int rc;
    ctab t = {0};
    if (!src || !out)
        return iol_err(IOLENS_EINVAL, "iolens_counters_compute: NULL argument");
    *out = NULL;
    iolens_counters *c = calloc(1, sizeof *c);
    if (!c)
        return iol_err(IOLENS_ENOMEM, "counters: out of memory");
    if (opts)
        c->opts = *opts;
    else
        iolens_counters_opts_init(&c->opts);
    if (c->opts.file_alignment < 0)
        c->opts.file_alignment = 0;
    int nranks = iolens_evsource_nranks(src);
    if (nranks < 0) {
        rc = nranks;
        goto fail;
    }
    const iolens_file *files = NULL;
    size_t nfiles = 0;
    if ((rc = iolens_evsource_files(src, &files, &nfiles)) < 0)
        goto fail;
    iolens_evsource *trace = c->opts.trace ? c->opts.trace : src;
    const char *kind = iolens_evsource_kind(trace);
    int is_iolens = kind && !strcmp(kind, "iolens"); /* (the others record no descriptor) */
    for (int rank = 0; rank < nranks; rank++) {
        rank_start(c);
        double from = -1, shift = 0; /* the rank's window (mpi_window), -1: none */
        int done = 0;
        if ((rc = mpi_window(c, src, trace, rank, &from)) < 0 || (rc = iolens_evsource_rewind(src, rank)) < 0)
            goto fail;
        if (from >= 0) {
            shift = from;
            if (!c->win_ranks++ || from < c->win_from)
                c->win_from = from;
        }
        iolens_event e;
        while ((rc = iolens_evsource_next(src, rank, &e)) > 0) {
            c->events++;
            if (from >= 0) { /* an MPI rank: only what the runtime saw, at its times */
                if (e.op == IOLENS_OP_FINALIZE && e.layer == IOLENS_LAYER_MPI)
                    done = 1;
                if ((e.tstart < from || done) && !iolens_event_is_fd_note(&e)) {
                    if ((rc = before_window(c, &e, rank)) < 0)
                        goto fail;
                    continue;
                }
                if (e.tend > c->win_end)
                    c->win_end = e.tend;
                e.tstart -= shift;
                e.tend -= shift;
                if (e.tstart < 0)
                    e.tstart = 0;
                if (e.tend < e.tstart)
                    e.tend = e.tstart;
            }
            int32_t ev_fd = -1; /* (left as it is when the call has none) */
            int64_t a[4];
            /* (a POSIX call's only after a fileno() of a standard stream: see std_stream) */
            if (is_iolens && c->opts.std_streams &&
                (e.layer == IOLENS_LAYER_STDIO ||
                 (e.layer == IOLENS_LAYER_POSIX && (c->posix_std[0] | c->posix_std[1] | c->posix_std[2]))) &&
                iolens_trace_last_args(trace, rank, &ev_fd, a) < 0)
                ev_fd = -1;
            const int64_t *args = NULL; /* (an MPI_File_open's: mpiio_event) */
            if (is_iolens && e.layer == IOLENS_LAYER_MPIIO && e.op == IOLENS_OP_OPEN &&
                iolens_trace_last_args(trace, rank, &ev_fd, a) == 0)
                args = a;
            int64_t ret = e.ret; /* (the call's own result, before it is made the bytes moved) */
            iolens_trace_stdio_moved(trace, rank, &e);
            int counted = !is_iolens || stdio_counted(&e, ret);
            if (is_iolens && e.layer == IOLENS_LAYER_STDIO && !(e.flags & IOLENS_EVF_FAILED) && e.func &&
                !strcmp(e.func, "getw"))
                e.ret = e.size; /* the runtime counts a word at the end of the file too (no error) */
            const char *path = file_path(files, nfiles, e.file);
            e.rank = rank;
            if ((rc = e.layer == IOLENS_LAYER_HDF5      ? h5_event(c, &t, src, rank, &e, path)
                       : e.layer == IOLENS_LAYER_PNETCDF ? pnc_event(c, &t, src, rank, &e, path)
                                                         : on_event(c, &t, &e, ev_fd, args, counted, path)) < 0)
                goto fail;
            if (e.op == IOLENS_OP_META && e.layer == IOLENS_LAYER_POSIX && e.func && !strcmp(e.func, "rename")) {
                const char *to_path;
                int64_t to = rename_target(trace, rank, &e, is_iolens, files, nfiles, &to_path);
                if ((rc = posix_rename(c, &t, &e, to, to_path)) < 0)
                    goto fail;
            }
        }
        if (rc < 0)
            goto fail;
        if (c->opts.progress)
            c->opts.progress(c->opts.progress_ctx, rank + 1, nranks);
    }
    if ((rc = finish(c, nranks)) < 0)
        goto fail;
    if ((rc = set_job(c, src, trace, nranks)) < 0)
        goto fail;
    free(t.slot);
    *out = c;
    return 0;
fail:
    free(t.slot);
    iolens_counters_free(c);
    return rc;
}

void iolens_counters_free(iolens_counters *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ncrecs; i++) {
        free(c->crecs[i]->wseg);
        free(c->crecs[i]->rseg);
        free(c->crecs[i]->h5acc);
        free(c->crecs[i]);
    }
    free(c->crecs);
    for (size_t i = 0; i < c->nheats; i++)
        free(c->heats[i]);
    free(c->heats);
    free(c->heat_slot);
    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        free(c->recs[m]);
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    free(c->names);
    free(c->name_ids);
    free(c->name_set);
    free(c->inh);
    free(c->inh_file);
    free(c->exe);
    free(c->mounts);
    free(c->mount_strings);
    free(c);
}

const iolens_darshan_job *iolens_counters_job(const iolens_counters *c) { return &c->job; }
size_t iolens_counters_mount_count(const iolens_counters *c) { return c->nmounts; }
const iolens_darshan_mount *iolens_counters_mount_at(const iolens_counters *c, size_t i)
{
    return i < c->nmounts ? &c->mounts[i] : NULL;
}
size_t iolens_counters_count(const iolens_counters *c, int module)
{
    return module >= 0 && module < IOLENS_DARSHAN_MOD_COUNT ? c->nrecs[module] : 0;
}
const iolens_darshan_record *iolens_counters_record(const iolens_counters *c, int module, size_t i)
{
    if (module < 0 || module >= IOLENS_DARSHAN_MOD_COUNT || i >= c->nrecs[module])
        return NULL;
    return &c->recs[module][i];
}
const char *iolens_counters_name(const iolens_counters *c, uint64_t id)
{
    if (!c->name_set_cap)
        return NULL;
    size_t h = (size_t)(id * 0x9e3779b97f4a7c15ull >> 20) & (c->name_set_cap - 1);
    while (c->name_set[h]) {
        if (c->name_ids[c->name_set[h] - 1] == id)
            return c->names[c->name_set[h] - 1];
        h = (h + 1) & (c->name_set_cap - 1);
    }
    return NULL;
}
uint64_t iolens_counters_events(const iolens_counters *c) { return c->events; }
size_t iolens_counters_name_count(const iolens_counters *c) { return c->nnames; }
