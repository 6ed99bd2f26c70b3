/*
 * darshan-parser text (what IOSage consumed): the job header
 * ("# nprocs: 8", "# run time: 42.7336"), the module list of the log-region
 * block ("# MPI-IO module: 10143 bytes ..."), and record lines
 *   <module>\t<rank>\t<record id>\t<counter>\t<value>\t<file>\t<mount>\t<fs>
 * Real dumps often have darshan-parser's stderr warning ("# Warning: no log
 * utility handlers defined for module APMPI, SKIPPING.") interleaved in the
 * middle of a line; it is spliced out before parsing. Other lines with tabs
 * that are not valid records are skipped and counted.
 */
#include "detect/detect_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/buf.h"
#include "util/error.h"

#define MAX_TEXT_BYTES ((size_t)1 << 30)

static const char warn_prefix[] = "# Warning: no log utility handlers defined for module ";

#define MAX_LINE ((size_t)1 << 20)

/*
 * Next logical line of text[*pos..len) into line (NUL-terminated): an
 * interleaved warning (prefix .. its newline) is cut out and the text that
 * follows it continues the same line. NUL bytes become spaces. Returns 0 at
 * the end, 1 for a line, 2 for a line longer than MAX_LINE (skipped), or
 * IOLENS_ENOMEM.
 */
static int next_line(const char *text, size_t len, size_t *pos, iol_buf *line)
{
    const size_t plen = sizeof warn_prefix - 1;
    size_t i = *pos;
    int too_long = 0;
    if (i >= len)
        return 0;
    iol_buf_reset(line);
    for (;;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        /* a warning inside this piece? ('#' is rare in record lines) */
        size_t cut = end;
        for (const char *h = memchr(text + i, '#', end - i); h; h = memchr(h + 1, '#', (size_t)(text + end - h - 1))) {
            if ((size_t)(text + len - h) >= plen && !memcmp(h, warn_prefix, plen)) {
                cut = (size_t)(h - text);
                break;
            }
            if (h + 1 >= text + end)
                break;
        }
        if (!too_long && line->len + (cut - i) > MAX_LINE)
            too_long = 1;
        if (!too_long && iol_buf_append(line, text + i, cut - i) < 0)
            return IOLENS_ENOMEM;
        i = nl ? end + 1 : len;
        if (cut == end || i >= len)
            break; /* no warning: the line ends here; a warning continues the line */
    }
    *pos = i;
    if (too_long)
        return 2;
    if (!line->data && iol_buf_append(line, "", 0) < 0)
        return IOLENS_ENOMEM;
    for (size_t k = 0; k < line->len; k++)
        if (!line->data[k])
            line->data[k] = ' ';
    return 1;
}

static int is_token(const char *s, int allow_lower)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '/' ||
              (allow_lower && c >= 'a' && c <= 'z')))
            return 0;
    }
    return 1;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

static int parse_f64(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        return -1;
    *out = v;
    return 0;
}

/* Header comment lines. */
static int header_line(iolens_detect_input *in, char *line, int64_t *nprocs, double *run_time, int *seen)
{
    if (!strncmp(line, "# darshan log version:", 22)) {
        *seen = 1;
        return 0;
    }
    if (!strncmp(line, "# nprocs: ", 10)) {
        int64_t v;
        if (parse_i64(line + 10, &v) == 0)
            *nprocs = v;
        return 0;
    }
    if (!strncmp(line, "# run time: ", 12)) {
        double v;
        if (parse_f64(line + 12, &v) == 0)
            *run_time = v;
        return 0;
    }
    /* "# POSIX module: 614 bytes (compressed), ver=4" */
    char *sp = strstr(line, " module: ");
    if (sp && line[0] == '#' && line[1] == ' ' && strstr(sp, " bytes")) {
        *sp = '\0';
        if (is_token(line + 2, 0))
            return iolens_detect_input_add_module(in, line + 2);
    }
    return 0;
}

int iolens_detect_parse_text(iolens_detect_input **out, const char *text, size_t len, const char *name,
                             iolens_warn_fn warn, void *warn_ctx)
{
    if (!out || (!text && len))
        return iol_err(IOLENS_EINVAL, "no detect input output or text");
    *out = NULL;
    if (!name)
        name = "<text>";
    int rc = 0;
    iolens_detect_input *in = NULL;
    iol_buf lb = IOL_BUF_INIT;
    size_t pos = 0;
    if (!text)
        text = "";
    rc = iolens_detect_input_new(&in);
    if (rc < 0)
        goto out;

    int64_t nprocs = 1;
    double run_time = 0.0;
    int seen_header = 0;
    size_t records = 0, malformed = 0, first_bad = 0, lineno = 0;
    char cur_mod[64] = "";
    int64_t cur_rank = 0;
    uint64_t cur_id = 0;
    int have_cur = 0, cur_counted = 0;

    for (;;) {
        int lr = next_line(text, len, &pos, &lb);
        if (lr == 0)
            break;
        if (lr < 0) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory reading '%s'", name);
            goto out;
        }
        lineno++;
        if (lr == 2) {
            if (!malformed++)
                first_bad = lineno;
            continue;
        }
        char *line = lb.data;
        size_t ll = strlen(line);
        if (ll && line[ll - 1] == '\r')
            line[--ll] = '\0';
        if (line[0] == '#') {
            rc = header_line(in, line, &nprocs, &run_time, &seen_header);
            if (rc < 0)
                goto out;
            continue;
        }
        if (!strchr(line, '\t'))
            continue; /* blank lines, "total_X: v", perf summaries */
        char *field[8] = {0};
        int nf = 0;
        char *s = line;
        while (nf < 8) {
            field[nf++] = s;
            char *tab = strchr(s, '\t');
            if (!tab)
                break;
            *tab = '\0';
            s = tab + 1;
        }
        int64_t rank;
        uint64_t id;
        double fv = 0.0;
        int64_t iv = 0;
        int is_int = 0;
        int counted = !strcmp(field[0], "POSIX") || !strcmp(field[0], "MPI-IO") || !strcmp(field[0], "STDIO");
        /* values of other modules may be text (LUSTRE_COMP1_STRIPE_PATTERN raid0, N/A) */
        if (nf < 5 || strlen(field[0]) >= sizeof cur_mod || !is_token(field[0], 0) || parse_i64(field[1], &rank) < 0 ||
            parse_u64(field[2], &id) < 0 || !is_token(field[3], 0) ||
            (counted && !(is_int = parse_i64(field[4], &iv) == 0) && parse_f64(field[4], &fv) < 0)) {
            if (!malformed++)
                first_bad = lineno;
            continue;
        }
        if (!have_cur || strcmp(cur_mod, field[0]) || rank != cur_rank || id != cur_id) {
            rc = iolens_detect_input_record(in, field[0], rank, id, nf >= 6 ? field[5] : NULL);
            if (rc < 0)
                goto out;
            rc = iolens_detect_input_add_module(in, field[0]);
            if (rc < 0)
                goto out;
            snprintf(cur_mod, sizeof cur_mod, "%s", field[0]);
            cur_rank = rank;
            cur_id = id;
            have_cur = 1;
            cur_counted = counted;
            records++;
        }
        if (!cur_counted)
            continue; /* HEATMAP, LUSTRE, ...: only their record ids count (num_files) */
        if (strstr(field[3], "_F_") || !is_int)
            rc = iolens_detect_input_fcounter(in, field[3], is_int ? (double)iv : fv);
        else
            rc = iolens_detect_input_counter(in, field[3], iv);
        if (rc < 0)
            goto out;
    }
    if (!seen_header && records == 0) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': not darshan-parser output (no '# darshan log version' line "
                                     "and no record lines)", name);
        goto out;
    }
    rc = iolens_detect_input_set_job(in, nprocs, run_time);
    if (rc < 0)
        goto out;
    if (malformed && warn) {
        char msg[256];
        snprintf(msg, sizeof msg, "'%s': skipped %zu malformed record line%s (first at line %zu)", name, malformed,
                 malformed == 1 ? "" : "s", first_bad);
        warn(warn_ctx, msg);
    }
    *out = in;
    in = NULL;
out:
    iolens_detect_input_free(in);
    iol_buf_release(&lb);
    return rc;
}

/* Reads a file whole; gzip-compressed files (magic 1f 8b) are inflated, at most MAX_TEXT_BYTES.
 * The input is read once (a pipe cannot be read twice); text must hold no NUL byte. */
static int read_maybe_gzip(const char *path, iol_buf *b)
{
    iol_buf raw = IOL_BUF_INIT;
    int rc = iol_read_input(path, MAX_TEXT_BYTES, NULL, 0, 2, &raw);
    const unsigned char *d = (const unsigned char *)raw.data;
    if (rc < 0 || raw.len < 2 || d[0] != 0x1f || d[1] != 0x8b) {
        if (rc == 0) {
            const char *z = raw.len ? memchr(raw.data, 0, raw.len) : NULL;
            if (z)
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': binary data (a NUL byte) at byte %zu: not a Darshan "
                             "log, a darshan-parser text dump or a trace", path, (size_t)(z - raw.data));
        }
        if (rc == 0) {
            *b = raw;
            return 0;
        }
        iol_buf_release(&raw);
        return rc;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        iol_buf_release(&raw);
        return iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", path);
    }
    zs.next_in = (Bytef *)raw.data;
    zs.avail_in = (uInt)raw.len;
    char chunk[65536];
    for (;;) {
        zs.next_out = (Bytef *)chunk;
        zs.avail_out = sizeof chunk;
        int z = inflate(&zs, Z_NO_FLUSH);
        size_t n = sizeof chunk - zs.avail_out;
        if (b->len + n > MAX_TEXT_BYTES) {
            rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': inflates beyond %zu bytes", path, MAX_TEXT_BYTES);
            break;
        }
        if (n && (rc = iol_buf_append(b, chunk, n)) < 0)
            break;
        if (z == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            inflateReset(&zs); /* concatenated gzip members */
            continue;
        }
        if (z != Z_OK && !(z == Z_BUF_ERROR && n)) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': corrupt gzip data at byte %lu after %zu inflated bytes (%s)",
                         path, (unsigned long)zs.total_in, b->len, zs.msg ? zs.msg : "truncated");
            break;
        }
    }
    inflateEnd(&zs);
    iol_buf_release(&raw);
    if (rc == 0 && b->len && memchr(b->data, 0, b->len))
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': binary data (a NUL byte) after inflating", path);
    return rc;
}

int iolens_detect_read_text(iolens_detect_input **out, const char *path, iolens_warn_fn warn, void *warn_ctx)
{
    if (!out || !path)
        return iol_err(IOLENS_EINVAL, "no detect input output or path");
    *out = NULL;
    iol_buf b = IOL_BUF_INIT;
    int rc = read_maybe_gzip(path, &b);
    if (rc < 0)
        return rc;
    if (rc == 0)
        rc = iolens_detect_parse_text(out, b.data ? b.data : "", b.len, path, warn, warn_ctx);
    iol_buf_release(&b);
    return rc;
}
