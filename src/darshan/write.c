/* Darshan log writer: format 3.41, little-endian, one compressed stream per region.
 * Layout (../shared/design/reference/darshan-log-format.md §1-6): the 1328-byte header,
 * the job region (darshan_job, exe, mount lines), the name-record region, then one region
 * per module in module-id order, each record in the current version of its module. */
#include "darshan/internal.h"

#include <bzlib.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

#define DARSHAN_MAGIC 6567223ULL
#define HDR_SIZE 1328

static int put(iol_buf *b, const void *p, size_t n) { return iol_buf_append(b, p, n); }

static int put64(iol_buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    return put(b, x, 8);
}

static int putd(iol_buf *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return put64(b, v);
}

static void set64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Appends raw to out as one stream of the given compression. */
static int compress_to(const char *path, int comp, const iol_buf *raw, iol_buf *out)
{
    const char *src = raw->len ? raw->data : "";
    int rc;
    if (comp == IOLENS_DARSHAN_COMP_NONE)
        return put(out, src, raw->len);
    if (comp == IOLENS_DARSHAN_COMP_BZIP2) {
        if (raw->len > UINT_MAX / 2)
            return iol_err(IOLENS_EINVAL, "cannot write '%s': a region of %zu bytes is too large for bzip2",
                           path, raw->len);
        unsigned int bound = (unsigned int)(raw->len + raw->len / 100 + 600);
        if ((rc = iol_buf_reserve(out, bound + 1)) < 0)
            return rc;
        unsigned int dl = bound;
        if (BZ2_bzBuffToBuffCompress(out->data + out->len, &dl, (char *)src, (unsigned int)raw->len, 9,
                                     0, 30) != BZ_OK)
            return iol_err(IOLENS_EIO, "cannot write '%s': bzip2 compression failed", path);
        out->len += dl;
        return 0;
    }
    uLong bound = compressBound((uLong)raw->len);
    if ((rc = iol_buf_reserve(out, bound + 1)) < 0)
        return rc;
    uLongf dl = bound;
    if (compress2((Bytef *)out->data + out->len, &dl, (const Bytef *)src, (uLong)raw->len,
                  Z_DEFAULT_COMPRESSION) != Z_OK)
        return iol_err(IOLENS_EIO, "cannot write '%s': zlib compression failed", path);
    out->len += dl;
    return 0;
}

static int encode_record(const char *path, iol_buf *b, const iolens_darshan_record *r)
{
    int rc;
    if ((rc = put64(b, r->id)) < 0 || (rc = put64(b, (uint64_t)r->rank)) < 0)
        return rc;
    switch (r->module) {
    case IOLENS_DARSHAN_HEATMAP:
        if ((rc = putd(b, r->heatmap.bin_width)) < 0 || (rc = put64(b, (uint64_t)r->heatmap.nbins)) < 0 ||
            (rc = put64(b, 0)) < 0 || (rc = put64(b, 0)) < 0)
            return rc;
        for (int64_t i = 0; i < r->heatmap.nbins; i++)
            if ((rc = put64(b, (uint64_t)r->heatmap.write_bins[i])) < 0)
                return rc;
        for (int64_t i = 0; i < r->heatmap.nbins; i++)
            if ((rc = put64(b, (uint64_t)r->heatmap.read_bins[i])) < 0)
                return rc;
        return 0;
    case IOLENS_DARSHAN_DXT_POSIX:
    case IOLENS_DARSHAN_DXT_MPIIO: {
        char host[64] = {0};
        memcpy(host, r->dxt.hostname, strnlen(r->dxt.hostname, 63));
        if ((rc = put64(b, (uint64_t)r->dxt.shared_record)) < 0 || (rc = put(b, host, 64)) < 0 ||
            (rc = put64(b, (uint64_t)r->dxt.write_count)) < 0 ||
            (rc = put64(b, (uint64_t)r->dxt.read_count)) < 0)
            return rc;
        int64_t n = r->dxt.write_count + r->dxt.read_count;
        for (int64_t i = 0; i < n; i++) {
            const iolens_darshan_dxt_seg *s = &r->dxt.segs[i];
            if ((rc = put64(b, (uint64_t)s->offset)) < 0 || (rc = put64(b, (uint64_t)s->length)) < 0 ||
                (rc = putd(b, s->start)) < 0 || (rc = putd(b, s->end)) < 0 ||
                (rc = put64(b, s->pthread_id)) < 0)
                return rc;
        }
        return 0;
    }
    case IOLENS_DARSHAN_LUSTRE: {
        if ((rc = put64(b, (uint64_t)r->lustre.num_comps)) < 0 ||
            (rc = put64(b, (uint64_t)r->lustre.num_stripes)) < 0)
            return rc;
        for (int64_t i = 0; i < r->lustre.num_comps; i++) {
            const iolens_darshan_lustre_comp *c = &r->lustre.comps[i];
            char pool[16] = {0};
            memcpy(pool, c->pool_name, strnlen(c->pool_name, 16));
            if ((rc = put64(b, (uint64_t)c->stripe_size)) < 0 || (rc = put64(b, (uint64_t)c->stripe_count)) < 0 ||
                (rc = put64(b, (uint64_t)c->stripe_pattern)) < 0 || (rc = put64(b, (uint64_t)c->flags)) < 0 ||
                (rc = put64(b, (uint64_t)c->ext_start)) < 0 || (rc = put64(b, (uint64_t)c->ext_end)) < 0 ||
                (rc = put64(b, (uint64_t)c->mirror_id)) < 0 || (rc = put(b, pool, 16)) < 0)
                return rc;
        }
        for (int64_t i = 0; i < r->lustre.num_stripes; i++)
            if ((rc = put64(b, (uint64_t)r->lustre.osts[i])) < 0)
                return rc;
        return 0;
    }
    case IOLENS_DARSHAN_POSIX:
    case IOLENS_DARSHAN_MPIIO:
    case IOLENS_DARSHAN_H5F:
    case IOLENS_DARSHAN_H5D:
    case IOLENS_DARSHAN_PNETCDF_FILE:
    case IOLENS_DARSHAN_PNETCDF_VAR:
    case IOLENS_DARSHAN_BGQ:
    case IOLENS_DARSHAN_STDIO:
    case IOLENS_DARSHAN_DFS:
    case IOLENS_DARSHAN_DAOS:
        break;
    default:
        return iol_err(IOLENS_EINVAL, "cannot write '%s': records of module %s cannot be written", path,
                       iolens_darshan_module_name(r->module));
    }
    if (r->ncounters != iolens_darshan_counter_count(r->module) ||
        r->nfcounters != iolens_darshan_fcounter_count(r->module))
        return iol_err(IOLENS_EINVAL, "cannot write '%s': a %s record has %zu and %zu counters, not the "
                       "current version's %zu and %zu", path, iolens_darshan_module_name(r->module),
                       r->ncounters, r->nfcounters, iolens_darshan_counter_count(r->module),
                       iolens_darshan_fcounter_count(r->module));
    if ((r->module == IOLENS_DARSHAN_H5D || r->module == IOLENS_DARSHAN_PNETCDF_VAR) &&
        (rc = put64(b, r->file_rec_id)) < 0)
        return rc;
    for (size_t i = 0; i < r->ncounters; i++)
        if ((rc = put64(b, (uint64_t)r->counters[i])) < 0)
            return rc;
    for (size_t i = 0; i < r->nfcounters; i++)
        if ((rc = putd(b, r->fcounters[i])) < 0)
            return rc;
    if (r->module == IOLENS_DARSHAN_DFS || r->module == IOLENS_DARSHAN_DAOS) {
        if ((rc = put(b, r->pool_uuid, 16)) < 0 || (rc = put(b, r->cont_uuid, 16)) < 0)
            return rc;
        if (r->module == IOLENS_DARSHAN_DAOS &&
            ((rc = put64(b, r->oid_hi)) < 0 || (rc = put64(b, r->oid_lo)) < 0))
            return rc;
    }
    return 0;
}

static int encode_job(const iolens_darshan_image *img, iol_buf *b)
{
    const iolens_darshan_job *j = img->job;
    int rc;
    if ((rc = put64(b, (uint64_t)j->uid)) < 0 || (rc = put64(b, (uint64_t)j->start_time_sec)) < 0 ||
        (rc = put64(b, (uint64_t)j->start_time_nsec)) < 0 ||
        (rc = put64(b, (uint64_t)j->end_time_sec)) < 0 ||
        (rc = put64(b, (uint64_t)j->end_time_nsec)) < 0 || (rc = put64(b, (uint64_t)j->nprocs)) < 0 ||
        (rc = put64(b, (uint64_t)j->jobid)) < 0)
        return rc;
    char meta[1024] = {0};
    memcpy(meta, j->metadata, strnlen(j->metadata, 1023));
    if ((rc = put(b, meta, 1024)) < 0)
        return rc;
    const char *exe = j->exe ? j->exe : "";
    if ((rc = put(b, exe, strlen(exe))) < 0)
        return rc;
    for (size_t i = 0; i < img->nmounts; i++) {
        const iolens_darshan_mount *m = &img->mounts[i];
        if ((rc = put(b, "\n", 1)) < 0 || (rc = put(b, m->fs_type, strlen(m->fs_type))) < 0 ||
            (rc = put(b, "\t", 1)) < 0 || (rc = put(b, m->path, strlen(m->path))) < 0)
            return rc;
    }
    return put(b, "", 1);
}

/* Whole or not at all: a temporary file beside path renamed over it (util/fs.h); a file path
 * named before is left as it was when the write fails. */
static int write_all(const char *path, const iol_buf *file)
{
    iol_atomic a;
    FILE *f = iol_atomic_fopen(&a, path, "wb");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
    size_t n = fwrite(file->data, 1, file->len, f);
    int werr = n != file->len ? (errno ? errno : EIO) : 0;
    if (iol_atomic_fclose(&a, f, !werr) < 0 && !werr)
        werr = errno ? errno : EIO;
    if (werr)
        return iol_err(IOLENS_EIO, "cannot write '%s': %s at byte %zu", path, strerror(werr), n);
    return 0;
}

int iolens_darshan_write(const iolens_darshan_image *img, const char *path)
{
    if (!img || !img->job || !path)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_write: NULL argument");
    int comp = img->comp;
    if (comp != IOLENS_DARSHAN_COMP_ZLIB && comp != IOLENS_DARSHAN_COMP_BZIP2 && comp != IOLENS_DARSHAN_COMP_NONE)
        return iol_err(IOLENS_EINVAL, "cannot write '%s': unknown compression %d", path, comp);
    int rc = 0;
    iol_buf file = IOL_BUF_INIT, raw = IOL_BUF_INIT;
    unsigned char hdr[HDR_SIZE];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, "3.41", 4);
    set64(hdr + 8, DARSHAN_MAGIC);
    hdr[16] = (unsigned char)comp;
    set64(hdr + 24, img->partial_flag);
    if ((rc = put(&file, hdr, sizeof hdr)) < 0)
        goto out;
    /* job region: at the header's end, its length implied by the name region's offset */
    if ((rc = encode_job(img, &raw)) < 0 || (rc = compress_to(path, comp, &raw, &file)) < 0)
        goto out;
    uint64_t name_off = file.len;
    raw.len = 0;
    for (size_t i = 0; i < img->nnames; i++)
        if ((rc = put64(&raw, img->name_ids[i])) < 0 ||
            (rc = put(&raw, img->names[i], strlen(img->names[i]) + 1)) < 0)
            goto out;
    if ((rc = compress_to(path, comp, &raw, &file)) < 0)
        goto out;
    set64((unsigned char *)file.data + 32, name_off);
    set64((unsigned char *)file.data + 40, file.len - name_off);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t n = img->nrecords[m];
        if (n == 0)
            continue;
        raw.len = 0;
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = img->records[m][i];
            if (r->module != m) {
                rc = iol_err(IOLENS_EINVAL, "cannot write '%s': a %s record among the %s records", path,
                             iolens_darshan_module_name(r->module), iolens_darshan_module_name(m));
                goto out;
            }
            if ((rc = encode_record(path, &raw, r)) < 0)
                goto out;
        }
        uint64_t off = file.len;
        if ((rc = compress_to(path, comp, &raw, &file)) < 0)
            goto out;
        set64((unsigned char *)file.data + 48 + 16 * (size_t)m, off);
        set64((unsigned char *)file.data + 56 + 16 * (size_t)m, file.len - off);
        uint32_t ver = iolens_darshan_module_version(m);
        unsigned char *vp = (unsigned char *)file.data + 1072 + 4 * (size_t)m;
        for (int k = 0; k < 4; k++)
            vp[k] = (unsigned char)(ver >> (8 * k));
    }
    rc = write_all(path, &file);
out:
    iol_buf_release(&file);
    iol_buf_release(&raw);
    return rc;
}

/* lookup3's hashlittle (Bob Jenkins, "lookup3.c", 2006, public domain), byte by byte, so the
 * result does not depend on the host's byte order or alignment. */
#define ROT32(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
#define MIX32(a, b, c)                                                                                  \
    do {                                                                                                \
        a -= c; a ^= ROT32(c, 4); c += b;                                                               \
        b -= a; b ^= ROT32(a, 6); a += c;                                                               \
        c -= b; c ^= ROT32(b, 8); b += a;                                                               \
        a -= c; a ^= ROT32(c, 16); c += b;                                                              \
        b -= a; b ^= ROT32(a, 19); a += c;                                                              \
        c -= b; c ^= ROT32(b, 4); b += a;                                                               \
    } while (0)
#define FINAL32(a, b, c)                                                                                \
    do {                                                                                                \
        c ^= b; c -= ROT32(b, 14);                                                                      \
        a ^= c; a -= ROT32(c, 11);                                                                      \
        b ^= a; b -= ROT32(a, 25);                                                                      \
        c ^= b; c -= ROT32(b, 16);                                                                      \
        a ^= c; a -= ROT32(c, 4);                                                                       \
        b ^= a; b -= ROT32(a, 14);                                                                      \
        c ^= b; c -= ROT32(b, 24);                                                                      \
    } while (0)

static uint32_t le32n(const unsigned char *k, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint32_t)k[i] << (8 * i);
    return v;
}

uint32_t iolens_darshan_hash32(const void *key, size_t len, uint32_t initval)
{
    const unsigned char *k = key;
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)len + initval;
    while (len > 12) {
        a += le32n(k, 4);
        b += le32n(k + 4, 4);
        c += le32n(k + 8, 4);
        MIX32(a, b, c);
        len -= 12;
        k += 12;
    }
    if (len == 0)
        return c;
    a += le32n(k, len < 4 ? len : 4);
    if (len > 4)
        b += le32n(k + 4, len < 8 ? len - 4 : 4);
    if (len > 8)
        c += le32n(k + 8, len - 8);
    FINAL32(a, b, c);
    return c;
}
