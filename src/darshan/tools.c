/* Whole-log tools on the reader and the writer: convert (recompress, up-convert, obfuscate,
 * filter), merge (several logs of one job, as darshan-merge joins them) and diff (counter by
 * counter). */
#include "darshan/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/jsonw.h"

/* ---- a set of record ids (open addressing) ---- */

typedef struct idset {
    uint64_t *keys;
    size_t *vals; /* index + 1, 0 = empty slot */
    size_t n, cap;
} idset;

static size_t idhash(uint64_t id, size_t cap)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)(id & (cap - 1));
}

static size_t *idset_find(const idset *s, uint64_t id)
{
    if (!s->cap)
        return NULL;
    for (size_t h = idhash(id, s->cap);; h = (h + 1) & (s->cap - 1)) {
        if (!s->vals[h])
            return NULL;
        if (s->keys[h] == id)
            return &s->vals[h];
    }
}

static int idset_put(idset *s, uint64_t id, size_t val)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        uint64_t *k = calloc(nc, sizeof *k);
        size_t *v = calloc(nc, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return iol_err(IOLENS_ENOMEM, "out of memory for a table of %zu record ids", s->n + 1);
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->vals[i]) {
                size_t h = idhash(s->keys[i], nc);
                while (v[h])
                    h = (h + 1) & (nc - 1);
                k[h] = s->keys[i];
                v[h] = s->vals[i];
            }
        free(s->keys);
        free(s->vals);
        s->keys = k;
        s->vals = v;
        s->cap = nc;
    }
    size_t h = idhash(id, s->cap);
    while (s->vals[h] && s->keys[h] != id)
        h = (h + 1) & (s->cap - 1);
    if (!s->vals[h])
        s->n++;
    s->keys[h] = id;
    s->vals[h] = val + 1;
    return 0;
}

static void idset_free(idset *s)
{
    free(s->keys);
    free(s->vals);
    memset(s, 0, sizeof *s);
}

/* ---- an image built from loaded logs ---- */

typedef struct built {
    iolens_darshan_image img;
    iolens_darshan_job job;
    char *exe;
    iolens_darshan_mount *mounts;
    uint64_t *ids;
    const char **names;
    char **owned; /* obfuscated names */
    size_t nowned, cap_names;
    const iolens_darshan_record **recs[IOLENS_DARSHAN_MOD_COUNT];
    size_t cap_recs[IOLENS_DARSHAN_MOD_COUNT];
} built;

static void built_free(built *b)
{
    free(b->exe);
    free(b->mounts);
    free(b->ids);
    free(b->names);
    for (size_t i = 0; i < b->nowned; i++)
        free(b->owned[i]);
    free(b->owned);
    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        free(b->recs[m]);
}

static int add_name(built *b, uint64_t id, const char *name, char *owned)
{
    if (b->img.nnames == b->cap_names) {
        size_t nc = b->cap_names ? b->cap_names * 2 : 256;
        uint64_t *i = realloc(b->ids, nc * sizeof *i);
        if (i)
            b->ids = i;
        const char **n = i ? realloc(b->names, nc * sizeof *n) : NULL;
        if (n)
            b->names = n;
        char **o = n ? realloc(b->owned, nc * sizeof *o) : NULL;
        if (!o) {
            free(owned);
            return iol_err(IOLENS_ENOMEM, "out of memory for %zu names", nc);
        }
        b->owned = o;
        b->cap_names = nc;
    }
    b->ids[b->img.nnames] = id;
    b->names[b->img.nnames] = name;
    b->img.nnames++;
    if (owned)
        b->owned[b->nowned++] = owned;
    return 0;
}

static int add_record(built *b, const iolens_darshan_record *r)
{
    int m = r->module;
    size_t n = b->img.nrecords[m];
    if (n == b->cap_recs[m]) {
        size_t nc = b->cap_recs[m] ? b->cap_recs[m] * 2 : 64;
        const iolens_darshan_record **p = realloc(b->recs[m], nc * sizeof *p);
        if (!p)
            return iol_err(IOLENS_ENOMEM, "out of memory for %zu records", nc);
        b->recs[m] = p;
        b->cap_recs[m] = nc;
    }
    b->recs[m][n] = r;
    b->img.nrecords[m] = n + 1;
    b->img.records[m] = b->recs[m];
    return 0;
}

static int copy_job(built *b, const iolens_darshan_log *log)
{
    b->job = *iolens_darshan_job_get(log);
    b->exe = strdup(b->job.exe ? b->job.exe : "");
    size_t nm = iolens_darshan_mount_count(log);
    b->mounts = calloc(nm ? nm : 1, sizeof *b->mounts);
    if (!b->exe || !b->mounts)
        return iol_err(IOLENS_ENOMEM, "out of memory for the job of '%s'", iolens_darshan_path(log));
    for (size_t i = 0; i < nm; i++)
        b->mounts[i] = *iolens_darshan_mount_at(log, i);
    b->job.exe = b->exe;
    b->img.job = &b->job;
    b->img.mounts = b->mounts;
    b->img.nmounts = nm;
    b->img.partial_flag = iolens_darshan_header_get(log)->partial_flag;
    return 0;
}

static void finish_names(built *b)
{
    b->img.name_ids = b->ids;
    b->img.names = b->names;
}

/* ---- convert ---- */

static int id_wanted(const iolens_darshan_convert_opts *o, uint64_t id)
{
    if (!o->ids)
        return 1;
    for (size_t i = 0; i < o->nids; i++)
        if (o->ids[i] == id)
            return 1;
    return 0;
}

/* darshan-convert's name obfuscation: names of the standard streams and heatmaps are kept,
 * others become "<mount point>/<hash>" (the first mount point, in the table's order of
 * decreasing length, that prefixes the name) or "<hash>". */
static char *obfuscated_name(const iolens_darshan_log *log, const char *name, uint32_t key)
{
    static const char *const keep[] = {"<STDIN>", "<STDOUT>", "<STDERR>", "heatmap:"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        if (!strncmp(name, keep[i], strlen(keep[i])))
            return NULL;
    uint32_t h = iolens_darshan_hash32(name, strlen(name), key);
    const iolens_darshan_mount *mnt = iolens_darshan_mount_find(log, name);
    size_t n = (mnt ? strlen(mnt->path) : 0) + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%" PRIu32, mnt ? mnt->path : "", mnt ? "/" : "", h);
    return s;
}

static int add_metadata(iolens_darshan_job *job, const char *annotate, const char *path)
{
    size_t len = strlen(job->metadata);
    size_t cap = sizeof job->metadata - 1;
    if (len > 0 && len < cap && job->metadata[len - 1] != '\n') {
        job->metadata[len++] = '\n';
        job->metadata[len] = '\0';
    }
    const char *p = annotate;
    while (*p) {
        size_t n = strcspn(p, "\t");
        if (n > 0) {
            if (len + n + 1 > cap)
                return iol_err(IOLENS_EINVAL, "cannot write '%s': the job's metadata holds %zu bytes; "
                               "'%.*s' does not fit", path, cap, (int)n, p);
            memcpy(job->metadata + len, p, n);
            len += n;
            job->metadata[len++] = '\n';
            job->metadata[len] = '\0';
        }
        p += n;
        if (*p == '\t')
            p++;
    }
    return 0;
}

int iolens_darshan_convert(const char *in, const char *out, const iolens_darshan_convert_opts *opts,
                           iolens_warn_fn warn, void *warn_ctx)
{
    iolens_darshan_convert_opts none = {0};
    const iolens_darshan_convert_opts *o = opts ? opts : &none;
    if (!in || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_convert: NULL argument");
    iolens_darshan_data *d = NULL;
    int rc = iolens_darshan_load(in, 0, warn, warn_ctx, &d);
    if (rc < 0)
        return rc;
    const iolens_darshan_log *log = iolens_darshan_data_log(d);
    built b;
    memset(&b, 0, sizeof b);
    char exe_hash[16];
    iolens_darshan_record **scaled = NULL; /* copies owned here (time_scale) */
    size_t nscaled = 0, capscaled = 0;
    if ((rc = copy_job(&b, log)) < 0)
        goto out;
    b.img.comp = o->comp;
    if (o->reset_metadata)
        b.job.metadata[0] = '\0';
    if (o->annotate && (rc = add_metadata(&b.job, o->annotate, out)) < 0)
        goto out;
    if ((o->obfuscate & IOLENS_DARSHAN_OBF_JOBID) && b.job.jobid != 0) {
        unsigned char v[8];
        for (int i = 0; i < 8; i++) /* the int64's bytes as a little-endian host holds them */
            v[i] = (unsigned char)((uint64_t)b.job.jobid >> (8 * i));
        b.job.jobid = (int64_t)iolens_darshan_hash32(v, 8, o->key);
    }
    if (o->obfuscate & IOLENS_DARSHAN_OBF_UID) {
        unsigned char v[8];
        for (int i = 0; i < 8; i++)
            v[i] = (unsigned char)((uint64_t)b.job.uid >> (8 * i));
        b.job.uid = (int64_t)iolens_darshan_hash32(v, 8, o->key);
    }
    if (o->obfuscate & IOLENS_DARSHAN_OBF_EXE) {
        snprintf(exe_hash, sizeof exe_hash, "%" PRIu32, iolens_darshan_hash32(b.exe, strlen(b.exe), o->key));
        b.job.exe = exe_hash;
    }
    size_t nn = iolens_darshan_data_name_count(d);
    for (size_t i = 0; i < nn; i++) {
        uint64_t id;
        const char *name;
        iolens_darshan_data_name_at(d, i, &id, &name);
        if (!id_wanted(o, id))
            continue;
        char *obf = NULL;
        if (o->obfuscate & IOLENS_DARSHAN_OBF_NAMES) {
            obf = obfuscated_name(log, name, o->key);
            if (obf)
                name = obf;
        }
        if ((rc = add_name(&b, id, name, obf)) < 0)
            goto out;
    }
    finish_names(&b);
    int scale = o->time_scale > 0 && o->time_scale != 1;
    if (scale) {
        b.job.run_time *= o->time_scale;
        b.job.end_time_sec = b.job.start_time_sec + (int64_t)(b.job.run_time + 0.5);
    }
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (o->modules && !(o->modules & (UINT64_C(1) << m)))
            continue;
        size_t n = iolens_darshan_data_count(d, m);
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
            if (!id_wanted(o, r->id))
                continue;
            if (scale && r->nfcounters) { /* a copy with its durations scaled */
                if (nscaled == capscaled) {
                    size_t nc = capscaled ? capscaled * 2 : 64;
                    iolens_darshan_record **ns = realloc(scaled, nc * sizeof *ns);
                    if (!ns) {
                        rc = iol_err(IOLENS_ENOMEM, "out of memory");
                        goto out;
                    }
                    scaled = ns;
                    capscaled = nc;
                }
                iolens_darshan_record *c = malloc(sizeof *c + r->nfcounters * sizeof(double));
                if (!c) {
                    rc = iol_err(IOLENS_ENOMEM, "out of memory");
                    goto out;
                }
                *c = *r;
                double *f = (double *)(void *)(c + 1);
                for (size_t k = 0; k < r->nfcounters; k++) {
                    const char *nm = iolens_darshan_fcounter_name(m, k);
                    size_t l = nm ? strlen(nm) : 0;
                    f[k] = r->fcounters[k];
                    if (l > 5 && !strcmp(nm + l - 5, "_TIME") && f[k] > 0)
                        f[k] *= o->time_scale;
                }
                c->fcounters = f;
                scaled[nscaled++] = c;
                r = c;
            }
            if ((rc = add_record(&b, r)) < 0)
                goto out;
        }
    }
    if (o->modules)
        b.img.partial_flag &= o->modules;
    rc = iolens_darshan_write(&b.img, out);
out:
    for (size_t i = 0; i < nscaled; i++)
        free(scaled[i]);
    free(scaled);
    built_free(&b);
    iolens_darshan_data_free(d);
    return rc;
}

/* ---- merge ---- */

int iolens_darshan_merge(const char *const *in, size_t n, const char *out, int comp, iolens_warn_fn warn,
                         void *warn_ctx)
{
    if (!in || !n || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_merge: no input");
    iolens_darshan_data **d = calloc(n, sizeof *d);
    if (!d)
        return iol_err(IOLENS_ENOMEM, "out of memory for %zu logs", n);
    built b;
    memset(&b, 0, sizeof b);
    idset names = {0};
    int rc = 0;
    for (size_t k = 0; k < n; k++)
        if ((rc = iolens_darshan_load(in[k], 0, warn, warn_ctx, &d[k])) < 0)
            goto out;
    if ((rc = copy_job(&b, iolens_darshan_data_log(d[0]))) < 0)
        goto out;
    b.img.comp = comp;
    for (size_t k = 0; k < n; k++) {
        const iolens_darshan_log *log = iolens_darshan_data_log(d[k]);
        const iolens_darshan_job *j = iolens_darshan_job_get(log);
        if (k > 0) {
            if (j->start_time_sec < b.job.start_time_sec ||
                (j->start_time_sec == b.job.start_time_sec && j->start_time_nsec < b.job.start_time_nsec)) {
                b.job.start_time_sec = j->start_time_sec;
                b.job.start_time_nsec = j->start_time_nsec;
            }
            if (j->end_time_sec > b.job.end_time_sec ||
                (j->end_time_sec == b.job.end_time_sec && j->end_time_nsec > b.job.end_time_nsec)) {
                b.job.end_time_sec = j->end_time_sec;
                b.job.end_time_nsec = j->end_time_nsec;
            }
            b.img.partial_flag |= iolens_darshan_header_get(log)->partial_flag;
        }
        size_t nn = iolens_darshan_data_name_count(d[k]);
        for (size_t i = 0; i < nn; i++) {
            uint64_t id;
            const char *name;
            iolens_darshan_data_name_at(d[k], i, &id, &name);
            size_t *at = idset_find(&names, id);
            if (at) {
                if (strcmp(b.names[*at - 1], name)) {
                    rc = iol_err(IOLENS_EFORMAT, "cannot merge '%s': record id %" PRIu64 " is '%s' there "
                                 "and '%s' in '%s'", in[k], id, name, b.names[*at - 1], in[0]);
                    goto out;
                }
                continue;
            }
            if ((rc = idset_put(&names, id, b.img.nnames)) < 0 || (rc = add_name(&b, id, name, NULL)) < 0)
                goto out;
        }
    }
    finish_names(&b);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        for (size_t k = 0; k < n; k++) {
            size_t nr = iolens_darshan_data_count(d[k], m);
            for (size_t i = 0; i < nr; i++)
                if ((rc = add_record(&b, iolens_darshan_data_record(d[k], m, i))) < 0)
                    goto out;
        }
    rc = iolens_darshan_write(&b.img, out);
out:
    idset_free(&names);
    built_free(&b);
    for (size_t k = 0; k < n; k++)
        iolens_darshan_data_free(d[k]);
    free(d);
    return rc;
}

/* ---- diff ---- */

typedef struct differ {
    FILE *out;
    int json;
    iol_jsonw w;
    size_t n;
    const iolens_darshan_data *a, *b;
} differ;

static const char *name_or_empty(const iolens_darshan_data *d, uint64_t id)
{
    const char *s = iolens_darshan_data_name(d, id);
    return s ? s : "";
}

static void item_begin(differ *df, const char *what)
{
    df->n++;
    if (df->json) {
        iol_jsonw_obj_begin(&df->w);
        iol_jsonw_key(&df->w, "what");
        iol_jsonw_str(&df->w, what);
    }
}

static void rec_keys(differ *df, const iolens_darshan_record *r, const iolens_darshan_data *d)
{
    iol_jsonw_key(&df->w, "module");
    iol_jsonw_str(&df->w, iolens_darshan_module_name(r->module));
    iol_jsonw_key(&df->w, "rank");
    iol_jsonw_int(&df->w, r->rank);
    iol_jsonw_key(&df->w, "id");
    char v[24];
    snprintf(v, sizeof v, "%" PRIu64, r->id);
    iol_jsonw_str(&df->w, v);
    iol_jsonw_key(&df->w, "name");
    iol_jsonw_str(&df->w, name_or_empty(d, r->id));
}

static void diff_int(differ *df, const char *what, const iolens_darshan_record *r, const char *field,
                     int64_t a, int64_t b)
{
    if (a == b)
        return;
    item_begin(df, what);
    if (df->json) {
        if (r)
            rec_keys(df, r, df->a);
        iol_jsonw_key(&df->w, "field");
        iol_jsonw_str(&df->w, field);
        iol_jsonw_key(&df->w, "a");
        iol_jsonw_int(&df->w, a);
        iol_jsonw_key(&df->w, "b");
        iol_jsonw_int(&df->w, b);
        iol_jsonw_obj_end(&df->w);
    } else if (r) {
        fprintf(df->out, "%s\t%" PRId64 "\t%" PRIu64 "\t%s\t%s\t%" PRId64 "\t%" PRId64 "\n",
                iolens_darshan_module_name(r->module), r->rank, r->id, field, name_or_empty(df->a, r->id), a,
                b);
    } else {
        fprintf(df->out, "%s %s: %" PRId64 " | %" PRId64 "\n", what, field, a, b);
    }
}

static int same_double(double a, double b)
{
    return a == b || (a != a && b != b) || !memcmp(&a, &b, sizeof a);
}

static void diff_double(differ *df, const iolens_darshan_record *r, const char *field, double a, double b)
{
    if (same_double(a, b))
        return;
    item_begin(df, "counter");
    if (df->json) {
        rec_keys(df, r, df->a);
        iol_jsonw_key(&df->w, "field");
        iol_jsonw_str(&df->w, field);
        iol_jsonw_key(&df->w, "a");
        iol_jsonw_double(&df->w, a);
        iol_jsonw_key(&df->w, "b");
        iol_jsonw_double(&df->w, b);
        iol_jsonw_obj_end(&df->w);
    } else {
        char x[40], y[40];
        iol_fmt_double(x, sizeof x, a);
        iol_fmt_double(y, sizeof y, b);
        fprintf(df->out, "%s\t%" PRId64 "\t%" PRIu64 "\t%s\t%s\t%s\t%s\n", iolens_darshan_module_name(r->module),
                r->rank, r->id, field, name_or_empty(df->a, r->id), x, y);
    }
}

static void diff_str(differ *df, const char *what, const char *field, const char *a, const char *b)
{
    if (!strcmp(a, b))
        return;
    item_begin(df, what);
    if (df->json) {
        iol_jsonw_key(&df->w, "field");
        iol_jsonw_str(&df->w, field);
        iol_jsonw_key(&df->w, "a");
        iol_jsonw_str(&df->w, a);
        iol_jsonw_key(&df->w, "b");
        iol_jsonw_str(&df->w, b);
        iol_jsonw_obj_end(&df->w);
    } else {
        fprintf(df->out, "%s %s: '%s' | '%s'\n", what, field, a, b);
    }
}

static void only_in(differ *df, const iolens_darshan_record *r, const iolens_darshan_data *d, const char *side)
{
    item_begin(df, "record");
    if (df->json) {
        rec_keys(df, r, d);
        iol_jsonw_key(&df->w, "only_in");
        iol_jsonw_str(&df->w, side);
        iol_jsonw_obj_end(&df->w);
    } else {
        fprintf(df->out, "%s\t%" PRId64 "\t%" PRIu64 "\t(only in %s)\t%s\n", iolens_darshan_module_name(r->module),
                r->rank, r->id, side, name_or_empty(d, r->id));
    }
}

static void diff_records(differ *df, const iolens_darshan_record *a, const iolens_darshan_record *b)
{
    char f[96];
    int m = a->module;
    for (size_t i = 0; i < a->ncounters && i < b->ncounters; i++)
        diff_int(df, "counter", a, iolens_darshan_counter_name(m, i), a->counters[i], b->counters[i]);
    for (size_t i = 0; i < a->nfcounters && i < b->nfcounters; i++)
        diff_double(df, a, iolens_darshan_fcounter_name(m, i), a->fcounters[i], b->fcounters[i]);
    if (m == IOLENS_DARSHAN_H5D || m == IOLENS_DARSHAN_PNETCDF_VAR)
        diff_int(df, "counter", a, m == IOLENS_DARSHAN_H5D ? "H5D_FILE_REC_ID" : "PNETCDF_VAR_FILE_REC_ID",
                 (int64_t)a->file_rec_id, (int64_t)b->file_rec_id);
    if (m == IOLENS_DARSHAN_DFS || m == IOLENS_DARSHAN_DAOS) {
        diff_int(df, "counter", a, "POOL_UUID", memcmp(a->pool_uuid, b->pool_uuid, 16) != 0, 0);
        diff_int(df, "counter", a, "CONT_UUID", memcmp(a->cont_uuid, b->cont_uuid, 16) != 0, 0);
        diff_int(df, "counter", a, "OID_HI", (int64_t)a->oid_hi, (int64_t)b->oid_hi);
        diff_int(df, "counter", a, "OID_LO", (int64_t)a->oid_lo, (int64_t)b->oid_lo);
    }
    if (m == IOLENS_DARSHAN_HEATMAP) {
        diff_double(df, a, "HEATMAP_F_BIN_WIDTH_SECONDS", a->heatmap.bin_width, b->heatmap.bin_width);
        diff_int(df, "counter", a, "HEATMAP_NBINS", a->heatmap.nbins, b->heatmap.nbins);
        for (int64_t i = 0; i < a->heatmap.nbins && i < b->heatmap.nbins; i++) {
            snprintf(f, sizeof f, "HEATMAP_READ_BIN_%" PRId64, i);
            diff_int(df, "counter", a, f, a->heatmap.read_bins[i], b->heatmap.read_bins[i]);
            snprintf(f, sizeof f, "HEATMAP_WRITE_BIN_%" PRId64, i);
            diff_int(df, "counter", a, f, a->heatmap.write_bins[i], b->heatmap.write_bins[i]);
        }
    }
    if (m == IOLENS_DARSHAN_LUSTRE) {
        diff_int(df, "counter", a, "LUSTRE_NUM_COMPONENTS", a->lustre.num_comps, b->lustre.num_comps);
        diff_int(df, "counter", a, "LUSTRE_NUM_STRIPES", a->lustre.num_stripes, b->lustre.num_stripes);
        for (int64_t i = 0; i < a->lustre.num_comps && i < b->lustre.num_comps; i++) {
            const iolens_darshan_lustre_comp *x = &a->lustre.comps[i], *y = &b->lustre.comps[i];
            const int64_t xa[7] = {x->stripe_size, x->stripe_count, x->stripe_pattern, x->flags,
                                   x->ext_start, x->ext_end, x->mirror_id};
            const int64_t ya[7] = {y->stripe_size, y->stripe_count, y->stripe_pattern, y->flags,
                                   y->ext_start, y->ext_end, y->mirror_id};
            static const char *const fn[7] = {"STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS",
                                              "EXT_START", "EXT_END", "MIRROR_ID"};
            for (int k = 0; k < 7; k++) {
                snprintf(f, sizeof f, "LUSTRE_COMP%" PRId64 "_%s", i + 1, fn[k]);
                diff_int(df, "counter", a, f, xa[k], ya[k]);
            }
        }
        for (int64_t i = 0; i < a->lustre.num_stripes && i < b->lustre.num_stripes; i++) {
            snprintf(f, sizeof f, "LUSTRE_OST_ID_%" PRId64, i);
            diff_int(df, "counter", a, f, a->lustre.osts[i], b->lustre.osts[i]);
        }
    }
    if (m == IOLENS_DARSHAN_DXT_POSIX || m == IOLENS_DARSHAN_DXT_MPIIO) {
        diff_int(df, "counter", a, "DXT_WRITE_COUNT", a->dxt.write_count, b->dxt.write_count);
        diff_int(df, "counter", a, "DXT_READ_COUNT", a->dxt.read_count, b->dxt.read_count);
        if (a->dxt.write_count == b->dxt.write_count && a->dxt.read_count == b->dxt.read_count) {
            int64_t ns = a->dxt.write_count + a->dxt.read_count;
            for (int64_t i = 0; i < ns; i++) {
                const iolens_darshan_dxt_seg *x = &a->dxt.segs[i], *y = &b->dxt.segs[i];
                snprintf(f, sizeof f, "DXT_SEGMENT_%" PRId64 "_OFFSET", i);
                diff_int(df, "counter", a, f, x->offset, y->offset);
                snprintf(f, sizeof f, "DXT_SEGMENT_%" PRId64 "_LENGTH", i);
                diff_int(df, "counter", a, f, x->length, y->length);
                snprintf(f, sizeof f, "DXT_SEGMENT_%" PRId64 "_START", i);
                diff_double(df, a, f, x->start, y->start);
                snprintf(f, sizeof f, "DXT_SEGMENT_%" PRId64 "_END", i);
                diff_double(df, a, f, x->end, y->end);
            }
        }
    }
}

typedef struct rkey {
    uint64_t id;
    int64_t rank;
    size_t i;
} rkey;

static int cmp_rkey(const void *p, const void *q)
{
    const rkey *x = p, *y = q;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static rkey *sorted_keys(const iolens_darshan_data *d, int m, size_t *n)
{
    *n = iolens_darshan_data_count(d, m);
    rkey *k = malloc((*n ? *n : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < *n; i++) {
        const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
        k[i].id = r->id;
        k[i].rank = r->rank;
        k[i].i = i;
    }
    qsort(k, *n, sizeof *k, cmp_rkey);
    return k;
}

int iolens_darshan_diff(const char *pa, const char *pb, FILE *out, int json, size_t *ndiff, iolens_warn_fn warn,
                        void *warn_ctx)
{
    if (!pa || !pb || !out)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_diff: NULL argument");
    iolens_darshan_data *a = NULL, *b = NULL;
    int rc = iolens_darshan_load(pa, 0, warn, warn_ctx, &a);
    if (rc == 0)
        rc = iolens_darshan_load(pb, 0, warn, warn_ctx, &b);
    if (rc < 0) {
        iolens_darshan_data_free(a);
        return rc;
    }
    differ df = {.out = out, .json = json, .a = a, .b = b};
    if (json) {
        iol_jsonw_init(&df.w, out, 0);
        iol_jsonw_obj_begin(&df.w);
        iol_jsonw_key(&df.w, "a");
        iol_jsonw_str(&df.w, pa);
        iol_jsonw_key(&df.w, "b");
        iol_jsonw_str(&df.w, pb);
        iol_jsonw_key(&df.w, "items");
        iol_jsonw_arr_begin(&df.w);
    }
    const iolens_darshan_job *ja = iolens_darshan_job_get(iolens_darshan_data_log(a));
    const iolens_darshan_job *jb = iolens_darshan_job_get(iolens_darshan_data_log(b));
    diff_int(&df, "job", NULL, "uid", ja->uid, jb->uid);
    diff_int(&df, "job", NULL, "jobid", ja->jobid, jb->jobid);
    diff_int(&df, "job", NULL, "nprocs", ja->nprocs, jb->nprocs);
    diff_int(&df, "job", NULL, "start_time", ja->start_time_sec, jb->start_time_sec);
    diff_int(&df, "job", NULL, "start_time_nsec", ja->start_time_nsec, jb->start_time_nsec);
    diff_int(&df, "job", NULL, "end_time", ja->end_time_sec, jb->end_time_sec);
    diff_int(&df, "job", NULL, "end_time_nsec", ja->end_time_nsec, jb->end_time_nsec);
    diff_str(&df, "job", "exe", ja->exe ? ja->exe : "", jb->exe ? jb->exe : "");
    diff_str(&df, "job", "metadata", ja->metadata, jb->metadata);
    /* names: by id, both ways */
    size_t na = iolens_darshan_data_name_count(a), nb = iolens_darshan_data_name_count(b);
    for (size_t i = 0; i < na; i++) {
        uint64_t id;
        const char *s;
        iolens_darshan_data_name_at(a, i, &id, &s);
        const char *t = iolens_darshan_data_name(b, id);
        char f[48];
        snprintf(f, sizeof f, "%" PRIu64, id);
        diff_str(&df, "name", f, s, t ? t : "(none)");
    }
    for (size_t i = 0; i < nb; i++) {
        uint64_t id;
        const char *s;
        iolens_darshan_data_name_at(b, i, &id, &s);
        if (!iolens_darshan_data_name(a, id)) {
            char f[48];
            snprintf(f, sizeof f, "%" PRIu64, id);
            diff_str(&df, "name", f, "(none)", s);
        }
    }
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT && rc == 0; m++) {
        size_t xa, xb;
        rkey *ka = sorted_keys(a, m, &xa), *kb = sorted_keys(b, m, &xb);
        if (!ka || !kb) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory comparing %s records", iolens_darshan_module_name(m));
            free(ka);
            free(kb);
            break;
        }
        size_t i = 0, j = 0;
        while (i < xa || j < xb) {
            int c = i == xa ? 1 : j == xb ? -1 : (ka[i].id != kb[j].id ? (ka[i].id < kb[j].id ? -1 : 1)
                                                  : ka[i].rank != kb[j].rank ? (ka[i].rank < kb[j].rank ? -1 : 1)
                                                                             : 0);
            if (c < 0) {
                only_in(&df, iolens_darshan_data_record(a, m, ka[i++].i), a, "a");
            } else if (c > 0) {
                only_in(&df, iolens_darshan_data_record(b, m, kb[j++].i), b, "b");
            } else {
                diff_records(&df, iolens_darshan_data_record(a, m, ka[i].i), iolens_darshan_data_record(b, m, kb[j].i));
                i++;
                j++;
            }
        }
        free(ka);
        free(kb);
    }
    if (json) {
        iol_jsonw_arr_end(&df.w);
        iol_jsonw_key(&df.w, "differences");
        iol_jsonw_uint(&df.w, df.n);
        iol_jsonw_key(&df.w, "equal");
        iol_jsonw_bool(&df.w, df.n == 0);
        iol_jsonw_obj_end(&df.w);
        iol_jsonw_finish(&df.w);
    } else {
        fprintf(out, "# %zu difference%s\n", df.n, df.n == 1 ? "" : "s");
    }
    if (ndiff)
        *ndiff = df.n;
    iolens_darshan_data_free(a);
    iolens_darshan_data_free(b);
    return rc;
}
