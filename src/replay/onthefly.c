/*
 * On-the-fly replay of a trace (iolens or Recorder): each rank re-issues its
 * own application-level (depth 0) POSIX, stdio, metadata and MPI-IO calls in
 * order, with the recorded sizes, offsets, open flags and seeks, on paths
 * remapped below the replay root. Optional delays reproduce the recorded gaps.
 *
 * Under MPI with one process per traced rank, process r replays rank r:
 *  - collective MPI-IO calls are checked up front to match across ranks (the
 *    same calls on the same files in the same order), else the replay refuses;
 *  - where the trace shows that every rank's earlier calls had ended before an
 *    open or a namespace change (unlink, rename, ...) started (the mark of a
 *    barrier), the ranks meet at a barrier there,
 *    so phases do not overlap when the original's did not.
 * Every open-close session is timed; the sessions of all ranks are gathered
 * on rank 0 (FBench Algorithm 1 over the writing and the reading sessions).
 *
 * At the library level (opt->level) the HDF5 calls made by the application are re-issued
 * through HDF5 (otf_hdf5.c) and the calls made inside them are not; an HDF5 file's session
 * runs from its H5Fcreate or H5Fopen to its H5Fclose.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#define OTF_MODE_CREATE MPI_MODE_CREATE
#else
#define OTF_MODE_CREATE 1 /* MPI_MODE_CREATE of Open MPI and MPICH */
#endif

#include "iolens/recorder.h"
#include "iolens/replay.h"
#include "iolens/trace.h"
#include "replay/exec.h"
#include "replay/otf_hdf5.h"
#include "replay/sandbox.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strindex.h"

#define OTF_BUF (1 << 20)
#define OTF_MAX_XFER ((int64_t)1 << 30) /* one MPI-IO call moves at most 1 GiB in a replay */
#define OTF_MAX_POSIX ((int64_t)64 << 20) /* a larger POSIX or stdio transfer is issued in pieces of this */
#define OTF_MAX_DEPTH 8                 /* nested opens of one file within a rank */

enum { SS_OPEN, SS_CLOSE, SS_READ, SS_WRITE, SS_N }; /* per-session figures */

int iolens_replay_trace_open(const char *path, iolens_evsource **out)
{
    if (!path || !out)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_open: NULL argument");
    *out = NULL;
    struct stat st;
    if (stat(path, &st) < 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return iolens_recorder_open(path, out, NULL);
    if (S_ISFIFO(st.st_mode)) /* a pipe: read as a stream, its magic checked as it comes */
        return iolens_trace_open(path, out);
    int fd = iol_open_input(path, 0);
    if (fd < 0)
        return fd;
    char magic[8] = {0};
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    if (n == (ssize_t)sizeof magic && !memcmp(magic, "IOLTRACE", 8))
        return iolens_trace_open(path, out);
    return iol_err(IOLENS_EFORMAT, "'%s' is neither an iolens trace (no IOLTRACE magic at byte 0) nor a Recorder "
                   "trace directory", path);
}

/* One open handle: a descriptor, a stream, a directory stream or an MPI file. */
struct otf_handle {
    int fd;
    FILE *fp;
    DIR *dir;
    void *mfh; /* MPI_File* */
    int world; /* MPI file opened on MPI_COMM_WORLD */
    int64_t sess;
};

/* One replayed file identity. */
struct otf_file {
    struct otf_handle h[OTF_MAX_DEPTH];
    int n;            /* open handles (stack) */
    int skip;         /* not replayable (system path, or bad below) */
    int bad;          /* its path cannot be remapped below the root ('..', the root itself) */
    int existed;      /* existed below the root before the replay: never removed */
    int opened;       /* the pre-pass saw an open */
    int input;        /* its first open (in time) does not create it: created before the replay */
    int dir;          /* that first open asked for a directory */
    int seen;         /* the pre-pass saw a replayed call on it */
    int first_stat;   /* the first of them (in time) was a successful call on a path that existed:
                         1 a stat, access, unlink or rename of it; 2 a removal of a directory */
    int input_dir;    /* a directory that existed before the program: created before the replay */
    int input_stat;   /* a file (not input_dir) that existed before the program: its first call was a
                         successful stat (fio's filestat jobs stat files laid out before): created */
    double first_any; /* time of that first call */
    int pre_world;    /* pre-pass: communicator of the rank's last MPI_File_open */
    double first_open;
    int64_t extent;   /* highest byte read: size an input file needs */
    const char *modifies; /* the first replayed call that would change the file (write, truncate, ...) */
    int h5file;       /* the first open is an H5Fcreate or H5Fopen (library level) */
    char *rel;        /* path below the root */
    size_t canon;     /* the first file of the trace with the same normalised path: the one replayed */
    uint64_t path_ok; /* ns_gen + 1 of the last check of its directories (checked_path) */
    /* a descriptor the process had open when it started or was forked (iolens_fd_at_start,
     * _at_fork): opened by the replay at its first read, write or truncation, and not at all when
     * the process never uses it (a leaked descriptor). pre-pass: 1 + pending, pend_t its time;
     * replay: 1 + its index in otf.pend */
    size_t pend;
    double pend_t;
};

/* A depth-0 event with the raw arguments the replay needs (iolens traces). */
struct otf_ev {
    iolens_event e;
    int64_t a[4];
    int has_a, rank;
    int pos;  /* a pread/pwrite with a known offset (worked out when decoded, not per issued call) */
    int cons; /* considered(): replayed, not skipped (worked out when decoded) */
    int fast; /* a positional POSIX read or write of at most the buffer's size, no delays: the tight loop */
    int mk;   /* MPI-IO data calls: MK_* of the entry point's name (worked out when decoded) */
    int copy; /* one side of a copy_file_range or sendfile (copy_event; worked out when decoded) */
    int mf;   /* namespace calls: MF_* of the entry point's name; mkind: its IOLENS_REPLAY_META_* (decoded) */
    int mkind;
    int at; /* an open or namespace call the program made relative to a directory descriptor (rel_at) */
    int32_t slot; /* the raw descriptor slot (an HDF5 call's handle index) */
    uint64_t x;   /* library level: 1 + the sequence number of the call's notes in h5x, 0 none */
};

/* What an MPI-IO read or write entry point is, from its name: decided when the call is
 * decoded, so that re-issuing it compares no strings (fidelity at small transfers). */
enum { MK_END = 1, MK_ALL = 2, MK_AT = 4, MK_SHARED = 8, MK_ORDERED = 16 };

/* What a namespace call (stat, unlink, ...) is, from its name and operation: decided when the
 * call is decoded, so that replaying it compares no strings (a metadata benchmark's stat loop
 * spent ~5% of its replay in meta_event's string comparisons). */
enum {
    MF_OTHER, MF_FALLOCATE, MF_POSIX_FALLOCATE, MF_TRUNCATE, MF_READDIR, MF_CLOSEDIR, MF_FSTAT, MF_STAT, MF_LSTAT,
    MF_ACCESS, MF_MKDIR, MF_OPENDIR, MF_UNLINK, MF_RMDIR, MF_RENAME, MF_REMOVE,
    /* truncate by path; attributes on a path (chmod, chown, utime; each follows a link or not as
     * recorded) and on a descriptor (fchmod, fchown, futimens) */
    MF_TRUNCATE_PATH, MF_CHMOD, MF_CHOWN, MF_LCHOWN, MF_UTIME, MF_LUTIME, MF_FCHMOD, MF_FCHOWN, MF_FUTIME,
    MF_LINK /* a hard link (symlink and readlink are not replayed: a replay never makes or follows a link) */
};

/* What the tight loop reads of a call (fast_run): 16 bytes instead of the decoded event's ~180,
 * so that a large batch streams through the cache as an application's loop does not have to
 * (fidelity: with 262144 decoded 4 KiB calls per batch, reading the events themselves cost ~10%). */
struct otf_fx {
    int64_t offset;
    int32_t size;
    int32_t bufoff; /* where in the transfer buffer the data starts (xbuf) */
};

static int mpi_kind(const char *fn)
{
    if (!fn)
        return 0;
    return (strstr(fn, "_end") ? MK_END : 0) | (strstr(fn, "_all") ? MK_ALL : 0) | (strstr(fn, "_at") ? MK_AT : 0) |
           (strstr(fn, "_shared") ? MK_SHARED : 0) | (strstr(fn, "_ordered") ? MK_ORDERED : 0);
}

struct otf_coll {
    const char *func;
    int64_t file;
};

struct otf_cut {
    double t0, t1;
    int rank, open, coll;
    int64_t idx;
};

struct otf {
    const iolens_replay_trace_options *opt;
    /* a copy's source read (IOLENS_EVF_COPY_SOURCE), kept for its target's write: the two are
     * re-issued as the one copy call the program made (copy_event) */
    struct otf_ev copy_src;
    struct otf_file *copy_f;
    int copy_set;
    /* while the calls are replayed the process works inside the root and names files relative
     * to it: the kernel walks as many components as for the program's own absolute names (a
     * walk from the root's whole path cost the metadata calls 10-20 %); cwd is where it was
     * (a name, not a descriptor: the replayed opens get the program's descriptor numbers) */
    int rel_names;
    char *cwd;
    iol_sandbox sb;  /* the root: every path resolved beneath it (replay/sandbox.h) */
    uint64_t ns_gen; /* bumped by every replayed rmdir and rename: directories may have changed */
    const char *mk_func; /* fetch(): the last MPI-IO read/write entry point decoded, and its MK_* */
    int mk_last;
    size_t nopen; /* handles open now (files, streams, MPI files, directories) */
    iolens_replay_trace_stats *st;
    const iolens_file *files;
    size_t nfiles;
    struct otf_file *f;
    char *buf;
    size_t bufcap;
    int iolens_kind; /* the source has raw arguments (iolens_trace_last_args) */
    int nranks;      /* ranks replayed: the trace's processes less those left out (select_ranks) */
    int *src_rank;   /* nranks: the source rank of each */
    int left_out;    /* processes of the trace left out */
    int mpi, me, np; /* MPI: this process replays rank me of np */
    int mpiio;       /* MPI-IO calls are replayed */
    int cuts;        /* barriers at the trace's synchronisation points */
    struct otf_coll *coll;
    size_t ncoll, capcoll;
    struct otf_cut *ev;
    size_t nev, capev;
    int64_t *bar; /* this rank's barriers: before its considered call bar[i] */
    size_t nbar, ibar;
    int64_t *sess_base; /* nranks + 1 */
    double *sess;       /* sessions * SS_N */
    int64_t *sess_file; /* file of each session (pre-pass) */
    size_t nsf, capsf;
    int64_t sess_next;
    double *first;  /* per rank: time of the first depth-0 call */
    int64_t *nev0;  /* per rank: depth-0 calls (the size of its first batch) */
    int64_t maxio;  /* the largest transfer the replay issues as one call (pre-pass) */
    double t_origin;
    double mono_origin; /* now() when the replay's calls start (meta_first, meta_last) */
    int cur_rank;       /* the rank being replayed (its row of meta_rank_*) */
    /* calls_seconds: the start and end of this process's replayed calls on the replay's clock
     * (since mono_origin), and the sum over ranks replayed one after another */
    double calls_t0, calls_t1, calls_sum;
    /* --delays: seconds inside the last call replayed outside the tight loop (from just before
     * its system call to just after) and the clock read just after it, < 0 when that call is not
     * timed */
    double inside, inside_end;
    int time_rw; /* --delays: time the next read or write (one call in 16: its clock reads cost) */
    int64_t *mr_calls;  /* nranks * IOLENS_REPLAY_NMETA: this process's calls per rank and kind */
    double *mr_first, *mr_last;
    struct otf_dir *dirs; /* folders of replayed files (folder_of): open addressing, ndirs of capdirs */
    size_t ndirs, capdirs;
    int ndirfds;           /* of them held open */
    size_t dir_hand;       /* folder_of: where the next one to let go is looked for */
    /* the library level: HDF5 calls through HDF5 */
    int h5;
    int h5_unsized; /* the trace has HDF5 datasets or writes without their size */
    const char *h5_input; /* an HDF5 file the trace opens and never creates: replayed at the I/O level */
    struct otf_ev *pend; /* the pending notes of the rank being replayed (otf_file.pend) */
    size_t npend, cappend;
    char **newdirs; /* (rank 0) directories below the root its files need that were not there before */
    size_t nnewdirs, capnewdirs;
    int removed;    /* (rank 0) what the replay created was removed (remove_created) */
    oh5 *oh5;
    oh5_extra *h5x; /* the notes of the decoded calls, a ring of h5xcap (replay_rank) */
    size_t h5xcap;
    uint64_t h5xseq;
};

/* A folder of replayed files below the root, held as a descriptor resolved beneath it while
 * ns_gen stays what it was when it was opened. */
struct otf_dir {
    char *rel; /* NULL: free slot */
    size_t len;
    int fd1;        /* its descriptor (O_PATH) + 1, 0 none (folder_of) */
    uint64_t fdgen; /* ns_gen + 1 when it was opened */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void warn(struct otf *o, const char *msg)
{
    if (o->opt->warn)
        o->opt->warn(o->opt->warn_ctx, msg);
}

static void barrier(struct otf *o)
{
#ifdef IOLENS_HAVE_MPI
    if (o->mpi && o->np > 1)
        MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)o;
#endif
}

/* A barrier that waits without spinning: a rank that finished its calls sleeps until the others
 * have (MPI_Barrier polls, taking a processor from the ranks still replaying: fio's parent
 * process, which slept while its job read 1 GiB, would spin through the job's replay). */
static void idle_barrier(struct otf *o)
{
#ifdef IOLENS_HAVE_MPI
    if (o->mpi && o->np > 1) {
        MPI_Request req;
        int done = 0;
        if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS) {
            MPI_Barrier(MPI_COMM_WORLD);
            return;
        }
        while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
            struct timespec ts = {0, 200000}; /* 0.2 ms */
            nanosleep(&ts, NULL);
        }
    }
#else
    (void)o;
#endif
}

/* The replay's own safety checks go around the tracer (a raw system call), so a
 * trace of the replay holds the workload's calls only, not its bookkeeping. */
static int raw_fstatat(int dirfd, const char *name, struct stat *sb, int flags)
{
#ifdef SYS_newfstatat
    return (int)syscall(SYS_newfstatat, dirfd, name, sb, flags);
#else
    return fstatat(dirfd, name, sb, flags);
#endif
}

static int system_path(const char *p)
{
    if (!strncmp(p, "/dev/shm/", 9))
        return 0; /* a RAM file system, where workloads often write */
    static const char *const pre[] = {"/proc/", "/sys/", "/dev/", "/etc/", "/usr/", "/lib", "/run/", "pipe:",
                                      "socket:"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(p, pre[i], strlen(pre[i])))
            return 1;
    return !*p || !strcmp(p, "/") || iol_replay_runtime_path(p);
}

/* The slot of directory rel[0..n) in o->dirs (capdirs > 0): its own or the free one it would take. */
static struct otf_dir *dir_slot(struct otf *o, const char *rel, size_t n)
{
    size_t i = (size_t)iol_mem_hash(rel, n) & (o->capdirs - 1);
    while (o->dirs[i].rel && !(o->dirs[i].len == n && !memcmp(o->dirs[i].rel, rel, n)))
        i = (i + 1) & (o->capdirs - 1);
    return &o->dirs[i];
}

/* The entry of directory rel[0..n), made when missing; NULL when out of memory. */
static struct otf_dir *dir_entry(struct otf *o, const char *rel, size_t n)
{
    if (2 * (o->ndirs + 1) > o->capdirs) {
        size_t cap = o->capdirs ? 2 * o->capdirs : 64;
        struct otf_dir *old = o->dirs, *d = calloc(cap, sizeof *d);
        if (!d)
            return NULL;
        size_t oldcap = o->capdirs;
        o->dirs = d;
        o->capdirs = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].rel)
                *dir_slot(o, old[i].rel, old[i].len) = old[i];
        free(old);
    }
    struct otf_dir *d = dir_slot(o, rel, n);
    if (!d->rel) {
        if (!(d->rel = malloc(n + 1)))
            return NULL;
        memcpy(d->rel, rel, n);
        d->rel[n] = 0;
        d->len = n;
        o->ndirs++;
    }
    return d;
}

static void close_dirfd(struct otf *o, struct otf_dir *d)
{
    if (d->fd1) {
        syscall(SYS_close, d->fd1 - 1);
        d->fd1 = 0;
        o->ndirfds--;
    }
}

static void free_dirs(struct otf *o)
{
    for (size_t i = 0; i < o->capdirs; i++) {
        free(o->dirs[i].rel);
        close_dirfd(o, &o->dirs[i]);
    }
    o->ndirfds = 0;
    free(o->dirs);
    o->dirs = NULL;
    o->ndirs = o->capdirs = 0;
}

/* At most this many folder descriptors held at once (of a tree of more, the least recently made
 * go first; a folder is opened again when it is needed again) */
#define OTF_MAX_DIRFDS 128

/* The folder of f, resolved beneath the root without following a link (its missing folders made),
 * as a descriptor held while no replayed rmdir or rename may have moved it; in *base f's own name
 * in it. Every call that changes something is made relative to it (sandbox.h). -1 on error (set). */
static int folder_of(struct otf *o, struct otf_file *f, const char **base)
{
    const char *slash = strrchr(f->rel, '/');
    size_t n = slash ? (size_t)(slash - f->rel) : 0;
    *base = slash ? slash + 1 : f->rel;
    struct otf_dir *d = dir_entry(o, f->rel, n);
    if (!d)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    if (d->fd1 && d->fdgen == o->ns_gen + 1)
        return d->fd1 - 1;
    close_dirfd(o, d); /* opened before a rename or rmdir: the folder is looked up again */
    /* all held: one goes, the next after the last let go (a clock hand over the table) */
    for (size_t k = 0; o->ndirfds >= OTF_MAX_DIRFDS && k < o->capdirs; k++) {
        o->dir_hand = (o->dir_hand + 1) & (o->capdirs - 1);
        if (&o->dirs[o->dir_hand] != d)
            close_dirfd(o, &o->dirs[o->dir_hand]);
    }
    int fd = iol_sandbox_dir(&o->sb, f->rel, n, 1, NULL, NULL);
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP || err == EXDEV || err == ENOTDIR)
            return iol_err(IOLENS_EINVAL, "a component of '%s/%s' is a symbolic link or not a directory: refusing "
                           "to leave the replay root", o->sb.root, f->rel);
        return iol_err(IOLENS_EIO, "cannot open the folder of '%s/%s': %s", o->sb.root, f->rel, strerror(err));
    }
    fd = iol_sandbox_high_fd(fd);
    iol_sandbox_name(&o->sb, fd, f->rel, n);
    d->fd1 = fd + 1;
    d->fdgen = o->ns_gen + 1;
    o->ndirfds++;
    return fd;
}

/* The name a library is given for f: relative inside the root (the process works there while the
 * calls are replayed), else root/rel; its folder made and held (folder_of). */
static int checked_path(struct otf *o, struct otf_file *f, char *out, size_t cap)
{
    const char *base;
    if (f->path_ok != o->ns_gen + 1 && folder_of(o, f, &base) < 0)
        return IOLENS_EIO;
    size_t rl = strlen(f->rel), pre = o->rel_names ? 0 : strlen(o->sb.root) + 1;
    if (pre + rl >= cap)
        return iol_err(IOLENS_EINVAL, "path '%s/%s' is too long", o->sb.root, f->rel);
    if (pre) {
        memcpy(out, o->sb.root, pre - 1);
        out[pre - 1] = '/';
    }
    memcpy(out + pre, f->rel, rl + 1);
    f->path_ok = o->ns_gen + 1;
    return 0;
}

/* checked_path for a library that opens f by its name (stdio, MPI-IO, HDF5): f itself is no link,
 * and walking its folder's name reaches the folder held beneath the root (a component swapped for
 * a link since would be followed by the library). *dfd: the folder, *base: f's name in it. */
static int library_path(struct otf *o, struct otf_file *f, char *out, size_t cap, int *dfd, const char **base)
{
    int rc = checked_path(o, f, out, cap);
    if (rc < 0)
        return rc;
    if ((*dfd = folder_of(o, f, base)) < 0)
        return IOLENS_EIO;
    struct stat st;
    if (raw_fstatat(*dfd, *base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return iol_err(IOLENS_EINVAL, "'%s/%s' is a symbolic link: refusing to follow it", o->sb.root, f->rel);
    if (iol_sandbox_verify_dir(&o->sb, *dfd, f->rel) < 0)
        return iol_err(IOLENS_EINVAL, "the folder of '%s/%s' was replaced during the replay (a component is now a "
                       "link or another folder): stopping, as the replay may only change what it created", o->sb.root,
                       f->rel);
    return 0;
}

/* After a library opened f by its name: the file in the held folder is a file, not a link to one
 * elsewhere; fd (when >= 0) is that file. */
static int library_opened(struct otf *o, struct otf_file *f, int dfd, const char *base, int fd)
{
    struct stat st;
    int bad = fd >= 0 ? iol_sandbox_verify_file(dfd, base, fd) < 0
                      : raw_fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(st.st_mode);
    if (bad)
        return iol_err(IOLENS_EINVAL, "'%s/%s' was replaced during the replay (it is not the file opened in the "
                       "folder held beneath the root): stopping, as the replay may only change what it created",
                       o->sb.root, f->rel);
    return 0;
}

static const char *stdio_mode(int fl)
{
    int acc = fl & O_ACCMODE;
    if (fl & O_APPEND)
        return acc == O_RDWR ? "a+" : "a";
    if (acc == O_RDONLY)
        return "r";
    if (acc == O_WRONLY)
        return "w";
    return (fl & O_TRUNC) ? "w+" : "r+";
}

/* The transfer buffer has 4096 bytes more than bufcap: a call's data starts where in a page
 * the application's buffer started (iolens_event.buf_pgoff1; a page start when the trace does
 * not say), as the kernel's copy depends on it (docs/REPLAY-CONFIG.md, fidelity). */
static int ensure_buf(struct otf *o, int64_t n)
{
    if (n <= (int64_t)o->bufcap)
        return 0;
    if (n > OTF_MAX_XFER)
        return iol_err(IOLENS_EUNSUPPORTED, "a traced MPI-IO call moves %lld bytes: more than the replay's limit "
                       "of %lld per call", (long long)n, (long long)OTF_MAX_XFER);
    void *b = NULL;
    if (posix_memalign(&b, 4096, (size_t)n + 4096))
        return iol_err(IOLENS_ENOMEM, "out of memory for a %lld-byte transfer", (long long)n);
    memset(b, 'r', (size_t)n + 4096);
    free(o->buf);
    o->buf = b;
    o->bufcap = (size_t)n;
    return 0;
}

static char *xbuf(const struct otf *o, const iolens_event *e)
{
    return o->buf + (e->buf_pgoff1 >= 1 && e->buf_pgoff1 <= 4096 ? e->buf_pgoff1 - 1 : 0);
}

static double *sess_of(struct otf *o, const struct otf_handle *h)
{
    return h->sess >= 0 ? o->sess + (size_t)h->sess * SS_N : NULL;
}

/* Bytes a read or write moved: to its open-close session's and the run's totals. */
static void count_moved(struct otf *o, const struct otf_handle *h, int w, int64_t bytes)
{
    double *s = sess_of(o, h);
    if (s)
        s[w ? SS_WRITE : SS_READ] += (double)bytes;
    if (w)
        o->st->bytes_written += bytes;
    else
        o->st->bytes_read += bytes;
}

/* Session times: CLOCK_REALTIME (comparable across the ranks of a node, as MPI_Wtime), from
 * an origin common to every rank (the earliest rank's start). */
static double realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall(struct otf *o)
{
    return realtime() - o->t_origin;
}

/* ---- what is replayed ---- */

/* The calls the replay acts on (the same predicate in the pre-pass and the replay). */
static int considered(const struct otf *o, const iolens_event *e)
{
    if (e->depth || (e->flags & IOLENS_EVF_FAILED))
        return 0;
    if (e->layer == IOLENS_LAYER_MPIIO) {
        if (!o->mpiio || e->op == IOLENS_OP_WAIT)
            return 0;
    } else if (e->layer == IOLENS_LAYER_HDF5) {
        if (!o->h5 || !oh5_handles(e->func))
            return 0;
        if (e->func[2] == 'P') /* property lists name no file */
            return 1;
    } else if (e->layer != IOLENS_LAYER_POSIX && e->layer != IOLENS_LAYER_STDIO) {
        return 0;
    }
    return e->file >= 0 && (uint64_t)e->file < o->nfiles && !o->f[e->file].skip;
}

/* Communicator of an MPI_File_open: 1 MPI_COMM_WORLD, 0 MPI_COMM_SELF. (Open MPI names its
 * shared-file-pointer files by communicator: a one-rank job's WORLD open stays WORLD.) */
static int open_world(struct otf *o, const struct otf_ev *v, int *world)
{
    const iolens_event *e = &v->e;
    *world = 1;
    if (v->has_a) { /* the communicator's size: every rank (even one), or a single rank */
        if (v->a[2] == o->nranks)
            *world = 1;
        else if (v->a[2] <= 1)
            *world = 0;
        else
            return iol_err(IOLENS_EUNSUPPORTED, "rank %d: %s of '%s' on a communicator of %lld ranks: only "
                           "MPI_COMM_WORLD (%d ranks) or a single rank can be replayed", v->rank, e->func,
                           o->files[e->file].path, (long long)v->a[2], o->nranks);
        return 0;
    }
    for (uint32_t i = 0; i < e->nargs && e->args; i++) /* Recorder: the communicator as text */
        if (e->args[i] && strstr(e->args[i], "SELF"))
            *world = 0;
    return 0;
}

static int is_copy_fn(const char *fn) { return !strcmp(fn, "copy_file_range") || !strncmp(fn, "sendfile", 8); }

static int positional(const char *func)
{
    return func && func[0] == 'p' && (!strncmp(func, "pread", 5) || !strncmp(func, "pwrite", 6));
}

/* The notes of an HDF5 call (selection, dimensions, chunks) into the ring; 1 + their sequence number. */
static uint64_t fetch_notes(struct otf *o, iolens_evsource *src, int sr)
{
    oh5_extra *x = &o->h5x[o->h5xseq % o->h5xcap];
    memset(x, 0, sizeof *x);
    x->has_sel = iolens_trace_last_hyperslab(src, sr, &x->nd, &x->start, x->count, x->block, x->stride) == 1;
    x->has_dims = iolens_trace_last_dims(src, sr, &x->dnd, x->dims, &x->unlimited) == 1;
    x->has_chunk = iolens_trace_last_chunk(src, sr, &x->cnd, x->chunk) == 1;
    if (!x->has_sel && !x->has_dims && !x->has_chunk)
        return 0;
    return ++o->h5xseq;
}

static int is_fallocate(const char *fn);
static int meta_kind(const struct otf_ev *v);

/* an unlinkat that removes a directory (AT_REMOVEDIR; a trace without arguments: a file) */
static int unlinkat_dir(const struct otf_ev *v)
{
    return v->has_a && (v->a[3] & AT_REMOVEDIR);
}

/* MF_* of chmod, chown, utime and their kin: on a descriptor (the f- forms, and utimensat of a
 * NULL path, which the trace records on its descriptor), else on a path, following a link or not
 * (lchown, AT_SYMLINK_NOFOLLOW) as recorded */
static int attr_fn(const struct otf_ev *v, const char *fn)
{
    int at = !strcmp(fn, "fchmodat") || !strcmp(fn, "fchownat") || !strcmp(fn, "utimensat");
    int on_fd = (fn[0] == 'f' && !at) || (!strcmp(fn, "utimensat") && v->slot >= 0);
    int nofollow = !strcmp(fn, "lchown") || (at && v->has_a && (v->a[3] & AT_SYMLINK_NOFOLLOW));
    if (strstr(fn, "chmod"))
        return on_fd ? MF_FCHMOD : MF_CHMOD;
    if (strstr(fn, "chown"))
        return on_fd ? MF_FCHOWN : nofollow ? MF_LCHOWN : MF_CHOWN;
    return on_fd ? MF_FUTIME : nofollow ? MF_LUTIME : MF_UTIME;
}

/* Whether an open or namespace call was made relative to a directory descriptor (openat,
 * mkdirat, unlinkat, fstatat, ... with a dirfd other than AT_FDCWD): the replay then names the
 * file relative to a descriptor of its folder, as the program did (dir_fd) */
static int rel_at(const struct otf_ev *v)
{
    const char *fn = v->e.func;
    if (!v->has_a || !fn)
        return 0;
    if (!strcmp(fn, "fchownat"))
        return v->a[0] != AT_FDCWD;
    return (!strncmp(fn, "openat", 6) || !strcmp(fn, "mkdirat") || !strcmp(fn, "unlinkat") ||
            !strncmp(fn, "fstatat", 7) || !strcmp(fn, "statx") || !strcmp(fn, "faccessat") ||
            !strcmp(fn, "fchmodat") || !strcmp(fn, "utimensat")) &&
           v->a[2] != AT_FDCWD && v->slot < 0;
}

/* MF_* of a namespace call (STAT, META, TRUNCATE), as meta_event replays it */
static int meta_fn(const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    const char *fn = e->func ? e->func : "";
    if (e->op == IOLENS_OP_TRUNCATE)
        return is_fallocate(fn)                ? (fn[0] == 'p' ? MF_POSIX_FALLOCATE : MF_FALLOCATE)
               : !strncmp(fn, "truncate", 8) ? MF_TRUNCATE_PATH
                                               : MF_TRUNCATE;
    if (e->op == IOLENS_OP_META && (strstr(fn, "chmod") || strstr(fn, "chown") || strstr(fn, "utime")))
        return attr_fn(v, fn);
    if (!strcmp(fn, "readdir") || !strcmp(fn, "readdir64"))
        return MF_READDIR;
    if (!strcmp(fn, "closedir"))
        return MF_CLOSEDIR;
    if (e->op == IOLENS_OP_STAT && fn[0] == 'f' && strncmp(fn, "fstatat", 7) && strncmp(fn, "__fxstatat", 10))
        return MF_FSTAT;
    if (e->op == IOLENS_OP_STAT) /* stat follows a link, lstat does not, as recorded */
        return strstr(fn, "lstat") || strstr(fn, "lxstat") ? MF_LSTAT : MF_STAT;
    if (!strcmp(fn, "unlinkat"))
        return unlinkat_dir(v) ? MF_RMDIR : MF_UNLINK;
    return !strcmp(fn, "access") || !strcmp(fn, "faccessat")                                 ? MF_ACCESS
           : !strcmp(fn, "mkdir") || !strcmp(fn, "mkdirat")                                  ? MF_MKDIR
           : !strcmp(fn, "opendir")                                                          ? MF_OPENDIR
           : !strcmp(fn, "unlink")                                                           ? MF_UNLINK
           : !strcmp(fn, "remove")                                                           ? MF_REMOVE
           : !strcmp(fn, "rmdir")                                                            ? MF_RMDIR
           : !strcmp(fn, "rename") || !strcmp(fn, "renameat") || !strcmp(fn, "renameat2") ? MF_RENAME
           : !strcmp(fn, "link") || !strcmp(fn, "linkat")                                    ? MF_LINK
                                                                                             : MF_OTHER;
}

/* The file replayed for a traced file id (mark_files). */
static int64_t canon_file(const struct otf *o, int64_t file)
{
    return file >= 0 && (uint64_t)file < o->nfiles ? (int64_t)o->f[file].canon : file;
}

/* Next depth-0 event of a rank, with its raw arguments. */
static int fetch(struct otf *o, iolens_evsource *src, int rank, struct otf_ev *v)
{
    int rc, sr = o->src_rank[rank];
    while ((rc = iolens_evsource_next(src, sr, &v->e)) > 0) {
        if (v->e.depth)
            continue;
        if (o->h5 && v->e.lib_depth)
            continue; /* made inside an HDF5 call the library level re-issues */
        int32_t fd = -1;
        v->rank = rank;
        v->e.file = canon_file(o, v->e.file);
        v->has_a = o->iolens_kind && iolens_trace_last_args(src, sr, &fd, v->a) == 0;
        v->slot = v->has_a ? fd : -1;
        v->x = 0;
        if (o->h5 && v->e.layer == IOLENS_LAYER_HDF5 && o->h5x && o->iolens_kind)
            v->x = fetch_notes(o, src, sr);
        if (o->iolens_kind && v->e.layer == IOLENS_LAYER_STDIO &&
            (v->e.op == IOLENS_OP_READ || v->e.op == IOLENS_OP_WRITE)) {
            iolens_trace_stdio_moved(src, sr, &v->e); /* replay the bytes the call moved, not its buffer size */
            if (v->e.ret >= 0 && v->e.ret < v->e.size)
                v->e.size = v->e.ret;
        } else if (v->e.layer == IOLENS_LAYER_POSIX && v->e.op == IOLENS_OP_WRITE &&
                   !(v->e.flags & IOLENS_EVF_FAILED) && v->e.ret >= 0 && v->e.ret < v->e.size) {
            v->e.size = v->e.ret; /* a short write: the bytes it wrote (a short read is asked for in
                                   * full: the input ends where the program's read ended, see extent) */
        }
        /* a splice's file side at an offset it gave (its file position unmoved) reads or writes
         * there, as pread and pwrite do; at its position, as read and write do; so do preadv2's
         * and pwritev2's (an offset of -1) */
        v->pos = (positional(v->e.func) || (v->e.func && !strcmp(v->e.func, "splice"))) &&
                 !(v->e.flags & (IOLENS_EVF_OFFSET_IMPLICIT | IOLENS_EVF_OFFSET_UNKNOWN)) && v->e.offset >= 0;
        v->copy = v->e.layer == IOLENS_LAYER_POSIX && (v->e.op == IOLENS_OP_READ || v->e.op == IOLENS_OP_WRITE) &&
                  v->e.func && is_copy_fn(v->e.func);
        v->cons = considered(o, &v->e);
        int ns = v->e.op == IOLENS_OP_STAT || v->e.op == IOLENS_OP_META || v->e.op == IOLENS_OP_TRUNCATE;
        v->mf = ns ? meta_fn(v) : MF_OTHER;
        v->mkind = ns ? meta_kind(v) : IOLENS_REPLAY_META_OTHER;
        if ((v->mf == MF_RENAME || v->mf == MF_LINK) && v->has_a)
            v->a[2] = canon_file(o, v->a[2]); /* the new name */
        v->at = (ns || v->e.op == IOLENS_OP_OPEN) && v->e.layer == IOLENS_LAYER_POSIX && rel_at(v);
        int rw = v->e.op == IOLENS_OP_READ || v->e.op == IOLENS_OP_WRITE;
        if (v->e.layer == IOLENS_LAYER_MPIIO && rw) { /* names repeat: the last one's kind is kept */
            if (v->e.func != o->mk_func) {
                o->mk_func = v->e.func;
                o->mk_last = mpi_kind(v->e.func);
            }
            v->mk = o->mk_last;
        } else {
            v->mk = 0;
        }
        /* the tight loop: positional POSIX calls, and MPI-IO's explicit-offset calls
         * (MPI_File_{read,write}_at[_all]; not split collectives) */
        int fastkind = v->e.layer == IOLENS_LAYER_POSIX ? v->pos
                                                         : v->e.layer == IOLENS_LAYER_MPIIO && (v->mk & MK_AT) &&
                                                               !(v->mk & MK_END) && v->e.offset >= 0;
        v->fast = v->cons && fastkind && rw && v->e.size > 0 && v->e.size <= (int64_t)o->bufcap &&
                  v->e.size <= INT_MAX;
        return 1;
    }
    return rc;
}

static int creates(const iolens_event *e)
{
    if (e->open_flags < 0)
        return 0;
    return e->layer == IOLENS_LAYER_MPIIO ? (e->open_flags & OTF_MODE_CREATE) != 0 : (e->open_flags & O_CREAT) != 0;
}

/* Whether replaying e changes its file's contents or size: a write, a truncation, an open
 * that truncates (O_TRUNC, creat, an fopen mode that starts with 'w' as the replay issues it)
 * or deletes at close (MPI_MODE_DELETE_ON_CLOSE). */
static int modifying(const iolens_event *e)
{
    if (e->op == IOLENS_OP_WRITE || e->op == IOLENS_OP_TRUNCATE)
        return 1;
    if (e->op != IOLENS_OP_OPEN || e->open_flags < 0)
        return 0;
    if (e->layer == IOLENS_LAYER_MPIIO) {
#ifdef IOLENS_HAVE_MPI
        return (e->open_flags & MPI_MODE_DELETE_ON_CLOSE) != 0;
#else
        return 0;
#endif
    }
    if (e->layer == IOLENS_LAYER_STDIO)
        return stdio_mode(e->open_flags)[0] == 'w';
    return (e->open_flags & O_TRUNC) != 0;
}

static int is_collective(const iolens_event *e, int world)
{
    if (e->layer != IOLENS_LAYER_MPIIO)
        return 0;
    if (e->flags & IOLENS_EVF_COLLECTIVE)
        return 1;
    switch (e->op) {
    case IOLENS_OP_OPEN:
    case IOLENS_OP_CLOSE:
    case IOLENS_OP_SYNC:
    case IOLENS_OP_SET_VIEW:
    case IOLENS_OP_TRUNCATE: return world;
    default: return 0;
    }
}

static int push_coll(struct otf *o, const iolens_event *e)
{
    if (o->ncoll == o->capcoll) {
        size_t cap = o->capcoll ? o->capcoll * 2 : 64;
        struct otf_coll *c = realloc(o->coll, cap * sizeof *c);
        if (!c)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        o->coll = c;
        o->capcoll = cap;
    }
    o->coll[o->ncoll++] = (struct otf_coll){e->func, e->file};
    return 0;
}

static int push_cut(struct otf *o, const iolens_event *e, int rank, int64_t idx, int coll)
{
    if (o->nev == o->capev) {
        size_t cap = o->capev ? o->capev * 2 : 256;
        struct otf_cut *c = realloc(o->ev, cap * sizeof *c);
        if (!c)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        o->ev = c;
        o->capev = cap;
    }
    /* synchronisation candidates: opens and namespace changes (a rank's unlink must not
     * overtake another rank's last read of the file when the trace shows it did not) */
    int point = e->op == IOLENS_OP_OPEN || e->op == IOLENS_OP_META || e->op == IOLENS_OP_TRUNCATE;
    o->ev[o->nev++] = (struct otf_cut){e->tstart, e->tend, rank, point, coll, idx};
    return 0;
}

/* A call that needs the file of a pending note open (not its close, flush, seek or stat). */
static int note_used(const iolens_event *e)
{
    return (e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE || e->op == IOLENS_OP_TRUNCATE ||
            e->op == IOLENS_OP_MMAP) && (e->layer == IOLENS_LAYER_POSIX || e->layer == IOLENS_LAYER_STDIO);
}

/* One more open-close session, of e's file. */
static int count_session(struct otf *o, const iolens_event *e, int64_t *nsess)
{
    (*nsess)++;
    if (o->nsf == o->capsf) {
        size_t cap = o->capsf ? o->capsf * 2 : 64;
        int64_t *nv = realloc(o->sess_file, cap * sizeof *nv);
        if (!nv)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        o->sess_file = nv;
        o->capsf = cap;
    }
    o->sess_file[o->nsf++] = e->file;
    return 0;
}

/* Pre-pass over one rank: extents, first opens, sessions, collectives, synchronisation events. */
static int prepare_rank(struct otf *o, iolens_evsource *src, int r, int64_t *nsess)
{
    struct otf_ev v;
    const iolens_event *e = &v.e;
    int rc;
    int64_t idx = 0;
    size_t ncoll = 0;
    o->first[r] = -1;
    for (size_t i = 0; i < o->nfiles; i++)
        o->f[i].pre_world = 0, o->f[i].pend = 0;
    o->nev0[r] = 0;
    while ((rc = fetch(o, src, r, &v)) > 0) {
        o->nev0[r]++;
        if (o->first[r] < 0)
            o->first[r] = e->tstart;
        /* an input is as long as the trace reads it: to the end of what each read moved, so that
         * the replay's read of the size the program asked for (cat's 128 KiB of a 5,000-byte file;
         * dd's aligned 1 MiB with O_DIRECT) comes back as short as the program's */
        int64_t got = e->layer == IOLENS_LAYER_POSIX && !(e->flags & IOLENS_EVF_FAILED) && e->ret >= 0 &&
                              e->ret < e->size ? e->ret : e->size;
        if (e->file >= 0 && (uint64_t)e->file < o->nfiles && e->op == IOLENS_OP_READ && e->offset >= 0 &&
            e->offset + got > o->f[e->file].extent)
            o->f[e->file].extent = e->offset + got;
        if (!e->depth && !(e->flags & IOLENS_EVF_FAILED) && e->file >= 0 && (uint64_t)e->file < o->nfiles &&
            o->f[e->file].bad) {
            char rel[PATH_MAX];
            return iol_replay_rel_path(rel, sizeof rel, o->files[e->file].path, "trace path");
        }
        if (!v.cons)
            continue;
        struct otf_file *f = e->file >= 0 ? &o->f[e->file] : NULL;
        if (e->layer == IOLENS_LAYER_HDF5) { /* the library level: files are opened by HDF5 */
            int fopen_ = e->op == IOLENS_OP_OPEN && (!strcmp(e->func, "H5Fcreate") || !strcmp(e->func, "H5Fopen"));
            if ((e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE) && v.has_a && v.a[1] > o->maxio)
                o->maxio = v.a[1] < OTF_MAX_XFER ? v.a[1] : OTF_MAX_XFER;
            if (fopen_ && f) {
                if (!f->opened || e->tstart < f->first_open) {
                    f->opened = 1;
                    f->first_open = e->tstart;
                    f->input = e->func[3] == 'o';
                    f->h5file = 1;
                }
                if (!f->modifies && (e->func[3] == 'c' || (v.has_a && (v.a[0] & 1)))) /* H5F_ACC_RDWR */
                    f->modifies = e->func;
                if ((rc = count_session(o, e, nsess)) < 0)
                    return rc;
            }
            if (o->cuts && (rc = push_cut(o, e, r, idx, 0)) < 0)
                return rc;
            idx++;
            continue;
        }
        if (!f->seen || e->tstart < f->first_any) {
            f->seen = 1;
            f->first_any = e->tstart;
            int ok = !(e->flags & IOLENS_EVF_FAILED) && e->ret == 0;
            f->first_stat = !ok ? 0
                            : v.mf == MF_RMDIR ? 2
                            : (e->op == IOLENS_OP_STAT || v.mf == MF_ACCESS || v.mf == MF_UNLINK || v.mf == MF_REMOVE ||
                               v.mf == MF_RENAME || v.mf == MF_LINK || v.mf == MF_TRUNCATE_PATH || v.mf == MF_CHMOD ||
                               v.mf == MF_CHOWN || v.mf == MF_LCHOWN || v.mf == MF_UTIME || v.mf == MF_LUTIME) ? 1
                                                                                                      : 0;
        }
        if ((v.mf == MF_RENAME || v.mf == MF_LINK) && v.has_a && v.a[2] >= 0 && (uint64_t)v.a[2] < o->nfiles) {
            struct otf_file *t = &o->f[v.a[2]]; /* a rename's or link's new name: made by it, not there before */
            if (!t->seen || e->tstart < t->first_any) {
                t->seen = 1;
                t->first_any = e->tstart;
                t->first_stat = 0;
            }
        }
        if (!f->modifies && modifying(e))
            f->modifies = e->func ? e->func : "a write";
        int note = iolens_event_is_fd_note(e);
        if (note) {
            f->pend = 1;
            f->pend_t = e->tstart;
        } else if (f->pend && e->op == IOLENS_OP_CLOSE) {
            f->pend = 0;
        } else if (f->pend && note_used(e)) { /* opened now, as it was at the note (input: no O_CREAT) */
            f->pend = 0;
            if (!f->opened || f->pend_t < f->first_open) {
                f->opened = f->input = 1;
                f->first_open = f->pend_t;
                f->dir = 0;
            }
            if ((rc = count_session(o, e, nsess)) < 0)
                return rc;
        }
        if ((e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE) && e->size > o->maxio)
            o->maxio = e->layer == IOLENS_LAYER_MPIIO ? (e->size < OTF_MAX_XFER ? e->size : OTF_MAX_XFER)
                                                      : (e->size < OTF_MAX_POSIX ? e->size : OTF_MAX_POSIX);
        if (e->op == IOLENS_OP_OPEN && !note) {
            if (e->layer == IOLENS_LAYER_MPIIO && (rc = open_world(o, &v, &f->pre_world)) < 0)
                return rc;
            if (!f->opened || e->tstart < f->first_open) {
                f->opened = 1;
                f->first_open = e->tstart;
                f->input = !creates(e);
                f->dir = e->layer == IOLENS_LAYER_POSIX && e->open_flags >= 0 && (e->open_flags & O_DIRECTORY);
            }
            if ((rc = count_session(o, e, nsess)) < 0)
                return rc;
        }
        int coll = o->nranks > 1 && is_collective(e, f->pre_world);
        if (coll) {
            if (r == 0) {
                if ((rc = push_coll(o, e)) < 0)
                    return rc;
            } else if (ncoll >= o->ncoll || strcmp(o->coll[ncoll].func, e->func) || o->coll[ncoll].file != e->file) {
                if (ncoll >= o->ncoll)
                    return iol_err(IOLENS_EINVAL, "rank %d makes more collective MPI-IO calls than rank 0 (its call "
                                   "%zu is %s on '%s', rank 0 makes %zu): replaying would deadlock; refusing", r,
                                   ncoll + 1, e->func, o->files[e->file].path, o->ncoll);
                return iol_err(IOLENS_EINVAL, "collective MPI-IO call %zu of rank %d is %s on '%s' but rank 0's is "
                               "%s on '%s': replaying would deadlock; refusing", ncoll + 1, r, e->func,
                               o->files[e->file].path, o->coll[ncoll].func, o->files[o->coll[ncoll].file].path);
            }
            ncoll++;
        }
        if (o->cuts && (rc = push_cut(o, e, r, idx, coll)) < 0)
            return rc;
        idx++;
    }
    if (rc < 0)
        return rc;
    if (r > 0 && ncoll != o->ncoll)
        return iol_err(IOLENS_EINVAL, "rank %d makes %zu collective MPI-IO calls, rank 0 makes %zu: replaying "
                       "would deadlock; refusing", r, ncoll, o->ncoll);
    return iolens_evsource_rewind(src, o->src_rank[r]);
}

static int cmp_cut(const void *a, const void *b)
{
    const struct otf_cut *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->rank != y->rank ? x->rank - y->rank : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

/* Synchronisation points: an open (or unlink, rename, mkdir, ...) that started after
 * every earlier call of every rank had ended, with no collective call split across it. This rank
 * meets the others at a barrier before its first call after each point. */
static int find_cuts(struct otf *o)
{
    if (!o->cuts || !o->nev)
        return 0;
    qsort(o->ev, o->nev, sizeof *o->ev, cmp_cut);
    int64_t *cnt = calloc((size_t)o->nranks, sizeof *cnt);
    unsigned char *cut = calloc(o->nev, 1);
    int rc = 0;
    if (!cnt || !cut) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    double maxend = -INFINITY;
    int64_t sum = 0, max = 0;
    size_t ncut = 0;
    /* the replay starts with a barrier (a cut before event 0); a cut whose events since the
     * previous cut are all opens / namespace changes is the same synchronisation point (the
     * ranks' opens of one phase): keeping only the first puts every rank's barrier before its
     * open, as the application's barrier was, not between one rank's open and its writes */
    int only_points = 1;
    for (size_t i = 0; i < o->nev; i++) {
        const struct otf_cut *c = &o->ev[i];
        if (i > 0 && c->open && maxend < c->t0 && sum == max * o->nranks && !only_points) {
            cut[i] = 1;
            ncut++;
            only_points = 1;
        }
        if (!c->open)
            only_points = 0;
        maxend = fmax(maxend, c->t1);
        if (c->coll) {
            sum++;
            if (++cnt[c->rank] > max)
                max = cnt[c->rank];
        }
    }
    if (ncut && !(o->bar = malloc(ncut * sizeof *o->bar))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    int64_t next = INT64_MAX;
    for (size_t i = o->nev; i-- > 0;) {
        if (o->ev[i].rank == o->me && o->ev[i].idx < next)
            next = o->ev[i].idx;
        if (cut[i])
            o->bar[o->nbar++] = next;
    }
    for (size_t i = 0; i < o->nbar / 2; i++) { /* ascending */
        int64_t t = o->bar[i];
        o->bar[i] = o->bar[o->nbar - 1 - i];
        o->bar[o->nbar - 1 - i] = t;
    }
done:
    free(cnt);
    free(cut);
    free(o->ev);
    o->ev = NULL;
    return rc;
}

/* ---- the calls ---- */

/* t0: now() just before (the session's open time, without another clock read) */
static int do_open(struct otf *o, struct otf_file *f, const struct otf_ev *v, double t0)
{
    const iolens_event *e = &v->e;
    if (f->n >= OTF_MAX_DEPTH)
        return iol_err(IOLENS_EUNSUPPORTED, "trace opens file '%s' more than %d times at once", f->rel,
                       OTF_MAX_DEPTH);
    char path[PATH_MAX];
    /* a POSIX open is made relative to the folder held beneath the root, never following a link
     * (O_NOFOLLOW); the other layers' libraries open by the name, checked before and after */
    int posix = e->layer != IOLENS_LAYER_MPIIO && e->layer != IOLENS_LAYER_STDIO;
    const char *base = NULL;
    int dfd = -1;
    int rc = posix ? checked_path(o, f, path, sizeof path) : library_path(o, f, path, sizeof path, &dfd, &base);
    if (rc < 0)
        return rc;
    if (posix && (dfd = folder_of(o, f, &base)) < 0)
        return IOLENS_EIO;
    struct otf_handle *h = &f->h[f->n];
    *h = (struct otf_handle){-1, NULL, NULL, NULL, 0, o->sess_next++};
    int fl = e->open_flags >= 0 ? e->open_flags : O_RDWR;
    double *s = sess_of(o, h);
    if (e->layer == IOLENS_LAYER_MPIIO) {
#ifdef IOLENS_HAVE_MPI
        if ((rc = open_world(o, v, &h->world)) < 0)
            return rc;
        MPI_File *fh = malloc(sizeof *fh);
        if (!fh)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        s[SS_OPEN] = wall(o);
        int mrc = MPI_File_open(h->world ? MPI_COMM_WORLD : MPI_COMM_SELF, path, fl, MPI_INFO_NULL, fh);
        if (mrc != MPI_SUCCESS) {
            free(fh);
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(mrc, msg, &len);
            return iol_err(IOLENS_EIO, "cannot open '%s' (%s): %s", path, e->func, msg);
        }
        h->mfh = fh;
        if ((rc = library_opened(o, f, dfd, base, -1)) < 0) {
            MPI_File_close(fh);
            free(fh);
            h->mfh = NULL;
            return rc;
        }
#else
        return iol_err(IOLENS_EUNSUPPORTED, "MPI-IO replay needs a build with MPI");
#endif
    } else if (e->layer == IOLENS_LAYER_STDIO) {
        s[SS_OPEN] = t0 - o->mono_origin;
        FILE *fp = fopen(path, stdio_mode(fl));
        if (!fp)
            return iol_err(IOLENS_EIO, "cannot open '%s' (%s): %s", path, e->func, strerror(errno));
        if ((rc = library_opened(o, f, dfd, base, fileno_unlocked(fp))) < 0) { /* (not traced: fileno is) */
            fclose(fp);
            return rc;
        }
        h->fp = fp;
    } else {
        s[SS_OPEN] = t0 - o->mono_origin;
        mode_t mode = e->mode >= 0 ? (mode_t)e->mode : 0644;
        int note = iolens_event_is_fd_note(e); /* a descriptor the process had open: opened as it was */
        if (note)
            fl &= O_ACCMODE | O_APPEND | O_DIRECT | O_SYNC | O_DSYNC | O_NONBLOCK;
        if (!v->at) /* (traced as the program's open, or as an open of a descriptor it had) */
            iol_sandbox_as(&o->sb, note ? "open" : e->func);
        int fd = openat(dfd, base, fl | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno == ELOOP)
            return iol_err(IOLENS_EINVAL, "'%s' is a symbolic link: refusing to follow it", path);
        if (fd < 0)
            return iol_err(IOLENS_EIO, "cannot open '%s' (%s): %s", path, e->func, strerror(errno));
        if (note && e->offset > 0 && !(fl & O_APPEND) && lseek(fd, (off_t)e->offset, SEEK_SET) < 0) {
            int err = errno;
            close(fd);
            return iol_err(IOLENS_EIO, "cannot seek '%s' to byte %lld: %s", path, (long long)e->offset,
                           strerror(err));
        }
        h->fd = fd;
    }
    f->n++;
    o->nopen++;
    return 1;
}

/* stamp: the session's close time is read now (else the caller sets it) */
static int close_handle(struct otf *o, struct otf_handle *h, int stamp)
{
    int bad = 0;
    o->nopen--;
#ifdef IOLENS_HAVE_MPI
    if (h->mfh) {
        bad = MPI_File_close(h->mfh) != MPI_SUCCESS;
        free(h->mfh);
        h->mfh = NULL;
    } else
#endif
        if (h->fp)
        bad = fclose(h->fp) != 0;
    else if (h->dir)
        bad = closedir(h->dir) != 0;
    else if (h->fd >= 0)
        bad = close(h->fd) < 0;
    double *s = stamp ? sess_of(o, h) : NULL;
    if (s)
        s[SS_CLOSE] = wall(o);
    return bad ? -1 : 0;
}

#ifdef IOLENS_HAVE_MPI
static int mpi_fail(int mrc, const iolens_event *e, const char *path)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mrc, msg, &len);
    return iol_err(IOLENS_EIO, "%s on '%s' failed: %s", e->func, path, msg);
}

/* MPI_File_{write,read}_at[_all] */
static int mpi_rw_at(MPI_File fh, int w, int all, MPI_Offset off, char *buf, int cnt, MPI_Status *st)
{
    return w ? (all ? MPI_File_write_at_all(fh, off, buf, cnt, MPI_BYTE, st)
                    : MPI_File_write_at(fh, off, buf, cnt, MPI_BYTE, st))
             : (all ? MPI_File_read_at_all(fh, off, buf, cnt, MPI_BYTE, st)
                    : MPI_File_read_at(fh, off, buf, cnt, MPI_BYTE, st));
}

/* MPI-IO data and control calls (the open is do_open's). */
static int mpi_event(struct otf *o, struct otf_file *f, struct otf_handle *h, const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    MPI_File fh = *(MPI_File *)h->mfh;
    const char *fn = e->func ? e->func : "";
    int mrc = MPI_SUCCESS;
    MPI_Status stt;
    switch (e->op) {
    case IOLENS_OP_READ:
    case IOLENS_OP_WRITE: {
        if (v->mk & MK_END)
            return 1; /* split collective: the data moved at _begin */
        int w = e->op == IOLENS_OP_WRITE, rc;
        int64_t n = e->size > 0 ? e->size : 0;
        if (n > INT_MAX || (rc = ensure_buf(o, n)) < 0)
            return n > INT_MAX ? iol_err(IOLENS_EUNSUPPORTED, "%s of %lld bytes: too large", fn, (long long)n) : rc;
        int all = (v->mk & MK_ALL) != 0, cnt = (int)n;
        char *buf = xbuf(o, e);
        /* non-blocking and split calls are re-issued as the blocking call of the same kind */
        if (v->mk & MK_AT) {
            if (e->offset < 0)
                return 0;
            mrc = mpi_rw_at(fh, w, all, (MPI_Offset)e->offset, buf, cnt, &stt);
        } else if (v->mk & MK_SHARED) {
            mrc = w ? MPI_File_write_shared(fh, buf, cnt, MPI_BYTE, &stt)
                    : MPI_File_read_shared(fh, buf, cnt, MPI_BYTE, &stt);
        } else if (v->mk & MK_ORDERED) {
            mrc = w ? MPI_File_write_ordered(fh, buf, cnt, MPI_BYTE, &stt)
                    : MPI_File_read_ordered(fh, buf, cnt, MPI_BYTE, &stt);
        } else {
            mrc = w ? (all ? MPI_File_write_all(fh, buf, cnt, MPI_BYTE, &stt)
                           : MPI_File_write(fh, buf, cnt, MPI_BYTE, &stt))
                    : (all ? MPI_File_read_all(fh, buf, cnt, MPI_BYTE, &stt)
                           : MPI_File_read(fh, buf, cnt, MPI_BYTE, &stt));
        }
        if (mrc != MPI_SUCCESS)
            return mpi_fail(mrc, e, f->rel);
        int got = 0;
        MPI_Get_count(&stt, MPI_BYTE, &got);
        count_moved(o, h, w, got);
        return 1;
    }
    case IOLENS_OP_SEEK:
        if (!v->has_a || e->whence < 0)
            return 0;
        mrc = strstr(fn, "_shared") ? MPI_File_seek_shared(fh, (MPI_Offset)v->a[0], e->whence)
                                    : MPI_File_seek(fh, (MPI_Offset)v->a[0], e->whence);
        break;
    case IOLENS_OP_SET_VIEW: /* the view's types are not recorded: a byte view at the displacement */
        mrc = MPI_File_set_view(fh, (MPI_Offset)(e->offset > 0 ? e->offset : 0), MPI_BYTE, MPI_BYTE, "native",
                                MPI_INFO_NULL);
        break;
    case IOLENS_OP_SYNC: mrc = MPI_File_sync(fh); break;
    case IOLENS_OP_TRUNCATE:
        if (e->size < 0)
            return 0;
        mrc = strstr(fn, "preallocate") ? MPI_File_preallocate(fh, (MPI_Offset)e->size)
                                        : MPI_File_set_size(fh, (MPI_Offset)e->size);
        break;
    default: return 0;
    }
    return mrc == MPI_SUCCESS ? 1 : mpi_fail(mrc, e, f->rel);
}
#endif

static int is_fallocate(const char *fn)
{
    return !strcmp(fn, "fallocate") || !strcmp(fn, "fallocate64") || !strcmp(fn, "posix_fallocate") ||
           !strcmp(fn, "posix_fallocate64");
}

/* The mode a replayed chmod gives: the recorded one, with the owner's read, write and search
 * permission kept, so that the replay can still read, write and remove what it made. */
static mode_t attr_mode(const iolens_event *e)
{
    return (mode_t)((e->mode >= 0 ? e->mode & 07777 : 0644) | S_IRWXU);
}

/* stat, access, mkdir, rmdir, unlink, rename, opendir, readdir, closedir, ftruncate, truncate,
 * fallocate, chmod, chown, utime and their kin. A chown is re-issued with the owner and group
 * unchanged (-1), a utime with the current time: the calls' cost, not their effect (a replay's
 * files stay its own). */
static int meta_event(struct otf *o, struct otf_file *f, const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    const char *fn = e->func ? e->func : "";
    const int mf = v->mf;
    struct otf_handle *top = f->n ? &f->h[f->n - 1] : NULL;
    char path[PATH_MAX];
    struct stat sb;
    int rc, bad = 0;
    if (mf == MF_FALLOCATE || mf == MF_POSIX_FALLOCATE) {
        /* the space the application reserved (fio lays its files out so): same offset, length and
         * mode; a file system without the mode counts the call as failed, as a metadata call */
        if (!top || top->fd < 0 || e->size <= 0 || e->offset < 0)
            return 0;
        if (mf == MF_POSIX_FALLOCATE)
            bad = posix_fallocate(top->fd, (off_t)e->offset, (off_t)e->size) != 0;
        else
            bad = fallocate(top->fd, e->mode > 0 ? e->mode : 0, (off_t)e->offset, (off_t)e->size) < 0;
        goto counted;
    }
    if (mf == MF_TRUNCATE) {
        if (!top || top->fd < 0 || e->size < 0)
            return 0;
        if (ftruncate(top->fd, (off_t)e->size) < 0)
            return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", fn, o->opt->root, f->rel, strerror(errno));
        return 1;
    }
    if (mf == MF_FCHMOD || mf == MF_FCHOWN || mf == MF_FUTIME) {
        if (!top || top->mfh)
            return 0;
        int fd = top->fp ? fileno(top->fp) : top->dir ? dirfd(top->dir) : top->fd;
        if (fd < 0)
            return 0;
        if (f->existed) { /* a replay never changes what it did not create */
            o->st->refused++;
            return 0;
        }
        bad = (mf == MF_FCHMOD ? fchmod(fd, attr_mode(e)) : mf == MF_FCHOWN ? fchown(fd, (uid_t)-1, (gid_t)-1)
                                                                          : futimens(fd, NULL)) < 0;
        goto counted;
    }
    if (mf == MF_READDIR) {
        if (!top || !top->dir)
            return 0;
        errno = 0;
        bad = readdir(top->dir) == NULL && errno != 0;
        goto counted;
    }
    if (mf == MF_CLOSEDIR) {
        if (!top || !top->dir)
            return 0;
        f->n--;
        close_handle(o, top, 1);
        return 1;
    }
    if (mf == MF_FSTAT) {
        if (!top) /* fstat of a descriptor the trace did not see opened */
            return 0;
        int fd = top->fp ? fileno(top->fp) : top->dir ? dirfd(top->dir) : top->fd;
        if (fd < 0)
            return 0;
        bad = fstat(fd, &sb) < 0;
        goto counted;
    }
    if (mf == MF_TRUNCATE_PATH || mf == MF_CHMOD || mf == MF_CHOWN || mf == MF_LCHOWN || mf == MF_UTIME ||
        mf == MF_LUTIME) {
        if (f->existed) { /* (a truncation of such a file stopped the replay before it started) */
            o->st->refused++;
            return 0;
        }
        if (mf == MF_TRUNCATE_PATH && e->size < 0)
            return 0;
        /* on the file's name in its folder held beneath the root, never following a link (the
         * replay's own files are none; a planted one is refused, not followed) */
        const char *name;
        int dfd = folder_of(o, f, &name);
        if (dfd < 0)
            return IOLENS_EIO;
        if (mf == MF_TRUNCATE_PATH) {
            int tfd = (int)syscall(SYS_openat, dfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
            int bad_t = tfd < 0 || ftruncate(tfd, (off_t)e->size) < 0;
            int err = errno;
            if (tfd >= 0)
                syscall(SYS_close, tfd);
            if (bad_t)
                return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", fn, o->sb.root, f->rel, strerror(err));
            return 1;
        }
        if (!v->at && mf == MF_CHMOD)
            iol_sandbox_as(&o->sb, fn);
        bad = (mf == MF_CHMOD ? fchmodat(dfd, name, attr_mode(e), AT_SYMLINK_NOFOLLOW)
               : mf == MF_CHOWN || mf == MF_LCHOWN ? fchownat(dfd, name, (uid_t)-1, (gid_t)-1, AT_SYMLINK_NOFOLLOW)
                                                   : utimensat(dfd, name, NULL, AT_SYMLINK_NOFOLLOW)) < 0;
        goto counted;
    }
    if ((rc = checked_path(o, f, path, sizeof path)) < 0)
        return rc;
    const char *name;
    int dfd = folder_of(o, f, &name);
    if (dfd < 0)
        return IOLENS_EIO;
    /* reading calls (stat, access, opendir) walk the name as the program's call walked it: they
     * change nothing and cannot block (a call the program made relative to a directory
     * descriptor: relative to the folder's); every call that changes something is made in the
     * folder held beneath the root, never following a link */
    if (mf == MF_STAT || mf == MF_LSTAT) { /* stat follows a link, lstat does not, as recorded (reading only) */
        int nf = mf == MF_LSTAT ? AT_SYMLINK_NOFOLLOW : 0;
        bad = (v->at ? fstatat(dfd, name, &sb, nf) : nf ? lstat(path, &sb) : stat(path, &sb)) < 0;
    } else if (mf == MF_ACCESS) {
        int mode = v->has_a && v->a[1] >= 0 && v->a[1] <= 7 ? (int)v->a[1] : F_OK;
        bad = (v->at ? faccessat(dfd, name, mode, 0) : access(path, mode)) < 0;
    } else if (mf == MF_MKDIR) {
        mode_t mode = e->mode >= 0 ? (mode_t)(e->mode & 07777) : 0755;
        if (!v->at)
            iol_sandbox_as(&o->sb, fn);
        bad = mkdirat(dfd, name, mode) < 0;
    } else if (mf == MF_OPENDIR) {
        if (f->n >= OTF_MAX_DEPTH)
            return iol_err(IOLENS_EUNSUPPORTED, "trace opens '%s' more than %d times at once", f->rel, OTF_MAX_DEPTH);
        if (raw_fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
            return iol_err(IOLENS_EINVAL, "'%s' is a symbolic link: refusing to follow it", path);
        DIR *d = opendir(path);
        if (!d) {
            bad = 1;
        } else {
            f->h[f->n++] = (struct otf_handle){-1, NULL, d, NULL, 0, -1};
            o->nopen++;
        }
    } else if (mf == MF_UNLINK || mf == MF_RMDIR || mf == MF_RENAME || mf == MF_REMOVE) {
        if (f->existed) { /* a replay never removes what it did not create */
            o->st->refused++;
            return 0;
        }
        if (mf == MF_RENAME) {
            if (!v->has_a || v->a[2] < 0 || (uint64_t)v->a[2] >= o->nfiles || o->f[v->a[2]].skip)
                return 0;
            struct otf_file *t = &o->f[v->a[2]];
            if (t->existed) {
                o->st->refused++;
                return 0;
            }
            const char *tname;
            int tfd = folder_of(o, t, &tname);
            if (tfd < 0)
                return IOLENS_EIO;
            if (!v->at)
                iol_sandbox_as(&o->sb, fn);
            bad = renameat(dfd, name, tfd, tname) < 0;
            o->ns_gen += !bad;
        } else if (mf == MF_REMOVE) { /* as remove(3): a file, else a directory */
            int dir = 0;
            iol_sandbox_as(&o->sb, fn);
            bad = unlinkat(dfd, name, 0) < 0 && (errno == EISDIR || errno == EPERM);
            if (bad) {
                iol_sandbox_as(&o->sb, fn);
                bad = !(dir = unlinkat(dfd, name, AT_REMOVEDIR) == 0);
            }
            o->ns_gen += dir;
        } else {
            if (!v->at)
                iol_sandbox_as(&o->sb, fn);
            bad = unlinkat(dfd, name, mf == MF_UNLINK ? 0 : AT_REMOVEDIR) < 0;
            o->ns_gen += !bad && mf == MF_RMDIR;
        }
    } else if (mf == MF_LINK) { /* between two names the replay made; never following a link */
        if (!v->has_a || v->a[2] < 0 || (uint64_t)v->a[2] >= o->nfiles || o->f[v->a[2]].skip)
            return 0;
        struct otf_file *t = &o->f[v->a[2]];
        if (f->existed || t->existed) {
            o->st->refused++;
            return 0;
        }
        const char *tname;
        int tfd = folder_of(o, t, &tname);
        if (tfd < 0)
            return IOLENS_EIO;
        if (!v->at)
            iol_sandbox_as(&o->sb, fn);
        bad = linkat(dfd, name, tfd, tname, 0) < 0;
    } else {
        return 0;
    }
counted:
    o->st->failed += bad;
    return 1;
}

/* A POSIX or stdio read or write, issued in pieces of at most the buffer's size. first: the
 * result of the first piece when the caller issued it (a short or failed call of the tight
 * loop), else -2. Returns 1, or <0 on error. */
static int rw_event(struct otf *o, struct otf_file *f, struct otf_handle *h, const struct otf_ev *v, ssize_t first)
{
    const iolens_event *e = &v->e;
    int fd = h->fd;
    FILE *fp = h->fp;
    int64_t size = e->size > 0 ? e->size : 0;
    int w = e->op == IOLENS_OP_WRITE;
    int64_t done = 0;
    int pos = v->pos;
    char *buf = xbuf(o, e);
    double t0 = o->time_rw ? now() : 0;
    while (done < size) {
        size_t n = (size_t)(size - done < (int64_t)o->bufcap ? size - done : (int64_t)o->bufcap);
        ssize_t r;
        if (first != -2)
            r = first;
        else if (fp)
            r = (ssize_t)(w ? fwrite(buf, 1, n, fp) : fread(buf, 1, n, fp));
        else if (pos)
            r = w ? pwrite(fd, buf, n, (off_t)(e->offset + done)) : pread(fd, buf, n, (off_t)(e->offset + done));
        else
            r = w ? write(fd, buf, n) : read(fd, buf, n);
        first = -2;
        if (r < 0)
            return iol_err(IOLENS_EIO, "%s of %lld bytes on '%s/%s' failed: %s", e->func, (long long)size,
                           o->opt->root, f->rel, strerror(errno));
        if (r == 0)
            break; /* end of file: the recorded read was short too */
        done += r;
        if (!w && (size_t)r < n)
            break; /* a short read, as the program's was (the input ends where its read did) */
    }
    if (o->time_rw) {
        o->inside_end = now();
        o->inside = o->inside_end - t0;
    }
    count_moved(o, h, w, done);
    return 1;
}

/* --delays: the wait before each call (FBench's inter-event delay, from the end of the previous
 * replayed call), less what is not the program's: the tracer's own time in the recorded gap (the
 * previous call's self_after), and the replay's own time between two calls, which stands in the
 * place of the program's. In the tight loop that is its clock read (own); outside it, the work
 * around each system call (choosing the call, its checks, counters and clock reads: between),
 * measured as the replay runs. Waited on top of that work, a tar -x replay (0.13 us of tar's own
 * time between calls) waited 16.9 of its 17.8 ms of gaps and ran at 0.83-0.85 of tar's speed
 * (bench/replay/tar_fidelity.sh, tar/dly). */
struct otf_delay {
    int on;
    double speed, selfgap, own; /* selfgap: the process's mean tracer time per call (reported) */
    /* the replay's own time per call outside the tight loop: a running mean over the calls timed
     * inside (the end of the previous call, or of the wait, to the end of this one, less the time
     * inside it; samples above OTF_BETWEEN_MAX, a preemption, left out) */
    double between;
    double start; /* when the wait before the current call ended (or the previous call did) */
    /* what the waits so far came out too long, down to -OTF_DEBT_MAX: a gap shorter than the
     * trace's resolution (1 us by default) is recorded as 0 or one unit, and less the tracer's
     * time a 0 goes below 0; waiting 0 for those instead adds to the run what the rounding took
     * off (fio's 4 KiB writes on tmpfs replayed at 0.85-0.91 of fio with 1 us stamps, ~1.0 with
     * 1 ns ones). Outside the tight loop, down to -OTF_DEBT_MAX_SLOW: what is taken off there is
     * a mean over calls of every kind (more than a write's own time, less than a create's), so
     * the debt has to span the calls a program makes per file (tar -x: 7; with 1 us, 11-13 ms of
     * tar's 17.8 ms of gaps were waited where 7 remain after the replay's own time). */
    double debt;
    double prev_self; /* self_after of the previous replayed call */
    double done_at;  /* end of the previous replayed call, replay clock */
    double prev_end; /* its recorded end (trace clock), < 0 before the first */
};

#define OTF_DEBT_MAX 1e-6
#define OTF_DEBT_MAX_SLOW 4e-6
#define OTF_BETWEEN_MAX 20e-6

static void sleep_until(double t, volatile sig_atomic_t *stop);

/* The wait for a recorded gap (less the tracer's time) after a replayed call: less the replay's
 * own clock read and what earlier waits came out too long; a wait below 0 is carried instead. */
static inline double delay_wait(struct otf_delay *d, double gap, double own, double debt_max)
{
    double wait = gap / d->speed - own + d->debt;
    d->debt = wait > 0 ? 0 : wait > -debt_max ? wait : -debt_max;
    return wait;
}

/* Waits before the fast-loop call b[j] (j > i: the run's first call was waited for already). */
static inline void fast_wait(struct otf_delay *d, const struct otf_ev *b, size_t j)
{
    double gap = b[j].e.tstart - b[j - 1].e.tend - b[j - 1].e.self_after;
    d->prev_end = b[j].e.tend;
    d->prev_self = b[j].e.self_after;
    double wait = delay_wait(d, gap, d->own, OTF_DEBT_MAX);
    if (wait > 0) {
        double until = d->done_at + wait;
        while (now() < until) {
        }
    }
}

#ifdef IOLENS_HAVE_MPI
/* fast_run (below) for MPI_File_{read,write}_at[_all] of one file handle. A write that succeeds
 * moved all its bytes (MPI-IO reports a write it could not finish as an error); a read may stop
 * at the end of the file, so its status gives what it moved. (Asking MPI_File_get_size instead
 * would add lseek calls to the replay's own trace.) */
static size_t fast_run_mpi(struct otf *o, struct otf_file *f, struct otf_handle *h, const struct otf_ev *b,
                           const struct otf_fx *fx, size_t i, size_t end, int *rc, struct otf_delay *d)
{
    const iolens_event *e0 = &b[i].e;
    MPI_File fh = *(MPI_File *)h->mfh;
    int w = e0->op == IOLENS_OP_WRITE, all = (b[i].mk & MK_ALL) != 0;
    int64_t moved = 0;
    size_t j = i;
    MPI_Status st;
    for (; j < end; j++) {
        if (d->on && j > i)
            fast_wait(d, b, j);
        int cnt = fx[j].size;
        int mrc = mpi_rw_at(fh, w, all, (MPI_Offset)fx[j].offset, o->buf + fx[j].bufoff, cnt, &st);
        if (mrc != MPI_SUCCESS) {
            *rc = mpi_fail(mrc, &b[j].e, f->rel);
            j++; /* issued: not again */
            break;
        }
        if (d->on)
            d->done_at = now();
        int got = cnt;
        if (!w)
            MPI_Get_count(&st, MPI_BYTE, &got);
        moved += got;
    }
    count_moved(o, h, w, moved);
    o->st->calls += (int64_t)(j - i);
    return j;
}
#endif

/* The common case at small transfers, a run of positional POSIX reads (or writes) of one open
 * descriptor, issued in a loop with as little of the replay's own work between the calls as
 * the application's loop has (fidelity: at 4 KiB, ~150 instructions of dispatch per call were
 * ~5% of a read from tmpfs). At most `limit` calls (the next barrier). Returns the index after
 * the last call issued (i: none); a short or failed call is finished as rw_event does. */
static size_t fast_run(struct otf *o, const struct otf_ev *b, const struct otf_fx *fx, const uint32_t *run, size_t i,
                       int64_t limit, int *rc, struct otf_delay *d)
{
    const iolens_event *e0 = &b[i].e;
    struct otf_file *f = &o->f[e0->file];
    if (!f->n || f->pend)
        return i;
    struct otf_handle *h = &f->h[f->n - 1];
    size_t end = i + ((int64_t)run[i] > limit ? (size_t)limit : run[i]);
#ifdef IOLENS_HAVE_MPI
    if (e0->layer == IOLENS_LAYER_MPIIO)
        return h->mfh ? fast_run_mpi(o, f, h, b, fx, i, end, rc, d) : i;
#endif
    if (e0->layer != IOLENS_LAYER_POSIX || h->fd < 0 || h->fp || h->dir || h->mfh)
        return i;
    int fd = h->fd, w = e0->op == IOLENS_OP_WRITE;
    int64_t moved = 0;
    size_t j = i;
    ssize_t r = 0;
    if (d->on) {
        for (; j < end; j++) {
            if (j > i)
                fast_wait(d, b, j);
            r = w ? pwrite(fd, o->buf + fx[j].bufoff, (size_t)fx[j].size, (off_t)fx[j].offset)
                  : pread(fd, o->buf + fx[j].bufoff, (size_t)fx[j].size, (off_t)fx[j].offset);
            d->done_at = now();
            if (r != (ssize_t)fx[j].size)
                break;
            moved += r;
        }
    } else {
        for (; j < end; j++) {
            r = w ? pwrite(fd, o->buf + fx[j].bufoff, (size_t)fx[j].size, (off_t)fx[j].offset)
                  : pread(fd, o->buf + fx[j].bufoff, (size_t)fx[j].size, (off_t)fx[j].offset);
            if (r != (ssize_t)fx[j].size)
                break;
            moved += r;
        }
    }
    int err = errno;
    count_moved(o, h, w, moved);
    o->st->calls += (int64_t)(j - i);
    if (j < end) {
        /* stopped by a short or failed call */
        errno = err;
        int x = rw_event(o, f, h, &b[j], r);
        if (x < 0)
            *rc = x;
        else
            o->st->calls++;
        j++;
    }
    return j;
}

static const char *const meta_kind_names[IOLENS_REPLAY_NMETA] = {"create", "open",  "close", "stat", "unlink",
                                                                  "mkdir",  "rmdir", "rename", "other"};

const char *iolens_replay_meta_kind_name(int kind)
{
    return kind >= 0 && kind < IOLENS_REPLAY_NMETA ? meta_kind_names[kind] : NULL;
}

static int meta_kind(const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    const char *fn = e->func ? e->func : "";
    if (e->op == IOLENS_OP_STAT)
        return IOLENS_REPLAY_META_STAT;
    if (!strcmp(fn, "unlinkat") && unlinkat_dir(v))
        return IOLENS_REPLAY_META_RMDIR;
    if (!strncmp(fn, "unlink", 6) || !strcmp(fn, "remove"))
        return IOLENS_REPLAY_META_UNLINK;
    if (!strncmp(fn, "mkdir", 5))
        return IOLENS_REPLAY_META_MKDIR;
    if (!strcmp(fn, "rmdir"))
        return IOLENS_REPLAY_META_RMDIR;
    if (!strncmp(fn, "rename", 6))
        return IOLENS_REPLAY_META_RENAME;
    return IOLENS_REPLAY_META_OTHER;
}

/* counts a replayed namespace call of kind k that started at t0 */
static int meta_done_at(struct otf *o, int k, double t0, double t1, int r)
{
    o->inside = t1 - t0;
    o->inside_end = t1;
    if (r == 1) {
        if (!o->st->meta_calls[k]++)
            o->st->meta_first[k] = t0 - o->mono_origin;
        o->st->meta_seconds[k] += t1 - t0;
        o->st->meta_last[k] = t1 - o->mono_origin;
        size_t x = (size_t)o->cur_rank * IOLENS_REPLAY_NMETA + (size_t)k;
        if (o->mr_calls) {
            if (!o->mr_calls[x]++)
                o->mr_first[x] = t0 - o->mono_origin;
            o->mr_last[x] = t1 - o->mono_origin;
        }
    }
    return r;
}

static int meta_done(struct otf *o, int k, double t0, int r)
{
    return r == 1 ? meta_done_at(o, k, t0, now(), r) : r;
}

/* The library level: one HDF5 call through HDF5. An H5Fcreate or H5Fopen opens the file's
 * session, its H5Fclose closes it; reads and writes count into it. */
static int h5_event(struct otf *o, struct otf_file *f, const struct otf_ev *v)
{
#ifdef IOLENS_HAVE_HDF5
    const iolens_event *e = &v->e;
    static const oh5_extra none;
    const oh5_extra *x = v->x && o->h5x ? &o->h5x[(v->x - 1) % o->h5xcap] : &none;
    char path[PATH_MAX];
    const char *pp = NULL;
    int fopen_ = e->op == IOLENS_OP_OPEN && (!strcmp(e->func, "H5Fcreate") || !strcmp(e->func, "H5Fopen"));
    int64_t tag = -1, ftag = -1, bytes = 0;
    if (!v->has_a)
        return 0;
    int dfd = -1;
    const char *base = NULL;
    if (fopen_ && f) {
        int rc = library_path(o, f, path, sizeof path, &dfd, &base);
        if (rc < 0)
            return rc;
        /* still open: the program closed it without H5Fclose (h5py) */
        int64_t old = oh5_close_file(o->oh5, o->files[e->file].path);
        if (old >= 0 && old < o->sess_base[o->nranks])
            o->sess[(size_t)old * SS_N + SS_CLOSE] = wall(o);
        pp = path;
        tag = o->sess_next++;
        o->sess[(size_t)tag * SS_N + SS_OPEN] = wall(o);
    }
    double t0 = now();
    int r = oh5_event(o->oh5, e->func, v->slot, v->a, x, f ? o->files[e->file].path : NULL, pp, tag, o->buf,
                      (int64_t)o->bufcap, &ftag, &bytes);
    if (r <= 0)
        return r;
    if (fopen_ && f && (r = library_opened(o, f, dfd, base, -1)) < 0)
        return r;
    o->st->library_calls++;
    if (fopen_)
        meta_done(o, e->func[3] == 'c' ? IOLENS_REPLAY_META_CREATE : IOLENS_REPLAY_META_OPEN, t0, 1);
    if (ftag >= 0 && ftag < o->sess_base[o->nranks]) {
        double *s = o->sess + (size_t)ftag * SS_N;
        if (bytes > 0) {
            int w = e->op == IOLENS_OP_WRITE;
            s[w ? SS_WRITE : SS_READ] += (double)bytes;
            if (w)
                o->st->bytes_written += bytes;
            else
                o->st->bytes_read += bytes;
        }
        if (!strcmp(e->func, "H5Fclose")) {
            s[SS_CLOSE] = wall(o);
            meta_done(o, IOLENS_REPLAY_META_CLOSE, t0, 1);
        }
    }
    return 1;
#else
    (void)o;
    (void)f;
    (void)v;
    return 0;
#endif
}

/* A copy between files the program made in the kernel (copy_file_range, sendfile): the source's
 * read is kept (1) until its target's write, then both are one call of the same function on the
 * replay's descriptors, at the recorded offsets (or the descriptors' positions), for as many bytes
 * as the program copied. A target without its kept source (a source the replay skipped) is an
 * ordinary write; a kept source whose target is not replayed is an ordinary read (do_event). */
static int copy_event(struct otf *o, struct otf_file *f, struct otf_handle *h, const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    if (e->flags & IOLENS_EVF_COPY_SOURCE) {
        o->copy_src = *v;
        o->copy_f = f;
        o->copy_set = 1;
        return 1;
    }
    if (!o->copy_set)
        return rw_event(o, f, h, v, -2);
    o->copy_set = 0;
    const iolens_event *se = &o->copy_src.e;
    struct otf_file *sf = o->copy_f;
    if (!sf->n || sf->h[sf->n - 1].fp || sf->h[sf->n - 1].dir || h->fp)
        return rw_event(o, f, h, v, -2);
    struct otf_handle *sh = &sf->h[sf->n - 1];
    /* an offset given for a side (not its file position) */
    int spos = !(se->flags & (IOLENS_EVF_OFFSET_IMPLICIT | IOLENS_EVF_OFFSET_UNKNOWN)) && se->offset >= 0;
    int dpos = !(e->flags & (IOLENS_EVF_OFFSET_IMPLICIT | IOLENS_EVF_OFFSET_UNKNOWN)) && e->offset >= 0;
    off_t soff = spos ? (off_t)se->offset : 0, doff = dpos ? (off_t)e->offset : 0;
    int64_t size = e->size > 0 ? e->size : 0, done = 0;
    int cfr = !strcmp(e->func, "copy_file_range");
    while (done < size) {
        size_t n = (size_t)(size - done);
        ssize_t r = cfr ? copy_file_range(sh->fd, spos ? &soff : NULL, h->fd, dpos ? &doff : NULL, n, 0)
                        : sendfile(h->fd, sh->fd, spos ? &soff : NULL, n);
        if (r < 0)
            return iol_err(IOLENS_EIO, "%s of %lld bytes from '%s/%s' to '%s/%s' failed: %s", e->func,
                           (long long)size, o->opt->root, sf->rel, o->opt->root, f->rel, strerror(errno));
        if (r == 0)
            break; /* end of the source: the recorded copy was short too */
        done += r;
    }
    count_moved(o, sh, 0, done);
    count_moved(o, h, 1, done);
    return 1;
}

/* Re-issues one considered event. Returns 1 replayed, 0 skipped, 2 not a call (a note of a
 * descriptor the process had), <0 error. */
static int do_one(struct otf *o, const struct otf_ev *v);
static int do_event(struct otf *o, const struct otf_ev *v)
{
    if (o->copy_set && !(v->copy && !(v->e.flags & IOLENS_EVF_COPY_SOURCE))) {
        /* a kept copy source whose target is not replayed: its read */
        o->copy_set = 0;
        struct otf_file *sf = o->copy_f;
        if (sf->n && !sf->h[sf->n - 1].dir) {
            int rc = rw_event(o, sf, &sf->h[sf->n - 1], &o->copy_src, -2);
            if (rc < 0)
                return rc;
        }
    }
    return do_one(o, v);
}

/* A note of a descriptor the process had (otf_file.pend): kept until the first call that uses it. */
static int pend_note(struct otf *o, struct otf_file *f, const struct otf_ev *v)
{
    if (!f->pend) {
        if (o->npend == o->cappend) {
            size_t cap = o->cappend ? 2 * o->cappend : 8;
            struct otf_ev *nv = realloc(o->pend, cap * sizeof *nv);
            if (!nv)
                return iol_err(IOLENS_ENOMEM, "out of memory");
            o->pend = nv;
            o->cappend = cap;
        }
        f->pend = ++o->npend;
    }
    o->pend[f->pend - 1] = *v;
    return 2;
}

static int do_one(struct otf *o, const struct otf_ev *v)
{
    const iolens_event *e = &v->e;
    o->inside = -1; /* (a kept copy source's read, just replayed, is not this call) */
    if (e->layer == IOLENS_LAYER_HDF5) {
        int r = h5_event(o, e->file >= 0 ? &o->f[e->file] : NULL, v);
        o->inside = -1; /* its opens and closes are timed, not the call as a whole */
        return r;
    }
    struct otf_file *f = &o->f[e->file];
    if (iolens_event_is_fd_note(e))
        return pend_note(o, f, v);
    if (f->pend && (e->op == IOLENS_OP_CLOSE || note_used(e))) {
        /* the first call on a descriptor the process had: opened now (as the pre-pass counted) */
        struct otf_ev *nv = &o->pend[f->pend - 1];
        f->pend = 0;
        if (e->op == IOLENS_OP_CLOSE && !f->n)
            return 0;
        if (e->op != IOLENS_OP_CLOSE) {
            int rc = do_open(o, f, nv, now());
            if (rc < 0)
                return rc;
        }
    }
    if (e->op == IOLENS_OP_OPEN) {
        double t0 = now();
        return meta_done(o, creates(e) ? IOLENS_REPLAY_META_CREATE : IOLENS_REPLAY_META_OPEN, t0, do_open(o, f, v, t0));
    }
    if (e->op == IOLENS_OP_STAT || e->op == IOLENS_OP_META ||
        (e->op == IOLENS_OP_TRUNCATE && e->layer == IOLENS_LAYER_POSIX)) {
        double t0 = now();
        return meta_done(o, v->mkind, t0, meta_event(o, f, v));
    }
    if (!f->n)
        return 0; /* a descriptor the trace did not see opened (stdin, inherited) */
    struct otf_handle *h = &f->h[f->n - 1];
    if (e->op == IOLENS_OP_CLOSE) {
        double t0 = now();
        f->n--;
        double *s = sess_of(o, h);
        int mpi = h->mfh != NULL; /* (its close is collective: stamped after it, as before) */
        if (close_handle(o, h, !s || mpi) < 0)
            return iol_err(IOLENS_EIO, "cannot close '%s/%s' (%s): %s", o->opt->root, f->rel, e->func,
                           strerror(errno));
        double t1 = now();
        if (s && !mpi)
            s[SS_CLOSE] = t1 - o->mono_origin; /* just after the close, from the clock read that times it */
        return meta_done_at(o, IOLENS_REPLAY_META_CLOSE, t0, t1, 1);
    }
#ifdef IOLENS_HAVE_MPI
    if (h->mfh)
        return e->layer == IOLENS_LAYER_MPIIO ? mpi_event(o, f, h, v) : 0;
#endif
    if (e->layer == IOLENS_LAYER_MPIIO || h->dir)
        return 0;
    int fd = h->fd;
    FILE *fp = h->fp;
    if (!fp && fd >= 0 && e->layer == IOLENS_LAYER_STDIO && (e->op == IOLENS_OP_READ || e->op == IOLENS_OP_WRITE)) {
        /* stdio calls on a descriptor the program did not fopen (its standard output, a shell's
         * "> out" or a dup2 onto 1): through a stream of the replay's own over it, buffered as the
         * program's were (printf's lines, not one write each); its later calls use the stream */
        int acc = fcntl(fd, F_GETFL);
        const char *m = acc < 0 ? NULL : (acc & O_ACCMODE) == O_RDONLY ? "r" : (acc & O_ACCMODE) == O_WRONLY ? "w" : "r+";
        if (m && (fp = fdopen(fd, m)))
            h->fp = fp;
    }
    switch (e->op) {
    case IOLENS_OP_WRITE:
    case IOLENS_OP_READ: return v->copy ? copy_event(o, f, h, v) : rw_event(o, f, h, v, -2);
    case IOLENS_OP_SEEK:
        if (e->offset < 0)
            return 0;
        if (fp ? (e->offset > LONG_MAX || fseek(fp, (long)e->offset, SEEK_SET) != 0)
               : lseek(fd, (off_t)e->offset, SEEK_SET) < 0)
            return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", e->func, o->opt->root, f->rel, strerror(errno));
        return 1;
    case IOLENS_OP_SYNC:
        if (fp)
            fflush(fp);
        if ((fp ? fsync(fileno(fp)) : fsync(fd)) < 0)
            return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", e->func, o->opt->root, f->rel, strerror(errno));
        return 1;
    case IOLENS_OP_FLUSH:
        if (fp && fflush(fp) != 0)
            return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", e->func, o->opt->root, f->rel, strerror(errno));
        return fp ? 1 : 0;
    case IOLENS_OP_OTHER:
        /* the status flags the program set (dd turns O_DIRECT off for its last, partial block) */
        if (!fp && v->has_a && e->func && !strcmp(e->func, "fcntl") && v->a[2] == F_SETFL) {
            int keep = fcntl(fd, F_GETFL) & ~(O_APPEND | O_DIRECT | O_NOATIME | O_NONBLOCK);
            int set = (int)v->a[3] & (O_APPEND | O_DIRECT | O_NOATIME | O_NONBLOCK); /* not O_ASYNC: no SIGIO */
            o->st->failed += fcntl(fd, F_SETFL, keep | set) != 0;
            return 1;
        }
        /* cache advice as the application gave it (fio drops a file's pages before reading it) */
        if (fp || !v->has_a || !e->func || strncmp(e->func, "posix_fadvise", 13) || v->a[0] < 0 || v->a[1] < 0)
            return 0;
        o->st->failed += posix_fadvise(fd, (off_t)v->a[0], (off_t)v->a[1], (int)v->a[2]) != 0;
        return 1;
    case IOLENS_OP_DUP: { /* sort's dup2 of its output onto 1, then close of the first: a descriptor of its own */
        if ((fp && h->fd < 0) || f->n >= OTF_MAX_DEPTH)
            return 0;
        if (fp)
            fflush(fp);
        int nfd = fcntl(fp ? fileno(fp) : fd, F_DUPFD_CLOEXEC, 0);
        if (nfd < 0)
            return iol_err(IOLENS_EIO, "%s on '%s/%s' failed: %s", e->func, o->opt->root, f->rel, strerror(errno));
        f->h[f->n] = (struct otf_handle){nfd, NULL, NULL, NULL, 0, h->sess};
        f->n++;
        return 1;
    }
    default:
        return 0;
    }
}

static void close_all(struct otf *o)
{
#ifdef IOLENS_HAVE_HDF5
    /* what a rank left open in HDF5, before the files beneath; a file's session ends now */
    for (int64_t tag; (tag = oh5_close_file(o->oh5, NULL)) >= 0;)
        if (tag < o->sess_base[o->nranks])
            o->sess[(size_t)tag * SS_N + SS_CLOSE] = wall(o);
    oh5_reset(o->oh5);
#endif
    for (size_t i = 0; o->f && i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        while (f->n > 0)
            close_handle(o, &f->h[--f->n], 1);
    }
}

/* Waits until t: sleeps all but the last millisecond, then spins, so short
 * gaps do not give the processor away (waking up costs more than they last). */
static void sleep_until(double t, volatile sig_atomic_t *stop)
{
    double d = t - now() - 1e-3;
    if (d > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !(stop && *stop)) {
        }
    }
    while (now() < t && !(stop && *stop)) {
    }
}

/* The rank's calls are decoded in batches before they are issued, so that decoding the
 * trace does not slow the replayed calls down (it would, at small transfers). */
#define OTF_BATCH 262144
#define OTF_CHUNK 4096
/* A rank of at most this many calls (about 200 MB decoded) is decoded whole before it starts:
 * a metadata phase has no moment without a file open, or none at all (a stat loop), so that a
 * second batch was decoded inside the phase it timed (100000 files: the creates and the stats) */
#define OTF_WHOLE 1048576

/* IOLENS_REPLAY_BATCH=N: batches of N calls instead (N >= 2; for tests, which need several
 * batches of a small trace) */
static size_t otf_batch(void)
{
    const char *s = getenv("IOLENS_REPLAY_BATCH");
    char *end = NULL;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    return s && end != s && *end == '\0' && v >= 2 && v <= OTF_BATCH ? (size_t)v : 0;
}

/* The tight loop's view of a batch: fx[i] for each call it may issue, and run[i] = how many
 * calls from i on it can issue in one go (same file, operation, layer and MPI-IO kind; 0 when
 * call i is not for the tight loop). */
static void index_batch(const struct otf *o, const struct otf_ev *b, size_t n, struct otf_fx *fx, uint32_t *run)
{
    for (size_t k = n; k-- > 0;) {
        const struct otf_ev *v = &b[k];
        if (!v->fast) {
            run[k] = 0;
            continue;
        }
        fx[k] = (struct otf_fx){v->e.offset, (int32_t)v->e.size, (int32_t)(xbuf(o, &v->e) - o->buf)};
        const struct otf_ev *u = k + 1 < n ? &b[k + 1] : NULL;
        run[k] = u && u->fast && u->e.file == v->e.file && u->e.op == v->e.op && u->e.layer == v->e.layer &&
                         u->mk == v->mk && run[k + 1] < UINT32_MAX
                     ? run[k + 1] + 1
                     : 1;
    }
}

/* Decodes calls into batch[*n..want) (fewer when the trace ends) and indexes the batch for the
 * tight loop. Returns fetch()'s last result: > 0 more calls follow, 0 the rank's calls are all
 * decoded, < 0 error. */
static int fill_batch(struct otf *o, iolens_evsource *src, int rank, struct otf_ev *batch, struct otf_fx *fx,
                      uint32_t *run, size_t *n, size_t want)
{
    int rc = 1;
    while (*n < want && (rc = fetch(o, src, rank, &batch[*n])) > 0)
        (*n)++;
    if (rc >= 0)
        index_batch(o, batch, *n, fx, run);
    return rc;
}

static int replay_rank(struct otf *o, iolens_evsource *src, int rank, double first)
{
    double speed = o->opt->speed > 0 ? o->opt->speed : 1.0;
    size_t batch_max = otf_batch(); /* 0: not set */
    if (!batch_max)
        batch_max = o->nev0[rank] < OTF_WHOLE ? OTF_WHOLE : OTF_BATCH;
    size_t cap = (uint64_t)o->nev0[rank] < batch_max ? (size_t)o->nev0[rank] + 1 : batch_max;
    struct otf_ev *batch = malloc(cap * sizeof *batch);
    struct otf_fx *fx = malloc(cap * sizeof *fx);
    uint32_t *run = malloc(cap * sizeof *run);
    if (!batch || !fx || !run) {
        free(batch);
        free(fx);
        free(run);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    if (o->h5) {
        free(o->h5x);
        o->h5xcap = cap;
        o->h5xseq = 0;
        if (!(o->h5x = calloc(cap, sizeof *o->h5x))) {
            free(batch);
            free(fx);
            free(run);
            return iol_err(IOLENS_ENOMEM, "out of memory");
        }
    }
    o->sess_next = o->sess_base[rank];
    o->cur_rank = rank;
    o->npend = 0; /* (notes are the process's own) */
    for (size_t i = 0; i < o->nfiles; i++)
        o->f[i].pend = 0;
    o->ibar = 0;
    int64_t idx = 0;
    int rc = 1;
    size_t n = 0;
    /* the first batch is decoded before the ranks start together: decoding must neither skew
     * the ranks' starts nor compete for the processors with another rank's first calls */
    rc = fill_batch(o, src, rank, batch, fx, run, &n, cap);
    /* the transfer buffer is written now, just before the calls, as an application writes its
     * buffer before its I/O phase (IOR, bench_replay_ior_plain): not at set-up, before the
     * trace's pre-pass and the decoding of the first batch, which left it cold (fidelity) */
    if (rc >= 0)
        memset(o->buf, 'r', o->bufcap + 4096);
    barrier(o);
    /* a recorded gap holds the program's time between its calls and the tracer's own time
     * after the previous call (its record, its buffer flushes): that part is not waited */
    struct otf_delay d = {.on = o->opt->delays != 0, .speed = speed, .prev_end = -1};
    iolens_trace_self ts;
    if (d.on && iolens_trace_proc_self(src, rank, &ts) == 0 && ts.samples)
        d.selfgap = ts.gap_seconds;
    if (d.selfgap > o->st->tracer_gap_seconds)
        o->st->tracer_gap_seconds = d.selfgap;
    if (d.on) { /* the replay's own clock read after each call (the wait's reads end at the target) */
        double c0 = now(), c1 = c0;
        for (int k = 0; k < 999; k++)
            c1 = now();
        d.own = (c1 - c0) / 999;
        d.between = d.own;
    }
    double t0 = now();
    d.done_at = t0;
    o->calls_t0 = t0;
    for (int first_batch = 1; rc >= 0; first_batch = 0) {
        if (!first_batch) {
            if (rc == 0)
                break;
            /* the batch ran out: inside a session, decode only what the next calls need (the
             * rest follows at the next gap between sessions, above) */
            size_t want = o->nopen && cap > OTF_CHUNK ? OTF_CHUNK : cap;
            n = 0;
            if ((rc = fill_batch(o, src, rank, batch, fx, run, &n, want)) < 0)
                break;
        }
        for (size_t i = 0; i < n && rc >= 0; i++) {
            /* Between sessions (nothing open), once half the batch is free, the trace is decoded
             * into the free part now: decoding at the end of a batch would otherwise fall inside
             * whatever session is open then (a 262144-call write phase lost ~5% to decoding
             * the next batch before its last calls and its close). */
            if (o->nopen == 0 && n - i <= cap / 2 && rc > 0) {
                memmove(batch, batch + i, (n - i) * sizeof *batch);
                n -= i;
                i = 0;
                if ((rc = fill_batch(o, src, rank, batch, fx, run, &n, cap)) < 0)
                    break;
            }
            const iolens_event *e = &batch[i].e;
            if (o->opt->stop && *o->opt->stop) {
                rc = iol_err(IOLENS_EINTR, "interrupted: the replay was stopped by a signal");
                break;
            }
            if (!batch[i].cons) { /* (not waited for: the next call waits its gap from the last one replayed) */
                o->st->skipped++;
                continue;
            }
            /* a synchronisation point before this call: met before the call's wait, as soon as
             * this rank's calls before it are done (the wait is the program's time after them;
             * waited first, fio's main process, whose next call after laying out the job's
             * files is its report at the end, held its jobs' first calls until then) */
            int at_barrier = 0;
            while (o->ibar < o->nbar && o->bar[o->ibar] <= idx) {
                barrier(o);
                o->ibar++;
                at_barrier = 1;
            }
            if (o->opt->delays && first >= 0) {
                /* the recorded gap between the end of the last replayed call and the start of
                 * this one, waited from the end of that call's replay (FBench's inter-event
                 * delay): a stall of the replay (a slower call, a decoded batch) delays what
                 * follows instead of being made up by shortening the later gaps */
                double gap = d.prev_end < 0 ? e->tstart - first : e->tstart - d.prev_end - d.prev_self;
                double wait = d.prev_end < 0 ? gap / speed : delay_wait(&d, gap, d.between, OTF_DEBT_MAX_SLOW);
                d.start = (d.prev_end < 0 ? t0 : d.done_at) + (wait > 0 ? wait : 0);
                if (d.prev_end < 0 || wait >= 1e-3)
                    sleep_until(d.start, o->opt->stop);
                else if (wait > 0)
                    while (now() < d.start) {
                    }
                if (e->tend >= e->tstart) {
                    d.prev_end = e->tend;
                    d.prev_self = e->self_after;
                }
            }
            if (batch[i].fast) {
                /* (>= 1: the synchronisation points up to this call were met above) */
                int64_t lim = o->ibar < o->nbar ? o->bar[o->ibar] - idx : INT64_MAX;
                size_t j = fast_run(o, batch, fx, run, i, lim, &rc, &d);
                if (j > i) {
                    idx += (int64_t)(j - i);
                    i = j - 1;
                    continue;
                }
            }
            idx++;
            o->time_rw = d.on && !(idx & 15); /* (do_one sets o->inside for the call it issues) */
            int r = do_event(o, &batch[i]);
            o->time_rw = 0;
            if (d.on) {
                /* the end of the call is the clock read just after its system call where the
                 * call was timed (the replay's work after it then counts into the next gap, as
                 * the measured time between calls, instead of costing a clock read of its own) */
                double end = o->inside >= 0 ? o->inside_end : now(), own = end - d.start - o->inside;
                if (o->inside >= 0 && !at_barrier && own >= 0 && own < OTF_BETWEEN_MAX && d.prev_end >= 0)
                    d.between += (own - d.between) / 32;
                d.done_at = end;
            }
            if (r < 0)
                rc = r;
            else if (r == 1)
                o->st->calls++;
            else if (r == 0)
                o->st->skipped++; /* (2: a note, not a call) */
        }
    }
    o->calls_t1 = now();
    o->calls_sum += o->calls_t1 - o->calls_t0;
    free(batch);
    free(fx);
    free(run);
    if (rc < 0)
        return rc;
    for (; o->ibar < o->nbar; o->ibar++)
        barrier(o);
    return 0;
}

/* The working directory becomes the root for the replayed calls (see struct otf). A root that
 * cannot be entered, or a working directory that cannot be found to come back to, leaves the
 * names absolute (the root's real path). */
static void enter_root(struct otf *o)
{
    o->rel_names = 0;
    o->cwd = getcwd(NULL, 0);
    if (!o->cwd)
        return;
    if (fchdir(o->sb.rootfd) == 0) { /* the root itself, whatever its name leads to now */
        o->rel_names = 1;
        return;
    }
    free(o->cwd);
    o->cwd = NULL;
}

static void leave_root(struct otf *o)
{
    if (!o->cwd)
        return;
    if (chdir(o->cwd) != 0 && o->me == 0)
        warn(o, "cannot return to the working directory after the replay");
    free(o->cwd);
    o->cwd = NULL;
    o->rel_names = 0;
}

/* ---- set-up and results ---- */

/* Which files are replayed, and their paths below the root. A path that cannot be remapped is
 * an error only if a replayed rank uses it (prepare_rank): an MPI runtime helper left out by
 * select_ranks may walk '..' from a directory descriptor. */
static int mark_files(struct otf *o)
{
    iolens_file *norm;
    int64_t *canon;
    int rc = iol_replay_same_files(o->files, o->nfiles, &norm, &canon);
    for (size_t i = 0; rc == 0 && i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        const char *p = norm[i].path ? norm[i].path : "";
        f->canon = (size_t)canon[i];
        /* one file traced by several names ("/d/./f" and "/d/f"): every call on them is replayed
         * on the first (fetch), or the replay would make the file once per name */
        if (system_path(p) || f->canon != i) {
            f->skip = 1;
            continue;
        }
        char rel[PATH_MAX];
        if (iol_replay_rel_path(rel, sizeof rel, p, "trace path") < 0) {
            f->skip = f->bad = 1;
            continue;
        }
        if (!(f->rel = strdup(rel)))
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
    }
    iol_replay_same_files_free(norm, o->nfiles);
    free(canon);
    return rc;
}

/* Whether a process that is not an MPI rank reads or writes a replayed file (application level). */
static int moves_data(struct otf *o, iolens_evsource *src, int r)
{
    iolens_event e;
    int rc, found = 0;
    while (!found && (rc = iolens_evsource_next(src, r, &e)) > 0)
        found = !e.depth && !(e.flags & IOLENS_EVF_FAILED) && (e.op == IOLENS_OP_READ || e.op == IOLENS_OP_WRITE) &&
                e.file >= 0 && (uint64_t)e.file < o->nfiles && !o->f[canon_file(o, e.file)].skip;
    if (rc < 0)
        return rc;
    rc = iolens_evsource_rewind(src, r);
    return rc < 0 ? rc : found;
}

/* The ranks to replay. In an iolens trace with MPI ranks, the processes that are not MPI ranks
 * and read or write no replayed file are left out, as --config-from does: an Open MPI
 * singleton's ORTE/PMIx helper, which reads /proc, /sys and /etc. The rest keep their trace
 * order; opt->all_processes keeps every process. */
static int select_ranks(struct otf *o, iolens_evsource *src, int n)
{
    if (!(o->src_rank = calloc(n > 0 ? (size_t)n : 1, sizeof *o->src_rank)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int any_mpi = 0;
    iolens_trace_proc pi;
    for (int r = 0; r < n && !any_mpi && !o->opt->all_processes; r++)
        any_mpi = iolens_trace_proc_info(src, r, &pi) == 0 && pi.mpi_rank >= 0;
    o->nranks = 0;
    for (int r = 0; r < n; r++) {
        int keep = !any_mpi || (iolens_trace_proc_info(src, r, &pi) == 0 && pi.mpi_rank >= 0);
        if (!keep && (keep = moves_data(o, src, r)) < 0)
            return keep;
        if (keep)
            o->src_rank[o->nranks++] = r;
    }
    o->left_out = n - o->nranks;
    if (!o->nranks)
        return iol_err(IOLENS_EFORMAT, "the trace has no process to replay");
    return 0;
}

static int cmp_rel(const void *a, const void *b)
{
    return strcmp((*(struct otf_file *const *)a)->rel, (*(struct otf_file *const *)b)->rel);
}

/* Paths that existed before the program ran, those whose first call needed them (a stat,
 * access, unlink, rename or rmdir that succeeded): directories when they hold other traced paths
 * (fio's check of its --directory) or were removed as one (rm -r), else files (input_stat).
 * They are created before the replay, or the replay's first calls on them fail where the
 * program's succeeded. */
static int find_input_dirs(struct otf *o)
{
    size_t n = 0;
    struct otf_file **v = malloc((o->nfiles ? o->nfiles : 1) * sizeof *v);
    if (!v)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->nfiles; i++)
        if (!o->f[i].skip && o->f[i].rel)
            v[n++] = &o->f[i];
    qsort(v, n, sizeof *v, cmp_rel);
    /* sorted, the paths below d ("d/...") follow d, after those that only share its prefix
     * ("d-x", "d.x": '-' and '.' sort before '/'): look past them */
    for (size_t i = 0; i < n; i++) {
        struct otf_file *f = v[i];
        if (f->opened && f->input && !f->dir) {
            /* a folder opened as a file (find opens "." with no O_DIRECTORY): the paths below it
             * say what it is, or creating it as a file would leave them no folder */
            size_t len = strlen(f->rel);
            for (size_t j = i + 1; j < n && !strncmp(v[j]->rel, f->rel, len); j++)
                if (v[j]->rel[len] == '/') {
                    f->dir = 1;
                    break;
                }
        }
        if (!f->first_stat)
            continue;
        f->input_dir = f->first_stat == 2 && !f->opened;
        size_t len = strlen(f->rel);
        for (size_t j = i + 1; !f->input_dir && !f->opened && j < n && !strncmp(v[j]->rel, f->rel, len); j++)
            if (v[j]->rel[len] == '/') {
                f->input_dir = 1;
                break;
            }
        /* any other path first stat()ed successfully existed too: a directory when the program
         * later opened it as one, else a file (as long as the trace reads), or the replay's stats
         * of it fail where the program's succeeded */
        if (!f->input_dir)
            f->input_stat = 1;
    }
    free(v);
    return 0;
}

static int prepare(struct otf *o, iolens_evsource *src)
{
    int64_t total = 0;
    for (int r = 0; r < o->nranks; r++) {
        int64_t n = 0;
        o->sess_base[r] = total;
        int rc = prepare_rank(o, src, r, &n);
        if (rc < 0)
            return rc;
        total += n;
    }
    o->sess_base[o->nranks] = total;
    int rc = find_input_dirs(o);
    if (rc < 0)
        return rc;
    size_t ns = (size_t)total;
    if (!(o->sess = calloc(ns ? ns * SS_N : 1, sizeof *o->sess)))
        return iol_err(IOLENS_ENOMEM, "out of memory for %zu sessions", ns);
    return find_cuts(o);
}

/* Files and directories below the root before the replay (never removed). */
static void snapshot(struct otf *o)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        struct stat sb;
        if (f->skip || !f->rel)
            continue;
        f->existed = raw_fstatat(o->sb.rootfd, f->rel, &sb, AT_SYMLINK_NOFOLLOW) == 0;
        /* the folders above it that the replay will make (folder_of): removed after it, with the
         * files, when empty (out of memory only leaves them) */
        char path[PATH_MAX];
        if (o->me != 0 || f->existed || snprintf(path, sizeof path, "%s", f->rel) >= (int)sizeof path)
            continue;
        for (char *c = path; (c = strchr(c, '/')); c++) {
            *c = 0;
            int listed = 0; /* a folder's files come together: one lstat for them all */
            for (size_t k = o->nnewdirs; !listed && k-- > 0 && k + 8 >= o->nnewdirs;)
                listed = !strcmp(o->newdirs[k], path);
            int missing = !listed && raw_fstatat(o->sb.rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
            if (missing && o->nnewdirs == o->capnewdirs) {
                size_t cap = o->capnewdirs ? 2 * o->capnewdirs : 16;
                char **nv = realloc(o->newdirs, cap * sizeof *nv);
                if (nv) {
                    o->newdirs = nv;
                    o->capnewdirs = cap;
                }
            }
            if (missing && o->nnewdirs < o->capnewdirs && (o->newdirs[o->nnewdirs] = strdup(path)))
                o->nnewdirs++;
            *c = '/';
        }
    }
}

/* A replay never changes what it did not create: a file that existed below the root before
 * the replay and that a replayed call would write, truncate or delete refuses the whole
 * replay, before its first call. */
static int refuse_existing(struct otf *o)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        if (!f->skip && f->existed && f->modifies)
            return iol_err(IOLENS_EINVAL, "'%s/%s' existed before the replay and the trace's %s would change it: "
                           "refusing (a replay only modifies files it creates); replay into an empty --root",
                           o->opt->root, f->rel, f->modifies);
    }
    return 0;
}

/* The replay root may not hold the traced files themselves: the remapped paths could
 * then reach the application's own data. */
static int refuse_root(struct otf *o)
{
    for (size_t i = 0; i < o->nfiles; i++)
        if (!o->f[i].skip && iol_replay_root_holds(o->sb.root, o->files[i].path))
            return iol_err(IOLENS_EINVAL, "replay root '%s' holds the traced file '%s': the replay could reach the "
                           "application's own files; choose a root outside them (--root DIR)", o->opt->root,
                           o->files[i].path);
    return 0;
}

/* An input file's bytes, written and made clean before the replay starts (untimed): a sparse file
 * would be read from holes (one zero page, or no block at all: 3x faster than data on tmpfs, up to
 * 28x on ext4), and clean pages are what a cache advice in the trace (fio's POSIX_FADV_DONTNEED)
 * can drop, as it dropped the application's. */
static int fill_input(struct otf *o, int fd, int dfd, const char *base, int64_t extent)
{
    int64_t done = 0;
    if (extent > 0 && o->bufcap == 0 && ensure_buf(o, 65536) < 0) {
        errno = ENOMEM;
        return -1;
    }
    while (done < extent) {
        size_t n = (size_t)(extent - done < (int64_t)o->bufcap ? extent - done : (int64_t)o->bufcap);
        ssize_t w = pwrite(fd, o->buf, n, (off_t)done);
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        done += w;
    }
    if (extent > 0 && fdatasync(fd) < 0)
        return -1;
    /* read once, as a file that existed before the program ran has been: on tmpfs the first read
     * of just-written pages ran at 0.5-0.9 of later reads (fio, 1 MiB, 256 MiB) */
    int rfd = extent > 0 ? openat(dfd, base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (rfd >= 0) {
        while (read(rfd, o->buf, o->bufcap) > 0) {
        }
        close(rfd);
    }
    return 0;
}

/* Input files (first opened without creating them): created as large as the trace reads; input
 * directories (find_input_dirs) created. */
static int make_inputs(struct otf *o)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        if (f->skip || f->existed || !((f->opened && f->input) || f->input_dir || f->input_stat))
            continue;
        const char *base;
        int dfd = folder_of(o, f, &base);
        if (dfd < 0)
            return IOLENS_EIO;
        if (f->dir || f->input_dir) {
            if (syscall(SYS_mkdirat, dfd, base, 0755) < 0 && errno != EEXIST)
                return iol_err(IOLENS_EIO, "cannot create input directory '%s/%s': %s", o->sb.root, f->rel,
                               strerror(errno));
            continue;
        }
        int fd = openat(dfd, base, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 || fill_input(o, fd, dfd, base, f->extent) < 0) {
            int err = errno;
            if (fd >= 0)
                close(fd);
            return iol_err(IOLENS_EIO, "cannot create input file '%s/%s': %s", o->sb.root, f->rel, strerror(err));
        }
        close(fd);
    }
    return 0;
}

static int cmp_len_desc(const void *a, const void *b)
{
    size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Removes what the replay created: traced paths that did not exist before (deepest first), each
 * in its folder resolved beneath the root (iol_sandbox_unlink), never following a link. */
static void remove_created(struct otf *o)
{
    char **v = calloc(o->nfiles ? o->nfiles : 1, sizeof *v);
    size_t n = 0;
    if (!v)
        return;
    for (size_t i = 0; i < o->nfiles; i++)
        if (!o->f[i].skip && !o->f[i].existed && o->f[i].rel)
            v[n++] = o->f[i].rel;
    if (n)
        qsort(v, n, sizeof *v, cmp_len_desc);
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (raw_fstatat(o->sb.rootfd, v[i], &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        iol_sandbox_unlink(&o->sb, v[i], S_ISDIR(sb.st_mode) ? AT_REMOVEDIR : 0);
    }
    free(v);
    /* then the folders made for them, deepest first (one still holding something stays), and
     * the root if the replay made it */
    if (o->nnewdirs)
        qsort(o->newdirs, o->nnewdirs, sizeof *o->newdirs, cmp_len_desc);
    for (size_t i = 0; i < o->nnewdirs; i++)
        iol_sandbox_unlink(&o->sb, o->newdirs[i], AT_REMOVEDIR);
    o->removed = 1;
}

static int by_open(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return (x > y) - (x < y);
}

/* The time of a phase (write: the sessions that wrote; else those that read): how long at least
 * one such session was open, the union of their open-close intervals. Where they overlap or
 * follow one another, as the ranks' sessions of a shared file do, that is FBench's Algorithm 1
 * (the latest close minus the earliest open). Where they do not, the time between them is left
 * out: processes replayed one after another (fio's main process wrote its report to its stdout
 * before the job's process was replayed; over the whole span, a --delays replay of a 1 GiB
 * write job counted the 0.1 s between them and came out at 0.7 of fio), a program's read
 * sessions between its write sessions, its compute between two files. */
static int phase_seconds(const iolens_replay_session *x, size_t n, int write, double *seconds)
{
    double *iv = NULL, sum = 0;
    size_t m = 0;
    *seconds = 0;
    for (size_t k = 0; k < n; k++)
        if ((write ? x[k].bytes_written : x[k].bytes_read) > 0 && x[k].close > x[k].open) {
            if (!iv && !(iv = malloc(2 * sizeof *iv * (n - k))))
                return -1;
            iv[2 * m] = x[k].open;
            iv[2 * m++ + 1] = x[k].close;
        }
    if (m > 1)
        qsort(iv, m, 2 * sizeof *iv, by_open);
    for (size_t k = 0; k < m;) {
        double a = iv[2 * k], b = iv[2 * k + 1];
        for (k++; k < m && iv[2 * k] <= b; k++)
            b = fmax(b, iv[2 * k + 1]);
        sum += b - a;
    }
    free(iv);
    *seconds = sum;
    return 0;
}

/* Gathers the sessions and counters on rank 0 and computes each phase's time (phase_seconds). */
static int results(struct otf *o, const iolens_evsource *src)
{
    iolens_replay_trace_stats *st = o->st;
    size_t ns = (size_t)o->sess_base[o->nranks];
    (void)src;
#ifdef IOLENS_HAVE_MPI
    if (o->mpi && o->np > 1) {
        double c[7] = {(double)st->calls, (double)st->skipped, (double)st->bytes_written, (double)st->bytes_read,
                       (double)st->failed, (double)st->refused, (double)st->library_calls};
        MPI_Allreduce(MPI_IN_PLACE, c, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        st->library_calls = (int64_t)c[6];
        st->calls = (int64_t)c[0];
        st->skipped = (int64_t)c[1];
        st->bytes_written = (int64_t)c[2];
        st->bytes_read = (int64_t)c[3];
        st->failed = (int64_t)c[4];
        st->refused = (int64_t)c[5];
        MPI_Allreduce(MPI_IN_PLACE, &st->seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        /* the calls' span over the processes, on the clock they share (since the common origin) */
        double span[2] = {-(o->calls_t0 - o->mono_origin), o->calls_t1 - o->mono_origin};
        MPI_Allreduce(MPI_IN_PLACE, span, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        st->calls_seconds = span[0] + span[1];
        MPI_Allreduce(MPI_IN_PLACE, &st->tracer_gap_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double mc[IOLENS_REPLAY_NMETA];
        for (int k = 0; k < IOLENS_REPLAY_NMETA; k++)
            mc[k] = (double)st->meta_calls[k];
        MPI_Allreduce(MPI_IN_PLACE, mc, IOLENS_REPLAY_NMETA, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, st->meta_seconds, IOLENS_REPLAY_NMETA, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* spans over the processes: the clocks are each process's own since its start barrier */
        double fl[2 * IOLENS_REPLAY_NMETA];
        for (int k = 0; k < IOLENS_REPLAY_NMETA; k++) {
            fl[k] = st->meta_calls[k] ? st->meta_first[k] : INFINITY;
            fl[IOLENS_REPLAY_NMETA + k] = st->meta_calls[k] ? -st->meta_last[k] : INFINITY;
        }
        MPI_Allreduce(MPI_IN_PLACE, fl, 2 * IOLENS_REPLAY_NMETA, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        for (int k = 0; k < IOLENS_REPLAY_NMETA; k++) {
            st->meta_first[k] = isinf(fl[k]) ? 0 : fl[k];
            st->meta_last[k] = isinf(fl[IOLENS_REPLAY_NMETA + k]) ? 0 : -fl[IOLENS_REPLAY_NMETA + k];
        }
        for (int k = 0; k < IOLENS_REPLAY_NMETA; k++)
            st->meta_calls[k] = (int64_t)mc[k];
        if (ns)
            MPI_Reduce(o->me == 0 ? MPI_IN_PLACE : o->sess, o->me == 0 ? o->sess : NULL, (int)(ns * SS_N),
                       MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        /* each rank's row is its own (the others are 0): summed on rank 0 */
        size_t nmr = (size_t)o->nranks * IOLENS_REPLAY_NMETA;
        double *mrc = malloc(nmr * sizeof *mrc);
        if (!mrc)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        for (size_t k = 0; k < nmr; k++)
            mrc[k] = (double)o->mr_calls[k];
        MPI_Reduce(o->me == 0 ? MPI_IN_PLACE : mrc, o->me == 0 ? mrc : NULL, (int)nmr, MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        MPI_Reduce(o->me == 0 ? MPI_IN_PLACE : o->mr_first, o->me == 0 ? o->mr_first : NULL, (int)nmr, MPI_DOUBLE,
                   MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(o->me == 0 ? MPI_IN_PLACE : o->mr_last, o->me == 0 ? o->mr_last : NULL, (int)nmr, MPI_DOUBLE,
                   MPI_SUM, 0, MPI_COMM_WORLD);
        for (size_t k = 0; k < nmr; k++)
            o->mr_calls[k] = (int64_t)mrc[k];
        free(mrc);
        if (o->me != 0)
            return 0;
    }
#endif
    if (ns && !(st->sessions = calloc(ns, sizeof *st->sessions)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int64_t any = 0;
    for (int k = 0; k < IOLENS_REPLAY_NMETA; k++)
        any += st->meta_calls[k];
    if (any) { /* the rows move to the stats */
        st->meta_rank_calls = o->mr_calls;
        st->meta_rank_first = o->mr_first;
        st->meta_rank_last = o->mr_last;
        st->meta_ranks = o->nranks;
        o->mr_calls = NULL;
        o->mr_first = o->mr_last = NULL;
    }
    for (int r = 0; r < o->nranks; r++)
        for (int64_t k = o->sess_base[r]; k < o->sess_base[r + 1]; k++) {
            const double *s = o->sess + (size_t)k * SS_N;
            if (s[SS_OPEN] == 0 && s[SS_CLOSE] == 0)
                continue; /* a rank this process did not replay */
            iolens_replay_session *x = &st->sessions[st->nsessions++];
            x->rank = r;
            x->file = o->sess_file[k];
            x->path = x->file >= 0 && (uint64_t)x->file < o->nfiles ? o->files[x->file].path : NULL;
            x->open = s[SS_OPEN];
            x->close = s[SS_CLOSE];
            x->bytes_read = (int64_t)s[SS_READ];
            x->bytes_written = (int64_t)s[SS_WRITE];
        }
    return phase_seconds(st->sessions, st->nsessions, 1, &st->write_seconds) < 0 ||
                   phase_seconds(st->sessions, st->nsessions, 0, &st->read_seconds) < 0
               ? iol_err(IOLENS_ENOMEM, "out of memory")
               : 0;
}

/* Agrees on a status across ranks (only where every rank reaches the call). */
static int agree(struct otf *o, int rc)
{
#ifdef IOLENS_HAVE_MPI
    if (o->mpi && o->np > 1) {
        int all = rc;
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all < 0 && rc == 0)
            return iol_err(all, "another rank failed (see its message)");
    }
#else
    (void)o;
#endif
    return rc;
}

int iolens_replay_has_hdf5(void)
{
#ifdef IOLENS_HAVE_HDF5
    return 1;
#else
    return 0;
#endif
}

int iolens_replay_trace_has_hdf5(iolens_evsource *src)
{
    if (!src)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_has_hdf5: NULL argument");
    int n = iolens_evsource_nranks(src), rc = 0, found = 0;
    for (int r = 0; r < n && !found && rc >= 0; r++) {
        iolens_event e;
        while (!found && (rc = iolens_evsource_next(src, r, &e)) > 0)
            found = !e.depth && !e.lib_depth && e.layer == IOLENS_LAYER_HDF5;
        if (rc >= 0)
            rc = iolens_evsource_rewind(src, r);
    }
    return n < 0 ? n : rc < 0 ? rc : found;
}

/* Whether the library level applies: the replayed processes make HDF5 calls themselves, and
 * no PnetCDF or NetCDF calls, whose inner calls are their replay (a record precedes the calls
 * made inside it in the trace, so the inner calls are told apart by their lib depth alone).
 * Unless the level was asked for, an HDF5 file the trace opens and never creates (h5dump's,
 * h5repack's input) makes it the I/O level: the library level cannot make that file again
 * (refuse_h5_inputs), the calls made inside the HDF5 calls can read it. */
static int library_level(struct otf *o, iolens_evsource *src)
{
    int h5 = 0, other = 0, rc = 0;
    unsigned char *seen = calloc(o->nfiles ? o->nfiles : 1, 1); /* 1 H5Fopen'd, 2 H5Fcreate'd */
    if (!seen)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (int r = 0; r < o->nranks && !other && rc >= 0; r++) {
        iolens_event e;
        while (!other && (rc = iolens_evsource_next(src, o->src_rank[r], &e)) > 0)
            if (!e.depth && !e.lib_depth) {
                h5 |= e.layer == IOLENS_LAYER_HDF5;
                other |= e.layer == IOLENS_LAYER_PNETCDF || e.layer == IOLENS_LAYER_NETCDF;
                int64_t fi = canon_file(o, e.file);
                if (e.layer == IOLENS_LAYER_HDF5 && e.op == IOLENS_OP_OPEN && e.func && fi >= 0 &&
                    (uint64_t)fi < o->nfiles && !o->f[fi].skip)
                    seen[fi] |= !strcmp(e.func, "H5Fcreate") ? 2 : !strcmp(e.func, "H5Fopen") ? 1 : 0;
                /* a dataset made or written without its size (a trace converted from Recorder,
                 * which does not log shapes and selections) cannot be made again */
                int32_t fd;
                int64_t a[4];
                if (e.layer == IOLENS_LAYER_HDF5 && e.func &&
                    (!strncmp(e.func, "H5Dcreate", 9) || !strcmp(e.func, "H5Dwrite")) &&
                    iolens_trace_last_args(src, o->src_rank[r], &fd, a) == 0 && a[1] < 0) {
                    o->h5_unsized = 1;
                    other = 1;
                }
            }
        if (rc >= 0)
            rc = iolens_evsource_rewind(src, o->src_rank[r]);
    }
    for (size_t i = 0; o->opt->level != IOLENS_REPLAY_LEVEL_LIBRARY && i < o->nfiles && !other; i++)
        if (seen[i] == 1) {
            o->h5_input = o->files[i].path;
            other = 1;
        }
    free(seen);
    return rc < 0 ? rc : h5 && !other;
}

/* The library level replays the HDF5 files the trace creates: one it only opens would have to
 * be made again with its objects, which the trace does not describe. */
static int refuse_h5_inputs(struct otf *o)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        if (!f->skip && f->h5file && f->input)
            return iol_err(IOLENS_EUNSUPPORTED, "'%s' is an HDF5 file the trace opens without creating it: the "
                           "library-level replay replays only HDF5 files the trace creates (--level io replays the "
                           "calls made inside the HDF5 calls instead)", o->files[i].path);
    }
    return 0;
}

int iolens_replay_trace_needs_mpi(iolens_evsource *src)
{
    if (!src)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_needs_mpi: NULL argument");
    int n = iolens_evsource_nranks(src), rc = 0, found = 0;
    for (int r = 0; r < n && !found && rc >= 0; r++) {
        iolens_event e;
        while (!found && (rc = iolens_evsource_next(src, r, &e)) > 0)
            found = !e.depth && e.layer == IOLENS_LAYER_MPIIO;
        if (rc >= 0)
            rc = iolens_evsource_rewind(src, r);
    }
    return n < 0 ? n : rc < 0 ? rc : found;
}

int iolens_replay_trace_ranks(iolens_evsource *src, int all_processes)
{
    if (!src)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_ranks: NULL argument");
    iolens_replay_trace_options opt = {.root = ".", .speed = 1.0, .rank = -1, .all_processes = all_processes};
    iolens_replay_trace_stats st;
    memset(&st, 0, sizeof st);
    struct otf o = {.opt = &opt, .st = &st, .np = 1};
    o.iolens_kind = !strcmp(iolens_evsource_kind(src), "iolens");
    int rc = iolens_evsource_files(src, &o.files, &o.nfiles);
    int nsrc = rc < 0 ? rc : iolens_evsource_nranks(src);
    if (nsrc < 0)
        return nsrc;
    if (o.nfiles > SIZE_MAX / sizeof *o.f || !(o.f = calloc(o.nfiles ? o.nfiles : 1, sizeof *o.f)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    rc = mark_files(&o);
    if (rc >= 0)
        rc = select_ranks(&o, src, nsrc);
    for (int r = 0; r < nsrc; r++)
        iolens_evsource_rewind(src, r);
    for (size_t i = 0; i < o.nfiles; i++)
        free(o.f[i].rel);
    free(o.f);
    free(o.src_rank);
    return rc < 0 ? rc : o.nranks;
}

void iolens_replay_trace_stats_release(iolens_replay_trace_stats *st)
{
    if (!st)
        return;
    free(st->sessions);
    st->sessions = NULL;
    st->nsessions = 0;
    free(st->meta_rank_calls);
    free(st->meta_rank_first);
    free(st->meta_rank_last);
    st->meta_rank_calls = NULL;
    st->meta_rank_first = st->meta_rank_last = NULL;
    st->meta_ranks = 0;
}

int iolens_replay_trace_run(iolens_evsource *src, const iolens_replay_trace_options *opt,
                            iolens_replay_trace_stats *st)
{
    if (!src || !opt || !opt->root || !st)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_run: NULL argument");
    memset(st, 0, sizeof *st);
    struct otf o = {.opt = opt, .st = st, .np = 1};
    int rc = 0, prepared = 0;
    o.iolens_kind = !strcmp(iolens_evsource_kind(src), "iolens");
#ifdef IOLENS_HAVE_MPI
    if (opt->use_mpi) {
        o.mpi = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &o.me);
        MPI_Comm_size(MPI_COMM_WORLD, &o.np);
    }
#endif
    /* the root: made and locked by rank 0 (one replay at a time in it), then opened by the others */
    o.sb.rootfd = o.sb.lockfd = -1;
    if (o.me == 0)
        rc = iol_sandbox_init(&o.sb, opt->root, IOL_SANDBOX_CREATE | IOL_SANDBOX_LOCK);
    if ((rc = agree(&o, rc)) < 0)
        goto out;
    if (o.me != 0 && (rc = iol_sandbox_init(&o.sb, opt->root, 0)) < 0)
        goto out;
    if ((rc = iolens_evsource_files(src, &o.files, &o.nfiles)) < 0)
        goto out;
    int nsrc = iolens_evsource_nranks(src);
    if (nsrc < 0) {
        rc = nsrc;
        goto out;
    }
    if (o.nfiles > SIZE_MAX / sizeof *o.f || !(o.f = calloc(o.nfiles ? o.nfiles : 1, sizeof *o.f))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = mark_files(&o)) < 0 || (rc = select_ranks(&o, src, nsrc)) < 0)
        goto out;
    if ((rc = refuse_root(&o)) < 0)
        goto out;
    if (o.me == 0 && o.left_out) {
        char msg[256];
        snprintf(msg, sizeof msg, "left out %d of the trace's %d processes: not MPI ranks, and they read or write "
                 "no replayed file (an MPI runtime's helpers); --all-paths keeps them", o.left_out, nsrc);
        warn(&o, msg);
    }
    if (o.me == 0 && o.np == 1 && opt->rank < 0 && o.nranks > 1) {
        char msg[256];
        snprintf(msg, sizeof msg, "one process replays every rank of the trace, one after the other (MPI-IO calls "
                 "need mpirun -np %d)", o.nranks);
        warn(&o, msg);
    }
    if (o.np > 1 && o.np != o.nranks) {
        rc = iol_err(IOLENS_EINVAL, "the trace has %d rank(s) but %d processes were started: run one process per "
                     "traced rank (mpirun -np %d)", o.nranks, o.np, o.nranks);
        goto out;
    }
    if (opt->rank >= o.nranks) {
        rc = iol_err(IOLENS_EINVAL, "rank %d asked for, the trace has %d rank(s)", opt->rank, o.nranks);
        goto out;
    }
    o.mpiio = o.mpi && o.np == o.nranks;
    o.cuts = o.mpi && o.np > 1;
    if (opt->level == IOLENS_REPLAY_LEVEL_LIBRARY && !iolens_replay_has_hdf5()) {
        rc = iol_err(IOLENS_EUNSUPPORTED, "the library-level replay needs a build with parallel HDF5");
        goto out;
    }
    if (o.iolens_kind && opt->level != IOLENS_REPLAY_LEVEL_IO && iolens_replay_has_hdf5() &&
        (rc = o.h5 = library_level(&o, src)) < 0)
        goto out;
    if (!o.h5 && o.h5_input && o.me == 0) {
        char msg[PATH_MAX + 256];
        snprintf(msg, sizeof msg, "'%s' is an HDF5 file the trace opens without creating it: replayed at the I/O "
                 "level (the calls made inside the HDF5 calls); the library level makes again only the HDF5 files "
                 "a trace creates", o.h5_input);
        warn(&o, msg);
    }
    if (!o.h5 && opt->level == IOLENS_REPLAY_LEVEL_LIBRARY && o.me == 0)
        warn(&o, o.h5_unsized ? "--level hdf5: the trace does not record the size of its datasets or transfers "
                                "(a trace converted from Recorder): replayed at the I/O level"
                              : "--level hdf5: the trace has no HDF5 calls made by the program itself (or PnetCDF or "
                                "NetCDF calls too): replayed at the I/O level");
    size_t nmr = (size_t)o.nranks * IOLENS_REPLAY_NMETA;
    if (!(o.mr_calls = calloc(nmr, sizeof *o.mr_calls)) || !(o.mr_first = calloc(nmr, sizeof *o.mr_first)) ||
        !(o.mr_last = calloc(nmr, sizeof *o.mr_last)) ||
        !(o.sess_base = calloc((size_t)o.nranks + 1, sizeof *o.sess_base)) ||
        !(o.first = calloc((size_t)o.nranks + 1, sizeof *o.first)) ||
        !(o.nev0 = calloc((size_t)o.nranks + 1, sizeof *o.nev0))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    o.maxio = OTF_BUF;
    if ((rc = prepare(&o, src)) < 0 || (o.h5 && (rc = refuse_h5_inputs(&o)) < 0))
        goto out;
#ifdef IOLENS_HAVE_HDF5
    if (o.h5) {
        struct statvfs vs;
        int64_t avail = statvfs(opt->root, &vs) == 0 ? (int64_t)vs.f_bavail * (int64_t)vs.f_frsize : 0;
        oh5_opts ho = {opt->hdf5_xfer == 1 ? 0 : opt->hdf5_xfer == 2 ? 1 : -1, opt->hdf5_align_threshold,
                       opt->hdf5_alignment, o.mpi ? 1 : -1, avail > 0 ? avail : 0};
        if ((rc = oh5_new(&o.oh5, &ho)) < 0)
            goto out;
    }
#endif
    /* one buffer for the largest transfer, allocated before the replay starts: none is
     * allocated (and its pages faulted in) inside a timed session */
    if ((rc = agree(&o, ensure_buf(&o, o.maxio))) < 0)
        goto out;
    snapshot(&o);
    if ((rc = agree(&o, refuse_existing(&o))) < 0)
        goto out;
    barrier(&o); /* every rank looked before anything is created */
    if (o.me == 0)
        rc = make_inputs(&o);
    if ((rc = agree(&o, rc)) < 0)
        goto out;
    prepared = 1;
    st->nranks = o.np > 1 ? o.np : opt->rank >= 0 ? 1 : o.nranks;
    double gfirst = INFINITY;
    for (int r = 0; r < o.nranks; r++)
        if (o.first[r] >= 0)
            gfirst = fmin(gfirst, o.first[r]);
    o.t_origin = realtime();
#ifdef IOLENS_HAVE_MPI
    if (o.mpi && o.np > 1) /* one origin for every rank, or the ranks' session times do not compare */
        MPI_Allreduce(MPI_IN_PLACE, &o.t_origin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
    enter_root(&o);
    double t_start = now();
    o.mono_origin = t_start - (realtime() - o.t_origin); /* that origin on the monotonic clock */
    if (o.np > 1) {
        rc = replay_rank(&o, src, o.me, isfinite(gfirst) ? gfirst : -1);
        close_all(&o);
        idle_barrier(&o);
    } else {
        for (int r = opt->rank >= 0 ? opt->rank : 0; r < o.nranks && rc >= 0; r++) {
            rc = replay_rank(&o, src, r, o.first[r]);
            close_all(&o);
            if (opt->rank >= 0)
                break;
        }
    }
    st->seconds = now() - t_start;
    st->calls_seconds = o.calls_sum;
    st->level = o.h5 && st->library_calls ? IOLENS_REPLAY_LEVEL_LIBRARY : IOLENS_REPLAY_LEVEL_IO;
    leave_root(&o);
    if (rc < 0)
        goto out;
    barrier(&o);
    rc = results(&o, src);
    if (st->skipped && o.me == 0)
        warn(&o, o.mpiio ? "calls of other layers, system files and descriptors not opened in the trace were skipped"
                         : "calls of other layers (MPI-IO needs mpirun with one process per traced rank), system "
                           "files and descriptors not opened in the trace were skipped");
    if (st->refused && o.me == 0)
        warn(&o, "unlink, rename or rmdir of paths that existed before the replay were not replayed");
out:
    if (!prepared && rc < 0)
        st->prepare_failed = 1;
    close_all(&o);
    /* what the replay created goes, also after a failure in the replay itself (the next
     * replay into the same root would refuse it); a rank that failed alone among several
     * does not wait for the others */
    if (!opt->keep && o.f && (rc >= 0 || (prepared && (o.np <= 1 || rc == IOLENS_EINTR)))) {
        if (rc >= 0)
            barrier(&o); /* (a stopped replay's ranks are all stopping: rank 0 does not wait) */
        if (o.me == 0)
            remove_created(&o);
    }
    for (size_t i = 0; o.f && i < o.nfiles; i++)
        free(o.f[i].rel);
    free(o.f);
    free(o.src_rank);
    free(o.buf);
    free(o.coll);
    free(o.pend);
    free(o.ev);
    free(o.bar);
    free_dirs(&o);
    for (size_t i = 0; i < o.nnewdirs; i++)
        free(o.newdirs[i]);
    free(o.newdirs);
    free(o.sess_base);
    free(o.mr_calls);
    free(o.mr_first);
    free(o.mr_last);
    free(o.sess);
    free(o.sess_file);
    free(o.first);
    free(o.nev0);
#ifdef IOLENS_HAVE_HDF5
    oh5_free(o.oh5);
#endif
    free(o.h5x);
    /* the root goes last, when the replay made it and took everything out of it again */
    int made = o.sb.made_root && o.removed;
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", o.sb.root);
    iol_sandbox_release(&o.sb);
    if (made)
        syscall(SYS_unlinkat, AT_FDCWD, root, AT_REMOVEDIR);
    return rc < 0 ? rc : 0;
}
