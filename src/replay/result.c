/* Replay results: accessors, JSON (machine form) and table (human form). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/exec.h"

static const char *const phase_names[RP_NPHASES] = {"create", "stat", "read", "unlink"};
#include "util/error.h"
#include "util/jsonw.h"

int rp_result_add_info(struct rp_step_result *res, const char *key, const char *value)
{
    struct rp_kv *n = realloc(res->mpi_info, (res->nmpi_info + 1) * sizeof *n);
    if (!n)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    res->mpi_info = n;
    n[res->nmpi_info].key = strdup(key);
    n[res->nmpi_info].value = strdup(value);
    if (!n[res->nmpi_info].key || !n[res->nmpi_info].value) {
        free(n[res->nmpi_info].key);
        free(n[res->nmpi_info].value);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    res->nmpi_info++;
    return 0;
}

void iolens_replay_result_free(iolens_replay_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->steps && i < r->nsteps; i++) {
        struct rp_step_result *s = &r->steps[i];
        free(s->name);
        free(s->path);
        free(s->rank);
        free(s->rep_ts);
        free(s->rep_te);
        for (size_t k = 0; k < s->nmpi_info; k++) {
            free(s->mpi_info[k].key);
            free(s->mpi_info[k].value);
        }
        free(s->mpi_info);
    }
    free(r->steps);
    free(r->root);
    free(r);
}

size_t iolens_replay_result_count(const iolens_replay_result *r) { return r ? r->nsteps : 0; }

int iolens_replay_result_step(const iolens_replay_result *r, size_t i, iolens_replay_step_stats *out)
{
    if (!r || i >= r->nsteps)
        return iol_err(IOLENS_EINVAL, "no step %zu in the result", i);
    const struct rp_step_result *s = &r->steps[i];
    out->name = s->name;
    out->method = rp_method_names[s->method];
    out->interface = rp_iface_names[s->iface];
    out->nranks = s->nranks;
    out->bytes = s->bytes;
    out->ops = s->ops;
    out->seconds = s->seconds;
    out->bandwidth = s->bandwidth;
    out->verify_errors = s->verify_errors;
    return 0;
}

const char *iolens_replay_result_hint(const iolens_replay_result *r, size_t i, const char *hint)
{
    if (!r || i >= r->nsteps)
        return NULL;
    for (size_t k = 0; k < r->steps[i].nhints; k++)
        if (!strcmp(r->steps[i].hints[k].name, hint))
            return r->steps[i].hints[k].status;
    return NULL;
}

const char *iolens_replay_result_mpi_info(const iolens_replay_result *r, size_t i, const char *key)
{
    if (!r || i >= r->nsteps)
        return NULL;
    for (size_t k = 0; k < r->steps[i].nmpi_info; k++)
        if (!strcmp(r->steps[i].mpi_info[k].key, key))
            return r->steps[i].mpi_info[k].value;
    return NULL;
}

int iolens_replay_result_write_json(const iolens_replay_result *r, FILE *out, int pretty)
{
    iol_jsonw w;
    iol_jsonw_init(&w, out, pretty);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "dry_run");
    iol_jsonw_bool(&w, r->dry_run);
    iol_jsonw_key(&w, "nranks");
    iol_jsonw_int(&w, r->nranks);
    iol_jsonw_key(&w, "mpi");
    iol_jsonw_bool(&w, r->mpi);
    iol_jsonw_key(&w, "root");
    if (r->root)
        iol_jsonw_str(&w, r->root);
    else
        iol_jsonw_null(&w);
    iol_jsonw_key(&w, "space_needed_bytes");
    iol_jsonw_double(&w, r->space_needed);
    iol_jsonw_key(&w, "timing");
    iol_jsonw_str(&w, "FBench Algorithm 1: earliest open (before the call) to latest close (after the call) "
                      "across participating ranks");
    iol_jsonw_key(&w, "steps");
    iol_jsonw_arr_begin(&w);
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct rp_step_result *s = &r->steps[i];
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "name");
        iol_jsonw_str(&w, s->name);
        iol_jsonw_key(&w, "method");
        iol_jsonw_str(&w, rp_method_names[s->method]);
        iol_jsonw_key(&w, "interface");
        iol_jsonw_str(&w, rp_iface_names[s->iface]);
        iol_jsonw_key(&w, "file");
        if (s->path)
            iol_jsonw_str(&w, s->path);
        else
            iol_jsonw_null(&w);
        iol_jsonw_key(&w, "file_per_process");
        iol_jsonw_bool(&w, s->file_per_process);
        iol_jsonw_key(&w, "collective");
        iol_jsonw_bool(&w, s->collective);
        iol_jsonw_key(&w, "prefilled");
        iol_jsonw_bool(&w, s->prefilled);
        iol_jsonw_key(&w, "preallocated");
        iol_jsonw_bool(&w, s->preallocated);
        iol_jsonw_key(&w, "bytes");
        iol_jsonw_int(&w, s->bytes);
        iol_jsonw_key(&w, "ops");
        iol_jsonw_int(&w, s->ops);
        iol_jsonw_key(&w, "seconds");
        iol_jsonw_double(&w, s->seconds);
        iol_jsonw_key(&w, "bandwidth_bytes_per_s");
        iol_jsonw_double(&w, s->bandwidth);
        iol_jsonw_key(&w, "verify_errors");
        iol_jsonw_int(&w, s->verify_errors);
        if (s->has_phases && !r->dry_run) {
            /* metadata: per phase, every rank's files over the slowest rank's time (mdtest's rates) */
            iol_jsonw_key(&w, "phases");
            iol_jsonw_arr_begin(&w);
            for (int k = 0; k < RP_NPHASES; k++) {
                if (!s->phase_ops[k])
                    continue;
                iol_jsonw_obj_begin(&w);
                iol_jsonw_key(&w, "phase");
                iol_jsonw_str(&w, phase_names[k]);
                iol_jsonw_key(&w, "ops");
                iol_jsonw_int(&w, s->phase_ops[k]);
                iol_jsonw_key(&w, "seconds");
                iol_jsonw_double(&w, s->phase_seconds[k]);
                iol_jsonw_key(&w, "ops_per_s");
                iol_jsonw_double(&w, s->phase_seconds[k] > 0 ? (double)s->phase_ops[k] / s->phase_seconds[k] : 0);
                iol_jsonw_obj_end(&w);
            }
            iol_jsonw_arr_end(&w);
        }
        iol_jsonw_key(&w, "ranks");
        iol_jsonw_arr_begin(&w);
        for (int k = 0; k < s->nranks; k++) {
            const double *rk = s->rank + (size_t)k * RK_N;
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "rank");
            iol_jsonw_int(&w, k);
            iol_jsonw_key(&w, "bytes");
            iol_jsonw_int(&w, (int64_t)rk[RK_BYTES]);
            iol_jsonw_key(&w, "ops");
            iol_jsonw_int(&w, (int64_t)rk[RK_OPS]);
            if (!r->dry_run) {
                double t = rk[RK_PART] && rk[RK_TE] > rk[RK_TS] ? rk[RK_TE] - rk[RK_TS] : 0;
                iol_jsonw_key(&w, "seconds");
                iol_jsonw_double(&w, t);
                iol_jsonw_key(&w, "start_offset_s");
                iol_jsonw_double(&w, rk[RK_PART] ? rk[RK_TS] - s->ts : 0);
                iol_jsonw_key(&w, "verify_errors");
                iol_jsonw_int(&w, (int64_t)rk[RK_VERIFY]);
            }
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "repeats");
        iol_jsonw_arr_begin(&w);
        for (int64_t k = 0; !r->dry_run && k < s->repeats; k++) {
            double t = s->rep_te[k] > s->rep_ts[k] ? s->rep_te[k] - s->rep_ts[k] : 0;
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "seconds");
            iol_jsonw_double(&w, t);
            iol_jsonw_key(&w, "bandwidth_bytes_per_s");
            iol_jsonw_double(&w, t > 0 && s->method != RP_COMPUTE ? (double)s->bytes / (double)s->repeats / t : 0);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "hints");
        iol_jsonw_obj_begin(&w);
        for (size_t k = 0; k < s->nhints; k++) {
            iol_jsonw_key(&w, s->hints[k].name);
            iol_jsonw_str(&w, s->hints[k].status);
        }
        iol_jsonw_obj_end(&w);
        iol_jsonw_key(&w, "mpi_info_applied");
        iol_jsonw_obj_begin(&w);
        for (size_t k = 0; k < s->nmpi_info; k++) {
            iol_jsonw_key(&w, s->mpi_info[k].key);
            iol_jsonw_str(&w, s->mpi_info[k].value);
        }
        iol_jsonw_obj_end(&w);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    return ferror(out) ? iol_err(IOLENS_EIO, "cannot write the results") : 0;
}

static void human_bytes(char *out, size_t cap, double b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(out, cap, i ? "%.2f %s" : "%.0f %s", b, u[i]);
}

int iolens_replay_result_write_table(const iolens_replay_result *r, FILE *out)
{
    char b1[32], b2[32];
    fprintf(out, "%-28s %-8s %-6s %5s %12s %10s %10s %14s\n", "step", "method", "iface", "ranks", "bytes", "ops",
            r->dry_run ? "" : "seconds", r->dry_run ? "" : "bandwidth");
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct rp_step_result *s = &r->steps[i];
        human_bytes(b1, sizeof b1, (double)s->bytes);
        human_bytes(b2, sizeof b2, s->bandwidth);
        if (s->method == RP_METADATA)
            snprintf(b2, sizeof b2, "%.0f op", s->seconds > 0 ? (double)s->ops / s->seconds : 0);
        if (r->dry_run)
            fprintf(out, "%-28.28s %-8s %-6s %5d %12s %10lld\n", s->name, rp_method_names[s->method],
                    rp_iface_names[s->iface], s->nranks, b1, (long long)s->ops);
        else
            fprintf(out, "%-28.28s %-8s %-6s %5d %12s %10lld %10.4f %12s%s\n", s->name, rp_method_names[s->method],
                    rp_iface_names[s->iface], s->nranks, b1, (long long)s->ops, s->seconds,
                    s->method == RP_COMPUTE ? "-" : b2, s->method == RP_COMPUTE ? "  " : "/s");
        if (s->path)
            fprintf(out, "    file: %s%s%s\n", s->path, s->file_per_process ? " (one per rank)" : "",
                    s->prefilled ? ", prefilled before timing" : s->preallocated ? ", space reserved before timing" : "");
        if (s->has_phases && !r->dry_run) {
            fprintf(out, "    phases:");
            for (int k = 0, n = 0; k < RP_NPHASES; k++)
                if (s->phase_ops[k])
                    fprintf(out, "%s %s %lld in %.4f s = %.0f op/s", n++ ? ";" : "", phase_names[k],
                            (long long)s->phase_ops[k], s->phase_seconds[k],
                            s->phase_seconds[k] > 0 ? (double)s->phase_ops[k] / s->phase_seconds[k] : 0.0);
            fputc('\n', out);
        }
        if (s->verify_errors)
            fprintf(out, "    VERIFY: %lld bytes differ from the written pattern\n", (long long)s->verify_errors);
        for (size_t k = 0; k < s->nhints; k++)
            fprintf(out, "    hint %s: %s\n", s->hints[k].name, s->hints[k].status);
        for (size_t k = 0; k < s->nmpi_info; k++)
            fprintf(out, "    mpi info %s = %s\n", s->mpi_info[k].key, s->mpi_info[k].value);
    }
    if (r->dry_run) {
        human_bytes(b1, sizeof b1, r->space_needed);
        fprintf(out, "dry run for %d rank(s): no file touched; up to %s needed below the root\n", r->nranks, b1);
    }
    return ferror(out) ? iol_err(IOLENS_EIO, "cannot write the results") : 0;
}
