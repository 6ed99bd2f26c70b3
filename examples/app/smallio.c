/*
 * smallio: a small program with two textbook I/O problems, the input of `scripts/main.sh`.
 * It writes an 8 MiB checkpoint in 4 KiB pieces with an fsync after every write (small transfers,
 * and a sync that makes each one wait for the disk), then reads it back in 4 KiB pieces.
 *
 *   smallio DIR [MIB]     writes DIR/checkpoint.dat (MIB MiB, default 8), reads it, removes it
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: smallio DIR [MIB]\n");
        return 2;
    }
    long mib = argc > 2 ? atol(argv[2]) : 8;
    if (mib < 1 || mib > 1024) {
        fprintf(stderr, "smallio: MIB must be 1 to 1024\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/checkpoint.dat", argv[1]);
    static char buf[4096];
    memset(buf, 'c', sizeof buf);
    long n = mib * 256;
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    for (long i = 0; i < n; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || fsync(fd) != 0) {
            perror(path);
            return 1;
        }
    if (close(fd) != 0)
        return 1;
    fd = open(path, O_RDONLY);
    if (fd < 0)
        return 1;
    long got = 0;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        got += r;
    close(fd);
    unlink(path);
    printf("smallio: wrote and read %ld bytes of %s\n", got, path);
    return got == n * 4096 ? 0 : 1;
}
