/* Where trace files come from (a directory, memory, recorder.dat sections),
 * bounded little-endian readers and zlib blocks for the Recorder reader. */
#include "recorder/rec_internal.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void rec_file_release(rec_file *f)
{
    free(f->owned);
    memset(f, 0, sizeof *f);
}

/* recorder.dat section types, in the order the format description lists them. */
enum { SEC_METADATA = 0, SEC_TIMESTAMPS, SEC_GLOBAL_CST, SEC_GLOBAL_CFG, SEC_CFG_META, SEC_RANK_CST, SEC_RANK_CFG };

static int section_for(const char *name, uint32_t *type, int32_t *rank)
{
    static const struct { const char *name; uint32_t type; } fixed[] = {
        {"recorder.mt", SEC_METADATA}, {"recorder.ts", SEC_TIMESTAMPS}, {"recorder.cst", SEC_GLOBAL_CST},
        {"ug.cfg", SEC_GLOBAL_CFG}, {"ug.mt", SEC_CFG_META},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(name, fixed[i].name)) {
            *type = fixed[i].type;
            *rank = -1;
            return 1;
        }
    char *end;
    long r = strtol(name, &end, 10);
    if (end == name || r < 0 || r > INT32_MAX)
        return 0;
    if (!strcmp(end, ".cst"))
        *type = SEC_RANK_CST;
    else if (!strcmp(end, ".cfg"))
        *type = SEC_RANK_CFG;
    else
        return 0;
    *rank = (int32_t)r;
    return 1;
}

static int load_raw(rec_provider *p, const char *name, rec_file *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    if (p->mem) {
        for (size_t i = 0; i < p->nmem; i++)
            if (p->mem[i].name && !strcmp(p->mem[i].name, name)) {
                if (p->mem[i].size > p->max_bytes)
                    return iol_err(IOLENS_EFORMAT, "cannot read '%s/%s': %zu bytes exceed the limit of %llu",
                                   p->label, name, p->mem[i].size, (unsigned long long)p->max_bytes);
                out->data = p->mem[i].data;
                out->size = p->mem[i].size;
                return 0;
            }
        return iol_err(IOLENS_ENOTFOUND, "cannot read '%s/%s': no such file", p->label, name);
    }
    iol_buf path = IOL_BUF_INIT, content = IOL_BUF_INIT;
    int rc = iol_buf_printf(&path, "%s/%s", p->dir, name);
    if (rc < 0)
        goto done;
    struct stat st;
    if (stat(path.data, &st) != 0) {
        rc = iol_err(errno == ENOENT ? IOLENS_ENOTFOUND : IOLENS_EIO, "cannot read '%s': %s", path.data,
                     strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = iol_err(IOLENS_EIO, "cannot read '%s': not a regular file", path.data);
        goto done;
    }
    rc = iol_read_file(path.data, (size_t)p->max_bytes, &content);
    if (rc < 0)
        goto done;
    out->size = content.len;
    out->owned = (uint8_t *)iol_buf_detach(&content, NULL);
    if (!out->owned) {
        out->owned = malloc(1);
        if (!out->owned) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
    }
    out->data = out->owned;
done:
    iol_buf_release(&path);
    iol_buf_release(&content);
    return rc;
}

int rec_load(rec_provider *p, const char *name, rec_file *out)
{
    if (!p->sections)
        return load_raw(p, name, out);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    uint32_t type;
    int32_t rank;
    if (section_for(name, &type, &rank))
        for (uint32_t i = 0; i < p->nsections; i++)
            if (p->sections[i].type == type && p->sections[i].rank == rank) {
                out->data = p->dat.data + p->sections[i].offset;
                out->size = (size_t)p->sections[i].size;
                snprintf(out->name, sizeof out->name, "recorder.dat");
                return 0;
            }
    return iol_err(IOLENS_ENOTFOUND, "cannot read '%s/recorder.dat': no section for '%s'", p->label, name);
}

int rec_exists(rec_provider *p, const char *name)
{
    if (p->sections) {
        uint32_t type;
        int32_t rank;
        if (!section_for(name, &type, &rank))
            return 0;
        for (uint32_t i = 0; i < p->nsections; i++)
            if (p->sections[i].type == type && p->sections[i].rank == rank)
                return 1;
        return 0;
    }
    if (p->mem) {
        for (size_t i = 0; i < p->nmem; i++)
            if (p->mem[i].name && !strcmp(p->mem[i].name, name))
                return 1;
        return 0;
    }
    iol_buf path = IOL_BUF_INIT;
    struct stat st;
    int ok = iol_buf_printf(&path, "%s/%s", p->dir, name) == 0 && stat(path.data, &st) == 0;
    iol_buf_release(&path);
    return ok;
}

/* recorder.dat: "RECORDER", u32 format_version, u32 num_sections, then
 * {u32 type; i32 rank; u64 offset; u64 size} entries. */
int rec_open_sections(rec_provider *p)
{
    int rc = load_raw(p, "recorder.dat", &p->dat);
    if (rc < 0)
        return rc;
    rec_cur c = {p->dat.data, p->dat.size, 0, NULL, NULL, 0};
    char label[4096];
    snprintf(label, sizeof label, "%s/recorder.dat", p->label);
    c.label = label;
    const uint8_t *magic = NULL;
    int32_t fmt, nsec;
    if ((rc = rec_rd_bytes(&c, 8, &magic, "magic")) < 0)
        return rc;
    if (memcmp(magic, "RECORDER", 8) != 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': bad magic at byte 0 (not a Recorder file)", label);
    if ((rc = rec_rd_i32(&c, &fmt, "format version")) < 0 || (rc = rec_rd_i32(&c, &nsec, "section count")) < 0)
        return rc;
    if (nsec < 0 || (uint64_t)nsec > (p->dat.size - c.pos) / 24)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': section count %u does not fit the file at byte 12",
                       label, (unsigned)nsec);
    p->sections = calloc(nsec ? (size_t)nsec : 1, sizeof *p->sections);
    if (!p->sections)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    p->nsections = (uint32_t)nsec;
    for (uint32_t i = 0; i < p->nsections; i++) {
        size_t at = c.pos;
        int32_t type, rank;
        uint64_t off, size;
        if ((rc = rec_rd_i32(&c, &type, "section type")) < 0 || (rc = rec_rd_i32(&c, &rank, "section rank")) < 0 ||
            (rc = rec_rd_u64(&c, &off, "section offset")) < 0 || (rc = rec_rd_u64(&c, &size, "section size")) < 0)
            return rc;
        if (off > p->dat.size || size > p->dat.size - off)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': section %u (bytes %llu+%llu) lies outside the file "
                           "(%zu bytes), entry at byte %zu", label, i, (unsigned long long)off,
                           (unsigned long long)size, p->dat.size, at);
        p->sections[i] = (struct rec_section){(uint32_t)type, rank, off, size};
    }
    (void)fmt;
    return 0;
}

void rec_provider_release(rec_provider *p)
{
    rec_file_release(&p->dat);
    free(p->sections);
    free(p->label);
    memset(p, 0, sizeof *p);
}

int rec_cur_err(const rec_cur *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->what)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %zu of the %s", c->label, msg, c->pos, c->what);
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %llu", c->label, msg,
                   (unsigned long long)(c->base + c->pos));
}

int rec_rd_bytes(rec_cur *c, size_t n, const uint8_t **out, const char *field)
{
    if (n > c->len - c->pos)
        return rec_cur_err(c, "truncated %s (%zu bytes needed, %zu left)", field, n, c->len - c->pos);
    *out = c->p + c->pos;
    c->pos += n;
    return 0;
}

int rec_rd_i32(rec_cur *c, int32_t *v, const char *field)
{
    const uint8_t *b = NULL;
    int rc = rec_rd_bytes(c, 4, &b, field);
    if (rc < 0)
        return rc;
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    memcpy(v, &u, 4);
    return 0;
}

int rec_rd_u64(rec_cur *c, uint64_t *v, const char *field)
{
    const uint8_t *b = NULL;
    int rc = rec_rd_bytes(c, 8, &b, field);
    if (rc < 0)
        return rc;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | b[i];
    *v = u;
    return 0;
}

int rec_inflate_block(rec_cur *c, uint64_t max_bytes, uint8_t **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    size_t at = c->pos;
    uint64_t csize, dsize;
    const uint8_t *src;
    int rc;
    if ((rc = rec_rd_u64(c, &csize, "compressed block size")) < 0 ||
        (rc = rec_rd_u64(c, &dsize, "decompressed block size")) < 0)
        return rc;
    if (csize > c->len - c->pos) {
        c->pos = at;
        return rec_cur_err(c, "compressed block of %llu bytes runs past the end (%zu bytes left)",
                           (unsigned long long)csize, c->len - c->pos - 16);
    }
    /* zlib cannot expand more than ~1032:1; a larger claim is corrupt. */
    if (dsize > max_bytes || dsize > csize * 1100 + 64) {
        c->pos = at;
        return rec_cur_err(c, "implausible decompressed size %llu for a %llu-byte block",
                           (unsigned long long)dsize, (unsigned long long)csize);
    }
    if ((rc = rec_rd_bytes(c, (size_t)csize, &src, "compressed block")) < 0)
        return rc;
    uint8_t *dst = malloc(dsize ? (size_t)dsize : 1);
    if (!dst)
        return iol_err(IOLENS_ENOMEM, "out of memory (%llu bytes for a block of '%s')", (unsigned long long)dsize,
                       c->label);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) {
        free(dst);
        return iol_err(IOLENS_ENOMEM, "cannot initialise zlib");
    }
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)csize;
    zs.next_out = dst;
    zs.avail_out = (uInt)dsize;
    int zr = inflate(&zs, Z_FINISH);
    size_t got = (size_t)zs.total_out;
    inflateEnd(&zs);
    if (zr != Z_STREAM_END || got != dsize) {
        free(dst);
        size_t save = c->pos;
        c->pos = at;
        rc = rec_cur_err(c, "corrupt compressed block (%s, %zu of %llu bytes)",
                         zr == Z_STREAM_END ? "size mismatch" : zr == Z_BUF_ERROR ? "data longer than declared"
                                                                                   : "zlib data error",
                         got, (unsigned long long)dsize);
        c->pos = save;
        return rc;
    }
    *out = dst;
    *outlen = got;
    return 0;
}
