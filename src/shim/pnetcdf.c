/*
 * PnetCDF wrappers (built with the MPI-IO ones: PnetCDF's API takes MPI types). The shim does
 * not link libpnetcdf and does not include its header: every entry point is looked up at run
 * time, so one shim serves programs with and without PnetCDF.
 *
 * Files and variables are recorded under the names Darshan's PNETCDF_FILE and PNETCDF_VAR
 * modules give them: the file's path, and "<file>:<variable>". The MPI-IO and POSIX calls a
 * PnetCDF call makes keep their io depth and get lib depth 1 (format.h, IOL_DEPTH_PACK).
 * Argument slots: src/trace/funcs.def. The size of an access is computed here, when the call
 * is made, as Darshan's PnetCDF module computes it (the selection's elements x the variable's
 * type size; a whole variable's elements x the file's current number of records when the
 * file has a record dimension), since it needs the file's state at that moment.
 */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "shim/libtab.h"

#include <mpi.h>
#include <string.h>

/* ---- queries (not traced), resolved once; NULL when absent ---- */
static struct {
    int done;
    int (*inq_unlimdim)(int, int *);
    int (*inq_dimlen)(int, int, MPI_Offset *);
    int (*inq_vartype)(int, int, int *);
    int (*inq_varndims)(int, int, int *);
    int (*inq_vardimid)(int, int, int *);
    int (*inq_put_size)(int, MPI_Offset *);
    int (*inq_get_size)(int, MPI_Offset *);
    int (*type_size)(MPI_Datatype, int *);
} q;

static void queries(void)
{
    if (__atomic_load_n(&q.done, __ATOMIC_ACQUIRE))
        return;
    q.inq_unlimdim = (int (*)(int, int *))iol_real("ncmpi_inq_unlimdim");
    q.inq_dimlen = (int (*)(int, int, MPI_Offset *))iol_real("ncmpi_inq_dimlen");
    q.inq_vartype = (int (*)(int, int, int *))iol_real("ncmpi_inq_vartype");
    q.inq_varndims = (int (*)(int, int, int *))iol_real("ncmpi_inq_varndims");
    q.inq_vardimid = (int (*)(int, int, int *))iol_real("ncmpi_inq_vardimid");
    q.inq_put_size = (int (*)(int, MPI_Offset *))iol_real("ncmpi_inq_put_size");
    q.inq_get_size = (int (*)(int, MPI_Offset *))iol_real("ncmpi_inq_get_size");
    q.type_size = (int (*)(MPI_Datatype, int *))iol_real("PMPI_Type_size");
    __atomic_store_n(&q.done, 1, __ATOMIC_RELEASE);
}

/* ---- open files and known variables (libtab.h) ---- */
static iol_libtab tab;
typedef iol_libvar pvar;
static int32_t file_get(int ncid) { return iol_libtab_file(&tab, ncid); }
static void file_set(int ncid, int32_t path) { iol_libtab_set_file(&tab, ncid, path); }
static int var_get(int ncid, int varid, pvar *out) { return iol_libtab_var(&tab, ncid, varid, out); }

/* ---- records ---- */

/* Darshan's path of a file: a "prefix:" of more than one character (ROMIO's file system
 * prefix, "ufs:") taken off. */
static const char *strip_prefix(const char *path)
{
    const char *c = path ? strchr(path, ':') : NULL;
    return c && c > path + 1 ? c + 1 : path;
}

static int file_open_done(int func, uint64_t t0, int r, const char *path, int mode, const int *ncidp)
{
    int ncid = r == 0 && ncidp ? *ncidp : -1;
    int32_t p = path ? iol_path_id(strip_prefix(path)) : -1;
    if (ncid >= 0)
        file_set(ncid, p);
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec) {
        rec->fd = ncid;
        rec->file = p;
        rec->a[0] = mode;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* A call on an open file: a0..a2 as funcs.def says for it. */
static int file_call_done(int func, uint64_t t0, int r, int ncid, int64_t a0, int64_t a1, int64_t a2)
{
    int32_t p = file_get(ncid);
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec) {
        rec->fd = ncid;
        rec->file = p;
        rec->a[0] = a0;
        rec->a[1] = a1;
        rec->a[2] = a2;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* A variable defined or looked up (its type and dimensions given): named, shaped, kept. */
static int var_open_done(int func, uint64_t t0, int r, int ncid, const char *name, int xtype, int ndims,
                         const int *dimids, const int *varidp)
{
    pvar v = {ncid, r == 0 && varidp ? *varidp : -1, -1, 0, ndims, -1, 1};
    int isrec = 0;
    size_t flen = 0;
    int32_t fp = file_get(ncid);
    if (r == 0 && varidp) {
        iol_shim_inside++;
        int u = -1;
        if (q.inq_unlimdim && q.inq_unlimdim(ncid, &u) != 0)
            u = -1;
        v.unlimdim = u;
        int i = 0;
        if (ndims > 0 && dimids && u >= 0 && dimids[0] == u) {
            isrec = 1;
            i = 1;
        }
        for (; i < ndims && dimids; i++) {
            MPI_Offset len = 0;
            if (q.inq_dimlen && q.inq_dimlen(ncid, dimids[i], &len) == 0)
                v.npoints = (int64_t)((uint64_t)v.npoints * (uint64_t)len);
        }
        v.tsize = iol_nc_type_size(xtype);
        char buf[IOL_RAW_MAX_PATH];
        flen = fp >= 0 ? iol_path_name(fp, buf, sizeof buf) : 0;
        size_t nl = name ? strlen(name) : 0;
        if (flen && name && flen + 1 + nl < sizeof buf) {
            buf[flen] = ':';
            memcpy(buf + flen + 1, name, nl + 1);
            v.path = iol_path_id(buf);
        }
        iol_shim_inside--;
        iol_libtab_put_var(&tab, &v);
    }
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec) {
        rec->fd = ncid;
        rec->file = v.path;
        rec->a[0] = v.varid;
        rec->a[1] = r == 0 ? v.npoints : -1;
        rec->a[2] = v.tsize;
        rec->a[3] = (int64_t)((uint64_t)(uint32_t)ndims | (uint64_t)isrec << 16 | (uint64_t)flen << 32);
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* ---- data calls ---- */

typedef struct acc {
    int64_t bytes;
    int nd;               /* dimensions in the shape (the last five), 0 none */
    int64_t cnt[5], str[5];
} acc;

static void acc_whole(acc *a, const pvar *v, int ncid)
{
    int64_t n = v->npoints;
    MPI_Offset len;
    /* Darshan multiplies by the record count whenever the file has a record dimension */
    if (v->unlimdim >= 0 && q.inq_dimlen && q.inq_dimlen(ncid, v->unlimdim, &len) == 0)
        n = (int64_t)((uint64_t)n * (uint64_t)len);
    a->bytes = (int64_t)((uint64_t)n * (uint64_t)v->tsize);
}

static void acc_one(acc *a, const pvar *v) { a->bytes = v->tsize; }

static void acc_sub(acc *a, const pvar *v, const MPI_Offset *count, const MPI_Offset *stride, int strided)
{
    int nd = v->ndims;
    uint64_t n = 1;
    for (int i = 0; i < nd && count; i++)
        n *= (uint64_t)count[i];
    a->bytes = (int64_t)(n * (uint64_t)v->tsize);
    if (nd <= 0 || !count)
        return;
    int from = nd > 5 ? nd - 5 : 0;
    a->nd = nd - from;
    for (int i = from; i < nd; i++) {
        a->cnt[i - from] = count[i];
        a->str[i - from] = strided ? (stride ? stride[i] : 1) : 0;
    }
}

static void acc_n(acc *a, const pvar *v, int num, MPI_Offset *const *counts)
{
    uint64_t n = 0;
    if (!counts) {
        n = num > 0 ? (uint64_t)num : 0;
    } else {
        for (int i = 0; i < num; i++) {
            uint64_t k = 1;
            for (int j = 0; j < v->ndims && counts[i]; j++)
                k *= (uint64_t)counts[i][j];
            n += k;
        }
    }
    a->bytes = (int64_t)(n * (uint64_t)v->tsize);
}

static void acc_d(acc *a, MPI_Datatype filetype)
{
#ifdef OMPI_MAJOR_VERSION
    static void *null_type;
    if (!null_type)
        null_type = iol_data("ompi_mpi_datatype_null"); /* MPI_DATATYPE_NULL without linking libmpi */
    int is_null = (void *)filetype == null_type;
#else
    int is_null = filetype == MPI_DATATYPE_NULL;
#endif
    int s = 0;
    if (!is_null && q.type_size && q.type_size(filetype, &s) != MPI_SUCCESS)
        s = 0;
    a->bytes = s;
}

static void data_done(int func, uint64_t t0, int r, int ncid, int varid, const pvar *v, const acc *a,
                      int64_t bufcount, const int *reqid)
{
    if (a->nd > 0) { /* the shape, as a note before the call's record */
        iol_rawrec *n = iol_lib_note(IOL_F_H5Sget_regular_hyperslab, t0);
        if (n) {
            int64_t s[5] = {0};
            for (int i = 0; i < a->nd; i++) {
                uint64_t c = (uint64_t)a->cnt[i], st = (uint64_t)a->str[i];
                s[i] = (int64_t)((c > 0xffffffffu ? 0xffffffffu : c) << 32 | (st > 0xffffffffu ? 0xffffffffu : st));
            }
            n->fd = a->nd;
            n->a[0] = s[0];
            n->a[1] = s[1];
            n->a[2] = s[2];
            n->a[3] = s[3];
            n->ret = s[4];
            iol_commit(n);
        }
    }
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (!rec)
        return;
    rec->fd = ncid;
    rec->file = v ? v->path : -1;
    rec->a[0] = varid;
    rec->a[1] = v && r == 0 ? a->bytes : -1;
    rec->a[2] = bufcount;
    rec->a[3] = reqid && r == 0 ? *reqid : -1;
    rec->ret = r;
    iol_commit(rec);
}

/* The parameters and arguments of each kind of access, after (ncid, varid). */
#define PNC_KPAR_var
#define PNC_KPAR_var1 const MPI_Offset *start,
#define PNC_KPAR_vara const MPI_Offset *start, const MPI_Offset *count,
#define PNC_KPAR_vars const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,
#define PNC_KPAR_varm                                                                              \
    const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, const MPI_Offset *imap,
#define PNC_KPAR_varn int num, MPI_Offset *const *starts, MPI_Offset *const *counts,
#define PNC_KPAR_vard MPI_Datatype filetype,
#define PNC_KARG_var
#define PNC_KARG_var1 start,
#define PNC_KARG_vara start, count,
#define PNC_KARG_vars start, count, stride,
#define PNC_KARG_varm start, count, stride, imap,
#define PNC_KARG_varn num, starts, counts,
#define PNC_KARG_vard filetype,
#define PNC_KACC_var(a) acc_whole(a, &v, ncid)
#define PNC_KACC_var1(a) acc_one(a, &v)
#define PNC_KACC_vara(a) acc_sub(a, &v, count, NULL, 0)
#define PNC_KACC_vars(a) acc_sub(a, &v, count, stride, 1)
#define PNC_KACC_varm(a) acc_sub(a, &v, count, stride, 1)
#define PNC_KACC_varn(a) acc_n(a, &v, num, counts)
#define PNC_KACC_vard(a) acc_d(a, filetype)
/* The buffer: written (w) or read (r), typed (t: its C type is in the name) or flexible (f:
 * a count of an MPI datatype), blocking or non-blocking (nb: a request id comes back). */
#define PNC_TP_w_t const void *buf
#define PNC_TA_w_t buf
#define PNC_TP_r_t void *buf
#define PNC_TA_r_t buf
#define PNC_TP_w_f const void *buf, MPI_Offset bufcount, MPI_Datatype buftype
#define PNC_TA_w_f buf, bufcount, buftype
#define PNC_TP_r_f void *buf, MPI_Offset bufcount, MPI_Datatype buftype
#define PNC_TA_r_f buf, bufcount, buftype
#define PNC_TP_w_t_nb const void *buf, int *reqid
#define PNC_TA_w_t_nb buf, reqid
#define PNC_TP_r_t_nb void *buf, int *reqid
#define PNC_TA_r_t_nb buf, reqid
#define PNC_TP_w_f_nb const void *buf, MPI_Offset bufcount, MPI_Datatype buftype, int *reqid
#define PNC_TA_w_f_nb buf, bufcount, buftype, reqid
#define PNC_TP_r_f_nb void *buf, MPI_Offset bufcount, MPI_Datatype buftype, int *reqid
#define PNC_TA_r_f_nb buf, bufcount, buftype, reqid

#define PNC_DEF(name, K, TP, TA, BC, RQ)                                                           \
    IOL_EXPORT int name(int ncid, int varid, PNC_KPAR_##K TP);                                     \
    IOL_EXPORT int name(int ncid, int varid, PNC_KPAR_##K TP)                                      \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))                                                   \
            return real_##name(ncid, varid, PNC_KARG_##K TA);                                      \
        queries();                                                                                 \
        uint64_t t0 = iol_lib_begin();                                                             \
        int r = real_##name(ncid, varid, PNC_KARG_##K TA);                                         \
        pvar v;                                                                                    \
        acc a = {0, 0, {0}, {0}};                                                                  \
        int known = var_get(ncid, varid, &v);                                                      \
        if (known && r == 0) {                                                                     \
            iol_shim_inside++;                                                                     \
            PNC_KACC_##K(&a);                                                                      \
            iol_shim_inside--;                                                                     \
        }                                                                                          \
        data_done(IOL_F_##name, t0, r, ncid, varid, known ? &v : NULL, &a, BC, RQ);                \
        return r;                                                                                  \
    }

/* blocking: typed (T the type's suffix) and flexible; M "" (independent) or _all */
#define PNC_BT(T, D, K, M, RW) PNC_DEF(ncmpi_##D##_##K##T##M, K, PNC_TP_##RW##_t, PNC_TA_##RW##_t, -1, NULL)
#define PNC_BF(D, K, M, RW) PNC_DEF(ncmpi_##D##_##K##M, K, PNC_TP_##RW##_f, PNC_TA_##RW##_f, bufcount, NULL)
/* non-blocking: iput, iget, bput */
#define PNC_NT(T, D, K, RW) PNC_DEF(ncmpi_##D##_##K##T, K, PNC_TP_##RW##_t_nb, PNC_TA_##RW##_t_nb, -1, reqid)
#define PNC_NF(D, K, RW) PNC_DEF(ncmpi_##D##_##K, K, PNC_TP_##RW##_f_nb, PNC_TA_##RW##_f_nb, bufcount, reqid)

#define PNC_TYPES(X, ...)                                                                          \
    X(_text, __VA_ARGS__) X(_schar, __VA_ARGS__) X(_uchar, __VA_ARGS__) X(_short, __VA_ARGS__)     \
    X(_ushort, __VA_ARGS__) X(_int, __VA_ARGS__) X(_uint, __VA_ARGS__) X(_long, __VA_ARGS__)       \
    X(_float, __VA_ARGS__) X(_double, __VA_ARGS__) X(_longlong, __VA_ARGS__) X(_ulonglong, __VA_ARGS__)

#define PNC_KIND(K)                                                                                \
    PNC_TYPES(PNC_BT, put, K, , w)                                                                 \
    PNC_TYPES(PNC_BT, put, K, _all, w)                                                             \
    PNC_TYPES(PNC_BT, get, K, , r)                                                                 \
    PNC_TYPES(PNC_BT, get, K, _all, r)                                                             \
    PNC_BF(put, K, , w)                                                                            \
    PNC_BF(put, K, _all, w)                                                                        \
    PNC_BF(get, K, , r)                                                                            \
    PNC_BF(get, K, _all, r)                                                                        \
    PNC_TYPES(PNC_NT, iput, K, w)                                                                  \
    PNC_TYPES(PNC_NT, iget, K, r)                                                                  \
    PNC_TYPES(PNC_NT, bput, K, w)                                                                  \
    PNC_NF(iput, K, w)                                                                             \
    PNC_NF(iget, K, r)                                                                             \
    PNC_NF(bput, K, w)

PNC_KIND(var)
PNC_KIND(var1)
PNC_KIND(vara)
PNC_KIND(vars)
PNC_KIND(varm)
PNC_KIND(varn)
PNC_BF(put, vard, , w)
PNC_BF(put, vard, _all, w)
PNC_BF(get, vard, , r)
PNC_BF(get, vard, _all, r)

/* ---- files ---- */

IOL_EXPORT int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp);
IOL_EXPORT int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp)
{
    IOL_REAL(ncmpi_create);
    if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))
        return real_ncmpi_create(comm, path, cmode, info, ncidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_ncmpi_create(comm, path, cmode, info, ncidp);
    return file_open_done(IOL_F_ncmpi_create, t0, r, path, cmode, ncidp);
}

IOL_EXPORT int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp);
IOL_EXPORT int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp)
{
    IOL_REAL(ncmpi_open);
    if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))
        return real_ncmpi_open(comm, path, omode, info, ncidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_ncmpi_open(comm, path, omode, info, ncidp);
    return file_open_done(IOL_F_ncmpi_open, t0, r, path, omode, ncidp);
}

IOL_EXPORT int ncmpi_close(int ncid);
IOL_EXPORT int ncmpi_close(int ncid)
{
    IOL_REAL(ncmpi_close);
    if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))
        return real_ncmpi_close(ncid);
    queries();
    MPI_Offset put = -1, get = -1; /* what the library moved for this file, asked before it closes */
    iol_shim_inside++;
    if (!q.inq_put_size || q.inq_put_size(ncid, &put) != 0)
        put = -1;
    if (!q.inq_get_size || q.inq_get_size(ncid, &get) != 0)
        get = -1;
    iol_shim_inside--;
    uint64_t t0 = iol_lib_begin();
    int r = real_ncmpi_close(ncid);
    int32_t p = file_get(ncid);
    if (r == 0) {
        iol_libtab_drop(&tab, ncid, -1);
        file_set(ncid, -1);
    }
    iol_rawrec *rec = iol_lib_end(IOL_F_ncmpi_close, t0);
    if (rec) {
        rec->fd = ncid;
        rec->file = p;
        rec->a[1] = put;
        rec->a[2] = get;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

#define PNC_FILE1(fn)                                                                              \
    IOL_EXPORT int fn(int ncid);                                                                   \
    IOL_EXPORT int fn(int ncid)                                                                    \
    {                                                                                              \
        IOL_REAL(fn);                                                                              \
        if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))                                                   \
            return real_##fn(ncid);                                                                \
        uint64_t t0 = iol_lib_begin();                                                             \
        int r = real_##fn(ncid);                                                                   \
        return file_call_done(IOL_F_##fn, t0, r, ncid, 0, 0, 0);                                   \
    }
PNC_FILE1(ncmpi_redef)
PNC_FILE1(ncmpi_enddef)
PNC_FILE1(ncmpi_sync)
PNC_FILE1(ncmpi_begin_indep_data)
PNC_FILE1(ncmpi_end_indep_data)

#define PNC_WAIT(fn)                                                                               \
    IOL_EXPORT int fn(int ncid, int num, int *reqs, int *statuses);                                \
    IOL_EXPORT int fn(int ncid, int num, int *reqs, int *statuses)                                 \
    {                                                                                              \
        IOL_REAL(fn);                                                                              \
        if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))                                                   \
            return real_##fn(ncid, num, reqs, statuses);                                           \
        uint64_t t0 = iol_lib_begin();                                                             \
        int r = real_##fn(ncid, num, reqs, statuses);                                              \
        return file_call_done(IOL_F_##fn, t0, r, ncid, num, 0, 0);                                 \
    }
PNC_WAIT(ncmpi_wait)
PNC_WAIT(ncmpi_wait_all)

/* ---- variables ---- */

IOL_EXPORT int ncmpi_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimids, int *varidp);
IOL_EXPORT int ncmpi_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimids, int *varidp)
{
    IOL_REAL(ncmpi_def_var);
    if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))
        return real_ncmpi_def_var(ncid, name, xtype, ndims, dimids, varidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_ncmpi_def_var(ncid, name, xtype, ndims, dimids, varidp);
    return var_open_done(IOL_F_ncmpi_def_var, t0, r, ncid, name, xtype, ndims, dimids, varidp);
}

IOL_EXPORT int ncmpi_inq_varid(int ncid, const char *name, int *varidp);
IOL_EXPORT int ncmpi_inq_varid(int ncid, const char *name, int *varidp)
{
    IOL_REAL(ncmpi_inq_varid);
    if (!iol_tracing(IOL_LAYER_PNETCDF_BIT))
        return real_ncmpi_inq_varid(ncid, name, varidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_ncmpi_inq_varid(ncid, name, varidp);
    int xtype = 0, ndims = 0;
    enum { MAXD = 1024 }; /* NC_MAX_VAR_DIMS */
    int dimids[64], *d = dimids;
    if (r == 0 && varidp) {
        iol_shim_inside++;
        if (!q.inq_vartype || q.inq_vartype(ncid, *varidp, &xtype) != 0 || !q.inq_varndims ||
            q.inq_varndims(ncid, *varidp, &ndims) != 0 || ndims < 0 || ndims > MAXD)
            ndims = -1;
        else if (ndims > 64) /* deeper than any real variable: its shape is not recorded */
            d = NULL;
        else if (!q.inq_vardimid || q.inq_vardimid(ncid, *varidp, dimids) != 0)
            ndims = -1;
        iol_shim_inside--;
    }
    if (ndims < 0) /* its shape could not be asked: recorded without a name, as Darshan skips it */
        return file_call_done(IOL_F_ncmpi_inq_varid, t0, r, ncid, varidp && r == 0 ? *varidp : -1, -1, 0);
    return var_open_done(IOL_F_ncmpi_inq_varid, t0, r, ncid, name, xtype, d ? ndims : 0, d, varidp);
}
