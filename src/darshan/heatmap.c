/* The job-level HEATMAP series of a Darshan log (include/iolens/darshan.h): per API, the bytes
 * read and written in each bin summed over ranks, and how many ranks were active in it. */
#include "darshan/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

#define MAX_CATS 16

struct cat {
    uint64_t id; /* record id of "heatmap:<API>" */
    iolens_darshan_heatmap_series s;
};

static int cmp_series(const void *a, const void *b)
{
    return strcmp(((const iolens_darshan_heatmap_series *)a)->api, ((const iolens_darshan_heatmap_series *)b)->api);
}

static int grow(iolens_darshan_heatmap_series *c, int64_t nb)
{
    if (nb <= c->nbins)
        return 0;
    int64_t *r = realloc(c->read_bytes, (size_t)nb * sizeof *r);
    if (!r)
        return -1;
    c->read_bytes = r;
    int64_t *w = realloc(c->write_bytes, (size_t)nb * sizeof *w);
    if (!w)
        return -1;
    c->write_bytes = w;
    int64_t *a = realloc(c->active_ranks, (size_t)nb * sizeof *a);
    if (!a)
        return -1;
    c->active_ranks = a;
    for (int64_t b = c->nbins; b < nb; b++)
        c->read_bytes[b] = c->write_bytes[b] = c->active_ranks[b] = 0;
    c->nbins = nb;
    return 0;
}

int iolens_darshan_heatmap_read(const char *path, iolens_darshan_heatmap *out)
{
    struct cat cats[MAX_CATS];
    int seen[MAX_CATS] = {0};
    size_t ncats = 0;
    iolens_darshan_log *log = NULL;
    memset(cats, 0, sizeof cats);
    memset(out, 0, sizeof *out);
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
            snprintf(cats[ncats].s.api, sizeof cats[ncats].s.api, "%s", name + 8);
            ncats++;
        }
    }
    if (rc < 0)
        goto out;
    if ((rc = iolens_darshan_module_begin(log, IOLENS_DARSHAN_HEATMAP)) <= 0)
        goto done; /* no HEATMAP module: no series */
    const iolens_darshan_record *r;
    while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
        size_t k;
        for (k = 0; k < ncats && cats[k].id != r->id; k++)
            ;
        if (k == ncats)
            continue; /* a heatmap record without a name: darshan-util cannot place it either */
        iolens_darshan_heatmap_series *c = &cats[k].s;
        if (!seen[k])
            c->bin_width = r->heatmap.bin_width;
        seen[k] = 1;
        if (grow(c, r->heatmap.nbins) < 0) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
            goto out;
        }
        for (int64_t b = 0; b < r->heatmap.nbins; b++) {
            int64_t rd = r->heatmap.read_bins[b], wr = r->heatmap.write_bins[b];
            c->read_bytes[b] = (int64_t)((uint64_t)c->read_bytes[b] + (uint64_t)rd);
            c->write_bytes[b] = (int64_t)((uint64_t)c->write_bytes[b] + (uint64_t)wr);
            if (rd || wr)
                c->active_ranks[b]++;
        }
    }
    if (rc < 0)
        goto out;
done:
    rc = 0;
    out->series = calloc(ncats ? ncats : 1, sizeof *out->series);
    if (!out->series) {
        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
        goto out;
    }
    for (size_t k = 0; k < ncats; k++) {
        out->series[k] = cats[k].s;
        memset(&cats[k].s, 0, sizeof cats[k].s); /* owned by out now */
    }
    out->n = ncats;
    qsort(out->series, out->n, sizeof *out->series, cmp_series);
out:
    for (size_t k = 0; k < MAX_CATS; k++) {
        free(cats[k].s.read_bytes);
        free(cats[k].s.write_bytes);
        free(cats[k].s.active_ranks);
    }
    iolens_darshan_close(log);
    return rc;
}

void iolens_darshan_heatmap_release(iolens_darshan_heatmap *h)
{
    if (!h)
        return;
    for (size_t k = 0; k < h->n; k++) {
        free(h->series[k].read_bytes);
        free(h->series[k].write_bytes);
        free(h->series[k].active_ranks);
    }
    free(h->series);
    memset(h, 0, sizeof *h);
}

void iolens_darshan_heatmap_csv_header(FILE *out, const char *first_columns)
{
    if (first_columns && *first_columns)
        fprintf(out, "%s,", first_columns);
    fputs("log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks\n", out);
}

void iolens_darshan_heatmap_csv_rows(FILE *out, const iolens_darshan_heatmap *h, const char *prefix, const char *log)
{
    for (size_t k = 0; k < h->n; k++) {
        const iolens_darshan_heatmap_series *c = &h->series[k];
        for (int64_t b = 0; b < c->nbins; b++) {
            if (prefix && *prefix)
                fprintf(out, "%s,", prefix);
            iol_csv_field(out, log);
            fprintf(out, ",%s,%.6f,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", c->api, c->bin_width, b,
                    c->read_bytes[b], c->write_bytes[b], c->active_ranks[b]);
        }
    }
}
