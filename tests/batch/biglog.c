/*
 * Writes one large Darshan log for the memory bound of `iolens batch`: N files, each with a
 * POSIX record on every one of R ranks (shared files reduced to rank -1 when R is 0) and,
 * with DXT, S trace segments per record, names of ~60 bytes. The counters are plausible
 * (bytes, operation counts, times) so that every task has work to do.
 *
 *   biglog OUT.darshan NFILES [RANKS] [DXT_SEGMENTS]
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/darshan.h"
#include "iolens/iolens.h"

/* A counter's index by name, looked up once per name (the names are literals: their address
 * is the key) */
static int index_of(int m, const char *name)
{
    static struct {
        const char *name;
        int k;
    } seen[64];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (seen[i].name == name)
            return seen[i].k;
    int k = iolens_darshan_counter_index(m, name, NULL);
    if (nseen < 64)
        seen[nseen++].name = name, seen[nseen - 1].k = k;
    return k;
}

static int64_t *set_i(int m, int64_t *c, const char *name, int64_t v)
{
    int k = index_of(m, name);
    if (k >= 0)
        c[k] = v;
    return c;
}

static void set_f(int m, double *f, const char *name, double v)
{
    int k = index_of(m, name);
    if (k >= 0)
        f[k] = v;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: biglog OUT.darshan NFILES [RANKS] [DXT_SEGMENTS]\n");
        return 2;
    }
    size_t nfiles = strtoull(argv[2], NULL, 10);
    int64_t ranks = argc > 3 ? strtoll(argv[3], NULL, 10) : 1;
    int64_t nseg = argc > 4 ? strtoll(argv[4], NULL, 10) : 0;
    size_t per = ranks > 0 ? (size_t)ranks : 1;
    size_t nrec = nfiles * per;
    const int P = IOLENS_DARSHAN_POSIX, X = IOLENS_DARSHAN_DXT_POSIX;
    size_t nc = iolens_darshan_counter_count(P), nf = iolens_darshan_fcounter_count(P);
    iolens_darshan_record *rec = calloc(nrec, sizeof *rec), *dxt = nseg ? calloc(nrec, sizeof *dxt) : NULL;
    const iolens_darshan_record **rp = calloc(nrec, sizeof *rp), **dp = nseg ? calloc(nrec, sizeof *dp) : NULL;
    int64_t *ci = calloc(nrec * nc, sizeof *ci);
    double *cf = calloc(nrec * nf, sizeof *cf);
    uint64_t *ids = calloc(nfiles, sizeof *ids);
    char **names = calloc(nfiles, sizeof *names);
    iolens_darshan_dxt_seg *segs = nseg ? calloc((size_t)nseg, sizeof *segs) : NULL;
    if (!rec || !rp || !ci || !cf || !ids || !names || (nseg && (!dxt || !dp || !segs))) {
        fprintf(stderr, "biglog: out of memory\n");
        return 1;
    }
    for (int64_t s = 0; s < nseg; s++) /* one segment list shared by every record */
        segs[s] = (iolens_darshan_dxt_seg){.offset = s * 65536, .length = 65536, .start = 0.001 * (double)s,
                                           .end = 0.001 * (double)s + 0.0005};
    for (size_t i = 0; i < nfiles; i++) {
        ids[i] = 0x9E3779B97F4A7C15ull * (i + 1) | 1;
        if (asprintf(&names[i], "/lustre/scratch/project/run-%04zu/output/checkpoint.%08zu.dat", i % 1000, i) < 0)
            return 1;
        for (size_t r = 0; r < per; r++) {
            size_t k = i * per + r;
            int64_t *c = ci + k * nc;
            double *f = cf + k * nf;
            int64_t sz = 4096 << (i % 9);
            set_i(P, c, "POSIX_OPENS", 1);
            set_i(P, c, "POSIX_WRITES", 16 + (int64_t)(i % 7));
            set_i(P, c, "POSIX_READS", (int64_t)(i % 3));
            set_i(P, c, "POSIX_BYTES_WRITTEN", sz * (16 + (int64_t)(i % 7)));
            set_i(P, c, "POSIX_BYTES_READ", sz * (int64_t)(i % 3));
            set_i(P, c, "POSIX_MAX_BYTE_WRITTEN", sz * (16 + (int64_t)(i % 7)) - 1);
            set_i(P, c, "POSIX_CONSEC_WRITES", 15);
            set_i(P, c, "POSIX_SEQ_WRITES", 15);
            set_i(P, c, "POSIX_ACCESS1_ACCESS", sz);
            set_i(P, c, "POSIX_ACCESS1_COUNT", 16);
            set_i(P, c, "POSIX_MEM_ALIGNMENT", 8);
            set_i(P, c, "POSIX_FILE_ALIGNMENT", 4096);
            set_i(P, c, sz < 102400 ? "POSIX_SIZE_WRITE_10K_100K" : "POSIX_SIZE_WRITE_100K_1M", 16);
            set_f(P, f, "POSIX_F_OPEN_START_TIMESTAMP", 0.01 * (double)(i % 100));
            set_f(P, f, "POSIX_F_WRITE_START_TIMESTAMP", 0.01 * (double)(i % 100) + 0.001);
            set_f(P, f, "POSIX_F_WRITE_END_TIMESTAMP", 0.01 * (double)(i % 100) + 0.5);
            set_f(P, f, "POSIX_F_CLOSE_END_TIMESTAMP", 0.01 * (double)(i % 100) + 0.6);
            set_f(P, f, "POSIX_F_WRITE_TIME", 0.4);
            set_f(P, f, "POSIX_F_META_TIME", 0.01);
            set_f(P, f, "POSIX_F_MAX_WRITE_TIME", 0.05);
            rec[k] = (iolens_darshan_record){.module = P, .id = ids[i], .rank = ranks > 0 ? (int64_t)r : -1,
                                             .ncounters = nc, .counters = c, .nfcounters = nf, .fcounters = f};
            rp[k] = &rec[k];
            if (nseg) {
                dxt[k] = (iolens_darshan_record){.module = X, .id = ids[i], .rank = rec[k].rank};
                dxt[k].dxt.shared_record = ranks <= 0;
                snprintf(dxt[k].dxt.hostname, sizeof dxt[k].dxt.hostname, "nid%05zu", r);
                dxt[k].dxt.write_count = nseg;
                dxt[k].dxt.segs = segs;
                dp[k] = &dxt[k];
            }
        }
    }
    iolens_darshan_job job = {.uid = 1000, .start_time_sec = 1700000000, .end_time_sec = 1700000600,
                              .nprocs = ranks > 0 ? ranks : 1024, .jobid = 424242, .run_time = 601,
                              .exe = "/lustre/home/user/bin/simulation --steps 1000"};
    iolens_darshan_mount mnt[2] = {{"/lustre", "lustre"}, {"/", "ext4"}};
    iolens_darshan_image img = {.job = &job, .mounts = mnt, .nmounts = 2, .name_ids = ids,
                                .names = (const char *const *)names, .nnames = nfiles};
    img.records[P] = rp;
    img.nrecords[P] = nrec;
    if (nseg) {
        img.records[X] = dp;
        img.nrecords[X] = nrec;
    }
    int rc = iolens_darshan_write(&img, argv[1]) < 0;
    if (rc)
        fprintf(stderr, "biglog: %s\n", iolens_error_last());
    for (size_t i = 0; i < nfiles; i++)
        free(names[i]);
    free(names);
    free(ids);
    free(cf);
    free(ci);
    free(rp);
    free(dp);
    free(rec);
    free(dxt);
    free(segs);
    return rc;
}
