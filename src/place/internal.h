/* Internal helpers of the place module: a hostile-safe CSV field reader, a
 * string -> index map and a seeded random generator. */
#ifndef IOLENS_PLACE_INTERNAL_H
#define IOLENS_PLACE_INTERNAL_H

#include "iolens/place.h"
#include "util/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Longest field accepted (ids, numbers): longer is a format error. */
#define PLACE_CSV_FIELD_MAX 65536

/* Reads a CSV held in memory one field at a time (RFC 4180 quoting, LF or
 * CRLF line ends, blank lines skipped). */
typedef struct place_csv {
    const char *data;
    size_t len;
    size_t pos;
    const char *name; /* file name for messages */
    size_t line;      /* 1-based line of the current field */
    size_t off;       /* byte offset of the current field */
    int eol;          /* the last field read ended its record */
    iol_buf field;    /* the current field, unescaped, NUL-terminated */
} place_csv;

void place_csv_init(place_csv *c, const char *data, size_t len, const char *name);
void place_csv_release(place_csv *c);
/* 1 when a field was read, 0 at the end of the data (only at a record
 * start), negative on malformed input. */
int place_csv_field(place_csv *c);
/* Reads the next field of the current record; a missing field (record
 * already ended) is a format error naming what was expected. */
int place_csv_need(place_csv *c, const char *what);
/* Parses the current field as a finite double (surrounding blanks allowed). */
int place_csv_double(const place_csv *c, double *v, const char *what);
/* Skips the rest of the current record. */
int place_csv_skip_record(place_csv *c);
/* Duplicates the current field as an identifier (no NUL bytes, not empty). */
int place_csv_strdup(const place_csv *c, char **out, const char *what);

/* Open-addressing map from NUL-terminated keys (owned by the caller) to
 * indices. */
typedef struct place_map {
    const char **keys;
    size_t *vals;
    size_t cap; /* power of two, 0 when empty */
    size_t n;
} place_map;

/* Index of key or -1. */
long place_map_get(const place_map *m, const char *key);
/* Inserts key -> val (key must be absent). */
int place_map_put(place_map *m, const char *key, size_t val);
void place_map_release(place_map *m);

/* splitmix64: small, seedable, good enough for drawing workloads. */
typedef struct place_rng {
    uint64_t s;
} place_rng;

static inline uint64_t place_rng_next(place_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double place_rng_unit(place_rng *r)
{
    return (double)(place_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n > 0. */
static inline size_t place_rng_below(place_rng *r, size_t n)
{
    return (size_t)(place_rng_unit(r) * (double)n) % n;
}

/* Derives independent seeds for sub-experiments. */
static inline uint64_t place_seed_mix(uint64_t a, uint64_t b)
{
    place_rng r = {a ^ (b * 0xd1b54a32d192ed03ULL)};
    place_rng_next(&r);
    return place_rng_next(&r);
}

#endif
