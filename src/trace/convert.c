/* Writing an iolens trace from any event source (e.g. a Recorder trace).
 *
 * The events of each rank become one spill file in a scratch folder next to
 * the output, as the shim would have written it, and the usual encoder
 * (iolens_trace_build) turns them into the trace: one encoder for traced
 * runs, merges and conversions.
 *
 * Per event: the function id comes from the name (funcs.def; events of other
 * functions are skipped and counted), the file from the path (a per-process
 * path id), the explicit offset into a0 (functions with one), the size into
 * a1, open flags / mode into a0 / a1, whence into a2. A source that records
 * no descriptors (Recorder) gets one descriptor per file (its path id) and
 * return values that make the reader's position bookkeeping reproduce the
 * producer's implicit offsets (bytes moved = size, open returns the
 * descriptor, lseek returns the new position, close leaves the position). Times are rounded to the
 * nearest nanosecond, then truncated to the trace resolution. */
#define _DEFAULT_SOURCE
#include "iolens/trace.h"
#include "trace/convert_h5.h"
#include "trace/decode.h"
#include "trace/format.h"
#include "trace/funcs.h"
#include "util/error.h"
#include "util/strindex.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void iol_scratch_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

enum { BATCH = 4096 };


/* Per-rank writer state. */
typedef struct conv_rank {
    FILE *f;
    const char *path;
    int32_t *local; /* global file id -> path id + 1 (0 = not yet defined) */
    iol_rawrec *batch;
    uint32_t *tids;
    size_t n;
    h5names *h5; /* HDF5 objects of a source without return values (Recorder) */
    /* path id by name (HDF5 object names are not in the source's file table) */
    char **names;
    size_t nnames;
    iol_strindex by_name;
} conv_rank;

static int put(conv_rank *c, const void *p, size_t n) { return fwrite(p, 1, n, c->f) == n ? 0 : -1; }

static int chunk(conv_rank *c, uint32_t type, uint32_t tid, const void *p, size_t n, const void *p2, size_t n2)
{
    iol_rawchunk h = {IOL_RAW_CHUNK_MAGIC, type, tid, (uint32_t)(n + n2)};
    return put(c, &h, sizeof h) || (n && put(c, p, n)) || (n2 && put(c, p2, n2)) ? -1 : 0;
}

/* Writes the buffered records, one chunk per run of the same thread. */
static int flush(conv_rank *c)
{
    size_t i = 0;
    while (i < c->n) {
        size_t j = i + 1;
        while (j < c->n && c->tids[j] == c->tids[i])
            j++;
        if (chunk(c, IOL_RAW_RECS, c->tids[i], c->batch + i, (j - i) * sizeof *c->batch, NULL, 0))
            return -1;
        i = j;
    }
    c->n = 0;
    return 0;
}

static const char *name_at(const void *ctx, size_t i) { return ((const conv_rank *)ctx)->names[i]; }

/* The path id of a name (defining it in the spill on first use), or -1. */
static int32_t name_id(conv_rank *c, const char *s, int *bad)
{
    if (!s)
        return -1;
    size_t at;
    if (iol_strindex_reserve(&c->by_name, c->nnames, name_at, c)) {
        *bad = 1;
        return -1;
    }
    long found = iol_strindex_find(&c->by_name, s, name_at, c, &at);
    if (found >= 0)
        return (int32_t)found;
    char **nn = realloc(c->names, (c->nnames + 1) * sizeof *nn);
    char *copy = strdup(s);
    if (nn)
        c->names = nn;
    if (!nn || !copy) {
        free(copy);
        *bad = 1;
        return -1;
    }
    int32_t id = (int32_t)c->nnames;
    c->names[c->nnames++] = copy;
    iol_strindex_set(&c->by_name, at, (size_t)id);
    size_t l = strlen(s);
    if (chunk(c, IOL_RAW_PATH, 0, &id, 4, s, l > IOL_RAW_MAX_PATH ? IOL_RAW_MAX_PATH : l))
        *bad = 1;
    return id;
}

static void names_clear(conv_rank *c)
{
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    c->nnames = 0;
    iol_strindex_clear(&c->by_name);
}

/* The path id of global file id (defining it in the spill on first use), or -1. */
static int32_t path_id(conv_rank *c, const iolens_file *files, size_t nfiles, int64_t file, int *bad)
{
    if (file < 0 || (size_t)file >= nfiles)
        return -1;
    if (!c->local[file])
        c->local[file] = name_id(c, files[file].path ? files[file].path : "", bad) + 1;
    return c->local[file] - 1;
}

/* Function, depth, error and times of a record. */
static void to_raw_times(const iolens_event *ev, int fid, uint64_t start_ns, iol_rawrec *r)
{
    r->func = (uint16_t)fid;
    r->depth = IOL_DEPTH_PACK(ev->depth, ev->lib_depth);
    r->err = ev->err;
    double t0 = ev->tstart > 0 && isfinite(ev->tstart) ? ev->tstart * 1e9 : 0;
    double t1 = ev->tend > ev->tstart && isfinite(ev->tend) ? ev->tend * 1e9 : t0;
    if (t0 > 9e18)
        t0 = 9e18;
    if (t1 > 9e18)
        t1 = 9e18;
    r->t0 = start_ns + (uint64_t)llround(t0);
    r->t1 = start_ns + (uint64_t)llround(t1);
}

static void to_raw(const iolens_event *ev, int fid, int32_t pid, uint64_t start_ns, iol_rawrec *r)
{
    const iol_func_info *fi = iol_func_by_id((unsigned)fid);
    memset(r, 0, sizeof *r);
    to_raw_times(ev, fid, start_ns, r);
    r->file = pid;
    r->fd = pid;
    r->ret = ev->ret;
    r->a[0] = r->a[1] = r->a[2] = r->a[3] = 0;
    switch (fi->op) {
    case IOLENS_OP_OPEN:
        r->a[0] = ev->open_flags >= 0 ? ev->open_flags : 0;
        r->a[1] = ev->mode >= 0 ? ev->mode : 0;
        if (fi->layer != IOLENS_LAYER_MPIIO && ev->ret < 0 && !ev->err)
            r->ret = pid; /* the descriptor the source did not record */
        break;
    case IOLENS_OP_READ:
    case IOLENS_OP_WRITE:
        r->a[0] = fi->has_off ? ev->offset : 0;
        r->a[1] = ev->size;
        if (fi->layer == IOLENS_LAYER_STDIO && (fid == IOL_F_fread || fid == IOL_F_fwrite))
            r->a[2] = 1; /* size x 1 item */
        if (ev->ret < 0 && !ev->err)
            r->ret = fi->layer == IOLENS_LAYER_MPIIO ? 0 : ev->size; /* the whole request moved */
        break;
    case IOLENS_OP_TRUNCATE:
    case IOLENS_OP_MMAP:
        r->a[0] = fi->has_off || iol_func_is_fallocate((unsigned)fid) ? ev->offset : 0;
        r->a[1] = ev->size;
        if (iol_func_is_fallocate((unsigned)fid) && ev->mode > 0)
            r->a[2] = ev->mode;
        break;
    case IOLENS_OP_SEEK:
        r->a[0] = ev->offset;
        r->a[2] = ev->whence;
        if ((fid == IOL_F_lseek || fid == IOL_F_lseek64 || iol_func_is_ftell((unsigned)fid)) && ev->ret < 0 &&
            !ev->err)
            r->ret = ev->offset; /* the new position */
        if (iol_func_is_fseek((unsigned)fid)) {
            r->a[3] = ev->offset >= 0 ? ev->offset : -1; /* the position after it, if the producer resolved it */
            if (ev->offset >= 0) {
                r->a[0] = ev->offset;
                r->a[2] = SEEK_SET;
            }
        }
        break;
    case IOLENS_OP_CLOSE:
        /* the position stays with the file, as producers without descriptors
         * (Recorder) track it per path: a dup'ed descriptor keeps using it */
        r->fd = -1;
        break;
    default:
        if (fid <= IOL_F_mkostemps || fid == IOL_F_mkdir || fid == IOL_F_mkdirat || fid == IOL_F_chmod ||
            fid == IOL_F_fchmod || fid == IOL_F_fchmodat) /* the open family, mkdir, chmod */
            r->a[1] = ev->mode >= 0 ? ev->mode : 0;
        if (fid == IOL_F_rename || fid == IOL_F_renameat || fid == IOL_F_renameat2 || fid == IOL_F_link ||
            fid == IOL_F_linkat || fid == IOL_F_symlink || fid == IOL_F_symlinkat)
            r->a[2] = -1; /* the other path: not an event's field (0 would name the first path) */
        break;
    }
}

int iolens_trace_write_events(iolens_evsource *src, const char *out_path, const iolens_trace_build_opts *opts,
                              iolens_trace_stats *stats, uint64_t *nskipped)
{
    if (!src || !out_path)
        return iol_err(IOLENS_EINVAL, "nothing to convert");
    const iolens_file *files = NULL;
    size_t nfiles = 0;
    int rc = iolens_evsource_files(src, &files, &nfiles);
    if (rc < 0)
        return rc;
    int nranks = iolens_evsource_nranks(src);
    if (nranks <= 0)
        return iol_err(IOLENS_EINVAL, "the event source has no ranks");
    if ((uint64_t)nranks > IOL_TRACE_MAX_PROCS)
        return iol_err(IOLENS_EUNSUPPORTED, "the event source has %d ranks (at most %u)", nranks,
                       (unsigned)IOL_TRACE_MAX_PROCS);
    iolens_trace_build_opts o = {100, 0};
    if (opts) {
        o = *opts;
        if (!o.resolution_ns)
            o.resolution_ns = 100;
    }
    double st = iolens_evsource_start_time(src);
    uint64_t start_ns = st > 0 && st < 9e9 ? (uint64_t)llround(st * 1e9) : 0;
    start_ns -= start_ns % o.resolution_ns;
    uint64_t skipped = 0;
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s.convert.XXXXXX", out_path) >= sizeof dir || !mkdtemp(dir))
        return iol_err(IOLENS_EIO, "cannot create a scratch folder next to '%s'", out_path);
    conv_rank c;
    memset(&c, 0, sizeof c);
    c.batch = malloc(BATCH * sizeof *c.batch);
    c.tids = malloc(BATCH * sizeof *c.tids);
    c.local = calloc(nfiles ? nfiles : 1, sizeof *c.local);
    if (!c.batch || !c.tids || !c.local || h5n_new(&c.h5) < 0) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (int rank = 0; rank < nranks && !rc; rank++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/r%d.raw", dir, rank);
        c.f = fopen(path, "wb");
        c.path = path;
        if (!c.f) {
            rc = iol_err(IOLENS_EIO, "cannot create '%s': %s", path, strerror(errno));
            break;
        }
        memset(c.local, 0, (nfiles ? nfiles : 1) * sizeof *c.local);
        names_clear(&c);
        h5n_reset(c.h5);
        c.n = 0;
        iol_rawhdr h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, IOL_RAW_MAGIC, 8);
        h.version = IOL_RAW_VERSION;
        h.rec_size = sizeof(iol_rawrec);
        h.pid = rank;
        h.ppid = 0;
        h.start_ns = start_ns;
        h.nfuncs = IOL_F_COUNT;
        int32_t rk[2] = {rank, nranks};
        int bad = put(&c, &h, sizeof h) || chunk(&c, IOL_RAW_RANK, 0, rk, sizeof rk, NULL, 0);
        iolens_event ev;
        int got = bad ? 0 : iolens_evsource_rewind(src, rank);
        while (!bad && got >= 0 && (got = iolens_evsource_next(src, rank, &ev)) == 1) {
            int fid = ev.func ? iol_func_by_name(ev.func) : -1;
            if (ev.func && ev.layer == IOLENS_LAYER_HDF5 && !strncmp(ev.func, "H5", 2) && ev.args) {
                /* an HDF5 call from its textual arguments: every one may name objects */
                const char *name;
                iol_rawrec *r = &c.batch[c.n];
                if ((rc = h5n_call(c.h5, &ev, fid, r, &name)) < 0)
                    break;
                if (fid < 0) {
                    skipped++;
                    continue;
                }
                to_raw_times(&ev, fid, start_ns, r);
                r->file = name_id(&c, name, &bad);
                c.tids[c.n++] = ev.thread;
                if (c.n == BATCH && flush(&c))
                    bad = 1;
                continue;
            }
            /* other libraries' calls: left out (their arguments are not the shim's slots) */
            if (fid >= 0 && iolens_layer_is_library(iol_func_by_id((unsigned)fid)->layer))
                fid = -1;
            if (fid < 0) {
                skipped++;
                continue;
            }
            int32_t pid = path_id(&c, files, nfiles, ev.file, &bad);
            to_raw(&ev, fid, pid, start_ns, &c.batch[c.n]);
            c.tids[c.n++] = ev.thread;
            if (c.n == BATCH && flush(&c))
                bad = 1;
        }
        if (!bad && got < 0)
            rc = got;
        if (!bad && !rc && (flush(&c) || chunk(&c, IOL_RAW_END, 0, NULL, 0, NULL, 0)))
            bad = 1;
        iolens_evsource_rewind(src, rank);
        if ((fclose(c.f) || bad) && !rc)
            rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
        c.f = NULL;
    }
    if (!rc)
        rc = iolens_trace_build(dir, out_path, &o, stats);
    if (!rc && nskipped)
        *nskipped = skipped;
done:
    free(c.batch);
    free(c.tids);
    free(c.local);
    names_clear(&c);
    free(c.names);
    iol_strindex_free(&c.by_name);
    h5n_free(c.h5);
    iol_scratch_remove(dir);
    return rc;
}
