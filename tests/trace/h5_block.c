/*
 * A block-decomposed 2-D HDF5 write, the workload of the shared Darshan logs of HDF5 block
 * writes: P ranks (a perfect square, q x q) each write one N x N block of doubles of the
 * (qN) x (qN) dataset "/Test" of DIR/h5_block.h5, through the MPI-IO driver; `chunk` makes
 * the dataset chunked in N x N chunks, `coll` makes the write collective.
 *
 *   h5_block N DIR [chunk] [coll]
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int q = (int)lround(sqrt((double)np)), chunk = 0, coll = 0;
    if (argc < 3 || q * q != np) {
        if (rank == 0)
            fprintf(stderr, "usage: h5_block N DIR [chunk] [coll] (on a square number of ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hsize_t n = (hsize_t)atoll(argv[1]);
    for (int i = 3; i < argc; i++) {
        chunk |= !strcmp(argv[i], "chunk");
        coll |= !strcmp(argv[i], "coll");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/h5_block.h5", argv[2]);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {(hsize_t)q * n, (hsize_t)q * n}, block[2] = {n, n};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk)
        H5Pset_chunk(dcpl, 2, block);
    hid_t d = H5Dcreate2(f, "Test", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hsize_t off[2] = {(hsize_t)(rank / q) * n, (hsize_t)(rank % q) * n};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, off, NULL, block, NULL);
    hid_t mem = H5Screate_simple(2, block, NULL);
    double *buf = malloc(n * n * sizeof *buf);
    for (hsize_t i = 0; i < n * n; i++)
        buf[i] = (double)rank;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (coll)
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t r = H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, dxpl, buf);
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    H5Pclose(fapl);
    free(buf);
    MPI_Finalize();
    return r < 0;
}
