/*
 * The replay's sandbox (sandbox.h): paths resolved beneath the root, never through a link, the
 * root locked for one replay at a time.
 *
 * The replay's own bookkeeping goes around the tracer (raw system calls), so a trace of a replay
 * holds the workload's calls only, not the checks made for them.
 */
#define _GNU_SOURCE
#include "replay/sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

static int raw_openat(int dirfd, const char *name, int flags, mode_t mode)
{
    return (int)syscall(SYS_openat, dirfd, name, flags, mode);
}

static int raw_fstatat(int dirfd, const char *name, struct stat *st, int flags)
{
#ifdef SYS_newfstatat
    return (int)syscall(SYS_newfstatat, dirfd, name, st, flags);
#else
    return fstatat(dirfd, name, st, flags);
#endif
}

static int raw_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

int iol_sandbox_high_fd(int fd)
{
    struct rlimit rl;
    if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur < 1024)
        return fd;
    long from = (long)rl.rlim_cur - (rl.rlim_cur >= 2048 ? 1024 : 512);
    if (fd >= from)
        return fd;
    int hi = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, from);
    if (hi < 0)
        return fd;
    raw_close(fd);
    return hi;
}

/* openat2 beneath dirfd, links refused: the descriptor, or -1 with errno (ENOSYS where the
 * kernel lacks it, or a seccomp filter refuses it: EPERM). */
static int beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
#ifdef SYS_openat2
    struct open_how how = {.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
                           .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
#else
    (void)dirfd, (void)rel, (void)flags, (void)mode;
    errno = ENOSYS;
    return -1;
#endif
}

/* The descriptor chain: each component of rel[0..len) opened O_PATH | O_NOFOLLOW from the last
 * (made first when create and missing). */
static int chain(const iol_sandbox *sb, const char *rel, size_t len, int create, iol_sandbox_made_fn made,
                 void *ctx)
{
    int fd = raw_openat(sb->rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && rel[j] != '/')
            j++;
        char part[NAME_MAX + 1];
        if (j - i > NAME_MAX) {
            raw_close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(part, rel + i, j - i);
        part[j - i] = 0;
        if (!part[0] || !strcmp(part, ".") || !strcmp(part, "..")) { /* (rel is normalised: never) */
            raw_close(fd);
            errno = EXDEV;
            return -1;
        }
        int nfd = raw_openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (nfd < 0 && errno == ENOENT && create) {
            if (syscall(SYS_mkdirat, fd, part, 0755) == 0) {
                if (made) {
                    char sub[PATH_MAX];
                    snprintf(sub, sizeof sub, "%.*s", (int)j, rel);
                    made(ctx, sub);
                }
            } else if (errno != EEXIST) {
                int err = errno;
                raw_close(fd);
                errno = err;
                return -1;
            }
            nfd = raw_openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        }
        int err = errno;
        raw_close(fd);
        if (nfd < 0) {
            /* a link (O_NOFOLLOW | O_DIRECTORY on a link: ENOTDIR or ELOOP): never followed */
            errno = err == ENOTDIR || err == ELOOP ? ELOOP : err;
            return -1;
        }
        fd = nfd;
        i = j + 1;
    }
    return fd;
}

int iol_sandbox_dir(const iol_sandbox *sb, const char *rel, size_t len, int create, iol_sandbox_made_fn made,
                    void *ctx)
{
    if (len == 0)
        return raw_openat(sb->rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (sb->beneath) {
        char d[PATH_MAX];
        if (len >= sizeof d) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(d, rel, len);
        d[len] = 0;
        int fd = beneath(sb->rootfd, d, O_PATH | O_DIRECTORY, 0);
        if (fd >= 0 || errno != ENOENT || !create)
            return fd;
        /* a folder to make: the chain makes it (and reports each one made) */
    }
    return chain(sb, rel, len, create, made, ctx);
}

int iol_sandbox_parent(const iol_sandbox *sb, const char *rel, int create, iol_sandbox_made_fn made, void *ctx,
                       const char **base)
{
    const char *slash = strrchr(rel, '/');
    *base = slash ? slash + 1 : rel;
    if (!**base) {
        errno = EINVAL;
        return -1;
    }
    return iol_sandbox_dir(sb, rel, slash ? (size_t)(slash - rel) : 0, create, made, ctx);
}

int iol_sandbox_open(const iol_sandbox *sb, const char *rel, int flags, mode_t mode)
{
    if (sb->beneath)
        return beneath(sb->rootfd, rel, flags, mode);
    const char *base;
    int dfd = iol_sandbox_parent(sb, rel, 0, NULL, NULL, &base);
    if (dfd < 0)
        return -1;
    int fd = openat(dfd, base, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    int err = errno;
    raw_close(dfd);
    errno = err;
    return fd;
}

int iol_sandbox_stat(const iol_sandbox *sb, const char *rel, struct stat *st, int nofollow)
{
    return fstatat(sb->rootfd, rel, st, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}

int iol_sandbox_access(const iol_sandbox *sb, const char *rel, int mode)
{
    return faccessat(sb->rootfd, rel, mode, 0);
}

int iol_sandbox_unlink(const iol_sandbox *sb, const char *rel, int flags)
{
    const char *base;
    int dfd = iol_sandbox_parent(sb, rel, 0, NULL, NULL, &base);
    if (dfd < 0)
        return -1;
    int rc = unlinkat(dfd, base, flags);
    int err = errno;
    raw_close(dfd);
    errno = err;
    return rc;
}

int iol_sandbox_verify_dir(const iol_sandbox *sb, int dirfd, const char *rel)
{
    const char *slash = strrchr(rel, '/');
    char d[PATH_MAX];
    size_t n = slash ? (size_t)(slash - rel) : 0;
    if (n >= sizeof d) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(d, rel, n);
    d[n] = 0;
    struct stat walked, held;
    if (raw_fstatat(sb->rootfd, n ? d : ".", &walked, 0) < 0 || raw_fstatat(dirfd, "", &held, AT_EMPTY_PATH) < 0)
        return -1;
    if (walked.st_dev != held.st_dev || walked.st_ino != held.st_ino) {
        errno = EXDEV;
        return -1;
    }
    return 0;
}

int iol_sandbox_verify_file(int dirfd, const char *base, int fd)
{
    struct stat named, opened;
    if (raw_fstatat(dirfd, base, &named, AT_SYMLINK_NOFOLLOW) < 0 || raw_fstatat(fd, "", &opened, AT_EMPTY_PATH) < 0)
        return -1;
    if (named.st_dev != opened.st_dev || named.st_ino != opened.st_ino) {
        errno = EXDEV;
        return -1;
    }
    return 0;
}

/* ---- the root ---- */

/* The marker of a replay holding the root: "pid N\nstarted T\n". */
static int marker_read(const iol_sandbox *sb, long *pid, long long *started)
{
    int fd = raw_openat(sb->rootfd, IOL_SANDBOX_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0)
        return 0;
    char buf[128] = {0};
    ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
    struct stat st;
    *pid = 0;
    *started = raw_fstatat(fd, "", &st, AT_EMPTY_PATH) == 0 ? (long long)st.st_mtime : 0;
    raw_close(fd);
    if (n > 0)
        sscanf(buf, "pid %ld started %lld", pid, started);
    return 1;
}

/* The marker; its contents may be lost (a file size limit of 0 lets it be made, not written): the
 * marker itself is what says a replay holds the root. */
static int marker_write(iol_sandbox *sb)
{
    int fd = raw_openat(sb->rootfd, IOL_SANDBOX_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return iol_err(IOLENS_EIO, "cannot write '%s/%s': %s", sb->root, IOL_SANDBOX_MARKER, strerror(errno));
    char buf[96];
    int n = snprintf(buf, sizeof buf, "pid %ld started %lld\n", (long)getpid(), (long long)time(NULL));
    if (syscall(SYS_write, fd, buf, (size_t)n) != n) {
        /* (unwritten: its time of change says when) */
    }
    raw_close(fd);
    sb->marker = 1;
    return 0;
}

static int open_root(iol_sandbox *sb, const char *root, int flags)
{
    if ((flags & IOL_SANDBOX_CREATE) && mkdir(root, 0755) == 0)
        sb->made_root = 1;
    else if ((flags & IOL_SANDBOX_CREATE) && errno != EEXIST)
        return iol_err(IOLENS_EIO, "cannot create the replay root '%s': %s", root, strerror(errno));
    if (!realpath(root, sb->root))
        return iol_err(IOLENS_EIO, "cannot use replay root '%s': %s", root, strerror(errno));
    if (!strcmp(sb->root, "/"))
        return iol_err(IOLENS_EINVAL, "replay root '%s' is the file system's root: every traced path would be "
                       "replayed onto the application's own file; choose an empty folder (--root DIR)", root);
    sb->rootfd = iol_sandbox_high_fd(raw_openat(AT_FDCWD, sb->root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0));
    if (sb->rootfd < 0)
        return iol_err(IOLENS_EIO, "cannot open the replay root '%s': %s", sb->root, strerror(errno));
    int probe = beneath(sb->rootfd, ".", O_PATH | O_DIRECTORY, 0);
    sb->beneath = probe >= 0;
    if (probe >= 0)
        raw_close(probe);
    *(void **)&sb->name_fd = dlsym(RTLD_DEFAULT, "iolens_shim_name_fd");
    *(void **)&sb->record_as = dlsym(RTLD_DEFAULT, "iolens_shim_record_as");
    if (!(flags & IOL_SANDBOX_LOCK))
        return 0;
    sb->lockfd = iol_sandbox_high_fd(raw_openat(sb->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
    if (sb->lockfd < 0)
        return iol_err(IOLENS_EIO, "cannot open the replay root '%s': %s", sb->root, strerror(errno));
    long pid;
    long long started;
    if (flock(sb->lockfd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
        int known = marker_read(sb, &pid, &started) && pid > 0;
        char who[64] = "";
        if (known)
            snprintf(who, sizeof who, " (process %ld)", pid);
        return iol_err(IOLENS_EINVAL, "replay root '%s' is in use by another replay%s: wait for it to end, or "
                       "choose another --root", sb->root, who);
    }
    /* (a file system without locks, some network ones: the marker alone guards the root) */
    if (marker_read(sb, &pid, &started)) {
        char when[64] = "at an unknown time";
        time_t t = (time_t)started;
        struct tm tm;
        if (started > 0 && localtime_r(&t, &tm))
            strftime(when, sizeof when, "on %Y-%m-%d at %H:%M:%S", &tm);
        char who[64] = "a process";
        if (pid > 0)
            snprintf(who, sizeof who, "process %ld", pid);
        return iol_err(IOLENS_EINVAL, "replay root '%s' holds what an interrupted replay left (%s, started %s; its "
                       "'%s' is still there): remove it (rm -rf '%s') or choose another --root", sb->root, who, when,
                       IOL_SANDBOX_MARKER, sb->root);
    }
    return marker_write(sb);
}

int iol_sandbox_init(iol_sandbox *sb, const char *root, int flags)
{
    memset(sb, 0, sizeof *sb);
    sb->rootfd = sb->lockfd = -1;
    int rc = open_root(sb, root && *root ? root : ".", flags);
    if (rc < 0) { /* nothing left behind: the root goes again when it was made here */
        int made = sb->made_root;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", sb->root[0] ? sb->root : root);
        iol_sandbox_release(sb);
        if (made)
            rmdir(path);
    }
    return rc;
}

void iol_sandbox_name(const iol_sandbox *sb, int fd, const char *rel, size_t len)
{
    if (!sb->name_fd || fd < 0)
        return;
    char path[PATH_MAX];
    int n = len ? snprintf(path, sizeof path, "%s/%.*s", sb->root, (int)len, rel) : snprintf(path, sizeof path, "%s", sb->root);
    if (n > 0 && (size_t)n < sizeof path)
        sb->name_fd(fd, path);
}

void iol_sandbox_release(iol_sandbox *sb)
{
    if (sb->marker && sb->rootfd >= 0)
        syscall(SYS_unlinkat, sb->rootfd, IOL_SANDBOX_MARKER, 0);
    sb->marker = 0;
    if (sb->lockfd >= 0) {
        flock(sb->lockfd, LOCK_UN);
        raw_close(sb->lockfd);
    }
    if (sb->rootfd >= 0)
        raw_close(sb->rootfd);
    sb->lockfd = sb->rootfd = -1;
}
