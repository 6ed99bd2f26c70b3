/*
 * What-if transforms (docs/whatif.md): the change template of a detected
 * pattern's card (iolens detect, Table I of the IOSage seed) written as an
 * edit of a replay config, so that `iolens whatif` can replay the base and
 * the changed config and measure the effect.
 *
 * The base config is read through its parsed (validated, normalised)
 * structures; the variant is built as a JSON tree (the base serialised) that
 * is edited step by step and then parsed and validated again, so a variant is
 * always a config `iolens replay` accepts. Every transform keeps the bytes
 * each rank moves in each step; what it changes is said in the note.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"
#include "util/error.h"

#define MIB 1048576
#define MAX_CHUNKS 100000 /* the parser's limit of chunks per step */
#define MAX_CELLS 64e6    /* rank x chunk cells a transform may hold (as a dry-run plan) */

struct wi {
    const iolens_replay_config *base;
    json_t *steps; /* file_configs of the variant */
    int nranks;
    char *note;
    size_t cap, len;
    int changed;
};

static void note(struct wi *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct wi *w, const char *fmt, ...)
{
    if (!w->note || w->cap == 0 || w->len + 1 >= w->cap)
        return;
    if (w->len) {
        int n = snprintf(w->note + w->len, w->cap - w->len, "; ");
        if (n < 0 || (size_t)n >= w->cap - w->len) {
            w->len = w->cap - 1;
            return;
        }
        w->len += (size_t)n;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->note + w->len, w->cap - w->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= w->cap - w->len)
        w->len = w->cap - 1;
    else
        w->len += (size_t)n;
}

static const char *step_label(const struct rp_fileconf *fc, size_t i, char *buf, size_t cap)
{
    if (fc->name)
        snprintf(buf, cap, "'%s'", fc->name);
    else
        snprintf(buf, cap, "file_configs[%zu]", i);
    return buf;
}

static int is_io(const struct rp_fileconf *fc) { return fc->method == RP_WRITE || fc->method == RP_READ; }

/* ---- per-rank chunk lists ---- */

struct nchunk {
    int64_t size;
    int64_t *reps; /* [nranks] */
};

struct nlist {
    struct nchunk *c;
    size_t n, cap;
    int nranks;
};

static void nlist_release(struct nlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->c[i].reps);
    free(l->c);
    memset(l, 0, sizeof *l);
}

/* Adds reps transfers of size for rank r to the chunk of that size among those from index
 * `from` on (the chunks an original chunk turned into), or to a new chunk. */
static int nlist_add(struct nlist *l, size_t from, int64_t size, int r, int64_t reps)
{
    for (size_t i = from; i < l->n; i++)
        if (l->c[i].size == size) {
            l->c[i].reps[r] += reps;
            return 0;
        }
    if (l->n >= MAX_CHUNKS || (double)(l->n + 1) * l->nranks > MAX_CELLS)
        return iol_err(IOLENS_EINVAL, "more than %zu chunks of %d ranks (limit %d chunks, %.0f rank-chunk cells)",
                       l->n, l->nranks, MAX_CHUNKS, MAX_CELLS);
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        struct nchunk *p = realloc(l->c, nc * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        l->c = p;
        l->cap = nc;
    }
    int64_t *v = calloc((size_t)l->nranks, sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    v[r] = reps;
    l->c[l->n++] = (struct nchunk){size, v};
    return 0;
}

/* The chunks as JSON: "repetitions" when every rank does the same, else an FBench ranks list
 * of the ranks that take part. */
static json_t *nlist_json(const struct nlist *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < l->n; i++) {
        const struct nchunk *c = &l->c[i];
        int uniform = 1, any = 0;
        for (int r = 0; r < l->nranks; r++) {
            uniform &= c->reps[r] == c->reps[0];
            any |= c->reps[r] > 0;
        }
        if (!any && l->n > 1)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "transfer_size", json_integer(c->size));
        if (uniform) {
            json_object_set_new(o, "repetitions", json_integer(c->reps[0]));
        } else {
            json_t *ranks = json_array();
            for (int r = 0; r < l->nranks; r++)
                if (c->reps[r] > 0)
                    json_array_append_new(ranks, json_pack("{s:i, s:I}", "rank", r, "repetitions",
                                                           (json_int_t)c->reps[r]));
            json_object_set_new(o, "ranks", ranks);
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

static int has_imbalance(const struct rp_fileconf *fc, int nranks)
{
    for (int r = 0; r < nranks && (size_t)r < fc->nimbalance; r++)
        if (fc->imbalance[r] != 1.0)
            return 1;
    return 0;
}

/* Replaces the chunks of step i (imbalance folded into the per-rank repetitions, so it is
 * removed) by l. */
static int set_chunks(struct wi *w, size_t i, const struct nlist *l)
{
    json_t *step = json_array_get(w->steps, i);
    json_t *arr = nlist_json(l);
    if (!step || !arr) {
        json_decref(arr);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    json_object_set_new(step, "chunks", arr);
    json_object_del(step, "imbalance");
    return 0;
}

static void fmt_size(int64_t b, char *buf, size_t cap)
{
    if (b >= MIB && b % MIB == 0)
        snprintf(buf, cap, "%" PRId64 " MiB", b / MIB);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, cap, "%" PRId64 " KiB", b / 1024);
    else
        snprintf(buf, cap, "%" PRId64 " B", b);
}

/* ---- access_granularity ---- */

static int t_granularity(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (!is_io(fc))
            continue;
        int64_t cap = MIB;
        if (fc->access == RP_STRIDED && fc->block_size > 0 && fc->block_size < cap)
            cap = fc->block_size; /* a transfer stays inside a rank's strided block */
        struct nlist l = {NULL, 0, 0, w->nranks};
        int grew = 0, rc = 0;
        int64_t from_size = 0, to_size = 0, bytes = 0;
        for (size_t c = 0; c < fc->nchunks && rc == 0; c++) {
            const struct rp_chunk *ch = &fc->chunks[c];
            size_t first = l.n;
            for (int r = 0; r < w->nranks && rc == 0; r++) {
                int64_t n = rp_chunk_reps(fc, ch, r), b = n * ch->transfer_size;
                bytes += b;
                int64_t t = b < cap ? b : cap;
                if (ch->transfer_size >= MIB || n == 0 || t <= ch->transfer_size) {
                    rc = nlist_add(&l, first, ch->transfer_size, r, n);
                    continue;
                }
                if (!grew || r == 0) {
                    from_size = ch->transfer_size;
                    to_size = t;
                }
                grew = 1;
                rc = nlist_add(&l, first, t, r, b / t);
                if (rc == 0 && b % t)
                    rc = nlist_add(&l, first, b % t, r, 1);
            }
        }
        char lab[300], a[32], b2[32];
        step_label(fc, i, lab, sizeof lab);
        if (rc == 0 && grew) {
            if ((rc = set_chunks(w, i, &l)) == 0) {
                fmt_size(from_size, a, sizeof a);
                fmt_size(to_size, b2, sizeof b2);
                note(w, "%s (%s): %s transfers -> %s, %" PRId64 " bytes as before%s", lab,
                     rp_method_names[fc->method], a, b2, bytes,
                     has_imbalance(fc, w->nranks) ? " (imbalance factors folded into per-rank repetitions)" : "");
                w->changed = 1;
            }
        } else if (rc < 0) {
            rc = iol_err_prefix(rc, "%s", lab);
        }
        nlist_release(&l);
        if (rc < 0)
            return rc;
    }
    if (!w->changed)
        note(w, "every read and write transfer is already 1 MiB or larger (or as large as the rank's extent)");
    return 0;
}

/* ---- interface_choice and file_strategy ---- */

static int effective_collective(const iolens_replay_config *cfg, const struct rp_fileconf *fc)
{
    struct rp_hints h;
    rp_hints_merge(&h, &cfg->optimization_params, &fc->hints);
    return h.use_collective == 1;
}

/* Makes step i collective MPI-IO (HDF5 stays HDF5, with collective transfers). */
static int make_collective(struct wi *w, size_t i)
{
    const struct rp_fileconf *fc = &w->base->file_configs[i];
    json_t *step = json_array_get(w->steps, i);
    if (!step)
        return iol_err(IOLENS_EINVAL, "file_configs[%zu]: missing", i);
    if (fc->interface != RP_HDF5 && fc->interface != RP_MPIIO) {
        json_object_set_new(step, "interface", json_string("mpiio"));
        json_object_del(step, "seek"); /* POSIX positioning; MPI-IO transfers at explicit offsets */
    }
    json_t *hints = json_object_get(step, "hints");
    if (!json_is_object(hints)) {
        hints = json_object();
        json_object_set_new(step, "hints", hints);
    }
    json_object_set_new(hints, "use_collective", json_true());
    return 0;
}

static int t_interface(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    if (w->nranks < 2) {
        note(w, "one rank: collective I/O has nothing to coordinate");
        return 0;
    }
    int shared = 0;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (!is_io(fc) || fc->file_per_process)
            continue;
        shared = 1;
        if (effective_collective(cfg, fc) && (fc->interface == RP_MPIIO || fc->interface == RP_HDF5))
            continue;
        int rc = make_collective(w, i);
        if (rc < 0)
            return rc;
        char lab[300];
        note(w, "%s (%s, shared file): %s%s -> %s with use_collective", step_label(fc, i, lab, sizeof lab),
             rp_method_names[fc->method], rp_iface_names[fc->interface],
             fc->interface == RP_MPIIO || fc->interface == RP_HDF5 ? " independent" : "",
             fc->interface == RP_HDF5 ? "hdf5" : "mpiio");
        w->changed = 1;
    }
    if (!w->changed)
        note(w, shared ? "every shared-file step already uses collective MPI-IO"
                       : "no step reads or writes a shared file");
    return 0;
}

/* The shared file that replaces a file-per-process set: the template with {rank} replaced by
 * "shared", else the first path with ".shared" appended (the same for the same set, so a read
 * step finds the file its write step wrote). */
static char *shared_name(const struct rp_fileconf *fc)
{
    const char *p = fc->file_names[0];
    size_t n = strlen(p);
    char *out = malloc(n + 16);
    if (!out)
        return NULL;
    const char *ph = fc->nfile_names == 1 ? strstr(p, "{rank}") : NULL;
    if (ph)
        snprintf(out, n + 16, "%.*sshared%s", (int)(ph - p), p, ph + 6);
    else
        snprintf(out, n + 16, "%s.shared", p);
    return out;
}

static int t_file_strategy(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    int fpp = 0;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (!is_io(fc) || !fc->file_per_process)
            continue;
        fpp = 1;
        if (w->nranks < 2)
            continue;
        char *name = shared_name(fc);
        json_t *step = json_array_get(w->steps, i);
        if (!name || !step) {
            free(name);
            return iol_err(IOLENS_ENOMEM, "out of memory");
        }
        json_object_set_new(step, "file_names", json_pack("[s]", name));
        json_object_set_new(step, "file_per_process", json_false());
        int rc = make_collective(w, i);
        char lab[300];
        if (rc == 0)
            note(w, "%s (%s): one file per rank (%s) -> one shared file '%s', %s with use_collective",
                 step_label(fc, i, lab, sizeof lab), rp_method_names[fc->method], rp_iface_names[fc->interface],
                 name, fc->interface == RP_HDF5 ? "hdf5" : "mpiio");
        free(name);
        if (rc < 0)
            return rc;
        w->changed = 1;
    }
    if (!w->changed)
        note(w, fpp ? "one rank: a file per process is one file" : "no step uses one file per process");
    return 0;
}

/* ---- access_pattern ---- */

static int t_access(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (!is_io(fc) || fc->access == RP_SEQUENTIAL)
            continue;
        json_t *step = json_array_get(w->steps, i);
        if (!step)
            return iol_err(IOLENS_EINVAL, "file_configs[%zu]: missing", i);
        json_object_set_new(step, "access", json_string("sequential"));
        json_object_del(step, "block_size");
        json_object_del(step, "seed");
        char lab[300];
        note(w, "%s (%s): %s -> sequential", step_label(fc, i, lab, sizeof lab), rp_method_names[fc->method],
             rp_access_names[fc->access]);
        w->changed = 1;
    }
    if (!w->changed)
        note(w, "every read and write step is already sequential (a --config-from config keeps no access order: "
                "its steps replay sequentially)");
    return 0;
}

/* ---- throughput_utilization ---- */

static int t_throughput(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (fc->fsync != RP_FSYNC_WRITE)
            continue;
        json_t *step = json_array_get(w->steps, i);
        if (!step)
            return iol_err(IOLENS_EINVAL, "file_configs[%zu]: missing", i);
        json_object_set_new(step, "fsync", json_string("close"));
        json_object_del(step, "fsync_count");
        char lab[300];
        note(w, "%s (%s): fsync after every write -> one fsync before close", step_label(fc, i, lab, sizeof lab),
             rp_method_names[fc->method]);
        w->changed = 1;
    }
    if (!w->changed)
        note(w, "no step fsyncs after every write (an fsync before close is kept: it may guard durability)");
    return 0;
}

/* ---- parallelism_efficiency ---- */

static int t_balance(struct wi *w)
{
    const iolens_replay_config *cfg = w->base;
    const int n = w->nranks;
    if (n < 2) {
        note(w, "one rank: nothing to balance");
        return 0;
    }
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        json_t *step = json_array_get(w->steps, i);
        char lab[300];
        step_label(fc, i, lab, sizeof lab);
        if (!step)
            return iol_err(IOLENS_EINVAL, "file_configs[%zu]: missing", i);
        if (fc->method == RP_COMPUTE) {
            if (!has_imbalance(fc, n))
                continue;
            double sum = 0;
            for (int r = 0; r < n; r++)
                sum += fc->compute.seconds * rp_imbalance(fc, r);
            json_t *comp = json_object_get(step, "compute");
            if (!json_is_object(comp))
                return iol_err(IOLENS_EINVAL, "%s: compute step without compute", lab);
            json_object_set_new(comp, "seconds", json_real(sum / n));
            json_object_del(step, "imbalance");
            note(w, "%s (compute): per-rank seconds -> %.6g s on every rank (same total)", lab, sum / n);
            w->changed = 1;
            continue;
        }
        if (fc->method == RP_METADATA) {
            if (!has_imbalance(fc, n))
                continue;
            double total = 0;
            for (int r = 0; r < n; r++)
                total += round((double)fc->metadata.files_per_rank * rp_imbalance(fc, r));
            double per = round(total / n);
            if (per < 1)
                per = 1;
            json_t *md = json_object_get(step, "metadata");
            if (!json_is_object(md))
                return iol_err(IOLENS_EINVAL, "%s: metadata step without metadata", lab);
            json_object_set_new(md, "files_per_rank", json_integer((json_int_t)per));
            json_object_del(step, "imbalance");
            note(w, "%s (metadata): per-rank file counts -> %.0f files on every rank (%.0f in all, was %.0f)", lab,
                 per, per * n, total);
            w->changed = 1;
            continue;
        }
        if (!is_io(fc))
            continue;
        /* per-rank bytes: a step whose ranks already move the same bytes is left alone (the
         * chunks may split the ranks differently, as a rank list per chunk) */
        int64_t lo = INT64_MAX, hi = 0;
        for (int r = 0; r < n; r++) {
            int64_t b = 0;
            for (size_t c = 0; c < fc->nchunks; c++)
                b += rp_chunk_reps(fc, &fc->chunks[c], r) * fc->chunks[c].transfer_size;
            lo = b < lo ? b : lo;
            hi = b > hi ? b : hi;
        }
        if (lo == hi)
            continue;
        /* the transfers of each size (all chunks of that size together) dealt out evenly: every
         * rank gets floor(total / n); the remainders go to the next ranks in turn, continuing
         * from size to size, so no rank collects them all */
        struct nlist l = {NULL, 0, 0, n};
        int rc = 0, next = 0;
        for (size_t c = 0; c < fc->nchunks && rc == 0; c++) {
            int64_t size = fc->chunks[c].transfer_size, total = 0;
            int seen = 0;
            for (size_t k = 0; k < c; k++)
                seen |= fc->chunks[k].transfer_size == size;
            if (seen)
                continue;
            for (size_t k = c; k < fc->nchunks; k++)
                if (fc->chunks[k].transfer_size == size)
                    for (int r = 0; r < n; r++)
                        total += rp_chunk_reps(fc, &fc->chunks[k], r);
            int64_t rem = total % n;
            size_t at = l.n;
            for (int r = 0; r < n && rc == 0; r++) {
                int extra = ((r - next + n) % n) < rem;
                rc = nlist_add(&l, at, size, r, total / n + extra);
            }
            next = (int)((next + rem) % n);
        }
        if (rc == 0 && (rc = set_chunks(w, i, &l)) == 0) {
            int64_t nlo = INT64_MAX, nhi = 0;
            for (int r = 0; r < n; r++) {
                int64_t b = 0;
                for (size_t c = 0; c < l.n; c++)
                    b += l.c[c].reps[r] * l.c[c].size;
                nlo = b < nlo ? b : nlo;
                nhi = b > nhi ? b : nhi;
            }
            if (nlo == nhi)
                note(w, "%s (%s): %" PRId64 "-%" PRId64 " bytes per rank -> %" PRId64
                     " on every rank (the same transfers in all)", lab, rp_method_names[fc->method], lo, hi, nlo);
            else
                note(w, "%s (%s): %" PRId64 "-%" PRId64 " bytes per rank -> %" PRId64 "-%" PRId64
                     " (the same transfers in all, dealt out evenly)", lab, rp_method_names[fc->method], lo, hi,
                     nlo, nhi);
            w->changed = 1;
        }
        nlist_release(&l);
        if (rc < 0)
            return iol_err_prefix(rc, "%s", lab);
    }
    if (!w->changed)
        note(w, "every rank already does the same I/O (the same bytes in every step)");
    return 0;
}

/* ---- metadata_intensity ---- */

/* bytes of the record that stands for an empty file in the index file: about a file name */
#define WI_NAME_RECORD 64

static int t_metadata(struct wi *w, int *no_transform)
{
    const iolens_replay_config *cfg = w->base;
    /* steps are replaced (and a read step may be added): rebuild the array */
    json_t *steps = json_array();
    if (!steps)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        json_t *step = json_array_get(w->steps, i);
        if (fc->method != RP_METADATA) {
            json_array_append(steps, step);
            continue;
        }
        const struct rp_metadata *m = &fc->metadata;
        /* empty files carry no data, only their existence: each becomes a record of its name
         * (WI_NAME_RECORD bytes) in one index file; a stat of the file, a read of its record */
        int is_empty = m->write_bytes <= 0;
        int64_t wbytes = is_empty ? WI_NAME_RECORD : m->write_bytes;
        int64_t rbytes = is_empty ? (m->stat ? WI_NAME_RECORD : 0) : m->read_bytes;
        size_t dl = strlen(fc->file_names[0]);
        char *path = malloc(dl + 16);
        if (!path) {
            json_decref(steps);
            return iol_err(IOLENS_ENOMEM, "out of memory");
        }
        snprintf(path, dl + 16, "%s/records.dat", fc->file_names[0]);
        json_t *wr = json_pack("{s:s, s:[s], s:b, s:s, s:[{s:I, s:I}]}", "method", "write", "file_names", path,
                               "file_per_process", 0, "interface", "posix", "chunks", "transfer_size",
                               (json_int_t)wbytes, "repetitions", (json_int_t)m->files_per_rank);
        json_t *rd = rbytes > 0
                         ? json_pack("{s:s, s:[s], s:b, s:s, s:[{s:I, s:I}]}", "method", "read", "file_names", path,
                                     "file_per_process", 0, "interface", "posix", "chunks", "transfer_size",
                                     (json_int_t)rbytes, "repetitions", (json_int_t)m->files_per_rank)
                         : NULL;
        char lab[300];
        step_label(fc, i, lab, sizeof lab);
        json_t *parts[2] = {wr, rd};
        for (int k = 0; k < 2; k++) {
            if (!parts[k])
                continue;
            if (fc->name) {
                char nm[300];
                snprintf(nm, sizeof nm, "%s-%s", fc->name, k ? "read" : "write");
                json_object_set_new(parts[k], "name", json_string(nm));
            }
            json_t *imb = json_object_get(step, "imbalance");
            if (imb)
                json_object_set(parts[k], "imbalance", imb);
            json_t *hints = json_object_get(step, "hints");
            if (hints)
                json_object_set(parts[k], "hints", hints);
            if (fc->total_repeats > 1)
                json_object_set_new(parts[k], "total_repeats", json_integer(fc->total_repeats));
            json_array_append_new(steps, parts[k]);
        }
        if (is_empty)
            note(w, "%s (metadata): %" PRId64 " empty files per rank -> %" PRId64 " records of %d bytes (a name "
                 "each) of one shared index file '%s' (written%s; no create, stat or unlink of files)",
                 lab, m->files_per_rank, m->files_per_rank, WI_NAME_RECORD, path,
                 rd ? ", then read where the files were stat()ed" : "");
        else
            note(w, "%s (metadata): %" PRId64 " files of %" PRId64 " bytes per rank -> %" PRId64
                 " records of one shared file '%s' (written%s; no create, stat or unlink of small files)",
                 lab, m->files_per_rank, m->write_bytes, m->files_per_rank, path, rd ? ", then read" : "");
        free(path);
        w->changed = 1;
    }
    if (w->changed) {
        json_array_clear(w->steps);
        json_array_extend(w->steps, steps);
    }
    json_decref(steps);
    if (!w->changed) {
        *no_transform = 1;
        note(w, "the config has no metadata step (--config-from makes one of 16 or more small or empty "
                "files of one folder), so fewer files or batched metadata cannot be expressed");
    }
    return 0;
}

/* ---- public API ---- */

static const struct {
    const char *pattern;
    const char *summary;
} transforms[] = {
    {"access_granularity", "transfers < 1 MiB grown, up to 1 MiB (same bytes; see note)"},
    {"metadata_intensity", "small files of metadata steps -> records of one shared file"},
    {"parallelism_efficiency", "per-rank I/O equalised (same total)"},
    {"access_pattern", "random/strided -> sequential"},
    {"interface_choice", "shared-file I/O -> collective MPI-IO"},
    {"file_strategy", "file per process -> one shared file, collective MPI-IO"},
    {"throughput_utilization", "fsync after every write -> before close"},
};

const char *iolens_replay_whatif_summary(const char *pattern)
{
    for (size_t i = 0; pattern && i < sizeof transforms / sizeof transforms[0]; i++)
        if (!strcmp(pattern, transforms[i].pattern))
            return transforms[i].summary;
    return NULL;
}

int iolens_replay_whatif(iolens_replay_config **out, const iolens_replay_config *base, const char *pattern,
                         int nranks, char *note_buf, size_t note_size)
{
    *out = NULL;
    if (note_buf && note_size)
        note_buf[0] = '\0';
    if (!base || !iolens_replay_whatif_summary(pattern))
        return iol_err(IOLENS_EINVAL, "no what-if transform for pattern '%s' (known: access_granularity, "
                       "metadata_intensity, parallelism_efficiency, access_pattern, interface_choice, "
                       "file_strategy, throughput_utilization)", pattern ? pattern : "(null)");
    if (nranks <= 0)
        nranks = base->nranks > 0 ? (int)base->nranks : 1;
    if (nranks > 1048576)
        return iol_err(IOLENS_EINVAL, "%d ranks is absurd (limit 1048576)", nranks);
    /* the transforms walk every rank of every chunk: bound the work (hostile configs) */
    double cells = 0;
    for (size_t i = 0; i < base->nfile_configs; i++)
        cells += (double)nranks * (double)(base->file_configs[i].nchunks + 1);
    if (cells > MAX_CELLS)
        return iol_err(IOLENS_EINVAL, "a what-if of %zu steps for %d ranks is too large (limit %.0f rank-chunk cells)",
                       base->nfile_configs, nranks, MAX_CELLS);
    json_t *root = rp_table_to_json(&rp_config_table, base);
    struct wi w = {base, root ? json_object_get(root, "file_configs") : NULL, nranks, note_buf, note_size, 0, 0};
    int rc = 0, no_transform = 0;
    if (!root || !json_is_array(w.steps) || json_array_size(w.steps) != base->nfile_configs) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    if (!strcmp(pattern, "access_granularity"))
        rc = t_granularity(&w);
    else if (!strcmp(pattern, "interface_choice"))
        rc = t_interface(&w);
    else if (!strcmp(pattern, "access_pattern"))
        rc = t_access(&w);
    else if (!strcmp(pattern, "file_strategy"))
        rc = t_file_strategy(&w);
    else if (!strcmp(pattern, "throughput_utilization"))
        rc = t_throughput(&w);
    else if (!strcmp(pattern, "parallelism_efficiency"))
        rc = t_balance(&w);
    else
        rc = t_metadata(&w, &no_transform);
    if (rc < 0 || !w.changed)
        goto done;
    json_object_set_new(root, "nranks", json_integer(nranks));
    char *text = json_dumps(root, JSON_COMPACT);
    if (!text) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    char src[160];
    snprintf(src, sizeof src, "what-if %s", pattern);
    rc = iolens_replay_config_parse(out, text, strlen(text), src);
    free(text);
    if (rc == 0)
        rc = IOLENS_REPLAY_WHATIF_APPLIED;
done:
    json_decref(root);
    if (rc == 0)
        rc = no_transform ? IOLENS_REPLAY_WHATIF_NO_TRANSFORM : IOLENS_REPLAY_WHATIF_NOTHING;
    return rc;
}
