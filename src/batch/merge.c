/*
 * iolens batch --merge: the part files of every rank and run joined in input order, each log
 * once. A part file holds its rank's logs in increasing index order (a rank takes blocks of
 * the list in order), so the join is a k-way merge that keeps one record per file in memory.
 * A record is complete when it ends with a line break outside quotes; the one a killed run
 * was writing is left out.
 */
#define _GNU_SOURCE
#include "iolens/batch.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/internal.h"
#include "util/error.h"

struct src {
    FILE *f;
    char *rec; /* the current record (NULL: none left) */
    size_t cap, len;
    uint64_t idx;
};

/* Reads the next complete record of s (CSV: quotes balanced across lines). */
static void next_record(struct src *s, int csv)
{
    s->len = 0;
    for (;;) {
        char *line = NULL;
        size_t lc = 0;
        ssize_t got = getline(&line, &lc, s->f);
        if (got <= 0) {
            free(line);
            s->len = 0;
            break;
        }
        if (s->len + (size_t)got + 1 > s->cap) {
            size_t nc = (s->len + (size_t)got + 1) * 2;
            char *nr = realloc(s->rec, nc);
            if (!nr) {
                free(line);
                s->len = 0;
                break;
            }
            s->rec = nr;
            s->cap = nc;
        }
        memcpy(s->rec + s->len, line, (size_t)got + 1);
        s->len += (size_t)got;
        free(line);
        if (s->rec[s->len - 1] != '\n')
            continue; /* at the end of the file: cut, dropped below */
        size_t q = 0;
        for (size_t i = 0; i < s->len; i++)
            q += s->rec[i] == '"';
        if (csv && (q & 1))
            continue; /* a quoted field with a line break goes on */
        char *end = NULL;
        const char *p = csv ? s->rec : strstr(s->rec, "\"index\":");
        unsigned long long v = p ? strtoull(csv ? p : p + 8, &end, 10) : 0;
        if (!p || end == (csv ? p : p + 8)) {
            s->len = 0; /* not a row of ours: skip it */
            continue;
        }
        s->idx = v;
        return;
    }
    if (s->f) {
        fclose(s->f);
        s->f = NULL;
    }
}

/* Joins dir/STEM.R.G.EXT into dir/STEM.EXT; *nrec gets the logs written. A log's rows (one,
 * or one per bin) are those of the first part that has it: a log done again after a kill is
 * written once. */
static int join(const char *dir, const char *stem, const char *ext, uint64_t *nrec)
{
    DIR *d = opendir(dir);
    if (!d)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", dir, strerror(errno));
    struct src *v = NULL;
    size_t nv = 0, cap = 0;
    int rc = 0, csv = !strcmp(ext, "csv");
    char *header = NULL;
    struct dirent *e;
    size_t sl = strlen(stem);
    while (rc == 0 && (e = readdir(d))) {
        int r, g, k = 0;
        if (strncmp(e->d_name, stem, sl) || e->d_name[sl] != '.')
            continue;
        if (sscanf(e->d_name + sl, ".%d.%d.%n", &r, &g, &k) != 2 || strcmp(e->d_name + sl + k, ext))
            continue;
        if (nv == cap) {
            size_t nc = cap ? cap * 2 : 16;
            struct src *nvv = realloc(v, nc * sizeof *nvv);
            if (!nvv) {
                rc = iol_err(IOLENS_ENOMEM, "out of memory");
                break;
            }
            v = nvv;
            cap = nc;
        }
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct src *s = &v[nv];
        memset(s, 0, sizeof *s);
        if (!(s->f = fopen(p, "r"))) {
            rc = iol_err(IOLENS_EIO, "cannot open '%s': %s", p, strerror(errno));
            break;
        }
        nv++;
        if (csv) { /* the header line */
            char *line = NULL;
            size_t lc = 0;
            ssize_t got = getline(&line, &lc, s->f);
            if (got > 0 && !header)
                header = line;
            else
                free(line);
        }
        next_record(s, csv);
    }
    closedir(d);
    *nrec = 0;
    if (rc == 0 && nv == 0) { /* this task was not run */
        free(v);
        free(header);
        return 0;
    }
    char out[4096], tmp[4200];
    snprintf(out, sizeof out, "%s/%s.%s", dir, stem, ext);
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *o = rc == 0 ? fopen(tmp, "w") : NULL;
    if (rc == 0 && !o)
        rc = iol_err(IOLENS_EIO, "cannot create '%s': %s", tmp, strerror(errno));
    if (o && header)
        fputs(header, o);
    uint64_t last = UINT64_MAX;
    const struct src *owner = NULL; /* the part whose rows of log `last` are kept */
    *nrec = 0;
    while (rc == 0) {
        struct src *m = NULL;
        for (size_t i = 0; i < nv; i++)
            if (v[i].len && (!m || v[i].idx < m->idx))
                m = &v[i];
        if (!m)
            break;
        if (m->idx != last) { /* a log's first row: its rows come from this part only */
            fwrite(m->rec, 1, m->len, o);
            (*nrec)++;
            last = m->idx;
            owner = m;
        } else if (m == owner) { /* more rows of the log (heatmap: one per bin) */
            fwrite(m->rec, 1, m->len, o);
        }
        next_record(m, csv);
    }
    for (size_t i = 0; i < nv; i++) {
        if (v[i].f)
            fclose(v[i].f);
        free(v[i].rec);
    }
    free(v);
    free(header);
    if (o && (fclose(o) != 0 || rename(tmp, out) != 0) && rc == 0)
        rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", out, strerror(errno));
    if (rc)
        unlink(tmp);
    return rc;
}

int iolens_batch_merge(const char *dir, uint64_t *missing, iolens_batch_stats *st)
{
    iolens_batch_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    struct iol_batch_list list = {0};
    int rc = iol_batch_list_read(dir, &list);
    if (rc < 0)
        return rc;
    st->inputs = list.n;
    unsigned char *seen = calloc(list.n ? list.n : 1, 1);
    if (!seen) {
        iol_batch_list_free(&list);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    static const char *const stems[] = {"summary", "features", "detect", "heatmap", "errors"};
    uint64_t most = 0;
    for (size_t k = 0; k < 5 && rc == 0; k++) {
        uint64_t a = 0, b = 0;
        if ((rc = join(dir, stems[k], "csv", &a)) == 0)
            rc = join(dir, stems[k], "jsonl", &b);
        if (k == 4)
            st->errors = a;
        else if (k == 3) /* a log without a HEATMAP module has no heatmap rows */
            ;
        else if (a > most) {
            most = a;
        }
    }
    /* a log is done when a manifest says so (its rows may be written before a kill without it) */
    uint64_t ndone = 0;
    if (rc == 0) {
        memset(seen, 0, list.n ? list.n : 1);
        rc = iol_batch_read_manifests(dir, seen, list.n, &ndone);
    }
    uint64_t miss = 0;
    for (size_t i = 0; i < list.n; i++)
        miss += !seen[i];
    st->ok = most;
    if (missing)
        *missing = miss;
    free(seen);
    iol_batch_list_free(&list);
    return rc;
}
