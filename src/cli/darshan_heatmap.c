/* `iolens darshan --heatmap`: the job-level HEATMAP series (summed over ranks)
 * as CSV, in the layout of ../shared/data/timeseries/heatmap_job.csv. */
#include "darshan_modes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define MAX_CATS 16

struct hm_cat {
    uint64_t id;         /* record id of "heatmap:<API>" (0 until seen in names) */
    char name[32];       /* "POSIX", "MPIIO", "STDIO" */
    double width;
    int64_t nbins;
    int64_t *read, *write, *active;
    int seen;            /* has records */
};

static int cmp_cat(const void *a, const void *b)
{
    return strcmp(((const struct hm_cat *)a)->name, ((const struct hm_cat *)b)->name);
}

static int grow(struct hm_cat *c, int64_t nb)
{
    if (nb <= c->nbins)
        return 0;
    int64_t *r = realloc(c->read, (size_t)nb * sizeof *r);
    if (!r)
        return -1;
    c->read = r;
    int64_t *w = realloc(c->write, (size_t)nb * sizeof *w);
    if (!w)
        return -1;
    c->write = w;
    int64_t *a = realloc(c->active, (size_t)nb * sizeof *a);
    if (!a)
        return -1;
    c->active = a;
    for (int64_t b = c->nbins; b < nb; b++)
        c->read[b] = c->write[b] = c->active[b] = 0;
    c->nbins = nb;
    return 0;
}

int iol_darshan_print_heatmap(FILE *out, const char *path, int header)
{
    struct hm_cat cats[MAX_CATS];
    size_t ncats = 0;
    iolens_darshan_log *log = NULL;
    memset(cats, 0, sizeof cats);
    int rc = iolens_darshan_open(path, NULL, NULL, &log);
    if (rc < 0)
        goto out;
    if ((rc = iolens_darshan_names_begin(log)) < 0)
        goto out;
    uint64_t id;
    const char *name;
    while ((rc = iolens_darshan_names_next(log, &id, &name)) > 0) {
        if (strncmp(name, "heatmap:", 8) != 0 || ncats == MAX_CATS)
            continue;
        size_t k;
        for (k = 0; k < ncats && cats[k].id != id; k++)
            ;
        if (k == ncats) {
            cats[ncats].id = id;
            snprintf(cats[ncats].name, sizeof cats[ncats].name, "%s", name + 8);
            ncats++;
        }
    }
    if (rc < 0)
        goto out;
    if ((rc = iolens_darshan_module_begin(log, IOLENS_DARSHAN_HEATMAP)) <= 0)
        goto done; /* no HEATMAP module: header only */
    const iolens_darshan_record *r;
    while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
        size_t k;
        for (k = 0; k < ncats && cats[k].id != r->id; k++)
            ;
        if (k == ncats)
            continue; /* a heatmap record without a name: the reference cannot place it either */
        struct hm_cat *c = &cats[k];
        if (!c->seen)
            c->width = r->heatmap.bin_width;
        c->seen = 1;
        if (grow(c, r->heatmap.nbins) < 0) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
            goto out;
        }
        for (int64_t b = 0; b < r->heatmap.nbins; b++) {
            int64_t rd = r->heatmap.read_bins[b], wr = r->heatmap.write_bins[b];
            c->read[b] = (int64_t)((uint64_t)c->read[b] + (uint64_t)rd);
            c->write[b] = (int64_t)((uint64_t)c->write[b] + (uint64_t)wr);
            if (rd || wr)
                c->active[b]++;
        }
    }
    if (rc < 0)
        goto out;
done:
    rc = 0;
    if (header)
        fputs("log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks\n", out);
    qsort(cats, ncats, sizeof *cats, cmp_cat);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t k = 0; k < ncats; k++) {
        const struct hm_cat *c = &cats[k];
        for (int64_t b = 0; b < c->nbins; b++)
            fprintf(out, "%s,%s,%.6f,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", base, c->name,
                    c->width, b, c->read[b], c->write[b], c->active[b]);
    }
out:
    for (size_t k = 0; k < MAX_CATS; k++) {
        free(cats[k].read);
        free(cats[k].write);
        free(cats[k].active);
    }
    iolens_darshan_close(log);
    return rc;
}
