/* Internals shared by the files of src/detect (not part of the public API). */
#ifndef IOLENS_DETECT_INTERNAL_H
#define IOLENS_DETECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/detect.h"
#include "util/idpart.h"

/* Feature indices in model order, from features.def. */
enum iol_feature_index {
#define IOL_FEATURE(name) FI_##name,
#include "features.def"
#undef IOL_FEATURE
    FI_COUNT
};

/* Indices of the three extra raw aggregates (iolens_detect_derive). */
enum { EX_MPIIO_NB_READS, EX_POSIX_OPEN_START, EX_POSIX_CLOSE_END, EX_COUNT };

/* Open-addressing map uint64 -> int64 (keys of any value; growth doubles). */
typedef struct iol_u64map {
    uint64_t *keys;
    int64_t *vals;
    unsigned char *used;
    size_t cap; /* power of two or 0 */
    size_t len;
} iol_u64map;

/* Returns the slot of key (inserting it with value init if absent), or -1 on ENOMEM. */
long iol_u64map_slot(iol_u64map *m, uint64_t key, int64_t init);
/* Slot of key or -1 if absent. */
long iol_u64map_find(const iol_u64map *m, uint64_t key);
void iol_u64map_release(iol_u64map *m);

/* Splitmix64 random numbers (seeded, no global state). */
uint64_t iol_rand_next(uint64_t *state);
double iol_rand_unit(uint64_t *state); /* [0,1) */

/* iolens_detect_read_darshan() with options (tests compare with the text path):
 * IOL_DD_TEXT_ROUNDING rounds every fcounter as darshan-parser prints it ("%f") and the
 * run time as "%.4f"; IOL_DD_ALL_RECORDS decodes and gives the records of every module
 * (by default only POSIX, MPI-IO and STDIO, whose counters the features use). */
enum { IOL_DD_TEXT_ROUNDING = 1, IOL_DD_ALL_RECORDS = 2 };

/* Reading in passes, for logs of more files than memory holds at once: after
 * begin_parts(in, P) (before the first record), pass 0 gives every record (the
 * job-level aggregates, and the per-file evidence of the files of part 0), and pass
 * p > 0, after next_part(), the records of the files of part p
 * (iol_id_part(id, P) == p, util/idpart.h) only. The features are those of one pass; the
 * top files are exact up to IOL_DETECT_KEPT. */
#define IOL_DETECT_KEPT 256
int iol_detect_input_begin_parts(iolens_detect_input *in, unsigned nparts);
int iol_detect_input_next_part(iolens_detect_input *in);
int iol_detect_read_darshan_opt(iolens_detect_input **out, const char *path, iolens_warn_fn warn, void *warn_ctx,
                                int opts);
/* ... reading a log of more than files_per_pass names (0: IOL_DETECT_FILES_PER_PASS) in
 * passes, each holding the names and evidence of that many files at most. */
#define IOL_DETECT_FILES_PER_PASS 131072
int iol_detect_read_darshan_passes(iolens_detect_input **out, const char *path, iolens_warn_fn warn,
                                   void *warn_ctx, int opts, size_t files_per_pass);

#endif
