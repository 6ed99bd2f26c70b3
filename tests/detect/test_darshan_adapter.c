/*
 * Binary Darshan logs -> detect input (src/detect/detect_darshan.c), checked
 * against the darshan-parser text stored beside every log of
 * ../shared/data/darshan (INDEX.tsv): the features of the binary log, with
 * fcounters rounded as darshan-parser prints them ("%f") and the run time as
 * "%.4f", equal the features of the text exactly, except
 *   - num_files: the binary path counts distinct name records (IOSage's
 *     len(report.name_records)); the text has no name-record count, so its reader
 *     counts distinct record ids. Checked against the loader's name count instead.
 *   - big-endian logs with POSIX records of version 1-3: darshan-parser prints
 *     POSIX_F_META_TIME, POSIX_F_MAX_READ_TIME and POSIX_F_MAX_WRITE_TIME from
 *     unswapped bytes (docs/darshan.md); the binary path has the true values,
 *     so those three and the features derived from them are not compared.
 * Unrounded, the raw fcounter features lie within that rounding of the text's
 * (5e-7 s per record, summed), the run time within 5e-5 s, other raw features equal.
 * Decoding the records of every module (not only POSIX, MPI-IO, STDIO) gives the
 * same features, bit for bit.
 * The logs of ../shared/data/aiio (no stored text) must read without error.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/detect_internal.h"
#include "iolens/darshan.h"
#include "iolens/detect.h"

static const char *data_root(void)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    return root ? root : "../shared/data";
}

static int warnings;
static void count_warn(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
    warnings++;
}

static void features_of(iolens_detect_input *in, double *x)
{
    assert_non_null(in);
    assert_int_equal(iolens_detect_input_features(in, x), 0);
    for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
        assert_true(isfinite(x[f]));
}

/* Features not compared for big-endian POSIX v1-v3 logs (reference quirk). */
static int be_quirk_feature(int f)
{
    static const char *const names[] = {"POSIX_F_META_TIME", "POSIX_F_MAX_READ_TIME", "POSIX_F_MAX_WRITE_TIME",
                                        "POSIX_MAX_READ_TIME_SIZE", "POSIX_MAX_WRITE_TIME_SIZE",
                                        "metadata_time_ratio", "read_time_fraction", "write_time_fraction",
                                        "time_imbalance", "io_active_fraction"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f == iolens_detect_feature_index(names[i]))
            return 1;
    return 0;
}

/* Read in passes of a third and a seventh of its names, a log gives the features of one pass
 * bit for bit, and the same largest files. */
static void check_passes(const char *bin, iolens_detect_input *one, const double *x1)
{
    iolens_detect_file f1[8], fp[8];
    int n1 = iolens_detect_input_top_files(one, f1, 8);
    assert_true(n1 >= 0);
    const int nf = iolens_detect_feature_index("num_files");
    for (int div = 3; div <= 7; div += 4) {
        size_t fpp = (size_t)x1[nf] / (size_t)div;
        if (fpp == 0)
            continue;
        iolens_detect_input *in = NULL;
        double x[IOLENS_DETECT_NFEATURES];
        assert_int_equal(iol_detect_read_darshan_passes(&in, bin, NULL, NULL, 0, fpp), 0);
        features_of(in, x);
        for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++)
            if (memcmp(&x[f], &x1[f], sizeof x[f]) != 0) {
                print_error("%s: %s: in passes of %zu files %.17g != %.17g\n", bin, iolens_detect_feature_name(f),
                            fpp, x[f], x1[f]);
                fail();
            }
        assert_int_equal(iolens_detect_input_top_files(in, fp, 8), n1);
        for (int i = 0; i < n1; i++) {
            assert_true(fp[i].record_id == f1[i].record_id);
            assert_true(fp[i].bytes == f1[i].bytes);
            assert_true(fp[i].ops == f1[i].ops && fp[i].ranks == f1[i].ranks);
            assert_string_equal(fp[i].path, f1[i].path);
        }
        iolens_detect_input_free(in);
    }
}

static int check_log(const char *rel)
{
    char bin[8192], txt[8400];
    snprintf(bin, sizeof bin, "%s/darshan/%s", data_root(), rel);
    snprintf(txt, sizeof txt, "%s.parser.txt", bin);
    if (access(txt, R_OK) != 0)
        snprintf(txt, sizeof txt, "%s.parser.txt.gz", bin);
    if (access(txt, R_OK) != 0) {
        print_error("no stored darshan-parser text for %s\n", bin);
        fail();
    }
    assert_int_equal(iolens_detect_is_darshan(bin), 1);
    assert_int_equal(iolens_detect_is_darshan(txt), 0);

    iolens_detect_input *it = NULL, *ib = NULL, *ir = NULL, *ia = NULL;
    double xt[IOLENS_DETECT_NFEATURES], xb[IOLENS_DETECT_NFEATURES], xr[IOLENS_DETECT_NFEATURES];
    double xa[IOLENS_DETECT_NFEATURES];
    warnings = 0;
    assert_int_equal(iolens_detect_read_text(&it, txt, count_warn, NULL), 0);
    assert_int_equal(iolens_detect_read_log(&ib, bin, count_warn, NULL), 0);
    assert_int_equal(iol_detect_read_darshan_opt(&ir, bin, count_warn, NULL, IOL_DD_TEXT_ROUNDING), 0);
    assert_int_equal(iol_detect_read_darshan_opt(&ia, bin, count_warn, NULL, IOL_DD_ALL_RECORDS), 0);
    assert_int_equal(warnings, 0);
    features_of(it, xt);
    features_of(ib, xb);
    features_of(ir, xr);
    features_of(ia, xa);
    iolens_detect_input_free(ia);
    /* records of the modules the features do not use change nothing */
    assert_memory_equal(xa, xb, sizeof xa);
    check_passes(bin, ib, xb);
    iolens_detect_input_free(it);
    iolens_detect_input_free(ib);
    iolens_detect_input_free(ir);

    /* the header facts that decide the exceptions */
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(bin, 1, NULL, NULL, &d), 0);
    const iolens_darshan_header *h = iolens_darshan_header_get(iolens_darshan_data_log(d));
    int be_quirk = h->big_endian && h->mod[IOLENS_DARSHAN_POSIX].len && h->mod_ver[IOLENS_DARSHAN_POSIX] <= 3;
    size_t names = iolens_darshan_data_name_count(d);
    size_t nrec = iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX) + iolens_darshan_data_count(d, IOLENS_DARSHAN_MPIIO) +
                  iolens_darshan_data_count(d, IOLENS_DARSHAN_STDIO);
    iolens_darshan_data_free(d);

    const int nf = iolens_detect_feature_index("num_files");
    assert_true(xb[nf] == (double)names);
    int bad = 0;
    const int fpp = iolens_detect_feature_index("iol_files_per_proc"); /* num_files over nprocs */
    for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++) {
        if (f == nf || f == fpp || (be_quirk && be_quirk_feature(f)))
            continue;
        if (xr[f] != xt[f]) {
            print_error("%s: %s: binary (text-rounded) %.17g != text %.17g\n", rel, iolens_detect_feature_name(f),
                        xr[f], xt[f]);
            bad++;
        }
    }
    assert_int_equal(bad, 0);

    /* unrounded: raw fcounter features within the text's rounding (5e-7 per record summed),
     * the run time within %.4f's; every other raw feature exactly equal */
    for (int f = 0; f < iolens_detect_feature_index("num_files"); f++) {
        const char *name = iolens_detect_feature_name(f);
        if (be_quirk && be_quirk_feature(f))
            continue;
        double tol = strstr(name, "_F_") ? 5e-7 * (double)nrec + 1e-9
                     : !strcmp(name, "runtime_seconds") ? 5e-5 + 1e-12
                     : strstr(name, "_TIME_SIZE") ? -1.0 /* follows the record with the largest rounded time */
                                                   : 0.0;
        if (tol < 0)
            continue;
        if (fabs(xb[f] - xt[f]) > tol) {
            print_error("%s: %s: binary %.17g vs text %.17g beyond %g\n", rel, name, xb[f], xt[f], tol);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    return be_quirk;
}

static void test_index_logs(void **state)
{
    (void)state;
    char index[4096];
    snprintf(index, sizeof index, "%s/darshan/INDEX.tsv", data_root());
    FILE *f = fopen(index, "r");
    if (!f)
        skip();
    char line[4096];
    int n = 0, quirk = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        quirk += check_log(line);
        n++;
    }
    fclose(f);
    print_message("%d logs compared (%d big-endian POSIX v1-v3)\n", n, quirk);
    assert_true(n >= 87);
}

static void test_aiio_logs(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/aiio", data_root());
    DIR *d = opendir(dir);
    if (!d)
        skip();
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 8, ".darshan"))
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        iolens_detect_input *in = NULL;
        double x[IOLENS_DETECT_NFEATURES];
        warnings = 0;
        assert_int_equal(iolens_detect_read_log(&in, path, count_warn, NULL), 0);
        assert_int_equal(warnings, 0);
        features_of(in, x);
        assert_true(x[iolens_detect_feature_index("nprocs")] >= 1);
        iolens_detect_input_free(in);
        n++;
    }
    closedir(d);
    assert_true(n >= 14);
}

static void test_errors(void **state)
{
    (void)state;
    iolens_detect_input *in = (iolens_detect_input *)&in;
    assert_true(iolens_detect_read_log(&in, "/nonexistent/x.darshan", NULL, NULL) < 0);
    assert_null(in);
    assert_true(iolens_detect_is_darshan("/nonexistent/x.darshan") < 0);
    /* a truncated binary log: the header magic says binary, the reader says truncated */
    char tmpl[] = "/tmp/iolens_detect_trunc_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    char src[4096];
    snprintf(src, sizeof src, "%s/darshan/generated/nonmpi_dd_64MiB.darshan", data_root());
    FILE *f = fopen(src, "rb");
    if (f) {
        char buf[600];
        size_t got = fread(buf, 1, sizeof buf, f);
        fclose(f);
        assert_int_equal(write(fd, buf, got), (ssize_t)got);
    }
    close(fd);
    if (f) {
        assert_int_equal(iolens_detect_is_darshan(tmpl), 1);
        assert_true(iolens_detect_read_log(&in, tmpl, NULL, NULL) < 0);
        assert_null(in);
    }
    unlink(tmpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_logs),
        cmocka_unit_test(test_aiio_logs),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
