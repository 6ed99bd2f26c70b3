/* POSIX/stdio replay end to end in a scratch root: bytes, verification, hints, safety. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "iolens/replay.h"

struct fixture {
    char dir[256];  /* scratch, removed at the end */
    char root[300]; /* the replay root inside it */
};

static int rm_rf(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    /* /tmp, not /dev/shm: O_DIRECT needs a disk file system on older kernels */
    snprintf(f->dir, sizeof f->dir, "%s/iolens-replay-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->root, sizeof f->root, "%s/root", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    rm_rf(f->dir);
    free(f);
    return 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static int run(struct fixture *f, const char *json, int keep, iolens_replay_result **res)
{
    iolens_replay_config *cfg = NULL;
    int rc = iolens_replay_config_parse(&cfg, json, strlen(json), "t.json");
    if (rc < 0) {
        fprintf(stderr, "%s\n", iolens_error_last());
        return rc;
    }
    iolens_replay_options opt = {0};
    opt.root = f->root;
    opt.keep = keep;
    rc = iolens_replay_run(res, cfg, &opt);
    iolens_replay_config_free(cfg);
    return rc;
}

static void test_write_read_verified(void **state)
{
    struct fixture *f = *state;
    const char *j =
        "{\"file_configs\":["
        "{\"method\":\"write\",\"file_names\":[\"/abs/a.dat\"],\"total_repeats\":2,\"fsync\":\"close\","
        " \"chunks\":[{\"transfer_size\":\"64k\",\"repetitions\":16},{\"transfer_size\":1000,\"repetitions\":7}]},"
        "{\"method\":\"read\",\"file_names\":[\"/abs/a.dat\"],\"access\":\"random\",\"seed\":3,"
        " \"chunks\":[{\"transfer_size\":\"64k\",\"repetitions\":16},{\"transfer_size\":1000,\"repetitions\":7}]},"
        "{\"method\":\"write\",\"file_names\":[\"s.dat\"],\"interface\":\"stdio\",\"access\":\"strided\",\"block_size\":\"16k\","
        " \"alignment\":4096,\"chunks\":[{\"transfer_size\":3000,\"repetitions\":20}]},"
        "{\"method\":\"read\",\"file_names\":[\"s.dat\"],\"interface\":\"stdio\",\"access\":\"strided\",\"block_size\":\"16k\","
        " \"alignment\":4096,\"chunks\":[{\"transfer_size\":3000,\"repetitions\":20}]},"
        "{\"method\":\"read\",\"file_names\":[\"never-written.dat\"],\"chunks\":[{\"transfer_size\":\"8k\",\"repetitions\":4}]}"
        "]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 1, &res), 0);
    assert_int_equal(iolens_replay_result_count(res), 5);
    iolens_replay_step_stats st;
    iolens_replay_result_step(res, 0, &st);
    assert_int_equal(st.bytes, 2 * (16 * 65536 + 7 * 1000));
    assert_int_equal(st.ops, 2 * 23);
    assert_true(st.seconds > 0 && st.bandwidth > 0);
    iolens_replay_result_step(res, 1, &st);
    assert_int_equal(st.bytes, 16 * 65536 + 7 * 1000);
    assert_int_equal(st.verify_errors, 0);
    iolens_replay_result_step(res, 3, &st);
    assert_int_equal(st.bytes, 20 * 3000);
    assert_int_equal(st.verify_errors, 0);
    iolens_replay_result_step(res, 4, &st);
    assert_int_equal(st.verify_errors, 0); /* prefilled before timing */
    /* the absolute path was remapped below the root; sizes are the layout's */
    char p[512];
    struct stat sb;
    snprintf(p, sizeof p, "%s/abs/a.dat", f->root);
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_size, 16 * 65536 + 7 * 1000);
    snprintf(p, sizeof p, "%s/s.dat", f->root);
    assert_int_equal(stat(p, &sb), 0);
    /* strided, one rank: 20 slots of 4096 (3000 aligned up), 4 per 16 KiB block; last transfer ends at 19*4096+3000 */
    assert_int_equal(sb.st_size, 19 * 4096 + 3000);
    FILE *out = fopen("/dev/null", "w");
    assert_int_equal(iolens_replay_result_write_json(res, out, 1), 0);
    assert_int_equal(iolens_replay_result_write_table(res, out), 0);
    fclose(out);
    iolens_replay_result_free(res);
}

/* random access visits every transfer slot exactly once (a permutation): random writes of
 * 37 and 1000 slots read back sequentially without a hole; seek positioning as well */
static void test_random_is_a_permutation(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"file_configs\":["
                    "{\"method\":\"write\",\"file_names\":[\"r\"],\"access\":\"random\",\"seed\":11,"
                    " \"chunks\":[{\"transfer_size\":4096,\"repetitions\":37},{\"transfer_size\":100,\"repetitions\":1000}]},"
                    "{\"method\":\"read\",\"file_names\":[\"r\"],\"seek\":true,"
                    " \"chunks\":[{\"transfer_size\":4096,\"repetitions\":37},{\"transfer_size\":100,\"repetitions\":1000}]}]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 0, &res), 0);
    iolens_replay_step_stats st;
    iolens_replay_result_step(res, 1, &st);
    assert_int_equal(st.bytes, 37 * 4096 + 1000 * 100);
    assert_int_equal(st.verify_errors, 0);
    iolens_replay_result_free(res);
}

static void test_verify_detects_holes(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"file_configs\":["
                    "{\"method\":\"write\",\"file_names\":[\"h\"],\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]},"
                    "{\"method\":\"write\",\"file_names\":[\"h\"],\"offset\":8192,\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]},"
                    "{\"method\":\"read\",\"file_names\":[\"h\"],\"chunks\":[{\"transfer_size\":12288,\"repetitions\":1}]}]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 0, &res), 0);
    iolens_replay_step_stats st;
    iolens_replay_result_step(res, 2, &st);
    /* the hole 4096..8191 reads as zeros, not the pattern */
    assert_true(st.verify_errors > 4000 && st.verify_errors <= 4096);
    iolens_replay_result_free(res);
    assert_int_equal(count_entries(f->root), -1); /* everything it created is gone, root included */
}

static void test_posix_hints(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"optimization_params\":{\"lustre_stripe_count\":4},\"file_configs\":["
                    "{\"method\":\"write\",\"file_names\":[\"d\"],\"offset\":\"1m\","
                    " \"hints\":{\"use_direct\":true,\"preallocate\":true,\"fsync_on_close\":true},"
                    " \"chunks\":[{\"transfer_size\":\"64k\",\"repetitions\":1}]},"
                    "{\"method\":\"read\",\"file_names\":[\"d\"],\"offset\":\"1m\",\"hints\":{\"disable_readahead\":1},"
                    " \"chunks\":[{\"transfer_size\":\"64k\",\"repetitions\":1}]},"
                    "{\"method\":\"write\",\"file_names\":[\"m\"],\"hints\":{\"use_direct\":true},"
                    " \"chunks\":[{\"transfer_size\":1000,\"repetitions\":1}]},"
                    "{\"method\":\"write\",\"file_names\":[\"sparse\"],\"offset\":\"1m\","
                    " \"chunks\":[{\"transfer_size\":\"64k\",\"repetitions\":1}]}]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 1, &res), 0);
    const char *s = iolens_replay_result_hint(res, 0, "use_direct");
    assert_non_null(s);
    /* O_DIRECT is checked on the open descriptor with F_GETFL; some file systems refuse it */
    assert_true(!strncmp(s, "applied: O_DIRECT set", 21) || strstr(s, "refuses O_DIRECT"));
    assert_non_null(strstr(iolens_replay_result_hint(res, 0, "preallocate"), "applied: posix_fallocate(1114112"));
    assert_non_null(strstr(iolens_replay_result_hint(res, 0, "fsync_on_close"), "applied: fsync"));
    assert_non_null(strstr(iolens_replay_result_hint(res, 0, "lustre_stripe_count"), "not applicable here"));
    assert_non_null(strstr(iolens_replay_result_hint(res, 1, "disable_readahead"), "applied: posix_fadvise"));
    assert_non_null(strstr(iolens_replay_result_hint(res, 2, "use_direct"), "not applicable here: transfers"));
    assert_null(iolens_replay_result_hint(res, 3, "preallocate"));
    /* fallocate is visible in the allocated blocks: the preallocated file holds its 1 MiB gap, the sparse one not */
    char p[512];
    struct stat a, b;
    snprintf(p, sizeof p, "%s/d", f->root);
    assert_int_equal(stat(p, &a), 0);
    snprintf(p, sizeof p, "%s/sparse", f->root);
    assert_int_equal(stat(p, &b), 0);
    assert_true((long long)a.st_blocks * 512 >= 1114112);
    assert_true((long long)b.st_blocks * 512 < 1048576);
    iolens_replay_result_free(res);
}

static void test_safety(void **state)
{
    struct fixture *f = *state;
    iolens_replay_result *res = NULL;
    char p[512];
    assert_int_equal(mkdir(f->root, 0755), 0);
    /* a file the replay did not create is neither overwritten nor removed */
    snprintf(p, sizeof p, "%s/mine", f->root);
    FILE *fp = fopen(p, "w");
    fputs("user data", fp);
    fclose(fp);
    const char *j1 = "{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"/mine\"],"
                     "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]}]}";
    assert_int_equal(run(f, j1, 0, &res), IOLENS_EINVAL);
    assert_non_null(strstr(iolens_error_last(), "already exists"));
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_size, 9);
    /* a symbolic link leading out of the root is refused */
    char out[512];
    snprintf(out, sizeof out, "%s/outside", f->dir);
    assert_int_equal(mkdir(out, 0755), 0);
    snprintf(p, sizeof p, "%s/link", f->root);
    assert_int_equal(symlink(out, p), 0);
    const char *j2 = "{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"link/x\"],"
                     "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]}]}";
    assert_int_equal(run(f, j2, 0, &res), IOLENS_EINVAL);
    assert_non_null(strstr(iolens_error_last(), "symbolic link"));
    assert_int_equal(count_entries(out), 0);
    const char *j3 = "{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"link\"],"
                     "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]}]}";
    assert_true(run(f, j3, 0, &res) < 0);
    /* a run cleans up only what it created: the user's file and link stay */
    const char *j4 = "{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"new/deep/f\"],"
                     "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]}]}";
    assert_int_equal(run(f, j4, 0, &res), 0);
    iolens_replay_result_free(res);
    assert_int_equal(count_entries(f->root), 2);
}

static void test_compute_metadata_dry(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"nranks\":3,\"file_configs\":["
                    "{\"method\":\"compute\",\"compute\":{\"kind\":\"busy\",\"seconds\":0.02}},"
                    "{\"method\":\"compute\",\"total_repeats\":2,\"compute\":{\"seconds\":0.01}},"
                    "{\"method\":\"metadata\",\"file_names\":[\"md\"],\"total_repeats\":2,"
                    " \"metadata\":{\"files_per_rank\":30,\"depth\":2,\"branching\":3,\"write_bytes\":100,\"read_bytes\":50}}]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 0, &res), 0);
    iolens_replay_step_stats st;
    /* step times are differences of epoch seconds in doubles (about 2.4e-7 s apart at 2026's
     * 1.8e9 s): a 20 ms step can read 0.019999981 (seen 8 times in 60 runs) */
    const double eps = 1e-6;
    iolens_replay_result_step(res, 0, &st);
    assert_true(st.seconds >= 0.02 - eps);
    iolens_replay_result_step(res, 1, &st);
    assert_true(st.seconds >= 0.02 - eps);
    iolens_replay_result_step(res, 2, &st);
    /* per file: open+close, write, stat, open+read+close, unlink = 8 operations */
    assert_int_equal(st.ops, 2 * 30 * 8);
    assert_int_equal(st.bytes, 2 * 30 * 150);
    assert_int_equal(st.verify_errors, 0);
    iolens_replay_result_free(res);
    assert_int_equal(count_entries(f->root), -1);

    /* dry run: nothing is created; the plan uses the config's 3 ranks */
    iolens_replay_config *cfg = NULL;
    assert_int_equal(iolens_replay_config_parse(&cfg, j, strlen(j), "t.json"), 0);
    iolens_replay_options opt = {0};
    opt.root = f->root;
    opt.dry_run = 1;
    assert_int_equal(iolens_replay_run(&res, cfg, &opt), 0);
    iolens_replay_result_step(res, 2, &st);
    assert_int_equal(st.nranks, 3);
    assert_int_equal(st.ops, 3 * 2 * 30 * 8);
    assert_int_equal(count_entries(f->root), -1);
    iolens_replay_result_free(res);
    iolens_replay_config_free(cfg);
}

/* interpreter start-up: per module 11 calls (3 stats, open, 2 fstats, 2 lseeks, 2 reads, close),
 * one stat per extension, fopen + fgets per line + fclose; the library tree is removed after */
static void test_startup(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"file_configs\":[{\"name\":\"interpreter start-up\",\"method\":\"startup\","
                    "\"file_names\":[\"py\"],\"startup\":{\"modules\":[{\"bytes\":100},{\"bytes\":0},"
                    "{\"bytes\":5000}],\"extensions\":2,\"config_lines\":4,\"config_line_bytes\":10}}]}";
    iolens_replay_result *res = NULL;
    assert_int_equal(run(f, j, 0, &res), 0);
    iolens_replay_step_stats st;
    iolens_replay_result_step(res, 0, &st);
    assert_int_equal(st.ops, 11 * 3 + 2 + 2 + 4);
    assert_int_equal(st.bytes, 5100 + 40);
    iolens_replay_result_free(res);
    assert_int_equal(count_entries(f->root), -1);

    /* a startup step needs modules and one directory */
    iolens_replay_config *cfg = NULL;
    const char *bad = "{\"file_configs\":[{\"method\":\"startup\",\"file_names\":[\"py\"],"
                      "\"startup\":{\"modules\":[]}}]}";
    assert_true(iolens_replay_config_parse(&cfg, bad, strlen(bad), "t.json") < 0);
    assert_non_null(strstr(iolens_error_last(), "startup.modules"));
    iolens_replay_config_free(cfg);
}

static void test_space_check(void **state)
{
    struct fixture *f = *state;
    /* 900 GiB: refused before any byte is written, and nothing is left behind */
    const char *j = "{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"huge\"],"
                    "\"chunks\":[{\"transfer_size\":\"1g\",\"repetitions\":900}]}]}";
    struct statvfs sv;
    assert_int_equal(statvfs(f->dir, &sv), 0);
    if ((double)sv.f_bavail * (double)sv.f_frsize > 900.0 * 1024 * 1024 * 1024)
        skip(); /* this much scratch space: the replay would really write it */
    iolens_replay_result *res = NULL;
    int rc = run(f, j, 0, &res);
    assert_int_equal(rc, IOLENS_EIO);
    assert_non_null(strstr(iolens_error_last(), "needs up to 966367641600 bytes"));
    assert_int_equal(count_entries(f->root), -1);
}

static void test_no_mpi_backend_without_mpi(void **state)
{
    struct fixture *f = *state;
    const char *j = "{\"file_configs\":[{\"method\":\"write\",\"interface\":\"mpiio\",\"file_names\":[\"x\"],"
                    "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]},"
                    "{\"method\":\"write\",\"interface\":\"hdf5\",\"file_names\":[\"y\"],"
                    "\"chunks\":[{\"transfer_size\":10,\"repetitions\":1}]}]}";
    iolens_replay_result *res = NULL;
    int rc = run(f, j, 0, &res);
    assert_true(rc == IOLENS_EDEPEND || rc == IOLENS_EUNSUPPORTED);
    assert_non_null(strstr(iolens_error_last(), "file_configs[0]"));
    assert_null(res);
    assert_int_equal(count_entries(f->root), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_read_verified, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_is_a_permutation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_detects_holes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_posix_hints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_safety, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compute_metadata_dry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_startup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_space_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mpi_backend_without_mpi, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
