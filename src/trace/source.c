/* Iterating an opened trace as an iolens event source (include/iolens/trace.h). */
#define _GNU_SOURCE
#include "iolens/trace.h"
#include "trace/decode.h"
#include "trace/funcs.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/evsource.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int iol_trace_rewind(iol_trace *t, int rank)
{
    iol_proc *p = &t->procs[rank];
    for (size_t k = 0; k < p->nthreads; k++) {
        iol_thread *th = &p->th[k];
        iol_pred_release(&th->pred);
        iol_pred_init(&th->pred);
        th->depth = 1;
        th->stack[0].rule = th->nrules;
        th->stack[0].pos = 0;
        th->stack[0].left = 0;
        th->tcur.p = t->sect[IOL_TS_TIMES].data;
        th->tcur.len = t->sect[IOL_TS_TIMES].len;
        th->tcur.pos = th->ts_off;
        th->tcur.bad = 0;
        th->dcur = th->tcur;
        th->dcur.pos = th->dur_off;
        memset(th->lastdur, 0, sizeof th->lastdur);
        th->tprev = 0;
        th->done = 0;
        th->has_head = 0;
        th->nnotes = 0;
    }
    iol_offmap_release(&p->fdpos);
    p->has_last = 0;
    p->has_pending = 0;
    p->last_nnotes = 0;
    return 0;
}

static int bad(const iol_trace *t, int rank, const char *what)
{
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s in process %d (structure section at byte %llu)",
                   t->name, what, rank, (unsigned long long)t->sect[IOL_TS_STRUCT].at);
}

/* 1 got a record, 0 end of thread, <0 error. */
static int thread_next(iol_trace *t, int rank, iol_proc *p, iol_thread *th, iol_rawrec *r)
{
    if (th->done >= th->ncalls)
        return 0;
    int64_t sym;
    for (;;) {
        if (th->depth == 0 || th->depth > th->nrules + 1)
            return bad(t, rank, "grammar shorter than its call count");
        iol_frame *f = &th->stack[th->depth - 1];
        if (f->pos >= th->rule_len[f->rule]) {
            th->depth--;
            continue;
        }
        const int64_t *pair = p->v + th->rule_off[f->rule] + 2 * f->pos;
        if (f->left == 0)
            f->left = (uint64_t)pair[1];
        f->left--;
        sym = pair[0];
        if (f->left == 0)
            f->pos++;
        if (sym >= 0)
            break;
        if (th->depth >= th->nrules + 1)
            return bad(t, rank, "grammar nesting too deep");
        iol_frame *nf = &th->stack[th->depth++];
        nf->rule = (size_t)(-(sym + 1));
        nf->pos = 0;
        nf->left = 0;
    }
    const int64_t *sig = p->sigs + sym * IOL_SIG_NFIELDS;
    int local = t->func_map[sig[IOL_SIG_FUNC]];
    memset(r, 0, sizeof *r);
    r->func = (uint16_t)local;
    int rc = iol_pred_decode(&th->pred, sig, iol_func_by_id((unsigned)local)->has_off, r);
    if (rc == IOLENS_ENOMEM)
        return iol_err(rc, "out of memory");
    if (rc)
        return bad(t, rank, "invalid signature");
    int64_t gap = iol_get_sv(&th->tcur), ddur = iol_get_sv(&th->dcur);
    if (th->tcur.bad || th->dcur.bad)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated timestamps of process %d at byte %llu",
                       t->name, rank, (unsigned long long)t->sect[IOL_TS_TIMES].at);
    int64_t dur = (int64_t)((uint64_t)th->lastdur[local] + (uint64_t)ddur);
    th->lastdur[local] = dur;
    int64_t t0 = (int64_t)((uint64_t)th->tprev + (uint64_t)gap);
    r->t0 = (uint64_t)t0;
    r->t1 = (uint64_t)t0 + (uint64_t)dur;
    th->tprev = (int64_t)r->t1;
    th->done++;
    /* a fortified entry point: the plain call from here on (its predictions and durations
     * above are the entry point's own, as the writer kept them) */
    unsigned plain = iol_func_plain((unsigned)local);
    if (plain != (unsigned)local) {
        r->func = (uint16_t)plain;
        r->pad = IOL_REC_FORTIFIED;
    }
    if (t->minor < 4 && iol_func_is_fseek(r->func))
        r->a[3] = -1; /* (before 1.4 the position after fseek was not recorded: a3 was 0) */
    return 1;
}

/* Wrapping arithmetic on values read from the trace (hostile input must not overflow). */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* File position bookkeeping: offsets of calls that use the descriptor's position. */
static void resolve_offset(iol_proc *p, const iol_rawrec *r, const iol_func_info *fi, iolens_event *ev)
{
    iol_offstate *st = r->fd >= 0 ? iol_offmap_get(&p->fdpos, r->fd) : NULL;
    int known = st && st->valid >= 1;
    int ok = r->err == 0;
    switch (fi->op) {
    case IOLENS_OP_OPEN:
        if (ok && r->ret >= 0 && r->func != IOL_F_MPI_File_open) {
            iol_offstate *ns = iol_offmap_get(&p->fdpos, r->ret);
            if (ns) { /* a descriptor open before: at the position it had then */
                int note = iol_func_is_fd_note(r->func);
                ns->valid = (r->a[0] & O_APPEND) || (note && r->a[1] < 0) ? 0 : 1;
                ns->off = note && r->a[1] > 0 ? r->a[1] : 0;
                if (note)
                    ev->offset = r->a[1];
            }
        }
        break;
    case IOLENS_OP_READ:
    case IOLENS_OP_WRITE:
        if (iol_func_is_copy(r->func) && r->a[0] >= 0) { /* the side's offset given: its position stays */
            ev->offset = r->a[0];
        } else if (fi->has_off && !(iol_func_is_rwv2(r->func) && r->a[0] == -1)) {
            ev->offset = r->a[0];
        } else if (known && fi->layer != IOLENS_LAYER_MPIIO) {
            ev->offset = st->off;
            ev->flags |= IOLENS_EVF_OFFSET_IMPLICIT;
            int64_t moved = r->ret;
            switch (iol_func_moved(r->func)) {
            case IOL_MOVED_ITEMS: moved = wmul(r->ret, r->a[2]); break;
            case IOL_MOVED_LINE: moved = r->ret < 0 ? 0 : r->ret; break;
            case IOL_MOVED_CHAR: moved = r->ret >= 0; break;              /* ret: the character, or EOF */
            case IOL_MOVED_STRING: moved = r->ret >= 0 ? r->a[1] : 0; break; /* ret: non-negative (glibc: 1) */
            case IOL_MOVED_SCAN: moved = r->a[1]; break; /* ret: items assigned; a1: bytes consumed, -1 unknown */
            case IOL_MOVED_WORD: moved = r->a[2]; break;  /* ret: the word, or putw's result */
            default: break;
            }
            if (r->func == IOL_F_fscanf && r->a[1] < 0)
                st->valid = 0;
            else if (ok && moved > 0)
                st->off = wadd(st->off, moved);
        } else {
            ev->flags |= IOLENS_EVF_OFFSET_UNKNOWN;
        }
        break;
    case IOLENS_OP_SEEK:
        if (r->func == IOL_F_lseek || r->func == IOL_F_lseek64) {
            ev->offset = r->ret;
            if (st && ok && r->ret >= 0) {
                st->valid = 1;
                st->off = r->ret;
            }
        } else if (iol_func_is_ftell(r->func)) {
            ev->offset = r->ret;
            if (st && r->ret >= 0) {
                st->valid = 1;
                st->off = r->ret;
            }
        } else if (iol_func_is_fgetpos(r->func)) {
            ev->offset = r->a[0];
            if (st && ok && r->a[0] >= 0) {
                st->valid = 1;
                st->off = r->a[0];
            }
        } else if (r->func == IOL_F_rewind) {
            ev->offset = 0;
            if (st) {
                st->valid = 1;
                st->off = 0;
            }
        } else if (iol_func_is_fseek(r->func) && st && ok) {
            if (r->a[3] >= 0) {
                st->off = r->a[3]; /* the position after the call (whence SEEK_END included) */
                st->valid = 1;
                ev->offset = st->off;
            } else if ((r->a[2] == SEEK_SET && r->a[0] >= 0) || (r->a[2] == SEEK_CUR && known)) {
                st->off = r->a[2] == SEEK_SET ? r->a[0] : wadd(st->off, r->a[0]);
                st->valid = 1;
                ev->offset = st->off;
            } else {
                st->valid = 0;
            }
        }
        break;
    case IOLENS_OP_DUP:
        if (ok && r->ret >= 0 && st) {
            iol_offstate copy = *st;
            iol_offstate *ns = iol_offmap_get(&p->fdpos, r->ret);
            if (ns) {
                ns->valid = copy.valid;
                ns->off = copy.off;
            }
        }
        break;
    case IOLENS_OP_CLOSE:
        if (st)
            st->valid = 0;
        break;
    default: break;
    }
}

static void fill_event(iol_trace *t, int rank, iol_proc *p, const iol_thread *th, const iol_rawrec *r,
                       iolens_event *ev)
{
    const iol_func_info *fi = iol_func_by_id(r->func);
    memset(ev, 0, sizeof *ev);
    ev->rank = rank;
    ev->thread = th->tid;
    ev->depth = r->depth & IOL_DEPTH_IO_MASK;
    ev->lib_depth = r->depth >> IOL_DEPTH_LIB_SHIFT;
    ev->layer = fi->layer;
    ev->op = fi->op;
    ev->func = fi->name;
    if (r->pad & IOL_REC_FORTIFIED)
        ev->flags |= IOLENS_EVF_FORTIFIED;
    ev->self_after = p->self_other;
    for (size_t k = 0; k < p->nselff; k++) /* a handful: the functions the process called */
        if (p->selff[k].func == r->func) {
            ev->self_after = p->selff[k].after;
            break;
        }
    /* nanoseconds (exact as an integer), divided once: the nearest double to the recorded time
     * (334 us is 0.000334, not 0.00033400000000000004 as ticks * 1e-7 gives) */
    ev->tstart = (double)((uint64_t)r->t0 * t->res_ns) / 1e9;
    ev->tend = (double)((uint64_t)r->t1 * t->res_ns) / 1e9;
    ev->file = (r->file >= 0 && (size_t)r->file < p->npaths) ? p->paths[r->file] : -1;
    ev->offset = -1;
    ev->size = (fi->op == IOLENS_OP_READ || fi->op == IOLENS_OP_WRITE || fi->op == IOLENS_OP_TRUNCATE ||
                fi->op == IOLENS_OP_MMAP) ? r->a[1] : -1;
    ev->ret = r->ret;
    ev->err = r->err;
    ev->open_flags = fi->op == IOLENS_OP_OPEN ? (int32_t)r->a[0] : -1;
    ev->mode = (r->func <= IOL_F_mkostemps || r->func == IOL_F_mkdir || r->func == IOL_F_mkdirat || r->func == IOL_F_chmod ||
                r->func == IOL_F_fchmod || r->func == IOL_F_fchmodat)
                   ? (int32_t)r->a[1]
                   : -1; /* the open family, mkdir, chmod */
    if (iol_func_is_fallocate(r->func)) { /* a0 offset, a1 length, a2 fallocate's mode */
        ev->offset = r->a[0];
        ev->mode = (int32_t)r->a[2];
    }
    ev->whence = (fi->op == IOLENS_OP_SEEK && !iol_func_is_ftell(r->func) && !iol_func_is_fgetpos(r->func) &&
                  r->func != IOL_F_rewind)
                     ? (int32_t)r->a[2]
                     : -1;
    if (r->err)
        ev->flags |= IOLENS_EVF_FAILED;
    if (fi->layer == IOLENS_LAYER_MPIIO) {
        /* what the name says, worked out once per function and trace (not per event) */
        uint8_t *k = &t->mpi_kind[r->func];
        if (!*k)
            *k = (uint8_t)(1 | (strstr(fi->name, "_all") || strstr(fi->name, "_ordered") ? 2 : 0) |
                           (!strncmp(fi->name, "MPI_File_i", 10) ? 4 : 0));
        if (*k & 2)
            ev->flags |= IOLENS_EVF_COLLECTIVE;
        if (*k & 4)
            ev->flags |= IOLENS_EVF_NONBLOCKING;
        if (fi->op == IOLENS_OP_OPEN)
            ev->open_flags = (int32_t)r->a[0];
        if (fi->op == IOLENS_OP_READ || fi->op == IOLENS_OP_WRITE) {
            if (!fi->has_off)
                ev->flags |= IOLENS_EVF_OFFSET_UNKNOWN; /* file pointer in etype units: not resolved */
            ev->size = r->a[1];
        }
        if (r->ret != 0 && fi->op != IOLENS_OP_OPEN)
            ev->flags |= IOLENS_EVF_FAILED;
    }
    if (iolens_layer_is_library(fi->layer)) { /* objects, not descriptors: no offsets; a negative hid_t or herr_t fails */
        if (r->func != IOL_F_H5Fcreate && r->func != IOL_F_H5Fopen)
            ev->open_flags = -1;
        if (r->ret < 0)
            ev->flags |= IOLENS_EVF_FAILED;
        return;
    }
    resolve_offset(p, r, fi, ev);
}

/*
 * Textual arguments, in the order of the C call as Recorder prints them: a
 * descriptor, FILE* or MPI_File as its path ("???" if unknown), a buffer or
 * struct pointer as "%p", integers in decimal, an fopen mode as its string.
 * Spec letters: P path of the call's file, 0-3 slot a0..a3, B "%p",
 * R rename's target path, M fopen mode string, d the raw descriptor (dup
 * family and freopen's old stream, which Recorder prints as numbers).
 */
typedef struct arg_spec {
    const char *func;
    const char *spec;
} arg_spec;

static const arg_spec arg_specs[] = {
    {"open", "P01"}, {"open64", "P01"}, {"openat", "2P01"}, {"openat64", "2P01"}, {"creat", "P1"},
    {"creat64", "P1"}, {"mkstemp", "P01"}, {"mkostemp", "P01"}, {"mkstemps", "P01"}, {"mkostemps", "P01"}, {"close", "P"}, {"read", "PB1"}, {"write", "PB1"}, {"pread", "PB10"}, {"pwrite", "PB10"},
    {"pread64", "PB10"}, {"pwrite64", "PB10"}, {"readv", "PB2"}, {"writev", "PB2"}, {"preadv", "PB20"},
    {"pwritev", "PB20"}, {"preadv64", "PB20"}, {"pwritev64", "PB20"},
    {"preadv2", "PB203"}, {"pwritev2", "PB203"},
    {"lseek", "P02"}, {"lseek64", "P02"},
    {"fsync", "P"}, {"fdatasync", "P"}, {"ftruncate", "P1"}, {"ftruncate64", "P1"}, {"fallocate", "P201"}, {"fallocate64", "P201"},
    {"posix_fallocate", "P01"}, {"posix_fallocate64", "P01"},
    {"posix_fadvise", "P012"}, {"posix_fadvise64", "P012"},
    /* (in, in offset, out, out offset, length); sendfile: (out, in, in offset, count) */
    {"copy_file_range", "G3P01"}, {"splice", "G3P01"}, {"sendfile", "PG31"}, {"sendfile64", "PG31"}, {"stat", "PB"},
    {"stat64", "PB"}, {"lstat", "PB"}, {"lstat64", "PB"}, {"fstat", "PB"}, {"fstat64", "PB"},
    {"fstatat", "2PB3"}, {"fstatat64", "2PB3"}, {"__xstat", "3PB"}, {"__xstat64", "3PB"}, {"__lxstat", "3PB"},
    {"__lxstat64", "3PB"}, {"__fxstat", "3PB"}, {"__fxstat64", "3PB"}, {"statx", "2P31B"}, {"access", "P1"},
    {"mkdir", "P1"}, {"rmdir", "P"}, {"unlink", "P"}, {"rename", "PR"}, {"mkdirat", "2P1"}, {"unlinkat", "2P3"}, {"faccessat", "2P13"},
    {"remove", "P"}, {"renameat", "1P3R"}, {"renameat2", "1P3R0"}, {"dup", "d"}, {"dup2", "d2"}, {"iolens_fd_at_start", "Pd01"}, {"iolens_fd_at_fork", "Pd01"},
    {"dup3", "d23"}, {"fcntl", "P23"}, {"mmap", "B123P0"}, {"mmap64", "B123P0"}, {"msync", "B12"},
    {"opendir", "P"}, {"readdir", "P"}, {"readdir64", "P"}, {"closedir", "P"},
    {"truncate", "P1"}, {"truncate64", "P1"}, {"chmod", "P1"}, {"fchmod", "P1"}, {"fchmodat", "2P13"},
    {"chown", "P12"}, {"lchown", "P12"}, {"fchown", "P12"}, {"fchownat", "0P123"}, {"utime", "PB"},
    {"utimes", "PB"}, {"utimensat", "2PB3"}, {"futimens", "PB"},
    /* symlink(target, linkpath): R the file the target names */
    {"link", "PR"}, {"linkat", "1P3R0"}, {"symlink", "RP"}, {"symlinkat", "R3P"}, {"readlink", "PB1"},
    {"readlinkat", "2PB1"}, {"fopen", "PM"},
    {"fopen64", "PM"}, {"fdopen", "PM"}, {"freopen", "PMd"}, {"freopen64", "PMd"}, {"fclose", "P"},
    {"fread", "B23P"}, {"fwrite", "B23P"}, {"fprintf", "P1"}, {"vfprintf", "P1"}, {"fputs", "BP"},
    {"printf", "P1"}, {"vprintf", "P1"}, {"puts", "BP"}, {"putchar", "2P"},
    {"fgets", "B1P"}, {"fputc", "2P"}, {"fgetc", "P"}, {"fseek", "P02"}, {"ftell", "P"}, {"rewind", "P"},
    {"fflush", "P"}, {"getc", "P"}, {"putc", "2P"}, {"fscanf", "P1"}, {"fseeko", "P02"}, {"fseeko64", "P02"},
    {"fsetpos", "PB"}, {"fsetpos64", "PB"}, {"fgetpos", "PB"}, {"fgetpos64", "PB"}, {"getw", "P"}, {"putw", "3P"},
    {"ftello", "P"}, {"ftello64", "P"}, {"fileno", "P"}, {"getline", "B1P"}, {"getdelim", "B12P"}, {"MPI_File_open", "P0"}, {"MPI_File_close", "P"}, {"MPI_File_sync", "P"},
    {"MPI_File_set_size", "P1"}, {"MPI_File_preallocate", "P1"}, {"MPI_File_set_view", "P023"},
    {"MPI_File_seek", "P02"}, {"MPI_File_seek_shared", "P02"}, {"MPI_Wait", "3"}, {"MPI_Waitall", "3"},
    {"MPI_Waitany", "32"}, {"MPI_Waitsome", "32"}, {"MPI_Test", "32"}, {"MPI_Testall", "32"},
    {"MPI_Testany", "32"}, {"MPI_Testsome", "32"},
    /* HDF5: the object's name, then the slots hdf5.c records */
    {"H5Fcreate", "P02"}, {"H5Fopen", "P02"}, {"H5Oopen", "P1230"}, {"H5Oclose", "P"}, {"H5Fclose", "P"}, {"H5Fflush", "P2"}, {"H5Dcreate2", "P1230"},
    {"H5Dopen2", "P1230"}, {"H5Dcreate1", "P1230"}, {"H5Dopen1", "P1230"}, {"H5Dread", "P0123"}, {"H5Dwrite", "P0123"}, {"H5Dset_extent", "P13"}, {"H5Dflush", "P"},
    {"H5Dclose", "P"}, {"H5Gcreate2", "P"}, {"H5Gopen2", "P"}, {"H5Gclose", "P"}, {"H5Acreate2", "P12"},
    {"H5Aopen", "P12"}, {"H5Aread", "P12"}, {"H5Awrite", "P12"}, {"H5Aclose", "P"}, {"H5Pset_fapl_mpio", "0"},
    {"H5Pset_dxpl_mpio", "02"}, {"H5Pset_chunk", "0213"}, {"H5Pset_alignment", "012"},
    {"H5Pset_meta_block_size", "01"}, {"H5Pset_sieve_buf_size", "01"}, {"H5Pset_cache", "0321"},
    {"H5Pset_chunk_cache", "021"}, {"H5Pset_all_coll_metadata_ops", "02"}, {"H5Pset_coll_metadata_write", "02"},
};

static const char *fopen_mode(int64_t flags)
{
    int acc = (int)(flags & O_ACCMODE);
    if (acc == O_RDONLY)
        return "r";
    if (flags & O_APPEND)
        return acc == O_RDWR ? "a+" : "a";
    if (flags & O_TRUNC)
        return acc == O_RDWR ? "w+" : "w";
    return acc == O_RDWR ? "r+" : "w";
}

static const char *spec_of(const char *func)
{
    char buf[64];
    const char *base = iol_func_slots_of(func, buf, sizeof buf); /* fread_unlocked: fread's */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof arg_specs / sizeof arg_specs[0]; i++)
            if (!strcmp(arg_specs[i].func, pass ? base : func))
                return arg_specs[i].spec;
    if (!strncmp(func, "MPI_File_", 9)) { /* reads and writes: (fh, [offset,] buf, count, datatype size) */
        if (strstr(func, "_end"))
            return "PB";
        return (strstr(func, "_at") ? "P0B32" : "PB32");
    }
    if (!strncmp(func, "nc_", 3)) { /* NetCDF: as PnetCDF's */
        if (!strcmp(func, "nc_var_par_access"))
            return "P01";
        if (!strncmp(func, "nc_put_", 7) || !strncmp(func, "nc_get_", 7))
            return "P01";
        if (!strcmp(func, "nc_def_var") || !strcmp(func, "nc_inq_varid"))
            return "P0123";
        return strncmp(func, "nc_create", 9) && strncmp(func, "nc_open", 7) ? "P" : "P0";
    }
    if (!strncmp(func, "ncmpi_", 6)) { /* PnetCDF: the slots funcs.def lists */
        if (!strcmp(func, "ncmpi_create") || !strcmp(func, "ncmpi_open") || !strncmp(func, "ncmpi_wait", 10))
            return "P0";
        if (!strcmp(func, "ncmpi_close"))
            return "P12";
        if (!strcmp(func, "ncmpi_def_var") || !strcmp(func, "ncmpi_inq_varid") || strstr(func, "_var"))
            return "P0123";
        return "P";
    }
    return "";
}

_Static_assert(sizeof ((iol_proc *)0)->argtext[0] >= IOL_FMT_INT_MAX, "argtext holds a formatted int64_t");

static void fill_args(iol_trace *t, iol_proc *p, const iol_rawrec *r, iolens_event *ev)
{
    /* the spec by function, looked up once per trace (a linear search of the table per event
     * was the other half of the decoding time) */
    const char *spec = r->func < IOL_F_COUNT ? t->arg_spec[r->func] : NULL;
    if (ev->flags & IOLENS_EVF_COPY_SOURCE) /* the call's arguments as on its target's event */
        spec = r->func == IOL_F_copy_file_range || r->func == IOL_F_splice ? "P0G31" : "GP01";
    else if (!spec) {
        spec = spec_of(ev->func);
        if (r->func < IOL_F_COUNT)
            t->arg_spec[r->func] = spec;
    }
    uint32_t n = 0;
    for (; *spec && n < 8; spec++, n++) {
        char *num = p->argtext[n];
        const char *a = num;
        int64_t id;
        switch (*spec) {
        case 'P': a = ev->file >= 0 && (size_t)ev->file < t->nfiles ? t->files[ev->file].path : "???"; break;
        case 'R':
            id = r->a[2];
            a = id >= 0 && (uint64_t)id < p->npaths ? t->files[p->paths[id]].path : "???";
            break;
        case 'G': /* a copy's other file (src_next made a2 a file table id) */
            a = r->a[2] >= 0 && (uint64_t)r->a[2] < t->nfiles ? t->files[r->a[2]].path : "???";
            break;
        case 'B': a = "%p"; break;
        case 'M': a = fopen_mode(r->a[0]); break;
        case 'd': iol_fmt_i64(num, (int)r->fd); break;
        default: iol_fmt_i64(num, r->a[*spec - '0']); break; /* not snprintf: it was half the decoding time */
        }
        p->argv[n] = a;
    }
    /* open without O_CREAT/O_TMPFILE has no mode argument (Recorder prints none) */
    if (ev->op == IOLENS_OP_OPEN && ev->layer == IOLENS_LAYER_POSIX && r->func != IOL_F_creat &&
        r->func != IOL_F_creat64 && !iol_func_is_fd_note(r->func) && !(r->a[0] & O_CREAT) && (r->a[0] & O_TMPFILE) != O_TMPFILE && n > 0)
        n--;
    ev->nargs = n;
    ev->args = n ? p->argv : NULL;
}

static int src_nranks(void *impl) { return (int)((iol_trace *)impl)->nprocs; }
static double src_start(void *impl) { return (double)((iol_trace *)impl)->start_ns * 1e-9; }

static int src_files(void *impl, const iolens_file **out, size_t *count)
{
    iol_trace *t = impl;
    *out = t->files;
    *count = t->nfiles;
    return 0;
}

/* A read's or write's buffer position (format.h IOL_BUFPOS): taken out of slot a2, which then
 * holds what it holds without it (0, or the MPI datatype size). 0 when not recorded. */
static uint32_t take_bufpos(iol_rawrec *r)
{
    const iol_func_info *fi = iol_func_by_id(r->func);
    if (!fi || (fi->op != IOLENS_OP_READ && fi->op != IOLENS_OP_WRITE) || r->a[2] < 0)
        return 0;
    if (fi->layer != IOLENS_LAYER_MPIIO && r->func != IOL_F_read && r->func != IOL_F_write &&
        r->func != IOL_F_pread && r->func != IOL_F_pwrite && r->func != IOL_F_pread64 && r->func != IOL_F_pwrite64)
        return 0;
    uint32_t pos = (uint32_t)((uint64_t)r->a[2] >> IOL_BUFPOS_SHIFT) & IOL_BUFPOS_MASK;
    r->a[2] &= (int64_t)0xffffffff;
    return pos <= 4096 ? pos : 0;
}

static int is_note(int func)
{
    return func == IOL_F_H5Sget_regular_hyperslab || func == IOL_F_H5Pget_chunk || func == IOL_F_H5Sget_select_bounds ||
           func == IOL_F_H5Sget_simple_extent_dims;
}

/* The note of kind func attached to the last event of p, or NULL. */
static const iol_rawrec *last_note(const iol_proc *p, int func)
{
    for (int k = 0; p->has_last && k < p->last_nnotes; k++)
        if (p->last_note[k].func == func)
            return &p->last_note[k];
    return NULL;
}

/* The tracer's time after a call is part of the recorded gap before the thread's next call, so
 * no gap after a function is shorter: each function's self_after (and self_other, for the
 * functions without figures of their own) is at most the shortest gap seen after its calls, one
 * clock tick added. The sampled means are few in a short process (one sample in 32-95 calls)
 * and a preempted sample is hundreds of microseconds: fio's filecreate job sampled a close of
 * 15.7 us on a loaded machine, where its gaps after close are 1 us, and taking 15.7 us off every
 * gap left the job no time of its own. One pass over the process's calls, before its first
 * event; the process is then read again from its start. */
static int self_bound(iol_trace *t, int rank, iol_proc *p)
{
    p->self_bounded = 1;
    if (!p->self.samples)
        return 0;
    uint64_t *least = malloc((p->nselff + 1) * sizeof *least); /* [nselff]: the other functions */
    if (!least)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t k = 0; k <= p->nselff; k++)
        least[k] = UINT64_MAX;
    int rc = 0;
    for (size_t i = 0; i < p->nthreads && rc >= 0; i++) {
        iol_thread *th = &p->th[i];
        iol_rawrec r;
        size_t prev = SIZE_MAX; /* least[] index of the thread's previous outermost call */
        uint64_t prev_t1 = 0;
        while ((rc = thread_next(t, rank, p, th, &r)) > 0) {
            if ((r.depth & IOL_DEPTH_IO_MASK) != 0 || is_note(r.func))
                continue;
            if (prev != SIZE_MAX && r.t0 >= prev_t1 && r.t0 - prev_t1 < least[prev])
                least[prev] = r.t0 - prev_t1;
            prev = p->nselff;
            for (size_t k = 0; k < p->nselff; k++)
                if (p->selff[k].func == r.func) {
                    prev = k;
                    break;
                }
            prev_t1 = r.t1;
        }
    }
    if (rc >= 0) {
        for (size_t k = 0; k <= p->nselff; k++) {
            if (least[k] == UINT64_MAX)
                continue;
            double cap = (double)((least[k] + 1) * t->res_ns) / 1e9;
            double *after = k < p->nselff ? &p->selff[k].after : &p->self_other;
            if (*after > cap)
                *after = cap;
        }
        for (size_t k = 0; k < p->nselff; k++) /* (self_fallback) */
            if (p->selff[k].samples < IOL_SELF_FUNC_MIN && p->selff[k].after > p->self_other)
                p->selff[k].after = p->self_other;
        rc = iol_trace_rewind(t, rank);
    }
    free(least);
    return rc;
}

/* A copy's event (src_next): the bytes copied, both sides; the source's read has no tracer time
 * after it (that follows the target's write). */
static void copy_event(iol_trace *t, int rank, iol_proc *p, const iol_thread *th, const iol_rawrec *r, int source,
                       iolens_event *out)
{
    fill_event(t, rank, p, th, r, out);
    if (source) {
        out->op = IOLENS_OP_READ;
        out->flags |= IOLENS_EVF_COPY_SOURCE;
        out->self_after = 0;
    }
    out->size = r->ret > 0 ? r->ret : 0;
    fill_args(t, p, r, out);
}

static int64_t path_file(const iol_proc *p, int64_t id)
{
    return id >= 0 && (uint64_t)id < p->npaths ? p->paths[id] : -1;
}

static int src_next(void *impl, int rank, iolens_event *out)
{
    iol_trace *t = impl;
    iol_proc *p = &t->procs[rank];
    iol_thread *best;
    if (p->has_pending) { /* a copy's target write */
        p->has_pending = 0;
        p->last = p->pending;
        p->has_last = 1;
        p->last_nnotes = 0;
        copy_event(t, rank, p, p->pending_th, &p->pending, 0, out);
        return 1;
    }
    if (!p->self_bounded) {
        int rc = self_bound(t, rank, p);
        if (rc < 0)
            return rc;
    }
again:
    best = NULL;
    for (size_t k = 0; k < p->nthreads; k++) {
        iol_thread *th = &p->th[k];
        if (!th->has_head) {
            int rc = thread_next(t, rank, p, th, &th->head);
            if (rc < 0)
                return rc;
            th->has_head = rc;
        }
        if (th->has_head && (!best || th->head.t0 < best->head.t0))
            best = th;
    }
    if (!best)
        return 0;
    best->has_head = 0;
    iol_rawrec r = best->head;
    if (is_note(r.func)) { /* not a call: a note for the thread's next call (funcs.def) */
        int k = 0;
        while (k < best->nnotes && best->note[k].func != r.func)
            k++;
        if (k < IOL_MAX_NOTES) { /* a second note of a kind replaces the first */
            best->note[k] = r;
            if (k == best->nnotes)
                best->nnotes++;
        }
        goto again;
    }
    p->last_nnotes = best->nnotes;
    memcpy(p->last_note, best->note, (size_t)best->nnotes * sizeof *best->note);
    best->nnotes = 0;
    if (iol_func_is_copy(r.func)) {
        /* two events: the source's read (its descriptor, path and offset from a2 and a3), then
         * the target's write, each with half the call's time; a2 becomes the other file's id */
        uint64_t packed = (uint64_t)r.a[2], mid = r.t0 + (r.t1 - r.t0) / 2;
        iol_rawrec src = r;
        p->pending = r;
        p->pending.t0 = mid;
        p->pending.a[2] = path_file(p, (int32_t)(uint32_t)(packed >> 32));
        p->has_pending = 1;
        p->pending_th = best;
        src.t1 = mid;
        src.fd = (int32_t)(uint32_t)packed;
        src.file = (int32_t)(uint32_t)(packed >> 32);
        src.a[0] = r.a[3];
        src.a[2] = path_file(p, r.file);
        src.a[3] = r.a[0];
        p->last = src;
        p->has_last = 1;
        copy_event(t, rank, p, best, &src, 1, out);
        return 1;
    }
    uint32_t bufpos = take_bufpos(&r);
    p->last = r;
    p->has_last = 1;
    if (r.func == IOL_F_rename || r.func == IOL_F_renameat || r.func == IOL_F_renameat2 || r.func == IOL_F_link ||
        r.func == IOL_F_linkat || r.func == IOL_F_symlink ||
        r.func == IOL_F_symlinkat) /* the other path: a process path id -> a file table id */
        p->last.a[2] = (r.a[2] >= 0 && (uint64_t)r.a[2] < p->npaths) ? p->paths[r.a[2]] : -1;
    fill_event(t, rank, p, best, &r, out);
    fill_args(t, p, &r, out);
    out->buf_pgoff1 = bufpos;
    return 1;
}

static int src_rewind(void *impl, int rank) { return iol_trace_rewind(impl, rank); }
static void src_free(void *impl) { iol_trace_release(impl); }

static const iolens_evsource_ops trace_ops = {
    IOLENS_EVSOURCE_OPS_VERSION, "iolens", src_nranks, src_start, src_files, src_next, src_rewind, src_free,
};

int iolens_trace_open_mem(const void *data, size_t size, const char *name, iolens_evsource **out)
{
    *out = NULL;
    iol_trace *t;
    int rc = iol_trace_load(data, size, name, &t);
    if (rc)
        return rc;
    return iolens_evsource_new(out, &trace_ops, t);
}

/* The file is read into scratch memory (util/buf.h), not a malloc'd buffer: freeing a large
 * malloc'd block would move glibc's thresholds in a replay process before its timed calls. */
int iolens_trace_open(const char *path, iolens_evsource **out)
{
    *out = NULL;
    const size_t max = (size_t)1 << 34;
    int fd = iol_open_input(path, 0); /* devices refused */
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) { /* a pipe: read as a stream, its magic checked first */
        iol_buf b = IOL_BUF_INIT;
        int rc = iol_read_input_fd(fd, path, max, IOL_TRACE_MAGIC, 8, 0, &b);
        if (!rc)
            rc = iolens_trace_open_mem(b.data ? b.data : "", b.len, path, out);
        iol_buf_release(&b);
        return rc;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return iol_err(IOLENS_ENOMEM, "'%s' is larger than the %zu-byte limit", path, max);
    }
    /* the magic first: a large file that is no trace is refused before it is read */
    char magic[8];
    ssize_t m = pread(fd, magic, sizeof magic, 0);
    if (m < (ssize_t)sizeof magic || memcmp(magic, IOL_TRACE_MAGIC, sizeof magic)) {
        close(fd);
        if (m < 0)
            return iol_err(IOLENS_EIO, "cannot read '%s' at byte 0: %s", path, strerror(errno));
        if (m < (ssize_t)sizeof magic)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at byte %zd", path,
                           m ? "truncated before its magic" : "empty file", m);
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': not an iolens trace (no IOLTRACE magic at byte 0)", path);
    }
    /* only as much as the section directory says (a sparse giant behind a valid magic, or
     * trailing bytes, is not read): the header and directory, then up to the end of the last
     * section of a known type; a directory that cannot be read says so when decoded */
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char dir[IOL_TRACE_HDR_SIZE + IOL_TRACE_MAX_SECTIONS * IOL_TRACE_SECT_SIZE];
    ssize_t dn = pread(fd, dir, sizeof dir, 0);
    if (dn >= (ssize_t)IOL_TRACE_HDR_SIZE) {
        uint32_t ns;
        memcpy(&ns, dir + 12, 4);
        uint64_t need = IOL_TRACE_HDR_SIZE + (uint64_t)(ns <= IOL_TRACE_MAX_SECTIONS ? ns : 0) * IOL_TRACE_SECT_SIZE;
        for (uint32_t i = 0; ns <= IOL_TRACE_MAX_SECTIONS && i < ns; i++) {
            iol_tsect e;
            if ((size_t)dn < IOL_TRACE_HDR_SIZE + (i + 1) * (size_t)IOL_TRACE_SECT_SIZE)
                break;
            memcpy(&e, dir + IOL_TRACE_HDR_SIZE + (size_t)i * IOL_TRACE_SECT_SIZE, sizeof e);
            if (e.type < IOL_TS_META || e.type > IOL_TS_JOB)
                continue;
            uint64_t end = e.offset + e.stored;
            if (end < e.offset || end > size) { /* past the end: the decoder names it (truncated) */
                need = size;
                break;
            }
            need = end > need ? end : need;
        }
        if (need < size)
            size = (size_t)need;
    }
    char *data = iol_scratch_alloc(size + 1);
    if (!data) {
        close(fd);
        return iol_err(IOLENS_ENOMEM, "out of memory for '%s' (%zu bytes)", path, size);
    }
    int rc = 0;
    while (got < size) { /* a file that shrank meanwhile is read as far as it goes */
        ssize_t k = read(fd, data + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            rc = iol_err(IOLENS_EIO, "cannot read '%s' at byte %zu: %s", path, got, strerror(errno));
            break;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (!rc)
        rc = iolens_trace_open_mem(data, got, path, out);
    iol_scratch_free(data, size + 1);
    return rc;
}

static iol_trace *trace_of(iolens_evsource *s)
{
    return iol_evsource_impl(s, &trace_ops);
}

/* The process of rank in an iolens trace source, or NULL (error set). */
static const iol_proc *proc_of(iolens_evsource *s, int rank)
{
    iol_trace *t = trace_of(s);
    if (!t) {
        iol_err(IOLENS_EINVAL, "not an iolens trace");
        return NULL;
    }
    if (rank < 0 || (size_t)rank >= t->nprocs) {
        iol_err(IOLENS_EINVAL, "rank %d out of range", rank);
        return NULL;
    }
    return &t->procs[rank];
}

int iolens_trace_proc_info(iolens_evsource *s, int rank, iolens_trace_proc *out)
{
    const iol_proc *p = proc_of(s, rank);
    if (!p)
        return IOLENS_EINVAL;
    out->pid = p->pid;
    out->ppid = p->ppid;
    out->mpi_rank = p->mpi_rank;
    out->truncated = p->truncated;
    out->stopped = p->stopped;
    out->nthreads = (uint32_t)p->nthreads;
    out->ncalls = p->ncalls;
    return 0;
}

const char *iolens_trace_entry_name(const iolens_event *e)
{
    if (!e->func || !(e->flags & IOLENS_EVF_FORTIFIED))
        return e->func;
    int id = iol_func_by_name(e->func);
    return id < 0 ? e->func : iol_func_by_id(iol_func_fortified((unsigned)id))->name;
}

int iolens_trace_proc_job(iolens_evsource *s, int rank, iolens_trace_job *out)
{
    const iol_proc *p = proc_of(s, rank);
    if (!p)
        return IOLENS_EINVAL;
    out->argv = p->cmd;
    out->argv_len = p->cmd ? p->cmdlen : 0;
    out->uid = p->uid;
    out->jobid = p->jobid;
    return p->cmd || p->jobid || p->uid >= 0;
}

size_t iolens_trace_job_command(const iolens_trace_job *job, char *buf, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; job->argv && i < job->argv_len; i++) {
        char ch = job->argv[i];
        if (!ch && i + 1 == job->argv_len)
            break; /* the last argument's end */
        if (!ch)
            ch = ' ';
        if (len + 1 < n)
            buf[len] = ch;
        len++;
    }
    if (n)
        buf[len < n ? len : n - 1] = 0;
    return len;
}

int iolens_trace_proc_self(iolens_evsource *s, int rank, iolens_trace_self *out)
{
    const iol_proc *p = proc_of(s, rank);
    if (!p)
        return IOLENS_EINVAL;
    memset(out, 0, sizeof *out);
    out->samples = p->self.samples;
    if (p->self.samples) {
        out->gap_seconds = (double)p->self.post_ns / (double)p->self.samples * 1e-9;
        out->clock_seconds = (double)p->self.pre_ns / (double)p->self.samples * 1e-9;
    }
    return 0;
}

int iolens_trace_proc_self_func(iolens_evsource *s, int rank, size_t k, const char **func, iolens_trace_self *out)
{
    const iol_proc *p = proc_of(s, rank);
    if (!p)
        return IOLENS_EINVAL;
    if (k >= p->nselff)
        return 0;
    memset(out, 0, sizeof *out);
    out->samples = p->selff[k].samples;
    out->gap_seconds = (double)p->selff[k].post_ns / (double)p->selff[k].samples * 1e-9;
    *func = iol_func_by_id(p->selff[k].func)->name;
    return 1;
}

int iolens_trace_info(iolens_evsource *s, iolens_trace_stats *out)
{
    iol_trace *t = trace_of(s);
    if (!t)
        return iol_err(IOLENS_EINVAL, "not an iolens trace");
    memset(out, 0, sizeof *out);
    out->nprocs = t->nprocs;
    out->ngroups = t->ngroups;
    for (size_t i = 0; i < t->nprocs; i++) {
        const iol_proc *p = &t->procs[i];
        out->ncalls += p->ncalls;
        out->nsignatures += (uint64_t)p->nsig;
        out->ntruncated += (uint64_t)p->truncated;
        if (p->stopped > 0 && p->stopped < IOLENS_STOP_COUNT)
            out->nstopped[p->stopped]++;
        for (size_t k = 0; k < p->nthreads; k++)
            out->nrules += p->th[k].nrules;
    }
    out->bytes_meta = t->sect[IOL_TS_META].stored + t->sect[IOL_TS_SELF].stored +
                      t->sect[IOL_TS_JOB].stored; /* SELF and JOB count as metadata */
    out->bytes_struct = t->sect[IOL_TS_STRUCT].stored;
    out->bytes_times = t->sect[IOL_TS_TIMES].stored;
    out->bytes_header = t->sect[IOL_TS_META].at; /* sections follow header + directory */
    out->bytes_total = out->bytes_header + out->bytes_meta + out->bytes_struct + out->bytes_times;
    return 0;
}

int iolens_trace_last_args(iolens_evsource *s, int rank, int32_t *fd, int64_t a[4])
{
    iol_trace *t = trace_of(s);
    if (!t || rank < 0 || (size_t)rank >= t->nprocs || !t->procs[rank].has_last)
        return iol_err(IOLENS_EINVAL, "no last event for rank %d", rank);
    *fd = t->procs[rank].last.fd;
    memcpy(a, t->procs[rank].last.a, 4 * sizeof *a);
    return 0;
}

int iolens_trace_last_selection(iolens_evsource *s, int rank, int *ndims, int64_t len[5], int64_t stride[5])
{
    iol_trace *t = trace_of(s);
    if (!t || rank < 0 || (size_t)rank >= t->nprocs)
        return iol_err(IOLENS_EINVAL, "not an iolens trace, or no rank %d", rank);
    const iol_proc *p = &t->procs[rank];
    const iol_func_info *fi = p->has_last ? iol_func_by_id(p->last.func) : NULL;
    const iol_rawrec *n = last_note(p, IOL_F_H5Sget_regular_hyperslab);
    if (!fi || !n ||
        (p->last.func != IOL_F_H5Dread && p->last.func != IOL_F_H5Dwrite && fi->layer != IOLENS_LAYER_PNETCDF))
        return 0;
    int64_t v[5] = {n->a[0], n->a[1], n->a[2], n->a[3], n->ret};
    *ndims = n->fd < 0 ? 0 : n->fd;
    for (int i = 0; i < 5; i++) {
        len[i] = (int64_t)((uint64_t)v[i] >> 32);
        stride[i] = (int64_t)((uint64_t)v[i] & 0xffffffffu);
    }
    return 1;
}

int iolens_trace_last_chunk(iolens_evsource *s, int rank, int *ndims, int64_t dims[5])
{
    iol_trace *t = trace_of(s);
    if (!t || rank < 0 || (size_t)rank >= t->nprocs)
        return iol_err(IOLENS_EINVAL, "not an iolens trace, or no rank %d", rank);
    const iol_proc *p = &t->procs[rank];
    const iol_rawrec *n = last_note(p, IOL_F_H5Pget_chunk);
    if (!n)
        return 0;
    *ndims = n->fd < 0 ? 0 : n->fd;
    dims[0] = (int64_t)((uint64_t)n->a[0] >> 32);
    dims[1] = (int64_t)((uint64_t)n->a[0] & 0xffffffffu);
    dims[2] = (int64_t)((uint64_t)n->a[1] >> 32);
    dims[3] = (int64_t)((uint64_t)n->a[1] & 0xffffffffu);
    dims[4] = n->a[2];
    return 1;
}

int iolens_trace_last_hyperslab(iolens_evsource *s, int rank, int *ndims, int64_t *start, int64_t count[5],
                                int64_t block[5], int64_t stride[5])
{
    iol_trace *t = trace_of(s);
    if (!t || rank < 0 || (size_t)rank >= t->nprocs)
        return iol_err(IOLENS_EINVAL, "not an iolens trace, or no rank %d", rank);
    const iol_proc *p = &t->procs[rank];
    const iol_rawrec *n = last_note(p, IOL_F_H5Sget_regular_hyperslab);
    const iol_rawrec *b = last_note(p, IOL_F_H5Sget_select_bounds);
    if (!n || !b || (p->last.func != IOL_F_H5Dread && p->last.func != IOL_F_H5Dwrite))
        return 0;
    int nd = n->fd < 0 ? 0 : n->fd;
    if (nd != (b->fd & 0xff) || nd > 5 || b->a[0] < 0) /* a rank above five is not kept whole */
        return 0;
    int64_t v[5] = {n->a[0], n->a[1], n->a[2], n->a[3], n->ret};
    *ndims = nd;
    *start = b->a[0];
    for (int i = 0; i < 5; i++) {
        int64_t len = (int64_t)((uint64_t)v[i] >> 32);
        stride[i] = (int64_t)((uint64_t)v[i] & 0xffffffffu);
        if (i >= nd) {
            count[i] = block[i] = stride[i] = 0;
        } else if (b->fd & (1 << (16 + i)) && !(b->fd & (1 << (8 + i)))) { /* blocks of one element */
            count[i] = len;
            block[i] = 1;
        } else { /* one block; and when neither is 1, one block of count x block elements too */
            count[i] = 1;
            block[i] = len;
        }
    }
    return 1;
}

int iolens_trace_last_dims(iolens_evsource *s, int rank, int *ndims, int64_t dims[5], int *unlimited)
{
    iol_trace *t = trace_of(s);
    if (!t || rank < 0 || (size_t)rank >= t->nprocs)
        return iol_err(IOLENS_EINVAL, "not an iolens trace, or no rank %d", rank);
    const iol_rawrec *n = last_note(&t->procs[rank], IOL_F_H5Sget_simple_extent_dims);
    if (!n || n->fd < 0)
        return 0;
    int nd = n->fd & 0xff;
    int64_t v[5] = {n->a[0], n->a[1], n->a[2], n->a[3], n->ret};
    *ndims = nd;
    *unlimited = (n->fd >> 8) & 0x1f;
    for (int i = 0; i < 5; i++)
        dims[i] = i < nd ? v[i] : 0;
    return 1;
}

/* ---- merging: write the processes of an opened trace back as spill files ---- */
static int spill_put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n ? 0 : -1; }

static int spill_chunk_put(FILE *f, uint32_t type, uint32_t tid, const void *p, size_t n, const void *p2, size_t n2)
{
    iol_rawchunk c = {IOL_RAW_CHUNK_MAGIC, type, tid, (uint32_t)(n + n2)};
    if (spill_put(f, &c, sizeof c) || (n && spill_put(f, p, n)) || (n2 && spill_put(f, p2, n2)))
        return -1;
    return 0;
}

int iol_trace_write_spills(iol_trace *t, const char *dir, unsigned *seq)
{
    enum { BATCH = 4096 };
    iol_rawrec *batch = malloc(BATCH * sizeof *batch);
    int rc = batch ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < t->nprocs; i++) {
        iol_proc *p = &t->procs[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/m%u.raw", dir, (*seq)++);
        FILE *f = fopen(path, "wb");
        if (!f) {
            rc = iol_err(IOLENS_EIO, "cannot create '%s'", path);
            break;
        }
        iol_rawhdr h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, IOL_RAW_MAGIC, 8);
        h.version = IOL_RAW_VERSION;
        h.rec_size = sizeof(iol_rawrec);
        h.pid = p->pid;
        h.ppid = p->ppid;
        h.start_ns = t->start_ns;
        h.nfuncs = IOL_F_COUNT;
        int bad = spill_put(f, &h, sizeof h);
        for (size_t k = 0; !bad && k < p->npaths; k++) {
            int32_t id = (int32_t)k;
            const char *s = t->files[p->paths[k]].path;
            size_t l = strlen(s);
            bad = spill_chunk_put(f, IOL_RAW_PATH, 0, &id, 4, s, l > IOL_RAW_MAX_PATH ? IOL_RAW_MAX_PATH : l);
        }
        if (!bad && (p->cmd || p->jobid || p->uid >= 0)) { /* the job, as the shim writes it */
            uint8_t job[8 + IOL_RAW_MAX_CMDLINE + 1];
            uint32_t uid = p->uid >= 0 ? (uint32_t)p->uid : UINT32_MAX, cl = (uint32_t)(p->cmd ? p->cmdlen : 0);
            memcpy(job, &uid, 4);
            memcpy(job + 4, &cl, 4);
            if (cl)
                memcpy(job + 8, p->cmd, cl);
            bad = spill_chunk_put(f, IOL_RAW_JOB, 0, job, 8 + cl, p->jobid ? p->jobid : "",
                                  p->jobid ? strlen(p->jobid) : 0);
        }
        if (!bad && p->mpi_rank >= 0) {
            int32_t rk[2] = {p->mpi_rank, 0};
            bad = spill_chunk_put(f, IOL_RAW_RANK, 0, rk, sizeof rk, NULL, 0);
        }
        iol_trace_rewind(t, (int)i);
        for (size_t k = 0; !bad && !rc && k < p->nthreads; k++) {
            iol_thread *th = &p->th[k];
            size_t n = 0;
            int got;
            while ((got = thread_next(t, (int)i, p, th, &batch[n])) == 1) {
                iol_rawrec *r = &batch[n];
                if (r->pad & IOL_REC_FORTIFIED) /* the entry point, as the shim records it */
                    r->func = (uint16_t)iol_func_fortified(r->func);
                r->pad = 0;
                r->t0 = t->start_ns + r->t0 * t->res_ns;
                r->t1 = t->start_ns + r->t1 * t->res_ns;
                if (++n == BATCH) {
                    bad = spill_chunk_put(f, IOL_RAW_RECS, th->tid, batch, n * sizeof *batch, NULL, 0);
                    n = 0;
                }
                if (bad)
                    break;
            }
            if (got < 0)
                rc = got;
            else if (n && !bad)
                bad = spill_chunk_put(f, IOL_RAW_RECS, th->tid, batch, n * sizeof *batch, NULL, 0);
        }
        if (!bad && !rc && p->self.samples) { /* and per function, as the shim writes it */
            iol_rawselff *ff = p->nselff ? malloc(p->nselff * sizeof *ff) : NULL;
            size_t nf = 0;
            for (size_t k = 0; ff && k < p->nselff; k++)
                ff[nf++] = (iol_rawselff){p->selff[k].func, 0, p->selff[k].samples, p->selff[k].post_ns};
            bad = spill_chunk_put(f, IOL_RAW_SELF, 0, &p->self, sizeof p->self, ff, nf * sizeof *ff);
            free(ff);
        }
        if (!bad && !rc && !p->truncated)
            bad = spill_chunk_put(f, IOL_RAW_END, 0, NULL, 0, NULL, 0);
        iol_trace_rewind(t, (int)i);
        if (fclose(f) || bad)
            rc = rc ? rc : iol_err(IOLENS_EIO, "cannot write '%s'", path);
        static const char *stops[] = {"", IOL_RAW_OFF_NAMES};
        if (!rc && p->stopped > 0 && p->stopped < IOL_RAW_OFF_COUNT) { /* the reason travels as the shim's marker */
            char m[4200];
            snprintf(m, sizeof m, "%s%s%s", path, IOL_RAW_OFF_SUFFIX, stops[p->stopped]);
            FILE *mf = fopen(m, "wb");
            if (mf)
                fclose(mf);
        }
    }
    free(batch);
    return rc;
}

/* An iolens trace records the C return value of a stdio call (docs/TRACE-FORMAT.md); what
 * the Darshan runtime counts is the bytes it moved: fgets' line (the shim records its strlen;
 * NULL at end of file: -1, 0 bytes), one byte for a character fgetc, getc, fputc or putc returned
 * (EOF: 0), the bytes fscanf consumed (its size; its return value counts items),
 * fputs' string (glibc returns 1 on success; the string's length is the request, e->size),
 * fread's and fwrite's items times the item size (a2), and the same for their _unlocked variants;
 * getline's and getdelim's line (its length, which is also the request). A Recorder trace has no return values
 * (ret -1: the request size stands in), and a trace converted from one carries the request
 * size as the return value, which these rules keep. */
void iolens_trace_stdio_moved(iolens_evsource *src, int rank, iolens_event *e)
{
    const char *fn = e->func;
    if (!fn || e->layer != IOLENS_LAYER_STDIO || (e->op != IOLENS_OP_READ && e->op != IOLENS_OP_WRITE) ||
        strcmp(iolens_evsource_kind(src), "iolens"))
        return;
    /* the name's id: a lookup per name, not per call (a trace's names are its reader's table's:
     * the same pointer each time; a hit is checked against the name all the same) */
    static _Thread_local const char *seen_fn[8];
    static _Thread_local int seen_id[8];
    unsigned slot = (unsigned)(((uintptr_t)fn >> 3) & 7);
    int id = seen_fn[slot] == fn ? seen_id[slot] : -1;
    if (id < 0 || strcmp(iol_func_by_id((unsigned)id)->name, fn)) {
        id = iol_func_by_name(fn);
        seen_fn[slot] = fn;
        seen_id[slot] = id;
    }
    switch (id < 0 ? -1 : iol_func_moved((unsigned)id)) {
    case IOL_MOVED_LINE:
        if (e->ret < 0)
            e->ret = 0;
        if (id == IOL_F_getline || id == IOL_F_getdelim)
            e->size = e->ret; /* the request is a line (a1 is the buffer's size, which it may grow past) */
        break;
    case IOL_MOVED_CHAR: e->ret = e->ret >= 0 ? 1 : 0; break;
    case IOL_MOVED_SCAN: e->ret = e->size > 0 ? e->size : 0; break; /* ret: items; the bytes consumed are the size */
    case IOL_MOVED_WORD: { /* ret: the word or putw's result; a2 the bytes moved */
        int32_t fd;
        int64_t a[4];
        e->ret = iolens_trace_last_args(src, rank, &fd, a) == 0 && a[2] >= 0 ? a[2] : 0;
        break;
    }
    case IOL_MOVED_STRING: e->ret = e->ret >= 0 && e->size >= 0 ? e->size : 0; break;
    case IOL_MOVED_ITEMS: {
        int32_t fd;
        int64_t a[4];
        if (e->ret > 0 && iolens_trace_last_args(src, rank, &fd, a) == 0 && a[2] > 0)
            e->ret = e->ret <= INT64_MAX / a[2] ? e->ret * a[2] : INT64_MAX;
        break;
    }
    default: break;
    }
}

const char *iolens_trace_stop_text(int reason)
{
    switch (reason) {
    case IOLENS_STOP_CLOSED: return "the program closed the tracer's descriptor (close, close_range or closefrom)";
    case IOLENS_STOP_REPLACED: return "the program made the tracer's descriptor name another file (dup2 onto it, or reuse after an untraced close)";
    case IOLENS_STOP_NOSPACE: return "the file system holding the spill ran out of space";
    case IOLENS_STOP_IOERROR: return "a write to the spill failed";
    case IOLENS_STOP_CAP: return "the spill reached its cap (iolens trace --spill-max, IOLENS_TRACE_SPILL_MAX) or the "
                                 "free space it leaves the file system (a twentieth of it, and 128 MiB), so as not to "
                                 "fill the program's file system";
    default: return "";
    }
}
