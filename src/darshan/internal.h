/* Private pieces of the Darshan reader shared by its source files. */
#ifndef IOLENS_DARSHAN_INTERNAL_H
#define IOLENS_DARSHAN_INTERNAL_H

#include "iolens/darshan.h"

#include <bzlib.h>
#include <stdio.h>
#include <zlib.h>

#include "darshan/counters.h"

/* Named counter indices of the current versions: IOL_DC_POSIX_OPENS, ... */
#define IOL_DC_ENUM(n) IOL_DC_##n,
enum { IOL_DARSHAN_POSIX_I(IOL_DC_ENUM) IOL_DC_POSIX_NUM_I };
enum { IOL_DARSHAN_POSIX_F(IOL_DC_ENUM) IOL_DC_POSIX_NUM_F };
enum { IOL_DARSHAN_MPIIO_I(IOL_DC_ENUM) IOL_DC_MPIIO_NUM_I };
enum { IOL_DARSHAN_MPIIO_F(IOL_DC_ENUM) IOL_DC_MPIIO_NUM_F };
enum { IOL_DARSHAN_STDIO_I(IOL_DC_ENUM) IOL_DC_STDIO_NUM_I };
enum { IOL_DARSHAN_STDIO_F(IOL_DC_ENUM) IOL_DC_STDIO_NUM_F };
enum { IOL_DARSHAN_H5F_I(IOL_DC_ENUM) IOL_DC_H5F_NUM_I };
enum { IOL_DARSHAN_H5F_F(IOL_DC_ENUM) IOL_DC_H5F_NUM_F };
enum { IOL_DARSHAN_H5D_I(IOL_DC_ENUM) IOL_DC_H5D_NUM_I };
enum { IOL_DARSHAN_H5D_F(IOL_DC_ENUM) IOL_DC_H5D_NUM_F };
enum { IOL_DARSHAN_PNETCDF_FILE_I(IOL_DC_ENUM) IOL_DC_PNETCDF_FILE_NUM_I };
enum { IOL_DARSHAN_PNETCDF_FILE_F(IOL_DC_ENUM) IOL_DC_PNETCDF_FILE_NUM_F };
enum { IOL_DARSHAN_PNETCDF_VAR_I(IOL_DC_ENUM) IOL_DC_PNETCDF_VAR_NUM_I };
enum { IOL_DARSHAN_PNETCDF_VAR_F(IOL_DC_ENUM) IOL_DC_PNETCDF_VAR_NUM_F };
#undef IOL_DC_ENUM

#define IOL_DARSHAN_IOBUF 65536

/* A compressed region read incrementally (one or more concatenated streams). */
typedef struct iol_region {
    const char *what;     /* "job data", "record table", "POSIX module", ... */
    uint64_t off, len;    /* compressed extent in the file */
    uint64_t fed;         /* compressed bytes read from the file so far */
    uint64_t produced;    /* decompressed bytes produced so far */
    uint64_t cap;         /* at most that many (reader.c, inflate_cap; 0: not worked out yet) */
    unsigned char *in;    /* IOL_DARSHAN_IOBUF bytes */
    unsigned char *out;   /* IOL_DARSHAN_IOBUF bytes */
    size_t out_pos, out_len;
    z_stream z;
    bz_stream bz;
    int inited;           /* decompressor initialised for the current stream */
    int finished;         /* no more data */
    int comp;
} iol_region;

struct iolens_darshan_log {
    char *path;
    FILE *f;
    iolens_warn_fn warn;
    void *warn_ctx;
    iolens_darshan_header hdr;
    iolens_darshan_job job;
    char *exe_mnt;              /* job region string: exe then mount lines */
    char *exe;
    iolens_darshan_mount *mounts;
    size_t nmounts;
    int exe_terminated; /* iolens_darshan_exe_terminated() */
    char *mount_strings;
    iol_region reg;             /* the region being iterated */
    int reg_open;
    int cur_module;             /* module of the current record iteration, -1 for names */
    unsigned char *in_buf, *out_buf;
    /* current name */
    char *name_buf;
    size_t name_cap;
    /* current record storage */
    iolens_darshan_record rec;
    int64_t *ctr;
    double *fctr;
    size_t ctr_cap, fctr_cap;
    unsigned char *raw;         /* raw on-disk bytes of fixed-size records */
    size_t raw_cap;
    void *var;                  /* variable parts (lustre comps/osts, heatmap bins, dxt segs) */
    size_t var_cap;
    void *var2;
    size_t var2_cap;
};

/* reader.c */
int iol_region_open(iolens_darshan_log *log, iol_region *r, const char *what, uint64_t off,
                    uint64_t len);
void iol_region_close(iol_region *r);
/* Reads up to n bytes; returns the count (< n only at the end of the region) or < 0. */
long long iol_region_read(iolens_darshan_log *log, iol_region *r, void *dst, size_t n);
/* Reads exactly n bytes; a short read is a "truncated" error naming `what`. */
int iol_region_read_full(iolens_darshan_log *log, iol_region *r, void *dst, size_t n,
                         const char *what);
/* Reads exactly n bytes into a growing buffer, allocating only as data
 * arrives (so a corrupt count cannot allocate more than the data holds). */
int iol_region_read_grow(iolens_darshan_log *log, iol_region *r, void **buf, size_t *cap,
                         size_t n, const char *what);
int iol_region_error(iolens_darshan_log *log, iol_region *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void iol_darshan_warn(iolens_darshan_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

uint64_t iol_bswap64(uint64_t v);
uint32_t iol_bswap32(uint32_t v);

/* records.c */
int iol_darshan_module_supported(int module, uint32_t version);
int iol_darshan_decode_next(iolens_darshan_log *log);

/* summary.c: iolens_darshan_summarize with at most max_ids distinct file ids held at once:
 * a log of more is read again over parts of its ids (chosen by a hash), each part counted
 * in its own pass. IOL_SUMMARY_MAX_IDS (2^21 - 1: the set stays at 2^22 slots, 32 MiB) bounds
 * the library's summary. */
#define IOL_SUMMARY_MAX_IDS (((size_t)1 << 21) - 1)
int iol_darshan_summarize_bounded(const char *path, iolens_darshan_summary *s, size_t max_ids);
/* summary.c: the fields of a summary into an open JSON object (after "log") */
struct iol_jsonw;
void iol_darshan_summary_jsonw(struct iol_jsonw *w, const iolens_darshan_summary *s);

#endif
