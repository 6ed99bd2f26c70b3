/* iolens_darshan_write_json(): the document parses with jansson and every value
 * equals what the reader (whose text output matches darshan-parser byte for
 * byte) decodes, on real logs of different versions and byte orders. Also
 * iolens_darshan_open_mem() on the same bytes as iolens_darshan_open(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/darshan.h"

static char data_dir[4096];

static const char *const logs[] = {
    "public/release_logs__mpi-io-test-ppc64-3.0.0.darshan",  /* 3.00 big-endian */
    "public/release_logs__mpi-io-test-x86_64-3.1.0.darshan", /* 3.10 */
    "public/apmpi_apxc__mpi-io-test.darshan",                /* 3.21, unknown modules */
    "public/ecpam-21-materials__notebooks__logs__snyder_h5-block-coll_id511919_4-14-3843-13517322816805000194_1.darshan", /* H5D, LUSTRE v1 */
    "public/release_logs__mpi-io-test-x86_64-3.5.0.darshan", /* 3.41, LUSTRE v2, HEATMAP */
    "generated/large_seq_4proc_dxt_heatmap.darshan",         /* DXT v2/v3 */
    "generated/large_seq_4proc_dxt_heatmap.rt3.5.0-dxtv1.darshan",
    "generated/small_writes_4proc_dxt_heatmap.bzip2.darshan",
};

static void id_eq(json_t *o, const char *key, uint64_t id)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, id);
    json_t *v = json_object_get(o, key);
    assert_true(json_is_string(v));
    assert_string_equal(json_string_value(v), buf);
}

static int64_t jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    assert_true(json_is_integer(v));
    return (int64_t)json_integer_value(v);
}

/* doubles are written with the shortest form that reads back exactly */
static void dbl_eq(json_t *v, double want)
{
    if (want != want) {
        assert_true(json_is_null(v));
        return;
    }
    assert_true(json_is_number(v));
    assert_true(json_number_value(v) == want);
}

static void check_segs(json_t *arr, const iolens_darshan_record *r, int64_t from, int64_t n)
{
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), n);
    for (int64_t i = 0; i < n; i++) {
        json_t *s = json_array_get(arr, (size_t)i);
        const iolens_darshan_dxt_seg *g = &r->dxt.segs[from + i];
        assert_int_equal(jint(s, "offset"), g->offset);
        assert_int_equal(jint(s, "length"), g->length);
        dbl_eq(json_object_get(s, "start"), g->start);
        dbl_eq(json_object_get(s, "end"), g->end);
    }
}

static void check_record(json_t *jr, const iolens_darshan_record *r)
{
    id_eq(jr, "id", r->id);
    assert_int_equal(jint(jr, "rank"), r->rank);
    json_t *c = json_object_get(jr, "counters");
    assert_int_equal(c ? json_object_size(c) : 0, r->ncounters);
    for (size_t i = 0; i < r->ncounters; i++)
        assert_int_equal(jint(c, iolens_darshan_counter_name(r->module, i)), r->counters[i]);
    json_t *f = json_object_get(jr, "fcounters");
    assert_int_equal(f ? json_object_size(f) : 0, r->nfcounters);
    for (size_t i = 0; i < r->nfcounters; i++)
        dbl_eq(json_object_get(f, iolens_darshan_fcounter_name(r->module, i)), r->fcounters[i]);
    if (r->module == IOLENS_DARSHAN_LUSTRE) {
        json_t *comps = json_object_get(jr, "components"), *osts = json_object_get(jr, "osts");
        assert_int_equal(json_array_size(comps), r->lustre.num_comps);
        assert_int_equal(json_array_size(osts), r->lustre.num_stripes);
        for (int64_t i = 0; i < r->lustre.num_comps; i++) {
            json_t *jc = json_array_get(comps, (size_t)i);
            assert_int_equal(jint(jc, "stripe_size"), r->lustre.comps[i].stripe_size);
            assert_int_equal(jint(jc, "stripe_count"), r->lustre.comps[i].stripe_count);
            assert_int_equal(jint(jc, "ext_end"), r->lustre.comps[i].ext_end);
            assert_string_equal(json_string_value(json_object_get(jc, "pool_name")),
                                r->lustre.comps[i].pool_name);
        }
        for (int64_t i = 0; i < r->lustre.num_stripes; i++)
            assert_int_equal(json_integer_value(json_array_get(osts, (size_t)i)), r->lustre.osts[i]);
    } else if (r->module == IOLENS_DARSHAN_HEATMAP) {
        dbl_eq(json_object_get(jr, "bin_width"), r->heatmap.bin_width);
        json_t *rb = json_object_get(jr, "read_bins"), *wb = json_object_get(jr, "write_bins");
        assert_int_equal(json_array_size(rb), r->heatmap.nbins);
        for (int64_t i = 0; i < r->heatmap.nbins; i++) {
            assert_int_equal(json_integer_value(json_array_get(rb, (size_t)i)), r->heatmap.read_bins[i]);
            assert_int_equal(json_integer_value(json_array_get(wb, (size_t)i)), r->heatmap.write_bins[i]);
        }
    } else if (r->module == IOLENS_DARSHAN_DXT_POSIX || r->module == IOLENS_DARSHAN_DXT_MPIIO) {
        assert_string_equal(json_string_value(json_object_get(jr, "hostname")), r->dxt.hostname);
        check_segs(json_object_get(jr, "writes"), r, 0, r->dxt.write_count);
        check_segs(json_object_get(jr, "reads"), r, r->dxt.write_count, r->dxt.read_count);
    } else if (r->module == IOLENS_DARSHAN_H5D) {
        id_eq(jr, "file_rec_id", r->file_rec_id);
    }
}

static void check_log(const char *path)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    iolens_darshan_log *log = NULL;
    assert_int_equal(iolens_darshan_open(path, NULL, NULL, &log), 0);
    assert_int_equal(iolens_darshan_write_json(log, tmp, 0), 0);
    iolens_darshan_close(log);
    rewind(tmp);
    json_error_t err;
    json_t *doc = json_loadf(tmp, 0, &err);
    fclose(tmp);
    if (!doc)
        fail_msg("%s: JSON does not parse: %s (line %d)", path, err.text, err.line);

    iolens_darshan_data *d = NULL;
    assert_int_equal(iolens_darshan_load(path, 0, NULL, NULL, &d), 0);
    const iolens_darshan_log *dl = iolens_darshan_data_log(d);
    const iolens_darshan_header *h = iolens_darshan_header_get(dl);
    const iolens_darshan_job *j = iolens_darshan_job_get(dl);
    assert_string_equal(json_string_value(json_object_get(doc, "version")), h->version);
    assert_int_equal(json_is_true(json_object_get(doc, "big_endian")), h->big_endian);
    json_t *job = json_object_get(doc, "job");
    assert_int_equal(jint(job, "jobid"), j->jobid);
    assert_int_equal(jint(job, "uid"), j->uid);
    assert_int_equal(jint(job, "nprocs"), j->nprocs);
    assert_int_equal(jint(job, "start_time"), j->start_time_sec);
    assert_int_equal(jint(job, "end_time"), j->end_time_sec);
    dbl_eq(json_object_get(job, "run_time"), j->run_time);
    assert_string_equal(json_string_value(json_object_get(job, "exe")), j->exe);
    /* every "key=value" metadata line is in the object */
    json_t *md = json_object_get(job, "metadata");
    assert_true(json_is_object(md));
    char mdcopy[1025];
    snprintf(mdcopy, sizeof mdcopy, "%s", j->metadata);
    size_t nmd = 0;
    for (char *save = NULL, *line = strtok_r(mdcopy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        json_t *v = json_object_get(md, line);
        assert_non_null(v);
        nmd++;
    }
    assert_true(json_object_size(md) <= nmd);
    json_t *mounts = json_object_get(doc, "mounts");
    assert_int_equal(json_array_size(mounts), iolens_darshan_mount_count(dl));
    for (size_t i = 0; i < iolens_darshan_mount_count(dl); i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(mounts, i), "path")),
                            iolens_darshan_mount_at(dl, i)->path);
    /* names: every de-duplicated pair is there with the same name */
    json_t *names = json_object_get(doc, "names");
    assert_true(json_array_size(names) >= iolens_darshan_data_name_count(d));
    for (size_t i = 0; i < json_array_size(names); i++) {
        json_t *n = json_array_get(names, i);
        uint64_t id = strtoull(json_string_value(json_object_get(n, "id")), NULL, 10);
        const char *want = iolens_darshan_data_name(d, id);
        if (want && *json_string_value(json_object_get(n, "name")))
            assert_string_equal(json_string_value(json_object_get(n, "name")), want);
    }
    json_t *mods = json_object_get(doc, "modules");
    size_t nmods = 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t n = iolens_darshan_data_count(d, m);
        json_t *jm = json_object_get(mods, iolens_darshan_module_name(m));
        if (!jm) {
            assert_int_equal(n, 0);
            continue;
        }
        nmods++;
        assert_int_equal(jint(jm, "version"), h->mod_ver[m]);
        json_t *recs = json_object_get(jm, "records");
        assert_int_equal(json_array_size(recs), n);
        for (size_t i = 0; i < n; i++)
            check_record(json_array_get(recs, i), iolens_darshan_data_record(d, m, i));
    }
    assert_int_equal(json_object_size(mods), nmods);
    assert_true(nmods > 0);
    json_decref(doc);
    iolens_darshan_data_free(d);
}

static void test_json_equals_reader(void **state)
{
    (void)state;
    char p[8192];
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        snprintf(p, sizeof p, "%s/darshan/%s", data_dir, logs[i]);
        check_log(p);
    }
}

static void test_open_mem(void **state)
{
    (void)state;
    char p[8192];
    snprintf(p, sizeof p, "%s/darshan/%s", data_dir, logs[5]);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 1000 && n < sizeof buf);
    iolens_darshan_log *a = NULL, *b = NULL;
    assert_int_equal(iolens_darshan_open(p, NULL, NULL, &a), 0);
    assert_int_equal(iolens_darshan_open_mem(buf, n, "mem", NULL, NULL, &b), 0);
    assert_int_equal(iolens_darshan_job_get(a)->jobid, iolens_darshan_job_get(b)->jobid);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        int ra = iolens_darshan_module_begin(a, m), rb = iolens_darshan_module_begin(b, m);
        assert_int_equal(ra, rb);
        if (ra <= 0)
            continue;
        const iolens_darshan_record *x, *y;
        while ((ra = iolens_darshan_record_next(a, &x)) > 0) {
            assert_int_equal(iolens_darshan_record_next(b, &y), 1);
            assert_true(x->id == y->id && x->rank == y->rank && x->ncounters == y->ncounters);
            if (x->ncounters)
                assert_memory_equal(x->counters, y->counters, x->ncounters * sizeof *x->counters);
        }
        assert_int_equal(ra, 0);
        assert_int_equal(iolens_darshan_record_next(b, &y), 0);
    }
    iolens_darshan_close(a);
    iolens_darshan_close(b);
    /* truncated in memory: a clear error naming the buffer */
    assert_true(iolens_darshan_open_mem(buf, 100, "mem", NULL, NULL, &b) < 0);
    assert_null(b);
    assert_non_null(strstr(iolens_error_last(), "mem"));
    assert_true(iolens_darshan_open_mem(buf, 0, "mem", NULL, NULL, &b) < 0);
}

int main(void)
{
    const char *dd = getenv("IOLENS_SHARED_DATA");
    if (!dd) {
        fprintf(stderr, "SKIP: IOLENS_SHARED_DATA not set\n");
        return 77;
    }
    snprintf(data_dir, sizeof data_dir, "%s", dd);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_equals_reader),
        cmocka_unit_test(test_open_mem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
