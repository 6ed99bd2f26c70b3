/* The clustering result: run dispatch, accessors, output files (CSV, SVG). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/internal.h"
#include "util/buf.h"
#include "util/stats.h"
#include "util/error.h"

static const char *const METHOD_NAMES[IOLENS_CLUSTER_NMETHODS] = {"sage", "sage2", "kmeans",
                                                                 "kshape", "dtw", "random"};

const char *iolens_cluster_method_name(int method)
{
    return method >= 0 && method < IOLENS_CLUSTER_NMETHODS ? METHOD_NAMES[method] : NULL;
}

int iolens_cluster_method_parse(const char *name)
{
    for (int i = 0; name && i < IOLENS_CLUSTER_NMETHODS; i++)
        if (!strcmp(name, METHOD_NAMES[i]))
            return i;
    return -1;
}

void iolens_cluster_opts_init(iolens_cluster_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = IOLENS_CLUSTER_SAGE;
    o->seed = 0;
    o->threads = 2;
    o->window = 5;
    o->genome_len = 60;
    o->resample_len = 300;
    o->kmin = 2;
    o->kmax = 50;
    o->level_kmax = 10;
    o->min_cluster = 5;
    o->elbow_sample = 5000;
    o->fit_sample = 200000;
}

int tser_result_new(struct iolens_clustering **out, int method, size_t n)
{
    struct iolens_clustering *c = calloc(1, sizeof *c);
    if (!c || !(c->labels = calloc(n ? n : 1, sizeof *c->labels))) {
        free(c);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    c->method = method;
    c->n = n;
    *out = c;
    return 0;
}

void iolens_clustering_free(iolens_clustering *c)
{
    if (!c)
        return;
    if (c->names)
        for (size_t i = 0; i < c->k; i++)
            free(c->names[i]);
    free(c->names);
    if (c->sym_names)
        for (size_t i = 0; i < c->nsym; i++)
            free(c->sym_names[i]);
    free(c->sym_names);
    free(c->genome_block);
    free(c->genomes);
    free(c->genome_len);
    free(c->sym_centroids);
    free(c->labels);
    free(c->sizes);
    free(c->centroids);
    free(c);
}

int tser_result_finish(struct iolens_clustering *c, const iolens_series_set *set, size_t clen)
{
    /* drop empty clusters (keeping names aligned), then sizes and centroids */
    size_t *cnt = calloc(c->k ? c->k : 1, sizeof *cnt);
    int *map = malloc((c->k ? c->k : 1) * sizeof *map);
    int rc = 0;
    if (!cnt || !map) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (c->labels[i] < 0 || (size_t)c->labels[i] >= c->k) {
            rc = iol_err(IOLENS_EINVAL, "internal error: label %d out of 0..%zu", c->labels[i], c->k);
            goto done;
        }
        cnt[c->labels[i]]++;
    }
    size_t k = 0;
    for (size_t q = 0; q < c->k; q++) {
        if (!cnt[q]) {
            map[q] = -1;
            if (c->names)
                free(c->names[q]);
            continue;
        }
        map[q] = (int)k;
        if (c->names)
            c->names[k] = c->names[q];
        cnt[k++] = cnt[q];
    }
    for (size_t i = 0; i < c->n; i++)
        c->labels[i] = map[c->labels[i]];
    c->k = k;
    if (!c->names) {
        c->names = calloc(k ? k : 1, sizeof *c->names);
        if (!c->names) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t q = 0; q < k; q++) {
            char buf[24];
            snprintf(buf, sizeof buf, "%zu", q);
            if (!(c->names[q] = strdup(buf))) {
                rc = iol_err(IOLENS_ENOMEM, "out of memory");
                goto done;
            }
        }
    }
    c->sizes = cnt;
    cnt = NULL;
    c->clen = clen;
    c->centroids = calloc((k ? k : 1) * clen, sizeof *c->centroids);
    double *r = malloc(clen * sizeof *r);
    if (!c->centroids || !r) {
        free(r);
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->n; i++) {
        iolens_resample(set->s[i].v, set->s[i].n, r, clen);
        double *cen = c->centroids + (size_t)c->labels[i] * clen;
        for (size_t j = 0; j < clen; j++)
            cen[j] += r[j];
    }
    for (size_t q = 0; q < k; q++)
        for (size_t j = 0; j < clen; j++)
            c->centroids[q * clen + j] /= (double)c->sizes[q];
    free(r);
done:
    free(cnt);
    free(map);
    return rc;
}

int iolens_cluster_run(iolens_clustering **out, const iolens_series_set *set, const iolens_cluster_opts *o)
{
    iolens_cluster_opts def;
    if (!o) {
        iolens_cluster_opts_init(&def);
        o = &def;
    }
    *out = NULL;
    if (!set || set->n == 0)
        return iol_err(IOLENS_EINVAL, "nothing to cluster: no series (after filtering)");
    if (o->method < 0 || o->method >= IOLENS_CLUSTER_NMETHODS)
        return iol_err(IOLENS_EINVAL, "unknown clustering method %d", o->method);
    if (o->kmax > 255 || o->level_kmax > 60 || o->resample_len < 2 || o->resample_len > 100000 ||
        o->genome_len > 100000 || o->kmin > o->kmax)
        return iol_err(IOLENS_EINVAL, "clustering options out of range (k in 1..255, levels <= 60, "
                                      "resample length 2..100000)");
    struct iolens_clustering *c = NULL;
    int rc = tser_result_new(&c, o->method, set->n);
    if (rc)
        return rc;
    if (o->method == IOLENS_CLUSTER_SAGE || o->method == IOLENS_CLUSTER_SAGE2)
        rc = tser_cluster_sage(c, set, o, o->method == IOLENS_CLUSTER_SAGE2);
    else
        rc = tser_cluster_baseline(c, set, o);
    if (rc == 0)
        rc = tser_result_finish(c, set, o->resample_len);
    if (rc) {
        iolens_clustering_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int iolens_clustering_method(const iolens_clustering *c)
{
    return c->method;
}

size_t iolens_clustering_k(const iolens_clustering *c)
{
    return c->k;
}

size_t iolens_clustering_merged(const iolens_clustering *c)
{
    return c ? c->merged : 0;
}

const int *iolens_clustering_labels(const iolens_clustering *c, size_t *n)
{
    if (n)
        *n = c->n;
    return c->labels;
}

size_t iolens_clustering_size(const iolens_clustering *c, size_t cluster)
{
    return cluster < c->k ? c->sizes[cluster] : 0;
}

const char *iolens_clustering_name(const iolens_clustering *c, size_t cluster)
{
    return cluster < c->k ? c->names[cluster] : NULL;
}

const double *iolens_clustering_centroid(const iolens_clustering *c, size_t cluster, size_t *len)
{
    if (cluster >= c->k)
        return NULL;
    if (len)
        *len = c->clen;
    return c->centroids + cluster * c->clen;
}

size_t iolens_clustering_alphabet_size(const iolens_clustering *c)
{
    return c->nsym;
}

const char *iolens_clustering_symbol(const iolens_clustering *c, size_t s, const double **centroid, size_t *w)
{
    if (s >= c->nsym)
        return NULL;
    if (centroid)
        *centroid = c->sym_centroids + s * c->window;
    if (w)
        *w = c->window;
    return c->sym_names[s];
}

const uint16_t *iolens_clustering_genome(const iolens_clustering *c, size_t i, size_t *n)
{
    if (!c->genomes || i >= c->n)
        return NULL;
    if (n)
        *n = c->genome_len[i];
    return c->genomes[i];
}

/* ---------------------------------------------------------------- output */

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static FILE *open_out(const char *dir, const char *name, iol_buf *path)
{
    iol_buf_reset(path);
    if (iol_buf_printf(path, "%s/%s", dir, name))
        return NULL;
    FILE *f = fopen(path->data, "w");
    if (!f)
        iol_err(IOLENS_EIO, "cannot write '%s': %s", path->data, strerror(errno));
    return f;
}

static int close_out(FILE *f, const iol_buf *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return iol_err(IOLENS_EIO, "cannot write '%s'", path->data);
    return 0;
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

static void write_svg(FILE *f, const iolens_clustering *c)
{
    const int pw = 360, ph = 90, cols = 3, margin = 56; /* room for the axis labels */
    size_t rows = (c->k + cols - 1) / cols;
    int width = cols * (pw + margin) + margin, height = (int)rows * (ph + margin) + margin;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n",
            width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    for (size_t q = 0; q < c->k; q++) {
        int x0 = margin + (int)(q % cols) * (pw + margin), y0 = margin + (int)(q / cols) * (ph + margin);
        const double *cen = c->centroids + q * c->clen;
        double mx = 0;
        for (size_t j = 0; j < c->clen; j++)
            mx = fmax(mx, cen[j]);
        fprintf(f, "<text x=\"%d\" y=\"%d\">cluster ", x0, y0 - 6);
        xml_text(f, c->names[q]);
        fprintf(f, " (%zu traces, peak %.4g MiB/s)</text>\n", c->sizes[q], mx);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n", x0,
                y0, pw, ph);
        /* axes: MiB/s at 0, half and the peak; 0-100 % of the trace's duration */
        for (int t = 0; t <= 2; t++) {
            double y = y0 + ph - ph * t / 2.0;
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>\n", x0 - 3, y, x0, y);
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\">%.4g</text>\n", x0 - 5, y + 3,
                    mx * t / 2.0);
        }
        for (int t = 0; t <= 4; t++) {
            double x = x0 + pw * t / 4.0;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>\n", x, y0 + ph, x,
                    y0 + ph + 3);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">%d%%</text>\n", x,
                    y0 + ph + 13, 25 * t);
        }
        fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
        for (size_t j = 0; j < c->clen; j++) {
            double x = x0 + (c->clen > 1 ? (double)pw * (double)j / (double)(c->clen - 1) : 0);
            double y = y0 + ph - (mx > 0 ? (double)ph * cen[j] / mx : 0);
            fprintf(f, "%.1f,%.1f ", x, y);
        }
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">x: share of the trace's duration (%%); y: bandwidth (MiB/s)</text>\n",
            margin, height - 8);
    fprintf(f, "</svg>\n");
}

int iolens_clustering_write(const iolens_clustering *c, const iolens_series_set *set, const char *dir)
{
    int rc = 0;
    iol_buf path = IOL_BUF_INIT;
    FILE *f = NULL;
    double *tmp = NULL, *r = NULL;
    if (!c || !set || set->n != c->n || !dir)
        return iol_err(IOLENS_EINVAL, "write needs the clustering of this set and a folder");
    /* assignments.csv */
    if (!(f = open_out(dir, "assignments.csv", &path))) {
        rc = iolens_error_last_code();
        goto done;
    }
    fputs("id,cluster\n", f);
    for (size_t i = 0; i < c->n; i++) {
        csv_field(f, set->s[i].id);
        fprintf(f, ",%d\n", c->labels[i]);
    }
    if ((rc = close_out(f, &path)))
        goto done;
    /* centroids.csv: each centroid at the median member length, step = median step */
    size_t n = c->n;
    tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        tmp[i] = set->s[i].step_s;
    qsort(tmp, n, sizeof *tmp, iol_cmp_double);
    double step = tmp[n / 2];
    if (!(f = open_out(dir, "centroids.csv", &path))) {
        rc = iolens_error_last_code();
        goto done;
    }
    fprintf(f, "cluster,step_seconds=%.9g\n", step);
    for (size_t q = 0; q < c->k; q++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if ((size_t)c->labels[i] == q)
                tmp[m++] = (double)set->s[i].n * set->s[i].step_s; /* duration */
        qsort(tmp, m, sizeof *tmp, iol_cmp_double);
        double dur = iol_median_sorted(tmp, m);
        size_t len = (size_t)llround(dur / step);
        if (len < 1)
            len = 1;
        if (len > IOLENS_SERIES_MAX_SAMPLES)
            len = IOLENS_SERIES_MAX_SAMPLES;
        double *nr = realloc(r, len * sizeof *nr);
        if (!nr) {
            fclose(f);
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        r = nr;
        iolens_resample(c->centroids + q * c->clen, c->clen, r, len);
        fprintf(f, "%zu", q);
        for (size_t j = 0; j < len; j++)
            fprintf(f, ",%.6g", r[j]);
        fputc('\n', f);
    }
    if ((rc = close_out(f, &path)))
        goto done;
    /* clusters.csv */
    if (!(f = open_out(dir, "clusters.csv", &path))) {
        rc = iolens_error_last_code();
        goto done;
    }
    fputs("cluster,name,size\n", f);
    for (size_t q = 0; q < c->k; q++) {
        fprintf(f, "%zu,", q);
        csv_field(f, c->names[q]);
        fprintf(f, ",%zu\n", c->sizes[q]);
    }
    if ((rc = close_out(f, &path)))
        goto done;
    /* alphabet.csv (SAGE) */
    if (c->nsym) {
        if (!(f = open_out(dir, "alphabet.csv", &path))) {
            rc = iolens_error_last_code();
            goto done;
        }
        fputs("symbol", f);
        for (size_t j = 0; j < c->window; j++)
            fprintf(f, ",v%zu", j);
        fputc('\n', f);
        for (size_t s = 0; s < c->nsym; s++) {
            fputs(c->sym_names[s], f);
            for (size_t j = 0; j < c->window; j++)
                fprintf(f, ",%.6g", c->sym_centroids[s * c->window + j]);
            fputc('\n', f);
        }
        if ((rc = close_out(f, &path)))
            goto done;
    }
    if (!(f = open_out(dir, "centroids.svg", &path))) {
        rc = iolens_error_last_code();
        goto done;
    }
    write_svg(f, c);
    rc = close_out(f, &path);
done:
    iol_buf_release(&path);
    free(tmp);
    free(r);
    return rc;
}
