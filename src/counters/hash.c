/* Bob Jenkins' 64-bit "lookup8" hash (public domain algorithm, 1997), written
 * from its description: the key is consumed in 24-byte blocks as three
 * little-endian 64-bit words added to a, b, c (initialised to level, level and
 * the golden ratio 0x9e3779b97f4a7c13), each block followed by the 64-bit mix;
 * the tail (< 24 bytes) is added byte-wise (c's lowest byte is reserved for the
 * length, so c takes tail bytes 16..22 shifted one byte up), then a last mix.
 * Darshan names records by hash(path, strlen(path), 0). */
#include "iolens/counters.h"

#define MIX64(a, b, c)                                                                              \
    do {                                                                                            \
        a -= b; a -= c; a ^= (c >> 43);                                                             \
        b -= c; b -= a; b ^= (a << 9);                                                              \
        c -= a; c -= b; c ^= (b >> 8);                                                              \
        a -= b; a -= c; a ^= (c >> 38);                                                             \
        b -= c; b -= a; b ^= (a << 23);                                                             \
        c -= a; c -= b; c ^= (b >> 5);                                                              \
        a -= b; a -= c; a ^= (c >> 35);                                                             \
        b -= c; b -= a; b ^= (a << 49);                                                             \
        c -= a; c -= b; c ^= (b >> 11);                                                             \
        a -= b; a -= c; a ^= (c >> 12);                                                             \
        b -= c; b -= a; b ^= (a << 18);                                                             \
        c -= a; c -= b; c ^= (b >> 22);                                                             \
    } while (0)

static uint64_t le64(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint64_t iolens_darshan_hash(const void *key, size_t len, uint64_t level)
{
    const unsigned char *k = key;
    uint64_t a = level, b = level, c = 0x9e3779b97f4a7c13ull;
    size_t left = len;
    while (left >= 24) {
        a += le64(k, 8);
        b += le64(k + 8, 8);
        c += le64(k + 16, 8);
        MIX64(a, b, c);
        k += 24;
        left -= 24;
    }
    c += (uint64_t)len;
    /* tail: bytes 0..7 into a, 8..15 into b, 16..22 into c's bytes 1..7 */
    if (left > 16) {
        c += le64(k + 16, left - 16) << 8;
        b += le64(k + 8, 8);
        a += le64(k, 8);
    } else if (left > 8) {
        b += le64(k + 8, left - 8);
        a += le64(k, 8);
    } else {
        a += le64(k, left);
    }
    MIX64(a, b, c);
    return c;
}
