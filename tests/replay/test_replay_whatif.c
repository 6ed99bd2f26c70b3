/* Unit tests of the what-if transforms (iolens_replay_whatif): each card's change as a config
 * edit, the bytes every rank moves kept, and honest "nothing to change" answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/replay.h"
#include "replay/config.h"

static iolens_replay_config *parse(const char *json)
{
    iolens_replay_config *cfg = NULL;
    int rc = iolens_replay_config_parse(&cfg, json, strlen(json), "t.json");
    if (rc < 0)
        fprintf(stderr, "%s\n", iolens_error_last());
    assert_int_equal(rc, 0);
    return cfg;
}

/* Bytes rank r moves in step i. */
static int64_t rank_bytes(const iolens_replay_config *cfg, size_t i, int r)
{
    const struct rp_fileconf *fc = &cfg->file_configs[i];
    int64_t b = 0;
    for (size_t c = 0; c < fc->nchunks; c++)
        b += rp_chunk_reps(fc, &fc->chunks[c], r) * fc->chunks[c].transfer_size;
    return b;
}

static iolens_replay_config *apply(const iolens_replay_config *base, const char *pattern, int nranks, int want,
                                   char *note, size_t cap)
{
    iolens_replay_config *v = NULL;
    int rc = iolens_replay_whatif(&v, base, pattern, nranks, note, cap);
    if (rc < 0)
        fprintf(stderr, "%s\n", iolens_error_last());
    assert_int_equal(rc, want);
    assert_true(want == IOLENS_REPLAY_WHATIF_APPLIED ? v != NULL : v == NULL);
    assert_true(note[0] != '\0');
    return v;
}

static void test_granularity(void **state)
{
    (void)state;
    /* 300 x 4 KiB = 1 MiB + 176 KiB per rank; rank 0 twice as much (imbalance); a strided step
     * with 64 KiB blocks; a 2 MiB chunk that stays; a read of 10 x 4 KiB (its whole extent) */
    iolens_replay_config *base = parse(
        "{\"nranks\": 2, \"file_configs\": ["
        "{\"name\": \"w\", \"method\": \"write\", \"file_names\": [\"f\"], \"imbalance\": [2],"
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 300}, {\"transfer_size\": \"2m\", \"repetitions\": 1}]},"
        "{\"method\": \"write\", \"file_names\": [\"g\"], \"access\": \"strided\", \"block_size\": \"64k\","
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 64}]},"
        "{\"method\": \"read\", \"file_names\": [\"g\"], \"chunks\": [{\"transfer_size\": 4096, \"repetitions\": 10}]},"
        "{\"method\": \"compute\", \"compute\": {\"seconds\": 0.5}}]}");
    char note[2048];
    iolens_replay_config *v = apply(base, "access_granularity", 2, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    for (size_t i = 0; i < 3; i++)
        for (int r = 0; r < 2; r++)
            assert_int_equal(rank_bytes(v, i, r), rank_bytes(base, i, r));
    const struct rp_fileconf *w = &v->file_configs[0];
    assert_int_equal(w->nimbalance, 0); /* folded into per-rank repetitions */
    assert_int_equal(w->nchunks, 4);    /* 1 MiB, the ranks' remainders, 2 MiB */
    assert_int_equal(w->chunks[0].transfer_size, 1048576);
    assert_int_equal(rp_chunk_reps(w, &w->chunks[0], 0), 2); /* 600 x 4 KiB = 2 MiB + 352 KiB */
    assert_int_equal(rp_chunk_reps(w, &w->chunks[0], 1), 1);
    for (size_t c = 1; c < 3; c++)
        assert_true(w->chunks[c].transfer_size == 352 * 1024 || w->chunks[c].transfer_size == 176 * 1024);
    assert_int_equal(w->chunks[3].transfer_size, 2 * 1048576);
    const struct rp_fileconf *s = &v->file_configs[1];
    assert_int_equal(s->access, RP_STRIDED);
    assert_int_equal(s->chunks[0].transfer_size, 65536); /* capped by the block */
    assert_int_equal(s->chunks[0].repetitions, 4);
    assert_int_equal(v->file_configs[2].chunks[0].transfer_size, 40960); /* the rank's whole extent */
    assert_int_equal(v->file_configs[2].chunks[0].repetitions, 1);
    assert_non_null(strstr(note, "'w' (write): 4 KiB transfers -> 1 MiB"));
    iolens_replay_config_free(v);

    /* nothing small: nothing to change */
    iolens_replay_config *big = parse("{\"file_configs\": [{\"method\": \"write\", \"file_names\": [\"f\"],"
                                      " \"chunks\": [{\"transfer_size\": \"1m\", \"repetitions\": 4}]}]}");
    apply(big, "access_granularity", 1, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    assert_non_null(strstr(note, "already 1 MiB"));
    iolens_replay_config_free(big);
    iolens_replay_config_free(base);
}

static void test_interface_and_files(void **state)
{
    (void)state;
    iolens_replay_config *base = parse(
        "{\"nranks\": 2, \"file_configs\": ["
        "{\"method\": \"write\", \"file_names\": [\"/d/shared\"], \"seek\": true, \"hints\": {\"disable_readahead\": 1},"
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]},"
        "{\"method\": \"read\", \"interface\": \"mpiio\", \"file_names\": [\"/d/shared\"],"
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]},"
        "{\"method\": \"write\", \"file_names\": [\"/d/a\", \"/d/b\"], \"interface\": \"stdio\","
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]},"
        "{\"method\": \"write\", \"file_names\": [\"out/f.{rank}.dat\"], \"file_per_process\": true,"
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]}]}");
    char note[2048];
    iolens_replay_config *v = apply(base, "interface_choice", 2, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->file_configs[0].interface, RP_MPIIO);
    assert_int_equal(v->file_configs[0].hints.use_collective, 1);
    assert_int_equal(v->file_configs[0].seek, 0);
    assert_int_equal(v->file_configs[0].hints.disable_readahead, 1); /* kept: the replay reports it */
    assert_int_equal(v->file_configs[1].interface, RP_MPIIO);
    assert_int_equal(v->file_configs[1].hints.use_collective, 1);
    assert_int_equal(v->file_configs[2].interface, RP_STDIO); /* file per process: not this card's */
    assert_int_equal(v->file_configs[3].interface, RP_POSIX);
    iolens_replay_config_free(v);
    apply(base, "interface_choice", 1, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    assert_non_null(strstr(note, "one rank"));

    v = apply(base, "file_strategy", 2, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->file_configs[0].interface, RP_POSIX); /* shared already */
    const struct rp_fileconf *a = &v->file_configs[2], *b = &v->file_configs[3];
    assert_int_equal(a->file_per_process, 0);
    assert_int_equal(a->nfile_names, 1);
    assert_string_equal(a->file_names[0], "/d/a.shared");
    assert_int_equal(a->interface, RP_MPIIO);
    assert_int_equal(a->hints.use_collective, 1);
    assert_string_equal(b->file_names[0], "out/f.shared.dat");
    assert_int_equal(b->file_per_process, 0);
    for (int r = 0; r < 2; r++)
        assert_int_equal(rank_bytes(v, 3, r), rank_bytes(base, 3, r));
    iolens_replay_config_free(v);
    iolens_replay_config_free(base);
}

static void test_access_fsync(void **state)
{
    (void)state;
    iolens_replay_config *base = parse(
        "{\"file_configs\": ["
        "{\"method\": \"write\", \"file_names\": [\"f\"], \"access\": \"strided\", \"block_size\": \"16k\","
        " \"fsync\": \"every_write\", \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]},"
        "{\"method\": \"read\", \"file_names\": [\"f\"], \"access\": \"random\", \"seed\": 7,"
        " \"chunks\": [{\"transfer_size\": \"4k\", \"repetitions\": 8}]}]}");
    char note[2048];
    iolens_replay_config *v = apply(base, "access_pattern", 0, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->file_configs[0].access, RP_SEQUENTIAL);
    assert_true(v->file_configs[0].block_size < 0);
    assert_int_equal(v->file_configs[1].access, RP_SEQUENTIAL);
    assert_int_equal(v->file_configs[0].fsync, RP_FSYNC_WRITE); /* only the order changes */
    iolens_replay_config_free(v);
    v = apply(base, "throughput_utilization", 0, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->file_configs[0].fsync, RP_FSYNC_CLOSE);
    assert_int_equal(v->file_configs[1].access, RP_RANDOM);
    iolens_replay_config_free(v);
    iolens_replay_config *plain = parse("{\"file_configs\": [{\"method\": \"write\", \"file_names\": [\"f\"],"
                                        " \"fsync\": \"close\", \"chunks\": [{\"transfer_size\": 10, \"repetitions\": 1}]}]}");
    apply(plain, "throughput_utilization", 0, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    apply(plain, "access_pattern", 0, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    apply(plain, "file_strategy", 4, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    iolens_replay_config_free(plain);
    iolens_replay_config_free(base);
}

static void test_balance(void **state)
{
    (void)state;
    iolens_replay_config *base = parse(
        "{\"nranks\": 3, \"file_configs\": ["
        "{\"method\": \"write\", \"file_names\": [\"f\"], \"imbalance\": [3],"
        " \"chunks\": [{\"transfer_size\": \"1m\", \"repetitions\": 10}]},"
        "{\"method\": \"write\", \"file_names\": [\"g\"],"
        " \"chunks\": [{\"transfer_size\": 4096, \"ranks\": [{\"rank\": 0, \"repetitions\": 5}, {\"rank\": 2, \"repetitions\": 1}]}]},"
        "{\"method\": \"compute\", \"imbalance\": [4], \"compute\": {\"seconds\": 1}},"
        "{\"method\": \"metadata\", \"file_names\": [\"md\"], \"imbalance\": [2], \"metadata\": {\"files_per_rank\": 10}}]}");
    char note[2048];
    iolens_replay_config *v = apply(base, "parallelism_efficiency", 3, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    /* 30 + 10 + 10 = 50 transfers: 17, 17, 16 */
    assert_int_equal(rank_bytes(v, 0, 0), 17 * 1048576);
    assert_int_equal(rank_bytes(v, 0, 1), 17 * 1048576);
    assert_int_equal(rank_bytes(v, 0, 2), 16 * 1048576);
    assert_int_equal(v->file_configs[0].nimbalance, 0);
    for (int r = 0; r < 3; r++)
        assert_int_equal(rank_bytes(v, 1, r), 2 * 4096);
    assert_int_equal(v->file_configs[2].nimbalance, 0);
    assert_true(v->file_configs[2].compute.seconds == 2.0); /* (4 + 1 + 1) / 3 */
    assert_int_equal(v->file_configs[3].metadata.files_per_rank, 13); /* 40 / 3 rounded */
    assert_non_null(strstr(note, "39 in all, was 40"));
    iolens_replay_config_free(v);
    apply(base, "parallelism_efficiency", 1, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    iolens_replay_config_free(base);

    /* equal bytes per rank, the ranks split over two chunks (as the load_imbalance sweep
     * configs): nothing to balance */
    base = parse("{\"nranks\": 3, \"file_configs\": [{\"method\": \"write\", \"file_names\": [\"f\"], \"chunks\": ["
                 "{\"transfer_size\": 100, \"ranks\": [{\"rank\": 1, \"repetitions\": 1}, {\"rank\": 2, \"repetitions\": 1}]},"
                 "{\"transfer_size\": 100, \"ranks\": [{\"rank\": 0, \"repetitions\": 1}]}]}]}");
    apply(base, "parallelism_efficiency", 3, IOLENS_REPLAY_WHATIF_NOTHING, note, sizeof note);
    iolens_replay_config_free(base);
    /* one size in several chunks: dealt out together, remainders to successive ranks */
    base = parse("{\"nranks\": 3, \"file_configs\": [{\"method\": \"write\", \"file_names\": [\"f\"], \"chunks\": ["
                 "{\"transfer_size\": 100, \"ranks\": [{\"rank\": 0, \"repetitions\": 4}]},"
                 "{\"transfer_size\": 7, \"ranks\": [{\"rank\": 0, \"repetitions\": 2}]},"
                 "{\"transfer_size\": 100, \"ranks\": [{\"rank\": 0, \"repetitions\": 3}]}]}]}");
    v = apply(base, "parallelism_efficiency", 3, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->file_configs[0].nchunks, 2);
    assert_int_equal(rank_bytes(v, 0, 0), 3 * 100); /* 7 x 100: 3, 2, 2; 2 x 7: ranks 1 and 2 */
    assert_int_equal(rank_bytes(v, 0, 1), 2 * 100 + 7);
    assert_int_equal(rank_bytes(v, 0, 2), 2 * 100 + 7);
    iolens_replay_config_free(v);
    iolens_replay_config_free(base);
}

static void test_metadata(void **state)
{
    (void)state;
    iolens_replay_config *base = parse(
        "{\"file_configs\": ["
        "{\"name\": \"md\", \"method\": \"metadata\", \"file_names\": [\"tree\"],"
        " \"metadata\": {\"files_per_rank\": 100, \"write_bytes\": 3901, \"read_bytes\": 3901}},"
        "{\"method\": \"metadata\", \"file_names\": [\"empty\"], \"metadata\": {\"files_per_rank\": 100}}]}");
    char note[2048];
    iolens_replay_config *v = apply(base, "metadata_intensity", 2, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->nfile_configs, 4);
    const struct rp_fileconf *w = &v->file_configs[0], *r = &v->file_configs[1];
    assert_int_equal(w->method, RP_WRITE);
    assert_string_equal(w->file_names[0], "tree/records.dat");
    assert_string_equal(w->name, "md-write");
    assert_int_equal(w->chunks[0].transfer_size, 3901);
    assert_int_equal(w->chunks[0].repetitions, 100);
    assert_int_equal(r->method, RP_READ);
    assert_int_equal(r->chunks[0].transfer_size, 3901);
    /* empty files (stat()ed, the default): a 64-byte record each in an index file, read back */
    assert_int_equal(v->nfile_configs, 4);
    assert_int_equal(v->file_configs[2].method, RP_WRITE);
    assert_string_equal(v->file_configs[2].file_names[0], "empty/records.dat");
    assert_int_equal(v->file_configs[2].chunks[0].transfer_size, 64);
    assert_int_equal(v->file_configs[2].chunks[0].repetitions, 100);
    assert_int_equal(v->file_configs[3].method, RP_READ);
    assert_int_equal(v->file_configs[3].chunks[0].transfer_size, 64);
    iolens_replay_config_free(v);
    iolens_replay_config_free(base);

    /* empty files never stat()ed: the records are written only */
    base = parse("{\"file_configs\": [{\"method\": \"metadata\", \"file_names\": [\"e\"],"
                 " \"metadata\": {\"files_per_rank\": 100, \"stat\": false}}]}");
    v = apply(base, "metadata_intensity", 1, IOLENS_REPLAY_WHATIF_APPLIED, note, sizeof note);
    assert_int_equal(v->nfile_configs, 1);
    assert_int_equal(v->file_configs[0].method, RP_WRITE);
    assert_non_null(strstr(note, "empty files per rank -> 100 records of 64 bytes"));
    iolens_replay_config_free(v);
    iolens_replay_config_free(base);

    /* no metadata step: nothing to express */
    base = parse("{\"file_configs\": [{\"method\": \"write\", \"file_names\": [\"e\"],"
                 " \"chunks\": [{\"transfer_size\": 100, \"repetitions\": 1}]}]}");
    apply(base, "metadata_intensity", 1, IOLENS_REPLAY_WHATIF_NO_TRANSFORM, note, sizeof note);
    assert_non_null(strstr(note, "empty files"));
    iolens_replay_config_free(base);
    base = parse("{\"file_configs\": [{\"method\": \"write\", \"file_names\": [\"f\"],"
                 " \"chunks\": [{\"transfer_size\": 10, \"repetitions\": 1}]}]}");
    apply(base, "metadata_intensity", 1, IOLENS_REPLAY_WHATIF_NO_TRANSFORM, note, sizeof note);
    assert_non_null(strstr(note, "no metadata step"));
    iolens_replay_config *v2 = NULL;
    assert_int_equal(iolens_replay_whatif(&v2, base, "healthy", 1, note, sizeof note), IOLENS_EINVAL);
    assert_int_equal(iolens_replay_whatif(&v2, base, "nonsense", 1, NULL, 0), IOLENS_EINVAL);
    assert_null(iolens_replay_whatif_summary("healthy"));
    assert_non_null(iolens_replay_whatif_summary("file_strategy"));
    iolens_replay_config_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_granularity), cmocka_unit_test(test_interface_and_files),
        cmocka_unit_test(test_access_fsync), cmocka_unit_test(test_balance),
        cmocka_unit_test(test_metadata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
