/* Small real programs for tests/replay/test_replay_programs.sh:
 *   programs lines IN OUT    fgets(buf, 4096) over a text file, fprintf of each line to OUT
 *   programs fsync DIR N     N writes of 4 KiB to DIR/f, an fsync after each
 *   programs meta DIR N      an mdtest-like program: creates N empty files in DIR (open O_CREAT,
 *                            close), stats them, unlinks them; prints each phase's rate as
 *                            "create|stat|unlink OPS SECONDS OPS_PER_S"
 *   programs paced FILE N US writes N x 64 KiB to FILE, then reads them, spinning US microseconds
 *                            before each call (the program's own work per call); prints each
 *                            phase's rate, open to close, as "write|read BYTES SECONDS MIB_PER_S"
 *   programs swap D S [stdio] writes D/f1, sleeps S seconds, then creates, writes and removes
 *                            D/f2 (with open/write/unlink, or fopen/fwrite/remove): a replay of it
 *                            with --delays waits S seconds in between, while its folder is swapped */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int meta(const char *dir, long n)
{
    char p[4096];
    struct stat st;
    const char *names[3] = {"create", "stat", "unlink"};
    double t[4];
    for (int phase = 0; phase < 3; phase++) {
        t[phase] = now();
        for (long i = 0; i < n; i++) {
            snprintf(p, sizeof p, "%s/f.%ld", dir, i);
            if (phase == 0) {
                int fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0644);
                if (fd < 0 || close(fd) != 0)
                    return 1;
            } else if (phase == 1 ? stat(p, &st) != 0 : unlink(p) != 0) {
                return 1;
            }
        }
        t[phase + 1] = now();
    }
    for (int phase = 0; phase < 3; phase++)
        printf("%s %ld %.6f %.0f\n", names[phase], n, t[phase + 1] - t[phase], (double)n / (t[phase + 1] - t[phase]));
    return 0;
}

static void spin(double s)
{
    for (double end = now() + s; now() < end;)
        ;
}

static int paced(const char *path, long n, double us)
{
    static char b[65536];
    memset(b, 'p', sizeof b);
    const char *names[2] = {"write", "read"};
    double t[2];
    for (int phase = 0; phase < 2; phase++) {
        double t0 = now();
        int fd = phase ? open(path, O_RDONLY) : open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0)
            return 1;
        for (long i = 0; i < n; i++) {
            spin(us * 1e-6);
            if ((phase ? read(fd, b, sizeof b) : write(fd, b, sizeof b)) != (ssize_t)sizeof b)
                return 1;
        }
        if (close(fd) != 0)
            return 1;
        t[phase] = now() - t0;
    }
    for (int phase = 0; phase < 2; phase++)
        printf("%s %ld %.6f %.3f\n", names[phase], n * 65536, t[phase], (double)n * 65536 / 1048576 / t[phase]);
    return 0;
}

static int swap(const char *d, double secs, int stdio)
{
    char p[4096];
    for (int k = 1; k <= 2; k++) {
        snprintf(p, sizeof p, "%s/f%d", d, k);
        if (stdio) {
            FILE *f = fopen(p, "w");
            if (!f || fwrite("replayed\n", 1, 9, f) != 9 || fclose(f) != 0)
                return 1;
        } else {
            int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
            if (fd < 0 || write(fd, "replayed\n", 9) != 9 || close(fd) != 0)
                return 1;
        }
        if (k == 1) {
            struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    return stdio ? remove(p) != 0 : unlink(p) != 0;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "swap"))
        return swap(argv[2], atof(argv[3]), argc == 5 && !strcmp(argv[4], "stdio"));
    if (argc == 5 && !strcmp(argv[1], "paced"))
        return paced(argv[2], atol(argv[3]), atof(argv[4]));
    if (argc == 4 && !strcmp(argv[1], "meta"))
        return meta(argv[2], atol(argv[3]));
    if (argc == 4 && !strcmp(argv[1], "lines")) {
        FILE *in = fopen(argv[2], "r"), *out = fopen(argv[3], "w");
        if (!in || !out)
            return 1;
        char buf[4096];
        long n = 0;
        while (fgets(buf, sizeof buf, in))
            fprintf(out, "%ld %s", ++n, buf);
        fclose(in);
        return fclose(out) != 0;
    }
    if (argc == 4 && !strcmp(argv[1], "fsync")) {
        char p[4096];
        snprintf(p, sizeof p, "%s/f", argv[2]);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0)
            return 1;
        char b[4096];
        memset(b, 'f', sizeof b);
        for (int i = 0, n = atoi(argv[3]); i < n; i++)
            if (write(fd, b, sizeof b) != (ssize_t)sizeof b || fsync(fd) != 0)
                return 1;
        return close(fd) != 0;
    }
    return 2;
}
