/*
 * Entry points that programs built with _FORTIFY_SOURCE or
 * _FILE_OFFSET_BITS=64 call instead of the plain ones (glibc's __*_chk,
 * __open_2, fcntl64). They are recorded under the plain function's name:
 * the call, its arguments and its result are the same (__fread_unlocked_chk as
 * fread_unlocked).
 */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __printf_chk(int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
char *__fgets_chk(char *s, size_t size, int n, FILE *f);
char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *f);
size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *f);
int fcntl64(int fd, int cmd, ...);

static void opened(int func, uint64_t t0, int r, const char *path, int flags, int dirfd)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    int32_t id = iol_path_id_at(dirfd, path);
    if (r >= 0)
        iol_fd_set(r, id);
    if (rec) {
        rec->file = id;
        rec->ret = r;
        rec->a[0] = flags;
        rec->a[2] = dirfd;
        iol_commit(rec);
    }
}

IOL_EXPORT int __open_2(const char *path, int flags)
{
    IOL_REAL(__open_2);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___open_2(path, flags);
    uint64_t t0 = iol_begin();
    int r = real___open_2(path, flags);
    opened(IOL_F_open, t0, r, path, flags, AT_FDCWD);
    return r;
}

IOL_EXPORT int __open64_2(const char *path, int flags)
{
    IOL_REAL(__open64_2);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___open64_2(path, flags);
    uint64_t t0 = iol_begin();
    int r = real___open64_2(path, flags);
    opened(IOL_F_open64, t0, r, path, flags, AT_FDCWD);
    return r;
}

IOL_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    IOL_REAL(__openat_2);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___openat_2(dirfd, path, flags);
    uint64_t t0 = iol_begin();
    int r = real___openat_2(dirfd, path, flags);
    opened(IOL_F_openat, t0, r, path, flags, dirfd);
    return r;
}

IOL_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    IOL_REAL(__openat64_2);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___openat64_2(dirfd, path, flags);
    uint64_t t0 = iol_begin();
    int r = real___openat64_2(dirfd, path, flags);
    opened(IOL_F_openat64, t0, r, path, flags, dirfd);
    return r;
}

static void xfer(int func, uint64_t t0, ssize_t r, int fd, int64_t off, int64_t size, const void *buf)
{
    iol_rawrec *rec = iol_end(func, t0, r < 0);
    if (rec) {
        rec->fd = fd;
        rec->file = iol_fd_file(fd);
        rec->ret = r;
        rec->a[0] = off;
        rec->a[1] = size;
        rec->a[2] = IOL_BUFPOS(buf); /* trace/format.h */
        iol_commit(rec);
    }
}

IOL_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    IOL_REAL(__read_chk);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___read_chk(fd, buf, n, buflen);
    uint64_t t0 = iol_begin();
    ssize_t r = real___read_chk(fd, buf, n, buflen);
    xfer(IOL_F___read_chk, t0, r, fd, 0, (int64_t)n, buf);
    return r;
}

IOL_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    IOL_REAL(__pread_chk);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___pread_chk(fd, buf, n, off, buflen);
    uint64_t t0 = iol_begin();
    ssize_t r = real___pread_chk(fd, buf, n, off, buflen);
    xfer(IOL_F___pread_chk, t0, r, fd, off, (int64_t)n, buf);
    return r;
}

IOL_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    IOL_REAL(__pread64_chk);
    if (!iol_tracing(IOL_LAYER_POSIX_BIT))
        return real___pread64_chk(fd, buf, n, off, buflen);
    uint64_t t0 = iol_begin();
    ssize_t r = real___pread64_chk(fd, buf, n, off, buflen);
    xfer(IOL_F___pread64_chk, t0, r, fd, off, (int64_t)n, buf);
    return r;
}

/* a stdio record: a1 the size; fread's a2 the item size, a3 the items asked for (funcs.def). The
 * _unlocked calls' records take no lock either (fileno_unlocked, ferror_unlocked). */
static void stdio_done(int func, uint64_t t0, int failed, FILE *f, int64_t ret, int64_t a1)
{
    iol_rawrec *rec = iol_end(func, t0, failed);
    if (rec) {
        int unlocked = func == IOL_F___fgets_unlocked_chk || func == IOL_F___fread_unlocked_chk;
        rec->fd = !f ? -1 : unlocked ? fileno_unlocked(f) : iol_fileno(f);
        rec->file = iol_fd_file(rec->fd);
        rec->ret = ret;
        rec->a[1] = a1;
        iol_commit(rec);
    }
}

static void fread_done(int func, uint64_t t0, FILE *f, size_t r, size_t size, size_t n)
{
    int unlocked = func == IOL_F___fread_unlocked_chk;
    iol_rawrec *rec = iol_end(func, t0, r < n && f && (unlocked ? ferror_unlocked(f) : ferror(f)));
    if (rec) {
        rec->fd = !f ? -1 : unlocked ? fileno_unlocked(f) : iol_fileno(f);
        rec->file = iol_fd_file(rec->fd);
        rec->ret = (int64_t)r;
        rec->a[1] = (int64_t)(size * n);
        rec->a[2] = (int64_t)size;
        rec->a[3] = (int64_t)n;
        iol_commit(rec);
    }
}

IOL_EXPORT size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    IOL_REAL(__fread_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___fread_chk(p, plen, size, n, f);
    uint64_t t0 = iol_begin();
    size_t r = real___fread_chk(p, plen, size, n, f);
    fread_done(IOL_F___fread_chk, t0, f, r, size, n);
    return r;
}

IOL_EXPORT size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    IOL_REAL(__fread_unlocked_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___fread_unlocked_chk(p, plen, size, n, f);
    uint64_t t0 = iol_begin();
    size_t r = real___fread_unlocked_chk(p, plen, size, n, f);
    fread_done(IOL_F___fread_unlocked_chk, t0, f, r, size, n);
    return r;
}

IOL_EXPORT char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *f)
{
    IOL_REAL(__fgets_unlocked_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___fgets_unlocked_chk(s, size, n, f);
    uint64_t t0 = iol_begin();
    char *r = real___fgets_unlocked_chk(s, size, n, f);
    stdio_done(IOL_F___fgets_unlocked_chk, t0, !r && ferror_unlocked(f), f, r ? (int64_t)strlen(r) : -1, n);
    return r;
}

IOL_EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    IOL_REAL(__vfprintf_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___vfprintf_chk(f, flag, fmt, ap);
    uint64_t t0 = iol_begin();
    int r = real___vfprintf_chk(f, flag, fmt, ap);
    stdio_done(IOL_F___vfprintf_chk, t0, r < 0, f, r, r > 0 ? r : 0);
    return r;
}

IOL_EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    static __typeof__(&__vfprintf_chk) real_vchk;
    if (!real_vchk)
        real_vchk = (__typeof__(&__vfprintf_chk))iol_real("__vfprintf_chk");
    va_list ap;
    va_start(ap, fmt);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT)) {
        int r = real_vchk(f, flag, fmt, ap);
        va_end(ap);
        return r;
    }
    uint64_t t0 = iol_begin();
    int r = real_vchk(f, flag, fmt, ap);
    va_end(ap);
    stdio_done(IOL_F___fprintf_chk, t0, r < 0, f, r, r > 0 ? r : 0);
    return r;
}

IOL_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
    IOL_REAL(__vprintf_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___vprintf_chk(flag, fmt, ap);
    uint64_t t0 = iol_begin();
    int r = real___vprintf_chk(flag, fmt, ap);
    stdio_done(IOL_F___vprintf_chk, t0, r < 0, stdout, r, r > 0 ? r : 0);
    return r;
}

IOL_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
    static __typeof__(&__vprintf_chk) real_vchk;
    if (!real_vchk)
        real_vchk = (__typeof__(&__vprintf_chk))iol_real("__vprintf_chk");
    va_list ap;
    va_start(ap, fmt);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT)) {
        int r = real_vchk(flag, fmt, ap);
        va_end(ap);
        return r;
    }
    uint64_t t0 = iol_begin();
    int r = real_vchk(flag, fmt, ap);
    va_end(ap);
    stdio_done(IOL_F___printf_chk, t0, r < 0, stdout, r, r > 0 ? r : 0);
    return r;
}

IOL_EXPORT char *__fgets_chk(char *s, size_t size, int n, FILE *f)
{
    IOL_REAL(__fgets_chk);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real___fgets_chk(s, size, n, f);
    uint64_t t0 = iol_begin();
    char *r = real___fgets_chk(s, size, n, f);
    stdio_done(IOL_F___fgets_chk, t0, !r && ferror(f), f, r ? (int64_t)strlen(r) : -1, n);
    return r;
}

IOL_EXPORT int fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    IOL_REAL(fcntl64);
    int traced = iol_tracing(IOL_LAYER_POSIX_BIT);
    uint64_t t0 = traced ? iol_begin() : 0;
    int r = real_fcntl64(fd, cmd, arg);
    iol_fcntl_done(t0, traced, r, fd, cmd, arg);
    return r;
}
