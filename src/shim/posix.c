/* POSIX wrappers: data and metadata calls (argument slots: src/trace/funcs.def). */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utime.h>

/* glibc < 2.33 entry points, still exported for old binaries; no longer declared by the headers. */
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);

static inline void on_fd(iol_rawrec *r, int fd)
{
    r->fd = fd;
    r->file = iol_fd_file(fd);
}

static int64_t iov_bytes(const struct iovec *iov, int n)
{
    int64_t t = 0;
    for (int i = 0; i < n && iov; i++)
        t += (int64_t)iov[i].iov_len;
    return t;
}

/* ---- open family ---- */
/* iolens's own replay makes every call that changes something relative to a folder descriptor
 * of its sandbox (openat, mkdirat, unlinkat, renameat, linkat, fchmodat), where the program called
 * open, mkdir, unlink, rmdir, remove, rename, link or chmod: iolens_shim_record_as(name) before the
 * call has its record made as the program's call, with the full name (the descriptor is named:
 * iolens_shim_name_fd) and no descriptor argument, so that the replay's trace holds the calls the
 * program made. One call of this thread takes it; a name not among these is ignored. Not a wrapper. */
static __thread int record_as __attribute__((tls_model("initial-exec"))); /* IOL_F_ + 1, 0 none */

IOL_EXPORT void iolens_shim_record_as(const char *name)
{
    static const struct {
        const char *name;
        int func;
    } plain[] = {{"open", IOL_F_open},     {"open64", IOL_F_open64}, {"creat", IOL_F_creat},
                 {"creat64", IOL_F_creat64}, {"mkdir", IOL_F_mkdir},   {"rmdir", IOL_F_rmdir},
                 {"unlink", IOL_F_unlink}, {"remove", IOL_F_remove}, {"rename", IOL_F_rename},
                 {"link", IOL_F_link},     {"chmod", IOL_F_chmod}};
    record_as = 0;
    for (size_t i = 0; name && i < sizeof plain / sizeof plain[0]; i++)
        if (!strcmp(name, plain[i].name))
            record_as = plain[i].func + 1;
}

/* The function to record a call made relative to dirfd as: the one iolens_shim_record_as named
 * (then *plain is 1), else func. */
static int recorded_func(int func, int *plain)
{
    *plain = record_as != 0;
    if (record_as) {
        func = record_as - 1;
        record_as = 0;
    }
    return func;
}

static void opened(int func, uint64_t t0, int r, const char *path, int flags, mode_t mode, int dirfd)
{
    int plain;
    func = recorded_func(func, &plain);
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    int32_t id = iol_path_id_at(dirfd, path);
    if (r >= 0)
        iol_fd_set(r, id);
    if (rec) {
        rec->file = id;
        rec->ret = r;
        rec->a[0] = flags;
        rec->a[1] = mode;
        rec->a[2] = plain ? AT_FDCWD : dirfd;
        iol_commit(rec);
    }
}

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

IOL_EXPORT int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    IOL_REAL(open);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_open(path, flags, mode);
    uint64_t t0 = iol_begin();
    int r = real_open(path, flags, mode);
    opened(IOL_F_open, t0, r, path, flags, mode, AT_FDCWD);
    return r;
}

IOL_EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    IOL_REAL(open64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_open64(path, flags, mode);
    uint64_t t0 = iol_begin();
    int r = real_open64(path, flags, mode);
    opened(IOL_F_open64, t0, r, path, flags, mode, AT_FDCWD);
    return r;
}

IOL_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    IOL_REAL(openat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_openat(dirfd, path, flags, mode);
    uint64_t t0 = iol_begin();
    int r = real_openat(dirfd, path, flags, mode);
    opened(IOL_F_openat, t0, r, path, flags, mode, dirfd);
    return r;
}

IOL_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    IOL_REAL(openat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_openat64(dirfd, path, flags, mode);
    uint64_t t0 = iol_begin();
    int r = real_openat64(dirfd, path, flags, mode);
    opened(IOL_F_openat64, t0, r, path, flags, mode, dirfd);
    return r;
}

/* Temporary files: the template holds the name made of it once the call returned. */
#define IOL_MKSTEMP(name, id, params, args, extra)                                                 \
    IOL_EXPORT int name params                                                                     \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_POSIX_BIT))                                                     \
            return real_##name args;                                                               \
        uint64_t t0 = iol_begin();                                                                 \
        int r = real_##name args;                                                                  \
        opened(id, t0, r, tmpl, O_RDWR | O_CREAT | O_EXCL | (extra), 0600, AT_FDCWD);               \
        return r;                                                                                  \
    }
IOL_MKSTEMP(mkstemp, IOL_F_mkstemp, (char *tmpl), (tmpl), 0)
IOL_MKSTEMP(mkstemp64, IOL_F_mkstemp, (char *tmpl), (tmpl), 0)
IOL_MKSTEMP(mkostemp, IOL_F_mkostemp, (char *tmpl, int flags), (tmpl, flags), flags)
IOL_MKSTEMP(mkostemp64, IOL_F_mkostemp, (char *tmpl, int flags), (tmpl, flags), flags)
IOL_MKSTEMP(mkstemps, IOL_F_mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen), 0)
IOL_MKSTEMP(mkstemps64, IOL_F_mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen), 0)
IOL_MKSTEMP(mkostemps, IOL_F_mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags), flags)
IOL_MKSTEMP(mkostemps64, IOL_F_mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags), flags)

IOL_EXPORT int creat(const char *path, mode_t mode)
{
    IOL_REAL(creat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_creat(path, mode);
    uint64_t t0 = iol_begin();
    int r = real_creat(path, mode);
    opened(IOL_F_creat, t0, r, path, O_CREAT | O_WRONLY | O_TRUNC, mode, AT_FDCWD);
    return r;
}

IOL_EXPORT int creat64(const char *path, mode_t mode)
{
    IOL_REAL(creat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_creat64(path, mode);
    uint64_t t0 = iol_begin();
    int r = real_creat64(path, mode);
    opened(IOL_F_creat64, t0, r, path, O_CREAT | O_WRONLY | O_TRUNC, mode, AT_FDCWD);
    return r;
}

IOL_EXPORT int close(int fd)
{
    IOL_REAL(close);
    int32_t file = iol_fd_file(fd);
    iol_fd_closing(fd);
    /* forgotten before the real close: once the number is free, another thread may be given it
     * by a call the shim does not see (pipe, socket, accept) and must not find this file under it */
    iol_fd_forget(fd, file);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_close(fd);
    uint64_t t0 = iol_begin();
    int r = real_close(fd);
    iol_rawrec *rec = iol_end(IOL_F_close, t0, r < 0);
    if (rec) {
        rec->fd = fd;
        rec->file = file;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* ---- data ---- */
static void xfer(int func, uint64_t t0, ssize_t r, int fd, int64_t off, int64_t size, int64_t a2)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        on_fd(rec, fd);
        rec->ret = r;
        rec->a[0] = off;
        rec->a[1] = size;
        rec->a[2] = a2;
        iol_commit(rec);
    }
}

IOL_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    IOL_REAL(read);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_read(fd, buf, n);
    uint64_t t0 = iol_begin();
    ssize_t r = real_read(fd, buf, n);
    xfer(IOL_F_read, t0, r, fd, 0, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

IOL_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    IOL_REAL(write);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_write(fd, buf, n);
    uint64_t t0 = iol_begin();
    ssize_t r = real_write(fd, buf, n);
    xfer(IOL_F_write, t0, r, fd, 0, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

IOL_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    IOL_REAL(pread);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pread(fd, buf, n, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pread(fd, buf, n, off);
    xfer(IOL_F_pread, t0, r, fd, off, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

IOL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    IOL_REAL(pwrite);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pwrite(fd, buf, n, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pwrite(fd, buf, n, off);
    xfer(IOL_F_pwrite, t0, r, fd, off, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

IOL_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    IOL_REAL(pread64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pread64(fd, buf, n, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pread64(fd, buf, n, off);
    xfer(IOL_F_pread64, t0, r, fd, off, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

IOL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    IOL_REAL(pwrite64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pwrite64(fd, buf, n, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pwrite64(fd, buf, n, off);
    xfer(IOL_F_pwrite64, t0, r, fd, off, (int64_t)n, IOL_BUFPOS(buf));
    return r;
}

/* ---- copies made by the kernel: one record on the target (funcs.def) ---- */
static void copied(int func, uint64_t t0, ssize_t r, int out_fd, int64_t out_off, int64_t len, int in_fd,
                   int64_t in_off)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        on_fd(rec, out_fd);
        rec->ret = r;
        rec->a[0] = out_off;
        rec->a[1] = len;
        rec->a[2] = (int64_t)(((uint64_t)(uint32_t)iol_fd_file(in_fd) << 32) | (uint32_t)in_fd);
        rec->a[3] = in_off;
        iol_commit(rec);
    }
}

/* copy_file_range and splice: the offsets before the call, read after it (the kernel advanced
 * them by r), and not when the call found a pointer bad; then copied() */
static void copied_at(int func, uint64_t t0, ssize_t r, int in_fd, const off64_t *in_off, int out_fd,
                      const off64_t *out_off, size_t len)
{
    int readable = r >= 0 || errno != EFAULT;
    int64_t io = in_off && readable ? (int64_t)*in_off - (r > 0 ? r : 0) : -1;
    int64_t oo = out_off && readable ? (int64_t)*out_off - (r > 0 ? r : 0) : -1;
    copied(func, t0, r, out_fd, oo, (int64_t)len, in_fd, io);
}

IOL_EXPORT ssize_t copy_file_range(int in_fd, off64_t *in_off, int out_fd, off64_t *out_off, size_t len,
                                   unsigned int flags)
{
    IOL_REAL(copy_file_range);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_copy_file_range(in_fd, in_off, out_fd, out_off, len, flags);
    uint64_t t0 = iol_begin();
    ssize_t r = real_copy_file_range(in_fd, in_off, out_fd, out_off, len, flags);
    copied_at(IOL_F_copy_file_range, t0, r, in_fd, in_off, out_fd, out_off, len);
    return r;
}

/* one side a pipe: its side is on no traced file, and the file's side reads as a read or
 * writes as a write (funcs.def) */
IOL_EXPORT ssize_t splice(int in_fd, off64_t *in_off, int out_fd, off64_t *out_off, size_t len, unsigned int flags)
{
    IOL_REAL(splice);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_splice(in_fd, in_off, out_fd, out_off, len, flags);
    uint64_t t0 = iol_begin();
    ssize_t r = real_splice(in_fd, in_off, out_fd, out_off, len, flags);
    copied_at(IOL_F_splice, t0, r, in_fd, in_off, out_fd, out_off, len);
    return r;
}

IOL_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *off, size_t n)
{
    IOL_REAL(sendfile);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_sendfile(out_fd, in_fd, off, n);
    uint64_t t0 = iol_begin();
    ssize_t r = real_sendfile(out_fd, in_fd, off, n);
    int64_t io = off && (r >= 0 || errno != EFAULT) ? (int64_t)*off - (r > 0 ? r : 0) : -1;
    copied(IOL_F_sendfile, t0, r, out_fd, -1, (int64_t)n, in_fd, io);
    return r;
}

IOL_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off64_t *off, size_t n)
{
    IOL_REAL(sendfile64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_sendfile64(out_fd, in_fd, off, n);
    uint64_t t0 = iol_begin();
    ssize_t r = real_sendfile64(out_fd, in_fd, off, n);
    int64_t io = off && (r >= 0 || errno != EFAULT) ? (int64_t)*off - (r > 0 ? r : 0) : -1;
    copied(IOL_F_sendfile64, t0, r, out_fd, -1, (int64_t)n, in_fd, io);
    return r;
}

IOL_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    IOL_REAL(readv);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_readv(fd, iov, cnt);
    uint64_t t0 = iol_begin();
    ssize_t r = real_readv(fd, iov, cnt);
    xfer(IOL_F_readv, t0, r, fd, 0, iov_bytes(iov, cnt), cnt);
    return r;
}

IOL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    IOL_REAL(writev);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_writev(fd, iov, cnt);
    uint64_t t0 = iol_begin();
    ssize_t r = real_writev(fd, iov, cnt);
    xfer(IOL_F_writev, t0, r, fd, 0, iov_bytes(iov, cnt), cnt);
    return r;
}

IOL_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    IOL_REAL(preadv);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_preadv(fd, iov, cnt, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_preadv(fd, iov, cnt, off);
    xfer(IOL_F_preadv, t0, r, fd, off, iov_bytes(iov, cnt), cnt);
    return r;
}

IOL_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    IOL_REAL(pwritev);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pwritev(fd, iov, cnt, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pwritev(fd, iov, cnt, off);
    xfer(IOL_F_pwritev, t0, r, fd, off, iov_bytes(iov, cnt), cnt);
    return r;
}

IOL_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    IOL_REAL(preadv64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_preadv64(fd, iov, cnt, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_preadv64(fd, iov, cnt, off);
    xfer(IOL_F_preadv64, t0, r, fd, off, iov_bytes(iov, cnt), cnt);
    return r;
}

IOL_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    IOL_REAL(pwritev64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_pwritev64(fd, iov, cnt, off);
    uint64_t t0 = iol_begin();
    ssize_t r = real_pwritev64(fd, iov, cnt, off);
    xfer(IOL_F_pwritev64, t0, r, fd, off, iov_bytes(iov, cnt), cnt);
    return r;
}

/* preadv2, pwritev2 (fio's pvsync2 engine) and their 64 forms: a3 the RWF_ flags */
#define IOL_POSIX_V2(name, off_t_, iov_qual)                                                       \
    IOL_EXPORT ssize_t name(int fd, iov_qual struct iovec *iov, int cnt, off_t_ off, int flags)    \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_POSIX_BIT))                                                     \
            return real_##name(fd, iov, cnt, off, flags);                                          \
        uint64_t t0 = iol_begin();                                                                 \
        ssize_t r = real_##name(fd, iov, cnt, off, flags);                                         \
        iol_rawrec *rec = iol_end(IOL_F_##name, t0, r < 0);                                        \
        if (rec) {                                                                                 \
            on_fd(rec, fd);                                                                        \
            rec->ret = r;                                                                          \
            rec->a[0] = off;                                                                       \
            rec->a[1] = iov_bytes(iov, cnt);                                                       \
            rec->a[2] = cnt;                                                                       \
            rec->a[3] = flags;                                                                     \
            iol_commit(rec);                                                                       \
        }                                                                                          \
        return r;                                                                                  \
    }
IOL_POSIX_V2(preadv2, off_t, const)
IOL_POSIX_V2(pwritev2, off_t, const)
IOL_POSIX_V2(preadv64v2, off64_t, const)
IOL_POSIX_V2(pwritev64v2, off64_t, const)

IOL_EXPORT off_t lseek(int fd, off_t off, int whence)
{
    IOL_REAL(lseek);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_lseek(fd, off, whence);
    uint64_t t0 = iol_begin();
    off_t r = real_lseek(fd, off, whence);
    xfer(IOL_F_lseek, t0, r, fd, off, 0, whence);
    return r;
}

IOL_EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
    IOL_REAL(lseek64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_lseek64(fd, off, whence);
    uint64_t t0 = iol_begin();
    off64_t r = real_lseek64(fd, off, whence);
    xfer(IOL_F_lseek64, t0, r, fd, off, 0, whence);
    return r;
}

IOL_EXPORT int fsync(int fd)
{
    IOL_REAL(fsync);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fsync(fd);
    uint64_t t0 = iol_begin();
    int r = real_fsync(fd);
    xfer(IOL_F_fsync, t0, r, fd, 0, 0, 0);
    return r;
}

IOL_EXPORT int fdatasync(int fd)
{
    IOL_REAL(fdatasync);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fdatasync(fd);
    uint64_t t0 = iol_begin();
    int r = real_fdatasync(fd);
    xfer(IOL_F_fdatasync, t0, r, fd, 0, 0, 0);
    return r;
}

IOL_EXPORT int ftruncate(int fd, off_t len)
{
    IOL_REAL(ftruncate);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_ftruncate(fd, len);
    uint64_t t0 = iol_begin();
    int r = real_ftruncate(fd, len);
    xfer(IOL_F_ftruncate, t0, r, fd, 0, len, 0);
    return r;
}

IOL_EXPORT int ftruncate64(int fd, off64_t len)
{
    IOL_REAL(ftruncate64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_ftruncate64(fd, len);
    uint64_t t0 = iol_begin();
    int r = real_ftruncate64(fd, len);
    xfer(IOL_F_ftruncate64, t0, r, fd, 0, len, 0);
    return r;
}

/* fallocate returns -1 and sets errno; posix_fallocate and posix_fadvise return the error number
 * itself and leave errno alone, which the application sees unchanged */
IOL_EXPORT int fallocate(int fd, int mode, off_t off, off_t len)
{
    IOL_REAL(fallocate);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fallocate(fd, mode, off, len);
    uint64_t t0 = iol_begin();
    int r = real_fallocate(fd, mode, off, len);
    xfer(IOL_F_fallocate, t0, r, fd, off, len, mode);
    return r;
}

IOL_EXPORT int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
    IOL_REAL(fallocate64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fallocate64(fd, mode, off, len);
    uint64_t t0 = iol_begin();
    int r = real_fallocate64(fd, mode, off, len);
    xfer(IOL_F_fallocate64, t0, r, fd, off, len, mode);
    return r;
}

static void pfalloc(int func, uint64_t t0, int r, int fd, int64_t off, int64_t len, int64_t a2)
{
    int saved = errno;
    errno = r;
    iol_rawrec *rec = iol_end(func, t0, r != 0);
    if (rec) {
        on_fd(rec, fd);
        rec->ret = r ? -1 : 0;
        rec->a[0] = off;
        rec->a[1] = len;
        rec->a[2] = a2;
        iol_commit(rec);
    }
    errno = saved;
}

IOL_EXPORT int posix_fallocate(int fd, off_t off, off_t len)
{
    IOL_REAL(posix_fallocate);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_posix_fallocate(fd, off, len);
    uint64_t t0 = iol_begin();
    int r = real_posix_fallocate(fd, off, len);
    pfalloc(IOL_F_posix_fallocate, t0, r, fd, off, len, 0);
    return r;
}

IOL_EXPORT int posix_fallocate64(int fd, off64_t off, off64_t len)
{
    IOL_REAL(posix_fallocate64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_posix_fallocate64(fd, off, len);
    uint64_t t0 = iol_begin();
    int r = real_posix_fallocate64(fd, off, len);
    pfalloc(IOL_F_posix_fallocate64, t0, r, fd, off, len, 0);
    return r;
}

IOL_EXPORT int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
    IOL_REAL(posix_fadvise);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_posix_fadvise(fd, off, len, advice);
    uint64_t t0 = iol_begin();
    int r = real_posix_fadvise(fd, off, len, advice);
    pfalloc(IOL_F_posix_fadvise, t0, r, fd, off, len, advice);
    return r;
}

IOL_EXPORT int posix_fadvise64(int fd, off64_t off, off64_t len, int advice)
{
    IOL_REAL(posix_fadvise64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_posix_fadvise64(fd, off, len, advice);
    uint64_t t0 = iol_begin();
    int r = real_posix_fadvise64(fd, off, len, advice);
    pfalloc(IOL_F_posix_fadvise64, t0, r, fd, off, len, advice);
    return r;
}

/* ---- metadata ---- */
/* A call on a path, relative to the directory descriptor dirfd (AT_FDCWD but for fstatat, statx);
 * a1..a3 are its argument slots. */
static void on_path_at(int func, uint64_t t0, int r, int dirfd, const char *path, int64_t a1, int64_t a2, int64_t a3)
{
    int plain;
    func = recorded_func(func, &plain);
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        rec->file = iol_path_id_at(dirfd, path);
        rec->ret = r;
        rec->a[1] = a1;
        rec->a[2] = plain ? 0 : a2; /* (the plain calls' slots: a1 at most, the mode) */
        rec->a[3] = plain ? 0 : a3;
        iol_commit(rec);
    }
}

static void on_path(int func, uint64_t t0, int r, const char *path, int64_t a1, int64_t a2, int64_t a3)
{
    on_path_at(func, t0, r, AT_FDCWD, path, a1, a2, a3);
}

IOL_EXPORT int stat(const char *path, struct stat *buf)
{
    IOL_REAL(stat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_stat(path, buf);
    uint64_t t0 = iol_begin();
    int r = real_stat(path, buf);
    on_path(IOL_F_stat, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int stat64(const char *path, struct stat64 *buf)
{
    IOL_REAL(stat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_stat64(path, buf);
    uint64_t t0 = iol_begin();
    int r = real_stat64(path, buf);
    on_path(IOL_F_stat64, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int lstat(const char *path, struct stat *buf)
{
    IOL_REAL(lstat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_lstat(path, buf);
    uint64_t t0 = iol_begin();
    int r = real_lstat(path, buf);
    on_path(IOL_F_lstat, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int lstat64(const char *path, struct stat64 *buf)
{
    IOL_REAL(lstat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_lstat64(path, buf);
    uint64_t t0 = iol_begin();
    int r = real_lstat64(path, buf);
    on_path(IOL_F_lstat64, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int fstatat(int dirfd, const char *path, struct stat *buf, int flags)
{
    IOL_REAL(fstatat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fstatat(dirfd, path, buf, flags);
    uint64_t t0 = iol_begin();
    int r = real_fstatat(dirfd, path, buf, flags);
    on_path_at(IOL_F_fstatat, t0, r, dirfd, path, 0, dirfd, flags);
    return r;
}

IOL_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags)
{
    IOL_REAL(fstatat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fstatat64(dirfd, path, buf, flags);
    uint64_t t0 = iol_begin();
    int r = real_fstatat64(dirfd, path, buf, flags);
    on_path_at(IOL_F_fstatat64, t0, r, dirfd, path, 0, dirfd, flags);
    return r;
}

IOL_EXPORT int __xstat(int ver, const char *path, struct stat *buf)
{
    IOL_REAL(__xstat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___xstat(ver, path, buf);
    uint64_t t0 = iol_begin();
    int r = real___xstat(ver, path, buf);
    on_path(IOL_F___xstat, t0, r, path, 0, 0, ver);
    return r;
}

IOL_EXPORT int __xstat64(int ver, const char *path, struct stat64 *buf)
{
    IOL_REAL(__xstat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___xstat64(ver, path, buf);
    uint64_t t0 = iol_begin();
    int r = real___xstat64(ver, path, buf);
    on_path(IOL_F___xstat64, t0, r, path, 0, 0, ver);
    return r;
}

IOL_EXPORT int __lxstat(int ver, const char *path, struct stat *buf)
{
    IOL_REAL(__lxstat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___lxstat(ver, path, buf);
    uint64_t t0 = iol_begin();
    int r = real___lxstat(ver, path, buf);
    on_path(IOL_F___lxstat, t0, r, path, 0, 0, ver);
    return r;
}

IOL_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *buf)
{
    IOL_REAL(__lxstat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___lxstat64(ver, path, buf);
    uint64_t t0 = iol_begin();
    int r = real___lxstat64(ver, path, buf);
    on_path(IOL_F___lxstat64, t0, r, path, 0, 0, ver);
    return r;
}

IOL_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)
{
    IOL_REAL(statx);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_statx(dirfd, path, flags, mask, buf);
    uint64_t t0 = iol_begin();
    int r = real_statx(dirfd, path, flags, mask, buf);
    on_path_at(IOL_F_statx, t0, r, dirfd, path, mask, dirfd, flags);
    return r;
}

IOL_EXPORT int access(const char *path, int mode)
{
    IOL_REAL(access);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_access(path, mode);
    uint64_t t0 = iol_begin();
    int r = real_access(path, mode);
    on_path(IOL_F_access, t0, r, path, mode, 0, 0);
    return r;
}

IOL_EXPORT int mkdir(const char *path, mode_t mode)
{
    IOL_REAL(mkdir);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_mkdir(path, mode);
    uint64_t t0 = iol_begin();
    int r = real_mkdir(path, mode);
    on_path(IOL_F_mkdir, t0, r, path, mode, 0, 0);
    return r;
}

/* Not recorded: they only tell the path table that relative names now start elsewhere. */
IOL_EXPORT int chdir(const char *path)
{
    IOL_REAL(chdir);
    int r = real_chdir(path);
    if (r == 0)
        iol_cwd_changed();
    return r;
}

IOL_EXPORT int fchdir(int fd)
{
    IOL_REAL(fchdir);
    int r = real_fchdir(fd);
    if (r == 0)
        iol_cwd_changed();
    return r;
}

IOL_EXPORT int rmdir(const char *path)
{
    IOL_REAL(rmdir);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_rmdir(path);
    uint64_t t0 = iol_begin();
    int r = real_rmdir(path);
    on_path(IOL_F_rmdir, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int unlink(const char *path)
{
    IOL_REAL(unlink);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_unlink(path);
    uint64_t t0 = iol_begin();
    int r = real_unlink(path);
    on_path(IOL_F_unlink, t0, r, path, 0, 0, 0);
    return r;
}

IOL_EXPORT int rename(const char *from, const char *to)
{
    IOL_REAL(rename);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_rename(from, to);
    uint64_t t0 = iol_begin();
    int r = real_rename(from, to);
    iol_rawrec *rec = iol_end(IOL_F_rename, t0, r < 0);
    if (rec) { /* a2 the target's path id, looked up after the call's end stamp as renamed()'s */
        rec->file = iol_path_id(from);
        rec->ret = r;
        rec->a[2] = iol_path_id(to);
        iol_commit(rec);
    }
    return r;
}

/* The *at forms: a path relative to a directory descriptor is recorded joined with the
 * directory's recorded path, as openat's (docs/TRACE-FORMAT.md). */
IOL_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    IOL_REAL(mkdirat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_mkdirat(dirfd, path, mode);
    uint64_t t0 = iol_begin();
    int r = real_mkdirat(dirfd, path, mode);
    on_path_at(IOL_F_mkdirat, t0, r, dirfd, path, mode, dirfd, 0);
    return r;
}

IOL_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
    IOL_REAL(unlinkat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_unlinkat(dirfd, path, flags);
    uint64_t t0 = iol_begin();
    int r = real_unlinkat(dirfd, path, flags);
    on_path_at(IOL_F_unlinkat, t0, r, dirfd, path, 0, dirfd, flags);
    return r;
}

IOL_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
    IOL_REAL(faccessat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_faccessat(dirfd, path, mode, flags);
    uint64_t t0 = iol_begin();
    int r = real_faccessat(dirfd, path, mode, flags);
    on_path_at(IOL_F_faccessat, t0, r, dirfd, path, mode, dirfd, flags);
    return r;
}

/* glibc's remove unlinks, or removes the directory, through its own internal calls: recorded
 * once, as remove. */
IOL_EXPORT int remove(const char *path)
{
    IOL_REAL(remove);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_remove(path);
    uint64_t t0 = iol_begin();
    int r = real_remove(path);
    on_path(IOL_F_remove, t0, r, path, 0, 0, 0);
    return r;
}

/* renameat, renameat2: a0 the flags (renameat2), a1 the source's dirfd, a2 the target's path
 * id (as rename's), a3 the target's dirfd. */
static void renamed(int func, uint64_t t0, int r, int olddirfd, const char *from, int newdirfd, const char *to,
                    unsigned flags)
{
    int plain;
    func = recorded_func(func, &plain);
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        rec->file = iol_path_id_at(olddirfd, from);
        rec->ret = r;
        rec->a[2] = iol_path_id_at(newdirfd, to);
        if (!plain) {
            rec->a[0] = flags;
            rec->a[1] = olddirfd;
            rec->a[3] = newdirfd;
        } else if (func == IOL_F_link) { /* as link() records itself (rename() leaves them 0) */
            rec->a[1] = rec->a[3] = AT_FDCWD;
        }
        iol_commit(rec);
    }
}

IOL_EXPORT int renameat(int olddirfd, const char *from, int newdirfd, const char *to)
{
    IOL_REAL(renameat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_renameat(olddirfd, from, newdirfd, to);
    uint64_t t0 = iol_begin();
    int r = real_renameat(olddirfd, from, newdirfd, to);
    renamed(IOL_F_renameat, t0, r, olddirfd, from, newdirfd, to, 0);
    return r;
}

IOL_EXPORT int renameat2(int olddirfd, const char *from, int newdirfd, const char *to, unsigned flags)
{
    IOL_REAL(renameat2);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_renameat2(olddirfd, from, newdirfd, to, flags);
    uint64_t t0 = iol_begin();
    int r = real_renameat2(olddirfd, from, newdirfd, to, flags);
    renamed(IOL_F_renameat2, t0, r, olddirfd, from, newdirfd, to, flags);
    return r;
}

static void on_fdcall(int func, uint64_t t0, int64_t r, int fd, int64_t a1, int64_t a2, int64_t a3)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        on_fd(rec, fd);
        rec->ret = r;
        rec->a[1] = a1;
        rec->a[2] = a2;
        rec->a[3] = a3;
        iol_commit(rec);
    }
}

IOL_EXPORT int fstat(int fd, struct stat *buf)
{
    IOL_REAL(fstat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fstat(fd, buf);
    uint64_t t0 = iol_begin();
    int r = real_fstat(fd, buf);
    on_fdcall(IOL_F_fstat, t0, r, fd, 0, 0, 0);
    return r;
}

IOL_EXPORT int fstat64(int fd, struct stat64 *buf)
{
    IOL_REAL(fstat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fstat64(fd, buf);
    uint64_t t0 = iol_begin();
    int r = real_fstat64(fd, buf);
    on_fdcall(IOL_F_fstat64, t0, r, fd, 0, 0, 0);
    return r;
}

IOL_EXPORT int __fxstat(int ver, int fd, struct stat *buf)
{
    IOL_REAL(__fxstat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___fxstat(ver, fd, buf);
    uint64_t t0 = iol_begin();
    int r = real___fxstat(ver, fd, buf);
    on_fdcall(IOL_F___fxstat, t0, r, fd, 0, 0, ver);
    return r;
}

IOL_EXPORT int __fxstat64(int ver, int fd, struct stat64 *buf)
{
    IOL_REAL(__fxstat64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___fxstat64(ver, fd, buf);
    uint64_t t0 = iol_begin();
    int r = real___fxstat64(ver, fd, buf);
    on_fdcall(IOL_F___fxstat64, t0, r, fd, 0, 0, ver);
    return r;
}

IOL_EXPORT int dup(int fd)
{
    IOL_REAL(dup);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT)) {
        int r = real_dup(fd);
        if (r >= 0)
            iol_fd_set(r, iol_fd_file(fd));
        return r;
    }
    uint64_t t0 = iol_begin();
    int r = real_dup(fd);
    if (r >= 0)
        iol_fd_set(r, iol_fd_file(fd));
    on_fdcall(IOL_F_dup, t0, r, fd, 0, 0, 0);
    return r;
}

IOL_EXPORT int dup2(int fd, int fd2)
{
    IOL_REAL(dup2);
    int traced = iol_tracing(IOL_LAYER_POSIX_BIT);
    uint64_t t0 = traced ? iol_begin() : 0;
    iol_fd_closing(fd2);
    int r = real_dup2(fd, fd2);
    if (r >= 0)
        iol_fd_set(fd2, iol_fd_file(fd));
    if (traced)
        on_fdcall(IOL_F_dup2, t0, r, fd, 0, fd2, 0);
    return r;
}

IOL_EXPORT int dup3(int fd, int fd2, int flags)
{
    IOL_REAL(dup3);
    int traced = iol_tracing(IOL_LAYER_POSIX_BIT);
    uint64_t t0 = traced ? iol_begin() : 0;
    iol_fd_closing(fd2);
    int r = real_dup3(fd, fd2, flags);
    if (r >= 0)
        iol_fd_set(fd2, iol_fd_file(fd));
    if (traced)
        on_fdcall(IOL_F_dup3, t0, r, fd, 0, fd2, flags);
    return r;
}

/* After fcntl or fcntl64: follow F_DUPFD descriptors and record the call with
 * its integer argument (only for commands whose argument is an int). */
void iol_fcntl_done(uint64_t t0, int traced, int r, int fd, int cmd, void *arg)
{
    int intarg = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC || cmd == F_SETFD || cmd == F_SETFL ||
                 cmd == F_SETOWN || cmd == F_SETSIG || cmd == F_SETLEASE || cmd == F_NOTIFY ||
                 cmd == F_SETPIPE_SZ || cmd == F_ADD_SEALS;
    if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0)
        iol_fd_set(r, iol_fd_file(fd));
    if (traced)
        on_fdcall(IOL_F_fcntl, t0, r, fd, 0, cmd, intarg ? (int64_t)(int)(intptr_t)arg : 0);
}

IOL_EXPORT int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    IOL_REAL(fcntl);
    int traced = iol_tracing(IOL_LAYER_POSIX_BIT);
    uint64_t t0 = traced ? iol_begin() : 0;
    int r = real_fcntl(fd, cmd, arg);
    iol_fcntl_done(t0, traced, r, fd, cmd, arg);
    return r;
}

static void mapped(int func, uint64_t t0, void *r, int fd, off_t off, size_t len, int prot, int flags)
{
    iol_rawrec *rec = iol_end(func, t0, r == MAP_FAILED);
    if (rec) {
        on_fd(rec, fd);
        rec->ret = r == MAP_FAILED ? -1 : 0;
        rec->a[0] = off;
        rec->a[1] = (int64_t)len;
        rec->a[2] = prot;
        rec->a[3] = flags;
        iol_commit(rec);
    }
}

IOL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    IOL_REAL(mmap);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT) || (flags & MAP_ANONYMOUS))
        return real_mmap(addr, len, prot, flags, fd, off);
    uint64_t t0 = iol_begin();
    void *r = real_mmap(addr, len, prot, flags, fd, off);
    mapped(IOL_F_mmap, t0, r, fd, off, len, prot, flags);
    return r;
}

IOL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    IOL_REAL(mmap64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT) || (flags & MAP_ANONYMOUS))
        return real_mmap64(addr, len, prot, flags, fd, off);
    uint64_t t0 = iol_begin();
    void *r = real_mmap64(addr, len, prot, flags, fd, off);
    mapped(IOL_F_mmap64, t0, r, fd, off, len, prot, flags);
    return r;
}

IOL_EXPORT int msync(void *addr, size_t len, int flags)
{
    IOL_REAL(msync);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_msync(addr, len, flags);
    uint64_t t0 = iol_begin();
    int r = real_msync(addr, len, flags);
    on_fdcall(IOL_F_msync, t0, r, -1, (int64_t)len, flags, 0);
    return r;
}

/* ---- directories ---- */
IOL_EXPORT DIR *opendir(const char *path)
{
    IOL_REAL(opendir);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_opendir(path);
    uint64_t t0 = iol_begin();
    DIR *d = real_opendir(path);
    iol_rawrec *rec = iol_end(IOL_F_opendir, t0, d == NULL);
    int32_t id = iol_path_id(path);
    int fd = d ? dirfd(d) : -1;
    if (fd >= 0)
        iol_fd_set(fd, id);
    if (rec) {
        rec->file = id;
        rec->ret = fd;
        iol_commit(rec);
    }
    return d;
}

IOL_EXPORT struct dirent *readdir(DIR *d)
{
    IOL_REAL(readdir);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_readdir(d);
    int saved = errno;
    errno = 0; /* readdir reports errors only through errno */
    uint64_t t0 = iol_begin();
    struct dirent *e = real_readdir(d);
    int failed = !e && errno != 0;
    if (!failed)
        errno = saved;
    on_fdcall(IOL_F_readdir, t0, e ? 1 : failed ? -1 : 0, dirfd(d), 0, 0, 0);
    return e;
}

IOL_EXPORT struct dirent64 *readdir64(DIR *d)
{
    IOL_REAL(readdir64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_readdir64(d);
    int saved = errno;
    errno = 0;
    uint64_t t0 = iol_begin();
    struct dirent64 *e = real_readdir64(d);
    int failed = !e && errno != 0;
    if (!failed)
        errno = saved;
    on_fdcall(IOL_F_readdir64, t0, e ? 1 : failed ? -1 : 0, dirfd(d), 0, 0, 0);
    return e;
}

IOL_EXPORT int closedir(DIR *d)
{
    IOL_REAL(closedir);
    int fd = dirfd(d);
    int32_t file = iol_fd_file(fd);
    iol_fd_forget(fd, file); /* before the number is free (see close) */
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_closedir(d);
    uint64_t t0 = iol_begin();
    int r = real_closedir(d);
    iol_rawrec *rec = iol_end(IOL_F_closedir, t0, r < 0);
    if (rec) {
        rec->fd = fd;
        rec->file = file;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* ---- truncation by path, attributes ---- */
IOL_EXPORT int truncate(const char *path, off_t len)
{
    IOL_REAL(truncate);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_truncate(path, len);
    uint64_t t0 = iol_begin();
    int r = real_truncate(path, len);
    on_path(IOL_F_truncate, t0, r, path, len, 0, 0);
    return r;
}

IOL_EXPORT int truncate64(const char *path, off64_t len)
{
    IOL_REAL(truncate64);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_truncate64(path, len);
    uint64_t t0 = iol_begin();
    int r = real_truncate64(path, len);
    on_path(IOL_F_truncate64, t0, r, path, len, 0, 0);
    return r;
}

IOL_EXPORT int chmod(const char *path, mode_t mode)
{
    IOL_REAL(chmod);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_chmod(path, mode);
    uint64_t t0 = iol_begin();
    int r = real_chmod(path, mode);
    on_path(IOL_F_chmod, t0, r, path, mode, 0, 0);
    return r;
}

IOL_EXPORT int fchmod(int fd, mode_t mode)
{
    IOL_REAL(fchmod);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fchmod(fd, mode);
    uint64_t t0 = iol_begin();
    int r = real_fchmod(fd, mode);
    on_fdcall(IOL_F_fchmod, t0, r, fd, mode, 0, 0);
    return r;
}

IOL_EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
    IOL_REAL(fchmodat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fchmodat(dirfd, path, mode, flags);
    uint64_t t0 = iol_begin();
    int r = real_fchmodat(dirfd, path, mode, flags);
    on_path_at(IOL_F_fchmodat, t0, r, dirfd, path, mode, dirfd, flags);
    return r;
}

/* an owner or group as recorded: -1 for "unchanged" rather than its unsigned form */
static int64_t id_arg(unsigned id) { return id == (unsigned)-1 ? -1 : (int64_t)id; }

IOL_EXPORT int chown(const char *path, uid_t owner, gid_t group)
{
    IOL_REAL(chown);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_chown(path, owner, group);
    uint64_t t0 = iol_begin();
    int r = real_chown(path, owner, group);
    on_path(IOL_F_chown, t0, r, path, id_arg(owner), id_arg(group), 0);
    return r;
}

IOL_EXPORT int lchown(const char *path, uid_t owner, gid_t group)
{
    IOL_REAL(lchown);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_lchown(path, owner, group);
    uint64_t t0 = iol_begin();
    int r = real_lchown(path, owner, group);
    on_path(IOL_F_lchown, t0, r, path, id_arg(owner), id_arg(group), 0);
    return r;
}

IOL_EXPORT int fchown(int fd, uid_t owner, gid_t group)
{
    IOL_REAL(fchown);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fchown(fd, owner, group);
    uint64_t t0 = iol_begin();
    int r = real_fchown(fd, owner, group);
    on_fdcall(IOL_F_fchown, t0, r, fd, id_arg(owner), id_arg(group), 0);
    return r;
}

IOL_EXPORT int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
    IOL_REAL(fchownat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_fchownat(dirfd, path, owner, group, flags);
    uint64_t t0 = iol_begin();
    int r = real_fchownat(dirfd, path, owner, group, flags);
    iol_rawrec *rec = iol_end(IOL_F_fchownat, t0, r < 0);
    if (rec) {
        rec->file = iol_path_id_at(dirfd, path);
        rec->ret = r;
        rec->a[0] = dirfd;
        rec->a[1] = id_arg(owner);
        rec->a[2] = id_arg(group);
        rec->a[3] = flags;
        iol_commit(rec);
    }
    return r;
}

IOL_EXPORT int utime(const char *path, const struct utimbuf *times)
{
    IOL_REAL(utime);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_utime(path, times);
    uint64_t t0 = iol_begin();
    int r = real_utime(path, times);
    on_path(IOL_F_utime, t0, r, path, times != NULL, 0, 0);
    return r;
}

IOL_EXPORT int utimes(const char *path, const struct timeval tv[2])
{
    IOL_REAL(utimes);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_utimes(path, tv);
    uint64_t t0 = iol_begin();
    int r = real_utimes(path, tv);
    on_path(IOL_F_utimes, t0, r, path, tv != NULL, 0, 0);
    return r;
}

IOL_EXPORT int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
    IOL_REAL(utimensat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_utimensat(dirfd, path, times, flags);
    uint64_t t0 = iol_begin();
    int r = real_utimensat(dirfd, path, times, flags);
    const char *named = path;
    __asm__("" : "+r"(named)); /* declared nonnull, yet Linux takes NULL: kept from being assumed non-NULL */
    if (named)
        on_path_at(IOL_F_utimensat, t0, r, dirfd, named, times != NULL, dirfd, flags);
    else /* (Linux: the descriptor's own file, as futimens) */
        on_fdcall(IOL_F_utimensat, t0, r, dirfd, times != NULL, dirfd, flags);
    return r;
}

IOL_EXPORT int futimens(int fd, const struct timespec times[2])
{
    IOL_REAL(futimens);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_futimens(fd, times);
    uint64_t t0 = iol_begin();
    int r = real_futimens(fd, times);
    on_fdcall(IOL_F_futimens, t0, r, fd, times != NULL, 0, 0);
    return r;
}

/* ---- links ---- */
IOL_EXPORT int link(const char *from, const char *to)
{
    IOL_REAL(link);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_link(from, to);
    uint64_t t0 = iol_begin();
    int r = real_link(from, to);
    renamed(IOL_F_link, t0, r, AT_FDCWD, from, AT_FDCWD, to, 0);
    return r;
}

IOL_EXPORT int linkat(int olddirfd, const char *from, int newdirfd, const char *to, int flags)
{
    IOL_REAL(linkat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_linkat(olddirfd, from, newdirfd, to, flags);
    uint64_t t0 = iol_begin();
    int r = real_linkat(olddirfd, from, newdirfd, to, flags);
    renamed(IOL_F_linkat, t0, r, olddirfd, from, newdirfd, to, (unsigned)flags);
    return r;
}

static void linked(int func, uint64_t t0, int r, const char *target, int newdirfd, const char *path)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        rec->file = iol_path_id_at(newdirfd, path);
        rec->ret = r;
        rec->a[2] = iol_link_target_id(rec->file, target);
        rec->a[3] = newdirfd;
        iol_commit(rec);
    }
}

IOL_EXPORT int symlink(const char *target, const char *path)
{
    IOL_REAL(symlink);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_symlink(target, path);
    uint64_t t0 = iol_begin();
    int r = real_symlink(target, path);
    linked(IOL_F_symlink, t0, r, target, AT_FDCWD, path);
    return r;
}

IOL_EXPORT int symlinkat(const char *target, int newdirfd, const char *path)
{
    IOL_REAL(symlinkat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_symlinkat(target, newdirfd, path);
    uint64_t t0 = iol_begin();
    int r = real_symlinkat(target, newdirfd, path);
    linked(IOL_F_symlinkat, t0, r, target, newdirfd, path);
    return r;
}

static void readlinked(int func, uint64_t t0, ssize_t r, int dirfd, const char *path, size_t size)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        rec->file = iol_path_id_at(dirfd, path);
        rec->ret = r;
        rec->a[1] = (int64_t)size;
        rec->a[2] = dirfd;
        iol_commit(rec);
    }
}

IOL_EXPORT ssize_t readlink(const char *restrict path, char *restrict buf, size_t size)
{
    IOL_REAL(readlink);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_readlink(path, buf, size);
    uint64_t t0 = iol_begin();
    ssize_t r = real_readlink(path, buf, size);
    readlinked(IOL_F_readlink, t0, r, AT_FDCWD, path, size);
    return r;
}

IOL_EXPORT ssize_t readlinkat(int dirfd, const char *restrict path, char *restrict buf, size_t size)
{
    IOL_REAL(readlinkat);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real_readlinkat(dirfd, path, buf, size);
    uint64_t t0 = iol_begin();
    ssize_t r = real_readlinkat(dirfd, path, buf, size);
    readlinked(IOL_F_readlinkat, t0, r, dirfd, path, size);
    return r;
}
