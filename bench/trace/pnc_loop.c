/* COUNT ncmpi_put_var1_double calls (independent data mode, one element each, of a 1-D variable
 * of COUNT doubles) to FILE; prints the CPU time spent in them, in seconds.
 * usage: bench_pnc_loop COUNT FILE */
#include <mpi.h>
#include <pnetcdf.h>
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
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_pnc_loop COUNT FILE\n");
        return 2;
    }
    MPI_Offset n = atoll(argv[1]);
    int nc, dx, v;
    if (ncmpi_create(MPI_COMM_WORLD, argv[2], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc) != NC_NOERR ||
        ncmpi_def_dim(nc, "x", n, &dx) != NC_NOERR || ncmpi_def_var(nc, "d", NC_DOUBLE, 1, &dx, &v) != NC_NOERR ||
        ncmpi_enddef(nc) != NC_NOERR || ncmpi_begin_indep_data(nc) != NC_NOERR)
        return 1;
    double x = 7, t = 0;
    for (MPI_Offset i = 0; i < n; i++) {
        double t0 = now();
        int r = ncmpi_put_var1_double(nc, v, &i, &x);
        t += now() - t0;
        if (r != NC_NOERR)
            return 1;
    }
    printf("%.6f\n", t);
    ncmpi_end_indep_data(nc);
    ncmpi_close(nc);
    remove(argv[2]);
    MPI_Finalize();
    return 0;
}
