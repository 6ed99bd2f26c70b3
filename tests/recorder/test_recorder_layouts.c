/* The layouts no shared trace uses (2.5 without inter-process compression on
 * an MPI run, 2.4, legacy 3.x, 3.x with a recorder.dat) built from the real
 * shared_n2_m10 trace by following the format description; each must decode
 * to recorder2text's stored output. This checks the reader against the
 * description, not against Recorder itself (no real trace of these exists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "iolens/event.h"
#include "iolens/recorder.h"
#include "util/buf.h"

#define NR 2
#define MAXF 16

typedef struct files {
    int n;
    char names[MAXF][32];
    iol_buf data[MAXF];
} files;

static iol_buf real_mt, real_cst, real_ugmt, real_ugcfg, real_ts, text[NR];
static iol_buf cst_payload, cfg_payload[NR], ts_payload[NR];
static int32_t ug[NR];

static const char *root(void)
{
    const char *r = getenv("IOLENS_SHARED_DATA");
    return r ? r : "../shared/data";
}

static int rd(const char *name, iol_buf *b)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/recorder/shared_n2_m10/%s", root(), name);
    *b = (iol_buf)IOL_BUF_INIT;
    return iol_read_file(p, 1 << 24, b);
}

static void unblock(const uint8_t *p, size_t *pos, iol_buf *out)
{
    uint64_t c, d;
    memcpy(&c, p + *pos, 8);
    memcpy(&d, p + *pos + 8, 8);
    *out = (iol_buf)IOL_BUF_INIT;
    iol_buf_reserve(out, d + 1);
    uLongf got = d;
    assert_int_equal(uncompress((Bytef *)out->data, &got, p + *pos + 16, c), Z_OK);
    out->len = got;
    *pos += 16 + c;
}

static void block(iol_buf *out, const void *p, size_t n)
{
    uLongf c = compressBound(n);
    uint8_t *z = malloc(c);
    assert_int_equal(compress(z, &c, p, n), Z_OK);
    uint64_t h[2] = {c, n};
    iol_buf_append(out, h, 16);
    iol_buf_append(out, z, c);
    free(z);
}

static int setup(void **state)
{
    (void)state;
    if (rd("recorder.mt", &real_mt) < 0 || rd("recorder.cst", &real_cst) < 0 || rd("ug.mt", &real_ugmt) < 0 ||
        rd("ug.cfg", &real_ugcfg) < 0 || rd("recorder.ts", &real_ts) < 0 || rd("_text/0.txt", &text[0]) < 0 ||
        rd("_text/1.txt", &text[1]) < 0)
        return 0; /* tests skip */
    size_t pos = 0;
    unblock((const uint8_t *)real_cst.data, &pos, &cst_payload);
    memcpy(ug, real_ugmt.data, sizeof ug);
    int32_t nug;
    memcpy(&nug, real_ugmt.data + 8, 4);
    iol_buf g[NR];
    pos = 0;
    for (int k = 0; k < nug; k++)
        unblock((const uint8_t *)real_ugcfg.data, &pos, &g[k]);
    for (int r = 0; r < NR; r++) {
        cfg_payload[r] = (iol_buf)IOL_BUF_INIT;
        iol_buf_append(&cfg_payload[r], g[ug[r]].data, g[ug[r]].len);
    }
    for (int k = 0; k < nug; k++)
        iol_buf_release(&g[k]);
    pos = 16;
    for (int r = 0; r < NR; r++)
        unblock((const uint8_t *)real_ts.data, &pos, &ts_payload[r]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    iol_buf *all[] = {&real_mt, &real_cst, &real_ugmt, &real_ugcfg, &real_ts, &text[0], &text[1], &cst_payload,
                      &cfg_payload[0], &cfg_payload[1], &ts_payload[0], &ts_payload[1]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        iol_buf_release(all[i]);
    return 0;
}

static iol_buf *add(files *f, const char *name)
{
    snprintf(f->names[f->n], sizeof f->names[0], "%s", name);
    f->data[f->n] = (iol_buf)IOL_BUF_INIT;
    return &f->data[f->n++];
}

static void release(files *f)
{
    for (int i = 0; i < f->n; i++)
        iol_buf_release(&f->data[i]);
}

static void check_decodes(files *f, const char *version)
{
    iolens_recorder_memfile mf[MAXF];
    for (int i = 0; i < f->n; i++)
        mf[i] = (iolens_recorder_memfile){f->names[i], (const uint8_t *)f->data[i].data, f->data[i].len};
    iolens_recorder *rec;
    if (iolens_recorder_read_mem(mf, (size_t)f->n, "synthetic", &rec, NULL) < 0)
        fail_msg("%s: %s", version, iolens_error_last());
    assert_string_equal(iolens_recorder_version(rec), version);
    assert_int_equal(iolens_recorder_nranks(rec), NR);
    for (int r = 0; r < NR; r++) {
        char *out = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&out, &len);
        int64_t lines = iolens_recorder_write_text(rec, r, m, NULL);
        fclose(m);
        if (lines < 0)
            fail_msg("%s rank %d: %s", version, r, iolens_error_last());
        assert_int_equal(len, text[r].len);
        assert_memory_equal(out, text[r].data, len);
        free(out);
    }
    iolens_recorder_free(rec);
}

static const char *names_of(const iol_buf *mt) { return mt->data + 40; }

/* 2.5, MPI run without inter-process compression: <rank>.cst/<rank>.cfg blocks */
static void test_v25_per_rank(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    files f = {0};
    iol_buf_puts(add(&f, "VERSION"), "2.5.0");
    iol_buf *mt = add(&f, "recorder.mt");
    iol_buf_append(mt, real_mt.data, real_mt.len);
    mt->data[37] = 0; /* interprocess_compression off */
    for (int r = 0; r < NR; r++) {
        char n[16];
        snprintf(n, sizeof n, "%d.cst", r);
        block(add(&f, n), cst_payload.data, cst_payload.len);
        snprintf(n, sizeof n, "%d.cfg", r);
        block(add(&f, n), cfg_payload[r].data, cfg_payload[r].len);
    }
    iol_buf_append(add(&f, "recorder.ts"), real_ts.data, real_ts.len);
    check_decodes(&f, "2.5.0");
    release(&f);
}

/* 2.4: shorter metadata struct, uncompressed per-rank .cst/.cfg/.ts */
static void test_v24(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    files f = {0};
    iol_buf_puts(add(&f, "VERSION"), "2.4.0");
    iol_buf *mt = add(&f, "recorder.mt");
    uint8_t hdr[32] = {0};
    int32_t nr = NR, elems = 1 << 20, algo = 0;
    memcpy(hdr, &nr, 4);
    memcpy(hdr + 8, real_mt.data + 16, 16); /* start_ts, resolution */
    memcpy(hdr + 24, &elems, 4);
    memcpy(hdr + 28, &algo, 4);
    iol_buf_append(mt, hdr, sizeof hdr);
    iol_buf_append(mt, names_of(&real_mt), real_mt.len - 40);
    for (int r = 0; r < NR; r++) {
        char n[16];
        snprintf(n, sizeof n, "%d.cst", r);
        iol_buf_append(add(&f, n), cst_payload.data, cst_payload.len);
        snprintf(n, sizeof n, "%d.cfg", r);
        iol_buf_append(add(&f, n), cfg_payload[r].data, cfg_payload[r].len);
        snprintf(n, sizeof n, "%d.ts", r);
        iol_buf_append(add(&f, n), ts_payload[r].data, ts_payload[r].len);
    }
    check_decodes(&f, "2.4.0");
    release(&f);
}

/* 3.x signature keys: 4-byte function ids */
static void cst_with_wide_ids(iol_buf *out)
{
    const uint8_t *p = (const uint8_t *)cst_payload.data;
    iol_buf_append(out, p, 4);
    int32_t n;
    memcpy(&n, p, 4);
    size_t pos = 4;
    for (int32_t i = 0; i < n; i++) {
        int32_t hdr[4];
        memcpy(hdr, p + pos, 16);
        pos += 16;
        const uint8_t *key = p + pos;
        int32_t klen = hdr[2];
        hdr[2] += 3;
        iol_buf_append(out, hdr, 16);
        uint32_t fid = key[8];
        iol_buf_append(out, key, 8);
        iol_buf_append(out, &fid, 4);
        iol_buf_append(out, key + 9, (size_t)klen - 9);
        pos += (size_t)klen;
    }
}

/* legacy 3.x: VERSION file, 40-byte struct with PnetCDF/NetCDF bools, names after a 1024-byte block */
static void test_v3_legacy(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    files f = {0};
    iol_buf_puts(add(&f, "VERSION"), "3.0.1");
    iol_buf *mt = add(&f, "recorder.mt");
    uint8_t hdr[1024] = {0};
    memcpy(hdr, real_mt.data, 4);
    memcpy(hdr + 4, real_mt.data + 4, 4); /* posix, mpi, mpiio, hdf5 */
    hdr[10] = (uint8_t)real_mt.data[8];   /* store_tid, store_call_depth after the two new bools */
    hdr[11] = (uint8_t)real_mt.data[9];
    memcpy(hdr + 16, real_mt.data + 16, 24);
    iol_buf_append(mt, hdr, sizeof hdr);
    iol_buf_append(mt, names_of(&real_mt), real_mt.len - 40);
    iol_buf payload = IOL_BUF_INIT;
    cst_with_wide_ids(&payload);
    block(add(&f, "recorder.cst"), payload.data, payload.len);
    iol_buf_release(&payload);
    iol_buf_append(add(&f, "ug.mt"), real_ugmt.data, real_ugmt.len);
    iol_buf_append(add(&f, "ug.cfg"), real_ugcfg.data, real_ugcfg.len);
    iol_buf_append(add(&f, "recorder.ts"), real_ts.data, real_ts.len);
    check_decodes(&f, "3.0.1");
    release(&f);
}

/* newest 3.x: no VERSION, recorder.mt starts with the version, 64-byte names,
 * every section in one recorder.dat */
static void test_v3_sectioned(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    iol_buf mt = IOL_BUF_INIT, cst = IOL_BUF_INIT, payload = IOL_BUF_INIT;
    uint8_t hdr[56] = {0};
    int32_t v[5] = {3, 1, 2, NR, 0};
    const char *nm = names_of(&real_mt);
    size_t nlen = real_mt.len - 40;
    for (size_t i = 0; i < nlen; i++)
        v[4] += nm[i] == '\n';
    memcpy(hdr, v, sizeof v);
    memcpy(hdr + 20, real_mt.data + 4, 6);
    memcpy(hdr + 32, real_mt.data + 16, 16); /* start_ts, resolution */
    memcpy(hdr + 48, real_mt.data + 32, 8);  /* ts_buffer_elements, four bools */
    iol_buf_append(&mt, hdr, sizeof hdr);
    for (const char *p = nm; p < nm + nlen;) {
        const char *e = memchr(p, '\n', (size_t)(nm + nlen - p));
        char name[64] = {0};
        memcpy(name, p, (size_t)(e - p) < 63 ? (size_t)(e - p) : 63);
        iol_buf_append(&mt, name, 64);
        p = e + 1;
    }
    cst_with_wide_ids(&payload);
    block(&cst, payload.data, payload.len);
    const iol_buf *sec[] = {&mt, &real_ts, &cst, &real_ugcfg, &real_ugmt};
    uint32_t nsec = 5;
    files f = {0};
    iol_buf *dat = add(&f, "recorder.dat");
    iol_buf_append(dat, "RECORDER", 8);
    uint32_t fv = 1;
    iol_buf_append(dat, &fv, 4);
    iol_buf_append(dat, &nsec, 4);
    uint64_t off = 16 + 24 * (uint64_t)nsec;
    for (uint32_t t = 0; t < nsec; t++) {
        uint32_t type = t;
        int32_t rank = -1;
        uint64_t size = sec[t]->len;
        iol_buf_append(dat, &type, 4);
        iol_buf_append(dat, &rank, 4);
        iol_buf_append(dat, &off, 8);
        iol_buf_append(dat, &size, 8);
        off += size;
    }
    for (uint32_t t = 0; t < nsec; t++)
        iol_buf_append(dat, sec[t]->data, sec[t]->len);
    check_decodes(&f, "3.1.2");
    /* a section outside the file is refused with its entry's offset */
    uint64_t huge = 1ull << 40;
    memcpy(dat->data + 16 + 8, &huge, 8);
    iolens_recorder_memfile mf = {"recorder.dat", (const uint8_t *)dat->data, dat->len};
    iolens_recorder *rec;
    assert_int_equal(iolens_recorder_read_mem(&mf, 1, "synthetic", &rec, NULL), IOLENS_EFORMAT);
    assert_non_null(strstr(iolens_error_last(), "recorder.dat': section 0"));
    release(&f);
    iol_buf_release(&mt);
    iol_buf_release(&cst);
    iol_buf_release(&payload);
}

static int func_id(const char *name)
{
    const char *p = names_of(&real_mt), *end = real_mt.data + real_mt.len;
    for (int id = 0; p < end; id++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            break;
        if ((size_t)(e - p) == strlen(name) && !memcmp(p, name, (size_t)(e - p)))
            return id;
        p = e + 1;
    }
    return -1;
}

static void add_sig(iol_buf *cst, int32_t tid, const char *func, const char *const *args, int nargs)
{
    iol_buf a = IOL_BUF_INIT;
    for (int i = 0; i < nargs; i++) {
        iol_buf_puts(&a, args[i]);
        iol_buf_puts(&a, " ");
    }
    int32_t klen = 15 + (int32_t)a.len, rank = 0, count = 1, alen = (int32_t)a.len;
    int32_t hdr[4] = {tid, rank, klen, count};
    iol_buf_append(cst, hdr, 16);
    uint8_t key[15] = {0};
    key[8] = (uint8_t)func_id(func);
    key[10] = (uint8_t)nargs;
    memcpy(key + 11, &alen, 4);
    iol_buf_append(cst, key, 15);
    iol_buf_append(cst, a.data, a.len);
    iol_buf_release(&a);
}

/* MPI-IO calls (no shared trace has any): file handles map to the opened
 * path, sizes are count x datatype size, collectives are flagged. The
 * argument layout follows Recorder 2.5's wrappers as documented, untested
 * against a real MPI-IO trace. */
static void test_mpiio_synthetic(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    static const char *const open_args[] = {"0-0", "/tmp/out.dat", "37", "???", "0-1"};
    static const char *const write_args[] = {"0-1", "4096", "%p", "1024", "MPI_DOUBLE", "%p"};
    static const char *const read_args[] = {"0-1", "%p", "10", "MPI_INT", "%p"};
    static const char *const close_args[] = {"0-1"};
    iol_buf cst = IOL_BUF_INIT;
    int32_t n = 4;
    iol_buf_append(&cst, &n, 4);
    add_sig(&cst, 0, "MPI_File_open", open_args, 5);
    add_sig(&cst, 1, "MPI_File_write_at_all", write_args, 6);
    add_sig(&cst, 2, "MPI_File_read", read_args, 5);
    add_sig(&cst, 3, "MPI_File_close", close_args, 1);
    const int32_t cfg[] = {1, -1, 4, 0, 1, 1, 3, 2, 1, 3, 1};
    files f = {0};
    iol_buf_puts(add(&f, "VERSION"), "2.5.0");
    iol_buf_append(add(&f, "recorder.mt"), real_mt.data, real_mt.len);
    block(add(&f, "recorder.cst"), cst.data, cst.len);
    const int32_t ugmt[] = {0, 0, 1};
    iol_buf_append(add(&f, "ug.mt"), ugmt, sizeof ugmt);
    block(add(&f, "ug.cfg"), cfg, sizeof cfg);
    uint32_t ts[12] = {10, 20, 5, 7, 5, 6, 5, 9, 3, 4, 1, 2};
    iol_buf blk = IOL_BUF_INIT, *tsf = add(&f, "recorder.ts");
    block(&blk, ts, sizeof ts);
    uint64_t sizes[2] = {blk.len, blk.len};
    iol_buf_append(tsf, sizes, 16);
    iol_buf_append(tsf, blk.data, blk.len);
    iol_buf_append(tsf, blk.data, blk.len);
    iol_buf_release(&blk);
    iolens_recorder_memfile mf[MAXF];
    for (int i = 0; i < f.n; i++)
        mf[i] = (iolens_recorder_memfile){f.names[i], (const uint8_t *)f.data[i].data, f.data[i].len};
    iolens_evsource *src;
    iolens_recorder *rec;
    if (iolens_recorder_read_mem(mf, (size_t)f.n, "mpiio", &rec, NULL) < 0)
        fail_msg("%s", iolens_error_last());
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_int_equal(iolens_recorder_write_text(rec, 1, m, NULL), 6);
    fclose(m);
    assert_string_equal(out, "0.0000010 0.0000020 MPI_File_open 0 1 ( 0-0 /tmp/out.dat 37 ??? 0-1 )\n"
                             "0.0000015 0.0000017 MPI_File_write_at_all 0 1 ( 0-1 4096 %p 1024 MPI_DOUBLE %p )\n"
                             "0.0000020 0.0000021 MPI_File_write_at_all 0 1 ( 0-1 4096 %p 1024 MPI_DOUBLE %p )\n"
                             "0.0000025 0.0000029 MPI_File_write_at_all 0 1 ( 0-1 4096 %p 1024 MPI_DOUBLE %p )\n"
                             "0.0000028 0.0000029 MPI_File_read 0 1 ( 0-1 %p 10 MPI_INT %p )\n"
                             "0.0000029 0.0000030 MPI_File_close 0 1 ( 0-1 )\n");
    free(out);
    assert_int_equal(iolens_recorder_evsource(rec, &src), 0);
    iolens_event ev;
    static const iolens_op ops[] = {IOLENS_OP_OPEN, IOLENS_OP_WRITE, IOLENS_OP_WRITE, IOLENS_OP_WRITE,
                                    IOLENS_OP_READ, IOLENS_OP_CLOSE};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(iolens_evsource_next(src, 0, &ev), 1);
        assert_int_equal(ev.layer, IOLENS_LAYER_MPIIO);
        assert_int_equal(ev.op, ops[i]);
        assert_int_equal(ev.file, 0);
        if (ev.op == IOLENS_OP_WRITE) {
            assert_int_equal(ev.size, 8192);
            assert_int_equal(ev.offset, 4096);
            assert_true(ev.flags & IOLENS_EVF_COLLECTIVE);
        }
        if (ev.op == IOLENS_OP_READ) {
            assert_int_equal(ev.size, 40);
            assert_true(ev.flags & IOLENS_EVF_OFFSET_UNKNOWN);
        }
        if (ev.op == IOLENS_OP_OPEN)
            assert_int_equal(ev.open_flags, 37);
    }
    assert_int_equal(iolens_evsource_next(src, 0, &ev), 0);
    const iolens_file *ft;
    size_t nf;
    iolens_evsource_files(src, &ft, &nf);
    assert_int_equal(nf, 1);
    assert_string_equal(ft[0].path, "/tmp/out.dat");
    iolens_evsource_free(src);
    iol_buf_release(&cst);
    release(&f);
}

/* "a*r+b": r is the rank within the sub-communicator of ranks having the same
 * number of distinct signatures of the function (MPI_Comm_split by that
 * count, ordered by world rank), not the world rank. Ranks 0, 2, 3 use one
 * pwrite signature, rank 1 two: ranks 0, 2, 3 have r = 0, 1, 2. */
static void test_subcomm_rank(void **s)
{
    (void)s;
    if (!real_mt.len)
        skip();
    static const char *const pat[] = {"/d/f", "%p", "4096", "4096*r+100"};
    static const char *const w5[] = {"/d/f", "%p", "4096", "5"};
    static const char *const w6[] = {"/d/f", "%p", "4096", "6"};
    iol_buf cst = IOL_BUF_INIT;
    int32_t n = 3;
    iol_buf_append(&cst, &n, 4);
    add_sig(&cst, 0, "pwrite", pat, 4);
    add_sig(&cst, 1, "pwrite", w5, 4);
    add_sig(&cst, 2, "pwrite", w6, 4);
    files f = {0};
    iol_buf_puts(add(&f, "VERSION"), "2.5.0");
    iol_buf *mt = add(&f, "recorder.mt");
    iol_buf_append(mt, real_mt.data, real_mt.len);
    int32_t nranks = 4;
    memcpy(mt->data, &nranks, 4);
    block(add(&f, "recorder.cst"), cst.data, cst.len);
    const int32_t ugmt[] = {0, 1, 0, 0, 2};
    iol_buf_append(add(&f, "ug.mt"), ugmt, sizeof ugmt);
    const int32_t g0[] = {1, -1, 1, 0, 1}, g1[] = {1, -1, 2, 1, 1, 2, 1};
    iol_buf *cfg = add(&f, "ug.cfg");
    block(cfg, g0, sizeof g0);
    block(cfg, g1, sizeof g1);
    uint32_t ts[4] = {0};
    iol_buf b1 = IOL_BUF_INIT, b2 = IOL_BUF_INIT, *tsf = add(&f, "recorder.ts");
    block(&b1, ts, 8);
    block(&b2, ts, 16);
    uint64_t sizes[4] = {b1.len, b2.len, b1.len, b1.len};
    iol_buf_append(tsf, sizes, sizeof sizes);
    iol_buf_append(tsf, b1.data, b1.len);
    iol_buf_append(tsf, b2.data, b2.len);
    iol_buf_append(tsf, b1.data, b1.len);
    iol_buf_append(tsf, b1.data, b1.len);
    iol_buf_release(&b1);
    iol_buf_release(&b2);
    iolens_recorder_memfile mf[MAXF];
    for (int i = 0; i < f.n; i++)
        mf[i] = (iolens_recorder_memfile){f.names[i], (const uint8_t *)f.data[i].data, f.data[i].len};
    iolens_recorder *rec;
    iolens_evsource *src;
    if (iolens_recorder_read_mem(mf, (size_t)f.n, "subcomm", &rec, NULL) < 0)
        fail_msg("%s", iolens_error_last());
    assert_int_equal(iolens_recorder_evsource(rec, &src), 0);
    iolens_event ev;
    const int64_t want[4] = {100, 5, 4096 + 100, 2 * 4096 + 100};
    for (int r = 0; r < 4; r++) {
        assert_int_equal(iolens_evsource_next(src, r, &ev), 1);
        assert_int_equal(ev.offset, want[r]);
        assert_int_equal(ev.size, 4096);
    }
    assert_int_equal(iolens_evsource_next(src, 1, &ev), 1);
    assert_int_equal(ev.offset, 6);
    iolens_evsource_free(src);
    iol_buf_release(&cst);
    release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v25_per_rank),
        cmocka_unit_test(test_v24),
        cmocka_unit_test(test_v3_legacy),
        cmocka_unit_test(test_v3_sectioned),
        cmocka_unit_test(test_mpiio_synthetic),
        cmocka_unit_test(test_subcomm_rank),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
