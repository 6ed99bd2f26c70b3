/* `iolens darshan --json`: a whole log as one JSON document, streamed record
 * by record (constant memory whatever the log size). */
#include "darshan/internal.h"

#include <inttypes.h>
#include <string.h>

#include "util/error.h"
#include "util/jsonw.h"

static void json_id(iol_jsonw *w, const char *key, uint64_t id)
{
    /* record ids are 64-bit unsigned hashes: as strings, so that no JSON
     * reader (jansson: int64; JavaScript: 2^53) loses or rejects them */
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, id);
    iol_jsonw_key(w, key);
    iol_jsonw_str(w, buf);
}

static void json_job(iol_jsonw *w, const iolens_darshan_log *log)
{
    const iolens_darshan_job *j = &log->job;
    iol_jsonw_key(w, "job");
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "uid");
    iol_jsonw_int(w, j->uid);
    iol_jsonw_key(w, "jobid");
    iol_jsonw_int(w, j->jobid);
    iol_jsonw_key(w, "nprocs");
    iol_jsonw_int(w, j->nprocs);
    iol_jsonw_key(w, "start_time");
    iol_jsonw_int(w, j->start_time_sec);
    iol_jsonw_key(w, "start_time_nsec");
    iol_jsonw_int(w, j->start_time_nsec);
    iol_jsonw_key(w, "end_time");
    iol_jsonw_int(w, j->end_time_sec);
    iol_jsonw_key(w, "end_time_nsec");
    iol_jsonw_int(w, j->end_time_nsec);
    iol_jsonw_key(w, "run_time");
    iol_jsonw_double(w, j->run_time);
    iol_jsonw_key(w, "exe");
    iol_jsonw_str(w, j->exe);
    /* "key=value" lines; lines without '=' are ignored, as the reference does */
    iol_jsonw_key(w, "metadata");
    iol_jsonw_obj_begin(w);
    const char *p = j->metadata;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char key[1025];
            size_t kl = (size_t)(eq - p);
            memcpy(key, p, kl);
            key[kl] = '\0';
            iol_jsonw_key(w, key);
            iol_jsonw_strn(w, eq + 1, len - kl - 1);
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    iol_jsonw_obj_end(w);
    iol_jsonw_obj_end(w);
}

static void json_header(iol_jsonw *w, const iolens_darshan_log *log)
{
    static const char *const comp[] = {"zlib", "bzip2", "none"};
    const iolens_darshan_header *h = &log->hdr;
    iol_jsonw_key(w, "version");
    iol_jsonw_str(w, h->version);
    iol_jsonw_key(w, "big_endian");
    iol_jsonw_bool(w, h->big_endian);
    iol_jsonw_key(w, "compression");
    iol_jsonw_str(w, comp[h->comp >= 0 && h->comp <= 2 ? h->comp : 2]);
    iol_jsonw_key(w, "file_size");
    iol_jsonw_uint(w, h->file_size);
    iol_jsonw_key(w, "partial_flag");
    iol_jsonw_uint(w, h->partial_flag);
    iol_jsonw_key(w, "regions");
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "job");
    iol_jsonw_uint(w, h->job.len);
    iol_jsonw_key(w, "names");
    iol_jsonw_uint(w, h->name_map.len);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (!h->mod[m].len)
            continue;
        iol_jsonw_key(w, iolens_darshan_module_name(m));
        iol_jsonw_uint(w, h->mod[m].len);
    }
    iol_jsonw_obj_end(w);
}

static void json_uuid(iol_jsonw *w, const char *key, const unsigned char *u)
{
    char s[37];
    size_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s[k++] = '-';
        snprintf(s + k, 3, "%02x", u[i]);
        k += 2;
    }
    s[k] = '\0';
    iol_jsonw_key(w, key);
    iol_jsonw_str(w, s);
}

static void json_segs(iol_jsonw *w, const char *key, const iolens_darshan_record *r, int64_t from,
                      int64_t n)
{
    iol_jsonw_key(w, key);
    iol_jsonw_arr_begin(w);
    for (int64_t i = from; i < from + n; i++) {
        const iolens_darshan_dxt_seg *s = &r->dxt.segs[i];
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "offset");
        iol_jsonw_int(w, s->offset);
        iol_jsonw_key(w, "length");
        iol_jsonw_int(w, s->length);
        iol_jsonw_key(w, "start");
        iol_jsonw_double(w, s->start);
        iol_jsonw_key(w, "end");
        iol_jsonw_double(w, s->end);
        if (r->dxt.has_pthread_id) {
            iol_jsonw_key(w, "pthread_id");
            iol_jsonw_uint(w, s->pthread_id);
        }
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);
}

static void json_record(iol_jsonw *w, const iolens_darshan_record *r)
{
    iol_jsonw_obj_begin(w);
    json_id(w, "id", r->id);
    iol_jsonw_key(w, "rank");
    iol_jsonw_int(w, r->rank);
    if (r->ncounters) {
        iol_jsonw_key(w, "counters");
        iol_jsonw_obj_begin(w);
        for (size_t i = 0; i < r->ncounters; i++) {
            iol_jsonw_key(w, iolens_darshan_counter_name(r->module, i));
            iol_jsonw_int(w, r->counters[i]);
        }
        iol_jsonw_obj_end(w);
    }
    if (r->nfcounters) {
        iol_jsonw_key(w, "fcounters");
        iol_jsonw_obj_begin(w);
        for (size_t i = 0; i < r->nfcounters; i++) {
            iol_jsonw_key(w, iolens_darshan_fcounter_name(r->module, i));
            iol_jsonw_double(w, r->fcounters[i]);
        }
        iol_jsonw_obj_end(w);
    }
    switch (r->module) {
    case IOLENS_DARSHAN_H5D:
    case IOLENS_DARSHAN_PNETCDF_VAR:
        json_id(w, "file_rec_id", r->file_rec_id);
        break;
    case IOLENS_DARSHAN_DFS:
    case IOLENS_DARSHAN_DAOS:
        json_uuid(w, "pool_uuid", r->pool_uuid);
        json_uuid(w, "cont_uuid", r->cont_uuid);
        if (r->module == IOLENS_DARSHAN_DAOS) {
            iol_jsonw_key(w, "oid_hi");
            iol_jsonw_uint(w, r->oid_hi);
            iol_jsonw_key(w, "oid_lo");
            iol_jsonw_uint(w, r->oid_lo);
        }
        break;
    case IOLENS_DARSHAN_LUSTRE:
        iol_jsonw_key(w, "components");
        iol_jsonw_arr_begin(w);
        for (int64_t i = 0; i < r->lustre.num_comps; i++) {
            const iolens_darshan_lustre_comp *c = &r->lustre.comps[i];
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "stripe_size");
            iol_jsonw_int(w, c->stripe_size);
            iol_jsonw_key(w, "stripe_count");
            iol_jsonw_int(w, c->stripe_count);
            iol_jsonw_key(w, "stripe_pattern");
            iol_jsonw_int(w, c->stripe_pattern);
            iol_jsonw_key(w, "flags");
            iol_jsonw_int(w, c->flags);
            iol_jsonw_key(w, "ext_start");
            iol_jsonw_int(w, c->ext_start);
            iol_jsonw_key(w, "ext_end");
            iol_jsonw_int(w, c->ext_end);
            iol_jsonw_key(w, "mirror_id");
            iol_jsonw_int(w, c->mirror_id);
            iol_jsonw_key(w, "pool_name");
            iol_jsonw_str(w, c->pool_name);
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_arr_end(w);
        iol_jsonw_key(w, "osts");
        iol_jsonw_arr_begin(w);
        for (int64_t i = 0; i < r->lustre.num_stripes; i++)
            iol_jsonw_int(w, r->lustre.osts[i]);
        iol_jsonw_arr_end(w);
        break;
    case IOLENS_DARSHAN_HEATMAP:
        iol_jsonw_key(w, "bin_width");
        iol_jsonw_double(w, r->heatmap.bin_width);
        iol_jsonw_key(w, "nbins");
        iol_jsonw_int(w, r->heatmap.nbins);
        iol_jsonw_key(w, "read_bins");
        iol_jsonw_arr_begin(w);
        for (int64_t i = 0; i < r->heatmap.nbins; i++)
            iol_jsonw_int(w, r->heatmap.read_bins[i]);
        iol_jsonw_arr_end(w);
        iol_jsonw_key(w, "write_bins");
        iol_jsonw_arr_begin(w);
        for (int64_t i = 0; i < r->heatmap.nbins; i++)
            iol_jsonw_int(w, r->heatmap.write_bins[i]);
        iol_jsonw_arr_end(w);
        break;
    case IOLENS_DARSHAN_DXT_POSIX:
    case IOLENS_DARSHAN_DXT_MPIIO:
        iol_jsonw_key(w, "hostname");
        iol_jsonw_str(w, r->dxt.hostname);
        iol_jsonw_key(w, "shared_record");
        iol_jsonw_int(w, r->dxt.shared_record);
        json_segs(w, "writes", r, 0, r->dxt.write_count);
        json_segs(w, "reads", r, r->dxt.write_count, r->dxt.read_count);
        break;
    default:
        break;
    }
    iol_jsonw_obj_end(w);
}

int iolens_darshan_write_json(iolens_darshan_log *log, FILE *out, int pretty)
{
    int rc = 0;
    if (!log || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_write_json: NULL argument");
    iol_jsonw w;
    iol_jsonw_init(&w, out, pretty);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "file");
    iol_jsonw_str(&w, log->path);
    json_header(&w, log);
    json_job(&w, log);
    iol_jsonw_key(&w, "mounts");
    iol_jsonw_arr_begin(&w);
    for (size_t i = 0; i < log->nmounts; i++) {
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "path");
        iol_jsonw_str(&w, log->mounts[i].path);
        iol_jsonw_key(&w, "fs_type");
        iol_jsonw_str(&w, log->mounts[i].fs_type);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    /* names in file order (a log may repeat an id; readers keep the first) */
    iol_jsonw_key(&w, "names");
    iol_jsonw_arr_begin(&w);
    if ((rc = iolens_darshan_names_begin(log)) < 0)
        goto out;
    uint64_t id;
    const char *name;
    while ((rc = iolens_darshan_names_next(log, &id, &name)) > 0) {
        iol_jsonw_obj_begin(&w);
        json_id(&w, "id", id);
        iol_jsonw_key(&w, "name");
        iol_jsonw_str(&w, name);
        iol_jsonw_obj_end(&w);
    }
    if (rc < 0)
        goto out;
    iol_jsonw_arr_end(&w);
    iol_jsonw_key(&w, "modules");
    iol_jsonw_obj_begin(&w);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if ((rc = iolens_darshan_module_begin(log, m)) < 0)
            goto out;
        if (rc == 0)
            continue;
        iol_jsonw_key(&w, iolens_darshan_module_name(m));
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "version");
        iol_jsonw_uint(&w, log->hdr.mod_ver[m]);
        iol_jsonw_key(&w, "partial");
        iol_jsonw_bool(&w, (int)((log->hdr.partial_flag >> m) & 1));
        iol_jsonw_key(&w, "records");
        iol_jsonw_arr_begin(&w);
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(log, &r)) > 0)
            json_record(&w, r);
        if (rc < 0)
            goto out;
        iol_jsonw_arr_end(&w);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_obj_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    rc = 0;
out:
    return rc;
}
