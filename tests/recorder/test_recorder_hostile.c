/* Hostile Recorder traces: truncated, mutated (raw and after decompression),
 * malicious grammars, wrong versions and inconsistent sizes must give a
 * clear error or a correct parse, never a crash, a hang or a huge allocation.
 * Runs under ASan/UBSan in CI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "iolens/recorder.h"
#include "util/buf.h"

#define MAXF 8

typedef struct trace {
    int n;
    const char *names[MAXF];
    iol_buf data[MAXF];
} trace;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int load_trace(trace *t, const char *name, const char *const *files, int n)
{
    const char *root = getenv("IOLENS_SHARED_DATA");
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/recorder/%s/%s", root ? root : "../shared/data", name, files[i]);
        t->names[i] = files[i];
        t->data[i] = (iol_buf)IOL_BUF_INIT;
        if (iol_read_file(p, 1 << 24, &t->data[i]) < 0)
            return -1;
        t->n++;
    }
    return 0;
}

static void free_trace(trace *t)
{
    for (int i = 0; i < t->n; i++)
        iol_buf_release(&t->data[i]);
}

/* Decodes every rank to text; returns 0 (text in *out) or the error code. */
static int decode(const trace *t, char **out, size_t *outlen)
{
    iolens_recorder_memfile mf[MAXF];
    for (int i = 0; i < t->n; i++)
        mf[i] = (iolens_recorder_memfile){t->names[i], (const uint8_t *)t->data[i].data, t->data[i].len};
    iolens_recorder_options opt = {0};
    opt.max_records = 1 << 20;
    iolens_recorder *rec = NULL;
    *out = NULL;
    *outlen = 0;
    FILE *f = open_memstream(out, outlen);
    int rc = iolens_recorder_read_mem(mf, (size_t)t->n, "mem", &rec, &opt);
    for (int r = 0; rc == 0 && r < iolens_recorder_nranks(rec); r++) {
        int64_t lines = iolens_recorder_write_text(rec, r, f, "| ");
        if (lines < 0)
            rc = (int)lines;
    }
    iolens_recorder_free(rec); /* NULL when the read failed */
    fclose(f);
    if (rc < 0) {
        const char *m = iolens_error_last();
        if (strncmp(m, "cannot read 'mem/", 17) != 0)
            fail_msg("error message without the file: '%s'", m);
    }
    return rc;
}

static void copy_trace(trace *dst, const trace *src)
{
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->n; i++) {
        dst->names[i] = src->names[i];
        dst->data[i] = (iol_buf)IOL_BUF_INIT;
        iol_buf_append(&dst->data[i], src->data[i].data, src->data[i].len);
    }
    dst->n = src->n;
}

static const char *const ipc_files[] = {"VERSION", "recorder.mt", "recorder.cst", "ug.mt", "ug.cfg", "recorder.ts"};
static const char *const rank_files[] = {"VERSION", "recorder.mt", "0.cst", "0.cfg", "recorder.ts"};

static void truncate_all(const char *name, const char *const *files, int n)
{
    trace t;
    if (load_trace(&t, name, files, n) < 0) {
        free_trace(&t);
        skip();
    }
    char *ref;
    size_t reflen;
    assert_int_equal(decode(&t, &ref, &reflen), 0);
    long errors = 0, ok = 0;
    for (int i = 0; i < t.n; i++) {
        size_t size = t.data[i].len;
        size_t step = size <= 600 ? 1 : size / 300;
        for (size_t cut = 0; cut < size; cut += step) {
            trace m;
            copy_trace(&m, &t);
            m.data[i].len = cut;
            char *txt;
            size_t len;
            if (decode(&m, &txt, &len) < 0) {
                errors++;
            } else { /* a correct parse: only unused trailing bytes were cut */
                assert_int_equal(len, reflen);
                assert_memory_equal(txt, ref, len);
                ok++;
            }
            free(txt);
            free_trace(&m);
        }
    }
    assert_true(errors > 0);
    print_message("%s: %ld truncations rejected, %ld parsed identically\n", name, errors, ok);
    free(ref);
    free_trace(&t);
}

static void test_truncate_ipc(void **s) { (void)s; truncate_all("shared_n2_m10", ipc_files, 6); }
static void test_truncate_per_rank(void **s) { (void)s; truncate_all("nonmpi_dd_1000x1MiB", rank_files, 5); }

static void mutate_raw(const char *name, const char *const *files, int n, int rounds)
{
    trace t;
    if (load_trace(&t, name, files, n) < 0) {
        free_trace(&t);
        skip();
    }
    long errors = 0;
    for (int k = 0; k < rounds; k++) {
        trace m;
        copy_trace(&m, &t);
        int i = (int)(rnd() % (uint64_t)m.n);
        int flips = 1 + (int)(rnd() % 4);
        for (int j = 0; j < flips && m.data[i].len; j++)
            m.data[i].data[rnd() % m.data[i].len] = (char)rnd();
        char *txt;
        size_t len;
        errors += decode(&m, &txt, &len) < 0;
        free(txt);
        free_trace(&m);
    }
    print_message("%s: %ld of %d raw mutations rejected\n", name, errors, rounds);
    free_trace(&t);
}

static void test_mutate_raw(void **s)
{
    (void)s;
    mutate_raw("shared_n2_m10", ipc_files, 6, 400);
    mutate_raw("nonmpi_dd_1000x1MiB", rank_files, 5, 200);
}

/* ---- rebuilding compressed blocks, to reach the parsers behind zlib ---- */
static void put_u64(iol_buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    iol_buf_append(b, x, 8);
}

static void put_i32(iol_buf *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t x[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    iol_buf_append(b, x, 4);
}

static void put_block(iol_buf *out, const void *payload, size_t len)
{
    uLongf clen = compressBound(len);
    uint8_t *c = malloc(clen);
    assert_int_equal(compress(c, &clen, payload, len), Z_OK);
    put_u64(out, clen);
    put_u64(out, len);
    iol_buf_append(out, c, clen);
    free(c);
}

/* Decompresses the block at *pos of buf (test data is trusted). */
static void get_block(const iol_buf *buf, size_t *pos, iol_buf *payload)
{
    uint64_t clen, dlen;
    memcpy(&clen, buf->data + *pos, 8);
    memcpy(&dlen, buf->data + *pos + 8, 8);
    iol_buf_reserve(payload, dlen + 1);
    uLongf got = dlen;
    assert_int_equal(uncompress((Bytef *)payload->data, &got, (const Bytef *)buf->data + *pos + 16, clen), Z_OK);
    payload->len = got;
    *pos += 16 + clen;
}

static int file_index(const trace *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->names[i], name))
            return i;
    return -1;
}

static void test_mutate_payloads(void **s)
{
    (void)s;
    trace t;
    if (load_trace(&t, "shared_n2_m10", ipc_files, 6) < 0) {
        free_trace(&t);
        skip();
    }
    static const char *const targets[] = {"recorder.cst", "ug.cfg", "recorder.ts"};
    long errors = 0, rounds = 0;
    for (int k = 0; k < 600; k++) {
        const char *target = targets[k % 3];
        int fi = file_index(&t, target);
        trace m;
        copy_trace(&m, &t);
        /* recorder.ts: per-rank sizes first; the others start with a block */
        size_t pos = !strcmp(target, "recorder.ts") ? 16 : 0;
        iol_buf head = IOL_BUF_INIT, payload = IOL_BUF_INIT, rebuilt = IOL_BUF_INIT;
        iol_buf_append(&head, t.data[fi].data, pos);
        get_block(&t.data[fi], &pos, &payload);
        int flips = 1 + (int)(rnd() % 6);
        for (int j = 0; j < flips && payload.len; j++) {
            size_t at = rnd() % payload.len;
            payload.data[at] = (char)(rnd() % 4 ? rnd() : (rnd() % 2 ? 0xff : 0x7f));
        }
        if (rnd() % 5 == 0)
            payload.len = rnd() % (payload.len + 1);
        iol_buf_append(&rebuilt, head.data, head.len);
        put_block(&rebuilt, payload.data, payload.len);
        if (!strcmp(target, "recorder.ts")) { /* keep rank 1's block; fix rank 0's size */
            uint64_t size0 = rebuilt.len - 16;
            memcpy(rebuilt.data, &size0, 8);
            iol_buf_append(&rebuilt, t.data[fi].data + pos, t.data[fi].len - pos);
        } else {
            iol_buf_append(&rebuilt, t.data[fi].data + pos, t.data[fi].len - pos);
        }
        iol_buf_release(&m.data[fi]);
        m.data[fi] = rebuilt;
        char *txt;
        size_t len;
        errors += decode(&m, &txt, &len) < 0;
        rounds++;
        free(txt);
        free_trace(&m);
        iol_buf_release(&head);
        iol_buf_release(&payload);
    }
    print_message("%ld of %ld decompressed-payload mutations rejected\n", errors, rounds);
    assert_true(errors > 0);
    free_trace(&t);
}

/* A trace with the real metadata and signatures of shared_n2_m10, one
 * grammar for both ranks given as i32 words, and `records` zero timestamps. */
static void synthetic(trace *out, const trace *real, const int32_t *cfg, size_t nwords, uint64_t records)
{
    copy_trace(out, real);
    iol_buf ug = IOL_BUF_INIT, cfgf = IOL_BUF_INIT, ts = IOL_BUF_INIT;
    put_i32(&ug, 0);
    put_i32(&ug, 0);
    put_i32(&ug, 1);
    put_block(&cfgf, cfg, nwords * 4);
    uint8_t *zeros = calloc(records ? records * 8 : 1, 1);
    iol_buf blk = IOL_BUF_INIT;
    put_block(&blk, zeros, records * 8);
    put_u64(&ts, blk.len);
    put_u64(&ts, blk.len);
    iol_buf_append(&ts, blk.data, blk.len);
    iol_buf_append(&ts, blk.data, blk.len);
    free(zeros);
    iol_buf_release(&blk);
    int iu = file_index(out, "ug.mt"), ic = file_index(out, "ug.cfg"), it = file_index(out, "recorder.ts");
    iol_buf_release(&out->data[iu]);
    iol_buf_release(&out->data[ic]);
    iol_buf_release(&out->data[it]);
    out->data[iu] = ug;
    out->data[ic] = cfgf;
    out->data[it] = ts;
}

static void expect_error(const trace *t, int code, const char *needle)
{
    char *txt;
    size_t len;
    int rc = decode(t, &txt, &len);
    free(txt);
    if (rc != code || !strstr(iolens_error_last(), needle))
        fail_msg("got %d '%s', want %d with '%s'", rc, iolens_error_last(), code, needle);
}

static void test_malicious_grammars(void **s)
{
    (void)s;
    trace real;
    if (load_trace(&real, "shared_n2_m10", ipc_files, 6) < 0) {
        free_trace(&real);
        skip();
    }
    trace t;
    char *txt;
    size_t len;
    /* a cycle: -1 -> -2 -> -1 */
    const int32_t cycle[] = {2, -1, 2, 0, 1, -2, 1, -2, 1, -1, 1};
    synthetic(&t, &real, cycle, sizeof cycle / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "cycle");
    free_trace(&t);
    /* self-reference */
    const int32_t self[] = {1, -1, 1, -1, 3};
    synthetic(&t, &real, self, sizeof self / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "refers to itself");
    free_trace(&t);
    /* huge exponents: 2e9^3 records, refused before decoding */
    const int32_t huge[] = {3, -1, 1, -2, 2000000000, -2, 1, -3, 2000000000, -3, 1, 0, 2000000000};
    synthetic(&t, &real, huge, sizeof huge / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "more than the limit");
    free_trace(&t);
    /* huge exponents over rules producing nothing: one record, instantly */
    const int32_t empty[] = {3, -1, 2, 0, 1, -2, 2000000000, -2, 1, -3, 2000000000, -3, 0};
    synthetic(&t, &real, empty, sizeof empty / 4, 1);
    assert_int_equal(decode(&t, &txt, &len), 0);
    assert_non_null(strstr(txt, "| 0.0000000 0.0000000 "));
    free(txt);
    free_trace(&t);
    /* a long chain, each rule doubling: 2^5000 saturates, refused */
    enum { CHAIN = 5000 };
    int32_t *chain = malloc((1 + (size_t)CHAIN * 4) * 4);
    chain[0] = CHAIN;
    for (int i = 0; i < CHAIN; i++) {
        int32_t *w = chain + 1 + i * 4;
        w[0] = -1 - i;
        w[1] = 1;
        w[2] = i + 1 < CHAIN ? -2 - i : 0;
        w[3] = 2;
    }
    synthetic(&t, &real, chain, 1 + (size_t)CHAIN * 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "more than the limit");
    free_trace(&t);
    /* the same chain with exponent 1 decodes (deep but bounded stack) */
    for (int i = 0; i < CHAIN; i++)
        chain[1 + i * 4 + 3] = 1;
    synthetic(&t, &real, chain, 1 + (size_t)CHAIN * 4, 1);
    assert_int_equal(decode(&t, &txt, &len), 0);
    free(txt);
    free_trace(&t);
    free(chain);
    /* undefined rule, missing start rule, terminal out of range, negative repeat */
    const int32_t undef[] = {1, -1, 1, -7, 1};
    synthetic(&t, &real, undef, sizeof undef / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "undefined rule -7");
    free_trace(&t);
    const int32_t nostart[] = {1, -2, 1, 0, 1};
    synthetic(&t, &real, nostart, sizeof nostart / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "no start rule");
    free_trace(&t);
    const int32_t badterm[] = {1, -1, 1, 100000, 1};
    synthetic(&t, &real, badterm, sizeof badterm / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "missing signature");
    free_trace(&t);
    const int32_t negexp[] = {1, -1, 1, 0, -5};
    synthetic(&t, &real, negexp, sizeof negexp / 4, 1);
    expect_error(&t, IOLENS_EFORMAT, "negative repeat");
    free_trace(&t);
    /* timestamps for 3 records but the grammar makes 2 */
    const int32_t two[] = {1, -1, 1, 0, 2};
    synthetic(&t, &real, two, sizeof two / 4, 3);
    expect_error(&t, IOLENS_EFORMAT, "inconsistent sizes");
    free_trace(&t);
    free_trace(&real);
}

static void test_versions_and_sizes(void **s)
{
    (void)s;
    trace real, t;
    if (load_trace(&real, "shared_n2_m10", ipc_files, 6) < 0) {
        free_trace(&real);
        skip();
    }
    static const struct { const char *text; int code; const char *needle; } versions[] = {
        {"2.6.0", IOLENS_EVERSION, "VERSION': Recorder version 2.6.0 is not supported"},
        {"1.0.0", IOLENS_EVERSION, "not supported"},
        {"two", IOLENS_EFORMAT, "VERSION': not a version"},
        {"", IOLENS_EFORMAT, "not a version"},
        {"3.0.0", IOLENS_EFORMAT, "cannot read 'mem/recorder.cst'"}, /* 4-byte ids: keys do not fit */
    };
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
        copy_trace(&t, &real);
        iol_buf_reset(&t.data[0]);
        iol_buf_puts(&t.data[0], versions[k].text);
        expect_error(&t, versions[k].code, versions[k].needle);
        free_trace(&t);
    }
    /* recorder.ts: rank 0's size points past the end */
    copy_trace(&t, &real);
    int it = file_index(&t, "recorder.ts");
    uint64_t big = 1ull << 40;
    memcpy(t.data[it].data, &big, 8);
    expect_error(&t, IOLENS_EFORMAT, "recorder.ts': timestamps of rank 0");
    free_trace(&t);
    /* ug.mt: grammar id out of range */
    copy_trace(&t, &real);
    int iu = file_index(&t, "ug.mt");
    int32_t bad = 5;
    memcpy(t.data[iu].data + 4, &bad, 4);
    expect_error(&t, IOLENS_EFORMAT, "ug.mt': grammar id 5 of rank 1 out of range");
    free_trace(&t);
    /* compressed block claiming a gigantic decompressed size */
    copy_trace(&t, &real);
    int ic = file_index(&t, "recorder.cst");
    memcpy(t.data[ic].data + 8, &big, 8);
    expect_error(&t, IOLENS_EFORMAT, "recorder.cst': implausible decompressed size");
    free_trace(&t);
    /* metadata: invalid resolution, absurd rank count */
    copy_trace(&t, &real);
    int im = file_index(&t, "recorder.mt");
    double zero = 0;
    memcpy(t.data[im].data + 24, &zero, 8);
    expect_error(&t, IOLENS_EFORMAT, "recorder.mt': invalid time resolution");
    free_trace(&t);
    copy_trace(&t, &real);
    int32_t ranks = -3;
    memcpy(t.data[im].data, &ranks, 4);
    expect_error(&t, IOLENS_EFORMAT, "invalid rank count -3");
    free_trace(&t);
    /* a missing file */
    copy_trace(&t, &real);
    t.names[file_index(&t, "ug.cfg")] = "other";
    expect_error(&t, IOLENS_ENOTFOUND, "ug.cfg': no such file");
    free_trace(&t);
    free_trace(&real);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncate_ipc),
        cmocka_unit_test(test_truncate_per_rank),
        cmocka_unit_test(test_mutate_raw),
        cmocka_unit_test(test_mutate_payloads),
        cmocka_unit_test(test_malicious_grammars),
        cmocka_unit_test(test_versions_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
