/* MPI-IO replay back end: hints as MPI_Info, collective or independent
 * transfers, and the hints the library applied (MPI_File_get_info). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "replay/exec.h"
#include "util/error.h"

static int mpi_err(int code, const char *what, const char *path)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, msg, &len);
    return iol_err(IOLENS_EIO, "cannot %s '%s': %s", what, path, msg);
}

static void info_size(MPI_Info info, const char *key, int64_t v)
{
    char s[32];
    if (v < 0)
        return;
    snprintf(s, sizeof s, "%lld", (long long)v);
    MPI_Info_set(info, key, s);
}

static void info_romio(MPI_Info info, const char *key, int v)
{
    if (v >= 0)
        MPI_Info_set(info, key, rp_romio_names[v]);
}

static int mpiio_open(struct rp_file *f)
{
    const struct rp_hints *h = f->h;
    MPI_Info info;
    MPI_Info_create(&info);
    info_romio(info, "romio_cb_read", h->romio_cb_read);
    info_romio(info, "romio_cb_write", h->romio_cb_write);
    info_romio(info, "romio_ds_read", h->romio_ds_read);
    info_romio(info, "romio_ds_write", h->romio_ds_write);
    info_size(info, "cb_buffer_size", h->cb_buffer_size);
    info_size(info, "cb_nodes", h->cb_nodes);
    info_size(info, "cb_block_size", h->cb_block_size);
    info_size(info, "ind_rd_buffer_size", h->ind_rd_buffer_size);
    info_size(info, "ind_wr_buffer_size", h->ind_wr_buffer_size);
    info_size(info, "striping_factor", h->striping_factor);
    info_size(info, "striping_unit", h->striping_unit);
    MPI_File *fh = malloc(sizeof *fh);
    if (!fh) {
        MPI_Info_free(&info);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    /* the file exists (the replay created it); MPI_MODE_CREATE as an application's writer has it */
    int amode = f->write ? MPI_MODE_RDWR | MPI_MODE_CREATE : MPI_MODE_RDONLY;
    /* no hint requested: MPI_INFO_NULL, as an application without hints passes */
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    int bad = rp_file_check_name(f);
    int rc = bad < 0 ? MPI_SUCCESS
                     : MPI_File_open(f->shared ? MPI_COMM_WORLD : MPI_COMM_SELF, f->full, amode,
                                     nkeys ? info : MPI_INFO_NULL, fh);
    MPI_Info_free(&info);
    if (bad < 0 || rc != MPI_SUCCESS) {
        free(fh);
        return bad < 0 ? bad : mpi_err(rc, "MPI_File_open", f->full);
    }
    f->mpi = fh;
    if ((bad = rp_file_check_name(f)) < 0) {
        MPI_File_close(fh);
        free(fh);
        f->mpi = NULL;
        return bad;
    }
    if (!f->report)
        return 0;
    for (int i = 0; i < 4; i++) {
        static const char *const posix_only[] = {"use_direct", "disable_readahead", "preallocate",
                                                 "lustre_stripe_size"};
        int v[] = {h->use_direct, h->disable_readahead, h->preallocate, (int)(h->lustre_stripe_size >= 0)};
        if (v[i] == 1)
            rp_hint_report(f->res, posix_only[i],
                           "not applicable here: a POSIX hint; with MPI-IO use ROMIO hints (e.g. striping_unit)");
    }
    if (h->use_collective >= 0)
        rp_hint_report(f->res, "use_collective", "applied: %s calls",
                       h->use_collective == 1 ? "collective MPI_File_*_at_all" : "independent MPI_File_*_at");
    MPI_Info got;
    if (MPI_File_get_info(*fh, &got) == MPI_SUCCESS) {
        int n = 0;
        MPI_Info_get_nkeys(got, &n);
        for (int i = 0; i < n; i++) {
            char key[MPI_MAX_INFO_KEY + 1], val[1024];
            int flag = 0;
            MPI_Info_get_nthkey(got, i, key);
            MPI_Info_get(got, key, (int)sizeof val - 1, val, &flag);
            if (flag && rp_result_add_info(f->res, key, val) < 0)
                break;
        }
        MPI_Info_free(&got);
    }
    return 0;
}

static int mpiio_xfer(struct rp_file *f, int write, void *buf, size_t n, int64_t off, int collective)
{
    MPI_File fh = *(MPI_File *)f->mpi;
    MPI_Status st;
    int rc;
    if (write)
        rc = collective ? MPI_File_write_at_all(fh, (MPI_Offset)off, buf, (int)n, MPI_BYTE, &st)
                        : MPI_File_write_at(fh, (MPI_Offset)off, buf, (int)n, MPI_BYTE, &st);
    else
        rc = collective ? MPI_File_read_at_all(fh, (MPI_Offset)off, buf, (int)n, MPI_BYTE, &st)
                        : MPI_File_read_at(fh, (MPI_Offset)off, buf, (int)n, MPI_BYTE, &st);
    if (rc != MPI_SUCCESS)
        return mpi_err(rc, write ? "write" : "read", f->full);
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    if ((size_t)got != n)
        return iol_err(IOLENS_EIO, "cannot %s '%s' at byte %lld: %d of %zu bytes moved", write ? "write" : "read",
                       f->full, (long long)off, got, n);
    return 0;
}

static int mpiio_sync(struct rp_file *f)
{
    int rc = MPI_File_sync(*(MPI_File *)f->mpi);
    return rc == MPI_SUCCESS ? 0 : mpi_err(rc, "MPI_File_sync", f->full);
}

static int mpiio_close(struct rp_file *f)
{
    int rc = MPI_File_close((MPI_File *)f->mpi);
    free(f->mpi);
    f->mpi = NULL;
    return rc == MPI_SUCCESS ? 0 : mpi_err(rc, "MPI_File_close", f->full);
}

const struct rp_backend_ops rp_backend_mpiio = {RP_BACKEND_VERSION, "mpiio", mpiio_open, mpiio_xfer, mpiio_sync,
                                                mpiio_close};
