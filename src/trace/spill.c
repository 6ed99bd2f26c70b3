/* Reading raw spill files (see format.h). A spill may end anywhere (the
 * process was killed, the disk was full): every whole chunk is kept. */
#include "trace/spill.h"
#include "iolens/iolens.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PATH_IDS (1u << 20) /* the shim interns at most 2^17 paths */

static int add_path(iol_spill_proc *p, int32_t id, const char *s, size_t len)
{
    if (id < 0 || (uint32_t)id >= MAX_PATH_IDS)
        return IOLENS_EFORMAT;
    if ((size_t)id >= p->pcap) {
        size_t n = p->pcap ? p->pcap : 16;
        while (n <= (size_t)id)
            n *= 2;
        char **np = realloc(p->paths, n * sizeof *np);
        if (!np)
            return IOLENS_ENOMEM;
        memset(np + p->pcap, 0, (n - p->pcap) * sizeof *np);
        p->paths = np;
        p->pcap = n;
    }
    if ((size_t)id >= p->npaths)
        p->npaths = (size_t)id + 1;
    char *c = malloc(len + 1);
    if (!c)
        return IOLENS_ENOMEM;
    memcpy(c, s, len);
    c[len] = 0;
    free(p->paths[id]);
    p->paths[id] = c;
    return 0;
}

int iol_spill_stop_marker(const char *spill)
{
    static const char *names[] = {"", IOL_RAW_OFF_NAMES};
    for (int r = 1; r < IOL_RAW_OFF_COUNT; r++) {
        char m[4200];
        struct stat st;
        if ((size_t)snprintf(m, sizeof m, "%s%s%s", spill, IOL_RAW_OFF_SUFFIX, names[r]) < sizeof m &&
            stat(m, &st) == 0)
            return r;
    }
    return 0;
}

int iol_spill_start(const char *path, uint64_t *start_ns)
{
    iol_rawhdr h;
    FILE *f = fopen(path, "rb");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    size_t got = fread(&h, sizeof h, 1, f);
    fclose(f);
    if (got != 1 || memcmp(h.magic, IOL_RAW_MAGIC, 8))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': not an iolens spill file at byte 0", path);
    *start_ns = h.start_ns;
    return 0;
}

int iol_spill_read(const char *path, iol_spill_proc *out, iol_spill_recs_fn on_recs, void *ctx)
{
    memset(out, 0, sizeof *out);
    out->mpi_rank = -1;
    out->uid = -1;
    int rc = 0;
    unsigned char *payload = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", path, strerror(errno));
    iol_rawhdr h;
    if (fread(&h, sizeof h, 1, f) != 1) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated spill header at byte 0", path);
        goto done;
    }
    if (memcmp(h.magic, IOL_RAW_MAGIC, 8) != 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': not an iolens spill file (bad magic at byte 0)", path);
        goto done;
    }
    if (h.version != IOL_RAW_VERSION || h.rec_size != sizeof(iol_rawrec) || h.nfuncs != IOL_F_COUNT) {
        rc = iol_err(IOLENS_EVERSION, "cannot read '%s': spill version %u (record %u bytes, %u functions) "
                     "does not match this iolens", path, h.version, h.rec_size, h.nfuncs);
        goto done;
    }
    out->pid = h.pid;
    out->ppid = h.ppid;
    out->start_ns = h.start_ns;
    size_t pcap = 0;
    uint64_t pos = sizeof h;
    for (;;) {
        iol_rawchunk c;
        size_t got = fread(&c, 1, sizeof c, f);
        if (got == 0)
            break;
        if (got != sizeof c || c.magic != IOL_RAW_CHUNK_MAGIC || c.bytes > IOL_RAW_MAX_CHUNK) {
            out->truncated = 1; /* a cut or garbled tail: keep what came before */
            break;
        }
        if (c.bytes > pcap) { /* grown to the largest chunk seen (at most IOL_RAW_MAX_CHUNK) */
            unsigned char *np = realloc(payload, c.bytes);
            if (!np) {
                rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory at byte %llu", path,
                             (unsigned long long)pos);
                goto done;
            }
            payload = np;
            pcap = c.bytes;
        }
        if (c.bytes && fread(payload, 1, c.bytes, f) != c.bytes) {
            out->truncated = 1;
            break;
        }
        switch (c.type) {
        case IOL_RAW_RECS: {
            if (c.bytes % sizeof(iol_rawrec)) {
                out->truncated = 1;
                goto end_loop;
            }
            size_t n = c.bytes / sizeof(iol_rawrec);
            const iol_rawrec *r = (const iol_rawrec *)(const void *)payload;
            for (size_t i = 0; i < n; i++)
                if (r[i].func >= IOL_F_COUNT) {
                    rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': unknown function id %u at byte %llu",
                                 path, r[i].func, (unsigned long long)(pos + sizeof c + i * sizeof *r));
                    goto done;
                }
            int crc = on_recs(ctx, c.thread, r, n);
            if (crc) {
                rc = iol_err(crc, "cannot encode '%s': %s at byte %llu", path,
                             crc == IOLENS_ENOMEM ? "out of memory" : "too many threads",
                             (unsigned long long)pos);
                goto done;
            }
            break;
        }
        case IOL_RAW_PATH: {
            int32_t id;
            if (c.bytes < 4 || c.bytes > 4 + IOL_RAW_MAX_PATH) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bad path chunk at byte %llu", path,
                             (unsigned long long)pos);
                goto done;
            }
            memcpy(&id, payload, 4);
            int prc = add_path(out, id, (const char *)payload + 4, c.bytes - 4);
            if (prc) {
                rc = iol_err(prc, "cannot read '%s': bad path id %d at byte %llu", path, id,
                             (unsigned long long)pos);
                goto done;
            }
            break;
        }
        case IOL_RAW_RANK:
            if (c.bytes >= 4)
                memcpy(&out->mpi_rank, payload, 4);
            break;
        case IOL_RAW_END: out->ended = 1; break;
        case IOL_RAW_SELF:
            if (c.bytes >= sizeof out->self) {
                memcpy(&out->self, payload, sizeof out->self);
                size_t n = (c.bytes - sizeof out->self) / sizeof(iol_rawselff);
                free(out->selff);
                out->selff = NULL;
                out->nselff = 0;
                if (n && n <= IOL_F_COUNT) { /* one entry per function at most */
                    if (!(out->selff = malloc(n * sizeof *out->selff))) {
                        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
                        goto done;
                    }
                    memcpy(out->selff, (const char *)payload + sizeof out->self, n * sizeof *out->selff);
                    out->nselff = n;
                }
            }
            break;
        case IOL_RAW_JOB: {
            uint32_t uid, cl;
            if (c.bytes < 8 || out->cmd || out->jobid)
                break; /* (one per process; a second is ignored) */
            memcpy(&uid, payload, 4);
            memcpy(&cl, payload + 4, 4);
            size_t jl = c.bytes - 8 - (cl <= c.bytes - 8 ? cl : 0);
            if (cl > c.bytes - 8 || cl > IOL_RAW_MAX_CMDLINE || jl > IOL_RAW_MAX_JOBID) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': bad job chunk at byte %llu", path,
                             (unsigned long long)pos);
                goto done;
            }
            if ((cl && !(out->cmd = malloc(cl + 1))) || !(out->jobid = malloc(jl + 1))) {
                rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
                goto done;
            }
            out->uid = uid == UINT32_MAX ? -1 : (int64_t)uid;
            if (cl) { /* every argument NUL-terminated (as the trace's reader makes them) */
                memcpy(out->cmd, payload + 8, cl);
                out->cmd[cl] = 0;
                out->cmdlen = cl;
                if (out->cmd[cl - 1] && cl < IOL_RAW_MAX_CMDLINE)
                    out->cmdlen = cl + 1;
                else
                    out->cmd[cl - 1] = 0;
            }
            memcpy(out->jobid, payload + 8 + cl, jl);
            out->jobid[jl] = 0;
            break;
        }
        default: break; /* unknown chunk types are skipped (forward compatible) */
        }
        pos += sizeof c + c.bytes;
    }
end_loop:
    if (!out->ended)
        out->truncated = 1;
    out->stopped = iol_spill_stop_marker(path);
done:
    free(payload);
    fclose(f);
    if (rc)
        iol_spill_release(out);
    return rc;
}

void iol_spill_release(iol_spill_proc *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->pcap; i++)
        free(p->paths[i]);
    free(p->paths);
    free(p->selff);
    free(p->cmd);
    free(p->jobid);
    memset(p, 0, sizeof *p);
}
