/*
 * Ground-truth probe of the HDF5 wrappers: calls every HDF5 function the shim wraps, through
 * the parallel library (one rank), and writes the line `iolens view` should print for each
 * call (function, then the recorded arguments) to LOG.
 *
 *   hdf5_probe LOG DIR      (DIR must exist; the probe writes DIR/probe.h5)
 */
#define _DEFAULT_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *plog;
static char file[PATH_MAX + 16];

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) < 0) {                                                                             \
            fprintf(stderr, "hdf5_probe: %s failed (line %d)\n", #x, __LINE__);                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hdf5_probe LOG DIR\n");
        return 2;
    }
    char dir[PATH_MAX];
    if (!realpath(argv[2], dir) || !(plog = fopen(argv[1], "w"))) {
        perror("hdf5_probe");
        return 1;
    }
    snprintf(file, sizeof file, "%s/probe.h5", dir);
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    /* file access: MPI-IO, alignment, metadata blocks, sieve buffer, caches, collective metadata */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    fprintf(plog, "H5Pset_fapl_mpio %lld\n", (long long)fapl);
    CHECK(H5Pset_alignment(fapl, 1, 4096));
    fprintf(plog, "H5Pset_alignment %lld 1 4096\n", (long long)fapl);
    CHECK(H5Pset_meta_block_size(fapl, 8192));
    fprintf(plog, "H5Pset_meta_block_size %lld 8192\n", (long long)fapl);
    CHECK(H5Pset_sieve_buf_size(fapl, 65536));
    fprintf(plog, "H5Pset_sieve_buf_size %lld 65536\n", (long long)fapl);
    CHECK(H5Pset_cache(fapl, 0, 521, 1 << 20, 0.75));
    fprintf(plog, "H5Pset_cache %lld 0 521 %d\n", (long long)fapl, 1 << 20);
    CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    fprintf(plog, "H5Pset_all_coll_metadata_ops %lld 1\n", (long long)fapl);
    CHECK(H5Pset_coll_metadata_write(fapl, 1));
    fprintf(plog, "H5Pset_coll_metadata_write %lld 1\n", (long long)fapl);

    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f);
    fprintf(plog, "H5Fcreate %s %u 1\n", file, (unsigned)H5F_ACC_TRUNC); /* 1: the MPI-IO driver */
    hid_t g = H5Gcreate2(f, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    fprintf(plog, "H5Gcreate2 %s:/g\n", file);

    /* a chunked, extensible dataset of 16 x 256 ints */
    hsize_t dims[2] = {16, 256}, maxd[2] = {H5S_UNLIMITED, 256}, chunk[2] = {4, 256};
    hid_t space = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    fprintf(plog, "H5Pset_chunk %lld 2 1024 256\n", (long long)dcpl);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    CHECK(H5Pset_chunk_cache(dapl, 101, 1 << 20, 0.5));
    fprintf(plog, "H5Pset_chunk_cache %lld 101 %d\n", (long long)dapl, 1 << 20);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, dapl);
    CHECK(d);
    fprintf(plog, "H5Dcreate2 %s:/g/d %d 4 2 %lld\n", file, 16 * 256 * 4, (long long)dcpl);

    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    fprintf(plog, "H5Pset_dxpl_mpio %lld 1\n", (long long)dxpl);

    static int buf[32 * 256];
    for (int i = 0; i < 32 * 256; i++)
        buf[i] = i;
    /* four collective writes of 4 rows (regular hyperslabs) */
    hsize_t cnt[2] = {4, 256};
    hid_t mem = H5Screate_simple(2, cnt, NULL);
    for (int step = 0; step < 4; step++) {
        hsize_t off[2] = {(hsize_t)step * 4, 0};
        hid_t fs = H5Dget_space(d);
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL));
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, mem, fs, dxpl, buf));
        fprintf(plog, "H5Dwrite %s:/g/d 2 4096 4 1\n", file);
        H5Sclose(fs);
    }
    H5Sclose(mem);
    /* three points, independently */
    hsize_t pts[3][2] = {{0, 0}, {5, 7}, {15, 255}}, three = 3;
    hid_t fs = H5Dget_space(d);
    CHECK(H5Sselect_elements(fs, H5S_SELECT_SET, 3, &pts[0][0]));
    mem = H5Screate_simple(1, &three, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, mem, fs, H5P_DEFAULT, buf));
    fprintf(plog, "H5Dwrite %s:/g/d 1 12 4 0\n", file);
    H5Sclose(mem);
    H5Sclose(fs);
    /* grown to 32 rows, then written whole */
    hsize_t bigger[2] = {32, 256};
    CHECK(H5Dset_extent(d, bigger));
    fprintf(plog, "H5Dset_extent %s:/g/d %d 2\n", file, 32 * 256 * 4);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    fprintf(plog, "H5Dwrite %s:/g/d 4 %d 4 0\n", file, 32 * 256 * 4);
    CHECK(H5Dflush(d));
    fprintf(plog, "H5Dflush %s:/g/d\n", file);
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL));
    fprintf(plog, "H5Fflush %s %d\n", file, (int)H5F_SCOPE_GLOBAL);

    /* an attribute of three doubles */
    hsize_t n3 = 3;
    hid_t aspace = H5Screate_simple(1, &n3, NULL);
    hid_t a = H5Acreate2(d, "a", H5T_NATIVE_DOUBLE, aspace, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    fprintf(plog, "H5Acreate2 %s:/g/d@a 24 8\n", file);
    double av[3] = {1, 2, 3};
    CHECK(H5Awrite(a, H5T_NATIVE_DOUBLE, av));
    fprintf(plog, "H5Awrite %s:/g/d@a 24 8\n", file);
    CHECK(H5Aclose(a));
    fprintf(plog, "H5Aclose %s:/g/d@a\n", file);
    H5Sclose(aspace);
    CHECK(H5Dclose(d));
    fprintf(plog, "H5Dclose %s:/g/d\n", file);
    CHECK(H5Gclose(g));
    fprintf(plog, "H5Gclose %s:/g\n", file);
    /* the deprecated forms: a second dataset of 8 shorts at the root */
    hsize_t eight = 8;
    hid_t sp8 = H5Screate_simple(1, &eight, NULL);
    hid_t d1 = H5Dcreate1(f, "old", H5T_NATIVE_SHORT, sp8, H5P_DEFAULT);
    CHECK(d1);
    fprintf(plog, "H5Dcreate1 %s:/old 16 2 1 0\n", file);
    CHECK(H5Dclose(d1));
    fprintf(plog, "H5Dclose %s:/old\n", file);
    d1 = H5Dopen1(f, "old");
    CHECK(d1);
    fprintf(plog, "H5Dopen1 %s:/old 16 2 1 0\n", file);
    CHECK(H5Dclose(d1));
    fprintf(plog, "H5Dclose %s:/old\n", file);
    H5Sclose(sp8);

    CHECK(H5Fclose(f));
    fprintf(plog, "H5Fclose %s\n", file);

    /* read back */
    f = H5Fopen(file, H5F_ACC_RDONLY, fapl);
    CHECK(f);
    fprintf(plog, "H5Fopen %s %u 1\n", file, (unsigned)H5F_ACC_RDONLY);
    g = H5Gopen2(f, "/g", H5P_DEFAULT);
    CHECK(g);
    fprintf(plog, "H5Gopen2 %s:/g\n", file);
    d = H5Dopen2(g, "d", H5P_DEFAULT);
    CHECK(d);
    fprintf(plog, "H5Dopen2 %s:/g/d %d 4 2 0\n", file, 32 * 256 * 4);
    a = H5Aopen(d, "a", H5P_DEFAULT);
    CHECK(a);
    fprintf(plog, "H5Aopen %s:/g/d@a 24 8\n", file);
    CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, av));
    fprintf(plog, "H5Aread %s:/g/d@a 24 8\n", file);
    CHECK(H5Aclose(a));
    fprintf(plog, "H5Aclose %s:/g/d@a\n", file);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, buf));
    fprintf(plog, "H5Dread %s:/g/d 4 %d 4 1\n", file, 32 * 256 * 4);
    CHECK(H5Dclose(d));
    fprintf(plog, "H5Dclose %s:/g/d\n", file);
    /* opened as an object (h5py's way), read in two regular hyperslabs of 8 rows, every other row */
    hid_t o = H5Oopen(f, "/g/d", H5P_DEFAULT);
    CHECK(o);
    fprintf(plog, "H5Oopen %s:/g/d %d 4 2 0\n", file, 32 * 256 * 4);
    hsize_t st[2] = {2, 1}, c8[2] = {8, 256};
    mem = H5Screate_simple(2, c8, NULL);
    for (int half = 0; half < 2; half++) {
        hsize_t off[2] = {(hsize_t)half * 16, 0};
        fs = H5Dget_space(o);
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, st, c8, NULL));
        CHECK(H5Dread(o, H5T_NATIVE_INT, mem, fs, H5P_DEFAULT, buf));
        fprintf(plog, "H5Dread %s:/g/d 2 8192 4 0\n", file);
        H5Sclose(fs);
    }
    H5Sclose(mem);
    CHECK(H5Oclose(o));
    fprintf(plog, "H5Oclose %s:/g/d\n", file);
    CHECK(H5Gclose(g));
    fprintf(plog, "H5Gclose %s:/g\n", file);
    CHECK(H5Fclose(f));
    fprintf(plog, "H5Fclose %s\n", file);

    H5Pclose(dxpl);
    H5Pclose(dapl);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    H5Sclose(space);
    fclose(plog);
    MPI_Finalize();
    printf("hdf5_probe: %d %g\n", buf[100], av[2]); /* what it read back */
    return 0;
}
