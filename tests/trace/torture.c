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
 *   torture dup2-top DIR         raises its limit on open files by 64 (the hard limit allowing),
 *                                then dup2 of a file of its own onto the 20 numbers below the old
 *                                limit and the 20 from it up
 *   torture signals DIR          prints the disposition of SIGINT, SIGTERM, SIGSEGV and SIGHUP as
 *                                sigaction and signal report them, sets its own SIGINT handler,
 *                                raises SIGINT and prints that the handler ran
 *   torture exec-FORM DIR        writes, then replaces itself through execl, execlp, execle,
 *                                execvpe or fexecve (FORM) with /bin/sh printing "after exec"
 *   torture fds DIR              opens DIR/f.N until the limit on open files says no; prints
 *                                how many it opened and the first and last descriptor
 *   torture many DIR             200000 writes (a spill of 12 MiB)
 *   torture _Exit DIR            1000 writes, then _Exit(3)
 *   torture quick_exit DIR       1000 writes, an at_quick_exit handler that
 *                                writes too, then quick_exit(4)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
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

static volatile int handled;
static void on_int(int sig)
{
    (void)sig;
    handled++;
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
    if (!strcmp(m, "dup2-top")) {
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        rlim_t was = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > was + 64 ? was + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        char p[4200];
        snprintf(p, sizeof p, "%s/mine.dat", dir);
        int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
        for (rlim_t t = was > 40 ? was - 20 : 20; t < was + 20 && t < rl.rlim_cur; t++)
            dup2(fd, (int)t);
        writes(20000);
        struct stat st;
        fstat(fd, &st);
        printf("mine.dat holds %lld bytes\n", (long long)st.st_size);
        return 0;
    }
    if (!strcmp(m, "signals")) {
        int sigs[] = {SIGINT, SIGTERM, SIGSEGV, SIGHUP};
        for (int i = 0; i < 4; i++) {
            struct sigaction sa;
            sigaction(sigs[i], NULL, &sa);
            void (*h)(int) = signal(sigs[i], SIG_DFL);
            printf("signal %d: sigaction %s, signal %s\n", sigs[i],
                   sa.sa_handler == SIG_DFL ? "default" : sa.sa_handler == SIG_IGN ? "ignored" : "a handler",
                   h == SIG_DFL ? "default" : h == SIG_IGN ? "ignored" : "a handler");
        }
        signal(SIGINT, on_int);
        raise(SIGINT);
        struct sigaction now;
        sigaction(SIGINT, NULL, &now);
        printf("handler ran %d times; SIGINT now %s\n", handled, now.sa_handler == on_int ? "the program's" : "another");
        return 0;
    }
    if (!strncmp(m, "exec-", 5)) {
        fflush(stdout);
        char *const argv2[] = {"sh", "-c", "echo after exec", NULL};
        const char *form = m + 5;
        if (!strcmp(form, "execl"))
            execl("/bin/sh", "sh", "-c", "echo after exec", (char *)NULL);
        else if (!strcmp(form, "execlp"))
            execlp("sh", "sh", "-c", "echo after exec", (char *)NULL);
        else if (!strcmp(form, "execle"))
            execle("/bin/sh", "sh", "-c", "echo after exec", (char *)NULL, environ);
        else if (!strcmp(form, "execvpe"))
            execvpe("sh", argv2, environ);
        else if (!strcmp(form, "fexecve")) {
            int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
            if (fd >= 0)
                fexecve(fd, argv2, environ);
        }
        return 1;
    }
    if (!strcmp(m, "fds")) {
        char p[4200];
        int n = 0, first = -1, last = -1;
        for (;;) {
            snprintf(p, sizeof p, "%s/f.%d", dir, n);
            int fd = open(p, O_CREAT | O_WRONLY, 0644);
            if (fd < 0)
                break;
            if (first < 0)
                first = fd;
            last = fd;
            n++;
        }
        printf("opened %d: descriptors %d to %d\n", n, first, last);
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
