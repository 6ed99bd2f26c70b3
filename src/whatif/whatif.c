/* The closed loop (include/iolens/whatif.h, docs/whatif.md): detect the patterns of a trace (the
 * shipped models, gate tau 0.3) or take them from the options, build the base config as `iolens
 * replay --config-from` does, derive one variant per pattern with its card's change
 * (iolens_replay_whatif), replay the base and every variant in rounds whose order rotates, and
 * report the measured speed-ups. Each replay is the iolens program's `replay` command, a process
 * group of its own (mpirun and its ranks when it has several), stopped at the timeout. */
#define _GNU_SOURCE /* mkdtemp, open_memstream */
#include "iolens/whatif.h"

#include "iolens/detect.h"
#include "iolens/paired.h"
#include "iolens/replay.h"
#include "iolens/trace.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc.h"
#include "util/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define MAX_VARIANTS (IOLENS_DETECT_NPATTERNS + 2) /* one per pattern, one --combine variant, --control */
#define LUSTRE_MAGIC 0x0BD00BD0

struct run {
    double seconds; /* sum of the steps' Algorithm-1 times */
    long long bytes;
    json_t *steps;  /* [{name, method, bytes, seconds, bandwidth_bytes_per_s}] */
};

struct variant {
    const char *name; /* "base", the pattern, or "P1+P2..." (--combine) */
    const char *change; /* what the change is */
    char combo[256];
    int status;       /* IOLENS_REPLAY_WHATIF_* (base: APPLIED) */
    char note[4096];
    iolens_replay_config *cfg;
    char path[PATH_MAX];
    int trace;         /* --level hdf5: path is the trace, replayed on the fly with xargs */
    const char *xargs[3];
    struct run *runs;
    double median, min, max;
};

static int runnable(const struct variant *v) { return v->cfg || v->trace; }

struct opts {
    const char *input, *root, *keep, *models, *patterns, *combine, *program;
    int np, rounds, dry, all_paths, root_anywhere, drop_caches, cold_reads, control;
    iolens_warn_fn warn;
    void *warn_ctx;
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    volatile sig_atomic_t *stop;
    int adaptive, max_rounds; /* rounds not given: from ADAPT_MIN up to max_rounds, see adapt_done() */
    char traced_dir[PATH_MAX]; /* folder of the trace's largest file ("" unknown) */
    char traced_fs[32], replay_fs[32]; /* their file-system types ("" unknown) */
    char near_dir[PATH_MAX];   /* traced_dir, or its nearest existing parent */
    const char *fsroot;        /* where the runs' folder is made */
    double traced_run;         /* the traced run's time (first to last call), 0 unknown */
    double traced_io;          /* of which in I/O calls, per process (its counters' times), 0 unknown */
    double timeout;
    int measured; /* set once runs were made: some variant applies and not a dry run */
    int library;  /* --level hdf5 */
};

/* The machine around each round: its 1-minute load average and the CPU time stolen from it
 * (a virtual machine's host) since the round before, read from /proc. */
struct machine {
    double load1[1000]; /* at the start of each round (< 0: unknown) */
    double steal[1000]; /* share of the CPU time stolen during the round before it (< 0: unknown) */
    int cores;
};

struct iolens_whatif {
    struct opts o;
    struct machine mach;
    struct variant v[1 + MAX_VARIANTS];
    int nv;
    const char *names[IOLENS_DETECT_NPATTERNS];
    int npat;
    double probs[IOLENS_DETECT_NLABELS];
    int has_probs, no_records;
};

static void warnf(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(const struct opts *o, const char *fmt, ...)
{
    if (!o->warn)
        return;
    char msg[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->warn(o->warn_ctx, msg);
}

static int stopped(const struct opts *o) { return o->stop && *o->stop; }

/* the input's counters, as `iolens detect` reads them */
static int detect_read(const struct opts *o, iolens_detect_input **in)
{
    iolens_detect_read_opts ro;
    iolens_detect_read_opts_init(&ro);
    ro.all_paths = o->all_paths ? 1 : 2; /* an application's files on /dev/shm are its data */
    ro.warn = o->warn;
    ro.warn_ctx = o->warn_ctx;
    return iolens_detect_read(in, o->input, &ro);
}

static double median_of(const struct run *r, int n, double *mn, double *mx)
{
    double v[1024];
    int k = n < 1024 ? n : 1024;
    for (int i = 0; i < k; i++)
        v[i] = r[i].seconds;
    qsort(v, (size_t)k, sizeof v[0], iol_cmp_double);
    *mn = k ? v[0] : 0;
    *mx = k ? v[k - 1] : 0;
    return iol_median_sorted(v, (size_t)k);
}

/* The per-round ratios base / variant (each round ran both) and their paired summary. */
/* A change whose whole interval lies within 2% of no change is reported "within noise": it is
 * real but too small to act on (and the whole-run figure, where the unchanged rest of the run is
 * taken as exact, gives such narrow intervals). */
#define NEGLIGIBLE 1.02
static int summarize(double *ratios, int n, iolens_paired_summary *s)
{
    if (n <= 0 || iolens_paired_summarize(ratios, (size_t)n, 0.90, s) < 0)
        return -1;
    if (s->k && s->lo >= 1.0 / NEGLIGIBLE && s->hi <= NEGLIGIBLE)
        s->verdict = IOLENS_PAIRED_WITHIN_NOISE;
    return 0;
}

static int paired_of(const struct variant *b, const struct variant *v, int rounds, double *ratios,
                     iolens_paired_summary *s)
{
    int n = 0;
    for (int r = 0; r < rounds; r++)
        if (b->runs[r].seconds > 0 && v->runs[r].seconds > 0)
            ratios[n++] = b->runs[r].seconds / v->runs[r].seconds;
    return summarize(ratios, n, s);
}

/* The whole run's predicted speed-up, round by round: the traced run's time less the base
 * replay's median I/O time is the part of the run the change leaves alone (Amdahl), one figure for
 * every round (a property of the traced run, not of a round: a base replay slower than the traced
 * run in one round does not make that round's rest zero); round r predicts
 * (rest + base_r) / (rest + variant_r). -1 when the run time is unknown (a CONFIG.json) or no round
 * has both times. */
static int run_paired_of(const struct opts *o, const struct variant *b, const struct variant *v, int rounds,
                         double *ratios, iolens_paired_summary *s)
{
    int n = 0;
    if (!(o->traced_run > 0) || !isfinite(o->traced_run))
        return -1;
    for (int r = 0; r < rounds; r++)
        if (b->runs[r].seconds > 0)
            ratios[n++] = b->runs[r].seconds;
    if (!n)
        return -1;
    qsort(ratios, (size_t)n, sizeof *ratios, iol_cmp_double);
    double med = iol_median_sorted(ratios, (size_t)n);
    /* the traced run's own split when its counters have times, else the base replay's median */
    double io = o->traced_io > 0 ? o->traced_io : med;
    double rest = o->traced_run - io > 0 ? o->traced_run - io : 0;
    n = 0;
    for (int r = 0; r < rounds; r++)
        if (b->runs[r].seconds > 0 && v->runs[r].seconds > 0)
            ratios[n++] = (rest + b->runs[r].seconds) / (rest + v->runs[r].seconds);
    return summarize(ratios, n, s);
}

/* /proc/loadavg's 1-minute figure; -1 when unreadable */
static double read_load1(void)
{
    FILE *f = fopen("/proc/loadavg", "re");
    double l = -1;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* /proc/stat's total and stolen CPU ticks; 0 when unreadable */
static int read_steal(unsigned long long *total, unsigned long long *steal)
{
    FILE *f = fopen("/proc/stat", "re");
    unsigned long long v[8] = {0};
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7])
              : 0;
    if (f)
        fclose(f);
    if (n < 8)
        return 0;
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *steal = v[7];
    return 1;
}

static int find_control(const struct variant *v, int nv)
{
    for (int k = 1; k < nv; k++)
        if (!strcmp(v[k].name, "control") && v[k].runs)
            return k;
    return -1;
}

/* The base's drift over the rounds: median of the first half of its times over that of the
 * second half, or the inverse, whichever is larger (1: none; fewer than 4 rounds: unknown, 1). */
static double base_drift(const struct variant *b, int rounds)
{
    if (!b->runs || rounds < 4 || rounds > 1000)
        return 1;
    int h = rounds / 2;
    double mn, mx, first = median_of(b->runs, h, &mn, &mx), last = median_of(b->runs + rounds - h, h, &mn, &mx);
    if (!(first > 0) || !(last > 0))
        return 1;
    return first >= last ? first / last : last / first;
}

/* The highest load per core over the rounds run (-1: unknown). */
static double load_per_core(const struct machine *m, int rounds)
{
    double hi = -1;
    for (int r = 0; r < rounds && r < 1000; r++)
        if (m->load1[r] > hi)
            hi = m->load1[r];
    return hi >= 0 && m->cores > 0 ? hi / m->cores : -1;
}

/* Variant k's verdict against the noise measured beside it (iolens_paired_judge): the A/A
 * control's summary of the same figure (I/O or whole run), the base's drift, the machine's load
 * and the length of the runs. The control itself: within noise when its interval holds 1, else
 * unreliable (the runs of one config are not alike here). */
static int judge(const struct opts *o, const struct machine *m, const struct variant *v, int nv, int k, int whole_run,
                 const iolens_paired_summary *ps, char *why, size_t cap)
{
    iolens_paired_noise nz;
    memset(&nz, 0, sizeof nz);
    nz.drift = base_drift(&v[0], o->rounds);
    nz.load_per_core = m ? load_per_core(m, o->rounds) : -1;
    double shorter = v[0].median < v[k].median ? v[0].median : v[k].median;
    nz.seconds = shorter;
    nz.min_seconds = nz.load_per_core >= 1 ? IOLENS_PAIRED_BUSY_FLOOR : 0;
    int c = find_control(v, nv);
    double ratios[1000];
    if (c == k) {
        int holds = ps->k && ps->lo <= NEGLIGIBLE && ps->hi >= 1 / NEGLIGIBLE;
        if (ps->k == 0)
            snprintf(why, cap, "%zu round(s) give no interval at 90%%: run 5 or more", ps->n);
        else if (holds)
            snprintf(why, cap, "the base against itself: [%.3f, %.3f] holds 1, the noise of this machine", ps->lo, ps->hi);
        else
            snprintf(why, cap, "the base against itself came out %.3fx [%.3f, %.3f]: runs of one config are not alike "
                     "here (load, caches, drift), so no speed-up is a verdict unless it clears that", ps->median, ps->lo,
                     ps->hi);
        return holds ? IOLENS_PAIRED_WITHIN_NOISE : IOLENS_PAIRED_UNRELIABLE;
    }
    if (c > 0 && o->rounds <= 1000 &&
        (whole_run ? run_paired_of(o, &v[0], &v[c], o->rounds, ratios, &nz.control)
                   : paired_of(&v[0], &v[c], o->rounds, ratios, &nz.control)) == 0)
        nz.has_control = 1;
    return iolens_paired_judge(ps, &nz, NEGLIGIBLE, why, cap);
}

/* Adaptive rounds: at least ADAPT_MIN, at most --max-rounds; after each round from ADAPT_MIN on,
 * stop when every measured variant has a verdict (faster or slower against the A/A control) or
 * is within noise with an interval narrower than ADAPT_WIDTH relative to its lower end (the
 * effect is pinned down, even if it is none); an unreliable verdict asks for more rounds. */
#define ADAPT_MIN 5
#define ADAPT_MAX 21
#define ADAPT_WIDTH 0.10
static int adapt_done(const struct opts *o, const struct machine *m, struct variant *v, int nv, int rounds)
{
    if (rounds < ADAPT_MIN)
        return 0;
    double ratios[1000], lo, hi;
    struct opts oo = *o;
    oo.rounds = rounds;
    for (int k = 0; k < nv; k++) /* medians so far: the runs' length enters the verdicts */
        if (v[k].runs)
            v[k].median = median_of(v[k].runs, rounds, &lo, &hi);
    for (int k = 1; k < nv; k++) {
        iolens_paired_summary ps;
        if (v[k].status != IOLENS_REPLAY_WHATIF_APPLIED || !v[k].runs || k == find_control(v, nv))
            continue; /* the control is what the others are judged against, not a verdict to wait for */
        if (rounds > 1000 || paired_of(&v[0], &v[k], rounds, ratios, &ps) < 0 || ps.k == 0)
            return 0;
        char why[1024];
        int vd = judge(&oo, m, v, nv, k, 0, &ps, why, sizeof why);
        double shorter = v[0].median < v[k].median ? v[0].median : v[k].median;
        if (vd == IOLENS_PAIRED_UNRELIABLE && load_per_core(m, rounds) >= 1 && shorter < IOLENS_PAIRED_BUSY_FLOOR)
            continue; /* runs too short for a busy machine: more of them do not make them longer */
        if (vd == IOLENS_PAIRED_UNRELIABLE)
            return 0;
        if (vd == IOLENS_PAIRED_WITHIN_NOISE && !(ps.lo > 0 && ps.hi / ps.lo - 1.0 < ADAPT_WIDTH))
            return 0;
    }
    return 1;
}

static int is_json_config(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && !strcmp(path + n - 5, ".json");
}

/* The base config: a CONFIG.json as given, or the global view of a trace. */
static int load_base(const struct opts *o, const char *input, iolens_replay_config **cfg)
{
    if (is_json_config(input))
        return iolens_replay_config_load(cfg, input) < 0 ? -1 : 0;
    iolens_evsource *src = NULL;
    iolens_replay_gv_report rep;
    int rc = iolens_replay_trace_open(input, &src);
    if (rc == 0)
        rc = iolens_replay_config_from_events_opts(cfg, src, NULL, &rep);
    iolens_evsource_free(src);
    if (rc == 0 && (rep.files_excluded || rep.ranks_dropped))
        warnf(o, "the base config leaves out %lld file(s) under system paths or of the MPI runtime, and %d of %d "
                 "process(es) without other reads or writes that are not MPI ranks (as iolens replay --config-from)",
                 (long long)rep.files_excluded, rep.ranks_dropped, rep.ranks_in);
    return rc < 0 ? rc : 0;
}

/* Detection as `iolens detect` does it: patterns at the gate, probabilities into probs. */
/* The folder of the input's largest file, when the trace names one by an absolute path. */
static void set_traced_dir(struct opts *o, const iolens_detect_file *f, int nfiles)
{
    o->traced_dir[0] = 0;
    if (nfiles < 1 || !f->path || f->path[0] != '/' || strlen(f->path) >= sizeof o->traced_dir)
        return;
    snprintf(o->traced_dir, sizeof o->traced_dir, "%s", f->path);
    char *slash = strrchr(o->traced_dir, '/');
    if (slash == o->traced_dir)
        slash[1] = 0;
    else
        *slash = 0;
}

/* Seconds a process of the traced run spent in I/O calls: its counters' read, write and metadata
 * times (POSIX, or MPI-IO's when larger: collective calls wait for each other), over the processes. */
static double traced_io_of(const double *x)
{
    double p = x[iolens_detect_feature_index("POSIX_F_READ_TIME")] + x[iolens_detect_feature_index("POSIX_F_WRITE_TIME")] +
               x[iolens_detect_feature_index("POSIX_F_META_TIME")];
    double m = x[iolens_detect_feature_index("MPIIO_F_READ_TIME")] + x[iolens_detect_feature_index("MPIIO_F_WRITE_TIME")] +
               x[iolens_detect_feature_index("MPIIO_F_META_TIME")];
    double n = x[iolens_detect_feature_index("nprocs")];
    double t = (m > p ? m : p) / (n >= 1 ? n : 1);
    return isfinite(t) && t > 0 ? t : 0;
}

/* The traced data's folder without detection (--pattern given): reads the input's counters. */
static int read_traced_dir(struct opts *o)
{
    iolens_detect_input *in = NULL;
    iolens_detect_file files[1];
    int nfiles = -1;
    double x[IOLENS_DETECT_NFEATURES];
    if (detect_read(o, &in) == 0 && iolens_detect_input_features(in, x) == 0)
        nfiles = iolens_detect_input_top_files(in, files, 1);
    if (nfiles >= 0) {
        set_traced_dir(o, files, nfiles);
        o->traced_run = x[iolens_detect_feature_index("runtime_seconds")];
        o->traced_io = traced_io_of(x);
    }
    iolens_detect_input_free(in);
    return nfiles >= 0 ? 0 : -1;
}

static int detect_patterns(struct opts *o, const char **names, int *n, double *probs, int *no_records)
{
    iolens_detect_input *in = NULL;
    iolens_detect_model *m = NULL;
    iolens_detect_file files[1];
    double x[IOLENS_DETECT_NFEATURES];
    iolens_detect_diagnosis dg;
    int rc = -1, nfiles;
    const char *models = o->models ? o->models : getenv("IOLENS_MODELS");
    if (!models)
        models = iolens_detect_default_models_dir();
    if ((rc = iolens_detect_model_load(&m, models)) < 0 || (rc = detect_read(o, &in)) < 0 ||
        (rc = iolens_detect_input_features(in, x)) < 0 || (rc = nfiles = iolens_detect_input_top_files(in, files, 1)) < 0 ||
        (rc = iolens_detect_diagnose(m, x, nfiles, IOLENS_DETECT_TAU, &dg)) < 0)
        goto out;
    memcpy(probs, dg.probs, sizeof dg.probs);
    *no_records = dg.no_records;
    set_traced_dir(o, files, nfiles);
    o->traced_run = x[iolens_detect_feature_index("runtime_seconds")];
    o->traced_io = traced_io_of(x);
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++) /* as detect presents them */
        if (dg.demoted & (1u << p))
            warnf(o, "%s is not measured: %s", iolens_detect_label_name(p), dg.why[p]);
    unsigned set = dg.presented;
    *n = 0;
    for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
        if (set & (1u << p))
            names[(*n)++] = iolens_detect_label_name(p);
    rc = 0;
out:
    iolens_detect_input_free(in);
    iolens_detect_model_free(m);
    return rc;
}

static int parse_patterns(const char *list, const char **names, int *n)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf)
        return iol_err(IOLENS_EINVAL, "the list of patterns is too long");
    strcpy(buf, list);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
            if (!strcmp(t, iolens_detect_label_name(p)))
                found = p;
        if (found < 0)
            return iol_err(IOLENS_EINVAL, "unknown pattern '%s' (one of access_granularity, metadata_intensity, "
                           "parallelism_efficiency, access_pattern, interface_choice, file_strategy, "
                           "throughput_utilization)", t);
        int dup = 0;
        for (int k = 0; k < *n; k++)
            dup |= names[k] == iolens_detect_label_name(found);
        if (!dup)
            names[(*n)++] = iolens_detect_label_name(found);
    }
    if (*n == 0)
        return iol_err(IOLENS_EINVAL, "no pattern given");
    return 0;
}

/* Striping is part of the throughput card; the replay sets no Lustre stripes. */
static void striping_note(struct variant *v, const char *root)
{
    struct statfs sf;
    size_t len = strlen(v->note);
    const char *sep = len ? "; " : "";
    if (statfs(root, &sf) == 0 && (unsigned long)sf.f_type == LUSTRE_MAGIC)
        snprintf(v->note + len, sizeof v->note - len,
                 "%sstriping: not expressed (the replay sets no Lustre stripes: that needs liblustreapi)", sep);
    else
        snprintf(v->note + len, sizeof v->note - len, "%sstriping: not applicable here ('%s' is not on Lustre)",
                 sep, root);
}

static json_t *config_json(const iolens_replay_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = iolens_replay_config_write(cfg, f);
    fclose(f);
    json_t *j = rc == 0 ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return j;
}

static int write_config(const iolens_replay_config *cfg, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
    int rc = iolens_replay_config_write(cfg, f);
    if (fclose(f) != 0 || rc < 0)
        return iol_err(IOLENS_EIO, "cannot write '%s'", path);
    return 0;
}

static const char *status_name(int s)
{
    return s == IOLENS_REPLAY_WHATIF_APPLIED ? "applied"
           : s == IOLENS_REPLAY_WHATIF_NO_TRANSFORM ? "no replay transform"
                                                    : "does not apply";
}

/* One replay of a config in a fresh folder; results JSON into res, stderr into err. */
static int run_one(const struct opts *o, const struct variant *v, int use_mpi, const char *rundir, const char *res,
                   const char *err)
{
    char np[16];
    snprintf(np, sizeof np, "%d", o->np);
    const char *argv[20];
    int a = 0;
    if (use_mpi)
        a = iol_mpirun_prefix(argv, "mpirun", np);
    argv[a++] = o->program;
    argv[a++] = "replay";
    argv[a++] = v->path;
    argv[a++] = "--root";
    argv[a++] = rundir;
    argv[a++] = "--json";
    if (o->cold_reads)
        argv[a++] = "--cold-reads";
    if (v->trace) {
        argv[a++] = "--level";
        argv[a++] = "hdf5";
        for (int k = 0; k < 3 && v->xargs[k]; k++)
            argv[a++] = v->xargs[k];
    }
    argv[a] = NULL;
    pid_t pid = iol_spawn_group(argv, res, err, "whatif"); /* a timeout stops mpirun and the ranks together */
    if (pid < 0)
        return pid;
    /* wait, polling every 20 ms (the parent sleeps: no load on the replay's cores) */
    int status = 0;
    struct timespec t0, now, nap = {0, 20 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int killed = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return iol_err(IOLENS_EIO, "waitpid: %s", strerror(errno));
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (!killed && (el > o->timeout || stopped(o))) {
            kill(-pid, SIGTERM);
            killed = 1;
        } else if (killed == 1 && el > o->timeout + 5) {
            kill(-pid, SIGKILL);
            killed = 2;
        }
        nanosleep(&nap, NULL);
    }
    if (killed && stopped(o))
        return iol_err(IOLENS_EIO, "interrupted: the replay of the %s config was stopped", v->name);
    if (killed)
        return iol_err(IOLENS_EIO, "the replay of the %s config ran longer than %.0f s (the timeout): stopped",
                       v->name, o->timeout);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char line[512] = "";
        FILE *f = fopen(err, "r");
        if (f) {
            char l[512];
            while (fgets(l, sizeof l, f))
                if (l[0] != '\n')
                    snprintf(line, sizeof line, "%s", l);
            fclose(f);
        }
        line[strcspn(line, "\n")] = 0;
        const char *why = line; /* (the replay's own "iolens: error: " prefix is not said twice) */
        if (!strncmp(why, "iolens: error: ", 15))
            why += 15;
        return iol_err(IOLENS_EIO, "the replay of the %s config failed (%s %d)%s%s", v->name,
                       WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                       why[0] ? ": " : "", why);
    }
    return 0;
}

/* The figures of an on-the-fly replay (its write and read phases, FBench Algorithm 1), as steps. */
static int read_trace_results(json_t *j, const char *path, struct run *r)
{
    const char *level = json_string_value(json_object_get(j, "level"));
    if (!level || strcmp(level, "hdf5"))
        return iol_err(IOLENS_EFORMAT, "the replay of '%s' did not run at the library level", path);
    r->seconds = 0;
    r->bytes = 0;
    r->steps = json_array();
    static const char *const ph[2][3] = {{"write", "write_seconds", "bytes_written"}, {"read", "read_seconds", "bytes_read"}};
    for (int k = 0; k < 2; k++) {
        double sec = json_number_value(json_object_get(j, ph[k][1]));
        json_int_t b = json_integer_value(json_object_get(j, ph[k][2]));
        if (b <= 0)
            continue;
        r->seconds += sec;
        r->bytes += b;
        json_array_append_new(r->steps, json_pack("{s:s, s:s, s:s, s:I, s:f, s:f}", "name", ph[k][0], "method",
                                                  ph[k][0], "interface", "hdf5", "bytes", b, "seconds", sec,
                                                  "bandwidth_bytes_per_s", sec > 0 ? (double)b / sec : 0.0));
    }
    return 0;
}

/* The figures of a run from the replay's results JSON. */
static int read_results(const char *path, struct run *r)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (j && json_object_get(j, "level")) {
        int rc = read_trace_results(j, path, r);
        json_decref(j);
        return rc;
    }
    json_t *steps = j ? json_object_get(j, "steps") : NULL;
    if (!json_is_array(steps)) {
        int e = iol_err(IOLENS_EFORMAT, "cannot read the replay results '%s': %s", path, j ? "no steps" : je.text);
        json_decref(j);
        return e;
    }
    r->seconds = 0;
    r->bytes = 0;
    r->steps = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(steps, i, s)
    {
        double sec = json_number_value(json_object_get(s, "seconds"));
        json_int_t b = json_integer_value(json_object_get(s, "bytes"));
        const char *method = json_string_value(json_object_get(s, "method"));
        r->seconds += sec;
        if (method && (!strcmp(method, "write") || !strcmp(method, "read") || !strcmp(method, "metadata")))
            r->bytes += b;
        json_array_append_new(r->steps,
                              json_pack("{s:O?, s:O?, s:O?, s:I, s:f, s:f}", "name", json_object_get(s, "name"),
                                        "method", json_object_get(s, "method"), "interface",
                                        json_object_get(s, "interface"), "bytes", b, "seconds", sec,
                                        "bandwidth_bytes_per_s",
                                        json_number_value(json_object_get(s, "bandwidth_bytes_per_s"))));
    }
    json_decref(j);
    return 0;
}

/* A paired summary and its ratios as JSON. */
static json_t *paired_json(const iolens_paired_summary *ps, const double *ratios, int verdict, const char *why)
{
    json_t *pr = json_array();
    for (size_t r = 0; r < ps->n; r++)
        json_array_append_new(pr, json_real(ratios[r]));
    return json_pack("{s:o, s:f, s:[f,f], s:i, s:f, s:s, s:s, s:s}", "ratios", pr, "median", ps->median, "interval",
                     ps->lo, ps->hi, "k", (int)ps->k, "coverage", ps->coverage, "verdict",
                     iolens_paired_verdict_name(verdict), "reason", why, "interval_alone",
                     iolens_paired_verdict_name(ps->verdict));
}

static void report_json(FILE *fo, const struct opts *o, const struct machine *m, const struct variant *v, int nv,
                        const char *const *detected, int ndet, const double *probs, int no_records, const char *where)
{
    json_t *out = json_object();
    json_object_set_new(out, "input", json_string(o->input));
    json_object_set_new(out, "nranks", json_integer(o->np));
    json_object_set_new(out, "adaptive_rounds", json_boolean(o->adaptive));
    json_object_set_new(out, "max_rounds", json_integer(o->adaptive ? o->max_rounds : o->rounds));
    json_object_set_new(out, "replay_fs", json_pack("{s:s?, s:s?}", "type", o->replay_fs[0] ? o->replay_fs : NULL,
                                                    "path", o->fsroot));
    json_object_set_new(out, "traced_fs", json_pack("{s:s?, s:s?}", "type", o->traced_fs[0] ? o->traced_fs : NULL,
                                                    "path", o->traced_dir[0] ? o->traced_dir : NULL));
    json_object_set_new(out, "rounds", json_integer(o->measured ? o->rounds : 0));
    json_object_set_new(out, "dry_run", json_boolean(o->dry));
    json_object_set_new(out, "measured", json_boolean(o->measured));
    if (where)
        json_object_set_new(out, "configs_dir", json_string(where));
    json_object_set_new(out, "control", json_boolean(find_control(v, nv) > 0));
    if (o->measured) {
        json_t *mr = json_array();
        for (int r = 0; r < o->rounds && r < 1000; r++)
            json_array_append_new(mr, json_pack("{s:i, s:o, s:o}", "round", r + 1, "load1",
                                                m->load1[r] >= 0 ? json_real(m->load1[r]) : json_null(), "steal_share",
                                                m->steal[r] >= 0 ? json_real(m->steal[r]) : json_null()));
        double lpc = load_per_core(m, o->rounds);
        json_object_set_new(out, "machine", json_pack("{s:i, s:o, s:f, s:o}", "cores", m->cores, "max_load_per_core",
                                                      lpc >= 0 ? json_real(lpc) : json_null(), "base_drift",
                                                      base_drift(&v[0], o->rounds), "rounds", mr));
    }
    json_t *det = json_object();
    json_object_set_new(det, "source", json_string(probs ? "classifier" : "--pattern"));
    if (probs) {
        json_object_set_new(det, "tau", json_real(IOLENS_DETECT_TAU));
        json_object_set_new(det, "no_file_records", json_boolean(no_records));
        json_t *p = json_object();
        for (int l = 0; l < IOLENS_DETECT_NLABELS; l++)
            json_object_set_new(p, iolens_detect_label_name(l), json_real(probs[l]));
        json_object_set_new(det, "probabilities", p);
    }
    json_t *pl = json_array();
    for (int i = 0; i < ndet; i++)
        json_array_append_new(pl, json_string(detected[i]));
    json_object_set_new(det, "patterns", pl);
    json_object_set_new(out, "detection", det);
    json_t *arr = json_array();
    for (int k = 0; k < nv; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(v[k].name));
        if (k > 0) {
            const iolens_detect_card *card = NULL;
            for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
                if (!strcmp(iolens_detect_label_name(p), v[k].name))
                    card = iolens_detect_card_get(p);
            json_object_set_new(e, "status", json_string(status_name(v[k].status)));
            json_object_set_new(e, "change", json_string(v[k].change ? v[k].change : "as traced"));
            if (card) {
                json_object_set_new(e, "card_change", json_string(card->change));
                json_object_set_new(e, "does_not_apply_when", json_string(card->not_applicable));
            }
        }
        json_object_set_new(e, "note", json_string(v[k].note));
        if (v[k].cfg) {
            if (v[k].path[0] && o->keep) /* else the file went with the work folder */
                json_object_set_new(e, "config_path", json_string(v[k].path));
            json_t *c = config_json(v[k].cfg);
            if (c)
                json_object_set_new(e, "config", c);
        }
        if (v[k].runs) {
            json_t *runs = json_array();
            for (int r = 0; r < o->rounds; r++)
                json_array_append_new(runs, json_pack("{s:i, s:f, s:I, s:O}", "round", r + 1, "seconds",
                                                      v[k].runs[r].seconds, "bytes",
                                                      (json_int_t)v[k].runs[r].bytes, "steps", v[k].runs[r].steps));
            json_object_set_new(e, "runs", runs);
            json_object_set_new(e, "median_seconds", json_real(v[k].median));
            json_object_set_new(e, "min_seconds", json_real(v[k].min));
            json_object_set_new(e, "max_seconds", json_real(v[k].max));
            json_object_set_new(e, "bytes", json_integer(v[k].runs[0].bytes));
            if (k > 0)
                json_object_set_new(e, "speedup", json_real(v[k].median > 0 ? v[0].median / v[k].median : 0));
            double ratios[1000];
            iolens_paired_summary ps;
            char why[1024];
            if (k > 0 && v[0].runs && o->rounds <= 1000 && paired_of(&v[0], &v[k], o->rounds, ratios, &ps) == 0) {
                int vd = judge(o, m, v, nv, k, 0, &ps, why, sizeof why);
                json_object_set_new(e, "verdict", json_string(iolens_paired_verdict_name(vd)));
                json_object_set_new(e, "verdict_reason", json_string(why));
                json_object_set_new(e, "paired", paired_json(&ps, ratios, vd, why));
            }
            if (k > 0 && v[0].runs && o->rounds <= 1000 && run_paired_of(o, &v[0], &v[k], o->rounds, ratios, &ps) == 0) {
                int vd = judge(o, m, v, nv, k, 1, &ps, why, sizeof why);
                json_t *rp = paired_json(&ps, ratios, vd, why);
                json_object_set_new(rp, "traced_run_seconds", json_real(o->traced_run));
                json_object_set_new(rp, "traced_io_seconds", o->traced_io > 0 ? json_real(o->traced_io) : json_null());
                json_object_set_new(e, "run_paired", rp);
            }
        }
        json_array_append_new(arr, e);
    }
    json_object_set_new(out, "configs", arr);
    json_dumpf(out, fo, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', fo);
    json_decref(out);
}

/* The paired view of each applied variant's rounds, of the I/O (whole_run 0) or of the whole run;
 * the title before the first line printed. */
static void print_paired(FILE *out, const struct opts *o, const struct machine *m, const struct variant *v, int nv,
                         int whole_run, const char *title)
{
    int shown = 0;
    for (int k = 1; k < nv; k++) {
        double ratios[1000];
        iolens_paired_summary ps;
        if (v[k].status != IOLENS_REPLAY_WHATIF_APPLIED || !v[k].runs || o->rounds > 1000 ||
            (whole_run ? run_paired_of(o, &v[0], &v[k], o->rounds, ratios, &ps)
                       : paired_of(&v[0], &v[k], o->rounds, ratios, &ps)) < 0)
            continue;
        if (!shown++)
            fprintf(out, "\n%s\n", title);
        char why[1024];
        int vd = judge(o, m, v, nv, k, whole_run, &ps, why, sizeof why);
        if (ps.k)
            fprintf(out, "%-24s %7.3fx [%.3f, %.3f] (%.1f%%) %s\n", v[k].name, ps.median, ps.lo, ps.hi, 100 * ps.coverage,
                   iolens_paired_verdict_name(vd));
        else if (!whole_run)
            fprintf(out, "%-24s %7.3fx (no interval: %d round(s); --rounds 5 or more) %s\n", v[k].name, ps.median,
                   o->rounds, iolens_paired_verdict_name(vd));
        else
            fprintf(out, "%-24s %7.3fx %s\n", v[k].name, ps.median, iolens_paired_verdict_name(vd));
        if (vd == IOLENS_PAIRED_UNRELIABLE && !whole_run)
            fprintf(out, "%-24s   %s\n", "", why);
    }
}

static void report_table(FILE *out, const struct opts *o, const struct machine *m, const struct variant *v, int nv,
                         const char *const *detected, int ndet, const double *probs, int no_records)
{
    if (probs) {
        fprintf(out, "%s: detected (tau %.2f): ", o->input, IOLENS_DETECT_TAU);
        if (no_records)
            fprintf(out, "none (no file record: nothing to diagnose)\n");
        else if (!ndet)
            fprintf(out, "none (no registered pattern)\n");
        for (int i = 0; i < ndet; i++) {
            int p = 0;
            while (p < IOLENS_DETECT_NPATTERNS && strcmp(iolens_detect_label_name(p), detected[i]))
                p++;
            fprintf(out, "%s (%.3f)%s", detected[i], probs[p], i + 1 < ndet ? ", " : "\n");
        }
    } else {
        fprintf(out, "%s: patterns from --pattern\n", o->input);
    }
    if (o->dry) {
        fprintf(out, "dry run, %d rank(s): nothing replayed\n", o->np);
    } else if (!o->measured) {
        fprintf(out, "nothing to measure: no change of the %s applies to this config; nothing replayed\n",
               probs ? "detected patterns" : "patterns given");
    } else {
        fprintf(out, "%d round(s) of %d rank(s)%s; time = sum of the steps' earliest-open-to-latest-close times\n",
               o->rounds, o->np,
               !o->adaptive                   ? ""
               : o->rounds < o->max_rounds    ? " (adaptive: every interval excludes 1 or is narrower than 10%)"
                                              : " (adaptive: stopped at --max-rounds)");
        fprintf(out, "replayed on %s (%s); traced data on %s%s%s%s\n\n", o->replay_fs[0] ? o->replay_fs : "?", o->fsroot,
               o->traced_fs[0] ? o->traced_fs : "an unknown file system",
               o->traced_dir[0] ? " (" : "", o->traced_dir, o->traced_dir[0] ? ")" : "");
        fprintf(out, "%-24s %-58s %10s %10s %8s %21s %12s\n", "pattern", "change", "base s", "variant s", "speed-up",
               "variant min-max s", "bytes");
        fprintf(out, "%-24s %-58s %10.4f %10s %8s %10.4f-%-10.4f %12lld\n", "(base)", "as traced", v[0].median, "-", "-",
               v[0].min, v[0].max, v[0].runs[0].bytes);
    }
    for (int k = 1; k < nv; k++) {
        if (!o->measured || v[k].status != IOLENS_REPLAY_WHATIF_APPLIED || !v[k].runs)
            fprintf(out, "%-24s %-58s %s\n", v[k].name, v[k].change, status_name(v[k].status));
        else
            fprintf(out, "%-24s %-58s %10.4f %10.4f %7.2fx %10.4f-%-10.4f %12lld\n", v[k].name,
                   v[k].change, v[0].median, v[k].median,
                   v[k].median > 0 ? v[0].median / v[k].median : 0, v[k].min, v[k].max, v[k].runs[0].bytes);
    }
    if (o->measured) {
        double lpc = load_per_core(m, o->rounds), drift = base_drift(&v[0], o->rounds);
        fprintf(out, "\nmachine: %d core(s), highest 1-minute load %s%.2f per core; base drift %.2fx over the rounds; "
                "A/A control: %s\n", m->cores, lpc >= 0 ? "" : "unknown ", lpc >= 0 ? lpc : 0.0, drift,
                find_control(v, nv) > 0 ? "measured" : "off (--no-control): the verdicts rest on the intervals alone");
        print_paired(out, o, m, v, nv, 0, "per-round speed-up (base / variant in the same round): median, order-statistic "
                                  "interval, verdict");
        char title[200];
        if (o->traced_io > 0 && v[0].median > 0) {
            double f = v[0].median > o->traced_io ? v[0].median / o->traced_io : o->traced_io / v[0].median;
            if (f > 2)
                fprintf(out, "\nnote: the base replay's I/O (%.3f s, median) is %.1fx %s than the traced run's (%.3f s): "
                       "the replay does not run this I/O at the traced speed here (another file-system or cache "
                       "state, device or load), and the speed-ups carry that difference\n",
                       v[0].median, f, v[0].median < o->traced_io ? "faster" : "slower", o->traced_io);
        }
        if (o->traced_io > 0)
            snprintf(title, sizeof title,
                     "the whole run (traced %.3f s, %.3f s of it in I/O calls; the rest taken as unchanged):",
                     o->traced_run, o->traced_io < o->traced_run ? o->traced_io : o->traced_run);
        else
            snprintf(title, sizeof title,
                     "the whole run (traced %.3f s; what is not the base replay's I/O time taken as unchanged):",
                     o->traced_run);
        print_paired(out, o, m, v, nv, 1, title);
    }
    fprintf(out, "\n");
    for (int k = 1; k < nv; k++) {
        fprintf(out, "%s: %s: %s\n", v[k].name, status_name(v[k].status), v[k].note);
        if (v[k].path[0] && o->keep)
            fprintf(out, "  config: %s\n", v[k].path);
    }
    if (o->dry && !o->keep)
        for (int k = 0; k < nv; k++)
            if (v[k].cfg) {
                fprintf(out, "\n== %s config ==\n", v[k].name);
                iolens_replay_config_write(v[k].cfg, out);
            }
}

/* Removes a file if it exists, and the configs/results of the work folder. */
static void cleanup_work(const char *work, struct variant *v, int nv, int rounds, int keep_files)
{
    char p[PATH_MAX + 64];
    for (int k = 0; k < nv && !keep_files; k++) {
        if (v[k].path[0])
            unlink(v[k].path);
        for (int r = 0; r < rounds; r++) {
            snprintf(p, sizeof p, "%s/round%d-%s.json", work, r + 1, v[k].name);
            unlink(p);
            snprintf(p, sizeof p, "%s/round%d-%s.err", work, r + 1, v[k].name);
            unlink(p);
        }
    }
}

/* --level hdf5: the base is the trace replayed at the library level; interface_choice makes
 * every dataset transfer collective (when the trace has independent ones and several ranks);
 * the other patterns have no change at this level. */
static int library_variants(struct opts *o, struct variant *v, int *nv, const char **names, int npat)
{
    iolens_evsource *src = NULL;
    int rc0 = iolens_replay_trace_open(o->input, &src);
    if (rc0 < 0)
        return rc0;
    int has = iolens_replay_trace_has_hdf5(src), ranks = has > 0 ? iolens_replay_trace_ranks(src, 0) : 0;
    long long indep = 0, xfers = 0;
    int nr = iolens_evsource_nranks(src), rc = 0;
    for (int r = 0; has > 0 && r < nr && rc >= 0; r++) { /* transfers and their modes */
        iolens_event e;
        while ((rc = iolens_evsource_next(src, r, &e)) > 0) {
            int32_t fd;
            int64_t a[4];
            if (e.layer != IOLENS_LAYER_HDF5 || e.depth || e.lib_depth || !e.func ||
                (strcmp(e.func, "H5Dwrite") && strcmp(e.func, "H5Dread")) || iolens_trace_last_args(src, r, &fd, a))
                continue;
            xfers++;
            indep += a[3] != 1;
        }
        if (rc >= 0)
            rc = iolens_evsource_rewind(src, r);
    }
    iolens_evsource_free(src);
    if (has < 0 || ranks < 0 || rc < 0)
        return has < 0 ? has : ranks < 0 ? ranks : rc;
    if (!has)
        return iol_err(IOLENS_EINVAL, "'%s' has no HDF5 calls made by the program itself: the library level has "
                       "nothing to change", o->input);
    if (o->np && o->np != ranks)
        return iol_err(IOLENS_EINVAL, "%d rank(s) asked for: an on-the-fly replay runs the trace's %d rank(s)", o->np,
                       ranks);
    o->np = ranks;
    struct variant *b = &v[(*nv)++];
    b->name = "base";
    b->trace = 1;
    b->status = IOLENS_REPLAY_WHATIF_APPLIED;
    b->change = "none: the trace's HDF5 calls replayed through HDF5";
    snprintf(b->note, sizeof b->note, "the trace replayed on the fly at the library level (%lld dataset transfers, "
             "%lld of them independent)", xfers, indep);
    for (int i = 0; i < npat; i++) {
        struct variant *x = &v[(*nv)++];
        x->name = names[i];
        x->change = iolens_replay_whatif_summary(names[i]);
        if (strcmp(names[i], "interface_choice")) {
            x->status = IOLENS_REPLAY_WHATIF_NO_TRANSFORM;
            snprintf(x->note, sizeof x->note, "no change at the library level (it changes HDF5's transfer mode for "
                     "interface_choice); without --level hdf5 the config's transform applies");
        } else if (ranks < 2 || !indep) {
            x->status = IOLENS_REPLAY_WHATIF_NOTHING;
            snprintf(x->note, sizeof x->note, "%s", ranks < 2 ? "one rank: collective transfers have nothing to "
                     "coordinate" : "every dataset transfer is collective already");
        } else {
            x->status = IOLENS_REPLAY_WHATIF_APPLIED;
            x->trace = 1;
            x->xargs[0] = "--hdf5-xfer";
            x->xargs[1] = "collective";
            x->change = "every HDF5 dataset transfer collective (H5Pset_dxpl_mpio H5FD_MPIO_COLLECTIVE)";
            snprintf(x->note, sizeof x->note, "%lld of %lld dataset transfers independent -> collective "
                     "(iolens replay --hdf5-xfer collective)", indep, xfers);
        }
    }
    return 0;
}

/* The loop itself, into W (its options set). 0, or a negative IOLENS_E*. */
static int run(iolens_whatif *W)
{
    struct variant *v = W->v;
    const char **names = W->names;
    double *probs = W->probs;
    int npat = 0, no_records = 0, nv = 0, status = -1;
    char work[PATH_MAX] = "";
    int made_work = 0, done_rounds = 0;
    struct opts o = W->o; /* copied back at the end */

    if ((status = o.patterns ? parse_patterns(o.patterns, names, &npat)
                             : detect_patterns(&o, names, &npat, probs, &no_records)) < 0)
        goto out;
    W->npat = npat;
    W->has_probs = !o.patterns;
    W->no_records = no_records;
    if (o.patterns && !is_json_config(o.input) && (status = read_traced_dir(&o)) < 0)
        goto out;
    /* The application's file system: runs go next to the traced data unless told otherwise. */
    unsigned long tmagic = 0, rmagic = 0;
    char tbuf[32], rbuf[32];
    /* a folder the replay of the trace removed again: its nearest existing parent is on the same
     * file system unless a mount point lies between (never "/": a trace of another machine) */
    char *near = o.near_dir;
    snprintf(o.near_dir, sizeof o.near_dir, "%s", o.traced_dir);
    struct stat nst;
    while (near[0] && strcmp(near, "/") && stat(near, &nst) != 0) {
        char *slash = strrchr(near, '/');
        if (!slash || slash == near)
            near[0] = 0;
        else
            *slash = 0;
    }
    int traced_known = near[0] && strcmp(near, "/") && iol_fs_type(near, &tmagic) == 0;
    if (traced_known)
        snprintf(o.traced_fs, sizeof o.traced_fs, "%s", iol_fs_type_name(tmagic, tbuf, sizeof tbuf));
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (o.root)
        o.fsroot = o.root;
    else if (traced_known && access(near, W_OK | X_OK) == 0)
        o.fsroot = near;
    else {
        o.fsroot = tmp;
        if (o.traced_dir[0] && !o.dry)
            warnf(&o, "the traced data's folder '%s' is %s: the replays run in '%s' instead, and their figures "
                     "come from its file system, not the application's",
                     o.traced_dir, traced_known ? "not writable" : "not on this machine", tmp);
    }
    iolens_replay_config *base = NULL;
    if (o.library) {
        if ((status = library_variants(&o, v, &nv, names, npat)) < 0)
            goto out;
    } else if ((status = load_base(&o, o.input, &base)) < 0) {
        goto out;
    }
    if (o.np == 0)
        o.np = base && iolens_replay_config_nranks(base) > 0 ? iolens_replay_config_nranks(base) : 1;
    if (!o.library) {
        v[nv].name = "base";
        v[nv].status = IOLENS_REPLAY_WHATIF_APPLIED;
        v[nv++].cfg = base;
    }
    const char *fsroot = o.fsroot;
    for (int i = 0; i < npat && !o.library; i++) {
        struct variant *x = &v[nv++];
        x->name = names[i];
        int rc = iolens_replay_whatif(&x->cfg, base, names[i], o.np, x->note, sizeof x->note);
        if (rc < 0) {
            status = rc;
            goto out;
        }
        x->status = rc;
        x->change = iolens_replay_whatif_summary(names[i]);
        if (!strcmp(names[i], "throughput_utilization"))
            striping_note(x, fsroot);
    }
    if (o.combine) { /* one variant with every change of the list, applied in its order */
        const char *cn[IOLENS_DETECT_NPATTERNS];
        int ncn = 0;
        if ((status = parse_patterns(o.combine, cn, &ncn)) < 0)
            goto out;
        struct variant *x = &v[nv++];
        x->status = IOLENS_REPLAY_WHATIF_NO_TRANSFORM;
        iolens_replay_config *cur = NULL;
        size_t at = 0;
        for (int i = 0; i < ncn; i++) {
            iolens_replay_config *next = NULL;
            char note[2048];
            int rc = iolens_replay_whatif(&next, cur ? cur : base, cn[i], o.np, note, sizeof note);
            if (rc < 0) {
                iolens_replay_config_free(cur);
                status = rc;
                goto out;
            }
            snprintf(x->combo + strlen(x->combo), sizeof x->combo - strlen(x->combo), "%s%s", i ? "+" : "", cn[i]);
            at += (size_t)snprintf(x->note + at, at < sizeof x->note ? sizeof x->note - at : 0, "%s%s: %s: %s",
                                   i ? "; " : "", cn[i], status_name(rc), note);
            if (at >= sizeof x->note)
                at = sizeof x->note - 1;
            if (rc == IOLENS_REPLAY_WHATIF_APPLIED) {
                iolens_replay_config_free(cur);
                cur = next;
                x->status = IOLENS_REPLAY_WHATIF_APPLIED;
            } else {
                iolens_replay_config_free(next);
                if (x->status != IOLENS_REPLAY_WHATIF_APPLIED)
                    x->status = rc;
            }
        }
        x->name = x->combo;
        x->change = "every change of --combine, in its order";
        x->cfg = cur;
    }
    if (o.control && o.library) {
        struct variant *x = &v[nv++];
        *x = v[0];
        x->name = "control";
        x->change = "none: the trace replayed again (A/A)";
        snprintf(x->note, sizeof x->note, "the base replay unchanged, run as a variant in every round: its speed-up "
                 "is the noise of this machine and file system");
    } else if (o.control) { /* the base itself, run as a variant: what "no change" measures */
        struct variant *x = &v[nv++];
        char *text = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&text, &len);
        int rc = ms ? iolens_replay_config_write(base, ms) : IOLENS_ENOMEM;
        if (ms && fclose(ms) != 0 && rc == 0)
            rc = IOLENS_ENOMEM;
        if (rc == 0)
            rc = iolens_replay_config_parse(&x->cfg, text, len, "control");
        free(text);
        if (rc < 0) {
            status = rc;
            goto out;
        }
        x->name = "control";
        x->change = "none: the base config again (A/A)";
        x->status = IOLENS_REPLAY_WHATIF_APPLIED;
        snprintf(x->note, sizeof x->note, "the base config unchanged, run as a variant in every round: its speed-up "
                 "is the noise of this machine and file system");
    }
    /* runs only when there is something to compare the base with (the control is not) */
    for (int k = 1; k < nv; k++)
        o.measured |= !o.dry && v[k].status == IOLENS_REPLAY_WHATIF_APPLIED && strcmp(v[k].name, "control");
    if (!o.measured && nv > 1 && !strcmp(v[nv - 1].name, "control")) { /* nothing to judge against it */
        if (!o.library)
            iolens_replay_config_free(v[nv - 1].cfg);
        memset(&v[--nv], 0, sizeof v[nv]);
    }

    /* where configs and results go */
    const char *cdir = NULL;
    if (o.keep) {
        if (mkdir(o.keep, 0777) && errno != EEXIST) {
            status = iol_err(IOLENS_EIO, "cannot create '%s': %s", o.keep, strerror(errno));
            goto out;
        }
        cdir = o.keep;
    }
    if (o.measured) {
        int made_root = o.root && mkdir(o.root, 0777) == 0;
        if (o.root && !made_root && errno != EEXIST) {
            status = iol_err(IOLENS_EIO, "cannot create '%s': %s", o.root, strerror(errno));
            goto out;
        }
        if (iol_fs_type(fsroot, &rmagic) == 0)
            snprintf(o.replay_fs, sizeof o.replay_fs, "%s", iol_fs_type_name(rmagic, rbuf, sizeof rbuf));
        if (o.root && traced_known && o.replay_fs[0] && rmagic != tmagic && !o.root_anywhere) {
            status = iol_err(IOLENS_EINVAL, "the root '%s' is on %s, the traced data ('%s') on %s: the figures would "
                             "not be the application's (--root-anywhere measures there all the same)",
                             o.root, o.replay_fs, o.traced_dir, o.traced_fs);
            if (made_root)
                rmdir(o.root);
            goto out;
        }
        snprintf(work, sizeof work, "%s/iolens-whatif.XXXXXX", fsroot);
        if (!mkdtemp(work)) {
            status = iol_err(IOLENS_EIO, "cannot create a folder in '%s': %s", fsroot, strerror(errno));
            goto out;
        }
        made_work = 1;
        if (!cdir)
            cdir = work;
    }
    for (int k = 0; k < nv && cdir; k++)
        if (v[k].trace) {
            snprintf(v[k].path, sizeof v[k].path, "%s", o.input);
        } else if (v[k].cfg) {
            int n = snprintf(v[k].path, sizeof v[k].path, "%s/%s.json", cdir, v[k].name);
            if (n < 0 || (size_t)n >= sizeof v[k].path) {
                status = iol_err(IOLENS_EINVAL, "path too long: '%s/%s.json'", cdir, v[k].name);
                v[k].path[0] = 0;
                goto out;
            }
            if ((status = write_config(v[k].cfg, v[k].path)) < 0)
                goto out;
        }

    if (o.measured) {
        if (!o.program) {
            status = iol_err(IOLENS_EINVAL, "no iolens program to run the replays with");
            goto out;
        }
        int order[1 + MAX_VARIANTS], m = 0;
        for (int k = 0; k < nv; k++)
            if (runnable(&v[k])) {
                order[m++] = k;
                if (!(v[k].runs = calloc((size_t)o.rounds, sizeof *v[k].runs))) {
                    status = iol_err(IOLENS_ENOMEM, "out of memory");
                    goto out;
                }
            }
        size_t ndone = 0;
        int failed = 0;
        const char *se = getenv("IOLENS_WHATIF_SETTLE"); /* 0: no syncfs before each run (to measure its effect) */
        int settle = !(se && !strcmp(se, "0"));
        unsigned long long t0 = 0, s0 = 0;
        int have_stat = read_steal(&t0, &s0);
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        W->mach.cores = nc > 0 ? (int)nc : 1;
        for (int r = 0; r < o.rounds && !failed && !stopped(&o); r++) {
            W->mach.load1[r] = read_load1();
            unsigned long long t1, s1;
            W->mach.steal[r] = -1;
            if (have_stat && read_steal(&t1, &s1)) {
                if (r > 0 && t1 > t0)
                    W->mach.steal[r] = (double)(s1 - s0) / (double)(t1 - t0);
                t0 = t1;
                s0 = s1;
            }
            for (int j = 0; j < m && !failed; j++) {
                struct variant *x = &v[order[(r + j) % m]];
                char rundir[PATH_MAX + 64], res[PATH_MAX + 64], err[PATH_MAX + 64];
                snprintf(rundir, sizeof rundir, "%s/run%d-%s", work, r + 1, x->name);
                snprintf(res, sizeof res, "%s/round%d-%s.json", cdir, r + 1, x->name);
                snprintf(err, sizeof err, "%s/round%d-%s.err", cdir, r + 1, x->name);
                /* an on-the-fly replay of several ranks runs itself under mpirun */
                int use_mpi = !x->trace && (o.np > 1 || iolens_replay_config_needs_mpi(x->cfg));
                if (settle) /* the previous run's writeback is not timed in this one */
                    iol_settle_fs(work, 2.0);
                if (o.drop_caches && iol_drop_caches() < 0) {
                    status = iol_err(IOLENS_EIO, "cannot drop the page cache (/proc/sys/vm/drop_caches): %s (it needs "
                                     "root)", strerror(errno));
                    failed = 1;
                    break;
                }
                if ((status = run_one(&o, x, use_mpi, rundir, res, err)) < 0 ||
                    (status = read_results(res, &x->runs[r])) < 0)
                    failed = 1;
                rmdir(rundir); /* the replay removes what it created; an empty leftover goes too */
                if (!failed && !o.keep)
                    unlink(err);
                if (o.progress)
                    o.progress(o.progress_ctx, ++ndone, (size_t)o.rounds * (size_t)m);
            }
            done_rounds = r + 1;
            if (o.adaptive && !failed && adapt_done(&o, &W->mach, v, nv, done_rounds))
                break;
        }
        if (!failed && !stopped(&o) && done_rounds > 0)
            o.rounds = done_rounds; /* the rounds run: medians, intervals and reports use them */
        if (failed || stopped(&o)) {
            if (!failed)
                status = iol_err(IOLENS_EIO, "interrupted: %d round(s) done", done_rounds);
            goto out;
        }
        for (int k = 0; k < nv; k++)
            if (v[k].runs)
                v[k].median = median_of(v[k].runs, o.rounds, &v[k].min, &v[k].max);
        for (int k = 1; k < nv; k++)
            if (v[k].runs && v[k].runs[0].bytes != v[0].runs[0].bytes)
                warnf(&o, "the %s variant moved %lld bytes, the base %lld", v[k].name, v[k].runs[0].bytes,
                         v[0].runs[0].bytes);
    }
    status = 0;
out:
    if (made_work) {
        cleanup_work(work, v, nv, done_rounds ? done_rounds : o.rounds, o.keep != NULL);
        if (!o.keep || strcmp(o.keep, work))
            rmdir(work);
    }
    W->nv = nv;
    W->o = o;
    return status;
}

void iolens_whatif_options_init(iolens_whatif_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_rounds = ADAPT_MAX;
    o->timeout = 600.0;
    o->control = 1;
}

void iolens_whatif_free(iolens_whatif *W)
{
    if (!W)
        return;
    for (int k = 0; k < W->nv; k++) {
        if (W->v[k].runs)
            for (int r = 0; r < W->o.rounds; r++)
                json_decref(W->v[k].runs[r].steps);
        free(W->v[k].runs);
        iolens_replay_config_free(W->v[k].cfg);
    }
    free(W);
}

int iolens_whatif_write_json(const iolens_whatif *W, FILE *out)
{
    report_json(out, &W->o, &W->mach, W->v, W->nv, W->names, W->npat, W->has_probs ? W->probs : NULL, W->no_records, W->o.keep);
    return ferror(out) ? iol_err(IOLENS_EIO, "cannot write the report") : 0;
}

int iolens_whatif_write_table(const iolens_whatif *W, FILE *out)
{
    report_table(out, &W->o, &W->mach, W->v, W->nv, W->names, W->npat, W->has_probs ? W->probs : NULL, W->no_records);
    return ferror(out) ? iol_err(IOLENS_EIO, "cannot write the report") : 0;
}

static int is_json_config(const char *path);

/* The options checked and copied into the loop's state. */
static int setup(const iolens_whatif_options *p, struct opts *o)
{
    memset(o, 0, sizeof *o);
    if (!p->input)
        return iol_err(IOLENS_EINVAL, "no trace or config given");
    o->input = p->input;
    o->program = p->program;
    o->patterns = p->patterns;
    o->combine = p->combine;
    o->control = p->control;
    o->np = p->np;
    o->root = p->root;
    o->root_anywhere = p->root_anywhere;
    o->keep = p->keep;
    o->models = p->models;
    o->all_paths = p->all_paths;
    o->library = p->library;
    o->dry = p->dry;
    o->drop_caches = p->drop_caches;
    o->cold_reads = p->cold_reads;
    o->warn = p->warn;
    o->warn_ctx = p->warn_ctx;
    o->progress = p->progress;
    o->progress_ctx = p->progress_ctx;
    o->stop = p->stop;
    o->timeout = p->timeout > 0 ? p->timeout : 600.0;
    o->max_rounds = p->max_rounds > 0 ? p->max_rounds : ADAPT_MAX;
    if (p->rounds < 0 || p->rounds > 1000 || o->max_rounds < ADAPT_MIN || o->max_rounds > 1000)
        return iol_err(IOLENS_EINVAL, "rounds: 1 to 1000, the adaptive limit %d to 1000", ADAPT_MIN);
    o->adaptive = p->rounds == 0;
    o->rounds = o->adaptive ? o->max_rounds : p->rounds; /* adaptive: room for every round; then the rounds run */
    if (o->library && (is_json_config(o->input) || o->combine || o->cold_reads))
        return iol_err(IOLENS_EINVAL, "the library level replays a trace on the fly: not a CONFIG.json, a "
                       "combination or cold reads");
    if (o->library && !iolens_replay_has_hdf5())
        return iol_err(IOLENS_EINVAL, "the library level needs a build with parallel HDF5");
    if (is_json_config(o->input) && !o->patterns) {
        /* (a file that is no config says so first: a format error, not a usage error) */
        iolens_replay_config *cfg = NULL;
        int rc = iolens_replay_config_load(&cfg, o->input);
        iolens_replay_config_free(cfg);
        if (rc < 0)
            return rc == IOLENS_EINVAL ? IOLENS_EFORMAT : rc;
        return iol_err(IOLENS_EINVAL, "'%s' is a replay config: no detection without counters; name the patterns",
                       o->input);
    }
    return 0;
}

int iolens_whatif_run(const iolens_whatif_options *opts, iolens_whatif **out)
{
    *out = NULL;
    iolens_whatif *W = calloc(1, sizeof *W);
    if (!W)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int rc = setup(opts, &W->o);
    if (rc < 0) {
        free(W);
        return rc;
    }
    rc = run(W);
    *out = W;
    return rc;
}
