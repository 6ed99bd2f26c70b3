/* Unit tests of the replay config: examples parse, every rejection names its JSON path. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/replay.h"
#include "replay/config.h"
#include "util/buf.h"

static const char *src_dir(void)
{
    const char *s = getenv("IOLENS_SOURCE_DIR");
    return s ? s : ".";
}

static int parse(const char *json, iolens_replay_config **cfg)
{
    return iolens_replay_config_parse(cfg, json, strlen(json), "t.json");
}

/* Parses every config of dir and plans a dry run of each (what `iolens replay --dry-run` does). */
static int parse_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        iolens_replay_config *cfg = NULL;
        if (iolens_replay_config_load(&cfg, path) < 0) {
            fprintf(stderr, "%s\n", iolens_error_last());
            bad++;
        } else {
            iolens_replay_options opt = {0};
            opt.dry_run = 1;
            opt.root = "/nonexistent/never-created";
            iolens_replay_result *res = NULL;
            if (iolens_replay_run(&res, cfg, &opt) < 0) {
                fprintf(stderr, "%s: dry run: %s\n", path, iolens_error_last());
                bad++;
            } else {
                /* a plan moves bytes (or computes) in every step */
                for (size_t i = 0; i < iolens_replay_result_count(res); i++) {
                    iolens_replay_step_stats st;
                    iolens_replay_result_step(res, i, &st);
                    if (st.bytes <= 0 && strcmp(st.method, "compute") && st.ops <= 0) {
                        fprintf(stderr, "%s: step %zu plans nothing\n", path, i);
                        bad++;
                    }
                }
            }
            iolens_replay_result_free(res);
        }
        iolens_replay_config_free(cfg);
        (*count)++;
    }
    closedir(d);
    return bad;
}

static void test_examples_parse(void **state)
{
    (void)state;
    char dir[4096];
    int n = 0;
    snprintf(dir, sizeof dir, "%s/examples/replay", src_dir());
    assert_int_equal(parse_dir(dir, &n), 0);
    snprintf(dir, sizeof dir, "%s/examples/replay/sweeps", src_dir());
    int m = 0;
    assert_int_equal(parse_dir(dir, &m), 0);
    /* every sweeps.tsv row has at least one config (49 rows, some with variants) */
    assert_true(m >= 49);
    assert_true(n >= 3);
}

static void test_fbench_form(void **state)
{
    (void)state;
    /* Figure 2 of the FBench paper, with JSON numbers for the sizes */
    const char *j = "{\"file_configs\": [ { \"file_names\": [ \"/path/to/shared/f1\" ], \"total_repeats\": 1,"
                    " \"method\": \"write\", \"hints\": {}, \"chunks\": [ { \"transfer_size\": \"1mb\", \"ranks\": ["
                    " { \"rank\": 0, \"repetitions\": 1 }, { \"rank\": 1, \"repetitions\": 1 } ] },"
                    " { \"transfer_size\": \"2mb\", \"ranks\": [ { \"rank\": 0, \"repetitions\": 1 },"
                    " { \"rank\": 1, \"repetitions\": 1 } ] } ] } ],"
                    " \"optimization_params\": {\"use_direct\": 0, \"disable_readahead\": 0, \"use_collective\": 1,"
                    " \"cb_block_size\": 1024, \"cb_nodes\": 2}}";
    iolens_replay_config *cfg = NULL;
    assert_int_equal(parse(j, &cfg), 0);
    assert_int_equal(iolens_replay_config_count(cfg), 1);
    const struct rp_fileconf *fc = &cfg->file_configs[0];
    assert_int_equal(fc->chunks[1].transfer_size, 2 << 20);
    assert_int_equal(rp_chunk_reps(fc, &fc->chunks[0], 1), 1);
    assert_int_equal(rp_chunk_reps(fc, &fc->chunks[0], 2), 0);
    assert_int_equal(cfg->optimization_params.cb_nodes, 2);
    assert_int_equal(cfg->optimization_params.use_direct, 0);
    assert_int_equal(fc->hints.use_direct, -1); /* not given: never defaulted */
    struct rp_hints h;
    rp_hints_merge(&h, &cfg->optimization_params, &fc->hints);
    assert_int_equal(h.use_collective, 1);
    iolens_replay_config_free(cfg);
}

static void test_sizes(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(rp_parse_size("4k", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(rp_parse_size("1MiB", &v), 0);
    assert_int_equal(v, 1 << 20);
    assert_int_equal(rp_parse_size("3 GB", &v), 0);
    assert_int_equal(v, 3LL << 30);
    assert_int_equal(rp_parse_size("12", &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(rp_parse_size("-1k", &v), -1);
    assert_int_equal(rp_parse_size("1q", &v), -1);
    assert_int_equal(rp_parse_size("99999999999999999999", &v), -1);
    assert_int_equal(rp_parse_size("16777216t", &v), -1);
}

struct bad_case {
    const char *json;
    const char *want; /* substring of the error message: the JSON path and the reason */
};

#define WB "\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]},"
#define W "{" WB
#define E "{\"method\":\"write\",\"file_names\":[\"g\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]},"
static const struct bad_case bad[] = {
    {"", "not valid JSON"},
    {"[1,2]", "(top level): must be an object"},
    {"{}", "file_configs: required key missing"},
    {"{\"file_configs\":[]}", "file_configs: at least one step"},
    {"{\"file_configs\":[], \"bogus\":1}", "bogus: unknown key"},
    {"{\"version\":2,\"file_configs\":[]}", "version: must be between 1 and 1"},
    {"{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"f\"]}]}", "file_configs[0].chunks: at least one chunk"},
    {"{\"file_configs\":[{\"file_names\":[\"f\"]}]}", "file_configs[0].method: required key missing"},
    {"{\"file_configs\":[{\"method\":\"append\"}]}", "file_configs[0].method: 'append' is not one of"},
    /* options that would do nothing on their step are refused */
    {"{\"file_configs\":[{\"method\":\"read\",\"file_names\":[\"f\"],\"fsync\":\"every_write\","
     "\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]}]}", "file_configs[0].fsync: \"every_write\" on a read step"},
    {"{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"f\"],\"fsync\":\"close\",\"fsync_count\":2,"
     "\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]}]}", "file_configs[0].fsync_count: counts the fsyncs"},
    {"{\"file_configs\":[{\"method\":\"write\",\"file_names\":[\"f\"],\"interface\":\"mpiio\",\"seek\":true,"
     "\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]}]}", "file_configs[0].seek: an MPI-IO step"},
    {W "{\"method\":\"read\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":-5,\"repetitions\":1}]}]}",
     "file_configs[1].chunks[0].transfer_size: must be between 1 and"},
    {W E "{\"method\":\"read\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":\"1x\",\"repetitions\":1}]}]}",
     "file_configs[2].chunks[0].transfer_size: '1x' is not a size"},
    {W "{\"method\":\"read\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":\"2g\",\"repetitions\":1}]}]}",
     "file_configs[1].chunks[0].transfer_size: must be between 1 and 1073741824"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":\"1g\",\"repetitions\":100000}]}]}",
     "file_configs[1].chunks[0].transfer_size: 107374182400000 bytes per rank is absurd"},
    {W "{\"method\":\"write\",\"file_names\":[\"../etc/passwd\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].file_names[0]: path '../etc/passwd' escapes the replay root"},
    {W "{\"method\":\"write\",\"file_names\":[\"/a/b/../../../x\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].file_names[0]: path '/a/b/../../../x' escapes"},
    {W "{\"method\":\"write\",\"file_names\":[\"\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].file_names[0]: a path must be 1 to 4095"},
    {W "{\"method\":\"write\",\"file_names\":[\"a\\u0000b\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "not valid JSON: \\u0000 is not allowed"}, /* jansson refuses NUL in strings before we see them */
    {W "{\"method\":\"write\",\"file_names\":\"f\",\"file_name\":\"g\",\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "given twice"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":1}]}]}",
     "file_configs[1].chunks[0]: give either repetitions"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":1,\"size\":2,\"repetitions\":1}]}]}",
     "file_configs[1].chunks[0].size: unknown key"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":1,\"ranks\":[{\"rank\":1,\"repetitions\":1},{\"rank\":0,\"repetitions\":1}]}]}]}",
     "file_configs[1].chunks[0].ranks[1].rank: ranks must be listed once each"},
    {"{\"nranks\":2," WB "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":1,\"ranks\":[{\"rank\":2,\"repetitions\":1}]}]}]}",
     "file_configs[1].chunks[0].ranks[0].rank: 2 is not below nranks 2"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"chunks\":[{\"transfer_size\":1,\"ranks\":[{\"rank\":0,\"repetitions\":-1}]}]}]}",
     "file_configs[1].chunks[0].ranks[0].repetitions: must be between 0 and"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"hints\":{\"use_direct\":2},\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].hints.use_direct: must be true/false"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"hints\":{\"romio_cb_write\":\"on\"},\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].hints.romio_cb_write: 'on' is not one of: enable, disable, automatic"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"hints\":{\"stripes\":2},\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].hints.stripes: unknown key"},
    {"{\"optimization_params\":{\"cb_nodes\":0}," WB "{\"method\":\"compute\",\"compute\":{\"seconds\":1}}]}",
     "optimization_params.cb_nodes: must be between 1 and"},
    {W "{\"method\":\"compute\",\"compute\":{\"seconds\":0}}]}", "file_configs[1].compute.seconds: a compute step needs"},
    {W "{\"method\":\"compute\",\"compute\":{\"seconds\":1e9}}]}", "file_configs[1].compute.seconds: must be between 0 and 3600"},
    {W "{\"method\":\"compute\",\"compute\":{}}]}", "file_configs[1].compute.seconds: required key missing"},
    {W "{\"method\":\"metadata\",\"file_names\":[\"d\"],\"metadata\":{\"files_per_rank\":10,\"depth\":16,\"branching\":64}}]}",
     "file_configs[1].metadata.depth: a tree of"},
    {W "{\"method\":\"metadata\",\"file_names\":[\"d\"],\"metadata\":{\"files_per_rank\":10,\"write_bytes\":1,\"read_bytes\":2}}]}",
     "file_configs[1].metadata.read_bytes: cannot exceed write_bytes"},
    {W "{\"method\":\"metadata\",\"file_names\":[\"d\"]}]}", "file_configs[1].metadata.files_per_rank: required"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"imbalance\":[0],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].imbalance[0]: must be > 0"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\",\"g\"],\"file_per_process\":false,\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].file_per_process: false contradicts 2 file_names"},
    {"{\"nranks\":4," WB "{\"method\":\"write\",\"file_names\":[\"f\",\"g\"],\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].file_names: 2 paths for 4 ranks"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"block_size\":4096,\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].block_size: only meaningful"},
    {W "{\"method\":\"write\",\"file_names\":[\"f\"],\"seed\":1.5,\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].seed: must be an integer, got a number"},
    {W "{\"method\":\"write\",\"method\":\"read\"}]}", "duplicate object key"},
    {W "{\"method\":\"read\",\"file_names\":[\"f\"],\"buffer_offset\":4096,\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].buffer_offset: must be between 0 and 4095"},
    {W "{\"method\":\"read\",\"file_names\":[\"f\"],\"buffer_offset\":-16,\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].buffer_offset: must be between 0 and 4095"},
    {W "{\"method\":\"read\",\"file_names\":[\"f\"],\"buffer_offset\":\"16\",\"chunks\":[{\"transfer_size\":1,\"repetitions\":1}]}]}",
     "file_configs[1].buffer_offset: must be an integer"},
};

static void test_rejections(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iolens_replay_config *cfg = (iolens_replay_config *)1;
        int rc = parse(bad[i].json, &cfg);
        if (rc >= 0 || !strstr(iolens_error_last(), bad[i].want))
            fail_msg("case %zu: rc %d, message \"%s\", want \"%s\"", i, rc, iolens_error_last(), bad[i].want);
        assert_null(cfg);
        assert_non_null(strstr(iolens_error_last(), "'t.json': "));
    }
}

/* buffer_offset (where in a page the transfer buffer starts) survives parse -> write -> parse */
static void test_buffer_offset(void **state)
{
    (void)state;
    const char *json = W "{\"method\":\"read\",\"file_names\":[\"f\"],\"buffer_offset\":16,\"verify\":false,"
                         "\"chunks\":[{\"transfer_size\":4096,\"repetitions\":1}]}]}";
    iolens_replay_config *cfg = NULL, *again = NULL;
    assert_int_equal(parse(json, &cfg), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_int_equal(iolens_replay_config_write(cfg, m), 0);
    fclose(m);
    assert_non_null(strstr(text, "\"buffer_offset\": 16"));
    assert_int_equal(iolens_replay_config_parse(&again, text, len, "normalised"), 0);
    free(text);
    /* the default (0, a page start) is left out of the normalised form: step 0 does not show it */
    m = open_memstream(&text, &len);
    assert_int_equal(iolens_replay_config_write(again, m), 0);
    fclose(m);
    const char *at = strstr(text, "\"buffer_offset\": 16");
    assert_non_null(at);
    assert_null(strstr(at + 2, "buffer_offset")); /* only the step that set it */
    assert_true(strstr(text, "buffer_offset") == at + 1);
    free(text);
    iolens_replay_config_free(again);
    iolens_replay_config_free(cfg);
}

static void test_round_trip_and_schema(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/replay/ior-like.json", src_dir());
    iolens_replay_config *cfg = NULL, *again = NULL;
    assert_int_equal(iolens_replay_config_load(&cfg, path), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_int_equal(iolens_replay_config_write(cfg, m), 0);
    fclose(m);
    assert_int_equal(iolens_replay_config_parse(&again, text, len, "normalised"), 0);
    assert_int_equal(iolens_replay_config_count(again), iolens_replay_config_count(cfg));
    free(text);
    iolens_replay_config_free(again);
    iolens_replay_config_free(cfg);
    iolens_replay_config_free(NULL);

    /* docs/replay-config.schema.json is generated from the option tables: they must agree */
    m = open_memstream(&text, &len);
    assert_int_equal(iolens_replay_schema_write(m), 0);
    fclose(m);
    iol_buf doc = IOL_BUF_INIT;
    snprintf(path, sizeof path, "%s/docs/replay-config.schema.json", src_dir());
    assert_int_equal(iol_read_file(path, 1 << 20, &doc), 0);
    if (doc.len != len || memcmp(doc.data, text, len))
        fail_msg("docs/replay-config.schema.json is stale: regenerate with `iolens replay --schema`");
    iol_buf_release(&doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_parse),  cmocka_unit_test(test_fbench_form),
        cmocka_unit_test(test_sizes),           cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_round_trip_and_schema), cmocka_unit_test(test_buffer_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
