/*
 * On-the-fly replay of a trace (iolens or Recorder): each rank re-issues its
 * own application-level (depth 0) POSIX and stdio calls in order, with the
 * recorded sizes, offsets, open flags and seeks, on paths remapped below the
 * replay root. Optional delays reproduce the recorded gaps between calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iolens/recorder.h"
#include "iolens/replay.h"
#include "iolens/trace.h"
#include "replay/exec.h"
#include "util/error.h"

#define OTF_BUF (1 << 20)
#define OTF_MAX_DEPTH 8 /* nested opens of one file within a rank */

int iolens_replay_trace_open(const char *path, iolens_evsource **out)
{
    if (!path || !out)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_open: NULL argument");
    *out = NULL;
    struct stat st;
    if (stat(path, &st) < 0)
        return iol_err(IOLENS_EIO, "cannot open trace '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return iolens_recorder_open(path, out, NULL);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return iol_err(IOLENS_EIO, "cannot open trace '%s': %s", path, strerror(errno));
    char magic[8] = {0};
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    if (n == (ssize_t)sizeof magic && !memcmp(magic, "IOLTRACE", 8))
        return iolens_trace_open(path, out);
    return iol_err(IOLENS_EFORMAT, "'%s' is neither an iolens trace (no IOLTRACE magic at byte 0) nor a Recorder "
                   "trace directory", path);
}

/* One replayed file identity of the rank being replayed. */
struct otf_file {
    int fds[OTF_MAX_DEPTH];
    FILE *fps[OTF_MAX_DEPTH];
    int n;             /* open handles (stack) */
    int skip;          /* not replayable (system path, failed remap) */
    int64_t extent;    /* highest byte read: size an input file needs */
    char *rel;         /* path below the root, NULL until first needed */
};

struct otf {
    const iolens_replay_trace_options *opt;
    iolens_replay_trace_stats *st;
    const iolens_file *files;
    size_t nfiles;
    struct otf_file *f;
    char **created;
    size_t ncreated, capcreated;
    char *buf;
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

static int system_path(const char *p)
{
    if (!strncmp(p, "/dev/shm/", 9))
        return 0; /* a RAM file system, where workloads often write */
    static const char *const pre[] = {"/proc/", "/sys/", "/dev/", "/etc/", "/usr/", "/lib", "/run/", "pipe:",
                                      "socket:"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(p, pre[i], strlen(pre[i])))
            return 1;
    return !*p;
}

/* root/rel as an absolute path; parent directories created, none may be a symbolic link. */
static int full_path(struct otf *o, const char *rel, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", o->opt->root, rel);
    if (n < 0 || (size_t)n >= cap)
        return iol_err(IOLENS_EINVAL, "path '%s/%s' is too long", o->opt->root, rel);
    size_t rootlen = strlen(o->opt->root) + 1;
    for (char *s = out + rootlen; (s = strchr(s, '/')); s++) {
        *s = 0;
        struct stat st;
        if (lstat(out, &st) < 0) {
            if (errno != ENOENT || (mkdir(out, 0755) < 0 && errno != EEXIST)) {
                int err = errno;
                *s = '/';
                return iol_err(IOLENS_EIO, "cannot create directory for '%s': %s", out, strerror(err));
            }
        } else if (!S_ISDIR(st.st_mode)) {
            *s = '/';
            return iol_err(IOLENS_EINVAL, "a component of '%s' is a symbolic link or not a directory: refusing "
                           "to leave the replay root", out);
        }
        *s = '/';
    }
    return 0;
}

static int note_created(struct otf *o, const char *path)
{
    if (o->ncreated == o->capcreated) {
        size_t cap = o->capcreated ? o->capcreated * 2 : 16;
        char **v = realloc(o->created, cap * sizeof *v);
        if (!v)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        o->created = v;
        o->capcreated = cap;
    }
    if (!(o->created[o->ncreated] = strdup(path)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    o->ncreated++;
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

/* Opens the file of event e (POSIX fd or stdio FILE*). */
static int do_open(struct otf *o, struct otf_file *f, const iolens_event *e)
{
    if (f->n >= OTF_MAX_DEPTH)
        return iol_err(IOLENS_EUNSUPPORTED, "trace opens file '%s' more than %d times at once", f->rel,
                       OTF_MAX_DEPTH);
    char path[PATH_MAX];
    int rc = full_path(o, f->rel, path, sizeof path);
    if (rc < 0)
        return rc;
    struct stat st;
    int existed = lstat(path, &st) == 0;
    if (existed && S_ISLNK(st.st_mode))
        return iol_err(IOLENS_EINVAL, "'%s' is a symbolic link: refusing to follow it", path);
    int fl = e->open_flags >= 0 ? e->open_flags : O_RDWR;
    if (!existed && !(fl & O_CREAT)) {
        /* an input file of the traced program: create it as large as the trace reads */
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, f->extent) < 0) {
            int err = errno;
            if (fd >= 0)
                close(fd);
            return iol_err(IOLENS_EIO, "cannot create input file '%s': %s", path, strerror(err));
        }
        close(fd);
        existed = 0;
        fl &= ~O_TRUNC;
    }
    if (!existed && (rc = note_created(o, path)) < 0)
        return rc;
    if (e->layer == IOLENS_LAYER_STDIO) {
        FILE *fp = fopen(path, stdio_mode(fl));
        if (!fp)
            return iol_err(IOLENS_EIO, "cannot open '%s' (%s): %s", path, e->func, strerror(errno));
        f->fps[f->n] = fp;
        f->fds[f->n] = -1;
    } else {
        int fd = open(path, (fl & ~O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC, e->mode >= 0 ? (mode_t)e->mode : 0644);
        if (fd < 0)
            return iol_err(IOLENS_EIO, "cannot open '%s' (%s): %s", path, e->func, strerror(errno));
        f->fds[f->n] = fd;
        f->fps[f->n] = NULL;
    }
    f->n++;
    return 0;
}

static int positional(const char *func)
{
    return func && func[0] == 'p' && (!strncmp(func, "pread", 5) || !strncmp(func, "pwrite", 6));
}

/* Re-issues one event. Returns 1 replayed, 0 skipped, <0 error. */
static int do_event(struct otf *o, const iolens_event *e)
{
    if (e->depth || (e->flags & IOLENS_EVF_FAILED))
        return 0;
    if (e->layer != IOLENS_LAYER_POSIX && e->layer != IOLENS_LAYER_STDIO)
        return 0;
    if (e->file < 0 || (uint64_t)e->file >= o->nfiles)
        return 0;
    struct otf_file *f = &o->f[e->file];
    if (f->skip)
        return 0;
    if (e->op == IOLENS_OP_OPEN)
        return do_open(o, f, e) < 0 ? -1 : 1;
    if (!f->n)
        return 0; /* a descriptor the trace did not see opened (stdin, inherited) */
    int fd = f->fds[f->n - 1];
    FILE *fp = f->fps[f->n - 1];
    int64_t size = e->size > 0 ? e->size : 0;
    switch (e->op) {
    case IOLENS_OP_CLOSE:
        f->n--;
        if (fp ? fclose(fp) != 0 : close(fd) < 0)
            return iol_err(IOLENS_EIO, "cannot close '%s/%s': %s", o->opt->root, f->rel, strerror(errno));
        return 1;
    case IOLENS_OP_WRITE:
    case IOLENS_OP_READ: {
        int w = e->op == IOLENS_OP_WRITE;
        int64_t done = 0;
        int pos = positional(e->func) && e->offset >= 0;
        while (done < size) {
            size_t n = (size_t)(size - done < OTF_BUF ? size - done : OTF_BUF);
            ssize_t r;
            if (fp)
                r = (ssize_t)(w ? fwrite(o->buf, 1, n, fp) : fread(o->buf, 1, n, fp));
            else if (pos)
                r = w ? pwrite(fd, o->buf, n, (off_t)(e->offset + done)) : pread(fd, o->buf, n, (off_t)(e->offset + done));
            else
                r = w ? write(fd, o->buf, n) : read(fd, o->buf, n);
            if (r < 0)
                return iol_err(IOLENS_EIO, "%s of %lld bytes on '%s/%s' failed: %s", e->func, (long long)size,
                               o->opt->root, f->rel, strerror(errno));
            if (r == 0)
                break; /* end of file: the recorded read was short too */
            done += r;
        }
        if (w)
            o->st->bytes_written += done;
        else
            o->st->bytes_read += done;
        return 1;
    }
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
    default:
        return 0;
    }
}

/* First pass over a rank: which files to replay, how large input files must be. */
static int prepare_rank(struct otf *o, iolens_evsource *src, int rank)
{
    iolens_event e;
    int rc;
    while ((rc = iolens_evsource_next(src, rank, &e)) > 0) {
        if (e.file < 0 || (uint64_t)e.file >= o->nfiles)
            continue;
        struct otf_file *f = &o->f[e.file];
        if (e.op == IOLENS_OP_READ && e.offset >= 0 && e.offset + e.size > f->extent)
            f->extent = e.offset + e.size;
    }
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        const char *p = o->files[i].path ? o->files[i].path : "";
        if (system_path(p)) {
            f->skip = 1;
            continue;
        }
        char rel[PATH_MAX];
        if ((rc = iol_replay_rel_path(rel, sizeof rel, p, "trace path")) < 0)
            return rc;
        if (!(f->rel = strdup(rel)))
            return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    return iolens_evsource_rewind(src, rank);
}

static void close_all(struct otf *o)
{
    for (size_t i = 0; o->f && i < o->nfiles; i++) {
        struct otf_file *f = &o->f[i];
        while (f->n > 0) {
            f->n--;
            if (f->fps[f->n])
                fclose(f->fps[f->n]);
            else
                close(f->fds[f->n]);
        }
        free(f->rel);
        f->rel = NULL;
        f->skip = 0;
        f->extent = 0;
    }
}

/* Waits until t: sleeps all but the last millisecond, then spins, so short
 * gaps do not give the processor away (waking up costs more than they last). */
static void sleep_until(double t)
{
    double d = t - now() - 1e-3;
    if (d > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
        }
    }
    while (now() < t) {
    }
}

static int replay_rank(struct otf *o, iolens_evsource *src, int rank)
{
    int rc = prepare_rank(o, src, rank);
    if (rc < 0)
        return rc;
    double t0 = now(), first = -1, speed = o->opt->speed > 0 ? o->opt->speed : 1.0;
    iolens_event e;
    while ((rc = iolens_evsource_next(src, rank, &e)) > 0) {
        if (o->opt->delays && !e.depth) {
            if (first < 0)
                first = e.tstart;
            sleep_until(t0 + (e.tstart - first) / speed);
        }
        int r = do_event(o, &e);
        if (r < 0)
            return r;
        if (r)
            o->st->calls++;
        else if (!e.depth)
            o->st->skipped++;
    }
    return rc;
}

int iolens_replay_trace_run(iolens_evsource *src, const iolens_replay_trace_options *opt,
                            iolens_replay_trace_stats *st)
{
    if (!src || !opt || !opt->root || !st)
        return iol_err(IOLENS_EINVAL, "iolens_replay_trace_run: NULL argument");
    memset(st, 0, sizeof *st);
    struct otf o = {.opt = opt, .st = st};
    int rc = 0;
    if (mkdir(opt->root, 0755) < 0 && errno != EEXIST) {
        rc = iol_err(IOLENS_EIO, "cannot create replay root '%s': %s", opt->root, strerror(errno));
        goto out;
    }
    if ((rc = iolens_evsource_files(src, &o.files, &o.nfiles)) < 0)
        goto out;
    if (o.nfiles > SIZE_MAX / sizeof *o.f || !(o.f = calloc(o.nfiles ? o.nfiles : 1, sizeof *o.f)) ||
        !(o.buf = malloc(OTF_BUF))) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    memset(o.buf, 'r', OTF_BUF);
    int nranks = iolens_evsource_nranks(src);
    if (nranks < 0) {
        rc = nranks;
        goto out;
    }
    if (opt->rank >= nranks) {
        rc = iol_err(IOLENS_EINVAL, "rank %d asked for, the trace has %d rank(s)", opt->rank, nranks);
        goto out;
    }
    st->nranks = opt->rank >= 0 ? 1 : nranks;
    double t0 = now();
    for (int r = opt->rank >= 0 ? opt->rank : 0; r < nranks; r++) {
        if ((rc = replay_rank(&o, src, r)) < 0)
            goto out;
        close_all(&o);
        if (opt->rank >= 0)
            break;
    }
    st->seconds = now() - t0;
    if (st->skipped)
        warn(&o, "calls of other layers, system files and descriptors not opened in the trace were skipped");
out:
    close_all(&o);
    for (size_t i = o.ncreated; i-- > 0;) {
        if (!opt->keep && rc >= 0)
            unlink(o.created[i]);
        free(o.created[i]);
    }
    free(o.created);
    free(o.f);
    free(o.buf);
    return rc < 0 ? rc : 0;
}
