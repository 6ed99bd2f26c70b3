/*
 * HDF5 replay back end, through the real library (parallel HDF5 over MPI-IO).
 * A step's transfers go to a 1-D byte dataset "data_<extent>" (one per
 * extent, so a read step finds the dataset its matching write step made);
 * offsets are dataset coordinates. MPI-IO hints reach HDF5 as the MPI_Info
 * of the file access property list; use_collective selects
 * H5FD_MPIO_COLLECTIVE transfers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <hdf5.h>
#include <mpi.h>

#include "replay/exec.h"
#include "util/error.h"

struct h5file {
    hid_t file, dset, dxpl;
};

static void info_set(MPI_Info info, const char *key, int64_t v)
{
    char s[32];
    if (v < 0)
        return;
    snprintf(s, sizeof s, "%lld", (long long)v);
    MPI_Info_set(info, key, s);
}

static int h5_open(struct rp_file *f)
{
    const struct rp_hints *h = f->h;
    /* HDF5 prints its error stack by default; the library never prints */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct h5file *x = calloc(1, sizeof *x);
    if (!x)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    x->file = x->dset = x->dxpl = H5I_INVALID_HID;
    MPI_Info info;
    MPI_Info_create(&info);
    if (h->romio_cb_write >= 0)
        MPI_Info_set(info, "romio_cb_write", rp_romio_names[h->romio_cb_write]);
    if (h->romio_cb_read >= 0)
        MPI_Info_set(info, "romio_cb_read", rp_romio_names[h->romio_cb_read]);
    info_set(info, "cb_buffer_size", h->cb_buffer_size);
    info_set(info, "cb_nodes", h->cb_nodes);
    info_set(info, "striping_factor", h->striping_factor);
    info_set(info, "striping_unit", h->striping_unit);
    MPI_Comm comm = f->shared ? MPI_COMM_WORLD : MPI_COMM_SELF;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, info);
    MPI_Info_free(&info);
    const struct rp_hdf5 *p = f->h5;
    if (p->alignment > 0)
        H5Pset_alignment(fapl, (hsize_t)p->alignment_threshold, (hsize_t)p->alignment);
    if (p->collective_metadata == 1 && f->shared) {
        H5Pset_all_coll_metadata_ops(fapl, 1);
        H5Pset_coll_metadata_write(fapl, 1);
    }
    /* the replay created the file empty: the first writer makes it an HDF5 file
     * (every rank sees the same size: the file was created before a barrier) */
    struct stat st;
    int is_h5 = fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_size > 0;
    int bad = rp_file_check_name(f);
    if (bad < 0) {
        H5Pclose(fapl);
        free(x);
        return bad;
    }
    if (is_h5 > 0)
        x->file = H5Fopen(f->full, f->write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    else if (f->write)
        x->file = H5Fcreate(f->full, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (x->file < 0) {
        free(x);
        return iol_err(IOLENS_EIO, "cannot open '%s' with HDF5%s", f->full,
                       is_h5 <= 0 && !f->write ? ": not an HDF5 file" : "");
    }
    if ((bad = rp_file_check_name(f)) < 0) {
        H5Fclose(x->file);
        free(x);
        return bad;
    }
    char name[64];
    snprintf(name, sizeof name, "data_%lld", (long long)f->extent);
    if (H5Lexists(x->file, name, H5P_DEFAULT) > 0) {
        x->dset = H5Dopen2(x->file, name, H5P_DEFAULT);
    } else if (f->write) {
        hsize_t dims[1] = {(hsize_t)f->extent};
        hid_t space = H5Screate_simple(1, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (p->chunk > 0 && f->extent > 0) {
            hsize_t c[1] = {(hsize_t)(p->chunk < f->extent ? p->chunk : f->extent)};
            H5Pset_chunk(dcpl, 1, c);
            /* parallel HDF5 writes chunked datasets only with their space allocated at creation */
            H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
        }
        x->dset = H5Dcreate2(x->file, name, H5T_NATIVE_UCHAR, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(space);
    }
    if (x->dset < 0) {
        H5Fclose(x->file);
        free(x);
        return iol_err(IOLENS_EIO, "cannot open dataset '%s' of '%s'", name, f->full);
    }
    x->dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(x->dxpl, h->use_collective == 1 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    f->mpi = x;
    if (f->report) {
        rp_hint_report(f->res, "use_collective", "applied: H5Pset_dxpl_mpio(%s)",
                       h->use_collective == 1 ? "H5FD_MPIO_COLLECTIVE" : "H5FD_MPIO_INDEPENDENT");
        if (p->chunk > 0) {
            hid_t dcpl = H5Dget_create_plist(x->dset);
            hsize_t c[1] = {0};
            int n = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, 1, c) : -1;
            if (dcpl >= 0)
                H5Pclose(dcpl);
            if (n == 1)
                rp_hint_report(f->res, "hdf5.chunk", "applied: the dataset is chunked in %llu-byte chunks",
                               (unsigned long long)c[0]);
            else
                rp_hint_report(f->res, "hdf5.chunk", "not applied: the dataset%s is not chunked",
                               is_h5 ? " the step found" : "");
        }
        if (p->alignment > 0)
            rp_hint_report(f->res, "hdf5.alignment", "applied: H5Pset_alignment(%lld, %lld)",
                           (long long)p->alignment_threshold, (long long)p->alignment);
        if (p->collective_metadata == 1)
            rp_hint_report(f->res, "hdf5.collective_metadata", f->shared ? "applied: H5Pset_all_coll_metadata_ops, "
                           "H5Pset_coll_metadata_write" : "not applicable here: a file of one rank");
        if (h->use_direct == 1 || h->preallocate == 1 || h->disable_readahead == 1)
            rp_hint_report(f->res, h->use_direct == 1 ? "use_direct" : h->preallocate == 1 ? "preallocate"
                                                                                              : "disable_readahead",
                           "not applicable here: a POSIX hint; HDF5 goes through MPI-IO");
        const char *unsupported[] = {"romio_ds_read", "romio_ds_write", "cb_block_size", "ind_rd_buffer_size",
                                     "ind_wr_buffer_size"};
        int64_t given[] = {h->romio_ds_read, h->romio_ds_write, h->cb_block_size, h->ind_rd_buffer_size,
                           h->ind_wr_buffer_size};
        for (int i = 0; i < 5; i++)
            if (given[i] >= 0)
                rp_hint_report(f->res, unsupported[i], "not applied: the hdf5 back end passes only collective "
                               "buffering and striping hints");
    }
    return 0;
}

static int h5_xfer(struct rp_file *f, int write, void *buf, size_t n, int64_t off, int collective)
{
    struct h5file *x = f->mpi;
    hid_t fspace = H5Dget_space(x->dset);
    hsize_t start[1] = {(hsize_t)off}, count[1] = {(hsize_t)n};
    hid_t mspace = H5Screate_simple(1, n ? count : (hsize_t[1]){1}, NULL);
    if (n) {
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    } else { /* a rank with nothing to move still takes part in a collective call */
        H5Sselect_none(fspace);
        H5Sselect_none(mspace);
    }
    herr_t rc = write ? H5Dwrite(x->dset, H5T_NATIVE_UCHAR, mspace, fspace, x->dxpl, buf)
                      : H5Dread(x->dset, H5T_NATIVE_UCHAR, mspace, fspace, x->dxpl, buf);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0)
        return iol_err(IOLENS_EIO, "cannot %s %zu bytes of '%s' at dataset byte %lld with HDF5",
                       write ? "write" : "read", n, f->full, (long long)off);
    return 0;
}

static int h5_sync(struct rp_file *f)
{
    struct h5file *x = f->mpi;
    return H5Fflush(x->file, H5F_SCOPE_GLOBAL) < 0 ? iol_err(IOLENS_EIO, "cannot flush '%s' with HDF5", f->full) : 0;
}

static int h5_close(struct rp_file *f)
{
    struct h5file *x = f->mpi;
    H5Pclose(x->dxpl);
    H5Dclose(x->dset);
    herr_t rc = H5Fclose(x->file);
    free(x);
    f->mpi = NULL;
    return rc < 0 ? iol_err(IOLENS_EIO, "cannot close '%s' with HDF5", f->full) : 0;
}

const struct rp_backend_ops rp_backend_hdf5 = {RP_BACKEND_VERSION, "hdf5", h5_open, h5_xfer, h5_sync, h5_close};
