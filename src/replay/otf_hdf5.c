/*
 * HDF5 calls of a trace re-issued through HDF5 (otf_hdf5.h). Each traced object is made again
 * as the trace describes it: files with the driver the program used (MPI-IO or HDF5's
 * default) and the file access settings it made just before (alignment, metadata block size,
 * sieve buffer, caches, collective metadata); datasets of the recorded type size, dimensions
 * (unlimited ones too) and chunks, below the same groups; reads and writes of the same file
 * selection (a regular hyperslab's start, count, block and stride) and transfer mode.
 *
 * What the trace does not keep is chosen so that HDF5 converts nothing: a type of the recorded
 * size (an unsigned integer of 1, 2, 4 or 8 bytes, an opaque type otherwise) in the file and
 * in memory, and a one-dimensional memory space of the selected elements. Point and
 * irregular selections are not kept either: an independent one is not replayed, a collective
 * one takes part with an empty selection (the other ranks' collective call needs it).
 */
#include "replay/otf_hdf5.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define OH5_SLOTS 4096 /* the shim's handle indexes (shim/hdf5.c, NOBJ) */
#define OH5_FILES 256

enum { K_NONE, K_FILE, K_DSET, K_GROUP, K_OBJ, K_ATTR };

struct oh5_obj {
    hid_t id;
    int kind;
    int file;    /* slot of its file */
    int64_t tag; /* its file's tag */
    hid_t space; /* a dataset's file space (selections are made in it) */
};

struct oh5 {
    oh5_opts o;
    struct oh5_obj s[OH5_SLOTS];
    int files[OH5_FILES]; /* slots of the open files, for object names */
    char *fname[OH5_FILES];
    size_t flen[OH5_FILES];
    int nfiles;
    /* file access settings the program made since its last file create or open */
    int64_t p_align_thr, p_align, p_meta_block, p_sieve, p_mdc, p_rdcc_slots, p_rdcc_bytes;
    int p_coll_ops, p_coll_write;
    int64_t p_dcache_slots, p_dcache_bytes; /* H5Pset_chunk_cache: the next dataset open */
    hid_t dxpl_ind, dxpl_coll;
    hid_t mspace; /* the last memory space: mspace_nd dimensions (0: one of mspace_n elements) */
    int64_t mspace_n;
    int mspace_nd;
    hsize_t mspace_dims[5];
    hid_t types[9];
    hid_t opaque;
    int64_t opaque_size;
};

int oh5_new(oh5 **out, const oh5_opts *opts)
{
    oh5 *h = calloc(1, sizeof *h);
    if (!h)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    h->o = *opts;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported by the replay, not printed by HDF5 */
    h->dxpl_ind = H5Pcreate(H5P_DATASET_XFER);
    h->dxpl_coll = H5Pcreate(H5P_DATASET_XFER);
    if (h->o.world >= 0) {
        H5Pset_dxpl_mpio(h->dxpl_ind, H5FD_MPIO_INDEPENDENT);
        H5Pset_dxpl_mpio(h->dxpl_coll, H5FD_MPIO_COLLECTIVE);
    }
    h->mspace = H5I_INVALID_HID;
    h->opaque = H5I_INVALID_HID;
    h->p_align_thr = h->p_align = h->p_meta_block = h->p_sieve = h->p_mdc = -1;
    h->p_coll_ops = h->p_coll_write = -1;
    h->p_dcache_slots = h->p_dcache_bytes = -1;
    *out = h;
    return 0;
}

static void drop(oh5 *h, int slot)
{
    struct oh5_obj *b = &h->s[slot];
    if (b->space > 0)
        H5Sclose(b->space);
    if (b->kind == K_FILE)
        for (int i = 0; i < h->nfiles; i++)
            if (h->files[i] == slot) {
                free(h->fname[i]);
                h->nfiles--;
                h->files[i] = h->files[h->nfiles];
                h->fname[i] = h->fname[h->nfiles];
                h->flen[i] = h->flen[h->nfiles];
                break;
            }
    *b = (struct oh5_obj){0};
}

static herr_t close_obj(oh5 *h, int slot)
{
    struct oh5_obj *b = &h->s[slot];
    herr_t r = 0;
    switch (b->kind) {
    case K_FILE: r = H5Fclose(b->id); break;
    case K_DSET: r = H5Dclose(b->id); break;
    case K_GROUP: r = H5Gclose(b->id); break;
    case K_OBJ: r = H5Oclose(b->id); break;
    case K_ATTR: r = H5Aclose(b->id); break;
    default: break;
    }
    drop(h, slot);
    return r;
}

int64_t oh5_close_file(oh5 *h, const char *name)
{
    for (int i = 0; h && i < h->nfiles; i++)
        if (!name || !strcmp(h->fname[i], name)) {
            int slot = h->files[i];
            int64_t tag = h->s[slot].tag;
            for (int k = 0; k < OH5_SLOTS; k++) /* its objects first */
                if (k != slot && h->s[k].kind && h->s[k].file == slot)
                    close_obj(h, k);
            close_obj(h, slot);
            return tag;
        }
    return -1;
}

void oh5_reset(oh5 *h)
{
    if (!h)
        return;
    for (int k = K_ATTR; k >= K_FILE; k--) /* objects before their files */
        for (int i = 0; i < OH5_SLOTS; i++)
            if (h->s[i].kind == k)
                close_obj(h, i);
}

void oh5_free(oh5 *h)
{
    if (!h)
        return;
    oh5_reset(h);
    if (h->mspace > 0)
        H5Sclose(h->mspace);
    if (h->opaque > 0)
        H5Tclose(h->opaque);
    H5Pclose(h->dxpl_ind);
    H5Pclose(h->dxpl_coll);
    free(h);
}

/* A type of size ts that needs no conversion to itself. */
static hid_t type_of(oh5 *h, int64_t ts)
{
    static const int sizes[] = {1, 2, 4, 8};
    const hid_t natives[] = {H5T_NATIVE_UINT8, H5T_NATIVE_UINT16, H5T_NATIVE_UINT32, H5T_NATIVE_UINT64};
    for (int i = 0; i < 4; i++)
        if (ts == sizes[i])
            return natives[i];
    if (ts <= 0 || ts > (1 << 30))
        return H5I_INVALID_HID;
    if (h->opaque_size != ts) {
        if (h->opaque > 0)
            H5Tclose(h->opaque);
        h->opaque = H5Tcreate(H5T_OPAQUE, (size_t)ts);
        h->opaque_size = h->opaque > 0 ? ts : 0;
    }
    return h->opaque;
}

/* The open file an object's recorded name "<file>:<path>" belongs to (the longest match), its
 * slot, and where the path starts. */
static int file_of(const oh5 *h, const char *name, const char **path)
{
    int best = -1;
    size_t blen = 0;
    for (int i = 0; i < h->nfiles; i++)
        if (h->flen[i] >= blen && !strncmp(name, h->fname[i], h->flen[i]) && name[h->flen[i]] == ':') {
            best = h->files[i];
            blen = h->flen[i];
        }
    if (best >= 0)
        *path = name + blen + 1;
    return best;
}

static int bad_slot(int32_t slot) { return slot < 0 || slot >= OH5_SLOTS; }

/* Elements of nd dimensions times ts bytes, or -1 when that overflows. */
static int64_t extent_bytes(int nd, const hsize_t *d, int64_t ts)
{
    uint64_t n = ts > 0 ? (uint64_t)ts : 1;
    for (int i = 0; i < nd; i++) {
        if (d[i] && n > (uint64_t)INT64_MAX / d[i])
            return -1;
        n *= d[i];
    }
    return (int64_t)n;
}

static int too_big(const oh5 *h, int nd, const hsize_t *d, int64_t ts, const char *what, const char *name)
{
    int64_t b = extent_bytes(nd, d, ts);
    if (b >= 0 && (h->o.max_bytes <= 0 || b <= h->o.max_bytes))
        return 0;
    return iol_err(IOLENS_EINVAL, "%s '%s' of %s%lld bytes: more than the replay root's %lld free bytes; refusing",
                   what, name, b < 0 ? "more than " : "", (long long)(b < 0 ? INT64_MAX : b),
                   (long long)h->o.max_bytes);
}

static int fail(const char *func, const char *name)
{
    return iol_err(IOLENS_EIO, "%s of '%s' failed in the replay (it succeeded in the trace)", func, name ? name : "?");
}

static hid_t file_access(oh5 *h, int mpio)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (mpio && h->o.world >= 0)
        H5Pset_fapl_mpio(fapl, h->o.world ? MPI_COMM_WORLD : MPI_COMM_SELF, MPI_INFO_NULL);
    if (h->o.align_threshold > 0 && h->o.align > 0)
        H5Pset_alignment(fapl, (hsize_t)h->o.align_threshold, (hsize_t)h->o.align);
    else if (h->p_align_thr >= 0 && h->p_align > 0)
        H5Pset_alignment(fapl, (hsize_t)h->p_align_thr, (hsize_t)h->p_align);
    if (h->p_meta_block >= 0)
        H5Pset_meta_block_size(fapl, (hsize_t)h->p_meta_block);
    if (h->p_sieve >= 0)
        H5Pset_sieve_buf_size(fapl, (size_t)h->p_sieve);
    if (h->p_mdc >= 0)
        H5Pset_cache(fapl, (int)h->p_mdc, (size_t)h->p_rdcc_slots, (size_t)h->p_rdcc_bytes, 0.75);
    if (mpio && h->o.world >= 0) {
        if (h->p_coll_ops >= 0)
            H5Pset_all_coll_metadata_ops(fapl, h->p_coll_ops != 0);
        if (h->p_coll_write >= 0)
            H5Pset_coll_metadata_write(fapl, h->p_coll_write != 0);
    }
    h->p_align_thr = h->p_align = h->p_meta_block = h->p_sieve = h->p_mdc = -1;
    h->p_coll_ops = h->p_coll_write = -1;
    return fapl;
}

static int open_file(oh5 *h, int create, int32_t slot, const int64_t a[4], const char *name, const char *path,
                     int64_t tag)
{
    if (h->nfiles >= OH5_FILES)
        return iol_err(IOLENS_EUNSUPPORTED, "more than %d HDF5 files open at once", OH5_FILES);
    hid_t fapl = file_access(h, a[2] == 1);
    unsigned fl = (unsigned)a[0];
    hid_t id = create ? H5Fcreate(path, fl & (H5F_ACC_TRUNC | H5F_ACC_EXCL) ? fl & (H5F_ACC_TRUNC | H5F_ACC_EXCL)
                                                                           : H5F_ACC_TRUNC,
                                  H5P_DEFAULT, fapl)
                      : H5Fopen(path, fl & H5F_ACC_RDWR ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (id < 0)
        return iol_err(IOLENS_EIO, "%s of '%s' failed in the replay", create ? "H5Fcreate" : "H5Fopen", path);
    if (h->s[slot].kind)
        close_obj(h, slot);
    char *copy = strdup(name);
    if (!copy) {
        H5Fclose(id);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    h->s[slot] = (struct oh5_obj){id, K_FILE, slot, tag, H5I_INVALID_HID};
    h->files[h->nfiles] = slot;
    h->fname[h->nfiles] = copy;
    h->flen[h->nfiles] = strlen(copy);
    h->nfiles++;
    return 1;
}

static hid_t link_create(void)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    return lcpl;
}

static int keep(oh5 *h, int32_t slot, hid_t id, int kind, int fslot)
{
    if (h->s[slot].kind)
        close_obj(h, slot);
    h->s[slot] = (struct oh5_obj){id, kind, fslot, h->s[fslot].tag, H5I_INVALID_HID};
    if (kind == K_DSET || (kind == K_OBJ && H5Iget_type(id) == H5I_DATASET))
        h->s[slot].space = H5Dget_space(id);
    return 1;
}

static int create_dataset(oh5 *h, int32_t slot, const int64_t a[4], const oh5_extra *x, const char *name)
{
    const char *opath;
    int fs = file_of(h, name, &opath);
    if (fs < 0)
        return 0; /* a dataset of a file the replay did not open */
    int64_t ts = a[2];
    hid_t type = type_of(h, ts);
    if (type < 0)
        return 0;
    hsize_t dims[5], maxd[5], chunk[5];
    int nd;
    if (x->has_dims && x->dnd >= 0 && x->dnd <= 5) {
        nd = x->dnd;
        for (int i = 0; i < nd; i++) {
            dims[i] = (hsize_t)x->dims[i];
            maxd[i] = x->unlimited & (1 << i) ? H5S_UNLIMITED : dims[i];
        }
    } else if (a[1] >= 0 && ts > 0) { /* a trace of an older shim: as many elements in one dimension */
        nd = 1;
        dims[0] = maxd[0] = (hsize_t)(a[1] / ts);
    } else {
        return 0;
    }
    int rc = too_big(h, nd, dims, ts, "dataset", name);
    if (rc < 0)
        return rc;
    hid_t space = nd ? H5Screate_simple(nd, dims, maxd) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int chunked = x->has_chunk && x->cnd == nd && nd > 0;
    for (int i = 0; chunked && i < nd; i++)
        chunked = x->chunk[i] > 0;
    if (chunked) {
        for (int i = 0; i < nd; i++)
            chunk[i] = (hsize_t)x->chunk[i];
        H5Pset_chunk(dcpl, nd, chunk);
    } else if (x->unlimited && nd > 0) { /* an extendible dataset needs chunks: one per dims */
        for (int i = 0; i < nd; i++)
            chunk[i] = dims[i] ? dims[i] : 1;
        H5Pset_chunk(dcpl, nd, chunk);
    }
    hid_t lcpl = link_create();
    hid_t id = H5Dcreate2(h->s[fs].id, opath, type, space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (id < 0)
        return fail("H5Dcreate2", name);
    return keep(h, slot, id, K_DSET, fs);
}

static hid_t dataset_access(oh5 *h)
{
    if (h->p_dcache_bytes < 0)
        return H5P_DEFAULT;
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, (size_t)h->p_dcache_slots, (size_t)h->p_dcache_bytes, 0.75);
    h->p_dcache_slots = h->p_dcache_bytes = -1;
    return dapl;
}

static int open_object(oh5 *h, const char *func, int32_t slot, const char *name)
{
    const char *opath;
    int fs = file_of(h, name, &opath);
    if (fs < 0)
        return 0;
    hid_t id;
    int kind;
    if (!strcmp(func, "H5Oopen")) {
        id = H5Oopen(h->s[fs].id, opath, H5P_DEFAULT);
        kind = K_OBJ;
    } else if (!strcmp(func, "H5Gcreate2") || !strcmp(func, "H5Gopen2")) {
        id = -1;
        if (func[2] == 'G' && func[3] == 'c') {
            hid_t lcpl = link_create();
            id = H5Gcreate2(h->s[fs].id, opath, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            H5Pclose(lcpl);
        }
        if (id < 0) /* made already, as the parent of a dataset created before it */
            id = H5Gopen2(h->s[fs].id, opath, H5P_DEFAULT);
        kind = K_GROUP;
    } else {
        hid_t dapl = dataset_access(h);
        id = H5Dopen2(h->s[fs].id, opath, dapl);
        if (dapl != H5P_DEFAULT)
            H5Pclose(dapl);
        kind = K_DSET;
    }
    if (id < 0)
        return fail(func, name);
    return keep(h, slot, id, kind, fs);
}

static int open_attr(oh5 *h, int create, int32_t slot, const int64_t a[4], const char *name)
{
    const char *opath;
    int fs = file_of(h, name, &opath);
    const char *at = strrchr(name, '@');
    if (fs < 0 || !at || at < opath)
        return 0;
    size_t n = (size_t)(at - opath);
    char *obj = malloc(n + 1);
    if (!obj)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    memcpy(obj, opath, n);
    obj[n] = 0;
    hid_t id = -1;
    if (create) {
        hid_t type = type_of(h, a[2]);
        int64_t np = a[2] > 0 && a[1] >= 0 ? a[1] / a[2] : -1;
        if (type < 0 || np < 0) {
            free(obj);
            return 0;
        }
        hsize_t d = (hsize_t)np;
        int rc = too_big(h, 1, &d, a[2], "attribute", name);
        if (rc < 0) {
            free(obj);
            return rc;
        }
        hid_t sp = np == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &d, NULL);
        id = H5Acreate_by_name(h->s[fs].id, obj, at + 1, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(sp);
    } else {
        id = H5Aopen_by_name(h->s[fs].id, obj, at + 1, H5P_DEFAULT, H5P_DEFAULT);
    }
    free(obj);
    if (id < 0)
        return fail(create ? "H5Acreate2" : "H5Aopen", name);
    return keep(h, slot, id, K_ATTR, fs);
}

/* A memory space of the hyperslab's own shape (count x block per dimension): HDF5 maps a
 * selection onto a memory space of the same shape chunk by chunk at once, where a flat one
 * makes it walk the chunks element by element (a chunked 2-D write ran 4x slower). */
static hid_t mem_shape(oh5 *h, const oh5_extra *x)
{
    hsize_t d[5];
    for (int i = 0; i < x->nd; i++)
        d[i] = (hsize_t)(x->count[i] * x->block[i]);
    if (h->mspace > 0 && h->mspace_nd == x->nd && !memcmp(d, h->mspace_dims, (size_t)x->nd * sizeof *d))
        return h->mspace;
    if (h->mspace > 0)
        H5Sclose(h->mspace);
    h->mspace = H5Screate_simple(x->nd, d, NULL);
    h->mspace_nd = x->nd;
    memcpy(h->mspace_dims, d, (size_t)x->nd * sizeof *d);
    return h->mspace;
}

static hid_t mem_space(oh5 *h, int64_t n)
{
    if (h->mspace > 0 && !h->mspace_nd && h->mspace_n == n)
        return h->mspace;
    if (h->mspace > 0)
        H5Sclose(h->mspace);
    hsize_t d = (hsize_t)(n > 0 ? n : 1);
    h->mspace = H5Screate_simple(1, &d, NULL);
    h->mspace_n = n;
    h->mspace_nd = 0;
    if (n == 0)
        H5Sselect_none(h->mspace);
    return h->mspace;
}

static int data_call(oh5 *h, int w, int32_t slot, const int64_t a[4], const oh5_extra *x, const char *name, void *buf,
                     int64_t bufcap, int64_t *bytes)
{
    struct oh5_obj *b = &h->s[slot];
    int64_t ts = a[2], nb = a[1];
    if ((b->kind != K_DSET && b->kind != K_OBJ) || b->space <= 0 || ts <= 0 || nb < 0 || nb > bufcap)
        return 0;
    hid_t type = type_of(h, ts);
    int coll = h->o.xfer >= 0 ? h->o.xfer : a[3] == 1;
    hid_t dxpl = h->o.world < 0 ? H5P_DEFAULT : coll ? h->dxpl_coll : h->dxpl_ind;
    hid_t ms, fsp;
    int moved = 1;
    switch (a[0]) {
    case 4: /* the whole dataset: it must fit the buffer (the trace's bytes are not trusted) */
        if (H5Sget_simple_extent_npoints(b->space) > bufcap / ts)
            return 0;
        ms = fsp = H5S_ALL;
        break;
    case 2:
        if (x->has_sel && x->nd > 0 && H5Sget_simple_extent_ndims(b->space) == x->nd) {
            hsize_t st[5], cn[5], bl[5], sd[5], dims[5];
            H5Sget_simple_extent_dims(b->space, dims, NULL);
            uint64_t idx = (uint64_t)x->start; /* the first element's index -> its coordinates */
            for (int i = x->nd - 1; i >= 0; i--) {
                st[i] = i && dims[i] ? idx % dims[i] : idx;
                idx = i && dims[i] ? idx / dims[i] : 0;
            }
            uint64_t elems = 1;
            for (int i = 0; i < x->nd; i++) {
                if (x->count[i] < 0 || x->block[i] < 0 || x->stride[i] < 0)
                    return 0;
                cn[i] = (hsize_t)x->count[i];
                bl[i] = (hsize_t)x->block[i];
                uint64_t e = cn[i] * bl[i];
                if ((bl[i] && cn[i] > UINT64_MAX / bl[i]) || (e && elems > UINT64_MAX / e))
                    return 0;
                elems *= e;
                sd[i] = (hsize_t)(x->count[i] > 1 && x->stride[i] >= x->block[i] ? x->stride[i] : x->block[i] ? x->block[i] : 1);
            }
            /* the selection moves exactly the recorded bytes, which fit the buffer */
            if (elems == (uint64_t)(nb / ts) && nb % ts == 0 &&
                H5Sselect_hyperslab(b->space, H5S_SELECT_SET, st, sd, cn, bl) >= 0) {
                fsp = b->space;
                ms = x->nd > 0 ? mem_shape(h, x) : mem_space(h, nb / ts);
                break;
            }
        }
        /* a shape the replay cannot make again */
        /* fall through */
    default:
        if (!coll || h->o.world < 0)
            return 0;
        H5Sselect_none(b->space); /* take part in the collective call, move nothing */
        fsp = b->space;
        ms = mem_space(h, 0);
        moved = 0;
        break;
    case 0:
        H5Sselect_none(b->space);
        fsp = b->space;
        ms = mem_space(h, 0);
        break;
    }
    herr_t r = w ? H5Dwrite(b->id, type, ms, fsp, dxpl, buf) : H5Dread(b->id, type, ms, fsp, dxpl, buf);
    if (r < 0)
        return fail(w ? "H5Dwrite" : "H5Dread", name);
    *bytes = moved && a[0] != 0 ? nb : 0;
    return moved;
}

static int attr_call(oh5 *h, int w, int32_t slot, const int64_t a[4], const char *name, void *buf, int64_t bufcap,
                     int64_t *bytes)
{
    struct oh5_obj *b = &h->s[slot];
    if (b->kind != K_ATTR || a[2] <= 0 || a[1] < 0 || a[1] > bufcap)
        return 0;
    hid_t type = type_of(h, a[2]);
    hid_t sp = H5Aget_space(b->id);
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (sp >= 0)
        H5Sclose(sp);
    if (type < 0 || np < 0 || np > bufcap / a[2]) /* the whole attribute moves: it must fit the buffer */
        return 0;
    herr_t r = w ? H5Awrite(b->id, type, buf) : H5Aread(b->id, type, buf);
    if (r < 0)
        return fail(w ? "H5Awrite" : "H5Aread", name);
    *bytes = a[1];
    return 1;
}

static int property(oh5 *h, const char *func, const int64_t a[4])
{
    if (!strcmp(func, "H5Pset_alignment")) {
        h->p_align_thr = a[1];
        h->p_align = a[2];
    } else if (!strcmp(func, "H5Pset_meta_block_size")) {
        h->p_meta_block = a[1];
    } else if (!strcmp(func, "H5Pset_sieve_buf_size")) {
        h->p_sieve = a[1];
    } else if (!strcmp(func, "H5Pset_cache")) {
        h->p_mdc = a[3];
        h->p_rdcc_slots = a[2];
        h->p_rdcc_bytes = a[1];
    } else if (!strcmp(func, "H5Pset_chunk_cache")) {
        h->p_dcache_bytes = a[1];
        h->p_dcache_slots = a[2];
    } else if (!strcmp(func, "H5Pset_all_coll_metadata_ops")) {
        h->p_coll_ops = (int)a[2];
    } else if (!strcmp(func, "H5Pset_coll_metadata_write")) {
        h->p_coll_write = (int)a[2];
    }
    /* the rest (the driver, the transfer mode, the chunks) reach the calls they affect through
     * the trace's records of those calls: applied there */
    return 1;
}

int oh5_event(oh5 *h, const char *func, int32_t slot, const int64_t a[4], const oh5_extra *x, const char *name,
              const char *path, int64_t tag, void *buf, int64_t bufcap, int64_t *file_tag, int64_t *bytes)
{
    *bytes = 0;
    *file_tag = -1;
    if (!strncmp(func, "H5P", 3))
        return property(h, func, a);
    if (bad_slot(slot) || !name)
        return 0;
    struct oh5_obj *b = &h->s[slot];
    int rc;
    if (!strcmp(func, "H5Fcreate") || !strcmp(func, "H5Fopen")) {
        rc = open_file(h, func[3] == 'c', slot, a, name, path, tag);
    } else if (!strcmp(func, "H5Dwrite") || !strcmp(func, "H5Dread")) {
        rc = data_call(h, func[3] == 'w', slot, a, x, name, buf, bufcap, bytes);
    } else if (!strcmp(func, "H5Awrite") || !strcmp(func, "H5Aread")) {
        rc = attr_call(h, func[3] == 'w', slot, a, name, buf, bufcap, bytes);
    } else if (!strcmp(func, "H5Dcreate2") || !strcmp(func, "H5Dcreate1")) {
        rc = create_dataset(h, slot, a, x, name);
    } else if (!strcmp(func, "H5Dopen2") || !strcmp(func, "H5Dopen1") || !strcmp(func, "H5Oopen") ||
               !strcmp(func, "H5Gcreate2") || !strcmp(func, "H5Gopen2")) {
        rc = open_object(h, func, slot, name);
    } else if (!strcmp(func, "H5Acreate2") || !strcmp(func, "H5Aopen")) {
        rc = open_attr(h, func[3] == 'c', slot, a, name);
    } else if (!b->kind) {
        return 0; /* an object the replay did not open */
    } else if (!strcmp(func, "H5Dset_extent")) {
        hsize_t d[5];
        if (b->kind != K_DSET && b->kind != K_OBJ)
            return 0;
        if (!x->has_dims || x->dnd < 1 || x->dnd > 5)
            return 0;
        for (int i = 0; i < x->dnd; i++)
            d[i] = (hsize_t)x->dims[i];
        hid_t ty = H5Dget_type(b->id);
        size_t ts = ty >= 0 ? H5Tget_size(ty) : 1;
        if (ty >= 0)
            H5Tclose(ty);
        if ((rc = too_big(h, x->dnd, d, (int64_t)ts, "dataset", name)) < 0)
            return rc;
        if (H5Dset_extent(b->id, d) < 0)
            return fail(func, name);
        if (b->space > 0)
            H5Sclose(b->space);
        b->space = H5Dget_space(b->id);
        rc = 1;
    } else if (!strcmp(func, "H5Dflush")) {
        if (b->kind != K_DSET && b->kind != K_OBJ)
            return 0;
        if (H5Dflush(b->id) < 0)
            return fail(func, name);
        rc = 1;
    } else if (!strcmp(func, "H5Fflush")) {
        if (H5Fflush(b->id, a[2] == 1 ? H5F_SCOPE_GLOBAL : H5F_SCOPE_LOCAL) < 0)
            return fail(func, name);
        rc = 1;
    } else if (!strcmp(func, "H5Fclose") || !strcmp(func, "H5Dclose") || !strcmp(func, "H5Gclose") ||
               !strcmp(func, "H5Oclose") || !strcmp(func, "H5Aclose")) {
        *file_tag = b->tag;
        if (close_obj(h, slot) < 0)
            return fail(func, name);
        return 1;
    } else {
        return 0;
    }
    if (rc > 0 && !bad_slot(slot) && h->s[slot].kind)
        *file_tag = h->s[slot].tag;
    return rc;
}
