/*
 * An HDF5 checkpoint-style program, the reference of hdf5_fidelity.sh: P ranks (a perfect
 * square, q x q) each write their N x N block of doubles of a (ITERS q N) x (q N) dataset
 * "/field" in ITERS transfers (one per iteration, each a regular hyperslab), close the file,
 * open it again and read the blocks back the same way. Through the MPI-IO driver; `chunk`
 * makes the dataset chunked in N x N chunks, `coll` the transfers collective. Rank 0 prints
 * what it measured as IOR does, from a barrier before the open to a barrier after the close:
 *   write_s W read_s R bytes B
 *
 *   h5_blocks N ITERS DIR [chunk] [coll]
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
    if (argc < 4 || q * q != np) {
        if (rank == 0)
            fprintf(stderr, "usage: h5_blocks N ITERS DIR [chunk] [coll] (on a square number of ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hsize_t n = (hsize_t)atoll(argv[1]);
    int iters = atoi(argv[2]);
    for (int i = 4; i < argc; i++) {
        chunk |= !strcmp(argv[i], "chunk");
        coll |= !strcmp(argv[i], "coll");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/h5_blocks.h5", argv[3]);
    size_t elems = (size_t)(n * n);
    double *buf = malloc(elems * sizeof *buf);
    for (size_t i = 0; i < elems; i++)
        buf[i] = rank + (double)i;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    hsize_t dims[2] = {(hsize_t)iters * q * n, q * n}, cdims[2] = {n, n}, cnt[2] = {n, n};
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    double t0[2], t1[2];
    for (int pass = 0; pass < 2; pass++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0[pass] = MPI_Wtime();
        hid_t f = pass ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t d;
        if (pass == 0) {
            hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
            if (chunk)
                H5Pset_chunk(dcpl, 2, cdims);
            d = H5Dcreate2(f, "field", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            H5Pclose(dcpl);
            H5Sclose(sp);
        } else {
            d = H5Dopen2(f, "field", H5P_DEFAULT);
        }
        hid_t fs = H5Dget_space(d);
        for (int it = 0; it < iters; it++) {
            hsize_t start[2] = {((hsize_t)it * q + (hsize_t)(rank / q)) * n, (hsize_t)(rank % q) * n};
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
            herr_t r = pass ? H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf)
                            : H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf);
            if (r < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
        H5Sclose(fs);
        H5Dclose(d);
        H5Fclose(f);
        MPI_Barrier(MPI_COMM_WORLD);
        t1[pass] = MPI_Wtime();
    }
    if (rank == 0)
        printf("write_s %.6f read_s %.6f bytes %llu\n", t1[0] - t0[0], t1[1] - t0[1],
               (unsigned long long)elems * sizeof *buf * (unsigned long long)iters * (unsigned long long)np);
    H5Sclose(ms);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
    MPI_Finalize();
    return 0;
}
