#ifndef IOLENS_UTIL_STRINDEX_H
#define IOLENS_UTIL_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

/* An index of strings the caller keeps in its own array, by their position in it: open
 * addressing over position + 1 (0 = empty), kept at most half full. The caller appends a
 * string to its array, then records the position at the slot iol_strindex_find gave. */
typedef struct iol_strindex {
    size_t *slot;
    size_t cap; /* a power of two, or 0 */
} iol_strindex;

/* The string at position i of the caller's array. */
typedef const char *(*iol_strindex_key)(const void *ctx, size_t i);

/* FNV-1a (Fowler, Noll and Vo) over 64 bits, from the basis these tables have always used. */
static inline uint64_t iol_mem_hash(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static inline uint64_t iol_str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h;
}

/* Room for one string more than the n indexed: 0, or -1 when out of memory (the index is
 * unchanged then). */
int iol_strindex_reserve(iol_strindex *x, size_t n, iol_strindex_key key, const void *ctx);

/* The position of s, or -1 with *at the empty slot where its position goes (after a reserve). */
long iol_strindex_find(const iol_strindex *x, const char *s, iol_strindex_key key, const void *ctx, size_t *at);

static inline void iol_strindex_set(iol_strindex *x, size_t at, size_t pos) { x->slot[at] = pos + 1; }

/* Empties the index (its memory kept) or frees it. */
void iol_strindex_clear(iol_strindex *x);
void iol_strindex_free(iol_strindex *x);

#endif
