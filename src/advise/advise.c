/* advise: the prompt of IOSage's recommendation step ("IOSage: Detecting HPC I/O Bottleneck
 * Patterns to Guide LLM Recommendations", §III-D/E, Fig. 4), its answer validated, and the
 * template-based recommendations of the offline mode. The HTTP client is in client.c. */
#include "advise/internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "iolens/detect.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/jsonw.h"

/* The change of each card as code, at the level it is made (a setting, the I/O library, the
 * code), and how the application's source usually shows the inducing call. Written for the
 * prompt and the offline mode; the level is the smallest at which the change is correct. */
static const struct tmpl {
    const char *level;
    const char *where;
    const char *before;
    const char *after;
    const char *whatif; /* the whatif transform of the pattern (docs/whatif.md), or NULL */
} tmpls[IOLENS_DETECT_NPATTERNS] = {
    {"code", "the write()/read() (or MPI_File_write) call issued once per small transfer, inside a loop",
     "for (i = 0; i < n; i++)\n    write(fd, rec + i * 4096, 4096);",
     "/* one request per >= 1 MiB: the loop's transfers gathered in a buffer */\n"
     "for (i = 0; i < n; i += per)\n    write(fd, rec + i * 4096, (size_t)per * 4096);  /* per = 256 */",
     "access_granularity"},
    {"code", "open/stat/close of one file per item or per step",
     "for (i = 0; i < nfiles; i++) {\n    fd = open(name[i], O_CREAT | O_WRONLY, 0644);\n    write(fd, buf, len);\n    close(fd);\n}",
     "/* one shared file, one region per item */\nfd = open(\"items.dat\", O_CREAT | O_WRONLY, 0644);\n"
     "for (i = 0; i < nfiles; i++)\n    pwrite(fd, buf, len, (off_t)i * len);\nclose(fd);",
     "metadata_intensity"},
    {"library", "a write issued by one rank (often rank 0) for data the others hold",
     "if (rank == 0)\n    MPI_File_write_at(fh, 0, all, total, MPI_BYTE, &st);",
     "MPI_File_write_at_all(fh, (MPI_Offset)rank * part, mine, part, MPI_BYTE, &st);",
     "parallelism_efficiency"},
    {"code", "reads or writes at offsets in the order the data is produced, not the file's",
     "for (i = 0; i < n; i++)\n    pwrite(fd, buf[i], len, off[i]);   /* off[] unordered */",
     "/* sort the requests by offset first (or let MPI-IO sieve: romio_ds_write=enable) */\n"
     "qsort(req, n, sizeof *req, by_offset);\nfor (i = 0; i < n; i++)\n    pwrite(fd, req[i].buf, len, req[i].off);",
     "access_pattern"},
    {"library", "independent MPI-IO calls (or POSIX) on one shared file",
     "MPI_File_write_at(fh, off, buf, count, MPI_BYTE, &st);",
     "MPI_File_write_at_all(fh, off, buf, count, MPI_BYTE, &st);   /* with the hint romio_cb_write=enable */",
     "interface_choice"},
    {"library", "one file per process opened by every rank",
     "snprintf(name, sizeof name, \"out.%d\", rank);\nMPI_File_open(MPI_COMM_SELF, name, MODE, MPI_INFO_NULL, &fh);\n"
     "MPI_File_write(fh, buf, n, MPI_BYTE, &st);",
     "MPI_File_open(MPI_COMM_WORLD, \"out\", MODE, MPI_INFO_NULL, &fh);\n"
     "MPI_File_write_at_all(fh, (MPI_Offset)rank * n, buf, n, MPI_BYTE, &st);",
     "file_strategy"},
    {"setting", "an fsync() (or MPI_File_sync) after every write",
     "for (i = 0; i < n; i++) {\n    write(fd, buf, len);\n    fsync(fd);\n}",
     "for (i = 0; i < n; i++)\n    write(fd, buf, len);\nfsync(fd);   /* once, where durability is needed */",
     "throughput_utilization"},
};

/* Counters of the job summary: the first nine that are not zero (the paper's prompt shows up to
 * nine), in this order. */
static const char *const summary_names[] = {
    "nprocs", "runtime_seconds", "POSIX_BYTES_WRITTEN", "POSIX_BYTES_READ", "avg_write_size", "avg_read_size",
    "small_io_ratio", "seq_write_ratio", "seq_read_ratio", "metadata_time_ratio", "collective_ratio",
    "fsync_ratio", "total_bw_mb_s", "POSIX_WRITES", "POSIX_READS", "POSIX_OPENS", "MPIIO_INDEP_WRITES",
    "MPIIO_COLL_WRITES", "num_files"};

void iolens_advise_opts_init(iolens_advise_opts *o)
{
    memset(o, 0, sizeof *o);
    o->retries = -1;
}

const char *iolens_advise_endpoint(const iolens_advise_opts *o)
{
    const char *e = o && o->endpoint ? o->endpoint : getenv("IOLENS_LLM_ENDPOINT");
    return e && *e ? e : NULL;
}

const char *iolens_advise_model(const iolens_advise_opts *o)
{
    const char *m = o && o->model ? o->model : getenv("IOLENS_LLM_MODEL");
    return m && *m ? m : NULL;
}

void iolens_advise_free(iolens_advise *a)
{
    if (!a)
        return;
    free(a->input);
    free(a->system);
    free(a->user);
    free(a);
}

const char *iolens_advise_system_prompt(const iolens_advise *a) { return a ? a->system : NULL; }
const char *iolens_advise_user_prompt(const iolens_advise *a) { return a ? a->user : NULL; }
unsigned iolens_advise_detected(const iolens_advise *a) { return a ? a->set : 0; }

static double feat(const iolens_advise *a, const char *name)
{
    int i = iolens_detect_feature_index(name);
    return i >= 0 ? a->x[i] : 0;
}

static int cmp_contrib(const void *p, const void *q)
{
    double x = fabs(((const struct contrib *)p)->v), y = fabs(((const struct contrib *)q)->v);
    return x < y ? 1 : x > y ? -1 : 0;
}

static const char *system_text =
    "You are an HPC I/O performance expert. You read the Darshan profile of one job, the I/O bottleneck\n"
    "patterns a trained classifier detected in it, the card of each pattern and the job's evidence, and\n"
    "you recommend the smallest correct change.\n"
    "\n"
    "RULES:\n"
    "1. Every recommendation must be grounded in the evidence given: the detected patterns, the counters,\n"
    "   the files and the configuration files. Address only detected patterns.\n"
    "2. Recommend the smallest correct change, at the level of a setting, of the I/O library, or of the\n"
    "   code, and give the code (or the setting) before and after.\n"
    "3. Cite the card each change follows by its ID, or \"none\" when it follows no card.\n"
    "4. Do not invent settings, API calls or speed-ups: no figure that the evidence does not contain.\n"
    "   The speed-up will be measured; write \"to be measured\" when the evidence has no figure.\n"
    "5. When no change is justified, say so and give no recommendation.\n"
    "6. Rank the recommendations by expected impact, the largest first.\n";

static void put_json_answer_spec(iol_buf *b)
{
    iol_buf_puts(b, "## Task:\n"
                    "1. Explain what I/O problems this job has, grounded in the counters above.\n"
                    "2. For each detected bottleneck, give the smallest correct change (setting, I/O library or\n"
                    "   code) with the code or setting before and after.\n"
                    "3. Cite the card ID each change follows, or \"none\".\n"
                    "4. Do not state a speed-up the evidence does not contain.\n"
                    "5. If no change is justified, say so in the diagnosis and return no recommendation.\n"
                    "\n"
                    "Respond in JSON:\n"
                    "{\n"
                    "  \"diagnosis\": \"plain language explanation of the I/O problems\",\n"
                    "  \"recommendations\": [\n"
                    "    {\n"
                    "      \"priority\": 1,\n"
                    "      \"bottleneck_dimension\": \"one of the detected patterns\",\n"
                    "      \"level\": \"setting | library | code\",\n"
                    "      \"explanation\": \"what is wrong and why\",\n"
                    "      \"code_before\": \"the problematic I/O code or setting\",\n"
                    "      \"code_after\": \"the changed I/O code or setting\",\n"
                    "      \"expected_speedup\": \"a figure from the evidence, or to be measured\",\n"
                    "      \"kb_citation\": \"card ID, or none\",\n"
                    "      \"confidence\": \"high/medium/low\",\n"
                    "      \"api_change\": \"e.g., POSIX write -> MPI_File_write_all\"\n"
                    "    }\n"
                    "  ],\n"
                    "  \"overall_expected_improvement\": \"to be measured, or a figure from the evidence\"\n"
                    "}\n");
}

static int build_prompt(iolens_advise *a, const iolens_advise_opts *o)
{
    iol_buf b = IOL_BUF_INIT;
    iol_buf_puts(&b, "Analyze this HPC job's I/O behavior and recommend the smallest correct changes.\n\n");
    iol_buf_printf(&b, "## Detected Bottlenecks (classifier, gate tau=%.2f):\n", a->tau);
    if (!a->set)
        iol_buf_puts(&b, "  - none: no registered pattern is detected in this job\n");
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if (a->set & (1u << p))
            iol_buf_printf(&b, "  - **%s** (confidence=%.2f): %s\n", iolens_detect_label_name(p), a->probs[p],
                           iolens_detect_card_get(p)->behavior);
    iol_buf_puts(&b, "\n## Key Contributing Features (SHAP per-label attribution):\n");
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(a->set & (1u << p)))
            continue;
        iol_buf_printf(&b, "\n  %s:\n", iolens_detect_label_name(p));
        for (int k = 0; k < a->ntop[p]; k++) {
            const struct contrib *c = &a->top[p][k];
            iol_buf_printf(&b, "    - %s = %.4f (|SHAP|=%.4f, %s)\n", iolens_detect_feature_name(c->f), a->x[c->f],
                           fabs(c->v), c->v > 0 ? "increases_risk" : "decreases_risk");
        }
    }
    iol_buf_puts(&b, "\n\n## Benchmark Evidence (pattern cards):\n");
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(a->set & (1u << p)))
            continue;
        const iolens_detect_card *card = iolens_detect_card_get(p);
        const struct tmpl *t = &tmpls[p];
        iol_buf_printf(&b, "\n  --- Card (ID: card:%s) ---\n", card->pattern);
        iol_buf_printf(&b, "  Bottleneck: %s\n  Behavior: %s\n", card->pattern, card->behavior);
        iol_buf_printf(&b, "  Induced in benchmarks by: %s\n", card->inducing);
        iol_buf_printf(&b, "  Where the inducing call sits: %s\n", t->where);
        iol_buf_puts(&b, "  Key counters (this job / median of training runs with the pattern):\n");
        for (int k = 0; k < a->nkey[p]; k++) {
            const iolens_detect_key_feature *kf = &a->key[p][k];
            if (isnan(kf->median_with_label))
                iol_buf_printf(&b, "    - %s: %.6g / (none)\n", iolens_detect_feature_name(kf->feature),
                               a->x[kf->feature]);
            else
                iol_buf_printf(&b, "    - %s: %.6g / %.6g\n", iolens_detect_feature_name(kf->feature),
                               a->x[kf->feature], kf->median_with_label);
        }
        iol_buf_printf(&b, "  Fix: %s (level: %s)\n  Does not apply when: %s\n", card->change, t->level,
                       card->not_applicable);
        iol_buf_printf(&b, "  Code BEFORE:\n    %s\n  Code AFTER:\n    %s\n", t->before, t->after);
    }
    iol_buf_puts(&b, "\n\n## Job Darshan Summary:\n");
    int shown = 0;
    for (size_t i = 0; i < sizeof summary_names / sizeof *summary_names && shown < 9; i++) {
        int fi = iolens_detect_feature_index(summary_names[i]);
        if (fi < 0 || a->x[fi] == 0 || !isfinite(a->x[fi]))
            continue;
        iol_buf_printf(&b, "  %s: %.6g\n", summary_names[i], a->x[fi]);
        shown++;
    }
    iol_buf_puts(&b, "\n## Per-file Evidence (largest files):\n");
    if (a->nfiles == 0)
        iol_buf_puts(&b, "  (no file record)\n");
    for (int i = 0; i < a->nfiles; i++) {
        const iolens_detect_file *f = &a->files[i];
        iol_buf_printf(&b,
                       "  - %s: %" PRId64 " bytes, %" PRId64 " operations, %" PRId64 " ranks, %.1f%% below 1 MiB, "
                       "%" PRId64 " independent and %" PRId64 " collective MPI-IO operations\n",
                       f->path[0] ? f->path : "(unnamed)", f->bytes, f->ops, f->ranks,
                       f->ops > 0 ? 100.0 * (double)f->small_ops / (double)f->ops : 0.0, f->mpiio_indep,
                       f->mpiio_coll);
    }
    iol_buf_puts(&b, "\n## Job Configuration Files:\n");
    if (!o->nconfigs)
        iol_buf_puts(&b, "  (none given)\n");
    for (size_t i = 0; i < o->nconfigs; i++) {
        iol_buf c = IOL_BUF_INIT;
        int rc = iol_read_input(o->configs[i], ADVISE_MAX_CONFIG, NULL, 0, 1, &c);
        if (rc == 0 && c.len == 0) /* (a FIFO nobody writes to reads as empty, without waiting) */
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': the configuration file is empty", o->configs[i]);
        if (rc < 0) {
            iol_buf_release(&c);
            iol_buf_release(&b);
            return rc;
        }
        iol_buf_printf(&b, "\n  --- %s ---\n", o->configs[i]);
        iol_buf_append(&b, c.data ? c.data : "", c.len);
        if (c.len && c.data[c.len - 1] != '\n')
            iol_buf_puts(&b, "\n");
        iol_buf_release(&c);
    }
    iol_buf_puts(&b, "\n");
    put_json_answer_spec(&b);
    if (!b.data) {
        iol_buf_release(&b);
        return iol_err(IOLENS_ENOMEM, "out of memory building the prompt");
    }
    a->user = iol_buf_detach(&b, NULL);
    a->system = strdup(system_text);
    if (!a->user || !a->system)
        return iol_err(IOLENS_ENOMEM, "out of memory building the prompt");
    return 0;
}

int iolens_advise_prepare(const char *input, const iolens_advise_opts *o, iolens_advise **out)
{
    iolens_advise_opts def;
    if (!o) {
        iolens_advise_opts_init(&def);
        o = &def;
    }
    if (!input || !out)
        return iol_err(IOLENS_EINVAL, "iolens_advise_prepare: NULL argument");
    *out = NULL;
    iolens_advise *a = calloc(1, sizeof *a);
    iolens_detect_input *in = NULL;
    iolens_detect_model *m = NULL;
    iolens_detect_diagnosis dg;
    int rc;
    if (!a || !(a->input = strdup(input))) {
        free(a);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    a->tau = o->tau > 0 ? o->tau : IOLENS_DETECT_TAU;
    a->is_trace = iolens_detect_kind(input) != 0 && !iolens_detect_is_darshan(input);
    iolens_detect_read_opts ro;
    iolens_detect_read_opts_init(&ro);
    ro.all_paths = o->all_paths;
    ro.warn = o->warn;
    ro.warn_ctx = o->warn_ctx;
    const char *models = o->models_dir ? o->models_dir : iolens_detect_default_models_dir();
    if ((rc = iolens_detect_read(&in, input, &ro)) < 0 || (rc = iolens_detect_input_features(in, a->x)) < 0 ||
        (rc = a->nfiles = iolens_detect_input_top_files(in, a->files_store, ADVISE_MAX_FILES)) < 0 ||
        (rc = iolens_detect_model_load(&m, models)) < 0 || (rc = iolens_detect_diagnose(m, a->x, a->nfiles, a->tau, &dg)) < 0)
        goto out;
    memcpy(a->probs, dg.probs, sizeof a->probs);
    /* paths of the top files belong to the input: copied */
    size_t used = 0;
    for (int i = 0; i < a->nfiles; i++) {
        a->files[i] = a->files_store[i];
        const char *p = a->files_store[i].path ? a->files_store[i].path : "";
        size_t l = strlen(p);
        if (l >= sizeof a->paths - used)
            l = sizeof a->paths - used - 1;
        memcpy(a->paths + used, p, l);
        a->paths[used + l] = '\0';
        a->files[i].path = a->paths + used;
        used += l + 1;
    }
    a->set = dg.presented; /* as iolens detect presents them */
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(a->set & (1u << p)))
            continue;
        double shap[IOLENS_DETECT_NFEATURES + 1];
        if ((rc = iolens_detect_contribs(m, a->x, p, shap)) < 0)
            goto out;
        struct contrib all[IOLENS_DETECT_NFEATURES];
        for (int i = 0; i < IOLENS_DETECT_NFEATURES; i++)
            all[i] = (struct contrib){i, shap[i]};
        qsort(all, IOLENS_DETECT_NFEATURES, sizeof *all, cmp_contrib);
        a->ntop[p] = ADVISE_NTOP;
        memcpy(a->top[p], all, sizeof a->top[p]);
        int nk = iolens_detect_model_key_features(m, p, a->key[p], IOLENS_DETECT_NKEY);
        a->nkey[p] = nk > 0 ? nk : 0;
    }
    rc = build_prompt(a, o);
out:
    iolens_detect_model_free(m);
    iolens_detect_input_free(in);
    if (rc < 0) {
        iolens_advise_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

/* ---- answers ---- */

/* The JSON object an answer holds: the whole text, a ```json fence, or the first balanced {...}. */
static json_t *answer_object(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    if (j && json_is_object(j))
        return j;
    json_decref(j);
    for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
        int depth = 0, in_str = 0;
        for (const char *q = p; *q; q++) {
            if (in_str) {
                if (*q == '\\' && q[1])
                    q++;
                else if (*q == '"')
                    in_str = 0;
                continue;
            }
            if (*q == '"')
                in_str = 1;
            else if (*q == '{')
                depth++;
            else if (*q == '}' && --depth == 0) {
                j = json_loadb(p, (size_t)(q - p + 1), JSON_REJECT_DUPLICATES, &e);
                if (j && json_is_object(j) && json_object_get(j, "recommendations"))
                    return j;
                json_decref(j);
                break;
            }
        }
    }
    return NULL;
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A speed-up figure ("3.2x", "40%") in text that the prompt does not contain. */
static int invented_figure(const iolens_advise *a, const char *text, char *fig, size_t n)
{
    for (const char *p = text; p && *p; p++) {
        if (!(*p >= '0' && *p <= '9') || (p > text && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.')))
            continue;
        const char *q = p;
        while ((*q >= '0' && *q <= '9') || *q == '.')
            q++;
        const char *r = q;
        while (*r == ' ')
            r++;
        if (*r == 'x' || *r == 'X' || *r == '%' || !strncmp(r, "times", 5)) {
            size_t l = (size_t)(q - p);
            snprintf(fig, n, "%.*s", (int)(l < n - 1 ? l : n - 1), p);
            if (!strstr(a->user, fig))
                return 1;
        }
        p = q - 1;
    }
    return 0;
}

/* A setting or an I/O-library call in text that the prompt does not contain: MPI-IO hints
 * (romio_*, cb_*, striping_*, ind_*), MPI, HDF5, PnetCDF and NetCDF calls, Lustre tools. */
static int invented_setting(const iolens_advise *a, const char *text, char *name, size_t n)
{
    static const char *const prefixes[] = {"romio_", "cb_", "striping_", "ind_rd_", "ind_wr_", "MPI_", "H5", "ncmpi_",
                                           "nc_", "lfs"};
    for (const char *p = text; p && *p; p++) {
        int start = (p == text || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                    (p[-1] >= '0' && p[-1] <= '9')));
        if (!start)
            continue;
        for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++) {
            size_t pl = strlen(prefixes[k]);
            if (strncmp(p, prefixes[k], pl))
                continue;
            size_t l = pl;
            while (p[l] == '_' || (p[l] >= 'a' && p[l] <= 'z') || (p[l] >= 'A' && p[l] <= 'Z') || (p[l] >= '0' && p[l] <= '9'))
                l++;
            if (l == pl && strcmp(prefixes[k], "lfs"))
                break; /* a bare prefix */
            snprintf(name, n, "%.*s", (int)(l < n - 1 ? l : n - 1), p);
            if (!strstr(a->user, name) && !strstr(a->system, name))
                return 1;
            p += l - 1;
            break;
        }
    }
    return 0;
}

static int detected_by_name(const iolens_advise *a, const char *name)
{
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS && name; p++)
        if ((a->set & (1u << p)) && !strcmp(iolens_detect_label_name(p), name))
            return p;
    return -1;
}

/* Code, each line indented under its label. */
static void put_code(FILE *out, const char *label, const char *code)
{
    fprintf(out, "     %s:\n", label);
    for (const char *p = code; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "       %.*s\n", (int)n, p);
        p += n;
        if (*p == '\n')
            p++;
    }
}

static void put_measure(const iolens_advise *a, int p, iol_jsonw *w, FILE *out)
{
    char whatif[512] = "", paired[256];
    if (p >= 0 && tmpls[p].whatif && a->is_trace)
        snprintf(whatif, sizeof whatif, "iolens whatif %s --pattern %s", a->input, tmpls[p].whatif);
    snprintf(paired, sizeof paired, "iolens paired -n 11 -- ./app ARGS -- ./app-changed ARGS");
    if (w) {
        iol_jsonw_key(w, "whatif");
        if (whatif[0])
            iol_jsonw_str(w, whatif);
        else
            iol_jsonw_null(w);
        iol_jsonw_key(w, "paired");
        iol_jsonw_str(w, paired);
    } else {
        if (whatif[0])
            fprintf(out, "     measure on a replay: %s\n", whatif);
        fprintf(out, "     measure on the application: %s\n", paired);
    }
}

/* The start of both JSON forms: {input, source, detected, ... */
static void json_head(iol_jsonw *w, FILE *out, const iolens_advise *a, const char *source)
{
    iol_jsonw_init(w, out, 1);
    iol_jsonw_obj_begin(w);
    iol_jsonw_key(w, "input");
    iol_jsonw_str(w, a->input);
    iol_jsonw_key(w, "source");
    iol_jsonw_str(w, source);
    iol_jsonw_key(w, "detected");
    iol_jsonw_arr_begin(w);
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if (a->set & (1u << p))
            iol_jsonw_str(w, iolens_detect_label_name(p));
    iol_jsonw_arr_end(w);
}

int iolens_advise_report(const iolens_advise *a, const char *answer, const char *source, FILE *out, int json)
{
    if (!a || !answer || !out)
        return iol_err(IOLENS_EINVAL, "iolens_advise_report: NULL argument");
    if (!source)
        source = a->from_cache ? "cache" : "llm";
    json_t *j = answer_object(answer);
    json_t *recs = j ? json_object_get(j, "recommendations") : NULL;
    iol_jsonw w;
    if (json) {
        json_head(&w, out, a, source);
    }
    if (!j || !json_is_array(recs)) {
        if (json) {
            iol_jsonw_key(&w, "error");
            iol_jsonw_str(&w, "the answer holds no JSON object with a recommendations array");
            iol_jsonw_key(&w, "raw");
            iol_jsonw_str(&w, answer);
            iol_jsonw_obj_end(&w);
            iol_jsonw_finish(&w);
            fputc('\n', out);
        }
        json_decref(j);
        return iol_err(IOLENS_EFORMAT, "the model's answer holds no JSON object with a recommendations array "
                                      "(%zu characters; --json keeps the raw text)", strlen(answer));
    }
    const char *diag = jstr(j, "diagnosis");
    if (json) {
        iol_jsonw_key(&w, "diagnosis");
        if (diag)
            iol_jsonw_str(&w, diag);
        else
            iol_jsonw_null(&w);
        iol_jsonw_key(&w, "recommendations");
        iol_jsonw_arr_begin(&w);
    } else {
        fprintf(out, "%s: %s\n", a->input, !strcmp(source, "cache") ? "advice (cached answer)" : "advice");
        if (diag)
            fprintf(out, "  diagnosis: %s\n", diag);
    }
    size_t n = json_array_size(recs), valid = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(recs, i);
        const char *problems[8];
        char setting[96], setmsg[160];
        int np = 0;
        char fig[32];
        if (!json_is_object(r)) {
            problems[np++] = "not an object";
            r = NULL;
        }
        const char *pat = r ? jstr(r, "bottleneck_dimension") : NULL;
        const char *cite = r ? jstr(r, "kb_citation") : NULL;
        const char *before = r ? jstr(r, "code_before") : NULL, *after = r ? jstr(r, "code_after") : NULL;
        const char *speed = r ? jstr(r, "expected_speedup") : NULL;
        int p = detected_by_name(a, pat);
        if (r && p < 0)
            problems[np++] = "its pattern is not among the detected ones";
        char want[64] = "";
        if (p >= 0)
            snprintf(want, sizeof want, "card:%s", iolens_detect_label_name(p));
        if (r && !(cite && (!strcmp(cite, "none") || (want[0] && !strcmp(cite, want)))))
            problems[np++] = "it cites no card of the prompt";
        if (r && (!before || !after || !*before || !*after))
            problems[np++] = "no code before and after";
        if (speed && invented_figure(a, speed, fig, sizeof fig))
            problems[np++] = "a speed-up figure the evidence does not hold";
        const char *api = r ? jstr(r, "api_change") : NULL;
        if ((after && invented_setting(a, after, setting, sizeof setting)) ||
            (api && invented_setting(a, api, setting, sizeof setting))) {
            snprintf(setmsg, sizeof setmsg, "a setting or call the evidence does not contain (%s)", setting);
            problems[np++] = setmsg;
        }
        if (np == 0)
            valid++;
        if (json) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "valid");
            iol_jsonw_bool(&w, np == 0);
            iol_jsonw_key(&w, "problems");
            iol_jsonw_arr_begin(&w);
            for (int k = 0; k < np; k++)
                iol_jsonw_str(&w, problems[k]);
            iol_jsonw_arr_end(&w);
            static const char *const keys[] = {"bottleneck_dimension", "level", "explanation", "code_before", "code_after",
                                               "expected_speedup", "kb_citation", "confidence", "api_change"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                iol_jsonw_key(&w, keys[k]);
                const char *v = r ? jstr(r, keys[k]) : NULL;
                if (v)
                    iol_jsonw_str(&w, v);
                else
                    iol_jsonw_null(&w);
            }
            put_measure(a, p, &w, out);
            iol_jsonw_obj_end(&w);
        } else {
            fprintf(out, "  %zu. %s%s\n", i + 1, pat ? pat : "(no pattern)", np ? "  [flagged]" : "");
            for (int k = 0; k < np; k++)
                fprintf(out, "     flagged: %s\n", problems[k]);
            const char *ex = r ? jstr(r, "explanation") : NULL;
            if (ex)
                fprintf(out, "     %s\n", ex);
            if (before)
                put_code(out, "before", before);
            if (after)
                put_code(out, "after", after);
            fprintf(out, "     follows: %s; expected speed-up: %s\n", cite ? cite : "(no citation)",
                    speed ? speed : "(not given)");
            put_measure(a, p, NULL, out);
        }
    }
    if (json) {
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "valid_recommendations");
        iol_jsonw_uint(&w, valid);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
        fputc('\n', out);
    } else {
        if (n == 0)
            fprintf(out, "  no recommendation: the answer finds no change justified\n");
        fprintf(out, "  %zu of %zu recommendations valid\n", valid, n);
    }
    json_decref(j);
    return 0;
}

int iolens_advise_offline(const iolens_advise *a, FILE *out, int json)
{
    if (!a || !out)
        return iol_err(IOLENS_EINVAL, "iolens_advise_offline: NULL argument");
    iol_jsonw w;
    if (json) {
        json_head(&w, out, a, "template");
        iol_jsonw_key(&w, "recommendations");
        iol_jsonw_arr_begin(&w);
    } else {
        fprintf(out, "%s: template-based advice (the cards' changes filled with this log's evidence; no model)\n",
                a->input);
        if (!a->set)
            fprintf(out, "  no registered pattern is detected: no change is recommended\n");
    }
    const iolens_detect_file *f = a->nfiles ? &a->files[0] : NULL;
    int rank = 0;
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) {
        if (!(a->set & (1u << p)))
            continue;
        const iolens_detect_card *card = iolens_detect_card_get(p);
        const struct tmpl *t = &tmpls[p];
        char ev[1024];
        if (f)
            snprintf(ev, sizeof ev,
                     "%s (probability %.2f): %s. The largest file, %s, moved %" PRId64 " bytes in %" PRId64
                     " operations from %" PRId64 " rank%s, %.1f%% of them below 1 MiB (%" PRId64
                     " independent, %" PRId64 " collective MPI-IO); the job ran %.0f process%s for %.1f s",
                     card->pattern, a->probs[p], card->behavior, f->path[0] ? f->path : "(unnamed)", f->bytes, f->ops,
                     f->ranks, f->ranks == 1 ? "" : "s",
                     f->ops > 0 ? 100.0 * (double)f->small_ops / (double)f->ops : 0.0, f->mpiio_indep, f->mpiio_coll,
                     feat(a, "nprocs"), feat(a, "nprocs") == 1 ? "" : "es", feat(a, "runtime_seconds"));
        else
            snprintf(ev, sizeof ev, "%s (probability %.2f): %s", card->pattern, a->probs[p], card->behavior);
        rank++;
        if (json) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "priority");
            iol_jsonw_int(&w, rank);
            iol_jsonw_key(&w, "bottleneck_dimension");
            iol_jsonw_str(&w, card->pattern);
            iol_jsonw_key(&w, "level");
            iol_jsonw_str(&w, t->level);
            iol_jsonw_key(&w, "explanation");
            iol_jsonw_str(&w, ev);
            iol_jsonw_key(&w, "change");
            iol_jsonw_str(&w, card->change);
            iol_jsonw_key(&w, "code_before");
            iol_jsonw_str(&w, t->before);
            iol_jsonw_key(&w, "code_after");
            iol_jsonw_str(&w, t->after);
            iol_jsonw_key(&w, "does_not_apply_when");
            iol_jsonw_str(&w, card->not_applicable);
            iol_jsonw_key(&w, "expected_speedup");
            iol_jsonw_str(&w, "to be measured");
            iol_jsonw_key(&w, "kb_citation");
            char c[64];
            snprintf(c, sizeof c, "card:%s", card->pattern);
            iol_jsonw_str(&w, c);
            iol_jsonw_key(&w, "template_based");
            iol_jsonw_bool(&w, 1);
            put_measure(a, p, &w, out);
            iol_jsonw_obj_end(&w);
        } else {
            fprintf(out, "  %d. %s — %s (level: %s)\n     %s\n", rank, card->pattern, card->change, t->level, ev);
            put_code(out, "before", t->before);
            put_code(out, "after", t->after);
            fprintf(out, "     does not apply when: %s\n     follows: card:%s\n", card->not_applicable, card->pattern);
            put_measure(a, p, NULL, out);
        }
    }
    if (json) {
        iol_jsonw_arr_end(&w);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
        fputc('\n', out);
    }
    return 0;
}
