/*
 * Workloads of ../shared/design/reference/recorder-trace-format.md §5, with MPI:
 *   io_workload shared DIR M       each rank writes M x 1 MiB at (i*N + rank) MiB of DIR/shared.dat,
 *                                  fsync, reads it back (pwrite/pread)
 *   io_workload checkpoint DIR M   M x open(DIR/file_<i>_r<rank>) / write 1 MiB / close
 *   io_workload pwrites DIR COUNT  COUNT x 64-byte pwrite to DIR/pw.<rank> (overhead benchmark);
 *                                  prints the loop's CPU time in seconds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CPU time of the calling thread: the machine is shared, so wall time mostly
 * measures other people's load; the shim's cost is CPU work in this thread. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: io_workload shared|checkpoint|pwrites DIR COUNT\n");
        MPI_Finalize();
        return 2;
    }
    const char *dir = argv[2];
    long m = atol(argv[3]);
    const size_t MiB = 1 << 20;
    char *buf = calloc(1, MiB);
    char path[4096];
    int rc = 0;
    if (!strcmp(argv[1], "shared")) {
        snprintf(path, sizeof path, "%s/shared.dat", dir);
        int fd = open(path, O_CREAT | O_RDWR, 0644);
        for (long i = 0; i < m && fd >= 0; i++)
            if (pwrite(fd, buf, MiB, (off_t)((i * n + rank) * (long)MiB)) != (ssize_t)MiB)
                rc = 1;
        fsync(fd);
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = 0; i < m && fd >= 0; i++)
            if (pread(fd, buf, MiB, (off_t)((i * n + rank) * (long)MiB)) != (ssize_t)MiB)
                rc = 1;
        close(fd);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(path);
    } else if (!strcmp(argv[1], "checkpoint")) {
        for (long i = 0; i < m; i++) {
            snprintf(path, sizeof path, "%s/file_%ld_r%d", dir, i, rank);
            int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
            if (fd < 0 || write(fd, buf, MiB) != (ssize_t)MiB)
                rc = 1;
            close(fd);
            unlink(path); /* keep /dev/shm small; not part of Recorder's workload (done untraced below) */
        }
    } else if (!strcmp(argv[1], "pwrites")) {
        snprintf(path, sizeof path, "%s/pw.%d", dir, rank);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (long i = 0; i < m; i++)
            if (pwrite(fd, buf, 64, (off_t)((i & 1023) * 64)) != 64)
                rc = 1;
        double t = now() - t0, tmax;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%.6f\n", tmax);
        close(fd);
        unlink(path);
    }
    free(buf);
    MPI_Finalize();
    return rc;
}
