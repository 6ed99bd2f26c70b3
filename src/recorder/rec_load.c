/* Reading a Recorder trace's metadata, signature tables and grammars, and
 * validating every size against the file it came from. */
#include "recorder/rec_internal.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 4200

static void mklabel(char *out, const rec_provider *p, const rec_file *f)
{
    snprintf(out, LABEL_MAX, "%s/%s", p->label, f->name);
}

static double rd_f64(const uint8_t *b)
{
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | b[i];
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static int32_t rd_i32(const uint8_t *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}

/* VERSION: "M.m.p" (no newline in 2.5; tolerate one). */
static int read_version_file(iolens_recorder *rec)
{
    rec_file f;
    int rc = rec_load(&rec->prov, "VERSION", &f);
    if (rc < 0)
        return rc;
    char text[32] = {0};
    size_t n = f.size < sizeof text - 1 ? f.size : sizeof text - 1;
    memcpy(text, f.data, n);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = '\0';
    int used = 0;
    if (f.size > 31 || memchr(text, '\0', n) ||
        sscanf(text, "%d.%d.%d%n", &rec->major, &rec->minor, &rec->patch, &used) != 3 || (size_t)used != n) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s/VERSION': not a version 'MAJOR.MINOR.PATCH' at byte 0",
                     rec->prov.label);
        goto done;
    }
    snprintf(rec->version, sizeof rec->version, "%s", text);
done:
    rec_file_release(&f);
    return rc;
}

static int check_resolution(iolens_recorder *rec, const char *label, size_t at)
{
    if (!(rec->res >= 1e-15 && rec->res <= 1.0) || !isfinite(rec->start_ts))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': invalid time resolution %g at byte %zu", label, rec->res,
                       at);
    if (rec->nranks <= 0 || rec->nranks > (1 << 24))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': invalid rank count %d at byte 0", label, rec->nranks);
    /* recorder2text: decimal = log10(1 / resolution) */
    int d = (int)log10(1 / rec->res);
    rec->decimals = d < 0 ? 0 : d > 17 ? 17 : d;
    return 0;
}

/* Function names: '\n'-terminated (2.x, legacy 3.x) or 64-byte NUL-padded
 * entries (3.x without VERSION). */
static int read_names(iolens_recorder *rec, const rec_file *f, const char *label, size_t start, int fixed64,
                      uint32_t nfixed)
{
    if (start > f->size)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated metadata (%zu bytes, names expected at byte %zu)",
                       label, f->size, start);
    size_t len = f->size - start;
    const char *src = (const char *)f->data + start;
    uint32_t n = 0;
    if (fixed64) {
        if ((uint64_t)nfixed * 64 > len)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s': %u function names of 64 bytes do not fit after byte %zu",
                           label, nfixed, start);
        n = nfixed;
    } else {
        for (size_t i = 0; i < len; i++)
            n += src[i] == '\n';
    }
    rec->funcs = calloc(n ? n : 1, sizeof *rec->funcs);
    rec->funcs_blob = malloc(len + 1);
    if (!rec->funcs || !rec->funcs_blob)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    memcpy(rec->funcs_blob, src, len);
    rec->funcs_blob[len] = '\0';
    if (fixed64) {
        for (uint32_t i = 0; i < n; i++) {
            rec->funcs_blob[(size_t)i * 64 + 63] = '\0';
            rec->funcs[i] = rec->funcs_blob + (size_t)i * 64;
        }
    } else {
        char *s = rec->funcs_blob;
        for (uint32_t i = 0; i < n; i++) {
            char *nl = strchr(s, '\n');
            if (!nl) /* a NUL inside a name */
                return iol_err(IOLENS_EFORMAT, "cannot read '%s': NUL byte in function name %u (names start at byte %zu)",
                               label, i, start);
            *nl = '\0';
            rec->funcs[i] = s;
            s = nl + 1;
        }
    }
    rec->nfuncs = n;
    rec->func_class = malloc((n ? n : 1) * sizeof *rec->func_class);
    if (!rec->func_class)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        rec->func_class[i] = -2;
    rec->mpi_start = rec->hdf5_start = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (rec->mpi_start < 0 && strstr(rec->funcs[i], "MPI"))
            rec->mpi_start = (int)i;
        if (rec->hdf5_start < 0 && strstr(rec->funcs[i], "H5"))
            rec->hdf5_start = (int)i;
    }
    return 0;
}

/* Where the '\n'-separated names begin when the struct size is not certain:
 * after the last byte that cannot be part of a name. */
static size_t names_start_guess(const rec_file *f, size_t min)
{
    size_t i = f->size;
    while (i > min) {
        uint8_t b = f->data[i - 1];
        if (!(b == '\n' || (b >= 0x20 && b < 0x7f)))
            break;
        i--;
    }
    return i;
}

static int truncated_mt(const char *label, size_t size, size_t need)
{
    return iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated metadata (%zu bytes, need %zu) at byte %zu", label,
                   size, need, size);
}

static int read_metadata(iolens_recorder *rec)
{
    rec_file f;
    char label[LABEL_MAX];
    int rc = rec_load(&rec->prov, "recorder.mt", &f);
    if (rc < 0)
        return rc;
    mklabel(label, &rec->prov, &f);
    const uint8_t *b = f.data;
    size_t need;
    if (rec->major == 2 && rec->minor <= 4) {
        /* 2.3/2.4: i32 total_ranks, f64 start_ts @8, f64 resolution @16,
         * i32 ts_buffer_elements @24, i32 ts_compression_algo @28 */
        need = 32;
        if (f.size < need) {
            rc = truncated_mt(label, f.size, need);
            goto done;
        }
        rec->nranks = rd_i32(b);
        rec->start_ts = rd_f64(b + 8);
        rec->res = rd_f64(b + 16);
        rec->ts_compression = 0;
        rec->ipc = 0;
        rec->func_id_bytes = 1;
        if ((rc = check_resolution(rec, label, 16)) < 0)
            goto done;
        rc = read_names(rec, &f, label, names_start_guess(&f, need), 0, 0);
    } else if (rec->major == 2 || (rec->major == 3 && !rec->no_version_file)) {
        /* 2.5 and legacy 3.x: 40-byte struct; 3.x adds two bools (PnetCDF, NetCDF) */
        need = 40;
        if (f.size < need) {
            rc = truncated_mt(label, f.size, need);
            goto done;
        }
        rec->nranks = rd_i32(b);
        rec->start_ts = rd_f64(b + 16);
        rec->res = rd_f64(b + 24);
        rec->ts_compression = b[36] != 0;
        rec->ipc = b[37] != 0;
        rec->inter_pr = b[38] != 0;
        rec->intra_pr = b[39] != 0;
        rec->func_id_bytes = rec->major == 2 ? 1 : 4;
        if ((rc = check_resolution(rec, label, 24)) < 0)
            goto done;
        rc = read_names(rec, &f, label, rec->major == 2 ? 40 : names_start_guess(&f, need), 0, 0);
    } else {
        /* 3.x without VERSION: i32 major, minor, patch, total_ranks, num_funcs,
         * 8 bools @20, f64 start_ts @32, f64 resolution @40, i32 @48, 4 bools @52,
         * then num_funcs names of 64 bytes (layout from the description, untested). */
        need = 56;
        if (f.size < need) {
            rc = truncated_mt(label, f.size, need);
            goto done;
        }
        rec->nranks = rd_i32(b + 12);
        int32_t nf = rd_i32(b + 16);
        rec->start_ts = rd_f64(b + 32);
        rec->res = rd_f64(b + 40);
        rec->ts_compression = b[52] != 0;
        rec->ipc = b[53] != 0;
        rec->inter_pr = b[54] != 0;
        rec->intra_pr = b[55] != 0;
        rec->func_id_bytes = 4;
        if (nf < 0 || nf > 1 << 20) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': invalid function count %d at byte 16", label, nf);
            goto done;
        }
        if ((rc = check_resolution(rec, label, 40)) < 0)
            goto done;
        rc = read_names(rec, &f, label, need, 1, (uint32_t)nf);
    }
done:
    rec_file_release(&f);
    return rc;
}

/* Splits "a b c " (each argument followed by a space) into sig->args. */
static int parse_key(iolens_recorder *rec, rec_cur *c, const uint8_t *key, size_t key_len, rec_sig *s)
{
    size_t hdr = 8 + (size_t)rec->func_id_bytes + 1 + 1 + 4;
    if (key_len < hdr)
        return rec_cur_err(c, "signature key of %zu bytes shorter than its %zu-byte header", key_len, hdr);
    memcpy(&s->tid, key, 8);
    size_t p = 8;
    if (rec->func_id_bytes == 1) {
        s->func_id = key[p];
    } else {
        s->func_id = (uint32_t)rd_i32(key + p);
    }
    p += (size_t)rec->func_id_bytes;
    s->depth = key[p++];
    s->nargs = key[p++];
    int32_t arg_strlen = rd_i32(key + p);
    p += 4;
    if (arg_strlen < 0 || (size_t)arg_strlen != key_len - hdr)
        return rec_cur_err(c, "signature key length %zu does not match header %zu + argument length %d", key_len, hdr,
                           arg_strlen);
    s->strings = malloc((size_t)arg_strlen + 1);
    s->args = calloc(s->nargs ? s->nargs : 1, sizeof *s->args);
    if (!s->strings || !s->args)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    memcpy(s->strings, key + p, (size_t)arg_strlen);
    s->strings[arg_strlen] = '\0';
    uint32_t ai = 0;
    size_t start = 0;
    for (size_t i = 0; i < (size_t)arg_strlen; i++) {
        if (s->strings[i] == '\0')
            return rec_cur_err(c, "NUL byte inside the arguments of a signature");
        if (s->strings[i] == ' ') {
            if (ai >= s->nargs)
                return rec_cur_err(c, "signature has more arguments than its count %u", s->nargs);
            s->strings[i] = '\0';
            s->args[ai++] = s->strings + start;
            start = i + 1;
        }
    }
    if (ai != s->nargs || start != (size_t)arg_strlen)
        return rec_cur_err(c, "signature has %u arguments, its count says %u", ai, s->nargs);
    if (rec->func_id_bytes == 1 && s->func_id == 255) {
        s->user = 1;
        if (s->nargs < 2)
            return rec_cur_err(c, "user-function signature without a name argument");
        s->func = s->args[1];
        s->rtype = 4;
    } else {
        if (s->func_id >= rec->nfuncs)
            return rec_cur_err(c, "function id %u out of range (the trace names %u functions)", s->func_id,
                               rec->nfuncs);
        s->func = rec->funcs[s->func_id];
        /* recorder2text's type: POSIX below the first MPI name, MPI-IO or MPI
         * below the first HDF5 name, HDF5 after. */
        if (rec->mpi_start < 0 || (int)s->func_id < rec->mpi_start)
            s->rtype = 0;
        else if (rec->hdf5_start < 0 || (int)s->func_id < rec->hdf5_start)
            s->rtype = strncmp(s->func, "MPI_File", 8) == 0 ? 1 : 2;
        else
            s->rtype = 3;
    }
    return rec_classify(rec, s);
}

/* CST payload: i32 n, then {i32 terminal_id, i32 rank, i32 key_len, u32 count, key}. */
static int parse_cst(iolens_recorder *rec, const uint8_t *data, size_t len, const char *label, const char *what,
                     rec_cst *cst)
{
    rec_cur c = {data, len, 0, label, what, 0};
    int32_t n;
    int rc = rec_rd_i32(&c, &n, "signature count");
    if (rc < 0)
        return rc;
    if (n < 0 || (size_t)n > (len - 4) / 16) {
        c.pos = 0;
        return rec_cur_err(&c, "signature count %d does not fit in %zu bytes", n, len);
    }
    cst->sigs = calloc(n ? (size_t)n : 1, sizeof *cst->sigs);
    if (!cst->sigs)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    cst->n = (uint32_t)n;
    for (int32_t i = 0; i < n; i++) {
        int32_t tid, rank, key_len, count;
        size_t at = c.pos;
        const uint8_t *key;
        if ((rc = rec_rd_i32(&c, &tid, "terminal id")) < 0 || (rc = rec_rd_i32(&c, &rank, "signature rank")) < 0 ||
            (rc = rec_rd_i32(&c, &key_len, "key length")) < 0 || (rc = rec_rd_i32(&c, &count, "call count")) < 0)
            return rc;
        if (tid < 0 || tid >= n || cst->sigs[tid].func) {
            c.pos = at;
            return rec_cur_err(&c, "terminal id %d of entry %d is out of range or repeated", tid, i);
        }
        if (key_len < 0) {
            c.pos = at + 8;
            return rec_cur_err(&c, "negative key length %d", key_len);
        }
        if ((rc = rec_rd_bytes(&c, (size_t)key_len, &key, "signature key")) < 0)
            return rc;
        size_t save = c.pos;
        c.pos = at + 16;
        rc = parse_key(rec, &c, key, (size_t)key_len, &cst->sigs[tid]);
        c.pos = save;
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int rule_index(const rec_grammar *g, int32_t id, uint32_t *idx)
{
    uint32_t lo = 0, hi = g->nrules;
    while (lo < hi) { /* rules sorted by id, descending order is not assumed */
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->rules[mid].id == id) {
            *idx = mid;
            return 1;
        }
        if (g->rules[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int cmp_rule(const void *a, const void *b)
{
    int32_t x = ((const rec_rule *)a)->id, y = ((const rec_rule *)b)->id;
    return (x > y) - (x < y);
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* Record counts of every rule, iteratively (explicit stack), rejecting cycles. */
static int count_rules(rec_grammar *g, const char *label, const char *what)
{
    enum { WHITE = 0, GREY, BLACK };
    uint8_t *color = calloc(g->nrules ? g->nrules : 1, 1);
    uint32_t *stack = malloc((g->nrules ? g->nrules : 1) * sizeof *stack);
    uint32_t *pos = malloc((g->nrules ? g->nrules : 1) * sizeof *pos);
    int rc = 0;
    if (!color || !stack || !pos) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    for (uint32_t root = 0; root < g->nrules; root++) {
        if (color[root])
            continue;
        uint32_t sp = 0;
        stack[sp] = root;
        pos[sp++] = 0;
        color[root] = GREY;
        while (sp) {
            rec_rule *r = &g->rules[stack[sp - 1]];
            uint32_t *ip = &pos[sp - 1];
            if (*ip == r->nsym) {
                uint64_t cnt = 0;
                for (uint32_t k = 0; k < r->nsym; k++) {
                    uint64_t each = r->syms[k].val >= 0 ? 1 : g->rules[-1 - r->syms[k].val].count;
                    cnt = sat_add(cnt, sat_mul(each, r->syms[k].exp));
                }
                r->count = cnt;
                color[stack[sp - 1]] = BLACK;
                sp--;
                continue;
            }
            rec_sym *s = &r->syms[(*ip)++];
            if (s->val >= 0)
                continue;
            uint32_t child = (uint32_t)(-1 - s->val);
            if (color[child] == GREY) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': grammar rule %d refers to itself (cycle through rule %d) "
                             "in the %s", label, r->id, g->rules[child].id, what);
                goto done;
            }
            if (color[child] == WHITE) {
                color[child] = GREY;
                stack[sp] = child;
                pos[sp++] = 0;
            }
        }
    }
    g->count = g->rules[g->start].count;
done:
    free(color);
    free(stack);
    free(pos);
    return rc;
}

/* CFG payload: i32 [n_rules, {rule_id, n_sym, (val, exp) x n_sym} x n_rules]. */
static int parse_cfg(const uint8_t *data, size_t len, const char *label, const char *what, uint32_t nterms,
                     rec_grammar *g)
{
    rec_cur c = {data, len, 0, label, what, 0};
    int32_t n;
    int rc = rec_rd_i32(&c, &n, "rule count");
    if (rc < 0)
        return rc;
    if (n <= 0 || (size_t)n > (len - 4) / 8) {
        c.pos = 0;
        return rec_cur_err(&c, "rule count %d does not fit in %zu bytes", n, len);
    }
    g->rules = calloc((size_t)n, sizeof *g->rules);
    if (!g->rules)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    g->nrules = (uint32_t)n;
    size_t *starts = malloc((size_t)n * sizeof *starts);
    if (!starts)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        rec_rule *r = &g->rules[i];
        int32_t nsym;
        starts[i] = c.pos;
        if ((rc = rec_rd_i32(&c, &r->id, "rule id")) < 0 || (rc = rec_rd_i32(&c, &nsym, "symbol count")) < 0)
            goto done;
        if (r->id >= 0 || nsym < 0 || (size_t)nsym > (len - c.pos) / 8) {
            c.pos -= 8;
            rc = rec_cur_err(&c, "rule %d has an invalid id or symbol count %d", r->id, nsym);
            goto done;
        }
        r->nsym = (uint32_t)nsym;
        r->syms = malloc((nsym ? (size_t)nsym : 1) * sizeof *r->syms);
        if (!r->syms) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto done;
        }
        for (int32_t k = 0; k < nsym; k++) {
            int32_t val, exp;
            rec_rd_i32(&c, &val, "symbol");
            rec_rd_i32(&c, &exp, "exponent");
            if (exp < 0 || (val >= 0 && (uint32_t)val >= nterms)) {
                c.pos -= 8;
                rc = rec_cur_err(&c, "rule %d: symbol %d^%d refers to a missing signature or has a negative repeat",
                                 r->id, val, exp);
                goto done;
            }
            r->syms[k] = (rec_sym){val, (uint32_t)exp};
        }
    }
    if (c.pos != len) {
        rc = rec_cur_err(&c, "%zu bytes left after the last rule", len - c.pos);
        goto done;
    }
    qsort(g->rules, g->nrules, sizeof *g->rules, cmp_rule);
    for (uint32_t i = 0; i + 1 < g->nrules; i++)
        if (g->rules[i].id == g->rules[i + 1].id) {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': rule %d defined twice in the %s", label, g->rules[i].id,
                         what);
            goto done;
        }
    if (!rule_index(g, -1, &g->start)) {
        rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': no start rule -1 in the %s", label, what);
        goto done;
    }
    for (uint32_t i = 0; i < g->nrules; i++)
        for (uint32_t k = 0; k < g->rules[i].nsym; k++) {
            rec_sym *s = &g->rules[i].syms[k];
            uint32_t idx;
            if (s->val >= 0)
                continue;
            if (!rule_index(g, s->val, &idx)) {
                rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': rule %d uses undefined rule %d in the %s", label,
                             g->rules[i].id, s->val, what);
                goto done;
            }
            s->val = -1 - (int32_t)idx;
        }
    rc = count_rules(g, label, what);
done:
    free(starts);
    return rc;
}

/* A compressed (2.5+) or raw (2.4) payload of a file; block k of a sequence. */
static int read_payload(iolens_recorder *rec, rec_cur *c, int compressed, uint8_t **out, size_t *len)
{
    if (compressed)
        return rec_inflate_block(c, rec->opt.max_file_bytes, out, len);
    *out = malloc(c->len - c->pos + 1);
    if (!*out)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    memcpy(*out, c->p + c->pos, c->len - c->pos);
    *len = c->len - c->pos;
    c->pos = c->len;
    return 0;
}

static int load_cst_file(iolens_recorder *rec, const char *name, int compressed, rec_cst *cst)
{
    rec_file f;
    char label[LABEL_MAX];
    uint8_t *payload = NULL;
    size_t plen = 0;
    int rc = rec_load(&rec->prov, name, &f);
    if (rc < 0)
        return rc;
    mklabel(label, &rec->prov, &f);
    rec_cur c = {f.data, f.size, 0, label, NULL, 0};
    if ((rc = read_payload(rec, &c, compressed, &payload, &plen)) < 0)
        goto done;
    rc = parse_cst(rec, payload, plen, label, compressed ? "decompressed signature table" : NULL, cst);
done:
    free(payload);
    rec_file_release(&f);
    return rc;
}

static int load_cfg_blocks(iolens_recorder *rec, const char *name, int compressed, uint32_t first, uint32_t count,
                           const rec_cst *cst)
{
    rec_file f;
    char label[LABEL_MAX], what[64];
    int rc = rec_load(&rec->prov, name, &f);
    if (rc < 0)
        return rc;
    mklabel(label, &rec->prov, &f);
    rec_cur c = {f.data, f.size, 0, label, NULL, 0};
    for (uint32_t k = 0; k < count && rc == 0; k++) {
        uint8_t *payload = NULL;
        size_t plen = 0;
        if ((rc = read_payload(rec, &c, compressed, &payload, &plen)) < 0)
            break;
        snprintf(what, sizeof what, compressed ? "decompressed grammar %u" : "grammar %u", k);
        rc = parse_cfg(payload, plen, label, what, cst->n, &rec->grammars[first + k]);
        free(payload);
        if (rc == 0 && rec->grammars[first + k].count > rec->opt.max_records)
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': %s expands to %llu records, more than the limit of %llu",
                         label, what, (unsigned long long)rec->grammars[first + k].count,
                         (unsigned long long)rec->opt.max_records);
    }
    if (rc == 0 && c.pos != c.len)
        rc = rec_cur_err(&c, "%zu unexpected bytes after the last grammar", c.len - c.pos);
    rec_file_release(&f);
    return rc;
}

/* ug.mt: i32 grammar id per rank, then i32 number of unique grammars. */
static int load_ug(iolens_recorder *rec)
{
    rec_file f;
    char label[LABEL_MAX];
    int rc = rec_load(&rec->prov, "ug.mt", &f);
    if (rc < 0)
        return rc;
    mklabel(label, &rec->prov, &f);
    rec_cur c = {f.data, f.size, 0, label, NULL, 0};
    int32_t n;
    for (int r = 0; r < rec->nranks; r++)
        if ((rc = rec_rd_i32(&c, &rec->ug[r], "grammar id")) < 0)
            goto done;
    if ((rc = rec_rd_i32(&c, &n, "unique grammar count")) < 0)
        goto done;
    if (n <= 0 || n > rec->nranks) {
        c.pos -= 4;
        rc = rec_cur_err(&c, "unique grammar count %d invalid for %d ranks", n, rec->nranks);
        goto done;
    }
    for (int r = 0; r < rec->nranks; r++)
        if (rec->ug[r] < 0 || rec->ug[r] >= n) {
            c.pos = (size_t)r * 4;
            rc = rec_cur_err(&c, "grammar id %d of rank %d out of range (%d grammars)", rec->ug[r], r, n);
            goto done;
        }
    rec->ngrammars = (uint32_t)n;
done:
    rec_file_release(&f);
    return rc;
}

/* recorder.ts: u64 size per rank, then the ranks' blobs in order. 2.4: <rank>.ts. */
static int load_ts_index(iolens_recorder *rec)
{
    char label[LABEL_MAX];
    if (rec->major == 2 && rec->minor <= 4)
        return 0; /* per-rank files, loaded by the cursor */
    int rc;
    mklabel(label, &rec->prov, &rec->ts);
    rec_cur c = {rec->ts.data, rec->ts.size, 0, label, NULL, 0};
    uint64_t off = (uint64_t)rec->nranks * 8;
    for (int r = 0; r < rec->nranks; r++) {
        if ((rc = rec_rd_u64(&c, &rec->ts_len[r], "timestamp block size")) < 0)
            return rc;
        if (off > rec->ts.size || rec->ts_len[r] > rec->ts.size - off) {
            c.pos -= 8;
            return rec_cur_err(&c, "timestamps of rank %d (%llu bytes at byte %llu) run past the end (%zu bytes)", r,
                               (unsigned long long)rec->ts_len[r], (unsigned long long)off, rec->ts.size);
        }
        rec->ts_off[r] = off;
        off += rec->ts_len[r];
    }
    return 0;
}

/* Sub-communicator ranks for "a*r+b": Recorder splits MPI_COMM_WORLD by the
 * number of distinct signatures of the function (key: world rank). */
static int compute_subranks(iolens_recorder *rec)
{
    int rc = 0;
    uint32_t *counts = NULL, *seen = NULL;
    uint8_t *used = NULL;
    for (uint32_t k = 0; k < rec->ncsts; k++)
        for (uint32_t i = 0; i < rec->csts[k].n; i++) {
            rec_sig *s = &rec->csts[k].sigs[i];
            if (s->off_kind != REC_OFF_PATTERN)
                continue;
            uint32_t j = 0;
            while (j < rec->npat_funcs && rec->pat_funcs[j] != s->func_id)
                j++;
            if (j == rec->npat_funcs) {
                uint32_t *nf = realloc(rec->pat_funcs, (j + 1) * sizeof *nf);
                if (!nf)
                    return iol_err(IOLENS_ENOMEM, "out of memory");
                rec->pat_funcs = nf;
                rec->pat_funcs[rec->npat_funcs++] = s->func_id;
            }
        }
    if (!rec->npat_funcs)
        return 0;
    uint32_t nf = rec->npat_funcs;
    /* ranks x functions: a header's rank count times the functions with offset patterns, held
     * to 256 MiB (a million ranks of 30 such functions; a trace that claims more is refused
     * before the table is made) */
    if ((double)rec->nranks * nf * sizeof *rec->subrank > (double)(256u << 20))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': %d ranks times %u functions with offset patterns is "
                       "implausible (a table of more than 256 MiB)", rec->prov.label,
                       rec->nranks, nf);
    rec->subrank = calloc((size_t)rec->nranks * nf, sizeof *rec->subrank);
    uint32_t maxsig = 0;
    for (uint32_t k = 0; k < rec->ncsts; k++)
        maxsig = rec->csts[k].n > maxsig ? rec->csts[k].n : maxsig;
    counts = calloc((size_t)rec->ngrammars * nf, sizeof *counts);
    seen = calloc((size_t)maxsig + 1, sizeof *seen);
    used = calloc((size_t)maxsig + 1, 1);
    if (!rec->subrank || !counts || !seen || !used) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto done;
    }
    /* distinct signatures of each pattern function used by each grammar */
    for (uint32_t g = 0; g < rec->ngrammars; g++) {
        const rec_grammar *gr = &rec->grammars[g];
        const rec_cst *cst = &rec->csts[gr->sigset];
        memset(used, 0, (size_t)maxsig + 1);
        for (uint32_t i = 0; i < gr->nrules; i++)
            for (uint32_t k = 0; k < gr->rules[i].nsym; k++) {
                int32_t v = gr->rules[i].syms[k].val;
                if (v < 0 || used[v])
                    continue;
                used[v] = 1;
                for (uint32_t j = 0; j < nf; j++)
                    if (cst->sigs[v].func_id == rec->pat_funcs[j])
                        counts[(size_t)g * nf + j]++;
            }
    }
    for (uint32_t j = 0; j < nf; j++) {
        memset(seen, 0, ((size_t)maxsig + 1) * sizeof *seen);
        for (int r = 0; r < rec->nranks; r++) {
            uint32_t color = counts[(size_t)rec->ug[r] * nf + j];
            rec->subrank[(size_t)r * nf + j] = (int32_t)seen[color]++;
        }
    }
done:
    free(counts);
    free(seen);
    free(used);
    return rc;
}

int rec_read_trace(iolens_recorder *rec)
{
    int rc;
    if (rec_exists(&rec->prov, "VERSION")) {
        if ((rc = read_version_file(rec)) < 0)
            return rc;
    } else if (rec_exists(&rec->prov, "recorder.dat")) {
        if ((rc = rec_open_sections(&rec->prov)) < 0)
            return rc;
    }
    if (!rec->version[0] && !rec->prov.sections && !rec_exists(&rec->prov, "recorder.mt"))
        return iol_err(IOLENS_ENOTFOUND, "cannot read '%s': not a Recorder trace (no VERSION, recorder.mt or "
                       "recorder.dat)", rec->prov.label);
    if (!rec->version[0]) { /* version inside recorder.mt */
        rec_file f;
        if ((rc = rec_load(&rec->prov, "recorder.mt", &f)) < 0)
            return rc;
        if (f.size >= 12) {
            rec->major = rd_i32(f.data);
            rec->minor = rd_i32(f.data + 4);
            rec->patch = rd_i32(f.data + 8);
        }
        rec_file_release(&f);
        if (rec->major != 3)
            return iol_err(IOLENS_EVERSION, "cannot read '%s': no VERSION file and recorder.mt does not start with a "
                           "3.x version at byte 0", rec->prov.label);
        snprintf(rec->version, sizeof rec->version, "%d.%d.%d", rec->major, rec->minor, rec->patch);
        rec->no_version_file = 1;
        rc = read_metadata(rec);
    } else {
        if (!(rec->major == 2 && rec->minor >= 3 && rec->minor <= 5) && rec->major != 3)
            return iol_err(IOLENS_EVERSION, "cannot read '%s/VERSION': Recorder version %s is not supported (2.3-2.5, 3.x)",
                           rec->prov.label, rec->version);
        rc = read_metadata(rec);
    }
    if (rc < 0)
        return rc;
    int n = rec->nranks;
    /* the rank count must be backed by data before anything is sized by it */
    if (rec->major == 2 && rec->minor <= 4) {
        for (int r = 0; r < n; r++) { /* stops at the first missing rank */
            char name[32];
            snprintf(name, sizeof name, "%d.cst", r);
            if (!rec_exists(&rec->prov, name))
                return iol_err(IOLENS_EFORMAT, "cannot read '%s/recorder.mt': %d ranks at byte 0 but no '%s'",
                               rec->prov.label, n, name);
        }
    } else {
        if ((rc = rec_load(&rec->prov, "recorder.ts", &rec->ts)) < 0)
            return rc;
        if (rec->ts.size / 8 < (uint64_t)n)
            return iol_err(IOLENS_EFORMAT, "cannot read '%s/%s': %d ranks (recorder.mt) need %llu bytes of block "
                           "sizes, the file ends at byte %zu", rec->prov.label, rec->ts.name, n,
                           (unsigned long long)n * 8, rec->ts.size);
    }
    rec->ug = calloc((size_t)n, sizeof *rec->ug);
    rec->ts_off = calloc((size_t)n, sizeof *rec->ts_off);
    rec->ts_len = calloc((size_t)n, sizeof *rec->ts_len);
    rec->cursors = calloc((size_t)n, sizeof *rec->cursors);
    if (!rec->ug || !rec->ts_off || !rec->ts_len || !rec->cursors)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int compressed = !(rec->major == 2 && rec->minor <= 4);
    if (rec->ipc) {
        rec->csts = calloc(1, sizeof *rec->csts);
        if (!rec->csts)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        rec->ncsts = 1;
        if ((rc = load_cst_file(rec, "recorder.cst", compressed, &rec->csts[0])) < 0 || (rc = load_ug(rec)) < 0)
            return rc;
        rec->grammars = calloc(rec->ngrammars, sizeof *rec->grammars);
        if (!rec->grammars)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        if ((rc = load_cfg_blocks(rec, "ug.cfg", compressed, 0, rec->ngrammars, &rec->csts[0])) < 0)
            return rc;
    } else {
        rec->csts = calloc((size_t)n, sizeof *rec->csts);
        rec->grammars = calloc((size_t)n, sizeof *rec->grammars);
        if (!rec->csts || !rec->grammars)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        rec->ncsts = rec->ngrammars = (uint32_t)n;
        for (int r = 0; r < n; r++) {
            char name[32];
            snprintf(name, sizeof name, "%d.cst", r);
            if ((rc = load_cst_file(rec, name, compressed, &rec->csts[r])) < 0)
                return rc;
            snprintf(name, sizeof name, "%d.cfg", r);
            rec->grammars[r].sigset = r;
            if ((rc = load_cfg_blocks(rec, name, compressed, (uint32_t)r, 1, &rec->csts[r])) < 0)
                return rc;
            rec->ug[r] = r;
        }
    }
    if ((rc = load_ts_index(rec)) < 0)
        return rc;
    if ((rc = compute_subranks(rec)) < 0)
        return rc;
    if (rec->intra_pr && rec->opt.warn)
        rec->opt.warn(rec->opt.warn_ctx, "Recorder intra-process pattern recognition is on: pwrite/pwrite64 "
                      "offsets are restored from the function's first offset, other offsets are taken as stored");
    return 0;
}
