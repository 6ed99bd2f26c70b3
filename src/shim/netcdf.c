/*
 * NetCDF wrappers (the C API of netCDF-C 4.x: classic and netCDF-4 files, serial and
 * parallel). The shim does not link libnetcdf and does not include its header: every entry
 * point is looked up at run time. A netCDF-4 file's HDF5 calls are traced beneath its NetCDF
 * calls (lib depth 1), their MPI-IO and POSIX calls beneath those.
 *
 * The shim's own questions (a variable's type, dimensions, name) are asked of the library with
 * tracing on, inside the call's record: a netCDF-4 file answers some of them by reading its
 * HDF5 metadata the first time, which the program would otherwise read later; those reads are
 * traced (nested under the NetCDF call) instead of lost, so the file's HDF5, MPI-IO and POSIX
 * calls are the same with or without this layer, some of them earlier.
 *
 * Names: a file by its path, a variable as "<file>:<variable>" (as PnetCDF's). Argument slots:
 * src/trace/funcs.def. NetCDF has no Darshan module: its calls are in the trace and the
 * views, not in the counters.
 */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "shim/libtab.h"

#include <stddef.h>
#include <string.h>

/* ncids are a file's index << 16 | its group: a group's file is ncid & FILE_MASK */
#define FILE_MASK ((int)0xffff0000)

static struct {
    int done;
    int (*inq_unlimdim)(int, int *);
    int (*inq_dimlen)(int, int, size_t *);
    int (*inq_vartype)(int, int, int *);
    int (*inq_varndims)(int, int, int *);
    int (*inq_vardimid)(int, int, int *);
    int (*inq_type)(int, int, char *, size_t *);
    int (*inq_varname)(int, int, char *);
} q;

static void queries(void)
{
    if (__atomic_load_n(&q.done, __ATOMIC_ACQUIRE))
        return;
    q.inq_unlimdim = (int (*)(int, int *))iol_real("nc_inq_unlimdim");
    q.inq_dimlen = (int (*)(int, int, size_t *))iol_real("nc_inq_dimlen");
    q.inq_vartype = (int (*)(int, int, int *))iol_real("nc_inq_vartype");
    q.inq_varndims = (int (*)(int, int, int *))iol_real("nc_inq_varndims");
    q.inq_vardimid = (int (*)(int, int, int *))iol_real("nc_inq_vardimid");
    q.inq_type = (int (*)(int, int, char *, size_t *))iol_real("nc_inq_type");
    q.inq_varname = (int (*)(int, int, char *))iol_real("nc_inq_varname");
    __atomic_store_n(&q.done, 1, __ATOMIC_RELEASE);
}

static iol_libtab tab;

static int32_t file_of(int ncid) { return iol_libtab_file(&tab, ncid & FILE_MASK); }

static int open_done(int func, uint64_t t0, int r, const char *path, int mode, const int *ncidp)
{
    int ncid = r == 0 && ncidp ? *ncidp : -1;
    int32_t p = path ? iol_path_id(path) : -1;
    if (ncid >= 0)
        iol_libtab_set_file(&tab, ncid & FILE_MASK, p);
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

static int call_done(int func, uint64_t t0, int r, int ncid, int32_t file, int64_t a0, int64_t a1)
{
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec) {
        rec->fd = ncid;
        rec->file = file;
        rec->a[0] = a0;
        rec->a[1] = a1;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* The size of a type: the atomic ones as Darshan's netCDF modules count them, a user-defined
 * one (compound, opaque, ...) as the library says. */
static int32_t type_size(int ncid, int xtype)
{
    size_t s = 0;
    if (xtype > 12 && q.inq_type && q.inq_type(ncid, xtype, NULL, &s) == 0 && s < (1u << 30))
        return (int32_t)s;
    return iol_nc_type_size(xtype);
}

/* The shape and name of variable (ncid, *v.varid) into v: its
 * elements (a record dimension not counted), type size, record dimension, "<file>:<name>".
 * Returns whether it is a record variable; *flen the length of the file's part. */
static int var_shape(iol_libvar *v, int ncid, const char *name, int xtype, int ndims, const int *dimids, size_t *flen)
{
    int isrec = 0;
    int u = -1;
    if (!q.inq_unlimdim || q.inq_unlimdim(ncid, &u) != 0)
        u = -1;
    int i = 0;
    if (ndims > 0 && dimids && u >= 0 && dimids[0] == u) {
        isrec = 1;
        v->unlimdim = u;
        i = 1;
    }
    for (; i < ndims && dimids; i++) {
        size_t len = 0;
        if (q.inq_dimlen && q.inq_dimlen(ncid, dimids[i], &len) == 0)
            v->npoints = (int64_t)((uint64_t)v->npoints * (uint64_t)len);
    }
    v->tsize = type_size(ncid, xtype);
    int32_t fp = file_of(ncid);
    char buf[IOL_RAW_MAX_PATH];
    *flen = fp >= 0 ? iol_path_name(fp, buf, sizeof buf) : 0;
    size_t nl = name ? strlen(name) : 0;
    if (*flen && name && *flen + 1 + nl < sizeof buf) {
        buf[*flen] = ':';
        memcpy(buf + *flen + 1, name, nl + 1);
        v->path = iol_path_id(buf);
    }
    return isrec;
}

static int var_done(int func, uint64_t t0, int r, int ncid, const char *name, int xtype, int ndims,
                    const int *dimids, const int *varidp)
{
    iol_libvar v = {ncid, r == 0 && varidp ? *varidp : -1, -1, 0, ndims, -1, 1};
    int isrec = 0;
    size_t flen = 0;
    if (r == 0 && varidp) {
        isrec = var_shape(&v, ncid, name, xtype, ndims, dimids, &flen);
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

/* A variable the program reached without nc_def_var or nc_inq_varid (nc_inq_varids, as ncdump
 * and nccopy do): named and shaped at its first read or write, then kept. 1 when it could be. */
static int lazy_var(int ncid, int varid, iol_libvar *v)
{
    char name[1024]; /* NC_MAX_NAME is 256 */
    int xtype = 0, ndims = -1, dimids[64];
    if (!q.inq_varname || q.inq_varname(ncid, varid, name) != 0 || !q.inq_vartype ||
        q.inq_vartype(ncid, varid, &xtype) != 0 || !q.inq_varndims || q.inq_varndims(ncid, varid, &ndims) != 0 ||
        ndims < 0 || ndims > 64 || !q.inq_vardimid || q.inq_vardimid(ncid, varid, dimids) != 0)
        return 0;
    *v = (iol_libvar){ncid, varid, -1, 0, ndims, -1, 1};
    size_t flen;
    var_shape(v, ncid, name, xtype, ndims, dimids, &flen);
    if (v->path < 0)
        return 0;
    iol_libtab_put_var(&tab, v);
    return 1;
}

/* ---- data calls: a0 the varid, a1 the bytes (elements x type size), a note with the counts
 * and strides of the last five dimensions before a vara, vars or varm call ---- */

typedef struct acc {
    int64_t bytes;
    int nd;
    uint64_t cnt[5], str[5];
} acc;

static void acc_whole(acc *a, const iol_libvar *v, int ncid)
{
    uint64_t n = (uint64_t)v->npoints;
    size_t len;
    if (v->unlimdim >= 0 && q.inq_dimlen && q.inq_dimlen(ncid, v->unlimdim, &len) == 0) /* its records */
        n *= len;
    a->bytes = (int64_t)(n * (uint64_t)v->tsize);
}

static void acc_sub(acc *a, const iol_libvar *v, const size_t *count, const ptrdiff_t *stride, int strided)
{
    int nd = v->ndims;
    uint64_t n = 1;
    for (int i = 0; i < nd && count; i++)
        n *= count[i];
    a->bytes = (int64_t)(n * (uint64_t)v->tsize);
    if (nd <= 0 || !count)
        return;
    int from = nd > 5 ? nd - 5 : 0;
    a->nd = nd - from;
    for (int i = from; i < nd; i++) {
        a->cnt[i - from] = count[i];
        a->str[i - from] = strided ? (stride ? (uint64_t)stride[i] : 1) : 0;
    }
}

static void data_done(int func, uint64_t t0, int r, int ncid, int varid, const iol_libvar *v, const acc *a)
{
    if (a->nd > 0) {
        iol_rawrec *n = iol_lib_note(IOL_F_H5Sget_regular_hyperslab, t0);
        if (n) {
            int64_t s[5] = {0};
            for (int i = 0; i < a->nd; i++)
                s[i] = (int64_t)((a->cnt[i] > 0xffffffffu ? 0xffffffffu : a->cnt[i]) << 32 |
                                 (a->str[i] > 0xffffffffu ? 0xffffffffu : a->str[i]));
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
    rec->a[2] = -1;
    rec->a[3] = -1;
    rec->ret = r;
    iol_commit(rec);
}

#define NC_KPAR_var
#define NC_KPAR_var1 const size_t *index,
#define NC_KPAR_vara const size_t *start, const size_t *count,
#define NC_KPAR_vars const size_t *start, const size_t *count, const ptrdiff_t *stride,
#define NC_KPAR_varm const size_t *start, const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap,
#define NC_KARG_var
#define NC_KARG_var1 index,
#define NC_KARG_vara start, count,
#define NC_KARG_vars start, count, stride,
#define NC_KARG_varm start, count, stride, imap,
#define NC_KACC_var(a) acc_whole(a, &v, ncid)
#define NC_KACC_var1(a) ((a)->bytes = v.tsize)
#define NC_KACC_vara(a) acc_sub(a, &v, count, NULL, 0)
#define NC_KACC_vars(a) acc_sub(a, &v, count, stride, 1)
#define NC_KACC_varm(a) acc_sub(a, &v, count, stride, 1)
#define NC_BUF_put const void *buf
#define NC_BUF_get void *buf

#define NC_DEF(name, K, D)                                                                         \
    IOL_EXPORT int name(int ncid, int varid, NC_KPAR_##K NC_BUF_##D);                              \
    IOL_EXPORT int name(int ncid, int varid, NC_KPAR_##K NC_BUF_##D)                               \
    {                                                                                              \
        IOL_REAL(name);                                                                            \
        if (!iol_tracing(IOL_LAYER_NETCDF_BIT))                                                    \
            return real_##name(ncid, varid, NC_KARG_##K buf);                                      \
        queries();                                                                                 \
        uint64_t t0 = iol_lib_begin();                                                             \
        int r = real_##name(ncid, varid, NC_KARG_##K buf);                                         \
        iol_libvar v;                                                                              \
        acc a = {0, 0, {0}, {0}};                                                                  \
        int known = iol_libtab_var(&tab, ncid, varid, &v);                                         \
        if (r == 0) {                                                                              \
            if (!known)                                                                            \
                known = lazy_var(ncid, varid, &v);                                                 \
            if (known)                                                                             \
                NC_KACC_##K(&a);                                                                   \
        }                                                                                          \
        data_done(IOL_F_##name, t0, r, ncid, varid, known ? &v : NULL, &a);                        \
        return r;                                                                                  \
    }
#define NC_T(T, D, K) NC_DEF(nc_##D##_##K##T, K, D)
#define NC_TYPES(X, ...)                                                                           \
    X(, __VA_ARGS__) X(_text, __VA_ARGS__) X(_schar, __VA_ARGS__) X(_uchar, __VA_ARGS__)           \
    X(_short, __VA_ARGS__) X(_int, __VA_ARGS__) X(_long, __VA_ARGS__) X(_float, __VA_ARGS__)       \
    X(_double, __VA_ARGS__) X(_ubyte, __VA_ARGS__) X(_ushort, __VA_ARGS__) X(_uint, __VA_ARGS__)   \
    X(_longlong, __VA_ARGS__) X(_ulonglong, __VA_ARGS__) X(_string, __VA_ARGS__)
#define NC_KIND(K) NC_TYPES(NC_T, put, K) NC_TYPES(NC_T, get, K)
NC_KIND(var)
NC_KIND(var1)
NC_KIND(vara)
NC_KIND(vars)
NC_KIND(varm)

/* ---- files ---- */

IOL_EXPORT int nc_create(const char *path, int cmode, int *ncidp);
IOL_EXPORT int nc_create(const char *path, int cmode, int *ncidp)
{
    IOL_REAL(nc_create);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_create(path, cmode, ncidp);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_create(path, cmode, ncidp);
    return open_done(IOL_F_nc_create, t0, r, path, cmode, ncidp);
}

IOL_EXPORT int nc_open(const char *path, int mode, int *ncidp);
IOL_EXPORT int nc_open(const char *path, int mode, int *ncidp)
{
    IOL_REAL(nc_open);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_open(path, mode, ncidp);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_open(path, mode, ncidp);
    return open_done(IOL_F_nc_open, t0, r, path, mode, ncidp);
}

/* the parallel forms (netCDF-C built with MPI); the communicator and info are passed on as
 * they came (a handle: a pointer in Open MPI, an int in MPICH, either fits the register) */
IOL_EXPORT int nc_create_par(const char *path, int cmode, void *comm, void *info, int *ncidp);
IOL_EXPORT int nc_create_par(const char *path, int cmode, void *comm, void *info, int *ncidp)
{
    IOL_REAL(nc_create_par);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_create_par(path, cmode, comm, info, ncidp);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_create_par(path, cmode, comm, info, ncidp);
    return open_done(IOL_F_nc_create_par, t0, r, path, cmode, ncidp);
}

IOL_EXPORT int nc_open_par(const char *path, int mode, void *comm, void *info, int *ncidp);
IOL_EXPORT int nc_open_par(const char *path, int mode, void *comm, void *info, int *ncidp)
{
    IOL_REAL(nc_open_par);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_open_par(path, mode, comm, info, ncidp);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_open_par(path, mode, comm, info, ncidp);
    return open_done(IOL_F_nc_open_par, t0, r, path, mode, ncidp);
}

IOL_EXPORT int nc_close(int ncid);
IOL_EXPORT int nc_close(int ncid)
{
    IOL_REAL(nc_close);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_close(ncid);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_close(ncid);
    int32_t p = file_of(ncid);
    if (r == 0) {
        iol_libtab_drop(&tab, ncid, FILE_MASK);
        iol_libtab_set_file(&tab, ncid & FILE_MASK, -1);
    }
    return call_done(IOL_F_nc_close, t0, r, ncid, p, 0, 0);
}

#define NC_FILE1(fn)                                                                               \
    IOL_EXPORT int fn(int ncid);                                                                   \
    IOL_EXPORT int fn(int ncid)                                                                    \
    {                                                                                              \
        IOL_REAL(fn);                                                                              \
        if (!iol_tracing(IOL_LAYER_NETCDF_BIT))                                                    \
            return real_##fn(ncid);                                                                \
        uint64_t t0 = iol_lib_begin();                                                             \
        int r = real_##fn(ncid);                                                                   \
        return call_done(IOL_F_##fn, t0, r, ncid, file_of(ncid), 0, 0);                            \
    }
NC_FILE1(nc_enddef)
NC_FILE1(nc_redef)
NC_FILE1(nc_sync)

/* a0 the varid, a1 the access (0 independent, 1 collective) */
IOL_EXPORT int nc_var_par_access(int ncid, int varid, int access);
IOL_EXPORT int nc_var_par_access(int ncid, int varid, int access)
{
    IOL_REAL(nc_var_par_access);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_var_par_access(ncid, varid, access);
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_var_par_access(ncid, varid, access);
    iol_libvar v;
    int32_t p = iol_libtab_var(&tab, ncid, varid, &v) ? v.path : file_of(ncid);
    return call_done(IOL_F_nc_var_par_access, t0, r, ncid, p, varid, access);
}

/* ---- variables ---- */

IOL_EXPORT int nc_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimids, int *varidp);
IOL_EXPORT int nc_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimids, int *varidp)
{
    IOL_REAL(nc_def_var);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_def_var(ncid, name, xtype, ndims, dimids, varidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_def_var(ncid, name, xtype, ndims, dimids, varidp);
    return var_done(IOL_F_nc_def_var, t0, r, ncid, name, xtype, ndims, dimids, varidp);
}

IOL_EXPORT int nc_inq_varid(int ncid, const char *name, int *varidp);
IOL_EXPORT int nc_inq_varid(int ncid, const char *name, int *varidp)
{
    IOL_REAL(nc_inq_varid);
    if (!iol_tracing(IOL_LAYER_NETCDF_BIT))
        return real_nc_inq_varid(ncid, name, varidp);
    queries();
    uint64_t t0 = iol_lib_begin();
    int r = real_nc_inq_varid(ncid, name, varidp);
    int xtype = 0, ndims = -1;
    int dimids[64], *d = dimids;
    if (r == 0 && varidp) {
        if (!q.inq_vartype || q.inq_vartype(ncid, *varidp, &xtype) != 0 || !q.inq_varndims ||
            q.inq_varndims(ncid, *varidp, &ndims) != 0 || ndims < 0 || ndims > 1024)
            ndims = -1;
        else if (ndims > 64) /* deeper than any real variable: its shape is not recorded */
            d = NULL;
        else if (!q.inq_vardimid || q.inq_vardimid(ncid, *varidp, dimids) != 0)
            ndims = -1;
    }
    if (ndims < 0)
        return call_done(IOL_F_nc_inq_varid, t0, r, ncid, file_of(ncid), varidp && r == 0 ? *varidp : -1, -1);
    return var_done(IOL_F_nc_inq_varid, t0, r, ncid, name, xtype, d ? ndims : 0, d, varidp);
}
