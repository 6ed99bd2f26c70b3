#define _GNU_SOURCE /* syncfs */
#include "util/fs.h"

#include <fcntl.h>
#include <time.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static void remove_below(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[PATH_MAX];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p)
            continue;
        struct stat st;
        if (!lstat(p, &st) && S_ISDIR(st.st_mode)) {
            if (depth < 64)
                remove_below(p, depth + 1);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
}

int iol_remove_tree(const char *dir)
{
    remove_below(dir, 0);
    if (rmdir(dir) && errno != ENOENT)
        return -1;
    return 0;
}

/* Dirty + Writeback of /proc/meminfo in KiB, or -1. */
static long dirty_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long total = 0, v;
    while (fgets(line, sizeof line, f))
        if ((sscanf(line, "Dirty: %ld kB", &v) == 1) || (sscanf(line, "Writeback: %ld kB", &v) == 1))
            total += v;
    fclose(f);
    return total;
}

double iol_settle_fs(const char *dir, double max_wait)
{
    struct timespec t0, t1, nap = {0, 10 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    syncfs(fd);
    close(fd);
    long prev = dirty_kib();
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (prev < 4096 || el >= max_wait)
            return el;
        nanosleep(&nap, NULL);
        long cur = dirty_kib();
        if (cur < 0 || cur >= prev)
            return el; /* not falling: other writers' pages, nothing of ours to wait for */
        prev = cur;
    }
}

int iol_drop_caches(void)
{
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, "3\n", 2);
    int e = errno;
    close(fd);
    errno = e;
    return n == 2 ? 0 : -1;
}

int iol_fs_type(const char *path, unsigned long *magic)
{
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return -1;
    *magic = (unsigned long)sf.f_type;
    return 0;
}

const char *iol_fs_type_name(unsigned long magic, char *buf, size_t n)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = {
        {0xEF53UL, "ext4"},       {0x01021994UL, "tmpfs"},  {0x58465342UL, "xfs"},    {0x9123683EUL, "btrfs"},
        {0x6969UL, "nfs"},        {0x0BD00BD0UL, "lustre"}, {0x47504653UL, "gpfs"},   {0x19830326UL, "beegfs"},
        {0x794C7630UL, "overlay"}, {0x2FC12FC1UL, "zfs"},   {0x65735546UL, "fuse"},   {0x858458F6UL, "ramfs"},
        {0xFF534D42UL, "cifs"},   {0x5346544EUL, "ntfs"},   {0x4D44UL, "vfat"},       {0x73717368UL, "squashfs"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].magic == magic)
            return known[i].name;
    snprintf(buf, n, "0x%lx", magic);
    return buf;
}

int iol_mkdir_p(const char *path)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

int iol_atomic_open(iol_atomic *a, const char *path)
{
    a->path[0] = a->tmp[0] = 0;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) { /* a device, a FIFO, /dev/stdout: in place */
        snprintf(a->path, sizeof a->path, "%s", path);
        return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    }
    char real[4096];
    const char *target = path;
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, real))
        target = real; /* the file the link names is the one replaced */
    if ((size_t)snprintf(a->path, sizeof a->path, "%s", target) >= sizeof a->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    const char *slash = strrchr(a->path, '/');
    int dn = slash ? (int)(slash - a->path) : 0;
    const char *base = slash ? slash + 1 : a->path;
    if ((size_t)snprintf(a->tmp, sizeof a->tmp, "%.*s%s.%s.iolens-XXXXXX", dn, a->path, slash ? "/" : "", base) >=
        sizeof a->tmp) {
        a->tmp[0] = 0;
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(a->tmp, O_CLOEXEC);
    if (fd < 0) {
        a->tmp[0] = 0;
        return -1;
    }
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~um)) != 0) {
        /* (the file stays 0600) */
    }
    return fd;
}

int iol_atomic_commit(iol_atomic *a, int ok)
{
    if (!a->tmp[0])
        return 0;
    int rc = 0;
    if (ok && rename(a->tmp, a->path) != 0) {
        int err = errno;
        unlink(a->tmp);
        errno = err;
        rc = -1;
    } else if (!ok) {
        unlink(a->tmp);
    }
    a->tmp[0] = 0;
    return rc;
}

FILE *iol_atomic_fopen(iol_atomic *a, const char *path, const char *mode)
{
    int fd = iol_atomic_open(a, path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int err = errno;
        close(fd);
        iol_atomic_commit(a, 0);
        errno = err;
    }
    return f;
}

int iol_atomic_fclose(iol_atomic *a, FILE *f, int ok)
{
    int bad = ferror(f);
    int err = bad ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (iol_atomic_commit(a, ok && !bad) < 0)
        return -1;
    if (!ok || bad) {
        errno = err ? err : EIO;
        return -1;
    }
    return 0;
}
