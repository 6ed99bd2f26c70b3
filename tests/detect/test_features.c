/* Unit tests of the IOSage feature computation (src/detect/features.c, table.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"

static char data_path[4096];

static const char *shared(const char *rel)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    snprintf(data_path, sizeof data_path, "%s/%s", root ? root : "../shared/data", rel);
    return data_path;
}

static int close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* The compiled feature order is the one of feature_cols_157.json. */
static void test_feature_order(void **state)
{
    (void)state;
    json_error_t err;
    json_t *cols = json_load_file(shared("iosage/feature_cols_157.json"), 0, &err);
    assert_non_null(cols);
    assert_int_equal(json_array_size(cols), IOLENS_DETECT_NIOSAGE);
    for (int i = 0; i < IOLENS_DETECT_NIOSAGE; i++) {
        assert_string_equal(iolens_detect_feature_name(i), json_string_value(json_array_get(cols, (size_t)i)));
        assert_int_equal(iolens_detect_feature_index(iolens_detect_feature_name(i)), i);
    }
    /* then iolens's process-level features, named iol_* */
    for (int i = IOLENS_DETECT_NIOSAGE; i < IOLENS_DETECT_NFEATURES; i++) {
        assert_non_null(iolens_detect_feature_name(i));
        assert_memory_equal(iolens_detect_feature_name(i), "iol_", 4);
        assert_int_equal(iolens_detect_feature_index(iolens_detect_feature_name(i)), i);
    }
    assert_null(iolens_detect_feature_name(IOLENS_DETECT_NFEATURES));
    json_decref(cols);
}

/* Derived features recomputed from the raw columns of every dev row equal the stored ones. */
static void test_derived_dev_rows(void **state)
{
    (void)state;
    iolens_detect_table *t = NULL;
    assert_int_equal(iolens_detect_table_read(&t, shared("iosage/dev_features.csv")), 0);
    assert_int_equal(iolens_detect_table_rows(t), 201);
    int first_derived = iolens_detect_feature_index("read_ratio");
    assert_int_equal(first_derived, 120);
    size_t compared = 0;
    for (size_t r = 0; r < iolens_detect_table_rows(t); r++) {
        const double *row = iolens_detect_table_row(t, r);
        double x[IOLENS_DETECT_NFEATURES];
        memcpy(x, row, sizeof x);
        for (int f = first_derived; f < IOLENS_DETECT_NIOSAGE; f++)
            x[f] = -12345.0;
        iolens_detect_derive(x, iolens_detect_table_extra(t, r));
        /* the dev rows have no iol_* columns: the process-level ones are missing, the shares
         * computed from the IOSage columns on reading */
        const int p0 = iolens_detect_feature_index("iol_files_per_proc"), p1 = iolens_detect_feature_index("iol_meta_op_share");
        double y[IOLENS_DETECT_NFEATURES];
        memcpy(y, row, sizeof y);
        for (int f = p0; f <= p1; f++)
            y[f] = -1.0;
        iolens_detect_portable(y);
        for (int f = IOLENS_DETECT_NIOSAGE; f < IOLENS_DETECT_NFEATURES; f++)
            if (f >= p0 && f <= p1)
                assert_true(isfinite(row[f]) && row[f] == y[f]);
            else
                assert_true(isnan(row[f]) && isnan(x[f]));
        for (int f = 0; f < IOLENS_DETECT_NIOSAGE; f++) {
            if (!close_enough(x[f], row[f]))
                fail_msg("row %zu feature %s: recomputed %.17g, stored %.17g", r, iolens_detect_feature_name(f), x[f],
                         row[f]);
            compared++;
        }
    }
    assert_int_equal(compared, 201 * 157);
    assert_string_equal(iolens_detect_table_cell(t, 0, "_scenario"), "ior_small_posix_t64_n16_r1");
    assert_string_equal(iolens_detect_table_cell(t, 0, "_modules"), "POSIX,LUSTRE,STDIO,HEATMAP");
    assert_null(iolens_detect_table_cell(t, 0, "no_such_column"));

    unsigned char *y = NULL;
    assert_int_equal(iolens_detect_labels_read(&y, iolens_detect_table_rows(t), shared("iosage/dev_labels.csv")), 0);
    /* first row: ior_small_posix -> access_granularity only */
    assert_int_equal(y[0], 1);
    for (int l = 1; l < IOLENS_DETECT_NLABELS; l++)
        assert_int_equal(y[l], 0);
    free(y);
    assert_int_not_equal(iolens_detect_labels_read(&y, 200, shared("iosage/dev_labels.csv")), 0);
    iolens_detect_table_free(t);
}

static double feat(const double *x, const char *name)
{
    int i = iolens_detect_feature_index(name);
    assert_true(i >= 0);
    return x[i];
}

/* The process-level iol_* features on hand-made records. */
static void test_process_features(void **state)
{
    (void)state;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_set_job(in, 4, 10.0), 0);
    /* a reduced shared file: 4000 bytes, its fastest and slowest ranks moved 1000 each */
    assert_int_equal(iolens_detect_input_record(in, "POSIX", -1, 1, "/shared"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 4);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 4000);
    iolens_detect_input_counter(in, "POSIX_FASTEST_RANK_BYTES", 1000);
    iolens_detect_input_counter(in, "POSIX_SLOWEST_RANK_BYTES", 1000);
    iolens_detect_input_counter(in, "POSIX_FSYNCS", 1);
    iolens_detect_input_counter(in, "POSIX_FDSYNCS", 3);
    /* its MPI-IO record: independent writes */
    assert_int_equal(iolens_detect_input_record(in, "MPI-IO", -1, 1, "/shared"), 0);
    iolens_detect_input_counter(in, "MPIIO_INDEP_WRITES", 4);
    iolens_detect_input_counter(in, "MPIIO_BYTES_WRITTEN", 4000);
    iolens_detect_input_fcounter(in, "MPIIO_F_VARIANCE_RANK_BYTES", 0.0); /* balanced */
    /* files of one process: rank 0 writes 8000 bytes to two files, rank 1 1000, rank 2 only stats */
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 0, 2, "/r0a"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 4);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 4000);
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 0, 3, "/r0b"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 4);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 4000);
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 1, 4, "/r1"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 8);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 1000);
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 2, 4, "/r1"), 0); /* same file, no bytes */
    iolens_detect_input_counter(in, "POSIX_STATS", 1);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(close_enough(feat(x, "iol_shared_bytes_ratio"), 4000.0 / 13000.0));
    assert_true(close_enough(feat(x, "iol_shared_indep_ratio"), 1.0));
    assert_true(close_enough(feat(x, "iol_rank_bytes_ratio"), 8.0));       /* 8000 / 1000 */
    assert_true(close_enough(feat(x, "iol_data_files_per_rank"), 1.0));    /* 4 files, 4 processes */
    assert_true(close_enough(feat(x, "iol_sync_ratio"), 4.0 / 20.0));      /* fsync + fdatasync per write */
    assert_true(close_enough(feat(x, "fsync_ratio"), 1.0 / 20.0));         /* IOSage's: fsync only */
    iolens_detect_input_free(in);

    /* a shared MPI-IO file, rank 0 16000 bytes and three ranks 1000: the variance gives the ratio */
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_set_job(in, 4, 1.0), 0);
    assert_int_equal(iolens_detect_input_record(in, "MPI-IO", -1, 5, "/s"), 0);
    iolens_detect_input_counter(in, "MPIIO_COLL_WRITES", 19);
    iolens_detect_input_counter(in, "MPIIO_BYTES_WRITTEN", 19000);
    iolens_detect_input_fcounter(in, "MPIIO_F_VARIANCE_RANK_BYTES", 42187500.0);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(close_enough(feat(x, "iol_rank_bytes_ratio"), 16.0));
    assert_true(feat(x, "iol_shared_indep_ratio") == 0.0); /* collective */
    iolens_detect_input_free(in);

    /* one process: nothing shared, nothing to balance */
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 0, 9, "/only"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 2);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 10);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "iol_shared_bytes_ratio") == 0.0 && feat(x, "iol_shared_indep_ratio") == 0.0);
    assert_true(feat(x, "iol_rank_bytes_ratio") == 1.0 && feat(x, "iol_data_files_per_rank") == 1.0);
    iolens_detect_input_free(in);
}

/* The imbalance over every process, the console streams left out, the shares, the metadata premise. */
static void test_portable_features(void **state)
{
    (void)state;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    /* four processes, rank 0 alone writes: the old ratio cannot see it (fewer than two movers) */
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_set_job(in, 4, 1.0), 0);
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 0, 1, "/r0"), 0);
    iolens_detect_input_counter(in, "POSIX_WRITES", 16);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 16 << 20);
    /* a benchmark's report on stdout: 500 small stdio writes */
    assert_int_equal(iolens_detect_input_record(in, "STDIO", 0, 2, "<STDOUT>"), 0);
    iolens_detect_input_counter(in, "STDIO_WRITES", 500);
    iolens_detect_input_counter(in, "STDIO_BYTES_WRITTEN", 20000);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "iol_rank_bytes_ratio") == 1.0);
    assert_true(feat(x, "iol_rank_imbalance") == 1.0);
    assert_true(feat(x, "STDIO_WRITES") == 0.0 && feat(x, "STDIO_BYTES_WRITTEN") == 0.0);
    assert_true(feat(x, "iol_stdio_byte_share") == 0.0 && feat(x, "iol_stdio_op_share") == 0.0);
    assert_true(feat(x, "num_files") == 2.0); /* still a name record, as IOSage counts them */
    assert_true(close_enough(feat(x, "iol_files_per_proc"), 0.5));
    iolens_detect_input_free(in);

    /* stdio-only small I/O: 200000 lines of 3 bytes */
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_record(in, "STDIO", 0, 3, "/out"), 0);
    iolens_detect_input_counter(in, "STDIO_OPENS", 1);
    iolens_detect_input_counter(in, "STDIO_WRITES", 200000);
    iolens_detect_input_counter(in, "STDIO_BYTES_WRITTEN", 600000);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "iol_stdio_byte_share") == 1.0 && feat(x, "iol_stdio_op_share") == 1.0);
    assert_true(feat(x, "iol_small_op_share") == 1.0 && feat(x, "iol_small_byte_share") == 1.0);
    assert_true(close_enough(feat(x, "iol_stdio_avg_size"), 3.0));
    assert_true(feat(x, "iol_rank_imbalance") == 0.0); /* one process */
    /* the rules see the stdio requests as small ones */
    unsigned pat = 0;
    iolens_detect_insight ins[8];
    int n = iolens_detect_insights(x, ins, 8, &pat);
    assert_true(n >= 1 && (pat & 1u)); /* access_granularity */
    iolens_detect_input_free(in);

    /* metadata_intensity with 1% of the I/O time in metadata: not presented, the share named */
    memset(x, 0, sizeof x);
    x[iolens_detect_feature_index("nprocs")] = 512;
    x[iolens_detect_feature_index("POSIX_F_META_TIME")] = 113;
    x[iolens_detect_feature_index("POSIX_F_WRITE_TIME")] = 14349;
    const char *why[IOLENS_DETECT_NPATTERNS];
    unsigned keep = iolens_detect_premises(x, 1u << 1, why);
    assert_int_equal(keep, 0);
    assert_non_null(why[1]);
    assert_non_null(strstr(why[1], "0.8% of the I/O time"));
    x[iolens_detect_feature_index("POSIX_F_META_TIME")] = 14000; /* metadata dominates */
    assert_int_equal(iolens_detect_premises(x, 1u << 1, why), 1u << 1);
    x[iolens_detect_feature_index("POSIX_F_META_TIME")] = 0; /* no times: not judged */
    x[iolens_detect_feature_index("POSIX_F_WRITE_TIME")] = 0;
    assert_int_equal(iolens_detect_premises(x, 1u << 1, why), 1u << 1);
}

/* Aggregation rules of features.tsv on hand-made records. */
static void test_aggregation_rules(void **state)
{
    (void)state;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    assert_int_equal(iolens_detect_input_new(&in), 0);
    assert_int_equal(iolens_detect_input_counter(in, "POSIX_READS", 1), IOLENS_EINVAL); /* no record yet */
    assert_int_equal(iolens_detect_input_set_job(in, 4, 10.0), 0);
    assert_int_equal(iolens_detect_input_add_module(in, "APMPI"), 0);

    /* two POSIX records of two files */
    assert_int_equal(iolens_detect_input_record(in, "POSIX", 0, 11, "/a"), 0);
    iolens_detect_input_counter(in, "POSIX_READS", 10);
    iolens_detect_input_counter(in, "POSIX_WRITES", 0);
    iolens_detect_input_counter(in, "POSIX_BYTES_READ", 1000);
    iolens_detect_input_counter(in, "POSIX_SIZE_READ_100_1K", 10);
    iolens_detect_input_counter(in, "POSIX_MAX_BYTE_READ", 999);
    iolens_detect_input_counter(in, "POSIX_MMAPS", -1); /* not a feature: ignored */
    iolens_detect_input_counter(in, "POSIX_STATS", -1); /* -1 in any record: feature 0 */
    iolens_detect_input_counter(in, "POSIX_ACCESS1_ACCESS", 100);
    iolens_detect_input_counter(in, "POSIX_ACCESS1_COUNT", 10);
    iolens_detect_input_counter(in, "POSIX_MAX_READ_TIME_SIZE", 100);
    iolens_detect_input_counter(in, "POSIX_FASTEST_RANK_BYTES", 7);
    iolens_detect_input_fcounter(in, "POSIX_F_MAX_READ_TIME", 0.5);
    iolens_detect_input_fcounter(in, "POSIX_F_READ_TIME", 1.0);
    iolens_detect_input_fcounter(in, "POSIX_F_OPEN_START_TIMESTAMP", 0.0);
    iolens_detect_input_fcounter(in, "POSIX_F_CLOSE_END_TIMESTAMP", 3.0);
    iolens_detect_input_fcounter(in, "POSIX_F_FASTEST_RANK_TIME", 0.25);

    assert_int_equal(iolens_detect_input_record(in, "POSIX", 1, 12, "/b"), 0);
    iolens_detect_input_counter(in, "POSIX_READS", 5);
    iolens_detect_input_counter(in, "POSIX_BYTES_READ", 5000);
    iolens_detect_input_counter(in, "POSIX_STATS", 3);
    iolens_detect_input_counter(in, "POSIX_MAX_BYTE_READ", 4999);
    iolens_detect_input_counter(in, "POSIX_ACCESS1_ACCESS", 1000);
    iolens_detect_input_counter(in, "POSIX_ACCESS1_COUNT", 5);
    iolens_detect_input_counter(in, "POSIX_ACCESS2_ACCESS", 100);
    iolens_detect_input_counter(in, "POSIX_ACCESS2_COUNT", 1);
    iolens_detect_input_counter(in, "POSIX_MAX_READ_TIME_SIZE", 1000);
    iolens_detect_input_fcounter(in, "POSIX_F_MAX_READ_TIME", 2.0);
    iolens_detect_input_fcounter(in, "POSIX_F_READ_TIME", 1.5);
    iolens_detect_input_fcounter(in, "POSIX_F_OPEN_START_TIMESTAMP", 0.5);
    iolens_detect_input_fcounter(in, "POSIX_F_CLOSE_END_TIMESTAMP", 4.0);

    assert_int_equal(iolens_detect_input_record(in, "STDIO", 0, 13, "/c"), 0);
    iolens_detect_input_counter(in, "STDIO_WRITES", 2);
    assert_int_equal(iolens_detect_input_record(in, "HEATMAP", 0, 99, NULL), 0);
    iolens_detect_input_counter(in, "HEATMAP_F_BIN_WIDTH_SECONDS", 1);

    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "nprocs") == 4.0);
    assert_true(feat(x, "runtime_seconds") == 10.0);
    assert_true(feat(x, "POSIX_READS") == 15.0);
    assert_true(feat(x, "POSIX_BYTES_READ") == 6000.0);
    assert_true(feat(x, "POSIX_STATS") == 0.0);
    assert_true(feat(x, "POSIX_MAX_BYTE_READ") == 4999.0);
    /* merge: 100 -> 11, 1000 -> 5 */
    assert_true(feat(x, "POSIX_ACCESS1_ACCESS") == 100.0);
    assert_true(feat(x, "POSIX_ACCESS1_COUNT") == 11.0);
    assert_true(feat(x, "POSIX_ACCESS2_ACCESS") == 1000.0);
    assert_true(feat(x, "POSIX_ACCESS2_COUNT") == 5.0);
    assert_true(feat(x, "POSIX_ACCESS3_COUNT") == 0.0);
    assert_true(feat(x, "POSIX_MAX_READ_TIME_SIZE") == 1000.0); /* record with max F_MAX_READ_TIME */
    assert_true(feat(x, "POSIX_FASTEST_RANK_BYTES") == 0.0);    /* two files: not shared */
    assert_true(feat(x, "POSIX_F_FASTEST_RANK_TIME") == 0.0);
    assert_true(feat(x, "is_shared_file") == 0.0);
    assert_true(feat(x, "STDIO_WRITES") == 2.0);
    assert_true(feat(x, "has_stdio") == 1.0);
    assert_true(feat(x, "has_mpiio") == 0.0);
    assert_true(feat(x, "has_apmpi") == 1.0);
    assert_true(feat(x, "num_files") == 4.0); /* ids 11, 12, 13, 99 */
    assert_true(close_enough(feat(x, "POSIX_F_READ_TIME"), 2.5));
    assert_true(close_enough(feat(x, "io_duration"), 3.5)); /* 4.0 - min non-zero 0.5 */
    assert_true(close_enough(feat(x, "small_read_ratio"), 10.0 / 15.0));
    assert_true(close_enough(feat(x, "access_size_concentration"), 11.0 / 15.0));
    assert_true(feat(x, "dominant_access_size") == 100.0);

    iolens_detect_file files[4];
    assert_int_equal(iolens_detect_input_top_files(in, files, 4), 3);
    assert_string_equal(files[0].path, "/b");
    assert_true(files[0].bytes == 5000);
    assert_string_equal(files[1].path, "/a");
    assert_true(files[1].small_ops == 10);
    assert_string_equal(files[2].path, "/c"); /* a STDIO-only file is evidence too */
    assert_true(files[2].ops == 2 && files[2].bytes == 0);
    iolens_detect_input_free(in);

    /* one shared file: rank-bytes and rank-times kept, last record wins */
    assert_int_equal(iolens_detect_input_new(&in), 0);
    iolens_detect_input_set_job(in, 8, 5.0);
    iolens_detect_input_record(in, "POSIX", -1, 42, "/shared");
    iolens_detect_input_counter(in, "POSIX_WRITES", 100);
    iolens_detect_input_counter(in, "POSIX_BYTES_WRITTEN", 1000);
    iolens_detect_input_counter(in, "POSIX_FASTEST_RANK_BYTES", 100);
    iolens_detect_input_counter(in, "POSIX_SLOWEST_RANK_BYTES", 300);
    iolens_detect_input_fcounter(in, "POSIX_F_WRITE_TIME", 2.0);
    iolens_detect_input_fcounter(in, "POSIX_F_FASTEST_RANK_TIME", 0.5);
    iolens_detect_input_fcounter(in, "POSIX_F_SLOWEST_RANK_TIME", 1.5);
    iolens_detect_input_record(in, "MPI-IO", -1, 42, "/shared");
    iolens_detect_input_counter(in, "MPIIO_COLL_WRITES", 3);
    iolens_detect_input_counter(in, "MPIIO_INDEP_WRITES", 1);
    iolens_detect_input_counter(in, "MPIIO_NB_READS", 4);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    assert_true(feat(x, "is_shared_file") == 1.0);
    assert_true(feat(x, "has_mpiio") == 1.0);
    assert_true(feat(x, "POSIX_SLOWEST_RANK_BYTES") == 300.0);
    assert_true(close_enough(feat(x, "byte_imbalance"), 0.2));
    assert_true(close_enough(feat(x, "time_imbalance"), 0.5));
    assert_true(close_enough(feat(x, "collective_ratio"), 3.0 / 8.0));
    assert_true(close_enough(feat(x, "nonblocking_ratio"), 4.0 / 8.0));
    assert_true(feat(x, "num_files") == 1.0);
    assert_int_equal(iolens_detect_input_top_files(in, files, 4), 1);
    assert_true(files[0].ranks == 8);
    assert_true(files[0].mpiio_coll == 3 && files[0].mpiio_indep == 1);
    iolens_detect_input_free(in);
    iolens_detect_input_free(NULL);
}

static void test_table_errors(void **state)
{
    (void)state;
    iolens_detect_table *t = NULL;
    const char *bad = "a,b\n1,2\n";
    assert_int_equal(iolens_detect_table_parse(&t, bad, strlen(bad), "bad.csv"), IOLENS_EFORMAT);
    assert_non_null(strstr(iolens_error_last(), "no column 'nprocs'"));
    const char *q = "\"unterminated\n";
    assert_int_equal(iolens_detect_table_parse(&t, q, strlen(q), "q.csv"), IOLENS_EFORMAT);
    assert_null(t);
    iolens_detect_table_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feature_order),
        cmocka_unit_test(test_derived_dev_rows),
        cmocka_unit_test(test_aggregation_rules),
        cmocka_unit_test(test_process_features),
        cmocka_unit_test(test_portable_features),
        cmocka_unit_test(test_table_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
