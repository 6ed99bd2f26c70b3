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
