/* COUNT H5Dwrite calls of one element (a 1-D contiguous dataset of COUNT ints, one element
 * selected per call) to FILE; prints the CPU time spent in H5Dwrite, in seconds.
 * usage: bench_h5_loop COUNT FILE */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) /* this thread's CPU time: the tracer's cost is CPU work here */
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_h5_loop COUNT FILE\n");
        return 2;
    }
    hsize_t n = (hsize_t)atoll(argv[1]), one = 1;
    hid_t f = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, &n, NULL), mem = H5Screate_simple(1, &one, NULL);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || d < 0)
        return 1;
    int v = 7;
    double t = 0;
    for (hsize_t i = 0; i < n; i++) {
        hsize_t off = i;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &off, NULL, &one, NULL); /* not traced */
        double t0 = now();
        herr_t r = H5Dwrite(d, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, &v);
        t += now() - t0;
        if (r < 0)
            return 1;
    }
    printf("%.6f\n", t);
    H5Dclose(d);
    H5Sclose(mem);
    H5Sclose(space);
    H5Fclose(f);
    remove(argv[2]);
    return 0;
}
