/*
 * Programs that do to their descriptors and exits what real programs do, for
 * the tracer's safety tests. Each prints what it observed; traced and
 * untraced runs must print the same and exit the same.
 *
 *   torture closefrom-memfd DIR  closefrom(3), then memfd_create until one is
 *                                descriptor 100, 20000 traced writes; prints
 *                                the memfd's size (0: nobody wrote into it)
 *   torture rawclose-memfd DIR   the same with a raw close_range syscall
 *   torture closefrom-pipe DIR   pipes until one end is 100; prints the bytes
 *                                waiting in the pipe (never blocks)
 *   torture dup2-spill DIR       dup2 of a file of its own onto 100 .. 120
 *   torture many DIR             200000 writes (a spill of 12 MiB)
 *   torture _Exit DIR            1000 writes, then _Exit(3)
 *   torture quick_exit DIR       1000 writes, an at_quick_exit handler that
 *                                writes too, then quick_exit(4)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char dir[4096];

static void writes(int n)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/w.dat", dir);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open");
        exit(1);
    }
    char b[64] = {0};
    for (int i = 0; i < n; i++)
        if (pwrite(fd, b, sizeof b, (off_t)i * 64) != (ssize_t)sizeof b)
            exit(1);
    close(fd);
}

static int memfd_at_100(void)
{
    int fd = -1;
    for (int i = 0; i < 200; i++) {
        fd = memfd_create("app", 0);
        if (fd < 0 || fd >= 100)
            break;
    }
    return fd;
}

static void on_quick(void)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/q.dat", dir);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, "handler\n", 8) != 8)
            _exit(9);
        close(fd);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[2]);
    const char *m = argv[1];
    writes(10);
    if (!strcmp(m, "closefrom-memfd") || !strcmp(m, "rawclose-memfd")) {
        if (!strcmp(m, "closefrom-memfd"))
            closefrom(3);
        else
            syscall(SYS_close_range, 3u, ~0u, 0);
        int fd = memfd_at_100();
        if (fd != 100) {
            printf("memfd at %d\n", fd);
            return 1;
        }
        writes(20000);
        struct stat st;
        fstat(fd, &st);
        printf("memfd %d holds %lld bytes\n", fd, (long long)st.st_size);
        return 0;
    }
    if (!strcmp(m, "closefrom-pipe")) {
        closefrom(3);
        int p[2] = {-1, -1}, rd = -1;
        for (int i = 0; i < 100; i++) {
            if (pipe(p))
                return 1;
            if (p[1] == 100 || p[0] == 100) {
                rd = p[0];
                break;
            }
        }
        if (rd < 0)
            return 1;
        writes(20000);
        int n = 0;
        ioctl(rd, FIONREAD, &n);
        printf("pipe holds %d bytes\n", n);
        return 0;
    }
    if (!strcmp(m, "dup2-spill")) {
        char p[4200];
        snprintf(p, sizeof p, "%s/mine.dat", dir);
        int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
        for (int t = 100; t <= 120; t++)
            dup2(fd, t);
        writes(20000);
        struct stat st;
        fstat(fd, &st);
        printf("mine.dat holds %lld bytes\n", (long long)st.st_size);
        return 0;
    }
    if (!strcmp(m, "many")) {
        writes(200000);
        printf("done\n");
        return 0;
    }
    if (!strcmp(m, "_Exit")) {
        writes(1000);
        fflush(stdout);
        _Exit(3);
    }
    if (!strcmp(m, "quick_exit")) {
        at_quick_exit(on_quick);
        writes(1000);
        fflush(stdout);
        quick_exit(4);
    }
    return 2;
}
