/* iolens place: OST placement study from cluster centroids (the SAGE paper, §VII). */
#include "cli.h"

#include "iolens/place.h"
#include "util/jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64
#define MAX_METHODS 16

static const char usage_text[] =
    "usage: iolens place --traces SERIES [--clusters [NAME=]DIR]... [options]\n"
    "       iolens place --schedule --traces SERIES [--clusters [NAME=]DIR] [--policy P] [--starts FILE] [options]\n"
    "\n"
    "Runs SAGE's OST placement study: workloads of n jobs drawn from the traces at\n"
    "storage load rho, placed by round-robin, random, clairvoyant (real series) and\n"
    "cluster-based (centroid of the job's cluster) policies, then simulated on OSTs\n"
    "whose bandwidth is shared equally by the I/O phases active on them. Prints the\n"
    "difference in geometric-mean I/O stretch against round-robin (the SAGE paper, Fig. 14).\n"
    "With --schedule, places the traces as one set of jobs and prints each one's OST.\n"
    "\n"
    "  --traces FILE        time series CSV (`-` reads stdin): `id,v0,v1,...`, `id,t,value`\n"
    "                       (MiB/s) or a Darshan heatmap_job.csv\n"
    "  --clusters [N=]DIR   output of `iolens cluster --out DIR` (repeatable; N names it)\n"
    "  --osts O             number of OSTs (4)\n"
    "  --loads L,...        target storage loads (0.5,1,1.5,2,2.5,3)\n"
    "  --jobs N,...         workload sizes (40,80)\n"
    "  --workloads K        random workloads per size and load (10)\n"
    "  --seed S             random seed (1)\n"
    "  --bandwidth B        OST bandwidth: MiB/s, `pQ` the Q-th percentile of the traces'\n"
    "                       I/O samples (default p99.9), `max` the largest sample; or\n"
    "                       `recorded`: each I/O phase alone as long as in the trace\n"
    "  --draw D             workloads: `conditioned` (default: random draws kept when\n"
    "                       their load is on target) or `replace` (random replacements\n"
    "                       towards the target load)\n"
    "  --horizon SEC        horizon H in seconds (longest job alone)\n"
    "  --threshold MIBS     samples below this are compute time (1)\n"
    "  --step SEC           seconds per sample of wide/long series (1)\n"
    "  --module M           heatmap module (POSIX);  --metric read|write|total (read)\n"
    "  --policy P           --schedule: round-robin|random|clairvoyant|cluster\n"
    "  --starts FILE        --schedule: CSV `id,start` (seconds; default 0)\n"
    "  --json               machine-readable output\n";

static void usage(FILE *out) { fputs(usage_text, out); }

typedef struct place_args {
    const char *traces;
    const char *cluster_dir[MAX_METHODS];
    char cluster_name[MAX_METHODS][64];
    size_t nclusters;
    unsigned osts;
    double loads[MAX_LIST];
    size_t nloads;
    unsigned jobs[MAX_LIST];
    size_t njobs;
    unsigned workloads;
    uint64_t seed;
    double bandwidth, bandwidth_quantile, horizon, threshold, step;
    iolens_place_io_model io_model;
    iolens_place_draw draw;
    const char *module;
    iolens_place_metric metric;
    int schedule, json;
    int policy; /* -1: default */
    const char *starts;
} place_args;

static int parse_double(const char *s, double *v, double min_excl)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x) || !(x > min_excl))
        return -1;
    *v = x;
    return 0;
}

static int parse_uint(const char *s, unsigned *v, unsigned max)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (errno || end == s || *end || x == 0 || x > max || s[0] == '-')
        return -1;
    *v = (unsigned)x;
    return 0;
}

static int parse_list(const char *s, const char *opt, int dbl, double *dv, unsigned *uv, size_t *n)
{
    char buf[1024];
    if (strlen(s) >= sizeof buf)
        goto bad;
    strcpy(buf, s);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n >= MAX_LIST)
            goto bad;
        if (dbl ? parse_double(tok, &dv[*n], 0) : parse_uint(tok, &uv[*n], 100000))
            goto bad;
        (*n)++;
    }
    if (*n)
        return 0;
bad:
    cli_error("bad value '%s' for %s (a comma-separated list of positive numbers)", s, opt);
    return -1;
}

static int parse_policy(const char *s)
{
    static const iolens_place_policy all[] = {IOLENS_PLACE_ROUND_ROBIN, IOLENS_PLACE_RANDOM, IOLENS_PLACE_CLAIRVOYANT,
                                              IOLENS_PLACE_CLUSTER};
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(s, iolens_place_policy_name(all[i])))
            return (int)all[i];
    return -1;
}

/* Returns CLI_OK, or CLI_USAGE after printing the problem; 3 means --help. */
static int parse_args(place_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->osts = 4;
    a->workloads = 10;
    a->seed = 1;
    a->policy = -1;
    const double loads[] = {0.5, 1, 1.5, 2, 2.5, 3};
    memcpy(a->loads, loads, sizeof loads);
    a->nloads = 6;
    a->jobs[0] = 40;
    a->jobs[1] = 80;
    a->njobs = 2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 3;
        if (!strcmp(o, "--json")) {
            a->json = 1;
            continue;
        }
        if (!strcmp(o, "--schedule")) {
            a->schedule = 1;
            continue;
        }
        if (!v) {
            cli_unknown_option("place", o, usage);
            return CLI_USAGE;
        }
        i++;
        int bad = 0;
        if (!strcmp(o, "--traces")) {
            a->traces = v;
        } else if (!strcmp(o, "--clusters")) {
            if (a->nclusters == MAX_METHODS) {
                cli_error("at most %d --clusters", MAX_METHODS);
                return CLI_USAGE;
            }
            const char *eq = strchr(v, '=');
            const char *dir = eq ? eq + 1 : v;
            const char *name = v;
            size_t nl = eq ? (size_t)(eq - v) : strlen(v);
            if (!eq) { /* name = last path component */
                const char *sl = strrchr(v, '/');
                while (sl && sl[1] == '\0' && sl > v) { /* trailing slash */
                    nl = (size_t)(sl - v);
                    const char *p = sl - 1;
                    while (p > v && *p != '/')
                        p--;
                    sl = *p == '/' ? p : NULL;
                }
                if (sl) {
                    name = sl + 1;
                    nl = strlen(name);
                    while (nl && name[nl - 1] == '/')
                        nl--;
                }
            }
            if (nl == 0 || nl >= sizeof a->cluster_name[0] || !*dir) {
                cli_error("bad value '%s' for --clusters (want [NAME=]DIR)", v);
                return CLI_USAGE;
            }
            memcpy(a->cluster_name[a->nclusters], name, nl);
            a->cluster_name[a->nclusters][nl] = '\0';
            a->cluster_dir[a->nclusters++] = dir;
        } else if (!strcmp(o, "--osts")) {
            bad = parse_uint(v, &a->osts, 4096);
        } else if (!strcmp(o, "--loads")) {
            if (parse_list(v, o, 1, a->loads, NULL, &a->nloads))
                return CLI_USAGE;
        } else if (!strcmp(o, "--jobs")) {
            if (parse_list(v, o, 0, NULL, a->jobs, &a->njobs))
                return CLI_USAGE;
        } else if (!strcmp(o, "--workloads")) {
            bad = parse_uint(v, &a->workloads, 100000);
        } else if (!strcmp(o, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            bad = errno || end == v || *end || v[0] == '-';
            a->seed = s;
        } else if (!strcmp(o, "--bandwidth")) {
            int rec = !strcmp(v, "recorded");
            a->io_model = rec ? IOLENS_PLACE_IO_RECORDED : IOLENS_PLACE_IO_VOLUME;
            a->bandwidth = a->bandwidth_quantile = 0;
            if (!strcmp(v, "max")) {
                a->bandwidth_quantile = 1;
            } else if (v[0] == 'p') { /* pQ: the Q-th percentile */
                bad = parse_double(v + 1, &a->bandwidth_quantile, 0) || a->bandwidth_quantile > 100;
                a->bandwidth_quantile /= 100;
            } else if (!rec) {
                bad = parse_double(v, &a->bandwidth, 0);
            }
        } else if (!strcmp(o, "--draw")) {
            bad = strcmp(v, "conditioned") && strcmp(v, "replace");
            a->draw = !strcmp(v, "replace") ? IOLENS_PLACE_DRAW_REPLACE : IOLENS_PLACE_DRAW_CONDITIONED;
        } else if (!strcmp(o, "--horizon")) {
            bad = parse_double(v, &a->horizon, 0);
        } else if (!strcmp(o, "--threshold")) {
            bad = parse_double(v, &a->threshold, 0);
        } else if (!strcmp(o, "--step")) {
            bad = parse_double(v, &a->step, 0);
        } else if (!strcmp(o, "--module")) {
            a->module = v;
        } else if (!strcmp(o, "--metric")) {
            a->metric = !strcmp(v, "read")    ? IOLENS_PLACE_METRIC_READ
                        : !strcmp(v, "write") ? IOLENS_PLACE_METRIC_WRITE
                                              : IOLENS_PLACE_METRIC_TOTAL;
            bad = strcmp(v, "read") && strcmp(v, "write") && strcmp(v, "total");
        } else if (!strcmp(o, "--policy")) {
            a->policy = parse_policy(v);
            bad = a->policy < 0;
        } else if (!strcmp(o, "--starts")) {
            a->starts = v;
        } else {
            cli_unknown_option("place", o, usage);
            return CLI_USAGE;
        }
        if (bad) {
            cli_error("bad value '%s' for %s", v, o);
            return CLI_USAGE;
        }
    }
    if (!a->traces) {
        cli_error("--traces is required; see 'iolens place --help'");
        return CLI_USAGE;
    }
    if (a->schedule && a->nclusters > 1) {
        cli_error("--schedule takes at most one --clusters");
        return CLI_USAGE;
    }
    if (a->policy == IOLENS_PLACE_CLUSTER && a->nclusters == 0) {
        cli_error("--policy cluster needs --clusters DIR");
        return CLI_USAGE;
    }
    if (a->starts && !a->schedule) {
        cli_error("--starts goes with --schedule");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static void on_progress(void *ctx, size_t done, size_t total)
{
    cli_progress *p = ctx;
    (void)total;
    cli_progress_step(p, done - p->done);
}

/* Mean over workloads of 100 * (g_policy - g_rr) / g_rr for one (size, load,
 * policy, method); *count gets the number of workloads. */
static double mean_diff(const iolens_place_result *r, size_t n, unsigned jobs, double load, iolens_place_policy pol,
                        int method, size_t *count)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].jobs != jobs || r[i].rho_target != load || r[i].policy != pol || r[i].method != method)
            continue;
        for (size_t j = 0; j < n; j++) {
            if (r[j].jobs == jobs && r[j].rho_target == load && r[j].workload == r[i].workload &&
                r[j].policy == IOLENS_PLACE_ROUND_ROBIN) {
                sum += 100.0 * (r[i].geomean_stretch - r[j].geomean_stretch) / r[j].geomean_stretch;
                k++;
                break;
            }
        }
    }
    *count = k;
    return k ? sum / (double)k : NAN;
}

static double mean_rr(const iolens_place_result *r, size_t n, unsigned jobs, double load)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].jobs == jobs && r[i].rho_target == load && r[i].policy == IOLENS_PLACE_ROUND_ROBIN) {
            s += r[i].geomean_stretch;
            k++;
        }
    return k ? s / (double)k : NAN;
}

/* "4 OSTs of 9034 MiB/s" or "4 OSTs, I/O phases as long alone as recorded". */
static void osts_text(char *buf, size_t len, const iolens_place_pool *pool)
{
    if (iolens_place_pool_io_model(pool) == IOLENS_PLACE_IO_RECORDED)
        snprintf(buf, len, "%u OSTs, each I/O phase as long alone as recorded", iolens_place_pool_nost(pool));
    else
        snprintf(buf, len, "%u OSTs of %.6g MiB/s", iolens_place_pool_nost(pool), iolens_place_pool_bandwidth(pool));
}

/* "io_model" and "bandwidth_mib_s" (null in the recorded model). */
static void json_model(iol_jsonw *w, const iolens_place_pool *pool)
{
    int rec = iolens_place_pool_io_model(pool) == IOLENS_PLACE_IO_RECORDED;
    iol_jsonw_key(w, "io_model");
    iol_jsonw_str(w, rec ? "recorded" : "volume");
    iol_jsonw_key(w, "bandwidth_mib_s");
    if (rec)
        iol_jsonw_null(w);
    else
        iol_jsonw_double(w, iolens_place_pool_bandwidth(pool));
}

static void print_table(const place_args *a, const iolens_place_result *r, size_t n, const iolens_place_pool *pool)
{
    char osts[96];
    osts_text(osts, sizeof osts, pool);
    printf("OST placement study: %s, horizon %.6g s, pool of %zu traces (%zu left out), %u workloads per load\n",
           osts, iolens_place_pool_horizon(pool), iolens_place_pool_count(pool), iolens_place_pool_skipped(pool),
           a->workloads);
    printf("Difference in geometric-mean I/O stretch vs round-robin (%%, mean over workloads; negative = better)\n");
    for (size_t b = 0; b < a->njobs; b++) {
        char head[32];
        snprintf(head, sizeof head, "%u jobs", a->jobs[b]);
        printf("\n%-22s", head);
        for (size_t c = 0; c < a->nloads; c++) {
            char col[32];
            snprintf(col, sizeof col, "rho=%g", a->loads[c]);
            printf(" %11s", col);
        }
        printf("\n");
        size_t rows = 2 + a->nclusters;
        for (size_t q = 0; q < rows; q++) {
            iolens_place_policy pol = q == 0 ? IOLENS_PLACE_CLAIRVOYANT
                                      : q <= a->nclusters ? IOLENS_PLACE_CLUSTER
                                                          : IOLENS_PLACE_RANDOM;
            int method = pol == IOLENS_PLACE_CLUSTER ? (int)(q - 1) : -1;
            char label[96];
            if (pol == IOLENS_PLACE_CLUSTER)
                snprintf(label, sizeof label, "  cluster (%s)", a->cluster_name[method]);
            else
                snprintf(label, sizeof label, "  %s", iolens_place_policy_name(pol));
            printf("%-22s", label);
            for (size_t c = 0; c < a->nloads; c++) {
                size_t cnt;
                double d = mean_diff(r, n, a->jobs[b], a->loads[c], pol, method, &cnt);
                if (cnt)
                    printf(" %+11.1f", d);
                else
                    printf(" %11s", "-");
            }
            printf("\n");
        }
        printf("%-22s", "  round-robin stretch");
        for (size_t c = 0; c < a->nloads; c++) {
            double g = mean_rr(r, n, a->jobs[b], a->loads[c]);
            if (isnan(g))
                printf(" %11s", "-");
            else
                printf(" %11.3f", g);
        }
        printf("\n");
    }
}

static void print_json(const place_args *a, const iolens_place_result *r, size_t n, const iolens_place_pool *pool)
{
    iol_jsonw w;
    iol_jsonw_init(&w, stdout, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "osts");
    iol_jsonw_uint(&w, iolens_place_pool_nost(pool));
    json_model(&w, pool);
    iol_jsonw_key(&w, "horizon_s");
    iol_jsonw_double(&w, iolens_place_pool_horizon(pool));
    iol_jsonw_key(&w, "pool");
    iol_jsonw_uint(&w, iolens_place_pool_count(pool));
    iol_jsonw_key(&w, "results");
    iol_jsonw_arr_begin(&w);
    for (size_t i = 0; i < n; i++) {
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "jobs");
        iol_jsonw_uint(&w, r[i].jobs);
        iol_jsonw_key(&w, "rho");
        iol_jsonw_double(&w, r[i].rho_target);
        iol_jsonw_key(&w, "rho_drawn");
        iol_jsonw_double(&w, r[i].rho);
        iol_jsonw_key(&w, "workload");
        iol_jsonw_uint(&w, r[i].workload);
        iol_jsonw_key(&w, "policy");
        iol_jsonw_str(&w, iolens_place_policy_name(r[i].policy));
        if (r[i].policy == IOLENS_PLACE_CLUSTER) {
            iol_jsonw_key(&w, "clusters");
            iol_jsonw_str(&w, a->cluster_name[r[i].method]);
        }
        iol_jsonw_key(&w, "geomean_stretch");
        iol_jsonw_double(&w, r[i].geomean_stretch);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
}

static int run_schedule(const place_args *a, const iolens_place_series *traces, const iolens_place_clusters *cl,
                        const iolens_place_pool *pool)
{
    int rc = CLI_FAIL;
    iolens_place_series *starts = NULL;
    size_t n = iolens_place_pool_count(pool);
    iolens_place_workload w = {0};
    unsigned *ost = malloc(n * sizeof *ost);
    iolens_place_outcome *out = malloc(n * sizeof *out);
    w.entry = malloc(n * sizeof *w.entry);
    w.start = calloc(n, sizeof *w.start);
    if (!ost || !out || !w.entry || !w.start) {
        cli_error("out of memory");
        goto done;
    }
    if (a->starts && iolens_place_series_read(&starts, a->starts, NULL)) {
        cli_lib_error();
        goto done;
    }
    w.n = n;
    for (size_t j = 0; j < n; j++) {
        w.entry[j] = j;
        const char *id = iolens_place_series_id(traces, iolens_place_pool_trace(pool, j));
        if (starts) {
            long k = iolens_place_series_find(starts, id);
            size_t len = 0;
            const double *v = k >= 0 ? iolens_place_series_values(starts, (size_t)k, &len) : NULL;
            if (!len) {
                cli_error("'%s' gives no start time for '%s'", a->starts, id);
                goto done;
            }
            w.start[j] = v[0];
        }
    }
    int policy = a->policy >= 0 ? a->policy : cl ? IOLENS_PLACE_CLUSTER : IOLENS_PLACE_CLAIRVOYANT;
    double g;
    if (iolens_place_run(&g, ost, out, pool, &w, (iolens_place_policy)policy, 0, a->seed)) {
        cli_lib_error();
        goto done;
    }
    iol_jsonw jw;
    if (a->json) {
        iol_jsonw_init(&jw, stdout, 0);
        iol_jsonw_obj_begin(&jw);
        iol_jsonw_key(&jw, "policy");
        iol_jsonw_str(&jw, iolens_place_policy_name((iolens_place_policy)policy));
        iol_jsonw_key(&jw, "osts");
        iol_jsonw_uint(&jw, iolens_place_pool_nost(pool));
        json_model(&jw, pool);
        iol_jsonw_key(&jw, "geomean_stretch");
        iol_jsonw_double(&jw, g);
        iol_jsonw_key(&jw, "jobs");
        iol_jsonw_arr_begin(&jw);
    } else {
        char osts[96];
        osts_text(osts, sizeof osts, pool);
        printf("policy %s, %s, geometric-mean I/O stretch %.4f\n", iolens_place_policy_name((iolens_place_policy)policy),
               osts, g);
        printf("%-40s %10s %4s %10s %10s %8s\n", "id", "start_s", "ost", "end_s", "io_s", "stretch");
    }
    for (size_t j = 0; j < n; j++) {
        const char *id = iolens_place_series_id(traces, iolens_place_pool_trace(pool, j));
        long k = cl ? iolens_place_clusters_of(cl, id) : -1;
        if (!a->json) {
            printf("%-40s %10.6g %4u %10.6g %10.6g %8.4f\n", id, w.start[j], ost[j], out[j].end, out[j].io_time,
                   out[j].stretch);
            continue;
        }
        iol_jsonw_obj_begin(&jw);
        iol_jsonw_key(&jw, "id");
        iol_jsonw_str(&jw, id);
        if (k >= 0) {
            iol_jsonw_key(&jw, "cluster");
            iol_jsonw_str(&jw, iolens_place_clusters_label(cl, (size_t)k));
        }
        iol_jsonw_key(&jw, "ost");
        iol_jsonw_uint(&jw, ost[j]);
        iol_jsonw_key(&jw, "start");
        iol_jsonw_double(&jw, w.start[j]);
        iol_jsonw_key(&jw, "end");
        iol_jsonw_double(&jw, out[j].end);
        iol_jsonw_key(&jw, "io_time");
        iol_jsonw_double(&jw, out[j].io_time);
        iol_jsonw_key(&jw, "io_isol");
        iol_jsonw_double(&jw, out[j].io_isol);
        iol_jsonw_key(&jw, "stretch");
        iol_jsonw_double(&jw, out[j].stretch);
        iol_jsonw_obj_end(&jw);
    }
    if (a->json) {
        iol_jsonw_arr_end(&jw);
        iol_jsonw_key(&jw, "left_out");
        iol_jsonw_uint(&jw, iolens_place_pool_skipped(pool));
        iol_jsonw_obj_end(&jw);
        iol_jsonw_finish(&jw);
    } else if (iolens_place_pool_skipped(pool)) {
        printf("(%zu traces without I/O or cluster left out)\n", iolens_place_pool_skipped(pool));
    }
    rc = CLI_OK;
done:
    free(ost);
    free(out);
    iolens_place_workload_release(&w);
    iolens_place_series_free(starts);
    return rc;
}

int cmd_place(int argc, char **argv)
{
    place_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 3) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (rc)
        return rc;
    rc = CLI_FAIL;
    iolens_place_series *traces = NULL;
    iolens_place_clusters *cl[MAX_METHODS] = {0};
    iolens_place_pool *pool = NULL;
    iolens_place_result *res = NULL;
    size_t nres = 0;
    iolens_place_series_opts so = {.step_seconds = a.step, .heatmap_module = a.module, .heatmap_metric = a.metric};
    if (iolens_place_series_read(&traces, strcmp(a.traces, "-") ? a.traces : "/dev/stdin", &so)) {
        cli_lib_error();
        goto done;
    }
    for (size_t m = 0; m < a.nclusters; m++)
        if (iolens_place_clusters_read(&cl[m], a.cluster_dir[m])) {
            cli_lib_error();
            goto done;
        }
    iolens_place_pool_opts po = {.threshold = a.threshold, .io_model = a.io_model, .draw = a.draw, .bandwidth = a.bandwidth,
                                 .bandwidth_quantile = a.bandwidth_quantile,
                                 .horizon = a.horizon,
                                 .nost = a.osts};
    if (iolens_place_pool_build(&pool, traces, (const iolens_place_clusters *const *)cl, a.nclusters, &po)) {
        cli_lib_error();
        goto done;
    }
    if (iolens_place_pool_unclustered(pool))
        cli_warn("%zu traces of '%s' have no cluster in %s: left out", iolens_place_pool_unclustered(pool), a.traces,
                 a.nclusters > 1 ? "some --clusters" : a.cluster_dir[0]);
    if (a.schedule) {
        rc = run_schedule(&a, traces, cl[0], pool);
        goto done;
    }
    for (size_t b = 0; b < a.njobs; b++)
        for (size_t c = 0; c < a.nloads; c++) {
            double lo, hi;
            iolens_place_load_range(pool, a.jobs[b], &lo, &hi);
            if (lo > a.loads[c] + 0.02 || hi < a.loads[c] - 0.02)
                cli_warn("load %g is out of reach with %u jobs of this pool (%.3g to %.3g): skipped", a.loads[c],
                         a.jobs[b], lo, hi);
        }
    cli_progress prog;
    cli_progress_init(&prog, "placing workloads", (unsigned long)(a.njobs * a.nloads * a.workloads));
    iolens_place_study_opts st = {.jobs = a.jobs, .njobs = a.njobs, .loads = a.loads, .nloads = a.nloads,
                                  .workloads = a.workloads, .seed = a.seed, .progress = on_progress,
                                  .progress_ctx = &prog};
    int src = iolens_place_study(&res, &nres, pool, &st);
    cli_progress_end(&prog);
    if (src) {
        cli_lib_error();
        goto done;
    }
    if (a.json)
        print_json(&a, res, nres, pool);
    else
        print_table(&a, res, nres, pool);
    rc = CLI_OK;
done:
    free(res);
    iolens_place_pool_free(pool);
    for (size_t m = 0; m < a.nclusters; m++)
        iolens_place_clusters_free(cl[m]);
    iolens_place_series_free(traces);
    return rc;
}
