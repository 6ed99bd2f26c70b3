/*
 * Building a trace file from spill files (docs/TRACE-FORMAT.md).
 *
 * Per process: every call becomes a signature (codec.c: file references,
 * offsets and results relative to predictable values), signatures get ids in
 * a per-process table, and each thread's id sequence is folded into a loop
 * grammar (grammar.c). The table, the path templates and the grammars form
 * one integer vector per process; processes whose vectors are equal up to
 * fields affine in the process index (rank * a + b) share one stored vector.
 * Timestamps are delta-coded varints. Sections are zstd-compressed.
 */
#define _DEFAULT_SOURCE
#include "iolens/trace.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/funcs.h"
#include "trace/grammar.h"
#include "trace/spill.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAX_PATH_FIELDS 32

typedef struct ivec {
    int64_t *v;
    size_t n, cap;
} ivec;

static int ivec_push(ivec *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 256;
        int64_t *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return IOLENS_ENOMEM;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

/* Encoder state of one thread: predictors, grammar and the two timestamp columns. */
typedef struct thread_enc {
    uint32_t tid;
    iol_pred pred;
    iol_grammar g;
    iol_buf gaps, durs;
    int64_t prev_end;
    int64_t lastdur[IOL_F_COUNT];
    uint64_t n;
} thread_enc;

typedef struct sig_table sig_table;

typedef struct proc_enc {
    iol_spill_proc sp;
    thread_enc **th;
    size_t nth;
    sig_table *sigs;
    uint64_t job_start, res;
    int *used; /* functions seen, over the job */
    iol_buf s;    /* path templates, NUL-separated */
    ivec v;       /* the structure vector */
    iol_buf times;
    uint64_t ncalls, nsigs, nrules;
} proc_enc;

/* ---- signature table: open addressing over IOL_SIG_NFIELDS-long keys ---- */
struct sig_table {
    int64_t *keys; /* n * NFIELDS */
    size_t n, kcap;
    uint32_t *slots; /* id + 1 */
    size_t scap;
};

static uint64_t sig_hash(const int64_t *k)
{
    uint64_t h = 0x84222325cbf29ce4ull;
    for (int i = 0; i < IOL_SIG_NFIELDS; i++)
        h = (h ^ (uint64_t)k[i]) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

static int64_t sig_lookup(sig_table *t, const int64_t *k)
{
    if ((t->n + 1) * 2 > t->scap) {
        size_t nc = t->scap ? t->scap * 2 : 256;
        uint32_t *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return IOLENS_ENOMEM;
        for (size_t i = 0; i < t->n; i++) {
            size_t s = sig_hash(t->keys + i * IOL_SIG_NFIELDS) & (nc - 1);
            while (ns[s])
                s = (s + 1) & (nc - 1);
            ns[s] = (uint32_t)(i + 1);
        }
        free(t->slots);
        t->slots = ns;
        t->scap = nc;
    }
    size_t s = sig_hash(k) & (t->scap - 1);
    while (t->slots[s]) {
        size_t id = t->slots[s] - 1;
        if (!memcmp(t->keys + id * IOL_SIG_NFIELDS, k, IOL_SIG_NFIELDS * sizeof *k))
            return (int64_t)id;
        s = (s + 1) & (t->scap - 1);
    }
    if (t->n >= UINT32_MAX - 1)
        return IOLENS_ENOMEM;
    if (t->n == t->kcap) {
        size_t nc = t->kcap ? t->kcap * 2 : 64;
        int64_t *nk = realloc(t->keys, nc * IOL_SIG_NFIELDS * sizeof *nk);
        if (!nk)
            return IOLENS_ENOMEM;
        t->keys = nk;
        t->kcap = nc;
    }
    memcpy(t->keys + t->n * IOL_SIG_NFIELDS, k, IOL_SIG_NFIELDS * sizeof *k);
    t->slots[s] = (uint32_t)(t->n + 1);
    return (int64_t)t->n++;
}

/* ---- path templates: digit runs become numeric fields ---- */
static int path_template(const char *p, iol_buf *tmpl, int64_t *nums, int *nnums)
{
    int rc = 0;
    *nnums = 0;
    iol_buf_reset(tmpl);
    for (size_t i = 0; p[i];) {
        if (p[i] >= '0' && p[i] <= '9' && *nnums < MAX_PATH_FIELDS) {
            size_t j = i;
            while (p[j] >= '0' && p[j] <= '9')
                j++;
            size_t w = j - i;
            if (w <= 18) {
                int64_t v = 0;
                for (size_t k = i; k < j; k++)
                    v = v * 10 + (p[k] - '0');
                char mark[2] = {1, (char)((p[i] == '0' && w > 1) ? w + 1 : 1)};
                nums[(*nnums)++] = v;
                if ((rc = iol_buf_append(tmpl, mark, 2)))
                    return rc;
                i = j;
                continue;
            }
            if ((rc = iol_buf_append(tmpl, p + i, w)))
                return rc;
            i = j;
            continue;
        }
        if (p[i] == 1 || p[i] == 2) {
            char esc[2] = {2, p[i]};
            rc = iol_buf_append(tmpl, esc, 2);
        } else {
            rc = iol_buf_append(tmpl, p + i, 1);
        }
        if (rc)
            return rc;
        i++;
    }
    if (!tmpl->data)
        rc = iol_buf_append(tmpl, "", 0);
    return rc;
}

/* Index of template t in the NUL-separated pool (recent ones searched), adding it. */
static int64_t template_id(iol_buf *pool, int64_t *ntmpl, size_t *recent, int64_t *recent_id,
                           int *nrecent, const char *t, size_t tlen)
{
    for (int i = 0; i < *nrecent; i++)
        if (!strcmp(pool->data + recent[i], t))
            return recent_id[i];
    size_t off = pool->len;
    if (iol_buf_append(pool, t, tlen + 1))
        return IOLENS_ENOMEM;
    int slot = *nrecent < 8 ? (*nrecent)++ : (int)(*ntmpl % 8);
    recent[slot] = off;
    recent_id[slot] = *ntmpl;
    return (*ntmpl)++;
}

static int encode_paths(proc_enc *pe)
{
    int rc = 0;
    iol_buf tmpl = IOL_BUF_INIT;
    int64_t ntmpl = 0, recent_id[8];
    size_t recent[8];
    int nrecent = 0;
    ivec runs = {0};
    int64_t nruns = 0;
    int64_t cur_t = -1, cur_count = 0, start[MAX_PATH_FIELDS], delta[MAX_PATH_FIELDS];
    int cur_n = 0;
    for (size_t id = 0; id <= pe->sp.npaths; id++) {
        int64_t nums[MAX_PATH_FIELDS];
        int nn = 0;
        int64_t t = -1;
        if (id < pe->sp.npaths) {
            const char *p = pe->sp.paths[id] ? pe->sp.paths[id] : "";
            if ((rc = path_template(p, &tmpl, nums, &nn)))
                goto done;
            t = template_id(&pe->s, &ntmpl, recent, recent_id, &nrecent, tmpl.data, tmpl.len);
            if (t < 0) {
                rc = IOLENS_ENOMEM;
                goto done;
            }
            if (t == cur_t && nn == cur_n) {
                int fits = 1;
                if (cur_count == 1) {
                    for (int k = 0; k < nn; k++)
                        delta[k] = nums[k] - start[k];
                } else {
                    for (int k = 0; k < nn && fits; k++) /* wrapping, as the reader computes it */
                        fits = nums[k] == (int64_t)((uint64_t)start[k] + (uint64_t)cur_count * (uint64_t)delta[k]);
                }
                if (fits) {
                    cur_count++;
                    continue;
                }
            }
        }
        if (cur_t >= 0) { /* flush the current run */
            nruns++;
            if ((rc = ivec_push(&runs, cur_t)) || (rc = ivec_push(&runs, cur_count)))
                goto done;
            for (int k = 0; k < cur_n; k++)
                if ((rc = ivec_push(&runs, start[k])) || (rc = ivec_push(&runs, cur_count > 1 ? delta[k] : 0)))
                    goto done;
        }
        cur_t = t;
        cur_count = 1;
        cur_n = nn;
        memcpy(start, nums, (size_t)nn * sizeof *nums);
        memset(delta, 0, sizeof delta);
    }
    if ((rc = ivec_push(&pe->v, ntmpl)) || (rc = ivec_push(&pe->v, nruns)))
        goto done;
    for (size_t i = 0; i < runs.n; i++)
        if ((rc = ivec_push(&pe->v, runs.v[i])))
            goto done;
done:
    iol_buf_release(&tmpl);
    free(runs.v);
    return rc;
}

static int put_grammar(ivec *v, const iol_grammar *g)
{
    int rc = ivec_push(v, (int64_t)g->nrules);
    for (size_t r = 0; !rc && r < g->nrules; r++) {
        rc = ivec_push(v, (int64_t)g->rules[r].len);
        for (size_t i = 0; !rc && i < g->rules[r].len; i++) {
            const iol_gsym *s = &g->pool[g->rules[r].start + i];
            rc = ivec_push(v, s->sym);
            if (!rc)
                rc = ivec_push(v, (int64_t)s->exp);
        }
    }
    if (!rc)
        rc = ivec_push(v, (int64_t)g->len);
    for (size_t i = 0; !rc && i < g->len; i++) {
        rc = ivec_push(v, g->seq[i].sym);
        if (!rc)
            rc = ivec_push(v, (int64_t)g->seq[i].exp);
    }
    return rc;
}

static thread_enc *thread_of(proc_enc *pe, uint32_t tid)
{
    for (size_t i = pe->nth; i > 0; i--)
        if (pe->th[i - 1]->tid == tid)
            return pe->th[i - 1];
    if (pe->nth >= IOL_TRACE_MAX_THREADS)
        return NULL;
    thread_enc **nt = realloc(pe->th, (pe->nth + 1) * sizeof *nt);
    if (!nt)
        return NULL;
    pe->th = nt;
    thread_enc *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->tid = tid;
    iol_pred_init(&t->pred);
    iol_grammar_init(&t->g);
    pe->th[pe->nth++] = t;
    return t;
}

static void thread_free(thread_enc *t)
{
    if (!t)
        return;
    iol_pred_release(&t->pred);
    iol_grammar_release(&t->g);
    iol_buf_release(&t->gaps);
    iol_buf_release(&t->durs);
    free(t);
}

/* Encodes one chunk of records of a thread (spill reader callback). */
static int encode_recs(void *ctx, uint32_t tid, const iol_rawrec *recs, size_t n)
{
    proc_enc *pe = ctx;
    thread_enc *t = thread_of(pe, tid);
    if (!t)
        return IOLENS_ENOMEM;
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        const iol_rawrec *r = &recs[k];
        int64_t sig[IOL_SIG_NFIELDS];
        pe->used[r->func] = 1;
        rc = iol_pred_encode(&t->pred, r, iol_func_by_id(r->func)->has_off, r->func, sig);
        int64_t id = rc ? rc : sig_lookup(pe->sigs, sig);
        if (id < 0)
            return (int)id;
        if ((rc = iol_grammar_push(&t->g, id)))
            break;
        /* timestamps, in two columns: the gap since the previous call of the
         * thread ended, and the duration minus the previous duration of the
         * same function (both small and repetitive in loops) */
        int64_t t0 = r->t0 < pe->job_start ? 0 : (int64_t)((r->t0 - pe->job_start) / pe->res);
        int64_t t1 = r->t1 < r->t0 ? t0 : (int64_t)((r->t1 - pe->job_start) / pe->res);
        rc = iol_put_sv(&t->gaps, t0 - t->prev_end);
        if (!rc)
            rc = iol_put_sv(&t->durs, (t1 - t0) - t->lastdur[r->func]);
        t->lastdur[r->func] = t1 - t0;
        t->prev_end = t1;
        t->n++;
    }
    return rc;
}

/* After the whole spill was read: the structure vector and the timestamp bytes. */
static int finish_proc(proc_enc *pe)
{
    int rc = 0;
    for (size_t i = 1; i < pe->nth; i++) /* threads by index */
        for (size_t j = i; j > 0 && pe->th[j - 1]->tid > pe->th[j]->tid; j--) {
            thread_enc *tmp = pe->th[j];
            pe->th[j] = pe->th[j - 1];
            pe->th[j - 1] = tmp;
        }
    if ((rc = ivec_push(&pe->v, (int64_t)pe->nth)))
        return rc;
    size_t tlen = 0;
    for (size_t i = 0; i < pe->nth; i++)
        tlen += 10 + pe->th[i]->gaps.len + pe->th[i]->durs.len;
    if ((rc = iol_buf_reserve(&pe->times, tlen))) /* one allocation, not a series of doublings */
        return rc;
    for (size_t i = 0; i < pe->nth; i++) {
        thread_enc *t = pe->th[i];
        if ((rc = ivec_push(&pe->v, t->tid)) || (rc = iol_put_uv(&pe->times, t->n)) ||
            (rc = iol_buf_append(&pe->times, t->gaps.data ? t->gaps.data : "", t->gaps.len)) ||
            (rc = iol_buf_append(&pe->times, t->durs.data ? t->durs.data : "", t->durs.len)))
            return rc;
        iol_buf_release(&t->gaps); /* copied: give the memory back before the next process */
        iol_buf_release(&t->durs);
        pe->ncalls += t->n;
        pe->nrules += t->g.nrules;
    }
    sig_table *st = pe->sigs;
    pe->nsigs = st->n;
    if ((rc = ivec_push(&pe->v, (int64_t)st->n)))
        return rc;
    for (size_t i = 0; i < st->n * IOL_SIG_NFIELDS; i++)
        if ((rc = ivec_push(&pe->v, st->keys[i])))
            return rc;
    if ((rc = encode_paths(pe)))
        return rc;
    for (size_t i = 0; i < pe->nth; i++)
        if ((rc = put_grammar(&pe->v, &pe->th[i]->g)))
            return rc;
    return 0;
}

static void proc_free_work(proc_enc *pe)
{
    for (size_t i = 0; i < pe->nth; i++)
        thread_free(pe->th[i]);
    free(pe->th);
    pe->th = NULL;
    pe->nth = 0;
    if (pe->sigs) {
        free(pe->sigs->keys);
        free(pe->sigs->slots);
        free(pe->sigs);
        pe->sigs = NULL;
    }
}

/* ---- folding processes into groups ---- */
typedef struct group {
    size_t *members;
    size_t n;
    int64_t *b, *a; /* per field: value = b + a * proc_index (wrapping) */
    size_t vlen;
    const proc_enc *first;
} group;

static int64_t wmul_add(int64_t b, int64_t a, int64_t r)
{
    return (int64_t)((uint64_t)b + (uint64_t)a * (uint64_t)r);
}

static int try_join(group *g, const proc_enc *pe, size_t idx)
{
    if (g->vlen != pe->v.n || g->first->s.len != pe->s.len ||
        (pe->s.len && memcmp(g->first->s.data, pe->s.data, pe->s.len)))
        return 0;
    if (g->n == 1) {
        int64_t r0 = (int64_t)g->members[0], dr = (int64_t)idx - r0;
        for (size_t j = 0; j < g->vlen; j++) {
            int64_t dv = (int64_t)((uint64_t)pe->v.v[j] - (uint64_t)g->b[j]);
            if (dv % dr)
                return 0;
        }
        for (size_t j = 0; j < g->vlen; j++) {
            int64_t v0 = g->b[j];
            int64_t a = (int64_t)((uint64_t)pe->v.v[j] - (uint64_t)v0) / dr;
            g->a[j] = a;
            g->b[j] = (int64_t)((uint64_t)v0 - (uint64_t)a * (uint64_t)r0);
        }
    } else {
        for (size_t j = 0; j < g->vlen; j++)
            if (wmul_add(g->b[j], g->a[j], (int64_t)idx) != pe->v.v[j])
                return 0;
    }
    size_t *nm = realloc(g->members, (g->n + 1) * sizeof *nm);
    if (!nm)
        return IOLENS_ENOMEM;
    g->members = nm;
    g->members[g->n++] = idx;
    return 1;
}

static int put_sect(iol_buf *out, iol_buf *dir, uint32_t type, const iol_buf *raw, int level, uint64_t *stored)
{
    if (level < 0 || raw->len < 64) { /* stored uncompressed (debugging, fuzz corpora, tiny sections) */
        iol_tsect s = {type, IOL_CODEC_RAW, out->len, raw->len, raw->len};
        *stored = raw->len;
        int rc = iol_buf_append(out, raw->data ? raw->data : "", raw->len);
        return rc ? rc : iol_buf_append(dir, &s, sizeof s);
    }
    size_t bound = ZSTD_compressBound(raw->len);
    int rc = iol_buf_reserve(out, bound);
    if (rc)
        return rc;
    size_t n = ZSTD_compress(out->data + out->len, bound, raw->data ? raw->data : "", raw->len, level);
    if (ZSTD_isError(n))
        return iol_err(IOLENS_EIO, "zstd: %s", ZSTD_getErrorName(n));
    if (n >= raw->len) /* incompressible (small sections): the frame would only add bytes */
        return put_sect(out, dir, type, raw, -1, stored);
    iol_tsect s = {type, IOL_CODEC_ZSTD, out->len, n, raw->len};
    out->len += n;
    *stored = n;
    return iol_buf_append(dir, &s, sizeof s);
}

static int cmp_proc(const void *x, const void *y)
{
    const proc_enc *a = x, *b = y;
    int ra = a->sp.mpi_rank >= 0, rb = b->sp.mpi_rank >= 0;
    if (ra != rb)
        return rb - ra;
    if (ra && a->sp.mpi_rank != b->sp.mpi_rank)
        return a->sp.mpi_rank < b->sp.mpi_rank ? -1 : 1;
    if (a->sp.start_ns != b->sp.start_ns)
        return a->sp.start_ns < b->sp.start_ns ? -1 : 1;
    return a->sp.pid < b->sp.pid ? -1 : a->sp.pid > b->sp.pid;
}

/* Whole or not at all (util/fs.h): a temporary file beside path renamed over it; a failed write
 * leaves what path held (a device or pipe given as -o is written in place). */
static int write_file(const char *path, const iol_buf *hdr, const iol_buf *body)
{
    iol_atomic a;
    FILE *f = iol_atomic_fopen(&a, path, "wb");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot create '%s': %s", path, strerror(errno));
    int ok = fwrite(hdr->data, 1, hdr->len, f) == hdr->len &&
             (!body->len || fwrite(body->data, 1, body->len, f) == body->len);
    ok = fflush(f) == 0 && ok;
    int e = errno;
    if (iol_atomic_fclose(&a, f, ok) < 0)
        return iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(e && !ok ? e : errno));
    return 0;
}

int iolens_trace_build(const char *spill_dir, const char *out_path, const iolens_trace_build_opts *opts,
                       iolens_trace_stats *stats)
{
    int rc = 0;
    proc_enc *pr = NULL;
    size_t np = 0;
    group *gs = NULL;
    size_t ng = 0;
    iol_buf meta = IOL_BUF_INIT, strct = IOL_BUF_INIT, times = IOL_BUF_INIT;
    iol_buf hdr = IOL_BUF_INIT, body = IOL_BUF_INIT, dir = IOL_BUF_INIT;
    uint64_t res = opts && opts->resolution_ns ? opts->resolution_ns : 1000;
    int level = opts && opts->zstd_level ? opts->zstd_level : 19;
    iolens_trace_stats stt;
    memset(&stt, 0, sizeof stt);

    int used[IOL_F_COUNT] = {0};
    char **names = NULL;
    size_t nnames = 0;
    DIR *d = opendir(spill_dir);
    if (!d)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", spill_dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".raw"))
            continue;
        if (nnames >= IOL_TRACE_MAX_PROCS) {
            rc = iol_err(IOLENS_EINVAL, "'%s' holds too many spill files", spill_dir);
            goto done;
        }
        char **nn = realloc(names, (nnames + 1) * sizeof *nn);
        size_t pl = strlen(spill_dir) + l + 2;
        char *pth = nn ? malloc(pl) : NULL;
        if (nn)
            names = nn;
        if (!pth) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        snprintf(pth, pl, "%s/%s", spill_dir, e->d_name);
        names[nnames++] = pth;
    }
    if (nnames == 0) {
        rc = iol_err(IOLENS_ENOTFOUND, "no spill files in '%s' (was the shim loaded?)", spill_dir);
        goto done;
    }
    uint64_t job_start = UINT64_MAX;
    for (size_t i = 0; i < nnames; i++) {
        uint64_t st0;
        if ((rc = iol_spill_start(names[i], &st0)))
            goto done;
        if (st0 < job_start)
            job_start = st0;
    }
    job_start -= job_start % res;
    pr = calloc(nnames, sizeof *pr);
    if (!pr) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nnames; i++) {
        proc_enc *pe = &pr[np++];
        pe->job_start = job_start;
        pe->res = res;
        pe->used = used;
        pe->sigs = calloc(1, sizeof *pe->sigs);
        if (!pe->sigs) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        if ((rc = iol_spill_read(names[i], &pe->sp, encode_recs, pe)))
            goto done;
        if ((rc = finish_proc(pe))) {
            rc = iol_err(rc, "cannot encode '%s': out of memory", names[i]);
            goto done;
        }
        proc_free_work(pe);
        stt.ncalls += pe->ncalls;
        stt.nsignatures += pe->nsigs;
        stt.nrules += pe->nrules;
        stt.ntruncated += (uint64_t)pe->sp.truncated;
        if (pe->sp.stopped > 0 && pe->sp.stopped < IOLENS_STOP_COUNT)
            stt.nstopped[pe->sp.stopped]++;
    }
    qsort(pr, np, sizeof *pr, cmp_proc);
    /* groups */
    gs = calloc(np, sizeof *gs);
    if (!gs) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < np; i++) {
        int joined = 0;
        for (size_t g = ng > 64 ? ng - 64 : 0; g < ng && !joined; g++) {
            joined = try_join(&gs[g], &pr[i], i);
            if (joined < 0) {
                rc = iol_err(IOLENS_ENOMEM, "out of memory");
                goto done;
            }
        }
        if (joined)
            continue;
        group *g = &gs[ng++];
        g->vlen = pr[i].v.n;
        g->first = &pr[i];
        g->members = malloc(sizeof *g->members);
        g->b = malloc((g->vlen + 1) * sizeof *g->b);
        g->a = calloc(g->vlen + 1, sizeof *g->a);
        if (!g->members || !g->b || !g->a) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        g->members[0] = i;
        g->n = 1;
        if (g->vlen)
            memcpy(g->b, pr[i].v.v, g->vlen * sizeof *g->b);
    }
    /* META */
    rc = iol_put_uv(&meta, np);
    rc = rc ? rc : iol_put_uv(&meta, res);
    rc = rc ? rc : iol_put_uv(&meta, job_start);
    for (size_t i = 0; i < np && !rc; i++) {
        rc = iol_put_sv(&meta, pr[i].sp.pid);
        rc = rc ? rc : iol_put_sv(&meta, (int64_t)((uint64_t)pr[i].sp.ppid - (uint64_t)pr[i].sp.pid));
        rc = rc ? rc : iol_put_sv(&meta, pr[i].sp.mpi_rank);
        rc = rc ? rc : iol_put_uv(&meta, (uint64_t)(pr[i].sp.truncated != 0) | (uint64_t)pr[i].sp.stopped << 1);
    }
    unsigned nf = 0;
    for (unsigned f = 0; f < IOL_F_COUNT; f++)
        nf += (unsigned)used[f];
    rc = rc ? rc : iol_put_uv(&meta, nf);
    for (unsigned f = 0; f < IOL_F_COUNT && !rc; f++) {
        if (!used[f])
            continue;
        const char *name = iol_func_by_id(f)->name;
        rc = iol_put_uv(&meta, f);
        rc = rc ? rc : iol_put_uv(&meta, strlen(name));
        rc = rc ? rc : iol_buf_append(&meta, name, strlen(name));
    }
    /* STRUCT */
    rc = rc ? rc : iol_put_uv(&strct, ng);
    for (size_t g = 0; g < ng && !rc; g++) {
        group *G = &gs[g];
        rc = iol_put_uv(&strct, G->n);
        for (size_t m = 0; m < G->n && !rc; m++)
            rc = iol_put_uv(&strct, m ? G->members[m] - G->members[m - 1] : G->members[0]);
        rc = rc ? rc : iol_put_uv(&strct, G->first->s.len);
        rc = rc ? rc : iol_buf_append(&strct, G->first->s.data ? G->first->s.data : "", G->first->s.len);
        rc = rc ? rc : iol_put_uv(&strct, G->vlen);
        size_t na = 0;
        for (size_t j = 0; j < G->vlen && !rc; j++) {
            rc = iol_put_sv(&strct, G->b[j]);
            na += G->a[j] != 0;
        }
        rc = rc ? rc : iol_put_uv(&strct, na);
        size_t last = 0;
        for (size_t j = 0; j < G->vlen && !rc; j++) {
            if (!G->a[j])
                continue;
            rc = iol_put_uv(&strct, j - last);
            rc = rc ? rc : iol_put_sv(&strct, G->a[j]);
            last = j;
        }
    }
    if (np == 1) { /* one process: its timestamp bytes are the section (no copy) */
        iol_buf_release(&times);
        times = pr[0].times;
        pr[0].times = (iol_buf)IOL_BUF_INIT;
    }
    for (size_t i = 0; i < np && !rc && np > 1; i++)
        rc = iol_buf_append(&times, pr[i].times.data ? pr[i].times.data : "", pr[i].times.len);
    if (rc) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    /* file: small sections get zstd's strongest level; a large timestamp
     * section a fast one (level 19 runs at a few MB/s, level 6 still takes
     * a fifth of the build; building the trace must stay a small fraction of
     * the traced run) */
    int times_level = level;
    if (!(opts && opts->zstd_level) && times.len > (1u << 20))
        times_level = 3;
    if ((rc = put_sect(&body, &dir, IOL_TS_META, &meta, level, &stt.bytes_meta)) ||
        (rc = put_sect(&body, &dir, IOL_TS_STRUCT, &strct, level, &stt.bytes_struct)) ||
        (rc = put_sect(&body, &dir, IOL_TS_TIMES, &times, times_level, &stt.bytes_times)))
        goto done;
    uint32_t nsect = 3;
    int any_self = 0;
    for (size_t i = 0; i < np; i++)
        any_self |= pr[i].sp.self.samples != 0;
    if (any_self) { /* SELF: only when some process sampled the tracer's cost */
        iol_buf self = IOL_BUF_INIT;
        uint64_t stored = 0;
        rc = iol_put_uv(&self, np);
        for (size_t i = 0; i < np && !rc; i++) {
            rc = iol_put_uv(&self, pr[i].sp.self.samples);
            rc = rc ? rc : iol_put_uv(&self, pr[i].sp.self.post_ns);
            rc = rc ? rc : iol_put_uv(&self, pr[i].sp.self.pre_ns);
        }
        /* then per process its functions' figures (readers of format 1.1 stop before them) */
        for (size_t i = 0; i < np && !rc; i++) {
            rc = iol_put_uv(&self, pr[i].sp.nselff);
            for (size_t k = 0; k < pr[i].sp.nselff && !rc; k++) {
                rc = iol_put_uv(&self, pr[i].sp.selff[k].func);
                rc = rc ? rc : iol_put_uv(&self, pr[i].sp.selff[k].samples);
                rc = rc ? rc : iol_put_uv(&self, pr[i].sp.selff[k].post_ns);
            }
        }
        rc = rc ? iol_err(IOLENS_ENOMEM, "out of memory") : put_sect(&body, &dir, IOL_TS_SELF, &self, level, &stored);
        stt.bytes_meta += stored;
        iol_buf_release(&self);
        if (rc)
            goto done;
        nsect++;
    }
    int any_job = 0;
    for (size_t i = 0; i < np; i++)
        any_job |= pr[i].sp.cmd || pr[i].sp.jobid || pr[i].sp.uid >= 0;
    if (any_job) { /* JOB: each process's command line, user and job id (shims of 1.3 and later) */
        iol_buf job = IOL_BUF_INIT;
        uint64_t stored = 0;
        rc = iol_put_uv(&job, np);
        for (size_t i = 0; i < np && !rc; i++) {
            const iol_spill_proc *sp = &pr[i].sp;
            size_t jl = sp->jobid ? strlen(sp->jobid) : 0;
            rc = iol_put_uv(&job, sp->uid >= 0 ? (uint64_t)sp->uid + 1 : 0);
            rc = rc ? rc : iol_put_uv(&job, sp->cmd ? sp->cmdlen : 0);
            rc = rc ? rc : iol_buf_append(&job, sp->cmd ? sp->cmd : "", sp->cmd ? sp->cmdlen : 0);
            rc = rc ? rc : iol_put_uv(&job, jl);
            rc = rc ? rc : iol_buf_append(&job, sp->jobid ? sp->jobid : "", jl);
        }
        rc = rc ? iol_err(IOLENS_ENOMEM, "out of memory") : put_sect(&body, &dir, IOL_TS_JOB, &job, level, &stored);
        stt.bytes_meta += stored;
        iol_buf_release(&job);
        if (rc)
            goto done;
        nsect++;
    }
    uint16_t major = IOL_TRACE_MAJOR, minor = IOL_TRACE_MINOR;
    if ((rc = iol_buf_append(&hdr, IOL_TRACE_MAGIC, 8)) || (rc = iol_buf_append(&hdr, &major, 2)) ||
        (rc = iol_buf_append(&hdr, &minor, 2)) || (rc = iol_buf_append(&hdr, &nsect, 4)))
        goto done;
    uint64_t base = IOL_TRACE_HDR_SIZE + dir.len;
    for (size_t k = 0; k < nsect; k++) {
        iol_tsect *s = (iol_tsect *)(void *)(dir.data + k * sizeof *s);
        s->offset += base;
    }
    if ((rc = iol_buf_append(&hdr, dir.data, dir.len)))
        goto done;
    if ((rc = write_file(out_path, &hdr, &body)))
        goto done;
    stt.nprocs = np;
    stt.ngroups = ng;
    stt.bytes_header = hdr.len;
    stt.bytes_total = hdr.len + body.len;
done:
    if (stats) /* on failure: the counts of what was read (why processes stopped early, for the message) */
        *stats = stt;
    closedir(d);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    for (size_t i = 0; i < np; i++) {
        proc_free_work(&pr[i]);
        iol_spill_release(&pr[i].sp);
        iol_buf_release(&pr[i].s);
        iol_buf_release(&pr[i].times);
        free(pr[i].v.v);
    }
    free(pr);
    for (size_t g = 0; g < ng; g++) {
        free(gs[g].members);
        free(gs[g].a);
        free(gs[g].b);
    }
    free(gs);
    iol_buf_release(&meta);
    iol_buf_release(&strct);
    iol_buf_release(&times);
    iol_buf_release(&hdr);
    iol_buf_release(&body);
    iol_buf_release(&dir);
    return rc;
}

static int spill_owned_name(const char *n)
{
    size_t l = strlen(n);
    if (l >= 5 && !strcmp(n + l - 4, ".raw"))
        return 1;
    const char *off = strstr(n, ".raw" IOL_RAW_OFF_SUFFIX);
    if (off && off != n)
        return 1;
    if (!strcmp(n, "build.lock"))
        return 1;
    if (!strncmp(n, "done.", 5) && n[5]) {
        for (const char *c = n + 5; *c; c++)
            if (*c < '0' || *c > '9')
                return 0;
        return 1;
    }
    return 0;
}

int iolens_trace_remove_spill(const char *spill_dir)
{
    DIR *d = opendir(spill_dir);
    if (!d)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", spill_dir, strerror(errno));
    int rc = 0, others = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!spill_owned_name(e->d_name)) {
            others = 1;
            continue;
        }
        if (unlinkat(dirfd(d), e->d_name, 0) && errno != ENOENT && !rc)
            rc = iol_err(IOLENS_EIO, "cannot remove '%s/%s': %s", spill_dir, e->d_name, strerror(errno));
    }
    closedir(d);
    if (!others && rmdir(spill_dir) && errno != ENOENT && errno != ENOTEMPTY && !rc)
        rc = iol_err(IOLENS_EIO, "cannot remove '%s': %s", spill_dir, strerror(errno));
    return rc;
}

int iolens_trace_build_warnings(const iolens_trace_stats *st, char *buf, size_t n)
{
    int lines = 0;
    size_t at = 0;
    uint64_t stopped = 0;
    if (n)
        buf[0] = 0;
    for (int r = 1; r < IOLENS_STOP_COUNT; r++) {
        if (!st->nstopped[r])
            continue;
        stopped += st->nstopped[r];
        int w = snprintf(at < n ? buf + at : NULL, at < n ? n - at : 0,
                         "%s%" PRIu64 " process(es) stopped tracing early because %s; their calls until then are kept, "
                         "later calls ran untraced",
                         lines ? "\n" : "", st->nstopped[r], iolens_trace_stop_text(r));
        at += w > 0 ? (size_t)w : 0;
        lines++;
    }
    if (st->ntruncated > stopped) {
        int w = snprintf(at < n ? buf + at : NULL, at < n ? n - at : 0,
                         "%s%" PRIu64 " process(es) ended without closing their trace (killed, or left through a "
                         "path the tracer does not see); their calls up to the last flush are kept",
                         lines ? "\n" : "", st->ntruncated - stopped);
        (void)w;
        lines++;
    }
    return lines;
}
