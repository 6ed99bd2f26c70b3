/* Global view builder against a small in-memory event source (the trace readers are not merged yet). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/event.h"
#include "iolens/replay.h"
#include "replay/config.h"

#define MAXEV 256

struct memsrc {
    int nranks;
    iolens_file files[24];
    size_t nfiles;
    iolens_event ev[4][MAXEV];
    size_t nev[4], pos[4];
    double t;
};

static int m_nranks(void *impl) { return ((struct memsrc *)impl)->nranks; }
static double m_start(void *impl) { (void)impl; return 0; }
static int m_files(void *impl, const iolens_file **out, size_t *count)
{
    struct memsrc *m = impl;
    *out = m->files;
    *count = m->nfiles;
    return 0;
}
static int m_next(void *impl, int rank, iolens_event *out)
{
    struct memsrc *m = impl;
    if (m->pos[rank] >= m->nev[rank])
        return 0;
    *out = m->ev[rank][m->pos[rank]++];
    return 1;
}
static int m_rewind(void *impl, int rank)
{
    ((struct memsrc *)impl)->pos[rank] = 0;
    return 0;
}
static void m_free(void *impl) { free(impl); }

static const iolens_evsource_ops mem_ops = {IOLENS_EVSOURCE_OPS_VERSION, "memory", m_nranks, m_start, m_files,
                                            m_next, m_rewind, m_free};

static void add(struct memsrc *m, int rank, iolens_layer layer, iolens_op op, int64_t file, int64_t size,
                uint32_t flags, uint32_t depth)
{
    iolens_event *e = &m->ev[rank][m->nev[rank]++];
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->layer = layer;
    e->op = op;
    e->file = file;
    e->size = size;
    e->flags = flags;
    e->depth = depth;
    e->func = "test";
    e->tstart = m->t;
    m->t += 0.001;
    e->tend = m->t;
}

static void session(struct memsrc *m, int rank, int64_t file, iolens_layer layer, iolens_op op, int64_t size, int n,
                    uint32_t flags)
{
    add(m, rank, layer, IOLENS_OP_OPEN, file, -1, 0, 0);
    for (int i = 0; i < n; i++) {
        add(m, rank, layer, op, file, size, flags, 0);
        if (layer == IOLENS_LAYER_MPIIO) /* the POSIX call MPI-IO made: depth 1, not replayed */
            add(m, rank, IOLENS_LAYER_POSIX, op, file, size, 0, 1);
    }
    add(m, rank, layer, IOLENS_OP_CLOSE, file, -1, 0, 0);
}

/* A source of nranks ranks over the files paths[0..nfiles) (ids 0..nfiles-1), no events yet. */
static struct memsrc *memsrc_new(int nranks, size_t nfiles, const char *const *paths)
{
    struct memsrc *m = calloc(1, sizeof *m);
    assert_non_null(m);
    m->nranks = nranks;
    for (size_t i = 0; i < nfiles; i++)
        m->files[i] = (iolens_file){(int64_t)i, paths[i]};
    m->nfiles = nfiles;
    return m;
}

static void test_global_view(void **state)
{
    (void)state;
    const char *paths[] = {"/out/shared.dat", "/out/fpp.0", "/out/fpp.1", "/out/coll.dat", "/out/solo"};
    struct memsrc *m = memsrc_new(2, 5, paths);
    for (int r = 0; r < 2; r++) {
        /* two identical sessions on a shared file: 1 MiB x4 then 4 KiB x2 -> total_repeats 2 */
        for (int k = 0; k < 2; k++) {
            add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 0, -1, 0, 0);
            for (int i = 0; i < 4; i++)
                add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 1 << 20, 0, 0);
            add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 4096, 0, 0);
            add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 4096, 0, 0);
            add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, 0, -1, 0, 0);
        }
        /* file per process: 64 KiB x8 each */
        session(m, r, 1 + r, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 65536, 8, 0);
        /* MPI-IO collective writes, rank 1 writes fewer (imbalance stays visible per rank) */
        session(m, r, 3, IOLENS_LAYER_MPIIO, IOLENS_OP_WRITE, 1 << 20, r ? 2 : 3, IOLENS_EVF_COLLECTIVE);
        /* shared read back */
        session(m, r, 0, IOLENS_LAYER_POSIX, IOLENS_OP_READ, 1 << 20, 4, 0);
    }
    session(m, 0, 4, IOLENS_LAYER_STDIO, IOLENS_OP_WRITE, 100, 3, 0);
    iolens_evsource *src = NULL;
    assert_int_equal(iolens_evsource_new(&src, &mem_ops, m), 0);
    iolens_replay_config *cfg = NULL;
    int rc = iolens_replay_config_from_events(&cfg, src);
    if (rc < 0)
        fail_msg("%s", iolens_error_last());
    assert_int_equal(cfg->nranks, 2);
    /* shared write (x2 sessions), fpp write, coll write, shared read, stdio solo */
    assert_int_equal(iolens_replay_config_count(cfg), 5);
    const struct rp_fileconf *w = &cfg->file_configs[0];
    assert_string_equal(w->file_names[0], "/out/shared.dat");
    assert_int_equal(w->method, RP_WRITE);
    assert_int_equal(w->total_repeats, 2);
    assert_int_equal(w->nchunks, 2);
    assert_int_equal(w->chunks[0].transfer_size, 1 << 20);
    assert_int_equal(w->chunks[0].repetitions, 4); /* every rank the same: shorthand */
    assert_int_equal(w->chunks[1].transfer_size, 4096);
    assert_int_equal(w->chunks[1].repetitions, 2);
    const struct rp_fileconf *f = &cfg->file_configs[1];
    assert_int_equal(f->file_per_process, 1);
    assert_int_equal(f->nfile_names, 2);
    assert_string_equal(f->file_names[1], "/out/fpp.1");
    assert_int_equal(f->chunks[0].repetitions, 8);
    const struct rp_fileconf *c = &cfg->file_configs[2];
    assert_int_equal(c->interface, RP_MPIIO);
    assert_int_equal(c->hints.use_collective, 1);
    assert_int_equal(c->chunks[0].nranks, 2); /* FBench's per-rank form: counts differ */
    assert_int_equal(c->chunks[0].ranks[0].repetitions, 3);
    assert_int_equal(c->chunks[0].ranks[1].repetitions, 2);
    assert_int_equal(cfg->file_configs[3].method, RP_READ);
    const struct rp_fileconf *s = &cfg->file_configs[4];
    assert_int_equal(s->interface, RP_STDIO);
    assert_int_equal(s->chunks[0].nranks, 1);
    assert_int_equal(s->chunks[0].ranks[0].rank, 0);
    /* the generated config is a valid config: it survives a round trip through JSON */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(iolens_replay_config_write(cfg, mem), 0);
    fclose(mem);
    iolens_replay_config *again = NULL;
    rc = iolens_replay_config_parse(&again, text, len, "generated");
    if (rc < 0)
        fail_msg("%s\n%s", iolens_error_last(), text);
    free(text);
    /* and it plans: the data volume D = R_total * sum n_rc * s_c of the paper */
    iolens_replay_options opt = {0};
    opt.dry_run = 1;
    iolens_replay_result *res = NULL;
    assert_int_equal(iolens_replay_run(&res, again, &opt), 0);
    iolens_replay_step_stats st;
    iolens_replay_result_step(res, 0, &st);
    assert_int_equal(st.bytes, 2 * 2 * (4 * (1 << 20) + 2 * 4096));
    iolens_replay_result_free(res);
    iolens_replay_config_free(again);
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
}

/* Darshan's path exclusions: system files are left out, /dev/shm is kept; a rank of a
 * source that is not an iolens trace counts as an MPI rank, so it stays even without I/O. */
static void test_exclusions(void **state)
{
    (void)state;
    for (int all = 0; all < 2; all++) {
        const char *paths[] = {"/dev/shm/run/data", "/proc/cpuinfo", "/etc/openmpi/openmpi-mca-params.conf",
                               "/dev/urandom", "/tmp/ompi.vm.0/pid.27710/contact.txt"};
        struct memsrc *m = memsrc_new(2, 5, paths);
        session(m, 0, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 4096, 4, 0);
        session(m, 0, 3, IOLENS_LAYER_POSIX, IOLENS_OP_READ, 16, 1, 0);
        session(m, 1, 1, IOLENS_LAYER_STDIO, IOLENS_OP_READ, 1024, 5, 0);
        session(m, 1, 2, IOLENS_LAYER_STDIO, IOLENS_OP_READ, 8192, 2, 0);
        session(m, 1, 4, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 60, 1, 0);
        iolens_evsource *src = NULL;
        assert_int_equal(iolens_evsource_new(&src, &mem_ops, m), 0);
        iolens_replay_config *cfg = NULL;
        iolens_replay_gv_options o = {all, 0};
        iolens_replay_gv_report rep;
        if (iolens_replay_config_from_events_opts(&cfg, src, &o, &rep) < 0)
            fail_msg("%s", iolens_error_last());
        assert_int_equal(cfg->nranks, 2);
        assert_int_equal(rep.ranks_in, 2);
        assert_int_equal(rep.ranks_dropped, 0);
        assert_int_equal(rep.files_excluded, all ? 0 : 4);
        assert_int_equal(iolens_replay_config_count(cfg), all ? 5 : 1);
        assert_string_equal(cfg->file_configs[0].file_names[0], "/dev/shm/run/data");
        iolens_replay_config_free(cfg);
        /* the report argument is optional; the defaults are the exclusions */
        assert_int_equal(iolens_replay_config_from_events_opts(&cfg, src, NULL, NULL), 0);
        assert_int_equal(iolens_replay_config_count(cfg), 1);
        iolens_replay_config_free(cfg);
        iolens_evsource_free(src);
    }
    /* nothing left but system files: the message says why and how to keep them */
    struct memsrc *m = memsrc_new(1, 1, (const char *[]){"/sys/devices/system/cpu/online"});
    session(m, 0, 0, IOLENS_LAYER_POSIX, IOLENS_OP_READ, 64, 1, 0);
    iolens_evsource *src = NULL;
    assert_int_equal(iolens_evsource_new(&src, &mem_ops, m), 0);
    iolens_replay_config *cfg = NULL;
    assert_int_equal(iolens_replay_config_from_events(&cfg, src), IOLENS_EFORMAT);
    assert_non_null(strstr(iolens_error_last(), "--all-paths"));
    assert_null(cfg);
    iolens_evsource_free(src);
}

static void test_bad_sources(void **state)
{
    (void)state;
    struct memsrc *m = memsrc_new(1, 1, (const char *[]){"/a"});
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 7, 10, 0, 0); /* file id out of range */
    iolens_evsource *src = NULL;
    assert_int_equal(iolens_evsource_new(&src, &mem_ops, m), 0);
    iolens_replay_config *cfg = NULL;
    assert_int_equal(iolens_replay_config_from_events(&cfg, src), IOLENS_EFORMAT);
    assert_non_null(strstr(iolens_error_last(), "file 7"));
    iolens_evsource_free(src);

    m = memsrc_new(1, 0, NULL);
    add(m, 0, IOLENS_LAYER_MPI, IOLENS_OP_INIT, -1, -1, 0, 0);
    assert_int_equal(iolens_evsource_new(&src, &mem_ops, m), 0);
    assert_int_equal(iolens_replay_config_from_events(&cfg, src), IOLENS_EFORMAT);
    assert_non_null(strstr(iolens_error_last(), "no reads or writes"));
    assert_null(cfg);
    iolens_evsource_free(src);
}

/* The global view of m's events (a test failure with the message when it cannot be built);
 * *src (the source over m) is the caller's to free after the config. */
static iolens_replay_config *global_view(struct memsrc *m, iolens_evsource **src)
{
    assert_int_equal(iolens_evsource_new(src, &mem_ops, m), 0);
    iolens_replay_config *cfg = NULL;
    if (iolens_replay_config_from_events(&cfg, *src) < 0)
        fail_msg("%s", iolens_error_last());
    return cfg;
}

/* buffer_offset: the buffer position that moved the most bytes, not the first transfer's
 * (a 100-byte header from a stack buffer at page+100, then 1 MiB blocks from malloc at page+16) */
static void test_buffer_position(void **state)
{
    (void)state;
    struct memsrc *m = memsrc_new(1, 1, (const char *[]){"/out/data"});
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 0, -1, 0, 0);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 100, 0, 0);
    m->ev[0][m->nev[0] - 1].buf_pgoff1 = 1 + 100;
    for (int i = 0; i < 4; i++) {
        add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 1 << 20, 0, 0);
        m->ev[0][m->nev[0] - 1].buf_pgoff1 = 1 + 16;
    }
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_WRITE, 0, 1 << 20, 0, 0); /* position not recorded */
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, 0, -1, 0, 0);
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = global_view(m, &src);
    assert_int_equal(iolens_replay_config_count(cfg), 1);
    assert_int_equal(cfg->file_configs[0].buffer_offset, 16);
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
}

/* access order and lseek positioning from the offsets of the trace: a strided shared file
 * (IOR -b 4k -s 8 on 2 ranks), a random file of one rank, lseek() + write() (IOR's POSIX back end) */
static void xfer(struct memsrc *m, int rank, int64_t file, iolens_op op, int64_t size, int64_t off, uint32_t flags)
{
    add(m, rank, IOLENS_LAYER_POSIX, op, file, size, flags, 0);
    m->ev[rank][m->nev[rank] - 1].offset = off;
}

static void test_access_order(void **state)
{
    (void)state;
    struct memsrc *m = memsrc_new(2, 3, (const char *[]){"/out/strided", "/out/random", "/out/seek"});
    for (int r = 0; r < 2; r++) {
        add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 0, -1, 0, 0);
        for (int seg = 0; seg < 8; seg++)
            xfer(m, r, 0, IOLENS_OP_WRITE, 4096, (int64_t)(seg * 2 + r) * 4096, 0);
        add(m, r, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, 0, -1, 0, 0);
    }
    static const int perm[8] = {5, 2, 7, 0, 3, 6, 1, 4};
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 1, -1, 0, 0);
    for (int i = 0; i < 8; i++)
        xfer(m, 0, 1, IOLENS_OP_READ, 65536, (int64_t)perm[i] * 65536, 0);
    add(m, 0, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, 1, -1, 0, 0);
    add(m, 1, IOLENS_LAYER_POSIX, IOLENS_OP_OPEN, 2, -1, 0, 0);
    for (int i = 0; i < 6; i++) {
        xfer(m, 1, 2, IOLENS_OP_SEEK, -1, (int64_t)i * 8192, 0);
        xfer(m, 1, 2, IOLENS_OP_WRITE, 8192, (int64_t)i * 8192, IOLENS_EVF_OFFSET_IMPLICIT);
    }
    add(m, 1, IOLENS_LAYER_POSIX, IOLENS_OP_CLOSE, 2, -1, 0, 0);
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = global_view(m, &src);
    assert_int_equal(iolens_replay_config_count(cfg), 3);
    int seen = 0;
    for (size_t i = 0; i < iolens_replay_config_count(cfg); i++) {
        const struct rp_fileconf *f = &cfg->file_configs[i];
        if (!strcmp(f->file_names[0], "/out/strided")) {
            assert_int_equal(f->access, RP_STRIDED);
            assert_int_equal(f->block_size, 4096);
            assert_int_equal(f->seek, 0);
            seen |= 1;
        } else if (!strcmp(f->file_names[0], "/out/random")) {
            assert_int_equal(f->access, RP_RANDOM);
            seen |= 2;
        } else if (!strcmp(f->file_names[0], "/out/seek")) {
            assert_int_equal(f->access, RP_SEQUENTIAL);
            assert_int_equal(f->seek, 1);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
}

/* The global view of m's events when it is one step of `method`; *src as global_view's. */
static iolens_replay_config *one_step(struct memsrc *m, iolens_evsource **src, int method)
{
    iolens_replay_config *cfg = global_view(m, src);
    assert_int_equal(cfg->nfile_configs, 1);
    assert_int_equal(cfg->file_configs[0].method, method);
    return cfg;
}

/* Appends a POSIX call of rank 0 to m: `gap` after *t, lasting `dur` (*t: its end). */
static iolens_event *timed_call(struct memsrc *m, iolens_op op, int64_t file, const char *func, double gap, double dur,
                                double *t)
{
    iolens_event *e = &m->ev[0][m->nev[0]++];
    memset(e, 0, sizeof *e);
    e->layer = IOLENS_LAYER_POSIX;
    e->op = op;
    e->file = file;
    e->size = e->offset = -1;
    e->func = func;
    e->tstart = *t += gap;
    e->tend = *t += dur;
    return e;
}

/* A source over 20 files of one folder, /d/f0 ... /d/f19, without calls. */
static struct memsrc *folder_memsrc(void)
{
    static char names[20][16];
    const char *paths[20];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "/d/f%d", i);
        paths[i] = names[i];
    }
    return memsrc_new(1, 20, paths);
}

/* A metadata program: 20 files of one folder stat()ed, gap[i] the program's time before stat i;
 * returns the config step's gap_seconds.stat. */
static double stat_gap(const double *gap)
{
    struct memsrc *m = folder_memsrc();
    double t = 0;
    for (int i = 0; i < 20; i++)
        timed_call(m, IOLENS_OP_STAT, i, "stat", gap[i], 2e-6, &t);
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = one_step(m, &src, RP_METADATA);
    assert_int_equal(cfg->file_configs[0].metadata.files_per_rank, 20);
    double g = cfg->file_configs[0].metadata.gap_seconds.stat;
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
    return g;
}

/* a pause (far above the usual gap and above 1 ms) is not the program's time per file; gaps above
 * 1 ms that are the program's usual pace (fio's filestat on ext4) are */
static void test_metadata_pauses(void **state)
{
    (void)state;
    double gap[20];
    for (int i = 0; i < 20; i++)
        gap[i] = 2e-6;
    gap[10] = 0.05; /* one pause of 50 ms among 2 us gaps: left out */
    assert_float_equal(stat_gap(gap), 2e-6 * 18 / 20, 1e-9);
    for (int i = 0; i < 20; i++)
        gap[i] = i % 4 == 3 ? 1.5e-3 : 0.6e-3; /* a quarter of the files above 1 ms: kept */
    double want = 0;
    for (int i = 1; i < 20; i++)
        want += gap[i];
    assert_float_equal(stat_gap(gap), want / 20, 1e-9);
}

/* A program creating 20 files of one folder (open O_CREAT, fsync, close), gap[i] its time
 * between file i's fsync and its close, 1 us before the others; returns gap_seconds.create. */
static double create_gap(const double *gap)
{
    struct memsrc *m = folder_memsrc();
    double t = 0;
    for (int i = 0; i < 20; i++) {
        timed_call(m, IOLENS_OP_OPEN, i, "open", 1e-6, 2e-6, &t)->open_flags = O_CREAT | O_RDWR;
        timed_call(m, IOLENS_OP_SYNC, i, "fsync", 1e-6, 2e-6, &t)->open_flags = -1;
        timed_call(m, IOLENS_OP_CLOSE, i, "close", gap[i], 2e-6, &t)->open_flags = -1;
    }
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = one_step(m, &src, RP_METADATA);
    assert_int_equal(cfg->file_configs[0].metadata.files_per_rank, 20);
    double g = cfg->file_configs[0].metadata.gap_seconds.create;
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
    return g;
}

/* a pause is judged against the program's usual time per file, not per call: two of a file's
 * three gaps here are short ones */
static void test_create_pauses(void **state)
{
    (void)state;
    double gap[20], want = 0;
    for (int i = 0; i < 20; i++) {
        gap[i] = i % 5 == 4 ? 1.5e-3 : 0.15e-3; /* a fifth of the files above 1 ms: kept */
        want += gap[i] + (i ? 2e-6 : 1e-6);
    }
    assert_float_equal(create_gap(gap), want / 20, 1e-9);
    gap[7] = 0.05; /* a pause of 50 ms: left out */
    want -= 0.15e-3 + 2e-6;
    assert_float_equal(create_gap(gap), want / 20, 1e-9);
}

/* fio's filecreate job: a failed stat of each file before it is created. The stat is no call of
 * the step's; its time and the time before it are the program's time before the create (less the
 * tracer's time after the stat), as a call on another file is. */
static void test_create_failed_stat(void **state)
{
    (void)state;
    struct memsrc *m = folder_memsrc();
    double t = 0;
    for (int i = 0; i < 20; i++) {
        iolens_event *e = timed_call(m, IOLENS_OP_STAT, i, "stat", 5e-6, 3e-6, &t);
        e->flags |= IOLENS_EVF_FAILED;
        e->open_flags = -1;
        e->self_after = 0.5e-6;
        timed_call(m, IOLENS_OP_OPEN, i, "open", 1e-6, 2e-6, &t)->open_flags = O_CREAT | O_RDWR;
        timed_call(m, IOLENS_OP_CLOSE, i, "close", 4e-6, 2e-6, &t)->open_flags = -1;
        timed_call(m, IOLENS_OP_WRITE, -1, "write", 1e-6, 1e-6, &t)->open_flags = -1; /* to no file */
    }
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = one_step(m, &src, RP_METADATA);
    assert_int_equal(cfg->file_configs[0].metadata.files_per_rank, 20);
    assert_int_equal(cfg->file_configs[0].metadata.create, 1);
    /* file 0: 4 us before its close (the run starts at its open); the others also 1 + 1 + 5 + 3
     * + 1 us before the open, less 0.5 us of the tracer's */
    assert_float_equal(cfg->file_configs[0].metadata.gap_seconds.create, (4e-6 + 19 * 14.5e-6) / 20, 1e-9);
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
}

/* A program writing 20 x 64 KiB to one file, gap[i] its time before write i (write 0 follows the
 * open: no gap), self the tracer's time after each call (iolens_event.self_after); returns the
 * config chunk's gap_seconds. */
static double write_gap(const double *gap, double self)
{
    struct memsrc *m = memsrc_new(1, 1, (const char *[]){"/out/w"});
    double t = 0;
    timed_call(m, IOLENS_OP_OPEN, 0, "test", 1e-6, 5e-6, &t)->self_after = self;
    for (int i = 0; i < 20; i++) {
        iolens_event *e = timed_call(m, IOLENS_OP_WRITE, 0, "write", gap[i], 5e-6, &t);
        e->size = 65536;
        e->offset = (int64_t)i * 65536;
        e->self_after = self;
    }
    timed_call(m, IOLENS_OP_CLOSE, 0, "test", 1e-6, 5e-6, &t)->self_after = self;
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = one_step(m, &src, RP_WRITE);
    assert_int_equal(cfg->file_configs[0].nchunks, 1);
    double g = cfg->file_configs[0].chunks[0].gap_seconds;
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
    return g;
}

/* the same rule between transfers: a program's own time per write above 1 ms is its pace (a
 * config without it replays a compute-bound writer at the file system's speed) */
static void test_transfer_pauses(void **state)
{
    (void)state;
    double gap[20];
    for (int i = 0; i < 20; i++)
        gap[i] = 2e-6;
    gap[10] = 0.05; /* one pause of 50 ms among 2 us gaps: left out */
    assert_float_equal(write_gap(gap, 0), 2e-6, 1e-9);
    for (int i = 0; i < 20; i++)
        gap[i] = 1.5e-3; /* 1.5 ms before every write: kept */
    assert_float_equal(write_gap(gap, 0), 1.5e-3, 1e-9);
    double want = 0;
    for (int i = 0; i < 20; i++) {
        gap[i] = i % 4 == 3 ? 1.5e-3 : 0.6e-3; /* a quarter above 1 ms: kept */
        want += i ? gap[i] : 0;
    }
    gap[15] = 0.4; /* and a pause of 0.4 s: left out */
    want -= 1.5e-3;
    assert_float_equal(write_gap(gap, 0), want / 18, 1e-9);
    for (int i = 0; i < 20; i++)
        gap[i] = 0.7; /* a write every 0.7 s: phases, not a pace (gap_seconds is at most 1 s) */
    assert_float_equal(write_gap(gap, 0), 0, 1e-9);
    /* gaps of 0.5 us in a trace of 1 us stamps are 0 or 1 us, less 0.2 us of the tracer's:
     * ten of 0.8 and nine of -0.2 make 0.326 us, where clamping each at 0 made 0.421 */
    for (int i = 0; i < 20; i++)
        gap[i] = i % 2 ? 1e-6 : 0;
    assert_float_equal(write_gap(gap, 0.2e-6), (10 * 0.8e-6 - 9 * 0.2e-6) / 19, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_global_view),
        cmocka_unit_test(test_buffer_position),
        cmocka_unit_test(test_access_order),
        cmocka_unit_test(test_exclusions),
        cmocka_unit_test(test_bad_sources),
        cmocka_unit_test(test_metadata_pauses),
        cmocka_unit_test(test_transfer_pauses),
        cmocka_unit_test(test_create_pauses),
        cmocka_unit_test(test_create_failed_stat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
