/* Darshan module tables and record decoding (with up-conversion of old versions). */
#include "darshan/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define IOL_STR(n) #n,
static const char *const posix_i[] = {IOL_DARSHAN_POSIX_I(IOL_STR)};
static const char *const posix_f[] = {IOL_DARSHAN_POSIX_F(IOL_STR)};
static const char *const mpiio_i[] = {IOL_DARSHAN_MPIIO_I(IOL_STR)};
static const char *const mpiio_f[] = {IOL_DARSHAN_MPIIO_F(IOL_STR)};
static const char *const stdio_i[] = {IOL_DARSHAN_STDIO_I(IOL_STR)};
static const char *const stdio_f[] = {IOL_DARSHAN_STDIO_F(IOL_STR)};
static const char *const h5f_i[] = {IOL_DARSHAN_H5F_I(IOL_STR)};
static const char *const h5f_f[] = {IOL_DARSHAN_H5F_F(IOL_STR)};
static const char *const h5d_i[] = {IOL_DARSHAN_H5D_I(IOL_STR)};
static const char *const h5d_f[] = {IOL_DARSHAN_H5D_F(IOL_STR)};
static const char *const pnc_i[] = {IOL_DARSHAN_PNETCDF_FILE_I(IOL_STR)};
static const char *const pnc_f[] = {IOL_DARSHAN_PNETCDF_FILE_F(IOL_STR)};
static const char *const pncv_i[] = {IOL_DARSHAN_PNETCDF_VAR_I(IOL_STR)};
static const char *const pncv_f[] = {IOL_DARSHAN_PNETCDF_VAR_F(IOL_STR)};
static const char *const bgq_i[] = {IOL_DARSHAN_BGQ_I(IOL_STR)};
static const char *const bgq_f[] = {IOL_DARSHAN_BGQ_F(IOL_STR)};
static const char *const dfs_i[] = {IOL_DARSHAN_DFS_I(IOL_STR)};
static const char *const dfs_f[] = {IOL_DARSHAN_DFS_F(IOL_STR)};
static const char *const daos_i[] = {IOL_DARSHAN_DAOS_I(IOL_STR)};
static const char *const daos_f[] = {IOL_DARSHAN_DAOS_F(IOL_STR)};
#undef IOL_STR

#define N(a) (sizeof(a) / sizeof *(a))

struct modinfo {
    const char *name;
    uint32_t cur_ver;
    const char *const *ci;
    size_t nci;
    const char *const *cf;
    size_t ncf;
};

static const struct modinfo mods[IOLENS_DARSHAN_MOD_COUNT] = {
    [IOLENS_DARSHAN_NULL] = {"NULL", 0, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_POSIX] = {"POSIX", 4, posix_i, N(posix_i), posix_f, N(posix_f)},
    [IOLENS_DARSHAN_MPIIO] = {"MPI-IO", 3, mpiio_i, N(mpiio_i), mpiio_f, N(mpiio_f)},
    [IOLENS_DARSHAN_H5F] = {"H5F", 3, h5f_i, N(h5f_i), h5f_f, N(h5f_f)},
    [IOLENS_DARSHAN_H5D] = {"H5D", 2, h5d_i, N(h5d_i), h5d_f, N(h5d_f)},
    [IOLENS_DARSHAN_PNETCDF_FILE] = {"PNETCDF_FILE", 3, pnc_i, N(pnc_i), pnc_f, N(pnc_f)},
    [IOLENS_DARSHAN_PNETCDF_VAR] = {"PNETCDF_VAR", 1, pncv_i, N(pncv_i), pncv_f, N(pncv_f)},
    [IOLENS_DARSHAN_BGQ] = {"BG/Q", 2, bgq_i, N(bgq_i), bgq_f, N(bgq_f)},
    [IOLENS_DARSHAN_LUSTRE] = {"LUSTRE", 2, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_STDIO] = {"STDIO", 2, stdio_i, N(stdio_i), stdio_f, N(stdio_f)},
    [IOLENS_DARSHAN_DXT_POSIX] = {"DXT_POSIX", 2, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_DXT_MPIIO] = {"DXT_MPIIO", 3, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_MDHIM] = {"MDHIM", 0, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_APXC] = {"APXC", 0, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_APMPI] = {"APMPI", 0, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_HEATMAP] = {"HEATMAP", 1, NULL, 0, NULL, 0},
    [IOLENS_DARSHAN_DFS] = {"DFS", 1, dfs_i, N(dfs_i), dfs_f, N(dfs_f)},
    [IOLENS_DARSHAN_DAOS] = {"DAOS", 1, daos_i, N(daos_i), daos_f, N(daos_f)},
};

const char *iolens_darshan_module_name(int module)
{
    return module >= 0 && module < IOLENS_DARSHAN_MOD_COUNT ? mods[module].name : "";
}

int iolens_darshan_module_from_name(const char *name)
{
    for (int m = 0; name && m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if (!strcmp(mods[m].name, name))
            return m;
    return -1;
}

uint32_t iolens_darshan_module_version(int module)
{
    return module >= 0 && module < IOLENS_DARSHAN_MOD_COUNT ? mods[module].cur_ver : 0;
}

size_t iolens_darshan_counter_count(int module)
{
    return module >= 0 && module < IOLENS_DARSHAN_MOD_COUNT ? mods[module].nci : 0;
}

size_t iolens_darshan_fcounter_count(int module)
{
    return module >= 0 && module < IOLENS_DARSHAN_MOD_COUNT ? mods[module].ncf : 0;
}

const char *iolens_darshan_counter_name(int module, size_t index)
{
    if (module < 0 || module >= IOLENS_DARSHAN_MOD_COUNT || index >= mods[module].nci)
        return NULL;
    return mods[module].ci[index];
}

const char *iolens_darshan_fcounter_name(int module, size_t index)
{
    if (module < 0 || module >= IOLENS_DARSHAN_MOD_COUNT || index >= mods[module].ncf)
        return NULL;
    return mods[module].cf[index];
}

int iolens_darshan_counter_index(int module, const char *name, int *is_float)
{
    if (module < 0 || module >= IOLENS_DARSHAN_MOD_COUNT || !name)
        return -1;
    for (size_t i = 0; i < mods[module].nci; i++)
        if (!strcmp(mods[module].ci[i], name)) {
            if (is_float)
                *is_float = 0;
            return (int)i;
        }
    for (size_t i = 0; i < mods[module].ncf; i++)
        if (!strcmp(mods[module].cf[i], name)) {
            if (is_float)
                *is_float = 1;
            return (int)i;
        }
    return -1;
}

/* ---- on-disk layouts ---------------------------------------------------------- */

/* Fixed-size records: base (id, rank), [pre bytes], ints, doubles, [post bytes]. */
struct layout {
    int module;
    uint32_t ver;
    size_t ni, nf, pre, post;
};

static const struct layout layouts[] = {
    {IOLENS_DARSHAN_POSIX, 1, 68, 15, 0, 0},
    {IOLENS_DARSHAN_POSIX, 2, 64, 15, 0, 0},
    {IOLENS_DARSHAN_POSIX, 3, 64, 17, 0, 0},
    {IOLENS_DARSHAN_POSIX, 4, 69, 17, 0, 0},
    {IOLENS_DARSHAN_MPIIO, 1, 51, 15, 0, 0},
    {IOLENS_DARSHAN_MPIIO, 2, 51, 15, 0, 0},
    {IOLENS_DARSHAN_MPIIO, 3, 51, 17, 0, 0},
    {IOLENS_DARSHAN_STDIO, 1, 13, 15, 0, 0},
    {IOLENS_DARSHAN_STDIO, 2, 14, 15, 0, 0},
    {IOLENS_DARSHAN_H5F, 1, 1, 2, 0, 0},
    {IOLENS_DARSHAN_H5F, 2, 1, 4, 0, 0},
    {IOLENS_DARSHAN_H5F, 3, 3, 5, 0, 0},
    {IOLENS_DARSHAN_H5D, 1, 94, 17, 0, 0},
    {IOLENS_DARSHAN_H5D, 2, 94, 17, 8, 0},
    {IOLENS_DARSHAN_PNETCDF_FILE, 1, 2, 2, 0, 0},
    {IOLENS_DARSHAN_PNETCDF_FILE, 2, 2, 4, 0, 0},
    {IOLENS_DARSHAN_PNETCDF_FILE, 3, 9, 8, 0, 0},
    {IOLENS_DARSHAN_PNETCDF_VAR, 1, 120, 17, 8, 0},
    {IOLENS_DARSHAN_BGQ, 2, 11, 1, 0, 0},
    {IOLENS_DARSHAN_DFS, 1, 52, 15, 0, 32},
    {IOLENS_DARSHAN_DAOS, 1, 64, 15, 0, 48},
};

static const struct layout *find_layout(int module, uint32_t ver)
{
    for (size_t i = 0; i < N(layouts); i++)
        if (layouts[i].module == module && layouts[i].ver == ver)
            return &layouts[i];
    return NULL;
}

int iol_darshan_module_supported(int module, uint32_t ver)
{
    if (find_layout(module, ver))
        return 1;
    switch (module) {
    case IOLENS_DARSHAN_LUSTRE:
        return ver == 1 || ver == 2;
    case IOLENS_DARSHAN_HEATMAP:
        return ver == 1;
    case IOLENS_DARSHAN_DXT_POSIX:
        return ver == 1 || ver == 2;
    case IOLENS_DARSHAN_DXT_MPIIO:
        return ver >= 1 && ver <= 3;
    default:
        return 0;
    }
}

int iolens_darshan_version_supported(int module, uint32_t version)
{
    if (module <= 0 || module >= IOLENS_DARSHAN_MOD_COUNT)
        return 0;
    return iol_darshan_module_supported(module, version);
}

static int ensure(iolens_darshan_log *log, void **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < n)
        ncap *= 2;
    void *q = realloc(*p, ncap);
    if (!q)
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory (%zu bytes)", log->path,
                       ncap);
    *p = q;
    *cap = ncap;
    return 0;
}

static uint64_t ld64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? iol_bswap64(v) : v;
}

static double ldf(const unsigned char *p, int swap)
{
    uint64_t v = ld64(p, swap);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* v2-style doubles (15: OPEN_TS, READ_START, WRITE_START, READ_END, WRITE_END,
 * CLOSE_TS, ...) to v3-style (17, CLOSE_START and OPEN_END inserted). */
static void insert_two_doubles(const double *in, double *out)
{
    out[0] = in[0];
    out[1] = in[1];
    out[2] = in[2];
    out[3] = -1;
    out[4] = -1;
    for (int i = 3; i < 15; i++)
        out[i + 2] = in[i];
}

#define MAX_COUNT ((int64_t)1 << 40)

static int read_fixed(iolens_darshan_log *log, const struct layout *L, int *skip)
{
    iol_region *r = &log->reg;
    iolens_darshan_record *rec = &log->rec;
    int swap = log->hdr.big_endian;
    size_t size = 16 + L->pre + 8 * (L->ni + L->nf) + L->post;
    int rc = ensure(log, (void **)&log->raw, &log->raw_cap, size);
    if (rc < 0)
        return rc;
    rc = iol_region_read_full(log, r, log->raw + 16, size - 16, "record");
    if (rc < 0)
        return rc;
    const unsigned char *p = log->raw + 16 + L->pre;
    int64_t in_i[128];
    double in_f[32];
    for (size_t i = 0; i < L->ni; i++)
        in_i[i] = (int64_t)ld64(p + 8 * i, swap);
    for (size_t i = 0; i < L->nf; i++)
        in_f[i] = ldf(p + 8 * (L->ni + i), swap);
    const struct modinfo *mi = &mods[L->module];
    if ((rc = ensure(log, (void **)&log->ctr, &log->ctr_cap, (mi->nci + 1) * 8)) < 0 ||
        (rc = ensure(log, (void **)&log->fctr, &log->fctr_cap, (mi->ncf + 1) * 8)) < 0)
        return rc;
    int64_t *ci = log->ctr;
    double *cf = log->fctr;
    *skip = 0;
    switch (L->module) {
    case IOLENS_DARSHAN_POSIX: {
        int64_t v3i[64];
        double v3f[17];
        if (L->ver <= 2) {
            if (L->ver == 1) {
                if (in_i[6] > 0) /* stdio counters present: the reference omits it */
                    *skip = 1;
                for (int i = 0, o = 0; i < 68; i++)
                    if (i < 6 || i > 9)
                        v3i[o++] = in_i[i];
            } else {
                memcpy(v3i, in_i, sizeof v3i);
            }
            insert_two_doubles(in_f, v3f);
        } else if (L->ver == 3) {
            memcpy(v3i, in_i, sizeof v3i);
            memcpy(v3f, in_f, sizeof v3f);
        }
        if (L->ver <= 3) {
            ci[0] = v3i[0];
            ci[1] = -1;
            ci[2] = -1;
            for (int i = 1; i <= 7; i++)
                ci[i + 2] = v3i[i];
            ci[10] = -1;
            ci[11] = -1;
            ci[12] = 0;
            for (int i = 8; i < 64; i++)
                ci[i + 5] = v3i[i];
            memcpy(cf, v3f, sizeof v3f);
        } else {
            memcpy(ci, in_i, 69 * 8);
            memcpy(cf, in_f, 17 * 8);
        }
        break;
    }
    case IOLENS_DARSHAN_MPIIO:
        memcpy(ci, in_i, 51 * 8);
        if (L->ver <= 2)
            insert_two_doubles(in_f, cf);
        else
            memcpy(cf, in_f, 17 * 8);
        break;
    case IOLENS_DARSHAN_STDIO:
        if (L->ver == 1) {
            ci[0] = in_i[0];
            ci[1] = -1;
            memcpy(ci + 2, in_i + 1, 12 * 8);
        } else {
            memcpy(ci, in_i, 14 * 8);
        }
        memcpy(cf, in_f, 15 * 8);
        break;
    case IOLENS_DARSHAN_H5F:
        if (L->ver <= 2) {
            /* v2: OPENS; OPEN_START, CLOSE_START, OPEN_END, CLOSE_END; v1 has the open start and
             * the close end only. v3 adds FLUSHES, USE_MPIIO and F_META_TIME, -1 here as
             * darshan-util's up-conversion sets them. */
            ci[0] = in_i[0];
            ci[1] = ci[2] = -1;
            if (L->ver == 1) {
                cf[0] = in_f[0];
                cf[1] = cf[2] = -1;
                cf[3] = in_f[1];
            } else {
                memcpy(cf, in_f, 4 * sizeof *cf);
            }
            cf[4] = -1;
        } else {
            memcpy(ci, in_i, 3 * 8);
            memcpy(cf, in_f, 5 * 8);
        }
        break;
    case IOLENS_DARSHAN_PNETCDF_FILE:
        if (L->ver <= 2) {
            /* v2: INDEP_OPENS, COLL_OPENS; OPEN_START, CLOSE_START, OPEN_END, CLOSE_END.
             * v1 has the open start and the close end only (darshan-util's up-conversion sets
             * the other two to -1). */
            double f2[4];
            if (L->ver == 1) {
                f2[0] = in_f[0];
                f2[1] = f2[2] = -1;
                f2[3] = in_f[1];
            } else {
                memcpy(f2, in_f, sizeof f2);
            }
            for (int i = 0; i < 9; i++)
                ci[i] = -1;
            ci[1] = (int64_t)((uint64_t)in_i[0] + (uint64_t)in_i[1]); /* wraps, never UB */
            cf[0] = f2[0];
            cf[1] = f2[1];
            cf[2] = -1;
            cf[3] = f2[2];
            cf[4] = f2[3];
            cf[5] = -1;
            cf[6] = -1;
            cf[7] = -1;
        } else {
            memcpy(ci, in_i, 9 * 8);
            memcpy(cf, in_f, 8 * 8);
        }
        break;
    default:
        memcpy(ci, in_i, L->ni * 8);
        memcpy(cf, in_f, L->nf * 8);
        break;
    }
    rec->ncounters = mi->nci;
    rec->nfcounters = mi->ncf;
    rec->counters = ci;
    rec->fcounters = cf;
    if (L->module == IOLENS_DARSHAN_H5D)
        rec->file_rec_id = L->ver >= 2 ? ld64(log->raw + 16, swap) : 0;
    if (L->module == IOLENS_DARSHAN_PNETCDF_VAR)
        rec->file_rec_id = ld64(log->raw + 16, swap);
    if (L->module == IOLENS_DARSHAN_DFS || L->module == IOLENS_DARSHAN_DAOS) {
        const unsigned char *q = p + 8 * (L->ni + L->nf);
        memcpy(rec->pool_uuid, q, 16);
        memcpy(rec->cont_uuid, q + 16, 16);
        if (L->module == IOLENS_DARSHAN_DAOS) {
            rec->oid_hi = ld64(q + 32, swap);
            rec->oid_lo = ld64(q + 40, swap);
        }
    }
    return 0;
}

static int check_count(iolens_darshan_log *log, int64_t n, const char *what)
{
    if (n < 0 || n > MAX_COUNT)
        return iol_region_error(log, &log->reg, IOLENS_EFORMAT, "invalid %s %" PRId64, what, n);
    return 0;
}

static int read_lustre(iolens_darshan_log *log, uint32_t ver)
{
    iol_region *r = &log->reg;
    iolens_darshan_record *rec = &log->rec;
    int swap = log->hdr.big_endian;
    unsigned char b[72];
    int rc;
    iolens_darshan_lustre_comp *comps;
    if (ver == 1) {
        if ((rc = iol_region_read_full(log, r, b, 40, "LUSTRE record")) < 0)
            return rc;
        int64_t width = (int64_t)ld64(b + 32, swap);
        if ((rc = check_count(log, width, "LUSTRE stripe width")) < 0)
            return rc;
        if ((rc = ensure(log, &log->var, &log->var_cap, sizeof *comps)) < 0)
            return rc;
        comps = log->var;
        memset(comps, 0, sizeof *comps);
        comps->stripe_size = (int64_t)ld64(b + 24, swap);
        comps->stripe_count = width;
        comps->stripe_pattern = -1;
        comps->flags = -1;
        comps->ext_start = 0;
        comps->ext_end = -1;
        comps->mirror_id = -1;
        rec->lustre.num_comps = 1;
        rec->lustre.num_stripes = width;
    } else {
        if ((rc = iol_region_read_full(log, r, b, 16, "LUSTRE record")) < 0)
            return rc;
        int64_t nc = (int64_t)ld64(b, swap), ns = (int64_t)ld64(b + 8, swap);
        if ((rc = check_count(log, nc, "LUSTRE component count")) < 0 ||
            (rc = check_count(log, ns, "LUSTRE stripe count")) < 0)
            return rc;
        rec->lustre.num_comps = nc;
        rec->lustre.num_stripes = ns;
        /* raw components read in bounded steps, then converted in place */
        if ((rc = iol_region_read_grow(log, r, &log->var2, &log->var2_cap, (size_t)nc * 72,
                                       "LUSTRE components")) < 0)
            return rc;
        if ((rc = ensure(log, &log->var, &log->var_cap, (size_t)(nc ? nc : 1) * sizeof *comps)) < 0)
            return rc;
        comps = log->var;
        for (int64_t i = 0; i < nc; i++) {
            const unsigned char *q = (const unsigned char *)log->var2 + 72 * i;
            iolens_darshan_lustre_comp *c = &comps[i];
            c->stripe_size = (int64_t)ld64(q, swap);
            c->stripe_count = (int64_t)ld64(q + 8, swap);
            c->stripe_pattern = (int64_t)ld64(q + 16, swap);
            c->flags = (int64_t)ld64(q + 24, swap);
            c->ext_start = (int64_t)ld64(q + 32, swap);
            c->ext_end = (int64_t)ld64(q + 40, swap);
            c->mirror_id = (int64_t)ld64(q + 48, swap);
            memcpy(c->pool_name, q + 56, 16);
            c->pool_name[16] = '\0';
        }
    }
    int64_t ns = rec->lustre.num_stripes;
    if ((rc = iol_region_read_grow(log, r, &log->var2, &log->var2_cap, (size_t)ns * 8,
                                   "LUSTRE OST ids")) < 0)
        return rc;
    int64_t *osts = log->var2;
    for (int64_t i = 0; i < ns; i++)
        osts[i] = (int64_t)ld64((const unsigned char *)&osts[i], swap);
    rec->lustre.comps = log->var;
    rec->lustre.osts = osts;
    return 0;
}

static int read_heatmap(iolens_darshan_log *log)
{
    iol_region *r = &log->reg;
    iolens_darshan_record *rec = &log->rec;
    int swap = log->hdr.big_endian;
    unsigned char b[32];
    int rc = iol_region_read_full(log, r, b, 32, "HEATMAP record");
    if (rc < 0)
        return rc;
    rec->heatmap.bin_width = ldf(b, swap);
    int64_t nb = (int64_t)ld64(b + 8, swap);
    if ((rc = check_count(log, nb, "HEATMAP bin count")) < 0)
        return rc;
    rec->heatmap.nbins = nb;
    if ((rc = iol_region_read_grow(log, r, &log->var, &log->var_cap, (size_t)nb * 16,
                                   "HEATMAP bins")) < 0)
        return rc;
    int64_t *bins = log->var;
    for (int64_t i = 0; i < 2 * nb; i++)
        bins[i] = (int64_t)ld64((const unsigned char *)&bins[i], swap);
    rec->heatmap.write_bins = bins;
    rec->heatmap.read_bins = bins + nb;
    return 0;
}

static int read_dxt(iolens_darshan_log *log, int module, uint32_t ver)
{
    iol_region *r = &log->reg;
    iolens_darshan_record *rec = &log->rec;
    int swap = log->hdr.big_endian;
    unsigned char b[88];
    int rc = iol_region_read_full(log, r, b, 88, "DXT record");
    if (rc < 0)
        return rc;
    rec->dxt.shared_record = (int64_t)ld64(b, swap);
    memcpy(rec->dxt.hostname, b + 8, 64);
    rec->dxt.hostname[64] = '\0';
    int64_t wc = (int64_t)ld64(b + 72, swap), rdc = (int64_t)ld64(b + 80, swap);
    if ((rc = check_count(log, wc, "DXT write count")) < 0 ||
        (rc = check_count(log, rdc, "DXT read count")) < 0)
        return rc;
    rec->dxt.write_count = wc;
    rec->dxt.read_count = rdc;
    int with_tid = (module == IOLENS_DARSHAN_DXT_POSIX && ver >= 2) ||
                   (module == IOLENS_DARSHAN_DXT_MPIIO && ver >= 3);
    size_t ssz = with_tid ? 40 : 32;
    size_t n = (size_t)(wc + rdc);
    /* raw segments arrive in bounded steps: allocation never exceeds the data */
    if ((rc = iol_region_read_grow(log, r, &log->var2, &log->var2_cap, n * ssz, "DXT segments")) < 0)
        return rc;
    if ((rc = ensure(log, &log->var, &log->var_cap, (n ? n : 1) * sizeof(iolens_darshan_dxt_seg))) < 0)
        return rc;
    iolens_darshan_dxt_seg *segs = log->var;
    const unsigned char *q = log->var2;
    for (size_t i = 0; i < n; i++, q += ssz) {
        /* DXT_MPIIO v1 did not record offsets: -1, as the reference prints */
        segs[i].offset = module == IOLENS_DARSHAN_DXT_MPIIO && ver == 1 ? -1 : (int64_t)ld64(q, swap);
        segs[i].length = (int64_t)ld64(q + 8, swap);
        segs[i].start = ldf(q + 16, swap);
        segs[i].end = ldf(q + 24, swap);
        segs[i].pthread_id = with_tid ? ld64(q + 32, swap) : 0;
    }
    rec->dxt.segs = segs;
    rec->dxt.has_pthread_id = with_tid;
    return 0;
}

/* Decodes the next record of log->cur_module: 1 = record, 0 = end, < 0 = error. */
int iol_darshan_decode_next(iolens_darshan_log *log)
{
    int module = log->cur_module;
    uint32_t ver = log->hdr.mod_ver[module];
    for (;;) {
        int rc = ensure(log, (void **)&log->raw, &log->raw_cap, 16);
        if (rc < 0)
            return rc;
        long long got = iol_region_read(log, &log->reg, log->raw, 16);
        if (got < 0)
            return (int)got;
        if (got == 0)
            return 0;
        if (got < 16)
            return iol_region_error(log, &log->reg, IOLENS_EFORMAT,
                                    "truncated record header (%lld of 16 bytes)", got);
        iolens_darshan_record *rec = &log->rec;
        memset(rec, 0, sizeof *rec);
        rec->module = module;
        rec->version = ver;
        rec->id = ld64(log->raw, log->hdr.big_endian);
        rec->rank = (int64_t)ld64(log->raw + 8, log->hdr.big_endian);
        const struct layout *L = find_layout(module, ver);
        int skip = 0;
        if (L)
            rc = read_fixed(log, L, &skip);
        else if (module == IOLENS_DARSHAN_LUSTRE)
            rc = read_lustre(log, ver);
        else if (module == IOLENS_DARSHAN_HEATMAP)
            rc = read_heatmap(log);
        else if (module == IOLENS_DARSHAN_DXT_POSIX || module == IOLENS_DARSHAN_DXT_MPIIO)
            rc = read_dxt(log, module, ver);
        else
            rc = iol_err(IOLENS_EUNSUPPORTED, "cannot read '%s': %s module version %u unsupported",
                         log->path, mods[module].name, ver);
        if (rc < 0)
            return rc;
        if (!skip)
            return 1;
    }
}

int iolens_darshan_module_begin(iolens_darshan_log *log, int module)
{
    if (module <= 0 || module >= IOLENS_DARSHAN_MOD_COUNT)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_module_begin: bad module id %d", module);
    log->cur_module = -2;
    iol_region_close(&log->reg);
    const iolens_darshan_region *m = &log->hdr.mod[module];
    if (m->len == 0)
        return 0;
    if (!iol_darshan_module_supported(module, log->hdr.mod_ver[module])) {
        iol_darshan_warn(log, "no log utility handlers defined for module %s (version %u), SKIPPING",
                         mods[module].name, log->hdr.mod_ver[module]);
        return 0;
    }
    int rc = iol_region_open(log, &log->reg, mods[module].name, m->off, m->len);
    if (rc < 0)
        return rc;
    log->cur_module = module;
    return 1;
}

int iolens_darshan_record_next(iolens_darshan_log *log, const iolens_darshan_record **rec)
{
    if (log->cur_module <= 0)
        return iol_err(IOLENS_EINVAL, "iolens_darshan_record_next: module_begin not called");
    int rc = iol_darshan_decode_next(log);
    if (rc == 1)
        *rec = &log->rec;
    return rc;
}
