/*
 * The reference of the replay fidelity benchmark: IOR-like I/O written by
 * hand. Every rank writes `count` transfers of `size` bytes to a shared
 * file (its own contiguous block) or to its own file, with POSIX or MPI-IO
 * (independent or collective), fsync before close, then reads them back.
 * Timing as IOR and FBench: earliest open to latest close across ranks.
 *
 *   mpirun -np N bench_replay_ior_plain MODE SIZE COUNT DIR
 *   MODE: posix-shared | posix-fpp | mpiio-indep | mpiio-coll
 * Prints "write_bw read_bw" in bytes/s on rank 0.
 *
 * The buffer is malloc'd (glibc: a 1 MiB block is mmap'd, its address a page
 * start + 16). IOR_PLAIN_BUF_OFFSET=N (bench only, for the alignment A/B of
 * docs/REPLAY-CONFIG.md) puts it N bytes after a page start instead.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static double phase(const char *mode, const char *path, int write, char *buf, long size, long count, long base)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (!strncmp(mode, "posix", 5)) {
        int fd = open(path, write ? O_RDWR | O_CREAT : O_RDONLY, 0644);
        if (fd < 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (long i = 0; i < count; i++) {
            ssize_t k = write ? pwrite(fd, buf, (size_t)size, base + i * size) : pread(fd, buf, (size_t)size, base + i * size);
            if (k != size)
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (write)
            fsync(fd);
        close(fd);
    } else {
        MPI_File fh;
        int coll = !strcmp(mode, "mpiio-coll");
        MPI_File_open(MPI_COMM_WORLD, path, write ? MPI_MODE_RDWR | MPI_MODE_CREATE : MPI_MODE_RDONLY, MPI_INFO_NULL,
                      &fh);
        MPI_Status st;
        for (long i = 0; i < count; i++) {
            MPI_Offset off = base + i * size;
            if (write)
                coll ? MPI_File_write_at_all(fh, off, buf, (int)size, MPI_BYTE, &st)
                     : MPI_File_write_at(fh, off, buf, (int)size, MPI_BYTE, &st);
            else
                coll ? MPI_File_read_at_all(fh, off, buf, (int)size, MPI_BYTE, &st)
                     : MPI_File_read_at(fh, off, buf, (int)size, MPI_BYTE, &st);
        }
        if (write)
            MPI_File_sync(fh);
        MPI_File_close(&fh);
    }
    double t1 = MPI_Wtime(), lo, hi;
    MPI_Allreduce(&t0, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&t1, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return hi - lo;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: %s MODE SIZE COUNT DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *mode = argv[1];
    long size = atol(argv[2]), count = atol(argv[3]);
    char path[4096];
    int fpp = !strcmp(mode, "posix-fpp");
    if (fpp)
        snprintf(path, sizeof path, "%s/testfile.%05d", argv[4], rank);
    else
        snprintf(path, sizeof path, "%s/testfile", argv[4]);
    long base = fpp ? 0 : rank * size * count;
    const char *boff = getenv("IOR_PLAIN_BUF_OFFSET");
    void *block = NULL;
    char *buf;
    if (boff) {
        if (posix_memalign(&block, 4096, (size_t)size + 4096))
            MPI_Abort(MPI_COMM_WORLD, 3);
        buf = (char *)block + (atol(boff) % 4096);
    } else {
        block = buf = malloc((size_t)size);
    }
    if (rank == 0 && getenv("IOR_PLAIN_PRINT_BUF"))
        fprintf(stderr, "buffer at %p (page offset %lu)\n", (void *)buf, (unsigned long)((uintptr_t)buf % 4096));
    for (long i = 0; i < size; i++)
        buf[i] = (char)(i * 7);
    double tw = phase(mode, path, 1, buf, size, count, base);
    double tr = phase(mode, path, 0, buf, size, count, base);
    double bytes = (double)size * (double)count * nranks;
    if (rank == 0)
        printf("%.0f %.0f\n", bytes / tw, bytes / tr);
    MPI_Barrier(MPI_COMM_WORLD);
    unlink(path);
    free(block);
    MPI_Finalize();
    return 0;
}
