/* calltime: an LD_PRELOAD library that times a program's transfer calls of one
 * size, with as little of its own work as a timer can have (two clock reads and
 * three additions a call), so that a program and a replay of it can be compared
 * call by call without the tracer.
 *
 * It wraps read, write, pread, pwrite (and their 64-bit names). A call whose
 * byte count is CALLTIME_BYTES (default 4096) adds its duration to its kind's
 * call total (reads, writes), and the time from the previous call of its kind's
 * end to its start to the kind's gap total unless that is 1 ms or more (a
 * pause, not the program's time per call). At exit (exit, _exit or _Exit), a
 * process that timed at least 1000 calls of a kind appends one line per such
 * kind to the file CALLTIME_OUT (default: standard error):
 *
 *     pid read|write calls call_ns_mean gap_ns_mean
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAUSE_NS 1000000ull

static size_t want = 4096;
struct kind {
    uint64_t ncalls, ngaps, call_ns, gap_ns, last_end;
};
static struct kind kinds[2]; /* read, write */
static int reported;

static uint64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        abort();
    return p;
}

__attribute__((constructor)) static void init(void)
{
    const char *s = getenv("CALLTIME_BYTES");
    if (s && *s)
        want = (size_t)strtoull(s, NULL, 10);
}

static void report(void)
{
    if (reported)
        return;
    reported = 1;
    char line[320];
    int n = 0;
    for (int k = 0; k < 2; k++) {
        const struct kind *x = &kinds[k];
        if (x->ncalls >= 1000)
            n += snprintf(line + n, sizeof line - (size_t)n, "%ld %s %llu %.1f %.1f\n", (long)getpid(),
                          k ? "write" : "read", (unsigned long long)x->ncalls, (double)x->call_ns / (double)x->ncalls,
                          x->ngaps ? (double)x->gap_ns / (double)x->ngaps : 0.0);
    }
    if (!n)
        return;
    const char *out = getenv("CALLTIME_OUT");
    int fd = out && *out ? open(out, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;
    if (fd < 0)
        return;
    ssize_t (*w)(int, const void *, size_t) = next("write");
    if (w(fd, line, (size_t)n) < 0) {
        /* nothing to do: the figure is lost, the program is not affected */
    }
    if (fd != 2)
        close(fd);
}

__attribute__((destructor)) static void fini(void)
{
    report();
}

static inline void account(int k, size_t n, uint64_t a, uint64_t z)
{
    if (n != want)
        return;
    struct kind *x = &kinds[k];
    if (x->last_end && a >= x->last_end && a - x->last_end < PAUSE_NS) {
        x->gap_ns += a - x->last_end;
        x->ngaps++;
    }
    x->ncalls++;
    x->call_ns += z - a;
    x->last_end = z;
}

#define TIMED(k, ret, name, params, args, n)                                                                           \
    ret name params                                                                                                    \
    {                                                                                                                  \
        static ret(*real) params;                                                                                      \
        if (!real)                                                                                                     \
            real = (ret(*) params)next(#name);                                                                         \
        uint64_t a = now();                                                                                            \
        ret r = real args;                                                                                             \
        account(k, n, a, now());                                                                                       \
        return r;                                                                                                      \
    }

TIMED(0, ssize_t, read, (int fd, void *b, size_t n), (fd, b, n), n)
TIMED(1, ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), n)
TIMED(0, ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o), n)
TIMED(1, ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), n)
TIMED(0, ssize_t, pread64, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o), n)
TIMED(1, ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o), n)

void exit(int status)
{
    report();
    void (*real)(int) = (void (*)(int))next("exit");
    real(status);
    __builtin_unreachable();
}

void _exit(int status)
{
    report();
    void (*real)(int) = (void (*)(int))next("_exit");
    real(status);
    __builtin_unreachable();
}

void _Exit(int status)
{
    report();
    void (*real)(int) = (void (*)(int))next("_Exit");
    real(status);
    __builtin_unreachable();
}
