/*
 * Internal: the replay config as C structures and the declarative option
 * tables that describe, parse, validate, document (JSON Schema) and
 * serialise it (fio options.c style: name, type, offset, default, range,
 * help). See docs/REPLAY-CONFIG.md for the user view.
 */
#ifndef IOLENS_REPLAY_CONFIG_H
#define IOLENS_REPLAY_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "iolens/replay.h"

enum rp_method { RP_WRITE = 0, RP_READ, RP_COMPUTE, RP_METADATA, RP_STARTUP };
enum rp_iface { RP_POSIX = 0, RP_STDIO, RP_MPIIO, RP_HDF5 };
enum rp_access { RP_SEQUENTIAL = 0, RP_STRIDED, RP_RANDOM };
enum rp_fsync { RP_FSYNC_NONE = 0, RP_FSYNC_CLOSE, RP_FSYNC_WRITE };
enum rp_compute_kind { RP_SLEEP = 0, RP_BUSY };
/* romio_* tri-state hints: -1 = not given */
enum rp_romio { RP_ROMIO_ENABLE = 0, RP_ROMIO_DISABLE, RP_ROMIO_AUTOMATIC };

/* Hints: every field -1 when not given (never silently defaulted). */
struct rp_hints {
    int use_direct, disable_readahead, preallocate, fsync_on_close;
    int64_t lustre_stripe_size, lustre_stripe_count;
    int use_collective;
    int romio_cb_read, romio_cb_write, romio_ds_read, romio_ds_write;
    int64_t cb_buffer_size, cb_nodes, cb_block_size;
    int64_t ind_rd_buffer_size, ind_wr_buffer_size;
    int64_t striping_factor, striping_unit;
};

struct rp_rank_rep {
    int64_t rank;
    int64_t repetitions;
};

struct rp_chunk {
    int64_t transfer_size;
    int64_t repetitions; /* every rank; -1 when the ranks list is used */
    struct rp_rank_rep *ranks;
    size_t nranks;
    double gap_seconds; /* the program's own time between two transfers (spun, untraced) */
};

struct rp_compute {
    int kind;
    double seconds;
};

/* The program's own time per file in each phase of a metadata step (seconds). */
struct rp_meta_gaps {
    double create, stat, read, unlink;
};

struct rp_metadata {
    int64_t files_per_rank;
    int64_t depth;
    int64_t branching;
    int unique_dir;
    int64_t write_bytes;
    int64_t read_bytes;
    int create; /* 1: created in the timed create phase; 0: made untimed before (files the program found) */
    int stat;   /* stats per file (true = 1) */
    int reopen; /* the read phase opens and closes every file even when read_bytes is 0 */
    int unlink;
    struct rp_meta_gaps gap_seconds;
};

/* An interpreter's start-up I/O (a Python "import"): a library tree read module by module. */
struct rp_module {
    int64_t bytes;
};

struct rp_startup {
    struct rp_module *modules; /* each compiled module file read */
    size_t nmodules;
    int64_t extensions;   /* extension modules: stat()ed only (the loader maps them) */
    int64_t config_lines; /* lines of one text file read through stdio (fgets) */
    int64_t config_line_bytes;
    int legacy_stat;      /* stat through glibc's pre-2.33 entry points (__xstat64, __fxstat64) */
};

/* An hdf5 step's file and dataset properties (what a program sets in its property lists). */
struct rp_hdf5 {
    int64_t chunk;               /* bytes of a chunk of the step's dataset; 0: contiguous */
    int64_t alignment;           /* H5Pset_alignment's alignment; 0: none */
    int64_t alignment_threshold; /* and its threshold */
    int collective_metadata;     /* H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write */
};

struct rp_fileconf {
    char *name;
    char **file_names;
    size_t nfile_names;
    int file_per_process; /* -1: from the number of file_names */
    int64_t total_repeats;
    int method;
    int interface;
    int access;
    int64_t seed;
    int64_t block_size;
    int64_t offset;
    int64_t alignment;
    int64_t buffer_offset; /* the data buffer starts this many bytes after a page start */
    int fsync;
    int64_t fsync_count; /* every_write: the fsyncs after each write (a program that syncs twice) */
    int verify;
    int seek; /* posix: lseek() before each read()/write() (IOR's POSIX back end) instead of pread/pwrite */
    int rank_blocks; /* shared file, sequential: each rank's transfers of all chunks form one block */
    int preallocated; /* write: the file's extent reserved (posix_fallocate) before the step, untimed */
    int cold; /* read: the file's cached pages written back and dropped before the step, untimed */
    struct rp_hints hints;
    struct rp_hdf5 hdf5;
    struct rp_chunk *chunks;
    size_t nchunks;
    double *imbalance;
    size_t nimbalance;
    struct rp_compute compute;
    struct rp_metadata metadata;
    struct rp_startup startup;
};

struct iolens_replay_config {
    int64_t version;
    char *name;
    char *description;
    int64_t nranks;
    struct rp_hints optimization_params;
    struct rp_fileconf *file_configs;
    size_t nfile_configs;
};

/* ---- the option table machinery (options.c) ---- */
enum rp_opt_type {
    RP_OPT_INT,     /* JSON integer -> int64_t */
    RP_OPT_SIZE,    /* integer or "4k"/"1MiB" string -> int64_t bytes */
    RP_OPT_DOUBLE,  /* number -> double */
    RP_OPT_BOOL,    /* true/false (or 0/1) -> int */
    RP_OPT_ENUM,    /* one of choices -> int index */
    RP_OPT_STR,     /* string -> char* */
    RP_OPT_PATHS,   /* array of relative/absolute paths -> char**, count */
    RP_OPT_DOUBLES, /* array of numbers -> double*, count */
    RP_OPT_OBJ,     /* nested object (sub-table), stored inline */
    RP_OPT_OBJS,    /* array of objects (sub-table) -> T*, count */
};

struct rp_table;

struct rp_opt {
    const char *name;
    enum rp_opt_type type;
    size_t off;
    const char *def; /* default as text; NULL: -1 for numbers/bools/enums, empty otherwise */
    double min, max; /* inclusive range for numbers; max elements for arrays */
    const char *const *choices; /* RP_OPT_ENUM, NULL-terminated */
    const struct rp_table *sub; /* RP_OPT_OBJ / RP_OPT_OBJS */
    size_t count_off; /* arrays: where the element count lives */
    int required;
    const char *help;
};

struct rp_table {
    const char *name; /* for the schema's title */
    const struct rp_opt *opts;
    size_t elem_size;
};

extern const struct rp_table rp_config_table;
extern const struct rp_table rp_hints_table;
extern const struct rp_table rp_fileconf_table;

/* Parses obj into dst (already zeroed) after applying defaults; path is the
 * JSON path of obj ("" for the root); source names the input in messages. */
int rp_table_parse(const struct rp_table *t, json_t *obj, void *dst, const char *path, const char *source);
void rp_table_defaults(const struct rp_table *t, void *dst);
void rp_table_release(const struct rp_table *t, void *dst);
/* JSON Schema (draft 2020-12) of a table, as a jansson tree. */
json_t *rp_table_schema(const struct rp_table *t);
/* Serialises dst (fields equal to "not given" are left out). */
json_t *rp_table_to_json(const struct rp_table *t, const void *dst);
/* "4k", "1MiB", 4096 -> bytes; -1 on syntax error. */
int rp_parse_size(const char *s, int64_t *out);

/* Validation after parsing (config.c). */
int rp_config_validate(struct iolens_replay_config *cfg, const char *source);
/* Bytes from the file's start to the end of the step's transfers for rank me of size (exec.c). */
int64_t rp_step_extent(const struct rp_fileconf *fc, int me, int size);
/* The highest byte that the steps before step (the writes to the same single file) leave
 * written, laid out for the config's ranks, or -1 if none writes it. */
int64_t rp_written_before(const struct iolens_replay_config *cfg, size_t step);
/* Effective hints of one file config: its own over optimization_params. */
void rp_hints_merge(struct rp_hints *out, const struct rp_hints *global, const struct rp_hints *local);
/* Repetitions of rank r in chunk c (imbalance applied); nranks = run size. */
int64_t rp_chunk_reps(const struct rp_fileconf *fc, const struct rp_chunk *c, int rank);
double rp_imbalance(const struct rp_fileconf *fc, int rank);

extern const char *const rp_method_names[];
extern const char *const rp_iface_names[];
extern const char *const rp_access_names[];
extern const char *const rp_fsync_names[];
extern const char *const rp_romio_names[];

#endif
