/* darshan-parser / darshan-dxt-parser compatible text output, written from the
 * reference outputs in ../shared/data/darshan/ (see docs/darshan.md). */
#define _DEFAULT_SOURCE

#include "darshan/totals.h"
#include "iolens/darshan.h"
#include "util/buf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "darshan/desc.inc"

static const char *desc_for(const char *module, unsigned version)
{
    const struct desc_block *best = NULL;
    for (size_t i = 0; i < sizeof desc_blocks / sizeof *desc_blocks; i++) {
        const struct desc_block *d = &desc_blocks[i];
        if (strcmp(d->module, module))
            continue;
        if (d->version == version)
            return d->text;
        if (!best || (d->version > best->version)) /* nearest known: the newest */
            best = d;
    }
    return best ? best->text : "\n";
}

static void print_time_asci(FILE *out, const char *label, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    if (localtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm))
        fprintf(out, "# %s: %s\n", label, buf);
    else
        fprintf(out, "# %s: (invalid)\n", label);
}

void iol_darshan_print_job(FILE *out, const iolens_darshan_log *log)
{
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    const iolens_darshan_job *j = iolens_darshan_job_get(log);
    static const char *const comp[] = {"ZLIB", "BZIP2", "NONE"};
    fprintf(out, "# darshan log version: %s\n", h->version);
    fprintf(out, "# compression method: %s\n", comp[h->comp]);
    fprintf(out, "# exe: %s\n", iolens_darshan_exe_terminated(log) ? j->exe : ""); /* as darshan-util reads it */
    fprintf(out, "# uid: %" PRId64 "\n", j->uid);
    fprintf(out, "# jobid: %" PRId64 "\n", j->jobid);
    fprintf(out, "# start_time: %" PRId64 "\n", j->start_time_sec);
    print_time_asci(out, "start_time_asci", j->start_time_sec);
    fprintf(out, "# end_time: %" PRId64 "\n", j->end_time_sec);
    print_time_asci(out, "end_time_asci", j->end_time_sec);
    fprintf(out, "# nprocs: %" PRId64 "\n", j->nprocs);
    fprintf(out, "# run time: %.4f\n", j->run_time);
    /* metadata: "key=value" lines printed as "key = value" */
    const char *p = j->metadata;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq)
            fprintf(out, "# metadata: %.*s = %.*s\n", (int)(eq - p), p, (int)(len - (size_t)(eq - p) - 1),
                    eq + 1);
        if (!nl)
            break;
        p = nl + 1;
    }
    fprintf(out, "\n# log file regions\n"
                 "# -------------------------------------------------------\n");
    /* the reference always reports the size of its in-memory (3.41) header */
    fprintf(out, "# header: %d bytes (uncompressed)\n", 1328);
    fprintf(out, "# job data: %" PRIu64 " bytes (compressed)\n",
            h->job.len + (h->job.off - h->header_size));
    fprintf(out, "# record table: %" PRIu64 " bytes (compressed)\n", h->name_map.len);
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
        if (h->mod[m].len || (h->partial_flag & (1ull << m)))
            fprintf(out, "# %s module: %" PRIu64 " bytes (compressed), ver=%u\n",
                    iolens_darshan_module_name(m), h->mod[m].len, h->mod_ver[m]);
    fprintf(out, "\n# mounted file systems (mount point and fs type)\n"
                 "# -------------------------------------------------------\n");
    for (size_t i = 0; i < iolens_darshan_mount_count(log); i++) {
        const iolens_darshan_mount *mt = iolens_darshan_mount_at(log, i);
        fprintf(out, "# mount entry:\t%s\t%s\n", mt->path, mt->fs_type);
    }
}

void iol_darshan_mount_of(const iolens_darshan_log *log, const char *name, const char **mnt,
                          const char **fs)
{
    const iolens_darshan_mount *m = iolens_darshan_mount_find(log, name);
    *mnt = m ? m->path : "UNKNOWN";
    *fs = m ? m->fs_type : "UNKNOWN";
}

static void uuid_str(const unsigned char *u, char *s)
{
    static const int dash[16] = {0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 16; i++) {
        s += sprintf(s, "%02x", u[i]);
        if (dash[i])
            *s++ = '-';
    }
    *s = '\0';
}

static void lustre_pattern(int64_t v, char *buf, size_t n)
{
    /* values of llapi_layout_pattern_get() */
    if (v < 0)
        snprintf(buf, n, "N/A");
    else if (v == 0)
        snprintf(buf, n, "raid0");
    else if (v == 2)
        snprintf(buf, n, "mdt");
    else if (v == 4)
        snprintf(buf, n, "overstriped");
    else
        snprintf(buf, n, "%" PRId64, v);
}

static void lustre_flags(int64_t v, char *buf, size_t n)
{
    if (v < 0) {
        snprintf(buf, n, "N/A");
        return;
    }
    if (v == 0) {
        snprintf(buf, n, "0");
        return;
    }
    static const char *const names[] = {"stale",     "prefrd", "prefwr", "offline",
                                        "init",      "nosync", "extension", "parity",
                                        "compress",  "partial", "nocompr"};
    size_t used = 0;
    int64_t rest = v;
    buf[0] = '\0';
    for (int b = 0; b < (int)(sizeof names / sizeof *names); b++)
        if (v & ((int64_t)1 << b)) {
            used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? "," : "",
                                     names[b]);
            rest &= ~((int64_t)1 << b);
        }
    if (rest)
        snprintf(buf + used, used < n ? n - used : 0, "%s0x%" PRIx64, used ? "," : "", (uint64_t)rest);
}

struct line_ctx {
    FILE *out;
    const char *pre;
    size_t pl;
    const char *suf;
    size_t sl;
};

static void line_s(const struct line_ctx *c, const char *cname, const char *val)
{
    /* one write per line: the line assembled here when it fits (every line but a long name's) */
    char line[1024];
    size_t cl = strlen(cname), vl = strlen(val);
    if (c->pl + cl + vl + c->sl + 1 <= sizeof line) {
        char *p = line;
        memcpy(p, c->pre, c->pl);
        p += c->pl;
        memcpy(p, cname, cl);
        p += cl;
        *p++ = '\t';
        memcpy(p, val, vl);
        p += vl;
        memcpy(p, c->suf, c->sl);
        p += c->sl;
        fwrite(line, 1, (size_t)(p - line), c->out);
        return;
    }
    fwrite(c->pre, 1, c->pl, c->out);
    fwrite(cname, 1, cl, c->out);
    putc('\t', c->out);
    fwrite(val, 1, vl, c->out);
    fwrite(c->suf, 1, c->sl, c->out);
}

static void line_i(const struct line_ctx *c, const char *cname, int64_t v)
{
    char buf[IOL_FMT_INT_MAX];
    iol_fmt_i64(buf, v);
    line_s(c, cname, buf);
}

static void line_f(const struct line_ctx *c, const char *cname, double v)
{
    char buf[400];
    iol_fmt_f6(buf, sizeof buf, v);
    line_s(c, cname, buf);
}

static void print_record(FILE *out, const iolens_darshan_log *log, const iolens_darshan_data *d,
                         const iolens_darshan_record *r)
{
    int m = r->module;
    int big_endian = iolens_darshan_header_get(log)->big_endian;
    const char *mname = iolens_darshan_module_name(m);
    const char *name = iolens_darshan_data_name(d, r->id);
    const char *mnt, *fs;
    char namebuf[64], mntbuf[80];
    if (!name)
        name = "";
    if (m == IOLENS_DARSHAN_DFS || m == IOLENS_DARSHAN_DAOS) {
        char a[40], b[40];
        uuid_str(r->pool_uuid, a);
        uuid_str(r->cont_uuid, b);
        snprintf(mntbuf, sizeof mntbuf, "%s:%s", a, b);
        mnt = mntbuf;
        fs = "N/A";
        if (m == IOLENS_DARSHAN_DAOS) {
            snprintf(namebuf, sizeof namebuf, "%" PRIu64 ".%" PRIu64, r->oid_hi, r->oid_lo);
            name = namebuf;
        }
    } else {
        if (m == IOLENS_DARSHAN_BGQ)
            name = "darshan-bgq-record"; /* the reference names the job-level BG/Q record so */
        iol_darshan_mount_of(log, name, &mnt, &fs);
    }
    /* each line is "<module>\t<rank>\t<id>\t<counter>\t<value>\t<name>\t<mount>\t<fs>":
     * the parts common to a record are formatted once */
    char pre[128];
    size_t pl = (size_t)snprintf(pre, sizeof pre, "%s\t%" PRId64 "\t%" PRIu64 "\t", mname, r->rank,
                                 r->id);
    size_t nl = strlen(name), ml = strlen(mnt), fl = strlen(fs);
    size_t sl = nl + ml + fl + 4;
    char *suf = malloc(sl + 1);
    if (!suf)
        return;
    snprintf(suf, sl + 1, "\t%s\t%s\t%s\n", name, mnt, fs);
    struct line_ctx lc = {out, pre, pl, suf, sl};
#define LINE_I(cname, val) line_i(&lc, cname, (int64_t)(val))
#define LINE_F(cname, val) line_f(&lc, cname, (double)(val))
#define LINE_S(cname, val) line_s(&lc, cname, val)
    if (m == IOLENS_DARSHAN_LUSTRE) {
        char cn[96], sv[128];
        LINE_I("LUSTRE_NUM_COMPONENTS", r->lustre.num_comps);
        LINE_I("LUSTRE_NUM_STRIPES", r->lustre.num_stripes);
        int64_t ost = 0;
        for (int64_t c = 0; c < r->lustre.num_comps; c++) {
            const iolens_darshan_lustre_comp *k = &r->lustre.comps[c];
            long long ci = (long long)c + 1;
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_STRIPE_SIZE", ci);
            LINE_I(cn, k->stripe_size);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_STRIPE_COUNT", ci);
            LINE_I(cn, k->stripe_count);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_STRIPE_PATTERN", ci);
            lustre_pattern(k->stripe_pattern, sv, sizeof sv);
            LINE_S(cn, sv);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_FLAGS", ci);
            lustre_flags(k->flags, sv, sizeof sv);
            LINE_S(cn, sv);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_EXT_START", ci);
            LINE_I(cn, k->ext_start);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_EXT_END", ci);
            LINE_I(cn, k->ext_end);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_MIRROR_ID", ci);
            LINE_I(cn, k->mirror_id);
            snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_POOL_NAME", ci);
            LINE_S(cn, k->pool_name[0] ? k->pool_name : "N/A");
            for (int64_t s = 0; s < k->stripe_count && ost < r->lustre.num_stripes; s++, ost++) {
                snprintf(cn, sizeof cn, "LUSTRE_COMP%lld_OST_ID_%lld", ci, (long long)s);
                LINE_I(cn, r->lustre.osts[ost]);
            }
        }
        free(suf);
        return;
    }
    if (m == IOLENS_DARSHAN_HEATMAP) {
        char cn[64];
        LINE_F("HEATMAP_F_BIN_WIDTH_SECONDS", r->heatmap.bin_width);
        for (int64_t b = 0; b < r->heatmap.nbins; b++) {
            snprintf(cn, sizeof cn, "HEATMAP_READ_BIN_%lld", (long long)b);
            LINE_I(cn, r->heatmap.read_bins[b]);
        }
        for (int64_t b = 0; b < r->heatmap.nbins; b++) {
            snprintf(cn, sizeof cn, "HEATMAP_WRITE_BIN_%lld", (long long)b);
            LINE_I(cn, r->heatmap.write_bins[b]);
        }
        free(suf);
        return;
    }
    for (size_t i = 0; i < r->ncounters; i++) {
        const char *cname = iolens_darshan_counter_name(m, i);
        if (m == IOLENS_DARSHAN_POSIX && cname && !strcmp(cname, "POSIX_RENAMED_FROM")) {
            /* a record id: darshan-util prints it unsigned (its posix logutils' U counter print) */
            char v[32];
            snprintf(v, sizeof v, "%" PRIu64, (uint64_t)r->counters[i]);
            LINE_S(cname, v);
        } else {
            LINE_I(cname, r->counters[i]);
        }
    }
    for (size_t i = 0; i < r->nfcounters; i++) {
        double v = r->fcounters[i];
        if (m == IOLENS_DARSHAN_POSIX && (r->version == 2 || r->version == 3) && i >= 15)
            v = 0; /* reference quirk: zeroes F_VARIANCE_RANK_* when converting POSIX v2/v3 */
        if (m == IOLENS_DARSHAN_POSIX && r->version <= 3 && big_endian && i >= 10 && i <= 12) {
            /* reference quirk: leaves META_TIME, MAX_READ_TIME, MAX_WRITE_TIME of big-endian
             * POSIX v1 records unswapped; reproduce the value it prints */
            v = iol_darshan_unswapped(v);
        }
        LINE_F(iolens_darshan_fcounter_name(m, i), v);
    }
    if (m == IOLENS_DARSHAN_H5D || m == IOLENS_DARSHAN_PNETCDF_VAR) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu64, r->file_rec_id);
        LINE_S(m == IOLENS_DARSHAN_H5D ? "H5D_FILE_REC_ID" : "PNETCDF_VAR_FILE_REC_ID", v);
    }
    free(suf);
#undef LINE_I
#undef LINE_F
#undef LINE_S
}

/* The incomplete-data warning: darshan-dxt-parser spells "unecessary", darshan-parser (of the
 * same release, the one whose NAME_EXCLUDE wording the reference outputs carry) "unnecessary". */
#define INCOMPLETE_TEXT(word)                                                                          \
    " module contains incomplete data!\n"                                                              \
    "#            This happens when a module runs out of\n"                                            \
    "#            memory to store new record data.\n"                                                  \
    "\n# To avoid this error, consult the darshan-runtime\n"                                           \
    "# documentation and consider setting the NAME_EXCLUDE\n"                                          \
    "# variable in a run-time configuration file to prevent\n"                                         \
    "# Darshan from instrumenting " word " files.\n"
static const char incomplete_text[] = INCOMPLETE_TEXT("unnecessary");
static const char incomplete_text_dxt[] = INCOMPLETE_TEXT("unecessary");

static int check_incomplete(const iolens_darshan_header *h, int m, unsigned mask, FILE *out, FILE *err)
{
    if (!(h->partial_flag & (1ull << m)))
        return 0;
    const char *mn = iolens_darshan_module_name(m);
    if (mask & IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE) {
        fprintf(out, "\n# *WARNING*: The %s%s", mn, incomplete_text);
        return 0;
    }
    fflush(out);
    fprintf(err,
            "\n# *ERROR*: The %s%s"
            "\n# You can display the (incomplete) data that is\n"
            "# present in this log using the --show-incomplete\n"
            "# option to iolens darshan.\n",
            mn, incomplete_text);
    return IOLENS_DARSHAN_TEXT_INCOMPLETE;
}

static void quiet_warn(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg; /* unknown modules are reported where the reference reports them */
}

/* Both darshan-parser and darshan-dxt-parser warn about logs of runtime 3.2.0 (format 3.20). */
static void print_320_warning(FILE *out, const iolens_darshan_header *h)
{
    if (h->major == 3 && h->minor == 20)
        fprintf(out, "# WARNING: Darshan logs generated by runtime version 3.2.0 likely exhibit some "
                     "corruption in counter values.\n"
                     "#          This bug clearly results in bogus values for some COMMON_ACCESS "
                     "counters (POSIX, MPIIO, H5 modules),\n"
                     "#          but preceding data may also be corrupted.\n");
}

int iolens_darshan_write_text(FILE *out, FILE *err, const char *path, unsigned mask)
{
    iolens_darshan_data *d = NULL;
    int rc = iolens_darshan_load(path, 1, quiet_warn, NULL, &d);
    if (rc < 0)
        return rc;
    const iolens_darshan_log *log = iolens_darshan_data_log(d);
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    const iolens_darshan_job *job = iolens_darshan_job_get(log);
    print_320_warning(out, h);
    iol_darshan_print_job(out, log);
    if (mask & IOLENS_DARSHAN_TEXT_BASE)
        fprintf(out, "\n# description of columns:\n"
                     "#   <module>: module responsible for this I/O record.\n"
                     "#   <rank>: MPI rank.  -1 indicates that the file is shared\n"
                     "#      across all processes and statistics are aggregated.\n"
                     "#   <record id>: hash of the record's file path\n"
                     "#   <counter name> and <counter value>: statistical counters.\n"
                     "#      A value of -1 indicates that Darshan could not monitor\n"
                     "#      that counter, and its value should be ignored.\n"
                     "#   <file name>: full file path for the record.\n"
                     "#   <mount pt>: mount point that the file resides on.\n"
                     "#   <fs type>: type of file system that the file resides on.\n");
    int any = h->n_unknown_slots > 0;
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        if (!h->mod[m].len) {
            /* darshan-parser: a module without data but marked incomplete gets its banner and
             * the incomplete-data warning (or error), whatever the module and the mode */
            if (!(h->partial_flag & (1ull << m)))
                continue;
            fprintf(out, "\n# *******************************************************\n"
                         "# %s module data\n"
                         "# *******************************************************\n",
                    iolens_darshan_module_name(m));
            if ((rc = check_incomplete(h, m, mask, out, err)) != 0)
                goto out;
            continue;
        }
        any = 1;
        if (m == IOLENS_DARSHAN_DXT_POSIX || m == IOLENS_DARSHAN_DXT_MPIIO)
            continue;
        const char *mn = iolens_darshan_module_name(m);
        if (!iolens_darshan_version_supported(m, h->mod_ver[m])) {
            fflush(out);
            fprintf(err, "# Warning: no log utility handlers defined for module %s, SKIPPING.\n",
                    mn);
            continue;
        }
        /* darshan-parser prints the banner for every module with --base/--all, and with
         * --total/--perf/--file for the modules it derives them for (POSIX, MPI-IO, STDIO) */
        if ((mask & IOLENS_DARSHAN_TEXT_BASE) || m == IOLENS_DARSHAN_POSIX || m == IOLENS_DARSHAN_MPIIO ||
            m == IOLENS_DARSHAN_STDIO || m == IOLENS_DARSHAN_DFS || m == IOLENS_DARSHAN_DAOS)
            fprintf(out, "\n# *******************************************************\n"
                         "# %s module data\n"
                         "# *******************************************************\n",
                    mn);
        if ((rc = check_incomplete(h, m, mask, out, err)) != 0)
            goto out;
        if (mask & IOLENS_DARSHAN_TEXT_BASE) {
            fputs(desc_for(mn, h->mod_ver[m]), out);
            fprintf(out, "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount "
                         "pt>\t<fs type>\n");
            for (size_t i = 0; i < iolens_darshan_data_count(d, m); i++)
                print_record(out, log, d, iolens_darshan_data_record(d, m, i));
        }
        if (mask & (IOLENS_DARSHAN_TEXT_TOTAL | IOLENS_DARSHAN_TEXT_FILE | IOLENS_DARSHAN_TEXT_PERF))
            iol_darshan_print_derived(out, d, m, mask, desc_for(mn, h->mod_ver[m]), job, h->big_endian);
    }
    if (!any)
        fprintf(out, "\n# no module data available.\n"); /* as darshan-parser ends a log without any */
    rc = 0;
out:
    iolens_darshan_data_free(d);
    return rc;
}

/* ---- DXT ---------------------------------------------------------------- */

/* The OSTs a DXT segment touches, as darshan-dxt-parser lists them: for each Lustre component
 * holding the segment's current offset, the OST of each stripe from there to the segment's end
 * or the component's, at most as many as the component has stripes (counted over the whole
 * segment); then two spaces if the file has components. Components with no stripes are skipped;
 * so are those with no stripe size (the reference divides by it). */
static void print_dxt_osts(FILE *out, const iolens_darshan_record *lr, int64_t offset, int64_t length)
{
    int64_t cur = offset, end = offset + length, base = 0, printed = 0;
    for (int64_t j = 0; j < lr->lustre.num_comps; j++) {
        const iolens_darshan_lustre_comp *c = &lr->lustre.comps[j];
        int64_t ss = c->stripe_size, sc = c->stripe_count;
        if (sc <= 0)
            continue;
        if (ss > 0 && cur >= c->ext_start && (cur < c->ext_end || c->ext_end == -1)) {
            int64_t coff = cur - c->ext_start, k = (coff / ss) % sc;
            while (cur < end && (cur < c->ext_end || c->ext_end == -1)) {
                int64_t at = base + k;
                fprintf(out, " [%" PRId64 "]", at >= 0 && at < lr->lustre.num_stripes ? lr->lustre.osts[at] : -1);
                k = k == sc - 1 ? 0 : k + 1;
                coff = (coff / ss + 1) * ss;
                cur = c->ext_start + coff;
                if (++printed >= sc) {
                    cur = c->ext_end == -1 ? end : c->ext_end;
                    break;
                }
            }
        }
        base += sc;
    }
    if (lr->lustre.num_comps)
        fputs("  ", out);
}

int iolens_darshan_write_dxt_text(FILE *out, FILE *err, const char *path, unsigned mask)
{
    iolens_darshan_data *d = NULL;
    iolens_darshan_log *log = NULL;
    int rc = iolens_darshan_load(path, 1, quiet_warn, NULL, &d);
    if (rc < 0)
        return rc;
    rc = iolens_darshan_open(path, NULL, NULL, &log);
    if (rc < 0)
        goto out;
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    print_320_warning(out, h);
    iol_darshan_print_job(out, log);
    if (!h->mod[IOLENS_DARSHAN_DXT_POSIX].len && !h->mod[IOLENS_DARSHAN_DXT_MPIIO].len)
        fprintf(out, "\n# no DXT module data available for this Darshan log.\n"); /* as darshan-dxt-parser says */
    for (int m = IOLENS_DARSHAN_DXT_POSIX; m <= IOLENS_DARSHAN_DXT_MPIIO; m++) {
        if (!h->mod[m].len)
            continue;
        int posix = m == IOLENS_DARSHAN_DXT_POSIX;
        fprintf(out, "\n# ***************************************************\n"
                     "# %s module data\n"
                     "# ***************************************************\n",
                iolens_darshan_module_name(m));
        if (h->partial_flag & (1ull << m)) {
            if (!(mask & IOLENS_DARSHAN_TEXT_SHOW_INCOMPLETE)) { /* darshan-dxt-parser stops there, with an error */
                fflush(out);
                fprintf(err, "# *ERROR*: The %s module contains incomplete data!\n", iolens_darshan_module_name(m));
                rc = IOLENS_DARSHAN_TEXT_INCOMPLETE;
                goto out;
            }
            fprintf(out, "\n# *WARNING*: The %s%s", iolens_darshan_module_name(m), incomplete_text_dxt);
        }
        rc = iolens_darshan_module_begin(log, m);
        if (rc < 0)
            goto out;
        if (rc == 0)
            continue;
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
            const char *name = iolens_darshan_data_name(d, r->id);
            const char *mnt, *fs;
            if (!name)
                name = "";
            iol_darshan_mount_of(log, name, &mnt, &fs);
            /* Lustre layout of the file, if recorded (for the OST column) */
            const iolens_darshan_record *lr = NULL;
            if (posix)
                for (size_t i = 0; i < iolens_darshan_data_count(d, IOLENS_DARSHAN_LUSTRE); i++) {
                    const iolens_darshan_record *x =
                        iolens_darshan_data_record(d, IOLENS_DARSHAN_LUSTRE, i);
                    if (x->id == r->id) {
                        lr = x;
                        break;
                    }
                }
            size_t n = (size_t)(r->dxt.write_count + r->dxt.read_count);
            size_t nthreads = n ? 1 : 0;
            for (size_t i = 1; i < n; i++) {
                size_t k = 0;
                while (k < i && r->dxt.segs[k].pthread_id != r->dxt.segs[i].pthread_id)
                    k++;
                if (k == i)
                    nthreads++;
                if (nthreads > 1 && !r->dxt.has_pthread_id)
                    break;
            }
            if (nthreads == 0)
                nthreads = 1;
            fprintf(out, "\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", r->id, name);
            fprintf(out, "# DXT, rank: %" PRId64 ", hostname: %s\n", r->rank, r->dxt.hostname);
            fprintf(out, "# DXT, number of threads: %zu\n", nthreads);
            fprintf(out, "# DXT, write_count: %" PRId64 ", read_count: %" PRId64 "\n",
                    r->dxt.write_count, r->dxt.read_count);
            fprintf(out, "# DXT, mnt_pt: %s, fs_type: %s\n", mnt, fs);
            if (lr) {
                fprintf(out, "# DXT, Lustre stripe components:\n");
                int64_t o = 0;
                for (int64_t c = 0; c < lr->lustre.num_comps; c++) {
                    const iolens_darshan_lustre_comp *k = &lr->lustre.comps[c];
                    fprintf(out, "#\t[Component %lld] stripe_ext: %" PRId64 " - ", (long long)c + 1,
                            k->ext_start);
                    if (k->ext_end == -1)
                        fprintf(out, "EOF");
                    else
                        fprintf(out, "%" PRId64, k->ext_end);
                    fprintf(out, ", stripe_size: %" PRId64 ", stripe_count: %" PRId64 ", OSTs:",
                            k->stripe_size, k->stripe_count);
                    for (int64_t s = 0; s < k->stripe_count && o < lr->lustre.num_stripes; s++, o++)
                        fprintf(out, " %" PRId64, lr->lustre.osts[o]);
                    fprintf(out, "\n");
                }
                fprintf(out, "# Module    Rank  Wt/Rd  Segment          Offset          Length    "
                             "Start(s)      End(s)   [OST]   Pthread-ID\n");
            } else {
                fprintf(out, "# Module    Rank  Wt/Rd  Segment          Offset          Length    "
                             "Start(s)      End(s)   Pthread-ID\n");
            }
            for (size_t i = 0; i < n; i++) {
                const iolens_darshan_dxt_seg *s = &r->dxt.segs[i];
                int wr = i < (size_t)r->dxt.write_count;
                size_t idx = wr ? i : i - (size_t)r->dxt.write_count;
                fprintf(out, "%8s%8" PRId64 "%7s%9zu%16" PRId64 "%16" PRId64 "%12.4f%12.4f  ",
                        posix ? "X_POSIX" : "X_MPIIO", r->rank, wr ? "write" : "read", idx,
                        s->offset, s->length, s->start, s->end);
                if (lr)
                    print_dxt_osts(out, lr, s->offset, s->length);
                if (r->dxt.has_pthread_id)
                    fprintf(out, " %4" PRIu64 "\n", s->pthread_id);
                else
                    fputs(" N/A\n", out);
            }
        }
        if (rc < 0)
            goto out;
    }
    rc = 0;
out:
    iolens_darshan_close(log);
    iolens_darshan_data_free(d);
    return rc;
}
