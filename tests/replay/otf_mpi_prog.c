/* MPI-IO and metadata workload of tests/replay/test_cli_replay_otf_mpi.sh:
 *   mpirun -np N otf_mpi_prog DIR [NCOLL]   (NCOLL collective writes per rank, default 3) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int ncoll = argc > 2 ? atoi(argv[2]) : 3;
    char p[4096], q[4096], buf[65536];
    memset(buf, 'm', sizeof buf);
    snprintf(p, sizeof p, "%s/shared.dat", argv[1]);
    MPI_File fh;
    MPI_Status st;
    MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int i = 0; i < ncoll; i++)
        MPI_File_write_at_all(fh, (MPI_Offset)(i * n + rank) * 65536, buf, 65536, MPI_BYTE, &st);
    MPI_File_write_at(fh, (MPI_Offset)(ncoll * n + rank) * 4096 + (1 << 24), buf, 4096, MPI_BYTE, &st);
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, (MPI_Offset)rank * 65536, buf, 65536, MPI_BYTE, &st);
    /* past the end: 100 of 4096 bytes (the file ends after the last rank's 4 KiB at 16 MiB) */
    MPI_File_read_at(fh, (MPI_Offset)(ncoll + 1) * n * 4096 + (1 << 24) - 100, buf, 4096, MPI_BYTE, &st);
    MPI_File_read_at_all(fh, (MPI_Offset)((n - 1 - rank) * 65536), buf, 32768, MPI_BYTE, &st);
    MPI_File_close(&fh);
    /* metadata: a directory per rank, a file created, stat-ed, renamed, removed */
    snprintf(p, sizeof p, "%s/dir.%d", argv[1], rank);
    mkdir(p, 0750);
    snprintf(p, sizeof p, "%s/dir.%d/a", argv[1], rank);
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    if (write(fd, buf, 100 + rank) < 0)
        return 1;
    close(fd);
    struct stat sb;
    stat(p, &sb);
    snprintf(q, sizeof q, "%s/dir.%d/b", argv[1], rank);
    rename(p, q);
    access(q, R_OK);
    unlink(q);
    snprintf(p, sizeof p, "%s/dir.%d", argv[1], rank);
    rmdir(p);
    MPI_Finalize();
    return 0;
}
