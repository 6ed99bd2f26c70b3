/*
 * The precision gate, the pattern cards of the seed's Table I, and the
 * Drishti-rule baseline as IOSage maps Drishti's triggers to the seven
 * patterns (../shared/data/iosage/drishti_code_to_label.tsv), evaluated on
 * job-aggregated features.
 */
#include "detect/detect_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "util/error.h"

unsigned iolens_detect_gate(const double *probs, double tau)
{
    unsigned set = 0;
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if (probs[p] >= tau)
            set |= 1u << p;
    return set;
}

enum { P_GRAN, P_META, P_PAR, P_PATTERN, P_IFACE, P_FILES, P_THROUGHPUT };

static void add_code(char *codes, size_t size, const char *code)
{
    if (!codes || !size)
        return;
    size_t len = strlen(codes);
    snprintf(codes + len, size - len, "%s%s", len ? "," : "", code);
}

unsigned iolens_detect_rules(const double *f, char *codes, size_t codes_size)
{
    unsigned set = 0;
    if (codes && codes_size)
        codes[0] = '\0';
    double R = f[FI_POSIX_READS], W = f[FI_POSIX_WRITES];
    double small_r = f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_READ_100_1K] + f[FI_POSIX_SIZE_READ_1K_10K] +
                     f[FI_POSIX_SIZE_READ_10K_100K] + f[FI_POSIX_SIZE_READ_100K_1M];
    double small_w = f[FI_POSIX_SIZE_WRITE_0_100] + f[FI_POSIX_SIZE_WRITE_100_1K] + f[FI_POSIX_SIZE_WRITE_1K_10K] +
                     f[FI_POSIX_SIZE_WRITE_10K_100K] + f[FI_POSIX_SIZE_WRITE_100K_1M];
    int p05 = small_r / (R > 1 ? R : 1) > 0.1 && small_r > 1000;
    int p06 = small_w / (W > 1 ? W : 1) > 0.1 && small_w > 1000;
    if (p05) {
        set |= 1u << P_GRAN;
        add_code(codes, codes_size, "P05");
    }
    if (p06) {
        set |= 1u << P_GRAN;
        add_code(codes, codes_size, "P06");
    }
    if (f[FI_POSIX_MAX_BYTE_READ] > f[FI_POSIX_BYTES_READ]) {
        set |= 1u << P_THROUGHPUT;
        add_code(codes, codes_size, "P09");
    }
    if (f[FI_POSIX_MAX_BYTE_WRITTEN] > f[FI_POSIX_BYTES_WRITTEN]) {
        set |= 1u << P_THROUGHPUT;
        add_code(codes, codes_size, "P10");
    }
    double rand_r = R - f[FI_POSIX_SEQ_READS], rand_w = W - f[FI_POSIX_SEQ_WRITES];
    if (rand_r / (R > 1 ? R : 1) > 0.2 && rand_r > 1000) {
        set |= 1u << P_PATTERN;
        add_code(codes, codes_size, "P11");
    }
    if (rand_w / (W > 1 ? W : 1) > 0.2 && rand_w > 1000) {
        set |= 1u << P_PATTERN;
        add_code(codes, codes_size, "P13");
    }
    if (f[FI_is_shared_file] == 1.0 && p05) {
        set |= 1u << P_FILES;
        add_code(codes, codes_size, "P15");
    }
    if (f[FI_is_shared_file] == 1.0 && p06) {
        set |= 1u << P_FILES;
        add_code(codes, codes_size, "P16");
    }
    if (f[FI_POSIX_F_META_TIME] > 30.0) {
        set |= 1u << P_META;
        add_code(codes, codes_size, "P17");
    }
    if (f[FI_nprocs] > 1) {
        if (f[FI_byte_imbalance] > 0.15) {
            set |= 1u << P_PAR;
            add_code(codes, codes_size, "P18");
        }
        if (f[FI_time_imbalance] > 0.15) {
            set |= 1u << P_PAR;
            add_code(codes, codes_size, "P19");
        }
        if (f[FI_byte_imbalance] > 0.3) {
            set |= 1u << P_PAR;
            add_code(codes, codes_size, "P21");
        }
    }
    if (f[FI_MPIIO_COLL_READS] == 0 && f[FI_MPIIO_INDEP_READS] + f[FI_MPIIO_COLL_READS] > 1000) {
        set |= 1u << P_IFACE;
        add_code(codes, codes_size, "M02");
    }
    if (f[FI_MPIIO_COLL_WRITES] == 0 && f[FI_MPIIO_INDEP_WRITES] + f[FI_MPIIO_COLL_WRITES] > 1000) {
        set |= 1u << P_IFACE;
        add_code(codes, codes_size, "M03");
    }
    return set;
}

/* ---- the rule set of `detect --rules` ---- */

struct ins_ctx {
    iolens_detect_insight *out;
    int max, n;
    unsigned set;
};

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void ins_add(struct ins_ctx *c, const char *code, const char *level, int pattern, const char *rec,
                    const char *fmt, ...)
{
    if (pattern >= 0 && strcmp(level, "INFO"))
        c->set |= 1u << pattern;
    if (c->n < c->max) {
        iolens_detect_insight *x = &c->out[c->n];
        snprintf(x->code, sizeof x->code, "%s", code);
        x->level = level;
        x->pattern = pattern;
        x->recommendation = rec;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->message, sizeof x->message, fmt, ap);
        va_end(ap);
    }
    c->n++;
}

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0.0; }
static double nz(double v) { return isnan(v) ? 0.0 : v; }

int iolens_detect_insights(const double *f, iolens_detect_insight *out, int max, unsigned *patterns)
{
    struct ins_ctx c = {out, out ? max : 0, 0, 0};
    double R = f[FI_POSIX_READS], W = f[FI_POSIX_WRITES], SR = f[FI_STDIO_READS], SW = f[FI_STDIO_WRITES];
    double PB = f[FI_POSIX_BYTES_READ] + f[FI_POSIX_BYTES_WRITTEN];
    double SB = f[FI_STDIO_BYTES_READ] + f[FI_STDIO_BYTES_WRITTEN];
    double n = f[FI_nprocs];
    /* S01: stdio's share of the bytes (the console streams are not in the features) */
    if (PB + SB > 0 && SB / (PB + SB) > 0.1)
        ins_add(&c, "S01", "HIGH", -1, "use a high-performance interface (MPI-IO, HDF5) for the data files",
                "stdio moves %.1f%% of the data (%.0f of %.0f bytes)", pct(SB, PB + SB), SB, PB + SB);
    /* P05/P06: small requests (< 1 MiB), over 10% of the requests and over 1000 of them; stdio
     * calls count with their mean size */
    double sr = f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_READ_100_1K] + f[FI_POSIX_SIZE_READ_1K_10K] +
                f[FI_POSIX_SIZE_READ_10K_100K] + f[FI_POSIX_SIZE_READ_100K_1M];
    double sw = f[FI_POSIX_SIZE_WRITE_0_100] + f[FI_POSIX_SIZE_WRITE_100_1K] + f[FI_POSIX_SIZE_WRITE_1K_10K] +
                f[FI_POSIX_SIZE_WRITE_10K_100K] + f[FI_POSIX_SIZE_WRITE_100K_1M];
    double srs = SR > 0 && f[FI_STDIO_BYTES_READ] / SR < 1048576.0 ? SR : 0;
    double sws = SW > 0 && f[FI_STDIO_BYTES_WRITTEN] / SW < 1048576.0 ? SW : 0;
    static const char rec_small[] = "make each request at least 1 MiB: buffer or aggregate small requests "
                                    "(collective buffering, HDF5 chunking, a larger stdio buffer)";
    if ((sr + srs) > 1000 && (sr + srs) / fmax(R + SR, 1) > 0.1)
        ins_add(&c, "P05", "HIGH", P_GRAN, rec_small, "%.0f of %.0f reads (%.1f%%) are smaller than 1 MiB", sr + srs,
                R + SR, pct(sr + srs, R + SR));
    if ((sw + sws) > 1000 && (sw + sws) / fmax(W + SW, 1) > 0.1)
        ins_add(&c, "P06", "HIGH", P_GRAN, rec_small, "%.0f of %.0f writes (%.1f%%) are smaller than 1 MiB", sw + sws,
                W + SW, pct(sw + sws, W + SW));
    /* P07/P08: misaligned requests (informative: on most file systems nearly every job) */
    if (R + W > 0 && f[FI_POSIX_MEM_NOT_ALIGNED] / (R + W) > 0.1)
        ins_add(&c, "P07", "INFO", -1, "", "%.1f%% of the requests use buffers not aligned in memory",
                pct(f[FI_POSIX_MEM_NOT_ALIGNED], R + W));
    if (R + W > 0 && f[FI_POSIX_FILE_NOT_ALIGNED] / (R + W) > 0.1)
        ins_add(&c, "P08", "INFO", -1, "", "%.1f%% of the requests start off the file system's block boundary",
                pct(f[FI_POSIX_FILE_NOT_ALIGNED], R + W));
    /* P09/P10: the highest offset beyond the bytes moved (holes, or the data of other ranks):
     * informative, not a throughput problem */
    if (f[FI_POSIX_MAX_BYTE_READ] > f[FI_POSIX_BYTES_READ] && f[FI_POSIX_BYTES_READ] > 0)
        ins_add(&c, "P09", "INFO", -1, "", "reads reach offset %.0f but move %.0f bytes: the files are read in part",
                f[FI_POSIX_MAX_BYTE_READ], f[FI_POSIX_BYTES_READ]);
    if (f[FI_POSIX_MAX_BYTE_WRITTEN] > f[FI_POSIX_BYTES_WRITTEN] && f[FI_POSIX_BYTES_WRITTEN] > 0)
        ins_add(&c, "P10", "INFO", -1, "", "writes reach offset %.0f but move %.0f bytes: the files have holes",
                f[FI_POSIX_MAX_BYTE_WRITTEN], f[FI_POSIX_BYTES_WRITTEN]);
    /* P11/P13: random (not sequential) requests, over 20% and over 1000 */
    static const char rec_rand[] = "access sequentially: sort the offsets, or let collective I/O or data sieving "
                                   "reorder them";
    double rr = R - f[FI_POSIX_SEQ_READS], rw = W - f[FI_POSIX_SEQ_WRITES];
    if (rr > 1000 && rr / fmax(R, 1) > 0.2)
        ins_add(&c, "P11", "HIGH", P_PATTERN, rec_rand, "%.0f of %.0f reads (%.1f%%) go backwards or jump", rr, R,
                pct(rr, R));
    if (rw > 1000 && rw / fmax(W, 1) > 0.2)
        ins_add(&c, "P13", "HIGH", P_PATTERN, rec_rand, "%.0f of %.0f writes (%.1f%%) go backwards or jump", rw, W,
                pct(rw, W));
    /* P15/P16: small requests on a file shared by the ranks, without collective MPI-IO */
    int shared = f[FI_is_shared_file] > 0 || nz(f[FI_iol_shared_bytes_ratio]) > 0.5;
    double coll = f[FI_MPIIO_COLL_READS] + f[FI_MPIIO_COLL_WRITES];
    static const char rec_coll[] = "use collective MPI-IO (MPI_File_write_all, MPI_File_read_all) with collective "
                                   "buffering, so that aggregators issue large requests";
    if (n > 1 && shared && coll == 0 && sr > 1000 && sr / fmax(R, 1) > 0.1)
        ins_add(&c, "P15", "HIGH", P_IFACE, rec_coll, "%.0f small reads on a file the %.0f processes share", sr, n);
    if (n > 1 && shared && coll == 0 && sw > 1000 && sw / fmax(W, 1) > 0.1)
        ins_add(&c, "P16", "HIGH", P_IFACE, rec_coll, "%.0f small writes on a file the %.0f processes share", sw, n);
    /* P17: metadata time over 30 s (Drishti's per-rank threshold, here the job's), or over half
     * the I/O time with at least 1000 metadata calls and as many as data calls */
    double mt = f[FI_POSIX_F_META_TIME] + f[FI_STDIO_F_META_TIME];
    double tt = mt + f[FI_POSIX_F_READ_TIME] + f[FI_POSIX_F_WRITE_TIME] + f[FI_STDIO_F_READ_TIME] +
                f[FI_STDIO_F_WRITE_TIME];
    double mops = f[FI_POSIX_OPENS] + f[FI_POSIX_STATS] + f[FI_STDIO_OPENS];
    static const char rec_meta[] = "create, open and stat fewer files: batch small outputs into shared files "
                                   "(HDF5, ADIOS2) and keep files open";
    if (f[FI_POSIX_F_META_TIME] > 30.0 || (tt > 0 && mt / tt > 0.5 && mops >= 1000 && mops >= R + W + SR + SW))
        ins_add(&c, "P17", "HIGH", P_META, rec_meta,
                "metadata takes %.3g s, %.1f%% of the I/O time, in %.0f opens and stats (%.0f data calls)", mt,
                pct(mt, tt), mops, R + W + SR + SW);
    /* P18/P19/P21: imbalance between the ranks of a shared file (Drishti's stragglers) */
    static const char rec_bal[] = "balance the data between the ranks, or let collective I/O spread it over "
                                  "aggregators";
    if (n > 1 && f[FI_byte_imbalance] > 0.15)
        ins_add(&c, f[FI_byte_imbalance] > 0.3 ? "P21" : "P18", "HIGH", P_PAR, rec_bal,
                "the slowest rank moves %.0f bytes more than the fastest, %.1f%% of the shared file's bytes",
                f[FI_POSIX_SLOWEST_RANK_BYTES] - f[FI_POSIX_FASTEST_RANK_BYTES], 100.0 * f[FI_byte_imbalance]);
    if (n > 1 && f[FI_time_imbalance] > 0.15 && tt > 1.0)
        ins_add(&c, "P19", "HIGH", P_PAR, rec_bal, "the slowest rank spends %.3g s more in I/O than the fastest (%.1f%%)",
                f[FI_POSIX_F_SLOWEST_RANK_TIME] - f[FI_POSIX_F_FASTEST_RANK_TIME], 100.0 * f[FI_time_imbalance]);
    /* I03: one process moves far more than the others (files of one process each, which
     * Darshan's shared-file stragglers do not see) */
    double rbr = nz(f[FI_iol_rank_bytes_ratio]);
    if (n > 1 && rbr >= 4.0 && !(f[FI_byte_imbalance] > 0.15))
        ins_add(&c, "I03", "HIGH", P_PAR, rec_bal, "one process moves %.3gx the mean bytes of the others", rbr);
    /* M02/M03: many independent MPI-IO calls and no collective one */
    if (f[FI_MPIIO_COLL_READS] == 0 && f[FI_MPIIO_INDEP_READS] > 1000)
        ins_add(&c, "M02", "HIGH", P_IFACE, rec_coll, "%.0f independent MPI-IO reads and no collective one",
                f[FI_MPIIO_INDEP_READS]);
    if (f[FI_MPIIO_COLL_WRITES] == 0 && f[FI_MPIIO_INDEP_WRITES] > 1000)
        ins_add(&c, "M03", "HIGH", P_IFACE, rec_coll, "%.0f independent MPI-IO writes and no collective one",
                f[FI_MPIIO_INDEP_WRITES]);
    /* I01: a sync after every write or every few (iol_sync_ratio counts fdatasync too) */
    double syncs = fmax(f[FI_POSIX_FSYNCS], nz(f[FI_iol_sync_ratio]) * fmax(W, 1)) + f[FI_MPIIO_SYNCS];
    double writes = fmax(W, f[FI_MPIIO_INDEP_WRITES] + f[FI_MPIIO_COLL_WRITES]);
    if (syncs >= 8 && writes > 0 && syncs / writes >= 0.2)
        ins_add(&c, "I01", "HIGH", P_THROUGHPUT,
                "sync only where durability needs it (once at a checkpoint's end), not after each write",
                "%.0f syncs for %.0f writes (one every %.1f writes)", syncs, writes, writes / syncs);
    /* I02: a file explosion, files that received data per process */
    double fpr = isnan(f[FI_iol_data_files_per_rank]) ? f[FI_num_files] / fmax(n, 1) : f[FI_iol_data_files_per_rank];
    if (fpr >= 100)
        ins_add(&c, "I02", "HIGH", P_FILES,
                "write fewer, larger files: a shared file with collective MPI-IO, or HDF5 / ADIOS2",
                "%.0f files per process receive or give data", fpr);
    /* M01 / M06-M07: the interfaces (informative) */
    if (n > 1 && f[FI_has_mpiio] == 0)
        ins_add(&c, "M01", "INFO", -1, "", "%.0f processes and no MPI-IO", n);
    if (patterns)
        *patterns = c.set;
    return c.n;
}

/* The metadata share of the I/O time below which "metadata time dominates" is contradicted. */
#define IOL_META_PREMISE_SHARE 0.05

unsigned iolens_detect_premises(const double *f, unsigned set, const char *reasons[IOLENS_DETECT_NPATTERNS])
{
    unsigned keep = set;
    const char *why[IOLENS_DETECT_NPATTERNS] = {0};
    /* iol_sync_ratio also counts fdatasync (POSIX_FDSYNCS, not an IOSage feature); NaN in a row
     * without records (then only IOSage's counters are judged) */
    int fdsync = !isnan(f[FI_iol_sync_ratio]) && f[FI_iol_sync_ratio] > 0;
    if ((set & (1u << P_THROUGHPUT)) && f[FI_POSIX_FSYNCS] <= 0 && f[FI_MPIIO_SYNCS] <= 0 && !fdsync)
        why[P_THROUGHPUT] = "the log has no fsync, fdatasync or MPI_File_sync: its card's change (remove unneeded "
                            "fsync) has nothing to act on (the stripe count is not judged: the diagnosis reads no "
                            "Lustre layout)";
    if (set & (1u << P_GRAN)) {
        /* requests below 1 MiB: the size bins up to 100K_1M, less the exact 1 MiB ones the common
         * access sizes count (Darshan's 100K_1M bin holds sizes up to and including 1 MiB) */
        double small = f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_READ_100_1K] + f[FI_POSIX_SIZE_READ_1K_10K] +
                       f[FI_POSIX_SIZE_READ_10K_100K] + f[FI_POSIX_SIZE_READ_100K_1M] +
                       f[FI_POSIX_SIZE_WRITE_0_100] + f[FI_POSIX_SIZE_WRITE_100_1K] +
                       f[FI_POSIX_SIZE_WRITE_1K_10K] + f[FI_POSIX_SIZE_WRITE_10K_100K] +
                       f[FI_POSIX_SIZE_WRITE_100K_1M];
        const double acc[4] = {f[FI_POSIX_ACCESS1_ACCESS], f[FI_POSIX_ACCESS2_ACCESS], f[FI_POSIX_ACCESS3_ACCESS],
                               f[FI_POSIX_ACCESS4_ACCESS]};
        const double cnt[4] = {f[FI_POSIX_ACCESS1_COUNT], f[FI_POSIX_ACCESS2_COUNT], f[FI_POSIX_ACCESS3_COUNT],
                               f[FI_POSIX_ACCESS4_COUNT]};
        for (int k = 0; k < 4; k++)
            if (acc[k] == 1048576)
                small -= cnt[k];
        double posix_ops = f[FI_POSIX_READS] + f[FI_POSIX_WRITES];
        if (posix_ops > 0 && small <= 0)
            why[P_GRAN] = "no read or write is smaller than 1 MiB: its card's change (increase the transfer size "
                          "to at least 1 MB) is already made";
    }
    if (f[FI_nprocs] <= 1) {
        if (set & (1u << P_PAR))
            why[P_PAR] = "the job has one process: there are no ranks to balance";
        if (set & (1u << P_IFACE))
            why[P_IFACE] = "the job has one process: no file is shared between ranks, so collective I/O cannot "
                           "apply";
    } else if ((set & (1u << P_IFACE)) && !isnan(f[FI_iol_shared_bytes_ratio]) &&
               !isnan(f[FI_iol_shared_indep_ratio]) && f[FI_iol_shared_bytes_ratio] <= 0 &&
               f[FI_iol_shared_indep_ratio] <= 0 && f[FI_is_shared_file] <= 0) {
        why[P_IFACE] = "no file's data was moved by more than one process: there is no shared file for "
                       "collective I/O to serve (each process has its own files)";
    }
    /* "metadata time dominates": when the log has the times, a metadata share of the I/O time
     * below 5% contradicts it (a 512-process job with 113 s of metadata in 14,462 s of I/O has
     * many metadata calls, but they are not what makes it slow) */
    if (set & (1u << P_META)) {
        double mt = f[FI_POSIX_F_META_TIME] + f[FI_MPIIO_F_META_TIME] + f[FI_STDIO_F_META_TIME];
        double tt = mt + f[FI_POSIX_F_READ_TIME] + f[FI_POSIX_F_WRITE_TIME] + f[FI_STDIO_F_READ_TIME] +
                    f[FI_STDIO_F_WRITE_TIME];
        static _Thread_local char meta_why[200];
        if (tt > 0 && mt / tt < IOL_META_PREMISE_SHARE) {
            snprintf(meta_why, sizeof meta_why,
                     "metadata takes %.1f%% of the I/O time (%.3g s of %.3g s): it does not dominate, so its "
                     "card's change (fewer files, batched metadata) has little to gain",
                     100.0 * mt / tt, mt, tt);
            why[P_META] = meta_why;
        }
    }
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (why[p])
            keep &= ~(1u << p);
        if (reasons)
            reasons[p] = why[p];
    }
    return keep;
}

void iolens_detect_rule_labels(const double *row, unsigned char *y)
{
    unsigned set = iolens_detect_rules(row, NULL, 0);
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        y[p] = (unsigned char)((set >> p) & 1u);
    y[IOLENS_DETECT_NPATTERNS] = (unsigned char)(set == 0);
}

int iolens_detect_rule_rows(double **x, unsigned char **y, const char *const *paths, size_t npaths,
                            iolens_warn_fn warn, void *warn_ctx)
{
    if (!x || !y || (!paths && npaths))
        return iol_err(IOLENS_EINVAL, "no output or paths for rule-labeled rows");
    *x = NULL;
    *y = NULL;
    int rc = 0;
    double *xs = malloc((npaths ? npaths : 1) * IOLENS_DETECT_NFEATURES * sizeof *xs);
    unsigned char *ys = malloc((npaths ? npaths : 1) * IOLENS_DETECT_NLABELS);
    if (!xs || !ys) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory for %zu rule-labeled rows", npaths);
        goto fail;
    }
    for (size_t i = 0; i < npaths; i++) {
        iolens_detect_input *in = NULL;
        rc = iolens_detect_read_log(&in, paths[i], warn, warn_ctx);
        if (rc == 0)
            rc = iolens_detect_input_features(in, xs + i * IOLENS_DETECT_NFEATURES);
        iolens_detect_input_free(in);
        if (rc < 0)
            goto fail;
        iolens_detect_rule_labels(xs + i * IOLENS_DETECT_NFEATURES, ys + i * IOLENS_DETECT_NLABELS);
    }
    *x = xs;
    *y = ys;
    return 0;
fail:
    free(xs);
    free(ys);
    return rc;
}

/* Table I of the seed: behavior, change template, when the change does not apply. */
static const iolens_detect_card cards[IOLENS_DETECT_NPATTERNS] = {
    {"access_granularity", "many small reads or writes",
     "increase the transfer size to at least 1 MB; aggregate small writes; use collective I/O",
     "the small requests carry a negligible share of the I/O time",
     "IOR with 64 B to 16 KiB transfers; DLIO with small records; h5bench with small blocks; HACC-IO with few "
     "particles per rank"},
    {"metadata_intensity", "metadata time dominates",
     "reduce the file count; batch metadata operations; use shared files for small data",
     "the files are required outputs, such as per-step files read by other tools",
     "mdtest with 1,000 to 50,000 creates, cross-node stat, deep trees"},
    {"parallelism_efficiency", "unequal I/O across ranks", "balance I/O across ranks; use collective I/O",
     "one rank owns the data by design, such as configuration or log output",
     "mpi4py programs in which rank 0 writes 2 to 20 times more"},
    {"access_pattern", "nonsequential offsets", "sort offsets; access sequentially; enable data sieving",
     "the data layout fixes the order, or sieving would read far more than needed",
     "IOR random offsets on a shared file; DLIO with shuffled files"},
    {"interface_choice", "shared-file I/O without collective MPI-IO",
     "use collective calls (MPI_File_write_all); enable collective buffering",
     "ranks write large disjoint blocks, where independent I/O performs as well",
     "IOR POSIX on a shared file; MPI-IO independent with collective buffering off; h5bench independent data"},
    {"file_strategy", "too many files", "use shared files with collective MPI-IO, or HDF5 or ADIOS2",
     "downstream tools need one file per process",
     "IOR file per process with 64 to 256 ranks; mdtest with 100 to 5,000 files per rank; HACC-IO file per process"},
    {"throughput_utilization", "synchronization or striping that slows writes",
     "remove unneeded fsync; choose the stripe count based on file size and workload",
     "fsync guards durability, such as a checkpoint commit, or the file is too small to stripe",
     "IOR with fsync after every write; DLIO checkpoints; h5bench and HACC-IO on a single OST"},
};

const iolens_detect_card *iolens_detect_card_get(int pattern)
{
    return (pattern >= 0 && pattern < IOLENS_DETECT_NPATTERNS) ? &cards[pattern] : NULL;
}

int iolens_detect_diagnose(iolens_detect_model *m, const double *x, int nfiles, double tau,
                           iolens_detect_diagnosis *out)
{
    if (!m || !x || !out)
        return iol_err(IOLENS_EINVAL, "iolens_detect_diagnose: NULL argument");
    memset(out, 0, sizeof *out);
    int rc = iolens_detect_predict(m, x, 1, out->probs);
    if (rc < 0)
        return rc;
    out->no_records = nfiles == 0;
    out->gated = out->no_records ? 0 : iolens_detect_gate(out->probs, tau > 0 ? tau : IOLENS_DETECT_TAU);
    out->presented = iolens_detect_premises(x, out->gated, out->why);
    out->demoted = out->gated & ~out->presented;
    return 0;
}
