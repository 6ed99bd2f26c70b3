/* Darshan log writer: format 3.41, little-endian, zlib (one stream per region).
 * Layout (../shared/design/reference/darshan-log-format.md §1-6): 1328-byte
 * header, job region (darshan_job + exe + mount lines), name-record region,
 * then one region per module in module-id order. */
#include "counters/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/buf.h"
#include "util/error.h"

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

/* Compresses raw into one zlib stream appended to out. */
static int deflate_to(const char *path, const iol_buf *raw, iol_buf *out)
{
    uLong bound = compressBound((uLong)raw->len);
    int rc = iol_buf_reserve(out, bound + 1);
    if (rc < 0)
        return rc;
    uLongf dl = bound;
    if (compress2((Bytef *)out->data + out->len, &dl, (const Bytef *)(raw->len ? raw->data : ""),
                  (uLong)raw->len, Z_DEFAULT_COMPRESSION) != Z_OK)
        return iol_err(IOLENS_EIO, "cannot write '%s': zlib compression failed", path);
    out->len += dl;
    return 0;
}

static int encode_record(iol_buf *b, const iolens_darshan_record *r)
{
    int rc;
    if ((rc = put64(b, r->id)) < 0 || (rc = put64(b, (uint64_t)r->rank)) < 0)
        return rc;
    if (r->module == IOLENS_DARSHAN_HEATMAP) {
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
    }
    if (r->module == IOLENS_DARSHAN_DXT_POSIX || r->module == IOLENS_DARSHAN_DXT_MPIIO) {
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
    for (size_t i = 0; i < r->ncounters; i++)
        if ((rc = put64(b, (uint64_t)r->counters[i])) < 0)
            return rc;
    for (size_t i = 0; i < r->nfcounters; i++)
        if ((rc = putd(b, r->fcounters[i])) < 0)
            return rc;
    return 0;
}

static int encode_job(const iolens_counters *c, iol_buf *b)
{
    const iolens_darshan_job *j = iolens_counters_job(c);
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
    if ((rc = put(b, j->exe, strlen(j->exe))) < 0)
        return rc;
    for (size_t i = 0; i < iolens_counters_mount_count(c); i++) {
        const iolens_darshan_mount *m = iolens_counters_mount_at(c, i);
        if ((rc = put(b, "\n", 1)) < 0 || (rc = put(b, m->fs_type, strlen(m->fs_type))) < 0 ||
            (rc = put(b, "\t", 1)) < 0 || (rc = put(b, m->path, strlen(m->path))) < 0)
            return rc;
    }
    return put(b, "", 1);
}

int iolens_counters_write(const iolens_counters *c, const char *path)
{
    int rc = 0;
    iol_buf file = IOL_BUF_INIT, raw = IOL_BUF_INIT;
    FILE *f = NULL;
    if (!c || !path)
        return iol_err(IOLENS_EINVAL, "iolens_counters_write: NULL argument");
    unsigned char hdr[HDR_SIZE];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, "3.41", 4);
    set64(hdr + 8, DARSHAN_MAGIC);
    hdr[16] = IOLENS_DARSHAN_COMP_ZLIB;
    if ((rc = put(&file, hdr, sizeof hdr)) < 0)
        goto out;
    /* job region */
    if ((rc = encode_job(c, &raw)) < 0 || (rc = deflate_to(path, &raw, &file)) < 0)
        goto out;
    /* name records */
    uint64_t name_off = file.len;
    raw.len = 0;
    for (size_t i = 0; i < c->nnames; i++)
        if ((rc = put64(&raw, c->name_ids[i])) < 0 ||
            (rc = put(&raw, c->names[i], strlen(c->names[i]) + 1)) < 0)
            goto out;
    if ((rc = deflate_to(path, &raw, &file)) < 0)
        goto out;
    set64((unsigned char *)file.data + 32, name_off);
    set64((unsigned char *)file.data + 40, file.len - name_off);
    /* modules */
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t n = iolens_counters_count(c, m);
        if (n == 0)
            continue;
        raw.len = 0;
        for (size_t i = 0; i < n; i++)
            if ((rc = encode_record(&raw, iolens_counters_record(c, m, i))) < 0)
                goto out;
        uint64_t off = file.len;
        if ((rc = deflate_to(path, &raw, &file)) < 0)
            goto out;
        set64((unsigned char *)file.data + 48 + 16 * (size_t)m, off);
        set64((unsigned char *)file.data + 56 + 16 * (size_t)m, file.len - off);
        uint32_t ver = iolens_darshan_module_version(m);
        unsigned char *vp = (unsigned char *)file.data + 1072 + 4 * (size_t)m;
        for (int k = 0; k < 4; k++)
            vp[k] = (unsigned char)(ver >> (8 * k));
    }
    f = fopen(path, "wb");
    if (!f) {
        rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    if (fwrite(file.data, 1, file.len, f) != file.len) {
        rc = iol_err(IOLENS_EIO, "cannot write '%s': %s at byte 0", path, strerror(errno));
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    f = NULL;
out:
    if (f)
        fclose(f);
    iol_buf_release(&file);
    iol_buf_release(&raw);
    return rc;
}
