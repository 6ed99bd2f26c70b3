#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

int iol_read_file(const char *path, size_t max_bytes, iol_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    int rc = 0;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + n > max_bytes) {
            rc = iol_err(IOLENS_ENOMEM, "'%s' is larger than the %zu-byte limit", path, max_bytes);
            goto done;
        }
        if ((rc = iol_buf_append(out, chunk, n)))
            goto done;
    }
    if (ferror(f))
        rc = iol_err(IOLENS_EIO, "cannot read '%s': %s", path, strerror(errno));
done:
    fclose(f);
    return rc;
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
