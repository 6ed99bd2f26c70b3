/* File-system helpers shared by the CLI programs. */
#ifndef IOLENS_UTIL_FS_H
#define IOLENS_UTIL_FS_H

#include <stddef.h>

/* Removes dir and everything below it (at most 64 levels deep). Symbolic
 * links are unlinked, never followed. Best effort: what cannot be removed
 * stays. Returns 0 when dir no longer exists, -1 otherwise (errno set). */
int iol_remove_tree(const char *dir);

/* mkdir -p: creates path and its missing parents (0777 before the umask). 0, or -1 with errno
 * set (ENAMETOOLONG for a path of PATH_MAX bytes or more). */
int iol_mkdir_p(const char *path);

/* Lets the file system holding dir settle before a timed run: syncfs(2) on it (the previous
 * run's dirty pages written back and its journal committed), then waits, at most max_wait
 * seconds, for the kernel's Dirty + Writeback pages (/proc/meminfo) to fall below 4 MiB or stop
 * falling. Returns the seconds waited, or -1 if dir cannot be opened. */
double iol_settle_fs(const char *dir, double max_wait);

/* Drops the kernel's clean page cache, dentries and inodes (writes 3 to /proc/sys/vm/drop_caches
 * after sync(2)). Needs root; returns 0, or -1 with errno (EACCES/EPERM when not allowed). */
int iol_drop_caches(void);

/* The file-system type of path (statfs(2) f_type) in *magic; returns 0, or -1 (errno set). */
int iol_fs_type(const char *path, unsigned long *magic);

/* A name for a statfs f_type: "ext4" (ext2/3/4), "tmpfs", "xfs", "btrfs", "nfs", "lustre", "gpfs",
 * "beegfs", "overlay", "zfs", "fuse", ... or "0x<hex>" written into buf. Returns buf or a literal. */
const char *iol_fs_type_name(unsigned long magic, char *buf, size_t n);

/* An output written whole or not at all: a temporary file beside path (same folder, so the final
 * rename is atomic) that iol_atomic_commit renames over path, or removes. path may name a link
 * (the file it names is replaced) or nothing yet; a path that is no regular file (a device, a
 * FIFO, /dev/stdout) is written in place, as before. The temporary file gets the mode path has
 * (a new file: 0666 less the umask). */
typedef struct iol_atomic {
    char path[4096]; /* the file replaced (a link's target) */
    char tmp[4096];  /* the temporary file, "" when written in place */
} iol_atomic;

/* Opens the output: a descriptor (O_CLOEXEC), or -1 with errno. */
int iol_atomic_open(iol_atomic *a, const char *path);
/* ok: renames the temporary file over path (0, or -1 with errno, the temporary file removed);
 * !ok: removes it, path left as it was. Closes nothing (the caller closes its descriptor first). */
int iol_atomic_commit(iol_atomic *a, int ok);

#include <stdio.h>
/* The same as a stream: iol_atomic_fopen opens it ("w" or "wb"), iol_atomic_fclose closes it and
 * commits when ok and the stream had no error (0), else removes it (-1, errno set). */
FILE *iol_atomic_fopen(iol_atomic *a, const char *path, const char *mode);
int iol_atomic_fclose(iol_atomic *a, FILE *f, int ok);

#endif
