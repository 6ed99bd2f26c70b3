/*
 * HDF5 wrappers. The shim does not link libhdf5 and does not include its headers: the few
 * types of the C API are declared here as HDF5 1.10 and later define them (hid_t is 64 bits
 * since 1.10), every entry point is looked up at run time, so one shim serves programs with
 * and without HDF5, serial or parallel.
 *
 * An object is recorded under the name Darshan's H5F and H5D modules give it: the file's path
 * (as the POSIX layer records it) for H5F calls, "<file>:<object path>" for datasets and
 * groups, "<file>:<object path>@<attribute>" for attributes. The POSIX and MPI-IO calls an
 * HDF5 call makes keep their io depth and get lib depth 1 (format.h, IOL_DEPTH_PACK).
 *
 * Argument slots (docs/TRACE-FORMAT.md): fd a small handle index of the object; ret the
 * hid_t or herr_t. Reads and writes (H5Dread/H5Dwrite, H5Aread/H5Awrite): a0 the file
 * selection (0 none, 1 points, 2 regular hyperslab, 3 irregular hyperslab, 4 all), a1 bytes
 * (selected elements x memory type size), a2 the memory type size, a3 the transfer mode
 * (0 independent, 1 collective, -1 not known). Dataset create/open: a0 the creation or access
 * property list, a1 the dataset's bytes (elements x type size), a2 the type size, a3 the rank.
 */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <stdio.h>
#include <string.h>

typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef unsigned long long hsize_t;
typedef long long hssize_t;

/* The API as 1.10 declares it (enums as int, which is how they are passed). */
hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl);
hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl);
herr_t H5Fclose(hid_t file);
herr_t H5Fflush(hid_t obj, int scope);
hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl);
hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl);
hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl);
hid_t H5Dopen1(hid_t loc, const char *name);
herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf);
herr_t H5Dwrite(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf);
herr_t H5Dset_extent(hid_t dset, const hsize_t size[]);
herr_t H5Dflush(hid_t dset);
herr_t H5Dclose(hid_t dset);
hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl);
hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl);
herr_t H5Gclose(hid_t group);
hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl, hid_t aapl);
hid_t H5Aopen(hid_t obj, const char *name, hid_t aapl);
herr_t H5Aread(hid_t attr, hid_t mem_type, void *buf);
herr_t H5Awrite(hid_t attr, hid_t mem_type, const void *buf);
herr_t H5Aclose(hid_t attr);
hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl);
herr_t H5Oclose(hid_t obj);
herr_t H5Pset_fapl_mpio(hid_t fapl, void *comm, void *info);
herr_t H5Pset_dxpl_mpio(hid_t dxpl, int mode);
herr_t H5Pset_chunk(hid_t dcpl, int ndims, const hsize_t dim[]);
herr_t H5Pset_alignment(hid_t fapl, hsize_t threshold, hsize_t alignment);
herr_t H5Pset_meta_block_size(hid_t fapl, hsize_t size);
herr_t H5Pset_sieve_buf_size(hid_t fapl, size_t size);
herr_t H5Pset_cache(hid_t fapl, int mdc_nelmts, size_t rdcc_nslots, size_t rdcc_nbytes, double w0);
herr_t H5Pset_chunk_cache(hid_t dapl, size_t rdcc_nslots, size_t rdcc_nbytes, double w0);
herr_t H5Pset_all_coll_metadata_ops(hid_t plist, int is_collective);
herr_t H5Pset_coll_metadata_write(hid_t fapl, int is_collective);

/* ---- queries (not traced), resolved once; NULL when this HDF5 lacks them ---- */
static struct {
    int done;
    ssize_t (*iget_name)(hid_t, char *, size_t);
    ssize_t (*fget_name)(hid_t, char *, size_t);
    hid_t (*dget_space)(hid_t);
    hid_t (*dget_type)(hid_t);
    hid_t (*aget_space)(hid_t);
    hid_t (*aget_type)(hid_t);
    size_t (*tget_size)(hid_t);
    herr_t (*tclose)(hid_t);
    hssize_t (*sget_npoints)(hid_t);
    int (*sget_ndims)(hid_t);
    hssize_t (*sget_select_npoints)(hid_t);
    int (*sget_select_type)(hid_t);
    htri_t (*sis_regular)(hid_t);
    herr_t (*sclose)(hid_t);
    herr_t (*pget_dxpl_mpio)(hid_t, int *);
    int (*iget_type)(hid_t);
    herr_t (*sget_regular)(hid_t, hsize_t *, hsize_t *, hsize_t *, hsize_t *);
    herr_t (*pget_fapl_mpio)(hid_t, void *, void *);
    herr_t (*eget_auto)(hid_t, void **, void **);
    herr_t (*eset_auto)(hid_t, void *, void *);
    hid_t (*dget_create_plist)(hid_t);
    int (*pget_layout)(hid_t);
    int (*pget_chunk)(hid_t, int, hsize_t *);
    herr_t (*pclose)(hid_t);
    ssize_t (*aget_name)(hid_t, size_t, char *);
    int (*sget_dims)(hid_t, hsize_t *, hsize_t *);
} q;

static void queries(void)
{
    if (__atomic_load_n(&q.done, __ATOMIC_ACQUIRE))
        return;
    q.iget_name = (ssize_t(*)(hid_t, char *, size_t))iol_real("H5Iget_name");
    q.fget_name = (ssize_t(*)(hid_t, char *, size_t))iol_real("H5Fget_name");
    q.dget_space = (hid_t(*)(hid_t))iol_real("H5Dget_space");
    q.dget_type = (hid_t(*)(hid_t))iol_real("H5Dget_type");
    q.aget_space = (hid_t(*)(hid_t))iol_real("H5Aget_space");
    q.aget_type = (hid_t(*)(hid_t))iol_real("H5Aget_type");
    q.tget_size = (size_t(*)(hid_t))iol_real("H5Tget_size");
    q.tclose = (herr_t(*)(hid_t))iol_real("H5Tclose");
    q.sget_npoints = (hssize_t(*)(hid_t))iol_real("H5Sget_simple_extent_npoints");
    q.sget_ndims = (int (*)(hid_t))iol_real("H5Sget_simple_extent_ndims");
    q.sget_select_npoints = (hssize_t(*)(hid_t))iol_real("H5Sget_select_npoints");
    q.sget_select_type = (int (*)(hid_t))iol_real("H5Sget_select_type");
    q.sis_regular = (htri_t(*)(hid_t))iol_real("H5Sis_regular_hyperslab");
    q.sclose = (herr_t(*)(hid_t))iol_real("H5Sclose");
    q.pget_dxpl_mpio = (herr_t(*)(hid_t, int *))iol_real("H5Pget_dxpl_mpio"); /* parallel HDF5 only */
    q.iget_type = (int (*)(hid_t))iol_real("H5Iget_type");
    q.sget_regular = (herr_t(*)(hid_t, hsize_t *, hsize_t *, hsize_t *, hsize_t *))iol_real("H5Sget_regular_hyperslab");
    q.pget_fapl_mpio = (herr_t(*)(hid_t, void *, void *))iol_real("H5Pget_fapl_mpio"); /* parallel HDF5 only */
    q.eget_auto = (herr_t(*)(hid_t, void **, void **))iol_real("H5Eget_auto2");
    q.eset_auto = (herr_t(*)(hid_t, void *, void *))iol_real("H5Eset_auto2");
    q.dget_create_plist = (hid_t(*)(hid_t))iol_real("H5Dget_create_plist");
    q.pget_layout = (int (*)(hid_t))iol_real("H5Pget_layout");
    q.pget_chunk = (int (*)(hid_t, int, hsize_t *))iol_real("H5Pget_chunk");
    q.pclose = (herr_t(*)(hid_t))iol_real("H5Pclose");
    q.aget_name = (ssize_t(*)(hid_t, size_t, char *))iol_real("H5Aget_name");
    q.sget_dims = (int (*)(hid_t, hsize_t *, hsize_t *))iol_real("H5Sget_simple_extent_dims");
    __atomic_store_n(&q.done, 1, __ATOMIC_RELEASE);
}

/* HDF5 prints the errors of a failed query (a property list of another driver asked for its
 * MPI-IO settings) unless its automatic error printing is off: off around such queries. */
typedef struct quiet {
    void *func, *data;
    int off;
} quiet;
static void quiet_on(quiet *qt)
{
    qt->off = q.eget_auto && q.eset_auto && q.eget_auto(0, &qt->func, &qt->data) >= 0 && q.eset_auto(0, NULL, NULL) >= 0;
}
static void quiet_off(const quiet *qt)
{
    if (qt->off)
        q.eset_auto(0, qt->func, qt->data);
}

/* Whether a file access list selects the MPI-IO driver (Darshan's H5F_USE_MPIIO). */
static int uses_mpio(hid_t fapl)
{
    if (fapl == 0 || !q.pget_fapl_mpio)
        return 0;
    quiet qt;
    quiet_on(&qt);
    int r = q.pget_fapl_mpio(fapl, NULL, NULL) >= 0;
    quiet_off(&qt);
    return r;
}

/* The last transfer list asked and its mode, as id << 2 | mode + 1 (0: none): a program's loop
 * passes the same list; H5Pset_dxpl_mpio (wrapped) sets it, and ids are not reused. */
static uint64_t xfer_last;

/* A transfer list's mode: 0 independent, 1 collective, -1 not known. */
static int xfer_mode(hid_t dxpl)
{
    if (dxpl == 0 || !q.pget_dxpl_mpio) /* H5P_DEFAULT, or a serial HDF5: independent */
        return 0;
    uint64_t c = __atomic_load_n(&xfer_last, __ATOMIC_RELAXED);
    if (c && (hid_t)(c >> 2) == dxpl)
        return (int)(c & 3) - 1;
    int mode = -1;
    quiet qt;
    quiet_on(&qt);
    if (q.pget_dxpl_mpio(dxpl, &mode) < 0)
        mode = -1;
    quiet_off(&qt);
    if (dxpl > 0 && (uint64_t)dxpl < (1ull << 61) && mode >= -1 && mode <= 1)
        __atomic_store_n(&xfer_last, (uint64_t)dxpl << 2 | (uint64_t)(mode + 1), __ATOMIC_RELAXED);
    return mode;
}

/* ---- open objects: hid_t -> (handle index, recorded name, the file's name, shape) ---- */
#define NOBJ 4096 /* a power of two; open addressing, deletions leave tombstones */
#define TOMB ((hid_t)-1)
typedef struct obj {
    hid_t id;       /* 0 free, TOMB deleted */
    int32_t path;   /* the object's recorded name */
    int32_t fpath;  /* its file's */
    int64_t npoints; /* elements of its dataspace (datasets, attributes), -1 unknown */
    int32_t ndims;
    int32_t tsize;  /* its datatype's size */
} obj;
static obj objs[NOBJ];
static int objs_lock, objs_tombs;


static size_t slot_of(hid_t id) { return (size_t)(((uint64_t)id * 0x9e3779b97f4a7c15ull) >> 52) & (NOBJ - 1); }

/* The entry of id (a copy), its index, or -1. */
static int obj_get(hid_t id, obj *out)
{
    int found = -1;
    if (id <= 0)
        return -1;
    iol_lock(&objs_lock);
    size_t s = slot_of(id);
    for (size_t n = 0; n < NOBJ && objs[s].id; n++, s = (s + 1) & (NOBJ - 1))
        if (objs[s].id == id) {
            *out = objs[s];
            found = (int)s;
            break;
        }
    iol_unlock(&objs_lock);
    return found;
}

static int obj_put(const obj *o)
{
    int at = -1;
    if (o->id <= 0)
        return -1;
    iol_lock(&objs_lock);
    if (objs_tombs > NOBJ / 4) { /* rebuild without the tombstones (in a static copy: the
                                   * program's thread may have a small stack; the lock is held) */
        static obj keep[NOBJ];
        size_t nk = 0;
        for (size_t i = 0; i < NOBJ; i++)
            if (objs[i].id > 0)
                keep[nk++] = objs[i];
        memset(objs, 0, sizeof objs);
        for (size_t i = 0; i < nk; i++) {
            size_t s = slot_of(keep[i].id);
            while (objs[s].id)
                s = (s + 1) & (NOBJ - 1);
            objs[s] = keep[i];
        }
        objs_tombs = 0;
    }
    size_t s = slot_of(o->id);
    for (size_t n = 0; n < NOBJ * 3 / 4; n++, s = (s + 1) & (NOBJ - 1))
        if (objs[s].id <= 0 || objs[s].id == o->id) { /* free, deleted, or an id HDF5 reused */
            if (objs[s].id == TOMB)
                objs_tombs--;
            objs[s] = *o;
            at = (int)s;
            break;
        }
    iol_unlock(&objs_lock);
    return at; /* -1: more objects open than the table holds; this one is not named */
}

static void obj_del(int at)
{
    if (at < 0)
        return;
    iol_lock(&objs_lock);
    objs[at].id = TOMB;
    objs_tombs++;
    iol_unlock(&objs_lock);
}

/* ---- names ---- */

/* The recorded name of the file holding loc: from the table, else asked of HDF5. */
static int32_t file_of(hid_t loc)
{
    obj o;
    if (obj_get(loc, &o) >= 0)
        return o.fpath;
    char name[IOL_RAW_MAX_PATH];
    ssize_t n = q.fget_name ? q.fget_name(loc, name, sizeof name) : -1;
    return n > 0 && (size_t)n < sizeof name ? iol_path_id(name) : -1;
}

/* "<file>:<object path>[@attr]" interned; -1 when a part is unknown. */
static int32_t object_name(int32_t fpath, hid_t id, const char *attr)
{
    char buf[IOL_RAW_MAX_PATH];
    size_t n = iol_path_name(fpath, buf, sizeof buf);
    if (!n || !q.iget_name)
        return -1;
    buf[n++] = ':';
    ssize_t m = q.iget_name(id, buf + n, sizeof buf - n);
    if (m <= 0 || (size_t)m >= sizeof buf - n) { /* anonymous, or too long */
        if (sizeof buf - n < 2)
            return -1;
        buf[n] = '/';
        buf[n + 1] = 0;
        m = 1;
    }
    n += (size_t)m;
    if (attr) {
        int k = snprintf(buf + n, sizeof buf - n, "@%s", attr);
        if (k < 0 || (size_t)k >= sizeof buf - n)
            return -1;
    }
    return iol_path_id(buf);
}

/* Elements and rank of a dataspace; the size of a datatype (0 unknown). */
static void space_shape(hid_t space, int64_t *npoints, int32_t *ndims)
{
    *npoints = -1;
    *ndims = 0;
    if (space < 0 || !q.sget_npoints || !q.sget_ndims)
        return;
    *npoints = q.sget_npoints(space);
    *ndims = q.sget_ndims(space);
}

static int32_t type_size(hid_t type)
{
    /* the last type asked (a program's loop passes the same one; ids are not reused) */
    static __thread hid_t last = -1;
    static __thread int32_t last_size;
    if (type > 0 && type == last)
        return last_size;
    size_t s = type > 0 && q.tget_size ? q.tget_size(type) : 0;
    int32_t r = s < (1u << 30) ? (int32_t)s : 0;
    if (type > 0) {
        last = type;
        last_size = r;
    }
    return r;
}

/* Shape of an open dataset (attr 0) or attribute from HDF5 itself. */
static void shape_of(hid_t id, int attr, obj *o)
{
    hid_t sp = attr ? (q.aget_space ? q.aget_space(id) : -1) : (q.dget_space ? q.dget_space(id) : -1);
    space_shape(sp, &o->npoints, &o->ndims);
    if (sp >= 0 && q.sclose)
        q.sclose(sp);
    hid_t ty = attr ? (q.aget_type ? q.aget_type(id) : -1) : (q.dget_type ? q.dget_type(id) : -1);
    o->tsize = type_size(ty);
    if (ty >= 0 && q.tclose)
        q.tclose(ty);
}

/* A dataset or attribute the table does not know (opened by H5Oopen, H5Aopen_by_name, ...):
 * named and shaped on its first read or write, then kept. The entry's index, or -1. */
#define H5I_DATASET_ 5
#define H5I_ATTR_ 6
static int lazy(hid_t id, obj *o)
{
    int kind = q.iget_type ? q.iget_type(id) : -1;
    if (kind != H5I_DATASET_ && kind != H5I_ATTR_)
        return -1;
    char attr[256];
    ssize_t an = kind == H5I_ATTR_ && q.aget_name ? q.aget_name(id, sizeof attr, attr) : 0;
    if (kind == H5I_ATTR_ && (an <= 0 || (size_t)an >= sizeof attr))
        return -1;
    *o = (obj){id, -1, file_of(id), -1, 0, 0};
    o->path = o->fpath >= 0 ? object_name(o->fpath, id, kind == H5I_ATTR_ ? attr : NULL) : -1;
    shape_of(id, kind == H5I_ATTR_, o);
    return o->path >= 0 ? obj_put(o) : -1;
}

/* ---- records ---- */

static void rec_obj(iol_rawrec *rec, int at, const obj *o, int64_t ret)
{
    rec->fd = at;
    rec->file = at >= 0 ? o->path : -1;
    rec->ret = ret;
    iol_commit(rec);
}

/* A new object (file, dataset, group, attribute) id of func, named, into the table. */
static void opened(int func, uint64_t t0, hid_t id, int32_t path, int32_t fpath, const obj *shape, int64_t a0)
{
    obj o = {id, path, fpath, -1, 0, 0};
    if (shape) {
        o.npoints = shape->npoints;
        o.ndims = shape->ndims;
        o.tsize = shape->tsize;
    }
    int at = id > 0 ? obj_put(&o) : -1;
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (!rec)
        return;
    rec->a[0] = a0;
    if (shape) {
        rec->a[1] = o.npoints >= 0 ? o.npoints * o.tsize : -1;
        rec->a[2] = o.tsize;
        rec->a[3] = o.ndims;
    }
    rec->fd = at;
    rec->file = path;
    rec->ret = id;
    iol_commit(rec);
}

/* A call on an existing object: name and handle from the table. */
static void on_obj(int func, uint64_t t0, hid_t id, int64_t ret, int closing)
{
    obj o;
    int at = obj_get(id, &o);
    if (closing && ret >= 0)
        obj_del(at);
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec)
        rec_obj(rec, at, &o, ret);
}

/* Selection kind of a file dataspace: 0 none, 1 points, 2 regular hyperslab, 3 irregular, 4 all. */
static int selection(hid_t space)
{
    if (space == 0) /* H5S_ALL */
        return 4;
    int t = q.sget_select_type ? q.sget_select_type(space) : -1; /* NONE 0, POINTS 1, HYPERSLABS 2, ALL 3 */
    switch (t) {
    case 0: return 0;
    case 1: return 1;
    case 2: return q.sis_regular && q.sis_regular(space) > 0 ? 2 : 3;
    case 3: return 4;
    default: return -1;
    }
}

/* The shape of a regular hyperslab (per dimension count x block and stride) as a note before
 * the read or write's record (funcs.def, H5Sget_regular_hyperslab). */
static void shape_note(uint64_t t0, hid_t space, int32_t file)
{
    enum { MAXD = 32 };
    int nd = q.sget_ndims ? q.sget_ndims(space) : -1;
    hsize_t start[MAXD], stride[MAXD], count[MAXD], block[MAXD];
    if (nd <= 0 || nd > MAXD || !q.sget_regular || q.sget_regular(space, start, stride, count, block) < 0)
        return;
    int64_t v[5] = {0};
    for (int i = 0; i < nd && i < 5; i++) {
        uint64_t len = count[i] * block[i], st = stride[i];
        v[i] = (int64_t)((len > 0xffffffffu ? 0xffffffffu : len) << 32 | (st > 0xffffffffu ? 0xffffffffu : st));
    }
    iol_rawrec *rec = iol_lib_note(IOL_F_H5Sget_regular_hyperslab, t0);
    if (!rec)
        return;
    rec->fd = nd;
    rec->a[0] = v[0];
    rec->a[1] = v[1];
    rec->a[2] = v[2];
    rec->a[3] = v[3];
    rec->ret = v[4];
    iol_commit(rec);
    /* where it starts, as the index of its first element in C order (the tracer's predictor
     * sees a loop's constant step, so the note repeats as the call does), and which dimensions
     * have one block or blocks of one element (count x block alone does not tell them apart) */
    hsize_t dims[MAXD];
    if (!q.sget_dims || q.sget_dims(space, dims, NULL) != nd)
        return;
    uint64_t idx = 0;
    int32_t ones = 0;
    for (int i = 0; i < nd; i++) {
        if (dims[i] && idx > (UINT64_MAX >> 2) / dims[i])
            return; /* more elements than an index holds */
        idx = idx * dims[i] + start[i];
        if (i < 5)
            ones |= (count[i] == 1 ? 1 << (8 + i) : 0) | (block[i] == 1 ? 1 << (16 + i) : 0);
    }
    if (!(rec = iol_lib_note(IOL_F_H5Sget_select_bounds, t0)))
        return;
    rec->fd = nd | ones;
    rec->file = file;
    rec->a[0] = (int64_t)idx;
    iol_commit(rec);
}

/* A dataset's dimensions (and which are unlimited) as a note before its create, open or
 * extension record (funcs.def, H5Sget_simple_extent_dims). */
static void dims_note(uint64_t t0, hid_t space)
{
    enum { MAXD = 32 };
    hsize_t d[MAXD], m[MAXD];
    int nd = space >= 0 && q.sget_dims ? q.sget_dims(space, d, m) : -1;
    if (nd < 0 || nd > MAXD)
        return;
    iol_rawrec *rec = iol_lib_note(IOL_F_H5Sget_simple_extent_dims, t0);
    if (!rec)
        return;
    int32_t unl = 0;
    for (int i = 0; i < nd && i < 5; i++)
        unl |= m[i] == (hsize_t)-1 ? 1 << (8 + i) : 0; /* H5S_UNLIMITED */
    rec->fd = nd | unl;
    for (int i = 0; i < 4; i++)
        rec->a[i] = i < nd ? (int64_t)d[i] : 0;
    rec->ret = nd > 4 ? (int64_t)d[4] : 0;
    iol_commit(rec);
}

/* The same for an open dataset. */
static void dset_dims_note(uint64_t t0, hid_t dset)
{
    hid_t sp = dset > 0 && q.dget_space ? q.dget_space(dset) : -1;
    if (sp < 0)
        return;
    dims_note(t0, sp);
    if (q.sclose)
        q.sclose(sp);
}

/* The chunk dimensions of a chunked dataset (creation list dcpl, or the dataset's own when
 * dcpl is 0 and dset is open) as a note before the create or open record (funcs.def,
 * H5Pget_chunk). */
static void chunk_note(uint64_t t0, hid_t dcpl, hid_t dset)
{
    hid_t own = -1;
    if (dcpl == 0 && dset > 0 && q.dget_create_plist)
        dcpl = own = q.dget_create_plist(dset);
    hsize_t d[5] = {0};
    int n = dcpl > 0 && q.pget_layout && q.pget_chunk && q.pget_layout(dcpl) == 2 /* H5D_CHUNKED */
                ? q.pget_chunk(dcpl, 5, d)
                : 0;
    if (own > 0 && q.pclose)
        q.pclose(own);
    if (n <= 0)
        return;
    iol_rawrec *rec = iol_lib_note(IOL_F_H5Pget_chunk, t0);
    if (!rec)
        return;
    for (int i = 0; i < 5; i++)
        if (d[i] > 0xffffffffu)
            d[i] = 0xffffffffu;
    rec->fd = n;
    rec->a[0] = (int64_t)(d[0] << 32 | d[1]);
    rec->a[1] = (int64_t)(d[2] << 32 | d[3]);
    rec->a[2] = (int64_t)d[4];
    iol_commit(rec);
}

static void data_rec(int func, uint64_t t0, herr_t r, hid_t id, hid_t mem_type, hid_t mem_space, hid_t file_space,
                     hid_t dxpl)
{
    obj o;
    int at = obj_get(id, &o);
    iol_shim_inside++;
    if (at < 0 && r >= 0)
        at = lazy(id, &o);
    int64_t n = -1;
    if (mem_space > 0 && q.sget_select_npoints)
        n = q.sget_select_npoints(mem_space);
    else if (file_space > 0 && q.sget_select_npoints)
        n = q.sget_select_npoints(file_space);
    else if (at >= 0)
        n = o.npoints;
    int sel = func == IOL_F_H5Aread || func == IOL_F_H5Awrite ? 4 : selection(file_space);
    int32_t ts = type_size(mem_type);
    int mode = func == IOL_F_H5Aread || func == IOL_F_H5Awrite ? -1 : xfer_mode(dxpl);
    if (sel == 2)
        shape_note(t0, file_space, at >= 0 ? o.path : -1);
    iol_shim_inside--;
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (!rec)
        return;
    rec->a[0] = sel;
    rec->a[1] = n >= 0 ? n * ts : -1;
    rec->a[2] = ts;
    rec->a[3] = mode;
    rec_obj(rec, at, &o, r);
}

/* ---- files ---- */

IOL_EXPORT hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    IOL_REAL(H5Fcreate);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Fcreate(name, flags, fcpl, fapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Fcreate(name, flags, fcpl, fapl);
    iol_shim_inside++;
    obj mp = {0, 0, 0, 0, 0, uses_mpio(fapl)}; /* a2: the MPI-IO driver (tsize slot) */
    iol_shim_inside--;
    int32_t p = iol_path_id(name);
    opened(IOL_F_H5Fcreate, t0, r, p, p, &mp, flags);
    return r;
}

IOL_EXPORT hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
    IOL_REAL(H5Fopen);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Fopen(name, flags, fapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Fopen(name, flags, fapl);
    iol_shim_inside++;
    obj mp = {0, 0, 0, 0, 0, uses_mpio(fapl)};
    iol_shim_inside--;
    int32_t p = iol_path_id(name);
    opened(IOL_F_H5Fopen, t0, r, p, p, &mp, flags);
    return r;
}


IOL_EXPORT herr_t H5Fflush(hid_t obj_id, int scope)
{
    IOL_REAL(H5Fflush);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Fflush(obj_id, scope);
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Fflush(obj_id, scope);
    queries();
    obj o;
    int at = obj_get(obj_id, &o);
    iol_shim_inside++;
    int32_t f = at >= 0 ? o.fpath : file_of(obj_id); /* the file is what is flushed */
    iol_shim_inside--;
    iol_rawrec *rec = iol_lib_end(IOL_F_H5Fflush, t0);
    if (rec) {
        rec->a[2] = scope;
        rec->fd = at;
        rec->file = f;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

/* ---- datasets ---- */

/* A dataset created (type, space and dcpl given) or opened (its own shape and chunks): named,
 * shaped and into the table; a0 the creation or access list. */
static void dset_done(int func, uint64_t t0, hid_t r, hid_t loc, hid_t type, hid_t space, hid_t dcpl, int64_t a0)
{
    iol_shim_inside++;
    obj shape = {0, 0, 0, -1, 0, 0};
    if (space >= 0) {
        space_shape(space, &shape.npoints, &shape.ndims);
        shape.tsize = type_size(type);
    } else if (r > 0) {
        shape_of(r, 0, &shape);
    }
    int32_t f = file_of(loc), p = r > 0 && f >= 0 ? object_name(f, r, NULL) : -1;
    if (r > 0) {
        chunk_note(t0, dcpl, r);
        if (space >= 0)
            dims_note(t0, space);
        else
            dset_dims_note(t0, r);
    }
    iol_shim_inside--;
    opened(func, t0, r, p, f, &shape, a0);
}

IOL_EXPORT hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl)
{
    IOL_REAL(H5Dcreate2);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
    dset_done(IOL_F_H5Dcreate2, t0, r, loc, type, space, dcpl, dcpl);
    return r;
}

IOL_EXPORT hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl)
{
    IOL_REAL(H5Dopen2);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dopen2(loc, name, dapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Dopen2(loc, name, dapl);
    dset_done(IOL_F_H5Dopen2, t0, r, loc, -1, -1, 0, dapl);
    return r;
}

/* the deprecated (1.6) forms, as H5Dcreate2 and H5Dopen2 (Darshan's H5D_USE_DEPRECATED) */
IOL_EXPORT hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl)
{
    IOL_REAL(H5Dcreate1);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dcreate1(loc, name, type, space, dcpl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Dcreate1(loc, name, type, space, dcpl);
    dset_done(IOL_F_H5Dcreate1, t0, r, loc, type, space, dcpl, dcpl);
    return r;
}

IOL_EXPORT hid_t H5Dopen1(hid_t loc, const char *name)
{
    IOL_REAL(H5Dopen1);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dopen1(loc, name);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Dopen1(loc, name);
    dset_done(IOL_F_H5Dopen1, t0, r, loc, -1, -1, 0, 0);
    return r;
}

IOL_EXPORT herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf)
{
    IOL_REAL(H5Dread);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dread(dset, mem_type, mem_space, file_space, dxpl, buf);
    queries();
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Dread(dset, mem_type, mem_space, file_space, dxpl, buf);
    data_rec(IOL_F_H5Dread, t0, r, dset, mem_type, mem_space, file_space, dxpl);
    return r;
}

IOL_EXPORT herr_t H5Dwrite(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf)
{
    IOL_REAL(H5Dwrite);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dwrite(dset, mem_type, mem_space, file_space, dxpl, buf);
    queries();
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Dwrite(dset, mem_type, mem_space, file_space, dxpl, buf);
    data_rec(IOL_F_H5Dwrite, t0, r, dset, mem_type, mem_space, file_space, dxpl);
    return r;
}

IOL_EXPORT herr_t H5Dset_extent(hid_t dset, const hsize_t size[])
{
    IOL_REAL(H5Dset_extent);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Dset_extent(dset, size);
    queries();
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Dset_extent(dset, size);
    obj o;
    int at = obj_get(dset, &o);
    int64_t n = -1;
    if (at >= 0 && r >= 0) { /* the new shape, kept for reads and writes of the whole dataset */
        iol_shim_inside++;
        obj now = o;
        shape_of(dset, 0, &now);
        dset_dims_note(t0, dset);
        iol_shim_inside--;
        n = now.npoints;
        if (n >= 0) {
            now.id = dset;
            obj_put(&now);
        }
    }
    iol_rawrec *rec = iol_lib_end(IOL_F_H5Dset_extent, t0);
    if (rec) {
        rec->a[1] = n >= 0 ? n * o.tsize : -1;
        rec->a[3] = at >= 0 ? o.ndims : 0;
        rec_obj(rec, at, &o, r);
    }
    return r;
}



/* ---- groups ---- */

static hid_t group_open(int func, uint64_t t0, hid_t loc, hid_t r)
{
    iol_shim_inside++;
    int32_t f = file_of(loc), p = r > 0 && f >= 0 ? object_name(f, r, NULL) : -1;
    iol_shim_inside--;
    opened(func, t0, r, p, f, NULL, 0);
    return r;
}

IOL_EXPORT hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl)
{
    IOL_REAL(H5Gcreate2);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Gcreate2(loc, name, lcpl, gcpl, gapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    return group_open(IOL_F_H5Gcreate2, t0, loc, real_H5Gcreate2(loc, name, lcpl, gcpl, gapl));
}

IOL_EXPORT hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl)
{
    IOL_REAL(H5Gopen2);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Gopen2(loc, name, gapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    return group_open(IOL_F_H5Gopen2, t0, loc, real_H5Gopen2(loc, name, gapl));
}


/* ---- objects opened by name whatever their kind (h5py opens datasets so) ---- */

/* a1..a3 as H5Dopen2 for a dataset, 0 for a group or a named datatype */
IOL_EXPORT hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl)
{
    IOL_REAL(H5Oopen);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Oopen(loc, name, lapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    hid_t r = real_H5Oopen(loc, name, lapl);
    iol_shim_inside++;
    int dset = r > 0 && q.iget_type && q.iget_type(r) == H5I_DATASET_;
    obj shape = {0, 0, 0, -1, 0, 0};
    if (dset) {
        shape_of(r, 0, &shape);
        chunk_note(t0, 0, r);
        dset_dims_note(t0, r);
    }
    int32_t f = file_of(loc), p = r > 0 && f >= 0 ? object_name(f, r, NULL) : -1;
    iol_shim_inside--;
    opened(IOL_F_H5Oopen, t0, r, p, f, dset ? &shape : NULL, lapl);
    return r;
}


/* ---- attributes ---- */

static hid_t attr_open(int func, uint64_t t0, hid_t loc, const char *name, hid_t r)
{
    iol_shim_inside++;
    obj shape = {0, 0, 0, -1, 0, 0};
    if (r > 0)
        shape_of(r, 1, &shape);
    int32_t f = file_of(loc), p = r > 0 && f >= 0 && name ? object_name(f, loc, name) : -1;
    iol_shim_inside--;
    opened(func, t0, r, p, f, &shape, 0);
    return r;
}

IOL_EXPORT hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl, hid_t aapl)
{
    IOL_REAL(H5Acreate2);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Acreate2(loc, name, type, space, acpl, aapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    return attr_open(IOL_F_H5Acreate2, t0, loc, name, real_H5Acreate2(loc, name, type, space, acpl, aapl));
}

IOL_EXPORT hid_t H5Aopen(hid_t obj_id, const char *name, hid_t aapl)
{
    IOL_REAL(H5Aopen);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Aopen(obj_id, name, aapl);
    queries();
    uint64_t t0 = iol_lib_begin();
    return attr_open(IOL_F_H5Aopen, t0, obj_id, name, real_H5Aopen(obj_id, name, aapl));
}

IOL_EXPORT herr_t H5Aread(hid_t attr, hid_t mem_type, void *buf)
{
    IOL_REAL(H5Aread);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Aread(attr, mem_type, buf);
    queries();
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Aread(attr, mem_type, buf);
    data_rec(IOL_F_H5Aread, t0, r, attr, mem_type, 0, 0, 0);
    return r;
}

IOL_EXPORT herr_t H5Awrite(hid_t attr, hid_t mem_type, const void *buf)
{
    IOL_REAL(H5Awrite);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Awrite(attr, mem_type, buf);
    queries();
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Awrite(attr, mem_type, buf);
    data_rec(IOL_F_H5Awrite, t0, r, attr, mem_type, 0, 0, 0);
    return r;
}


/* ---- calls on one object that only name it: flushes and closes (a close drops the object) ---- */

#define OBJ_WRAP(fn, closing)                                                                      \
    IOL_EXPORT herr_t fn(hid_t id)                                                                 \
    {                                                                                              \
        IOL_REAL(fn);                                                                              \
        if (!iol_tracing(IOL_LAYER_HDF5_BIT))                                                      \
            return real_##fn(id);                                                                  \
        uint64_t t0 = iol_lib_begin();                                                             \
        herr_t r = real_##fn(id);                                                                  \
        on_obj(IOL_F_##fn, t0, id, r, closing);                                                    \
        return r;                                                                                  \
    }

OBJ_WRAP(H5Fclose, 1)
OBJ_WRAP(H5Dflush, 0)
OBJ_WRAP(H5Dclose, 1)
OBJ_WRAP(H5Gclose, 1)
OBJ_WRAP(H5Oclose, 1)
OBJ_WRAP(H5Aclose, 1)

/* ---- property lists: a0 the list, then the setting ---- */

static herr_t prop_rec(int func, uint64_t t0, herr_t r, hid_t plist, int64_t a1, int64_t a2, int64_t a3)
{
    iol_rawrec *rec = iol_lib_end(func, t0);
    if (rec) {
        rec->a[0] = plist;
        rec->a[1] = a1;
        rec->a[2] = a2;
        rec->a[3] = a3;
        rec->ret = r;
        iol_commit(rec);
    }
    return r;
}

#define PROP_WRAP(fn, params, args, a1, a2, a3)                                                    \
    IOL_EXPORT herr_t fn params                                                                    \
    {                                                                                              \
        IOL_REAL(fn);                                                                              \
        if (!iol_tracing(IOL_LAYER_HDF5_BIT))                                                      \
            return real_##fn args;                                                                 \
        uint64_t t0 = iol_lib_begin();                                                             \
        herr_t r = real_##fn args;                                                                 \
        return prop_rec(IOL_F_##fn, t0, r, plist, a1, a2, a3);                                     \
    }

/* a2: the transfer mode (0 independent, 1 collective); the mode cache learns it */
IOL_EXPORT herr_t H5Pset_dxpl_mpio(hid_t plist, int mode)
{
    IOL_REAL(H5Pset_dxpl_mpio);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT)) {
        herr_t r = real_H5Pset_dxpl_mpio(plist, mode);
        __atomic_store_n(&xfer_last, 0, __ATOMIC_RELAXED); /* the next transfer asks again */
        return r;
    }
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Pset_dxpl_mpio(plist, mode);
    __atomic_store_n(&xfer_last, 0, __ATOMIC_RELAXED);
    return prop_rec(IOL_F_H5Pset_dxpl_mpio, t0, r, plist, 0, mode, 0);
}
PROP_WRAP(H5Pset_fapl_mpio, (hid_t plist, void *comm, void *info), (plist, comm, info), 0, 0, 0)
/* a1 threshold, a2 alignment */
PROP_WRAP(H5Pset_alignment, (hid_t plist, hsize_t threshold, hsize_t alignment), (plist, threshold, alignment),
          (int64_t)threshold, (int64_t)alignment, 0)
PROP_WRAP(H5Pset_meta_block_size, (hid_t plist, hsize_t size), (plist, size), (int64_t)size, 0, 0)
PROP_WRAP(H5Pset_sieve_buf_size, (hid_t plist, size_t size), (plist, size), (int64_t)size, 0, 0)
/* a1 the chunk cache's bytes, a2 its slots, a3 the metadata cache's elements (H5Pset_cache) */
PROP_WRAP(H5Pset_cache, (hid_t plist, int mdc, size_t nslots, size_t nbytes, double w0), (plist, mdc, nslots, nbytes, w0),
          (int64_t)nbytes, (int64_t)nslots, mdc)
PROP_WRAP(H5Pset_chunk_cache, (hid_t plist, size_t nslots, size_t nbytes, double w0), (plist, nslots, nbytes, w0),
          (int64_t)nbytes, (int64_t)nslots, 0)
/* a2: collective (1) or not */
PROP_WRAP(H5Pset_all_coll_metadata_ops, (hid_t plist, int coll), (plist, coll), 0, coll, 0)
PROP_WRAP(H5Pset_coll_metadata_write, (hid_t plist, int coll), (plist, coll), 0, coll, 0)

/* a1 elements per chunk, a2 the rank, a3 the fastest-varying (last) dimension */
IOL_EXPORT herr_t H5Pset_chunk(hid_t plist, int ndims, const hsize_t dim[])
{
    IOL_REAL(H5Pset_chunk);
    if (!iol_tracing(IOL_LAYER_HDF5_BIT))
        return real_H5Pset_chunk(plist, ndims, dim);
    uint64_t t0 = iol_lib_begin();
    herr_t r = real_H5Pset_chunk(plist, ndims, dim);
    int64_t elems = ndims > 0 && dim ? 1 : 0, last = 0;
    for (int i = 0; i < ndims && i < 32 && dim; i++) {
        elems = (int64_t)((uint64_t)elems * dim[i]);
        last = (int64_t)dim[i];
    }
    return prop_rec(IOL_F_H5Pset_chunk, t0, r, plist, elems, ndims, last);
}
