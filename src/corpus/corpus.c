/* The corpus (include/iolens/corpus.h): a seeded, reproducible local labelled corpus. Each sweep
 * scenario config (one per row of sweeps.tsv) runs in several seeded variants as
 * `mpirun -np R iolens trace -o TRACE -- iolens replay VARIANT.json`; the Darshan counters of
 * the trace (with the sweeps' file alignment) give the model features; the scenario's
 * construction gives the labels. */
#define _GNU_SOURCE
#include "iolens/corpus.h"

#include "corpus/internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc.h"
#include "util/share.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iolens/counters.h"
#include "iolens/detect.h"
#include "iolens/trace.h"

#define NF IOLENS_DETECT_NFEATURES
#define NL IOLENS_DETECT_NLABELS

enum { RUN_PLANNED, RUN_RUNNING, RUN_OK, RUN_FAILED };

struct run {
    char scenario[128];
    char id[160];
    int variant;
    corpus_variant_info info;
    unsigned char labels[NL];
    char cfg[PATH_MAX];
    uint64_t cfg_hash;
    char work[PATH_MAX];
    pid_t pid;
    double t0, secs;
    int state;
    char why[PATH_MAX * 2];
    long long trace_bytes, log_bytes;
    double x[NF];
};

struct opts {
    const char *out, *configs, *scratch, *mpirun, *program;
    unsigned long long seed;
    int variants, jobs, keep, dry;
    double scale, timeout;
    long long file_alignment;
    const char *only, *exclude;
    corpus_rank_policy ranks;
    iolens_warn_fn warn;
    void *warn_ctx;
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    void (*on_run)(void *ctx, const iolens_corpus_run *run);
    void *on_run_ctx;
    volatile sig_atomic_t *stop;
};

static void warnf(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(const struct opts *o, const char *fmt, ...)
{
    if (!o->warn)
        return;
    char msg[PATH_MAX * 3];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->warn(o->warn_ctx, msg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int matches(const char *name, const char *only)
{
    if (!only)
        return 1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", only);
    char *save = NULL;
    for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
        if (!fnmatch(p, name, 0))
            return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scenario names (config file names without .json), sorted, filtered by --only. */
static int list_scenarios(const struct opts *o, char ***out, size_t *n)
{
    DIR *d = opendir(o->configs);
    if (!d)
        return iol_err(IOLENS_EIO, "cannot read '%s': %s", o->configs, strerror(errno));
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") || len - 5 >= 128)
            continue;
        char name[128];
        memcpy(name, e->d_name, len - 5);
        name[len - 5] = '\0';
        if (!matches(name, o->only) || (o->exclude && matches(name, o->exclude)))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                rc = -1;
                break;
            }
            v = nv;
        }
        if (!(v[*n] = strdup(name))) {
            rc = -1;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (rc != 0)
        rc = iol_err(IOLENS_ENOMEM, "out of memory listing '%s'", o->configs);
    if (*n)
        qsort(v, *n, sizeof *v, cmp_str);
    *out = v;
    return rc;
}

/* Plans the runs of one scenario: writes its variant configs under OUT/configs/. */
static int plan_scenario(const struct opts *o, const char *scenario, struct run *runs)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.json", o->configs, scenario);
    json_error_t jerr;
    json_t *base = json_load_file(path, 0, &jerr);
    if (!base)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': %s at line %d", path, jerr.text, jerr.line);
    unsigned char labels[NL];
    if (corpus_labels_from_description(json_string_value(json_object_get(base, "description")), labels)) {
        json_decref(base);
        return iol_err(IOLENS_EFORMAT, "'%s': no sweeps.tsv label in its description (\"...: label A+B. ...\")",
                       path);
    }
    int rc = 0;
    for (int v = 0; v < o->variants && rc == 0; v++) {
        struct run *r = &runs[v];
        memset(r, 0, sizeof *r);
        snprintf(r->scenario, sizeof r->scenario, "%s", scenario);
        snprintf(r->id, sizeof r->id, "%s_r%d", scenario, v + 1);
        r->variant = v + 1;
        memcpy(r->labels, labels, NL);
        json_t *cfg = json_deep_copy(base);
        char *text = NULL;
        if (!cfg || corpus_make_variant(cfg, scenario, labels, o->seed, v, o->scale, &o->ranks, &r->info) ||
            !(text = json_dumps(cfg, JSON_INDENT(2)))) {
            rc = iol_err(IOLENS_EFORMAT, "cannot make variant %d of '%s'", v + 1, path);
        } else {
            r->cfg_hash = corpus_fnv1a(text, strlen(text));
            snprintf(r->cfg, sizeof r->cfg, "%s/configs/%s.json", o->out, r->id);
            FILE *f = fopen(r->cfg, "w");
            if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0)
                rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", r->cfg, strerror(errno));
            if (f && fclose(f) && rc == 0)
                rc = iol_err(IOLENS_EIO, "cannot write '%s': %s", r->cfg, strerror(errno));
        }
        free(text);
        json_decref(cfg);
    }
    json_decref(base);
    return rc;
}

/* Starts one run in its own process group; output goes to WORK/output.txt. */
static int start_run(const struct opts *o, struct run *r, const char *scratch)
{
    char cfg_abs[PATH_MAX];
    if (!realpath(r->cfg, cfg_abs)) {
        snprintf(r->why, sizeof r->why, "cannot resolve '%s': %s", r->cfg, strerror(errno));
        return -1;
    }
    int wn = snprintf(r->work, sizeof r->work, "%s/%s", scratch, r->id);
    if (wn < 0 || (size_t)wn >= sizeof r->work) {
        snprintf(r->why, sizeof r->why, "the run folder under '%.200s' is a path too long", scratch);
        return -1;
    }
    if (mkdir(r->work, 0777) && errno != EEXIST) {
        snprintf(r->why, sizeof r->why, "cannot create '%s': %s", r->work, strerror(errno));
        return -1;
    }
    char trace[PATH_MAX + 16], root[PATH_MAX + 16], outp[PATH_MAX + 16], np[16];
    snprintf(trace, sizeof trace, "%s/run.trace", r->work);
    snprintf(root, sizeof root, "%s/root", r->work);
    snprintf(outp, sizeof outp, "%s/output.txt", r->work);
    snprintf(np, sizeof np, "%d", r->info.ranks);
    const char *argv[24];
    int a = iol_mpirun_prefix(argv, o->mpirun, np);
    argv[a++] = o->program;
    argv[a++] = "trace";
    argv[a++] = "-o";
    argv[a++] = trace;
    argv[a++] = "--";
    argv[a++] = o->program;
    argv[a++] = "replay";
    argv[a++] = cfg_abs;
    argv[a++] = "--root";
    argv[a++] = root;
    argv[a] = NULL;
    pid_t pid = iol_spawn_group(argv, outp, outp, "corpus");
    if (pid < 0) {
        snprintf(r->why, sizeof r->why, "%s", iolens_error_last());
        return -1;
    }
    r->pid = pid;
    r->t0 = now_s();
    r->state = RUN_RUNNING;
    return 0;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* The Darshan log of a run's trace, as the runtime on the sweeps' machine would have written
 * it: the counters' rules (docs/counters.md) with POSIX_FILE_ALIGNMENT = the file system's
 * alignment there (the Lustre stripe size: 1 MiB in every dev row), not this machine's ext4
 * block size, so that POSIX_FILE_NOT_ALIGNED counts what the sweep logs count. */
static int write_log(const char *trace, const char *log, const char *exe, long long alignment)
{
    iolens_evsource *src = NULL;
    iolens_counters *c = NULL;
    iolens_counters_opts co;
    iolens_counters_opts_init(&co);
    co.file_alignment = alignment;
    /* the sweeps' Darshan runtime saw no stat() of C programs built against glibc >= 2.33 (every
     * mdtest log: POSIX_STATS 0 despite its stat phase); the replay is such a program */
    co.legacy_stat_only = 1;
    co.std_streams = 0; /* what the replay prints is its report, not the workload's */
    co.exe = exe;
    int rc = iolens_trace_open(trace, &src);
    if (rc == 0)
        rc = iolens_counters_compute(src, &co, &c);
    if (rc == 0)
        rc = iolens_counters_write(c, log);
    iolens_counters_free(c);
    iolens_evsource_free(src);
    return rc;
}

/* After the run's processes ended: sizes, the Darshan log's features. */
static void finish_run(const struct opts *o, struct run *r, int status, long long alignment)
{
    r->secs = now_s() - r->t0;
    r->pid = 0;
    char p[PATH_MAX + 16];
    if (r->state == RUN_FAILED)
        return;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        r->state = RUN_FAILED;
        if (WIFEXITED(status))
            snprintf(r->why, sizeof r->why, "exit %d, see %s/output.txt", WEXITSTATUS(status), r->work);
        else
            snprintf(r->why, sizeof r->why, "killed by signal %d, see %s/output.txt", WTERMSIG(status), r->work);
        return;
    }
    char t[PATH_MAX + 16];
    snprintf(t, sizeof t, "%s/run.trace", r->work);
    r->trace_bytes = file_size(t);
    snprintf(p, sizeof p, "%s/run.darshan", r->work);
    iolens_detect_input *in = NULL;
    if (write_log(t, p, r->cfg, alignment) < 0) {
        r->state = RUN_FAILED;
        snprintf(r->why, sizeof r->why, "%s", iolens_error_last());
    } else if ((r->log_bytes = file_size(p)),
               iolens_detect_read_log(&in, p, o->warn, o->warn_ctx) < 0 || iolens_detect_input_features(in, r->x) < 0) {
        r->state = RUN_FAILED;
        snprintf(r->why, sizeof r->why, "%s", iolens_error_last());
    } else {
        r->state = RUN_OK;
    }
    iolens_detect_input_free(in);
}

static const char *benchmark_of(const char *scenario)
{
    static const struct {
        const char *prefix, *name;
    } b[] = {{"ior_", "ior"}, {"mdtest_", "mdtest"}, {"dlio_", "dlio"},
             {"h5b_", "h5bench"}, {"hacc_", "hacc_io"}, {"custom_", "custom"}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        if (!strncmp(scenario, b[i].prefix, strlen(b[i].prefix)))
            return b[i].name;
    return "other";
}

static void put_num(FILE *f, double v)
{
    char buf[40];
    iol_fmt_double(buf, sizeof buf, v);
    fputs(buf, f);
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        iol_err(IOLENS_EIO, "cannot write '%s': %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) || bad)
        return iol_err(IOLENS_EIO, "cannot write '%s'", path);
    return 0;
}

static void label_text(const struct run *r, char *out, size_t n)
{
    out[0] = '\0';
    for (int l = 0; l < NL; l++)
        if (r->labels[l]) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? "+" : "", iolens_detect_label_name(l));
        }
}

static int write_outputs(const struct opts *o, const struct run *runs, size_t nruns, long long *bytes)
{
    char fp[PATH_MAX + 32], lp[PATH_MAX + 32], mp[PATH_MAX + 32];
    FILE *ff = open_out(o->out, "features.csv", fp, sizeof fp);
    FILE *lf = ff ? open_out(o->out, "labels.csv", lp, sizeof lp) : NULL;
    FILE *mf = lf ? open_out(o->out, "manifest.csv", mp, sizeof mp) : NULL;
    if (!mf) {
        if (ff)
            fclose(ff);
        if (lf)
            fclose(lf);
        return IOLENS_EIO;
    }
    for (int f = 0; f < NF; f++)
        fprintf(ff, "%s,", iolens_detect_feature_name(f));
    fprintf(ff, "_benchmark,_scenario,_config,_variant,_seed,_ranks\n");
    fprintf(lf, "job_id,benchmark,scenario,n_ranks,n_darshan_files,label_source");
    for (int l = 0; l < NL; l++)
        fprintf(lf, ",%s", iolens_detect_label_name(l));
    fprintf(lf, "\n");
    fprintf(mf, "run,scenario,variant,seed,scale,ranks,count_factor,size_factor,labels,config,config_fnv1a,status,"
                "run_seconds,trace_bytes,log_bytes\n");
    for (size_t i = 0; i < nruns; i++) {
        const struct run *r = &runs[i];
        char lab[256];
        label_text(r, lab, sizeof lab);
        const char *status = r->state == RUN_OK ? "ok" : r->state == RUN_PLANNED ? "planned" : "failed";
        fprintf(mf, "%s,%s,%d,%llu,%g,%d,%g,%g,%s,configs/%s.json,%016llx,%s,%.3f,%lld,%lld\n", r->id, r->scenario,
                r->variant, o->seed, o->scale, r->info.ranks, r->info.count_factor, r->info.size_factor, lab, r->id,
                (unsigned long long)r->cfg_hash, status, r->secs, r->trace_bytes, r->log_bytes);
        if (r->state != RUN_OK)
            continue;
        for (int f = 0; f < NF; f++) {
            put_num(ff, r->x[f]);
            fputc(',', ff);
        }
        fprintf(ff, "%s,%s,%s,%d,%llu,%d\n", benchmark_of(r->scenario), r->id, r->scenario, r->variant, o->seed,
                r->info.ranks);
        fprintf(lf, "%zu,%s,%s,%d,1,construction", i + 1, benchmark_of(r->scenario), r->id, r->info.ranks);
        for (int l = 0; l < NL; l++)
            fprintf(lf, ",%d", r->labels[l]);
        fprintf(lf, "\n");
    }
    int rc = close_out(ff, fp);
    rc |= close_out(lf, lp);
    rc |= close_out(mf, mp);
    *bytes = file_size(fp) + file_size(lp) + file_size(mp);
    return rc ? IOLENS_EIO : 0;
}

static int bad_scratch(const char *dir)
{
    char real[PATH_MAX + 2];
    if (!realpath(dir, real))
        return 0;
    strcat(real, "/"); /* "/dev" is under "/dev/" */
    return iolens_counters_path_excluded(real); /* the counters' own list */
}

/* Runs every planned run, at most o->jobs at a time. Returns the number of failed runs. */
static size_t execute(const struct opts *o, struct run *runs, size_t nruns, const char *scratch)
{
    size_t failed = 0, next = 0, done = 0;
    int running = 0;
    /* The runs use Open MPI's ROMIO, not OMPIO: the sweeps ran on Cray MPICH, whose MPI-IO is
     * ROMIO; the configs' romio_cb_* / romio_ds_* hints only act in ROMIO, and OMPIO adds files of
     * its own to the run's Darshan counters (a /tmp/ompi.* shared-file-pointer segment and one
     * <file>.locktest.<rank> per rank) that no sweep log has. A value already set wins. The runs
     * inherit it; this process starts no MPI. */
    setenv("OMPI_MCA_io", "romio321", 0);
    while (done < nruns) {
        if (o->stop && *o->stop) {
            for (size_t i = 0; i < next; i++)
                if (runs[i].state == RUN_RUNNING && runs[i].pid > 0) {
                    kill(-runs[i].pid, SIGKILL);
                    waitpid(runs[i].pid, NULL, 0);
                    runs[i].state = RUN_FAILED;
                    snprintf(runs[i].why, sizeof runs[i].why, "interrupted");
                    failed++;
                }
            failed += nruns - next; /* never started */
            break;
        }
        while (running < o->jobs && next < nruns) {
            struct run *r = &runs[next++];
            if (start_run(o, r, scratch)) {
                r->state = RUN_FAILED;
                done++;
                failed++;
                if (o->progress)
                    o->progress(o->progress_ctx, done, nruns);
                warnf(o, "run %s: %s", r->id, r->why);
                continue;
            }
            running++;
        }
        if (!running)
            continue;
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            for (size_t i = 0; i < next; i++)
                if (runs[i].state == RUN_RUNNING && runs[i].pid > 0 && now_s() - runs[i].t0 > o->timeout &&
                    !runs[i].why[0]) {
                    snprintf(runs[i].why, sizeof runs[i].why, "timed out after %g s, see %s/output.txt",
                             o->timeout, runs[i].work);
                    kill(-runs[i].pid, SIGKILL);
                }
            continue;
        }
        for (size_t i = 0; i < next; i++) {
            struct run *r = &runs[i];
            if (r->state != RUN_RUNNING || r->pid != pid)
                continue;
            if (r->why[0])
                r->state = RUN_FAILED; /* timed out */
            kill(-pid, SIGKILL);       /* stragglers of the run's process group, if any */
            finish_run(o, r, status, o->file_alignment);
            running--;
            done++;
            if (o->progress)
                o->progress(o->progress_ctx, done, nruns);
            if (r->state == RUN_FAILED) {
                failed++;
                warnf(o, "run %s failed: %s", r->id, r->why);
            } else if (!o->keep) {
                iol_remove_tree(r->work);
            }
            if (o->on_run) {
                iolens_corpus_run one = {r->id, r->info.ranks, r->secs, r->trace_bytes, r->state == RUN_OK, r->why};
                o->on_run(o->on_run_ctx, &one);
            }
        }
    }
    if (o->stop && *o->stop)
        warnf(o, "interrupted: %zu of %zu runs finished", done, nruns);
    return failed;
}

void iolens_corpus_options_init(iolens_corpus_options *o)
{
    memset(o, 0, sizeof *o);
    o->out = "corpus";
    o->mpirun = "mpirun";
    o->seed = 1;
    o->variants = 3;
    o->jobs = 1;
    o->scale = 1.0;
    o->timeout = 600.0;
    o->file_alignment = 1048576;
    o->max_ranks = 32;
}

int iolens_corpus_build(const iolens_corpus_options *p, iolens_corpus_stats *st)
{
    memset(st, 0, sizeof *st);
    char sweeps[4096];
    iol_share_path(sweeps, sizeof sweeps, "sweeps");
    struct opts o = {p->out ? p->out : "corpus", p->configs ? p->configs : sweeps, p->scratch,
                     p->mpirun ? p->mpirun : "mpirun", p->program, p->seed, p->variants > 0 ? p->variants : 3,
                     p->jobs > 0 ? p->jobs : 1, p->keep, p->dry, p->scale > 0 ? p->scale : 1.0,
                     p->timeout > 0 ? p->timeout : 600.0, p->file_alignment, p->only, p->exclude,
                     {p->rank_sweep, p->max_ranks > 0 ? p->max_ranks : 32}, p->warn, p->warn_ctx, p->progress,
                     p->progress_ctx, p->on_run, p->on_run_ctx, p->stop};
    const char *tmp = getenv("TMPDIR");
    if (!o.scratch)
        o.scratch = tmp && *tmp ? tmp : "/tmp";
    if (!o.dry && !o.program)
        return iol_err(IOLENS_EINVAL, "no iolens program to run the corpus with");
    if (bad_scratch(o.scratch))
        return iol_err(IOLENS_EINVAL, "scratch folder '%s' is under a path Darshan excludes (/dev, /proc, /etc, ...): "
                       "its files would not be counted; give another", o.scratch);
    int rc = -1;
    char **names = NULL;
    size_t nnames = 0, nruns = 0, failed = 0;
    struct run *runs = NULL;
    char scratch[PATH_MAX] = "";
    char cdir[PATH_MAX];
    double t0 = now_s();
    if ((rc = list_scenarios(&o, &names, &nnames)) < 0)
        goto out;
    if (!nnames) {
        rc = iol_err(IOLENS_ENOTFOUND, "no scenario config in '%s'%s%s", o.configs, o.only ? " matches " : "",
                     o.only ? o.only : "");
        goto out;
    }
    snprintf(cdir, sizeof cdir, "%s/configs", o.out);
    if (iol_mkdir_p(cdir)) {
        rc = iol_err(IOLENS_EIO, "cannot create '%s': %s", cdir, strerror(errno));
        goto out;
    }
    nruns = nnames * (size_t)o.variants;
    runs = calloc(nruns, sizeof *runs);
    if (!runs) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nnames; i++)
        if ((rc = plan_scenario(&o, names[i], runs + i * (size_t)o.variants)) < 0)
            goto out;
    if (!o.dry) {
        if ((size_t)snprintf(scratch, sizeof scratch, "%s/iolens-corpus-XXXXXX", o.scratch) >= sizeof scratch ||
            !mkdtemp(scratch)) {
            rc = iol_err(IOLENS_EIO, "cannot create a folder in '%s': %s", o.scratch, strerror(errno));
            scratch[0] = '\0';
            goto out;
        }
        failed = execute(&o, runs, nruns, scratch);
    }
    long long bytes = 0;
    if ((rc = write_outputs(&o, runs, nruns, &bytes)) < 0)
        goto out;
    st->runs = nruns;
    st->scenarios = nnames;
    st->failed = failed;
    st->seconds = now_s() - t0;
    for (size_t i = 0; i < nruns; i++) {
        st->run_seconds += runs[i].secs;
        st->trace_bytes += runs[i].trace_bytes > 0 ? runs[i].trace_bytes : 0;
    }
    st->corpus_bytes = bytes;
    rc = failed ? iol_err(IOLENS_EIO, "%zu of %zu runs failed", failed, nruns) : 0;
out:
    if (scratch[0] && !o.keep && !failed)
        iol_remove_tree(scratch);
    else if (scratch[0])
        snprintf(st->kept, sizeof st->kept, "%s", scratch);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(runs);
    return rc;
}
