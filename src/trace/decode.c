/*
 * Reading a trace file (docs/TRACE-FORMAT.md) as an event source. The input
 * is hostile: every count is checked against the bytes that hold it, grammar
 * rules may only reference earlier rules and never have empty bodies, the
 * number of calls a grammar expands to must equal the number of timestamps,
 * and the memory the structure expands to is capped.
 */
#define _DEFAULT_SOURCE
#include "trace/decode.h"
#include "iolens/trace.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/funcs.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/evsource.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAX_VALUES (1u << 25)      /* structure values expanded over all processes */
#define MAX_PATH_BYTES (1u << 28)  /* reconstructed path bytes over all processes */
#define MAX_PATHS (1u << 24)

static int ferr(const iol_trace *t, uint64_t at, const char *what)
{
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %llu", t->name, what, (unsigned long long)at);
}

/* ---- sections ---- */
static int load_sections(iol_trace *t, const uint8_t *d, size_t n)
{
    if (n < IOL_TRACE_HDR_SIZE)
        return ferr(t, n, "truncated header");
    if (memcmp(d, IOL_TRACE_MAGIC, 8))
        return ferr(t, 0, "not an iolens trace (bad magic)");
    uint16_t major, minor;
    uint32_t ns;
    memcpy(&major, d + 8, 2);
    memcpy(&minor, d + 10, 2);
    memcpy(&ns, d + 12, 4);
    if (major != IOL_TRACE_MAJOR)
        return iol_err(IOLENS_EVERSION, "cannot read '%s': trace format %u.%u is not supported (this is %u.%u)",
                       t->name, major, minor, IOL_TRACE_MAJOR, IOL_TRACE_MINOR);
    t->minor = minor;
    if (ns > IOL_TRACE_MAX_SECTIONS || n < IOL_TRACE_HDR_SIZE + (uint64_t)ns * IOL_TRACE_SECT_SIZE)
        return ferr(t, 12, "truncated section directory");
    for (uint32_t i = 0; i < ns; i++) {
        iol_tsect s;
        uint64_t at = IOL_TRACE_HDR_SIZE + (uint64_t)i * IOL_TRACE_SECT_SIZE;
        memcpy(&s, d + at, sizeof s);
        if (s.type < IOL_TS_META || s.type > IOL_TS_JOB)
            continue; /* unknown sections are skipped */
        if (s.offset > n || s.stored > n - s.offset)
            return ferr(t, at, "section extends past the end of the file (truncated trace)");
        /* a section inflates at most 1024 times (the tracer's compress 1.4 to 13 times), to at most
         * 1 GiB: a small file that says otherwise (a decompression bomb) is refused before memory
         * is taken for it */
        if (s.size > (1ull << 30) || s.size > s.stored * 1024 + (1u << 20))
            return ferr(t, at, "implausible section size (more than 1024 times its stored size, or 1 GiB)");
        iol_sectdata *sd = &t->sect[s.type];
        if (sd->data)
            return ferr(t, at, "duplicate section");
        sd->at = s.offset;
        sd->stored = s.stored;
        sd->data = malloc(s.size ? s.size : 1);
        if (!sd->data)
            return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", t->name);
        sd->len = s.size;
        if (s.codec == IOL_CODEC_RAW) {
            if (s.stored != s.size)
                return ferr(t, at, "raw section size mismatch");
            memcpy(sd->data, d + s.offset, s.size);
        } else if (s.codec == IOL_CODEC_ZSTD) {
            unsigned long long fs = ZSTD_getFrameContentSize(d + s.offset, s.stored);
            if (fs != s.size)
                return ferr(t, s.offset, "compressed section size mismatch");
            size_t got = ZSTD_decompress(sd->data, s.size, d + s.offset, s.stored);
            if (ZSTD_isError(got) || got != s.size)
                return ferr(t, s.offset, "corrupt compressed section");
        } else {
            return ferr(t, at, "unknown section codec");
        }
    }
    for (int k = IOL_TS_META; k <= IOL_TS_TIMES; k++)
        if (!t->sect[k].data)
            return ferr(t, n, "missing section (truncated trace)");
    return 0;
}

/* ---- global file table ---- */
static int64_t file_intern(iol_trace *t, const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    if ((t->nfiles + 1) * 2 > t->fcap) {
        size_t nc = t->fcap ? t->fcap * 2 : 64;
        uint32_t *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return IOLENS_ENOMEM;
        for (size_t i = 0; i < t->nfiles; i++) {
            size_t k = t->fhash[i] & (nc - 1);
            while (ns[k])
                k = (k + 1) & (nc - 1);
            ns[k] = (uint32_t)(i + 1);
        }
        free(t->fslots);
        t->fslots = ns;
        t->fcap = nc;
    }
    size_t k = h & (t->fcap - 1);
    while (t->fslots[k]) {
        size_t id = t->fslots[k] - 1;
        if (t->fhash[id] == h && !strcmp(t->files[id].path, s))
            return (int64_t)id;
        k = (k + 1) & (t->fcap - 1);
    }
    if (t->nfiles == t->filescap) {
        size_t nc = t->filescap ? t->filescap * 2 : 64;
        iolens_file *nf = realloc(t->files, nc * sizeof *nf);
        uint64_t *nh = nf ? realloc(t->fhash, nc * sizeof *nh) : NULL;
        if (nf)
            t->files = nf;
        if (!nh)
            return IOLENS_ENOMEM;
        t->fhash = nh;
        t->filescap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return IOLENS_ENOMEM;
    memcpy(c, s, len);
    c[len] = 0;
    t->files[t->nfiles].id = (int64_t)t->nfiles;
    t->files[t->nfiles].path = c;
    t->fhash[t->nfiles] = h;
    t->fslots[k] = (uint32_t)(t->nfiles + 1);
    return (int64_t)t->nfiles++;
}

/* ---- per-process structure ---- */
typedef struct vcur {
    const int64_t *v;
    size_t n, pos;
    int bad;
} vcur;

static int64_t vget(vcur *c)
{
    if (c->pos >= c->n) {
        c->bad = 1;
        return 0;
    }
    return c->v[c->pos++];
}

/* A count read from the vector: 0..limit, and at most what the vector can still hold per item. */
static int64_t vcount(vcur *c, int64_t limit, size_t per_item)
{
    int64_t x = vget(c);
    if (x < 0 || x > limit || (per_item && (uint64_t)x > (c->n - c->pos) / per_item))
        c->bad = 1;
    return c->bad ? 0 : x;
}

static int build_paths(iol_trace *t, iol_proc *p, vcur *c, const char *s, size_t slen, size_t *path_bytes)
{
    int64_t ntmpl = vcount(c, (int64_t)slen, 0);
    const char **tmpl = calloc((size_t)ntmpl + 1, sizeof *tmpl);
    char *buf = malloc(IOL_RAW_MAX_PATH * 4 + 64);
    int rc = 0;
    if (!tmpl || !buf) {
        rc = IOLENS_ENOMEM;
        goto done;
    }
    size_t off = 0;
    for (int64_t i = 0; i < ntmpl; i++) {
        if (off >= slen) {
            rc = IOLENS_EFORMAT;
            goto done;
        }
        tmpl[i] = s + off;
        size_t l = strnlen(s + off, slen - off);
        if (off + l >= slen) {
            rc = IOLENS_EFORMAT;
            goto done;
        }
        off += l + 1;
    }
    int64_t nruns = vcount(c, MAX_PATHS, 2);
    for (int64_t r = 0; r < nruns && !c->bad; r++) {
        int64_t ti = vget(c);
        int64_t count = vget(c);
        if (ti < 0 || ti >= ntmpl || count < 1 || count > MAX_PATHS || p->npaths + (uint64_t)count > MAX_PATHS) {
            rc = IOLENS_EFORMAT;
            goto done;
        }
        const char *tp = tmpl[ti];
        int64_t start[32], delta[32];
        int nf = 0;
        for (const char *q = tp; *q; q++) {
            if (*q == 1 || *q == 2) {
                if (!q[1]) {
                    rc = IOLENS_EFORMAT;
                    goto done;
                }
                if (*q == 1) {
                    if (nf >= 32) {
                        rc = IOLENS_EFORMAT;
                        goto done;
                    }
                    start[nf] = vget(c);
                    delta[nf] = vget(c);
                    nf++;
                }
                q++;
            }
        }
        int64_t *np = realloc(p->paths, (p->npaths + (size_t)count) * sizeof *np);
        if (!np) {
            rc = IOLENS_ENOMEM;
            goto done;
        }
        p->paths = np;
        for (int64_t k = 0; k < count; k++) {
            size_t bl = 0;
            int f = 0;
            for (const char *q = tp; *q && bl < IOL_RAW_MAX_PATH * 4; q++) {
                if (*q == 1) {
                    int w = (unsigned char)q[1] > 1 ? (unsigned char)q[1] - 1 : 0;
                    int64_t v = (int64_t)((uint64_t)start[f] + (uint64_t)k * (uint64_t)delta[f]);
                    f++;
                    bl += (size_t)snprintf(buf + bl, 40, "%0*lld", w > 20 ? 20 : w, (long long)v);
                    q++;
                } else if (*q == 2) {
                    buf[bl++] = q[1];
                    q++;
                } else {
                    buf[bl++] = *q;
                }
            }
            buf[bl] = 0;
            *path_bytes += bl + 1;
            if (*path_bytes > MAX_PATH_BYTES) {
                rc = IOLENS_EFORMAT;
                goto done;
            }
            int64_t id = file_intern(t, buf, bl);
            if (id < 0) {
                rc = (int)id;
                goto done;
            }
            p->paths[p->npaths++] = id;
        }
    }
    if (c->bad)
        rc = IOLENS_EFORMAT;
done:
    free(tmpl);
    free(buf);
    return rc;
}

static int parse_grammar(iol_thread *th, vcur *c, int64_t nsig)
{
    th->nrules = (size_t)vcount(c, INT32_MAX, 1);
    th->rule_off = calloc(th->nrules + 1, sizeof *th->rule_off);
    th->rule_len = calloc(th->nrules + 1, sizeof *th->rule_len);
    uint64_t *cnt = calloc(th->nrules + 1, sizeof *cnt);
    int rc = 0;
    if (!th->rule_off || !th->rule_len || !cnt) {
        rc = IOLENS_ENOMEM;
        goto done;
    }
    for (size_t r = 0; r <= th->nrules && !c->bad; r++) {
        /* rules 0..nrules-1, then the main sequence at index nrules */
        size_t len = (size_t)vcount(c, INT32_MAX, 2);
        if (r < th->nrules && len == 0) {
            rc = IOLENS_EFORMAT;
            goto done;
        }
        th->rule_off[r] = c->pos;
        th->rule_len[r] = len;
        uint64_t total = 0;
        for (size_t i = 0; i < len && !c->bad; i++) {
            int64_t sym = vget(c), exp = vget(c);
            uint64_t sub;
            if (exp < 1) {
                rc = IOLENS_EFORMAT;
                goto done;
            }
            if (sym >= 0) {
                if (sym >= nsig) {
                    rc = IOLENS_EFORMAT;
                    goto done;
                }
                sub = 1;
            } else {
                int64_t ref = -(sym + 1);
                if ((uint64_t)ref >= r) {
                    rc = IOLENS_EFORMAT;
                    goto done;
                }
                sub = cnt[ref];
            }
            if (sub && (uint64_t)exp > (UINT64_MAX >> 1) / sub) {
                rc = IOLENS_EFORMAT;
                goto done;
            }
            total += sub * (uint64_t)exp;
            if (total > (UINT64_MAX >> 1)) {
                rc = IOLENS_EFORMAT;
                goto done;
            }
        }
        cnt[r] = total;
    }
    if (c->bad)
        rc = IOLENS_EFORMAT;
    else
        th->ncalls = cnt[th->nrules];
    th->stack = calloc(th->nrules + 2, sizeof *th->stack);
    if (!rc && !th->stack)
        rc = IOLENS_ENOMEM;
done:
    free(cnt);
    return rc;
}

static int parse_proc(iol_trace *t, iol_proc *p, size_t *path_bytes)
{
    vcur c = {p->v, p->vlen, 0, 0};
    int rc = 0;
    p->nthreads = (size_t)vcount(&c, IOL_TRACE_MAX_THREADS, 1);
    p->th = calloc(p->nthreads + 1, sizeof *p->th);
    if (!p->th)
        return IOLENS_ENOMEM;
    for (size_t i = 0; i < p->nthreads; i++) {
        int64_t tid = vget(&c);
        if (tid < 0 || tid > UINT32_MAX)
            return IOLENS_EFORMAT;
        p->th[i].tid = (uint32_t)tid;
    }
    p->nsig = vcount(&c, INT32_MAX, IOL_SIG_NFIELDS);
    p->sigs = p->v + c.pos;
    c.pos += (size_t)p->nsig * IOL_SIG_NFIELDS;
    for (int64_t s = 0; s < p->nsig && !c.bad; s++) {
        int64_t f = p->sigs[s * IOL_SIG_NFIELDS + IOL_SIG_FUNC];
        if (f < 0 || f >= (int64_t)IOL_F_COUNT || !t->func_names[f])
            return IOLENS_EFORMAT;
    }
    if ((rc = build_paths(t, p, &c, p->s, p->slen, path_bytes)))
        return rc;
    for (size_t i = 0; i < p->nthreads; i++)
        if ((rc = parse_grammar(&p->th[i], &c, p->nsig)))
            return rc;
    if (c.bad || c.pos != c.n)
        return IOLENS_EFORMAT;
    return 0;
}

static int parse_meta(iol_trace *t)
{
    iol_cur c = {t->sect[IOL_TS_META].data, t->sect[IOL_TS_META].len, 0, 0};
    uint64_t np = iol_get_uv(&c);
    if (c.bad || np == 0 || np > IOL_TRACE_MAX_PROCS || np > c.len)
        return ferr(t, t->sect[IOL_TS_META].at, "bad process count in the metadata section");
    t->res_ns = iol_get_uv(&c);
    t->start_ns = iol_get_uv(&c);
    if (t->res_ns == 0 || t->res_ns > 1000000000ull)
        return ferr(t, t->sect[IOL_TS_META].at, "bad time resolution in the metadata section");
    t->procs = calloc(np, sizeof *t->procs);
    if (!t->procs)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    t->nprocs = (size_t)np;
    for (size_t i = 0; i < np; i++) {
        iol_proc *p = &t->procs[i];
        p->pid = iol_get_sv(&c);
        p->ppid = (int64_t)((uint64_t)p->pid + (uint64_t)iol_get_sv(&c));
        p->mpi_rank = (int32_t)iol_get_sv(&c);
        uint64_t tv = iol_get_uv(&c); /* bit 0: truncated; above: why tracing stopped (iolens_trace_stop) */
        p->truncated = (int)(tv & 1);
        p->stopped = (tv >> 1) < IOLENS_STOP_COUNT ? (int)(tv >> 1) : 0;
    }
    uint64_t nf = iol_get_uv(&c);
    if (nf > IOL_F_COUNT * 4ull)
        c.bad = 1;
    for (uint64_t i = 0; i < nf && !c.bad; i++) {
        uint64_t id = iol_get_uv(&c), len = iol_get_uv(&c);
        if (c.bad || len > 64 || len > c.len - c.pos) {
            c.bad = 1;
            break;
        }
        char name[65];
        memcpy(name, c.p + c.pos, len);
        name[len] = 0;
        c.pos += len;
        int local = iol_func_by_name(name);
        if (id >= IOL_F_COUNT || local < 0) /* a function this reader does not know */
            return iol_err(IOLENS_EUNSUPPORTED, "cannot read '%s': unknown traced function '%s'", t->name, name);
        t->func_names[id] = iol_func_by_id((unsigned)local)->name;
        t->func_map[id] = local;
    }
    if (c.bad)
        return ferr(t, t->sect[IOL_TS_META].at + c.pos, "truncated metadata section");
    return 0;
}

static int parse_struct(iol_trace *t)
{
    iol_sectdata *sd = &t->sect[IOL_TS_STRUCT];
    iol_cur c = {sd->data, sd->len, 0, 0};
    size_t total_values = 0, path_bytes = 0;
    uint64_t ng = iol_get_uv(&c);
    if (c.bad || ng > t->nprocs)
        return ferr(t, sd->at, "bad group count in the structure section");
    t->ngroups = (size_t)ng;
    for (uint64_t g = 0; g < ng; g++) {
        uint64_t nm = iol_get_uv(&c);
        if (c.bad || nm == 0 || nm > t->nprocs)
            return ferr(t, sd->at, "bad group in the structure section (decoded byte offset given)");
        size_t *mem = calloc(nm, sizeof *mem);
        if (!mem)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        uint64_t cur = 0;
        int bad = 0;
        for (uint64_t m = 0; m < nm; m++) {
            uint64_t dlt = iol_get_uv(&c);
            if (m && dlt == 0)
                bad = 1;
            cur += dlt;
            if (cur >= t->nprocs || t->procs[cur].v)
                bad = 1;
            mem[m] = (size_t)cur;
            if (bad || c.bad)
                break;
        }
        uint64_t slen = iol_get_uv(&c);
        if (bad || c.bad || slen > c.len - c.pos) {
            free(mem);
            return ferr(t, sd->at, "bad member list or template pool in the structure section");
        }
        const char *s = (const char *)c.p + c.pos;
        c.pos += slen;
        uint64_t vlen = iol_get_uv(&c);
        if (c.bad || vlen > c.len - c.pos || total_values + vlen * nm > MAX_VALUES) {
            free(mem);
            return ferr(t, sd->at, "structure vector too long");
        }
        /* scratch memory (util/buf.h): freeing it leaves glibc's thresholds alone (replay) */
        size_t absize = (size_t)(vlen + 1) * sizeof(int64_t);
        int64_t *b = iol_scratch_alloc(absize), *a = iol_scratch_alloc(absize);
        if (!a || !b) {
            iol_scratch_free(a, absize);
            iol_scratch_free(b, absize);
            free(mem);
            return iol_err(IOLENS_ENOMEM, "out of memory");
        }
        for (uint64_t j = 0; j < vlen; j++)
            b[j] = iol_get_sv(&c);
        uint64_t na = iol_get_uv(&c), j = 0;
        for (uint64_t k = 0; k < na && !c.bad; k++) {
            j += iol_get_uv(&c);
            int64_t av = iol_get_sv(&c);
            if (j >= vlen)
                c.bad = 1;
            else
                a[j] = av;
        }
        for (uint64_t m = 0; m < nm && !c.bad; m++) {
            iol_proc *p = &t->procs[mem[m]];
            p->v = malloc((vlen + 1) * sizeof *p->v);
            if (!p->v) {
                c.bad = 1;
                break;
            }
            for (uint64_t q = 0; q < vlen; q++)
                p->v[q] = (int64_t)((uint64_t)b[q] + (uint64_t)a[q] * (uint64_t)mem[m]);
            p->vlen = vlen;
            p->s = s;
            p->slen = slen;
        }
        total_values += vlen * nm;
        iol_scratch_free(a, absize);
        iol_scratch_free(b, absize);
        free(mem);
        if (c.bad)
            return ferr(t, sd->at, "truncated structure section");
    }
    for (size_t i = 0; i < t->nprocs; i++) {
        if (!t->procs[i].v)
            return ferr(t, sd->at, "a process has no structure");
        int rc = parse_proc(t, &t->procs[i], &path_bytes);
        if (rc == IOLENS_ENOMEM)
            return iol_err(rc, "cannot read '%s': out of memory", t->name);
        if (rc)
            return ferr(t, sd->at, "inconsistent process structure in the structure section");
    }
    return 0;
}

/* The optional SELF section (format 1.1): the tracer's sampled cost per process. */
/* Each function's self_after: its own mean where it has IOL_SELF_FUNC_MIN samples. Any other
 * function (few samples, or none) takes the mean of the well-sampled ones, else, when none is,
 * the smallest of the sampled functions' means: the process's own mean is led by a rare costly
 * sample (a first opendir of 385 us beside stats of 0.9 us), and taken off every gap it left
 * fio's 64 stats in a test no time of their own in some runs. Taking off too little leaves the
 * tracer's time in a gap; too much removes the program's. */
static void self_fallback(iol_proc *p)
{
    uint64_t ns = 0, post = 0;
    double least = -1;
    for (size_t k = 0; k < p->nselff; k++) {
        const iol_selff *f = &p->selff[k];
        double m = (double)f->post_ns / (double)f->samples * 1e-9;
        if (f->samples >= IOL_SELF_FUNC_MIN) {
            ns += f->samples;
            post += f->post_ns;
        }
        if (least < 0 || m < least)
            least = m;
    }
    p->self_other = ns ? (double)post / (double)ns * 1e-9 : least >= 0 ? least : p->self_mean;
    for (size_t k = 0; k < p->nselff; k++) {
        iol_selff *f = &p->selff[k];
        f->after = f->samples >= IOL_SELF_FUNC_MIN ? (double)f->post_ns / (double)f->samples * 1e-9 : p->self_other;
    }
}
static int parse_self(iol_trace *t)
{
    iol_sectdata *sd = &t->sect[IOL_TS_SELF];
    if (!sd->data)
        return 0;
    iol_cur c = {sd->data, sd->len, 0, 0};
    uint64_t np = iol_get_uv(&c);
    if (c.bad || np != t->nprocs)
        return ferr(t, sd->at, "bad process count in the tracer-cost section");
    for (size_t i = 0; i < t->nprocs && !c.bad; i++) {
        iol_rawself *x = &t->procs[i].self;
        x->samples = iol_get_uv(&c);
        x->post_ns = iol_get_uv(&c);
        x->pre_ns = iol_get_uv(&c);
        t->procs[i].self_mean = x->samples ? (double)x->post_ns / (double)x->samples * 1e-9 : 0;
        t->procs[i].self_other = t->procs[i].self_mean; /* (format 1.1: no figures per function) */
    }
    /* then, when written (iolens 1.2 and later), each process's figures per function
     * (self_fallback) */
    for (size_t i = 0; i < t->nprocs && !c.bad && c.pos < c.len; i++) {
        iol_proc *p = &t->procs[i];
        uint64_t n = iol_get_uv(&c);
        if (n > IOL_F_COUNT || n * 3 > c.len - c.pos) { /* an entry takes 3 bytes at least */
            c.bad = 1;
            break;
        }
        if (n && !(p->selff = malloc(n * sizeof *p->selff)))
            return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", t->name);
        for (uint64_t k = 0; k < n && !c.bad; k++) {
            uint64_t id = iol_get_uv(&c), samples = iol_get_uv(&c), post = iol_get_uv(&c);
            if (c.bad || id >= IOL_F_COUNT || t->func_map[id] < 0 || !samples)
                continue;
            /* (a fortified entry point's figures are its plain call's: the reader's records
             * carry the plain id) */
            p->selff[p->nselff++] = (iol_selff){iol_func_plain((unsigned)t->func_map[id]), samples, post, 0};
        }
        self_fallback(p);
    }
    if (c.bad)
        return ferr(t, sd->at + c.pos, "truncated tracer-cost section");
    return 0;
}

/* The optional JOB section (format 1.3): each process's command line, user and job id. */
static int parse_job(iol_trace *t)
{
    iol_sectdata *sd = &t->sect[IOL_TS_JOB];
    for (size_t i = 0; i < t->nprocs; i++)
        t->procs[i].uid = -1;
    if (!sd->data)
        return 0;
    iol_cur c = {sd->data, sd->len, 0, 0};
    uint64_t np = iol_get_uv(&c);
    if (c.bad || np != t->nprocs)
        return ferr(t, sd->at, "bad process count in the job section");
    for (size_t i = 0; i < t->nprocs && !c.bad; i++) {
        iol_proc *p = &t->procs[i];
        uint64_t uid1 = iol_get_uv(&c);
        uint64_t cl = iol_get_uv(&c);
        if (c.bad || uid1 > (1ull << 32) || cl > IOL_RAW_MAX_CMDLINE || cl > c.len - c.pos) {
            c.bad = 1;
            break;
        }
        p->uid = uid1 ? (int64_t)(uid1 - 1) : -1;
        if (cl) { /* every argument NUL-terminated, whatever the input holds */
            if (!(p->cmd = malloc(cl + 1)))
                return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", t->name);
            memcpy(p->cmd, c.p + c.pos, cl);
            p->cmd[cl] = 0;
            p->cmdlen = cl;
            if (p->cmd[cl - 1] && cl < IOL_RAW_MAX_CMDLINE)
                p->cmdlen = cl + 1; /* (the NUL above) */
            else
                p->cmd[cl - 1] = 0;
            c.pos += cl;
        }
        uint64_t jl = iol_get_uv(&c);
        if (c.bad || jl > IOL_RAW_MAX_JOBID || jl > c.len - c.pos) {
            c.bad = 1;
            break;
        }
        if (!(p->jobid = malloc(jl + 1)))
            return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", t->name);
        memcpy(p->jobid, c.p + c.pos, jl);
        p->jobid[jl] = 0;
        c.pos += jl;
    }
    if (c.bad)
        return ferr(t, sd->at + c.pos, "truncated job section");
    return 0;
}

static int parse_times(iol_trace *t)
{
    iol_sectdata *sd = &t->sect[IOL_TS_TIMES];
    iol_cur c = {sd->data, sd->len, 0, 0};
    for (size_t i = 0; i < t->nprocs; i++) {
        iol_proc *p = &t->procs[i];
        for (size_t k = 0; k < p->nthreads; k++) {
            iol_thread *th = &p->th[k];
            uint64_t n = iol_get_uv(&c);
            if (c.bad || n != th->ncalls)
                return ferr(t, sd->at, "timestamp count does not match the call count (corrupt or truncated)");
            th->ts_off = c.pos;
            for (uint64_t e = 0; e < n && !c.bad; e++)
                (void)iol_get_uv(&c);
            th->dur_off = c.pos;
            for (uint64_t e = 0; e < n && !c.bad; e++)
                (void)iol_get_uv(&c);
            if (c.bad)
                return ferr(t, sd->at, "truncated timestamp section");
            p->ncalls += n;
        }
    }
    return 0;
}

void iol_trace_release(iol_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nprocs; i++) {
        iol_proc *p = &t->procs[i];
        for (size_t k = 0; p->th && k < p->nthreads; k++) {
            free(p->th[k].rule_off);
            free(p->th[k].rule_len);
            free(p->th[k].stack);
            iol_pred_release(&p->th[k].pred);
        }
        free(p->th);
        free(p->v);
        free(p->paths);
        free(p->selff);
        free(p->cmd);
        free(p->jobid);
        iol_offmap_release(&p->fdpos);
    }
    free(t->procs);
    for (size_t i = 0; i < t->nfiles; i++)
        free((char *)t->files[i].path);
    free(t->files);
    free(t->fhash);
    free(t->fslots);
    for (size_t k = 0; k < sizeof t->sect / sizeof t->sect[0]; k++)
        free(t->sect[k].data);
    free(t->name);
    free(t);
}

int iol_trace_load(const void *data, size_t size, const char *name, iol_trace **out)
{
    *out = NULL;
    iol_trace *t = calloc(1, sizeof *t);
    if (!t)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    t->name = strdup(name ? name : "<memory>");
    int rc = t->name ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
    for (unsigned i = 0; i < IOL_F_COUNT; i++)
        t->func_map[i] = -1;
    if (!rc)
        rc = load_sections(t, data, size);
    if (!rc)
        rc = parse_meta(t);
    if (!rc)
        rc = parse_struct(t);
    if (!rc)
        rc = parse_times(t);
    if (!rc)
        rc = parse_self(t);
    if (!rc)
        rc = parse_job(t);
    for (size_t i = 0; !rc && i < t->nprocs; i++)
        rc = iol_trace_rewind(t, (int)i);
    if (rc) {
        iol_trace_release(t);
        return rc;
    }
    *out = t;
    return 0;
}
