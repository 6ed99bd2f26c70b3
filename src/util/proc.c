/* Starting other programs (util/proc.h). */
#define _GNU_SOURCE
#include "util/proc.h"

#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

int iol_mpirun_prefix(const char **argv, const char *mpirun, const char *np)
{
    int a = 0;
    argv[a++] = mpirun;
    argv[a++] = "--oversubscribe";
    if (geteuid() == 0)
        argv[a++] = "--allow-run-as-root";
    argv[a++] = "-np";
    argv[a++] = np;
    return a;
}

int iol_self_exe(char *out, size_t n)
{
    if (n < 2)
        return -1;
    /* the system call itself: under a tracer (iolens trace -- iolens replay ...) the front end,
     * which only finds its own folder and hands the command to iolens-full, makes no call of
     * its own and is no process of the trace */
    ssize_t l = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", out, n - 1);
    if (l <= 0 || (size_t)l >= n - 1)
        return -1;
    out[l] = '\0';
    return 0;
}

int iol_spawn_group(const char *const *argv, const char *out, const char *err, const char *who)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return iol_err(IOLENS_EIO, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int fe = strcmp(out, err) ? open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : fo;
        int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fo < 0 || fe < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        execvp(argv[0], (char *const *)argv);
        dprintf(2, "iolens %s: cannot run '%s': %s\n", who, argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no window in which a signal to the group misses the child */
    return (int)pid;
}
