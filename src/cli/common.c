#define _GNU_SOURCE
#include "cli.h"
#include "util/fs.h"
#include "opt.h"

#include "iolens/darshan.h"
#include "util/proc.h"
#include "iolens/iolens.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("iolens: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

size_t cli_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

void cli_warn(const char *fmt, ...)
{
    if (cli_verbosity < 0) /* -q */
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("iolens: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_lib_error(void)
{
    const char *m = iolens_error_last();
    cli_error("%s", m[0] ? m : iolens_error_name(iolens_error_last_code()));
}

void cli_warn_cb(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

int cli_color_value(const char *when, int *mode)
{
    const char *w = when ? when : "always";
    if (!strcmp(w, "always") || !strcmp(w, "yes") || !strcmp(w, "force"))
        *mode = CLI_COLOR_ALWAYS;
    else if (!strcmp(w, "never") || !strcmp(w, "no") || !strcmp(w, "none"))
        *mode = CLI_COLOR_NEVER;
    else if (!strcmp(w, "auto") || !strcmp(w, "tty") || !strcmp(w, "if-tty"))
        *mode = CLI_COLOR_AUTO;
    else {
        cli_error("--color wants auto, always or never, not '%s'", w);
        return -1;
    }
    return 0;
}

static int color_on;

void cli_color_set(int mode)
{
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    color_on = mode == CLI_COLOR_ALWAYS ||
               (mode == CLI_COLOR_AUTO && !(nc && *nc) && !(term && !strcmp(term, "dumb")) && isatty(STDOUT_FILENO));
}

int cli_color_enabled(void) { return color_on; }

char **cli_find_logs(int n, char **paths, size_t *nout)
{
    char **v = NULL;
    if (iolens_darshan_find_logs(paths, (size_t)n, 0, &v, nout, cli_warn_cb, NULL) < 0) {
        cli_lib_error();
        return NULL;
    }
    return v;
}

const char *cli_sgr(const char *code)
{
    static char buf[4][16];
    static int next;
    if (!color_on)
        return "";
    if (!code)
        return "\033[0m";
    char *b = buf[next++ & 3];
    snprintf(b, sizeof buf[0], "\033[%sm", code);
    return b;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress_draw(cli_progress *p)
{
    const int width = 30;
    int fill = p->total ? (int)((double)p->done / (double)p->total * width) : 0;
    if (fill > width)
        fill = width;
    fprintf(stderr, "\r%s [", p->label);
    for (int i = 0; i < width; i++)
        fputc(i < fill ? '#' : ' ', stderr);
    fprintf(stderr, "] %lu/%lu", p->done, p->total);
    double el = now_sec() - p->start;
    if (el >= 1 && p->done > 0 && p->done <= p->total) {
        double rate = (double)p->done / el, left = (double)(p->total - p->done) / rate;
        unsigned long s = (unsigned long)(left + 0.5);
        fprintf(stderr, "  %.1f/s  %lu:%02lu:%02lu left", rate, s / 3600, s / 60 % 60, s % 60);
    }
    fputs("\033[K", stderr); /* clears what a longer line left */
    fflush(stderr);
}

void cli_progress_cb(void *ctx, size_t done, size_t total)
{
    cli_progress *p = ctx;
    if (!p->start)
        cli_progress_init(p, p->label ? p->label : "", (unsigned long)total);
    if (done > p->done)
        cli_progress_step(p, (unsigned long)(done - p->done));
}

volatile sig_atomic_t cli_stop;
static struct sigaction stop_old_int, stop_old_term;

static void on_stop(int sig)
{
    cli_stop = sig;
}

void cli_catch_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    cli_stop = 0;
    sigaction(SIGINT, &sa, &stop_old_int);
    sigaction(SIGTERM, &sa, &stop_old_term);
}

void cli_release_stop(void)
{
    sigaction(SIGINT, &stop_old_int, NULL);
    sigaction(SIGTERM, &stop_old_term, NULL);
}

void cli_progress_init(cli_progress *p, const char *label, unsigned long total)
{
    p->label = label;
    p->total = total;
    p->done = 0;
    p->enabled = isatty(STDERR_FILENO) && cli_verbosity >= 0;
    p->last_draw = 0;
    p->start = now_sec();
    if (p->enabled)
        progress_draw(p);
}

void cli_progress_step(cli_progress *p, unsigned long n)
{
    p->done += n;
    if (!p->enabled)
        return;
    double t = now_sec();
    if (t - p->last_draw >= 0.1 || p->done >= p->total) {
        p->last_draw = t;
        progress_draw(p);
    }
}

void cli_progress_end(cli_progress *p)
{
    if (!p->enabled)
        return;
    progress_draw(p);
    fputc('\n', stderr);
}


/* -o FILE: standard output goes to a temporary file beside FILE, renamed over it when the command
 * succeeds (cli_output_finish) and removed when it fails: FILE is never left empty or half
 * written by a command that failed (a report of a log that cannot be read keeps the page there). */
static iol_atomic cli_out;

int cli_output_to(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    fflush(stdout);
    cli_output_finish(1); /* (a command's second output: the first one is whole) */
    int fd = iol_atomic_open(&cli_out, path);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        iol_atomic_commit(&cli_out, 0);
        cli_error("cannot write '%s': %s", path, strerror(err));
        return -1;
    }
    close(fd);
    clearerr(stdout);
    return 0;
}

int cli_output_finish(int ok)
{
    if (!cli_out.tmp[0])
        return 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    if (ok && bad)
        cli_error("cannot write '%s': %s", cli_out.path, strerror(errno ? errno : EIO));
    if (iol_atomic_commit(&cli_out, ok && !bad) < 0) {
        cli_error("cannot write '%s': %s", cli_out.path, strerror(errno));
        return -1;
    }
    return ok && bad ? -1 : 0;
}

int cli_find_program(const char *cmd, char *out, size_t n)
{
    if (strchr(cmd, '/')) {
        snprintf(out, n, "%s", cmd);
        return 0;
    }
    for (const char *pe = getenv("PATH"); pe && *pe;) {
        const char *c = strchr(pe, ':');
        size_t l = c ? (size_t)(c - pe) : strlen(pe);
        if ((size_t)snprintf(out, n, "%.*s/%s", (int)l, l ? pe : ".", cmd) < n && !access(out, X_OK))
            return 0;
        pe = c ? c + 1 : NULL;
    }
    return -1;
}

int cli_mpirun_prefix(const char **argv, const char *mpirun, const char *np)
{
    return iol_mpirun_prefix(argv, mpirun, np);
}

int cli_self_exe(char *out, size_t n) { return iol_self_exe(out, n); }

int cli_launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE");
}

int cli_sibling_program(const char *name, char *out, size_t n)
{
    char *slash;
    if (cli_self_exe(out, n) < 0 || !(slash = strrchr(out, '/')) || (size_t)(slash + 1 - out) + strlen(name) >= n)
        return -1;
    strcpy(slash + 1, name);
    return 0;
}

int cli_spawn_group(const char *const *argv, const char *out, const char *err, const char *who)
{
    int pid = iol_spawn_group(argv, out, err, who);
    if (pid < 0) {
        cli_lib_error();
        return -1;
    }
    return pid;
}
