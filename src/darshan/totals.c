/* --total / --file / --perf sections of `iolens darshan` (POSIX, MPI-IO, STDIO),
 * with the arithmetic derived from the reference outputs (see docs/darshan.md). */
#include "darshan/totals.h"

#include "util/buf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How one counter combines when records are aggregated. */
enum agg_kind {
    AGG_SUM,
    AGG_MAX,
    AGG_LAST,      /* MODE, *_ALIGNMENT, RENAMED_FROM: the value of the last record */
    AGG_MIN_POS,   /* *_START_TIMESTAMP: smallest positive value */
    AGG_ZERO,      /* VARIANCE counters: not aggregated (0) */
    AGG_SKIP,      /* handled with another counter (fastest/slowest, max time size, common values) */
};

typedef struct agg_rec {
    int module;
    int n;          /* records merged */
    int mixed;      /* records of different files were merged */
    uint64_t id;
    int64_t c[128];
    double f[32];
} agg_rec;

typedef struct modix {
    int module;
    size_t ni, nf;
    enum agg_kind ki[128], kf[32];
    int fastest, fastest_bytes, slowest, slowest_bytes, f_fastest, f_slowest;
    int max_read_size, max_write_size, f_max_read, f_max_write;
    int access1, stride1; /* first value index of the common-value blocks, or -1 */
    int bytes_read, bytes_written, max_byte_read, max_byte_written;
    int f_read, f_write, f_meta;
} modix;

/* Adds without undefined behaviour; an overflowing or negative sum is -1, as
 * the reference marks invalid sums. */
static int64_t add_or_neg1(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || r < 0)
        return -1;
    return r;
}

double iol_darshan_unswapped(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    bits = __builtin_bswap64(bits);
    memcpy(&v, &bits, 8);
    return v;
}

/* Plain sum that wraps instead of overflowing (only hostile logs get there). */
static int64_t add_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int idx(int m, const char *prefix, const char *suffix)
{
    char name[96];
    snprintf(name, sizeof name, "%s%s", prefix, suffix);
    int is_float;
    return iolens_darshan_counter_index(m, name, &is_float);
}

static void modix_init(modix *x, int m)
{
    const char *p = m == IOLENS_DARSHAN_POSIX ? "POSIX_"
                    : m == IOLENS_DARSHAN_MPIIO ? "MPIIO_"
                    : m == IOLENS_DARSHAN_DFS   ? "DFS_"
                    : m == IOLENS_DARSHAN_DAOS  ? "DAOS_"
                                                : "STDIO_";
    memset(x, 0, sizeof *x);
    x->module = m;
    x->ni = iolens_darshan_counter_count(m);
    x->nf = iolens_darshan_fcounter_count(m);
    for (size_t i = 0; i < x->ni; i++) {
        const char *n = iolens_darshan_counter_name(m, i);
        enum agg_kind k = AGG_SUM;
        if (ends_with(n, "_MODE") || ends_with(n, "_MEM_ALIGNMENT") || ends_with(n, "_FILE_ALIGNMENT") ||
            ends_with(n, "_RENAMED_FROM")) /* a record id: darshan-util keeps the last record's */
            k = AGG_LAST;
        else if (m == IOLENS_DARSHAN_DAOS && (ends_with(n, "_OTYPE") || ends_with(n, "_CELL_SIZE") ||
                                              ends_with(n, "_CHUNK_SIZE")))
            k = AGG_ZERO; /* properties of one object: darshan-parser's totals leave them 0 */
        else if (strstr(n, "_MAX_BYTE_"))
            k = AGG_MAX;
        else if (strstr(n, "_RANK") || strstr(n, "_TIME_SIZE") || strstr(n, "_ACCESS") ||
                 strstr(n, "_STRIDE"))
            k = AGG_SKIP;
        x->ki[i] = k;
    }
    for (size_t i = 0; i < x->nf; i++) {
        const char *n = iolens_darshan_fcounter_name(m, i);
        enum agg_kind k = AGG_SUM;
        if (strstr(n, "_VARIANCE_"))
            k = AGG_ZERO;
        else if (ends_with(n, "_START_TIMESTAMP"))
            k = AGG_MIN_POS;
        else if (ends_with(n, "_END_TIMESTAMP"))
            k = AGG_MAX;
        else if (strstr(n, "_RANK_TIME") || strstr(n, "_F_MAX_"))
            k = AGG_SKIP;
        x->kf[i] = k;
    }
    x->fastest = idx(m, p, "FASTEST_RANK");
    x->fastest_bytes = idx(m, p, "FASTEST_RANK_BYTES");
    x->slowest = idx(m, p, "SLOWEST_RANK");
    x->slowest_bytes = idx(m, p, "SLOWEST_RANK_BYTES");
    x->f_fastest = idx(m, p, "F_FASTEST_RANK_TIME");
    x->f_slowest = idx(m, p, "F_SLOWEST_RANK_TIME");
    x->max_read_size = idx(m, p, "MAX_READ_TIME_SIZE");
    x->max_write_size = idx(m, p, "MAX_WRITE_TIME_SIZE");
    x->f_max_read = idx(m, p, "F_MAX_READ_TIME");
    x->f_max_write = idx(m, p, "F_MAX_WRITE_TIME");
    x->access1 = idx(m, p, "ACCESS1_ACCESS");
    x->stride1 = idx(m, p, "STRIDE1_STRIDE");
    x->bytes_read = idx(m, p, "BYTES_READ");
    x->bytes_written = idx(m, p, "BYTES_WRITTEN");
    x->max_byte_read = idx(m, p, "MAX_BYTE_READ");
    x->max_byte_written = idx(m, p, "MAX_BYTE_WRITTEN");
    x->f_read = idx(m, p, "F_READ_TIME");
    x->f_write = idx(m, p, "F_WRITE_TIME");
    x->f_meta = idx(m, p, "F_META_TIME");
}

/* Merges a record's 4 most common (value, count) pairs into the aggregate's,
 * keeping the 4 largest counts (ties: larger value first); values already in
 * the aggregate add their counts. */
static void merge_common(int64_t *av, int64_t *ac, const int64_t *rv_in, const int64_t *rc_in)
{
    int64_t rv[4], rc[4];
    int dup[4] = {0, 0, 0, 0};
    memcpy(rv, rv_in, sizeof rv);
    memcpy(rc, rc_in, sizeof rc);
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++)
            if (av[k] == rv[j]) {
                ac[k] = add_wrap(ac[k], rc[j]);
                dup[j] = 1; /* merged: skipped below, the pairs after it still count */
            }
    for (int j = 0; j < 4; j++) {
        if (dup[j])
            continue;
        if (rv[j] == 0)
            break;
        int64_t tv[4] = {0}, tc[4] = {0};
        int n = 0, k = 0;
        for (k = 0; k < 4; k++) {
            if (ac[k] > rc[j] || (ac[k] == rc[j] && av[k] > rv[j])) {
                tv[n] = av[k];
                tc[n] = ac[k];
                n++;
            } else {
                break;
            }
        }
        if (n == 4)
            break;
        tv[n] = rv[j];
        tc[n] = rc[j];
        n++;
        while (n != 4 && k < 4) {
            if (av[k] != rv[j]) {
                tv[n] = av[k];
                tc[n] = ac[k];
                n++;
            }
            k++;
        }
        memcpy(av, tv, sizeof tv);
        memcpy(ac, tc, sizeof tc);
    }
}

static void agg_add(agg_rec *a, const modix *x, const iolens_darshan_record *r)
{
    const int64_t *c = r->counters;
    const double *f = r->fcounters;
    int first = a->n == 0;
    for (size_t i = 0; i < x->ni; i++) {
        switch (x->ki[i]) {
        case AGG_SUM: /* POSIX, MPI-IO: a negative sum (-1 "not monitored" values) stays -1;
                         STDIO: darshan-parser sums them (129 records of -1 FDOPENS total -129) */
            a->c[i] = x->module == IOLENS_DARSHAN_STDIO ? add_wrap(a->c[i], c[i]) : add_or_neg1(a->c[i], c[i]);
            break;
        case AGG_MAX:
            if (first || c[i] > a->c[i])
                a->c[i] = c[i];
            break;
        case AGG_LAST:
            a->c[i] = c[i];
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < x->nf; i++) {
        switch (x->kf[i]) {
        case AGG_SUM:
            a->f[i] += f[i];
            break;
        case AGG_MAX:
            if (f[i] > a->f[i])
                a->f[i] = f[i];
            break;
        case AGG_MIN_POS:
            if (f[i] > 0 && (a->f[i] == 0 || f[i] < a->f[i]))
                a->f[i] = f[i];
            break;
        default:
            break;
        }
    }
    if (x->f_max_read >= 0 && f[x->f_max_read] > a->f[x->f_max_read]) {
        a->f[x->f_max_read] = f[x->f_max_read];
        a->c[x->max_read_size] = c[x->max_read_size];
    }
    if (x->f_max_write >= 0 && f[x->f_max_write] > a->f[x->f_max_write]) {
        a->f[x->f_max_write] = f[x->f_max_write];
        a->c[x->max_write_size] = c[x->max_write_size];
    }
    if (x->access1 >= 0)
        merge_common(&a->c[x->access1], &a->c[x->access1 + 4], &c[x->access1], &c[x->access1 + 4]);
    if (x->stride1 >= 0)
        merge_common(&a->c[x->stride1], &a->c[x->stride1 + 4], &c[x->stride1], &c[x->stride1 + 4]);
    /* fastest/slowest rank: meaningful only while every record is of one file */
    double t = f[x->f_meta] + f[x->f_read] + f[x->f_write];
    int64_t bytes = add_wrap(c[x->bytes_read], c[x->bytes_written]);
    if (first) {
        a->id = r->id;
        if (r->rank == -1) {
            a->c[x->fastest] = c[x->fastest];
            a->c[x->fastest_bytes] = c[x->fastest_bytes];
            a->c[x->slowest] = c[x->slowest];
            a->c[x->slowest_bytes] = c[x->slowest_bytes];
            a->f[x->f_fastest] = f[x->f_fastest];
            a->f[x->f_slowest] = f[x->f_slowest];
        } else {
            a->c[x->fastest] = a->c[x->slowest] = r->rank;
            a->c[x->fastest_bytes] = a->c[x->slowest_bytes] = bytes;
            a->f[x->f_fastest] = a->f[x->f_slowest] = t;
        }
    } else if (a->mixed || r->id != a->id) {
        a->mixed = 1;
        a->c[x->fastest] = a->c[x->fastest_bytes] = -1;
        a->c[x->slowest] = a->c[x->slowest_bytes] = -1;
        a->f[x->f_fastest] = a->f[x->f_slowest] = 0;
    } else {
        if (t < a->f[x->f_fastest]) {
            a->c[x->fastest] = r->rank;
            a->c[x->fastest_bytes] = bytes;
            a->f[x->f_fastest] = t;
        }
        if (t > a->f[x->f_slowest]) {
            a->c[x->slowest] = r->rank;
            a->c[x->slowest_bytes] = bytes;
            a->f[x->f_slowest] = t;
        }
    }
    a->n++;
}

/* per-file state for --file */
struct file_ent {
    uint64_t id;
    int64_t procs; /* -1: a record of all ranks; else rank records counted */
    size_t first;  /* index of the file's first record */
    int seen;
    agg_rec agg;
};

static int cmp_file_first(const void *a, const void *b)
{
    size_t x = ((const struct file_ent *)a)->first, y = ((const struct file_ent *)b)->first;
    return (x > y) - (x < y);
}

struct rank_ent {
    int64_t rank;
    size_t index;
    double io, md, rw;
};

static int cmp_rank_ent(const void *a, const void *b)
{
    const struct rank_ent *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void iol_darshan_print_derived(FILE *out, const iolens_darshan_data *d, int m, unsigned mask,
                               const char *desc, const iolens_darshan_job *job, int big_endian)
{
    if (m != IOLENS_DARSHAN_POSIX && m != IOLENS_DARSHAN_MPIIO && m != IOLENS_DARSHAN_STDIO &&
        m != IOLENS_DARSHAN_DFS && m != IOLENS_DARSHAN_DAOS)
        return;
    modix x;
    modix_init(&x, m);
    size_t n = iolens_darshan_data_count(d, m);
    if (mask & 2) { /* --total */
        agg_rec tot;
        memset(&tot, 0, sizeof tot);
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
            double f[32];
            iolens_darshan_record q;
            if (m == IOLENS_DARSHAN_POSIX && big_endian && r->version <= 3 && r->nfcounters <= 32 &&
                r->nfcounters > 12) {
                /* darshan-parser's quirk, as in its record text: META_TIME, MAX_READ_TIME and
                 * MAX_WRITE_TIME of big-endian POSIX v1-v3 records are read unswapped, so its
                 * totals sum (and compare) those values; the text reproduces it */
                memcpy(f, r->fcounters, r->nfcounters * sizeof *f);
                for (int k = 10; k <= 12; k++)
                    f[k] = iol_darshan_unswapped(f[k]);
                q = *r;
                q.fcounters = f;
                r = &q;
            }
            agg_add(&tot, &x, r);
        }
        fputs(desc, out);
        for (size_t i = 0; i < x.ni; i++)
            fprintf(out, "total_%s: %" PRId64 "\n", iolens_darshan_counter_name(m, i), tot.c[i]);
        for (size_t i = 0; i < x.nf; i++) {
            char fb[400];
            iol_fmt_f6(fb, sizeof fb, tot.f[i]);
            fprintf(out, "total_%s: %s\n", iolens_darshan_fcounter_name(m, i), fb);
        }
    }
    if (mask & 4) { /* --file */
        /* group records by file id (sorted index) */
        uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
        if (!ids)
            return;
        for (size_t i = 0; i < n; i++)
            ids[i] = iolens_darshan_data_record(d, m, i)->id;
        qsort(ids, n, sizeof *ids, cmp_u64);
        size_t nf = 0;
        for (size_t i = 0; i < n; i++)
            if (i == 0 || ids[i] != ids[i - 1])
                nf++;
        struct file_ent *fe = calloc(nf ? nf : 1, sizeof *fe);
        if (!fe) {
            free(ids);
            return;
        }
        nf = 0;
        for (size_t i = 0; i < n; i++)
            if (i == 0 || ids[i] != ids[i - 1])
                fe[nf++].id = ids[i];
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
            size_t lo = 0, hi = nf;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (fe[mid].id < r->id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            struct file_ent *e = &fe[lo];
            if (!e->seen) {
                e->seen = 1;
                e->first = i;
            }
            /* processes per file as darshan-util's accumulator counts them: -1 for a
             * record of all ranks, plus one per rank record after it (so a shared
             * record followed by a rank record counts 0: partly shared) */
            if (r->rank == -1)
                e->procs = -1;
            else
                e->procs++;
            agg_add(&e->agg, &x, r);
        }
        /* files in order of first appearance, the accumulator's hash iteration order
         * (the largest offset of a category is order dependent: a file without
         * offsets, -1, replaces it) */
        qsort(fe, nf, sizeof *fe, cmp_file_first);
        /* categories: 0 total, 1 read-only, 2 write-only, 3 read-write, 4 unique,
         * 5 shared by all, 6 partly shared; darshan-parser prints 5 and 6 as one
         * "shared" line whose largest offset is the SUM of the two categories'
         * largest offsets (reproduced; docs/darshan.md) */
        int64_t cnt[7] = {0}, size[7] = {0}, mx[7] = {0};
        for (size_t i = 0; i < nf; i++) {
            const agg_rec *a = &fe[i].agg;
            int64_t bytes = add_wrap(a->c[x.bytes_read], a->c[x.bytes_written]);
            int64_t mb = -1;
            if (x.max_byte_read >= 0) {
                mb = a->c[x.max_byte_read] > a->c[x.max_byte_written] ? a->c[x.max_byte_read]
                                                                      : a->c[x.max_byte_written];
                if (mb < 0)
                    mb = 0;
            }
            /* read-only, write-only, read-write by bytes moved, not by calls */
            int64_t rd = a->c[x.bytes_read], wr = a->c[x.bytes_written];
            int share = fe[i].procs == 1 ? 4 : fe[i].procs == -1 ? 5 : 6;
            int cat[7] = {1, rd > 0 && wr == 0, rd == 0 && wr > 0, rd > 0 && wr > 0,
                          share == 4, share == 5, share == 6};
            for (int k = 0; k < 7; k++) {
                if (!cat[k])
                    continue;
                size[k] = add_wrap(size[k], bytes);
                if (mb == -1 || mb > mx[k])
                    mx[k] = mb;
                cnt[k]++;
            }
        }
        cnt[5] += cnt[6];
        size[5] = add_wrap(size[5], size[6]);
        mx[5] = add_wrap(mx[5], mx[6]);
        static const char *const cn[6] = {"total", "read_only", "write_only",
                                          "read_write", "unique", "shared"};
        fprintf(out, "\n# Total file counts\n"
                     "# -----\n"
                     "# <file_type>: type of file access:\n"
                     "#    *read_only: file was only read\n"
                     "#    *write_only: file was only written\n"
                     "#    *read_write: file was read and written\n"
                     "#    *unique: file was opened by a single process only\n"
                     "#    *shared: file was accessed by a group of processes (maybe all processes)\n"
                     "# <file_count> total number of files of this type\n"
                     "# <total_bytes> total number of bytes moved to/from files of this type\n"
                     "# <max_byte_offset> maximum byte offset accessed for a file of this type\n"
                     "\n# <file_type> <file_count> <total_bytes> <max_byte_offset>\n");
        for (int k = 0; k < 6; k++)
            fprintf(out, "# %s: %" PRId64 " %" PRId64 " %" PRId64 "\n", cn[k], cnt[k], size[k], mx[k]);
        free(ids);
        free(fe);
    }
    if (mask & 8) { /* --perf */
        /* per-rank sums over records of rank 0..nprocs-1, accumulated in record
         * order; memory is proportional to the records, not to nprocs */
        struct rank_ent *re = malloc((n ? n : 1) * sizeof *re);
        if (!re)
            return;
        size_t nre = 0;
        int64_t total_bytes = 0;
        double shared_slowest = 0;
        for (size_t i = 0; i < n; i++) {
            const iolens_darshan_record *r = iolens_darshan_data_record(d, m, i);
            const int64_t *c = r->counters;
            const double *f = r->fcounters;
            total_bytes = add_wrap(total_bytes, add_wrap(c[x.bytes_read], c[x.bytes_written]));
            if (r->rank == -1) {
                shared_slowest += f[x.f_slowest];
            } else if (r->rank >= 0 && r->rank < job->nprocs) {
                re[nre].rank = r->rank;
                re[nre].index = i;
                re[nre].io = f[x.f_meta] + f[x.f_read] + f[x.f_write];
                re[nre].md = f[x.f_meta];
                re[nre].rw = f[x.f_read] + f[x.f_write];
                nre++;
            }
        }
        qsort(re, nre, sizeof *re, cmp_rank_ent);
        double slow = 0, slow_md = 0, slow_rw = 0;
        int64_t slow_rank = 0;
        for (size_t i = 0; i < nre;) {
            double io = 0, md = 0, rw = 0;
            size_t j = i;
            for (; j < nre && re[j].rank == re[i].rank; j++) {
                io += re[j].io;
                md += re[j].md;
                rw += re[j].rw;
            }
            if (io > slow) {
                slow = io;
                slow_md = md;
                slow_rw = rw;
                slow_rank = re[i].rank;
            }
            i = j;
        }
        free(re);
        double agg_time = slow + shared_slowest;
        double agg_perf = agg_time != 0 ? ((double)total_bytes / 1048576.0) / agg_time : 0;
        fprintf(out, "\n# performance\n"
                     "# -----------\n"
                     "# total_bytes: %" PRId64 "\n"
                     "#\n"
                     "# I/O timing for unique files (seconds):\n"
                     "# ...........................\n"
                     "# unique files: slowest_rank_io_time: %f\n"
                     "# unique files: slowest_rank_meta_only_time: %f\n"
                     "# unique files: slowest_rank_rw_only_time: %f\n"
                     "# unique files: slowest_rank: %" PRId64 "\n"
                     "#\n"
                     "# I/O timing for shared files (seconds):\n"
                     "# ...........................\n"
                     "# shared files: time_by_slowest: %f\n"
                     "#\n"
                     "# Aggregate performance, including both shared and unique files:\n"
                     "# ...........................\n"
                     "# agg_time_by_slowest: %f # seconds\n"
                     "# agg_perf_by_slowest: %f # MiB/s\n",
                total_bytes, slow, slow_md, slow_rw, slow_rank, shared_slowest, agg_time, agg_perf);
    }
}
