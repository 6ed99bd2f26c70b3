/*
 * Buffer alignment and the kernel's copy (docs/REPLAY-CONFIG.md, fidelity):
 * one process writes a file of COUNT x SIZE bytes, then times ROUNDS rounds;
 * each round reads and rewrites the whole file with pread/pwrite from a buffer
 * that starts OFFSET bytes after a page start, for every OFFSET in turn (the
 * order rotating from round to round). Prints the median and best bandwidth
 * per offset and the median ratio to offset 0. Only the buffer's place in its
 * page changes between the variants.
 *
 *   bench_replay_bufalign FILE [SIZE=1048576] [COUNT=32] [ROUNDS=301] [OFFSETS=0,16,64,2048]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXOFF 16

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median and minimum of v[0..n), through the scratch array s (v keeps its order) */
static double median(const double *v, int n, double *s, double *min)
{
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp);
    if (min)
        *min = s[0];
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_replay_bufalign FILE [SIZE] [COUNT] [ROUNDS] [OFFSETS]\n");
        return 2;
    }
    size_t sz = argc > 2 ? (size_t)atol(argv[2]) : 1048576;
    int n = argc > 3 ? atoi(argv[3]) : 32, rounds = argc > 4 ? atoi(argv[4]) : 301;
    int offs[MAXOFF], no = 0, rc = 1;
    char *list = strdup(argc > 5 ? argv[5] : "0,16,64,2048");
    for (char *t = strtok(list, ","); t && no < MAXOFF; t = strtok(NULL, ","))
        offs[no++] = atoi(t) % 4096;
    free(list);
    void *blk = NULL;
    double *tr = calloc((size_t)(no * rounds), sizeof *tr), *tw = calloc((size_t)(no * rounds), sizeof *tw);
    if (sz < 1 || n < 1 || rounds < 1 || no < 1 || !tr || !tw || posix_memalign(&blk, 4096, sz + 4096)) {
        fprintf(stderr, "bad arguments or out of memory\n");
        goto out;
    }
    memset(blk, 7, sz + 4096);
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        goto out;
    }
    for (int i = 0; i < n; i++)
        if (pwrite(fd, blk, sz, (off_t)i * (off_t)sz) != (ssize_t)sz)
            goto io;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < no; k++) {
            int j = (k + r) % no;
            char *b = (char *)blk + offs[j];
            double t0 = now();
            for (int i = 0; i < n; i++)
                if (pread(fd, b, sz, (off_t)i * (off_t)sz) != (ssize_t)sz)
                    goto io;
            tr[j * rounds + r] = now() - t0;
            t0 = now();
            for (int i = 0; i < n; i++)
                if (pwrite(fd, b, sz, (off_t)i * (off_t)sz) != (ssize_t)sz)
                    goto io;
            tw[j * rounds + r] = now() - t0;
        }
    double *rr = calloc((size_t)rounds, sizeof *rr), *rw = calloc((size_t)rounds, sizeof *rw),
           *sc = calloc((size_t)rounds, sizeof *sc);
    if (!rr || !rw || !sc) {
        free(rr);
        free(rw);
        free(sc);
        goto io;
    }
    double mb = (double)n * (double)sz / 1e6;
    printf("%zu-byte transfers x %d, %d interleaved rounds (MB/s; ratio: median over rounds of bandwidth / offset %d's)\n",
           sz, n, rounds, offs[0]);
    for (int k = 0; k < no; k++) {
        for (int r = 0; r < rounds; r++) {
            rr[r] = tr[r] / tr[k * rounds + r];
            rw[r] = tw[r] / tw[k * rounds + r];
        }
        double br, bw;
        double qr = median(rr, rounds, sc, NULL), qw = median(rw, rounds, sc, NULL);
        double mr = median(tr + k * rounds, rounds, sc, &br), mw = median(tw + k * rounds, rounds, sc, &bw);
        printf("offset %4d: read median %6.0f best %6.0f ratio %.3f | write median %6.0f best %6.0f ratio %.3f\n",
               offs[k], mb / mr, mb / br, qr, mb / mw, mb / bw, qw);
    }
    free(rr);
    free(rw);
    free(sc);
    rc = 0;
io:
    if (rc)
        perror("pread/pwrite");
    close(fd);
    unlink(argv[1]);
out:
    free(blk);
    free(tr);
    free(tw);
    return rc;
}
