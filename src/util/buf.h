/* Growable byte buffer, always NUL-terminated (git's strbuf, reduced). */
#ifndef IOLENS_UTIL_BUF_H
#define IOLENS_UTIL_BUF_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct iol_buf {
    char *data;  /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} iol_buf;

#define IOL_BUF_INIT {NULL, 0, 0}

/* Each returns 0 or IOLENS_ENOMEM (with the error message set). */
int iol_buf_reserve(iol_buf *b, size_t extra);
int iol_buf_append(iol_buf *b, const void *p, size_t n);
int iol_buf_puts(iol_buf *b, const char *s);
int iol_buf_printf(iol_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void iol_buf_reset(iol_buf *b);   /* length 0, keeps memory */
void iol_buf_release(iol_buf *b); /* frees memory; b is reusable */
/* Hands the data to the caller (who frees it); b becomes empty. */
char *iol_buf_detach(iol_buf *b, size_t *len);

/* Decimal digits of an integer without printf (hot paths: trace decoding, JSON, text dumps):
 * writes them NUL-terminated at out[0..], which holds IOL_FMT_INT_MAX bytes; returns the length.
 * iol_fmt_u64 writes a '-' first when neg (for a magnitude taken from a negative int64_t). */
#define IOL_FMT_INT_MAX 22
size_t iol_fmt_u64(char *out, uint64_t v, int neg);
size_t iol_fmt_i64(char *out, int64_t v);
/* snprintf(out, cap, "%f", v) exactly (six decimals, half to even on the exact binary value),
 * without printf for finite values below 2^108 (text dumps print millions of them); cap >= 64
 * for that path. Returns the length. */
size_t iol_fmt_f6(char *out, size_t cap, double v);
/* The shortest %g form of v that reads back as the same double (cap >= 32). */
size_t iol_fmt_double(char *out, size_t cap, double v);
/* One CSV field to out, quoted as RFC 4180 does when it holds a comma, a quote or a line break. */
void iol_csv_field(FILE *out, const char *s);

/* Zeroed scratch memory that a free() does not count: blocks of IOL_SCRATCH_MMAP bytes or more
 * are mapped and unmapped directly. glibc's malloc raises its mmap threshold (and its trim
 * threshold, twice as high) to the size of each mmap'd block a process frees; a replay process
 * must reach its timed calls with those as a fresh process has them, or the MPI library's
 * per-call buffers are trimmed and regrown where the application's are not (docs/REPLAY-CONFIG.md,
 * replay fidelity). For the trace loader's temporary blocks. NULL if out of memory. */
#define IOL_SCRATCH_MMAP ((size_t)64 << 10)
void *iol_scratch_alloc(size_t n);
void iol_scratch_free(void *p, size_t n);

/* Opens an input file for reading (O_CLOEXEC). Refuses character and block devices (endless,
 * or not a file: /dev/zero, /dev/urandom, a disk), sockets and, unless flags has IOL_INPUT_DIR,
 * directories, with a message naming the file. A FIFO waits up to 3 s for its writer (read
 * before the writer comes, it would read as empty), then is refused; with IOL_INPUT_NOWAIT it
 * is opened at once (for a caller that refuses anything but a regular file, or only looks).
 * Returns the descriptor, or a negative IOLENS_E* code. */
#define IOL_INPUT_DIR 1
#define IOL_INPUT_NOWAIT 2
int iol_open_input(const char *path, int flags);
/* read(2) and close(2) of such a descriptor, as iolens reads its inputs (EINTR retried). */
ssize_t iol_input_read(int fd, void *buf, size_t n);
void iol_input_close(int fd);
/* The same as a stdio stream ("rb"); NULL with *rc set on error. */
FILE *iol_fopen_input(const char *path, int flags, int *rc);

/* Reads a whole input (iol_open_input); refuses more than max_bytes. magic (mlen bytes,
 * may be NULL): the input must start with it, checked as soon as those bytes arrive, so
 * an endless stream of something else ends at once. text: a NUL byte is refused as binary
 * data, with its byte offset (text 2: unless the input starts with gzip's magic 1f 8b). */
int iol_read_input(const char *path, size_t max_bytes, const void *magic, size_t mlen, int text, iol_buf *out);
/* The same from a descriptor iol_open_input gave (named path in messages); closes it. */
int iol_read_input_fd(int fd, const char *path, size_t max_bytes, const void *magic, size_t mlen, int text,
                      iol_buf *out);
/* Reads a whole file; refuses files larger than max_bytes. */
int iol_read_file(const char *path, size_t max_bytes, iol_buf *out);

#endif
