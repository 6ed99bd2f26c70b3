/*
 * The shim's one runtime: configuration, per-thread record buffers, the spill
 * file, the path table and the descriptor map, and the exit/fork/signal/exec
 * paths. Fixed memory budget: IOL_TBUF_RECS records per live thread (at most
 * IOL_MAX_THREADS buffers), a path arena of at most IOL_PATH_ARENA bytes (at most
 * IOL_PATH_MAX_IDS paths; both reserved, not committed: pages are used as paths
 * arrive) with a hash table that doubles from IOL_PATH_SLOTS0 slots, and a
 * descriptor map of IOL_FD_MAX entries. On any internal trouble (spill cannot
 * be written, budget exhausted) the shim switches itself off and every call
 * passes straight through.
 */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IOL_TBUF_RECS 2048
#define IOL_MAX_THREADS 4096
#define IOL_FD_MAX 65536
#define IOL_NOTES_MAX 64
/* A metadata benchmark names a million files or more: every one needs its path. */
#define IOL_PATH_SLOTS0 (1u << 16)
#define IOL_PATH_MAX_IDS (1u << 24)
#define IOL_PATH_ARENA (1024u << 20)
/* The reservation when the system refuses the large one (strict overcommit). */
#define IOL_PATH_MAX_IDS_SMALL (1u << 17)
#define IOL_PATH_ARENA_SMALL (64u << 20)

typedef struct iol_tbuf {
    uint32_t tid;
    uint32_t len;     /* committed records (release-stored by the owner) */
    uint32_t flushed; /* records already written by a foreign flush */
    int lock;
    int in_use;
    iol_rawrec recs[IOL_TBUF_RECS];
} iol_tbuf;

int iol_shim_layers;
__thread int iol_shim_inside __attribute__((tls_model("initial-exec")));
__thread int iol_shim_depth __attribute__((tls_model("initial-exec")));
__thread int iol_shim_libdepth __attribute__((tls_model("initial-exec")));
static __thread iol_tbuf *tls_buf __attribute__((tls_model("initial-exec")));
static __thread int tls_saved_errno __attribute__((tls_model("initial-exec")));
__thread int iol_shim_sample_in __attribute__((tls_model("initial-exec")));
static __thread int tls_sample_depth __attribute__((tls_model("initial-exec"))); /* record depth + 1 */
static __thread uint64_t tls_sample_pre __attribute__((tls_model("initial-exec")));
static __thread uint32_t tls_sample_rng __attribute__((tls_model("initial-exec")));

static struct {
    int spill_fd;
    int lost;           /* the shim stopped writing because of trouble: IOL_RAW_OFF_* */
    uint64_t spill_bytes;  /* written to the spill so far */
    uint64_t spill_check;  /* when spill_bytes passes it, the free space is looked at again */
    uint64_t spill_max;    /* IOLENS_TRACE_SPILL_MAX (0: none but the free space left) */
    dev_t spill_dev;    /* identity of the spill file: checked before every write */
    ino_t spill_ino;
    char spill_path[1200];
    pid_t pid; /* process that owns the spill (a vfork child shares our memory but not our pid) */
    int spill_lock;
    int finished;
    int recorded; /* records of this image reached its spill file */
    int rank_env; /* the rank is mpirun's (its environment), MPI_Init not called yet */
    char dir[1024];
    char fixed_spill[1024];
    char out[1024]; /* IOLENS_TRACE_OUT: the trace rank 0 builds at MPI_Finalize */
    iol_tbuf *bufs[IOL_MAX_THREADS];
    uint32_t nbufs;
    uint32_t next_tid;
    pthread_key_t key;
    int32_t fdmap[IOL_FD_MAX]; /* path id + 1 */
    /* descriptors the process had open when it started or was forked (note_fd), recorded just
     * before its first recorded call: a process that makes none (env before its exec, a shell's
     * child before it execs) stays out of the trace */
    struct iol_fdnote {
        int fd, flags;
        int32_t file;
        int64_t pos;
        uint64_t t;
    } notes[IOL_NOTES_MAX];
    int nnotes, notes_func;
    /* path table */
    int path_lock;
    uint32_t *slots; /* nslots entries: offset in arena + 1 (mmap'd; doubles at half full) */
    size_t nslots;
    uint32_t *idoff; /* max_ids entries: offset in arena of path id i */
    char *arena;
    size_t arena_len, arena_cap;
    size_t paths_spilled; /* arena bytes whose path chunks are in the spill (spill_lock) */
    uint32_t max_ids;
    /* the working directory relative names are resolved against (Darshan's rule), read again
     * after a chdir or fchdir (they bump cwd_gen) */
    char cwd[IOL_RAW_MAX_PATH];
    size_t cwd_len;
    unsigned cwd_seen;
    int32_t npaths;
    int rank, wsize;
    iol_rawself self; /* sampled tracer cost, summed over threads (atomic adds) */
    iol_rawselff selff[IOL_F_COUNT]; /* the same per function (func set at the end) */
    /* the JOB chunk each spill starts with: u32 uid, u32 command bytes, the command line (the
     * image's arguments, each NUL-terminated), the job id; a forked child's is its parent's */
    uint8_t job[8 + IOL_RAW_MAX_CMDLINE + IOL_RAW_MAX_JOBID];
    uint32_t job_len;
} rt = {.spill_fd = -1};

static int spin_trylock(int *l, int tries)
{
    for (int i = 0; i < tries; i++) {
        if (!__atomic_test_and_set(l, __ATOMIC_ACQUIRE))
            return 1;
        sched_yield();
    }
    return 0;
}

/* Names of the loaded objects other than the shim, NUL-separated in one
 * malloc'd block (collected first: dlopen is not called while
 * dl_iterate_phdr holds the loader's lock). */
struct objnames {
    const char *self;
    char *buf;
    size_t len, cap;
};

static int collect_obj(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct objnames *o = data;
    const char *n = info->dlpi_name;
    if (!n || !n[0] || (o->self && strcmp(n, o->self) == 0))
        return 0;
    size_t len = strlen(n) + 1;
    if (o->len + len > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->len + len)
            cap *= 2;
        char *b = realloc(o->buf, cap);
        if (!b)
            return 1;
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, n, len);
    o->len += len;
    return 0;
}

/* A symbol of an object that was loaded after the shim with RTLD_LOCAL is not
 * in RTLD_NEXT's scope: Python loads mpi4py's extension module that way, and
 * with it libmpi, so the shim's MPI_Init_thread found no PMPI_Init_thread.
 * Such symbols are looked up in every loaded object, in load order. */
static void *find_local(const char *name)
{
    Dl_info self;
    struct objnames o = {0};
    if (dladdr((void *)&find_local, &self) && self.dli_fname)
        o.self = self.dli_fname;
    dl_iterate_phdr(collect_obj, &o);
    void *p = NULL;
    for (size_t at = 0; at < o.len && !p; at += strlen(o.buf + at) + 1) {
        void *h = dlopen(o.buf + at, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        p = dlsym(h, name);
        dlclose(h);
    }
    free(o.buf);
    return p;
}

static void *lookup(void *scope, const char *name)
{
    iol_shim_inside++;
    void *p = dlsym(scope, name);
    if (!p)
        p = find_local(name);
    iol_shim_inside--;
    return p;
}

void *iol_data(const char *name)
{
    return lookup(RTLD_DEFAULT, name);
}

void *iol_real(const char *name)
{
    return lookup(RTLD_NEXT, name);
}

uint64_t iol_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void shim_off(void) { __atomic_store_n(&iol_shim_layers, 0, __ATOMIC_RELAXED); }

/* The spill can no longer be written (the program closed or replaced its
 * descriptor, or a write failed): the shim turns itself off for good and
 * leaves an empty marker "<spill>.off-<reason>" next to the spill, so that
 * the trace builder can say what happened. mknodat makes the marker without
 * taking a descriptor (the program's next open still gets the number it
 * expects) and needs no data block (it works on a full disk). */
static void spill_lost(int reason)
{
    static const char *names[] = {"", IOL_RAW_OFF_NAMES};
    shim_off();
    int had = rt.spill_fd >= 0;
    rt.spill_fd = -1;
    if (!had || rt.lost || reason <= 0 || reason >= (int)(sizeof names / sizeof names[0]) || !rt.spill_path[0])
        return;
    rt.lost = reason;
    char m[1300];
    int n = snprintf(m, sizeof m, "%s%s%s", rt.spill_path, IOL_RAW_OFF_SUFFIX, names[reason]);
    if (n > 0 && (size_t)n < sizeof m)
        syscall(SYS_mknodat, AT_FDCWD, m, S_IFREG | 0644, 0);
}

/* Is rt.spill_fd still the spill file we opened? A descriptor closed behind
 * the shim's back (glibc's closefrom, a raw close syscall) may since have been
 * given to another file of the program's: never write into that one. */
static int spill_is_ours(void)
{
    struct stat st;
    if (syscall(SYS_fstat, rt.spill_fd, &st)) {
        spill_lost(IOL_RAW_OFF_CLOSED);
        return 0;
    }
    if (st.st_dev != rt.spill_dev || st.st_ino != rt.spill_ino) {
        spill_lost(IOL_RAW_OFF_REPLACED);
        return 0;
    }
    return 1;
}

/* The spill may grow by total bytes: below its cap, and leaving its file system a twentieth of its
 * size free, and 128 MiB (looked at every 4 MiB written): a trace never fills the program's file
 * system. 0, or -1 with the shim turned off (the spill marked: IOL_RAW_OFF_CAP). */
#define IOL_SPILL_CHECK_EVERY (4u << 20)
static int spill_room(size_t total)
{
    if (rt.spill_bytes + total <= 65536)
        return 0; /* the header and the process's first chunks: a spill that stops is still read */
    if (rt.spill_max && rt.spill_bytes + total > rt.spill_max) {
        spill_lost(IOL_RAW_OFF_CAP);
        return -1;
    }
    if (rt.spill_bytes + total < rt.spill_check)
        return 0;
    rt.spill_check = rt.spill_bytes + total + IOL_SPILL_CHECK_EVERY;
    struct statfs fs;
    if (syscall(SYS_fstatfs, rt.spill_fd, &fs) != 0 || fs.f_blocks == 0)
        return 0;
    double bsize = (double)fs.f_bsize, avail = (double)fs.f_bavail * bsize;
    double keep = (double)fs.f_blocks * bsize / 20;
    if (keep < 128.0 * 1048576)
        keep = 128.0 * 1048576;
    if (avail - (double)total - IOL_SPILL_CHECK_EVERY < keep) {
        spill_lost(IOL_RAW_OFF_CAP);
        return -1;
    }
    return 0;
}

/* Writes all of iov to the spill (caller holds spill_lock). Turns the shim off on failure. */
static int spill_writev(struct iovec *iov, int n)
{
    if (rt.spill_fd < 0 || !spill_is_ours())
        return -1;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (spill_room(total) < 0)
        return -1;
    rt.spill_bytes += total;
    while (total > 0) {
        ssize_t w = syscall(SYS_writev, rt.spill_fd, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) { /* never write again: the file stays readable up to here */
            spill_lost(w < 0 && (errno == ENOSPC || errno == EDQUOT) ? IOL_RAW_OFF_NOSPACE : IOL_RAW_OFF_IOERROR);
            return -1;
        }
        total -= (size_t)w;
        while (n > 0 && (size_t)w >= iov[0].iov_len) {
            w -= (ssize_t)iov[0].iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov[0].iov_base = (char *)iov[0].iov_base + w;
            iov[0].iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int spill_chunk(uint32_t type, uint32_t tid, const void *p, size_t len, const void *p2, size_t len2,
                       int tries)
{
    iol_rawchunk c = {IOL_RAW_CHUNK_MAGIC, type, tid, (uint32_t)(len + len2)};
    struct iovec iov[3] = {{&c, sizeof c}, {(void *)p, len}, {(void *)p2, len2}};
    if (tries ? !spin_trylock(&rt.spill_lock, tries) : (iol_lock(&rt.spill_lock), 0))
        return -1;
    int rc = spill_writev(iov, 3);
    iol_unlock(&rt.spill_lock);
    return rc;
}

/* Writes the path chunks of the paths named since the last time, arena[paths_spilled,
 * arena_len), in as few writes as it takes: before any records (which name them by id) and at
 * the end. (One write per new path, as they were named, added two system calls, an fstat and
 * a writev, to each file a program created: its creates ran at half speed traced.) */
static void flush_paths(int tries)
{
    if (tries ? !spin_trylock(&rt.spill_lock, tries) : (iol_lock(&rt.spill_lock), 0))
        return;
    if (tries ? !spin_trylock(&rt.path_lock, tries) : (iol_lock(&rt.path_lock), 0)) {
        iol_unlock(&rt.spill_lock);
        return;
    }
    size_t off = rt.paths_spilled, end = rt.arena_len; /* entries below end are complete */
    iol_unlock(&rt.path_lock);
    enum { K = 32 }; /* 2 KiB of stack: this may run on a signal handler's stack */
    iol_rawchunk c[K];
    struct iovec iov[3 * K];
    while (off < end && rt.spill_fd >= 0) {
        int k = 0;
        size_t next = off;
        for (; k < K && next < end; k++) {
            uint32_t l32;
            memcpy(&l32, rt.arena + next + 4, 4);
            c[k] = (iol_rawchunk){IOL_RAW_CHUNK_MAGIC, IOL_RAW_PATH, 0, 4 + l32};
            iov[3 * k] = (struct iovec){&c[k], sizeof c[k]};
            iov[3 * k + 1] = (struct iovec){rt.arena + next, 4};
            iov[3 * k + 2] = (struct iovec){rt.arena + next + 8, l32};
            next += (8 + l32 + 1 + 7) & ~(size_t)7;
        }
        if (spill_writev(iov, 3 * k) < 0)
            break;
        off = next;
    }
    rt.paths_spilled = off;
    iol_unlock(&rt.spill_lock);
}

/* Writes the unflushed records of b. owner: the buffer's own thread (resets it). */
static void flush_buf(iol_tbuf *b, int owner, int tries)
{
    if (tries ? !spin_trylock(&b->lock, tries) : (iol_lock(&b->lock), 0))
        return;
    uint32_t len = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);
    if (len > b->flushed) {
        int saved = errno;
        __atomic_store_n(&rt.recorded, 1, __ATOMIC_RELEASE);
        iol_shim_inside++;
        flush_paths(tries); /* every path these records name was in the arena before they were committed */
        spill_chunk(IOL_RAW_RECS, b->tid, &b->recs[b->flushed], (len - b->flushed) * sizeof(iol_rawrec), NULL,
                    0, tries);
        iol_shim_inside--;
        errno = saved;
    }
    if (owner) {
        __atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
        b->flushed = 0;
    } else {
        b->flushed = len;
    }
    iol_unlock(&b->lock);
}

static void thread_gone(void *p)
{
    iol_tbuf *b = p;
    flush_buf(b, 1, 0);
    tls_buf = NULL;
    __atomic_store_n(&b->in_use, 0, __ATOMIC_RELEASE);
}

static iol_tbuf *new_buf(void)
{
    iol_shim_inside++;
    iol_tbuf *b = NULL;
    uint32_t n = __atomic_load_n(&rt.nbufs, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && !b; i++) { /* reuse the buffer of a finished thread */
        int zero = 0;
        if (rt.bufs[i] && __atomic_compare_exchange_n(&rt.bufs[i]->in_use, &zero, 1, 0, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_RELAXED))
            b = rt.bufs[i];
    }
    if (!b) {
        uint32_t slot = __atomic_fetch_add(&rt.nbufs, 1, __ATOMIC_ACQ_REL);
        if (slot >= IOL_MAX_THREADS) {
            __atomic_store_n(&rt.nbufs, IOL_MAX_THREADS, __ATOMIC_RELEASE);
            goto out; /* this thread goes untraced */
        }
        void *m = mmap(NULL, sizeof(iol_tbuf), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            shim_off();
            goto out;
        }
        b = m;
        b->in_use = 1;
        __atomic_store_n(&rt.bufs[slot], b, __ATOMIC_RELEASE);
    }
    b->len = 0;
    b->flushed = 0;
    b->tid = (pid_t)syscall(SYS_gettid) == getpid() ? 0 : __atomic_add_fetch(&rt.next_tid, 1, __ATOMIC_RELAXED);
    pthread_setspecific(rt.key, b);
out:
    iol_shim_inside--;
    return b;
}

/* A call whose tracer cost is measured: about one in 64 per thread, at pseudo-random
 * intervals (32-95 calls) so that no periodic pattern of the program (or of the buffer
 * flushes) is always or never sampled. */
uint64_t iol_begin_sampled(void)
{
    uint32_t x = tls_sample_rng ? tls_sample_rng : (uint32_t)(uintptr_t)&tls_sample_rng | 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    tls_sample_rng = x;
    iol_shim_sample_in = 32 + (int)(x & 63u);
    uint64_t a = iol_now();
    uint64_t t0 = iol_now();
    tls_sample_pre = t0 - a;
    tls_sample_depth = iol_shim_depth; /* the record's depth (iol_end decrements) + 1 */
    return t0;
}

static iol_rawrec *rec_new(int func, uint64_t t0, uint64_t t1, int e, int failed, int io_depth, int lib_depth);
static void flush_notes(iol_tbuf *b);

iol_rawrec *iol_end(int func, uint64_t t0, int failed)
{
    int e = errno;
    uint64_t t1 = iol_now();
    iol_shim_depth--;
    return rec_new(func, t0, t1, e, failed, iol_shim_depth, iol_shim_libdepth);
}

iol_rawrec *iol_lib_end(int func, uint64_t t0)
{
    int e = errno;
    uint64_t t1 = iol_now();
    iol_shim_libdepth--;
    return rec_new(func, t0, t1, e, 0, iol_shim_depth, iol_shim_libdepth);
}

iol_rawrec *iol_lib_note(int func, uint64_t t0)
{
    return rec_new(func, t0, t0, errno, 0, iol_shim_depth, iol_shim_libdepth > 0 ? iol_shim_libdepth - 1 : 0);
}

/* The record of a call that ended (errno e saved for iol_commit), at the depths format.h
 * packs into its depth byte. */
static iol_rawrec *rec_new(int func, uint64_t t0, uint64_t t1, int e, int failed, int io_depth, int lib_depth)
{
    tls_saved_errno = e;
    iol_tbuf *b = tls_buf;
    if (__builtin_expect(!b, 0)) {
        b = tls_buf = new_buf();
        if (!b) {
            errno = e;
            return NULL;
        }
    }
    if (__builtin_expect(__atomic_load_n(&rt.nnotes, __ATOMIC_RELAXED) > 0, 0))
        flush_notes(b);
    uint32_t len = b->len;
    if (__builtin_expect(len >= IOL_TBUF_RECS, 0)) {
        flush_buf(b, 1, 0);
        len = 0;
    }
    iol_rawrec *r = &b->recs[len];
    r->func = (uint16_t)func;
    r->depth = IOL_DEPTH_PACK(io_depth, lib_depth);
    r->pad = 0;
    r->err = failed ? e : 0;
    r->t0 = t0;
    r->t1 = t1;
    r->file = -1;
    r->fd = -1;
    r->ret = 0;
    r->a[0] = r->a[1] = r->a[2] = r->a[3] = 0;
    return r;
}

void iol_commit(iol_rawrec *rec)
{
    iol_tbuf *b = tls_buf;
    __atomic_store_n(&b->len, (uint32_t)(rec - b->recs) + 1, __ATOMIC_RELEASE);
    if (__builtin_expect(tls_sample_depth == (int)(rec->depth & IOL_DEPTH_IO_MASK) + 1, 0)) {
        tls_sample_depth = 0;
        uint64_t t = iol_now();
        if (t >= rec->t1 && t - rec->t1 < 1000000000ull && tls_sample_pre < 1000000000ull) {
            __atomic_fetch_add(&rt.self.samples, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&rt.self.post_ns, t - rec->t1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&rt.self.pre_ns, tls_sample_pre, __ATOMIC_RELAXED);
            if (rec->func < IOL_F_COUNT) {
                __atomic_fetch_add(&rt.selff[rec->func].samples, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&rt.selff[rec->func].post_ns, t - rec->t1, __ATOMIC_RELAXED);
            }
        }
    }
    errno = tls_saved_errno;
}

/* ---- descriptors and paths ---- */
int32_t iol_fd_file(int fd)
{
    return (fd >= 0 && fd < IOL_FD_MAX) ? __atomic_load_n(&rt.fdmap[fd], __ATOMIC_RELAXED) - 1 : -1;
}

void iol_fd_set(int fd, int32_t file)
{
    if (fd >= 0 && fd < IOL_FD_MAX)
        __atomic_store_n(&rt.fdmap[fd], file + 1, __ATOMIC_RELAXED);
    if (fd >= 0 && fd == rt.spill_fd) /* the application took our descriptor: stop writing to it */
        spill_lost(IOL_RAW_OFF_REPLACED);
}

/* Not a wrapper but iolens's own: its replay resolves every path beneath its root through folder
 * descriptors it opens around the tracer (raw system calls, so that they are no calls of the
 * workload) and names each one here, so that the workload's calls relative to them (openat,
 * unlinkat, ...) are traced by their full names. Records nothing; any process may call it, through
 * dlsym (the shim is not linked to). */
IOL_EXPORT void iolens_shim_name_fd(int fd, const char *path)
{
    if (!path || !rt.slots || fd < 0 || fd >= IOL_FD_MAX || fd == rt.spill_fd)
        return;
    int32_t id = iol_path_id(path);
    if (id >= 0)
        __atomic_store_n(&rt.fdmap[fd], id + 1, __ATOMIC_RELAXED);
}

void iol_fd_forget(int fd, int32_t file)
{
    /* only if fd still maps to file: a dup2 onto fd by another thread may have replaced it */
    int32_t want = file + 1;
    if (fd >= 0 && fd < IOL_FD_MAX)
        __atomic_compare_exchange_n(&rt.fdmap[fd], &want, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    if (fd >= 0 && fd == rt.spill_fd) /* the application closed our descriptor: stop writing to it */
        spill_lost(IOL_RAW_OFF_CLOSED);
}

static void flush_all(int tries);

void iol_fd_closing(int fd)
{
    if (__builtin_expect(fd >= 0 && fd == rt.spill_fd, 0))
        flush_all(0); /* the calls so far reach the spill before its descriptor goes */
}

static uint64_t path_hash(const char *s, size_t *len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n = 0;
    for (; s[n] && n < IOL_RAW_MAX_PATH; n++)
        h = (h ^ (uint8_t)s[n]) * 0x100000001b3ull;
    *len = n;
    return h;
}

/* Doubles the hash table (path lock held): a new mapping, every id rehashed from the arena.
 * 0, or -1 when no memory is left (the table stays as it was). */
static int path_table_grow(void)
{
    size_t n = rt.nslots * 2;
    uint32_t *ns = mmap(NULL, n * sizeof *ns, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (ns == MAP_FAILED)
        return -1;
    for (int32_t id = 0; id < rt.npaths; id++) {
        const char *e = rt.arena + rt.idoff[id];
        size_t len;
        uint64_t h = path_hash(e + 8, &len);
        size_t s = h & (n - 1);
        while (ns[s])
            s = (s + 1) & (n - 1);
        ns[s] = rt.idoff[id] + 1;
    }
    munmap(rt.slots, rt.nslots * sizeof *rt.slots);
    rt.slots = ns;
    rt.nslots = n;
    return 0;
}

static unsigned iol_cwd_gen = 1;

void iol_cwd_changed(void)
{
    __atomic_add_fetch(&iol_cwd_gen, 1, __ATOMIC_RELEASE);
}

/* A ROMIO file-system prefix ("ufs:", "lustre:", "daos:"): such a name is kept as given. */
static int has_fs_prefix(const char *p)
{
    size_t i = 0;
    while ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
           p[i] == '_')
        i++;
    return i > 0 && p[i] == ':';
}

/* A relative name as Darshan records it (its darshan_clean_file_path): the working directory,
 * "/", the name, then every "//" and "/./" collapsed to "/" ("..": kept). 0, or -1 when the
 * working directory cannot be read or the result does not fit (the name is then kept as given). */
static int absolute_name(const char *path, char *out, size_t cap)
{
    unsigned gen = __atomic_load_n(&iol_cwd_gen, __ATOMIC_ACQUIRE);
    size_t n;
    iol_lock(&rt.path_lock);
    if (rt.cwd_seen != gen) {
        long r = syscall(SYS_getcwd, rt.cwd, sizeof rt.cwd);
        rt.cwd_len = r > 0 && rt.cwd[0] == '/' ? (size_t)r - 1 : 0; /* r counts the NUL */
        rt.cwd_seen = gen;
    }
    n = rt.cwd_len;
    if (n && n < cap)
        memcpy(out, rt.cwd, n);
    iol_unlock(&rt.path_lock);
    size_t len = strlen(path);
    if (!n || n + 1 + len >= cap)
        return -1;
    out[n] = '/';
    memcpy(out + n + 1, path, len + 1);
    char *w = out, *r = out;
    while (*r) { /* "//" -> "/", "/./" -> "/" (as often as they occur) */
        if (r[0] == '/' && w > out && w[-1] == '/') {
            r++;
            continue;
        }
        if (r[0] == '.' && r[1] == '/' && w > out && w[-1] == '/') {
            r += 2;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
    return 0;
}

int32_t iol_path_id(const char *path)
{
    if (!path || !rt.slots)
        return -1;
    int saved = errno;
    iol_shim_inside++;
    char absbuf[IOL_RAW_MAX_PATH];
    if (path[0] && path[0] != '/' && !has_fs_prefix(path) && absolute_name(path, absbuf, sizeof absbuf) == 0)
        path = absbuf;
    size_t len;
    uint64_t h = path_hash(path, &len);
    int32_t id = -1;
    iol_lock(&rt.path_lock);
    size_t s = h & (rt.nslots - 1);
    for (size_t probes = 0; probes < rt.nslots; probes++, s = (s + 1) & (rt.nslots - 1)) {
        uint32_t v = rt.slots[s];
        if (!v) {
            /* arena entry: i32 id, u32 len, bytes, NUL */
            size_t need = 8 + len + 1;
            need = (need + 7) & ~(size_t)7;
            if (rt.arena_len + need > rt.arena_cap || (uint32_t)rt.npaths >= rt.max_ids)
                break; /* budget exhausted: file unknown from now on */
            if ((size_t)rt.npaths + 1 > rt.nslots / 2) { /* keep probes short: double, then look again */
                if (path_table_grow() < 0)
                    break;
                s = h & (rt.nslots - 1);
                while (rt.slots[s])
                    s = (s + 1) & (rt.nslots - 1);
            }
            char *e = rt.arena + rt.arena_len;
            id = rt.npaths++;
            uint32_t l32 = (uint32_t)len;
            memcpy(e, &id, 4);
            memcpy(e + 4, &l32, 4);
            memcpy(e + 8, path, len);
            e[8 + len] = 0;
            rt.slots[s] = (uint32_t)rt.arena_len + 1;
            rt.idoff[id] = (uint32_t)rt.arena_len;
            rt.arena_len += need; /* its chunk goes to the spill with the next records (flush_paths) */
            break;
        }
        const char *e = rt.arena + v - 1;
        uint32_t l32;
        memcpy(&l32, e + 4, 4);
        if (l32 == len && !memcmp(e + 8, path, len)) {
            memcpy(&id, e, 4);
            break;
        }
    }
    iol_unlock(&rt.path_lock);
    iol_shim_inside--;
    errno = saved;
    return id;
}

/* Appends the components of rel to the directory path in out (length *n), as the kernel walks
 * them: empty and "." components are dropped, ".." removes the last component (lexically: a
 * symbolic link's target is not looked up). 0, or -1 if the result does not fit. */
static int join_components(char *out, size_t *n, const char *rel)
{
    while (*rel) {
        const char *c = rel;
        size_t len = 0;
        while (c[len] && c[len] != '/')
            len++;
        rel = c[len] ? c + len + 1 : c + len;
        if (len == 0 || (len == 1 && c[0] == '.'))
            continue;
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = *n ? memrchr(out, '/', *n) : NULL;
            int dotdot = slash && out + *n - (slash + 1) == 2 && slash[1] == '.' && slash[2] == '.';
            if (slash && !dotdot) { /* "/a/b" -> "/a", "/a" -> "/", "a" stays as "a/.." */
                *n = slash == out ? 1 : (size_t)(slash - out);
                continue;
            }
        }
        if (*n + 1 + len >= IOL_RAW_MAX_PATH)
            return -1;
        if (*n && out[*n - 1] != '/')
            out[(*n)++] = '/';
        memcpy(out + *n, c, len);
        *n += len;
    }
    out[*n] = 0;
    return 0;
}

size_t iol_path_name(int32_t id, char *out, size_t cap)
{
    size_t n = 0;
    if (id < 0 || !rt.slots || cap == 0)
        return 0;
    iol_lock(&rt.path_lock);
    if (id < rt.npaths) {
        const char *e = rt.arena + rt.idoff[id];
        uint32_t l32;
        memcpy(&l32, e + 4, 4);
        if (l32 < cap) {
            memcpy(out, e + 8, l32);
            out[l32] = 0;
            n = l32;
        }
    }
    iol_unlock(&rt.path_lock);
    return n;
}

int32_t iol_link_target_id(int32_t link, const char *target)
{
    if (!target || !target[0] || target[0] == '/' || !rt.slots)
        return iol_path_id(target);
    char buf[IOL_RAW_MAX_PATH];
    size_t n = iol_path_name(link, buf, sizeof buf);
    char *slash = n ? memrchr(buf, '/', n) : NULL;
    if (!slash)
        return -1; /* the link's folder is not known */
    n = slash == buf ? 1 : (size_t)(slash - buf);
    if (join_components(buf, &n, target) < 0)
        return -1;
    return iol_path_id(buf);
}

int32_t iol_path_id_at(int dirfd, const char *path)
{
    if (!path || path[0] == '/' || dirfd == AT_FDCWD || !rt.slots)
        return iol_path_id(path);
    int32_t d = iol_fd_file(dirfd);
    if (d < 0)
        return iol_path_id(path); /* a directory opened before tracing: the name as given */
    if (!path[0])
        return d; /* AT_EMPTY_PATH: the descriptor itself */
    char buf[IOL_RAW_MAX_PATH];
    size_t n = iol_path_name(d, buf, sizeof buf);
    if (!n || join_components(buf, &n, path) < 0)
        return iol_path_id(path);
    return iol_path_id(buf);
}

/* ---- spill file ---- */
static void say(const char *a, const char *b, const char *c);

/* The spill descriptor out of the program's way: the program's descriptors keep the numbers they
 * have untraced, and it can open as many. Above the soft limit on open files when the hard limit
 * allows it (the limit is raised by one for the dup and put back: no number the program can be
 * given is taken), else the highest free number below it when the limit is large (4096 or more:
 * a program does not reach its top); else -1 (fd closed): a small limit leaves no room. */
static int place_high(int fd)
{
    struct rlimit rl;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0) {
        syscall(SYS_close, fd);
        return -1;
    }
    int hi = -1;
    if (rl.rlim_cur > (rlim_t)INT_MAX) /* (the kernel caps it at fs.nr_open: never) */
        rl.rlim_cur = 1 << 20;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur) {
        struct rlimit up = {rl.rlim_cur + 1, rl.rlim_max};
        if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &up, NULL) == 0) {
            hi = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)rl.rlim_cur);
            syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
        }
    }
    for (long want = (long)rl.rlim_cur - 1; hi < 0 && rl.rlim_cur >= 4096 && want >= (long)rl.rlim_cur - 64; want--)
        hi = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, want);
    syscall(SYS_close, fd);
    return hi;
}

static int open_spill(void)
{
    char path[1200];
    int fd = -1;
    if (rt.fixed_spill[0]) {
        snprintf(path, sizeof path, "%s", rt.fixed_spill);
        fd = (int)syscall(SYS_openat, AT_FDCWD, rt.fixed_spill, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    } else {
        for (int n = 0; n < 1000 && fd < 0; n++) {
            snprintf(path, sizeof path, "%s/p%d.%d.raw", rt.dir, (int)getpid(), n);
            fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
            if (fd < 0 && errno != EEXIST)
                break;
        }
    }
    if (fd < 0)
        return -1;
    int hi = place_high(fd);
    if (hi < 0) {
        if (!rt.fixed_spill[0])
            syscall(SYS_unlinkat, AT_FDCWD, path, 0);
        say("the limit on open files leaves the tracer no descriptor above the program's (ulimit -n): "
            "this process is not traced", "", "");
        return -1;
    }
    fd = hi;
    struct stat st;
    if (syscall(SYS_fstat, fd, &st)) {
        syscall(SYS_close, fd);
        return -1;
    }
    rt.spill_dev = st.st_dev;
    rt.spill_ino = st.st_ino;
    snprintf(rt.spill_path, sizeof rt.spill_path, "%s", path);
    rt.lost = 0;
    rt.spill_fd = fd;
    rt.pid = getpid();
    iol_rawhdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, IOL_RAW_MAGIC, 8);
    h.version = IOL_RAW_VERSION;
    h.rec_size = sizeof(iol_rawrec);
    h.pid = getpid();
    h.ppid = getppid();
    h.start_ns = iol_now();
    h.nfuncs = IOL_F_COUNT;
    iol_rawchunk c = {IOL_RAW_CHUNK_MAGIC, IOL_RAW_JOB, 0, rt.job_len};
    struct iovec iov[3] = {{&h, sizeof h}, {&c, sizeof c}, {rt.job, rt.job_len}};
    iol_lock(&rt.spill_lock);
    int rc = spill_writev(iov, rt.job_len ? 3 : 1);
    iol_unlock(&rt.spill_lock);
    return rc;
}

static void flush_all(int tries)
{
    flush_paths(tries);
    uint32_t n = __atomic_load_n(&rt.nbufs, __ATOMIC_ACQUIRE);
    if (n > IOL_MAX_THREADS)
        n = IOL_MAX_THREADS;
    for (uint32_t i = 0; i < n; i++) {
        iol_tbuf *b = __atomic_load_n(&rt.bufs[i], __ATOMIC_ACQUIRE);
        if (b && b->in_use)
            flush_buf(b, b == tls_buf, tries);
    }
}

void iol_shim_finish(void)
{
    if (rt.spill_fd < 0 || getpid() != rt.pid) /* not ours: a vfork child about to exec or exit */
        return;
    if (__atomic_exchange_n(&rt.finished, 1, __ATOMIC_ACQ_REL))
        return;
    int saved = errno;
    iol_shim_inside++;
    flush_all(0);
    if (rt.rank >= 0) {
        int32_t rk[2] = {rt.rank, rt.wsize};
        spill_chunk(IOL_RAW_RANK, 0, rk, sizeof rk, NULL, 0, 0);
    }
    iol_rawself self;
    self.samples = __atomic_load_n(&rt.self.samples, __ATOMIC_RELAXED);
    self.post_ns = __atomic_load_n(&rt.self.post_ns, __ATOMIC_RELAXED);
    self.pre_ns = __atomic_load_n(&rt.self.pre_ns, __ATOMIC_RELAXED);
    if (self.samples) { /* the process's figures, then each sampled function's, packed in place */
        size_t nf = 0;
        for (uint32_t f = 0; f < IOL_F_COUNT; f++) {
            iol_rawselff x = {f, 0, __atomic_load_n(&rt.selff[f].samples, __ATOMIC_RELAXED),
                              __atomic_load_n(&rt.selff[f].post_ns, __ATOMIC_RELAXED)};
            if (x.samples)
                rt.selff[nf++] = x;
        }
        spill_chunk(IOL_RAW_SELF, 0, &self, sizeof self, rt.selff, nf * sizeof rt.selff[0], 0);
    }
    spill_chunk(IOL_RAW_END, 0, NULL, 0, NULL, 0, 0);
    iol_shim_inside--;
    errno = saved;
}

void iol_shim_set_rank(int rank, int size)
{
    rt.rank_env = 0;
    rt.rank = rank;
    rt.wsize = size;
    int32_t rk[2] = {rank, size};
    iol_shim_inside++;
    spill_chunk(IOL_RAW_RANK, 0, rk, sizeof rk, NULL, 0, 0);
    iol_shim_inside--;
}

/* ---- fatal signals: flush what we can, then die the way the program would have ----
 * While the program's disposition of one of these is the default, the shim's handler stands in
 * for it (the default kills the process before the trace's buffers reach the spill). The program
 * never sees it: sigaction and signal report the disposition the program set (the default, as the
 * process started), and a disposition the program sets is installed as it is (the shim's handler
 * stays only for the default). A disposition the process was started with other than the default
 * (an inherited SIG_IGN: nohup) is left as it is. */
static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT, SIGHUP};
#define IOL_NSIG 65
static volatile sig_atomic_t sig_ours[IOL_NSIG]; /* on_fatal stands in for the program's default */
static struct sigaction sig_view[IOL_NSIG];      /* then: the disposition the program set (SIG_DFL) */

static int real_sigaction_of(int sig, const struct sigaction *act, struct sigaction *old)
{
    static int (*real)(int, const struct sigaction *, struct sigaction *);
    if (!real)
        *(void **)&real = iol_real("sigaction");
    return real ? real(sig, act, old) : -1;
}

static void on_fatal(int sig)
{
    int saved = errno;
    iol_shim_inside++;
    shim_off();
    flush_all(1000);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sig_ours[sig] = 0;
    real_sigaction_of(sig, &dfl, NULL);
    raise(sig);
    iol_shim_inside--;
    errno = saved;
}

static void install_signals(void)
{
    for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++) {
        int sig = fatal_sigs[i];
        struct sigaction cur;
        if (real_sigaction_of(sig, NULL, &cur) || cur.sa_handler != SIG_DFL || (cur.sa_flags & SA_SIGINFO))
            continue; /* the process was started with a disposition of its own: left as it is */
        sig_view[sig] = cur;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        if (real_sigaction_of(sig, &sa, NULL) == 0)
            sig_ours[sig] = 1;
    }
}

/* The program's sigaction: on a signal the shim's handler stands in for, the disposition the
 * program set is reported, and one other than the default replaces the shim's handler. */
IOL_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig <= 0 || sig >= IOL_NSIG || !sig_ours[sig])
        return real_sigaction_of(sig, act, old);
    struct sigaction was = sig_view[sig];
    if (act && (act->sa_flags & SA_SIGINFO ? 1 : act->sa_handler != SIG_DFL)) {
        int r = real_sigaction_of(sig, act, NULL);
        if (r != 0)
            return r;
        sig_ours[sig] = 0;
    } else if (act) {
        sig_view[sig] = *act; /* the default again: the shim's handler stays */
    }
    if (old)
        *old = was;
    return 0;
}

/* signal(), bsd_signal() and sysv_signal() as glibc makes them of sigaction (its own, internal
 * one: it would not reach the wrapper above) */
static __sighandler_t set_handler(int sig, __sighandler_t h, int flags)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    if (sig > 0 && sig < IOL_NSIG)
        sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = flags;
    if (flags & SA_NODEFER)
        sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}

IOL_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
    return set_handler(sig, h, SA_RESTART);
}

__sighandler_t bsd_signal(int sig, __sighandler_t h); /* (declared only for older standards) */
IOL_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h)
{
    return set_handler(sig, h, SA_RESTART);
}

IOL_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h)
{
    return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* ---- descriptors the process did not open ----
 * A descriptor open on a file when the process starts (a shell's "> out" or "< in", a parent's
 * file kept across exec) or when it is forked is recorded as if opened then: iolens_fd_at_start or
 * iolens_fd_at_fork (fd, the file, a0 its status flags as F_GETFL gives them, a1 its position or
 * -1), and its calls carry the file as those of a descriptor the program opened. Only raw system
 * calls: nothing here is a call of the program, and errno is kept. */
static void note_fd(int func, int fd, int32_t file)
{
    int flags = (int)syscall(SYS_fcntl, fd, F_GETFL);
    if (flags < 0 || file < 0 || rt.nnotes >= IOL_NOTES_MAX)
        return;
    long pos = syscall(SYS_lseek, fd, 0L, SEEK_CUR);
    iol_fd_set(fd, file);
    rt.notes[rt.nnotes++] = (struct iol_fdnote){fd, flags, file, pos < 0 ? -1 : pos, iol_now()};
    rt.notes_func = func;
}

/* The notes, into the buffer of the thread making the process's first record (once). */
static void flush_notes(iol_tbuf *b)
{
    int n = __atomic_exchange_n(&rt.nnotes, 0, __ATOMIC_ACQ_REL);
    for (int i = 0; i < n && b->len < IOL_TBUF_RECS; i++) {
        const struct iol_fdnote *x = &rt.notes[i];
        iol_rawrec *r = &b->recs[b->len];
        *r = (iol_rawrec){0};
        r->func = (uint16_t)rt.notes_func;
        r->t0 = r->t1 = x->t;
        r->fd = x->fd;
        r->file = x->file;
        r->ret = x->fd;
        r->a[0] = x->flags;
        r->a[1] = x->pos;
        __atomic_store_n(&b->len, b->len + 1, __ATOMIC_RELEASE);
    }
}

/* At start: the regular files among the open descriptors, by the names they were opened under
 * (/proc/self/fd/N); not a terminal, pipe, socket or device, not a file deleted since. Which
 * descriptors are open: one poll() of the first IOL_SCAN_FDS with no events and no wait (POLLNVAL:
 * closed), not a listing of /proc/self/fd, whose first use in a process costs ~20 us; only a
 * regular file pays for its name. */
#define IOL_SCAN_FDS 256
static void note_fds_at_start(void)
{
    int e = errno;
    struct rlimit rl;
    nfds_t n = IOL_SCAN_FDS;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n) /* (poll refuses more) */
        n = (nfds_t)rl.rlim_cur;
    struct pollfd p[IOL_SCAN_FDS];
    for (nfds_t i = 0; i < n; i++)
        p[i] = (struct pollfd){(int)i, 0, 0};
    if (n == 0 || syscall(SYS_poll, p, n, 0) < 0) {
        errno = e;
        return;
    }
    for (nfds_t i = 0; i < n && rt.nnotes < IOL_NOTES_MAX; i++) {
        int fd = (int)i;
        /* (statx by system call, as the rest: fstat's wrapper would look the real fstat up) */
        struct statx st;
        char link[32], path[PATH_MAX];
        if ((p[i].revents & POLLNVAL) || fd == rt.spill_fd ||
            syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_TYPE, &st) || !S_ISREG(st.stx_mode))
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        long len = syscall(SYS_readlinkat, AT_FDCWD, link, path, sizeof path - 1);
        if (len <= 0 || path[0] != '/')
            continue;
        path[len] = 0;
        if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
            continue;
        note_fd(IOL_F_iolens_fd_at_start, fd, iol_path_id(path));
    }
    errno = e;
}

/* ---- fork: the child is its own process with its own spill ---- */
static void atfork_child(void)
{
    iol_shim_inside++;
    int layers = iol_shim_layers;
    shim_off();
    uint32_t n = rt.nbufs > IOL_MAX_THREADS ? IOL_MAX_THREADS : rt.nbufs;
    for (uint32_t i = 0; i < n; i++) { /* the parent's records belong to the parent */
        iol_tbuf *b = rt.bufs[i];
        if (!b)
            continue;
        b->lock = 0;
        b->len = b->flushed = 0;
        if (b != tls_buf)
            b->in_use = 0;
    }
    if (tls_buf)
        tls_buf->tid = 0;
    rt.next_tid = 0;
    rt.spill_lock = 0;
    rt.path_lock = 0;
    memset(&rt.self, 0, sizeof rt.self); /* the parent's samples are the parent's */
    memset(rt.selff, 0, sizeof rt.selff);
    rt.finished = 0;
    rt.rank = -1;
    if (rt.spill_fd >= 0)
        syscall(SYS_close, rt.spill_fd);
    rt.spill_fd = -1;
    if (open_spill() == 0) {
        /* path ids are inherited with the descriptors: restate them in the new spill */
        rt.paths_spilled = 0;
        flush_paths(0);
        rt.nnotes = 0; /* the parent's, not yet recorded */
        if (layers & IOL_LAYER_POSIX_BIT) {
            int e = errno;
            for (int fd = 0; fd < IOL_FD_MAX; fd++)
                if (rt.fdmap[fd] > 0 && fd != rt.spill_fd)
                    note_fd(IOL_F_iolens_fd_at_fork, fd, rt.fdmap[fd] - 1);
            errno = e;
        }
        iol_shim_layers = layers;
    }
    iol_shim_inside--;
}

static int parse_layers(const char *s)
{
    if (!s || !*s)
        return IOL_LAYER_POSIX_BIT | IOL_LAYER_STDIO_BIT | IOL_LAYER_MPIIO_BIT | IOL_LAYER_HDF5_BIT | IOL_LAYER_PNETCDF_BIT |
               IOL_LAYER_NETCDF_BIT;
    int bits = 0;
    if (strstr(s, "hdf5"))
        bits |= IOL_LAYER_HDF5_BIT;
    if (strstr(s, "pnetcdf"))
        bits |= IOL_LAYER_PNETCDF_BIT;
    for (const char *n = s; (n = strstr(n, "netcdf")); n++) /* "netcdf" itself, not pnetcdf's */
        if (n == s || n[-1] != 'p')
            bits |= IOL_LAYER_NETCDF_BIT;
    if (strstr(s, "posix"))
        bits |= IOL_LAYER_POSIX_BIT;
    if (strstr(s, "stdio"))
        bits |= IOL_LAYER_STDIO_BIT;
    if (strstr(s, "mpiio"))
        bits |= IOL_LAYER_MPIIO_BIT;
    return bits;
}

/* IOLENS_TRACE_OUT=TRACE without IOLENS_TRACE_DIR: the spill folder is
 * TRACE.spill.<job id> (one per job, so that a stale folder of an earlier run
 * is never mixed in), created by whichever rank comes first. */
static int out_setup(const char *out)
{
    char cwd[512];
    if (out[0] != '/' && !getcwd(cwd, sizeof cwd))
        return -1;
    int n = out[0] == '/' ? snprintf(rt.out, sizeof rt.out, "%s", out) : snprintf(rt.out, sizeof rt.out, "%s/%s", cwd, out);
    if (n <= 0 || (size_t)n >= sizeof rt.out)
        return -1;
    const char *job = getenv("PMIX_NAMESPACE");
    if (!job || !*job)
        job = getenv("OMPI_MCA_ess_base_jobid");
    n = snprintf(rt.dir, sizeof rt.dir, "%s.spill", rt.out);
    if (n <= 0 || (size_t)n + 2 >= sizeof rt.dir)
        return -1;
    if (job && *job) {
        rt.dir[n++] = '.';
        for (; *job && (size_t)n + 1 < sizeof rt.dir; job++) /* a file-name-safe copy of the id */
            rt.dir[n++] = (*job >= '0' && *job <= '9') || (*job >= 'a' && *job <= 'z') ||
                                  (*job >= 'A' && *job <= 'Z') || *job == '-' || *job == '.'
                              ? *job
                              : '_';
        rt.dir[n] = 0;
    }
    if (syscall(SYS_mkdirat, AT_FDCWD, rt.dir, 0755) && errno != EEXIST)
        return -1;
    return 0;
}

/* The JOB chunk of the image (format.h): what Darshan's job record holds besides the times,
 * the user and the command line (its "exe", cut after the last whole argument that fits), and
 * the job id a batch system put in the environment. */
static void job_setup(int argc, char **argv)
{
    static const char *const ids[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID"};
    uint32_t uid = (uint32_t)getuid(), cl = 0;
    for (int i = 0; argv && i < argc && argv[i]; i++) {
        size_t l = strlen(argv[i]) + 1;
        if (l > IOL_RAW_MAX_CMDLINE - cl)
            break;
        memcpy(rt.job + 8 + cl, argv[i], l);
        cl += (uint32_t)l;
    }
    memcpy(rt.job, &uid, 4);
    memcpy(rt.job + 4, &cl, 4);
    rt.job_len = 8 + cl;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        const char *v = getenv(ids[k]);
        size_t l = v ? strlen(v) : 0;
        if (l && l <= IOL_RAW_MAX_JOBID) {
            memcpy(rt.job + rt.job_len, v, l);
            rt.job_len += (uint32_t)l;
            break;
        }
    }
}

static void on_quick_exit(void);

/* glibc's dynamic loader passes every ELF initialiser the program's argc, argv and environment;
 * other C libraries pass nothing, so the command line is left out there. */
__attribute__((constructor)) static void shim_init(int argc, char **argv)
{
    iol_shim_inside++;
    rt.rank = -1;
    const char *dir = getenv("IOLENS_TRACE_DIR");
    const char *fixed = getenv("IOLENS_SHIM_SPILL"); /* one exact spill file (tests) */
    const char *out = getenv("IOLENS_TRACE_OUT");
    int layers = parse_layers(getenv("IOLENS_LAYERS"));
    if ((!dir || !*dir) && (!fixed || !*fixed) && (!out || !*out))
        goto out; /* not asked to trace */
    if ((!dir || !*dir) && (!fixed || !*fixed) && out_setup(out))
        goto out; /* cannot make the spill folder: run untraced */
    if (dir && strlen(dir) < sizeof rt.dir)
        strcpy(rt.dir, dir);
    if (fixed && strlen(fixed) < sizeof rt.fixed_spill)
        strcpy(rt.fixed_spill, fixed);
    const char *cap = getenv("IOLENS_TRACE_SPILL_MAX"); /* bytes (iolens trace --spill-max) */
    if (cap && *cap) {
        char *end = NULL;
        unsigned long long v = strtoull(cap, &end, 10);
        if (end && end != cap && *end == 0)
            rt.spill_max = v;
    }
    rt.max_ids = IOL_PATH_MAX_IDS;
    rt.arena_cap = IOL_PATH_ARENA;
    void *m = mmap(NULL, rt.max_ids * sizeof(uint32_t) + rt.arena_cap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        rt.max_ids = IOL_PATH_MAX_IDS_SMALL;
        rt.arena_cap = IOL_PATH_ARENA_SMALL;
        m = mmap(NULL, rt.max_ids * sizeof(uint32_t) + rt.arena_cap, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (m == MAP_FAILED)
        goto out;
    rt.idoff = m;
    rt.arena = (char *)(rt.idoff + rt.max_ids);
    rt.nslots = IOL_PATH_SLOTS0;
    rt.slots = mmap(NULL, rt.nslots * sizeof *rt.slots, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (rt.slots == MAP_FAILED) {
        rt.slots = NULL;
        goto out;
    }
    if (pthread_key_create(&rt.key, thread_gone))
        goto out;
#ifdef __GLIBC__
    job_setup(argc, argv);
#else
    (void)argc;
    (void)argv;
    job_setup(0, NULL);
#endif
    if (open_spill())
        goto out;
    /* launched by mpirun: the rank is known before MPI_Init (Open MPI, PMIx, PMI) */
    const char *rk = getenv("OMPI_COMM_WORLD_RANK"), *sz = getenv("OMPI_COMM_WORLD_SIZE");
    if (!rk || !sz) {
        rk = getenv("PMIX_RANK");
        sz = getenv("PMIX_SIZE");
    }
    if (rk && sz) {
        iol_shim_set_rank(atoi(rk), atoi(sz));
        rt.rank_env = 1;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    at_quick_exit(on_quick_exit);
    install_signals();
    if (layers & IOL_LAYER_POSIX_BIT)
        note_fds_at_start();
    iol_shim_layers = layers;
out:
    iol_shim_inside--;
}

__attribute__((destructor)) static void shim_fini(void)
{
    iol_shim_finish();
    shim_off();
}

/* ---- the trace built at MPI_Finalize (IOLENS_TRACE_OUT) ---- */
int iol_shim_builds_trace(void) { return rt.out[0] && rt.dir[0] && !rt.fixed_spill[0]; }

void iol_shim_close(void)
{
    iol_shim_finish();
    shim_off(); /* calls after MPI_Finalize are not part of the trace built now */
}

/* The trace builder: IOLENS_PROGRAM (the iolens program), else
 * iolens-trace-build (links only the trace module: starts in ~1 ms, where
 * the full program loads Open MPI, HDF5 and XGBoost) or iolens next to the
 * shim (build tree: build/src/shim/ -> build/; installed: lib/ -> bin/).
 * *light is set when the light builder was found. */
static int find_program(char *out, size_t n, int *light)
{
    const char *env = getenv("IOLENS_PROGRAM");
    *light = 0;
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return 0;
    }
    Dl_info info;
    if (!dladdr((void *)&iol_shim_close, &info) || !info.dli_fname)
        return -1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *rel[] = {"iolens-trace-build", "../../iolens-trace-build", "../bin/iolens-trace-build",
                         "iolens",             "../../iolens",             "../bin/iolens"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if ((size_t)snprintf(out, n, "%s/%s", dir, rel[i]) < n && !syscall(SYS_faccessat, AT_FDCWD, out, X_OK)) {
            *light = i < 3;
            return 0;
        }
    }
    return -1;
}

static void say(const char *a, const char *b, const char *c)
{
    const char *parts[] = {"iolens shim: ", a, b, c, "\n"};
    for (size_t i = 0; i < 5; i++)
        if (parts[i])
            syscall(SYS_write, 2, parts[i], strlen(parts[i]));
}

extern char **environ;

/* Rank 0, after every rank closed its spill and MPI_Finalize returned: runs
 * `iolens trace --build DIR -o OUT --remove-spill` (the shim itself never
 * links libiolens) with the environment minus the shim's own variables. */
void iol_shim_build_trace(void)
{
    char prog[1100];
    int light;
    if (find_program(prog, sizeof prog, &light)) {
        say("cannot find the iolens program (set IOLENS_PROGRAM); build the trace with `iolens trace --build ",
            rt.dir, "`");
        return;
    }
    static char *envp[1024];
    size_t ne = 0;
    for (char **e = environ; e && *e && ne + 1 < sizeof envp / sizeof envp[0]; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "IOLENS_TRACE_", 13) && strncmp(*e, "IOLENS_SHIM_SPILL=", 18))
            envp[ne++] = *e;
    envp[ne] = NULL;
    char *full[] = {prog, "trace", "--build", rt.dir, "-o", rt.out, "--remove-spill", NULL};
    char *lean[] = {prog, rt.dir, "-o", rt.out, "--remove-spill", NULL};
    char **argv = light ? lean : full;
    pid_t pid;
    if (posix_spawn(&pid, prog, NULL, NULL, argv, envp)) {
        say("cannot run ", prog, "");
        return;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
}

/* ---- process exits and image replacements that skip destructors ---- */
/* Flushes the trace, then leaves through the C library's function of that name. */
__attribute__((noreturn)) static void leave(void (**real)(int), const char *name, int status)
{
    if (!*real)
        *real = (void (*)(int))iol_real(name);
    iol_shim_finish();
    if (getpid() == rt.pid)
        shim_off();
    (*real)(status);
    __builtin_unreachable();
}

IOL_EXPORT void _exit(int status)
{
    static void (*real)(int);
    leave(&real, "_exit", status);
}

/* _Exit is glibc's alias of _exit: a program that calls it binds to that name. */
IOL_EXPORT void _Exit(int status)
{
    static void (*real)(int);
    leave(&real, "_Exit", status);
}

/* quick_exit runs the at_quick_exit handlers, then leaves through libc's
 * internal _exit: the shim's handler, registered first, runs last. */
static void on_quick_exit(void)
{
    iol_shim_finish();
    if (getpid() == rt.pid)
        shim_off();
}

/* Before an exec: an image that recorded nothing and did not start MPI only handed the process on
 * (env, nice, `iolens` running a command as iolens-full): its spill file is removed, so that the
 * trace does not hold an empty process before the one that does the work. Returns 1 when it
 * removed it. Otherwise the image's trace is finished as at exit. */
static int finish_for_exec(void)
{
    if (rt.spill_fd >= 0 && getpid() == rt.pid && !rt.fixed_spill[0] && (rt.rank < 0 || rt.rank_env) &&
        !__atomic_load_n(&rt.recorded, __ATOMIC_ACQUIRE)) {
        int empty = 1;
        uint32_t n = __atomic_load_n(&rt.nbufs, __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; i < n && i < IOL_MAX_THREADS; i++) {
            iol_tbuf *b = __atomic_load_n(&rt.bufs[i], __ATOMIC_ACQUIRE);
            if (b && __atomic_load_n(&b->len, __ATOMIC_ACQUIRE) > 0)
                empty = 0;
        }
        if (empty && !__atomic_exchange_n(&rt.finished, 1, __ATOMIC_ACQ_REL)) {
            int saved = errno;
            syscall(SYS_unlinkat, AT_FDCWD, rt.spill_path, 0);
            errno = saved;
            return 1;
        }
    }
    iol_shim_finish();
    return 0;
}

/* The exec failed: this image goes on, traced (into a new spill file if its own was removed). */
static void exec_failed(int removed)
{
    if (getpid() != rt.pid)
        return;
    if (removed) {
        int saved = errno;
        syscall(SYS_close, rt.spill_fd);
        rt.spill_fd = -1;
        if (open_spill() < 0)
            shim_off();
        errno = saved;
    }
    rt.finished = 0;
}

IOL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    IOL_REAL(execve);
    int removed = finish_for_exec();
    int r = real_execve(path, argv, envp);
    exec_failed(removed);
    return r;
}

IOL_EXPORT int execv(const char *path, char *const argv[])
{
    IOL_REAL(execv);
    int removed = finish_for_exec();
    int r = real_execv(path, argv);
    exec_failed(removed);
    return r;
}

IOL_EXPORT int execvp(const char *file, char *const argv[])
{
    IOL_REAL(execvp);
    int removed = finish_for_exec();
    int r = real_execvp(file, argv);
    exec_failed(removed);
    return r;
}

IOL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    IOL_REAL(execvpe);
    int removed = finish_for_exec();
    int r = real_execvpe(file, argv, envp);
    exec_failed(removed);
    return r;
}

IOL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    IOL_REAL(fexecve);
    int removed = finish_for_exec();
    int r = real_fexecve(fd, argv, envp);
    exec_failed(removed);
    return r;
}

/* execl, execlp, execle: their arguments collected (at most IOL_EXEC_ARGS; more: E2BIG, as the
 * kernel says of too many) and given to the vector forms, whose real functions do the exec. */
#define IOL_EXEC_ARGS 4096
static int exec_list(int kind, const char *path, const char *arg0, va_list ap)
{
    char *argv[IOL_EXEC_ARGS + 1];
    size_t n = 0;
    argv[n++] = (char *)arg0;
    while (arg0) {
        char *a = va_arg(ap, char *);
        if (n == IOL_EXEC_ARGS) {
            errno = E2BIG;
            return -1;
        }
        argv[n++] = a;
        if (!a)
            break;
    }
    char *const *envp = kind == 2 ? va_arg(ap, char *const *) : environ;
    if (kind == 1) {
        IOL_REAL(execvp);
        int removed = finish_for_exec();
        int r = real_execvp(path, argv);
        exec_failed(removed);
        return r;
    }
    IOL_REAL(execve);
    int removed = finish_for_exec();
    int r = real_execve(path, argv, envp);
    exec_failed(removed);
    return r;
}

IOL_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = exec_list(0, path, arg, ap);
    va_end(ap);
    return r;
}

IOL_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = exec_list(1, file, arg, ap);
    va_end(ap);
    return r;
}

IOL_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int r = exec_list(2, path, arg, ap);
    va_end(ap);
    return r;
}

/* ---- threads started by untraced library code (e.g. MPI_Init's progress
 * threads) stay untraced: they are the library's helpers, not the program ---- */
typedef struct quiet_start {
    void *(*fn)(void *);
    void *arg;
} quiet_start;

static void *quiet_thread(void *p)
{
    quiet_start q = *(quiet_start *)p;
    free(p);
    iol_shim_inside = 1;
    return q.fn(q.arg);
}

IOL_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    IOL_REAL(pthread_create);
    if (!iol_shim_inside || !iol_shim_layers)
        return real_pthread_create(th, attr, fn, arg);
    quiet_start *q = malloc(sizeof *q);
    if (!q)
        return real_pthread_create(th, attr, fn, arg);
    q->fn = fn;
    q->arg = arg;
    int r = real_pthread_create(th, attr, quiet_thread, q);
    if (r)
        free(q);
    return r;
}

/* close_range(2) may close the spill descriptor: the shim then stops writing
 * (so that a later descriptor with the same number is never written to). */
IOL_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    IOL_REAL(close_range);
    if (rt.spill_fd >= 0 && (unsigned)rt.spill_fd >= first && (unsigned)rt.spill_fd <= last &&
        !(flags & 4 /* CLOSE_RANGE_CLOEXEC */))
        flush_all(0); /* the calls so far reach the spill before its descriptor goes */
    int r = real_close_range(first, last, flags);
    if (r == 0 && !(flags & 4 /* CLOSE_RANGE_CLOEXEC */)) {
        if (rt.spill_fd >= 0 && (unsigned)rt.spill_fd >= first && (unsigned)rt.spill_fd <= last)
            spill_lost(IOL_RAW_OFF_CLOSED);
        for (unsigned fd = first; fd <= last && fd < IOL_FD_MAX; fd++)
            __atomic_store_n(&rt.fdmap[fd], 0, __ATOMIC_RELAXED);
    }
    return r;
}

/* glibc's closefrom(3) closes through its internal close_range, which the
 * wrapper above never sees. */
IOL_EXPORT void closefrom(int lowfd)
{
    IOL_REAL(closefrom);
    if (rt.spill_fd >= 0 && rt.spill_fd >= lowfd)
        flush_all(0); /* the calls so far reach the spill before its descriptor goes */
    if (!real_closefrom) { /* not in this C library: do what it documents */
        syscall(SYS_close_range, (unsigned)(lowfd < 0 ? 0 : lowfd), ~0u, 0);
    } else {
        real_closefrom(lowfd);
    }
    unsigned first = lowfd < 0 ? 0u : (unsigned)lowfd;
    if (rt.spill_fd >= 0 && (unsigned)rt.spill_fd >= first)
        spill_lost(IOL_RAW_OFF_CLOSED);
    for (unsigned fd = first; fd < IOL_FD_MAX; fd++)
        __atomic_store_n(&rt.fdmap[fd], 0, __ATOMIC_RELAXED);
}
