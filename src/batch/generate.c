/*
 * Test corpora at scale: real logs rewritten with varied identities and durations through
 * the log writer (iolens_darshan_convert), and a seeded fraction made unreadable.
 */
#define _GNU_SOURCE
#include "iolens/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolens/darshan.h"
#include "util/error.h"

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Makes path unreadable: cut at a random length or bytes flipped past the header; checked
 * by summarising it (the reader every task uses), and cut to 40 bytes (inside the header)
 * if it still reads. */
static int spoil(const char *path, uint64_t *rng)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return iol_err(IOLENS_EIO, "cannot stat '%s': %s", path, strerror(errno));
    off_t size = sb.st_size;
    int rc = 0;
    if (splitmix(rng) & 1) {
        off_t cut = size > 200 ? 100 + (off_t)(splitmix(rng) % (uint64_t)(size - 150)) : size / 2;
        rc = truncate(path, cut);
    } else {
        int fd = open(path, O_RDWR);
        rc = fd < 0 ? -1 : 0;
        for (int k = 0; k < 32 && fd >= 0 && size > 300; k++) {
            off_t at = size / 3 + (off_t)(splitmix(rng) % (uint64_t)(size - size / 3));
            unsigned char b;
            if (pread(fd, &b, 1, at) == 1) {
                b ^= 0xA5;
                if (pwrite(fd, &b, 1, at) != 1)
                    rc = -1;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    if (rc != 0)
        return iol_err(IOLENS_EIO, "cannot change '%s': %s", path, strerror(errno));
    iolens_darshan_summary s;
    if (iolens_darshan_summarize(path, &s) == 0) { /* still reads: cut inside the header */
        iolens_darshan_summary_release(&s);
        if (truncate(path, 40) != 0)
            return iol_err(IOLENS_EIO, "cannot change '%s': %s", path, strerror(errno));
    }
    return 0;
}

int iolens_batch_generate(const char *const *seeds, size_t nseeds, size_t n, double corrupt, uint64_t seed,
                          const char *dir, void (*progress)(void *ctx, uint64_t done, uint64_t total), void *ctx)
{
    if (!seeds || !nseeds || !dir)
        return iol_err(IOLENS_EINVAL, "iolens_batch_generate: no seed log or no folder");
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return iol_err(IOLENS_EIO, "cannot create '%s': %s", dir, strerror(errno));
    char lp[4096];
    snprintf(lp, sizeof lp, "%s/corrupt.txt", dir);
    FILE *list = fopen(lp, "w");
    if (!list)
        return iol_err(IOLENS_EIO, "cannot create '%s': %s", lp, strerror(errno));
    uint64_t rng = seed ^ 0x696f6c656e73ull;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char out[4096];
        snprintf(out, sizeof out, "%s/gen-%07zu.darshan", dir, i);
        iolens_darshan_convert_opts co;
        memset(&co, 0, sizeof co);
        co.obfuscate = IOLENS_DARSHAN_OBF_ALL;
        co.key = (uint32_t)splitmix(&rng);
        co.time_scale = 0.5 + 1.5 * (double)(splitmix(&rng) >> 11) / 9007199254740992.0;
        int bad = (double)(splitmix(&rng) >> 11) / 9007199254740992.0 < corrupt;
        if ((rc = iolens_darshan_convert(seeds[i % nseeds], out, &co, NULL, NULL)) < 0)
            break;
        if (bad) {
            if ((rc = spoil(out, &rng)) < 0)
                break;
            fprintf(list, "%s\n", out);
        }
        if (progress)
            progress(ctx, i + 1, n);
    }
    if (fclose(list) != 0 && rc == 0)
        rc = iol_err(IOLENS_EIO, "cannot write '%s'", lp);
    return rc;
}
