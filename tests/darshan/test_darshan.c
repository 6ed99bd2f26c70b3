/* Unit tests of the Darshan reader API on real logs from ../shared/data/darshan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "iolens/darshan.h"
#include "darshan/internal.h"

static char data_dir[4096];

static const char *logpath(const char *rel)
{
    static char p[8192];
    snprintf(p, sizeof p, "%s/darshan/%s", data_dir, rel);
    return p;
}

static int warnings;
static char last_warning[512];
static void count_warn(void *ctx, const char *msg)
{
    (void)ctx;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static const iolens_darshan_record *find_counter_record(const iolens_darshan_data *d, int m,
                                                        int64_t rank)
{
    for (size_t i = 0; i < iolens_darshan_data_count(d, m); i++)
        if (iolens_darshan_data_record(d, m, i)->rank == rank)
            return iolens_darshan_data_record(d, m, i);
    return NULL;
}

static void test_module_tables(void **state)
{
    (void)state;
    assert_string_equal(iolens_darshan_module_name(IOLENS_DARSHAN_MPIIO), "MPI-IO");
    assert_string_equal(iolens_darshan_module_name(IOLENS_DARSHAN_BGQ), "BG/Q");
    assert_int_equal(iolens_darshan_module_from_name("HEATMAP"), IOLENS_DARSHAN_HEATMAP);
    assert_int_equal(iolens_darshan_counter_count(IOLENS_DARSHAN_POSIX), 69);
    assert_int_equal(iolens_darshan_fcounter_count(IOLENS_DARSHAN_POSIX), 17);
    assert_int_equal(iolens_darshan_counter_count(IOLENS_DARSHAN_STDIO), 14);
    assert_string_equal(iolens_darshan_counter_name(IOLENS_DARSHAN_POSIX, 14), "POSIX_BYTES_READ");
    int is_float = -1;
    assert_int_equal(iolens_darshan_counter_index(IOLENS_DARSHAN_POSIX, "POSIX_F_READ_TIME", &is_float), 8);
    assert_int_equal(is_float, 1);
    assert_int_equal(iolens_darshan_counter_index(IOLENS_DARSHAN_MPIIO, "MPIIO_BYTES_WRITTEN", &is_float), 15);
    assert_int_equal(is_float, 0);
    assert_int_equal(iolens_darshan_counter_index(IOLENS_DARSHAN_POSIX, "NOPE", NULL), -1);
    assert_null(iolens_darshan_counter_name(IOLENS_DARSHAN_POSIX, 69));
}

static void test_converted_341(void **state)
{
    (void)state;
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(logpath("generated/converted_3.0.0_to_3.41.darshan"), 0,
                                         NULL, NULL, &d), 0);
    const iolens_darshan_log *log = iolens_darshan_data_log(d);
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    assert_string_equal(h->version, "3.41");
    assert_int_equal(h->big_endian, 0);
    assert_int_equal(h->comp, IOLENS_DARSHAN_COMP_ZLIB);
    assert_int_equal(h->mod_ver[IOLENS_DARSHAN_POSIX], 4);
    const iolens_darshan_job *j = iolens_darshan_job_get(log);
    assert_int_equal(j->nprocs, 4);
    assert_int_equal(j->jobid, 2112);
    assert_int_equal(j->uid, 1000);
    assert_string_equal(j->exe, "/tmp/tmp//mpi-io-test -f /tmp/tmp//mpi-io-test.tmp.dat");
    assert_non_null(strstr(j->metadata, "lib_ver=3.0.0"));
    assert_int_equal(iolens_darshan_mount_count(log), 4);
    assert_string_equal(iolens_darshan_mount_at(log, 0)->path, "/run/user/1000/gvfs");
    assert_string_equal(iolens_darshan_mount_at(log, 3)->fs_type, "ext4");
    assert_int_equal(iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX), 1);
    assert_int_equal(iolens_darshan_data_count(d, IOLENS_DARSHAN_MPIIO), 1);
    const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_POSIX, 0);
    assert_int_equal(r->rank, -1);
    assert_true(r->id == 11344915649860608681ULL);
    assert_string_equal(iolens_darshan_data_name(d, r->id), "/tmp/tmp/mpi-io-test.tmp.dat");
    assert_int_equal(r->counters[0], 16);        /* POSIX_OPENS */
    assert_int_equal(r->counters[14], 67108864); /* POSIX_BYTES_READ */
    assert_int_equal(r->counters[1], -1);        /* POSIX_FILENOS (not in v1) */
    assert_true(r->fcounters[3] == -1.0);        /* CLOSE_START_TIMESTAMP */
    iolens_darshan_data_free(d);
}

/* Big-endian 3.00 log with POSIX v1 / MPI-IO v1, up-converted. */
static void test_ppc64_300(void **state)
{
    (void)state;
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(logpath("public/release_logs__mpi-io-test-ppc64-3.0.0.darshan"),
                                         0, NULL, NULL, &d), 0);
    const iolens_darshan_header *h = iolens_darshan_header_get(iolens_darshan_data_log(d));
    assert_string_equal(h->version, "3.00");
    assert_int_equal(h->big_endian, 1);
    assert_int_equal(h->header_size, 360);
    assert_int_equal(h->mod_ver[IOLENS_DARSHAN_POSIX], 1);
    const iolens_darshan_record *r = find_counter_record(d, IOLENS_DARSHAN_MPIIO, -1);
    assert_non_null(r);
    assert_int_equal(r->version, 1);
    assert_int_equal(r->ncounters, 51);
    assert_int_equal(r->nfcounters, 17);
    assert_int_equal(iolens_darshan_job_get(iolens_darshan_data_log(d))->nprocs, 4);
    iolens_darshan_data_free(d);
}

/* The same content compressed with bzip2 and zlib gives the same records. */
static void test_bzip2_equals_zlib(void **state)
{
    (void)state;
    iolens_darshan_data *a = NULL, *b = NULL;
    assert_int_equal(iolens_darshan_load(logpath("generated/small_writes_4proc_dxt_heatmap.darshan"), 0,
                                         NULL, NULL, &a), 0);
    assert_int_equal(iolens_darshan_load(logpath("generated/small_writes_4proc_dxt_heatmap.bzip2.darshan"),
                                         0, NULL, NULL, &b), 0);
    assert_int_equal(iolens_darshan_header_get(iolens_darshan_data_log(b))->comp, IOLENS_DARSHAN_COMP_BZIP2);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        assert_int_equal(iolens_darshan_data_count(a, m), iolens_darshan_data_count(b, m));
        for (size_t i = 0; i < iolens_darshan_data_count(a, m); i++) {
            const iolens_darshan_record *x = iolens_darshan_data_record(a, m, i);
            const iolens_darshan_record *y = iolens_darshan_data_record(b, m, i);
            assert_true(x->id == y->id);
            assert_int_equal(x->ncounters, y->ncounters);
            if (x->ncounters)
                assert_memory_equal(x->counters, y->counters, x->ncounters * 8);
            assert_int_equal(x->dxt.write_count, y->dxt.write_count);
        }
    }
    /* DXT_POSIX v2: 40-byte segments with a pthread id */
    assert_true(iolens_darshan_data_count(a, IOLENS_DARSHAN_DXT_POSIX) > 0);
    const iolens_darshan_record *r = iolens_darshan_data_record(a, IOLENS_DARSHAN_DXT_POSIX, 0);
    assert_int_equal(r->version, 2);
    assert_int_equal(r->dxt.has_pthread_id, 1);
    assert_true(r->dxt.write_count + r->dxt.read_count > 0);
    assert_true(r->dxt.segs[0].pthread_id != 0);
    /* HEATMAP: one record per rank per API */
    assert_true(iolens_darshan_data_count(a, IOLENS_DARSHAN_HEATMAP) >= 4);
    r = iolens_darshan_data_record(a, IOLENS_DARSHAN_HEATMAP, 0);
    assert_true(r->heatmap.nbins > 0 && r->heatmap.nbins <= 200);
    assert_true(r->heatmap.bin_width > 0);
    iolens_darshan_data_free(a);
    iolens_darshan_data_free(b);
}

/* Streaming API: names and records without the loader; unknown module warns. */
static void test_streaming(void **state)
{
    (void)state;
    iolens_darshan_log *log = NULL;
    warnings = 0;
    assert_int_equal(iolens_darshan_open(logpath("public/release_logs__mpi-io-test-x86_64-3.4.1.darshan"),
                                         count_warn, NULL, &log), 0);
    assert_string_equal(iolens_darshan_header_get(log)->version, "3.41");
    assert_int_equal(iolens_darshan_names_begin(log), 0);
    uint64_t id;
    const char *name;
    int n = 0, rc, heat = 0;
    while ((rc = iolens_darshan_names_next(log, &id, &name)) > 0) {
        n++;
        if (!strncmp(name, "heatmap:", 8))
            heat++;
    }
    assert_int_equal(rc, 0);
    assert_true(n > 3);
    assert_true(heat >= 1);
    assert_int_equal(iolens_darshan_module_begin(log, IOLENS_DARSHAN_APMPI), 0);
    assert_int_equal(warnings, 1);
    assert_non_null(strstr(last_warning, "APMPI"));
    assert_int_equal(iolens_darshan_module_begin(log, IOLENS_DARSHAN_POSIX), 1);
    const iolens_darshan_record *r;
    int nrec = 0;
    while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
        assert_int_equal(r->module, IOLENS_DARSHAN_POSIX);
        assert_int_equal(r->ncounters, 69);
        nrec++;
    }
    assert_int_equal(rc, 0);
    assert_true(nrec > 0);
    assert_int_equal(iolens_darshan_module_begin(log, IOLENS_DARSHAN_H5D), 0); /* absent */
    iolens_darshan_close(log);
    iolens_darshan_close(NULL);
}

/* LUSTRE v1 (3.10) up-converted to one component; H5D v1 / DFS / DAOS layouts. */
static void test_lustre_and_others(void **state)
{
    (void)state;
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(logpath("public/darshan-repo__darshan-util__pydarshan__darshan__tests__input__sample.darshan"),
                                         0, NULL, NULL, &d), 0);
    const iolens_darshan_record *r = iolens_darshan_data_record(d, IOLENS_DARSHAN_LUSTRE, 0);
    assert_non_null(r);
    assert_int_equal(r->version, 1);
    assert_int_equal(r->lustre.num_comps, 1);
    assert_int_equal(r->lustre.num_stripes, 24);
    assert_int_equal(r->lustre.comps[0].stripe_size, 1048576);
    assert_int_equal(r->lustre.comps[0].ext_end, -1);
    assert_int_equal(r->lustre.osts[0], 7);
    iolens_darshan_data_free(d);
    d = NULL;
    assert_int_equal(iolens_darshan_load(logpath("public/ior_daos__snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan"),
                                         0, NULL, NULL, &d), 0);
    assert_int_equal(iolens_darshan_data_count(d, IOLENS_DARSHAN_DFS), 1);
    assert_int_equal(iolens_darshan_data_count(d, IOLENS_DARSHAN_DAOS), 3);
    r = iolens_darshan_data_record(d, IOLENS_DARSHAN_DFS, 0);
    assert_int_equal(r->counters[0], 2);  /* DFS_OPENS */
    assert_int_equal(r->counters[1], 30); /* DFS_GLOBAL_OPENS */
    assert_int_equal(r->pool_uuid[0], 0xd0);
    r = iolens_darshan_data_record(d, IOLENS_DARSHAN_DAOS, 0);
    assert_true(r->oid_hi == 947445769040480705ULL && r->oid_lo == 6371);
    iolens_darshan_data_free(d);
}

/* ---- hostile input --------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static const char *scratch(void)
{
    static char p[256];
    snprintf(p, sizeof p, "/dev/shm/iolens-test-darshan-%ld.darshan", (long)getpid());
    return p;
}

static int load_bytes(const char *buf, size_t len)
{
    FILE *f = fopen(scratch(), "wb");
    if (!f)
        return -100;
    fwrite(buf, 1, len, f);
    fclose(f);
    iolens_darshan_data *d = NULL;
    int rc = iolens_darshan_load(scratch(), 0, NULL, NULL, &d);
    iolens_darshan_data_free(d);
    return rc;
}

/* Truncating a log at every byte gives a clean error naming the file (never a crash). */
static void test_truncation(void **state)
{
    (void)state;
    static const char *logs[] = {"public/release_logs__mpi-io-test-ppc64-3.0.0.darshan",
                                 "public/release_logs__mpi-io-test-x86_64-3.1.6.darshan",
                                 "generated/converted_3.0.0_to_3.41.darshan"};
    for (size_t l = 0; l < sizeof logs / sizeof *logs; l++) {
        size_t len;
        char *buf = slurp(logpath(logs[l]), &len);
        assert_non_null(buf);
        assert_int_equal(load_bytes(buf, len), 0);
        for (size_t cut = 0; cut < len; cut++) {
            int rc = load_bytes(buf, cut);
            assert_true(rc < 0);
            assert_non_null(strstr(iolens_error_last(), "iolens-test-darshan"));
        }
        free(buf);
    }
    unlink(scratch());
}

/* Seeded random byte mutations: each load ends in a result or an error. */
static void test_mutations(void **state)
{
    (void)state;
    size_t len;
    char *orig = slurp(logpath("public/release_logs__mpi-io-test-x86_64-3.4.0.darshan"), &len);
    assert_non_null(orig);
    char *buf = malloc(len);
    assert_non_null(buf);
    unsigned seed = 12345;
    int errors = 0;
    for (int it = 0; it < 600; it++) {
        memcpy(buf, orig, len);
        int nmut = 1 + (int)(seed % 8);
        for (int k = 0; k < nmut; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            buf[pos] = (char)(seed >> 16);
        }
        if (load_bytes(buf, len) < 0) {
            errors++;
            assert_true(strlen(iolens_error_last()) > 0);
        }
    }
    assert_true(errors > 0);
    free(buf);
    free(orig);
    unlink(scratch());
}

/* Zero padding between the header and the job data is skipped. */
static void test_padding(void **state)
{
    (void)state;
    size_t len;
    char *orig = slurp(logpath("generated/converted_3.0.0_to_3.41.darshan"), &len);
    assert_non_null(orig);
    const size_t pad = 8192, hs = 1328;
    char *buf = calloc(1, len + pad);
    assert_non_null(buf);
    memcpy(buf, orig, hs);
    memcpy(buf + hs + pad, orig + hs, len - hs);
    /* shift name map and every module map offset (little-endian 3.41 header) */
    for (size_t off = 32; off < 48 + 64 * 16; off += 16) {
        uint64_t v;
        memcpy(&v, buf + off, 8);
        if (v)
            v += pad;
        memcpy(buf + off, &v, 8);
    }
    FILE *f = fopen(scratch(), "wb");
    assert_non_null(f);
    fwrite(buf, 1, len + pad, f);
    fclose(f);
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(scratch(), 0, NULL, NULL, &d), 0);
    assert_int_equal(iolens_darshan_job_get(iolens_darshan_data_log(d))->jobid, 2112);
    assert_int_equal(iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX), 1);
    iolens_darshan_data_free(d);
    unlink(scratch());
    free(buf);
    free(orig);
}

/* Every AI-IO log (3.21, APMPI skipped, DXT present) loads completely. */
static void test_aiio_logs(void **state)
{
    (void)state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/aiio", data_dir);
    DIR *dp = opendir(dir);
    if (!dp)
        skip();
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 8, ".darshan"))
            continue;
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        iolens_darshan_data *d = NULL;
        warnings = 0;
        assert_int_equal(iolens_darshan_load(p, 0, count_warn, NULL, &d), 0);
        assert_true(iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX) > 0);
        assert_true(warnings >= 1); /* APMPI */
        iolens_darshan_data_free(d);
        n++;
    }
    closedir(dp);
    assert_true(n >= 10);
}

static void test_errors(void **state)
{
    (void)state;
    iolens_darshan_log *log = NULL;
    assert_int_equal(iolens_darshan_open("/nonexistent/x.darshan", NULL, NULL, &log), IOLENS_EIO);
    assert_null(log);
    assert_non_null(strstr(iolens_error_last(), "/nonexistent/x.darshan"));
    char junk[2000];
    memset(junk, 'x', sizeof junk);
    assert_true(load_bytes(junk, sizeof junk) < 0);
    assert_non_null(strstr(iolens_error_last(), "byte"));
    unlink(scratch());
}

/* lookup3's own test values (the driver of "lookup3.c", Bob Jenkins, 2006). */
static void test_hash32(void **state)
{
    (void)state;
    const char *s = "Four score and seven years ago";
    assert_int_equal(iolens_darshan_hash32("", 0, 0), 0xdeadbeefu);
    assert_int_equal(iolens_darshan_hash32("", 0, 0xdeadbeefu), 0xbd5b7ddeu);
    assert_int_equal(iolens_darshan_hash32(s, strlen(s), 0), 0x17770551u);
    assert_int_equal(iolens_darshan_hash32(s, strlen(s), 1), 0xcd628161u);
}

/* The writer refuses what it cannot write, and leaves no file after an error. */
static void test_write_refuses(void **state)
{
    (void)state;
    iolens_darshan_job job;
    memset(&job, 0, sizeof job);
    job.nprocs = 1;
    int64_t c[4] = {0};
    iolens_darshan_record r;
    memset(&r, 0, sizeof r);
    r.module = IOLENS_DARSHAN_POSIX;
    r.ncounters = 4; /* not the current version's count */
    r.counters = c;
    const iolens_darshan_record *rp = &r;
    iolens_darshan_image img;
    memset(&img, 0, sizeof img);
    img.job = &job;
    img.records[IOLENS_DARSHAN_POSIX] = &rp;
    img.nrecords[IOLENS_DARSHAN_POSIX] = 1;
    unlink(scratch());
    assert_int_equal(iolens_darshan_write(&img, scratch()), IOLENS_EINVAL);
    assert_non_null(strstr(iolens_error_last(), "current version"));
    assert_int_not_equal(access(scratch(), F_OK), 0);
    img.nrecords[IOLENS_DARSHAN_POSIX] = 0;
    img.comp = 7;
    assert_int_equal(iolens_darshan_write(&img, scratch()), IOLENS_EINVAL);
    /* an empty log is a log */
    img.comp = IOLENS_DARSHAN_COMP_BZIP2;
    assert_int_equal(iolens_darshan_write(&img, scratch()), 0);
    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(scratch(), 0, NULL, NULL, &d), 0);
    assert_int_equal(iolens_darshan_job_get(iolens_darshan_data_log(d))->nprocs, 1);
    iolens_darshan_data_free(d);
    unlink(scratch());
}

/* A summary read in passes over parts of the file ids (as a log of more ids than the bound is
 * read) counts the same distinct files and the same sums as one reading, on every stored log. */
static void test_summary_passes(void **state)
{
    (void)state;
    FILE *idx = fopen(logpath("INDEX.tsv"), "r");
    assert_non_null(idx);
    char line[2048];
    int n = 0, many = 0;
    while (fgets(line, sizeof line, idx)) {
        char *tab = strchr(line, '\t');
        if (!tab || !strncmp(line, "file", 4))
            continue;
        *tab = '\0';
        const char *p = logpath(line);
        iolens_darshan_summary one, parts;
        if (iolens_darshan_summarize(p, &one) < 0)
            continue; /* (logs the reader refuses are tested elsewhere) */
        for (size_t div = 3; div <= 11; div += 4) {
            /* (and one id a pass, on the small logs) */
            size_t max_ids = div == 11 ? (one.files <= 16 ? 1 : (size_t)one.files) : (size_t)one.files / div + 1;
            assert_int_equal(iol_darshan_summarize_bounded(p, &parts, max_ids), 0);
            assert_int_equal(parts.files, one.files);
            assert_string_equal(parts.exe, one.exe);
            assert_int_equal(parts.nprocs, one.nprocs);
            assert_memory_equal(parts.mod, one.mod, sizeof one.mod);
            iolens_darshan_summary_release(&parts);
        }
        many += one.files > 8;
        iolens_darshan_summary_release(&one);
        n++;
    }
    fclose(idx);
    assert_true(n >= 20);
    assert_true(many >= 3);
}

int main(void)
{
    const char *dd = getenv("IOLENS_SHARED_DATA");
    if (!dd) {
        fprintf(stderr, "SKIP: IOLENS_SHARED_DATA not set\n");
        return 77;
    }
    snprintf(data_dir, sizeof data_dir, "%s", dd);
    if (access(logpath("INDEX.tsv"), R_OK) != 0) {
        fprintf(stderr, "SKIP: %s missing\n", logpath("INDEX.tsv"));
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_tables), cmocka_unit_test(test_converted_341),
        cmocka_unit_test(test_ppc64_300),     cmocka_unit_test(test_bzip2_equals_zlib),
        cmocka_unit_test(test_streaming),     cmocka_unit_test(test_lustre_and_others),
        cmocka_unit_test(test_truncation),    cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_padding),       cmocka_unit_test(test_errors),
        cmocka_unit_test(test_aiio_logs),     cmocka_unit_test(test_hash32),
        cmocka_unit_test(test_write_refuses), cmocka_unit_test(test_summary_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
