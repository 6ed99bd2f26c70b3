/* iolens_darshan_write_report (`iolens darshan --report`): the human summary of one log (the
 * main job). */
#include "iolens/darshan.h"
#include "darshan/byname.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

#define TOP_FILES 10

/* colour of the headings and warnings, set per call (one report at a time per thread) */
static _Thread_local int color_on;
static const char *sgr(const char *code)
{
    static _Thread_local char buf[4][16];
    static _Thread_local int next;
    if (!color_on)
        return "";
    if (!code)
        return "\033[0m";
    char *b = buf[next++ & 3];
    snprintf(b, sizeof buf[0], "\033[%sm", code);
    return b;
}
#define SGR_BOLD "1"
#define SGR_WARN "1;33"

static const struct {
    int module;
    const char *pfx;
} rep_mods[] = {
    {IOLENS_DARSHAN_POSIX, "POSIX"}, {IOLENS_DARSHAN_MPIIO, "MPIIO"}, {IOLENS_DARSHAN_STDIO, "STDIO"},
    {IOLENS_DARSHAN_H5D, "H5D"},     {IOLENS_DARSHAN_DFS, "DFS"},     {IOLENS_DARSHAN_DAOS, "DAOS"},
};
#define N_REP (sizeof rep_mods / sizeof *rep_mods)

struct warn_list {
    char text[8][256];
    int n;
};

static void collect_warn(void *ctx, const char *msg)
{
    struct warn_list *w = ctx;
    if (w->n < 8)
        snprintf(w->text[w->n++], sizeof w->text[0], "%s", msg);
}

static void human_bytes(double b, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f B", b);
    else
        snprintf(buf, n, "%.2f %s", b, unit[u]);
}

static int64_t ci(const iolens_darshan_record *r, const char *pfx, const char *name)
{
    return iol_vi(r, iol_cidx(r->module, pfx, name, 0));
}

static double cf(const iolens_darshan_record *r, const char *pfx, const char *name)
{
    return iol_vf(r, iol_cidx(r->module, pfx, name, 1));
}

static void print_time(FILE *out, const char *label, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
        fprintf(out, "  %-12s %s (%" PRId64 ")\n", label, buf, t);
    else
        fprintf(out, "  %-12s %" PRId64 "\n", label, t);
}

/* one file: its records (one shared record, or one per rank) merged */
struct top {
    uint64_t id;
    const iolens_darshan_record *shared; /* the rank -1 record, if any */
    double rd, wr, sum_t, max_t;
    int64_t nranks;
};

static int cmp_top(const void *a, const void *b)
{
    double x = ((const struct top *)a)->rd + ((const struct top *)a)->wr;
    double y = ((const struct top *)b)->rd + ((const struct top *)b)->wr;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_rec_id(const void *a, const void *b)
{
    uint64_t x = (*(const iolens_darshan_record *const *)a)->id;
    uint64_t y = (*(const iolens_darshan_record *const *)b)->id;
    return x < y ? -1 : x > y;
}

static const char *short_name(const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);
    if (len < n)
        return name;
    snprintf(buf, n, "...%s", name + len - (n - 4));
    return buf;
}

static void section(FILE *out, const char *title)
{
    fprintf(out, "\n%s%s%s\n", sgr(SGR_BOLD), title, sgr(NULL));
    for (size_t i = 0; title[i]; i++)
        fputc('-', out);
    fputc('\n', out);
}

static void print_modules(FILE *out, const iolens_darshan_data *d, const iolens_darshan_job *j)
{
    section(out, "I/O by module");
    fprintf(out, "  %-7s %7s %12s %12s %10s %10s %10s %8s\n", "module", "files", "read", "written",
            "read s", "write s", "meta s", "% run");
    double cpu = (double)(j->nprocs > 0 ? j->nprocs : 1) * (j->run_time > 0 ? j->run_time : 0);
    for (size_t k = 0; k < N_REP; k++) {
        size_t n = iolens_darshan_data_count(d, rep_mods[k].module);
        if (!n)
            continue;
        double br = 0, bw = 0, tr = 0, tw = 0, tm = 0;
        int m = rep_mods[k].module;
        const char *pfx = rep_mods[k].pfx;
        int ibr = iol_cidx(m, pfx, "BYTES_READ", 0), ibw = iol_cidx(m, pfx, "BYTES_WRITTEN", 0);
        int ftr = iol_cidx(m, pfx, "F_READ_TIME", 1), ftw = iol_cidx(m, pfx, "F_WRITE_TIME", 1);
        int ftm = iol_cidx(m, pfx, "F_META_TIME", 1);
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
            br += (double)iol_vi(r, ibr);
            bw += (double)iol_vi(r, ibw);
            tr += iol_vf(r, ftr);
            tw += iol_vf(r, ftw);
            tm += iol_vf(r, ftm);
        }
        char sr[32], sw[32], pct[16];
        human_bytes(br, sr, sizeof sr);
        human_bytes(bw, sw, sizeof sw);
        if (cpu > 0)
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * (tr + tw + tm) / cpu);
        else
            snprintf(pct, sizeof pct, "-");
        fprintf(out, "  %-7s %7zu %12s %12s %10.3f %10.3f %10.3f %8s\n",
                iolens_darshan_module_name(rep_mods[k].module), n, sr, sw, tr, tw, tm, pct);
    }
    fprintf(out, "  (times are summed over ranks; %% run = (read+write+meta) / (nprocs x run time))\n");
}

static void print_ops(FILE *out, const iolens_darshan_data *d)
{
    static const char *const posix_ops[] = {"OPENS", "READS", "WRITES", "SEEKS", "STATS", "FSYNCS"};
    static const char *const mpiio_ops[] = {"INDEP_READS", "INDEP_WRITES", "COLL_READS",
                                            "COLL_WRITES", "NB_READS",     "NB_WRITES"};
    static const char *const stdio_ops[] = {"OPENS", "READS", "WRITES", "SEEKS", "FLUSHES"};
    section(out, "Operation counts");
    const struct {
        int m;
        const char *pfx;
        const char *const *ops;
        size_t n;
    } sets[] = {{IOLENS_DARSHAN_POSIX, "POSIX", posix_ops, 6},
                {IOLENS_DARSHAN_MPIIO, "MPIIO", mpiio_ops, 6},
                {IOLENS_DARSHAN_STDIO, "STDIO", stdio_ops, 5}};
    for (size_t s = 0; s < 3; s++) {
        size_t n = iolens_darshan_data_count(d, sets[s].m);
        if (!n)
            continue;
        fprintf(out, "  %-7s", iolens_darshan_module_name(sets[s].m));
        for (size_t o = 0; o < sets[s].n; o++) {
            int64_t sum = 0;
            int idx = iol_cidx(sets[s].m, sets[s].pfx, sets[s].ops[o], 0);
            for (size_t i = 0; i < n; i++)
                sum += iol_vi(iolens_darshan_data_record(d, sets[s].m, i), idx);
            char lower[32];
            size_t l;
            for (l = 0; sets[s].ops[o][l] && l < sizeof lower - 1; l++)
                lower[l] = (char)(sets[s].ops[o][l] >= 'A' && sets[s].ops[o][l] <= 'Z'
                                      ? sets[s].ops[o][l] + 32
                                      : sets[s].ops[o][l]);
            lower[l] = '\0';
            fprintf(out, " %s=%" PRId64, lower, sum);
        }
        fputc('\n', out);
    }
}

static void print_sizes(FILE *out, const iolens_darshan_data *d)
{
    static const char *const bins[] = {"0_100",   "100_1K",  "1K_10K",   "10K_100K", "100K_1M",
                                       "1M_4M",   "4M_10M",  "10M_100M", "100M_1G",  "1G_PLUS"};
    static const char *const labels[] = {"0-100 B",  "100 B-1 KiB", "1-10 KiB",   "10-100 KiB",
                                         "100 KiB-1 MiB", "1-4 MiB", "4-10 MiB", "10-100 MiB",
                                         "100 MiB-1 GiB", "1 GiB+"};
    size_t n = iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX);
    if (!n)
        return;
    int64_t rd[10] = {0}, wr[10] = {0}, mx = 0;
    for (int b = 0; b < 10; b++) {
        char cn[48];
        snprintf(cn, sizeof cn, "SIZE_READ_%s", bins[b]);
        int ir = iol_cidx(IOLENS_DARSHAN_POSIX, "POSIX", cn, 0);
        snprintf(cn, sizeof cn, "SIZE_WRITE_%s", bins[b]);
        int iw = iol_cidx(IOLENS_DARSHAN_POSIX, "POSIX", cn, 0);
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_POSIX, i);
            rd[b] += iol_vi(r, ir);
            wr[b] += iol_vi(r, iw);
        }
        if (rd[b] > mx)
            mx = rd[b];
        if (wr[b] > mx)
            mx = wr[b];
    }
    section(out, "POSIX access sizes (operations per size range)");
    fprintf(out, "  %-14s %10s %-20s %10s %-20s\n", "size", "reads", "", "writes", "");
    for (int b = 0; b < 10; b++) {
        char br[21], bw[21];
        int lr = mx ? (int)((double)rd[b] / (double)mx * 20 + 0.5) : 0;
        int lw = mx ? (int)((double)wr[b] / (double)mx * 20 + 0.5) : 0;
        if (rd[b] && !lr)
            lr = 1;
        if (wr[b] && !lw)
            lw = 1;
        memset(br, '#', (size_t)lr);
        br[lr] = '\0';
        memset(bw, '#', (size_t)lw);
        bw[lw] = '\0';
        fprintf(out, "  %-14s %10" PRId64 " %-20s %10" PRId64 " %-20s\n", labels[b], rd[b], br, wr[b], bw);
    }
}

static int print_top_files(FILE *out, const iolens_darshan_data *d, const iolens_darshan_job *j)
{
    size_t total = 0;
    for (size_t k = 0; k < 3; k++)
        total += iolens_darshan_data_count(d, rep_mods[k].module);
    if (!total)
        return 0;
    /* one module per file: POSIX if present (the others are layers above it) */
    int m = iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX) ? IOLENS_DARSHAN_POSIX
            : iolens_darshan_data_count(d, IOLENS_DARSHAN_MPIIO) ? IOLENS_DARSHAN_MPIIO
                                                                : IOLENS_DARSHAN_STDIO;
    const char *pfx = m == IOLENS_DARSHAN_POSIX ? "POSIX" : m == IOLENS_DARSHAN_MPIIO ? "MPIIO" : "STDIO";
    size_t nrec = iolens_darshan_data_count(d, m), n = 0;
    const iolens_darshan_record **recs = malloc(nrec * sizeof *recs);
    struct top *t = calloc(nrec, sizeof *t);
    if (!t || !recs) {
        free(recs);
        free(t);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < nrec; i++)
        recs[i] = iolens_darshan_data_record(d, m, i);
    qsort(recs, nrec, sizeof *recs, cmp_rec_id);
    int ibr = iol_cidx(m, pfx, "BYTES_READ", 0), ibw = iol_cidx(m, pfx, "BYTES_WRITTEN", 0);
    int ftr = iol_cidx(m, pfx, "F_READ_TIME", 1), ftw = iol_cidx(m, pfx, "F_WRITE_TIME", 1);
    int fslow = iol_cidx(m, pfx, "F_SLOWEST_RANK_TIME", 1);
    for (size_t i = 0; i < nrec; i++) {
        const iolens_darshan_record *r = recs[i];
        if (!n || t[n - 1].id != r->id)
            t[n++].id = r->id;
        struct top *f = &t[n - 1];
        double tio = iol_vf(r, ftr) + iol_vf(r, ftw);
        f->rd += (double)iol_vi(r, ibr);
        f->wr += (double)iol_vi(r, ibw);
        f->sum_t += tio;
        if (r->rank < 0) {
            f->shared = r;
            f->nranks = j->nprocs;
            double slow = iol_vf(r, fslow);
            tio = slow > 0 ? slow : tio;
        } else if (!f->shared) {
            f->nranks++;
        }
        if (tio > f->max_t)
            f->max_t = tio;
    }
    free(recs);
    qsort(t, n, sizeof *t, cmp_top);
    char title[96];
    snprintf(title, sizeof title, "Top files by bytes moved (%s)", iolens_darshan_module_name(m));
    section(out, title);
    fprintf(out, "  %-44s %5s %11s %11s %9s %12s\n", "file", "ranks", "read", "written", "I/O s",
            "bandwidth");
    int shown = 0;
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += t[i].rd + t[i].wr > 0;
    for (size_t i = 0; i < moved && shown < TOP_FILES; i++) {
        const char *name = iolens_darshan_data_name(d, t[i].id);
        char nb[45], sr[24], sw[24], bwb[32];
        human_bytes(t[i].rd, sr, sizeof sr);
        human_bytes(t[i].wr, sw, sizeof sw);
        if (t[i].max_t > 0) {
            human_bytes((t[i].rd + t[i].wr) / t[i].max_t, bwb, sizeof bwb - 2);
            strcat(bwb, "/s");
        } else {
            snprintf(bwb, sizeof bwb, "-");
        }
        fprintf(out, "  %-44s %5" PRId64 " %11s %11s %9.3f %12s\n",
                short_name(name ? name : "(unnamed)", nb, sizeof nb), t[i].nranks, sr, sw, t[i].sum_t, bwb);
        shown++;
    }
    if (moved > TOP_FILES)
        fprintf(out, "  ... %zu more\n", moved - TOP_FILES);
    if (moved < n)
        fprintf(out, "  (%zu files moved no data)\n", n - moved);
    fprintf(out, "  (I/O s = read + write time summed over ranks; bandwidth = bytes / I/O time of the\n"
                 "   slowest rank)\n");
    /* shared files: the slowest rank (from the POSIX reduction counters) */
    if (m == IOLENS_DARSHAN_POSIX) {
        int header = 0;
        int listed = 0;
        for (size_t i = 0; i < n && listed < TOP_FILES; i++) {
            const iolens_darshan_record *r = t[i].shared;
            if (!r || t[i].rd + t[i].wr <= 0)
                continue;
            if (!header) {
                section(out, "Shared files: slowest and fastest rank");
                fprintf(out, "  %-44s %8s %10s %11s %8s %10s\n", "file", "slowest", "time s", "bytes",
                        "fastest", "time s");
                header = 1;
            }
            const char *name = iolens_darshan_data_name(d, r->id);
            char nb[45], sb[24];
            human_bytes((double)ci(r, pfx, "SLOWEST_RANK_BYTES"), sb, sizeof sb);
            fprintf(out, "  %-44s %8" PRId64 " %10.3f %11s %8" PRId64 " %10.3f\n",
                    short_name(name ? name : "(unnamed)", nb, sizeof nb), ci(r, pfx, "SLOWEST_RANK"),
                    cf(r, pfx, "F_SLOWEST_RANK_TIME"), sb, ci(r, pfx, "FASTEST_RANK"),
                    cf(r, pfx, "F_FASTEST_RANK_TIME"));
            listed++;
        }
    }
    free(t);
    return 0;
}

int iolens_darshan_write_report(FILE *out, const char *path, int color)
{
    color_on = color;
    struct warn_list warns = {0};
    iolens_darshan_data *d = NULL;
    int rc = iolens_darshan_load(path, 1, collect_warn, &warns, &d);
    if (rc < 0)
        return rc;
    const iolens_darshan_log *log = iolens_darshan_data_log(d);
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    const iolens_darshan_job *j = iolens_darshan_job_get(log);
    const char *base = strrchr(path, '/');
    fprintf(out, "Darshan log %s\n", base ? base + 1 : path);
    section(out, "Job");
    fprintf(out, "  %-12s %s\n", "executable", j->exe);
    fprintf(out, "  %-12s %" PRId64 "\n", "job id", j->jobid);
    fprintf(out, "  %-12s %" PRId64 "\n", "uid", j->uid);
    fprintf(out, "  %-12s %" PRId64 "\n", "processes", j->nprocs);
    print_time(out, "start", j->start_time_sec);
    print_time(out, "end", j->end_time_sec);
    fprintf(out, "  %-12s %.4f s\n", "run time", j->run_time);
    fprintf(out, "  %-12s %s (%s, %s)\n", "log format", h->version, h->big_endian ? "big-endian" : "little-endian",
            h->comp == IOLENS_DARSHAN_COMP_ZLIB ? "zlib" : h->comp == IOLENS_DARSHAN_COMP_BZIP2 ? "bzip2" : "uncompressed");
    char mods[256] = "";
    size_t k = 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if (h->mod[m].len) {
            int w = snprintf(mods + k, sizeof mods - k, "%s%s", k ? " " : "", iolens_darshan_module_name(m));
            if (w > 0 && (size_t)w < sizeof mods - k)
                k += (size_t)w;
        }
    fprintf(out, "  %-12s %s\n", "modules", mods);

    /* warnings first: they qualify every number below */
    int nw = 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT && m < 64; m++)
        if ((h->partial_flag >> m) & 1) {
            if (!nw++)
                section(out, "Warnings");
            fprintf(out, "  %s! %s data is incomplete: the module ran out of memory and stopped recording "
                         "new files (totals below are lower bounds)%s\n",
                    sgr(SGR_WARN), iolens_darshan_module_name(m), sgr(NULL));
        }
    if (h->major == 3 && h->minor == 20) {
        if (!nw++)
            section(out, "Warnings");
        fprintf(out, "  %s! logs of runtime 3.2.0 likely have corrupted counters (COMMON_ACCESS values)%s\n",
                sgr(SGR_WARN), sgr(NULL));
    }
    for (int i = 0; i < warns.n; i++) {
        if (!nw++)
            section(out, "Warnings");
        fprintf(out, "  %s! %s%s\n", sgr(SGR_WARN), warns.text[i], sgr(NULL));
    }
    print_modules(out, d, j);
    print_ops(out, d);
    print_sizes(out, d);
    rc = print_top_files(out, d, j);
    iolens_darshan_data_free(d);
    return rc;
}
