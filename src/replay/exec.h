/* Internal: executor context, results and the back-end ops table. */
#ifndef IOLENS_REPLAY_EXEC_H
#define IOLENS_REPLAY_EXEC_H

#include <stdint.h>
#include <stdio.h>

#include "replay/config.h"

#define RP_PATTERN_PERIOD (4096 * 61) /* not a power of two: misplaced blocks show */
#define RP_MAX_HINTS 48

struct rp_hint_status {
    char name[32];
    char status[224];
};

struct rp_kv {
    char *key;
    char *value;
};

/* Per-rank figures (gathered on rank 0). */
enum { RK_BYTES, RK_OPS, RK_TS, RK_TE, RK_VERIFY, RK_PART, RK_N };

/* phases of a metadata step */
enum { RP_PH_CREATE, RP_PH_STAT, RP_PH_READ, RP_PH_UNLINK, RP_NPHASES };

struct rp_step_result {
    char *name;
    int method, iface, file_per_process, prefilled, preallocated, collective;
    int nranks;
    char *path; /* first file (remapped below the root) */
    int64_t bytes, ops, verify_errors, repeats;
    double ts, te, seconds, bandwidth;
    double *rank; /* nranks * RK_N */
    double *rep_ts, *rep_te; /* per repeat, global min/max */
    struct rp_hint_status hints[RP_MAX_HINTS];
    size_t nhints;
    struct rp_kv *mpi_info;
    size_t nmpi_info;
    int has_phases; /* metadata: files and seconds per phase (the slowest rank's) */
    int64_t phase_ops[RP_NPHASES];
    double phase_seconds[RP_NPHASES];
};

struct iolens_replay_result {
    int dry_run;
    int nranks;
    int rank;
    int mpi;
    char *root;
    double space_needed;
    double space_free;
    struct rp_step_result *steps;
    size_t nsteps;
};

struct rp_exec;

/* One open file of a back end. */
struct rp_file {
    struct rp_exec *x;
    struct rp_step_result *res;
    const struct rp_hints *h;
    int dirfd;        /* parent directory (opened without following links) */
    const char *base; /* name in dirfd */
    const char *full; /* root/relative path, for MPI-IO */
    int write;        /* open for writing */
    int shared;       /* MPI-IO: opened by every rank (COMM_WORLD) */
    int direct_ok;    /* every transfer of the step is 4 KiB aligned */
    int report;       /* first open of the step on this rank: report hints */
    int64_t extent;   /* bytes the step may write (preallocate) */
    int fd;
    FILE *fp;
    void *mpi;        /* MPI_File* */
    int direct;
    int seek;         /* posix: lseek() + read()/write() instead of pread()/pwrite() */
    const struct rp_hdf5 *h5; /* hdf5: the step's file and dataset properties */
};

/* A replay back end (fio ioengine_ops style, versioned, in a static table). */
struct rp_backend_ops {
    int version; /* RP_BACKEND_VERSION */
    const char *name;
    int (*open)(struct rp_file *f);
    /* write (or read) n bytes at off; collective for MPI-IO _all calls */
    int (*xfer)(struct rp_file *f, int write, void *buf, size_t n, int64_t off, int collective);
    int (*sync)(struct rp_file *f);
    int (*close)(struct rp_file *f);
};
#define RP_BACKEND_VERSION 1

extern const struct rp_backend_ops rp_backend_posix;
extern const struct rp_backend_ops rp_backend_stdio;
#ifdef IOLENS_HAVE_MPI
extern const struct rp_backend_ops rp_backend_mpiio;
#endif
#ifdef IOLENS_HAVE_HDF5
extern const struct rp_backend_ops rp_backend_hdf5;
#endif

/* For a library that opens f by its full name (MPI-IO, HDF5): f is no link, and walking the name
 * of its folder reaches the folder resolved beneath the root (f->dirfd): a component swapped for a
 * link since would be followed by the library. Called before and after the library's open. 0, or
 * IOLENS_EINVAL with the message (the replay stops: it may only change what it created). */
int rp_file_check_name(const struct rp_file *f);
/* Before a call relative to f->dirfd that the application makes by name (open): traced as that
 * name (iol_sandbox_as). */
void rp_file_as(const struct rp_file *f, const char *func);

/* Records the status of a hint once per step ("applied", "not applicable here: ..."). */
void rp_hint_report(struct rp_step_result *res, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int rp_result_add_info(struct rp_step_result *res, const char *key, const char *value);
/* File system name of an fd (for "not applicable here" messages) and whether it is Lustre. */
const char *rp_fs_name(int fd, int *is_lustre);

/* A path below the replay root, normalised: no leading '/', no ".", ".." the folder above by
 * name, refused above the root (error names the path as `what`). Returns 0 or IOLENS_EINVAL. */
int iol_replay_rel_path(char *out, size_t cap, const char *p, const char *what);
/* A trace's files with their paths normalised as iol_replay_rel_path does (absolute ones keep
 * their '/'; one that cannot be is kept as it is), and canon[i]: the first file with i's
 * normalised path ("/d/./f", "/d/x/../f" and "/d/f" are one file). Free norm with
 * iol_replay_same_files_free, canon with free. */
int iol_replay_same_files(const iolens_file *files, size_t n, iolens_file **norm, int64_t **canon);
void iol_replay_same_files_free(iolens_file *norm, size_t n);
/* 1 if p is a file in an MPI runtime's session directory: Open MPI's <tmp>/ompi.<host>.<uid>/
 * (PRRTE's prte.<host>.<uid>/), where a singleton's helper writes contact.txt and hwloc.sm. */
int iol_replay_runtime_path(const char *p);
/* Refuses a replay root that is (or resolves to) '/'; real gets its resolved path (cap bytes, may be NULL). */
int iol_replay_check_root(const char *root, char *real, size_t cap);
/* Whether the absolute path lies at or below real_root (a resolved path). */
int iol_replay_root_holds(const char *real_root, const char *path);

#endif
