/* One call kind per run, on DIR/f (a file) and DIR/d (a directory) that exist
 * before the run, for tests/replay/test_replay_safety.sh: its trace, replayed
 * into a root where those paths already exist, must leave them untouched.
 *   kinds MODE DIR     MODE: trunc creat ftruncate fallocate punch fopen-w fopen-wplus fopen-a
 *                      append pwrite write rename-from rename-to unlink rmdir
 *                      mkdir-in mpiio-write mpiio-delete (the last two need MPI) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef KINDS_MPI
#include <mpi.h>
#endif

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *m = argv[1];
    char f[4096], d[4096], g[4096];
    snprintf(f, sizeof f, "%s/f", argv[2]);
    snprintf(d, sizeof d, "%s/d", argv[2]);
    snprintf(g, sizeof g, "%s/g", argv[2]);
    char b[4096];
    memset(b, 'k', sizeof b);
    int fd = -1, rc = 0;
    FILE *fp = NULL;
    if (!strcmp(m, "trunc")) {
        fd = open(f, O_WRONLY | O_TRUNC);
        rc = fd < 0 || write(fd, b, 100) != 100;
    } else if (!strcmp(m, "creat")) {
        fd = creat(f, 0644);
        rc = fd < 0 || write(fd, b, 100) != 100;
    } else if (!strcmp(m, "ftruncate")) {
        fd = open(f, O_RDWR);
        rc = fd < 0 || ftruncate(fd, 10) != 0;
    } else if (!strcmp(m, "fallocate")) { /* grows the file: 100 bytes -> 8 KiB */
        fd = open(f, O_RDWR);
        rc = fd < 0 || fallocate(fd, 0, 0, 8192) != 0;
    } else if (!strcmp(m, "punch")) { /* zeroes bytes 0-63 in place, size unchanged */
        fd = open(f, O_RDWR);
        rc = fd < 0 || fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 64) != 0;
    } else if (!strcmp(m, "fopen-w") || !strcmp(m, "fopen-wplus") || !strcmp(m, "fopen-a")) {
        fp = fopen(f, !strcmp(m, "fopen-w") ? "w" : !strcmp(m, "fopen-a") ? "a" : "w+");
        rc = !fp || fwrite(b, 1, 100, fp) != 100;
    } else if (!strcmp(m, "append")) {
        fd = open(f, O_WRONLY | O_APPEND);
        rc = fd < 0 || write(fd, b, 100) != 100;
    } else if (!strcmp(m, "pwrite")) {
        fd = open(f, O_RDWR);
        rc = fd < 0 || pwrite(fd, b, 100, 50) != 100;
    } else if (!strcmp(m, "write")) {
        fd = open(f, O_WRONLY);
        rc = fd < 0 || write(fd, b, 4096) != 4096;
    } else if (!strcmp(m, "rename-from")) {
        rc = rename(f, g) != 0;
    } else if (!strcmp(m, "rename-to")) {
        fd = open(g, O_CREAT | O_WRONLY | O_EXCL, 0644);
        rc = fd < 0 || write(fd, b, 10) != 10 || close(fd) != 0 || rename(g, f) != 0;
        fd = -1;
    } else if (!strcmp(m, "unlink")) {
        rc = unlink(f) != 0;
    } else if (!strcmp(m, "rmdir")) {
        rc = rmdir(d) != 0;
    } else if (!strcmp(m, "mkdir-in")) {
        char n[4200];
        snprintf(n, sizeof n, "%s/new", d);
        rc = mkdir(n, 0755) != 0;
#ifdef KINDS_MPI
    } else if (!strcmp(m, "mpiio-write") || !strcmp(m, "mpiio-delete")) {
        MPI_Init(&argc, &argv);
        MPI_File fh;
        MPI_Status st;
        int amode = MPI_MODE_RDWR | (!strcmp(m, "mpiio-delete") ? MPI_MODE_DELETE_ON_CLOSE : 0);
        rc = MPI_File_open(MPI_COMM_WORLD, f, amode, MPI_INFO_NULL, &fh) != MPI_SUCCESS;
        if (!rc && !strcmp(m, "mpiio-write"))
            rc = MPI_File_write_at(fh, 0, b, 100, MPI_BYTE, &st) != MPI_SUCCESS;
        if (!rc)
            MPI_File_close(&fh);
        MPI_Finalize();
#endif
    } else {
        return 2;
    }
    if (fd >= 0)
        close(fd);
    if (fp)
        fclose(fp);
    return rc;
}
