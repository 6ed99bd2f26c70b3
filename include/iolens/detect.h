/*
 * iolens detect — the seven I/O bottleneck patterns of IOSage ("IOSage: Detecting
 * HPC I/O Bottleneck Patterns to Guide LLM Recommendations"), decided by one trained XGBoost binary model per
 * label (binary relevance) and a precision gate at tau = 0.3.
 *
 * Pipeline:
 *   counter records ──> iolens_detect_input (streaming aggregation)
 *                   ──> 171 features (IOLENS_DETECT_NFEATURES, model order:
 *                       IOSage's 157, then 5 process-level iol_* features)
 *                   ──> iolens_detect_model (8 boosters) ──> probabilities,
 *                       detected set, SHAP contributions, pattern cards.
 *
 * The input type is filled by counter NAME ("POSIX_READS", "MPIIO_F_READ_TIME",
 * ...), so any reader (Darshan binary logs, darshan-parser text, iolens or
 * Recorder traces turned into counters) can feed it. Counters of one record
 * are given after iolens_detect_input_record() and before the next one.
 *
 * The classifier (libxgboost) is linked into libiolens and the CLI only.
 */
#ifndef IOLENS_DETECT_H
#define IOLENS_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** IOSage's features (feature_cols_157.json): the first of the model's features. */
#define IOLENS_DETECT_NIOSAGE 157
/** Number of model input features: IOSage's, then iolens's process-level ones
 *  (iol_shared_bytes_ratio, iol_shared_indep_ratio, iol_rank_bytes_ratio,
 *  iol_data_files_per_rank, iol_sync_ratio, iol_rank_imbalance; missing (NaN) in a
 *  row read from a table without those columns), and the shares computed from
 *  IOSage's columns in every row (iol_files_per_proc ... iol_meta_op_share,
 *  docs/detect.md, "Portable features"). */
#define IOLENS_DETECT_NFEATURES 171
/** Labels: the seven patterns then "healthy" (names as in dev_labels.csv). */
#define IOLENS_DETECT_NPATTERNS 7
#define IOLENS_DETECT_NLABELS 8
/** Gate threshold of the seed (Section III-C). */
#define IOLENS_DETECT_TAU 0.3

/** Compile-time defaults: the shipped model folder (<source>/models), the
 *  shared data folder (<source>/../shared/data) and the folder of the shipped models' other
 *  training inputs (<source>/data: corpus/, rule-logs.txt). Callers may override them. */
IOLENS_API const char *iolens_detect_default_models_dir(void);
IOLENS_API const char *iolens_detect_default_data_dir(void);
IOLENS_API const char *iolens_detect_default_training_dir(void);

/** Name of feature i (0..156) in model order, NULL out of range. */
IOLENS_API const char *iolens_detect_feature_name(int i);
/** Index of a feature by name, or -1. */
IOLENS_API int iolens_detect_feature_index(const char *name);
/** Name of label i (0..7), e.g. "access_granularity", "healthy". */
IOLENS_API const char *iolens_detect_label_name(int i);

/* ------------------------------------------------------------------ */
/* Input: counter records of one log                                   */
/* ------------------------------------------------------------------ */

typedef struct iolens_detect_input iolens_detect_input;

IOLENS_API int iolens_detect_input_new(iolens_detect_input **out);
IOLENS_API void iolens_detect_input_free(iolens_detect_input *in);

/** Job facts: number of processes and run time in seconds (Darshan job header). */
IOLENS_API int iolens_detect_input_set_job(iolens_detect_input *in, int64_t nprocs, double run_time);

/** Declares a module present in the log ("POSIX", "MPI-IO", "STDIO", "APMPI", ...),
 *  even when it has no records (has_mpiio / has_stdio / has_apmpi). */
IOLENS_API int iolens_detect_input_add_module(iolens_detect_input *in, const char *module);

/** Overrides num_files (the log's number of name records). By default it is
 *  the number of distinct record ids seen over all modules. */
IOLENS_API int iolens_detect_input_set_name_count(iolens_detect_input *in, uint64_t n);

/**
 * Starts a record: module name as Darshan spells it ("POSIX", "MPI-IO" or
 * "MPIIO", "STDIO"; others are counted for num_files and otherwise ignored),
 * rank (-1 = shared record) and record id (hash of the path). path may be NULL.
 * Finishes the previous record. Records are aggregated in the order given.
 */
IOLENS_API int iolens_detect_input_record(iolens_detect_input *in, const char *module, int64_t rank,
                                          uint64_t record_id, const char *path);
/** Sets an integer counter of the current record by full name ("POSIX_READS").
 *  Unknown names are ignored (returns 0). IOLENS_EINVAL without a record. */
IOLENS_API int iolens_detect_input_counter(iolens_detect_input *in, const char *name, int64_t value);
/** Sets a floating-point counter ("POSIX_F_READ_TIME"). */
IOLENS_API int iolens_detect_input_fcounter(iolens_detect_input *in, const char *name, double value);

/** Resolves a counter name once (for readers that give the same counters many
 *  times): a key >= 0 for a counter the features use, -1 for a name the setters
 *  ignore. Keys are the same for every input. */
IOLENS_API int iolens_detect_input_key(const iolens_detect_input *in, const char *name);
/** iolens_detect_input_counter / _fcounter by key (negative keys are ignored). */
IOLENS_API int iolens_detect_input_counter_key(iolens_detect_input *in, int key, int64_t value);
IOLENS_API int iolens_detect_input_fcounter_key(iolens_detect_input *in, int key, double value);

/** Computes the features into out[IOLENS_DETECT_NFEATURES]: IOSage's 157 (features.tsv rules),
 *  then the process-level iol_* features from the records (docs/detect.md).
 *  The input stays usable (more records may be added afterwards). */
IOLENS_API int iolens_detect_input_features(iolens_detect_input *in, double *out);

/** Per-file evidence: the largest files of the input by bytes moved. */
typedef struct iolens_detect_file {
    uint64_t record_id;
    const char *path;      /**< owned by the input; "" when unknown */
    int64_t bytes;         /**< POSIX bytes read + written */
    int64_t ops;           /**< POSIX reads + writes */
    int64_t small_ops;     /**< POSIX reads + writes below 1 MiB */
    int64_t ranks;         /**< ranks with a record (nprocs for a shared record) */
    int64_t mpiio_indep;   /**< MPI-IO independent reads + writes */
    int64_t mpiio_coll;    /**< MPI-IO collective reads + writes */
} iolens_detect_file;
/** Fills up to max files, largest bytes first; returns the number filled (>= 0). */
IOLENS_API int iolens_detect_input_top_files(iolens_detect_input *in, iolens_detect_file *files, int max);

/**
 * Recomputes IOSage's derived features (indices 120..156) of row[] from its raw
 * columns (the iol_* features need the records and are left as they are). extra holds three raw aggregates that are not model features:
 * MPIIO_NB_READS, POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_CLOSE_END_TIMESTAMP.
 */
IOLENS_API void iolens_detect_derive(double *row, const double extra[3]);
/**
 * Computes the portable shares of row[] (iol_files_per_proc, iol_stdio_byte_share,
 * iol_stdio_op_share, iol_stdio_avg_size, iol_small_op_share, iol_small_byte_share,
 * iol_mpiio_byte_share, iol_meta_op_share) from its IOSage columns, so that every row
 * has them, a table's as well as a log's.
 */
IOLENS_API void iolens_detect_portable(double *row);

/* ------------------------------------------------------------------ */
/* darshan-parser text (IOSage consumed darshan-parser output)          */
/* ------------------------------------------------------------------ */

/**
 * Reads the output of `darshan-parser [--base|--all] LOG` from memory into a
 * new input. Interleaved "# Warning: ... SKIPPING." lines (stderr mixed into
 * the text) are spliced out; other malformed lines are skipped and counted
 * (one warning through warn). name labels messages (a file name).
 */
IOLENS_API int iolens_detect_parse_text(iolens_detect_input **out, const char *text, size_t len,
                                        const char *name, iolens_warn_fn warn, void *warn_ctx);
/** Same from a file (at most 1 GiB; gzip-compressed files are inflated). */
IOLENS_API int iolens_detect_read_text(iolens_detect_input **out, const char *path, iolens_warn_fn warn,
                                       void *warn_ctx);

/* ------------------------------------------------------------------ */
/* Binary Darshan logs (through the streaming reader of iolens/darshan.h) */
/* ------------------------------------------------------------------ */

/**
 * Reads a binary Darshan log into a new input: job facts (nprocs, run time),
 * every module of the header, the number of distinct name records
 * (num_files), every record of every module with its counters and fcounters
 * by name (DXT trace regions are declared but not decompressed: they hold no
 * counters). Warnings (e.g. a module version the reader cannot decode) go to warn.
 */
IOLENS_API int iolens_detect_read_darshan(iolens_detect_input **out, const char *path, iolens_warn_fn warn,
                                          void *warn_ctx);
/** 1 if the file starts with a Darshan log header (magic number at byte 8, either
 *  byte order), 0 if not, < 0 if it cannot be read. */
IOLENS_API int iolens_detect_is_darshan(const char *path);
/** A binary Darshan log or darshan-parser text (gzip allowed), told apart by content. */
IOLENS_API int iolens_detect_read_log(iolens_detect_input **out, const char *path, iolens_warn_fn warn,
                                      void *warn_ctx);

/* ------------------------------------------------------------------ */
/* Traces (iolens trace files, Recorder trace directories) and any input */
/* ------------------------------------------------------------------ */

struct iolens_counters;

/**
 * Fills a new input from Darshan-equivalent counters of a trace
 * (iolens_counters_compute): job facts (nprocs, run time), every module that
 * has records, every POSIX / MPI-IO / STDIO record with its counters by name,
 * and num_files = the name records the Darshan runtime would have written
 * (iolens_counters_name_count: record paths, "heatmap:<API>", and "<STDIN>",
 * "<STDOUT>", "<STDERR>", "heatmap:STDIO" when the run made a stdio call).
 */
IOLENS_API int iolens_detect_from_counters(iolens_detect_input **out, const struct iolens_counters *c);

/** Input kinds, told apart by content and shape (iolens_detect_kind). */
enum {
    IOLENS_DETECT_KIND_DARSHAN = 1, /**< binary Darshan log (magic at byte 8) */
    IOLENS_DETECT_KIND_TEXT = 2,    /**< any other file: darshan-parser text (gzip allowed) */
    IOLENS_DETECT_KIND_TRACE = 3,   /**< iolens trace file ("IOLTRACE" at byte 0) */
    IOLENS_DETECT_KIND_RECORDER = 4 /**< a directory: Recorder trace */
};
/** The kind of path (> 0), or < 0 if it cannot be read. */
IOLENS_API int iolens_detect_kind(const char *path);

/** Options of iolens_detect_read / iolens_detect_read_trace. */
typedef struct iolens_detect_read_opts {
    /** Traces: 1 keeps files under /dev/ /proc/ /etc/ /usr/ ... that Darshan
     *  excludes (default 0: Darshan's exclusions, so the features of a trace
     *  match those of the Darshan log of the same run); 2 keeps those under
     *  /dev/shm/ only (an application's data on tmpfs). */
    int all_paths;
    iolens_warn_fn warn; /**< non-fatal findings (may be NULL) */
    void *warn_ctx;
    /** Traces: called after each rank is read (may be NULL). */
    void (*progress)(void *ctx, int done, int total);
    void *progress_ctx;
} iolens_detect_read_opts;
IOLENS_API void iolens_detect_read_opts_init(iolens_detect_read_opts *o);

/** An iolens trace file or a Recorder trace directory, through
 *  iolens_counters_compute (Darshan's defaults unless opts->all_paths) and
 *  iolens_detect_from_counters. opts may be NULL. */
IOLENS_API int iolens_detect_read_trace(iolens_detect_input **out, const char *path,
                                        const iolens_detect_read_opts *opts);

/** Any input: binary Darshan log, darshan-parser text, iolens trace or
 *  Recorder trace directory (iolens_detect_kind). opts may be NULL. */
IOLENS_API int iolens_detect_read(iolens_detect_input **out, const char *path, const iolens_detect_read_opts *opts);

/* ------------------------------------------------------------------ */
/* Feature tables (CSV in the layout of dev_features.csv)               */
/* ------------------------------------------------------------------ */

typedef struct iolens_detect_table iolens_detect_table;

/**
 * Reads a CSV with a header row. Every one of IOSage's 157 feature columns must be
 * present (any order, extra columns kept aside); an absent iol_* column is NaN
 * (missing to the model) in every row; the extra raw columns of
 * iolens_detect_derive() are read when present (else 0). Empty cells are 0.
 */
IOLENS_API int iolens_detect_table_read(iolens_detect_table **out, const char *path);
IOLENS_API int iolens_detect_table_parse(iolens_detect_table **out, const char *text, size_t len,
                                         const char *name);
IOLENS_API void iolens_detect_table_free(iolens_detect_table *t);
IOLENS_API size_t iolens_detect_table_rows(const iolens_detect_table *t);
/** Row i: IOLENS_DETECT_NFEATURES values in model order. */
IOLENS_API const double *iolens_detect_table_row(const iolens_detect_table *t, size_t i);
/** The three extra raw aggregates of row i (see iolens_detect_derive). */
IOLENS_API const double *iolens_detect_table_extra(const iolens_detect_table *t, size_t i);
/** Text of column `name` in row i, or NULL if there is no such column. */
IOLENS_API const char *iolens_detect_table_cell(const iolens_detect_table *t, size_t i, const char *name);

/**
 * Reads labels (dev_labels.csv layout: one 0/1 column per label name) into
 * out[n * IOLENS_DETECT_NLABELS]; the file must have exactly n rows.
 */
IOLENS_API int iolens_detect_labels_read(unsigned char **out, size_t n, const char *path);

/* ------------------------------------------------------------------ */
/* Models: training, prediction, explanation                            */
/* ------------------------------------------------------------------ */

typedef struct iolens_detect_model iolens_detect_model;

/** Training parameters (the seed's values by iolens_detect_params_default). */
typedef struct iolens_detect_params {
    int n_trees;             /**< 500 */
    int max_depth;           /**< 6 */
    double eta;              /**< 0.05 */
    double subsample;        /**< 0.8 */
    double colsample;        /**< 0.8 */
    double alpha;            /**< 0.1 */
    double lambda;           /**< 1.0 */
    double min_child_weight; /**< 5 */
    double gamma;            /**< 0.1 */
    double max_pos_weight;   /**< 100: scale_pos_weight = min(neg/pos, this) */
    uint64_t seed;           /**< 42 */
    int nthread;             /**< 1 (fixed, so training is deterministic) */
    /** Optional progress: called after each tree (done of total trees). */
    void (*progress)(void *ctx, unsigned long done, unsigned long total);
    void *progress_ctx;
} iolens_detect_params;
IOLENS_API void iolens_detect_params_default(iolens_detect_params *p);

/** Training rows: features (n x IOLENS_DETECT_NFEATURES, model order), labels (n x 8), weights (n). */
typedef struct iolens_detect_trainset {
    size_t n;
    const double *x;
    const unsigned char *y;
    const double *w;
} iolens_detect_trainset;

IOLENS_API int iolens_detect_train(iolens_detect_model **out, const iolens_detect_trainset *ts,
                                   const iolens_detect_params *p);
/** Saves label models (<label>.ubj) and meta.json into an existing folder. */
IOLENS_API int iolens_detect_model_save(const iolens_detect_model *m, const char *dir, const char *note);
/** Loads a folder written by iolens_detect_model_save (checks feature order). */
IOLENS_API int iolens_detect_model_load(iolens_detect_model **out, const char *dir);
/** Checks, without loading them, that dir is a folder with a meta.json: a wrong folder is
 *  named before any slow work (iolens_detect_model_load checks it again). */
IOLENS_API int iolens_detect_model_check(const char *dir);
IOLENS_API void iolens_detect_model_free(iolens_detect_model *m);

/** Key counters of a label's card (seed Section III-D): the features with the largest mean
 *  |SHAP| over the training rows, and their median over the training rows with the label
 *  (NaN when the feature is missing in all of them, e.g. a timing feature of corpus rows). */
#define IOLENS_DETECT_NKEY 5
typedef struct iolens_detect_key_feature {
    int feature;
    double mean_abs_shap;
    double median_with_label;
} iolens_detect_key_feature;
/** Fills up to max key features of label (most important first); returns how many (>= 0). */
IOLENS_API int iolens_detect_model_key_features(const iolens_detect_model *m, int label,
                                                iolens_detect_key_feature *out, int max);

/** Probabilities of the 8 labels for n rows: out[n * 8]. */
IOLENS_API int iolens_detect_predict(iolens_detect_model *m, const double *x, size_t n, double *out);
/** SHAP contributions of one row for label `label` (log-odds):
 *  out[IOLENS_DETECT_NFEATURES + 1], the last value is the bias. */
IOLENS_API int iolens_detect_contribs(iolens_detect_model *m, const double *row, int label, double *out);

/** Gate: bit i set when pattern i (0..6) has probability >= tau. */
IOLENS_API unsigned iolens_detect_gate(const double *probs, double tau);

/** Drishti-rule baseline (drishti_code_to_label.tsv) on one feature row:
 *  bit i = pattern i triggered; codes (may be NULL) gets e.g. "P05,M03". */
IOLENS_API unsigned iolens_detect_rules(const double *row, char *codes, size_t codes_size);

/** One trigger of the rule set that `detect --rules` prints: Drishti's triggers (after
 *  "Drishti: Guiding End-Users in the I/O Optimization Journey", its thresholds), and iolens's
 *  own (codes I01..), each with the job's figures and what to change. */
typedef struct iolens_detect_insight {
    char code[4];               /**< "P05", "M03", "I01", ... */
    const char *level;          /**< "HIGH", "WARN" or "INFO" */
    int pattern;                /**< the pattern it stands for (0..6), -1 for none */
    char message[256];          /**< what the counters show, with their figures */
    const char *recommendation; /**< what to change ("" for INFO) */
} iolens_detect_insight;
/** The triggers that fire on one feature row, up to max of them into out; returns how many
 *  fire (may exceed max). *patterns (may be NULL) gets the patterns of the HIGH and WARN ones. */
IOLENS_API int iolens_detect_insights(const double *row, iolens_detect_insight *out, int max, unsigned *patterns);

/**
 * The patterns of set whose card's premise the log's counters show. A detected pattern
 * whose card asks for a change the log gives no ground for is not presented as detected:
 * throughput_utilization ("remove unneeded fsync") in a log without any fsync or MPI-IO sync,
 * access_granularity ("increase the transfer size to at least 1 MB") when no request is
 * below 1 MiB, parallelism_efficiency and interface_choice (balance across ranks, collective
 * I/O on a shared file) with one process. reasons[p] gets a sentence for each pattern taken
 * out (may be NULL). row: the feature row of iolens_detect_input_features().
 */
IOLENS_API unsigned iolens_detect_premises(const double *row, unsigned set, const char *reasons[IOLENS_DETECT_NPATTERNS]);

/** What iolens detect presents for one feature row. */
typedef struct iolens_detect_diagnosis {
    double probs[IOLENS_DETECT_NLABELS];
    unsigned gated;     /**< patterns at or above tau (none when the log has no file record) */
    unsigned presented; /**< gated ones whose card's premise the counters show (the detected set) */
    unsigned demoted;   /**< gated but not presented; why[p] says why */
    const char *why[IOLENS_DETECT_NPATTERNS];
    int no_records;     /**< no POSIX, MPI-IO or STDIO record: nothing is detected */
} iolens_detect_diagnosis;
/** Probabilities, the gate and the premises of one feature row x, as detect, whatif, advise
 *  and report present them. nfiles: the input's file count (iolens_detect_input_top_files);
 *  a row without file records is one the models never saw labeled, so nothing is gated.
 *  tau <= 0 means IOLENS_DETECT_TAU. 0 or a negative IOLENS_E*. */
IOLENS_API int iolens_detect_diagnose(iolens_detect_model *m, const double *x, int nfiles, double tau,
                                      iolens_detect_diagnosis *out);

/** Rule labels of a feature row (IOSage's production labels): y[0..6] from
 *  iolens_detect_rules(), y[7] (healthy) = 1 when no pattern fires. */
IOLENS_API void iolens_detect_rule_labels(const double *row, unsigned char *y);

/**
 * Rule-labeled rows from logs (binary Darshan logs or darshan-parser text, gzip
 * allowed; iolens_detect_read_log): *x gets
 * npaths * IOLENS_DETECT_NFEATURES features, *y npaths * 8 rule labels (caller frees both).
 */
IOLENS_API int iolens_detect_rule_rows(double **x, unsigned char **y, const char *const *paths, size_t npaths,
                                       iolens_warn_fn warn, void *warn_ctx);

/** Pattern card of Table I: behavior, change template, when it does not apply. */
typedef struct iolens_detect_card {
    const char *pattern;
    const char *behavior;
    const char *change;
    const char *not_applicable;
    const char *inducing; /**< benchmark configurations that induce it */
} iolens_detect_card;
IOLENS_API const iolens_detect_card *iolens_detect_card_get(int pattern);

/* ------------------------------------------------------------------ */
/* Evaluation                                                          */
/* ------------------------------------------------------------------ */

/** Multi-label scores over the 8 labels (seven patterns + healthy). */
typedef struct iolens_detect_scores {
    double micro_f1, macro_f1;
    double hamming; /**< share of wrong label decisions (lower is better) */
    double subset;  /**< share of rows with all 8 labels right */
    double precision[IOLENS_DETECT_NLABELS], recall[IOLENS_DETECT_NLABELS], f1[IOLENS_DETECT_NLABELS];
} iolens_detect_scores;

/**
 * Seeded k-fold assignment fold[n] (0..k-1), stratified by label set: groups
 * (group[i], or one group per row when group is NULL) are sorted by the label
 * set of their first row, shuffled within it and dealt round-robin, so rows of
 * one group (e.g. repetitions of one configuration) share a fold.
 */
IOLENS_API int iolens_detect_folds(int *fold, const unsigned char *y, size_t n, const int *group, int k,
                                   uint64_t seed);
/** Out-of-fold probabilities oof[n * 8]: trains on k-1 folds, predicts the held-out one.
 *  Rows with fold -1 are always in training and never predicted (e.g. rule-labeled logs). */
IOLENS_API int iolens_detect_cv(double *oof, const iolens_detect_trainset *ts, const iolens_detect_params *p,
                                const int *fold, int k);
/** Trivial baseline: each label's majority value in the training folds; pred[n * 8]. */
IOLENS_API int iolens_detect_baseline_majority(unsigned char *pred, const iolens_detect_trainset *ts,
                                               const int *fold, int k);
/** Trivial baseline: a pattern is flagged when one of 1-3 related features passes its 90th
 *  percentile over the training folds (10th where low values mark it); healthy when none. */
IOLENS_API int iolens_detect_baseline_p90(unsigned char *pred, const iolens_detect_trainset *ts, const int *fold,
                                          int k);
/** Scores of pred against truth (n x 8, 0/1) over rows[0..n-1] (rows NULL: 0..n-1). */
IOLENS_API void iolens_detect_score(iolens_detect_scores *out, const unsigned char *truth,
                                    const unsigned char *pred, const size_t *rows, size_t n);
/** Percentile bootstrap (2.5 / 97.5) of every score over reps resamples of the n rows. */
IOLENS_API int iolens_detect_bootstrap(iolens_detect_scores *lo, iolens_detect_scores *hi,
                                       const unsigned char *truth, const unsigned char *pred, size_t n, int reps,
                                       uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_DETECT_H */
