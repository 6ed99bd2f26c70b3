/*
 * Global view (FBench section 3.2): event stream -> replay config.
 *  1. group reads/writes by transfer size, operation, file and rank;
 *  2. merge them within open-close sessions;
 *  3. group by access type: a file used by several ranks is shared; files
 *     used by one rank each with the same shape on every rank are one
 *     file-per-process entry;
 *  4. merge identical consecutive sessions into total_repeats.
 * Only application-level calls (depth 0) count: an MPI-IO call is replayed
 * as MPI-IO, not as the POSIX calls it made.
 *
 * By default the files Darshan leaves out (iolens_counters_path_excluded:
 * /etc/ /proc/ /sys/ /usr/ ... and /dev/) are left out here too, except
 * /dev/shm/, a RAM file system where applications keep data, and the files
 * of the MPI runtime's session directory (<tmp>/ompi.<host>.<uid>/...). Then
 * the processes left without any read or write are dropped if they are not
 * MPI ranks (an Open MPI singleton's ORTE/PMIx helper, which reads /proc, /sys
 * and /etc and writes its contact file), and the remaining ranks are numbered
 * from 0 in their trace order.
 * MPI ranks always stay: they open shared files and take part in collective
 * calls even when they move no bytes themselves.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/counters.h"
#include "iolens/trace.h"
#include "replay/config.h"
#include "replay/exec.h"
#include "util/error.h"

/* Longest recorded gap between two calls that always counts as the program's own time per call.
 * A longer gap is a pause (a compute or communication phase, not per-call work) when it is also
 * far above the run's usual gap (gap_limit): fio's filestat job on ext4 spends 0.57 ms a file of
 * its own and 8% of its files more than 1 ms, and a fixed limit took 0.11 ms a file off its pace
 * (replayed 1.3x as fast). */
#define GV_GAP_MAX 1e-3
/* and the longest that can be: a gap of 0.54 s or more is a pause whatever the run's pace (a
 * config's gap_seconds is at most 1 s; a program that writes every few seconds is in phases) */
#define GV_GAP_CAP 0.5

/* Gaps by power of two of their nanoseconds: bucket b >= 1 holds [2^(b-1), 2^b) ns. */
#define GV_HB 48
struct gap_hist {
    double sum[GV_HB];
    int64_t n[GV_HB];
};
/* buckets from GV_HB_MED on can hold a median that raises the limit above GV_GAP_MAX; buckets
 * above GV_HB_KEEP hold gaps above GV_GAP_MAX */
#define GV_HB_MED 16
#define GV_HB_KEEP 20

static int gap_bucket(double gap)
{
    double ns = gap * 1e9;
    uint64_t v = ns < 1 ? 0 : ns > 1e18 ? UINT64_MAX : (uint64_t)ns;
    int b = v ? 64 - __builtin_clzll(v) : 0;
    return b < GV_HB ? b : GV_HB - 1;
}

static void gap_hist_add(struct gap_hist *h, double gap)
{
    int b = gap_bucket(gap);
    h->sum[b] += gap;
    h->n[b]++;
}

/* The longest gap of a run that is the program's own time per call: GV_GAP_MAX, or 16 times the
 * run's median gap when that is longer. h: the run's gaps; nlow more of them below GV_HB_MED. */
static double gap_limit(const struct gap_hist *h, int64_t nlow)
{
    int64_t n = nlow, c = nlow;
    for (int b = 0; b < GV_HB; b++)
        n += h->n[b];
    int med = 0;
    while (med < GV_HB - 1 && (c += h->n[med]) * 2 < n)
        med++;
    double limit = ldexp(16.0, med) * 1e-9; /* 16 x the median bucket's upper bound */
    limit = limit < GV_GAP_CAP ? limit : GV_GAP_CAP;
    return limit > GV_GAP_MAX ? limit : GV_GAP_MAX;
}

static int gap_kept(int b, double limit) { return b == 0 || ldexp(1.0, b - 1) * 1e-9 <= limit; }

/* the run's gaps but its pauses */
static double gap_hist_total(const struct gap_hist *h)
{
    double limit = gap_limit(h, 0), sum = 0;
    for (int b = 0; b < GV_HB; b++)
        if (gap_kept(b, limit))
            sum += h->sum[b];
    return sum;
}

struct gv_chunk {
    int64_t size, count;
    double gsum; /* gaps before this size's transfers (the program's own time per call) */
    int64_t gn;
    struct gap_hist *lg; /* its gaps above GV_HB_KEEP, until the session's limit is known */
};


#define GV_NBUFPOS 4

/* What an HDF5 program set for a file (its access list before H5Fcreate/H5Fopen, its datasets'
 * chunks): the properties of the file's hdf5 steps. */
struct gv_h5prop {
    int64_t chunk, align, align_thr;
    int coll_md;
};

struct gv_sess {
    int64_t file;
    int rank, op, layer, coll;
    int64_t syncs; /* fsync / MPI_File_sync calls in a write session */
    /* where in a page the transfers' buffers started (iolens_event.buf_pgoff1, 0: not recorded):
     * the first GV_NBUFPOS positions seen and the bytes moved from each */
    uint32_t bufpos[GV_NBUFPOS];
    int64_t bufbytes[GV_NBUFPOS];
    /* access order of the transfers (offsets as resolved by the trace reader) */
    int64_t nx, nconsec, last_end, run_start, run_len, run_k, run_d, nruns;
    int runs_regular, off_unknown;
    int prealloc; /* the trace reserved the file's space (fallocate, posix_fallocate) */
    int cold;     /* read: the session dropped the file's cached pages first (posix_fadvise DONTNEED) */
    int random;   /* the session's descriptor was advised POSIX_FADV_RANDOM: no read-ahead */
    int64_t nseeked, nimplicit; /* transfers after an lseek(); transfers at the file pointer */
    double t0;
    /* the session's gaps: those of GV_HB_MED and above (NULL: none yet), and how many below */
    struct gap_hist *gh;
    int64_t nlow;
    struct gv_chunk *ch;
    size_t nch, cap;
    struct gv_h5prop h5; /* the library level: the file's properties */
};

struct gv {
    struct gv_sess *s;
    size_t n, cap;
    /* per file, for a trace without data: GV_MD_* bits of what was done to it */
    unsigned char *md;
    /* the library level: the program's own HDF5 calls make hdf5 steps (NULL: the I/O level) */
    struct gv_h5prop *h5;
    int64_t *h5file; /* per file: the HDF5 file a dataset ("FILE:/d") belongs to, -1 none */
    const int64_t *canon; /* per file: the one its calls are counted on (iol_replay_same_files) */
};
enum { GV_MD_OPEN = 1, GV_MD_STAT = 2, GV_MD_UNLINK = 4, GV_MD_DATA = 8 };
/* at least this many small files of one folder make a metadata step (collapse_small_files,
 * metadata_only), each of at most GV_META_BYTES */
#define GV_META_MIN 16
#define GV_META_BYTES (64 * 1024)

static int gv_new(struct gv *g, int64_t file, int rank, int op, int layer, double t0, size_t *idx)
{
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 64;
        struct gv_sess *ns = realloc(g->s, nc * sizeof *ns);
        if (!ns)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        g->s = ns;
        g->cap = nc;
    }
    struct gv_sess *s = &g->s[g->n];
    memset(s, 0, sizeof *s);
    s->file = file;
    s->rank = rank;
    s->op = op;
    s->layer = layer;
    s->t0 = t0;
    *idx = g->n++;
    return 0;
}

static int gv_add(struct gv_sess *s, int64_t size, int coll, double gap)
{
    s->coll |= coll;
    size_t i = 0;
    while (i < s->nch && s->ch[i].size != size)
        i++;
    if (i == s->nch) {
        if (s->nch == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 4;
            struct gv_chunk *n = realloc(s->ch, nc * sizeof *n);
            if (!n)
                return iol_err(IOLENS_ENOMEM, "out of memory");
            s->ch = n;
            s->cap = nc;
        }
        s->ch[s->nch++] = (struct gv_chunk){size, 0, 0, 0, NULL};
    }
    struct gv_chunk *c = &s->ch[i];
    c->count++;
    if (isnan(gap))
        return 0;
    int b = gap_bucket(gap);
    if (b >= GV_HB_MED && !s->gh && !(s->gh = calloc(1, sizeof *s->gh)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    if (b >= GV_HB_MED)
        gap_hist_add(s->gh, gap);
    else
        s->nlow++;
    if (b <= GV_HB_KEEP) { /* at most GV_GAP_MAX's bucket: always the program's own time */
        c->gsum += gap;
        c->gn++;
        return 0;
    }
    if (!c->lg && !(c->lg = calloc(1, sizeof *c->lg)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    gap_hist_add(c->lg, gap);
    return 0;
}

/* The session's gaps above GV_GAP_MAX that are its pace, not its pauses, added to its chunks. */
static void gv_fold_gaps(struct gv_sess *s)
{
    if (!s->gh)
        return;
    double limit = gap_limit(s->gh, s->nlow);
    for (size_t i = 0; i < s->nch; i++) {
        struct gv_chunk *c = &s->ch[i];
        for (int b = 0; c->lg && b < GV_HB; b++)
            if (c->lg->n[b] && gap_kept(b, limit)) {
                c->gsum += c->lg->sum[b];
                c->gn += c->lg->n[b];
            }
        free(c->lg);
        c->lg = NULL;
    }
    free(s->gh);
    s->gh = NULL;
}

static void gv_sess_free(struct gv_sess *s)
{
    for (size_t i = 0; i < s->nch; i++)
        free(s->ch[i].lg);
    free(s->ch);
    free(s->gh);
}

static void note_bufpos(struct gv_sess *s, uint32_t pos, int64_t bytes)
{
    for (int i = 0; i < GV_NBUFPOS; i++)
        if (s->bufpos[i] == pos || !s->bufpos[i]) {
            s->bufpos[i] = pos;
            s->bufbytes[i] += bytes;
            return;
        }
}

/* Order of a session's transfers: runs of consecutive transfers, the distance between run starts. */
static void note_order(struct gv_sess *s, const iolens_event *e, int after_seek)
{
    if (e->flags & IOLENS_EVF_OFFSET_UNKNOWN || e->offset < 0)
        s->off_unknown = 1;
    s->nseeked += after_seek;
    s->nimplicit += (e->flags & IOLENS_EVF_OFFSET_IMPLICIT) != 0;
    if (s->nx == 0) {
        s->run_start = e->offset;
        s->run_len = 1;
        s->runs_regular = 1;
    } else if (e->offset == s->last_end) {
        s->nconsec++;
        s->run_len++;
    } else {
        if (!s->run_k)
            s->run_k = s->run_len;
        else if (s->run_len != s->run_k)
            s->runs_regular = 0;
        int64_t d = e->offset - s->run_start;
        if (!s->run_d)
            s->run_d = d;
        else if (d != s->run_d)
            s->runs_regular = 0;
        s->nruns++;
        s->run_start = e->offset;
        s->run_len = 1;
    }
    s->last_end = e->offset + e->size;
    s->nx++;
}

/* Config access order of a session used by nr ranks of one file (1: its own file). Strided only
 * as the config defines it (shared file, IOR -b/-s: runs of k transfers, the next run of the
 * same rank nr * k transfers further); random when fewer than half the transfers follow their
 * predecessor; otherwise sequential (also when an offset is unknown or sizes are mixed). */
static int session_access(const struct gv_sess *s, int nr, int64_t *block)
{
    if (s->off_unknown || s->nch != 1 || s->nx < 4)
        return RP_SEQUENTIAL;
    int64_t size = s->ch[0].size;
    if (s->nruns >= 1 && s->runs_regular && s->run_len <= s->run_k && nr > 1 &&
        s->run_d == (int64_t)nr * s->run_k * size) {
        *block = s->run_k * size;
        return RP_STRIDED;
    }
    if (2 * s->nconsec < s->nx - 1)
        return RP_RANDOM;
    return RP_SEQUENTIAL;
}

/* The buffer position that moved the most bytes (the first seen on a tie), 0: none recorded. */
static uint32_t main_bufpos(const struct gv_sess *s)
{
    int best = 0;
    for (int i = 1; i < GV_NBUFPOS && s->bufpos[i]; i++)
        if (s->bufbytes[i] > s->bufbytes[best])
            best = i;
    return s->bufpos[best];
}

static int same_chunks(const struct gv_sess *a, const struct gv_sess *b)
{
    if (a->nch != b->nch)
        return 0;
    for (size_t i = 0; i < a->nch; i++)
        if (a->ch[i].size != b->ch[i].size || a->ch[i].count != b->ch[i].count)
            return 0;
    return a->syncs == b->syncs && a->random == b->random;
}

/* Open sessions of one rank, per file: index+1 of the write and read session (0: none). */
struct gv_open {
    size_t w, r;
    int open;
    double t0;
    int layer;
    int seek_pending; /* a POSIX lseek() since the last transfer */
    int dropped;      /* posix_fadvise(DONTNEED) in this session before its first read */
    int random;       /* the last posix_fadvise on the descriptor said POSIX_FADV_RANDOM */
    int inherited;    /* opened before the process started (iolens_fd_at_start), not since */
};

/* The library level: one of the program's own HDF5 calls as the event the sessions are made of,
 * in place: H5Fcreate/H5Fopen an open and H5Fclose a close of the file, H5Dwrite/H5Dread a
 * transfer of the selection's bytes on the dataset's file (collective when the transfer list
 * said so). The access-list settings and the datasets' chunks go to the file's properties.
 * 1: e is such an event now; 0: not one (a property noted, or another call); <0 an error. */
/* e (the event just read of rank r) removes a file: unlink, remove, unlinkat without
 * AT_REMOVEDIR (rm -r removes its directories so) */
static int unlinks_file(iolens_evsource *src, int r, const iolens_event *e)
{
    if (e->op != IOLENS_OP_META || !e->func)
        return 0;
    if (!strcmp(e->func, "unlinkat")) {
        int32_t fd;
        int64_t a[4];
        return strcmp(iolens_evsource_kind(src), "iolens") || iolens_trace_last_args(src, r, &fd, a) < 0 ||
               !(a[3] & AT_REMOVEDIR);
    }
    return !strcmp(e->func, "unlink") || !strcmp(e->func, "remove");
}

static int h5_event(struct gv *g, iolens_evsource *src, int r, iolens_event *e, size_t nfiles, struct gv_h5prop *fapl)
{
    int32_t fd;
    int64_t a[4];
    const char *fn = e->func ? e->func : "";
    if ((e->flags & IOLENS_EVF_FAILED) || iolens_trace_last_args(src, r, &fd, a) < 0)
        return 0;
    if (!strcmp(fn, "H5Pset_alignment")) {
        fapl->align_thr = a[1] > 0 ? a[1] : 1;
        fapl->align = a[2];
        return 0;
    }
    if (!strcmp(fn, "H5Pset_all_coll_metadata_ops") || !strcmp(fn, "H5Pset_coll_metadata_write")) {
        fapl->coll_md |= a[2] != 0;
        return 0;
    }
    if (e->file < 0 || (uint64_t)e->file >= nfiles)
        return 0;
    int64_t f = g->h5file[e->file] >= 0 ? g->h5file[e->file] : e->file;
    if (!strcmp(fn, "H5Fcreate") || !strcmp(fn, "H5Fopen")) {
        g->h5[f].align = fapl->align;
        g->h5[f].align_thr = fapl->align_thr;
        g->h5[f].coll_md = fapl->coll_md;
        e->op = IOLENS_OP_OPEN;
    } else if (!strcmp(fn, "H5Fclose")) {
        e->op = IOLENS_OP_CLOSE;
    } else if (!strcmp(fn, "H5Dcreate2") || !strcmp(fn, "H5Dcreate1")) {
        int nd;
        int64_t dims[5];
        if (iolens_trace_last_chunk(src, r, &nd, dims) == 1 && nd >= 1 && nd <= 5 && a[2] > 0) {
            int64_t b = a[2];
            for (int i = 0; i < nd && b > 0; i++)
                b = dims[i] > 0 && b <= INT64_MAX / dims[i] ? b * dims[i] : -1;
            if (b > g->h5[f].chunk)
                g->h5[f].chunk = b; /* the file's largest chunk */
        }
        return 0;
    } else if (!strcmp(fn, "H5Dwrite") || !strcmp(fn, "H5Dread")) {
        if (a[1] < 0)
            return 0;
        e->size = a[1];
        e->offset = -1; /* dataset coordinates: the step lays its transfers out itself */
        e->flags |= IOLENS_EVF_OFFSET_UNKNOWN;
        if (a[3] == 1)
            e->flags |= IOLENS_EVF_COLLECTIVE;
        else
            e->flags &= ~(uint32_t)IOLENS_EVF_COLLECTIVE;
    } else {
        return 0;
    }
    e->file = f;
    return 1;
}

static const iolens_file *h5_files; /* for cmp_path (qsort has no context argument) */
static int cmp_path(const void *a, const void *b)
{
    const char *x = h5_files[*(const int64_t *)a].path, *y = h5_files[*(const int64_t *)b].path;
    return strcmp(x ? x : "", y ? y : "");
}

/* The library level's tables: per file its properties, and for a dataset ("FILE:/d", an attribute
 * "FILE:/obj@a") the index of FILE. */
static int h5_tables(struct gv *g, const iolens_file *files, size_t nfiles)
{
    g->h5 = calloc(nfiles ? nfiles : 1, sizeof *g->h5);
    g->h5file = malloc((nfiles ? nfiles : 1) * sizeof *g->h5file);
    int64_t *by = malloc((nfiles ? nfiles : 1) * sizeof *by);
    if (!g->h5 || !g->h5file || !by) {
        free(by);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nfiles; i++) {
        by[i] = (int64_t)i;
        g->h5file[i] = -1;
        g->h5[i].align_thr = 1;
    }
    h5_files = files;
    qsort(by, nfiles, sizeof *by, cmp_path);
    for (size_t i = 0; i < nfiles; i++) {
        const char *p = files[i].path, *c = p ? strstr(p, ":/") : NULL;
        if (!c)
            continue;
        size_t lo = 0, hi = nfiles, n = (size_t)(c - p);
        while (lo < hi) { /* the file named by the part before ":/" */
            size_t mid = (lo + hi) / 2;
            const char *q = files[by[mid]].path ? files[by[mid]].path : "";
            int d = strncmp(q, p, n);
            if (d == 0 && q[n])
                d = 1;
            if (d < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nfiles && files[by[lo]].path && !strncmp(files[by[lo]].path, p, n) && !files[by[lo]].path[n])
            g->h5file[i] = by[lo];
    }
    free(by);
    return 0;
}

/* excl[f]: 1 file f is left out; its reads and writes set it to 2 */
static int collect(struct gv *g, iolens_evsource *src, int nranks, size_t nfiles, unsigned char *excl)
{
    struct gv_open *open = calloc(nfiles ? nfiles : 1, sizeof *open);
    unsigned char *pre = calloc(nfiles ? nfiles : 1, 1);
    if (!open || !pre) {
        free(open);
        free(pre);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    int rc = 0;
    const int iolens_kind = !strcmp(iolens_evsource_kind(src), "iolens"); /* return values are bytes moved */
    for (int r = 0; r < nranks && rc == 0; r++) {
        memset(open, 0, (nfiles ? nfiles : 1) * sizeof *open);
        iolens_event e;
        int got = iolens_evsource_rewind(src, r);
        if (got == IOLENS_EUNSUPPORTED) /* a source read once, from its start */
            got = 0;
        /* the program's time between its calls: from the end of the rank's previous call to
         * the start of a transfer, when that call was a transfer, seek or sync of the same
         * file, with the time before the seeks and syncs between two transfers; less the
         * tracer's own time after the previous call (its self_after). Calls the config does
         * not replay (system files, no file: dd's reads of /dev/zero) are part of the gap. */
        double prev_end = -1, pend = 0, prev_self = 0; /* prev_self: the tracer's time after that call */
        int64_t prev_file = -1;
        struct gv_h5prop fapl = {0, 0, 1, 0}; /* the program's last access-list settings */
        while (got >= 0 && (got = iolens_evsource_next(src, r, &e)) > 0) {
            if (e.file >= 0 && (uint64_t)e.file < nfiles)
                e.file = g->canon[e.file];
            if (g->h5) { /* the library level: HDF5's own calls are not the program's */
                if (e.lib_depth > 0)
                    continue;
                if (e.layer == IOLENS_LAYER_HDF5 && e.depth == 0 && h5_event(g, src, r, &e, nfiles, &fapl) <= 0)
                    continue; /* a property, or a call that is no open, close or transfer */
            }
            if (e.depth != 0 || (iolens_layer_is_library(e.layer) && e.layer != IOLENS_LAYER_HDF5))
                continue; /* a library call: its MPI-IO/POSIX calls are replayed */
            if (e.layer == IOLENS_LAYER_HDF5 && !g->h5)
                continue;
            double gap = NAN; /* NAN: no time of the program's to count before this call */
            if (prev_file >= 0 && prev_file == e.file && prev_end >= 0 && e.tstart >= prev_end &&
                (e.op == IOLENS_OP_WRITE || e.op == IOLENS_OP_READ || e.op == IOLENS_OP_SEEK ||
                 e.op == IOLENS_OP_SYNC)) {
                /* not clamped at 0: a gap shorter than the trace's resolution (1 us by default)
                 * is recorded as 0 or one unit, and less the tracer's time a 0 goes below 0;
                 * clamping each would add to the mean what the rounding took off (fio's 4 KiB
                 * writes on tmpfs: 0.3-0.4 us a write). Pauses are left out per session
                 * (gv_fold_gaps); a negative mean is 0 (shared_chunks). */
                gap = e.tstart - prev_end - prev_self;
                if (e.op == IOLENS_OP_SEEK || e.op == IOLENS_OP_SYNC) {
                    /* the program's time before a seek or sync (fio's between a write and
                     * its fsync) is part of the time it spends per transfer */
                    pend += gap;
                    gap = NAN;
                } else {
                    gap += pend;
                    pend = 0;
                }
            } else if (e.file >= 0 && e.file != prev_file) {
                pend = 0;
            }
            if (e.file >= 0 && ((uint64_t)e.file >= nfiles || !excl[e.file])) {
                prev_end = e.tend;
                prev_self = e.self_after;
                prev_file = (e.op == IOLENS_OP_WRITE || e.op == IOLENS_OP_READ || e.op == IOLENS_OP_SEEK ||
                             e.op == IOLENS_OP_SYNC) && !(e.flags & IOLENS_EVF_FAILED) ? e.file : -1;
            } else {
                prev_self += e.self_after; /* part of the gap, and so is the tracer's time after it */
            }
            if ((e.flags & IOLENS_EVF_FAILED) || e.file < 0)
                continue;
            if (iolens_kind && e.layer == IOLENS_LAYER_STDIO && (e.op == IOLENS_OP_READ || e.op == IOLENS_OP_WRITE)) {
                iolens_trace_stdio_moved(src, r, &e); /* fgets(buf, 4096) moves a line, not 4096 bytes */
                if (e.ret >= 0 && e.ret < e.size)
                    e.size = e.ret;
            } else if (iolens_kind && e.layer == IOLENS_LAYER_POSIX && (e.op == IOLENS_OP_READ || e.op == IOLENS_OP_WRITE) &&
                       e.ret >= 0 && e.ret < e.size) {
                e.size = e.ret; /* a short read (the 0-byte read at the end of a file): the bytes it moved */
            }
            if (e.layer != IOLENS_LAYER_POSIX && e.layer != IOLENS_LAYER_STDIO && e.layer != IOLENS_LAYER_MPIIO &&
                e.layer != IOLENS_LAYER_HDF5)
                continue;
            if ((uint64_t)e.file >= nfiles) {
                rc = iol_err(IOLENS_EFORMAT, "rank %d: event '%s' names file %lld, beyond the %zu files of the source",
                             r, e.func ? e.func : "?", (long long)e.file, nfiles);
                break;
            }
            if (excl[e.file]) {
                if (e.op == IOLENS_OP_WRITE || e.op == IOLENS_OP_READ)
                    excl[e.file] = 2;
                continue;
            }
            struct gv_open *o = &open[e.file];
            /* A descriptor the process had open when it started (a shell's "> out"): left out,
             * as the counters and the Darshan runtime leave it, until the process opens the file
             * itself. One kept at fork: the calls on it are a session of their own, as before. */
            if (iolens_event_is_fd_note(&e)) {
                *o = (struct gv_open){0};
                o->inherited = !strcmp(e.func, "iolens_fd_at_start");
                continue;
            }
            if (o->inherited && e.op != IOLENS_OP_OPEN) {
                o->inherited = e.op != IOLENS_OP_CLOSE;
                continue;
            }
            if (g->md) {
                if (e.op == IOLENS_OP_OPEN)
                    g->md[e.file] |= GV_MD_OPEN;
                else if (e.op == IOLENS_OP_STAT)
                    g->md[e.file] |= GV_MD_STAT;
                else if (unlinks_file(src, r, &e))
                    g->md[e.file] |= GV_MD_UNLINK;
                else if ((e.op == IOLENS_OP_WRITE || e.op == IOLENS_OP_READ) && e.size > 0)
                    g->md[e.file] |= GV_MD_DATA;
            }
            if (e.op == IOLENS_OP_OPEN) {
                *o = (struct gv_open){.open = 1, .t0 = e.tstart, .layer = e.layer};
            } else if (e.op == IOLENS_OP_CLOSE) {
                *o = (struct gv_open){0};
            } else if (e.op == IOLENS_OP_TRUNCATE && e.size > 0 && e.func && strstr(e.func, "fallocate")) {
                pre[e.file] = 1;
            } else if (e.op == IOLENS_OP_OTHER && o->open && e.func && !strncmp(e.func, "posix_fadvise", 13)) {
                int32_t fd;
                int64_t a[4];
                if (iolens_kind && iolens_trace_last_args(src, r, &fd, a) == 0) {
                    if (a[2] == POSIX_FADV_DONTNEED)
                        o->dropped = 1;
                    else if (a[2] == POSIX_FADV_RANDOM || a[2] == POSIX_FADV_NORMAL || a[2] == POSIX_FADV_SEQUENTIAL)
                        o->random = a[2] == POSIX_FADV_RANDOM; /* fio's default for random jobs */
                    /* advice given after the session's first transfer holds for the rest of it */
                    if (o->r)
                        g->s[o->r - 1].random = o->random;
                }
            } else if (e.op == IOLENS_OP_SEEK && o->open) {
                o->seek_pending = e.layer == IOLENS_LAYER_POSIX;
            } else if (e.op == IOLENS_OP_SYNC && o->open && o->w) {
                g->s[o->w - 1].syncs++;
            } else if ((e.op == IOLENS_OP_WRITE || e.op == IOLENS_OP_READ) && e.size >= 0) {
                if (!o->open) /* I/O without a seen open: a session of its own */
                    *o = (struct gv_open){.open = 1, .t0 = e.tstart, .layer = e.layer};
                size_t *slot = e.op == IOLENS_OP_WRITE ? &o->w : &o->r;
                if (!*slot) {
                    size_t idx = 0;
                    if ((rc = gv_new(g, e.file, r, e.op == IOLENS_OP_WRITE ? RP_WRITE : RP_READ, o->layer, o->t0,
                                     &idx)) < 0)
                        break;
                    *slot = idx + 1;
                    g->s[idx].cold = e.op == IOLENS_OP_READ && o->dropped;
                    g->s[idx].random = o->random;
                }
                if (e.size == 0)
                    continue;
                if (e.buf_pgoff1)
                    note_bufpos(&g->s[*slot - 1], e.buf_pgoff1, e.size);
                note_order(&g->s[*slot - 1], &e, o->seek_pending);
                o->seek_pending = 0;
                if ((rc = gv_add(&g->s[*slot - 1], e.size, (e.flags & IOLENS_EVF_COLLECTIVE) != 0, gap)) < 0)
                    break;
            }
        }
        if (got < 0 && rc == 0)
            rc = got;
    }
    for (size_t i = 0; i < g->n; i++) {
        gv_fold_gaps(&g->s[i]);
        g->s[i].prealloc = pre[g->s[i].file];
        if (g->h5)
            g->s[i].h5 = g->h5[g->s[i].file];
    }
    free(open);
    free(pre);
    return rc;
}

/* ---- building config entries ---- */

struct gv_entry {
    double t0;
    struct rp_fileconf fc;
};

struct gv_out {
    struct gv_entry *e;
    size_t n, cap;
};

static struct rp_fileconf *entry_new(struct gv_out *o, double t0)
{
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 16;
        struct gv_entry *ne = realloc(o->e, nc * sizeof *ne);
        if (!ne)
            return NULL;
        o->e = ne;
        o->cap = nc;
    }
    struct gv_entry *e = &o->e[o->n++];
    memset(e, 0, sizeof *e);
    e->t0 = t0;
    return &e->fc;
}

static int set_common(struct rp_fileconf *fc, const struct gv_sess *s, const char *const *paths, size_t npaths,
                      int64_t repeats, int nr)
{
    rp_table_defaults(&rp_fileconf_table, fc);
    fc->file_per_process = npaths > 1;
    fc->total_repeats = repeats;
    fc->method = s->op;
    fc->interface = s->layer == IOLENS_LAYER_MPIIO  ? RP_MPIIO
                    : s->layer == IOLENS_LAYER_STDIO ? RP_STDIO
                    : s->layer == IOLENS_LAYER_HDF5  ? RP_HDF5
                                                     : RP_POSIX;
    if (fc->interface == RP_MPIIO || fc->interface == RP_HDF5)
        fc->hints.use_collective = s->coll;
    if (fc->interface == RP_HDF5) {
        fc->hdf5.chunk = s->h5.chunk;
        fc->hdf5.alignment = s->h5.align;
        fc->hdf5.alignment_threshold = s->h5.align_thr > 0 ? s->h5.align_thr : 1;
        fc->hdf5.collective_metadata = s->h5.coll_md;
    }
    /* the traced program did not check what it read: neither does the replay (fidelity) */
    fc->verify = 0;
    /* where in a page the application's buffer started (the kernel's copy depends on it) */
    /* access order, and lseek() + read()/write() (IOR's POSIX back end) instead of pread/pwrite */
    int64_t block = 0;
    fc->access = session_access(s, nr, &block);
    if (fc->access == RP_STRIDED)
        fc->block_size = block;
    fc->seek = fc->interface == RP_POSIX && s->nx > 0 && 2 * s->nseeked >= s->nx && 2 * s->nimplicit >= s->nx;
    uint32_t bufpos = main_bufpos(s);
    fc->buffer_offset = bufpos >= 1 && bufpos <= 4096 ? (int64_t)bufpos - 1 : 0;
    fc->preallocated = s->op == RP_WRITE && s->prealloc;
    fc->cold = s->op == RP_READ && s->cold;
    /* read-ahead off as the program had it (a read-ahead the program turned off made random
     * 4 KiB reads of a cold file 1.9x faster than fio's) */
    if (s->op == RP_READ && s->random && fc->interface != RP_MPIIO)
        fc->hints.disable_readahead = 1;
    if (s->op == RP_WRITE && s->syncs > 0) {
        int64_t writes = 0;
        for (size_t i = 0; i < s->nch; i++)
            writes += s->ch[i].count;
        /* k syncs after (nearly) every write: the last write's are often the close's (1,023 fsyncs
         * for 1,024 writes; 2,047 for a program that syncs twice); fewer, an fsync before close */
        int64_t k = writes > 0 && (s->syncs + 1) / writes > 1 ? (s->syncs + 1) / writes : 1;
        fc->fsync = writes > 1 && (s->syncs >= k * writes - k || 10 * s->syncs >= 9 * k * writes) ? RP_FSYNC_WRITE
                                                                                               : RP_FSYNC_CLOSE;
        if (fc->fsync == RP_FSYNC_WRITE)
            fc->fsync_count = k > 64 ? 64 : k;
    }
    fc->file_names = calloc(npaths, sizeof *fc->file_names);
    if (!fc->file_names)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < npaths; i++) {
        if (!(fc->file_names[i] = strdup(paths[i] ? paths[i] : "unnamed")))
            return iol_err(IOLENS_ENOMEM, "out of memory");
        fc->nfile_names = i + 1;
    }
    return 0;
}

/* Chunks of a shared-file round: sizes in first-seen order, per rank counts. */
static int shared_chunks(struct rp_fileconf *fc, struct gv_sess *const *round, size_t nr, int nranks)
{
    size_t maxch = fc->nchunks;
    for (size_t k = 0; k < nr; k++)
        maxch += round[k]->nch;
    int64_t *gaps_n = calloc(maxch ? maxch : 1, sizeof *gaps_n);
    if (!gaps_n)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < fc->nchunks; i++)
        fc->chunks[i].gap_seconds = 0;
    for (size_t k = 0; k < nr; k++)
        for (size_t c = 0; c < round[k]->nch; c++) {
            int64_t size = round[k]->ch[c].size;
            size_t i = 0;
            while (i < fc->nchunks && fc->chunks[i].transfer_size != size)
                i++;
            if (i == fc->nchunks) {
                struct rp_chunk *n = realloc(fc->chunks, (fc->nchunks + 1) * sizeof *n);
                if (!n) {
                    free(gaps_n);
                    return iol_err(IOLENS_ENOMEM, "out of memory");
                }
                fc->chunks = n;
                memset(&n[i], 0, sizeof n[i]);
                n[i].transfer_size = size;
                n[i].repetitions = -1;
                n[i].ranks = calloc((size_t)nranks, sizeof *n[i].ranks);
                fc->nchunks++;
                if (!n[i].ranks) {
                    free(gaps_n);
                    return iol_err(IOLENS_ENOMEM, "out of memory");
                }
            }
            struct rp_chunk *ch = &fc->chunks[i];
            ch->ranks[ch->nranks++] = (struct rp_rank_rep){round[k]->rank, round[k]->ch[c].count};
            /* the mean gap over the ranks' transfers of this size (summed here, divided below) */
            ch->gap_seconds += round[k]->ch[c].gsum;
            gaps_n[i] += round[k]->ch[c].gn;
        }
    for (size_t i = 0; i < fc->nchunks; i++) {
        double g = gaps_n[i] ? fc->chunks[i].gap_seconds / (double)gaps_n[i] : 0;
        /* below 10 ns: nothing a spin can reproduce; rounded to the nanosecond */
        fc->chunks[i].gap_seconds = g >= 1e-8 ? nearbyint(g * 1e9) / 1e9 : 0;
    }
    free(gaps_n);
    /* every rank of the job with the same count: the "repetitions" shorthand */
    for (size_t i = 0; i < fc->nchunks; i++) {
        struct rp_chunk *ch = &fc->chunks[i];
        int same = ch->nranks == (size_t)nranks;
        for (size_t k = 1; same && k < ch->nranks; k++)
            same = ch->ranks[k].repetitions == ch->ranks[0].repetitions;
        if (same) {
            ch->repetitions = ch->ranks[0].repetitions;
            free(ch->ranks);
            ch->ranks = NULL;
            ch->nranks = 0;
        }
    }
    return 0;
}

static int cmp_sess(const void *a, const void *b)
{
    const struct gv_sess *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->op != y->op)
        return x->op - y->op;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct gv_entry *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Sessions [lo, hi) of one (file, op), sorted by rank then time. */
static int build_group(struct gv_out *out, struct gv_sess *s, size_t lo, size_t hi, int nranks, const char *path,
                       int *fpp_candidate)
{
    int rc = 0;
    int multi = s[lo].rank != s[hi - 1].rank;
    *fpp_candidate = !multi;
    if (!multi)
        return 0;
    /* per rank: start index and count */
    size_t *start = calloc((size_t)nranks, sizeof *start), *cnt = calloc((size_t)nranks, sizeof *cnt);
    struct gv_sess **round = calloc((size_t)nranks, sizeof *round), **prev = calloc((size_t)nranks, sizeof *prev);
    if (!start || !cnt || !round || !prev) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    size_t maxk = 0;
    for (size_t i = lo; i < hi; i++) {
        if (!cnt[s[i].rank])
            start[s[i].rank] = i;
        cnt[s[i].rank]++;
        maxk = cnt[s[i].rank] > maxk ? cnt[s[i].rank] : maxk;
    }
    struct rp_fileconf *fc = NULL;
    size_t nprev = 0;
    for (size_t k = 0; k < maxk; k++) {
        size_t nr = 0;
        double t0 = INFINITY;
        for (int r = 0; r < nranks; r++)
            if (k < cnt[r]) {
                round[nr++] = &s[start[r] + k];
                t0 = fmin(t0, s[start[r] + k].t0);
            }
        int same = fc && nr == nprev;
        for (size_t i = 0; same && i < nr; i++)
            same = round[i]->rank == prev[i]->rank && same_chunks(round[i], prev[i]);
        if (same) {
            fc->total_repeats++;
            continue;
        }
        if (!(fc = entry_new(out, t0))) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        const char *p[1] = {path};
        if ((rc = set_common(fc, round[0], p, 1, 1, (int)nr)) < 0 || (rc = shared_chunks(fc, round, nr, nranks)) < 0)
            goto done;
        for (size_t i = 1; i < nr && fc->access != RP_SEQUENTIAL; i++) { /* every rank's order agrees */
            int64_t b = 0;
            if (session_access(round[i], (int)nr, &b) != fc->access || b != (fc->access == RP_STRIDED ? fc->block_size : 0))
                fc->access = RP_SEQUENTIAL, fc->block_size = 0;
        }
        memcpy(prev, round, nr * sizeof *round);
        nprev = nr;
    }
done:
    free(start);
    free(cnt);
    free(round);
    free(prev);
    return rc;
}

/* A file only one rank used and that is not part of a file-per-process set: its own entries. */
static int build_single(struct gv_out *out, struct gv_sess *s, size_t lo, size_t hi, const iolens_file *files,
                        int nranks)
{
    int rc = 0;
    /* sessions of this file merged into repeats */
    const char *p[1] = {files[s[lo].file].path};
    size_t i = lo;
    while (i < hi) {
        size_t j = i + 1;
        while (j < hi && same_chunks(&s[i], &s[j]))
            j++;
        struct rp_fileconf *fc = entry_new(out, s[i].t0);
        if (!fc)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        struct gv_sess *one = &s[i];
        if ((rc = set_common(fc, one, p, 1, (int64_t)(j - i), 1)) < 0 || (rc = shared_chunks(fc, &one, 1, nranks)) < 0)
            return rc;
        i = j;
    }
    return 0;
}

/* Files used by one rank each: same op, interface and sessions on ranks 0..n-1 -> one fpp entry. */
static int try_fpp(struct gv_out *out, struct gv_sess *s, const size_t *glo, const size_t *ghi, size_t ng,
                   const iolens_file *files, int nranks, unsigned char *used)
{
    for (size_t a = 0; a < ng; a++) {
        if (used[a] || nranks < 2)
            continue;
        size_t *members = calloc((size_t)nranks, sizeof *members);
        if (!members)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        for (int r = 0; r < nranks; r++)
            members[r] = SIZE_MAX;
        struct gv_sess *A = &s[glo[a]];
        size_t nA = ghi[a] - glo[a];
        for (size_t b = 0; b < ng; b++) {
            struct gv_sess *B = &s[glo[b]];
            if (used[b] || members[B->rank] != SIZE_MAX || ghi[b] - glo[b] != nA || B->op != A->op ||
                B->layer != A->layer || B->coll != A->coll)
                continue;
            int same = 1;
            for (size_t k = 0; same && k < nA; k++)
                same = same_chunks(&s[glo[a] + k], &s[glo[b] + k]);
            if (same)
                members[B->rank] = b;
        }
        int full = 1;
        for (int r = 0; r < nranks; r++)
            full &= members[r] != SIZE_MAX;
        if (full) {
            const char **paths = calloc((size_t)nranks, sizeof *paths);
            int rc = paths ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
            double t0 = INFINITY;
            for (int r = 0; rc == 0 && r < nranks; r++) {
                paths[r] = files[s[glo[members[r]]].file].path;
                t0 = fmin(t0, s[glo[members[r]]].t0);
                used[members[r]] = 1;
            }
            /* repeats: identical consecutive sessions of rank 0's file */
            size_t i = 0;
            while (rc == 0 && i < nA) {
                size_t j = i + 1;
                while (j < nA && same_chunks(&A[i], &A[j]))
                    j++;
                struct rp_fileconf *fc = entry_new(out, i == 0 ? t0 : A[i].t0);
                if (!fc) {
                    rc = iol_err(IOLENS_ENOMEM, "out of memory");
                    break;
                }
                struct gv_sess *one = &A[i];
                rc = set_common(fc, one, paths, (size_t)nranks, (int64_t)(j - i), 1);
                if (rc == 0)
                    rc = shared_chunks(fc, &one, 1, 1); /* counts of one rank: the shorthand for all */
                i = j;
            }
            free(paths);
            if (rc < 0) {
                free(members);
                return rc;
            }
        }
        free(members);
    }
    return 0;
}

static int excluded_path(const char *p)
{
    if (!p)
        return 0;
    return (iolens_counters_path_excluded(p) && strncmp(p, "/dev/shm/", 9) != 0) || iol_replay_runtime_path(p);
}

/* An MPI rank of an iolens trace has a recorded MPI rank; every rank of another
 * source (Recorder: one trace per MPI rank) is one. */
static int is_mpi_rank(iolens_evsource *src, int r)
{
    iolens_trace_proc pi;
    if (iolens_trace_proc_info(src, r, &pi) < 0)
        return 1;
    return pi.mpi_rank >= 0;
}

/* Drops the non-MPI processes without sessions and numbers the rest from 0. */
static int drop_ranks(struct gv *g, iolens_evsource *src, int *nranks, iolens_replay_gv_report *rep)
{
    int n = *nranks, kept = 0;
    int *map = calloc((size_t)n, sizeof *map);
    if (!map)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < g->n; i++)
        map[g->s[i].rank] = 1;
    for (int r = 0; r < n; r++)
        map[r] = (map[r] || is_mpi_rank(src, r)) ? kept++ : -1;
    for (size_t i = 0; i < g->n; i++)
        g->s[i].rank = map[g->s[i].rank];
    free(map);
    rep->ranks_dropped = n - kept;
    *nranks = kept;
    return 0;
}

/* A trace without reads or writes: when GV_META_MIN or more files of one folder were opened
 * (created), stat()ed or unlinked, metadata steps of those files (the folder is the one most of
 * them are in). The calls of each process, in time, are cut into runs of one phase (creating
 * opens; stats; opens of existing files; unlinks); the runs of one process that follow the order
 * of a step (create, stat, read, unlink) over as many files make one step, so a program's phases
 * replay in its order: fio's filestat job is a stat step of files its main process laid out and
 * stat()ed first (a step of its own). Per phase, the program's own time per file between its
 * calls (the gaps, less the tracer's time per call, pauses left out: gap_hist_total) is the
 * step's gap_seconds, and files the trace did not create are made before the step (create:
 * false). A trace of MPI ranks takes the steps of its first rank for every rank. */
static int same_folder(const char *a, const char *b);
static const iolens_file *md_files; /* for cmp_folder (qsort has no context argument) */
static int cmp_folder(const void *a, const void *b)
{
    const char *x = md_files[*(const size_t *)a].path, *y = md_files[*(const size_t *)b].path;
    size_t lx = (size_t)(strrchr(x, '/') - x), ly = (size_t)(strrchr(y, '/') - y);
    int c = strncmp(x, y, lx < ly ? lx : ly);
    return c ? c : lx < ly ? -1 : lx > ly;
}

enum { MDP_CREATE, MDP_STAT, MDP_READ, MDP_UNLINK, MDP_N };

struct md_run {
    int phase, rank;
    double t0;
    int64_t files; /* distinct files */
    int64_t calls; /* the phase's own calls: creating opens, stats, opens, unlinks */
    double gsum;   /* the program's time between calls inside the run */
};

struct md_runs {
    struct md_run *v;
    size_t n, cap;
};

static struct md_run *md_run_new(struct md_runs *R, int phase, int rank, double t0)
{
    if (R->n == R->cap) {
        size_t nc = R->cap ? R->cap * 2 : 16;
        struct md_run *nv = realloc(R->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        R->v = nv;
        R->cap = nc;
    }
    struct md_run *x = &R->v[R->n++];
    *x = (struct md_run){phase, rank, t0, 0, 0, 0};
    return x;
}

/* The runs of rank r over the files cand[] marks. exists[f]: -1 unknown, 0 no, 1 yes (what the
 * calls so far showed); stamp[f]: 1 + the run that last counted f. */
static int md_rank_runs(iolens_evsource *src, int r, const int64_t *canon, size_t nfiles, const unsigned char *cand,
                        signed char *exists, size_t *stamp, struct md_runs *R)
{
    int rc = iolens_evsource_rewind(src, r);
    if (rc < 0)
        return rc;
    double prev_end = -1, prev_self = 0; /* the tracer's time after the previous call */
    struct md_run *cur = NULL;
    /* the current run's gaps, summed per file (a create is an open and a close: fio's filecreate
     * job spends 150 us between them and 1 us before the next open, and the median of single
     * gaps was the short one) */
    struct gap_hist *h = calloc(1, sizeof *h);
    double fgap = NAN; /* the current file's gaps so far (NAN: none) */
    if (!h)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    iolens_event e;
    while ((rc = iolens_evsource_next(src, r, &e)) > 0) {
        if (e.depth != 0 || iolens_layer_is_library(e.layer) || iolens_event_is_fd_note(&e))
            continue; /* (a descriptor open before the process started is no metadata call of it) */
        if (e.file >= 0 && (uint64_t)e.file < nfiles)
            e.file = canon[e.file];
        /* (below 0 when shorter than the tracer's time: see collect) */
        double gap = prev_end >= 0 && e.tstart >= prev_end ? e.tstart - prev_end - prev_self : NAN;
        if (e.file < 0 || !cand[e.file] || (e.flags & IOLENS_EVF_FAILED)) {
            /* a call the steps do not make (another file, no file, a failed call: fio's stat of a
             * file it is about to create) is part of the program's time before the next call:
             * prev_end stays, and the tracer's time after this call is taken off too */
            prev_self += e.self_after;
            if (e.file >= 0 && cand[e.file] && e.op == IOLENS_OP_STAT)
                exists[e.file] = 0;
            continue;
        }
        prev_end = e.tend;
        prev_self = e.self_after;
        size_t f = (size_t)e.file;
        int phase = -1;
        if (e.op == IOLENS_OP_OPEN) {
            phase = e.open_flags >= 0 && (e.open_flags & O_CREAT) && exists[f] != 1 ? MDP_CREATE : MDP_READ;
            exists[f] = 1;
        } else if (e.op == IOLENS_OP_STAT) {
            phase = MDP_STAT;
            exists[f] = 1;
        } else if (unlinks_file(src, r, &e)) {
            phase = MDP_UNLINK;
            exists[f] = 0;
        }
        if (phase >= 0 && (!cur || cur->phase != phase)) {
            if (cur && !isnan(fgap))
                gap_hist_add(h, fgap);
            if (cur)
                cur->gsum = gap_hist_total(h);
            memset(h, 0, sizeof *h);
            fgap = NAN;
            if (!(cur = md_run_new(R, phase, r, e.tstart))) {
                free(h);
                return iol_err(IOLENS_ENOMEM, "out of memory");
            }
        } else if (cur) {
            if (phase >= 0 && stamp[f] != R->n) { /* the run's next file */
                if (!isnan(fgap))
                    gap_hist_add(h, fgap);
                fgap = NAN;
            }
            if (!isnan(gap))
                fgap = !isnan(fgap) ? fgap + gap : gap;
        }
        if (phase >= 0) {
            cur->calls++;
            if (stamp[f] != R->n) {
                stamp[f] = R->n;
                cur->files++;
            }
        }
    }
    if (cur && !isnan(fgap))
        gap_hist_add(h, fgap);
    if (cur)
        cur->gsum = gap_hist_total(h);
    free(h);
    return rc;
}

static int md_step(struct gv_out *out, const char *dir, const struct md_run *runs, size_t n)
{
    struct rp_fileconf *fc = entry_new(out, runs[0].t0);
    if (!fc)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    rp_table_defaults(&rp_fileconf_table, fc);
    if (!(fc->file_names = calloc(1, sizeof *fc->file_names)) || !(fc->file_names[0] = strdup(dir)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    fc->nfile_names = 1;
    fc->file_per_process = 0;
    fc->method = RP_METADATA;
    struct rp_metadata *m = &fc->metadata;
    m->create = m->stat = m->reopen = m->unlink = 0;
    double *gaps[MDP_N] = {&m->gap_seconds.create, &m->gap_seconds.stat, &m->gap_seconds.read,
                           &m->gap_seconds.unlink};
    for (size_t i = 0; i < n; i++) {
        const struct md_run *x = &runs[i];
        if (x->files > m->files_per_rank)
            m->files_per_rank = x->files;
        double g = x->gsum / (double)x->files;
        *gaps[x->phase] = g >= 1e-8 ? nearbyint(g * 1e9) / 1e9 : 0;
        switch (x->phase) {
        case MDP_CREATE: m->create = 1; break;
        case MDP_STAT: {
            int64_t k = llround((double)x->calls / (double)x->files);
            m->stat = (int)(k < 1 ? 1 : k > 64 ? 64 : k);
            break;
        }
        case MDP_READ: m->reopen = 1; break;
        default: m->unlink = 1; break;
        }
    }
    return 0;
}

/* The steps of the runs: a process's runs of at least GV_META_MIN files, one step while they
 * follow the step's phase order over about as many files. */
static int md_steps(struct gv_out *out, const char *dir, struct md_runs *R)
{
    size_t k = 0;
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].files >= GV_META_MIN)
            R->v[k++] = R->v[i];
    R->n = k;
    for (size_t i = 0; i < R->n;) {
        size_t j = i + 1;
        while (j < R->n && R->v[j].rank == R->v[i].rank && R->v[j].phase > R->v[j - 1].phase &&
               llabs(R->v[j].files - R->v[i].files) * 16 <= R->v[i].files)
            j++;
        int rc = md_step(out, dir, &R->v[i], j - i);
        if (rc < 0)
            return rc;
        i = j;
    }
    return 0;
}

/* One step of n files from what was done to them (GV_MD_* bits): created, stat()ed, unlinked. */
static int md_bits_runs(struct md_runs *R, unsigned bits, int64_t n)
{
    R->n = 0;
    int ph[3] = {MDP_CREATE, (bits & GV_MD_STAT) ? MDP_STAT : -1, (bits & GV_MD_UNLINK) ? MDP_UNLINK : -1};
    for (int i = 0; i < 3; i++) {
        struct md_run *x = ph[i] < 0 ? NULL : md_run_new(R, ph[i], 0, 0);
        if (ph[i] >= 0 && !x)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        if (x)
            x->files = x->calls = n;
    }
    return 0;
}

/* Adds the steps (none when there is no such set of files); *mpi_ranks: the trace's MPI ranks. */
static int metadata_only(struct gv_out *out, const unsigned char *md, const iolens_file *files, const int64_t *canon,
                         size_t nfiles, const unsigned char *excl, iolens_evsource *src, int *mpi_ranks)
{
    size_t *cand = malloc((nfiles ? nfiles : 1) * sizeof *cand), nc = 0;
    if (!cand)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    *mpi_ranks = 0;
    for (size_t f = 0; f < nfiles; f++)
        if (!excl[f] && md[f] && !(md[f] & GV_MD_DATA) && files[f].path && strrchr(files[f].path, '/'))
            cand[nc++] = f;
    md_files = files;
    qsort(cand, nc, sizeof *cand, cmp_folder);
    size_t best = SIZE_MAX, best_lo = 0, best_n = 0;
    for (size_t i = 0; i < nc;) { /* runs of one folder */
        size_t j = i + 1;
        while (j < nc && same_folder(files[cand[j]].path, files[cand[i]].path))
            j++;
        if (j - i > best_n) {
            best_n = j - i;
            best_lo = i;
            best = cand[i];
        }
        i = j;
    }
    unsigned bits = 0;
    for (size_t k = best_lo; best != SIZE_MAX && k < best_lo + best_n; k++)
        bits |= md[cand[k]];
    if (best == SIZE_MAX || best_n < GV_META_MIN) {
        free(cand);
        return 0;
    }
    const char *p = files[best].path;
    size_t len = (size_t)(strrchr(p, '/') - p);
    char *dir = len ? strndup(p, len) : strdup("/");
    unsigned char *in = calloc(nfiles, 1);
    signed char *exists = malloc(nfiles);
    size_t *stamp = calloc(nfiles, sizeof *stamp);
    struct md_runs R = {0};
    int rc = dir && in && exists && stamp ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t k = best_lo; rc == 0 && k < best_lo + best_n; k++)
        in[cand[k]] = 1;
    if (rc == 0)
        memset(exists, -1, nfiles);
    /* the calls in each process's order: MPI ranks take their first rank's steps */
    int nranks = iolens_evsource_nranks(src), first_mpi = -1;
    for (int r = 0; rc == 0 && r < nranks; r++)
        if (is_mpi_rank(src, r) && first_mpi < 0)
            first_mpi = r;
    for (int r = 0; rc == 0 && r < nranks; r++) {
        if (first_mpi >= 0 && !is_mpi_rank(src, r))
            continue;
        if (first_mpi >= 0 && r != first_mpi) {
            ++*mpi_ranks;
            continue;
        }
        *mpi_ranks += first_mpi >= 0;
        rc = md_rank_runs(src, r, canon, nfiles, in, exists, stamp, &R);
    }
    size_t before = out->n;
    if (rc == IOLENS_EUNSUPPORTED) /* a source read once: one step of what was done to the files */
        rc = md_bits_runs(&R, bits, (int64_t)best_n);
    if (rc == 0)
        rc = md_steps(out, dir, &R);
    /* no run of enough files in one process (the calls spread over processes): one step */
    if (rc == 0 && out->n == before && (rc = md_bits_runs(&R, bits, (int64_t)best_n)) == 0)
        rc = md_steps(out, dir, &R);
    free(R.v);
    free(dir);
    free(in);
    free(exists);
    free(stamp);
    free(cand);
    return rc;
}

int iolens_replay_config_from_events(iolens_replay_config **out, iolens_evsource *src)
{
    return iolens_replay_config_from_events_opts(out, src, NULL, NULL);
}

/* The sessions' transfers are laid out one after another, not at the program's offsets. A
 * program that rewrites and rereads parts of its file (HDF5 rewrites its superblock and
 * rereads its metadata in small overlapping pieces) then has a read step that reads past what
 * the write steps wrote. The last write step before such a read gets one more transfer, of the
 * missing bytes, so that the file is as long as the read needs (pad_reads; with more ranks,
 * written by a rank that writes the step's last transfers: Python's zipfile writes an archive
 * in one process and rereads its directory in another). */
/* One-rank configs: a run of at least GV_META_MIN consecutive write steps that each write one
 * small file once (one transfer of the same size, at most GV_META_BYTES, files of one folder) is
 * what a metadata-heavy program does (many small files created and written: tar -x, fio
 * nrfiles, mdtest -w): it becomes one metadata step of that many files and bytes in that folder,
 * so the step is replayed as the file creation it is and the metadata_intensity change applies.
 * The bytes are the same; the files' names are the metadata step's. */
static int small_file_step(const struct rp_fileconf *fc)
{
    return fc->method == RP_WRITE && fc->nfile_names == 1 && fc->file_per_process <= 0 && fc->nchunks == 1 &&
           fc->chunks[0].repetitions == 1 && fc->chunks[0].nranks == 0 && fc->chunks[0].transfer_size > 0 &&
           fc->chunks[0].transfer_size <= GV_META_BYTES && fc->fsync == RP_FSYNC_NONE && !(fc->compute.seconds > 0) &&
           strrchr(fc->file_names[0], '/') != NULL;
}

static int same_folder(const char *a, const char *b)
{
    size_t la = (size_t)(strrchr(a, '/') - a), lb = (size_t)(strrchr(b, '/') - b);
    return la == lb && !strncmp(a, b, la);
}

static int collapse_small_files(iolens_replay_config *cfg)
{
    if (cfg->nranks != 1)
        return 0;
    size_t out = 0;
    for (size_t i = 0; i < cfg->nfile_configs;) {
        struct rp_fileconf *f0 = &cfg->file_configs[i];
        size_t j = i + 1;
        while (small_file_step(f0) && j < cfg->nfile_configs && small_file_step(&cfg->file_configs[j]) &&
               cfg->file_configs[j].chunks[0].transfer_size == f0->chunks[0].transfer_size &&
               same_folder(cfg->file_configs[j].file_names[0], f0->file_names[0]))
            j++;
        if (!small_file_step(f0) || j - i < GV_META_MIN) {
            if (out != i)
                cfg->file_configs[out] = *f0;
            out++;
            i++;
            continue;
        }
        struct rp_fileconf md;
        memset(&md, 0, sizeof md);
        rp_table_defaults(&rp_fileconf_table, &md);
        const char *p = f0->file_names[0];
        size_t len = (size_t)(strrchr(p, '/') - p);
        md.file_names = calloc(1, sizeof *md.file_names);
        if (md.file_names)
            md.file_names[0] = len ? strndup(p, len) : strdup("/");
        if (!md.file_names || !md.file_names[0]) {
            if (md.file_names)
                free(md.file_names);
            return iol_err(IOLENS_ENOMEM, "out of memory");
        }
        md.nfile_names = 1;
        md.file_per_process = 0;
        md.method = RP_METADATA;
        md.metadata.files_per_rank = (int64_t)(j - i);
        md.metadata.write_bytes = f0->chunks[0].transfer_size;
        md.metadata.depth = 0;
        md.metadata.unique_dir = 0;
        for (size_t k = i; k < j; k++)
            rp_table_release(&rp_fileconf_table, &cfg->file_configs[k]);
        cfg->file_configs[out++] = md;
        i = j;
    }
    cfg->nfile_configs = out;
    return 0;
}

static int pad_reads(iolens_replay_config *cfg)
{
    int nr = cfg->nranks > 1 ? cfg->nranks : 1;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        struct rp_fileconf *fc = &cfg->file_configs[i];
        if (fc->method != RP_READ)
            continue;
        int64_t have = rp_written_before(cfg, i), need = rp_step_extent(fc, 0, nr);
        if (have < 0 || need <= have)
            continue;
        struct rp_fileconf *w = NULL;
        for (size_t k = 0; k < i; k++) {
            struct rp_fileconf *c = &cfg->file_configs[k];
            if (c->method == RP_WRITE && c->nfile_names == 1 && !c->file_per_process &&
                !strcmp(c->file_names[0], fc->file_names[0]))
                w = c;
        }
        if (!w)
            continue;
        struct rp_chunk *nc = realloc(w->chunks, (w->nchunks + 1) * sizeof *nc);
        if (!nc)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        w->chunks = nc;
        nc[w->nchunks] = (struct rp_chunk){need - have, 1, NULL, 0, 0};
        if (nr > 1) { /* one rank writes the missing bytes: one that writes the step's last chunk */
            struct rp_rank_rep *rr = malloc(sizeof *rr);
            if (!rr)
                return iol_err(IOLENS_ENOMEM, "out of memory");
            const struct rp_chunk *last = &w->chunks[w->nchunks - 1];
            int64_t who = 0;
            for (size_t k = 0; last->repetitions < 0 && k < last->nranks; k++)
                if (last->ranks[k].repetitions > 0) {
                    who = last->ranks[k].rank;
                    break;
                }
            *rr = (struct rp_rank_rep){who, 1};
            nc[w->nchunks] = (struct rp_chunk){need - have, -1, rr, 1, 0};
        }
        w->nchunks++;
        if (rp_step_extent(fc, 0, nr) > rp_written_before(cfg, i)) /* the last write does not end the file */
            return iol_err(IOLENS_EUNSUPPORTED, "cannot lay out '%s' so that its read step stays within what was "
                           "written", fc->file_names[0]);
    }
    return 0;
}

int iolens_replay_config_from_events_opts(iolens_replay_config **out, iolens_evsource *src,
                                          const iolens_replay_gv_options *opts, iolens_replay_gv_report *report)
{
    *out = NULL;
    iolens_replay_gv_report rep = {0, 0, 0};
    unsigned char *excl = NULL;
    struct gv g = {0};
    struct gv_out o = {0};
    size_t *glo = NULL, *ghi = NULL;
    unsigned char *used = NULL;
    iolens_replay_config *cfg = NULL;
    const iolens_file *files = NULL;
    iolens_file *norm = NULL;
    int64_t *canon = NULL;
    size_t nfiles = 0;
    int nranks = iolens_evsource_nranks(src);
    int rc = nranks > 0 ? 0 : iol_err(IOLENS_EFORMAT, "the event source has no ranks");
    if (rc == 0 && nranks > 1048576)
        rc = iol_err(IOLENS_EFORMAT, "the event source claims %d ranks", nranks);
    rep.ranks_in = nranks > 0 ? nranks : 0;
    if (rc == 0)
        rc = iolens_evsource_files(src, &files, &nfiles);
    /* one file by several names ("/d/x/../f", "/d/f") is one file, named without "." and ".." */
    if (rc >= 0 && (rc = iol_replay_same_files(files, nfiles, &norm, &canon)) >= 0) {
        files = norm;
        g.canon = canon;
    }
    if (rc >= 0 && !(excl = calloc(nfiles ? nfiles : 1, 1)))
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t f = 0; rc >= 0 && f < nfiles; f++)
        excl[f] = !(opts && opts->all_paths) && excluded_path(files[f].path);
    if (rc >= 0 && !(g.md = calloc(nfiles ? nfiles : 1, 1)))
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
    if (rc >= 0 && opts && opts->level == IOLENS_REPLAY_LEVEL_LIBRARY)
        rc = h5_tables(&g, files, nfiles);
    if (rc >= 0)
        rc = collect(&g, src, nranks, nfiles, excl);
    if (rc >= 0) { /* sessions whose reads all moved nothing (sqlite's reads of its journal's end): no step */
        size_t k = 0;
        for (size_t i = 0; i < g.n; i++) {
            if (g.s[i].nch)
                g.s[k++] = g.s[i];
            else
                gv_sess_free(&g.s[i]);
        }
        g.n = k;
    }
    for (size_t f = 0; rc >= 0 && f < nfiles; f++)
        rep.files_excluded += excl[f] == 2;
    if (rc >= 0 && !(opts && opts->all_paths))
        rc = drop_ranks(&g, src, &nranks, &rep);
    if (rc < 0)
        goto done;
    if (g.n > 1)
        qsort(g.s, g.n, sizeof *g.s, cmp_sess);
    glo = calloc(g.n + 1, sizeof *glo);
    ghi = calloc(g.n + 1, sizeof *ghi);
    used = calloc(g.n + 1, 1);
    if (!glo || !ghi || !used) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    /* single-rank groups, for the file-per-process pass */
    size_t ng = 0;
    for (size_t i = 0; i < g.n && rc == 0;) {
        size_t j = i + 1;
        while (j < g.n && g.s[j].file == g.s[i].file && g.s[j].op == g.s[i].op)
            j++;
        int single;
        rc = build_group(&o, g.s, i, j, nranks, files[g.s[i].file].path, &single);
        if (single) {
            glo[ng] = i;
            ghi[ng++] = j;
        }
        i = j;
    }
    if (rc == 0)
        rc = try_fpp(&o, g.s, glo, ghi, ng, files, nranks, used);
    for (size_t a = 0; rc == 0 && a < ng; a++)
        if (!used[a])
            rc = build_single(&o, g.s, glo[a], ghi[a], files, nranks);
    if (rc < 0)
        goto done;
    if (o.n == 0) { /* no data at all: the metadata steps, if there are enough files */
        int mpi_ranks = 0;
        if ((rc = metadata_only(&o, g.md, files, g.canon, nfiles, excl, src, &mpi_ranks)) < 0)
            goto done;
        if (o.n)
            nranks = mpi_ranks > 0 ? mpi_ranks : 1;
    }
    if (o.n == 0) {
        if (rep.files_excluded)
            rc = iol_err(IOLENS_EFORMAT, "the event stream has no reads or writes to replay outside system paths "
                         "(%lld file(s) under /etc/, /proc/, /sys/, /usr/, /dev/ ... left out, as Darshan does; "
                         "--all-paths keeps them)", (long long)rep.files_excluded);
        else
            rc = iol_err(IOLENS_EFORMAT, "the event stream has no reads or writes to replay");
        goto done;
    }
    qsort(o.e, o.n, sizeof *o.e, cmp_entry);
    cfg = calloc(1, sizeof *cfg);
    if (!cfg || !(cfg->file_configs = calloc(o.n, sizeof *cfg->file_configs))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    rp_table_defaults(&rp_config_table, cfg);
    cfg->nranks = nranks;
    for (size_t i = 0; i < o.n; i++) {
        cfg->file_configs[i] = o.e[i].fc;
        memset(&o.e[i].fc, 0, sizeof o.e[i].fc);
        cfg->nfile_configs = i + 1;
    }
    rc = collapse_small_files(cfg);
    if (rc == 0)
        rc = pad_reads(cfg);
    if (rc == 0)
        rc = rp_config_validate(cfg, "global view");
done:
    for (size_t i = 0; i < g.n; i++)
        gv_sess_free(&g.s[i]);
    free(g.s);
    free(g.md);
    free(g.h5);
    free(g.h5file);
    for (size_t i = 0; i < o.n; i++) {
        /* entries not moved into cfg (on failure) */
        rp_table_release(&rp_fileconf_table, &o.e[i].fc);
    }
    free(o.e);
    free(glo);
    free(ghi);
    free(used);
    free(excl);
    iol_replay_same_files_free(norm, nfiles);
    free(canon);
    if (report)
        *report = rep;
    if (rc < 0) {
        iolens_replay_config_free(cfg);
        return rc;
    }
    *out = cfg;
    return 0;
}
