/* iolens report: one self-contained HTML page of a job, drawn as inline SVG.
 *
 * The sections follow what a Darshan user knows from PyDarshan's job summary and Drishti
 * (docs/report.md has the side-by-side table). Every figure is computed here from the
 * records: a Darshan log's own, or the counters computed from a trace (which include DXT
 * segments). The page has no script and loads nothing: it opens from a file:// URL on an
 * air-gapped machine. The figures drawn are also written as JSON (the machine form). */
#include "iolens/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iolens/counters.h"
#include "iolens/darshan.h"
#include "darshan/byname.h"
#include "iolens/detect.h"
#include "iolens/place.h"
#include "iolens/recorder.h"
#include "iolens/temporal.h"
#include "iolens/trace.h"
#include "report/internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"

#include <jansson.h>

/* ---- the records, from a log or a trace ---- */

struct rsrc {
    iolens_darshan_data *data; /* a log */
    iolens_counters *ctr;      /* or a trace's counters */
    const iolens_darshan_job *job;
    const char *kind;          /* "Darshan log", "iolens trace", "Recorder trace" */
    char warnings[8][300];
    int nwarn;
};

static size_t rs_count(const struct rsrc *s, int m)
{
    return s->data ? iolens_darshan_data_count(s->data, m) : iolens_counters_count(s->ctr, m);
}

static const iolens_darshan_record *rs_rec(const struct rsrc *s, int m, size_t i)
{
    return s->data ? iolens_darshan_data_record(s->data, m, i) : iolens_counters_record(s->ctr, m, i);
}

static const char *rs_name(const struct rsrc *s, uint64_t id)
{
    const char *n = s->data ? iolens_darshan_data_name(s->data, id) : iolens_counters_name(s->ctr, id);
    return n ? n : "";
}

static void rs_warn(void *ctx, const char *msg)
{
    struct rsrc *s = ctx;
    if (s->nwarn < 8)
        snprintf(s->warnings[s->nwarn++], sizeof s->warnings[0], "%s", msg);
}

/* ---- counters by name ---- */

/* The modules with file records that the report sums (the others are shown as present). */
static const struct {
    int m;
    const char *pfx, *label;
} mods[] = {
    {IOLENS_DARSHAN_POSIX, "POSIX", "POSIX"},          {IOLENS_DARSHAN_MPIIO, "MPIIO", "MPI-IO"},
    {IOLENS_DARSHAN_STDIO, "STDIO", "STDIO"},          {IOLENS_DARSHAN_H5F, "H5F", "HDF5 files"},
    {IOLENS_DARSHAN_H5D, "H5D", "HDF5 datasets"},      {IOLENS_DARSHAN_PNETCDF_FILE, "PNETCDF_FILE", "PnetCDF files"},
    {IOLENS_DARSHAN_PNETCDF_VAR, "PNETCDF_VAR", "PnetCDF variables"}, {IOLENS_DARSHAN_DFS, "DFS", "DFS"},
    {IOLENS_DARSHAN_DAOS, "DAOS", "DAOS"},
};
#define NMODS (sizeof mods / sizeof mods[0])

static const char *const bins[10] = {"0_100",   "100_1K", "1K_10K",   "10K_100K", "100K_1M",
                                     "1M_4M",   "4M_10M", "10M_100M", "100M_1G",  "1G_PLUS"};
static const char *const bin_label[10] = {"0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M",
                                          "1M-4M", "4M-10M", "10M-100M", "100M-1G", "1G+"};

enum { OP_READ, OP_WRITE, OP_OPEN, OP_STAT, OP_SEEK, OP_SYNC, OP_N };
static const char *const op_names[OP_N] = {"read", "write", "open", "stat", "seek", "sync"};

struct msum {
    size_t nrec;
    double t_read, t_write, t_meta; /* seconds summed over the records */
    int64_t ops[OP_N];
    int64_t bytes_r, bytes_w;
    int64_t hist[2][10]; /* read, write */
    int has_hist;
    /* data access by category: files and bytes */
    int64_t cat_files[3], cat_bytes[3]; /* read-only, write-only, read-write */
    int64_t shared_files, unique_files, shared_bytes, unique_bytes;
};

struct access {
    int64_t size, count;
};

/* Sum of the counters named pfx_<alternative> that exist (the modules name them differently). */
static int64_t sum_names(const iolens_darshan_record *r, int m, const char *pfx, const char *const *names)
{
    int64_t s = 0;
    for (; *names; names++)
        s += iol_vi(r, iol_cidx(m, pfx, *names, 0));
    return s;
}

static void summarize(const struct rsrc *s, size_t k, struct msum *out, struct access *acc, size_t *nacc, size_t accap)
{
    int m = mods[k].m;
    const char *p = mods[k].pfx;
    static const char *const rd[] = {"READS", "INDEP_READS", "COLL_READS", "SPLIT_READS", "NB_READS", NULL};
    static const char *const wr[] = {"WRITES", "INDEP_WRITES", "COLL_WRITES", "SPLIT_WRITES", "NB_WRITES", NULL};
    static const char *const op[] = {"OPENS", "INDEP_OPENS", "COLL_OPENS", "FILENOS", "FDOPENS", NULL};
    static const char *const st[] = {"STATS", NULL};
    static const char *const sk[] = {"SEEKS", NULL};
    static const char *const sy[] = {"FSYNCS", "FDSYNCS", "SYNCS", "FLUSHES", NULL};
    static const char *const *opsets[OP_N] = {rd, wr, op, st, sk, sy};
    memset(out, 0, sizeof *out);
    out->nrec = rs_count(s, m);
    int ibr = iol_cidx(m, p, "BYTES_READ", 0), ibw = iol_cidx(m, p, "BYTES_WRITTEN", 0);
    int itr = iol_cidx(m, p, "F_READ_TIME", 1), itw = iol_cidx(m, p, "F_WRITE_TIME", 1), itm = iol_cidx(m, p, "F_META_TIME", 1);
    int ih[2][10];
    for (int d = 0; d < 2; d++)
        for (int b = 0; b < 10; b++) {
            char n[64];
            snprintf(n, sizeof n, "SIZE_%s_%s", d ? "WRITE" : "READ", bins[b]);
            ih[d][b] = iol_cidx(m, p, n, 0);
            if (ih[d][b] < 0) {
                snprintf(n, sizeof n, "SIZE_%s_AGG_%s", d ? "WRITE" : "READ", bins[b]);
                ih[d][b] = iol_cidx(m, p, n, 0);
            }
            out->has_hist |= ih[d][b] >= 0;
        }
    int ia[4], ic[4];
    for (int a = 0; a < 4; a++) {
        char n[32];
        snprintf(n, sizeof n, "ACCESS%d_ACCESS", a + 1);
        ia[a] = iol_cidx(m, p, n, 0);
        snprintf(n, sizeof n, "ACCESS%d_COUNT", a + 1);
        ic[a] = iol_cidx(m, p, n, 0);
    }
    for (size_t i = 0; i < out->nrec; i++) {
        const iolens_darshan_record *r = rs_rec(s, m, i);
        if (!r)
            continue;
        int64_t br = iol_vi(r, ibr), bw = iol_vi(r, ibw);
        out->bytes_r += br;
        out->bytes_w += bw;
        out->t_read += iol_vf(r, itr);
        out->t_write += iol_vf(r, itw);
        out->t_meta += iol_vf(r, itm);
        for (int o = 0; o < OP_N; o++)
            out->ops[o] += sum_names(r, m, p, opsets[o]);
        for (int d = 0; d < 2; d++)
            for (int b = 0; b < 10; b++)
                out->hist[d][b] += iol_vi(r, ih[d][b]);
        int c = br > 0 && bw > 0 ? 2 : bw > 0 ? 1 : br > 0 ? 0 : -1;
        if (c >= 0) {
            out->cat_files[c]++;
            out->cat_bytes[c] += br + bw;
        }
        if (r->rank < 0) {
            out->shared_files++;
            out->shared_bytes += br + bw;
        } else {
            out->unique_files++;
            out->unique_bytes += br + bw;
        }
        for (int a = 0; a < 4 && acc; a++) {
            int64_t sz = ia[a] >= 0 && (size_t)ia[a] < r->ncounters ? r->counters[ia[a]] : 0, n = iol_vi(r, ic[a]);
            if (sz <= 0 || n <= 0)
                continue;
            size_t j = 0;
            while (j < *nacc && acc[j].size != sz)
                j++;
            if (j == *nacc) {
                if (*nacc == accap)
                    continue;
                acc[(*nacc)++] = (struct access){sz, 0};
            }
            acc[j].count += n;
        }
    }
}

static int cmp_access(const void *a, const void *b)
{
    const struct access *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : (x->size > y->size) - (x->size < y->size);
}

/* ---- HTML and SVG ---- */

static void esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '&': fputs("&amp;", o); break;
        case '"': fputs("&quot;", o); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, o);
        }
    }
}

static void human_bytes(double b, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.2f %s" : "%.0f %s", b, unit[u]);
}

/* A "nice" axis step for a range 0..max with about n ticks. */
static double nice_step(double max, int n)
{
    if (!(max > 0))
        return 1;
    double raw = max / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void fmt_num(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, n, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, n, "%.3gk", v / 1e3);
    else
        snprintf(buf, n, "%.4g", v);
}

/* Horizontal bars: one row per label, up to 3 stacked series (classes s0..s2), an x axis with
 * ticks and its unit, and a legend. */
static void svg_hbars(FILE *o, const char *id, size_t n, const char *const *labels, const double (*val)[3], int nser,
                      const char *const *ser_names, const char *unit, double mark, const char *mark_label)
{
    /* the label column as wide as the longest label (counter names in upper case run to about
     * 8 px a character at the charts' 12 px) */
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = labels[i] && strlen(labels[i]) > longest ? strlen(labels[i]) : longest;
    const int lw = longest * 8 + 16 > 150 ? (int)(longest > 60 ? 60 : longest) * 8 + 16 : 150;
    const int pw = 520, rh = 24, top = 28, H = top + (int)n * rh + 40;
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        double t = 0;
        for (int j = 0; j < nser; j++)
            t += val[i][j];
        max = fmax(max, t);
    }
    if (mark > 0)
        max = fmax(max, mark);
    double step = nice_step(max, 5), amax = step * ceil(max / step);
    if (!(amax > 0))
        amax = 1;
    fprintf(o, "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n", id,
            lw + pw + 40, H, lw + pw + 40, H);
    for (int j = 0, lx = lw; j < nser && nser > 1; j++) {
        fprintf(o, "<rect class=\"s%d\" x=\"%d\" y=\"6\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"16\">%s</text>\n",
                j, lx, lx + 16, ser_names[j]);
        lx += 16 + 7 * (int)strlen(ser_names[j]) + 24;
    }
    for (double t = 0; t <= amax * 1.0001; t += step) {
        double x = lw + t / amax * pw;
        char b[32];
        fmt_num(t, b, sizeof b);
        fprintf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, top, x, top + (int)n * rh, x, top + (int)n * rh + 14, b);
    }
    fprintf(o, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", lw + pw / 2, H - 6, unit);
    if (mark > 0) {
        double x = lw + mark / amax * pw;
        fprintf(o, "<line class=\"mark\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                x, top - 4, x, top + (int)n * rh, x - 3, top + (int)n * rh - 3, mark_label);
    }
    for (size_t i = 0; i < n; i++) {
        int y = top + (int)i * rh;
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", lw - 6, y + 16);
        esc(o, labels[i]);
        fputs("</text>", o);
        double x = lw;
        for (int j = 0; j < nser; j++) {
            double w = val[i][j] / amax * pw;
            if (w > 0)
                fprintf(o, "<rect class=\"s%d\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" data-value=\"%.9g\">"
                           "<title>%s: %.6g %s</title></rect>",
                        j, x, y + 4, w, rh - 8, val[i][j], nser > 1 ? ser_names[j] : labels[i], val[i][j], unit);
            x += w;
        }
        fputc('\n', o);
    }
    fputs("</svg>\n", o);
}

/* Vertical grouped bars of a size histogram (read and write per bin). */
static void svg_hist(FILE *o, const char *id, const int64_t hist[2][10])
{
    const int lm = 60, pw = 600, ph = 180, top = 24, H = top + ph + 50, bw = pw / 10;
    double max = 0;
    for (int d = 0; d < 2; d++)
        for (int b = 0; b < 10; b++)
            max = fmax(max, (double)hist[d][b]);
    double step = nice_step(max, 4), amax = step * ceil(max / step);
    if (!(amax > 0))
        amax = 1;
    fprintf(o, "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n", id,
            lm + pw + 10, H, lm + pw + 10, H);
    fprintf(o, "<rect class=\"s0\" x=\"%d\" y=\"4\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"14\">read</text>"
               "<rect class=\"s1\" x=\"%d\" y=\"4\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"14\">write</text>\n",
            lm, lm + 16, lm + 80, lm + 96);
    for (double t = 0; t <= amax * 1.0001; t += step) {
        double y = top + ph - t / amax * ph;
        char b[32];
        fmt_num(t, b, sizeof b);
        fprintf(o, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                   "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                lm, y, lm + pw, y, lm - 4, y + 4, b);
    }
    for (int b = 0; b < 10; b++) {
        for (int d = 0; d < 2; d++) {
            double h = (double)hist[d][b] / amax * ph;
            if (h > 0)
                fprintf(o, "<rect class=\"s%d\" x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" data-value=\"%" PRId64
                           "\"><title>%s %s bytes: %" PRId64 " calls</title></rect>",
                        d, lm + b * bw + 4 + d * (bw / 2 - 4), top + ph - h, bw / 2 - 4, h, hist[d][b],
                        d ? "write" : "read", bin_label[b], hist[d][b]);
        }
        fprintf(o, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", lm + b * bw + bw / 2,
                top + ph + 14, bin_label[b]);
    }
    fprintf(o, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">access size (bytes); calls</text>\n",
            lm + pw / 2, H - 8);
    fputs("</svg>\n", o);
}

/* Heatmap grid: rows (ranks or rank groups) x time bins, bytes per cell on a log colour scale. */
static void svg_heat(FILE *o, const char *id, const double *cell, int rows, int cols, double t0, double t1,
                     int ranks_per_row, const char *title)
{
    const int lm = 70, pw = 640, top = 20;
    int rh = rows <= 32 ? 12 : rows <= 128 ? 4 : 2;
    int ph = rows * rh, H = top + ph + 44;
    double max = 0;
    for (int i = 0; i < rows * cols; i++)
        max = fmax(max, cell[i]);
    fprintf(o, "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n", id,
            lm + pw + 90, H, lm + pw + 90, H);
    fprintf(o, "<text x=\"%d\" y=\"14\">", lm);
    esc(o, title);
    fputs("</text>\n", o);
    double cw = (double)pw / cols;
    /* 64 colour levels, one path per level; a run of cells of one level in a row is one
     * rectangle of it (a 512-rank map of three APIs was 3.3 MB as one rect per cell) */
    iol_buf lv[64];
    memset(lv, 0, sizeof lv);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols;) {
            int q = 0, c0 = c;
            do {
                double v = cell[r * cols + c];
                int k = v <= 0 ? 0 : 1 + (int)(62.999 * (max > 1 ? log1p(v) / log1p(max) : 1));
                if (c > c0 && k != q)
                    break;
                q = k;
                c++;
            } while (c < cols);
            if (q > 0)
                iol_buf_printf(&lv[q - 1], "M%.1f %dh%.1fv%dh-%.1fz", lm + c0 * cw, top + r * rh, (c - c0) * cw + 0.05,
                               rh, (c - c0) * cw + 0.05);
        }
    for (int q = 0; q < 64; q++) {
        if (lv[q].len)
            fprintf(o, "<path class=\"hm\" fill-opacity=\"%.3f\" d=\"%.*s\"/>\n", 0.12 + 0.88 * q / 63.0, (int)lv[q].len,
                    lv[q].data);
        iol_buf_release(&lv[q]);
    }
    fputc('\n', o);
    fprintf(o, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", lm, top, pw, ph);
    double span = t1 - t0, step = nice_step(span, 6);
    for (double t = 0; t <= span * 1.0001 && span > 0; t += step) {
        double x = lm + t / span * pw;
        fprintf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>\n",
                x, top + ph, x, top + ph + 4, x, top + ph + 16, t0 + t);
    }
    fprintf(o, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since job start (s)</text>\n",
            lm + pw / 2, H - 6);
    fprintf(o, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">rank 0</text>", lm - 4, top + rh);
    fprintf(o, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", lm - 4, top + ph,
            rows * ranks_per_row - 1);
    char b[32];
    human_bytes(max, b, sizeof b);
    fprintf(o, "<rect class=\"hm\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill-opacity=\"1\"/>"
               "<text class=\"tick\" x=\"%d\" y=\"%d\">%s</text>"
               "<rect class=\"hm\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill-opacity=\"0.12\"/>"
               "<text class=\"tick\" x=\"%d\" y=\"%d\">&gt; 0 B</text>\n",
            lm + pw + 8, top, lm + pw + 26, top + 11, b, lm + pw + 8, top + 20, lm + pw + 26, top + 31);
    fprintf(o, "<text class=\"tick\" x=\"%d\" y=\"%d\">per cell (log)</text>\n", lm + pw + 8, top + 48);
    fputs("</svg>\n", o);
}

/* ---- the page ---- */

static const char css[] =
    ":root{--fg:#1b1b1b;--bg:#fff;--muted:#666;--grid:#ddd;--s0:#3b7dd8;--s1:#e8833a;--s2:#7a9a3a;--hm:#b2182b;"
    "--card:#f6f6f6}\n"
    "@media (prefers-color-scheme: dark){:root{--fg:#e6e6e6;--bg:#161616;--muted:#aaa;--grid:#3a3a3a;"
    "--s0:#6ea8ff;--s1:#ffa060;--s2:#a8cc60;--hm:#ff6b6b;--card:#222}}\n"
    "body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:1.5em auto;max-width:1000px;"
    "padding:0 1em}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid var(--grid);padding-bottom:.2em;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid var(--grid);padding:.2em .6em;"
    "text-align:right}th{background:var(--card)}td.l,th.l{text-align:left}\n"
    ".chart text{fill:var(--fg);font-size:12px}.chart .tick,.chart .unit{fill:var(--muted);font-size:11px}\n"
    ".chart .grid{stroke:var(--grid);stroke-width:1}.chart .mark{stroke:var(--fg);stroke-dasharray:4 3}.chart .frame{fill:none;stroke:var(--grid)}\n"
    ".s0{fill:var(--s0)}.s1{fill:var(--s1)}.s2{fill:var(--s2)}.hm{fill:var(--hm)}\n"
    ".l0{stroke:#3b7dd8}.l1{stroke:#e8833a}.l2{stroke:#7a9a3a}.l3{stroke:#c0392b}.l4{stroke:#8e44ad}.l5{stroke:#16a085}"
    ".l6{stroke:#b7950b}.l7{stroke:#7f8c8d}.chart polyline{fill:none;stroke-width:1.6}\n"
    ".f0{fill:#3b7dd8}.f1{fill:#e8833a}.f2{fill:#7a9a3a}.f3{fill:#c0392b}.f4{fill:#8e44ad}.f5{fill:#16a085}"
    ".f6{fill:#b7950b}.f7{fill:#7f8c8d}\n"
    ".nodata{color:var(--muted);font-style:italic}.warn{background:var(--card);border-left:4px solid var(--s1);"
    "padding:.4em .8em}\n"
    ".sev{display:inline-block;min-width:3.5em;text-align:center;border-radius:3px;color:#fff;font-weight:600;"
    "font-size:.85em;padding:0 .3em}.HIGH{background:#c62828}.WARN{background:#ef6c00}.INFO{background:#1565c0}"
    ".OK{background:#2e7d32}\n"
    ".card{background:var(--card);padding:.6em 1em;margin:.6em 0;border-radius:4px}\n"
    "pre{white-space:pre-wrap;word-break:break-all}\n"
    "@media print{body{max-width:none}.chart{break-inside:avoid}}\n";

static void section(FILE *o, const char *id, const char *title)
{
    fprintf(o, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
}

static void nodata(FILE *o, const char *why)
{
    fputs("<p class=\"nodata\">", o);
    esc(o, why);
    fputs("</p>\n", o);
}

static void job_section(FILE *o, iol_jsonw *w, const struct rsrc *s, const char *input)
{
    const iolens_darshan_job *j = s->job;
    section(o, "job", "Job");
    fputs("<table>\n<tr><th class=\"l\">input</th><td class=\"l\">", o);
    esc(o, input);
    fprintf(o, " (%s)</td></tr>\n", s->kind);
    const char *exe = j && j->exe ? j->exe : "";
    fputs("<tr><th class=\"l\">executable</th><td class=\"l\"><code>", o);
    esc(o, *exe ? exe : "(not recorded)");
    fputs("</code></td></tr>\n", o);
    if (j) {
        fprintf(o, "<tr><th class=\"l\">processes</th><td class=\"l\">%" PRId64 "</td></tr>\n", j->nprocs);
        if (j->jobid)
            fprintf(o, "<tr><th class=\"l\">job id</th><td class=\"l\">%" PRId64 "</td></tr>\n", j->jobid);
        fprintf(o, "<tr><th class=\"l\">run time</th><td class=\"l\">%.4f s</td></tr>\n", j->run_time);
        if (j->start_time_sec > 0) {
            char b[64];
            time_t t = (time_t)j->start_time_sec;
            struct tm tm;
            gmtime_r(&t, &tm);
            strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm);
            fprintf(o, "<tr><th class=\"l\">start</th><td class=\"l\">%s</td></tr>\n", b);
        }
    }
    fputs("<tr><th class=\"l\">modules</th><td class=\"l\">", o);
    int any = 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t n = rs_count(s, m);
        if (n)
            fprintf(o, "%s%s (%zu record%s)", any++ ? ", " : "", iolens_darshan_module_name(m), n, n == 1 ? "" : "s");
    }
    fputs(any ? "</td></tr>\n" : "none</td></tr>\n", o);
    size_t nm = s->data ? iolens_darshan_mount_count(iolens_darshan_data_log(s->data))
                        : iolens_counters_mount_count(s->ctr);
    fputs("<tr><th class=\"l\">file systems</th><td class=\"l\">", o);
    for (size_t i = 0; i < nm && i < 24; i++) {
        const iolens_darshan_mount *mt = s->data ? iolens_darshan_mount_at(iolens_darshan_data_log(s->data), i)
                                                 : iolens_counters_mount_at(s->ctr, i);
        if (!mt)
            continue;
        fputs(i ? ", " : "", o);
        esc(o, mt->path);
        fputs(" (", o);
        esc(o, mt->fs_type);
        fputc(')', o);
    }
    if (nm > 24)
        fprintf(o, ", … %zu in all", nm);
    fputs(nm ? "</td></tr>\n</table>\n" : "not recorded</td></tr>\n</table>\n", o);
    for (int i = 0; i < s->nwarn; i++) {
        fputs("<p class=\"warn\">", o);
        esc(o, s->warnings[i]);
        fputs("</p>\n", o);
    }
    fputs("</section>\n", o);
    iol_jsonw_key(w, "job");
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "input");
    iol_jsonw_str(w, input);
    iol_jsonw_key(w, "kind");
    iol_jsonw_str(w, s->kind);
    iol_jsonw_key(w, "exe");
    iol_jsonw_str(w, exe);
    iol_jsonw_key(w, "nprocs");
    iol_jsonw_int(w, j ? j->nprocs : 0);
    iol_jsonw_key(w, "run_time");
    iol_jsonw_double(w, j ? j->run_time : 0);
    iol_jsonw_key(w, "warnings");
    iol_jsonw_arr_begin(w);
    for (int i = 0; i < s->nwarn; i++)
        iol_jsonw_str(w, s->warnings[i]);
    iol_jsonw_arr_end(w);
    iol_jsonw_obj_end(w);
}

static void modules_sections(FILE *o, iol_jsonw *w, const struct rsrc *s)
{
    struct msum sum[NMODS];
    static struct access acc[NMODS][256];
    size_t nacc[NMODS];
    const char *labels[NMODS];
    double cost[NMODS][3], ops[NMODS][3];
    size_t n = 0, idx[NMODS];
    int64_t nprocs = s->job && s->job->nprocs > 0 ? s->job->nprocs : 1;
    double run = s->job ? s->job->run_time : 0;
    for (size_t k = 0; k < NMODS; k++) {
        nacc[k] = 0;
        summarize(s, k, &sum[k], acc[k], &nacc[k], 256);
        if (sum[k].nrec) {
            idx[n] = k;
            labels[n] = mods[k].label;
            /* seconds per process, as PyDarshan's "I/O cost" */
            cost[n][0] = sum[k].t_read / (double)nprocs;
            cost[n][1] = sum[k].t_write / (double)nprocs;
            cost[n][2] = sum[k].t_meta / (double)nprocs;
            n++;
        }
    }
    iol_jsonw_key(w, "modules");
    iol_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const struct msum *m = &sum[idx[i]];
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "module");
        iol_jsonw_str(w, mods[idx[i]].pfx);
        iol_jsonw_key(w, "records");
        iol_jsonw_int(w, (int64_t)m->nrec);
        iol_jsonw_key(w, "read_seconds_per_process");
        iol_jsonw_double(w, cost[i][0]);
        iol_jsonw_key(w, "write_seconds_per_process");
        iol_jsonw_double(w, cost[i][1]);
        iol_jsonw_key(w, "meta_seconds_per_process");
        iol_jsonw_double(w, cost[i][2]);
        iol_jsonw_key(w, "bytes_read");
        iol_jsonw_int(w, m->bytes_r);
        iol_jsonw_key(w, "bytes_written");
        iol_jsonw_int(w, m->bytes_w);
        iol_jsonw_key(w, "operations");
        iol_jsonw_obj_begin(w);
        for (int op = 0; op < OP_N; op++) {
            iol_jsonw_key(w, op_names[op]);
            iol_jsonw_int(w, m->ops[op]);
        }
        iol_jsonw_obj_end(w);
        if (m->has_hist) {
            iol_jsonw_key(w, "size_histogram");
            iol_jsonw_obj_begin(w);
            for (int d = 0; d < 2; d++) {
                iol_jsonw_key(w, d ? "write" : "read");
                iol_jsonw_arr_begin(w);
                for (int b = 0; b < 10; b++)
                    iol_jsonw_int(w, m->hist[d][b]);
                iol_jsonw_arr_end(w);
            }
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);

    section(o, "cost", "I/O cost per module");
    if (!n) {
        nodata(o, "No file records: the job did no file I/O that was recorded.");
    } else {
        static const char *const ser[3] = {"read", "write", "metadata"};
        fprintf(o, "<p>Time in I/O calls per process (the records' read, write and metadata times over %" PRId64
                   " process%s), beside the run time of %.4f s.</p>\n",
                nprocs, nprocs == 1 ? "" : "es", run);
        svg_hbars(o, "cost-chart", n, labels, cost, 3, ser, "seconds per process", run, "run time");
    }
    fputs("</section>\n", o);

    section(o, "ops", "Operation counts per module");
    if (!n) {
        nodata(o, "No file records.");
    } else {
        static const char *const ser[3] = {"read", "write", "open/stat/seek/sync"};
        for (size_t i = 0; i < n; i++) {
            const int64_t *p = sum[idx[i]].ops;
            ops[i][0] = (double)p[OP_READ];
            ops[i][1] = (double)p[OP_WRITE];
            ops[i][2] = (double)(p[OP_OPEN] + p[OP_STAT] + p[OP_SEEK] + p[OP_SYNC]);
        }
        svg_hbars(o, "ops-chart", n, labels, ops, 3, ser, "calls", 0, NULL);
        fputs("<table><tr><th class=\"l\">module</th>", o);
        for (int op = 0; op < OP_N; op++)
            fprintf(o, "<th>%s</th>", op_names[op]);
        fputs("<th>bytes read</th><th>bytes written</th></tr>\n", o);
        for (size_t i = 0; i < n; i++) {
            const struct msum *m = &sum[idx[i]];
            fprintf(o, "<tr><td class=\"l\">%s</td>", labels[i]);
            for (int op = 0; op < OP_N; op++)
                fprintf(o, "<td>%" PRId64 "</td>", m->ops[op]);
            fprintf(o, "<td>%" PRId64 "</td><td>%" PRId64 "</td></tr>\n", m->bytes_r, m->bytes_w);
        }
        fputs("</table>\n", o);
    }
    fputs("</section>\n", o);

    section(o, "sizes", "Access sizes");
    int shown = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = idx[i];
        const struct msum *m = &sum[k];
        int64_t tot = 0;
        for (int d = 0; d < 2; d++)
            for (int b = 0; b < 10; b++)
                tot += m->hist[d][b];
        if (!m->has_hist || !tot)
            continue;
        char id[64];
        snprintf(id, sizeof id, "hist-%s", mods[k].pfx);
        fprintf(o, "<h3>%s</h3>\n", mods[k].label);
        svg_hist(o, id, m->hist);
        if (nacc[k]) {
            qsort(acc[k], nacc[k], sizeof acc[k][0], cmp_access);
            fprintf(o, "<table id=\"common-%s\"><tr><th>common access size (bytes)</th><th>calls</th></tr>\n",
                    mods[k].pfx);
            for (size_t a = 0; a < nacc[k] && a < 4; a++)
                fprintf(o, "<tr><td>%" PRId64 "</td><td>%" PRId64 "</td></tr>\n", acc[k][a].size, acc[k][a].count);
            fputs("</table>\n", o);
        }
        shown++;
    }
    if (!shown)
        nodata(o, "No module with an access-size histogram (POSIX, MPI-IO, HDF5 datasets) moved data.");
    fputs("</section>\n", o);

    section(o, "category", "Data access by category");
    if (!n) {
        nodata(o, "No file records.");
    } else {
        fputs("<table><tr><th class=\"l\">module</th><th>read-only files</th><th>bytes</th><th>write-only files</th>"
              "<th>bytes</th><th>read-write files</th><th>bytes</th><th>shared files</th><th>bytes</th>"
              "<th>unique files</th><th>bytes</th></tr>\n",
              o);
        for (size_t i = 0; i < n; i++) {
            const struct msum *m = &sum[idx[i]];
            char b[6][32];
            for (int c = 0; c < 3; c++)
                human_bytes((double)m->cat_bytes[c], b[c], sizeof b[c]);
            human_bytes((double)m->shared_bytes, b[3], sizeof b[3]);
            human_bytes((double)m->unique_bytes, b[4], sizeof b[4]);
            fprintf(o,
                    "<tr><td class=\"l\">%s</td><td>%" PRId64 "</td><td>%s</td><td>%" PRId64 "</td><td>%s</td><td>%" PRId64
                    "</td><td>%s</td><td>%" PRId64 "</td><td>%s</td><td>%" PRId64 "</td><td>%s</td></tr>\n",
                    labels[i], m->cat_files[0], b[0], m->cat_files[1], b[1], m->cat_files[2], b[2], m->shared_files, b[3],
                    m->unique_files, b[4]);
        }
        fputs("</table>\n<p>A shared file is one record reduced over every process (rank -1); unique files were "
              "opened by one process each (a record per process).</p>\n",
              o);
    }
    fputs("</section>\n", o);
}

/* Heatmap: the HEATMAP module's bins when present, else the DXT segments binned. */
#define HM_COLS 200
#define HM_ROWS 256

static void heatmap_section(FILE *o, iol_jsonw *w, const struct rsrc *s)
{
    section(o, "heatmap", "Heatmap: bytes over time per rank");
    int64_t nprocs = s->job && s->job->nprocs > 0 ? s->job->nprocs : 1;
    int rpr = (int)((nprocs + HM_ROWS - 1) / HM_ROWS), rows = (int)((nprocs + rpr - 1) / rpr);
    double *cell = calloc((size_t)rows * HM_COLS, sizeof *cell);
    int drawn = 0;
    iol_jsonw_key(w, "heatmaps");
    iol_jsonw_arr_begin(w);
    if (!cell) {
        nodata(o, "Out of memory for the heatmap.");
        goto done;
    }
    size_t nh = rs_count(s, IOLENS_DARSHAN_HEATMAP);
    /* one map per API named by the records ("heatmap:POSIX", ...) */
    const char *apis[8];
    size_t napi = 0;
    for (size_t i = 0; i < nh; i++) {
        const char *nm = rs_name(s, rs_rec(s, IOLENS_DARSHAN_HEATMAP, i)->id);
        size_t a = 0;
        while (a < napi && strcmp(apis[a], nm))
            a++;
        if (a == napi && napi < 8)
            apis[napi++] = nm;
    }
    /* a heatmap of fewer than 20 bins (a short job: Darshan's bins are 0.1 s at least) says less
     * than the DXT segments binned finer */
    int64_t most = 0;
    for (size_t i = 0; i < nh; i++)
        most = rs_rec(s, IOLENS_DARSHAN_HEATMAP, i)->heatmap.nbins > most ? rs_rec(s, IOLENS_DARSHAN_HEATMAP, i)->heatmap.nbins
                                                                         : most;
    if (most < 20 && (rs_count(s, IOLENS_DARSHAN_DXT_POSIX) || rs_count(s, IOLENS_DARSHAN_DXT_MPIIO)))
        napi = 0;
    for (size_t a = 0; a < napi; a++) {
        memset(cell, 0, (size_t)rows * HM_COLS * sizeof *cell);
        double tmax = 0;
        for (size_t i = 0; i < nh; i++) {
            const iolens_darshan_record *r = rs_rec(s, IOLENS_DARSHAN_HEATMAP, i);
            if (strcmp(rs_name(s, r->id), apis[a]) == 0)
                tmax = fmax(tmax, r->heatmap.bin_width * (double)r->heatmap.nbins);
        }
        if (!(tmax > 0))
            continue;
        double total = 0;
        for (size_t i = 0; i < nh; i++) {
            const iolens_darshan_record *r = rs_rec(s, IOLENS_DARSHAN_HEATMAP, i);
            if (strcmp(rs_name(s, r->id), apis[a]) || r->rank < 0 || r->rank >= nprocs)
                continue;
            for (int64_t b = 0; b < r->heatmap.nbins; b++) {
                double t = (double)b * r->heatmap.bin_width, v = 0;
                v += r->heatmap.write_bins ? (double)r->heatmap.write_bins[b] : 0;
                v += r->heatmap.read_bins ? (double)r->heatmap.read_bins[b] : 0;
                int c = (int)(t / tmax * HM_COLS);
                if (c >= HM_COLS)
                    c = HM_COLS - 1;
                cell[(r->rank / rpr) * HM_COLS + c] += v;
                total += v;
            }
        }
        char id[64], title[160];
        snprintf(id, sizeof id, "heatmap-%zu", a);
        snprintf(title, sizeof title, "%s (Darshan heatmap module; read + write bytes)", apis[a]);
        svg_heat(o, id, cell, rows, HM_COLS, 0, tmax, rpr, title);
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "source");
        iol_jsonw_str(w, apis[a]);
        iol_jsonw_key(w, "seconds");
        iol_jsonw_double(w, tmax);
        iol_jsonw_key(w, "bytes");
        iol_jsonw_double(w, total);
        iol_jsonw_obj_end(w);
        drawn++;
    }
    static const int dxt_mods[2] = {IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO};
    for (int d = 0; d < 2 && !drawn; d++) {
        size_t nd = rs_count(s, dxt_mods[d]);
        double tmax = 0, total = 0;
        for (size_t i = 0; i < nd; i++) {
            const iolens_darshan_record *r = rs_rec(s, dxt_mods[d], i);
            int64_t ns = r->dxt.write_count + r->dxt.read_count;
            for (int64_t k = 0; k < ns; k++)
                tmax = fmax(tmax, r->dxt.segs[k].end);
        }
        if (!nd || !(tmax > 0))
            continue;
        memset(cell, 0, (size_t)rows * HM_COLS * sizeof *cell);
        for (size_t i = 0; i < nd; i++) {
            const iolens_darshan_record *r = rs_rec(s, dxt_mods[d], i);
            if (r->rank < 0 || r->rank >= nprocs)
                continue;
            int64_t ns = r->dxt.write_count + r->dxt.read_count;
            for (int64_t k = 0; k < ns; k++) {
                const iolens_darshan_dxt_seg *g = &r->dxt.segs[k];
                int c = (int)(fmax(g->start, 0) / tmax * HM_COLS);
                if (c >= HM_COLS)
                    c = HM_COLS - 1;
                cell[(r->rank / rpr) * HM_COLS + c] += (double)(g->length > 0 ? g->length : 0);
                total += (double)(g->length > 0 ? g->length : 0);
            }
        }
        svg_heat(o, d ? "heatmap-dxt-mpiio" : "heatmap-dxt-posix", cell, rows, HM_COLS, 0, tmax, rpr,
                 d ? "MPI-IO (binned from DXT segments; read + write bytes)"
                   : "POSIX (binned from DXT segments; read + write bytes)");
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "source");
        iol_jsonw_str(w, d ? "DXT_MPIIO" : "DXT_POSIX");
        iol_jsonw_key(w, "seconds");
        iol_jsonw_double(w, tmax);
        iol_jsonw_key(w, "bytes");
        iol_jsonw_double(w, total);
        iol_jsonw_obj_end(w);
        drawn++;
    }
    if (!drawn)
        nodata(o, "No heatmap: the log has neither HEATMAP records nor DXT segments (Darshan 3.4's heatmap module, "
                  "or DXT with DXT_ENABLE_IO_TRACE=1, record when bytes moved).");
done:
    iol_jsonw_arr_end(w);
    free(cell);
    fputs("</section>\n", o);
}

/* Timeline: DXT segments per rank (POSIX, else MPI-IO), at most max segments drawn, evenly
 * sampled; the ranks beyond 64 are sampled evenly too. */
static void timeline_section(FILE *o, iol_jsonw *w, const struct rsrc *s, int max, const char *href, int64_t nfull)
{
    section(o, "timeline", "Timeline of operations per rank");
    if (href) {
        fprintf(o, "<p>Every call (%" PRId64 " events) as a zoomable timeline in the Trace Event Format: <a href=\"", nfull);
        esc(o, href);
        fputs("\">", o);
        esc(o, href);
        fputs("</a> (open it in Perfetto or chrome://tracing).</p>\n", o);
    }
    int m = rs_count(s, IOLENS_DARSHAN_DXT_POSIX) ? IOLENS_DARSHAN_DXT_POSIX : IOLENS_DARSHAN_DXT_MPIIO;
    size_t nd = rs_count(s, m);
    int64_t total = 0, maxrank = 0;
    double tmax = 0;
    for (size_t i = 0; i < nd; i++) {
        const iolens_darshan_record *r = rs_rec(s, m, i);
        int64_t ns = r->dxt.write_count + r->dxt.read_count;
        total += ns;
        maxrank = r->rank > maxrank ? r->rank : maxrank;
        for (int64_t k = 0; k < ns; k++)
            tmax = fmax(tmax, r->dxt.segs[k].end);
    }
    iol_jsonw_key(w, "timeline");
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "module");
    iol_jsonw_str(w, total ? iolens_darshan_module_name(m) : "");
    iol_jsonw_key(w, "segments");
    iol_jsonw_int(w, total);
    if (!total || !(tmax > 0)) {
        nodata(o, "No timeline: no DXT segments (a log written with DXT enabled, or a trace, has them).");
        iol_jsonw_obj_end(w);
        fputs("</section>\n", o);
        return;
    }
    int64_t nranks = maxrank + 1, rstride = (nranks + 63) / 64;
    int rows = (int)((nranks + rstride - 1) / rstride);
    int64_t shown_ranks = rows, seg_in_shown = 0;
    for (size_t i = 0; i < nd; i++) {
        const iolens_darshan_record *r = rs_rec(s, m, i);
        if (r->rank >= 0 && r->rank % rstride == 0)
            seg_in_shown += r->dxt.write_count + r->dxt.read_count;
    }
    int64_t stride = seg_in_shown > max ? (seg_in_shown + max - 1) / max : 1;
    const int lm = 70, pw = 700, rh = rows <= 16 ? 16 : rows <= 32 ? 10 : 6, top = 24;
    int H = top + rows * rh + 44;
    fprintf(o, "<p>%s segments: %" PRId64 " in %" PRId64 " rank(s)", iolens_darshan_module_name(m), total, nranks);
    if (stride > 1 || rstride > 1)
        fprintf(o, "; drawn: every %" PRId64 "th segment of every %" PRId64 "th rank (the JSON form has the counts)",
                stride, rstride);
    fputs(".</p>\n", o);
    /* a right margin that holds half of the last tick's label (up to 6 characters, centred on the edge) */
    fprintf(o, "<svg id=\"timeline-chart\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
            lm + pw + 40, H, lm + pw + 40, H);
    fprintf(o, "<rect class=\"s0\" x=\"%d\" y=\"4\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"14\">read</text>"
               "<rect class=\"s1\" x=\"%d\" y=\"4\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"14\">write</text>\n",
            lm, lm + 16, lm + 80, lm + 96);
    int64_t drawn = 0, seen = 0;
    iol_buf cls[2]; /* reads, writes: one path each */
    memset(cls, 0, sizeof cls);
    for (size_t i = 0; i < nd; i++) {
        const iolens_darshan_record *r = rs_rec(s, m, i);
        if (r->rank < 0 || r->rank % rstride)
            continue;
        int row = (int)(r->rank / rstride);
        int64_t ns = r->dxt.write_count + r->dxt.read_count;
        for (int64_t k = 0; k < ns; k++, seen++) {
            if (seen % stride)
                continue;
            const iolens_darshan_dxt_seg *g = &r->dxt.segs[k];
            double x = lm + fmax(g->start, 0) / tmax * pw, wd = fmax((g->end - g->start) / tmax * pw, 0.4);
            iol_buf_printf(&cls[k < r->dxt.write_count], "M%.1f %dh%.2fv%dh-%.2fz", x, top + row * rh + 1, wd, rh - 2, wd);
            drawn++;
        }
    }
    for (int c = 0; c < 2; c++) {
        if (cls[c].len)
            fprintf(o, "<path class=\"s%d\" d=\"%.*s\"/>\n", c, (int)cls[c].len, cls[c].data);
        iol_buf_release(&cls[c]);
    }
    fprintf(o, "\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", lm, top, pw, rows * rh);
    double step = nice_step(tmax, 6);
    for (double t = 0; t <= tmax * 1.0001; t += step) {
        double x = lm + t / tmax * pw;
        fprintf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>\n",
                x, top + rows * rh, x, top + rows * rh + 4, x, top + rows * rh + 16, t);
    }
    fprintf(o, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since job start (s)</text>\n",
            lm + pw / 2, H - 6);
    fprintf(o, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">rank 0</text>"
               "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>\n</svg>\n",
            lm - 4, top + rh - 2, lm - 4, top + rows * rh - 2, (int64_t)(rows - 1) * rstride);
    iol_jsonw_key(w, "ranks");
    iol_jsonw_int(w, nranks);
    iol_jsonw_key(w, "ranks_drawn");
    iol_jsonw_int(w, shown_ranks);
    iol_jsonw_key(w, "segments_drawn");
    iol_jsonw_int(w, drawn);
    iol_jsonw_key(w, "seconds");
    iol_jsonw_double(w, tmax);
    iol_jsonw_obj_end(w);
    fputs("</section>\n", o);
}

/* ---- diagnosis ---- */

struct contrib {
    int f;
    double v;
};

static int cmp_contrib(const void *a, const void *b)
{
    double x = fabs(((const struct contrib *)a)->v), y = fabs(((const struct contrib *)b)->v);
    return x < y ? 1 : x > y ? -1 : 0;
}

static int diagnosis_section(FILE *o, iol_jsonw *w, const char *input, const iolens_report_options *opt)
{
    section(o, "diagnosis", "Diagnosis");
    iol_jsonw_key(w, "diagnosis");
    if (opt->no_diagnosis) {
        nodata(o, "Left out (--no-diagnosis).");
        iol_jsonw_null(w);
        fputs("</section>\n", o);
        return 0;
    }
    iolens_detect_model *model = NULL;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES], probs[IOLENS_DETECT_NLABELS], shap[IOLENS_DETECT_NFEATURES + 1];
    iolens_detect_file files[5];
    const char *dir = opt->models_dir ? opt->models_dir : iolens_detect_default_models_dir();
    int nfiles, rc = 0;
    if (iolens_detect_model_load(&model, dir) < 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "No diagnosis: the pattern models could not be read (%s).", iolens_error_last());
        nodata(o, msg);
        iol_jsonw_null(w);
        fputs("</section>\n", o);
        return 0;
    }
    iolens_detect_read_opts ro;
    iolens_detect_read_opts_init(&ro);
    if ((rc = iolens_detect_read(&in, input, &ro)) < 0 || (rc = iolens_detect_input_features(in, x)) < 0 ||
        (rc = nfiles = iolens_detect_input_top_files(in, files, 5)) < 0)
        goto out;
    double tau = opt->tau > 0 ? opt->tau : IOLENS_DETECT_TAU;
    iolens_detect_diagnosis dg;
    if ((rc = iolens_detect_diagnose(model, x, nfiles, tau, &dg)) < 0)
        goto out;
    memcpy(probs, dg.probs, sizeof probs);
    unsigned gated = dg.gated, set = dg.presented;
    const char *const *why = dg.why;
    char codes[128] = "";
    unsigned rules = iolens_detect_rules(x, codes, sizeof codes);
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "tau");
    iol_jsonw_double(w, tau);
    iol_jsonw_key(w, "probabilities");
    iol_jsonw_obj_begin(w);
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        iol_jsonw_key(w, iolens_detect_label_name(l));
        iol_jsonw_double(w, probs[l]);
    }
    iol_jsonw_obj_end(w);
    /* the probabilities, with the gate */
    const char *labels[IOLENS_DETECT_NLABELS];
    double pv[IOLENS_DETECT_NLABELS][3];
    for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
        labels[l] = iolens_detect_label_name(l);
        int on = l < IOLENS_DETECT_NPATTERNS && (set & (1u << l));
        pv[l][0] = on ? 0 : probs[l];
        pv[l][1] = on ? probs[l] : 0;
        pv[l][2] = 0;
    }
    static const char *const ser[2] = {"not detected", "detected"};
    fprintf(o, "<p>Probability of each pattern from the trained classifier; a pattern is detected at "
               "probability &ge; %.2f when the counters show its premise.</p>\n",
            tau);
    svg_hbars(o, "probabilities", IOLENS_DETECT_NLABELS, labels, pv, 2, ser, "probability", tau, "gate");
    if (!nfiles)
        nodata(o, "No POSIX, MPI-IO or STDIO file record: nothing to diagnose.");
    else if (!set)
        fputs("<p><span class=\"sev OK\">OK</span> No registered bottleneck pattern detected.</p>\n", o);
    iol_jsonw_key(w, "detected");
    iol_jsonw_arr_begin(w);
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(set & (1u << p)))
            continue;
        if ((rc = iolens_detect_contribs(model, x, p, shap)) < 0)
            goto out;
        struct contrib c[IOLENS_DETECT_NFEATURES];
        for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++)
            c[i] = (struct contrib){i, shap[i]};
        qsort(c, IOLENS_DETECT_NFEATURES, sizeof c[0], cmp_contrib);
        const iolens_detect_card *card = iolens_detect_card_get(p);
        fprintf(o, "<div class=\"card\" id=\"pattern-%s\"><h3><span class=\"sev %s\">%s</span> %s — probability %.3f</h3>\n",
                card->pattern, probs[p] >= 0.7 ? "HIGH" : "WARN", probs[p] >= 0.7 ? "HIGH" : "WARN", card->pattern,
                probs[p]);
        fputs("<p><b>Behavior.</b> ", o);
        esc(o, card->behavior);
        fputs("</p><p><b>Change.</b> ", o);
        esc(o, card->change);
        fputs("</p><p><b>Does not apply when.</b> ", o);
        esc(o, card->not_applicable);
        fputs("</p>\n", o);
        const char *fl[8];
        double fv[8][3];
        int nc = 0;
        for (int i = 0; i < 8 && i < IOLENS_DETECT_NFEATURES; i++) {
            fl[nc] = iolens_detect_feature_name(c[i].f);
            fv[nc][0] = c[i].v > 0 ? c[i].v : 0;
            fv[nc][1] = c[i].v < 0 ? -c[i].v : 0;
            fv[nc][2] = 0;
            nc++;
        }
        static const char *const sser[2] = {"towards the pattern", "against it"};
        char id[80];
        snprintf(id, sizeof id, "shap-%s", card->pattern);
        fputs("<p>Largest SHAP contributions (log-odds) and the counter evidence:</p>\n", o);
        svg_hbars(o, id, (size_t)nc, fl, fv, 2, sser, "|SHAP| (log-odds)", 0, NULL);
        fputs("<table><tr><th class=\"l\">feature</th><th>value in this job</th><th>SHAP</th></tr>\n", o);
        for (int i = 0; i < nc; i++)
            fprintf(o, "<tr><td class=\"l\">%s</td><td>%.6g</td><td>%+.4f</td></tr>\n", fl[i], x[c[i].f], c[i].v);
        fputs("</table></div>\n", o);
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "pattern");
        iol_jsonw_str(w, card->pattern);
        iol_jsonw_key(w, "probability");
        iol_jsonw_double(w, probs[p]);
        iol_jsonw_key(w, "shap");
        iol_jsonw_arr_begin(w);
        for (int i = 0; i < nc; i++) {
            iol_jsonw_obj_begin(w);
            iol_jsonw_key(w, "feature");
            iol_jsonw_str(w, fl[i]);
            iol_jsonw_key(w, "value");
            iol_jsonw_double(w, x[c[i].f]);
            iol_jsonw_key(w, "contribution");
            iol_jsonw_double(w, c[i].v);
            iol_jsonw_obj_end(w);
        }
        iol_jsonw_arr_end(w);
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if ((gated & ~set) & (1u << p)) {
            fprintf(o, "<p><span class=\"sev INFO\">INFO</span> %s (%.3f) not presented: ",
                    iolens_detect_label_name(p), probs[p]);
            esc(o, why[p]);
            fputs("</p>\n", o);
        }
    if (nfiles) {
        fputs("<h3>Largest files</h3>\n<table id=\"files\"><tr><th class=\"l\">file</th><th>bytes</th><th>ops</th>"
              "<th>ops &lt; 1 MiB</th><th>ranks</th><th>MPI-IO indep.</th><th>MPI-IO coll.</th></tr>\n",
              o);
        for (int i = 0; i < nfiles; i++) {
            fputs("<tr><td class=\"l\">", o);
            esc(o, files[i].path && *files[i].path ? files[i].path : "(unnamed)");
            fprintf(o, "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64
                       "</td><td>%" PRId64 "</td></tr>\n",
                    files[i].bytes, files[i].ops, files[i].small_ops, files[i].ranks, files[i].mpiio_indep,
                    files[i].mpiio_coll);
        }
        fputs("</table>\n", o);
    }
    fputs("<h3>Rules (Drishti's triggers and iolens's)</h3>\n", o);
    iolens_detect_insight ins[24];
    unsigned ins_set = 0;
    int nins = iolens_detect_insights(x, ins, 24, &ins_set);
    nins = nins > 24 ? 24 : nins;
    if (nins > 0) {
        fputs("<ul class=\"rules\">\n", o);
        for (int i = 0; i < nins; i++) {
            fprintf(o, "<li><span class=\"sev %s\">%s</span> <code>%s</code> ", ins[i].level, ins[i].level, ins[i].code);
            esc(o, ins[i].message);
            if (ins[i].pattern >= 0)
                fprintf(o, " &rarr; %s", iolens_detect_label_name(ins[i].pattern));
            if (ins[i].recommendation[0]) {
                fputs("<br><small>Recommendation: ", o);
                esc(o, ins[i].recommendation);
                fputs("</small>", o);
            }
            fputs("</li>\n", o);
        }
        fputs("</ul>\n", o);
    } else {
        fputs("<p><span class=\"sev OK\">OK</span> No rule triggered.</p>\n", o);
    }
    fputs("<p>IOSage's mapping of Drishti's triggers: ", o);
    esc(o, codes[0] ? codes : "no trigger");
    fputs("</p>\n", o);
    (void)rules;
    iol_jsonw_key(w, "rule_insights");
    iol_jsonw_arr_begin(w);
    for (int i = 0; i < nins; i++) {
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "code");
        iol_jsonw_str(w, ins[i].code);
        iol_jsonw_key(w, "level");
        iol_jsonw_str(w, ins[i].level);
        iol_jsonw_key(w, "message");
        iol_jsonw_str(w, ins[i].message);
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);
    iol_jsonw_key(w, "rules");
    iol_jsonw_str(w, codes);
    iol_jsonw_obj_end(w);
    rc = 0;
out:
    if (rc < 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "No diagnosis: %s", iolens_error_last());
        nodata(o, msg);
        iol_jsonw_null(w);
        rc = 0;
    }
    iolens_detect_input_free(in);
    iolens_detect_model_free(model);
    fputs("</section>\n", o);
    return rc;
}

/* ---- what-if ---- */

static int whatif_section(FILE *o, iol_jsonw *w, const char *path)
{
    section(o, "whatif", "What-if results");
    if (!path) {
        iol_jsonw_key(w, "whatif");
        nodata(o, "No what-if results given (iolens whatif --json LOG > W.json; iolens report --whatif W.json).");
        iol_jsonw_null(w);
        fputs("</section>\n", o);
        return 0;
    }
    json_error_t e;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!root)
        return iol_err(IOLENS_EFORMAT, "cannot read what-if results '%s' at line %d: %s", path, e.line, e.text);
    json_t *vars = json_object_get(root, "configs");
    if (!json_is_array(vars)) {
        json_decref(root);
        return iol_err(IOLENS_EFORMAT, "'%s' is not the output of `iolens whatif --json` (no \"configs\" array)", path);
    }
    iol_jsonw_key(w, "whatif");
    iol_jsonw_arr_begin(w);
    fputs("<table id=\"whatif-table\"><tr><th class=\"l\">change</th><th>speed-up</th><th>interval</th>"
          "<th class=\"l\">verdict</th></tr>\n",
          o);
    size_t i;
    json_t *v;
    json_array_foreach(vars, i, v)
    {
        const char *name = json_string_value(json_object_get(v, "name"));
        if (i == 0)
            continue; /* the base */
        /* the whole run's paired figures when measured, else the I/O phase's */
        json_t *run = json_object_get(v, "run_paired");
        if (!run)
            run = json_object_get(v, "paired");
        json_t *iv = json_object_get(run, "interval");
        double sp = json_number_value(json_object_get(run, "median"));
        double lo = json_number_value(json_array_get(iv, 0)), hi = json_number_value(json_array_get(iv, 1));
        const char *verdict = json_string_value(json_object_get(run, "verdict"));
        if (!run)
            verdict = json_string_value(json_object_get(v, "status"));
        fputs("<tr><td class=\"l\">", o);
        esc(o, name ? name : "(unnamed)");
        if (run)
            fprintf(o, "</td><td>%.3f&times;</td><td>[%.3f, %.3f]</td><td class=\"l\">", sp, lo, hi);
        else
            fputs("</td><td>not measured</td><td></td><td class=\"l\">", o);
        esc(o, verdict ? verdict : "");
        fputs("</td></tr>\n", o);
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "change");
        iol_jsonw_str(w, name ? name : "");
        iol_jsonw_key(w, "speedup");
        iol_jsonw_double(w, run ? sp : NAN);
        iol_jsonw_key(w, "low");
        iol_jsonw_double(w, run ? lo : NAN);
        iol_jsonw_key(w, "high");
        iol_jsonw_double(w, run ? hi : NAN);
        iol_jsonw_key(w, "verdict");
        iol_jsonw_str(w, verdict ? verdict : "");
        iol_jsonw_obj_end(w);
    }
    fputs("</table>\n", o);
    iol_jsonw_arr_end(w);
    json_decref(root);
    fputs("</section>\n", o);
    return 0;
}


/* ---- clusters of a set of jobs (`iolens cluster -o DIR`) ---- */

#define CL_MAX 8          /* clusters drawn (the largest) */
#define CL_BYTES (64u << 20)

struct cl {
    const char *label;
    int64_t size;
    const double *v;
    size_t n;
};

static int cmp_cl_size(const void *a, const void *b)
{
    const struct cl *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->label, y->label);
}

/* The clusters through the place module's reader (the one `iolens place` uses: DIR/assignments.csv
 * and DIR/centroids.csv); each one's size counted from DIR/clusters.csv ("cluster,name,size"),
 * when present. */
static int read_clusters(const char *dir, iolens_place_clusters **pc, struct cl **out, size_t *nout)
{
    int rc = iolens_place_clusters_read(pc, dir);
    if (rc < 0)
        return rc;
    size_t n = iolens_place_clusters_count(*pc);
    struct cl *c = calloc(n ? n : 1, sizeof *c);
    if (!c)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        c[k].label = iolens_place_clusters_label(*pc, k);
        c[k].v = iolens_place_clusters_centroid(*pc, k, &c[k].n);
    }
    char path[4200];
    iol_buf b = {0};
    snprintf(path, sizeof path, "%s/clusters.csv", dir);
    if (iol_read_file(path, CL_BYTES, &b) == 0 && b.data) {
        for (char *line = strchr(b.data, '\n'), *next; line && *++line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next = 0;
            char *comma = strchr(line, ','), *last = strrchr(line, ',');
            if (!comma || !last)
                continue;
            *comma = 0;
            for (size_t k = 0; k < n; k++)
                if (!strcmp(c[k].label, line))
                    c[k].size = strtoll(last + 1, NULL, 10);
        }
    }
    iolens_error_clear();
    iol_buf_release(&b);
    *out = c;
    *nout = n;
    return 0;
}

static int cluster_section(FILE *o, iol_jsonw *w, const char *dir, const char *input)
{
    section(o, "clusters", "Clusters of the job set");
    if (!dir) {
        nodata(o, "No clusters given (iolens cluster -o DIR LOGS...; iolens report --cluster DIR).");
        iol_jsonw_key(w, "clusters");
        iol_jsonw_null(w);
        fputs("</section>\n", o);
        return 0;
    }
    struct cl *c = NULL;
    iolens_place_clusters *pc = NULL;
    size_t n = 0;
    int rc = read_clusters(dir, &pc, &c, &n);
    if (rc < 0) {
        iolens_place_clusters_free(pc);
        return rc;
    }
    double step = iolens_place_clusters_step(pc);
    qsort(c, n, sizeof *c, cmp_cl_size);
    size_t shown = n < CL_MAX ? n : CL_MAX;
    double tmax = 0, vmax = 0;
    for (size_t i = 0; i < shown; i++) {
        tmax = fmax(tmax, (double)c[i].n * step);
        for (size_t j = 0; j < c[i].n; j++)
            vmax = fmax(vmax, c[i].v[j]);
    }
    fprintf(o, "<p>%zu cluster(s) of the I/O time series in <code>", n);
    esc(o, dir);
    fprintf(o, "</code>; the centroids of the %zu largest, in MiB/s against time (step %.4g s).</p>\n", shown, step);
    const int lm = 70, pw = 640, ph = 220, top = 20, H = top + ph + 44 + 16 * (int)((shown + 3) / 4);
    double vs = nice_step(vmax, 4), vtop = vs * ceil(vmax / vs), ts = nice_step(tmax, 6);
    if (!(vtop > 0))
        vtop = 1;
    if (!(tmax > 0))
        tmax = 1;
    fprintf(o, "<svg id=\"centroids\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
            lm + pw + 40, H, lm + pw + 40, H);
    for (double v = 0; v <= vtop * 1.0001; v += vs) {
        double y = top + ph - v / vtop * ph;
        char b[32];
        fmt_num(v, b, sizeof b);
        fprintf(o, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text class=\"tick\" x=\"%d\" "
                   "y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                lm, y, lm + pw, y, lm - 4, y + 4, b);
    }
    for (double t = 0; t <= tmax * 1.0001; t += ts) {
        double x = lm + t / tmax * pw;
        fprintf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>\n", x, top + ph + 14, t);
    }
    fprintf(o, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (s)</text>"
               "<text class=\"unit\" x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">MiB/s</text>\n",
            lm + pw / 2, top + ph + 30, top + ph / 2, top + ph / 2);
    iol_jsonw_key(w, "clusters");
    iol_jsonw_arr_begin(w);
    for (size_t i = 0; i < shown; i++) {
        fprintf(o, "<polyline class=\"l%zu\" points=\"", i);
        size_t stride = c[i].n > 1000 ? (c[i].n + 999) / 1000 : 1;
        for (size_t j = 0; j < c[i].n; j += stride)
            fprintf(o, "%.1f,%.1f ", lm + (double)j * step / tmax * pw, top + ph - c[i].v[j] / vtop * ph);
        fputs("\"/>\n", o);
        int lx = lm + (int)(i % 4) * 170, ly = top + ph + 40 + 16 * (int)(i / 4);
        fprintf(o, "<rect class=\"f%zu\" x=\"%d\" y=\"%d\" width=\"12\" height=\"4\"/><text x=\"%d\" y=\"%d\">cluster ",
                i, lx, ly - 6, lx + 16, ly);
        esc(o, c[i].label);
        fprintf(o, " (%" PRId64 " series)</text>\n", c[i].size);
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "cluster");
        iol_jsonw_str(w, c[i].label);
        iol_jsonw_key(w, "size");
        iol_jsonw_int(w, c[i].size);
        iol_jsonw_key(w, "points");
        iol_jsonw_int(w, (int64_t)c[i].n);
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);
    fputs("</svg>\n", o);
    fputs("<table id=\"cluster-sizes\"><tr><th>cluster</th><th>series</th><th>duration (s)</th><th>peak MiB/s</th></tr>\n", o);
    for (size_t i = 0; i < n; i++) {
        double pk = 0;
        for (size_t j = 0; j < c[i].n; j++)
            pk = fmax(pk, c[i].v[j]);
        fputs("<tr><td>", o);
        esc(o, c[i].label);
        fprintf(o, "</td><td>%" PRId64 "</td><td>%.4g</td><td>%.4g</td></tr>\n", c[i].size, (double)c[i].n * step, pk);
    }
    fputs("</table>\n", o);
    /* the series of this job, when the set has them: `iolens cluster` names them
     * "<log>:<API>:read|write", the log as iolens_series_darshan_log_name() does */
    char base[1024];
    if (iolens_series_darshan_log_name(input, base, sizeof base) < 0)
        snprintf(base, sizeof base, "%s", input);
    static const char *const apis[] = {"POSIX", "MPIIO", "STDIO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "DFS", "DAOS"};
    int any = 0;
    for (size_t a = 0; a < sizeof apis / sizeof apis[0]; a++)
        for (int d = 0; d < 2; d++) {
            char id[1200];
            snprintf(id, sizeof id, "%s:%s:%s", base, apis[a], d ? "write" : "read");
            long k = iolens_place_clusters_of(pc, id);
            if (k < 0)
                continue;
            fprintf(o, "%s%s:%s &rarr; cluster ", any++ ? ", " : "<p>This job's series: ", apis[a], d ? "write" : "read");
            esc(o, iolens_place_clusters_label(pc, (size_t)k));
        }
    if (any)
        fputs(".</p>\n", o);
    iolens_error_clear();
    free(c);
    iolens_place_clusters_free(pc);
    fputs("</section>\n", o);
    return 0;
}

/* ---- entry ---- */

void iolens_report_options_init(iolens_report_options *o)
{
    memset(o, 0, sizeof *o);
    o->tau = 0.3;
    o->max_segments = 20000;
}

static int open_source(struct rsrc *s, const char *input)
{
    int kind = iolens_detect_kind(input);
    if (kind < 0)
        return kind;
    if (kind == IOLENS_DETECT_KIND_DARSHAN) {
        s->kind = "Darshan log";
        int rc = iolens_darshan_load(input, 0, rs_warn, s, &s->data);
        if (rc < 0)
            return rc;
        s->job = iolens_darshan_job_get(iolens_darshan_data_log(s->data));
        const iolens_darshan_header *h = iolens_darshan_header_get(iolens_darshan_data_log(s->data));
        for (int m = 0; m < IOLENS_DARSHAN_MOD_COUNT && h; m++)
            if (h->partial_flag & (1ull << m)) {
                char b[300];
                snprintf(b, sizeof b, "The %s module ran out of memory while recording: its data is incomplete.",
                         iolens_darshan_module_name(m));
                rs_warn(s, b);
            }
        return 0;
    }
    if (kind != IOLENS_DETECT_KIND_TRACE && kind != IOLENS_DETECT_KIND_RECORDER)
        return iol_err(IOLENS_EUNSUPPORTED, "'%s' is not a binary Darshan log, an iolens trace or a Recorder trace "
                       "directory (darshan-parser text cannot be drawn: it has no DXT or heatmap)", input);
    iolens_evsource *src = NULL;
    s->kind = kind == IOLENS_DETECT_KIND_TRACE ? "iolens trace" : "Recorder trace";
    int rc = iol_report_open_trace(input, kind, rs_warn, s, &src);
    if (rc < 0)
        return rc;
    for (int r = 0; kind == IOLENS_DETECT_KIND_TRACE && r < iolens_evsource_nranks(src); r++) {
        iolens_trace_proc pi;
        char b[300];
        if (iolens_trace_proc_info(src, r, &pi) < 0)
            continue;
        if (pi.truncated) {
            snprintf(b, sizeof b, "Process %d's trace ends without its end mark (the process was killed?): its "
                     "last calls may be missing.", r);
            rs_warn(s, b);
        }
        if (pi.stopped) {
            snprintf(b, sizeof b, "Process %d stopped tracing early: %s.", r, iolens_trace_stop_text(pi.stopped));
            rs_warn(s, b);
        }
    }
    iolens_counters_opts co;
    iolens_counters_opts_init(&co);
    co.dxt = 1;
    rc = iolens_counters_compute(src, &co, &s->ctr);
    iolens_evsource_free(src);
    if (rc < 0)
        return rc;
    s->job = iolens_counters_job(s->ctr);
    return 0;
}

int iolens_report_write(const char *input, const iolens_report_options *opt, FILE *out, FILE *json_out)
{
    if (!input || !out)
        return iol_err(IOLENS_EINVAL, "iolens_report_write: NULL argument");
    iolens_report_options defaults;
    if (!opt) {
        iolens_report_options_init(&defaults);
        opt = &defaults;
    }
    struct rsrc s;
    memset(&s, 0, sizeof s);
    int rc = open_source(&s, input);
    int64_t nfull = 0;
    if (rc < 0)
        goto out;
    if (opt->timeline_file) { /* first, so that a failure leaves no page behind that links to nothing */
        iol_atomic ta; /* whole or not at all (util/fs.h) */
        FILE *tf = iol_atomic_fopen(&ta, opt->timeline_file, "w");
        if (!tf) {
            rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", opt->timeline_file, strerror(errno));
            goto out;
        }
        rc = iolens_report_chrome_trace(input, tf, &nfull, opt->warn, opt->warn_ctx);
        if (iol_atomic_fclose(&ta, tf, rc == 0) != 0 && rc == 0)
            rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", opt->timeline_file, strerror(errno));
        if (rc < 0)
            goto out;
    }
    FILE *jf = json_out ? json_out : fopen("/dev/null", "w");
    if (!jf) {
        rc = iol_err(IOLENS_EIO, "cannot open /dev/null");
        goto out;
    }
    iol_jsonw w;
    iol_jsonw_init(&w, jf, 1);
    iol_jsonw_obj_begin(&w);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"color-scheme\" content=\"light dark\">\n<title>iolens report: ",
          out);
    const char *base = strrchr(input, '/');
    esc(out, base && base[1] ? base + 1 : input);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>I/O report: ", css);
    esc(out, base && base[1] ? base + 1 : input);
    fprintf(out, "</h1>\n<p class=\"nodata\">iolens %s</p>\n", iolens_version());
    job_section(out, &w, &s, input);
    modules_sections(out, &w, &s);
    heatmap_section(out, &w, &s);
    timeline_section(out, &w, &s, opt->max_segments > 0 ? opt->max_segments : 20000,
                     opt->timeline_file ? (opt->timeline_href ? opt->timeline_href : opt->timeline_file) : NULL, nfull);
    if ((rc = diagnosis_section(out, &w, input, opt)) < 0 || (rc = whatif_section(out, &w, opt->whatif_json)) < 0 ||
        (rc = cluster_section(out, &w, opt->cluster_dir, input)) < 0)
        goto close;
    fputs("</body></html>\n", out);
close:
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    if (!json_out)
        fclose(jf);
    if (rc == 0 && (ferror(out) || (json_out && ferror(json_out))))
        rc = iol_err(IOLENS_EIO, "cannot write the report");
out:
    iolens_darshan_data_free(s.data);
    iolens_counters_free(s.ctr);
    return rc;
}
