/*
 * MPI and MPI-IO wrappers (built when MPI headers are found). The shim does
 * not link libmpi: every PMPI_* entry point is looked up at run time, so the
 * same shim also preloads into programs without MPI. An MPI_File maps to the
 * path it was opened with; a datatype is recorded by its size.
 *
 * Argument slots: a0 offset (explicit-offset calls, seek, set_view disp) or
 * amode (open), a1 bytes = count * type size, a2 type size, a3 count; fd = a
 * small handle index; ret = the MPI return code.
 *
 * The I/O that MPI_Init and MPI_Finalize do themselves (reading the MCA
 * configuration, probing plugins) is library bootstrap, not the
 * application's: it is not traced unless IOLENS_MPI_INTERNAL=1 (Recorder
 * starts after PMPI_Init for the same reason). I/O made inside MPI-IO calls is
 * traced with depth 1.
 */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#ifdef OMPI_MAJOR_VERSION
/* Open MPI's MPI_COMM_WORLD is the address of a libmpi object. It is looked up
 * at run time (only once MPI_Init ran), not bound at load time: a weak
 * reference would stay NULL when libmpi is loaded after the shim, as Python
 * loads it for mpi4py. The global scope first: a program that names
 * MPI_COMM_WORLD has a copy of the object, which libmpi then uses too.
 * NULL: no world communicator found. MPI_INFO_NULL likewise (looked up when a file is opened). */
static void *ompi_object(void **cache, const char *name)
{
    if (!*cache)
        *cache = iol_data(name);
    return *cache;
}
static void *world_obj, *info_null_obj;
#define IOL_COMM_WORLD ((MPI_Comm)ompi_object(&world_obj, "ompi_mpi_comm_world"))
#define IOL_INFO_NULL ((MPI_Info)ompi_object(&info_null_obj, "ompi_mpi_info_null"))
#else
#define IOL_COMM_WORLD MPI_COMM_WORLD
#define IOL_INFO_NULL MPI_INFO_NULL
#endif

#define PMPI_FN(fn)                                                                                \
    static __typeof__(&PMPI_##fn) p_##fn;                                                          \
    if (__builtin_expect(!p_##fn, 0))                                                              \
        p_##fn = (__typeof__(&PMPI_##fn))iol_real("PMPI_" #fn)
#define real(fn) p_##fn
/* "no datatype" without naming MPI_DATATYPE_NULL (a libmpi object in Open MPI) */
#define NO_TYPE ((MPI_Datatype)0)

/* ---- MPI_File -> (handle index, path id) ---- */
#define NFILES 1024
static struct {
    MPI_File fh;
    int32_t path;
} files[NFILES];
static int files_lock;


static int handle_of(MPI_File fh, int32_t *path)
{
    *path = -1;
    for (int i = 0; i < NFILES; i++)
        if (__atomic_load_n(&files[i].fh, __ATOMIC_ACQUIRE) == fh && fh) {
            *path = files[i].path;
            return i;
        }
    return -1;
}

static void handle_add(MPI_File fh, int32_t path)
{
    iol_lock(&files_lock);
    for (int i = 0; i < NFILES; i++)
        if (!files[i].fh) {
            files[i].path = path;
            __atomic_store_n(&files[i].fh, fh, __ATOMIC_RELEASE);
            break;
        }
    iol_unlock(&files_lock);
}

static void handle_del(int i)
{
    if (i >= 0)
        __atomic_store_n(&files[i].fh, (MPI_File)0, __ATOMIC_RELEASE);
}

/* ---- outstanding non-blocking I/O requests (so MPI_Wait is traced for I/O only) ---- */
#define NREQS 1024
static MPI_Request reqs[NREQS];
static int reqs_lock;
static int reqs_live; /* entries in use: 0 lets Wait/Test of other requests skip the table */

static void req_add(int rc, MPI_Request *r)
{
    if (rc != MPI_SUCCESS || !r)
        return;
    iol_lock(&reqs_lock);
    for (int i = 0; i < NREQS; i++)
        if (!reqs[i]) {
            reqs[i] = *r;
            __atomic_add_fetch(&reqs_live, 1, __ATOMIC_RELAXED);
            break;
        }
    iol_unlock(&reqs_lock);
}

static int req_take(MPI_Request r)
{
    int found = 0;
    if (!r || !__atomic_load_n(&reqs_live, __ATOMIC_RELAXED))
        return 0;
    iol_lock(&reqs_lock);
    for (int i = 0; i < NREQS; i++)
        if (reqs[i] == r) {
            reqs[i] = 0;
            __atomic_sub_fetch(&reqs_live, 1, __ATOMIC_RELAXED);
            found = 1;
            break;
        }
    iol_unlock(&reqs_lock);
    return found;
}

static int req_has(MPI_Request r)
{
    int found = 0;
    if (!r || !__atomic_load_n(&reqs_live, __ATOMIC_RELAXED))
        return 0;
    iol_lock(&reqs_lock);
    for (int i = 0; i < NREQS && !found; i++)
        found = reqs[i] == r;
    iol_unlock(&reqs_lock);
    return found;
}

/* The I/O requests among v[0..n) (at most NSAVE are followed): *saved gets
 * a copy of v with non-I/O requests zeroed, since completion nulls v. */
#define NSAVE 256
static int req_snapshot(int n, const MPI_Request *v, MPI_Request *saved)
{
    int io = 0;
    for (int i = 0; i < n && i < NSAVE; i++) {
        saved[i] = v && req_has(v[i]) ? v[i] : 0;
        io += saved[i] != 0;
    }
    return io;
}

static int64_t type_size(MPI_Datatype dt)
{
    PMPI_FN(Type_size);
    int sz = 0;
    if (dt == NO_TYPE || real(Type_size)(dt, &sz) != MPI_SUCCESS)
        return 0;
    return sz;
}

static void io_rec(int func, uint64_t t0, int rc, MPI_File fh, MPI_Offset off, int count, MPI_Datatype dt,
                   const void *buf)
{
    int32_t path;
    int h = handle_of(fh, &path);
    iol_shim_inside++;
    int64_t ts = type_size(dt);
    iol_shim_inside--;
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->fd = h;
        rec->file = path;
        rec->ret = rc;
        rec->a[0] = off;
        rec->a[1] = ts * count;
        rec->a[2] = ts;
        if (ts >= 0 && ts < ((int64_t)1 << IOL_BUFPOS_SHIFT))
            rec->a[2] |= IOL_BUFPOS(buf); /* the buffer's place in its page (format.h) */
        rec->a[3] = count;
        iol_commit(rec);
    }
}

static void size_rec(int func, uint64_t t0, int rc, MPI_File fh, MPI_Offset size)
{
    int32_t path;
    int h = handle_of(fh, &path);
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->fd = h;
        rec->file = path;
        rec->ret = rc;
        rec->a[1] = size;
        iol_commit(rec);
    }
}

static void seek_rec(int func, uint64_t t0, int rc, MPI_File fh, MPI_Offset off, int whence)
{
    int32_t path;
    int h = handle_of(fh, &path);
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->fd = h;
        rec->file = path;
        rec->ret = rc;
        rec->a[0] = off;
        rec->a[2] = whence;
        iol_commit(rec);
    }
}

static int internal_io(void)
{
    const char *e = getenv("IOLENS_MPI_INTERNAL");
    return e && e[0] == '1';
}

static void init_done(int func, uint64_t t0, int rc)
{
    PMPI_FN(Comm_rank);
    PMPI_FN(Comm_size);
    int rank = -1, size = 0;
    MPI_Comm world = IOL_COMM_WORLD;
    if (rc == MPI_SUCCESS && world && real(Comm_rank) && real(Comm_size)) {
        real(Comm_rank)(world, &rank);
        real(Comm_size)(world, &size);
        iol_shim_set_rank(rank, size);
    }
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->ret = rc;
        rec->a[2] = rank;
        rec->a[3] = size;
        iol_commit(rec);
    }
}

IOL_EXPORT int MPI_Init(int *argc, char ***argv)
{
    PMPI_FN(Init);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(Init)(argc, argv);
    int quiet = !internal_io();
    uint64_t t0 = iol_begin();
    iol_shim_inside += quiet;
    int rc = real(Init)(argc, argv);
    iol_shim_inside -= quiet;
    init_done(IOL_F_MPI_Init, t0, rc);
    return rc;
}

IOL_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    PMPI_FN(Init_thread);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(Init_thread)(argc, argv, required, provided);
    int quiet = !internal_io();
    uint64_t t0 = iol_begin();
    iol_shim_inside += quiet;
    int rc = real(Init_thread)(argc, argv, required, provided);
    iol_shim_inside -= quiet;
    init_done(IOL_F_MPI_Init_thread, t0, rc);
    return rc;
}

/* With IOLENS_TRACE_OUT, the job's one trace file is built here: every rank
 * closes its spill, a barrier makes sure all are closed, and after the real
 * MPI_Finalize rank 0 runs the builder. I/O after MPI_Finalize is not traced
 * in that mode. */
IOL_EXPORT int MPI_Finalize(void)
{
    PMPI_FN(Finalize);
    PMPI_FN(Barrier);
    PMPI_FN(Comm_rank);
    if (iol_tracing(IOL_LAYER_MPIIO_BIT)) {
        uint64_t t0 = iol_begin();
        iol_rawrec *rec = iol_end(IOL_F_MPI_Finalize, t0, 0);
        if (rec)
            iol_commit(rec);
    }
    MPI_Comm world = IOL_COMM_WORLD;
    int build = iol_shim_builds_trace() && !iol_shim_inside && world && real(Comm_rank) && real(Barrier),
        rank = -1;
    if (build) {
        iol_shim_close();
        iol_shim_inside++;
        real(Comm_rank)(world, &rank);
        real(Barrier)(world);
        iol_shim_inside--;
    }
    int quiet = !internal_io() || build;
    iol_shim_inside += quiet;
    int rc = real(Finalize)();
    iol_shim_inside -= quiet;
    if (build && rank == 0) {
        iol_shim_inside++;
        iol_shim_build_trace();
        iol_shim_inside--;
    }
    return rc;
}

IOL_EXPORT int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    PMPI_FN(File_open);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_open)(comm, name, amode, info, fh);
    PMPI_FN(Comm_size);
    uint64_t t0 = iol_begin();
    int rc = real(File_open)(comm, name, amode, info, fh);
    int32_t path = iol_path_id(name);
    int csize = 0;
    real(Comm_size)(comm, &csize);
    if (rc == MPI_SUCCESS)
        handle_add(*fh, path);
    int32_t p2;
    int h = rc == MPI_SUCCESS ? handle_of(*fh, &p2) : -1;
    iol_rawrec *rec = iol_end(IOL_F_MPI_File_open, t0, 0);
    if (rec) {
        rec->file = path;
        rec->ret = rc == MPI_SUCCESS ? h : -1;
        rec->a[0] = amode;
        rec->a[1] = info != IOL_INFO_NULL; /* hints given (the runtime's MPIIO_HINTS) */
        rec->a[2] = csize;
        rec->a[3] = rc;
        iol_commit(rec);
    }
    return rc;
}

IOL_EXPORT int MPI_File_close(MPI_File *fh)
{
    PMPI_FN(File_close);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT)) {
        int32_t p;
        handle_del(handle_of(*fh, &p));
        return real(File_close)(fh);
    }
    int32_t path;
    int h = handle_of(*fh, &path);
    uint64_t t0 = iol_begin();
    int rc = real(File_close)(fh);
    handle_del(h);
    iol_rawrec *rec = iol_end(IOL_F_MPI_File_close, t0, 0);
    if (rec) {
        rec->fd = h;
        rec->file = path;
        rec->ret = rc;
        iol_commit(rec);
    }
    return rc;
}

IOL_EXPORT int MPI_File_sync(MPI_File fh)
{
    PMPI_FN(File_sync);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_sync)(fh);
    uint64_t t0 = iol_begin();
    int rc = real(File_sync)(fh);
    io_rec(IOL_F_MPI_File_sync, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}

IOL_EXPORT int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    PMPI_FN(File_set_size);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_set_size)(fh, size);
    uint64_t t0 = iol_begin();
    int rc = real(File_set_size)(fh, size);
    size_rec(IOL_F_MPI_File_set_size, t0, rc, fh, size);
    return rc;
}

IOL_EXPORT int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    PMPI_FN(File_preallocate);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_preallocate)(fh, size);
    uint64_t t0 = iol_begin();
    int rc = real(File_preallocate)(fh, size);
    size_rec(IOL_F_MPI_File_preallocate, t0, rc, fh, size);
    return rc;
}

IOL_EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                                 const char *datarep, MPI_Info info)
{
    PMPI_FN(File_set_view);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_set_view)(fh, disp, etype, ftype, datarep, info);
    uint64_t t0 = iol_begin();
    int rc = real(File_set_view)(fh, disp, etype, ftype, datarep, info);
    int32_t path;
    int h = handle_of(fh, &path);
    iol_shim_inside++;
    int64_t es = type_size(etype), fs = type_size(ftype);
    iol_shim_inside--;
    iol_rawrec *rec = iol_end(IOL_F_MPI_File_set_view, t0, 0);
    if (rec) {
        rec->fd = h;
        rec->file = path;
        rec->ret = rc;
        rec->a[0] = disp;
        rec->a[2] = es;
        rec->a[3] = fs;
        iol_commit(rec);
    }
    return rc;
}

IOL_EXPORT int MPI_File_seek(MPI_File fh, MPI_Offset off, int whence)
{
    PMPI_FN(File_seek);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_seek)(fh, off, whence);
    uint64_t t0 = iol_begin();
    int rc = real(File_seek)(fh, off, whence);
    seek_rec(IOL_F_MPI_File_seek, t0, rc, fh, off, whence);
    return rc;
}

IOL_EXPORT int MPI_File_seek_shared(MPI_File fh, MPI_Offset off, int whence)
{
    PMPI_FN(File_seek_shared);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_seek_shared)(fh, off, whence);
    uint64_t t0 = iol_begin();
    int rc = real(File_seek_shared)(fh, off, whence);
    seek_rec(IOL_F_MPI_File_seek_shared, t0, rc, fh, off, whence);
    return rc;
}

static void waited(int func, uint64_t t0, int rc, int64_t n)
{
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->ret = rc;
        rec->a[3] = n;
        iol_commit(rec);
    }
}

IOL_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    PMPI_FN(Wait);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT) || !req || !req_take(*req))
        return real(Wait)(req, st);
    uint64_t t0 = iol_begin();
    int rc = real(Wait)(req, st);
    waited(IOL_F_MPI_Wait, t0, rc, 1);
    return rc;
}

IOL_EXPORT int MPI_Waitall(int n, MPI_Request reqv[], MPI_Status stv[])
{
    PMPI_FN(Waitall);
    int io = 0;
    for (int i = 0; i < n && iol_tracing(IOL_LAYER_MPIIO_BIT); i++)
        io += req_take(reqv[i]);
    if (!io)
        return real(Waitall)(n, reqv, stv);
    uint64_t t0 = iol_begin();
    int rc = real(Waitall)(n, reqv, stv);
    waited(IOL_F_MPI_Waitall, t0, rc, io);
    return rc;
}

static void tested(int func, uint64_t t0, int rc, int64_t done, int64_t io)
{
    iol_rawrec *rec = iol_end(func, t0, 0);
    if (rec) {
        rec->ret = rc;
        rec->a[2] = done;
        rec->a[3] = io;
        iol_commit(rec);
    }
}

/* Completions of requests at the given indices (Waitany/Testany/Waitsome/Testsome). */
static int64_t take_indices(const MPI_Request *saved, int n, const int *idx, int k)
{
    int64_t done = 0;
    for (int i = 0; i < k; i++)
        if (idx[i] >= 0 && idx[i] < n && idx[i] < NSAVE && saved[idx[i]])
            done += req_take(saved[idx[i]]);
    return done;
}

IOL_EXPORT int MPI_Waitany(int n, MPI_Request v[], int *idx, MPI_Status *st)
{
    PMPI_FN(Waitany);
    MPI_Request saved[NSAVE];
    int io = iol_tracing(IOL_LAYER_MPIIO_BIT) ? req_snapshot(n, v, saved) : 0;
    if (!io)
        return real(Waitany)(n, v, idx, st);
    uint64_t t0 = iol_begin();
    int rc = real(Waitany)(n, v, idx, st);
    tested(IOL_F_MPI_Waitany, t0, rc, rc == MPI_SUCCESS ? take_indices(saved, n, idx, 1) : 0, io);
    return rc;
}

IOL_EXPORT int MPI_Waitsome(int n, MPI_Request v[], int *outcount, int idx[], MPI_Status st[])
{
    PMPI_FN(Waitsome);
    MPI_Request saved[NSAVE];
    int io = iol_tracing(IOL_LAYER_MPIIO_BIT) ? req_snapshot(n, v, saved) : 0;
    if (!io)
        return real(Waitsome)(n, v, outcount, idx, st);
    uint64_t t0 = iol_begin();
    int rc = real(Waitsome)(n, v, outcount, idx, st);
    int k = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;
    tested(IOL_F_MPI_Waitsome, t0, rc, take_indices(saved, n, idx, k), io);
    return rc;
}

IOL_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    PMPI_FN(Test);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT) || !req || !req_has(*req))
        return real(Test)(req, flag, st);
    MPI_Request r0 = *req;
    uint64_t t0 = iol_begin();
    int rc = real(Test)(req, flag, st);
    int done = rc == MPI_SUCCESS && *flag ? req_take(r0) : 0;
    tested(IOL_F_MPI_Test, t0, rc, done, 1);
    return rc;
}

IOL_EXPORT int MPI_Testall(int n, MPI_Request v[], int *flag, MPI_Status st[])
{
    PMPI_FN(Testall);
    MPI_Request saved[NSAVE];
    int io = iol_tracing(IOL_LAYER_MPIIO_BIT) ? req_snapshot(n, v, saved) : 0;
    if (!io)
        return real(Testall)(n, v, flag, st);
    uint64_t t0 = iol_begin();
    int rc = real(Testall)(n, v, flag, st);
    int64_t done = 0;
    for (int i = 0; rc == MPI_SUCCESS && *flag && i < n && i < NSAVE; i++)
        done += saved[i] ? req_take(saved[i]) : 0;
    tested(IOL_F_MPI_Testall, t0, rc, done, io);
    return rc;
}

IOL_EXPORT int MPI_Testany(int n, MPI_Request v[], int *idx, int *flag, MPI_Status *st)
{
    PMPI_FN(Testany);
    MPI_Request saved[NSAVE];
    int io = iol_tracing(IOL_LAYER_MPIIO_BIT) ? req_snapshot(n, v, saved) : 0;
    if (!io)
        return real(Testany)(n, v, idx, flag, st);
    uint64_t t0 = iol_begin();
    int rc = real(Testany)(n, v, idx, flag, st);
    int64_t done = rc == MPI_SUCCESS && *flag ? take_indices(saved, n, idx, 1) : 0;
    tested(IOL_F_MPI_Testany, t0, rc, done, io);
    return rc;
}

IOL_EXPORT int MPI_Testsome(int n, MPI_Request v[], int *outcount, int idx[], MPI_Status st[])
{
    PMPI_FN(Testsome);
    MPI_Request saved[NSAVE];
    int io = iol_tracing(IOL_LAYER_MPIIO_BIT) ? req_snapshot(n, v, saved) : 0;
    if (!io)
        return real(Testsome)(n, v, outcount, idx, st);
    uint64_t t0 = iol_begin();
    int rc = real(Testsome)(n, v, outcount, idx, st);
    int k = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;
    tested(IOL_F_MPI_Testsome, t0, rc, take_indices(saved, n, idx, k), io);
    return rc;
}

IOL_EXPORT int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_all)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_all)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read_all, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read_shared);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_shared)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_shared)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read_shared, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read_ordered);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_ordered)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_ordered)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read_ordered, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_all)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_all)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write_all, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write_shared);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_shared)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_shared)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write_shared, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write_ordered);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_ordered)(fh, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_ordered)(fh, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write_ordered, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read_at);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_at)(fh, off, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_at)(fh, off, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read_at, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_read_at_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_at_all)(fh, off, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_at_all)(fh, off, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_read_at_all, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write_at);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_at)(fh, off, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_at)(fh, off, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write_at, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    PMPI_FN(File_write_at_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_at_all)(fh, off, buf, count, dt, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_at_all)(fh, off, buf, count, dt, st);
    io_rec(IOL_F_MPI_File_write_at_all, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iread);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iread)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iread)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iread, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iwrite);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iwrite)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iwrite)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iwrite, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iread_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iread_all)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iread_all)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iread_all, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iwrite_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iwrite_all)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iwrite_all)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iwrite_all, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iread_shared);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iread_shared)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iread_shared)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iread_shared, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iwrite_shared);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iwrite_shared)(fh, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iwrite_shared)(fh, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iwrite_shared, t0, rc, fh, 0, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iread_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iread_at);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iread_at)(fh, off, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iread_at)(fh, off, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iread_at, t0, rc, fh, off, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iwrite_at(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iwrite_at);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iwrite_at)(fh, off, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iwrite_at)(fh, off, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iwrite_at, t0, rc, fh, off, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iread_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iread_at_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iread_at_all)(fh, off, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iread_at_all)(fh, off, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iread_at_all, t0, rc, fh, off, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Request *req)
{
    PMPI_FN(File_iwrite_at_all);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_iwrite_at_all)(fh, off, buf, count, dt, req);
    uint64_t t0 = iol_begin();
    int rc = real(File_iwrite_at_all)(fh, off, buf, count, dt, req);
    io_rec(IOL_F_MPI_File_iwrite_at_all, t0, rc, fh, off, count, dt, buf);
    req_add(rc, req);
    return rc;
}
IOL_EXPORT int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_read_all_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_all_begin)(fh, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_all_begin)(fh, buf, count, dt);
    io_rec(IOL_F_MPI_File_read_all_begin, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_write_all_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_all_begin)(fh, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_all_begin)(fh, buf, count, dt);
    io_rec(IOL_F_MPI_File_write_all_begin, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_read_ordered_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_ordered_begin)(fh, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_ordered_begin)(fh, buf, count, dt);
    io_rec(IOL_F_MPI_File_read_ordered_begin, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_write_ordered_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_ordered_begin)(fh, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_ordered_begin)(fh, buf, count, dt);
    io_rec(IOL_F_MPI_File_write_ordered_begin, t0, rc, fh, 0, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_read_at_all_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_at_all_begin)(fh, off, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_at_all_begin)(fh, off, buf, count, dt);
    io_rec(IOL_F_MPI_File_read_at_all_begin, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt)
{
    PMPI_FN(File_write_at_all_begin);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_at_all_begin)(fh, off, buf, count, dt);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_at_all_begin)(fh, off, buf, count, dt);
    io_rec(IOL_F_MPI_File_write_at_all_begin, t0, rc, fh, off, count, dt, buf);
    return rc;
}
IOL_EXPORT int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *st)
{
    PMPI_FN(File_read_all_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_all_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_all_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_read_all_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}
IOL_EXPORT int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *st)
{
    PMPI_FN(File_write_all_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_all_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_all_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_write_all_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}
IOL_EXPORT int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *st)
{
    PMPI_FN(File_read_ordered_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_ordered_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_ordered_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_read_ordered_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}
IOL_EXPORT int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *st)
{
    PMPI_FN(File_write_ordered_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_ordered_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_ordered_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_write_ordered_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}
IOL_EXPORT int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *st)
{
    PMPI_FN(File_read_at_all_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_read_at_all_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_read_at_all_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_read_at_all_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}
IOL_EXPORT int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *st)
{
    PMPI_FN(File_write_at_all_end);
    if (!iol_tracing(IOL_LAYER_MPIIO_BIT))
        return real(File_write_at_all_end)(fh, buf, st);
    uint64_t t0 = iol_begin();
    int rc = real(File_write_at_all_end)(fh, buf, st);
    io_rec(IOL_F_MPI_File_write_at_all_end, t0, rc, fh, 0, 0, NO_TYPE, NULL);
    return rc;
}

/* ---- PMPI_ entry points ----
 * Fortran programs reach MPI-IO through the PMPI_ names: Open MPI's mpif.h / `use mpi` /
 * `use mpi_f08` bindings (libmpi_mpifh, libmpi_usempif08) call PMPI_File_open,
 * PMPI_File_write_at, PMPI_Init, ... of libmpi, never the MPI_ names the C wrappers above
 * export (MPICH's do the same when built with profiling). Each wrapper is therefore also
 * exported under its PMPI_ name (the same code: an alias), as Darshan's LD_PRELOAD wrappers
 * are. A C call still goes through the MPI_ name once: the wrappers call libmpi's PMPI_
 * functions found with RTLD_NEXT, not these exports, so no call is recorded twice. */
#define IOL_PMPI_ALIAS(fn) extern __typeof__(MPI_##fn) PMPI_##fn __attribute__((alias("MPI_" #fn), visibility("default")))
IOL_PMPI_ALIAS(Init);
IOL_PMPI_ALIAS(Init_thread);
IOL_PMPI_ALIAS(Finalize);
IOL_PMPI_ALIAS(File_open);
IOL_PMPI_ALIAS(File_close);
IOL_PMPI_ALIAS(File_sync);
IOL_PMPI_ALIAS(File_set_size);
IOL_PMPI_ALIAS(File_preallocate);
IOL_PMPI_ALIAS(File_set_view);
IOL_PMPI_ALIAS(File_seek);
IOL_PMPI_ALIAS(File_seek_shared);
IOL_PMPI_ALIAS(Wait);
IOL_PMPI_ALIAS(Waitall);
IOL_PMPI_ALIAS(Waitany);
IOL_PMPI_ALIAS(Waitsome);
IOL_PMPI_ALIAS(Test);
IOL_PMPI_ALIAS(Testall);
IOL_PMPI_ALIAS(Testany);
IOL_PMPI_ALIAS(Testsome);
IOL_PMPI_ALIAS(File_read);
IOL_PMPI_ALIAS(File_read_all);
IOL_PMPI_ALIAS(File_read_shared);
IOL_PMPI_ALIAS(File_read_ordered);
IOL_PMPI_ALIAS(File_write);
IOL_PMPI_ALIAS(File_write_all);
IOL_PMPI_ALIAS(File_write_shared);
IOL_PMPI_ALIAS(File_write_ordered);
IOL_PMPI_ALIAS(File_read_at);
IOL_PMPI_ALIAS(File_read_at_all);
IOL_PMPI_ALIAS(File_write_at);
IOL_PMPI_ALIAS(File_write_at_all);
IOL_PMPI_ALIAS(File_iread);
IOL_PMPI_ALIAS(File_iwrite);
IOL_PMPI_ALIAS(File_iread_all);
IOL_PMPI_ALIAS(File_iwrite_all);
IOL_PMPI_ALIAS(File_iread_shared);
IOL_PMPI_ALIAS(File_iwrite_shared);
IOL_PMPI_ALIAS(File_iread_at);
IOL_PMPI_ALIAS(File_iwrite_at);
IOL_PMPI_ALIAS(File_iread_at_all);
IOL_PMPI_ALIAS(File_iwrite_at_all);
IOL_PMPI_ALIAS(File_read_all_begin);
IOL_PMPI_ALIAS(File_write_all_begin);
IOL_PMPI_ALIAS(File_read_ordered_begin);
IOL_PMPI_ALIAS(File_write_ordered_begin);
IOL_PMPI_ALIAS(File_read_at_all_begin);
IOL_PMPI_ALIAS(File_write_at_all_begin);
IOL_PMPI_ALIAS(File_read_all_end);
IOL_PMPI_ALIAS(File_write_all_end);
IOL_PMPI_ALIAS(File_read_ordered_end);
IOL_PMPI_ALIAS(File_write_ordered_end);
IOL_PMPI_ALIAS(File_read_at_all_end);
IOL_PMPI_ALIAS(File_write_at_all_end);
