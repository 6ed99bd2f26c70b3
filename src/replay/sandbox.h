/* Internal: the replay's sandbox. Every path a replay touches is resolved beneath its root
 * without following a symbolic link, and no system call walks a full path after it was checked
 * (a component swapped for a link in between would be walked): the calls that change something
 * take the descriptor of their file's folder, itself resolved beneath the root, and one name in
 * it.
 *
 * Resolution uses openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) (Linux 5.6) where the kernel
 * has it, else a chain of O_NOFOLLOW directory descriptors from the root's, one component at a
 * time. Reading calls that cannot block and change nothing (stat, access) walk from the root's
 * descriptor as the program's call walked, so their cost is the program's.
 *
 * Libraries that take a path (stdio, MPI-IO, HDF5) are given the name below the root: before the
 * call iol_sandbox_verify_dir checks that walking it reaches the folder resolved beneath the root,
 * and after it iol_sandbox_verify_file that the descriptor the library opened is the file of that
 * name in that folder; a mismatch stops the replay.
 *
 * One replay at a time in a root: rank 0 holds an exclusive lock on it (flock) for the whole run,
 * and a marker file (IOL_SANDBOX_MARKER) names the process while it runs; a marker found with the
 * lock free was left by a replay that was killed, and the root is refused with what to do. */
#ifndef IOLENS_REPLAY_SANDBOX_H
#define IOLENS_REPLAY_SANDBOX_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define IOL_SANDBOX_MARKER ".iolens-replay"

enum {
    IOL_SANDBOX_CREATE = 1, /* make the root when it is missing (iol_sandbox.made_root says so) */
    IOL_SANDBOX_LOCK = 2,   /* this process runs the replay: lock the root, write the marker */
};

typedef struct iol_sandbox {
    int rootfd;    /* O_PATH | O_DIRECTORY descriptor of the root */
    int lockfd;    /* the root opened for flock(LOCK_EX), or -1 */
    int marker;    /* the marker file was written (removed by iol_sandbox_release) */
    int beneath;   /* openat2 with RESOLVE_BENEATH works here: 1; the descriptor chain: 0 */
    int made_root; /* the root did not exist and was made */
    char root[PATH_MAX]; /* its real path, for messages */
    void (*name_fd)(int fd, const char *path); /* the tracer's, when one is preloaded (iol_sandbox_name) */
    void (*record_as)(const char *name);       /* the tracer's (iol_sandbox_as) */
} iol_sandbox;

/* Called with each folder iol_sandbox_dir made (relative to the root), for the replay's cleanup. */
typedef void (*iol_sandbox_made_fn)(void *ctx, const char *rel_dir);

/* Opens the root (made with IOL_SANDBOX_CREATE), refusing '/'; with IOL_SANDBOX_LOCK takes the
 * lock and writes the marker, refusing a root another replay holds or a killed one left. 0, or a
 * negative IOLENS_E* code with the message set (and nothing held, no root made). */
int iol_sandbox_init(iol_sandbox *sb, const char *root, int flags);
/* Removes the marker, releases the lock, closes the descriptors; an uninitialised (zeroed with
 * rootfd = lockfd = -1) or released sandbox is left as it is. */
void iol_sandbox_release(iol_sandbox *sb);

/* fd moved above the numbers a program uses (a replay's own opens get the program's descriptor
 * numbers): 1024 below the limit on descriptors when it is 2048 or more, else 512 below it, else
 * where it is. The descriptor returned replaces fd. */
int iol_sandbox_high_fd(int fd);

/* Names fd, the folder rel[0..len) below the root, to the tracer when the process runs under one
 * (iolens trace), so that the calls made relative to it are traced by their full names. */
void iol_sandbox_name(const iol_sandbox *sb, int fd, const char *rel, size_t len);

/* Before a call made relative to a folder descriptor (openat, mkdirat, unlinkat, renameat, linkat,
 * fchmodat) where the program called func by name (open, mkdir, unlink, rmdir, remove, rename,
 * link, chmod): the tracer records it as func, so that the replay's trace holds the program's calls. */
static inline void iol_sandbox_as(const iol_sandbox *sb, const char *func)
{
    if (sb->record_as && func)
        sb->record_as(func);
}

/* The calls below return as the system calls they stand for: a descriptor or 0, else -1 with
 * errno (ELOOP or EXDEV for a path that would leave the root or follow a link). rel is a path
 * below the root as iol_replay_rel_path gives it ("a/b/f": no leading '/', no '.' or '..'). */

/* Opens rel (flags | O_NOFOLLOW | O_CLOEXEC). */
int iol_sandbox_open(const iol_sandbox *sb, const char *rel, int flags, mode_t mode);
/* An O_PATH descriptor of the folder rel[0..len) (the root's own when len is 0); with create,
 * missing folders are made (0755) and each reported to made(ctx, its path). The caller closes it. */
int iol_sandbox_dir(const iol_sandbox *sb, const char *rel, size_t len, int create, iol_sandbox_made_fn made,
                    void *ctx);
/* The folder of rel (iol_sandbox_dir of its part before the last '/') and in *base its own name. */
int iol_sandbox_parent(const iol_sandbox *sb, const char *rel, int create, iol_sandbox_made_fn made, void *ctx,
                       const char **base);
/* stat (nofollow: lstat) of rel walked from the root's descriptor. */
int iol_sandbox_stat(const iol_sandbox *sb, const char *rel, struct stat *st, int nofollow);
/* access(2) of rel walked from the root's descriptor. */
int iol_sandbox_access(const iol_sandbox *sb, const char *rel, int mode);
/* unlinkat of rel in its folder (flags: 0 or AT_REMOVEDIR); never follows a link. */
int iol_sandbox_unlink(const iol_sandbox *sb, const char *rel, int flags);

/* Before a library opens rel by its name: walking rel's folder from the root (as the library
 * will, following links) reaches the folder dirfd was resolved to. 0, else -1 with errno EXDEV. */
int iol_sandbox_verify_dir(const iol_sandbox *sb, int dirfd, const char *rel);
/* After it: fd is the file base names in dirfd (not a link to another). 0, else -1, errno EXDEV. */
int iol_sandbox_verify_file(int dirfd, const char *base, int fd);

#endif
