/* Internal structures of the Recorder reader (src/recorder). */
#ifndef IOLENS_RECORDER_INTERNAL_H
#define IOLENS_RECORDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "iolens/event.h"
#include "iolens/recorder.h"
#include "util/strindex.h"

/* ---- file provider: a trace directory, in-memory files, or recorder.dat sections ---- */
typedef struct rec_file {
    char name[64];     /* name inside the trace ("recorder.mt", "3.cst") */
    uint8_t *owned;    /* malloc'd content, or NULL when borrowed */
    const uint8_t *data;
    size_t size;
} rec_file;

typedef struct rec_provider {
    char *label;                     /* directory or label, for messages */
    const char *dir;                 /* NULL for memory */
    const iolens_recorder_memfile *mem;
    size_t nmem;
    uint64_t max_bytes;
    /* recorder.dat sections, when present */
    rec_file dat;
    struct rec_section { uint32_t type; int32_t rank; uint64_t offset, size; } *sections;
    uint32_t nsections;
} rec_provider;

/* Loads a file; 0, IOLENS_ENOTFOUND (message set) or another error. */
int rec_load(rec_provider *p, const char *name, rec_file *out);
int rec_exists(rec_provider *p, const char *name);
void rec_file_release(rec_file *f);
int rec_open_sections(rec_provider *p);
void rec_provider_release(rec_provider *p);

/* Bounded little-endian readers over a byte range; they set an error naming
 * the file and the byte offset (relative to base_off) on overrun. */
typedef struct rec_cur {
    const uint8_t *p;
    size_t len, pos;
    const char *label; /* "DIR/file" */
    const char *what;  /* "decompressed signature table" or NULL (raw file) */
    uint64_t base;     /* file offset of p[0] when raw */
} rec_cur;
int rec_rd_i32(rec_cur *c, int32_t *v, const char *field);
int rec_rd_u64(rec_cur *c, uint64_t *v, const char *field);
int rec_rd_bytes(rec_cur *c, size_t n, const uint8_t **out, const char *field);
int rec_cur_err(const rec_cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads one compressed block ("u64 csize, u64 dsize, zlib") at c's position
 * into a new buffer (*out, *outlen), advancing c. */
int rec_inflate_block(rec_cur *c, uint64_t max_bytes, uint8_t **out, size_t *outlen);

/* ---- decoded trace ---- */
enum { REC_OFF_NONE = 0, REC_OFF_NUM, REC_OFF_PATTERN };

typedef struct rec_sig {      /* one call signature (CST entry) */
    uint64_t tid;
    uint32_t func_id;
    uint32_t depth;
    uint32_t nargs;
    int user;                 /* user function: name is args[1], args not printed */
    int rtype;                /* recorder2text "type" */
    const char *func;         /* name (from the trace) */
    char **args;              /* nargs strings, into strings */
    char *strings;
    iolens_layer layer;
    iolens_op op;
    uint32_t flags;
    int64_t file;             /* file table index or -1 */
    int64_t size;
    int off_kind;             /* REC_OFF_* */
    int64_t off, off_a, off_b;
    int32_t open_flags, mode, whence;
    int intra;                /* offset stored relative to the function's first one */
    const char *fh;           /* MPI file handle id argument, or NULL */
    const char *fh_new;       /* MPI_File_open: handle created */
} rec_sig;

typedef struct rec_sym { int32_t val; uint32_t exp; } rec_sym; /* val >= 0 terminal, < 0 rule index (-1 - idx) */
typedef struct rec_rule { int32_t id; uint32_t nsym; rec_sym *syms; uint64_t count; } rec_rule;

typedef struct rec_grammar {
    rec_rule *rules;
    uint32_t nrules;
    uint32_t start;           /* index of rule -1 */
    uint64_t count;           /* records produced */
    int32_t sigset;           /* which signature table (index into rec->csts) */
} rec_grammar;

typedef struct rec_cst {
    rec_sig *sigs;
    uint32_t n;
} rec_cst;

struct iolens_recorder {
    rec_provider prov;
    iolens_recorder_options opt;
    char version[32];
    int major, minor, patch;
    int no_version_file;      /* 3.x: version read from recorder.mt */
    int func_id_bytes;        /* 1 (2.x) or 4 (3.x) */
    int nranks;
    double start_ts, res;
    int decimals;
    int ts_compression, ipc, inter_pr, intra_pr;
    char **funcs;             /* names from recorder.mt */
    char *funcs_blob;
    uint32_t nfuncs;
    int16_t *func_class;      /* per function id: index in the classification table, -1 none, -2 not looked up */
    int mpi_start, hdf5_start;
    rec_cst *csts;            /* 1 (inter-process compression) or nranks */
    uint32_t ncsts;
    rec_grammar *grammars;
    uint32_t ngrammars;
    int32_t *ug;              /* rank -> grammar */
    rec_file ts;              /* recorder.ts (or empty for 2.4) */
    uint64_t *ts_off, *ts_len; /* per rank, within ts */
    /* sub-communicator ranks for "a*r+b": per rank, per pattern function */
    uint32_t *pat_funcs;
    uint32_t npat_funcs;
    int32_t *subrank;         /* nranks * npat_funcs */
    /* file table */
    iolens_file *files;
    size_t nfiles, cap_files;
    iol_strindex fhash;       /* file id by path */
    struct rec_cursor **cursors;
};

/* rec_load.c */
int rec_read_trace(struct iolens_recorder *rec);
/* rec_classify.c: fills layer/op/flags/file/size/offset of a signature */
int rec_classify(struct iolens_recorder *rec, rec_sig *s);
int rec_file_id(struct iolens_recorder *rec, const char *path, int64_t *id);
int rec_parse_i64(const char *s, int64_t *v);
/* rec_decode.c */
void rec_cursors_free(struct iolens_recorder *rec);

#endif
