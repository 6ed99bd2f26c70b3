/*
 * An MPI program that logs its own MPI-IO calls in the form of
 * `iolens trace --print` (after the five leading columns), one log per rank:
 *   mpi_probe LOGDIR DATADIR [abort|thread]
 * With "abort", rank 0 calls MPI_Abort after some POSIX I/O (the others wait);
 * with "thread", MPI is started by MPI_Init_thread.
 * Covers open/close/sync/set_size/preallocate/set_view/seek, independent,
 * collective, explicit-offset, shared-pointer, ordered, non-blocking and
 * split-collective reads and writes (every variant the shim wraps), and the
 * MPI_Wait and MPI_Test families on I/O requests.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char logbuf[1 << 20]; /* Test loops may poll many times */
static size_t loglen;

__attribute__((format(printf, 1, 2))) static void L(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    loglen += (size_t)vsnprintf(logbuf + loglen, sizeof logbuf - loglen, fmt, ap);
    va_end(ap);
    logbuf[loglen++] = '\n';
}

int main(int argc, char **argv)
{
    int provided = 0;
    int rc = argc > 3 && !strcmp(argv[3], "thread") ? MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided)
                                                     : MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    L("%s(rank=%d, size=%d) = %d", argc > 3 && !strcmp(argv[3], "thread") ? "MPI_Init_thread" : "MPI_Init", rank, n,
      rc);
    if (argc < 3)
        return 2;
    if (argc > 3 && !strcmp(argv[3], "abort")) {
        char p[512];
        snprintf(p, sizeof p, "%s/abort.%d", argv[2], rank);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        for (int i = 0; i < 50; i++)
            if (pwrite(fd, p, 8, i * 8) != 8)
                break;
        close(fd);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        sleep(30);
        MPI_Finalize();
        return 0;
    }
    char path[512], buf[4096];
    memset(buf, 'm', sizeof buf);
    snprintf(path, sizeof path, "%s/mpi.dat", argv[2]);
    MPI_File fh;
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    L("MPI_File_open(\"%s\", amode=%d, comm_size=%d) = 0", path, amode, n);
    const char *p = path;
#define IO(fmt, ...) L("%s(\"%s\", fd=0" fmt ") = %d", __VA_ARGS__)
    rc = MPI_File_set_size(fh, 65536);
    IO(", size=65536", "MPI_File_set_size", p, rc);
    rc = MPI_File_preallocate(fh, 65536);
    IO(", size=65536", "MPI_File_preallocate", p, rc);
    MPI_Status st;
    for (int i = 0; i < 4; i++) {
        MPI_Offset off = (MPI_Offset)(i * n + rank) * 256;
        rc = MPI_File_write_at(fh, off, buf, 256, MPI_BYTE, &st);
        IO(", off=%lld, size=256, typesize=1, count=256", "MPI_File_write_at", p, (long long)off, rc);
    }
    MPI_Offset off = (MPI_Offset)rank * 1024 + 8192;
    rc = MPI_File_write_at_all(fh, off, buf, 256, MPI_INT, &st);
    IO(", off=%lld, size=1024, typesize=4, count=256", "MPI_File_write_at_all", p, (long long)off, rc);
    rc = MPI_File_read_at_all(fh, off, buf, 256, MPI_INT, &st);
    IO(", off=%lld, size=1024, typesize=4, count=256", "MPI_File_read_at_all", p, (long long)off, rc);
    rc = MPI_File_read_at(fh, 0, buf, 16, MPI_DOUBLE, &st);
    IO(", off=0, size=128, typesize=8, count=16", "MPI_File_read_at", p, rc);
    rc = MPI_File_seek(fh, (MPI_Offset)rank * 100, MPI_SEEK_SET);
    IO(", off=%d, whence=%d", "MPI_File_seek", p, rank * 100, MPI_SEEK_SET, rc);
    rc = MPI_File_write(fh, buf, 10, MPI_CHAR, &st);
    IO(", size=10, typesize=1, count=10", "MPI_File_write", p, rc);
    rc = MPI_File_read(fh, buf, 10, MPI_CHAR, &st);
    IO(", size=10, typesize=1, count=10", "MPI_File_read", p, rc);
    rc = MPI_File_write_all(fh, buf, 8, MPI_INT, &st);
    IO(", size=32, typesize=4, count=8", "MPI_File_write_all", p, rc);
    rc = MPI_File_read_all(fh, buf, 8, MPI_INT, &st);
    IO(", size=32, typesize=4, count=8", "MPI_File_read_all", p, rc);
    MPI_Request rq;
    rc = MPI_File_iwrite_at(fh, 32768 + rank * 64, buf, 64, MPI_BYTE, &rq);
    IO(", off=%d, size=64, typesize=1, count=64", "MPI_File_iwrite_at", p, 32768 + rank * 64, rc);
    rc = MPI_Wait(&rq, &st);
    L("MPI_Wait(requests=1) = %d", rc);
    rc = MPI_File_iread_at(fh, 32768 + rank * 64, buf, 64, MPI_BYTE, &rq);
    IO(", off=%d, size=64, typesize=1, count=64", "MPI_File_iread_at", p, 32768 + rank * 64, rc);
    rc = MPI_Wait(&rq, &st);
    L("MPI_Wait(requests=1) = %d", rc);
    rc = MPI_File_iwrite(fh, buf, 4, MPI_BYTE, &rq);
    IO(", size=4, typesize=1, count=4", "MPI_File_iwrite", p, rc);
    rc = MPI_Wait(&rq, &st);
    L("MPI_Wait(requests=1) = %d", rc);
    rc = MPI_File_write_at_all_begin(fh, 40000 + rank * 32, buf, 32, MPI_BYTE);
    IO(", off=%d, size=32, typesize=1, count=32", "MPI_File_write_at_all_begin", p, 40000 + rank * 32, rc);
    rc = MPI_File_write_at_all_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_write_at_all_end", p, rc);
    rc = MPI_File_read_all_begin(fh, buf, 16, MPI_BYTE);
    IO(", size=16, typesize=1, count=16", "MPI_File_read_all_begin", p, rc);
    rc = MPI_File_read_all_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_read_all_end", p, rc);
    rc = MPI_File_write_shared(fh, buf, 8, MPI_BYTE, &st);
    IO(", size=8, typesize=1, count=8", "MPI_File_write_shared", p, rc);
    rc = MPI_File_write_ordered(fh, buf, 8, MPI_BYTE, &st);
    IO(", size=8, typesize=1, count=8", "MPI_File_write_ordered", p, rc);
    rc = MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    IO(", off=0, whence=%d", "MPI_File_seek_shared", p, MPI_SEEK_SET, rc);
    rc = MPI_File_read_shared(fh, buf, 4, MPI_BYTE, &st);
    IO(", size=4, typesize=1, count=4", "MPI_File_read_shared", p, rc);
    rc = MPI_File_read_ordered(fh, buf, 2, MPI_SHORT, &st);
    IO(", size=4, typesize=2, count=2", "MPI_File_read_ordered", p, rc);
    /* the remaining non-blocking variants, completed together by MPI_Waitall */
    MPI_Request rv[8];
    MPI_Status sv[8];
    MPI_Offset base = 49152 + (MPI_Offset)rank * 512;
    rc = MPI_File_iwrite_at_all(fh, base, buf, 64, MPI_BYTE, &rv[0]);
    IO(", off=%lld, size=64, typesize=1, count=64", "MPI_File_iwrite_at_all", p, (long long)base, rc);
    rc = MPI_Waitall(1, rv, sv);
    L("MPI_Waitall(requests=1) = %d", rc);
    rc = MPI_File_iread_at_all(fh, base, buf, 64, MPI_BYTE, &rv[0]);
    IO(", off=%lld, size=64, typesize=1, count=64", "MPI_File_iread_at_all", p, (long long)base, rc);
    rc = MPI_File_iread(fh, buf + 1024, 8, MPI_BYTE, &rv[1]);
    IO(", size=8, typesize=1, count=8", "MPI_File_iread", p, rc);
    rc = MPI_Waitall(2, rv, sv);
    L("MPI_Waitall(requests=2) = %d", rc);
    rc = MPI_File_iwrite_all(fh, buf, 16, MPI_BYTE, &rv[0]);
    IO(", size=16, typesize=1, count=16", "MPI_File_iwrite_all", p, rc);
    rc = MPI_Wait(&rv[0], &st);
    L("MPI_Wait(requests=1) = %d", rc);
    rc = MPI_File_iread_all(fh, buf, 16, MPI_BYTE, &rv[0]);
    IO(", size=16, typesize=1, count=16", "MPI_File_iread_all", p, rc);
    rc = MPI_Wait(&rv[0], &st);
    L("MPI_Wait(requests=1) = %d", rc);
    rc = MPI_File_iwrite_shared(fh, buf, 8, MPI_BYTE, &rv[0]);
    IO(", size=8, typesize=1, count=8", "MPI_File_iwrite_shared", p, rc);
    rc = MPI_File_iread_shared(fh, buf + 2048, 8, MPI_BYTE, &rv[1]);
    IO(", size=8, typesize=1, count=8", "MPI_File_iread_shared", p, rc);
    rc = MPI_Waitall(2, rv, sv);
    L("MPI_Waitall(requests=2) = %d", rc);
    /* the Test family and Waitany/Waitsome on I/O requests (logged: completed, pending I/O requests) */
    int flag = 0, idx = 0, oc = 0, idxs[8];
    rc = MPI_File_iwrite_at(fh, base + 128, buf, 16, MPI_BYTE, &rv[0]);
    IO(", off=%lld, size=16, typesize=1, count=16", "MPI_File_iwrite_at", p, (long long)base + 128, rc);
    do {
        rc = MPI_Test(&rv[0], &flag, &st);
        L("MPI_Test(done=%d, requests=1) = %d", flag, rc);
    } while (!flag);
    for (int k = 0; k < 2; k++) {
        rc = MPI_File_iread_at(fh, base + 16 * k, buf + 16 * k, 16, MPI_BYTE, &rv[k]);
        IO(", off=%lld, size=16, typesize=1, count=16", "MPI_File_iread_at", p, (long long)base + 16 * k, rc);
    }
    do {
        rc = MPI_Testall(2, rv, &flag, sv);
        L("MPI_Testall(done=%d, requests=2) = %d", flag ? 2 : 0, rc);
    } while (!flag);
    for (int round = 0; round < 4; round++) { /* Waitany, Waitsome, Testany, Testsome */
        for (int k = 0; k < 2; k++) {
            rc = MPI_File_iread_at(fh, base + 16 * k, buf + 16 * k, 16, MPI_BYTE, &rv[k]);
            IO(", off=%lld, size=16, typesize=1, count=16", "MPI_File_iread_at", p, (long long)base + 16 * k, rc);
        }
        static const char *names[] = {"MPI_Waitany", "MPI_Waitsome", "MPI_Testany", "MPI_Testsome"};
        for (;;) {
            int pending = (rv[0] != MPI_REQUEST_NULL) + (rv[1] != MPI_REQUEST_NULL), done = 0;
            if (!pending)
                break;
            if (round == 0) {
                rc = MPI_Waitany(2, rv, &idx, &st);
                done = idx != MPI_UNDEFINED;
            } else if (round == 1) {
                rc = MPI_Waitsome(2, rv, &oc, idxs, sv);
                done = oc == MPI_UNDEFINED ? 0 : oc;
            } else if (round == 2) {
                rc = MPI_Testany(2, rv, &idx, &flag, &st);
                done = flag && idx != MPI_UNDEFINED;
            } else {
                rc = MPI_Testsome(2, rv, &oc, idxs, sv);
                done = oc == MPI_UNDEFINED ? 0 : oc;
            }
            L("%s(done=%d, requests=%d) = %d", names[round], done, pending, rc);
        }
    }
    /* the remaining split collectives */
    rc = MPI_File_write_all_begin(fh, buf, 12, MPI_BYTE);
    IO(", size=12, typesize=1, count=12", "MPI_File_write_all_begin", p, rc);
    rc = MPI_File_write_all_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_write_all_end", p, rc);
    rc = MPI_File_read_at_all_begin(fh, base, buf, 32, MPI_BYTE);
    IO(", off=%lld, size=32, typesize=1, count=32", "MPI_File_read_at_all_begin", p, (long long)base, rc);
    rc = MPI_File_read_at_all_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_read_at_all_end", p, rc);
    rc = MPI_File_write_ordered_begin(fh, buf, 6, MPI_BYTE);
    IO(", size=6, typesize=1, count=6", "MPI_File_write_ordered_begin", p, rc);
    rc = MPI_File_write_ordered_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_write_ordered_end", p, rc);
    rc = MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    IO(", off=0, whence=%d", "MPI_File_seek_shared", p, MPI_SEEK_SET, rc);
    rc = MPI_File_read_ordered_begin(fh, buf, 6, MPI_BYTE);
    IO(", size=6, typesize=1, count=6", "MPI_File_read_ordered_begin", p, rc);
    rc = MPI_File_read_ordered_end(fh, buf, &st);
    IO(", size=0, typesize=0, count=0", "MPI_File_read_ordered_end", p, rc);
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    IO(", disp=0, etype_size=1, filetype_size=1", "MPI_File_set_view", p, rc);
    rc = MPI_File_sync(fh);
    IO("", "MPI_File_sync", p, rc);
    rc = MPI_File_close(&fh);
    IO("", "MPI_File_close", p, rc);
    rc = MPI_Finalize();
    L("MPI_Finalize() = %d", rc);
    snprintf(path, sizeof path, "%s/log.%d", argv[1], rank);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    syscall(SYS_write, fd, logbuf, loglen);
    syscall(SYS_close, fd);
    return 0;
}
