/* Darshan log reader: file, header, compressed regions, job, mounts, names. */
#include "darshan/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/error.h"

#define DARSHAN_MAGIC 6567223LL
#define JOB_REGION_MAX (1u << 20) /* the runtime writes at most 4 KiB */
#define NAME_MAX_LEN (1u << 20)   /* a path longer than this is corrupt */

uint64_t iol_bswap64(uint64_t v) { return __builtin_bswap64(v); }
uint32_t iol_bswap32(uint32_t v) { return __builtin_bswap32(v); }

void iol_darshan_warn(iolens_darshan_log *log, const char *fmt, ...)
{
    if (!log->warn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log->warn(log->warn_ctx, msg);
}

int iol_region_error(iolens_darshan_log *log, iol_region *r, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t consumed = r->fed;
    if (r->comp == IOLENS_DARSHAN_COMP_ZLIB && r->inited)
        consumed -= r->z.avail_in;
    else if (r->comp == IOLENS_DARSHAN_COMP_BZIP2 && r->inited)
        consumed -= r->bz.avail_in;
    return iol_err(code,
                   "cannot read '%s': %s region: %s at byte %" PRIu64
                   " (decompressed offset %" PRIu64 ")",
                   log->path, r->what, msg, r->off + consumed,
                   r->produced - (r->out_len - r->out_pos));
}

static int read_at(iolens_darshan_log *log, uint64_t off, void *dst, size_t n, const char *what)
{
    if (off > log->hdr.file_size || n > log->hdr.file_size - off)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': truncated %s: needs bytes %" PRIu64 "..%" PRIu64
                       " but the file has %" PRIu64,
                       log->path, what, off, off + n, log->hdr.file_size);
    if (fseeko(log->f, (off_t)off, SEEK_SET) != 0 || fread(dst, 1, n, log->f) != n)
        return iol_err(IOLENS_EIO, "cannot read '%s': %s at byte %" PRIu64 ": %s", log->path, what,
                       off, strerror(errno));
    return 0;
}

int iol_region_open(iolens_darshan_log *log, iol_region *r, const char *what, uint64_t off,
                    uint64_t len)
{
    iol_region_close(r);
    memset(r, 0, sizeof *r);
    r->what = what;
    r->off = off;
    r->len = len;
    r->comp = log->hdr.comp;
    r->in = log->in_buf;
    r->out = log->out_buf;
    if (off > log->hdr.file_size || len > log->hdr.file_size - off)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': %s region (%" PRIu64 " bytes at byte %" PRIu64
                       ") extends past the end of the file (%" PRIu64 " bytes)",
                       log->path, what, len, off, log->hdr.file_size);
    return 0;
}

void iol_region_close(iol_region *r)
{
    if (r->inited) {
        if (r->comp == IOLENS_DARSHAN_COMP_ZLIB)
            inflateEnd(&r->z);
        else if (r->comp == IOLENS_DARSHAN_COMP_BZIP2)
            BZ2_bzDecompressEnd(&r->bz);
    }
    r->inited = 0;
}

/* Feeds more compressed input; returns bytes now available (0 at region end). */
static int region_feed(iolens_darshan_log *log, iol_region *r, const unsigned char **next,
                       size_t *avail)
{
    if (*avail > 0)
        return 0;
    uint64_t left = r->len - r->fed;
    if (left == 0)
        return 0;
    size_t n = left < IOL_DARSHAN_IOBUF ? (size_t)left : IOL_DARSHAN_IOBUF;
    int rc = read_at(log, r->off + r->fed, r->in, n, r->what);
    if (rc < 0)
        return rc;
    r->fed += n;
    *next = r->in;
    *avail = n;
    return 0;
}

/* A compressed region inflates to at most 64 MiB and 32 times its compressed bytes (real logs: 7 to
 * 40 times a region, 8 times a whole log at most): a small log that says otherwise (a
 * decompression bomb) is refused as it inflates, before its records take memory.
 * IOLENS_DARSHAN_INFLATE_MAX=BYTES sets another limit. */
static uint64_t inflate_cap(uint64_t len)
{
    const char *e = getenv("IOLENS_DARSHAN_INFLATE_MAX");
    char *end = NULL;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    if (e && *e && end && !*end && v > 0)
        return (uint64_t)v;
    uint64_t floor = (uint64_t)64 << 20;
    return len > (UINT64_MAX - floor) / 32 ? UINT64_MAX : floor + 32 * len;
}

static int over_cap(iolens_darshan_log *log, iol_region *r)
{
    if (!r->cap)
        r->cap = inflate_cap(r->len);
    if (r->produced <= r->cap)
        return 0;
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': the %s region (%" PRIu64 " compressed bytes at byte %" PRIu64
                   ") inflates past %" PRIu64 " bytes, more than 32 times its size and 64 MiB: refused as a "
                   "decompression bomb (IOLENS_DARSHAN_INFLATE_MAX=BYTES sets another limit)", log->path, r->what,
                   r->len, r->off, r->cap);
}

/* Decompresses more output into r->out; sets finished at the end. */
static int region_fill(iolens_darshan_log *log, iol_region *r)
{
    r->out_pos = r->out_len = 0;
    if (r->finished)
        return 0;
    if (r->comp == IOLENS_DARSHAN_COMP_NONE) {
        uint64_t left = r->len - r->fed;
        if (left == 0) {
            r->finished = 1;
            return 0;
        }
        size_t n = left < IOL_DARSHAN_IOBUF ? (size_t)left : IOL_DARSHAN_IOBUF;
        int rc = read_at(log, r->off + r->fed, r->out, n, r->what);
        if (rc < 0)
            return rc;
        r->fed += n;
        r->out_len = n;
        r->produced += n;
        return 0;
    }
    while (r->out_len == 0) {
        if (r->comp == IOLENS_DARSHAN_COMP_ZLIB) {
            z_stream *z = &r->z;
            const unsigned char *next = z->next_in;
            size_t avail = r->inited ? z->avail_in : 0;
            int rc = region_feed(log, r, &next, &avail);
            if (rc < 0)
                return rc;
            if (avail == 0) {
                if (r->inited)
                    return iol_region_error(log, r, IOLENS_EFORMAT,
                                            "compressed stream ends before its end marker");
                r->finished = 1;
                return 0;
            }
            if (!r->inited) {
                memset(z, 0, sizeof *z);
                if (inflateInit(z) != Z_OK)
                    return iol_err(IOLENS_ENOMEM, "cannot read '%s': zlib init failed", log->path);
                r->inited = 1;
            }
            z->next_in = (Bytef *)next;
            z->avail_in = (uInt)avail;
            z->next_out = r->out;
            z->avail_out = IOL_DARSHAN_IOBUF;
            int zr = inflate(z, Z_NO_FLUSH);
            r->out_len = IOL_DARSHAN_IOBUF - z->avail_out;
            r->produced += r->out_len;
            if (over_cap(log, r) < 0)
                return IOLENS_EFORMAT;
            if (zr == Z_STREAM_END) {
                /* next stream (if any) starts with the remaining input */
                size_t rest = z->avail_in;
                const unsigned char *restp = z->next_in;
                inflateEnd(z);
                r->inited = 0;
                if (rest > 0) {
                    memset(z, 0, sizeof *z);
                    if (inflateInit(z) != Z_OK)
                        return iol_err(IOLENS_ENOMEM, "cannot read '%s': zlib init failed",
                                       log->path);
                    r->inited = 1;
                    z->next_in = (Bytef *)restp;
                    z->avail_in = (uInt)rest;
                } else {
                    z->next_in = NULL;
                    z->avail_in = 0;
                }
            } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
                return iol_region_error(log, r, IOLENS_EFORMAT, "corrupt zlib data (%s)",
                                        z->msg ? z->msg : "error");
            }
        } else if (r->comp == IOLENS_DARSHAN_COMP_BZIP2) {
            bz_stream *bz = &r->bz;
            const unsigned char *next = (const unsigned char *)bz->next_in;
            size_t avail = r->inited ? bz->avail_in : 0;
            int rc = region_feed(log, r, &next, &avail);
            if (rc < 0)
                return rc;
            if (avail == 0) {
                if (r->inited)
                    return iol_region_error(log, r, IOLENS_EFORMAT,
                                            "compressed stream ends before its end marker");
                r->finished = 1;
                return 0;
            }
            if (!r->inited) {
                memset(bz, 0, sizeof *bz);
                if (BZ2_bzDecompressInit(bz, 0, 0) != BZ_OK)
                    return iol_err(IOLENS_ENOMEM, "cannot read '%s': bzip2 init failed",
                                   log->path);
                r->inited = 1;
            }
            bz->next_in = (char *)next;
            bz->avail_in = (unsigned)avail;
            bz->next_out = (char *)r->out;
            bz->avail_out = IOL_DARSHAN_IOBUF;
            int br = BZ2_bzDecompress(bz);
            r->out_len = IOL_DARSHAN_IOBUF - bz->avail_out;
            r->produced += r->out_len;
            if (over_cap(log, r) < 0)
                return IOLENS_EFORMAT;
            if (br == BZ_STREAM_END) {
                size_t rest = bz->avail_in;
                char *restp = bz->next_in;
                BZ2_bzDecompressEnd(bz);
                r->inited = 0;
                if (rest > 0) {
                    memset(bz, 0, sizeof *bz);
                    if (BZ2_bzDecompressInit(bz, 0, 0) != BZ_OK)
                        return iol_err(IOLENS_ENOMEM, "cannot read '%s': bzip2 init failed",
                                       log->path);
                    r->inited = 1;
                    bz->next_in = restp;
                    bz->avail_in = (unsigned)rest;
                } else {
                    bz->next_in = NULL;
                    bz->avail_in = 0;
                }
            } else if (br != BZ_OK) {
                return iol_region_error(log, r, IOLENS_EFORMAT, "corrupt bzip2 data (code %d)",
                                        br);
            }
        } else {
            return iol_region_error(log, r, IOLENS_EFORMAT, "unknown compression type %d",
                                    r->comp);
        }
    }
    return 0;
}

long long iol_region_read(iolens_darshan_log *log, iol_region *r, void *dst, size_t n)
{
    size_t got = 0;
    unsigned char *d = dst;
    while (got < n) {
        if (r->out_pos == r->out_len) {
            if (r->finished)
                break;
            int rc = region_fill(log, r);
            if (rc < 0)
                return rc;
            if (r->out_len == 0)
                break;
        }
        size_t k = r->out_len - r->out_pos;
        if (k > n - got)
            k = n - got;
        memcpy(d + got, r->out + r->out_pos, k);
        r->out_pos += k;
        got += k;
    }
    return (long long)got;
}

int iol_region_read_full(iolens_darshan_log *log, iol_region *r, void *dst, size_t n,
                         const char *what)
{
    long long got = iol_region_read(log, r, dst, n);
    if (got < 0)
        return (int)got;
    if ((size_t)got < n)
        return iol_region_error(log, r, IOLENS_EFORMAT, "truncated %s (%lld of %zu bytes)", what,
                                got, n);
    return 0;
}

int iol_region_read_grow(iolens_darshan_log *log, iol_region *r, void **buf, size_t *cap,
                         size_t n, const char *what)
{
    size_t have = 0;
    if (!*buf) { /* a buffer even for n == 0, so callers may offset into it */
        *buf = malloc(4096);
        if (!*buf)
            return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", log->path);
        *cap = 4096;
    }
    while (have < n) {
        size_t want = n - have;
        if (want > (1u << 20))
            want = 1u << 20;
        if (have + want > *cap) {
            size_t ncap = *cap ? *cap : 4096;
            while (ncap < have + want)
                ncap *= 2;
            void *p = realloc(*buf, ncap);
            if (!p)
                return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory (%zu bytes)",
                               log->path, ncap);
            *buf = p;
            *cap = ncap;
        }
        long long got = iol_region_read(log, r, (unsigned char *)*buf + have, want);
        if (got < 0)
            return (int)got;
        have += (size_t)got;
        if ((size_t)got < want)
            return iol_region_error(log, r, IOLENS_EFORMAT, "truncated %s (%zu of %zu bytes)",
                                    what, have, n);
    }
    return 0;
}

/* ---- header ------------------------------------------------------------ */

static const int slots_300[] = {IOLENS_DARSHAN_NULL, IOLENS_DARSHAN_POSIX, IOLENS_DARSHAN_MPIIO,
                                IOLENS_DARSHAN_H5F, IOLENS_DARSHAN_PNETCDF_FILE, IOLENS_DARSHAN_BGQ};
static const int slots_310[] = {IOLENS_DARSHAN_NULL,      IOLENS_DARSHAN_POSIX,
                                IOLENS_DARSHAN_MPIIO,     IOLENS_DARSHAN_H5F,
                                IOLENS_DARSHAN_PNETCDF_FILE, IOLENS_DARSHAN_BGQ,
                                IOLENS_DARSHAN_LUSTRE,    IOLENS_DARSHAN_STDIO,
                                IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO,
                                IOLENS_DARSHAN_MDHIM};
static const int slots_320[] = {
    IOLENS_DARSHAN_NULL,      IOLENS_DARSHAN_POSIX,     IOLENS_DARSHAN_MPIIO,
    IOLENS_DARSHAN_H5F,       IOLENS_DARSHAN_H5D,       IOLENS_DARSHAN_PNETCDF_FILE,
    IOLENS_DARSHAN_BGQ,       IOLENS_DARSHAN_LUSTRE,    IOLENS_DARSHAN_STDIO,
    IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO, IOLENS_DARSHAN_MDHIM,
    IOLENS_DARSHAN_APXC,      IOLENS_DARSHAN_APMPI,     IOLENS_DARSHAN_HEATMAP};

static uint64_t get64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? iol_bswap64(v) : v;
}

static uint32_t get32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? iol_bswap32(v) : v;
}

static int parse_header(iolens_darshan_log *log)
{
    iolens_darshan_header *h = &log->hdr;
    unsigned char b[1328];
    if (h->file_size < 360)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': not a Darshan log: %" PRIu64
                       " bytes is shorter than any header (header region, byte 0)",
                       log->path, h->file_size);
    int rc = read_at(log, 0, b, 360, "header");
    if (rc < 0)
        return rc;
    memcpy(h->version, b, 8);
    h->version[8] = '\0';
    if (sscanf(h->version, "%d.%d", &h->major, &h->minor) != 2)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': not a Darshan log (header region, byte 0: no version "
                       "string)",
                       log->path);
    int v = h->major * 100 + h->minor;
    if (v != 300 && v != 310 && v != 320 && v != 321 && v != 341)
        return iol_err(IOLENS_EVERSION,
                       "cannot read '%s': unsupported Darshan log format version '%s' (header "
                       "region, byte 0)",
                       log->path, h->version);
    uint64_t magic = get64(b + 8, 0);
    int swap = 0;
    if (magic != (uint64_t)DARSHAN_MAGIC) {
        if (iol_bswap64(magic) != (uint64_t)DARSHAN_MAGIC)
            return iol_err(IOLENS_EFORMAT,
                           "cannot read '%s': bad magic number 0x%" PRIx64
                           " (header region, byte 8)",
                           log->path, magic);
        swap = 1;
    }
    h->big_endian = swap;
    h->comp = b[16];
    if (h->comp > IOLENS_DARSHAN_COMP_NONE)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': unknown compression type %d (header region, byte 16)",
                       log->path, h->comp);
    const int *slots;
    int nslots, nmaps;
    uint64_t map_off, ver_off, raw_partial;
    if (v == 341) {
        h->header_size = 1328;
        if (h->file_size < 1328)
            return iol_err(IOLENS_EFORMAT,
                           "cannot read '%s': truncated header (header region: %" PRIu64
                           " of 1328 bytes)",
                           log->path, h->file_size);
        rc = read_at(log, 0, b, 1328, "header");
        if (rc < 0)
            return rc;
        raw_partial = get64(b + 24, swap);
        h->name_map.off = get64(b + 32, swap);
        h->name_map.len = get64(b + 40, swap);
        map_off = 48;
        ver_off = 1072;
        nmaps = 64;
        slots = NULL;
        nslots = IOLENS_DARSHAN_MOD_COUNT;
    } else {
        h->header_size = 360;
        raw_partial = get32(b + 20, swap);
        h->name_map.off = get64(b + 24, swap);
        h->name_map.len = get64(b + 32, swap);
        map_off = 40;
        ver_off = 296;
        nmaps = 16;
        if (v == 300) {
            slots = slots_300;
            nslots = (int)(sizeof slots_300 / sizeof *slots_300);
        } else if (v == 310) {
            slots = slots_310;
            nslots = (int)(sizeof slots_310 / sizeof *slots_310);
        } else {
            slots = slots_320;
            nslots = (int)(sizeof slots_320 / sizeof *slots_320);
        }
    }
    for (int s = 0; s < nmaps; s++) {
        uint64_t off = get64(b + map_off + 16 * (uint64_t)s, swap);
        uint64_t len = get64(b + map_off + 16 * (uint64_t)s + 8, swap);
        uint32_t ver = get32(b + ver_off + 4 * (uint64_t)s, swap);
        int id = s < nslots ? (slots ? slots[s] : s) : -1;
        /* a module may be marked incomplete without any data (darshan-parser still reports it) */
        if (id > 0 && (raw_partial & (1ull << s)))
            h->partial_flag |= 1ull << id;
        if (len == 0)
            continue;
        if (id <= 0) {
            h->n_unknown_slots++;
            iol_darshan_warn(log, "'%s': skipping data of unknown module slot %d", log->path, s);
            continue;
        }
        if (off > h->file_size || len > h->file_size - off)
            return iol_err(IOLENS_EFORMAT,
                           "cannot read '%s': %s module region (%" PRIu64 " bytes at byte %" PRIu64
                           ") extends past the end of the file (%" PRIu64
                           " bytes) (header region, byte %" PRIu64 ")",
                           log->path, iolens_darshan_module_name(id), len, off, h->file_size,
                           map_off + 16 * (uint64_t)s);
        h->mod[id].off = off;
        h->mod[id].len = len;
        h->mod_ver[id] = ver;
    }
    if (h->name_map.len &&
        (h->name_map.off > h->file_size || h->name_map.len > h->file_size - h->name_map.off))
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': record table region (%" PRIu64 " bytes at byte %" PRIu64
                       ") extends past the end of the file (%" PRIu64 " bytes)",
                       log->path, h->name_map.len, h->name_map.off, h->file_size);
    /* job region: from the header to the name map (or first module, or EOF) */
    uint64_t end = h->name_map.off;
    if (end == 0) {
        end = h->file_size;
        for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++)
            if (h->mod[m].len && h->mod[m].off < end)
                end = h->mod[m].off;
    }
    if (end < h->header_size || end > h->file_size)
        return iol_err(IOLENS_EFORMAT,
                       "cannot read '%s': record table offset %" PRIu64
                       " is inside the header or past the end of the file (header region)",
                       log->path, end);
    h->job.off = h->header_size;
    h->job.len = end - h->header_size;
    return 0;
}

/* Skips zero padding between the header and a compressed job stream. */
static int skip_job_padding(iolens_darshan_log *log)
{
    iolens_darshan_header *h = &log->hdr;
    if (h->comp == IOLENS_DARSHAN_COMP_NONE)
        return 0;
    unsigned char buf[4096];
    while (h->job.len > 0) {
        size_t n = h->job.len < sizeof buf ? (size_t)h->job.len : sizeof buf;
        int rc = read_at(log, h->job.off, buf, n, "job data");
        if (rc < 0)
            return rc;
        size_t i = 0;
        while (i < n && buf[i] == 0)
            i++;
        h->job.off += i;
        h->job.len -= i;
        if (i < n)
            break;
    }
    return 0;
}

/* ---- job region, exe, mounts ---------------------------------------------- */

struct mount_key {
    iolens_darshan_mount m;
    size_t len, index;
};

static int cmp_mount_key(const void *a, const void *b)
{
    const struct mount_key *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

/* Reads one whitespace-delimited token like sscanf's %s. */
static const char *scan_token(const char *p, const char **start, size_t *len)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
        p++;
    *start = p;
    while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f'))
        p++;
    *len = (size_t)(p - *start);
    return p;
}

static int parse_mounts(iolens_darshan_log *log)
{
    /* Each line after the first ('\n'-separated) is "<fs_type>\t<mount path>";
     * like the reference, each line is scanned with whitespace skipping that may
     * run into the next line (so a blank line repeats the entry after it). The
     * table is then ordered by decreasing mount path length (stable). */
    const char *s = log->exe_mnt;
    size_t nlines = 0;
    for (const char *p = strchr(s, '\n'); p; p = strchr(p + 1, '\n'))
        nlines++;
    if (nlines == 0)
        return 0;
    /* tokens are stored in a copy of the string, NUL-terminated in place: a token
     * scanned by several lines (blank lines) shares one copy, so memory stays
     * proportional to the job region */
    size_t slen = strlen(s);
    log->mounts = calloc(nlines, sizeof *log->mounts);
    log->mount_strings = malloc(slen + 1);
    if (!log->mounts || !log->mount_strings)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory for the mount table",
                       log->path);
    memcpy(log->mount_strings, s, slen + 1);
    for (const char *p = strchr(s, '\n'); p; p = strchr(p + 1, '\n')) {
        const char *t1, *t2;
        size_t l1, l2;
        const char *q = scan_token(p + 1, &t1, &l1);
        if (l1 == 0)
            continue;
        scan_token(q, &t2, &l2);
        if (l2 == 0)
            continue;
        iolens_darshan_mount *m = &log->mounts[log->nmounts++];
        char *c1 = log->mount_strings + (t1 - s), *c2 = log->mount_strings + (t2 - s);
        c1[l1] = '\0';
        c2[l2] = '\0';
        m->fs_type = c1;
        m->path = c2;
    }
    /* order by decreasing mount path length, keeping file order among equals */
    struct mount_key *keys = malloc((log->nmounts ? log->nmounts : 1) * sizeof *keys);
    if (!keys)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory for the mount table",
                       log->path);
    for (size_t i = 0; i < log->nmounts; i++) {
        keys[i].m = log->mounts[i];
        keys[i].len = strlen(log->mounts[i].path);
        keys[i].index = i;
    }
    qsort(keys, log->nmounts, sizeof *keys, cmp_mount_key);
    for (size_t i = 0; i < log->nmounts; i++)
        log->mounts[i] = keys[i].m;
    free(keys);
    return 0;
}

static int parse_job(iolens_darshan_log *log)
{
    iolens_darshan_header *h = &log->hdr;
    iol_buf raw = IOL_BUF_INIT;
    int rc = skip_job_padding(log);
    if (rc < 0)
        return rc;
    rc = iol_region_open(log, &log->reg, "job data", h->job.off, h->job.len);
    if (rc < 0)
        goto out;
    for (;;) {
        unsigned char chunk[4096];
        long long got = iol_region_read(log, &log->reg, chunk, sizeof chunk);
        if (got < 0) {
            rc = (int)got;
            goto out;
        }
        if (got == 0)
            break;
        if (raw.len + (size_t)got > JOB_REGION_MAX) {
            rc = iol_region_error(log, &log->reg, IOLENS_EFORMAT,
                                  "job data larger than %u bytes", JOB_REGION_MAX);
            goto out;
        }
        if ((rc = iol_buf_append(&raw, chunk, (size_t)got)) < 0)
            goto out;
    }
    iol_region_close(&log->reg);
    int swap = h->big_endian;
    size_t jsz = h->major * 100 + h->minor == 341 ? 1080 : 1064;
    if (raw.len < jsz) {
        rc = iol_err(IOLENS_EFORMAT,
                     "cannot read '%s': job data region: truncated job record (%zu of %zu "
                     "bytes) at byte %" PRIu64,
                     log->path, raw.len, jsz, h->job.off);
        goto out;
    }
    const unsigned char *p = (const unsigned char *)raw.data;
    iolens_darshan_job *j = &log->job;
    j->uid = (int64_t)get64(p, swap);
    if (jsz == 1080) {
        j->start_time_sec = (int64_t)get64(p + 8, swap);
        j->start_time_nsec = (int64_t)get64(p + 16, swap);
        j->end_time_sec = (int64_t)get64(p + 24, swap);
        j->end_time_nsec = (int64_t)get64(p + 32, swap);
        j->nprocs = (int64_t)get64(p + 40, swap);
        j->jobid = (int64_t)get64(p + 48, swap);
        j->run_time = ((double)j->end_time_sec + (double)j->end_time_nsec / 1e9) -
                      ((double)j->start_time_sec + (double)j->start_time_nsec / 1e9);
    } else {
        j->start_time_sec = (int64_t)get64(p + 8, swap);
        j->end_time_sec = (int64_t)get64(p + 16, swap);
        j->nprocs = (int64_t)get64(p + 24, swap);
        j->jobid = (int64_t)get64(p + 32, swap);
        j->run_time = (double)j->end_time_sec - (double)j->start_time_sec + 1.0; /* in double: hostile times must not overflow */
    }
    memcpy(j->metadata, p + jsz - 1024, 1024);
    j->metadata[1024] = '\0';
    size_t rest = raw.len - jsz;
    log->exe_mnt = malloc(rest + 1);
    if (!log->exe_mnt) {
        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", log->path);
        goto out;
    }
    memcpy(log->exe_mnt, p + jsz, rest);
    log->exe_mnt[rest] = '\0';
    size_t elen = strcspn(log->exe_mnt, "\n");
    log->exe = malloc(elen + 1);
    if (!log->exe) {
        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", log->path);
        goto out;
    }
    memcpy(log->exe, log->exe_mnt, elen);
    log->exe[elen] = '\0';
    j->exe = log->exe;
    /* darshan-util reads the job region into a 4096-byte buffer and takes the exe only up to a
     * line break it finds there: past it, or without one, it has no exe */
    log->exe_terminated = log->exe_mnt[elen] == '\n' && jsz + elen < 4096;
    rc = parse_mounts(log);
out:
    iol_buf_release(&raw);
    return rc;
}

/* ---- public: open/close, accessors ------------------------------------------ */

static iolens_darshan_log *log_new(const char *path, iolens_warn_fn warn, void *warn_ctx)
{
    iolens_darshan_log *log = calloc(1, sizeof *log);
    if (!log)
        return NULL;
    log->warn = warn;
    log->warn_ctx = warn_ctx;
    log->cur_module = -2;
    log->path = strdup(path);
    log->in_buf = malloc(IOL_DARSHAN_IOBUF);
    log->out_buf = malloc(IOL_DARSHAN_IOBUF);
    if (!log->path || !log->in_buf || !log->out_buf) {
        iolens_darshan_close(log);
        return NULL;
    }
    return log;
}

/* Header and job region of a log whose FILE and size are set. */
static int log_start(iolens_darshan_log *log)
{
    int rc = parse_header(log);
    if (rc < 0)
        return rc;
    return parse_job(log);
}

int iolens_darshan_open(const char *path, iolens_warn_fn warn, void *warn_ctx,
                        iolens_darshan_log **out)
{
    int rc;
    if (!path || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_open: NULL argument");
    *out = NULL;
    iolens_darshan_log *log = log_new(path, warn, warn_ctx);
    if (!log)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
    log->f = iol_fopen_input(path, IOL_INPUT_NOWAIT, &rc); /* only a regular file is read */
    if (!log->f)
        goto fail;
    struct stat st;
    if (fstat(fileno(log->f), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = iol_err(IOLENS_EIO, "cannot read '%s': not a regular file", path);
        goto fail;
    }
    log->hdr.file_size = (uint64_t)st.st_size;
    if ((rc = log_start(log)) < 0)
        goto fail;
    *out = log;
    return 0;
fail:
    iolens_darshan_close(log);
    return rc;
}

int iolens_darshan_open_mem(const void *data, size_t size, const char *name, iolens_warn_fn warn,
                            void *warn_ctx, iolens_darshan_log **out)
{
    int rc;
    if ((!data && size) || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_open_mem: NULL argument");
    *out = NULL;
    if (!name)
        name = "<memory>";
    if (size == 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated header at byte 0", name);
    iolens_darshan_log *log = log_new(name, warn, warn_ctx);
    if (!log)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", name);
    /* fmemopen does not write to a buffer opened "rb". */
    log->f = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!log->f) {
        rc = iol_err(IOLENS_EIO, "cannot read '%s': %s", name, strerror(errno));
        goto fail;
    }
    log->hdr.file_size = (uint64_t)size;
    if ((rc = log_start(log)) < 0)
        goto fail;
    *out = log;
    return 0;
fail:
    iolens_darshan_close(log);
    return rc;
}

void iolens_darshan_close(iolens_darshan_log *log)
{
    if (!log)
        return;
    iol_region_close(&log->reg);
    if (log->f)
        fclose(log->f);
    free(log->path);
    free(log->in_buf);
    free(log->out_buf);
    free(log->exe_mnt);
    free(log->exe);
    free(log->mounts);
    free(log->mount_strings);
    free(log->name_buf);
    free(log->ctr);
    free(log->fctr);
    free(log->raw);
    free(log->var);
    free(log->var2);
    free(log);
}

const char *iolens_darshan_path(const iolens_darshan_log *log) { return log->path; }
const iolens_darshan_header *iolens_darshan_header_get(const iolens_darshan_log *log)
{
    return &log->hdr;
}
const iolens_darshan_job *iolens_darshan_job_get(const iolens_darshan_log *log)
{
    return &log->job;
}
size_t iolens_darshan_mount_count(const iolens_darshan_log *log) { return log->nmounts; }
const iolens_darshan_mount *iolens_darshan_mount_at(const iolens_darshan_log *log, size_t i)
{
    return i < log->nmounts ? &log->mounts[i] : NULL;
}

int iolens_darshan_exe_terminated(const iolens_darshan_log *log) { return log->exe_terminated; }

const iolens_darshan_mount *iolens_darshan_mount_find(const iolens_darshan_log *log,
                                                      const char *path)
{
    if (!path)
        return NULL;
    for (size_t i = 0; i < log->nmounts; i++) {
        size_t l = strlen(log->mounts[i].path);
        if (!strncmp(path, log->mounts[i].path, l))
            return &log->mounts[i];
    }
    return NULL;
}

/* ---- names ------------------------------------------------------------------- */

int iolens_darshan_names_begin(iolens_darshan_log *log)
{
    log->cur_module = -1;
    return iol_region_open(log, &log->reg, "record table", log->hdr.name_map.off,
                           log->hdr.name_map.len);
}

int iolens_darshan_names_next(iolens_darshan_log *log, uint64_t *id, const char **name)
{
    iol_region *r = &log->reg;
    if (log->cur_module != -1)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_names_next: names_begin not called");
    unsigned char b[8];
    long long got = iol_region_read(log, r, b, 8);
    if (got < 0)
        return (int)got;
    if (got == 0)
        return 0;
    if (got < 8)
        return iol_region_error(log, r, IOLENS_EFORMAT, "truncated record id");
    int swap = log->hdr.big_endian;
    *id = get64(b, swap);
    size_t len = 0;
    if (log->hdr.major * 100 + log->hdr.minor == 300) {
        unsigned char lb[4];
        int rc = iol_region_read_full(log, r, lb, 4, "name length");
        if (rc < 0)
            return rc;
        uint32_t n = get32(lb, swap);
        if (n > NAME_MAX_LEN)
            return iol_region_error(log, r, IOLENS_EFORMAT, "name length %u too large", n);
        if (n + 1 > log->name_cap) {
            /* grow as data arrives: read n bytes in bounded steps */
            rc = iol_region_read_grow(log, r, (void **)&log->name_buf, &log->name_cap, n, "name");
            if (rc < 0)
                return rc;
            if (n + 1 > log->name_cap) {
                char *q = realloc(log->name_buf, (size_t)n + 1);
                if (!q)
                    return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", log->path);
                log->name_buf = q;
                log->name_cap = (size_t)n + 1;
            }
        } else if ((rc = iol_region_read_full(log, r, log->name_buf, n, "name")) < 0) {
            return rc;
        }
        log->name_buf[n] = '\0';
        *name = log->name_buf;
        return 1;
    }
    for (;;) {
        if (len + 1 > log->name_cap) {
            size_t ncap = log->name_cap ? log->name_cap * 2 : 256;
            char *p = realloc(log->name_buf, ncap);
            if (!p)
                return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", log->path);
            log->name_buf = p;
            log->name_cap = ncap;
        }
        if (r->out_pos < r->out_len) {
            char c = (char)r->out[r->out_pos++];
            log->name_buf[len] = c;
            if (c == '\0')
                break;
            len++;
            if (len > NAME_MAX_LEN)
                return iol_region_error(log, r, IOLENS_EFORMAT, "name longer than %u bytes",
                                        NAME_MAX_LEN);
            continue;
        }
        char c;
        got = iol_region_read(log, r, &c, 1);
        if (got < 0)
            return (int)got;
        if (got == 0)
            return iol_region_error(log, r, IOLENS_EFORMAT, "truncated name (no terminating NUL)");
        log->name_buf[len] = c;
        if (c == '\0')
            break;
        len++;
    }
    *name = log->name_buf;
    return 1;
}
