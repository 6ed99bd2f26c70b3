#ifndef IOLENS_UTIL_IDPART_H
#define IOLENS_UTIL_IDPART_H

#include <stdint.h>

/* Which of nparts parts a record id falls in, for a log read in passes over parts of its
 * files (features, detection and the summary of logs of very many files). Ids are hashes
 * already; they are mixed again all the same. */
static inline unsigned iol_id_part(uint64_t id, unsigned nparts)
{
    if (nparts <= 1)
        return 0;
    uint64_t z = id * 0x9E3779B97F4A7C15ull;
    z ^= z >> 29;
    return (unsigned)(z % nparts);
}

#endif
