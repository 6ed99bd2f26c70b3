/*
 * The replay executor: the safe root, the layout of transfers, FBench's
 * Algorithm 1 timing, compute and metadata steps, cleanup.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "replay/exec.h"
#include "replay/sandbox.h"
#include "util/error.h"

struct rp_exec {
    const iolens_replay_config *cfg;
    const iolens_replay_options *opt;
    int rank, size, mpi;
    iol_sandbox sb; /* the root: every path resolved beneath it (replay/sandbox.h) */
    int rootfd;     /* sb's, and its real path */
    const char *root;
    char **dirs; /* directories this rank created, relative to the root, in creation order */
    size_t ndirs, capdirs;
    char **files; /* files this rank created */
    size_t nfiles, capfiles;
    unsigned char *pattern; /* RP_PATTERN_PERIOD + max transfer, 4 KiB aligned */
    unsigned char *rbuf;
    size_t maxxfer;
    int one_buffer; /* no step verifies: every transfer uses the pattern's start, as IOR's one buffer */
    double clock_cost; /* one mono(): taken off each chunk's gap_seconds (the wait's own clock read) */
};

static const struct rp_backend_ops *backend_for(int iface)
{
    static const struct rp_backend_ops *const table[] = {
        [RP_POSIX] = &rp_backend_posix,
        [RP_STDIO] = &rp_backend_stdio,
#ifdef IOLENS_HAVE_MPI
        [RP_MPIIO] = &rp_backend_mpiio,
#endif
#ifdef IOLENS_HAVE_HDF5
        [RP_HDF5] = &rp_backend_hdf5,
#endif
    };
    if (iface < 0 || (size_t)iface >= sizeof table / sizeof table[0] || !table[iface] ||
        table[iface]->version != RP_BACKEND_VERSION)
        return NULL;
    return table[iface];
}

const char *iolens_replay_backends(void)
{
    return "posix stdio"
#ifdef IOLENS_HAVE_MPI
           " mpiio"
#endif
#ifdef IOLENS_HAVE_HDF5
           " hdf5"
#endif
        ;
}

int iolens_replay_have_mpi(void)
{
#ifdef IOLENS_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

static double now(void)
{
    struct timespec ts; /* CLOCK_REALTIME: comparable across the ranks of a node (as MPI_Wtime) */
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock of the waits between calls (gap_seconds). Not now(): seconds since 1970 in a double
 * are a multiple of 2^-22 s (238 ns), so a wait of 0.35 us for 4 KiB reads on tmpfs lasted 0.24
 * or 0.48 us; the seconds since boot keep nanoseconds for years. */
static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- MPI glue (no-ops on one process) ---- */
static void x_barrier(struct rp_exec *x)
{
#ifdef IOLENS_HAVE_MPI
    if (x->mpi)
        MPI_Barrier(MPI_COMM_WORLD);
#endif
}

static void x_reduce(struct rp_exec *x, double *v, int n, int max)
{
#ifdef IOLENS_HAVE_MPI
    if (x->mpi)
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, max ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
#endif
}

/* Combines every rank's status: a failure anywhere fails everyone. */
static int x_agree(struct rp_exec *x, int rc)
{
#ifdef IOLENS_HAVE_MPI
    if (x->mpi) {
        int all = rc;
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all < 0 && rc == 0)
            return iol_err(all, "another rank failed (see its message)");
        return all < 0 ? rc : 0;
    }
#endif
    return rc;
}

/* The caller's stop flag is set (a signal): the replay stops (IOLENS_EINTR), removing what it made. */
static int x_stopped(const struct rp_exec *x)
{
    return x->opt->stop && *x->opt->stop;
}

static int x_interrupted(void)
{
    return iol_err(IOLENS_EINTR, "interrupted: the replay was stopped by a signal");
}

static void x_gather(struct rp_exec *x, const double *mine, double *all)
{
#ifdef IOLENS_HAVE_MPI
    if (x->mpi) {
        MPI_Gather(mine, RK_N, MPI_DOUBLE, all, RK_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        return;
    }
#endif
    memcpy(all, mine, RK_N * sizeof *mine);
}

/* ---- the safe root ---- */

static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        *v = nv;
        *cap = nc;
    }
    if (!((*v)[*n] = strdup(s)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    (*n)++;
    return 0;
}

static int has(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* Normalises a path below the replay root: leading '/' and "." removed, ".." taken as the folder
 * above by name (a git run's "/r/.git/../f" is "/r/f"), refused above the root. A traced ".."
 * after a symbolic link named another folder; the replay makes no link, so in its tree the name
 * is the folder. Returns 0, -1 escapes, -2 too long, -3 the root itself (iol_replay_rel_path
 * says which, naming the path). */
static int rel_path(char *out, size_t cap, const char *p)
{
    size_t o = 0;
    const char *c = p;
    while (*c) {
        while (*c == '/')
            c++;
        const char *e = c;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - c);
        if (len == 2 && c[0] == '.' && c[1] == '.') { /* the folder above, by name: none is a link below the root */
            if (!o)
                return -1;
            while (o && out[o - 1] != '/')
                o--;
            if (o)
                o--;
        } else if (len && !(len == 1 && c[0] == '.')) {
            if (o + len + 2 > cap)
                return -2;
            if (o)
                out[o++] = '/';
            memcpy(out + o, c, len);
            o += len;
        }
        c = e;
    }
    if (!o)
        return -3;
    out[o] = 0;
    return 0;
}

/* `what` names the path in messages ("path", "trace path"). Shared by the config executor and
 * the on-the-fly trace replay (exec.h). */
int iol_replay_rel_path(char *out, size_t cap, const char *p, const char *what)
{
    switch (rel_path(out, cap, p)) {
    case 0: return 0;
    case -1: return iol_err(IOLENS_EINVAL, "%s '%s' escapes the replay root ('..' above it is refused)", what, p);
    case -2: return iol_err(IOLENS_EINVAL, "%s '%s' is too long", what, p);
    default: return iol_err(IOLENS_EINVAL, "%s '%s' names the replay root itself", what, p);
    }
}

static const iolens_file *same_files_by; /* for cmp_norm (qsort has no context argument) */

static int cmp_norm(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const char *a1 = same_files_by[x].path, *b1 = same_files_by[y].path;
    int c = strcmp(a1 ? a1 : "", b1 ? b1 : "");
    return c ? c : x < y ? -1 : x > y;
}

int iol_replay_same_files(const iolens_file *files, size_t n, iolens_file **norm, int64_t **canon)
{
    *norm = calloc(n ? n : 1, sizeof **norm);
    *canon = malloc((n ? n : 1) * sizeof **canon);
    int64_t *by = malloc((n ? n : 1) * sizeof *by);
    if (!*norm || !*canon || !by)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        char rel[PATH_MAX];
        const char *p = files[i].path;
        (*norm)[i].id = files[i].id;
        (*canon)[i] = (int64_t)i;
        by[i] = (int64_t)i;
        if (p && rel_path(rel + 1, sizeof rel - 1, p) == 0) {
            rel[0] = '/';
            p = p[0] == '/' ? rel : rel + 1;
        }
        if (p && !((*norm)[i].path = strdup(p)))
            goto oom;
    }
    same_files_by = *norm;
    qsort(by, n, sizeof *by, cmp_norm);
    for (size_t i = 1; i < n; i++)
        if ((*norm)[by[i]].path && (*norm)[by[i - 1]].path && !strcmp((*norm)[by[i]].path, (*norm)[by[i - 1]].path))
            (*canon)[by[i]] = (*canon)[by[i - 1]];
    free(by);
    return 0;
oom:
    free(by);
    iol_replay_same_files_free(*norm, n);
    free(*canon);
    *norm = NULL;
    *canon = NULL;
    return iol_err(IOLENS_ENOMEM, "out of memory");
}

void iol_replay_same_files_free(iolens_file *norm, size_t n)
{
    for (size_t i = 0; norm && i < n; i++)
        free((char *)norm[i].path);
    free(norm);
}

int iol_replay_check_root(const char *root, char *real, size_t cap)
{
    char buf[PATH_MAX];
    if (!realpath(root, buf))
        return iol_err(IOLENS_EIO, "cannot use replay root '%s': %s", root, strerror(errno));
    if (!strcmp(buf, "/"))
        return iol_err(IOLENS_EINVAL, "replay root '%s' is the file system's root: every traced path would be "
                       "replayed onto the application's own file; choose an empty folder (--root DIR)", root);
    if (real) {
        if (strlen(buf) >= cap)
            return iol_err(IOLENS_EINVAL, "replay root '%s' is too long", root);
        strcpy(real, buf);
    }
    return 0;
}

int iol_replay_root_holds(const char *real_root, const char *path)
{
    size_t n = strlen(real_root);
    if (!path || path[0] != '/' || strncmp(path, real_root, n))
        return 0;
    return path[n] == 0 || path[n] == '/';
}

int iol_replay_runtime_path(const char *p)
{
    for (const char *c = p; (c = strchr(c, '/')) != NULL; c++)
        if ((!strncmp(c + 1, "ompi.", 5) || !strncmp(c + 1, "prte.", 5)) && strchr(c + 6, '/'))
            return 1;
    return 0;
}

/* The replay's bookkeeping is not the workload: raw system calls, so that a trace of the replay
 * (and its Darshan log) holds the workload's calls only (a traced open() of the root and a dup()
 * per file walked added a POSIX record for the root directory to the replay's Darshan counters,
 * which made is_shared_file 0 for every shared-file workload, and POSIX_DUPS up to thousands for
 * mdtest trees). */
static int raw_unlinkat(int fd, const char *name, int flags)
{
#ifdef SYS_unlinkat
    return (int)syscall(SYS_unlinkat, fd, name, flags);
#else
    return unlinkat(fd, name, flags);
#endif
}

int rp_file_check_name(const struct rp_file *f)
{
    const struct rp_exec *x = f->x;
    size_t n = strlen(x->root);
    const char *rel = !strncmp(f->full, x->root, n) && f->full[n] == '/' ? f->full + n + 1 : NULL;
    struct stat st;
    if (!rel || f->dirfd < 0 || iol_sandbox_verify_dir(&x->sb, f->dirfd, rel) < 0 ||
        (int)syscall(SYS_newfstatat, f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(st.st_mode))
        return iol_err(IOLENS_EINVAL, "'%s' was replaced during the replay (a component or the file itself is now a "
                       "link or another file): stopping, as the replay may only change what it created", f->full);
    return 0;
}

void rp_file_as(const struct rp_file *f, const char *func)
{
    iol_sandbox_as(&f->x->sb, func);
}

static void made_dir(void *ctx, const char *rel_dir)
{
    struct rp_exec *x = ctx;
    push(&x->dirs, &x->ndirs, &x->capdirs, rel_dir); /* (out of memory only leaves it behind) */
}

/* The parent directory of rel resolved beneath the root without following links (sandbox.h),
 * creating missing directories (recorded for cleanup); named to the tracer, so that calls relative
 * to it are traced by their full names. *base points into rel. */
static int walk(struct rp_exec *x, const char *rel, int create, int *dirfd, const char **base)
{
    int fd = iol_sandbox_parent(&x->sb, rel, create, made_dir, x, base);
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP || err == EXDEV || err == ENOTDIR)
            return iol_err(IOLENS_EINVAL, "a component of '%s/%s' is a symbolic link or not a directory: refusing "
                           "to leave the replay root", x->root, rel);
        return iol_err(IOLENS_EIO, "cannot open the folder of '%s/%s': %s", x->root, rel, strerror(err));
    }
    iol_sandbox_name(&x->sb, fd, rel, (size_t)(*base - rel) - (*base > rel));
    *dirfd = fd;
    return 0;
}

/* Creates rel fresh (O_EXCL); an existing file is refused, never overwritten. */
static int create_file(struct rp_exec *x, const char *rel)
{
    if (has(x->files, x->nfiles, rel))
        return 0;
    int dfd;
    const char *base;
    int rc = walk(x, rel, 1, &dfd, &base);
    if (rc < 0)
        return rc;
    /* mknod fails with EEXIST like O_CREAT|O_EXCL but is no open: the replay's own trace (and its
     * Darshan counters) then holds exactly the workload's opens */
    int made = mknodat(dfd, base, S_IFREG | 0644, 0);
    int err = errno;
    syscall(SYS_close, dfd); /* (a raw close: the tracer knows the folder by its name) */
    if (made < 0) {
        if (err == EEXIST)
            return iol_err(IOLENS_EINVAL, "'%s/%s' already exists: a replay only writes files it creates "
                           "(use an empty --root)", x->root, rel);
        return iol_err(IOLENS_EIO, "cannot create '%s/%s': %s", x->root, rel, strerror(err));
    }
    return push(&x->files, &x->nfiles, &x->capfiles, rel);
}

/* ---- layout ---- */

struct layout {
    int nr, r;         /* ranks sharing the file and this rank's place (1, 0 for file per process) */
    int64_t base;      /* start of the chunk's region */
    int64_t slot;      /* transfer size rounded up to the alignment */
    int64_t before;    /* transfers of lower ranks in this chunk (sequential) */
    int64_t n;         /* this rank's transfers */
    int64_t block, tpb; /* strided */
    uint64_t key;      /* random: seed of the permutation of the rank's n transfers */
    int bits;          /* random: the Feistel network's domain is 2^bits >= n */
    int64_t region;    /* bytes of the chunk's region */
};

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A seeded pseudo-random permutation of [0, 2^bits) (bits even): a 4-round Feistel network.
 * Random access (IOR -z shuffles its offsets) visits transfer permute(k) at step k, with
 * cycle walking into [0, n): successive offsets then differ by unrelated strides, as a
 * shuffle's do (an affine map k -> a k + b repeated one stride, which Darshan's STRIDE
 * counters showed as a strided pattern), in O(1) memory. */
static uint64_t feistel(uint64_t x, int bits, uint64_t key)
{
    int h = bits / 2;
    uint64_t mask = (UINT64_C(1) << h) - 1, l = x >> h, r = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
        uint64_t f = mix64(r ^ key ^ (round << 56)) & mask;
        uint64_t t = r;
        r = l ^ f;
        l = t;
    }
    return (l << h) | r;
}

static int64_t permute(const struct layout *L, int64_t k)
{
    uint64_t y = (uint64_t)k;
    do
        y = feistel(y, L->bits, L->key);
    while (y >= (uint64_t)L->n);
    return (int64_t)y;
}

/* Lays out chunk c for rank `me` of `size`; base is where the chunk starts. */
static void layout_chunk(const struct rp_fileconf *fc, size_t c, int me, int size, int64_t base, struct layout *L)
{
    const struct rp_chunk *ch = &fc->chunks[c];
    int fpp = fc->file_per_process;
    L->nr = fpp ? 1 : size;
    L->r = fpp ? 0 : me;
    L->base = base;
    L->slot = ch->transfer_size;
    if (fc->alignment > 1)
        L->slot = (ch->transfer_size + fc->alignment - 1) / fc->alignment * fc->alignment;
    L->n = rp_chunk_reps(fc, ch, me);
    L->before = 0;
    int64_t total = 0, maxn = 0;
    for (int r = fpp ? me : 0; r < (fpp ? me + 1 : size); r++) {
        int64_t n = rp_chunk_reps(fc, ch, r);
        if (r < me)
            L->before += n;
        total += n;
        maxn = n > maxn ? n : maxn;
    }
    if (fc->rank_blocks && !fpp && fc->access == RP_SEQUENTIAL) {
        /* rank-major: the blocks of lower ranks (all chunks), then this rank's earlier chunks */
        int64_t off = fc->offset;
        for (size_t k = 0; k < fc->nchunks; k++) {
            int64_t slot = fc->chunks[k].transfer_size;
            if (fc->alignment > 1)
                slot = (slot + fc->alignment - 1) / fc->alignment * fc->alignment;
            for (int r = 0; r < me; r++)
                off += rp_chunk_reps(fc, &fc->chunks[k], r) * slot;
            if (k < c)
                off += rp_chunk_reps(fc, &fc->chunks[k], me) * slot;
        }
        L->base = off;
        L->before = 0;
    }
    L->block = fc->block_size > L->slot ? fc->block_size / L->slot * L->slot : L->slot;
    L->tpb = L->block / L->slot;
    if (fc->access == RP_STRIDED)
        L->region = (maxn + L->tpb - 1) / L->tpb * L->nr * L->block;
    else
        L->region = total * L->slot;
    L->key = mix64((uint64_t)fc->seed ^ ((uint64_t)me << 32) ^ c);
    L->bits = 2;
    while (L->bits < 62 && (UINT64_C(1) << L->bits) < (uint64_t)L->n)
        L->bits += 2;
}

static int64_t layout_offset(const struct rp_fileconf *fc, const struct layout *L, int64_t k)
{
    if (fc->access == RP_RANDOM && L->n > 1)
        k = permute(L, k);
    if (fc->access == RP_STRIDED) {
        int64_t seg = k / L->tpb, w = k % L->tpb;
        return L->base + (seg * L->nr + L->r) * L->block + w * L->slot;
    }
    return L->base + (L->before + k) * L->slot;
}

/* Byte extent of the step's file as this rank sees it, and whether every
 * transfer is 4 KiB aligned (O_DIRECT). */
static int64_t step_extent(const struct rp_fileconf *fc, int me, int size, int *aligned)
{
    int64_t base = fc->offset;
    *aligned = fc->offset % 4096 == 0;
    for (size_t c = 0; c < fc->nchunks; c++) {
        struct layout L;
        layout_chunk(fc, c, me, size, base, &L);
        if (L.slot % 4096 || fc->chunks[c].transfer_size % 4096 || L.block % 4096)
            *aligned = 0;
        base += L.region;
    }
    return base;
}

int64_t rp_step_extent(const struct rp_fileconf *fc, int me, int size)
{
    int aligned;
    return step_extent(fc, me, size, &aligned);
}

/* ---- per-step helpers ---- */

static int file_of(struct rp_exec *x, const struct rp_fileconf *fc, int rank, char *out, size_t cap)
{
    char tmp[4200];
    const char *src = fc->nfile_names > 1 ? fc->file_names[rank % (int)fc->nfile_names] : fc->file_names[0];
    if (fc->file_per_process && fc->nfile_names == 1) {
        const char *ph = strstr(src, "{rank}");
        if (ph)
            snprintf(tmp, sizeof tmp, "%.*s%05d%s", (int)(ph - src), src, rank, ph + 6);
        else
            snprintf(tmp, sizeof tmp, "%s.%05d", src, rank);
        src = tmp;
    }
    return iol_replay_rel_path(out, cap, src, "path");
}

static int written_before(const iolens_replay_config *cfg, size_t step, const char *rel, int rank,
                          struct rp_exec *x)
{
    char other[4096];
    for (size_t i = 0; i < step; i++) {
        const struct rp_fileconf *o = &cfg->file_configs[i];
        if (o->method != RP_WRITE)
            continue;
        if (file_of(x, o, rank, other, sizeof other) == 0 && !strcmp(other, rel))
            return 1;
    }
    return 0;
}

static int64_t count_mismatch(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return 0;
    int64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* Byte at file offset o is pattern[o % period]: writes need no fill, reads a
 * memcmp. Also restores the pattern after unverified reads landed in it. */
static void fill_pattern(struct rp_exec *x)
{
    uint64_t s = 0x696f6c656e73ULL;
    for (size_t i = 0; i < RP_PATTERN_PERIOD; i += 8) {
        uint64_t v = mix64(s++);
        memcpy(x->pattern + i, &v, 8);
    }
    for (size_t i = RP_PATTERN_PERIOD; i < RP_PATTERN_PERIOD + x->maxxfer; i++)
        x->pattern[i] = x->pattern[i - RP_PATTERN_PERIOD];
}

struct io_tally {
    int64_t bytes, ops, verify;
};

/* One open-close session's transfers. */
static int do_transfers(struct rp_exec *x, const struct rp_fileconf *fc, const struct rp_backend_ops *be,
                        struct rp_file *f, int write, int collective, struct io_tally *t)
{
    int64_t base = fc->offset;
    /* The application's buffer alignment (buffer_offset; --config-from copies it from the trace):
     * where a buffer starts in its page changes the kernel's copy (bench/replay/bufalign.c:
     * 1 MiB reads from tmpfs into page + 16 were 4-7% slower than into a page start or
     * page + 64). O_DIRECT keeps its aligned buffer. */
    size_t bo = f->direct ? 0 : (size_t)fc->buffer_offset;
    for (size_t c = 0; c < fc->nchunks; c++) {
        struct layout L;
        layout_chunk(fc, c, x->rank, x->size, base, &L);
        base += L.region;
        int64_t iters = L.n;
        if (collective && !fc->file_per_process)
            for (int r = 0; r < x->size; r++) {
                int64_t n = rp_chunk_reps(fc, &fc->chunks[c], r);
                iters = n > iters ? n : iters;
            }
        size_t sz = (size_t)fc->chunks[c].transfer_size;
        /* the program's time between its transfers: spun from the end of the previous one (its
         * clock read right after the call) to right before the next (its offset and buffer
         * worked out before the wait), so that the replay's own work between two calls falls
         * inside the wait instead of being added to it (fio's random 4 KiB writes on tmpfs:
         * 300 ns a call more than gap_seconds with the offset worked out after the wait, where
         * the whole loop takes 180-260 ns without a wait) */
        double gap = fc->chunks[c].gap_seconds - x->clock_cost, last = 0;
        for (int64_t k = 0; k < iters; k++) {
            int mine = k < L.n;
            int64_t off = mine ? layout_offset(fc, &L, k) : 0;
            /* When no step verifies, every write comes from one buffer and every read lands
             * in it, as an application (IOR) does: walking the pattern made the first write
             * phase of a process 6% slower than writing one buffer (4 KiB MPI-IO, median of 20
             * runs; docs/REPLAY-CONFIG.md, fidelity). Otherwise unverified reads land where the
             * same offset's write came from (a separate, colder destination made 1 MiB reads
             * 20-35% slower than the original program's). run_io() restores the pattern after
             * unverified reads, outside the timed region. */
            unsigned char *pat = x->one_buffer ? x->pattern + bo : x->pattern + (size_t)(off % RP_PATTERN_PERIOD);
            unsigned char *buf = write ? pat : fc->verify ? x->rbuf + bo : pat;
            if (gap > 0 && k > 0 && mine) {
                double until = last + gap;
                while (mono() < until) {
                }
            }
            if (!collective && x_stopped(x)) /* (a collective step stops between steps, every rank alike) */
                return x_interrupted();
            int rc = be->xfer(f, write, buf, mine ? sz : 0, off, collective);
            if (rc < 0)
                return rc;
            if (!mine)
                continue;
            if (write && fc->fsync == RP_FSYNC_WRITE)
                for (int64_t q = 0; q < fc->fsync_count; q++)
                    if ((rc = be->sync(f)) < 0)
                        return rc;
            if (gap > 0)
                last = mono();
            t->bytes += (int64_t)sz;
            t->ops++;
            if (!write && fc->verify)
                t->verify += count_mismatch(x->rbuf + bo, pat, sz);
        }
    }
    return 0;
}

static void result_rank(struct rp_exec *x, struct rp_step_result *res, const double *mine)
{
    x_gather(x, mine, res->rank);
}

/* Hints are applied where a file is opened: when rank 0 takes no part in a step (fio's job
 * process reads a file its parent laid out), the statuses of the lowest rank that does are
 * the step's, sent to rank 0, which reports them. */
static void hints_from_participant(struct rp_exec *x, struct rp_step_result *res, int participates)
{
#ifdef IOLENS_HAVE_MPI
    if (!x->mpi || x->size < 2)
        return;
    int me = participates ? x->rank : x->size, who = me;
    MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (who == 0 || who >= x->size)
        return;
    if (x->rank == who) {
        int n = (int)res->nhints;
        MPI_Send(&n, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
        if (n > 0)
            MPI_Send(res->hints, n * (int)sizeof *res->hints, MPI_BYTE, 0, 78, MPI_COMM_WORLD);
    } else if (x->rank == 0) {
        int n = 0;
        MPI_Recv(&n, 1, MPI_INT, who, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (n < 0 || n > RP_MAX_HINTS)
            n = 0;
        /* what rank 0 reported itself without opening the file (fsync_on_close) is replaced */
        if (n > 0)
            MPI_Recv(res->hints, n * (int)sizeof *res->hints, MPI_BYTE, who, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        res->nhints = (size_t)n;
    }
#else
    (void)x;
    (void)res;
    (void)participates;
#endif
}

/* Write or read step. */
static int run_io(struct rp_exec *x, size_t step, struct rp_step_result *res)
{
    const struct rp_fileconf *fc = &x->cfg->file_configs[step];
    const struct rp_backend_ops *be = backend_for(fc->interface);
    struct rp_hints h;
    rp_hints_merge(&h, &x->cfg->optimization_params, &fc->hints);
    char rel[4096];
    int rc = file_of(x, fc, x->rank, rel, sizeof rel);
    int write = fc->method == RP_WRITE;
    int collective = (fc->interface == RP_MPIIO || fc->interface == RP_HDF5) && h.use_collective == 1;
    int creator = fc->file_per_process || x->rank == 0;
    int dirfd = -1, participates = 0;
    int aligned;
    int64_t extent = step_extent(fc, x->rank, x->size, &aligned);
    double mine[RK_N] = {0, 0, INFINITY, 0, 0, 0};
    struct io_tally t = {0, 0, 0};
    char full[8300];
    res->collective = collective;
    if (!be) {
        rc = iol_err(IOLENS_EUNSUPPORTED, "file_configs[%zu].interface: '%s' is not available in this build%s", step,
                     rp_iface_names[fc->interface],
                     fc->interface == RP_MPIIO ? " (built without MPI)" : " (not implemented yet)");
        goto agree;
    }
    if ((fc->interface == RP_MPIIO || fc->interface == RP_HDF5) && !x->mpi) {
        rc = iol_err(IOLENS_EDEPEND, "file_configs[%zu] uses %s but MPI is not initialised", step,
                     fc->interface == RP_MPIIO ? "MPI-IO" : "parallel HDF5");
        goto agree;
    }
    if (rc == 0 && creator && !has(x->files, x->nfiles, rel))
        rc = create_file(x, rel);
    /* a read of a file no earlier step wrote reads data prefilled now (untimed) */
    int prefill = !write && !written_before(x->cfg, step, rel, x->rank, x);
    rc = x_agree(x, rc);
    if (rc < 0)
        goto done;
    const char *base;
    rc = walk(x, rel, 0, &dirfd, &base);
    snprintf(full, sizeof full, "%s/%s", x->root, rel);
    struct rp_file f = {x, res, &h, dirfd, base, full, 1, !fc->file_per_process, aligned, 0, extent, -1, NULL, NULL, 0,
                        fc->seek, &fc->hdf5};
    if (rc == 0 && prefill) {
        struct io_tally pt = {0, 0, 0};
        const struct rp_backend_ops *pb = fc->interface == RP_MPIIO || fc->interface == RP_HDF5 ? be : &rp_backend_posix;
        struct rp_hints none;
        rp_table_defaults(&rp_hints_table, &none);
        f.h = &none;
        if ((rc = pb->open(&f)) == 0) {
            rc = do_transfers(x, fc, pb, &f, 1, 0, &pt);
            int rc2 = pb->close(&f);
            rc = rc ? rc : rc2;
        }
        /* read once, as a file that existed before the program ran has been: on tmpfs the first
         * read of just-written pages ran at 0.5-0.9 of later reads (fio, 1 MiB, 256 MiB) */
        if (rc == 0 && !x->opt->dry_run) {
            int wfd = openat(dirfd, base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
            if (wfd >= 0) {
                while (read(wfd, x->pattern, RP_PATTERN_PERIOD) > 0) {
                }
                close(wfd);
            }
            fill_pattern(x);
        }
        f.h = &h;
        res->prefilled = 1;
    }
    if (rc == 0 && write && fc->preallocated && creator && extent > 0 && !x->opt->dry_run) {
        /* untimed: the space the traced program reserved before writing (the whole shared file
         * by rank 0, its own file by each rank) */
        int pfd = openat(dirfd, base, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        int perr = pfd < 0 ? errno : posix_fallocate(pfd, 0, (off_t)extent);
        if (pfd >= 0)
            close(pfd);
        if (perr && perr != EOPNOTSUPP && perr != EINVAL)
            rc = iol_err(IOLENS_EIO, "cannot reserve %lld bytes of '%s': %s", (long long)extent, full, strerror(perr));
        else
            res->preallocated = perr == 0;
    }
    rc = x_agree(x, rc);
    if (rc < 0)
        goto done;
    if (rc == 0 && !write && (x->opt->cold_reads || fc->cold) && !x->opt->dry_run) {
        /* untimed: the data this rank reads goes to the file system and leaves the page cache */
        int cfd = openat(dirfd, base, O_RDONLY | O_CLOEXEC);
        if (cfd >= 0) {
            fdatasync(cfd);
            posix_fadvise(cfd, 0, 0, POSIX_FADV_DONTNEED);
            close(cfd);
        }
    }
    rc = x_agree(x, rc);
    if (rc < 0)
        goto done;
    f.write = write;
    for (size_t c = 0; c < fc->nchunks; c++)
        participates |= rp_chunk_reps(fc, &fc->chunks[c], x->rank) > 0;
    int must_open = participates || ((fc->interface == RP_MPIIO || fc->interface == RP_HDF5) && !fc->file_per_process);
    int fsync_close = fc->fsync == RP_FSYNC_CLOSE || h.fsync_on_close == 1;
    x_barrier(x);
    for (int64_t rep = 0; rep < fc->total_repeats && rc == 0; rep++) {
        double t0 = now(), t1;
        f.report = rep == 0;
        if (must_open) {
            if ((rc = be->open(&f)) < 0)
                break;
            rc = do_transfers(x, fc, be, &f, write, collective, &t);
            if (rc == 0 && write && fsync_close)
                rc = be->sync(&f);
            int rc2 = be->close(&f);
            rc = rc ? rc : rc2;
        }
        t1 = now();
        if (participates) {
            mine[RK_TS] = fmin(mine[RK_TS], t0);
            mine[RK_TE] = fmax(mine[RK_TE], t1);
            res->rep_ts[rep] = t0;
            res->rep_te[rep] = t1;
        } else {
            res->rep_ts[rep] = INFINITY;
            res->rep_te[rep] = 0;
        }
    }
    if (!write && !fc->verify && must_open)
        fill_pattern(x); /* unverified reads overwrote it with the file's bytes */
    if (fsync_close && write)
        rp_hint_report(res, "fsync_on_close", "applied: %s before every close",
                       fc->interface == RP_MPIIO ? "MPI_File_sync" : fc->interface == RP_HDF5 ? "H5Fflush" : "fsync");
agree:
    rc = x_agree(x, rc);
done:
    if (dirfd >= 0)
        syscall(SYS_close, dirfd);
    if (rc < 0)
        return rc;
    mine[RK_BYTES] = (double)t.bytes;
    mine[RK_OPS] = (double)t.ops;
    mine[RK_VERIFY] = (double)t.verify;
    mine[RK_PART] = mine[RK_TE] > 0;
    hints_from_participant(x, res, participates);
    x_reduce(x, res->rep_ts, (int)fc->total_repeats, 0);
    x_reduce(x, res->rep_te, (int)fc->total_repeats, 1);
    result_rank(x, res, mine);
    return 0;
}

static void spin_or_sleep(int kind, double seconds, volatile sig_atomic_t *stop)
{
    if (seconds <= 0)
        return;
    if (kind == RP_BUSY) {
        double end = now() + seconds;
        volatile uint64_t z = 1;
        while (now() < end && !(stop && *stop))
            for (int i = 0; i < 1000; i++)
                z = z * 6364136223846793005ULL + 1;
        return;
    }
    /* until an absolute time of the clock the step is timed with (now(): CLOCK_REALTIME): a
     * relative nanosleep runs on the monotonic clock, against which the real-time clock may be
     * slewed (NTP) by enough to make 2 x 10 ms read as 19.99 ms (test_replay_exec failed 4 times
     * in 40 runs on this VM) */
    double end = now() + seconds;
    struct timespec ts = {(time_t)end, (long)((end - floor(end)) * 1e9)};
    if (ts.tv_nsec >= 1000000000L)
        ts.tv_nsec = 999999999L;
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR && !(stop && *stop))
        ;
}

static int run_compute(struct rp_exec *x, size_t step, struct rp_step_result *res)
{
    const struct rp_fileconf *fc = &x->cfg->file_configs[step];
    double mine[RK_N] = {0, 0, INFINITY, 0, 0, 1};
    x_barrier(x);
    for (int64_t rep = 0; rep < fc->total_repeats; rep++) {
        double t0 = now();
        spin_or_sleep(fc->compute.kind, fc->compute.seconds * rp_imbalance(fc, x->rank), x->opt->stop);
        double t1 = now();
        mine[RK_TS] = fmin(mine[RK_TS], t0);
        mine[RK_TE] = fmax(mine[RK_TE], t1);
        res->rep_ts[rep] = t0;
        res->rep_te[rep] = t1;
    }
    x_reduce(x, res->rep_ts, (int)fc->total_repeats, 0);
    x_reduce(x, res->rep_te, (int)fc->total_repeats, 1);
    result_rank(x, res, mine);
    return 0;
}

/* ---- metadata (mdtest-like) ---- */

static int64_t meta_leaves(const struct rp_metadata *m)
{
    int64_t n = 1;
    for (int64_t d = 0; d < m->depth; d++)
        n *= m->branching;
    return n;
}

/* Directory of leaf `leaf` of the tree whose top is `top`. */
static void meta_leaf_path(const struct rp_metadata *m, const char *top, int64_t leaf, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "%s", top);
    int64_t div = meta_leaves(m);
    for (int64_t d = 0; d < m->depth && o < cap; d++) {
        div /= m->branching;
        o += (size_t)snprintf(out + o, cap - o, "/d%" PRId64, (leaf / div) % m->branching);
    }
}

static void meta_top(struct rp_exec *x, const struct rp_fileconf *fc, const char *rel, int rank, char *out, size_t cap)
{
    if (fc->metadata.unique_dir)
        snprintf(out, cap, "%s/rank.%05d", rel, rank);
    else
        snprintf(out, cap, "%s", rel);
}

/* The path of file i of this rank below the root: TOP/LEAF/file.RRRRR.I. The part before I is
 * built once per leaf directory and only the number is written per file, so that the timed loops
 * do no more formatting than a program naming its files with one snprintf. The timed calls name
 * it from the root's descriptor (openat, fstatat, unlinkat): the kernel then walks as many
 * components as the program's own path had (the config's name is that path below the root),
 * not the root's on top of them (tmpfs stats through ROOT/...: 0.88 of the program's rate). */
struct meta_name {
    char path[9000];
    size_t tail;  /* where the file's number goes */
    int64_t leaf; /* the leaf the prefix is of; -1 before the first */
};

static const char *meta_file(struct meta_name *mn, const struct rp_fileconf *fc, const char *top, int rank,
                             int64_t i)
{
    int64_t leaf = (i + rank) % meta_leaves(&fc->metadata);
    if (leaf != mn->leaf) {
        char dir[4600];
        meta_leaf_path(&fc->metadata, top, leaf, dir, sizeof dir);
        int k = snprintf(mn->path, sizeof mn->path - 24, "%s/file.%05d.", dir, rank);
        mn->tail = k < 0 ? 0 : (size_t)k < sizeof mn->path - 24 ? (size_t)k : sizeof mn->path - 25;
        mn->leaf = leaf;
    }
    char digits[24];
    size_t n = 0;
    uint64_t v = (uint64_t)i;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char *o = mn->path + mn->tail;
    while (n > 0)
        *o++ = digits[--n];
    *o = 0;
    return mn->path;
}

/* The leaf folders of a metadata step, held (sandbox.h): fd[leaf], or none (n 0) for a tree of
 * more leaves than half the descriptors left. */
struct meta_leaves {
    int *fd;
    int64_t n;
};

static int meta_leaves_open(struct rp_exec *x, const struct rp_metadata *m, const char *top, int64_t nl,
                            struct meta_leaves *ml)
{
    struct rlimit rl;
    int64_t room = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (int64_t)rl.rlim_cur / 2 : 4096;
    if (nl > room || nl > 65536 || !(ml->fd = malloc((size_t)nl * sizeof *ml->fd)))
        return 0; /* (each call's folder is resolved again) */
    char path[4700];
    for (int64_t l = 0; l < nl; l++) {
        const char *base;
        meta_leaf_path(m, top, l, path, sizeof path);
        strcat(path, "/x");
        int rc = walk(x, path, 0, &ml->fd[l], &base);
        if (rc < 0) {
            ml->n = l;
            return rc;
        }
    }
    ml->n = nl;
    return 0;
}

static void meta_leaves_close(struct meta_leaves *ml)
{
    for (int64_t l = 0; l < ml->n; l++)
        syscall(SYS_close, ml->fd[l]);
    free(ml->fd);
    ml->fd = NULL;
    ml->n = 0;
}

/* The folder descriptor of meta file full (in leaf mn->leaf) and in *name its name there: the held
 * leaf, else resolved now (meta_leaf_done closes it). -1 with errno when it cannot be resolved. */
static int meta_leaf_fd(struct rp_exec *x, const struct meta_leaves *ml, const struct meta_name *mn, const char *full,
                        const char **name)
{
    const char *slash = strrchr(full, '/');
    *name = slash ? slash + 1 : full;
    if (mn->leaf >= 0 && mn->leaf < ml->n)
        return ml->fd[mn->leaf];
    int fd = iol_sandbox_parent(&x->sb, full, 0, NULL, NULL, name);
    if (fd >= 0)
        iol_sandbox_name(&x->sb, fd, full, (size_t)(*name - full) - (*name > full));
    return fd;
}

static void meta_leaf_done(const struct meta_leaves *ml, int fd)
{
    if (fd >= 0 && ml->n == 0)
        syscall(SYS_close, fd);
}

static int run_metadata(struct rp_exec *x, size_t step, struct rp_step_result *res)
{
    const struct rp_fileconf *fc = &x->cfg->file_configs[step];
    const struct rp_metadata *m = &fc->metadata;
    char rel[4096], top[4200], path[4900];
    struct meta_name mn = {.leaf = -1};
    const char *full;
    double mine[RK_N] = {0, 0, INFINITY, 0, 0, 1};
    int64_t nfiles = (int64_t)llround((double)m->files_per_rank * rp_imbalance(fc, x->rank));
    int rc = iol_replay_rel_path(rel, sizeof rel, fc->file_names[0], "path");
    int builder = m->unique_dir || x->rank == 0;
    /* the tree is built untimed (mdtest times it separately) */
    int64_t nl = meta_leaves(m);
    meta_top(x, fc, rel, x->rank, top, sizeof top);
    for (int64_t l = 0; rc == 0 && builder && l < nl; l++) {
        int dfd;
        const char *base;
        meta_leaf_path(m, top, l, path, sizeof path);
        strcat(path, "/x");
        rc = walk(x, path, 1, &dfd, &base);
        if (rc == 0)
            syscall(SYS_close, dfd);
    }
    rc = x_agree(x, rc);
    if (rc < 0)
        return rc;
    /* every call that creates, opens or removes a file is made in its leaf folder, resolved beneath
     * the root and held for the step (sandbox.h): of a tree of more leaves than half the
     * descriptors left, each call's folder is resolved again (the stats walk the whole name from
     * the root's descriptor, as the program's walked it: they change nothing) */
    struct meta_leaves ml = {NULL, 0};
    rc = x_agree(x, meta_leaves_open(x, m, top, nl, &ml));
    if (rc < 0) {
        meta_leaves_close(&ml);
        return rc;
    }
    unsigned char *buf = x->pattern;
    double ph[RP_NPHASES] = {0, 0, 0, 0}; /* this rank's seconds per phase, summed over the repeats */
    /* the program's own time per file in each phase, spun before every file's calls but the first */
    const double gap[RP_NPHASES] = {m->gap_seconds.create - x->clock_cost, m->gap_seconds.stat - x->clock_cost,
                                    m->gap_seconds.read - x->clock_cost, m->gap_seconds.unlink - x->clock_cost};
    int reading = m->read_bytes > 0 || m->reopen == 1;
    for (int64_t rep = 0; rep < fc->total_repeats && rc == 0; rep++) {
        double last = 0;
        for (int64_t i = 0; !m->create && i < nfiles && rc == 0; i++) {
            if (x_stopped(x) && (rc = x_interrupted()) < 0)
                break;
            /* files the program found: made before the timed phases, as they were before it ran */
            full = meta_file(&mn, fc, top, x->rank, i);
            const char *name;
            int dfd = meta_leaf_fd(x, &ml, &mn, full, &name);
            iol_sandbox_as(&x->sb, "open");
            int fd = dfd < 0 ? -1 : openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0 || (m->write_bytes > 0 && pwrite(fd, buf, (size_t)m->write_bytes, 0) != (ssize_t)m->write_bytes))
                rc = iol_err(IOLENS_EIO, "cannot create '%s/%s': %s", x->root, full, strerror(errno));
            if (fd >= 0)
                close(fd);
            meta_leaf_done(&ml, dfd);
        }
        rc = x_agree(x, rc);
        if (rc < 0)
            break;
        x_barrier(x);
        double t0 = now(), tp = t0, tq;
        for (int64_t i = 0; m->create && i < nfiles && rc == 0; i++) {
            if (x_stopped(x) && (rc = x_interrupted()) < 0)
                break;
            if (gap[RP_PH_CREATE] > 0 && i > 0)
                while (mono() < last + gap[RP_PH_CREATE]) {
                }
            full = meta_file(&mn, fc, top, x->rank, i);
            const char *name;
            int dfd = meta_leaf_fd(x, &ml, &mn, full, &name);
            iol_sandbox_as(&x->sb, "open"); /* (mdtest's create: an open; traced as one) */
            int fd = dfd < 0 ? -1 : openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
            meta_leaf_done(&ml, dfd);
            if (fd < 0) {
                rc = iol_err(IOLENS_EIO, "cannot create '%s/%s': %s", x->root, full, strerror(errno));
                break;
            }
            mine[RK_OPS] += 2;
            if (m->write_bytes > 0) {
                /* mdtest writes through IOR's POSIX back end: lseek to 0, then write */
                ssize_t k = fc->seek ? (lseek(fd, 0, SEEK_SET) == 0 ? write(fd, buf, (size_t)m->write_bytes) : -1)
                                     : pwrite(fd, buf, (size_t)m->write_bytes, 0);
                if (k != (ssize_t)m->write_bytes)
                    rc = iol_err(IOLENS_EIO, "cannot write '%s/%s': %s", x->root, full, strerror(errno));
                mine[RK_BYTES] += (double)m->write_bytes;
                mine[RK_OPS]++;
            }
            close(fd);
            if (gap[RP_PH_CREATE] > 0)
                last = mono();
        }
        tq = now();
        ph[RP_PH_CREATE] += tq - tp;
        tp = tq;
        for (int64_t i = 0; m->stat > 0 && i < nfiles && rc == 0; i++) {
            if (x_stopped(x) && (rc = x_interrupted()) < 0)
                break;
            if (gap[RP_PH_STAT] > 0 && i > 0)
                while (mono() < last + gap[RP_PH_STAT]) {
                }
            struct stat st;
            full = meta_file(&mn, fc, top, x->rank, i);
            for (int k = 0; k < m->stat && rc == 0; k++) {
                if (fstatat(x->rootfd, full, &st, AT_SYMLINK_NOFOLLOW) != 0)
                    rc = iol_err(IOLENS_EIO, "cannot stat '%s/%s': %s", x->root, full, strerror(errno));
                mine[RK_OPS]++;
            }
            if (gap[RP_PH_STAT] > 0)
                last = mono();
        }
        tq = now();
        ph[RP_PH_STAT] += tq - tp;
        tp = tq;
        for (int64_t i = 0; reading && i < nfiles && rc == 0; i++) {
            if (x_stopped(x) && (rc = x_interrupted()) < 0)
                break;
            if (gap[RP_PH_READ] > 0 && i > 0)
                while (mono() < last + gap[RP_PH_READ]) {
                }
            full = meta_file(&mn, fc, top, x->rank, i);
            const char *name;
            int dfd = meta_leaf_fd(x, &ml, &mn, full, &name);
            iol_sandbox_as(&x->sb, "open");
            int fd = dfd < 0 ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            meta_leaf_done(&ml, dfd);
            ssize_t k = fd < 0 ? -1
                        : m->read_bytes == 0 ? 0
                        : fc->seek ? (lseek(fd, 0, SEEK_SET) == 0 ? read(fd, x->rbuf, (size_t)m->read_bytes) : -1)
                                   : pread(fd, x->rbuf, (size_t)m->read_bytes, 0);
            if (k != (ssize_t)m->read_bytes)
                rc = iol_err(IOLENS_EIO, "cannot read '%s/%s': %s", x->root, full, strerror(errno));
            else if (fc->verify && k > 0)
                mine[RK_VERIFY] += (double)count_mismatch(x->rbuf, buf, (size_t)k);
            if (fd >= 0)
                close(fd);
            mine[RK_BYTES] += (double)m->read_bytes;
            mine[RK_OPS] += m->read_bytes > 0 ? 3 : 2;
            if (gap[RP_PH_READ] > 0)
                last = mono();
        }
        /* files are always removed before the next repeat; only unlink=true times it */
        double t1 = now();
        ph[RP_PH_READ] += t1 - tp;
        for (int64_t i = 0; i < nfiles; i++) {
            if (m->unlink == 1 && gap[RP_PH_UNLINK] > 0 && i > 0)
                while (mono() < last + gap[RP_PH_UNLINK]) {
                }
            full = meta_file(&mn, fc, top, x->rank, i);
            const char *name;
            int dfd = meta_leaf_fd(x, &ml, &mn, full, &name);
            if (dfd >= 0) {
                iol_sandbox_as(&x->sb, "unlink");
                unlinkat(dfd, name, 0);
            }
            meta_leaf_done(&ml, dfd);
            mine[RK_OPS] += m->unlink == 1;
            if (m->unlink == 1 && gap[RP_PH_UNLINK] > 0)
                last = mono();
        }
        if (m->unlink == 1) {
            double tu = now();
            ph[RP_PH_UNLINK] += tu - t1;
            t1 = tu;
        }
        mine[RK_TS] = fmin(mine[RK_TS], t0);
        mine[RK_TE] = fmax(mine[RK_TE], t1);
        res->rep_ts[rep] = t0;
        res->rep_te[rep] = t1;
    }
    meta_leaves_close(&ml);
    rc = x_agree(x, rc);
    if (rc < 0)
        return rc;
    x_reduce(x, res->rep_ts, (int)fc->total_repeats, 0);
    x_reduce(x, res->rep_te, (int)fc->total_repeats, 1);
    /* per phase, as mdtest reports it: every rank's files over the slowest rank's time */
    x_reduce(x, ph, RP_NPHASES, 1);
    int64_t files = 0;
    for (int r = 0; r < x->size; r++)
        files += (int64_t)llround((double)m->files_per_rank * rp_imbalance(fc, r));
    files *= fc->total_repeats;
    int done[RP_NPHASES] = {m->create == 1, m->stat > 0, reading, m->unlink == 1};
    res->has_phases = 1;
    for (int k = 0; k < RP_NPHASES; k++) {
        res->phase_ops[k] = done[k] ? files * (k == RP_PH_STAT ? m->stat : 1) : 0;
        res->phase_seconds[k] = done[k] ? ph[k] : 0;
    }
    result_rank(x, res, mine);
    return 0;
}

/* ---- interpreter start-up (a Python "import" of a library tree) ---- */

/* glibc's pre-2.33 stat entry points, which an interpreter built against an older glibc calls
 * (and a Darshan runtime wrapping only those counts). glibc >= 2.33 keeps them as compat symbols
 * only, which dlsym() does not return; a tracer's (or Darshan's) wrapper of them is found first
 * and used. Without one: stat()/fstat() (then no tracer sees either). */
typedef int (*su_xstat_fn)(int ver, const char *path, struct stat64 *buf);
typedef int (*su_fxstat_fn)(int ver, int fd, struct stat64 *buf);

/* stat() of path, or fstat() of fd when path is NULL */
static int su_stat(int legacy, const char *path, int fd)
{
    if (legacy) {
        void *p = dlsym(RTLD_DEFAULT, path ? "__xstat64" : "__fxstat64");
        struct stat64 st64;
        if (p && path) {
            su_xstat_fn f;
            memcpy(&f, &p, sizeof f);
            return f(1, path, &st64);
        }
        if (p) {
            su_fxstat_fn f;
            memcpy(&f, &p, sizeof f);
            return f(1, fd, &st64);
        }
    }
    struct stat st;
    return path ? stat(path, &st) : fstat(fd, &st);
}

enum { SU_SOURCE, SU_COMPILED, SU_EXT, SU_CONFIG };

static void su_path(const char *rel, int kind, int64_t i, char *out, size_t cap)
{
    switch (kind) {
    case SU_SOURCE: snprintf(out, cap, "%s/mod%04" PRId64 ".py", rel, i); break;
    case SU_COMPILED: snprintf(out, cap, "%s/__pycache__/mod%04" PRId64 ".pyc", rel, i); break;
    case SU_EXT: snprintf(out, cap, "%s/ext%04" PRId64 ".so", rel, i); break;
    default: snprintf(out, cap, "%s/interpreter.cfg", rel); break;
    }
}

/* Bookkeeping (untraced, raw system calls): creates (bytes >= 0) or removes (bytes < 0) one file. */
static int su_file(struct rp_exec *x, const char *path, int64_t bytes, int64_t line)
{
    int dfd;
    const char *base;
    int rc = walk(x, path, bytes >= 0, &dfd, &base);
    if (rc < 0)
        return rc;
    if (bytes < 0) {
        raw_unlinkat(dfd, base, 0);
        syscall(SYS_close, dfd);
        return 0;
    }
    int fd = (int)syscall(SYS_openat, dfd, base, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
    syscall(SYS_close, dfd);
    if (fd < 0)
        return iol_err(IOLENS_EIO, "cannot create '%s/%s': %s", x->root, path, strerror(errno));
    char blk[4096];
    for (size_t k = 0; k < sizeof blk; k++)
        blk[k] = line > 0 ? ((int64_t)(k + 1) % line == 0 ? '\n' : 'a' + (char)(k % 26)) : (char)x->pattern[k];
    for (int64_t done = 0; done < bytes && rc == 0;) {
        /* lines stay whole across blocks: the block length is a multiple of the line length */
        int64_t step = line > 0 ? (int64_t)sizeof blk / line * line : (int64_t)sizeof blk;
        int64_t n = bytes - done < step ? bytes - done : step;
        if (syscall(SYS_write, fd, blk, (size_t)n) != n)
            rc = iol_err(IOLENS_EIO, "cannot write '%s/%s': %s", x->root, path, strerror(errno));
        done += n;
    }
    syscall(SYS_close, fd);
    return rc;
}

static int su_tree(struct rp_exec *x, const struct rp_startup *su, const char *rel, int remove)
{
    char path[4400];
    int rc = 0;
    for (size_t i = 0; i < su->nmodules && rc == 0; i++) {
        su_path(rel, SU_SOURCE, (int64_t)i, path, sizeof path);
        rc = su_file(x, path, remove ? -1 : 0, 0);
        su_path(rel, SU_COMPILED, (int64_t)i, path, sizeof path);
        if (rc == 0)
            rc = su_file(x, path, remove ? -1 : su->modules[i].bytes, 0);
    }
    for (int64_t i = 0; i < su->extensions && rc == 0; i++) {
        su_path(rel, SU_EXT, i, path, sizeof path);
        rc = su_file(x, path, remove ? -1 : 4096, 0);
    }
    if (su->config_lines > 0 && rc == 0) {
        su_path(rel, SU_CONFIG, 0, path, sizeof path);
        rc = su_file(x, path, remove ? -1 : su->config_lines * su->config_line_bytes, su->config_line_bytes);
    }
    return rc;
}

/* What the interpreter does per module (traced python3 on Debian 12): stat the search
 * directory, stat the source twice, open the compiled file, fstat, lseek(0, SEEK_CUR) twice,
 * fstat, read the whole file, read at end of file (one byte asked), close; extension
 * modules are stat()ed only; one configuration file is read line by line through stdio. */
static int run_startup(struct rp_exec *x, size_t step, struct rp_step_result *res)
{
    const struct rp_fileconf *fc = &x->cfg->file_configs[step];
    const struct rp_startup *su = &fc->startup;
    char rel[4096], path[4400], full[8600], line[4097];
    double mine[RK_N] = {0, 0, INFINITY, 0, 0, 1};
    int rc = iol_replay_rel_path(rel, sizeof rel, fc->file_names[0], "path");
    if (rc == 0 && x->rank == 0)
        rc = su_tree(x, su, rel, 0); /* the library tree is there before the program starts */
    rc = x_agree(x, rc);
    if (rc < 0)
        return rc;
    x_barrier(x);
    int legacy = su->legacy_stat == 1;
    for (int64_t rep = 0; rep < fc->total_repeats && rc == 0; rep++) {
        double t0 = now();
        for (size_t i = 0; i < su->nmodules && rc == 0; i++) {
            int64_t b = su->modules[i].bytes;
            snprintf(full, sizeof full, "%s/%s", x->root, rel);
            su_stat(legacy, full, -1);
            su_path(rel, SU_SOURCE, (int64_t)i, path, sizeof path);
            snprintf(full, sizeof full, "%s/%s", x->root, path);
            su_stat(legacy, full, -1);
            su_stat(legacy, full, -1);
            su_path(rel, SU_COMPILED, (int64_t)i, path, sizeof path);
            snprintf(full, sizeof full, "%s/%s", x->root, path);
            int fd = open(full, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                rc = iol_err(IOLENS_EIO, "cannot open '%s': %s", full, strerror(errno));
                break;
            }
            su_stat(legacy, NULL, fd);
            lseek(fd, 0, SEEK_CUR);
            lseek(fd, 0, SEEK_CUR);
            su_stat(legacy, NULL, fd);
            ssize_t k = read(fd, x->rbuf, (size_t)b);
            if (k != (ssize_t)b || read(fd, x->rbuf, 1) != 0)
                rc = iol_err(IOLENS_EIO, "cannot read '%s': expected %" PRId64 " bytes", full, b);
            close(fd);
            mine[RK_BYTES] += (double)b;
            mine[RK_OPS] += 11;
        }
        for (int64_t i = 0; i < su->extensions && rc == 0; i++) {
            su_path(rel, SU_EXT, i, path, sizeof path);
            snprintf(full, sizeof full, "%s/%s", x->root, path);
            su_stat(legacy, full, -1);
            mine[RK_OPS]++;
        }
        if (su->config_lines > 0 && rc == 0) {
            su_path(rel, SU_CONFIG, 0, path, sizeof path);
            snprintf(full, sizeof full, "%s/%s", x->root, path);
            FILE *f = fopen(full, "r");
            if (!f) {
                rc = iol_err(IOLENS_EIO, "cannot open '%s': %s", full, strerror(errno));
            } else {
                while (fgets(line, (int)sizeof line, f)) {
                    mine[RK_BYTES] += (double)strlen(line);
                    mine[RK_OPS]++;
                }
                fclose(f);
                mine[RK_OPS] += 2;
            }
        }
        double t1 = now();
        mine[RK_TS] = fmin(mine[RK_TS], t0);
        mine[RK_TE] = fmax(mine[RK_TE], t1);
        res->rep_ts[rep] = t0;
        res->rep_te[rep] = t1;
    }
    rc = x_agree(x, rc);
    x_barrier(x);
    if (x->rank == 0)
        su_tree(x, su, rel, 1);
    if (rc < 0)
        return rc;
    x_reduce(x, res->rep_ts, (int)fc->total_repeats, 0);
    x_reduce(x, res->rep_te, (int)fc->total_repeats, 1);
    result_rank(x, res, mine);
    return 0;
}

/* ---- planning, space, the run ---- */

static void plan_step(struct rp_exec *x, size_t step, struct rp_step_result *res, double *space)
{
    const struct rp_fileconf *fc = &x->cfg->file_configs[step];
    struct rp_hints h;
    rp_hints_merge(&h, &x->cfg->optimization_params, &fc->hints);
    int aligned;
    int64_t shared_ext = fc->file_per_process ? 0 : step_extent(fc, 0, x->size, &aligned);
    for (int r = 0; r < x->size; r++) {
        double *rk = res->rank + (size_t)r * RK_N;
        rk[RK_TS] = 0;
        if (fc->method == RP_WRITE || fc->method == RP_READ) {
            int64_t ext = fc->file_per_process ? step_extent(fc, r, x->size, &aligned) : shared_ext;
            for (size_t c = 0; c < fc->nchunks; c++) {
                int64_t n = rp_chunk_reps(fc, &fc->chunks[c], r);
                rk[RK_BYTES] += (double)n * (double)fc->chunks[c].transfer_size * (double)fc->total_repeats;
                rk[RK_OPS] += (double)n * (double)fc->total_repeats;
                rk[RK_PART] = rk[RK_PART] || n > 0;
            }
            if (fc->file_per_process || r == 0)
                *space += (double)ext;
        } else if (fc->method == RP_STARTUP) {
            const struct rp_startup *su = &fc->startup;
            double b = 0;
            for (size_t m = 0; m < su->nmodules; m++)
                b += (double)su->modules[m].bytes;
            b += (double)(su->config_lines * su->config_line_bytes);
            rk[RK_OPS] = (11.0 * (double)su->nmodules + (double)su->extensions +
                          (su->config_lines > 0 ? 2.0 + (double)su->config_lines : 0)) *
                         (double)fc->total_repeats;
            rk[RK_BYTES] = b * (double)fc->total_repeats;
            rk[RK_PART] = 1;
            if (r == 0)
                *space += b + 4096.0 * (double)(su->extensions + 2 * (int64_t)su->nmodules);
        } else if (fc->method == RP_METADATA) {
            const struct rp_metadata *m = &fc->metadata;
            double n = round((double)m->files_per_rank * rp_imbalance(fc, r));
            /* as counted when run: open+close, write, stat, open+read+close, unlink */
            double per = 2 + (m->write_bytes > 0) + (m->stat == 1) + 3 * (m->read_bytes > 0) + (m->unlink == 1);
            rk[RK_OPS] = n * per * (double)fc->total_repeats;
            rk[RK_BYTES] = n * (double)(fc->metadata.write_bytes + fc->metadata.read_bytes) * (double)fc->total_repeats;
            rk[RK_PART] = 1;
            *space += n * (double)(fc->metadata.write_bytes + 4096);
        } else {
            rk[RK_PART] = 1;
        }
    }
    (void)h;
}

static void hints_requested(struct rp_step_result *res, const struct rp_hints *h)
{
    json_t *j = rp_table_to_json(&rp_hints_table, h);
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {
        char *s = json_dumps(v, JSON_ENCODE_ANY);
        rp_hint_report(res, k, "requested %s (dry run)", s ? s : "");
        free(s);
    }
    json_decref(j);
}

/* The root: made and locked by rank 0 (one replay at a time in it; so rank 0 knows whether it may
 * remove it), then opened by the others. */
static int setup_root(struct rp_exec *x)
{
    int rc = 0;
    if (x->rank == 0)
        rc = iol_sandbox_init(&x->sb, x->opt->root, IOL_SANDBOX_CREATE | IOL_SANDBOX_LOCK);
    if ((rc = x_agree(x, rc)) < 0)
        return rc;
    if (x->rank != 0 && (rc = iol_sandbox_init(&x->sb, x->opt->root, 0)) < 0)
        return rc;
    x->rootfd = x->sb.rootfd;
    x->root = x->sb.root;
    return 0;
}

static void cleanup(struct rp_exec *x)
{
    int removed_all = 0;
    if (x->rootfd >= 0 && !x->opt->keep && !x->opt->dry_run) {
        x_barrier(x);
        for (size_t i = x->nfiles; i-- > 0;)
            iol_sandbox_unlink(&x->sb, x->files[i], 0);
        x_barrier(x);
        /* deepest first; ranks' directories nest inside each other's, so
         * repeat rounds until nobody removes anything (ENOTEMPTY waits) */
        for (int round = 0; round < 64; round++) {
            double removed = 0;
            for (size_t i = x->ndirs; i-- > 0;)
                if (x->dirs[i][0] && iol_sandbox_unlink(&x->sb, x->dirs[i], AT_REMOVEDIR) == 0) {
                    x->dirs[i][0] = 0;
                    removed++;
                }
            double left = 0;
            for (size_t i = 0; i < x->ndirs; i++)
                left += x->dirs[i][0] != 0;
            x_reduce(x, &removed, 1, 1);
            x_reduce(x, &left, 1, 1);
            if (removed == 0 || left == 0)
                break;
        }
        x_barrier(x);
        removed_all = 1;
    }
    for (size_t i = 0; i < x->nfiles; i++)
        free(x->files[i]);
    for (size_t i = 0; i < x->ndirs; i++)
        free(x->dirs[i]);
    free(x->files);
    free(x->dirs);
    free(x->pattern);
    free(x->rbuf);
    /* the root goes last, when this rank made it and took out what the replay created */
    int made = x->sb.made_root && removed_all;
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", x->sb.root);
    iol_sandbox_release(&x->sb);
    x->rootfd = -1;
    if (made)
        rmdir(root);
}

static int make_buffers(struct rp_exec *x)
{
    size_t maxx = 4096;
    for (size_t i = 0; i < x->cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &x->cfg->file_configs[i];
        for (size_t c = 0; c < fc->nchunks; c++)
            maxx = (size_t)fc->chunks[c].transfer_size > maxx ? (size_t)fc->chunks[c].transfer_size : maxx;
        if (fc->method == RP_METADATA && (size_t)fc->metadata.write_bytes > maxx)
            maxx = (size_t)fc->metadata.write_bytes;
        for (size_t m = 0; fc->method == RP_STARTUP && m < fc->startup.nmodules; m++)
            if ((size_t)fc->startup.modules[m].bytes + 1 > maxx)
                maxx = (size_t)fc->startup.modules[m].bytes + 1;
    }
    maxx = (maxx + 4095) / 4096 * 4096;
    x->one_buffer = 1;
    for (size_t i = 0; i < x->cfg->nfile_configs; i++)
        if (x->cfg->file_configs[i].verify)
            x->one_buffer = 0;
    void *p = NULL, *q = NULL;
    /* + 4096: room for a step's buffer_offset */
    if (posix_memalign(&p, 4096, RP_PATTERN_PERIOD + maxx + 4096) || posix_memalign(&q, 4096, maxx + 4096)) {
        free(p);
        return iol_err(IOLENS_ENOMEM, "cannot allocate %zu bytes of transfer buffers", 2 * maxx);
    }
    x->pattern = p;
    x->rbuf = q;
    /* touch the read buffer now: its first-touch page faults must not land in a timed read */
    memset(x->rbuf, 0, maxx + 4096);
    x->maxxfer = maxx;
    fill_pattern(x);
    return 0;
}

static int result_alloc(struct iolens_replay_result *r, const iolens_replay_config *cfg)
{
    r->steps = calloc(cfg->nfile_configs, sizeof *r->steps);
    if (!r->steps)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    r->nsteps = cfg->nfile_configs;
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        struct rp_step_result *s = &r->steps[i];
        char nm[64];
        snprintf(nm, sizeof nm, "file_configs[%zu]", i);
        s->name = strdup(fc->name ? fc->name : nm);
        s->method = fc->method;
        s->iface = fc->interface;
        s->file_per_process = fc->file_per_process;
        s->nranks = r->nranks;
        s->repeats = fc->total_repeats;
        s->rank = calloc((size_t)r->nranks * RK_N, sizeof(double));
        size_t nrep = r->dry_run ? 1 : (size_t)fc->total_repeats; /* a plan has no per-repeat times */
        s->rep_ts = calloc(nrep, sizeof(double));
        s->rep_te = calloc(nrep, sizeof(double));
        if (!s->name || !s->rank || !s->rep_ts || !s->rep_te)
            return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    return 0;
}

static void finish_step(struct rp_step_result *s, int dry)
{
    s->ts = INFINITY;
    s->te = 0;
    for (int r = 0; r < s->nranks; r++) {
        const double *rk = s->rank + (size_t)r * RK_N;
        s->bytes += (int64_t)rk[RK_BYTES];
        s->ops += (int64_t)rk[RK_OPS];
        s->verify_errors += (int64_t)rk[RK_VERIFY];
        if (rk[RK_PART] && !dry) {
            s->ts = fmin(s->ts, rk[RK_TS]);
            s->te = fmax(s->te, rk[RK_TE]);
        }
    }
    s->seconds = s->te > s->ts ? s->te - s->ts : 0;
    s->bandwidth = s->seconds > 0 && s->method != RP_COMPUTE ? (double)s->bytes / s->seconds : 0;
}

int iolens_replay_run(iolens_replay_result **out, const iolens_replay_config *cfg, const iolens_replay_options *opt)
{
    *out = NULL;
    struct rp_exec x;
    memset(&x, 0, sizeof x);
    x.cfg = cfg;
    x.opt = opt;
    x.rootfd = x.sb.rootfd = x.sb.lockfd = -1;
    x.size = 1;
#ifdef IOLENS_HAVE_MPI
    if (opt->use_mpi && !opt->dry_run) {
        x.mpi = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &x.size);
    }
#endif
    if (opt->dry_run) {
        x.size = opt->dry_run_ranks > 0 ? opt->dry_run_ranks : cfg->nranks > 0 ? (int)cfg->nranks : 1;
        /* a plan is per rank and per step: bound its work and memory (hostile configs) */
        double cells = 0;
        for (size_t i = 0; i < cfg->nfile_configs; i++)
            cells += (double)x.size * (double)(cfg->file_configs[i].nchunks + 1);
        if (cells > 64e6)
            return iol_err(IOLENS_EINVAL, "a dry run of %zu steps for %d ranks is too large to plan per rank "
                           "(limit 64 million rank-chunk cells)", cfg->nfile_configs, x.size);
    }
    struct iolens_replay_result *res = calloc(1, sizeof *res);
    int rc = res ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
    if (rc < 0)
        goto fail;
    res->dry_run = opt->dry_run;
    res->nranks = x.size;
    res->rank = x.rank;
    res->mpi = x.mpi;
    if ((rc = result_alloc(res, cfg)) < 0)
        goto fail;
    if (cfg->nranks > 0 && !opt->dry_run && x.size != cfg->nranks && x.rank == 0 && opt->warn) {
        char msg[160];
        snprintf(msg, sizeof msg, "the config is written for %lld ranks; running with %d",
                 (long long)cfg->nranks, x.size);
        opt->warn(opt->warn_ctx, msg);
    }
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        for (size_t c = 0; c < fc->nchunks; c++)
            for (size_t k = 0; k < fc->chunks[c].nranks; k++)
                if (fc->chunks[c].ranks[k].rank >= x.size) {
                    rc = iol_err(IOLENS_EINVAL, "file_configs[%zu].chunks[%zu].ranks[%zu]: rank %" PRId64
                                 " does not exist in a run of %d ranks", i, c, k, fc->chunks[c].ranks[k].rank, x.size);
                    goto fail;
                }
        if (fc->nfile_names > 1 && (int)fc->nfile_names < x.size) {
            rc = iol_err(IOLENS_EINVAL, "file_configs[%zu].file_names: %zu paths for a run of %d ranks", i,
                         fc->nfile_names, x.size);
            goto fail;
        }
    }
    /* plan: bytes, operations and the space needed */
    double space = 0;
    for (size_t i = 0; i < cfg->nfile_configs; i++)
        plan_step(&x, i, &res->steps[i], &space);
    res->space_needed = space;
    if (opt->dry_run) {
        for (size_t i = 0; i < cfg->nfile_configs; i++) {
            struct rp_hints h;
            rp_hints_merge(&h, &cfg->optimization_params, &cfg->file_configs[i].hints);
            hints_requested(&res->steps[i], &h);
            char rel[4096];
            if (cfg->file_configs[i].nfile_names && file_of(&x, &cfg->file_configs[i], 0, rel, sizeof rel) == 0)
                res->steps[i].path = strdup(rel);
            finish_step(&res->steps[i], 1);
        }
        *out = res;
        return 0;
    }
    for (size_t i = 0; i < res->nsteps; i++)
        memset(res->steps[i].rank, 0, (size_t)res->nranks * RK_N * sizeof(double));
    rc = setup_root(&x);
    if (rc == 0 && x.rank == 0) {
        struct statvfs sv;
        if (fstatvfs(x.rootfd, &sv) == 0) {
            res->space_free = (double)sv.f_bavail * (double)sv.f_frsize;
            if (space > res->space_free * 0.95)
                rc = iol_err(IOLENS_EIO, "the replay needs up to %.0f bytes below '%s' but only %.0f are free",
                             space, x.root, res->space_free);
        }
    }
    if (rc == 0)
        rc = make_buffers(&x);
    { /* the cost of one clock read, for the chunks' gaps */
        double c0 = mono(), c1 = c0;
        for (int k = 0; k < 999; k++)
            c1 = mono();
        x.clock_cost = (c1 - c0) / 999;
    }
    rc = x_agree(&x, rc);
    if (rc < 0)
        goto fail;
    res->root = strdup(x.root);
    for (size_t i = 0; i < cfg->nfile_configs && rc == 0; i++) {
        struct rp_step_result *s = &res->steps[i];
        char rel[4096];
        if (cfg->file_configs[i].nfile_names && file_of(&x, &cfg->file_configs[i], 0, rel, sizeof rel) == 0)
            s->path = strdup(rel);
        switch (cfg->file_configs[i].method) {
        case RP_WRITE:
        case RP_READ: rc = run_io(&x, i, s); break;
        case RP_COMPUTE: rc = run_compute(&x, i, s); break;
        case RP_STARTUP: rc = run_startup(&x, i, s); break;
        default: rc = run_metadata(&x, i, s); break;
        }
        if (rc == 0 && x_stopped(&x))
            rc = x_interrupted();
        rc = x_agree(&x, rc); /* (every rank stops with the step one rank was stopped in) */
        if (rc < 0)
            break;
        if (x.rank == 0)
            finish_step(s, 0);
        if (opt->progress && x.rank == 0)
            opt->progress(opt->progress_ctx, i + 1, cfg->nfile_configs);
    }
    if (rc < 0)
        goto fail;
    cleanup(&x);
    *out = res;
    return 0;
fail:
    cleanup(&x);
    iolens_replay_result_free(res);
    return rc;
}
