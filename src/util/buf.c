#define _GNU_SOURCE /* MAP_ANONYMOUS, AT_EMPTY_PATH */
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int iol_buf_reserve(iol_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    if (extra > SIZE_MAX / 2 - b->len)
        return iol_err(IOLENS_ENOMEM, "buffer size overflow");
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return iol_err(IOLENS_ENOMEM, "out of memory growing a buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    return 0;
}

int iol_buf_append(iol_buf *b, const void *p, size_t n)
{
    int rc = iol_buf_reserve(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int iol_buf_puts(iol_buf *b, const char *s) { return iol_buf_append(b, s, strlen(s)); }

int iol_buf_printf(iol_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return iol_err(IOLENS_EINVAL, "bad format string");
    if ((size_t)n < sizeof small)
        return iol_buf_append(b, small, (size_t)n);
    int rc = iol_buf_reserve(b, (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

void iol_buf_reset(iol_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void iol_buf_release(iol_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *iol_buf_detach(iol_buf *b, size_t *len)
{
    char *p = b->data;
    if (len)
        *len = b->len;
    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

void *iol_scratch_alloc(size_t n)
{
    if (n < IOL_SCRATCH_MMAP)
        return calloc(n ? n : 1, 1);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void iol_scratch_free(void *p, size_t n)
{
    if (!p)
        return;
    if (n < IOL_SCRATCH_MMAP)
        free(p);
    else
        munmap(p, n);
}

/* Inputs are opened, examined and read with raw system calls: reading its inputs is iolens's
 * bookkeeping, so a traced run of iolens (iolens trace -- iolens replay CONFIG) records the
 * workload only, not the reads of its config or trace. */
static int raw_open(const char *path, int flags)
{
#ifdef SYS_openat
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags);
#else
    return open(path, flags);
#endif
}

static int raw_fstat(int fd, struct stat *st)
{
#ifdef SYS_newfstatat
    return (int)syscall(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH);
#else
    return fstat(fd, st);
#endif
}

static void raw_close(int fd)
{
#ifdef SYS_close
    syscall(SYS_close, fd);
#else
    close(fd);
#endif
}

static ssize_t raw_read(int fd, void *buf, size_t n)
{
#ifdef SYS_read
    return (ssize_t)syscall(SYS_read, fd, buf, n);
#else
    return read(fd, buf, n);
#endif
}

/* How long a FIFO may wait for its writer: a writer started with the reader (`cat x > fifo &`)
 * is there in milliseconds; a FIFO nobody opens must not hang the command. */
#define IOL_FIFO_WAIT_MS 3000

/* Has a writer opened the FIFO behind the nonblocking fd (or written and gone)? A FIFO read
 * before its writer arrives reads as empty, even once reads block. tee(2) into a scratch pipe
 * looks without consuming: data (> 0) or EAGAIN means a writer came, 0 means none is there. */
static int fifo_has_writer(int fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
        return 1; /* cannot look: read as before */
    int got = 0;
    for (int waited = 0; !got && waited <= IOL_FIFO_WAIT_MS; waited += 20) {
        ssize_t t = tee(fd, p[1], 1, SPLICE_F_NONBLOCK);
        if (t > 0 || (t < 0 && errno != EINTR))
            got = 1; /* data, a writer with none yet (EAGAIN), or tee unsupported here: read as before */
        else {
            struct pollfd q = {.fd = fd, .events = POLLIN};
            if (poll(&q, 1, 20) > 0 && (q.revents & (POLLIN | POLLHUP)))
                got = 1; /* data, or a writer that came and went */
        }
    }
    raw_close(p[0]);
    raw_close(p[1]);
    return got;
}

int iol_open_input(const char *path, int flags)
{
    if (!path || !*path)
        return iol_err(IOLENS_EINVAL, "no input file named");
    int fd = raw_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    const char *what = NULL;
    if (raw_fstat(fd, &st) < 0)
        what = "cannot be examined";
    else if (S_ISCHR(st.st_mode))
        what = "is a character device, not a file";
    else if (S_ISBLK(st.st_mode))
        what = "is a block device, not a file";
    else if (S_ISDIR(st.st_mode) && !(flags & IOL_INPUT_DIR))
        what = "is a directory";
    else if (S_ISSOCK(st.st_mode))
        what = "is a socket, not a file";
    if (what) {
        raw_close(fd);
        return iol_err(IOLENS_EIO, "cannot read '%s': it %s", path, what);
    }
    if (S_ISFIFO(st.st_mode) && !(flags & IOL_INPUT_NOWAIT) && !fifo_has_writer(fd)) {
        raw_close(fd);
        return iol_err(IOLENS_EIO, "cannot read '%s': it is a FIFO no program opened for writing within %d s", path,
                       IOL_FIFO_WAIT_MS / 1000);
    }
    /* back to blocking reads */
    int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
    if (fl >= 0)
        syscall(SYS_fcntl, fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *iol_fopen_input(const char *path, int flags, int *rc)
{
    int fd = iol_open_input(path, flags);
    if (fd < 0) {
        *rc = fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    *rc = 0;
    return f;
}

ssize_t iol_input_read(int fd, void *buf, size_t n)
{
    ssize_t r;
    do
        r = raw_read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

void iol_input_close(int fd) { raw_close(fd); }

int iol_read_input(const char *path, size_t max_bytes, const void *magic, size_t mlen, int text, iol_buf *out)
{
    int fd = iol_open_input(path, 0);
    if (fd < 0)
        return fd;
    return iol_read_input_fd(fd, path, max_bytes, magic, mlen, text, out);
}

int iol_read_input_fd(int fd, const char *path, size_t max_bytes, const void *magic, size_t mlen, int text,
                      iol_buf *out)
{
    int rc = 0;
    char chunk[65536];
    for (;;) {
        ssize_t n = raw_read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = iol_err(IOLENS_EIO, "cannot read '%s' at byte %zu: %s", path, out->len, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if ((size_t)n > max_bytes - out->len || out->len > max_bytes) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': larger than the %zu-byte limit at byte %zu", path,
                         max_bytes, out->len);
            break;
        }
        size_t before = out->len;
        if ((rc = iol_buf_append(out, chunk, (size_t)n)))
            break;
        if (magic && before < mlen) {
            size_t have = out->len < mlen ? out->len : mlen;
            if (memcmp(out->data, magic, have)) {
                size_t at = 0;
                while (at < have && ((const char *)out->data)[at] == ((const char *)magic)[at])
                    at++;
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': wrong magic at byte %zu (not this kind of file)",
                             path, at);
                break;
            }
        }
        if (text == 2 && out->len >= 2 && (unsigned char)out->data[0] == 0x1f && (unsigned char)out->data[1] == 0x8b)
            text = 0; /* gzip-compressed text: checked once inflated */
        if (text) {
            const char *z = memchr(chunk, 0, (size_t)n);
            if (z) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': binary data (a NUL byte) at byte %zu, not text", path,
                             before + (size_t)(z - chunk));
                break;
            }
        }
    }
    if (!rc && magic && out->len < mlen)
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %zu", path,
                     out->len ? "truncated before its magic" : "empty file", out->len);
    raw_close(fd);
    return rc;
}

int iol_read_file(const char *path, size_t max_bytes, iol_buf *out)
{
    return iol_read_input(path, max_bytes, NULL, 0, 0, out);
}

size_t iol_fmt_u64(char *out, uint64_t v, int neg)
{
    char tmp[IOL_FMT_INT_MAX];
    size_t n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg)
        out[k++] = '-';
    while (n)
        out[k++] = tmp[--n];
    out[k] = '\0';
    return k;
}

size_t iol_fmt_i64(char *out, int64_t v)
{
    return iol_fmt_u64(out, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

size_t iol_fmt_f6(char *out, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63);
    int bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
    /* v = m * 2^e exactly; printf's "%f" is v * 10^6 rounded to an integer, half to even (the
     * default rounding mode), printed with six decimals. m * 10^6 < 2^73 fits 128 bits, so the
     * product and its shift are exact for 2^e in [2^-127, 2^55]; outside (and NaN, infinity)
     * snprintf does it. */
    if (bexp == 0x7ff || cap < 64)
        return (size_t)snprintf(out, cap, "%f", v);
    uint64_t m = bexp ? mant | (UINT64_C(1) << 52) : mant;
    int e = bexp ? bexp - 1075 : -1074;
    unsigned __int128 q;
    if (m == 0) {
        q = 0;
    } else if (e >= 0) {
        if (e > 55)
            return (size_t)snprintf(out, cap, "%f", v);
        q = ((unsigned __int128)m * 1000000u) << e;
    } else if (e < -127) {
        q = 0; /* below 2^-74: rounds to 0 */
    } else {
        unsigned __int128 p = (unsigned __int128)m * 1000000u;
        int s = -e;
        q = p >> s;
        unsigned __int128 rem = p - (q << s), half = (unsigned __int128)1 << (s - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
    }
    /* q < 2^128: at most 39 digits, the last six after the point */
    char tmp[48];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(q % 10));
        q /= 10;
    } while (q || n < 7);
    size_t k = 0;
    if (neg)
        out[k++] = '-';
    while (n > 6)
        out[k++] = tmp[--n];
    out[k++] = '.';
    while (n)
        out[k++] = tmp[--n];
    out[k] = '\0';
    return k;
}

size_t iol_fmt_double(char *out, size_t cap, double v)
{
    /* %g drops trailing zeros, so 15 significant digits cover every shorter form; 17 always
     * read back as the same double */
    int n = snprintf(out, cap, "%.15g", v);
    if (strtod(out, NULL) != v && v == v) {
        n = snprintf(out, cap, "%.16g", v);
        if (strtod(out, NULL) != v)
            n = snprintf(out, cap, "%.17g", v);
    }
    return n < 0 ? 0 : (size_t)n;
}

void iol_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
