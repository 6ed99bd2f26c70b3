/*
 * The preload shim's internal interface (runtime.c) used by the wrapper
 * files. The shim links only libc/libdl: it never uses libiolens.
 *
 * A wrapper does:
 *     IOL_REAL(pwrite);                        resolve the next definition once
 *     if (!iol_tracing(IOL_LAYER_POSIX_BIT))   shim off, layer off, or our own I/O
 *         return real_pwrite(...);
 *     uint64_t t0 = iol_begin();
 *     ssize_t r = real_pwrite(...);
 *     iol_rawrec *rec = iol_end(IOL_F_pwrite, t0, r < 0);   saves errno
 *     if (rec) { fill arguments; iol_commit(rec); }         restores errno
 *     return r;
 * The hot path takes no lock, allocates nothing and formats no string.
 */
#ifndef IOLENS_SHIM_H
#define IOLENS_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>

#include "trace/format.h"

#define IOL_EXPORT __attribute__((visibility("default")))

enum {
    IOL_LAYER_POSIX_BIT = 1,
    IOL_LAYER_STDIO_BIT = 2,
    IOL_LAYER_MPIIO_BIT = 4,
    IOL_LAYER_HDF5_BIT = 8,
    IOL_LAYER_PNETCDF_BIT = 16,
    IOL_LAYER_NETCDF_BIT = 32,
};

/* Bits of enabled layers; 0 when the shim is off (not initialised, disabled after trouble, exiting). */
extern int iol_shim_layers;
/* > 0 while the shim itself runs (its own I/O is never traced). */
extern __thread int iol_shim_inside __attribute__((tls_model("initial-exec")));
/* Nesting depth of traced POSIX/stdio/MPI-IO calls in this thread, and of traced library
 * (HDF5, PnetCDF, NetCDF) calls: a record stores both (format.h, IOL_DEPTH_PACK). */
extern __thread int iol_shim_depth __attribute__((tls_model("initial-exec")));
extern __thread int iol_shim_libdepth __attribute__((tls_model("initial-exec")));

/* The shim's spin lock (its tables are locked for a few instructions at a time). */
static inline void iol_lock(int *l)
{
    while (__atomic_test_and_set(l, __ATOMIC_ACQUIRE))
        sched_yield();
}
static inline void iol_unlock(int *l) { __atomic_clear(l, __ATOMIC_RELEASE); }

void *iol_real(const char *name);
/* A library's data object as the program sees it: the global scope first (an
 * executable's copy relocation of it wins), then objects loaded RTLD_LOCAL. */
void *iol_data(const char *name);

#define IOL_REAL(fn)                                                                               \
    static __typeof__(&fn) real_##fn;                                                              \
    if (__builtin_expect(!real_##fn, 0))                                                           \
        real_##fn = (__typeof__(&fn))iol_real(#fn)

static inline int iol_tracing(int layer_bit)
{
    return (iol_shim_layers & layer_bit) && !iol_shim_inside;
}

uint64_t iol_now(void);

/* glibc's fileno, for the shim's own use (stdio.c): the program's calls are traced */
int iol_fileno(FILE *f);

/* Calls of this thread left before the next one whose tracer cost is sampled (iol_rawself). */
extern __thread int iol_shim_sample_in __attribute__((tls_model("initial-exec")));
uint64_t iol_begin_sampled(void);

static inline uint64_t iol_begin(void)
{
    iol_shim_depth++;
    if (__builtin_expect(--iol_shim_sample_in <= 0, 0))
        return iol_begin_sampled();
    return iol_now();
}

/* Ends a call: returns the record to fill (then iol_commit), or NULL if it
 * cannot be recorded. errno is saved for the record and restored by commit. */
iol_rawrec *iol_end(int func, uint64_t t0, int failed);
void iol_commit(iol_rawrec *rec);

/* A library call (HDF5): its own depth counter, so that the POSIX and MPI-IO calls it makes
 * keep their io depth (see format.h); never sampled for the tracer's cost. The record's err
 * is 0: the library reports failure by its return value. */
static inline uint64_t iol_lib_begin(void)
{
    iol_shim_libdepth++;
    return iol_now();
}
iol_rawrec *iol_lib_end(int func, uint64_t t0);
/* A record that completes the library call in progress (started at t0, not yet ended): made
 * before the call's own record, at its depth, lasting no time (an argument too large for one
 * record: the shape of a selection). */
iol_rawrec *iol_lib_note(int func, uint64_t t0);

/* File identities. */
int32_t iol_fd_file(int fd);              /* path id of a descriptor, -1 unknown */
void iol_fd_set(int fd, int32_t file);    /* after open/dup; -1 forgets */
void iol_fd_forget(int fd, int32_t file); /* before close: forgets fd if it still maps to file */
void iol_fd_closing(int fd);              /* before fd is closed or replaced: flushes if it is the spill's */
/* iolens's own replay names the folder descriptors it opened around the tracer (runtime.c) and
 * has its calls relative to them recorded as the program's (posix.c) */
void iolens_shim_name_fd(int fd, const char *path);
void iolens_shim_record_as(const char *name);
void iol_fcntl_done(uint64_t t0, int traced, int r, int fd, int cmd, void *arg); /* fcntl, fcntl64 */
int32_t iol_path_id(const char *path);    /* interns a path (takes a lock, writes it to the spill);
                                              a relative one as Darshan names it: below the working
                                              directory */
void iol_cwd_changed(void);               /* after a chdir or fchdir: relative names move */
/* iol_path_id of a path given relative to a directory descriptor (openat, fstatat, statx): the
 * directory's recorded path joined with it, so that one file has one name whichever way it
 * was reached; the name as given if the directory is not known (opened before tracing). */
int32_t iol_path_id_at(int dirfd, const char *path);
/* The file a symbolic link's target names: an absolute target as given, a relative one joined
 * with the folder of the link (path id link), lexically as iol_path_id_at; -1 unknown. */
int32_t iol_link_target_id(int32_t link, const char *target);
/* The interned path of id into out (NUL-terminated); its length, 0 when unknown or too long. */
size_t iol_path_name(int32_t id, char *out, size_t cap);

/* Flushes every buffer and writes the end mark (exit, exec, MPI_Finalize). */
void iol_shim_finish(void);
/* MPI_Finalize with IOLENS_TRACE_OUT set: whether this job builds its trace
 * at MPI_Finalize; iol_shim_close flushes, ends the spill and stops tracing;
 * iol_shim_build_trace (rank 0, after all ranks closed) runs the builder. */
int iol_shim_builds_trace(void);
void iol_shim_close(void);
void iol_shim_build_trace(void);
/* Records the MPI rank of this process. */
void iol_shim_set_rank(int rank, int size);

#endif
