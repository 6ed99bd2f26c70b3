/* COUNT 64-byte pwrite calls to FILE; prints the loop's CPU time in seconds.
 * usage: bench_pwrite_loop COUNT FILE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (argc < 3) {
        fprintf(stderr, "usage: bench_pwrite_loop COUNT FILE\n");
        return 2;
    }
    long n = atol(argv[1]);
    int fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    char buf[64] = {0};
    double t0 = now();
    for (long i = 0; i < n; i++)
        if (pwrite(fd, buf, 64, (off_t)((i & 1023) * 64)) != 64)
            return 1;
    printf("%.6f\n", now() - t0);
    close(fd);
    unlink(argv[2]);
    return 0;
}
