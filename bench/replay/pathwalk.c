/* pathwalk: what naming a file by its whole path costs against naming it relative to an open
 * directory, per create. A program such as tar creates each file with openat(dirfd, "name"); an
 * on-the-fly replay opens the same file by its path below the replay's root, which the kernel
 * walks component by component on every call.
 *
 *     bench_replay_pathwalk DIR [FILES] [ROUNDS] [DEPTH]
 *
 * Makes DIR/c1/c2/.../cDEPTH (default depth 8: below /dev/shm, 10 folders from /, as many as in
 * the name a replay rooted in /dev/shm/a/r gives a file tar made in /dev/shm/a/x/src/d05), then every round creates and closes FILES files (default 20000)
 * in it twice, by whole path and by openat of the folder, in an order that alternates between
 * rounds, each pass on new names, removed after the round. Prints the median over the rounds
 * (default 7) of each, in microseconds per create and close, and their difference. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* one pass: FILES creates and closes, by whole path (rel = 0) or relative to dfd; -1 on error */
static double pass(const char *dir, int dfd, int files, int rel, int round)
{
    char p[8192];
    double t0 = now();
    for (int i = 0; i < files; i++) {
        int fd;
        int fl = O_CREAT | O_WRONLY | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
        if (rel) {
            snprintf(p, sizeof p, "r%d-%d-%d", rel, round, i);
            fd = openat(dfd, p, fl, 0644);
        } else {
            snprintf(p, sizeof p, "%s/a%d-%d", dir, round, i);
            fd = open(p, fl, 0644);
        }
        if (fd < 0) {
            fprintf(stderr, "pathwalk: cannot create '%s' in '%s': %s\n", p, dir, strerror(errno));
            return -1;
        }
        close(fd);
    }
    return (now() - t0) / files * 1e6;
}

static void clear(const char *dir, int dfd, int files, int round)
{
    char p[64];
    for (int i = 0; i < files; i++) {
        snprintf(p, sizeof p, "a%d-%d", round, i);
        unlinkat(dfd, p, 0);
        snprintf(p, sizeof p, "r1-%d-%d", round, i);
        unlinkat(dfd, p, 0);
    }
    (void)dir;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [FILES] [ROUNDS] [DEPTH]\n", argv[0]);
        return 2;
    }
    int files = argc > 2 ? atoi(argv[2]) : 20000, rounds = argc > 3 ? atoi(argv[3]) : 7;
    int depth = argc > 4 ? atoi(argv[4]) : 8;
    if (files < 1 || rounds < 1 || rounds > 1000 || depth < 0 || depth > 100) {
        fprintf(stderr, "pathwalk: FILES >= 1, ROUNDS 1..1000, DEPTH 0..100\n");
        return 2;
    }
    char dir[4096];
    size_t n = (size_t)snprintf(dir, sizeof dir, "%s", argv[1]);
    for (int k = 1; k <= depth && n < sizeof dir - 16; k++) {
        n += (size_t)snprintf(dir + n, sizeof dir - n, "/c%d", k);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
            fprintf(stderr, "pathwalk: cannot make '%s': %s\n", dir, strerror(errno));
            return 1;
        }
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        fprintf(stderr, "pathwalk: cannot open '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    double *abs_us = calloc((size_t)rounds, sizeof *abs_us), *rel_us = calloc((size_t)rounds, sizeof *rel_us);
    double *diff = calloc((size_t)rounds, sizeof *diff);
    if (!abs_us || !rel_us || !diff)
        return 1;
    for (int r = 0; r < rounds; r++) {
        int first_rel = r % 2;
        double a, b;
        if (first_rel) {
            b = pass(dir, dfd, files, 1, r);
            a = pass(dir, dfd, files, 0, r);
        } else {
            a = pass(dir, dfd, files, 0, r);
            b = pass(dir, dfd, files, 1, r);
        }
        clear(dir, dfd, files, r);
        if (a < 0 || b < 0)
            return 1;
        abs_us[r] = a;
        rel_us[r] = b;
        diff[r] = a - b;
    }
    printf("# bench_replay_pathwalk %s %d %d %d (folder depth %d below %s)\n", argv[1], files, rounds, depth, depth,
           argv[1]);
    printf("whole path %.2f us, openat %.2f us, difference %.2f us per create and close (medians of %d rounds)\n",
           median(abs_us, rounds), median(rel_us, rounds), median(diff, rounds), rounds);
    close(dfd);
    for (int k = depth; k >= 1; k--) { /* remove the folders made */
        char *slash = strrchr(dir, '/');
        rmdir(dir);
        if (slash)
            *slash = 0;
    }
    free(abs_us);
    free(rel_us);
    free(diff);
    return 0;
}
