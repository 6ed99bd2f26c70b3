/* iolens_counters_write: the computed counters as a Darshan log, through the log writer
 * (src/darshan/write.c). */
#include "counters/internal.h"

#include <stdlib.h>

#include "util/error.h"

int iolens_counters_write(const iolens_counters *c, const char *path)
{
    if (!c || !path)
        return iol_err(IOLENS_EINVAL, "iolens_counters_write: NULL argument");
    iolens_darshan_image img = {0};
    const iolens_darshan_record **ptrs[IOLENS_DARSHAN_MOD_COUNT] = {0};
    int rc = 0;
    img.job = iolens_counters_job(c);
    img.mounts = c->mounts;
    img.nmounts = c->nmounts;
    img.name_ids = c->name_ids;
    img.names = (const char *const *)c->names;
    img.nnames = c->nnames;
    img.comp = IOLENS_DARSHAN_COMP_ZLIB;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t n = iolens_counters_count(c, m);
        if (n == 0)
            continue;
        ptrs[m] = malloc(n * sizeof *ptrs[m]);
        if (!ptrs[m]) {
            rc = iol_err(IOLENS_ENOMEM, "cannot write '%s': out of memory", path);
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            ptrs[m][i] = iolens_counters_record(c, m, i);
        img.records[m] = ptrs[m];
        img.nrecords[m] = n;
    }
    rc = iolens_darshan_write(&img, path);
out:
    for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        free(ptrs[m]);
    return rc;
}
