/*
 * Binary Darshan logs -> iolens_detect_input, through the streaming reader of
 * src/darshan (no text round trip): job facts, every module present in the
 * header (add_module), the number of distinct name records (set_name_count:
 * IOSage's num_files is len(report.name_records)), then every record of every
 * module with its integer counters and fcounters given by name.
 *
 * Only the records of the modules whose counters the features use (POSIX,
 * MPI-IO, STDIO: iolens_detect_input_key() knows their names) are decoded.
 * The other modules are declared (add_module) but their regions are not
 * decompressed: the input ignores their counters, and their records would
 * only count record ids for num_files, which the name-record count already
 * gives. (For a log with 9,216 H5D records this halves the time; the test
 * checks that decoding every record of every module gives the same features.)
 *
 * iolens_detect_read_log() tells a binary log (the Darshan header magic at
 * byte 8, either byte order) from darshan-parser text by content.
 */
#include "detect/detect_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iolens/darshan.h"
#include "util/buf.h"
#include "util/error.h"

#define DARSHAN_MAGIC 6567223ULL

/* id -> name (offset into an arena), first non-empty name of an id wins. */
struct names {
    iol_u64map map; /* id -> offset in arena (+1), 0 = empty name so far */
    iol_buf arena;
    uint64_t count; /* distinct ids */
    /* the console streams' ids, from the whole name table: a pass that does not hold their
     * names still knows them (the features leave them out) */
    uint64_t console_id[3];
    int console_n;
};

static const char *const console_names[3] = {"<STDIN>", "<STDOUT>", "<STDERR>"};

static void names_release(struct names *n)
{
    iol_u64map_release(&n->map);
    iol_buf_release(&n->arena);
}

/* The names of the ids of part `part` of nparts (all when nparts is 1). */
static int names_read(iolens_darshan_log *log, struct names *n, unsigned part, unsigned nparts)
{
    int rc = iolens_darshan_names_begin(log);
    if (rc < 0)
        return rc;
    uint64_t id;
    const char *name;
    while ((rc = iolens_darshan_names_next(log, &id, &name)) > 0) {
        if (nparts > 1 && iol_id_part(id, nparts) != part)
            continue;
        long s = iol_u64map_find(&n->map, id);
        if (s < 0) {
            s = iol_u64map_slot(&n->map, id, 0);
            if (s < 0)
                return iol_err(IOLENS_ENOMEM, "out of memory reading the names of '%s'", iolens_darshan_path(log));
            n->count++;
        }
        if (n->map.vals[s] == 0 && name && name[0]) {
            n->map.vals[s] = (int64_t)n->arena.len + 1;
            if (iol_buf_append(&n->arena, name, strlen(name) + 1) < 0)
                return IOLENS_ENOMEM;
        }
    }
    return rc;
}

/* Entries of the name region (an upper bound on its distinct ids), read without keeping them. */
static int names_count(iolens_darshan_log *log, uint64_t *count, struct names *n)
{
    *count = 0;
    int rc = iolens_darshan_names_begin(log);
    uint64_t id;
    const char *name;
    while (rc >= 0 && (rc = iolens_darshan_names_next(log, &id, &name)) > 0) {
        ++*count;
        for (int k = 0; k < 3 && name; k++)
            if (!strcmp(name, console_names[k]))
                n->console_id[k] = id, n->console_n |= 1 << k;
    }
    return rc;
}

static const char *names_get(const struct names *n, uint64_t id)
{
    long s = iol_u64map_find(&n->map, id);
    if (s < 0 || n->map.vals[s] <= 0) {
        for (int k = 0; k < 3; k++)
            if ((n->console_n & (1 << k)) && n->console_id[k] == id)
                return console_names[k];
        return NULL;
    }
    return n->arena.data + (n->map.vals[s] - 1);
}

static int counted_module(int m)
{
    return m == IOLENS_DARSHAN_POSIX || m == IOLENS_DARSHAN_MPIIO || m == IOLENS_DARSHAN_STDIO;
}

/* A double as darshan-parser prints it ("%f", or "%.4f" for the run time) and the
 * text reader reads it back. */
static double text_round(int run_time, double v)
{
    char buf[400];
    if (run_time)
        snprintf(buf, sizeof buf, "%.4f", v);
    else
        snprintf(buf, sizeof buf, "%f", v);
    return strtod(buf, NULL);
}

/* The records of module m (pass `part` of nparts: after pass 0, those of the part's files only). */
static int feed_module(iolens_darshan_log *log, iolens_detect_input *in, const struct names *names, int m,
                       int text_rounding, unsigned part, unsigned nparts)
{
    const char *mname = iolens_darshan_module_name(m);
    /* counter names resolved once per module (keys < 0: names the features do not use) */
    size_t nc = iolens_darshan_counter_count(m), nfc = iolens_darshan_fcounter_count(m);
    int *key = malloc((nc + nfc + 1) * sizeof *key), *fkey = key ? key + nc : NULL, used = 0;
    if (!key)
        return iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", iolens_darshan_path(log));
    for (size_t i = 0; i < nc; i++)
        used |= (key[i] = iolens_detect_input_key(in, iolens_darshan_counter_name(m, i))) >= 0;
    for (size_t i = 0; i < nfc; i++)
        used |= (fkey[i] = iolens_detect_input_key(in, iolens_darshan_fcounter_name(m, i))) >= 0;
    int rc = iolens_darshan_module_begin(log, m);
    const iolens_darshan_record *r;
    while (rc > 0 && (rc = iolens_darshan_record_next(log, &r)) > 0) {
        if (part > 0 && iol_id_part(r->id, nparts) != part)
            continue;
        rc = iolens_detect_input_record(in, mname, r->rank, r->id, names_get(names, r->id));
        if (rc < 0)
            break;
        rc = 1;
        if (!used)
            continue;
        for (size_t i = 0; i < r->ncounters && i < nc && rc >= 0; i++)
            if (key[i] >= 0)
                rc = iolens_detect_input_counter_key(in, key[i], r->counters[i]);
        for (size_t i = 0; i < r->nfcounters && i < nfc && rc >= 0; i++)
            if (fkey[i] >= 0)
                rc = iolens_detect_input_fcounter_key(
                    in, fkey[i], text_rounding ? text_round(0, r->fcounters[i]) : r->fcounters[i]);
        if (rc >= 0)
            rc = 1;
    }
    free(key);
    return rc;
}

static int feed_modules(iolens_darshan_log *log, iolens_detect_input *in, const struct names *names,
                        const iolens_darshan_header *h, const char *path, iolens_warn_fn warn, void *warn_ctx,
                        int opts, unsigned part, unsigned nparts);

int iol_detect_read_darshan_opt(iolens_detect_input **out, const char *path, iolens_warn_fn warn, void *warn_ctx,
                                int opts)
{
    return iol_detect_read_darshan_passes(out, path, warn, warn_ctx, opts, 0);
}

int iol_detect_read_darshan_passes(iolens_detect_input **out, const char *path, iolens_warn_fn warn,
                                   void *warn_ctx, int opts, size_t files_per_pass)
{
    int text_rounding = (opts & IOL_DD_TEXT_ROUNDING) != 0;
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no detect input output or path");
    *out = NULL;
    int rc;
    iolens_darshan_log *log = NULL;
    iolens_detect_input *in = NULL;
    struct names names;
    memset(&names, 0, sizeof names);

    rc = iolens_darshan_open(path, warn, warn_ctx, &log);
    if (rc < 0)
        goto out;
    rc = iolens_detect_input_new(&in);
    if (rc < 0)
        goto out;
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    const iolens_darshan_job *job = iolens_darshan_job_get(log);
    rc = iolens_detect_input_set_job(in, job->nprocs,
                                     text_rounding ? text_round(1, job->run_time) : job->run_time);
    if (rc < 0)
        goto out;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if (h->mod[m].len > 0 && (rc = iolens_detect_input_add_module(in, iolens_darshan_module_name(m))) < 0)
            goto out;
    /* Memory grows with the files of a log (their names and per-file evidence): a log of more
     * names than a pass holds is read in passes, each over the files of one part. */
    uint64_t nentries = 0;
    if ((rc = names_count(log, &nentries, &names)) < 0)
        goto out;
    size_t fpp = files_per_pass ? files_per_pass : IOL_DETECT_FILES_PER_PASS;
    unsigned nparts = nentries > fpp ? (unsigned)((nentries + fpp - 1) / fpp) : 1;
    if (nparts > 1 && (rc = iol_detect_input_begin_parts(in, nparts)) < 0)
        goto out;
    uint64_t distinct = 0;
    for (unsigned part = 0; part < nparts; part++) {
        if (part > 0) {
            struct names keep = names;
            names_release(&names);
            memset(&names, 0, sizeof names);
            memcpy(names.console_id, keep.console_id, sizeof names.console_id);
            names.console_n = keep.console_n;
            if ((rc = iol_detect_input_next_part(in)) < 0)
                goto out;
        }
        if ((rc = names_read(log, &names, part, nparts)) < 0)
            goto out;
        distinct += names.count;
        /* (set before the records, which then need not count their ids; exact after the
         * last pass) */
        if ((rc = iolens_detect_input_set_name_count(in, part + 1 < nparts ? nentries : distinct)) < 0)
            goto out;
        if ((rc = feed_modules(log, in, &names, h, path, warn, warn_ctx, opts, part, nparts)) < 0)
            goto out;
    }
    rc = 0;
    *out = in;
    in = NULL;
out:
    names_release(&names);
    iolens_detect_input_free(in);
    iolens_darshan_close(log);
    return rc;
}

static int feed_modules(iolens_darshan_log *log, iolens_detect_input *in, const struct names *names,
                        const iolens_darshan_header *h, const char *path, iolens_warn_fn warn, void *warn_ctx,
                        int opts, unsigned part, unsigned nparts)
{
    int text_rounding = (opts & IOL_DD_TEXT_ROUNDING) != 0;
    int rc = 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (h->mod[m].len == 0 || (!counted_module(m) && !(opts & IOL_DD_ALL_RECORDS)))
            continue;
        if (!iolens_darshan_version_supported(m, h->mod_ver[m])) {
            /* the reader cannot decode it; only the three counted modules matter to the features */
            if (counted_module(m) && warn && part == 0) {
                char msg[300];
                snprintf(msg, sizeof msg,
                         "'%s': %s records of version %u are not supported; their counters are missing "
                         "from the features",
                         path, iolens_darshan_module_name(m), (unsigned)h->mod_ver[m]);
                warn(warn_ctx, msg);
            }
            continue;
        }
        rc = feed_module(log, in, names, m, text_rounding, part, nparts);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int iolens_detect_read_darshan(iolens_detect_input **out, const char *path, iolens_warn_fn warn, void *warn_ctx)
{
    return iol_detect_read_darshan_opt(out, path, warn, warn_ctx, 0);
}

int iolens_detect_is_darshan(const char *path)
{
    if (!path)
        return iol_err(IOLENS_EINVAL, "no path");
    int rc = 0;
    FILE *f = iol_fopen_input(path, IOL_INPUT_NOWAIT, &rc);
    if (!f)
        return rc;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) { /* a log is seekable; a pipe is not looked into */
        fclose(f);
        return 0;
    }
    unsigned char b[16];
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    if (got < sizeof b)
        return 0;
    uint64_t le = 0, be = 0;
    for (int i = 0; i < 8; i++) {
        le |= (uint64_t)b[8 + i] << (8 * i);
        be = (be << 8) | b[8 + i];
    }
    return le == DARSHAN_MAGIC || be == DARSHAN_MAGIC;
}

int iolens_detect_read_log(iolens_detect_input **out, const char *path, iolens_warn_fn warn, void *warn_ctx)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no detect input output or path");
    *out = NULL;
    int rc = iolens_detect_is_darshan(path);
    if (rc < 0)
        return rc;
    return rc ? iolens_detect_read_darshan(out, path, warn, warn_ctx)
              : iolens_detect_read_text(out, path, warn, warn_ctx);
}
