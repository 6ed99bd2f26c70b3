/* An HDF5 program for tests/replay/test_replay_programs.sh: writes a 1-D dataset of N MiB
 * one 1 MiB hyperslab at a time, closes the file, opens it again and reads it back the same way.
 *   h5prog FILE [N]   (N default 8) */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    const char *path = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 8;
    size_t each = 1 << 20;
    char *buf = malloc(each);
    memset(buf, 'h', each);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {(hsize_t)n * each};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(f, "data", H5T_NATIVE_CHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 0; i < n; i++) {
        hsize_t off[1] = {(hsize_t)i * each}, cnt[1] = {each};
        hid_t fs = H5Dget_space(d);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
        hid_t ms = H5Screate_simple(1, cnt, NULL);
        H5Dwrite(d, H5T_NATIVE_CHAR, ms, fs, H5P_DEFAULT, buf);
        H5Sclose(ms); H5Sclose(fs);
    }
    H5Dclose(d); H5Sclose(sp); H5Fclose(f);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "data", H5P_DEFAULT);
    for (int i = 0; i < n; i++) {
        hsize_t off[1] = {(hsize_t)i * each}, cnt[1] = {each};
        hid_t fs = H5Dget_space(d);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
        hid_t ms = H5Screate_simple(1, cnt, NULL);
        H5Dread(d, H5T_NATIVE_CHAR, ms, fs, H5P_DEFAULT, buf);
        H5Sclose(ms); H5Sclose(fs);
    }
    H5Dclose(d); H5Fclose(f);
    return 0;
}
