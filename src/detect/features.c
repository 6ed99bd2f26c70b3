/*
 * The 157 IOSage features from counter records, following
 * ../shared/data/iosage/features.tsv: SUM by default (a -1 in any record
 * makes the feature 0), MAX for MAX_BYTE_* / F_MAX_*_TIME / END timestamps,
 * min non-zero for START timestamps, a top-4 merge for ACCESS / STRIDE,
 * shared-file rules for FASTEST/SLOWEST (the module's records all carry one
 * record id), then the derived ratios (iolens_detect_derive).
 *
 * Aggregation streams: a record's counters are buffered until the next
 * record starts, so memory is O(distinct files + distinct access sizes).
 */
#include "detect/detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static const char *const feature_names[FI_COUNT] = {
#define IOL_FEATURE(name) #name,
#include "features.def"
#undef IOL_FEATURE
};

static const char *const label_names[IOLENS_DETECT_NLABELS] = {
    "access_granularity", "metadata_intensity",     "parallelism_efficiency", "access_pattern",
    "interface_choice",   "file_strategy",          "throughput_utilization", "healthy",
};

const char *iolens_detect_feature_name(int i)
{
    return (i >= 0 && i < FI_COUNT) ? feature_names[i] : NULL;
}

int iolens_detect_feature_index(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < FI_COUNT; i++)
        if (!strcmp(feature_names[i], name))
            return i;
    return -1;
}

const char *iolens_detect_label_name(int i)
{
    return (i >= 0 && i < IOLENS_DETECT_NLABELS) ? label_names[i] : NULL;
}

/* ---------------- counter table ---------------- */

enum { MOD_POSIX, MOD_MPIIO, MOD_STDIO, MOD_N };
enum agg_kind {
    K_SUM,     /* int sum; -1 in any record -> 0 */
    K_MAX,     /* int max */
    K_FSUM,    /* float sum */
    K_FMAX,    /* float max */
    K_TOP,     /* top-4 merge slot */
    K_LAST_SH, /* last record's value if the module is one shared file, else 0 */
    K_FMIN_SH, /* min over records if shared, else 0 */
    K_FMAX_SH, /* max over records if shared, else 0 */
    K_TSIZE,   /* value from the record with the largest F_MAX_{READ,WRITE}_TIME */
    K_FMIN_NZ, /* min non-zero */
};
enum { GRP_POSIX_ACCESS, GRP_POSIX_STRIDE, GRP_MPIIO_ACCESS, GRP_N };

struct counter_def {
    const char *name;
    unsigned char mod, kind, isf;
    signed char grp; /* K_TOP: group; K_TSIZE: 0 read / 1 write */
    signed char n;   /* K_TOP: slot 0..3 */
    signed char cnt; /* K_TOP: 1 = the COUNT half */
    signed char extra; /* >= 0: one of EX_*, not a model feature */
};

#define C(nm, mod, kind) {nm, mod, kind, 0, -1, -1, 0, -1}
#define CF(nm, mod, kind) {nm, mod, kind, 1, -1, -1, 0, -1}
#define TOPV(nm, mod, grp, n) {nm, mod, K_TOP, 0, grp, n, 0, -1}
#define TOPC(nm, mod, grp, n) {nm, mod, K_TOP, 0, grp, n, 1, -1}

static const struct counter_def counters[] = {
    C("POSIX_OPENS", MOD_POSIX, K_SUM), C("POSIX_FILENOS", MOD_POSIX, K_SUM),
    C("POSIX_DUPS", MOD_POSIX, K_SUM), C("POSIX_READS", MOD_POSIX, K_SUM),
    C("POSIX_WRITES", MOD_POSIX, K_SUM), C("POSIX_SEEKS", MOD_POSIX, K_SUM),
    C("POSIX_STATS", MOD_POSIX, K_SUM), C("POSIX_FSYNCS", MOD_POSIX, K_SUM),
    C("POSIX_RENAME_SOURCES", MOD_POSIX, K_SUM), C("POSIX_RENAME_TARGETS", MOD_POSIX, K_SUM),
    C("POSIX_RW_SWITCHES", MOD_POSIX, K_SUM), C("POSIX_BYTES_READ", MOD_POSIX, K_SUM),
    C("POSIX_BYTES_WRITTEN", MOD_POSIX, K_SUM), C("POSIX_MAX_BYTE_READ", MOD_POSIX, K_MAX),
    C("POSIX_MAX_BYTE_WRITTEN", MOD_POSIX, K_MAX), C("POSIX_CONSEC_READS", MOD_POSIX, K_SUM),
    C("POSIX_CONSEC_WRITES", MOD_POSIX, K_SUM), C("POSIX_SEQ_READS", MOD_POSIX, K_SUM),
    C("POSIX_SEQ_WRITES", MOD_POSIX, K_SUM), C("POSIX_MEM_NOT_ALIGNED", MOD_POSIX, K_SUM),
    C("POSIX_FILE_NOT_ALIGNED", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_READ_0_100", MOD_POSIX, K_SUM), C("POSIX_SIZE_READ_100_1K", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_READ_1K_10K", MOD_POSIX, K_SUM), C("POSIX_SIZE_READ_10K_100K", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_READ_100K_1M", MOD_POSIX, K_SUM), C("POSIX_SIZE_READ_1M_4M", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_READ_4M_10M", MOD_POSIX, K_SUM), C("POSIX_SIZE_READ_10M_100M", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_READ_100M_1G", MOD_POSIX, K_SUM), C("POSIX_SIZE_READ_1G_PLUS", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_WRITE_0_100", MOD_POSIX, K_SUM), C("POSIX_SIZE_WRITE_100_1K", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_WRITE_1K_10K", MOD_POSIX, K_SUM), C("POSIX_SIZE_WRITE_10K_100K", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_WRITE_100K_1M", MOD_POSIX, K_SUM), C("POSIX_SIZE_WRITE_1M_4M", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_WRITE_4M_10M", MOD_POSIX, K_SUM), C("POSIX_SIZE_WRITE_10M_100M", MOD_POSIX, K_SUM),
    C("POSIX_SIZE_WRITE_100M_1G", MOD_POSIX, K_SUM), C("POSIX_SIZE_WRITE_1G_PLUS", MOD_POSIX, K_SUM),
    TOPV("POSIX_ACCESS1_ACCESS", MOD_POSIX, GRP_POSIX_ACCESS, 0),
    TOPV("POSIX_ACCESS2_ACCESS", MOD_POSIX, GRP_POSIX_ACCESS, 1),
    TOPV("POSIX_ACCESS3_ACCESS", MOD_POSIX, GRP_POSIX_ACCESS, 2),
    TOPV("POSIX_ACCESS4_ACCESS", MOD_POSIX, GRP_POSIX_ACCESS, 3),
    TOPC("POSIX_ACCESS1_COUNT", MOD_POSIX, GRP_POSIX_ACCESS, 0),
    TOPC("POSIX_ACCESS2_COUNT", MOD_POSIX, GRP_POSIX_ACCESS, 1),
    TOPC("POSIX_ACCESS3_COUNT", MOD_POSIX, GRP_POSIX_ACCESS, 2),
    TOPC("POSIX_ACCESS4_COUNT", MOD_POSIX, GRP_POSIX_ACCESS, 3),
    TOPV("POSIX_STRIDE1_STRIDE", MOD_POSIX, GRP_POSIX_STRIDE, 0),
    TOPV("POSIX_STRIDE2_STRIDE", MOD_POSIX, GRP_POSIX_STRIDE, 1),
    TOPV("POSIX_STRIDE3_STRIDE", MOD_POSIX, GRP_POSIX_STRIDE, 2),
    TOPV("POSIX_STRIDE4_STRIDE", MOD_POSIX, GRP_POSIX_STRIDE, 3),
    TOPC("POSIX_STRIDE1_COUNT", MOD_POSIX, GRP_POSIX_STRIDE, 0),
    TOPC("POSIX_STRIDE2_COUNT", MOD_POSIX, GRP_POSIX_STRIDE, 1),
    TOPC("POSIX_STRIDE3_COUNT", MOD_POSIX, GRP_POSIX_STRIDE, 2),
    TOPC("POSIX_STRIDE4_COUNT", MOD_POSIX, GRP_POSIX_STRIDE, 3),
    C("POSIX_FASTEST_RANK", MOD_POSIX, K_LAST_SH), C("POSIX_FASTEST_RANK_BYTES", MOD_POSIX, K_LAST_SH),
    C("POSIX_SLOWEST_RANK", MOD_POSIX, K_LAST_SH), C("POSIX_SLOWEST_RANK_BYTES", MOD_POSIX, K_LAST_SH),
    {"POSIX_MAX_READ_TIME_SIZE", MOD_POSIX, K_TSIZE, 0, 0, -1, 0, -1},
    {"POSIX_MAX_WRITE_TIME_SIZE", MOD_POSIX, K_TSIZE, 0, 1, -1, 0, -1},
    CF("POSIX_F_READ_TIME", MOD_POSIX, K_FSUM), CF("POSIX_F_WRITE_TIME", MOD_POSIX, K_FSUM),
    CF("POSIX_F_META_TIME", MOD_POSIX, K_FSUM), CF("POSIX_F_MAX_READ_TIME", MOD_POSIX, K_FMAX),
    CF("POSIX_F_MAX_WRITE_TIME", MOD_POSIX, K_FMAX), CF("POSIX_F_FASTEST_RANK_TIME", MOD_POSIX, K_FMIN_SH),
    CF("POSIX_F_SLOWEST_RANK_TIME", MOD_POSIX, K_FMAX_SH),
    {"POSIX_F_OPEN_START_TIMESTAMP", MOD_POSIX, K_FMIN_NZ, 1, -1, -1, 0, EX_POSIX_OPEN_START},
    {"POSIX_F_CLOSE_END_TIMESTAMP", MOD_POSIX, K_FMAX, 1, -1, -1, 0, EX_POSIX_CLOSE_END},

    C("MPIIO_INDEP_OPENS", MOD_MPIIO, K_SUM), C("MPIIO_COLL_OPENS", MOD_MPIIO, K_SUM),
    C("MPIIO_INDEP_READS", MOD_MPIIO, K_SUM), C("MPIIO_INDEP_WRITES", MOD_MPIIO, K_SUM),
    C("MPIIO_COLL_READS", MOD_MPIIO, K_SUM), C("MPIIO_COLL_WRITES", MOD_MPIIO, K_SUM),
    {"MPIIO_NB_READS", MOD_MPIIO, K_SUM, 0, -1, -1, 0, EX_MPIIO_NB_READS},
    C("MPIIO_NB_WRITES", MOD_MPIIO, K_SUM), C("MPIIO_SYNCS", MOD_MPIIO, K_SUM),
    C("MPIIO_HINTS", MOD_MPIIO, K_SUM), C("MPIIO_VIEWS", MOD_MPIIO, K_SUM),
    C("MPIIO_BYTES_READ", MOD_MPIIO, K_SUM), C("MPIIO_BYTES_WRITTEN", MOD_MPIIO, K_SUM),
    C("MPIIO_RW_SWITCHES", MOD_MPIIO, K_SUM),
    TOPV("MPIIO_ACCESS1_ACCESS", MOD_MPIIO, GRP_MPIIO_ACCESS, 0),
    TOPV("MPIIO_ACCESS2_ACCESS", MOD_MPIIO, GRP_MPIIO_ACCESS, 1),
    TOPV("MPIIO_ACCESS3_ACCESS", MOD_MPIIO, GRP_MPIIO_ACCESS, 2),
    TOPV("MPIIO_ACCESS4_ACCESS", MOD_MPIIO, GRP_MPIIO_ACCESS, 3),
    TOPC("MPIIO_ACCESS1_COUNT", MOD_MPIIO, GRP_MPIIO_ACCESS, 0),
    TOPC("MPIIO_ACCESS2_COUNT", MOD_MPIIO, GRP_MPIIO_ACCESS, 1),
    TOPC("MPIIO_ACCESS3_COUNT", MOD_MPIIO, GRP_MPIIO_ACCESS, 2),
    TOPC("MPIIO_ACCESS4_COUNT", MOD_MPIIO, GRP_MPIIO_ACCESS, 3),
    CF("MPIIO_F_READ_TIME", MOD_MPIIO, K_FSUM), CF("MPIIO_F_WRITE_TIME", MOD_MPIIO, K_FSUM),
    CF("MPIIO_F_META_TIME", MOD_MPIIO, K_FSUM), CF("MPIIO_F_MAX_READ_TIME", MOD_MPIIO, K_FMAX),
    CF("MPIIO_F_MAX_WRITE_TIME", MOD_MPIIO, K_FMAX), CF("MPIIO_F_FASTEST_RANK_TIME", MOD_MPIIO, K_FMIN_SH),
    CF("MPIIO_F_SLOWEST_RANK_TIME", MOD_MPIIO, K_FMAX_SH),

    C("STDIO_OPENS", MOD_STDIO, K_SUM), C("STDIO_FDOPENS", MOD_STDIO, K_SUM),
    C("STDIO_READS", MOD_STDIO, K_SUM), C("STDIO_WRITES", MOD_STDIO, K_SUM),
    C("STDIO_SEEKS", MOD_STDIO, K_SUM), C("STDIO_FLUSHES", MOD_STDIO, K_SUM),
    C("STDIO_BYTES_READ", MOD_STDIO, K_SUM), C("STDIO_BYTES_WRITTEN", MOD_STDIO, K_SUM),
    C("STDIO_MAX_BYTE_READ", MOD_STDIO, K_MAX), C("STDIO_MAX_BYTE_WRITTEN", MOD_STDIO, K_MAX),
    CF("STDIO_F_READ_TIME", MOD_STDIO, K_FSUM), CF("STDIO_F_WRITE_TIME", MOD_STDIO, K_FSUM),
    CF("STDIO_F_META_TIME", MOD_STDIO, K_FSUM), CF("STDIO_F_FASTEST_RANK_TIME", MOD_STDIO, K_FMIN_SH),
    CF("STDIO_F_SLOWEST_RANK_TIME", MOD_STDIO, K_FMAX_SH),

    /* read for the iol_* features only (not IOSage features) */
    C("POSIX_FDSYNCS", MOD_POSIX, K_SUM), CF("MPIIO_F_VARIANCE_RANK_BYTES", MOD_MPIIO, K_FSUM),
};
#undef C
#undef CF
#undef TOPV
#undef TOPC

#define NCOUNTERS ((int)(sizeof counters / sizeof counters[0]))
#define HASH_SLOTS 512 /* power of two, > 2 * NCOUNTERS */

static unsigned name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h & (HASH_SLOTS - 1);
}

/* Per-file evidence while aggregating. */
struct file_acc {
    uint64_t id;
    char *path;
    int64_t bytes, ops, small_ops, ranks, indep, coll;
    int64_t sbytes, sops, sranks; /* STDIO records: shown for files with no POSIX record (a STDIO-only log) */
    int64_t mranks;               /* MPI-IO records of single ranks */
    int64_t first_rank;           /* rank of the first single-rank POSIX record, -1: none yet */
    int shared, sshared, mshared, multi_rank;
};

/* Counters read by name while flushing a record (indices resolved once). */
static const char *const evidence_names[] = {
    "POSIX_BYTES_READ",        "POSIX_BYTES_WRITTEN",      "POSIX_READS",
    "POSIX_WRITES",            "MPIIO_INDEP_READS",        "MPIIO_INDEP_WRITES",
    "MPIIO_COLL_READS",        "MPIIO_COLL_WRITES",        "POSIX_F_MAX_READ_TIME",
    "POSIX_F_MAX_WRITE_TIME",  "POSIX_SIZE_READ_0_100",    "POSIX_SIZE_READ_100_1K",
    "POSIX_SIZE_READ_1K_10K",  "POSIX_SIZE_READ_10K_100K", "POSIX_SIZE_READ_100K_1M",
    "POSIX_SIZE_WRITE_0_100",  "POSIX_SIZE_WRITE_100_1K",  "POSIX_SIZE_WRITE_1K_10K",
    "POSIX_SIZE_WRITE_10K_100K", "POSIX_SIZE_WRITE_100K_1M",
    "POSIX_ACCESS1_ACCESS",    "POSIX_ACCESS2_ACCESS",     "POSIX_ACCESS3_ACCESS",
    "POSIX_ACCESS4_ACCESS",    "POSIX_ACCESS1_COUNT",      "POSIX_ACCESS2_COUNT",
    "POSIX_ACCESS3_COUNT",     "POSIX_ACCESS4_COUNT",      "STDIO_BYTES_READ",
    "STDIO_BYTES_WRITTEN",     "STDIO_READS",              "STDIO_WRITES",
    "POSIX_FASTEST_RANK_BYTES", "POSIX_SLOWEST_RANK_BYTES", "MPIIO_F_VARIANCE_RANK_BYTES",
    "MPIIO_BYTES_READ",         "MPIIO_BYTES_WRITTEN",      "POSIX_FDSYNCS",
};
enum {
    EV_BR, EV_BW, EV_R, EV_W, EV_IR, EV_IW, EV_CR, EV_CW, EV_TMAXR, EV_TMAXW, EV_SMALL0,
    EV_ACC0 = EV_SMALL0 + 10, EV_CNT0 = EV_ACC0 + 4, EV_SBR = EV_CNT0 + 4, EV_SBW, EV_SR, EV_SW,
    EV_PFB, EV_PSB, EV_MVAR, EV_MBR, EV_MBW, EV_FDSYNC,
    EV_N
};

struct iolens_detect_input {
    int64_t nprocs;
    double run_time;
    int has_mod[MOD_N];
    int has_apmpi;
    int name_count_set;
    uint64_t name_count;

    short hslot[HASH_SLOTS]; /* open-addressing name hash: counter index + 1, 0 = empty */
    short feat[NCOUNTERS];   /* feature index of each counter, -1 for extras */
    short ix_ev[EV_N];       /* counters read for per-file evidence and K_TSIZE */

    /* current record */
    int cur_mod; /* -1: none or ignored module */
    int in_record;
    int64_t cur_rank;
    uint64_t cur_id;
    int64_t cur_i[NCOUNTERS];
    double cur_f[NCOUNTERS];
    unsigned char cur_set[NCOUNTERS];

    /* aggregates */
    int64_t agg_i[NCOUNTERS];
    double agg_f[NCOUNTERS];
    unsigned char agg_seen[NCOUNTERS]; /* at least one record of the module */
    unsigned char agg_neg[NCOUNTERS];  /* a record held -1 */
    double tsize_best[2];
    uint64_t mod_records[MOD_N];
    uint64_t mod_first_id[MOD_N];
    int mod_multi[MOD_N];
    iol_u64map top[GRP_N]; /* value -> summed count */
    iol_u64map ids;        /* distinct record ids over all modules */
    iol_u64map file_index; /* POSIX / MPI-IO record id -> files[] index */
    iol_u64map rank_bytes[2]; /* POSIX, MPI-IO: rank -> bytes of its single-rank records */
    double shared_var;         /* rank-bytes variance of the largest shared MPI-IO record */
    int64_t shared_ratio_bytes; /* and its bytes */
    struct file_acc *files;
    size_t nfiles, files_cap;

    /* A log of more files than one pass holds is read in passes (iol_detect_input_begin_parts):
     * the job-level aggregates in pass 0, the files of part `part` in pass `part`; each pass's
     * files are folded into the sums of process_features and the IOL_DETECT_KEPT largest files
     * (kept) before the next. */
    unsigned nparts, part;
    struct file_sums {
        double total, shared, indep_sh, mpi_ops, data_files, shared_data;
    } folded;
    struct file_acc *kept;
    size_t nkept;
};

int iolens_detect_input_new(iolens_detect_input **out)
{
    *out = NULL;
    iolens_detect_input *in = calloc(1, sizeof *in);
    if (!in)
        return iol_err(IOLENS_ENOMEM, "out of memory allocating a detect input");
    for (int i = 0; i < NCOUNTERS; i++) {
        in->feat[i] = counters[i].extra >= 0 ? -1 : (short)iolens_detect_feature_index(counters[i].name);
    }
    for (int i = 0; i < NCOUNTERS; i++) {
        unsigned h = name_hash(counters[i].name);
        while (in->hslot[h])
            h = (h + 1) & (HASH_SLOTS - 1);
        in->hslot[h] = (short)(i + 1);
    }
    for (int e = 0; e < EV_N; e++)
        for (int i = 0; i < NCOUNTERS; i++)
            if (!strcmp(counters[i].name, evidence_names[e]))
                in->ix_ev[e] = (short)i;
    in->nprocs = 1;
    in->cur_mod = -1;
    in->tsize_best[0] = in->tsize_best[1] = -INFINITY;
    *out = in;
    return 0;
}

void iolens_detect_input_free(iolens_detect_input *in)
{
    if (!in)
        return;
    for (int g = 0; g < GRP_N; g++)
        iol_u64map_release(&in->top[g]);
    iol_u64map_release(&in->ids);
    iol_u64map_release(&in->file_index);
    iol_u64map_release(&in->rank_bytes[0]);
    iol_u64map_release(&in->rank_bytes[1]);
    for (size_t i = 0; i < in->nfiles; i++)
        free(in->files[i].path);
    free(in->files);
    for (size_t i = 0; i < in->nkept; i++)
        free(in->kept[i].path);
    free(in->kept);
    free(in);
}

int iolens_detect_input_set_job(iolens_detect_input *in, int64_t nprocs, double run_time)
{
    if (!in)
        return iol_err(IOLENS_EINVAL, "no detect input");
    in->nprocs = nprocs;
    in->run_time = isfinite(run_time) ? run_time : 0.0;
    return 0;
}

static int module_of(const char *module)
{
    if (!strcmp(module, "POSIX"))
        return MOD_POSIX;
    if (!strcmp(module, "MPI-IO") || !strcmp(module, "MPIIO"))
        return MOD_MPIIO;
    if (!strcmp(module, "STDIO"))
        return MOD_STDIO;
    return -1;
}

int iolens_detect_input_add_module(iolens_detect_input *in, const char *module)
{
    if (!in || !module)
        return iol_err(IOLENS_EINVAL, "no detect input or module name");
    int m = module_of(module);
    if (m >= 0)
        in->has_mod[m] = 1;
    else if (!strcmp(module, "APMPI"))
        in->has_apmpi = 1;
    return 0;
}

int iolens_detect_input_set_name_count(iolens_detect_input *in, uint64_t n)
{
    if (!in)
        return iol_err(IOLENS_EINVAL, "no detect input");
    in->name_count = n;
    in->name_count_set = 1;
    return 0;
}

/* Whether the files of this pass include id. */
static int in_part(const iolens_detect_input *in, uint64_t id)
{
    return in->nparts <= 1 || iol_id_part(id, in->nparts) == in->part;
}

static struct file_acc *file_get(iolens_detect_input *in, uint64_t id)
{
    long s = iol_u64map_slot(&in->file_index, id, -1);
    if (s < 0)
        return NULL;
    if (in->file_index.vals[s] >= 0)
        return &in->files[in->file_index.vals[s]];
    if (in->nfiles == in->files_cap) {
        size_t cap = in->files_cap ? in->files_cap * 2 : 64;
        struct file_acc *f = realloc(in->files, cap * sizeof *f);
        if (!f)
            return NULL;
        in->files = f;
        in->files_cap = cap;
    }
    struct file_acc *f = &in->files[in->nfiles];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->first_rank = -1;
    in->file_index.vals[s] = (int64_t)in->nfiles++;
    return f;
}

/* Saturating add: hostile inputs must not overflow (UB). */
static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int64_t cur_val(const iolens_detect_input *in, int ev)
{
    int i = in->ix_ev[ev];
    return (in->cur_set[i] && in->cur_i[i] > 0) ? in->cur_i[i] : 0;
}

static int flush_record(iolens_detect_input *in)
{
    if (!in->in_record)
        return 0;
    in->in_record = 0;
    int m = in->cur_mod;
    if (m < 0)
        return 0;
    if (in->part > 0) /* a later pass: this record's file only */
        goto files;
    if (in->mod_records[m] == 0)
        in->mod_first_id[m] = in->cur_id;
    else if (in->cur_id != in->mod_first_id[m])
        in->mod_multi[m] = 1;
    in->mod_records[m]++;
    in->has_mod[m] = 1;

    for (int i = 0; i < NCOUNTERS; i++) {
        const struct counter_def *c = &counters[i];
        if (c->mod != m)
            continue;
        int64_t iv = in->cur_set[i] ? in->cur_i[i] : 0;
        double fv = in->cur_set[i] ? in->cur_f[i] : 0.0;
        int first = !in->agg_seen[i];
        in->agg_seen[i] = 1;
        switch (c->kind) {
        case K_SUM:
            if (iv == -1)
                in->agg_neg[i] = 1;
            in->agg_i[i] = sat_add(in->agg_i[i], iv);
            break;
        case K_MAX:
            if (first || iv > in->agg_i[i])
                in->agg_i[i] = iv;
            break;
        case K_FSUM:
            in->agg_f[i] += fv;
            break;
        case K_FMAX:
        case K_FMAX_SH:
            if (first || fv > in->agg_f[i])
                in->agg_f[i] = fv;
            break;
        case K_FMIN_SH:
            if (first || fv < in->agg_f[i])
                in->agg_f[i] = fv;
            break;
        case K_FMIN_NZ:
            if (fv != 0.0 && (in->agg_f[i] == 0.0 || fv < in->agg_f[i]))
                in->agg_f[i] = fv;
            break;
        case K_LAST_SH:
            in->agg_i[i] = iv;
            break;
        case K_TSIZE: {
            int j = in->ix_ev[c->grp == 0 ? EV_TMAXR : EV_TMAXW];
            double t = in->cur_set[j] ? in->cur_f[j] : 0.0;
            if (t > in->tsize_best[(int)c->grp]) {
                in->tsize_best[(int)c->grp] = t;
                in->agg_i[i] = iv;
            }
            break;
        }
        case K_TOP:
            if (c->cnt) {
                /* the matching value counter precedes its count by 4 slots */
                int64_t value = in->cur_set[i - 4] ? in->cur_i[i - 4] : 0;
                if (iv > 0) {
                    long s = iol_u64map_slot(&in->top[(int)c->grp], (uint64_t)value, 0);
                    if (s < 0)
                        return iol_err(IOLENS_ENOMEM, "out of memory merging access sizes");
                    in->top[(int)c->grp].vals[s] = sat_add(in->top[(int)c->grp].vals[s], iv);
                }
            }
            break;
        default:
            break;
        }
    }
    if (m == MOD_POSIX || m == MOD_MPIIO) {
        /* the iol_* features: bytes by rank, and the rank spread of shared records */
        int pm = m == MOD_POSIX ? 0 : 1;
        int64_t b = pm == 0 ? sat_add(cur_val(in, EV_BR), cur_val(in, EV_BW))
                            : sat_add(cur_val(in, EV_MBR), cur_val(in, EV_MBW));
        if (in->cur_rank >= 0 && b > 0) {
            long s = iol_u64map_slot(&in->rank_bytes[pm], (uint64_t)in->cur_rank, 0);
            if (s < 0)
                return iol_err(IOLENS_ENOMEM, "out of memory counting bytes by rank");
            in->rank_bytes[pm].vals[s] = sat_add(in->rank_bytes[pm].vals[s], b);
        } else if (in->cur_rank < 0 && pm == 1 && b > in->shared_ratio_bytes) {
            /* the largest shared MPI-IO record's rank-bytes variance (process_features) */
            int vi = in->ix_ev[EV_MVAR];
            in->shared_ratio_bytes = b;
            in->shared_var = in->cur_set[vi] && in->cur_f[vi] > 0 ? in->cur_f[vi] : 0.0;
        }
    }

files:
    if (!in_part(in, in->cur_id))
        return 0;
    if (m == MOD_STDIO) {
        struct file_acc *f = file_get(in, in->cur_id);
        if (!f)
            return iol_err(IOLENS_ENOMEM, "out of memory collecting per-file evidence");
        f->sbytes = sat_add(f->sbytes, sat_add(cur_val(in, EV_SBR), cur_val(in, EV_SBW)));
        f->sops = sat_add(f->sops, sat_add(cur_val(in, EV_SR), cur_val(in, EV_SW)));
        if (in->cur_rank < 0)
            f->sshared = 1;
        else
            f->sranks++;
    }
    if (m == MOD_POSIX || m == MOD_MPIIO) {
        struct file_acc *f = file_get(in, in->cur_id);
        if (!f)
            return iol_err(IOLENS_ENOMEM, "out of memory collecting per-file evidence");
        if (m == MOD_POSIX) {
            int64_t rb = sat_add(cur_val(in, EV_BR), cur_val(in, EV_BW));
            f->bytes = sat_add(f->bytes, rb);
            f->ops = sat_add(f->ops, sat_add(cur_val(in, EV_R), cur_val(in, EV_W)));
            /* requests below 1 MiB: Darshan's 100K_1M bin also holds requests of exactly 1 MiB,
             * which the common access sizes (ACCESS1-4) count; those are taken out */
            int64_t small = 0, exact = 0;
            for (int b = 0; b < 10; b++)
                small = sat_add(small, cur_val(in, EV_SMALL0 + b));
            for (int k = 0; k < 4; k++)
                if (cur_val(in, EV_ACC0 + k) == 1048576)
                    exact = sat_add(exact, cur_val(in, EV_CNT0 + k));
            f->small_ops = sat_add(f->small_ops, small > exact ? small - exact : 0);
            int64_t fb = cur_val(in, EV_PFB), sb = cur_val(in, EV_PSB);
            if (in->cur_rank < 0) {
                f->shared = 1;
                /* a reduced record: its data was shared when its fastest and slowest ranks both
                 * moved bytes, or it holds more bytes than the one of them that moved any */
                int64_t one = fb > sb ? fb : sb;
                if ((fb > 0 && sb > 0) || (one > 0 && rb > one))
                    f->multi_rank = 1;
            } else {
                f->ranks++;
                if (rb > 0) {
                    if (f->first_rank < 0)
                        f->first_rank = in->cur_rank;
                    else if (f->first_rank != in->cur_rank)
                        f->multi_rank = 1;
                }
            }
        } else {
            f->indep = sat_add(f->indep, sat_add(cur_val(in, EV_IR), cur_val(in, EV_IW)));
            f->coll = sat_add(f->coll, sat_add(cur_val(in, EV_CR), cur_val(in, EV_CW)));
            if (in->cur_rank < 0)
                f->mshared = 1;
            else
                f->mranks++;
        }
    }
    return 0;
}

int iolens_detect_input_record(iolens_detect_input *in, const char *module, int64_t rank, uint64_t record_id,
                               const char *path)
{
    if (!in || !module)
        return iol_err(IOLENS_EINVAL, "no detect input or module name");
    int rc = flush_record(in);
    if (rc < 0)
        return rc;
    /* (num_files is the name-record count when there is one) */
    if (!in->name_count_set && iol_u64map_slot(&in->ids, record_id, 0) < 0)
        return iol_err(IOLENS_ENOMEM, "out of memory counting record ids");
    in->cur_mod = module_of(module);
    /* The console streams are the program's conversation with its user, not its I/O: a
     * benchmark's report on stdout (hundreds of small fwrite()s) would read as small stdio
     * I/O and hide what its files show. Their records count as names (num_files) only. */
    if (path && (!strcmp(path, "<STDIN>") || !strcmp(path, "<STDOUT>") || !strcmp(path, "<STDERR>")))
        in->cur_mod = -1;
    in->cur_rank = rank;
    in->cur_id = record_id;
    in->in_record = 1;
    memset(in->cur_set, 0, sizeof in->cur_set);
    if ((in->cur_mod == MOD_POSIX || in->cur_mod == MOD_MPIIO || in->cur_mod == MOD_STDIO) &&
        in_part(in, record_id)) {
        struct file_acc *f = file_get(in, record_id);
        if (!f)
            return iol_err(IOLENS_ENOMEM, "out of memory collecting per-file evidence");
        if (path && !f->path) {
            f->path = strdup(path);
            if (!f->path)
                return iol_err(IOLENS_ENOMEM, "out of memory copying a path");
        }
    }
    return 0;
}

static int find_counter(const iolens_detect_input *in, const char *name)
{
    for (unsigned h = name_hash(name); in->hslot[h]; h = (h + 1) & (HASH_SLOTS - 1))
        if (!strcmp(counters[in->hslot[h] - 1].name, name))
            return in->hslot[h] - 1;
    return -1;
}

int iolens_detect_input_key(const iolens_detect_input *in, const char *name)
{
    if (!in || !name)
        return -1;
    return find_counter(in, name);
}

static void set_int(iolens_detect_input *in, int i, int64_t value)
{
    in->cur_i[i] = value;
    in->cur_f[i] = (double)value;
    in->cur_set[i] = 1;
}

static void set_float(iolens_detect_input *in, int i, double value)
{
    if (!isfinite(value))
        value = 0.0;
    in->cur_f[i] = value;
    in->cur_i[i] = value >= 9.2e18 ? INT64_MAX : value <= -9.2e18 ? INT64_MIN : (int64_t)value;
    in->cur_set[i] = 1;
}

int iolens_detect_input_counter_key(iolens_detect_input *in, int key, int64_t value)
{
    if (!in)
        return iol_err(IOLENS_EINVAL, "no detect input");
    if (!in->in_record)
        return iol_err(IOLENS_EINVAL, "counter given before any record");
    if (key >= 0 && key < NCOUNTERS && counters[key].mod == in->cur_mod)
        set_int(in, key, value);
    return 0;
}

int iolens_detect_input_fcounter_key(iolens_detect_input *in, int key, double value)
{
    if (!in)
        return iol_err(IOLENS_EINVAL, "no detect input");
    if (!in->in_record)
        return iol_err(IOLENS_EINVAL, "counter given before any record");
    if (key >= 0 && key < NCOUNTERS && counters[key].mod == in->cur_mod)
        set_float(in, key, value);
    return 0;
}

int iolens_detect_input_counter(iolens_detect_input *in, const char *name, int64_t value)
{
    if (!in || !name)
        return iol_err(IOLENS_EINVAL, "no detect input or counter name");
    if (!in->in_record)
        return iol_err(IOLENS_EINVAL, "counter '%s' given before any record", name);
    int i = find_counter(in, name);
    if (i >= 0 && counters[i].mod == in->cur_mod)
        set_int(in, i, value);
    return 0;
}

int iolens_detect_input_fcounter(iolens_detect_input *in, const char *name, double value)
{
    if (!in || !name)
        return iol_err(IOLENS_EINVAL, "no detect input or counter name");
    if (!in->in_record)
        return iol_err(IOLENS_EINVAL, "counter '%s' given before any record", name);
    int i = find_counter(in, name);
    if (i >= 0 && counters[i].mod == in->cur_mod)
        set_float(in, i, value);
    return 0;
}

struct top_entry {
    int64_t value, count;
};

static int cmp_top(const void *a, const void *b)
{
    const struct top_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return 0;
}

/* The four largest (count desc, value desc) of a merged group. */
static void top4(const iol_u64map *m, struct top_entry out[4])
{
    memset(out, 0, 4 * sizeof out[0]);
    int n = 0;
    for (size_t s = 0; s < m->cap; s++) {
        if (!m->used[s])
            continue;
        struct top_entry e = {(int64_t)m->keys[s], m->vals[s]};
        if (n < 4) {
            out[n++] = e;
            qsort(out, (size_t)n, sizeof out[0], cmp_top);
        } else if (cmp_top(&e, &out[3]) < 0) {
            out[3] = e;
            qsort(out, 4, sizeof out[0], cmp_top);
        }
    }
}

static double dmax(double a, double b);
/* A file's bytes and operations: its POSIX record's, or its STDIO record's when it has no POSIX
 * data (stdio on top of POSIX would count twice). */
static int posix_seen(const struct file_acc *f) { return f->ops > 0 || f->bytes > 0 || f->ranks > 0 || f->shared; }
static int64_t eff_bytes(const struct file_acc *f) { return posix_seen(f) ? f->bytes : f->sbytes; }

/* Largest bytes of a rank over the mean of the other ranks with bytes (1 when fewer than two ranks
 * moved bytes). */
static double rank_ratio(const iol_u64map *m)
{
    double max = 0, sum = 0;
    size_t n = 0;
    for (size_t s = 0; s < m->cap; s++)
        if (m->used[s] && m->vals[s] > 0) {
            double v = (double)m->vals[s];
            sum += v;
            n++;
            if (v > max)
                max = v;
        }
    if (n < 2)
        return 1.0;
    double rest = (sum - max) / (double)(n - 1);
    return rest > 0 ? max / rest : 1.0;
}

/* The process-level iol_* features (docs/detect.md, "Process-level features"): what IOSage's
 * aggregated features cannot tell apart on a log with more than one file, e.g. one file shared
 * by four processes and a file per process (is_shared_file needs a single file in the log). */
static void file_sums_add(struct file_sums *t, const struct file_acc *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct file_acc *f = &files[i];
        int sh = f->multi_rank; /* two or more processes moved its bytes */
        t->total += (double)f->bytes;
        if (sh)
            t->shared += (double)f->bytes;
        t->mpi_ops += (double)f->indep + (double)f->coll;
        if (f->mshared || f->mranks > 1)
            t->indep_sh += (double)f->indep;
        if (f->bytes > 0 || (!posix_seen(f) && f->sbytes > 0)) {
            t->data_files++;
            t->shared_data += sh || f->sshared;
        }
    }
}

static void process_features(const iolens_detect_input *in, double *out)
{
    struct file_sums t = in->folded;
    file_sums_add(&t, in->files, in->nfiles);
    double total = t.total, shared = t.shared, indep_sh = t.indep_sh, mpi_ops = t.mpi_ops;
    double data_files = t.data_files, shared_data = t.shared_data;
    out[FI_iol_shared_bytes_ratio] = total > 0 ? shared / total : 0.0;
    out[FI_iol_shared_indep_ratio] = mpi_ops > 0 ? indep_sh / mpi_ops : 0.0;
    /* bytes by rank of the single-rank records (files of one process), POSIX and MPI-IO, and for
     * the largest shared MPI-IO file the ratio its rank-bytes variance implies (POSIX shared
     * records are not used: below MPI-IO, collective buffering gives a shared file's data to
     * aggregator ranks by design, and a process that only stat()s a file joins its record) */
    double r = rank_ratio(&in->rank_bytes[0]), rm = rank_ratio(&in->rank_bytes[1]);
    r = rm > r ? rm : r;
    if (in->shared_ratio_bytes > 0 && in->nprocs >= 2) {
        /* A shared MPI-IO record keeps the variance of its ranks' bytes (a count, unlike its
         * fastest and slowest ranks, which timing picks). Read as one rank at a and n-1 at c:
         * var = (n-1)(a-c)^2/n^2, so a-c = n*sd/sqrt(n-1) and c = mean - (a-c)/n. */
        double n = (double)in->nprocs, mean = (double)in->shared_ratio_bytes / n, sd = sqrt(in->shared_var);
        double rs = 1.0;
        if (sd > 1e-9 * mean) {
            double d = n * sd / sqrt(n - 1.0), c = mean - d / n;
            rs = c > 1e-6 * mean ? (c + d) / c : 1e6;
        }
        r = rs > r ? rs : r;
    }
    /* two decimals: tiny per-rank differences (an HDF5 metadata write) must not make identical
     * runs differ */
    r = r > 1e6 ? 1e6 : r;
    out[FI_iol_rank_bytes_ratio] = floor(r * 100.0 + 0.5) / 100.0;
    /* processes that moved data: those with single-rank records, or all of them for a shared file */
    double ranks = (double)in->rank_bytes[0].len;
    if (shared_data > 0 && ranks < (double)in->nprocs)
        ranks = (double)in->nprocs;
    out[FI_iol_data_files_per_rank] = data_files / (ranks > 1 ? ranks : 1);
    /* the imbalance over every process of the job, a process that moved nothing included (from
     * nprocs): (max/mean - 1)/(n - 1), 0 balanced, 1 one process moved everything; a shared
     * file's bytes count evenly (its own spread is iol_rank_bytes_ratio's) */
    out[FI_iol_rank_imbalance] = 0.0;
    if (in->nprocs >= 2) {
        const iol_u64map *pm = &in->rank_bytes[0];
        if (pm->len == 0)
            pm = &in->rank_bytes[1];
        double single = 0, max = 0;
        for (size_t s = 0; s < pm->cap; s++)
            if (pm->used[s] && pm->vals[s] > 0) {
                single += (double)pm->vals[s];
                max = fmax(max, (double)pm->vals[s]);
            }
        double n = (double)in->nprocs, even = fmax(shared, 0) / n, sum = single + fmax(shared, 0);
        if (sum > 0 && (double)pm->len <= n)
            out[FI_iol_rank_imbalance] = floor(((max + even) * n / sum - 1.0) / (n - 1.0) * 1000.0 + 0.5) / 1000.0;
    }
    int fd = find_counter(in, "POSIX_FDSYNCS");
    double fdsyncs = (fd >= 0 && in->agg_seen[fd] && !in->agg_neg[fd]) ? (double)in->agg_i[fd] : 0.0;
    out[FI_iol_sync_ratio] = (out[FI_POSIX_FSYNCS] + fdsyncs) / dmax(out[FI_POSIX_WRITES], 1);
}

int iolens_detect_input_features(iolens_detect_input *in, double *out)
{
    if (!in || !out)
        return iol_err(IOLENS_EINVAL, "no detect input or output");
    int rc = flush_record(in);
    if (rc < 0)
        return rc;
    double extra[EX_COUNT] = {0};
    for (int i = 0; i < FI_COUNT; i++)
        out[i] = 0.0;
    out[FI_nprocs] = (double)(in->nprocs > 1 ? in->nprocs : 1);
    out[FI_runtime_seconds] = in->run_time;

    struct top_entry tops[GRP_N][4];
    for (int g = 0; g < GRP_N; g++)
        top4(&in->top[g], tops[g]);

    for (int i = 0; i < NCOUNTERS; i++) {
        const struct counter_def *c = &counters[i];
        int shared = in->mod_records[c->mod] > 0 && !in->mod_multi[c->mod];
        double v = 0.0;
        if (in->agg_seen[i]) {
            switch (c->kind) {
            case K_SUM:
                v = in->agg_neg[i] ? 0.0 : (double)in->agg_i[i];
                break;
            case K_MAX:
            case K_TSIZE:
                v = (double)in->agg_i[i];
                break;
            case K_LAST_SH:
                v = shared ? (double)in->agg_i[i] : 0.0;
                break;
            case K_FMIN_SH:
            case K_FMAX_SH:
                v = shared ? in->agg_f[i] : 0.0;
                break;
            case K_TOP:
                v = c->cnt ? (double)tops[(int)c->grp][(int)c->n].count : (double)tops[(int)c->grp][(int)c->n].value;
                break;
            default:
                v = in->agg_f[i];
                break;
            }
        }
        if (v == -1.0) /* Darshan's "not monitored" */
            v = 0.0;
        if (c->extra >= 0)
            extra[(int)c->extra] = v;
        else if (in->feat[i] >= 0)
            out[in->feat[i]] = v;
    }
    out[FI_has_mpiio] = in->has_mod[MOD_MPIIO] ? 1.0 : 0.0;
    out[FI_has_stdio] = in->has_mod[MOD_STDIO] ? 1.0 : 0.0;
    out[FI_has_apmpi] = in->has_apmpi ? 1.0 : 0.0;
    out[FI_is_shared_file] = (in->mod_records[MOD_POSIX] > 0 && !in->mod_multi[MOD_POSIX]) ? 1.0 : 0.0;
    out[FI_num_files] = (double)(in->name_count_set ? in->name_count : in->ids.len);
    iolens_detect_derive(out, extra);
    process_features(in, out);
    iolens_detect_portable(out);
    return 0;
}

static int cmp_file_bytes(const void *a, const void *b)
{
    const struct file_acc *x = *(const struct file_acc *const *)a, *y = *(const struct file_acc *const *)b;
    if (eff_bytes(x) != eff_bytes(y))
        return eff_bytes(x) > eff_bytes(y) ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The files of the passes so far (kept) and of this one, largest first; NULL when out of memory. */
static struct file_acc **files_by_bytes(iolens_detect_input *in, size_t *all)
{
    *all = in->nkept + in->nfiles;
    struct file_acc **order = malloc((*all ? *all : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < in->nkept; i++)
        order[i] = &in->kept[i];
    for (size_t i = 0; i < in->nfiles; i++)
        order[in->nkept + i] = &in->files[i];
    qsort(order, *all, sizeof *order, cmp_file_bytes);
    return order;
}

int iolens_detect_input_top_files(iolens_detect_input *in, iolens_detect_file *files, int max)
{
    if (!in || (!files && max > 0))
        return iol_err(IOLENS_EINVAL, "no detect input or output");
    int rc = flush_record(in);
    if (rc < 0)
        return rc;
    if (max <= 0 || in->nkept + in->nfiles == 0)
        return 0;
    size_t all;
    struct file_acc **order = files_by_bytes(in, &all);
    if (!order)
        return iol_err(IOLENS_ENOMEM, "out of memory sorting files");
    int n = (size_t)max < all ? max : (int)all;
    for (int i = 0; i < n; i++) {
        const struct file_acc *f = order[i];
        int px = posix_seen(f) || f->indep || f->coll;
        int shared = px ? f->shared : f->sshared;
        files[i] = (iolens_detect_file){f->id, f->path ? f->path : "", px ? f->bytes : f->sbytes,
                                        px ? f->ops : f->sops, px ? f->small_ops : 0,
                                        shared ? (in->nprocs > 0 ? in->nprocs : 1) : (px ? f->ranks : f->sranks),
                                        f->indep, f->coll};
    }
    free(order);
    return n;
}

int iol_detect_input_begin_parts(iolens_detect_input *in, unsigned nparts)
{
    if (!in || nparts == 0 || in->in_record || in->nfiles || in->mod_records[MOD_POSIX] ||
        in->mod_records[MOD_MPIIO] || in->mod_records[MOD_STDIO])
        return iol_err(IOLENS_EINVAL, "passes must be set before the first record");
    in->nparts = nparts;
    in->part = 0;
    return 0;
}

int iol_detect_input_next_part(iolens_detect_input *in)
{
    int rc = flush_record(in);
    if (rc < 0)
        return rc;
    if (in->part + 1 >= in->nparts)
        return iol_err(IOLENS_EINVAL, "no pass after the last");
    file_sums_add(&in->folded, in->files, in->nfiles);
    /* the largest files of the passes so far and of this one */
    size_t all;
    struct file_acc **order = files_by_bytes(in, &all);
    if (!order)
        return iol_err(IOLENS_ENOMEM, "out of memory sorting files");
    size_t keep = all < IOL_DETECT_KEPT ? all : IOL_DETECT_KEPT;
    struct file_acc *kept = malloc((keep ? keep : 1) * sizeof *kept);
    if (!kept) {
        free(order);
        return iol_err(IOLENS_ENOMEM, "out of memory keeping the largest files");
    }
    for (size_t i = 0; i < all; i++) {
        if (i < keep)
            kept[i] = *order[i]; /* (its path moves with it) */
        else
            free(order[i]->path);
    }
    free(order);
    free(in->kept);
    in->kept = kept;
    in->nkept = keep;
    free(in->files);
    in->files = NULL;
    in->nfiles = in->files_cap = 0;
    iol_u64map_release(&in->file_index);
    memset(&in->file_index, 0, sizeof in->file_index);
    in->part++;
    return 0;
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

void iolens_detect_derive(double *f, const double extra[3])
{
    double R = f[FI_POSIX_READS], W = f[FI_POSIX_WRITES];
    double BR = f[FI_POSIX_BYTES_READ], BW = f[FI_POSIX_BYTES_WRITTEN];
    double rt = f[FI_POSIX_F_READ_TIME], wt = f[FI_POSIX_F_WRITE_TIME], mt = f[FI_POSIX_F_META_TIME];
    double tt = rt + wt + mt;
    double small_r = f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_READ_100_1K];
    double small_w = f[FI_POSIX_SIZE_WRITE_0_100] + f[FI_POSIX_SIZE_WRITE_100_1K];
    double coll = f[FI_MPIIO_COLL_READS] + f[FI_MPIIO_COLL_WRITES];
    double indep = f[FI_MPIIO_INDEP_READS] + f[FI_MPIIO_INDEP_WRITES];
    double nb = extra[EX_MPIIO_NB_READS] + f[FI_MPIIO_NB_WRITES];
    double ops = R + W;

    f[FI_read_ratio] = BR / dmax(BR + BW, 1);
    f[FI_read_bw_mb_s] = BR / dmax(rt, 1e-9) / 1e6;
    f[FI_write_bw_mb_s] = BW / dmax(wt, 1e-9) / 1e6;
    f[FI_total_bw_mb_s] = (BR + BW) / dmax(rt + wt, 1e-9) / 1e6;
    f[FI_avg_read_size] = BR / dmax(R, 1);
    f[FI_avg_write_size] = BW / dmax(W, 1);
    f[FI_small_read_ratio] = small_r / dmax(R, 1);
    f[FI_small_write_ratio] = small_w / dmax(W, 1);
    f[FI_small_io_ratio] = (small_r + small_w) / dmax(ops, 1);
    f[FI_medium_read_ratio] =
        (f[FI_POSIX_SIZE_READ_1K_10K] + f[FI_POSIX_SIZE_READ_10K_100K] + f[FI_POSIX_SIZE_READ_100K_1M]) / dmax(R, 1);
    f[FI_medium_write_ratio] =
        (f[FI_POSIX_SIZE_WRITE_1K_10K] + f[FI_POSIX_SIZE_WRITE_10K_100K] + f[FI_POSIX_SIZE_WRITE_100K_1M]) /
        dmax(W, 1);
    f[FI_large_read_ratio] = (f[FI_POSIX_SIZE_READ_1M_4M] + f[FI_POSIX_SIZE_READ_4M_10M] +
                              f[FI_POSIX_SIZE_READ_10M_100M] + f[FI_POSIX_SIZE_READ_100M_1G] +
                              f[FI_POSIX_SIZE_READ_1G_PLUS]) /
                             dmax(R, 1);
    f[FI_large_write_ratio] = (f[FI_POSIX_SIZE_WRITE_1M_4M] + f[FI_POSIX_SIZE_WRITE_4M_10M] +
                               f[FI_POSIX_SIZE_WRITE_10M_100M] + f[FI_POSIX_SIZE_WRITE_100M_1G] +
                               f[FI_POSIX_SIZE_WRITE_1G_PLUS]) /
                              dmax(W, 1);
    f[FI_seq_read_ratio] = f[FI_POSIX_SEQ_READS] / dmax(R, 1);
    f[FI_seq_write_ratio] = f[FI_POSIX_SEQ_WRITES] / dmax(W, 1);
    f[FI_consec_read_ratio] = f[FI_POSIX_CONSEC_READS] / dmax(R, 1);
    f[FI_consec_write_ratio] = f[FI_POSIX_CONSEC_WRITES] / dmax(W, 1);
    f[FI_rw_ratio] = R / dmax(W, 1);
    f[FI_rw_switch_ratio] = f[FI_POSIX_RW_SWITCHES] / dmax(ops, 1);
    f[FI_mem_misalign_ratio] = f[FI_POSIX_MEM_NOT_ALIGNED] / dmax(ops, 1);
    f[FI_file_misalign_ratio] = f[FI_POSIX_FILE_NOT_ALIGNED] / dmax(ops, 1);
    f[FI_metadata_time_ratio] = mt / dmax(tt, 1e-9);
    f[FI_read_time_fraction] = rt / dmax(tt, 1e-9);
    f[FI_write_time_fraction] = wt / dmax(tt, 1e-9);
    f[FI_opens_per_op] = f[FI_POSIX_OPENS] / dmax(ops, 1);
    f[FI_stats_per_op] = f[FI_POSIX_STATS] / dmax(ops, 1);
    f[FI_seeks_per_op] = f[FI_POSIX_SEEKS] / dmax(ops, 1);
    f[FI_fsync_ratio] = f[FI_POSIX_FSYNCS] / dmax(W, 1);
    f[FI_opens_per_mb] = f[FI_POSIX_OPENS] / dmax((BR + BW) / 1e6, 1e-9);
    f[FI_byte_imbalance] = (f[FI_POSIX_SLOWEST_RANK_BYTES] - f[FI_POSIX_FASTEST_RANK_BYTES]) / dmax(BR + BW, 1e-9);
    f[FI_time_imbalance] = (f[FI_POSIX_F_SLOWEST_RANK_TIME] - f[FI_POSIX_F_FASTEST_RANK_TIME]) / dmax(tt, 1e-9);
    f[FI_collective_ratio] = coll / dmax(coll + indep + nb, 1);
    f[FI_nonblocking_ratio] = nb / dmax(coll + indep + nb, 1);
    f[FI_io_duration] = dmax(extra[EX_POSIX_CLOSE_END] - extra[EX_POSIX_OPEN_START], 0);
    f[FI_io_active_fraction] = tt / dmax(f[FI_runtime_seconds], 1e-9);
    f[FI_access_size_concentration] = f[FI_POSIX_ACCESS1_COUNT] / dmax(ops, 1);
    f[FI_dominant_access_size] = f[FI_POSIX_ACCESS1_ACCESS];
}

void iolens_detect_portable(double *f)
{
    /* Shares that mean the same in a small run and a large one, in any program: what a count
     * of operations or bytes says about the program's size and habits (a benchmark's report on
     * stdout is a few hundred STDIO_WRITES) is left out. stdio and POSIX count separately in
     * Darshan (its stdio wrappers see the library calls, not the write()s below them). */
    double PR = f[FI_POSIX_READS], PW = f[FI_POSIX_WRITES], SR = f[FI_STDIO_READS], SW = f[FI_STDIO_WRITES];
    double PB = f[FI_POSIX_BYTES_READ] + f[FI_POSIX_BYTES_WRITTEN];
    double SB = f[FI_STDIO_BYTES_READ] + f[FI_STDIO_BYTES_WRITTEN];
    double MB = f[FI_MPIIO_BYTES_READ] + f[FI_MPIIO_BYTES_WRITTEN];
    double pops = PR + PW, sops = SR + SW, ops = pops + sops;
    f[FI_iol_files_per_proc] = f[FI_num_files] / dmax(f[FI_nprocs], 1);
    f[FI_iol_stdio_byte_share] = SB / dmax(PB + SB, 1);
    f[FI_iol_stdio_op_share] = sops / dmax(ops, 1);
    f[FI_iol_stdio_avg_size] = SB / dmax(sops, 1);
    /* below 1 KiB (IOSage's small bins), POSIX by its size bins; stdio, which has none, by its
     * mean size; bytes in the small bins at each bin's middle (50 and 550 bytes) */
    double ps = f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_READ_100_1K] + f[FI_POSIX_SIZE_WRITE_0_100] +
                f[FI_POSIX_SIZE_WRITE_100_1K];
    double psb = 50.0 * (f[FI_POSIX_SIZE_READ_0_100] + f[FI_POSIX_SIZE_WRITE_0_100]) +
                 550.0 * (f[FI_POSIX_SIZE_READ_100_1K] + f[FI_POSIX_SIZE_WRITE_100_1K]);
    int stdio_small = sops > 0 && SB / sops < 1024.0;
    double small_ops = ps + (stdio_small ? sops : 0), small_bytes = fmin(psb, PB) + (stdio_small ? SB : 0);
    f[FI_iol_small_op_share] = small_ops / dmax(ops, 1);
    f[FI_iol_small_byte_share] = small_bytes / dmax(PB + SB, 1);
    f[FI_iol_mpiio_byte_share] = fmin(MB / dmax(PB, 1), 1.0);
    double meta = f[FI_POSIX_OPENS] + f[FI_POSIX_STATS] + f[FI_STDIO_OPENS];
    f[FI_iol_meta_op_share] = meta / dmax(meta + ops, 1);
}

/* ---------------- small shared helpers ---------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int map_grow(iol_u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    if (cap > ((size_t)1 << 40))
        return -1;
    uint64_t *k = calloc(cap, sizeof *k);
    int64_t *v = calloc(cap, sizeof *v);
    unsigned char *u = calloc(cap, 1);
    if (!k || !v || !u) {
        free(k);
        free(v);
        free(u);
        return -1;
    }
    for (size_t s = 0; s < m->cap; s++) {
        if (!m->used[s])
            continue;
        size_t j = mix64(m->keys[s]) & (cap - 1);
        while (u[j])
            j = (j + 1) & (cap - 1);
        u[j] = 1;
        k[j] = m->keys[s];
        v[j] = m->vals[s];
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = k;
    m->vals = v;
    m->used = u;
    m->cap = cap;
    return 0;
}

long iol_u64map_find(const iol_u64map *m, uint64_t key)
{
    if (!m->cap)
        return -1;
    size_t j = mix64(key) & (m->cap - 1);
    while (m->used[j]) {
        if (m->keys[j] == key)
            return (long)j;
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

long iol_u64map_slot(iol_u64map *m, uint64_t key, int64_t init)
{
    long s = iol_u64map_find(m, key);
    if (s >= 0)
        return s;
    if ((m->len + 1) * 2 > m->cap && map_grow(m) < 0)
        return -1;
    size_t j = mix64(key) & (m->cap - 1);
    while (m->used[j])
        j = (j + 1) & (m->cap - 1);
    m->used[j] = 1;
    m->keys[j] = key;
    m->vals[j] = init;
    m->len++;
    return (long)j;
}

void iol_u64map_release(iol_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

uint64_t iol_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double iol_rand_unit(uint64_t *state)
{
    return (double)(iol_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}
