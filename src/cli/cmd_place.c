/* iolens place: OST placement study from cluster centroids (the SAGE paper, §VII). */
#include "cli.h"
#include "opt.h"

#include "iolens/place.h"
#include "util/jsonw.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64
#define MAX_METHODS 16

enum {
    O_TRACES = 1, O_CLUSTERS, O_OSTS, O_LOADS, O_JOBS, O_WORKLOADS, O_SEED, O_BANDWIDTH, O_DRAW, O_HORIZON,
    O_THRESHOLD, O_STEP, O_MODULE, O_METRIC, O_POLICY, O_STARTS, O_JSON, O_SCHEDULE, O_OUTPUT
};
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the output to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "one JSON document (the machine form)"},
    {O_TRACES, 0, "traces", "FILE", "time series CSV (`-` reads stdin): `id,v0,v1,...`, `id,t,value`\n"
                                    "(MiB/s) or a Darshan heatmap_job.csv (required)"},
    {O_CLUSTERS, 0, "clusters", "[NAME=]DIR", "output of `iolens cluster -o DIR` (repeatable; NAME names it)"},
    {O_SCHEDULE, 0, "schedule", NULL, "place the traces as one set of jobs and print each one's OST"},
    {O_OSTS, 0, "osts", "O", "number of OSTs (4)"},
    {O_LOADS, 0, "loads", "L,...", "target storage loads (0.5,1,1.5,2,2.5,3)"},
    {O_JOBS, 0, "jobs", "N,...", "workload sizes (40,80)"},
    {O_WORKLOADS, 0, "workloads", "K", "random workloads per size and load (10)"},
    {O_SEED, 0, "seed", "S", "random seed (1)"},
    {O_BANDWIDTH, 0, "bandwidth", "B", "OST bandwidth: MiB/s, `pQ` the Q-th percentile of the traces'\n"
                                       "I/O samples (default p99.9), `max` the largest sample; or\n"
                                       "`recorded`: each I/O phase alone as long as in the trace"},
    {O_DRAW, 0, "draw", "D", "workloads: `conditioned` (default: random draws kept when their load is\n"
                             "on target) or `replace` (random replacements towards the target load)"},
    {O_HORIZON, 0, "horizon", "SEC", "horizon H in seconds (longest job alone)"},
    {O_THRESHOLD, 0, "threshold", "MIBS", "samples below this are compute time (1)"},
    {O_STEP, 0, "step", "SEC", "seconds per sample of wide/long series (1)"},
    {O_MODULE, 0, "module", "M", "heatmap module (POSIX)"},
    {O_METRIC, 0, "metric", "M", "read, write or total (read)"},
    {O_POLICY, 0, "policy", "P", "with --schedule: round-robin, random, clairvoyant or cluster"},
    {O_STARTS, 0, "starts", "FILE", "with --schedule: CSV `id,start` (seconds; default 0)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "place", "place --traces SERIES [--clusters [NAME=]DIR]... [options]\n"
             "place --schedule --traces SERIES [--clusters [NAME=]DIR] [--policy P] [--starts FILE] [options]",
    "Runs SAGE's OST placement study: workloads of n jobs drawn from the traces at\n"
    "storage load rho, placed by round-robin, random, clairvoyant (real series) and\n"
    "cluster-based (centroid of the job's cluster) policies, then simulated on OSTs\n"
    "whose bandwidth is shared equally by the I/O phases active on them. Prints the\n"
    "difference in geometric-mean I/O stretch against round-robin (the SAGE paper, Fig. 14).\n"
    "With --schedule, places the traces as one set of jobs and prints each one's OST.",
    optv, NULL, NULL, 0};

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
    const char *output;
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
    cli_usage_error(&spec, "%s wants a comma-separated list of positive numbers, not '%s'", opt, s);
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
    static const char *const draws[] = {"conditioned", "replace", NULL};
    static const char *const metrics[] = {"read", "write", "total", NULL};
    static const char *const policies[] = {"round-robin", "random", "clairvoyant", "cluster", NULL};
    cli_args p;
    cli_args_init(&p, &spec, argc, argv);
    int id, k;
    long n;
    while ((id = cli_next(&p)) > 0) {
        const char *v = p.val;
        int bad = 0;
        switch (id) {
        case O_JSON: a->json = 1; break;
        case O_SCHEDULE: a->schedule = 1; break;
        case O_OUTPUT: a->output = v; break;
        case O_TRACES: a->traces = v; break;
        case O_CLUSTERS: {
            if (a->nclusters == MAX_METHODS)
                return cli_usage_error(&spec, "at most %d --clusters", MAX_METHODS), CLI_USAGE;
            const char *eq = strchr(v, '=');
            const char *dir = eq ? eq + 1 : v;
            const char *name = v;
            size_t nl = eq ? (size_t)(eq - v) : strlen(v);
            if (!eq) { /* name = last path component */
                const char *sl = strrchr(v, '/');
                while (sl && sl[1] == '\0' && sl > v) { /* trailing slash */
                    nl = (size_t)(sl - v);
                    const char *q = sl - 1;
                    while (q > v && *q != '/')
                        q--;
                    sl = *q == '/' ? q : NULL;
                }
                if (sl) {
                    name = sl + 1;
                    nl = strlen(name);
                    while (nl && name[nl - 1] == '/')
                        nl--;
                }
            }
            if (nl == 0 || nl >= sizeof a->cluster_name[0] || !*dir)
                return cli_usage_error(&spec, "--clusters wants [NAME=]DIR, not '%s'", v), CLI_USAGE;
            memcpy(a->cluster_name[a->nclusters], name, nl);
            a->cluster_name[a->nclusters][nl] = '\0';
            a->cluster_dir[a->nclusters++] = dir;
            break;
        }
        case O_OSTS:
            if (cli_val_long(&p, 1, 4096, &n) < 0)
                return CLI_USAGE;
            a->osts = (unsigned)n;
            break;
        case O_LOADS:
            if (parse_list(v, "--loads", 1, a->loads, NULL, &a->nloads))
                return CLI_USAGE;
            break;
        case O_JOBS:
            if (parse_list(v, "--jobs", 0, NULL, a->jobs, &a->njobs))
                return CLI_USAGE;
            break;
        case O_WORKLOADS:
            if (cli_val_long(&p, 1, 100000, &n) < 0)
                return CLI_USAGE;
            a->workloads = (unsigned)n;
            break;
        case O_SEED:
            if (cli_val_long(&p, 0, LONG_MAX, &n) < 0)
                return CLI_USAGE;
            a->seed = (uint64_t)n;
            break;
        case O_BANDWIDTH: {
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
            if (bad)
                return cli_usage_error(&spec, "--bandwidth wants MiB/s, pQ, max or recorded, not '%s'", v), CLI_USAGE;
            break;
        }
        case O_DRAW:
            if (cli_val_choice(&p, draws, &k) < 0)
                return CLI_USAGE;
            a->draw = k ? IOLENS_PLACE_DRAW_REPLACE : IOLENS_PLACE_DRAW_CONDITIONED;
            break;
        case O_HORIZON:
        case O_THRESHOLD:
        case O_STEP: {
            double d;
            if (cli_val_double(&p, 1e-12, 1e12, &d) < 0)
                return CLI_USAGE;
            *(id == O_HORIZON ? &a->horizon : id == O_THRESHOLD ? &a->threshold : &a->step) = d;
            break;
        }
        case O_MODULE: a->module = v; break;
        case O_METRIC:
            if (cli_val_choice(&p, metrics, &k) < 0)
                return CLI_USAGE;
            a->metric = k == 0 ? IOLENS_PLACE_METRIC_READ : k == 1 ? IOLENS_PLACE_METRIC_WRITE : IOLENS_PLACE_METRIC_TOTAL;
            break;
        case O_POLICY:
            if (cli_val_choice(&p, policies, &k) < 0)
                return CLI_USAGE;
            a->policy = parse_policy(v);
            break;
        case O_STARTS: a->starts = v; break;
        }
    }
    if (id == CLI_OPT_HELP)
        return 3;
    if (id < 0)
        return CLI_USAGE;
    if (cli_want_operands(&p, 0, 0, "") < 0)
        return CLI_USAGE;
    if (!a->traces)
        return cli_usage_error(&spec, "--traces is required"), CLI_USAGE;
    if (a->schedule && a->nclusters > 1)
        return cli_usage_error(&spec, "--schedule takes at most one --clusters"), CLI_USAGE;
    if (a->policy == IOLENS_PLACE_CLUSTER && a->nclusters == 0)
        return cli_usage_error(&spec, "--policy cluster needs --clusters DIR"), CLI_USAGE;
    if (a->starts && !a->schedule)
        return cli_usage_error(&spec, "--starts goes with --schedule"), CLI_USAGE;
    if (a->policy >= 0 && !a->schedule)
        return cli_usage_error(&spec, "--policy goes with --schedule"), CLI_USAGE;
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
    if (rc == 3) /* the help was printed */
        return CLI_OK;
    if (rc)
        return rc;
    if (a.output && cli_output_to(a.output) < 0)
        return CLI_FAIL;
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
