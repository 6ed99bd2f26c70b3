/* Internals shared by the files of src/detect (not part of the public API). */
#ifndef IOLENS_DETECT_INTERNAL_H
#define IOLENS_DETECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/detect.h"

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

#endif
