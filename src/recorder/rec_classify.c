/* What a Recorder call does: layer, operation, file, size and offset taken
 * from the textual arguments of the functions iolens knows. */
#include "recorder/rec_internal.h"
#include "util/error.h"
#include "util/strindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Argument positions as Recorder 2.5 logs them (-1: absent). */
typedef struct func_info {
    const char *name;
    iolens_layer layer;
    iolens_op op;
    uint32_t flags;
    int8_t path, size, size2, offset, oflags, mode, whence;
} func_info;

#define P IOLENS_LAYER_POSIX
#define S IOLENS_LAYER_STDIO
#define M IOLENS_LAYER_MPIIO
#define H IOLENS_LAYER_HDF5
#define COLL IOLENS_EVF_COLLECTIVE
#define NB IOLENS_EVF_NONBLOCKING
/* MPI-IO: path holds the file-handle argument; MPI_File_open is special-cased. */
static const func_info funcs[] = {
    {"creat", P, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, 1, -1},
    {"creat64", P, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, 1, -1},
    {"open", P, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, 1, 2, -1},
    {"open64", P, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, 1, 2, -1},
    {"close", P, IOLENS_OP_CLOSE, 0, 0, -1, -1, -1, -1, -1, -1},
    {"write", P, IOLENS_OP_WRITE, 0, 0, 2, -1, -1, -1, -1, -1},
    {"read", P, IOLENS_OP_READ, 0, 0, 2, -1, -1, -1, -1, -1},
    {"lseek", P, IOLENS_OP_SEEK, 0, 0, -1, -1, 1, -1, -1, 2},
    {"lseek64", P, IOLENS_OP_SEEK, 0, 0, -1, -1, 1, -1, -1, 2},
    {"pread", P, IOLENS_OP_READ, 0, 0, 2, -1, 3, -1, -1, -1},
    {"pread64", P, IOLENS_OP_READ, 0, 0, 2, -1, 3, -1, -1, -1},
    {"pwrite", P, IOLENS_OP_WRITE, 0, 0, 2, -1, 3, -1, -1, -1},
    {"pwrite64", P, IOLENS_OP_WRITE, 0, 0, 2, -1, 3, -1, -1, -1},
    {"readv", P, IOLENS_OP_READ, 0, 0, -1, -1, -1, -1, -1, -1},
    {"writev", P, IOLENS_OP_WRITE, 0, 0, -1, -1, -1, -1, -1, -1},
    {"mmap", P, IOLENS_OP_MMAP, 0, 4, 1, -1, 5, -1, -1, -1},
    {"mmap64", P, IOLENS_OP_MMAP, 0, 4, 1, -1, 5, -1, -1, -1},
    {"msync", P, IOLENS_OP_SYNC, 0, -1, -1, -1, -1, -1, -1, -1},
    {"fopen", S, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fopen64", S, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fdopen", S, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fclose", S, IOLENS_OP_CLOSE, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fwrite", S, IOLENS_OP_WRITE, 0, 3, 1, 2, -1, -1, -1, -1},
    {"fread", S, IOLENS_OP_READ, 0, 3, 1, 2, -1, -1, -1, -1},
    {"ftell", S, IOLENS_OP_SEEK, 0, 0, -1, -1, -1, -1, -1, -1},
    {"ftello", S, IOLENS_OP_SEEK, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fseek", S, IOLENS_OP_SEEK, 0, 0, -1, -1, 1, -1, -1, 2},
    {"fseeko", S, IOLENS_OP_SEEK, 0, 0, -1, -1, 1, -1, -1, 2},
    {"fflush", S, IOLENS_OP_FLUSH, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fileno", S, IOLENS_OP_OTHER, 0, 0, -1, -1, -1, -1, -1, -1},
    {"tmpfile", S, IOLENS_OP_OPEN, 0, -1, -1, -1, -1, -1, -1, -1},
    {"fsync", P, IOLENS_OP_SYNC, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fdatasync", P, IOLENS_OP_SYNC, 0, 0, -1, -1, -1, -1, -1, -1},
    {"__xstat", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"__xstat64", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"__lxstat", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"__lxstat64", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"__fxstat", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"__fxstat64", P, IOLENS_OP_STAT, 0, 1, -1, -1, -1, -1, -1, -1},
    {"stat", P, IOLENS_OP_STAT, 0, 0, -1, -1, -1, -1, -1, -1},
    {"lstat", P, IOLENS_OP_STAT, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fstat", P, IOLENS_OP_STAT, 0, 0, -1, -1, -1, -1, -1, -1},
    {"truncate", P, IOLENS_OP_TRUNCATE, 0, 0, -1, -1, 1, -1, -1, -1},
    {"ftruncate", P, IOLENS_OP_TRUNCATE, 0, 0, -1, -1, 1, -1, -1, -1},
    {"dup", P, IOLENS_OP_DUP, 0, 0, -1, -1, -1, -1, -1, -1},
    {"dup2", P, IOLENS_OP_DUP, 0, 0, -1, -1, -1, -1, -1, -1},
    {"getcwd", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"mkdir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, 1, -1},
    {"rmdir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"chdir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"link", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"linkat", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"unlink", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"symlink", P, IOLENS_OP_META, 0, 1, -1, -1, -1, -1, -1, -1},
    {"symlinkat", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"readlink", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"readlinkat", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"rename", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"chmod", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, 1, -1},
    {"chown", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"lchown", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"utime", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"opendir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"readdir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"closedir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"rewinddir", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"mknod", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, 1, -1},
    {"mknodat", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"mkfifo", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, 1, -1},
    {"access", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"faccessat", P, IOLENS_OP_META, 0, -1, -1, -1, -1, -1, -1, -1},
    {"remove", P, IOLENS_OP_META, 0, 0, -1, -1, -1, -1, -1, -1},
    {"fcntl", P, IOLENS_OP_OTHER, 0, 0, -1, -1, -1, -1, -1, -1},
    /* MPI-IO: fh(0) [offset] buf count datatype status */
    {"MPI_File_open", M, IOLENS_OP_OPEN, COLL, 1, -1, -1, -1, 2, -1, -1}, /* special-cased below */
    {"MPI_File_close", M, IOLENS_OP_CLOSE, COLL, 0, -1, -1, -1, -1, -1, -1},
    {"MPI_File_set_size", M, IOLENS_OP_TRUNCATE, 0, 0, -1, -1, 1, -1, -1, -1},
    {"MPI_File_get_size", M, IOLENS_OP_STAT, 0, 0, -1, -1, -1, -1, -1, -1},
    {"MPI_File_set_view", M, IOLENS_OP_SET_VIEW, COLL, 0, -1, -1, 1, -1, -1, -1},
    {"MPI_File_sync", M, IOLENS_OP_SYNC, COLL, 0, -1, -1, -1, -1, -1, -1},
    {"MPI_File_seek", M, IOLENS_OP_SEEK, 0, 0, -1, -1, 1, -1, -1, 2},
    {"MPI_File_seek_shared", M, IOLENS_OP_SEEK, COLL, 0, -1, -1, 1, -1, -1, 2},
    {"MPI_File_read", M, IOLENS_OP_READ, 0, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_all", M, IOLENS_OP_READ, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_all_begin", M, IOLENS_OP_READ, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_shared", M, IOLENS_OP_READ, 0, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_ordered", M, IOLENS_OP_READ, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_ordered_begin", M, IOLENS_OP_READ, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_read_at", M, IOLENS_OP_READ, 0, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_read_at_all", M, IOLENS_OP_READ, COLL, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_read_at_all_begin", M, IOLENS_OP_READ, COLL, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_iread", M, IOLENS_OP_READ, NB, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_iread_shared", M, IOLENS_OP_READ, NB, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_iread_at", M, IOLENS_OP_READ, NB, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_write", M, IOLENS_OP_WRITE, 0, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_all", M, IOLENS_OP_WRITE, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_all_begin", M, IOLENS_OP_WRITE, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_shared", M, IOLENS_OP_WRITE, 0, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_ordered", M, IOLENS_OP_WRITE, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_ordered_begin", M, IOLENS_OP_WRITE, COLL, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_write_at", M, IOLENS_OP_WRITE, 0, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_write_at_all", M, IOLENS_OP_WRITE, COLL, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_write_at_all_begin", M, IOLENS_OP_WRITE, COLL, 0, 3, 4, 1, -1, -1, -1},
    {"MPI_File_iwrite", M, IOLENS_OP_WRITE, NB, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_iwrite_shared", M, IOLENS_OP_WRITE, NB, 0, 2, 3, -1, -1, -1, -1},
    {"MPI_File_iwrite_at", M, IOLENS_OP_WRITE, NB, 0, 3, 4, 1, -1, -1, -1},
    {"H5Fcreate", H, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, -1, -1},
    {"H5Fopen", H, IOLENS_OP_OPEN, 0, 0, -1, -1, -1, -1, -1, -1},
    {"H5Fclose", H, IOLENS_OP_CLOSE, 0, -1, -1, -1, -1, -1, -1, -1},
    {"H5Fflush", H, IOLENS_OP_FLUSH, 0, -1, -1, -1, -1, -1, -1, -1},
    {"H5Dread", H, IOLENS_OP_READ, 0, -1, -1, -1, -1, -1, -1, -1},
    {"H5Dwrite", H, IOLENS_OP_WRITE, 0, -1, -1, -1, -1, -1, -1, -1},
};

static const struct { const char *name; int64_t size; } mpi_types[] = {
    {"MPI_BYTE", 1}, {"MPI_CHAR", 1}, {"MPI_SIGNED_CHAR", 1}, {"MPI_UNSIGNED_CHAR", 1}, {"MPI_PACKED", 1},
    {"MPI_SHORT", 2}, {"MPI_UNSIGNED_SHORT", 2}, {"MPI_INT", 4}, {"MPI_UNSIGNED", 4}, {"MPI_FLOAT", 4},
    {"MPI_INT32_T", 4}, {"MPI_LONG", 8}, {"MPI_UNSIGNED_LONG", 8}, {"MPI_LONG_LONG", 8},
    {"MPI_LONG_LONG_INT", 8}, {"MPI_DOUBLE", 8}, {"MPI_INT64_T", 8}, {"MPI_UINT64_T", 8},
    {"MPI_LONG_DOUBLE", 16}, {"MPI_OFFSET", 8},
};

int rec_parse_i64(const char *s, int64_t *v)
{
    if (!s || !*s || *s == ' ')
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

/* "a*r+b" as written by Recorder's inter-process pattern recognition. */
static int parse_pattern(const char *s, int64_t *a, int64_t *b)
{
    const char *star = strstr(s, "*r+");
    if (!star || star == s || (size_t)(star - s) > 24)
        return 0;
    char head[32];
    memcpy(head, s, (size_t)(star - s));
    head[star - s] = '\0';
    return rec_parse_i64(head, a) && rec_parse_i64(star + 3, b);
}

static const char *file_at(const void *ctx, size_t i) { return ((const iolens_recorder *)ctx)->files[i].path; }

int rec_file_id(iolens_recorder *rec, const char *path, int64_t *id)
{
    size_t at;
    if (iol_strindex_reserve(&rec->fhash, rec->nfiles, file_at, rec))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    long found = iol_strindex_find(&rec->fhash, path, file_at, rec, &at);
    if (found >= 0) {
        *id = found;
        return 0;
    }
    if (rec->nfiles == rec->cap_files) {
        size_t cap = rec->cap_files ? rec->cap_files * 2 : 16;
        iolens_file *nf = realloc(rec->files, cap * sizeof *nf);
        if (!nf)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        rec->files = nf;
        rec->cap_files = cap;
    }
    rec->files[rec->nfiles].id = (int64_t)rec->nfiles;
    rec->files[rec->nfiles].path = path; /* points into the signature's strings */
    iol_strindex_set(&rec->fhash, at, rec->nfiles);
    *id = (int64_t)rec->nfiles++;
    return 0;
}

static const char *arg(const rec_sig *s, int i) { return i >= 0 && (uint32_t)i < s->nargs ? s->args[i] : NULL; }

int rec_classify(iolens_recorder *rec, rec_sig *s)
{
    static const iolens_layer by_type[] = {IOLENS_LAYER_POSIX, IOLENS_LAYER_MPIIO, IOLENS_LAYER_MPI,
                                           IOLENS_LAYER_HDF5, IOLENS_LAYER_USER};
    s->layer = (unsigned)s->rtype < 5 ? by_type[s->rtype] : IOLENS_LAYER_OTHER;
    s->op = IOLENS_OP_OTHER;
    s->file = -1;
    s->size = -1;
    s->off_kind = REC_OFF_NONE;
    s->open_flags = s->mode = s->whence = -1;
    if (s->user)
        return 0;
    if (!strcmp(s->func, "MPI_Init") || !strcmp(s->func, "MPI_Init_thread"))
        s->op = IOLENS_OP_INIT;
    else if (!strcmp(s->func, "MPI_Finalize"))
        s->op = IOLENS_OP_FINALIZE;
    /* table lookup once per function id, cached in the reader */
    int16_t *cache = s->func_id < rec->nfuncs && rec->func_class ? &rec->func_class[s->func_id] : NULL;
    int idx = cache && *cache != -2 ? *cache : -1;
    if (!cache || *cache == -2) {
        for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
            if (!strcmp(funcs[i].name, s->func)) {
                idx = (int)i;
                break;
            }
        if (cache)
            *cache = (int16_t)idx;
    }
    const func_info *fi = idx >= 0 ? &funcs[idx] : NULL;
    if (!fi)
        return 0;
    s->layer = fi->layer;
    s->op = fi->op;
    s->flags = fi->flags;
    int64_t v, w;
    const char *a;
    if (fi->layer == IOLENS_LAYER_MPIIO) {
        if (!strcmp(s->func, "MPI_File_open")) { /* (comm, filename, amode, info, fh) */
            s->op = IOLENS_OP_OPEN;
            s->flags |= COLL;
            if ((a = arg(s, 1)) && strcmp(a, "???")) {
                int rc = rec_file_id(rec, a, &s->file);
                if (rc < 0)
                    return rc;
            }
            if (rec_parse_i64(arg(s, 2), &v))
                s->open_flags = (int32_t)v;
            s->fh_new = arg(s, 4);
            return 0;
        }
        s->fh = arg(s, fi->path);
    } else if (fi->path >= 0 && (a = arg(s, fi->path)) && strcmp(a, "???") && strcmp(a, "%p") &&
               !(fi->op == IOLENS_OP_DUP && rec_parse_i64(a, &v))) {
        /* a dup/dup2 descriptor Recorder could not name is left without a
         * file here; the decoder gives it the rank's latest open file */
        int rc = rec_file_id(rec, a, &s->file);
        if (rc < 0)
            return rc;
    }
    if (rec_parse_i64(arg(s, fi->size), &v)) {
        s->size = v;
        if (fi->size2 >= 0) {
            if (fi->layer == IOLENS_LAYER_MPIIO) { /* count x datatype size */
                const char *t = arg(s, fi->size2);
                s->size = -1;
                for (size_t i = 0; t && i < sizeof mpi_types / sizeof mpi_types[0]; i++)
                    if (!strcmp(t, mpi_types[i].name)) {
                        if (v < 0 || __builtin_mul_overflow(v, mpi_types[i].size, &s->size))
                            s->size = -1;
                        break;
                    }
            } else if (rec_parse_i64(arg(s, fi->size2), &w) && v >= 0 && w >= 0 && (w == 0 || v <= INT64_MAX / w)) {
                s->size = v * w; /* fread/fwrite: size x nmemb */
            } else {
                s->size = -1;
            }
        }
    }
    if ((a = arg(s, fi->offset))) {
        if (rec_parse_i64(a, &s->off))
            s->off_kind = REC_OFF_NUM;
        else if (parse_pattern(a, &s->off_a, &s->off_b))
            s->off_kind = REC_OFF_PATTERN;
    }
    if (rec_parse_i64(arg(s, fi->oflags), &v))
        s->open_flags = (int32_t)v;
    if (rec_parse_i64(arg(s, fi->mode), &v))
        s->mode = (int32_t)v;
    if (rec_parse_i64(arg(s, fi->whence), &v))
        s->whence = (int32_t)v;
    /* 2.5 intra-process recognition stores pwrite offsets relative to the
     * function's first offset (seen on shared_n4_m1000_bothPR). */
    s->intra = rec->intra_pr && (!strcmp(s->func, "pwrite") || !strcmp(s->func, "pwrite64"));
    return 0;
}
