/*
 * A traced program that writes its own ground truth: every wrapped call it
 * makes is logged (in memory, then written with raw system calls that the
 * shim does not see) in the form `iolens trace --print` uses after its five
 * leading columns. Modes:
 *   trace_probe all LOG DIR         every wrapped POSIX and stdio function, errors included
 *   trace_probe allthreads LOG DIR T the same in T threads at once, one log LOG.<k> per thread
 *   trace_probe threads LOG DIR T N T threads x N pwrite/pread calls; lines prefixed "<thread> "
 *   trace_probe signal LOG DIR SIG  some calls, then dies by signal SIG
 *   trace_probe pwrites N FILE      N 64-byte pwrite calls (benchmark workload, no log)
 * Built with -fno-builtin so the compiler does not turn fprintf into fwrite.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utime.h>

/* glibc's old stat entry points and the fortified entry points, called by name */
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
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
ssize_t __getdelim(char **lp, size_t *n, int delim, FILE *f);
/* glibc's headers send fscanf to __isoc99_fscanf; a program built otherwise imports fscanf */
int plain_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");

typedef struct logb {
    char *p;
    size_t len, cap;
} logb;

static logb main_log;

static void lappend(logb *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 65536;
        while (nc < b->len + n + 1)
            nc *= 2;
        b->p = realloc(b->p, nc);
        if (!b->p)
            abort();
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* func(["path"][, fd=N][, args]) = ret[ errno=E] */
__attribute__((format(printf, 7, 8))) static void logc(logb *b, const char *func, const char *path, int fd, long long ret, int err, const char *fmt, ...)
{
    char line[1024], args[512] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(args, sizeof args, fmt, ap);
        va_end(ap);
    }
    int n = snprintf(line, sizeof line, "%s(", func);
    const char *sep = "";
    if (path) {
        n += snprintf(line + n, sizeof line - n, "\"%s\"", path);
        sep = ", ";
    }
    if (fd >= 0) {
        n += snprintf(line + n, sizeof line - n, "%sfd=%d", sep, fd);
        sep = ", ";
    }
    if (args[0])
        n += snprintf(line + n, sizeof line - n, "%s%s", sep, args);
    n += snprintf(line + n, sizeof line - n, ") = %lld", ret);
    if (err)
        n += snprintf(line + n, sizeof line - n, " errno=%d", err);
    line[n++] = '\n';
    lappend(b, line, (size_t)n);
}

static void write_log(const char *path, const logb *b)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        abort();
    for (size_t off = 0; off < b->len;) {
        long w = syscall(SYS_write, fd, b->p + off, b->len - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    syscall(SYS_close, fd);
}

#define E(r) ((r) < 0 ? errno : 0)
/* glibc's older names of getc and putc, still exported (binaries built before 2.28 call them) */
int _IO_getc(FILE *f);
int _IO_putc(int c, FILE *f);

__attribute__((format(printf, 5, 6))) static void vfp(logb *b, FILE *f, const char *path, int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(f, fmt, ap);
    va_end(ap);
    logc(b, "vfprintf", path, fd, r, E(r), "size=%d", r > 0 ? r : 0);
}

__attribute__((format(printf, 5, 6))) static void vfp_chk(logb *b, FILE *f, const char *path, int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = __vfprintf_chk(f, 1, fmt, ap);
    va_end(ap);
    logc(b, "__vfprintf_chk", path, fd, r, E(r), "size=%d", r > 0 ? r : 0);
}

/* k: the thread's slot (its dup2/dup3 target descriptors) */
static void posix_calls(logb *L, const char *dir, int k)
{
    char p[512], p2[512], d[512];
    char buf[256];
    memset(buf, 'x', sizeof buf);
    snprintf(p, sizeof p, "%s/a.dat", dir);
    snprintf(p2, sizeof p2, "%s/b.dat", dir);
    snprintf(d, sizeof d, "%s/sub", dir);

    int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
    logc(L, "open", p, -1, fd, E(fd), "flags=0x%x, mode=0%o", O_CREAT | O_RDWR | O_TRUNC, 0644);
    ssize_t r = write(fd, buf, 100);
    logc(L, "write", p, fd, r, E(r), "size=100");
    r = pwrite(fd, buf, 64, 200);
    logc(L, "pwrite", p, fd, r, E(r), "off=200, size=64");
    r = pwrite64(fd, buf, 64, 264);
    logc(L, "pwrite64", p, fd, r, E(r), "off=264, size=64");
    off_t o = lseek(fd, 0, SEEK_SET);
    logc(L, "lseek", p, fd, o, E(o), "off=0, whence=0");
    o = lseek64(fd, 10, SEEK_CUR);
    logc(L, "lseek64", p, fd, o, E(o), "off=10, whence=1");
    r = read(fd, buf, 50);
    logc(L, "read", p, fd, r, E(r), "size=50");
    r = pread(fd, buf, 30, 5);
    logc(L, "pread", p, fd, r, E(r), "off=5, size=30");
    r = pread64(fd, buf, 30, 7);
    logc(L, "pread64", p, fd, r, E(r), "off=7, size=30");
    struct iovec iov[2] = {{buf, 10}, {buf + 10, 20}};
    r = writev(fd, iov, 2);
    logc(L, "writev", p, fd, r, E(r), "size=30, iovcnt=2");
    r = readv(fd, iov, 2);
    logc(L, "readv", p, fd, r, E(r), "size=30, iovcnt=2");
    r = pwritev(fd, iov, 2, 1000);
    logc(L, "pwritev", p, fd, r, E(r), "off=1000, size=30, iovcnt=2");
    r = preadv(fd, iov, 2, 1000);
    logc(L, "preadv", p, fd, r, E(r), "off=1000, size=30, iovcnt=2");
    r = pwritev64(fd, iov, 2, 2000);
    logc(L, "pwritev64", p, fd, r, E(r), "off=2000, size=30, iovcnt=2");
    r = preadv64(fd, iov, 2, 2000);
    logc(L, "preadv64", p, fd, r, E(r), "off=2000, size=30, iovcnt=2");
    r = pwritev2(fd, iov, 2, 3000, RWF_DSYNC);
    logc(L, "pwritev2", p, fd, r, E(r), "off=3000, size=30, iovcnt=2, flags=%d", RWF_DSYNC);
    r = preadv2(fd, iov, 2, 3000, 0);
    logc(L, "preadv2", p, fd, r, E(r), "off=3000, size=30, iovcnt=2, flags=0");
    r = pwritev2(fd, iov, 2, -1, 0); /* at the file position, which moves */
    logc(L, "pwritev2", p, fd, r, E(r), "off=-1, size=30, iovcnt=2, flags=0");
    r = pwritev64v2(fd, iov, 2, 4000, 0);
    logc(L, "pwritev64v2", p, fd, r, E(r), "off=4000, size=30, iovcnt=2, flags=0");
    r = preadv64v2(fd, iov, 2, 4000, 0);
    logc(L, "preadv64v2", p, fd, r, E(r), "off=4000, size=30, iovcnt=2, flags=0");
    int x = fsync(fd);
    logc(L, "fsync", p, fd, x, E(x), NULL);
    x = fdatasync(fd);
    logc(L, "fdatasync", p, fd, x, E(x), NULL);
    x = ftruncate(fd, 4096);
    logc(L, "ftruncate", p, fd, x, E(x), "length=4096");
    x = ftruncate64(fd, 4096);
    logc(L, "ftruncate64", p, fd, x, E(x), "length=4096");
    x = fallocate(fd, 0, 0, 8192);
    logc(L, "fallocate", p, fd, x, E(x), "off=0, len=8192, flags=0");
    x = fallocate64(fd, FALLOC_FL_KEEP_SIZE, 8192, 4096);
    logc(L, "fallocate64", p, fd, x, E(x), "off=8192, len=4096, flags=%d", FALLOC_FL_KEEP_SIZE);
    errno = 0;
    x = posix_fallocate(fd, 0, 4096); /* the error number is returned; errno stays */
    logc(L, "posix_fallocate", p, fd, x ? -1 : 0, x, "off=0, len=4096");
    x = posix_fallocate64(-1, 0, 4096);
    logc(L, "posix_fallocate64", NULL, -1, x ? -1 : 0, x, "off=0, len=4096");
    x = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    logc(L, "posix_fadvise", p, fd, x ? -1 : 0, x, "off=0, len=0, advice=%d", POSIX_FADV_DONTNEED);
    x = posix_fadvise64(fd, 4096, 8192, 99); /* EINVAL, returned */
    logc(L, "posix_fadvise64", p, fd, x ? -1 : 0, x, "off=4096, len=8192, advice=99");
    if (errno != 0)
        abort(); /* posix_fallocate or posix_fadvise changed errno */
    x = ftruncate(fd, 4096);
    logc(L, "ftruncate", p, fd, x, E(x), "length=4096");
    /* copies made by the kernel: one line each, on the target, naming the source */
    char pc[600];
    snprintf(pc, sizeof pc, "%s.copy", p);
    int fc = open(pc, O_CREAT | O_RDWR | O_TRUNC, 0644);
    logc(L, "open", pc, -1, fc, E(fc), "flags=0x%x, mode=0%o", O_CREAT | O_RDWR | O_TRUNC, 0644);
    off64_t ci = 100, co = 5000;
    r = copy_file_range(fd, &ci, fc, NULL, 1000, 0);
    logc(L, "copy_file_range", pc, fc, r, E(r), "off=-1, len=1000, from_off=100, from=\"%s\"", p);
    r = copy_file_range(fd, NULL, fc, &co, 10, 0);
    logc(L, "copy_file_range", pc, fc, r, E(r), "off=5000, len=10, from_off=-1, from=\"%s\"", p);
    r = copy_file_range(-1, NULL, fc, NULL, 10, 0); /* EBADF */
    logc(L, "copy_file_range", pc, fc, r, E(r), "off=-1, len=10, from_off=-1");
    off_t so = 0;
    r = sendfile(fc, fd, &so, 500);
    logc(L, "sendfile", pc, fc, r, E(r), "count=500, from_off=0, from=\"%s\"", p);
    r = sendfile64(fc, fd, NULL, 7);
    logc(L, "sendfile64", pc, fc, r, E(r), "count=7, from_off=-1, from=\"%s\"", p);
    /* splice: one side a pipe (on no traced file), the other a file */
    int pp[2];
    if (pipe(pp) != 0)
        abort();
    off64_t si = 200, sout = 6000;
    r = splice(fd, &si, pp[1], NULL, 300, 0);
    logc(L, "splice", NULL, pp[1], r, E(r), "off=-1, len=300, from_off=200, from=\"%s\"", p);
    r = splice(fd, NULL, pp[1], NULL, 20, 0);
    logc(L, "splice", NULL, pp[1], r, E(r), "off=-1, len=20, from_off=-1, from=\"%s\"", p);
    r = splice(pp[0], NULL, fc, NULL, 250, 0);
    logc(L, "splice", pc, fc, r, E(r), "off=-1, len=250, from_off=-1");
    r = splice(pp[0], NULL, fc, &sout, 70, 0);
    logc(L, "splice", pc, fc, r, E(r), "off=6000, len=70, from_off=-1");
    r = splice(-1, NULL, fc, NULL, 10, 0); /* EBADF */
    logc(L, "splice", pc, fc, r, E(r), "off=-1, len=10, from_off=-1");
    x = close(pp[0]);
    logc(L, "close", NULL, pp[0], x, E(x), NULL);
    x = close(pp[1]);
    logc(L, "close", NULL, pp[1], x, E(x), NULL);
    x = close(fc);
    logc(L, "close", pc, fc, x, E(x), NULL);
    struct stat st;
    struct stat64 st64;
    x = fstat(fd, &st);
    logc(L, "fstat", p, fd, x, E(x), NULL);
    x = fstat64(fd, &st64);
    logc(L, "fstat64", p, fd, x, E(x), NULL);
    x = __fxstat(1, fd, &st);
    logc(L, "__fxstat", p, fd, x, E(x), "ver=1");
    x = __fxstat64(1, fd, &st64);
    logc(L, "__fxstat64", p, fd, x, E(x), "ver=1");
    /* fortified entry points (recorded under the plain name) */
    r = __read_chk(fd, buf, 20, sizeof buf);
    logc(L, "__read_chk", p, fd, r, E(r), "size=20");
    r = __pread_chk(fd, buf, 16, 8, sizeof buf);
    logc(L, "__pread_chk", p, fd, r, E(r), "off=8, size=16");
    r = __pread64_chk(fd, buf, 16, 24, sizeof buf);
    logc(L, "__pread64_chk", p, fd, r, E(r), "off=24, size=16");
    x = fcntl64(fd, F_GETFD);
    logc(L, "fcntl", p, fd, x, E(x), "cmd=%d, arg=0", F_GETFD);
    int fd2 = dup(fd);
    logc(L, "dup", p, fd, fd2, E(fd2), NULL);
    int fd3 = dup2(fd, 40 + 2 * k);
    logc(L, "dup2", p, fd, fd3, E(fd3), "newfd=%d", 40 + 2 * k);
    int fd4 = dup3(fd, 41 + 2 * k, O_CLOEXEC);
    logc(L, "dup3", p, fd, fd4, E(fd4), "newfd=%d, flags=%d", 41 + 2 * k, O_CLOEXEC);
    x = fcntl(fd, F_GETFL);
    logc(L, "fcntl", p, fd, x, E(x), "cmd=%d, arg=0", F_GETFL);
    x = fcntl(fd, F_SETFD, FD_CLOEXEC);
    logc(L, "fcntl", p, fd, x, E(x), "cmd=%d, arg=%d", F_SETFD, FD_CLOEXEC);
    int fd5 = fcntl(fd, F_DUPFD, 70); /* above the dup2 targets 40 + 2k of up to 14 threads */
    logc(L, "fcntl", p, fd, fd5, E(fd5), "cmd=%d, arg=70", F_DUPFD);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    logc(L, "mmap", p, fd, m == MAP_FAILED ? -1 : 0, m == MAP_FAILED ? errno : 0, "off=0, len=4096, prot=%d, flags=%d",
         PROT_READ | PROT_WRITE, MAP_SHARED);
    x = msync(m, 4096, MS_SYNC);
    logc(L, "msync", NULL, -1, x, E(x), "len=4096, flags=%d", MS_SYNC);
    munmap(m, 4096);
    void *m64 = mmap64(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    logc(L, "mmap64", p, fd, m64 == MAP_FAILED ? -1 : 0, m64 == MAP_FAILED ? errno : 0,
         "off=0, len=4096, prot=%d, flags=%d", PROT_READ, MAP_PRIVATE);
    munmap(m64, 4096);
    int cl[] = {fd5, fd4, fd3, fd2, fd};
    for (int i = 0; i < 5; i++) {
        x = close(cl[i]);
        logc(L, "close", p, cl[i], x, E(x), NULL);
    }
    /* the 64 and at variants */
    fd = open64(p, O_RDONLY);
    logc(L, "open64", p, -1, fd, E(fd), "flags=0x%x, mode=00", O_RDONLY);
    x = close(fd);
    logc(L, "close", p, fd, x, E(x), NULL);
    fd = openat(AT_FDCWD, p, O_WRONLY | O_APPEND);
    logc(L, "openat", p, -1, fd, E(fd), "flags=0x%x, mode=00, dirfd=%d", O_WRONLY | O_APPEND, AT_FDCWD);
    x = close(fd);
    logc(L, "close", p, fd, x, E(x), NULL);
    fd = openat64(AT_FDCWD, p2, O_WRONLY | O_CREAT, 0600);
    logc(L, "openat64", p2, -1, fd, E(fd), "flags=0x%x, mode=0600, dirfd=%d", O_WRONLY | O_CREAT, AT_FDCWD);
    x = close(fd);
    logc(L, "close", p2, fd, x, E(x), NULL);
    /* names relative to a directory descriptor are recorded joined to the directory's path,
     * "." and ".." components walked as the kernel does (here without symbolic links) */
    int dirf = open(dir, O_RDONLY | O_DIRECTORY);
    logc(L, "open", dir, -1, dirf, E(dirf), "flags=0x%x, mode=00", O_RDONLY | O_DIRECTORY);
    char rel[600];
    const char *base = strrchr(dir, '/');
    snprintf(rel, sizeof rel, "./..%s/b.dat", base ? base : "/.");
    fd = openat(dirf, rel, O_RDONLY);
    logc(L, "openat", p2, -1, fd, E(fd), "flags=0x0, mode=00, dirfd=%d", dirf);
    x = close(fd);
    logc(L, "close", p2, fd, x, E(x), NULL);
    x = fstatat(dirf, "a.dat", &st, 0);
    logc(L, "fstatat", p, -1, x, E(x), "dirfd=%d, flags=0", dirf);
    {
        struct statx sx0;
        x = statx(dirf, "", AT_EMPTY_PATH, STATX_SIZE, &sx0);
        logc(L, "statx", dir, -1, x, E(x), "mask=%d, dirfd=%d, flags=%d", STATX_SIZE, dirf, AT_EMPTY_PATH);
    }
    x = close(dirf);
    logc(L, "close", dir, dirf, x, E(x), NULL);
    /* temporary files: recorded with the name made of the template (64 variants: the plain name) */
    {
        static const char *const tn[] = {"mkstemp", "mkstemp", "mkostemp", "mkostemp",
                                         "mkstemps", "mkstemps", "mkostemps", "mkostemps"};
        for (int i = 0; i < 8; i++) {
            char tp[600];
            int sfx = i >= 4 ? 4 : 0, extra = (i == 2 || i == 3 || i >= 6) ? O_CLOEXEC : 0;
            snprintf(tp, sizeof tp, "%s/tmp%dXXXXXX%s", dir, i, sfx ? ".dat" : "");
            int t = i == 0 ? mkstemp(tp) : i == 1 ? mkstemp64(tp) : i == 2 ? mkostemp(tp, O_CLOEXEC)
                  : i == 3 ? mkostemp64(tp, O_CLOEXEC) : i == 4 ? mkstemps(tp, 4) : i == 5 ? mkstemps64(tp, 4)
                  : i == 6 ? mkostemps(tp, 4, O_CLOEXEC) : mkostemps64(tp, 4, O_CLOEXEC);
            logc(L, tn[i], tp, -1, t, E(t), "flags=0x%x, mode=0600", O_RDWR | O_CREAT | O_EXCL | extra);
            x = close(t);
            logc(L, "close", tp, t, x, E(x), NULL);
            x = unlink(tp);
            logc(L, "unlink", tp, -1, x, E(x), NULL);
        }
    }
    fd = creat(p2, 0640);
    logc(L, "creat", p2, -1, fd, E(fd), "flags=0x%x, mode=0640", O_CREAT | O_WRONLY | O_TRUNC);
    x = close(fd);
    logc(L, "close", p2, fd, x, E(x), NULL);
    fd = creat64(p2, 0640);
    logc(L, "creat64", p2, -1, fd, E(fd), "flags=0x%x, mode=0640", O_CREAT | O_WRONLY | O_TRUNC);
    x = close(fd);
    logc(L, "close", p2, fd, x, E(x), NULL);
    /* metadata */
    x = stat(p, &st);
    logc(L, "stat", p, -1, x, E(x), NULL);
    x = stat64(p, &st64);
    logc(L, "stat64", p, -1, x, E(x), NULL);
    x = lstat(p, &st);
    logc(L, "lstat", p, -1, x, E(x), NULL);
    x = lstat64(p, &st64);
    logc(L, "lstat64", p, -1, x, E(x), NULL);
    x = fstatat(AT_FDCWD, p, &st, 0);
    logc(L, "fstatat", p, -1, x, E(x), "dirfd=%d, flags=0", AT_FDCWD);
    x = fstatat64(AT_FDCWD, p, &st64, AT_SYMLINK_NOFOLLOW);
    logc(L, "fstatat64", p, -1, x, E(x), "dirfd=%d, flags=%d", AT_FDCWD, AT_SYMLINK_NOFOLLOW);
    struct statx sx;
    x = statx(AT_FDCWD, p, 0, STATX_SIZE, &sx);
    logc(L, "statx", p, -1, x, E(x), "mask=%d, dirfd=%d, flags=0", STATX_SIZE, AT_FDCWD);
    x = __xstat(1, p, &st);
    logc(L, "__xstat", p, -1, x, E(x), "ver=1");
    x = __xstat64(1, p, &st64);
    logc(L, "__xstat64", p, -1, x, E(x), "ver=1");
    x = __lxstat(1, p, &st);
    logc(L, "__lxstat", p, -1, x, E(x), "ver=1");
    x = __lxstat64(1, p, &st64);
    logc(L, "__lxstat64", p, -1, x, E(x), "ver=1");
    x = __xstat(1, "/nonexistent/iolens/z", &st);
    logc(L, "__xstat", "/nonexistent/iolens/z", -1, x, E(x), "ver=1");
    /* fortified opens (recorded as open/open64/openat/openat64 with mode 0) */
    int fo = __open_2(p, O_RDONLY);
    logc(L, "open", p, -1, fo, E(fo), "flags=0x0, mode=00");
    x = close(fo);
    logc(L, "close", p, fo, x, E(x), NULL);
    fo = __open64_2(p, O_RDONLY);
    logc(L, "open64", p, -1, fo, E(fo), "flags=0x0, mode=00");
    x = close(fo);
    logc(L, "close", p, fo, x, E(x), NULL);
    fo = __openat_2(AT_FDCWD, p, O_RDONLY);
    logc(L, "openat", p, -1, fo, E(fo), "flags=0x0, mode=00, dirfd=%d", AT_FDCWD);
    x = close(fo);
    logc(L, "close", p, fo, x, E(x), NULL);
    fo = __openat64_2(AT_FDCWD, p, O_RDONLY);
    logc(L, "openat64", p, -1, fo, E(fo), "flags=0x0, mode=00, dirfd=%d", AT_FDCWD);
    x = close(fo);
    logc(L, "close", p, fo, x, E(x), NULL);
    x = access(p, R_OK);
    logc(L, "access", p, -1, x, E(x), "mode=0%o", R_OK);
    x = mkdir(d, 0755);
    logc(L, "mkdir", d, -1, x, E(x), "mode=0755");
    char dp[600];
    snprintf(dp, sizeof dp, "%s/f", d);
    fd = open(dp, O_CREAT | O_WRONLY, 0644);
    logc(L, "open", dp, -1, fd, E(fd), "flags=0x%x, mode=0644", O_CREAT | O_WRONLY);
    x = close(fd);
    logc(L, "close", dp, fd, x, E(x), NULL);
    DIR *dd = opendir(d);
    int dfd = dirfd(dd);
    logc(L, "opendir", d, -1, dfd, 0, NULL);
    struct dirent *e;
    do {
        errno = 0;
        e = readdir(dd);
        logc(L, "readdir", d, dfd, e ? 1 : 0, 0, NULL);
    } while (e);
    x = closedir(dd);
    logc(L, "closedir", d, dfd, x, E(x), NULL);
    dd = opendir(d);
    dfd = dirfd(dd);
    logc(L, "opendir", d, -1, dfd, 0, NULL);
    struct dirent64 *e64;
    do {
        e64 = readdir64(dd);
        logc(L, "readdir64", d, dfd, e64 ? 1 : 0, 0, NULL);
    } while (e64);
    x = closedir(dd);
    logc(L, "closedir", d, dfd, x, E(x), NULL);
    /* relative names are recorded as Darshan names them: below the working directory (which
     * chdir and fchdir move; they are not recorded themselves). Not in the threads of
     * `allthreads` (k > 0): the working directory is the process's, and they would race. */
    char cwd0[1024], cwd1[1024], relp[1100];
    if (k == 0 && getcwd(cwd0, sizeof cwd0) && chdir(d) == 0 && getcwd(cwd1, sizeof cwd1)) {
        snprintf(relp, sizeof relp, "%s/rel.dat", cwd1);
        fd = open("rel.dat", O_CREAT | O_WRONLY, 0600);
        logc(L, "open", relp, -1, fd, E(fd), "flags=0x%x, mode=0600", O_CREAT | O_WRONLY);
        x = close(fd);
        logc(L, "close", relp, fd, x, E(x), NULL);
        x = unlink(".//rel.dat");
        logc(L, "unlink", relp, -1, x, E(x), NULL);
        DIR *back = opendir(cwd0);
        int bfd = back ? dirfd(back) : -1;
        logc(L, "opendir", cwd0, -1, bfd, 0, NULL);
        if (!back || fchdir(bfd) != 0)
            abort();
        x = closedir(back);
        logc(L, "closedir", cwd0, bfd, x, E(x), NULL);
    }
    x = unlink(dp);
    logc(L, "unlink", dp, -1, x, E(x), NULL);
    x = rmdir(d);
    logc(L, "rmdir", d, -1, x, E(x), NULL);
    x = rename(p2, d);
    logc(L, "rename", p2, -1, x, E(x), "to=\"%s\"", d);
    x = unlink(d);
    logc(L, "unlink", d, -1, x, E(x), NULL);
    /* the *at forms (tar, rm -r): a name relative to a directory descriptor is recorded joined
     * with the directory's path */
    char ad[600], af[700];
    snprintf(ad, sizeof ad, "%s/at.d", dir);
    snprintf(af, sizeof af, "%s/f", ad);
    int dirfd_ = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY);
    logc(L, "openat", dir, -1, dirfd_, E(dirfd_), "flags=0x%x, mode=00, dirfd=%d", O_RDONLY | O_DIRECTORY, AT_FDCWD);
    x = mkdirat(dirfd_, "at.d", 0700);
    logc(L, "mkdirat", ad, -1, x, E(x), "mode=0700, dirfd=%d", dirfd_);
    x = faccessat(AT_FDCWD, ad, W_OK, 0);
    logc(L, "faccessat", ad, -1, x, E(x), "mode=0%o, dirfd=%d, flags=0", W_OK, AT_FDCWD);
    fd = open(af, O_CREAT | O_WRONLY, 0644);
    logc(L, "open", af, -1, fd, E(fd), "flags=0x%x, mode=0644", O_CREAT | O_WRONLY);
    x = close(fd);
    logc(L, "close", af, fd, x, E(x), NULL);
    /* truncation by path and attributes (tar sets each file's mode, owner and times) */
    x = truncate(af, 100);
    logc(L, "truncate", af, -1, x, E(x), "length=100");
    x = truncate64(af, 50);
    logc(L, "truncate64", af, -1, x, E(x), "length=50");
    x = chmod(af, 0640);
    logc(L, "chmod", af, -1, x, E(x), "mode=0640");
    x = fchmodat(dirfd_, "at.d/f", 0600, 0);
    logc(L, "fchmodat", af, -1, x, E(x), "mode=0600, dirfd=%d, flags=0", dirfd_);
    int uid = (int)getuid(), gid = (int)getgid();
    x = chown(af, (uid_t)-1, (gid_t)gid);
    logc(L, "chown", af, -1, x, E(x), "owner=-1, group=%d", gid);
    x = lchown(af, (uid_t)uid, (gid_t)-1);
    logc(L, "lchown", af, -1, x, E(x), "owner=%d, group=-1", uid);
    x = fchownat(dirfd_, "at.d/f", (uid_t)uid, (gid_t)gid, AT_SYMLINK_NOFOLLOW);
    logc(L, "fchownat", af, -1, x, E(x), "dirfd=%d, owner=%d, group=%d, flags=%d", dirfd_, uid, gid,
         AT_SYMLINK_NOFOLLOW);
    x = utime(af, NULL);
    logc(L, "utime", af, -1, x, E(x), "times=0");
    struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
    x = utimes(af, tv);
    logc(L, "utimes", af, -1, x, E(x), "times=1");
    struct timespec ts[2] = {{1000000000, 0}, {0, UTIME_OMIT}};
    x = utimensat(dirfd_, "at.d/f", ts, 0);
    logc(L, "utimensat", af, -1, x, E(x), "times=1, dirfd=%d, flags=0", dirfd_);
    fd = open(af, O_WRONLY);
    logc(L, "open", af, -1, fd, E(fd), "flags=0x%x, mode=00", O_WRONLY);
    x = fchmod(fd, 0644);
    logc(L, "fchmod", af, fd, x, E(x), "mode=0644");
    x = fchown(fd, (uid_t)-1, (gid_t)-1);
    logc(L, "fchown", af, fd, x, E(x), "owner=-1, group=-1");
    x = futimens(fd, NULL);
    logc(L, "futimens", af, fd, x, E(x), "times=0");
    /* a NULL path (the kernel: the descriptor's own file), through a pointer: the declaration
     * says nonnull, which a sanitizer build checks at a direct call */
    int (*utimensat_p)(int, const char *, const struct timespec *, int) = utimensat;
    x = utimensat_p(fd, NULL, NULL, 0);
    logc(L, "utimensat", af, fd, x, E(x), "times=0, dirfd=%d, flags=0", fd);
    x = close(fd);
    logc(L, "close", af, fd, x, E(x), NULL);
    x = chmod("/nonexistent/iolens/x", 0600);
    logc(L, "chmod", "/nonexistent/iolens/x", -1, x, E(x), "mode=0600");
    /* links: a relative symlink target names a file of the link's folder */
    char lk[720], sl[720], lb[64];
    snprintf(lk, sizeof lk, "%s/hard", ad);
    snprintf(sl, sizeof sl, "%s/soft", ad);
    x = link(af, lk);
    logc(L, "link", af, -1, x, E(x), "to=\"%s\"", lk);
    x = unlink(lk);
    logc(L, "unlink", lk, -1, x, E(x), NULL);
    x = linkat(dirfd_, "at.d/f", AT_FDCWD, lk, 0);
    logc(L, "linkat", af, -1, x, E(x), "flags=0x0, olddirfd=%d, newdirfd=%d, to=\"%s\"", dirfd_, AT_FDCWD, lk);
    x = symlink("f", sl);
    logc(L, "symlink", sl, -1, x, E(x), "target=\"%s\"", af);
    r = readlink(sl, lb, sizeof lb);
    logc(L, "readlink", sl, -1, r, E(r), "bufsiz=%zu", sizeof lb);
    x = unlink(sl);
    logc(L, "unlink", sl, -1, x, E(x), NULL);
    x = symlinkat("/nonexistent/iolens/t", dirfd_, "at.d/soft");
    logc(L, "symlinkat", sl, -1, x, E(x), "newdirfd=%d, target=\"/nonexistent/iolens/t\"", dirfd_);
    r = readlinkat(dirfd_, "at.d/soft", lb, sizeof lb);
    logc(L, "readlinkat", sl, -1, r, E(r), "bufsiz=%zu, dirfd=%d", sizeof lb, dirfd_);
    x = unlink(sl);
    logc(L, "unlink", sl, -1, x, E(x), NULL);
    x = unlink(lk);
    logc(L, "unlink", lk, -1, x, E(x), NULL);
    r = readlink(af, lb, sizeof lb); /* not a link */
    logc(L, "readlink", af, -1, r, E(r), "bufsiz=%zu", sizeof lb);
    x = renameat(dirfd_, "at.d/f", AT_FDCWD, p2);
    logc(L, "renameat", af, -1, x, E(x), "olddirfd=%d, newdirfd=%d, to=\"%s\"", dirfd_, AT_FDCWD, p2);
    x = renameat2(AT_FDCWD, p2, dirfd_, "at.d/f", RENAME_NOREPLACE);
    logc(L, "renameat2", p2, -1, x, E(x), "flags=0x%x, olddirfd=%d, newdirfd=%d, to=\"%s\"", RENAME_NOREPLACE,
         AT_FDCWD, dirfd_, af);
    x = unlinkat(dirfd_, "at.d/f", 0);
    logc(L, "unlinkat", af, -1, x, E(x), "dirfd=%d, flags=0", dirfd_);
    x = unlinkat(dirfd_, "at.d", AT_REMOVEDIR);
    logc(L, "unlinkat", ad, -1, x, E(x), "dirfd=%d, flags=%d", dirfd_, AT_REMOVEDIR);
    x = close(dirfd_);
    logc(L, "close", dir, dirfd_, x, E(x), NULL);
    fd = open(p2, O_CREAT | O_WRONLY, 0644);
    logc(L, "open", p2, -1, fd, E(fd), "flags=0x%x, mode=0644", O_CREAT | O_WRONLY);
    x = close(fd);
    logc(L, "close", p2, fd, x, E(x), NULL);
    x = remove(p2);
    logc(L, "remove", p2, -1, x, E(x), NULL);
    x = remove(p2);
    logc(L, "remove", p2, -1, x, E(x), NULL);
    /* failures keep their errno */
    fd = open("/nonexistent/iolens/x", O_RDONLY);
    logc(L, "open", "/nonexistent/iolens/x", -1, fd, E(fd), "flags=0x0, mode=00");
    r = read(987, buf, 10);
    logc(L, "read", NULL, 987, r, E(r), "size=10");
    x = close(988);
    logc(L, "close", NULL, 988, x, E(x), NULL);
    x = rmdir("/nonexistent/iolens");
    logc(L, "rmdir", "/nonexistent/iolens", -1, x, E(x), NULL);
}

/* glibc takes a stream's lock and then its list of streams in freopen, and the other way round in
 * fflush(NULL): threads doing both at once can deadlock in glibc itself, traced or not. The
 * `allthreads` mode keeps them apart; the calls and their order per thread are unchanged. */
static pthread_mutex_t stream_list = PTHREAD_MUTEX_INITIALIZER;

static void stdio_calls(logb *L, const char *dir)
{
    char p[512];
    char buf[256];
    memset(buf, 'y', sizeof buf);
    snprintf(p, sizeof p, "%s/s.txt", dir);
    FILE *f = fopen(p, "w+");
    int fd = fileno_unlocked(f); /* (the probe's own bookkeeping: fileno_unlocked is not traced) */
    logc(L, "fopen", p, -1, fd, 0, "flags=0x%x", O_RDWR | O_CREAT | O_TRUNC);
    int r0 = fileno(f);
    logc(L, "fileno", p, fd, r0, 0, NULL);
    size_t n = fwrite(buf, 8, 4, f);
    logc(L, "fwrite", p, fd, (long long)n, 0, "size=8, nmemb=4");
    int r = fprintf(f, "value %d\n", 42);
    logc(L, "fprintf", p, fd, r, E(r), "size=%d", r);
    vfp(L, f, p, fd, "more %s\n", "text");
    r = __fprintf_chk(f, 1, "chk %d\n", 7);
    logc(L, "__fprintf_chk", p, fd, r, E(r), "size=%d", r);
    vfp_chk(L, f, p, fd, "vchk %s\n", "text");
    r = fputs("line\n", f);
    logc(L, "fputs", p, fd, r, r == EOF ? errno : 0, "size=5");
    r = fputc('Z', f);
    logc(L, "fputc", p, fd, r, r == EOF ? errno : 0, "c=%d", 'Z');
    r = fflush(f);
    logc(L, "fflush", p, fd, r, r ? errno : 0, NULL);
    long t = ftell(f);
    logc(L, "ftell", p, fd, t, E(t), NULL);
    r = fseek(f, 4, SEEK_SET);
    logc(L, "fseek", p, fd, r, r ? errno : 0, "off=4, whence=0, at=4");
    r = fgetc(f);
    logc(L, "fgetc", p, fd, r, 0, NULL);
    rewind(f);
    logc(L, "rewind", p, fd, 0, 0, NULL);
    n = fread(buf, 4, 3, f);
    logc(L, "fread", p, fd, (long long)n, 0, "size=4, nmemb=3");
    char *s = fgets(buf, 64, f);
    logc(L, "fgets", p, fd, s ? (long long)strlen(s) : -1, 0, "n=64");
    s = __fgets_chk(buf, sizeof buf, 32, f);
    logc(L, "__fgets_chk", p, fd, s ? (long long)strlen(s) : -1, 0, "n=32");
    /* the file: 32 x 'y', "value 42\n", ... */
    r = fseeko(f, 32, SEEK_SET);
    logc(L, "fseeko", p, fd, r, r ? errno : 0, "off=32, whence=0, at=32");
    r = getc(f); /* 'v' */
    logc(L, "getc", p, fd, r, 0, NULL);
    off_t o = ftello(f);
    logc(L, "ftello", p, fd, (long long)o, E(o), NULL);
    char word[16];
    int v = 0;
    r = fscanf(f, "%15s %d", word, &v); /* "alue 42": 2 items, 7 bytes */
    logc(L, "fscanf", p, fd, r, 0, "size=7");
    r = plain_fscanf(f, "%d", &v); /* "\n" skipped, "more" does not match: 0 items, 1 byte */
    logc(L, "fscanf", p, fd, r, 0, "size=1");
    r = fseeko64(f, 0, SEEK_END);
    off64_t o64 = ftello64(f); /* (fseeko64's position after it, recorded: logged first) */
    logc(L, "fseeko64", p, fd, r, r ? errno : 0, "off=0, whence=2, at=%lld", (long long)o64);
    logc(L, "ftello64", p, fd, (long long)o64, E(o64), NULL);
    r = putc('W', f);
    logc(L, "putc", p, fd, r, r == EOF ? errno : 0, "c=%d", 'W');
    /* positions as fpos_t, words, glibc's older names of getc and putc (recorded as getc, putc) */
    fpos_t mark;
    r = fgetpos(f, &mark);
    logc(L, "fgetpos", p, fd, r, r ? errno : 0, "pos=%lld", (long long)o64 + 1);
    r = putw(0x41424344, f);
    logc(L, "putw", p, fd, r, r == EOF ? errno : 0, "size=%zu, moved=%zu, w=%d", sizeof(int), sizeof(int), 0x41424344);
    r = fsetpos(f, &mark);
    logc(L, "fsetpos", p, fd, r, r ? errno : 0, "pos=%lld, whence=0", (long long)o64 + 1);
    r = getw(f);
    logc(L, "getw", p, fd, r, 0, "size=%zu, moved=%zu", sizeof(int), sizeof(int));
    fpos64_t end;
    r = fgetpos64(f, &end);
    logc(L, "fgetpos64", p, fd, r, r ? errno : 0, "pos=%lld", (long long)o64 + 5);
    r = fsetpos64(f, &end);
    logc(L, "fsetpos64", p, fd, r, r ? errno : 0, "pos=%lld, whence=0", (long long)o64 + 5);
    r = getw(f); /* the end of the file: EOF, nothing moved, no error */
    logc(L, "getw", p, fd, r, 0, "size=%zu, moved=0", sizeof(int));
    r = _IO_putc('Q', f); /* (after the end of the file: a write may follow a read) */
    logc(L, "putc", p, fd, r, r == EOF ? errno : 0, "c=%d", 'Q');
    r = fsetpos(f, &mark);
    logc(L, "fsetpos", p, fd, r, r ? errno : 0, "pos=%lld, whence=0", (long long)o64 + 1);
    r = _IO_getc(f); /* 'D', the word's first byte (little-endian) or 'A' */
    logc(L, "getc", p, fd, r, 0, NULL);
    r = fclose(f);
    logc(L, "fclose", p, fd, r, r ? errno : 0, NULL);
    fd = open(p, O_RDONLY);
    logc(L, "open", p, -1, fd, E(fd), "flags=0x0, mode=00");
    f = fdopen(fd, "r");
    logc(L, "fdopen", p, fd, fileno_unlocked(f), 0, "flags=0x0");
    pthread_mutex_lock(&stream_list);
    f = freopen(p, "a", f);
    pthread_mutex_unlock(&stream_list);
    int nfd = fileno_unlocked(f);
    logc(L, "freopen", p, fd, nfd, 0, "flags=0x%x", O_WRONLY | O_CREAT | O_APPEND);
    r = fclose(f);
    logc(L, "fclose", p, nfd, r, r ? errno : 0, NULL);
    f = fopen64(p, "r");
    fd = fileno_unlocked(f);
    logc(L, "fopen64", p, -1, fd, 0, "flags=0x0");
    pthread_mutex_lock(&stream_list);
    f = freopen64(p, "r+", f);
    pthread_mutex_unlock(&stream_list);
    nfd = fileno_unlocked(f);
    logc(L, "freopen64", p, fd, nfd, 0, "flags=0x%x", O_RDWR);
    r = fclose(f);
    logc(L, "fclose", p, nfd, r, r ? errno : 0, NULL);
    f = fopen("/nonexistent/iolens/y", "r");
    logc(L, "fopen", "/nonexistent/iolens/y", -1, -1, errno, "flags=0x0");
    pthread_mutex_lock(&stream_list);
    r = fflush(NULL);
    pthread_mutex_unlock(&stream_list);
    logc(L, "fflush", NULL, -1, r, r ? errno : 0, NULL);
}

/* the _unlocked calls and getline, getdelim (glibc's headers define some inline or as macros:
 * called through pointers, as a program built without optimisation calls them) */
static size_t (*volatile p_fread_unlocked)(void *, size_t, size_t, FILE *) = fread_unlocked;
static size_t (*volatile p_fwrite_unlocked)(const void *, size_t, size_t, FILE *) = fwrite_unlocked;
static int (*volatile p_fgetc_unlocked)(FILE *) = fgetc_unlocked;
static int (*volatile p_getc_unlocked)(FILE *) = getc_unlocked;
static int (*volatile p_fputc_unlocked)(int, FILE *) = fputc_unlocked;
static int (*volatile p_putc_unlocked)(int, FILE *) = putc_unlocked;
static ssize_t (*volatile p_getline)(char **, size_t *, FILE *) = getline;

/* through pointers: optimised builds make putchar a putc (glibc's headers) and vprintf a
 * __vprintf_chk (_FORTIFY_SOURCE) */
static int (*volatile p_putchar)(int) = putchar;
static int (*volatile p_vprintf)(const char *, va_list) = vprintf;

/* vprintf and __vprintf_chk (chk) with their own arguments */
__attribute__((format(printf, 4, 5))) static void vpr(logb *b, const char *path, int chk, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = chk ? __vprintf_chk(1, fmt, ap) : p_vprintf(fmt, ap);
    va_end(ap);
    logc(b, chk ? "__vprintf_chk" : "vprintf", path, 1, r, E(r), "size=%d", r > 0 ? r : 0);
}

/* The calls that write to stdout, on its path when it is a file (the test's output file; looked
 * at with system calls, which are not traced) */
static void stdout_calls(logb *L)
{
    char path[512];
    const char *p = NULL;
    struct stat st;
    long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/fd/1", path, sizeof path - 1);
    if (n > 0 && path[0] == '/' && syscall(SYS_fstat, 1, &st) == 0 && S_ISREG(st.st_mode)) {
        path[n] = 0;
        p = path;
    }
    int r = printf("probe: %s %d\n", "printf", 1);
    logc(L, "printf", p, 1, r, E(r), "size=%d", r > 0 ? r : 0);
    vpr(L, p, 0, "probe: %s\n", "vprintf");
    r = __printf_chk(1, "probe: %s\n", "__printf_chk");
    logc(L, "__printf_chk", p, 1, r, E(r), "size=%d", r > 0 ? r : 0);
    vpr(L, p, 1, "probe: %s\n", "__vprintf_chk");
    r = puts("probe: puts");
    logc(L, "puts", p, 1, r, r == EOF ? errno : 0, "size=%d", 12);
    r = p_putchar('\n');
    logc(L, "putchar", p, 1, r, r == EOF ? errno : 0, "c=%d", '\n');
    r = fflush(stdout);
    logc(L, "fflush", p, 1, r, r ? errno : 0, NULL);
}

static void stdio_unlocked_calls(logb *L, const char *dir)
{
    char p[512];
    char buf[256];
    memset(buf, 'u', sizeof buf);
    snprintf(p, sizeof p, "%s/u.txt", dir);
    FILE *f = fopen(p, "w+");
    int fd = fileno_unlocked(f);
    logc(L, "fopen", p, -1, fd, 0, "flags=0x%x", O_RDWR | O_CREAT | O_TRUNC);
    size_t n = p_fwrite_unlocked(buf, 4, 5, f);
    logc(L, "fwrite_unlocked", p, fd, (long long)n, 0, "size=4, nmemb=5");
    int r = fputs_unlocked("one\ntwo;three\n", f);
    logc(L, "fputs_unlocked", p, fd, r, r == EOF ? errno : 0, "size=14");
    r = p_fputc_unlocked('A', f);
    logc(L, "fputc_unlocked", p, fd, r, r == EOF ? errno : 0, "c=%d", 'A');
    r = p_putc_unlocked('\n', f);
    logc(L, "putc_unlocked", p, fd, r, r == EOF ? errno : 0, "c=%d", '\n');
    r = fflush_unlocked(f);
    logc(L, "fflush_unlocked", p, fd, r, r ? errno : 0, NULL);
    rewind(f);
    logc(L, "rewind", p, fd, 0, 0, NULL);
    n = p_fread_unlocked(buf, 2, 3, f); /* the file: 20 x 'u', "one\ntwo;three\nA\n" */
    logc(L, "fread_unlocked", p, fd, (long long)n, 0, "size=2, nmemb=3");
    n = __fread_chk(buf, sizeof buf, 1, 4, f);
    logc(L, "__fread_chk", p, fd, (long long)n, 0, "size=1, nmemb=4");
    n = __fread_unlocked_chk(buf, sizeof buf, 5, 2, f); /* to byte 20 */
    logc(L, "__fread_unlocked_chk", p, fd, (long long)n, 0, "size=5, nmemb=2");
    r = p_fgetc_unlocked(f); /* 'o' */
    logc(L, "fgetc_unlocked", p, fd, r, 0, NULL);
    r = p_getc_unlocked(f); /* 'n' */
    logc(L, "getc_unlocked", p, fd, r, 0, NULL);
    char *s = fgets_unlocked(buf, 64, f); /* "e\n" */
    logc(L, "fgets_unlocked", p, fd, s ? (long long)strlen(s) : -1, 0, "n=64");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = getdelim(&line, &cap, ';', f); /* "two;" */
    logc(L, "getdelim", p, fd, (long long)got, 0, "n=0, delim=%d", ';');
    size_t cap2 = cap;
    got = p_getline(&line, &cap, f); /* "three\n" */
    logc(L, "getline", p, fd, (long long)got, 0, "n=%zu", cap2);
    cap2 = cap;
    got = __getdelim(&line, &cap, '\n', f); /* "A\n" */
    logc(L, "getdelim", p, fd, (long long)got, 0, "n=%zu, delim=10", cap2);
    cap2 = cap;
    got = p_getline(&line, &cap, f); /* the end: -1 */
    logc(L, "getline", p, fd, (long long)got, 0, "n=%zu", cap2);
    s = __fgets_unlocked_chk(buf, sizeof buf, 32, f); /* the end: NULL */
    logc(L, "__fgets_unlocked_chk", p, fd, s ? (long long)strlen(s) : -1, 0, "n=32");
    free(line);
    r = fclose(f);
    logc(L, "fclose", p, fd, r, r ? errno : 0, NULL);
}

/* ---- every wrapped function in T threads at once: LOG.<k> per thread, files under DIR/t<k> ---- */
typedef struct aarg {
    int k;
    char dir[512];
    logb log;
} aarg;

static void *all_main(void *p)
{
    aarg *a = p;
    posix_calls(&a->log, a->dir, a->k);
    stdio_calls(&a->log, a->dir);
    stdio_unlocked_calls(&a->log, a->dir);
    return NULL;
}

static int allthreads(const char *logprefix, const char *dir, int nt)
{
    aarg *a = calloc((size_t)nt, sizeof *a);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    if (!a || !th)
        return 1;
    for (int k = 0; k < nt; k++) {
        a[k].k = k + 1;
        snprintf(a[k].dir, sizeof a[k].dir, "%s/t%d", dir, k);
        syscall(SYS_mkdirat, AT_FDCWD, a[k].dir, 0755); /* untraced: the main thread makes no traced call */
    }
    for (int k = 0; k < nt; k++)
        pthread_create(&th[k], NULL, all_main, &a[k]);
    for (int k = 0; k < nt; k++) {
        pthread_join(th[k], NULL);
        char path[600];
        snprintf(path, sizeof path, "%s.%d", logprefix, k);
        write_log(path, &a[k].log);
        free(a[k].log.p);
    }
    free(a);
    free(th);
    return 0;
}

/* ---- threads ---- */
typedef struct targ {
    int k, n;
    const char *dir;
    logb log;
} targ;

static void *thread_main(void *p)
{
    targ *a = p;
    char path[512], buf[64];
    memset(buf, 'k', sizeof buf);
    snprintf(path, sizeof path, "%s/t%d", a->dir, a->k);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    logc(&a->log, "open", path, -1, fd, E(fd), "flags=0x%x, mode=0644", O_CREAT | O_RDWR | O_TRUNC);
    for (int i = 0; i < a->n; i++) {
        ssize_t r = (i % 4 == 3) ? pread(fd, buf, 64, (off_t)(i / 2) * 64) : pwrite(fd, buf, 64, (off_t)i * 64);
        if (i % 4 == 3)
            logc(&a->log, "pread", path, fd, r, E(r), "off=%d, size=64", (i / 2) * 64);
        else
            logc(&a->log, "pwrite", path, fd, r, E(r), "off=%d, size=64", i * 64);
    }
    int x = close(fd);
    logc(&a->log, "close", path, fd, x, E(x), NULL);
    return NULL;
}

static int threads(const char *logpath, const char *dir, int nt, int n)
{
    targ *a = calloc((size_t)nt, sizeof *a);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    for (int k = 0; k < nt; k++) {
        a[k].k = k;
        a[k].n = n;
        a[k].dir = dir;
        pthread_create(&th[k], NULL, thread_main, &a[k]);
    }
    logb all = {0};
    for (int k = 0; k < nt; k++) {
        pthread_join(th[k], NULL);
        /* prefix every line with the thread number */
        char pre[16];
        int pl = snprintf(pre, sizeof pre, "%d ", k);
        for (size_t s = 0; s < a[k].log.len;) {
            char *nl = memchr(a[k].log.p + s, '\n', a[k].log.len - s);
            size_t e = (size_t)(nl - a[k].log.p) + 1;
            lappend(&all, pre, (size_t)pl);
            lappend(&all, a[k].log.p + s, e - s);
            s = e;
        }
        free(a[k].log.p);
    }
    write_log(logpath, &all);
    free(all.p);
    free(a);
    free(th);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "all")) {
        posix_calls(&main_log, argv[3], 0);
        stdio_calls(&main_log, argv[3]);
        stdio_unlocked_calls(&main_log, argv[3]);
        stdout_calls(&main_log);
        write_log(argv[2], &main_log);
        dprintf(1, "probe done: %zu bytes of log\n", main_log.len); /* (untraced: after the log) */
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "allthreads"))
        return allthreads(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 6 && !strcmp(argv[1], "threads"))
        return threads(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    if (argc >= 5 && !strcmp(argv[1], "signal")) {
        char p[512], buf[64] = {0};
        snprintf(p, sizeof p, "%s/sig.dat", argv[3]);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        logc(&main_log, "open", p, -1, fd, E(fd), "flags=0x%x, mode=0644", O_CREAT | O_WRONLY);
        for (int i = 0; i < 100; i++) {
            ssize_t r = pwrite(fd, buf, 64, i * 64);
            logc(&main_log, "pwrite", p, fd, r, E(r), "off=%d, size=64", i * 64);
        }
        write_log(argv[2], &main_log);
        raise(atoi(argv[4]));
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "pwrites")) {
        long n = atol(argv[2]);
        int fd = open(argv[3], O_CREAT | O_WRONLY | O_TRUNC, 0644);
        char buf[64] = {0};
        for (long i = 0; i < n; i++)
            if (pwrite(fd, buf, 64, (i % 1024) * 64) != 64)
                return 1;
        close(fd);
        unlink(argv[3]);
        return 0;
    }
    fprintf(stderr, "usage: trace_probe all|threads|signal|pwrites ...\n");
    return 2;
}
