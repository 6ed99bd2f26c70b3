/* stdio wrappers (argument slots: src/trace/funcs.def). A FILE* is identified
 * by its descriptor (fileno), which maps to the path it was opened with. */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* glibc's fileno: the shim's own calls are not the program's (a call to fileno inside the shim
 * would reach the wrapper below) */
int iol_fileno(FILE *f)
{
    IOL_REAL(fileno);
    return real_fileno(f);
}

/* the stream's descriptor, errno kept; the _unlocked calls' without taking the stream's lock */
static int sfd_with(FILE *f, int unlocked)
{
    if (!f)
        return -1;
    int saved = errno;
    int fd = unlocked ? fileno_unlocked(f) : iol_fileno(f);
    errno = saved;
    return fd;
}

IOL_EXPORT int fileno(FILE *f)
{
    IOL_REAL(fileno);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fileno(f);
    uint64_t t0 = iol_begin();
    int r = real_fileno(f);
    iol_rawrec *rec = iol_end(IOL_F_fileno, t0, r < 0);
    if (rec) {
        rec->fd = r;
        rec->file = iol_fd_file(r);
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

static int sfd(FILE *f) { return sfd_with(f, 0); }

static int mode_flags(const char *m)
{
    if (!m)
        return 0;
    int fl = 0;
    switch (m[0]) {
    case 'r': fl = O_RDONLY; break;
    case 'w': fl = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': fl = O_WRONLY | O_CREAT | O_APPEND; break;
    default: break;
    }
    for (const char *p = m + (m[0] ? 1 : 0); *p && p < m + 8; p++) {
        if (*p == '+')
            fl = (fl & ~O_ACCMODE) | O_RDWR;
        else if (*p == 'x')
            fl |= O_EXCL;
        else if (*p == 'e')
            fl |= O_CLOEXEC;
    }
    return fl;
}

static void opened(int func, uint64_t t0, FILE *f, int32_t file, int oldfd, const char *mode)
{
    iol_rawrec *rec = iol_end(func, t0, f == NULL);
    int fd = sfd(f);
    if (fd >= 0)
        iol_fd_set(fd, file);
    if (rec) {
        rec->file = file;
        rec->fd = oldfd;
        rec->ret = f ? fd : -1;
        rec->a[0] = mode_flags(mode);
        iol_commit(rec);
    }
}

IOL_EXPORT FILE *fopen(const char *path, const char *mode)
{
    IOL_REAL(fopen);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fopen(path, mode);
    uint64_t t0 = iol_begin();
    FILE *f = real_fopen(path, mode);
    opened(IOL_F_fopen, t0, f, iol_path_id(path), -1, mode);
    return f;
}

IOL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
    IOL_REAL(fopen64);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fopen64(path, mode);
    uint64_t t0 = iol_begin();
    FILE *f = real_fopen64(path, mode);
    opened(IOL_F_fopen64, t0, f, iol_path_id(path), -1, mode);
    return f;
}

IOL_EXPORT FILE *fdopen(int fd, const char *mode)
{
    IOL_REAL(fdopen);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fdopen(fd, mode);
    uint64_t t0 = iol_begin();
    FILE *f = real_fdopen(fd, mode);
    opened(IOL_F_fdopen, t0, f, iol_fd_file(fd), fd, mode);
    return f;
}

IOL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
    IOL_REAL(freopen);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_freopen(path, mode, stream);
    int old = sfd(stream);
    int32_t file = path ? iol_path_id(path) : iol_fd_file(old);
    uint64_t t0 = iol_begin();
    FILE *f = real_freopen(path, mode, stream);
    opened(IOL_F_freopen, t0, f, file, old, mode);
    return f;
}

IOL_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
    IOL_REAL(freopen64);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_freopen64(path, mode, stream);
    int old = sfd(stream);
    int32_t file = path ? iol_path_id(path) : iol_fd_file(old);
    uint64_t t0 = iol_begin();
    FILE *f = real_freopen64(path, mode, stream);
    opened(IOL_F_freopen64, t0, f, file, old, mode);
    return f;
}

static void done(int func, uint64_t t0, int failed, int fd, int32_t file, int64_t ret, int64_t off, int64_t a1,
                 int64_t a2, int64_t a3)
{
    iol_rawrec *rec = iol_end(func, t0, failed);
    if (rec) {
        rec->fd = fd;
        rec->file = file;
        rec->ret = ret;
        rec->a[0] = off;
        rec->a[1] = a1;
        rec->a[2] = a2;
        rec->a[3] = a3;
        iol_commit(rec);
    }
}

IOL_EXPORT int fclose(FILE *f)
{
    IOL_REAL(fclose);
    int fd = sfd(f);
    int32_t file = iol_fd_file(fd);
    iol_fd_forget(fd, file); /* before the number is free (see close in posix.c) */
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fclose(f);
    uint64_t t0 = iol_begin();
    int r = real_fclose(f);
    done(IOL_F_fclose, t0, r != 0, fd, file, r, 0, 0, 0, 0);
    return r;
}

IOL_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    IOL_REAL(fread);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fread(p, size, n, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    size_t r = real_fread(p, size, n, f);
    done(IOL_F_fread, t0, r < n && ferror(f), fd, iol_fd_file(fd), (int64_t)r, 0, (int64_t)(size * n),
         (int64_t)size, (int64_t)n);
    return r;
}

IOL_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    IOL_REAL(fwrite);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fwrite(p, size, n, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    size_t r = real_fwrite(p, size, n, f);
    done(IOL_F_fwrite, t0, r < n && ferror(f), fd, iol_fd_file(fd), (int64_t)r, 0, (int64_t)(size * n),
         (int64_t)size, (int64_t)n);
    return r;
}

IOL_EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    IOL_REAL(vfprintf);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_vfprintf(f, fmt, ap);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_vfprintf(f, fmt, ap);
    done(IOL_F_vfprintf, t0, r < 0, fd, iol_fd_file(fd), r, 0, r > 0 ? r : 0, 0, 0);
    return r;
}

IOL_EXPORT int fprintf(FILE *f, const char *fmt, ...)
{
    static __typeof__(&vfprintf) real_vfprintf;
    if (!real_vfprintf)
        real_vfprintf = (__typeof__(&vfprintf))iol_real("vfprintf");
    va_list ap;
    va_start(ap, fmt);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT)) {
        int r = real_vfprintf(f, fmt, ap);
        va_end(ap);
        return r;
    }
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_vfprintf(f, fmt, ap);
    va_end(ap);
    done(IOL_F_fprintf, t0, r < 0, fd, iol_fd_file(fd), r, 0, r > 0 ? r : 0, 0, 0);
    return r;
}

/* The calls that write to stdout: printf and vprintf (which the Darshan runtime wraps), puts and
 * putchar (what compilers make of a printf of a plain line or of one character). Recorded on
 * stdout's descriptor: a file when the program's output is one (its shell's "> out"). glibc's
 * headers define vprintf and putchar inline in optimised builds: asm-labelled, as the _unlocked
 * calls below. */
int iol_vprintf(const char *fmt, va_list ap) __asm__("vprintf");
int iol_putchar(int c) __asm__("putchar");

IOL_EXPORT int iol_vprintf(const char *fmt, va_list ap)
{
    IOL_REAL(vprintf);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_vprintf(fmt, ap);
    int fd = sfd(stdout);
    uint64_t t0 = iol_begin();
    int r = real_vprintf(fmt, ap);
    done(IOL_F_vprintf, t0, r < 0, fd, iol_fd_file(fd), r, 0, r > 0 ? r : 0, 0, 0);
    return r;
}

IOL_EXPORT int printf(const char *fmt, ...)
{
    static __typeof__(&vprintf) real_vprintf;
    if (!real_vprintf)
        real_vprintf = (__typeof__(&vprintf))iol_real("vprintf");
    va_list ap;
    va_start(ap, fmt);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT)) {
        int r = real_vprintf(fmt, ap);
        va_end(ap);
        return r;
    }
    int fd = sfd(stdout);
    uint64_t t0 = iol_begin();
    int r = real_vprintf(fmt, ap);
    va_end(ap);
    done(IOL_F_printf, t0, r < 0, fd, iol_fd_file(fd), r, 0, r > 0 ? r : 0, 0, 0);
    return r;
}

IOL_EXPORT int puts(const char *s)
{
    IOL_REAL(puts);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_puts(s);
    int fd = sfd(stdout);
    uint64_t t0 = iol_begin();
    int r = real_puts(s);
    done(IOL_F_puts, t0, r == EOF, fd, iol_fd_file(fd), r, 0, (int64_t)strlen(s) + 1, 0, 0);
    return r;
}

IOL_EXPORT int iol_putchar(int c)
{
    IOL_REAL(putchar);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_putchar(c);
    int fd = sfd(stdout);
    uint64_t t0 = iol_begin();
    int r = real_putchar(c);
    done(IOL_F_putchar, t0, r == EOF, fd, iol_fd_file(fd), r, 0, 1, c, 0);
    return r;
}

IOL_EXPORT int fputs(const char *s, FILE *f)
{
    IOL_REAL(fputs);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fputs(s, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_fputs(s, f);
    done(IOL_F_fputs, t0, r == EOF, fd, iol_fd_file(fd), r, 0, (int64_t)strlen(s), 0, 0);
    return r;
}

IOL_EXPORT char *fgets(char *s, int n, FILE *f)
{
    IOL_REAL(fgets);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fgets(s, n, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    char *r = real_fgets(s, n, f);
    done(IOL_F_fgets, t0, !r && ferror(f), fd, iol_fd_file(fd), r ? (int64_t)strlen(r) : -1, 0, n, 0, 0);
    return r;
}

/* one character in or out (fgetc, getc, _IO_getc; fputc, putc, _IO_putc): a1 1, a2 the
 * character written; ret the character or EOF */
static int char_in(int func, int (*real)(FILE *), FILE *f)
{
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real(f);
    done(func, t0, r == EOF && ferror(f), fd, iol_fd_file(fd), r, 0, 1, 0, 0);
    return r;
}

static int char_out(int func, int (*real)(int, FILE *), int c, FILE *f)
{
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(c, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real(c, f);
    done(func, t0, r == EOF, fd, iol_fd_file(fd), r, 0, 1, c, 0);
    return r;
}

IOL_EXPORT int fputc(int c, FILE *f)
{
    IOL_REAL(fputc);
    return char_out(IOL_F_fputc, real_fputc, c, f);
}

IOL_EXPORT int fgetc(FILE *f)
{
    IOL_REAL(fgetc);
    return char_in(IOL_F_fgetc, real_fgetc, f);
}

/* fseek, fseeko(64) and ftell, ftello(64): one body each, for their offset types. fseek's a3:
 * the position after it (read back: whence SEEK_END's end of file), -1 failed or none (a pipe) */
#define IOL_STDIO_SEEK(name, off_type)                                                             \
    IOL_EXPORT int name(FILE *f, off_type off, int whence)                                         \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real_##name(f, off, whence);                                                    \
        IOL_REAL(ftello64);                                                                        \
        int fd = sfd(f);                                                                           \
        uint64_t t0 = iol_begin();                                                                 \
        int r = real_##name(f, off, whence);                                                       \
        int e = errno;                                                                             \
        off64_t at = r == 0 ? real_ftello64(f) : -1;                                               \
        errno = e;                                                                                 \
        done(IOL_F_##name, t0, r != 0, fd, iol_fd_file(fd), r, off, 0, whence, at);                \
        return r;                                                                                  \
    }
#define IOL_STDIO_TELL(name, off_type)                                                             \
    IOL_EXPORT off_type name(FILE *f)                                                              \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real_##name(f);                                                                 \
        int fd = sfd(f);                                                                           \
        uint64_t t0 = iol_begin();                                                                 \
        off_type r = real_##name(f);                                                               \
        done(IOL_F_##name, t0, r < 0, fd, iol_fd_file(fd), r, 0, 0, 0, 0);                         \
        return r;                                                                                  \
    }
IOL_STDIO_SEEK(fseek, long)
IOL_STDIO_SEEK(fseeko, off_t)
IOL_STDIO_SEEK(fseeko64, off64_t)
IOL_STDIO_TELL(ftell, long)
IOL_STDIO_TELL(ftello, off_t)
IOL_STDIO_TELL(ftello64, off64_t)

IOL_EXPORT void rewind(FILE *f)
{
    IOL_REAL(rewind);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT)) {
        real_rewind(f);
        return;
    }
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    real_rewind(f);
    done(IOL_F_rewind, t0, 0, fd, iol_fd_file(fd), 0, 0, 0, 0, 0);
}

/* fsetpos, fsetpos64: a0 and a3 the position the call set (the stream's, read back after it:
 * fpos_t is opaque), a2 SEEK_SET, as an fseeko to it; -1 when it failed or the stream has none.
 * fgetpos, fgetpos64: ret the call's, a0 the position it stored (-1 when it failed). */
#define IOL_STDIO_POS(name, pos_ptr, set)                                                          \
    IOL_EXPORT int name(FILE *f, pos_ptr pos)                                                      \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real_##name(f, pos);                                                            \
        IOL_REAL(ftello64);                                                                        \
        int fd = sfd(f);                                                                           \
        uint64_t t0 = iol_begin();                                                                 \
        int r = real_##name(f, pos);                                                               \
        int e = errno;                                                                             \
        off64_t at = r == 0 ? real_ftello64(f) : -1;                                               \
        errno = e;                                                                                 \
        int64_t a2 = (set) ? SEEK_SET : 0, a3 = (set) ? at : 0;                                    \
        done(IOL_F_##name, t0, r != 0, fd, iol_fd_file(fd), r, at, 0, a2, a3);                     \
        return r;                                                                                  \
    }
IOL_STDIO_POS(fsetpos, const fpos_t *, 1)
IOL_STDIO_POS(fsetpos64, const fpos64_t *, 1)
IOL_STDIO_POS(fgetpos, fpos_t *, 0)
IOL_STDIO_POS(fgetpos64, fpos64_t *, 0)

IOL_EXPORT int fflush(FILE *f)
{
    IOL_REAL(fflush);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_fflush(f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_fflush(f);
    done(IOL_F_fflush, t0, r != 0, fd, iol_fd_file(fd), r, 0, 0, 0, 0);
    return r;
}

IOL_EXPORT int getc(FILE *f)
{
    IOL_REAL(getc);
    return char_in(IOL_F_getc, real_getc, f);
}

IOL_EXPORT int putc(int c, FILE *f)
{
    IOL_REAL(putc);
    return char_out(IOL_F_putc, real_putc, c, f);
}

/* _IO_getc, _IO_putc: glibc's older names of getc and putc (its headers made getc and putc
 * macros of them before 2.28, so binaries built then call them), recorded as getc and putc */
int iol_io_getc(FILE *f) __asm__("_IO_getc");
IOL_EXPORT int iol_io_getc(FILE *f)
{
    static int (*real)(FILE *);
    if (!real)
        real = (int (*)(FILE *))iol_real("_IO_getc");
    return char_in(IOL_F_getc, real, f);
}

int iol_io_putc(int c, FILE *f) __asm__("_IO_putc");
IOL_EXPORT int iol_io_putc(int c, FILE *f)
{
    static int (*real)(int, FILE *);
    if (!real)
        real = (int (*)(int, FILE *))iol_real("_IO_putc");
    return char_out(IOL_F_putc, real, c, f);
}

/* getw, putw: one int. ret getw's word (EOF may be one) or putw's result; a1 sizeof(int), the
 * bytes the Darshan runtime counts; a2 the bytes moved: sizeof(int), or 0 when getw met the end
 * of the file or an error (the part of a word before the end is not known) or putw failed; a3
 * putw's word */
IOL_EXPORT int getw(FILE *f)
{
    IOL_REAL(getw);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_getw(f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_getw(f);
    int whole = r != EOF || (!feof(f) && !ferror(f));
    done(IOL_F_getw, t0, r == EOF && ferror(f), fd, iol_fd_file(fd), r, 0, (int64_t)sizeof(int),
         whole ? (int64_t)sizeof(int) : 0, 0);
    return r;
}

IOL_EXPORT int putw(int w, FILE *f)
{
    IOL_REAL(putw);
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real_putw(w, f);
    int fd = sfd(f);
    uint64_t t0 = iol_begin();
    int r = real_putw(w, f);
    int64_t moved = r == EOF ? 0 : (int64_t)sizeof(int);
    done(IOL_F_putw, t0, r == EOF, fd, iol_fd_file(fd), r, 0, (int64_t)sizeof(int), moved, w);
    return r;
}

/* fscanf: the C names. glibc's headers send fscanf to __isoc99_fscanf (C99 scanf, what a
 * program built with them imports); programs built otherwise import fscanf (GNU scanf). Both
 * are recorded as fscanf. The bytes the call consumed (a1) are the stream's position after it
 * less before it (-1 when the stream has none: a pipe), the read size the Darshan runtime
 * counts; the return value is fscanf's own (items assigned, or EOF). */
typedef int (*vscan_fn)(FILE *, const char *, va_list);
int iol_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
int iol_isoc99_fscanf(FILE *f, const char *fmt, ...) __asm__("__isoc99_fscanf");

static int scan(vscan_fn real, FILE *f, const char *fmt, va_list ap)
{
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(f, fmt, ap);
    IOL_REAL(ftello64);
    int fd = sfd(f);
    int saved = errno;
    off64_t before = real_ftello64(f);
    errno = saved;
    uint64_t t0 = iol_begin();
    int r = real(f, fmt, ap);
    int e = errno;
    off64_t after = before >= 0 ? real_ftello64(f) : -1;
    errno = e;
    done(IOL_F_fscanf, t0, r == EOF && ferror(f), fd, iol_fd_file(fd), r, 0,
         before >= 0 && after >= before ? (int64_t)(after - before) : -1, 0, 0);
    return r;
}

IOL_EXPORT int iol_fscanf(FILE *f, const char *fmt, ...)
{
    static vscan_fn real;
    if (!real)
        real = (vscan_fn)iol_real("vfscanf");
    va_list ap;
    va_start(ap, fmt);
    int r = scan(real, f, fmt, ap);
    va_end(ap);
    return r;
}

IOL_EXPORT int iol_isoc99_fscanf(FILE *f, const char *fmt, ...)
{
    static vscan_fn real;
    if (!real)
        real = (vscan_fn)iol_real("__isoc99_vfscanf");
    va_list ap;
    va_start(ap, fmt);
    int r = scan(real, f, fmt, ap);
    va_end(ap);
    return r;
}

/* The _unlocked variants (gnulib's unlocked-io makes coreutils call them), each under its own
 * name. glibc's headers define some of them as inline functions or macros, so the wrappers are
 * C names with the symbol as an asm label (as fscanf's above). Neither the call nor its record
 * takes the stream's lock: a program that called __fsetlocking(FSETLOCKING_BYCALLER) may hold
 * none, and one that holds it (flockfile) keeps it to itself. */
#define IOL_STDIO_ITEMS_UNLOCKED(cname, id, ptr_t)                                                 \
    size_t cname(ptr_t p, size_t size, size_t n, FILE *f) __asm__(#id);                            \
    IOL_EXPORT size_t cname(ptr_t p, size_t size, size_t n, FILE *f)                               \
    {                                                                                              \
        static size_t (*real)(ptr_t, size_t, size_t, FILE *);                                      \
        if (!real)                                                                                 \
            real = (size_t(*)(ptr_t, size_t, size_t, FILE *))iol_real(#id);                        \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real(p, size, n, f);                                                            \
        int fd = sfd_with(f, 1);                                                                  \
        uint64_t t0 = iol_begin();                                                                 \
        size_t r = real(p, size, n, f);                                                            \
        done(IOL_F_##id, t0, r < n && ferror_unlocked(f), fd, iol_fd_file(fd), (int64_t)r, 0,      \
             (int64_t)(size * n), (int64_t)size, (int64_t)n);                                      \
        return r;                                                                                  \
    }
IOL_STDIO_ITEMS_UNLOCKED(iol_fread_unlocked, fread_unlocked, void *)
IOL_STDIO_ITEMS_UNLOCKED(iol_fwrite_unlocked, fwrite_unlocked, const void *)

/* fgetc_unlocked, getc_unlocked: one byte read (or EOF) */
#define IOL_STDIO_GETC_UNLOCKED(cname, id)                                                         \
    int cname(FILE *f) __asm__(#id);                                                               \
    IOL_EXPORT int cname(FILE *f)                                                                  \
    {                                                                                              \
        static int (*real)(FILE *);                                                                \
        if (!real)                                                                                 \
            real = (int (*)(FILE *))iol_real(#id);                                                 \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real(f);                                                                        \
        int fd = sfd_with(f, 1);                                                                  \
        uint64_t t0 = iol_begin();                                                                 \
        int r = real(f);                                                                           \
        done(IOL_F_##id, t0, r == EOF && ferror_unlocked(f), fd, iol_fd_file(fd), r, 0, 1, 0, 0);  \
        return r;                                                                                  \
    }
IOL_STDIO_GETC_UNLOCKED(iol_fgetc_unlocked, fgetc_unlocked)
IOL_STDIO_GETC_UNLOCKED(iol_getc_unlocked, getc_unlocked)

/* fputc_unlocked, putc_unlocked: one byte written (a2 the character) */
#define IOL_STDIO_PUTC_UNLOCKED(cname, id)                                                         \
    int cname(int c, FILE *f) __asm__(#id);                                                        \
    IOL_EXPORT int cname(int c, FILE *f)                                                           \
    {                                                                                              \
        static int (*real)(int, FILE *);                                                           \
        if (!real)                                                                                 \
            real = (int (*)(int, FILE *))iol_real(#id);                                            \
        if (!iol_tracing(IOL_LAYER_STDIO_BIT))                                                     \
            return real(c, f);                                                                     \
        int fd = sfd_with(f, 1);                                                                  \
        uint64_t t0 = iol_begin();                                                                 \
        int r = real(c, f);                                                                        \
        done(IOL_F_##id, t0, r == EOF, fd, iol_fd_file(fd), r, 0, 1, c, 0);                        \
        return r;                                                                                  \
    }
IOL_STDIO_PUTC_UNLOCKED(iol_fputc_unlocked, fputc_unlocked)
IOL_STDIO_PUTC_UNLOCKED(iol_putc_unlocked, putc_unlocked)

int iol_fputs_unlocked(const char *s, FILE *f) __asm__("fputs_unlocked");
IOL_EXPORT int iol_fputs_unlocked(const char *s, FILE *f)
{
    static int (*real)(const char *, FILE *);
    if (!real)
        real = (int (*)(const char *, FILE *))iol_real("fputs_unlocked");
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(s, f);
    int fd = sfd_with(f, 1);
    uint64_t t0 = iol_begin();
    int r = real(s, f);
    done(IOL_F_fputs_unlocked, t0, r == EOF, fd, iol_fd_file(fd), r, 0, (int64_t)strlen(s), 0, 0);
    return r;
}

char *iol_fgets_unlocked(char *s, int n, FILE *f) __asm__("fgets_unlocked");
IOL_EXPORT char *iol_fgets_unlocked(char *s, int n, FILE *f)
{
    static char *(*real)(char *, int, FILE *);
    if (!real)
        real = (char *(*)(char *, int, FILE *))iol_real("fgets_unlocked");
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(s, n, f);
    int fd = sfd_with(f, 1);
    uint64_t t0 = iol_begin();
    char *r = real(s, n, f);
    done(IOL_F_fgets_unlocked, t0, !r && ferror_unlocked(f), fd, iol_fd_file(fd), r ? (int64_t)strlen(r) : -1, 0, n,
         0, 0);
    return r;
}

int iol_fflush_unlocked(FILE *f) __asm__("fflush_unlocked");
IOL_EXPORT int iol_fflush_unlocked(FILE *f)
{
    static int (*real)(FILE *);
    if (!real)
        real = (int (*)(FILE *))iol_real("fflush_unlocked");
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(f);
    int fd = sfd_with(f, 1);
    uint64_t t0 = iol_begin();
    int r = real(f);
    done(IOL_F_fflush_unlocked, t0, r != 0, fd, iol_fd_file(fd), r, 0, 0, 0, 0);
    return r;
}

/* getline and getdelim: a line (a1 the buffer's size given, *n; getdelim's a2 its delimiter;
 * ret the line's length, -1 at the end). glibc's headers make getline a call of __getdelim in
 * optimised builds: that is recorded as getdelim, with its '\n'. */
typedef ssize_t (*getdelim_fn)(char **, size_t *, int, FILE *);

static ssize_t delim_done(getdelim_fn real, int id, char **lp, size_t *n, int delim, FILE *f)
{
    if (!iol_tracing(IOL_LAYER_STDIO_BIT))
        return real(lp, n, delim, f);
    int fd = sfd(f);
    int64_t given = n ? (int64_t)*n : 0;
    uint64_t t0 = iol_begin();
    ssize_t r = real(lp, n, delim, f);
    done(id, t0, r < 0 && f && ferror(f), fd, iol_fd_file(fd), r, 0, given, id == IOL_F_getdelim ? delim : 0, 0);
    return r;
}

static ssize_t getline_real(char **lp, size_t *n, int delim, FILE *f)
{
    static ssize_t (*real)(char **, size_t *, FILE *);
    if (!real)
        real = (ssize_t(*)(char **, size_t *, FILE *))iol_real("getline");
    (void)delim;
    return real(lp, n, f);
}

ssize_t iol_getline(char **lp, size_t *n, FILE *f) __asm__("getline");
IOL_EXPORT ssize_t iol_getline(char **lp, size_t *n, FILE *f)
{
    return delim_done(getline_real, IOL_F_getline, lp, n, '\n', f);
}

ssize_t iol_getdelim(char **lp, size_t *n, int delim, FILE *f) __asm__("getdelim");
IOL_EXPORT ssize_t iol_getdelim(char **lp, size_t *n, int delim, FILE *f)
{
    static getdelim_fn real;
    if (!real)
        real = (getdelim_fn)iol_real("getdelim");
    return delim_done(real, IOL_F_getdelim, lp, n, delim, f);
}

ssize_t iol_getdelim_glibc(char **lp, size_t *n, int delim, FILE *f) __asm__("__getdelim");
IOL_EXPORT ssize_t iol_getdelim_glibc(char **lp, size_t *n, int delim, FILE *f)
{
    static getdelim_fn real;
    if (!real)
        real = (getdelim_fn)iol_real("__getdelim");
    return delim_done(real, IOL_F_getdelim, lp, n, delim, f);
}
