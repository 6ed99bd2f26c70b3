/* One-line summaries of Darshan logs: job facts and per-module totals, read by
 * streaming the records (iolens darshan --summary, iolens batch). */
#include "iolens/darshan.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "darshan/internal.h"
#include "util/buf.h"
#include "util/idpart.h"
#include "util/error.h"
#include "util/jsonw.h"

static const struct {
    int module;
    const char *col; /* column prefix */
    const char *pfx; /* counter prefix */
} io_mods[IOLENS_DARSHAN_SUMMARY_NMODS] = {
    {IOLENS_DARSHAN_POSIX, "posix", "POSIX"},
    {IOLENS_DARSHAN_MPIIO, "mpiio", "MPIIO"},
    {IOLENS_DARSHAN_STDIO, "stdio", "STDIO"},
    {IOLENS_DARSHAN_H5D, "h5d", "H5D"},
    {IOLENS_DARSHAN_PNETCDF_VAR, "pnetcdf_var", "PNETCDF_VAR"},
    {IOLENS_DARSHAN_DFS, "dfs", "DFS"},
    {IOLENS_DARSHAN_DAOS, "daos", "DAOS"},
};

int iolens_darshan_summary_module(int k, const char **column)
{
    if (k < 0 || k >= IOLENS_DARSHAN_SUMMARY_NMODS) {
        if (column)
            *column = NULL;
        return -1;
    }
    if (column)
        *column = io_mods[k].col;
    return io_mods[k].module;
}

/* modules whose records are files (their distinct ids are counted) */
static int is_file_module(int m)
{
    return m == IOLENS_DARSHAN_POSIX || m == IOLENS_DARSHAN_MPIIO || m == IOLENS_DARSHAN_STDIO ||
           m == IOLENS_DARSHAN_H5F || m == IOLENS_DARSHAN_PNETCDF_FILE || m == IOLENS_DARSHAN_DFS ||
           m == IOLENS_DARSHAN_DAOS;
}

/* a set of 64-bit ids (open addressing; 0 kept apart) */
struct idset {
    uint64_t *slot;
    size_t cap, n;
    int has_zero;
};

static int idset_add(struct idset *s, uint64_t id)
{
    if (id == 0) {
        s->has_zero = 1;
        return 0;
    }
    if ((s->n + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint64_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t h = (size_t)(s->slot[i] * 0x9E3779B97F4A7C15ull) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->cap = ncap;
    }
    size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->slot[h] && s->slot[h] != id)
        h = (h + 1) & (s->cap - 1);
    if (!s->slot[h]) {
        s->slot[h] = id;
        s->n++;
    }
    return 0;
}

static double fget(const iolens_darshan_record *r, int idx)
{
    return idx >= 0 && (size_t)idx < r->nfcounters && r->fcounters[idx] > 0 ? r->fcounters[idx] : 0;
}

static int64_t iget(const iolens_darshan_record *r, int idx)
{
    return idx >= 0 && (size_t)idx < r->ncounters && r->counters[idx] > 0 ? r->counters[idx] : 0;
}

static int counter(int m, const char *pfx, const char *what)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%s", pfx, what);
    return iolens_darshan_counter_index(m, name, NULL);
}

/* One reading of the log. The module sums and the job come from the first pass (part 0);
 * each pass counts the distinct file ids whose hash falls in its part, so the id set holds
 * about 1/nparts of them. More than max_ids in a pass: the pass reads
 * on, estimating its part's distinct ids by linear counting in a bitmap ("A Linear-Time
 * Probabilistic Counting Algorithm for Database Applications", Whang et al.), and returns
 * IOL_SUMMARY_MORE_PARTS with the estimate in *part_ids. */
#define IOL_SUMMARY_MORE_PARTS 1
#define IOL_SUMMARY_BITS_LOG2 23 /* 1 MiB: estimates to ~10^7 ids */

static void bit_set(uint64_t *bits, uint64_t id)
{
    uint64_t b = (id * 0x9E3779B97F4A7C15ull) >> (64 - IOL_SUMMARY_BITS_LOG2);
    bits[b >> 6] |= 1ull << (b & 63);
}

static double bits_estimate(const uint64_t *bits)
{
    const size_t m = (size_t)1 << IOL_SUMMARY_BITS_LOG2;
    size_t ones = 0;
    for (size_t i = 0; i < m / 64; i++)
        ones += (size_t)__builtin_popcountll(bits[i]);
    if (ones >= m)
        return (double)m * 64; /* saturated: far more than it can tell */
    return -(double)m * log((double)(m - ones) / (double)m);
}

static int summary_pass(const char *path, iolens_darshan_summary *s, struct idset *ids, unsigned nparts,
                        unsigned part, size_t max_ids, double *part_ids)
{
    int over = 0;
    uint64_t *bits = NULL;
    *part_ids = 0;
    iolens_darshan_log *log = NULL;
    int rc = iolens_darshan_open(path, NULL, NULL, &log);
    if (rc < 0)
        return rc;
    if (part == 0) {
        const iolens_darshan_header *h = iolens_darshan_header_get(log);
        const iolens_darshan_job *j = iolens_darshan_job_get(log);
        snprintf(s->version, sizeof s->version, "%s", h->version);
        s->jobid = j->jobid;
        s->uid = j->uid;
        s->nprocs = j->nprocs;
        s->start_time = j->start_time_sec;
        s->end_time = j->end_time_sec;
        s->run_time = j->run_time;
        s->partial_flag = h->partial_flag;
        if (!(s->exe = strdup(j->exe))) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
            goto out;
        }
    }
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        int k;
        for (k = 0; k < IOLENS_DARSHAN_SUMMARY_NMODS && io_mods[k].module != m; k++)
            ;
        if (k == IOLENS_DARSHAN_SUMMARY_NMODS && !is_file_module(m))
            continue;
        if (part > 0 && !is_file_module(m))
            continue;
        if ((rc = iolens_darshan_module_begin(log, m)) < 0)
            goto out;
        if (rc == 0)
            continue;
        iolens_darshan_summary_mod *ms = k < IOLENS_DARSHAN_SUMMARY_NMODS && part == 0 ? &s->mod[k] : NULL;
        int ibr = -1, ibw = -1, frt = -1, fwt = -1, fmt = -1;
        if (ms) {
            ms->present = 1;
            ibr = counter(m, io_mods[k].pfx, "BYTES_READ");
            ibw = counter(m, io_mods[k].pfx, "BYTES_WRITTEN");
            frt = counter(m, io_mods[k].pfx, "F_READ_TIME");
            fwt = counter(m, io_mods[k].pfx, "F_WRITE_TIME");
            fmt = counter(m, io_mods[k].pfx, "F_META_TIME");
        }
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
            if (is_file_module(m) && iol_id_part(r->id, nparts) == part) {
                if (over)
                    bit_set(bits, r->id);
                else if (idset_add(ids, r->id) < 0) {
                    rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
                    goto out;
                } else if (ids->n > max_ids) { /* full: read on, estimating how many parts are needed */
                    if (!(bits = calloc(((size_t)1 << IOL_SUMMARY_BITS_LOG2) / 64, sizeof *bits))) {
                        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
                        goto out;
                    }
                    for (size_t i = 0; i < ids->cap; i++)
                        if (ids->slot[i])
                            bit_set(bits, ids->slot[i]);
                    over = 1;
                }
            }
            if (!ms)
                continue;
            ms->records++;
            ms->bytes_read = (int64_t)((uint64_t)ms->bytes_read + (uint64_t)iget(r, ibr));
            ms->bytes_written = (int64_t)((uint64_t)ms->bytes_written + (uint64_t)iget(r, ibw));
            ms->read_time += fget(r, frt);
            ms->write_time += fget(r, fwt);
            ms->meta_time += fget(r, fmt);
        }
        if (rc < 0)
            goto out;
    }
    if (over) {
        *part_ids = bits_estimate(bits);
        rc = IOL_SUMMARY_MORE_PARTS;
    } else
        rc = 0;
out:
    free(bits);
    iolens_darshan_close(log);
    return rc;
}

int iol_darshan_summarize_bounded(const char *path, iolens_darshan_summary *s, size_t max_ids)
{
    memset(s, 0, sizeof *s);
    struct idset ids = {0};
    unsigned nparts = 1;
    int rc;
    for (;;) {
        int64_t files = 0;
        double part_ids = 0;
        for (unsigned part = 0; part < nparts; part++) {
            if ((rc = summary_pass(path, s, &ids, nparts, part, max_ids, &part_ids)) != 0)
                break;
            files += (int64_t)(ids.n + (size_t)ids.has_zero);
            if (ids.slot)
                memset(ids.slot, 0, ids.cap * sizeof *ids.slot);
            ids.n = 0;
            ids.has_zero = 0;
        }
        if (rc != IOL_SUMMARY_MORE_PARTS) {
            s->files = files;
            break;
        }
        /* too many ids for one pass: start again, over parts of them */
        iolens_darshan_summary_release(s);
        memset(s, 0, sizeof *s);
        free(ids.slot);
        ids = (struct idset){0};
        /* the parts the estimate needs, with half as many again for an uneven hash and the
         * estimate's error; a pass that is still too full doubles them */
        double need = ceil((double)nparts * part_ids * 1.5 / (double)(max_ids ? max_ids : 1));
        uint64_t want = need < (double)UINT_MAX ? (uint64_t)need : UINT_MAX;
        if (want <= nparts)
            want = (uint64_t)nparts * 2;
        if (want > UINT_MAX / 2) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': too many distinct files to count", path);
            break;
        }
        nparts = (unsigned)want;
    }
    free(ids.slot);
    if (rc < 0)
        iolens_darshan_summary_release(s);
    return rc;
}

int iolens_darshan_summarize(const char *path, iolens_darshan_summary *s)
{
    return iol_darshan_summarize_bounded(path, s, IOL_SUMMARY_MAX_IDS);
}

void iolens_darshan_summary_release(iolens_darshan_summary *s)
{
    if (!s)
        return;
    free(s->exe);
    s->exe = NULL;
}

static void partial_modules(uint64_t flag, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT && m < 64; m++) {
        if (!((flag >> m) & 1))
            continue;
        int w = snprintf(buf + k, n - k, "%s%s", k ? ";" : "", iolens_darshan_module_name(m));
        if (w < 0 || (size_t)w >= n - k)
            break;
        k += (size_t)w;
    }
}

void iolens_darshan_summary_csv_header(FILE *out, const char *first)
{
    if (first && *first)
        fprintf(out, "%s,", first);
    fputs("version,jobid,uid,exe,nprocs,start_time,end_time,run_time,files", out);
    for (int k = 0; k < IOLENS_DARSHAN_SUMMARY_NMODS; k++)
        fprintf(out, ",%s_records,%s_bytes_read,%s_bytes_written,%s_read_time,%s_write_time,%s_meta_time",
                io_mods[k].col, io_mods[k].col, io_mods[k].col, io_mods[k].col, io_mods[k].col, io_mods[k].col);
    fputs(",partial_flag,partial_modules\n", out);
}

void iolens_darshan_summary_csv_row(FILE *out, const iolens_darshan_summary *s)
{
    fprintf(out, "%s,%" PRId64 ",%" PRId64 ",", s->version, s->jobid, s->uid);
    iol_csv_field(out, s->exe ? s->exe : "");
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.4f,%" PRId64, s->nprocs, s->start_time, s->end_time,
            s->run_time, s->files);
    for (int k = 0; k < IOLENS_DARSHAN_SUMMARY_NMODS; k++) {
        const iolens_darshan_summary_mod *m = &s->mod[k];
        if (!m->present)
            fputs(",,,,,,", out);
        else
            fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6f,%.6f,%.6f", m->records, m->bytes_read,
                    m->bytes_written, m->read_time, m->write_time, m->meta_time);
    }
    char pm[512];
    partial_modules(s->partial_flag, pm, sizeof pm);
    fprintf(out, ",%" PRIu64 ",%s\n", s->partial_flag, pm);
}

void iol_darshan_summary_jsonw(iol_jsonw *w, const iolens_darshan_summary *s)
{
    iol_jsonw_key(w, "version");
    iol_jsonw_str(w, s->version);
    iol_jsonw_key(w, "jobid");
    iol_jsonw_int(w, s->jobid);
    iol_jsonw_key(w, "uid");
    iol_jsonw_int(w, s->uid);
    iol_jsonw_key(w, "exe");
    iol_jsonw_str(w, s->exe ? s->exe : "");
    iol_jsonw_key(w, "nprocs");
    iol_jsonw_int(w, s->nprocs);
    iol_jsonw_key(w, "start_time");
    iol_jsonw_int(w, s->start_time);
    iol_jsonw_key(w, "end_time");
    iol_jsonw_int(w, s->end_time);
    iol_jsonw_key(w, "run_time");
    iol_jsonw_double(w, s->run_time);
    iol_jsonw_key(w, "files");
    iol_jsonw_int(w, s->files);
    iol_jsonw_key(w, "modules");
    iol_jsonw_obj_begin(w);
    for (int k = 0; k < IOLENS_DARSHAN_SUMMARY_NMODS; k++) {
        const iolens_darshan_summary_mod *m = &s->mod[k];
        if (!m->present)
            continue;
        iol_jsonw_key(w, iolens_darshan_module_name(io_mods[k].module));
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "records");
        iol_jsonw_int(w, m->records);
        iol_jsonw_key(w, "bytes_read");
        iol_jsonw_int(w, m->bytes_read);
        iol_jsonw_key(w, "bytes_written");
        iol_jsonw_int(w, m->bytes_written);
        iol_jsonw_key(w, "read_time");
        iol_jsonw_double(w, m->read_time);
        iol_jsonw_key(w, "write_time");
        iol_jsonw_double(w, m->write_time);
        iol_jsonw_key(w, "meta_time");
        iol_jsonw_double(w, m->meta_time);
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_obj_end(w);
    iol_jsonw_key(w, "partial_flag");
    iol_jsonw_uint(w, s->partial_flag);
    iol_jsonw_key(w, "partial_modules");
    iol_jsonw_arr_begin(w);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if ((s->partial_flag >> m) & 1)
            iol_jsonw_str(w, iolens_darshan_module_name(m));
    iol_jsonw_arr_end(w);
}
