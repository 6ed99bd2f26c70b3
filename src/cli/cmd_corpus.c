/* iolens corpus: a seeded, reproducible local labeled corpus. Each sweep scenario of
 * examples/replay/sweeps/ (one per row of sweeps.tsv) runs in several seeded variants as
 * `mpirun -np R iolens trace -o TRACE -- iolens replay VARIANT.json`; the Darshan counters of
 * the trace (with the sweeps' file alignment) give the model features; the scenario's
 * construction gives the labels. */
#define _GNU_SOURCE
#include "util/fs.h"
#include "util/share.h"
#include "cli.h"
#include "opt.h"

#include "util/buf.h"
#include "corpus.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
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

enum { O_OUTPUT = 1, O_SEED, O_VARIANTS, O_SCALE, O_JOBS, O_ONLY, O_EXCLUDE, O_CONFIGS, O_SCRATCH, O_ALIGN,
       O_RANKS, O_MAX_RANKS, O_TIMEOUT, O_MPIRUN, O_KEEP, O_DRY };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "DIR", "output folder (default corpus)"},
    {O_SEED, 0, "seed", "N", "seed of the variants (default 1)"},
    {O_VARIANTS, 0, "variants", "V", "runs per scenario, 1 to 100 (default 3)"},
    {O_SCALE, 0, "scale", "S", "multiplies repetition and file counts, up to 100 (default 1)"},
    {O_JOBS, 'j', "jobs", "J", "runs at a time, 1 to 64 (default 1)"},
    {O_ONLY, 0, "only", "PATTERNS", "scenarios whose name matches one of the shell patterns (comma-separated)"},
    {O_EXCLUDE, 0, "exclude", "PATTERNS", "leave out scenarios matching one of the patterns"},
    {O_CONFIGS, 0, "configs", "DIR", "scenario configs (default: the installed sweeps, below)"},
    {O_SCRATCH, 0, "scratch", "DIR", "where runs write (default $TMPDIR or /tmp; not under /dev, /proc,\n"
                                     "/etc, ...: Darshan's default exclusions would drop those files)"},
    {O_ALIGN, 0, "file-alignment", "BYTES", "POSIX_FILE_ALIGNMENT of the counters (default 1048576, the\n"
                                            "Lustre stripe size of the sweeps' logs; this machine's ext4: 4096)"},
    {O_RANKS, 0, "ranks", "POLICY", "rank counts of the variants: local (default: 1-4 ranks for 4-rank\n"
                                    "configs, 12-20 for 16-rank ones) or sweep (the scenario's rank counts in\n"
                                    "sweeps.tsv, its smallest for variant 1, up to --max-ranks; per-rank\n"
                                    "counts and sizes shrink by config ranks / ranks)"},
    {O_MAX_RANKS, 0, "max-ranks", "N", "largest rank count of --ranks sweep, 1 to 1024 (default 32)"},
    {O_TIMEOUT, 0, "timeout", "SEC", "per run (default 600)"},
    {O_MPIRUN, 0, "mpirun", "PROG", "the MPI launcher (default mpirun)"},
    {O_KEEP, 0, "keep", NULL, "keep each run's folder (trace, Darshan log, output)"},
    {O_DRY, 0, "dry-run", NULL, "write the variant configs and the manifest, run nothing"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    char sweeps[4096];
    fprintf(out, "\nThe installed sweeps: %s\n-v prints one line per finished run.\n",
            iol_share_path(sweeps, sizeof sweeps, "sweeps"));
}

static const cli_spec spec = {
    "corpus", "corpus [-o DIR] [--seed N] [--variants V] [--scale S] [--jobs J]\n"
              "       [--only PATTERN[,...]] [--exclude PATTERN[,...]] [--configs DIR]\n"
              "       [--scratch DIR] [--file-alignment BYTES] [--ranks local|sweep] [--max-ranks N]\n"
              "       [--timeout SEC] [--mpirun PROG] [--keep] [--dry-run] [-v]",
    "Builds a labeled corpus: every sweep scenario config (one per row of sweeps.tsv) in V\n"
    "seeded variants, each run as `mpirun -np R iolens trace -o TRACE -- iolens replay\n"
    "VARIANT.json`; the model features of the trace's Darshan counters become a row of\n"
    "DIR/features.csv (dev_features.csv layout), its scenario's labels a row of DIR/labels.csv\n"
    "(dev_labels.csv layout); DIR/manifest.csv lists every run (config, seed, ranks, run time,\n"
    "trace size) and DIR/configs/ the variant configs. Variant 1 is the example config itself;\n"
    "the others vary the rank count, repetition and file counts, particle counts and ordering\n"
    "seeds. The same seed gives the same configs.",
    optv, NULL, more, 0};

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
    const char *out, *configs, *scratch, *mpirun;
    unsigned long long seed;
    int variants, jobs, keep, dry, verbose;
    double scale, timeout;
    long long file_alignment;
    const char *only, *exclude;
    corpus_rank_policy ranks;
};

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
    if (!d) {
        cli_error("cannot read '%s': %s", o->configs, strerror(errno));
        return CLI_FAIL;
    }
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    struct dirent *e;
    int rc = CLI_OK;
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
                rc = CLI_FAIL;
                break;
            }
            v = nv;
        }
        if (!(v[*n] = strdup(name))) {
            rc = CLI_FAIL;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (rc != CLI_OK)
        cli_error("out of memory listing '%s'", o->configs);
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
    if (!base) {
        cli_error("cannot read '%s': %s at line %d", path, jerr.text, jerr.line);
        return CLI_FAIL;
    }
    unsigned char labels[NL];
    if (corpus_labels_from_description(json_string_value(json_object_get(base, "description")), labels)) {
        cli_error("'%s': no sweeps.tsv label in its description (\"...: label A+B. ...\")", path);
        json_decref(base);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int v = 0; v < o->variants && rc == CLI_OK; v++) {
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
            cli_error("cannot make variant %d of '%s'", v + 1, path);
            rc = CLI_FAIL;
        } else {
            r->cfg_hash = corpus_fnv1a(text, strlen(text));
            snprintf(r->cfg, sizeof r->cfg, "%s/configs/%s.json", o->out, r->id);
            FILE *f = fopen(r->cfg, "w");
            if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) {
                cli_error("cannot write '%s': %s", r->cfg, strerror(errno));
                rc = CLI_FAIL;
            }
            if (f && fclose(f) && rc == CLI_OK) {
                cli_error("cannot write '%s': %s", r->cfg, strerror(errno));
                rc = CLI_FAIL;
            }
        }
        free(text);
        json_decref(cfg);
    }
    json_decref(base);
    return rc;
}

/* Starts one run in its own process group; output goes to WORK/output.txt. */
static int start_run(const struct opts *o, struct run *r, const char *scratch, const char *exe)
{
    char cfg_abs[PATH_MAX];
    if (!realpath(r->cfg, cfg_abs)) {
        snprintf(r->why, sizeof r->why, "cannot resolve '%s': %s", r->cfg, strerror(errno));
        return -1;
    }
    snprintf(r->work, sizeof r->work, "%s/%s", scratch, r->id);
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
    int a = cli_mpirun_prefix(argv, o->mpirun, np);
    argv[a++] = exe;
    argv[a++] = "trace";
    argv[a++] = "-o";
    argv[a++] = trace;
    argv[a++] = "--";
    argv[a++] = exe;
    argv[a++] = "replay";
    argv[a++] = cfg_abs;
    argv[a++] = "--root";
    argv[a++] = root;
    argv[a] = NULL;
    pid_t pid = cli_spawn_group(argv, outp, outp, "corpus");
    if (pid < 0) {
        snprintf(r->why, sizeof r->why, "cannot fork");
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
static void finish_run(struct run *r, int status, long long alignment)
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
               iolens_detect_read_log(&in, p, cli_warn_cb, NULL) < 0 || iolens_detect_input_features(in, r->x) < 0) {
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
        cli_error("cannot write '%s': %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        cli_error("cannot write '%s'", path);
        return CLI_FAIL;
    }
    return CLI_OK;
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
        return CLI_FAIL;
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
    return rc ? CLI_FAIL : CLI_OK;
}

static int bad_scratch(const char *dir)
{
    char real[PATH_MAX + 2];
    if (!realpath(dir, real))
        return 0;
    strcat(real, "/"); /* "/dev" is under "/dev/" */
    return iolens_counters_path_excluded(real); /* the counters' own list */
}

/* Ctrl-C / SIGTERM: the runs live in their own process groups (so a terminal's SIGINT does not reach
 * them); the loop stops them and ends. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

/* Runs every planned run, at most o->jobs at a time. Returns the number of failed runs. */
static size_t execute(const struct opts *o, struct run *runs, size_t nruns, const char *scratch)
{
    char exe[PATH_MAX];
    size_t failed = 0, next = 0, done = 0;
    int running = 0;
    if (cli_self_exe(exe, sizeof exe)) {
        cli_error("cannot find the iolens program (/proc/self/exe)");
        return nruns;
    }
    /* The runs use Open MPI's ROMIO, not OMPIO: the sweeps ran on Cray MPICH, whose MPI-IO is
     * ROMIO; the configs' romio_cb_* / romio_ds_* hints only act in ROMIO, and OMPIO adds files of
     * its own to the run's Darshan counters (a /tmp/ompi.* shared-file-pointer segment and one
     * <file>.locktest.<rank> per rank) that no sweep log has. A value already set wins. The runs
     * inherit it; this process starts no MPI. */
    setenv("OMPI_MCA_io", "romio321", 0);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    cli_progress prog;
    cli_progress_init(&prog, "corpus runs", (unsigned long)nruns);
    while (done < nruns) {
        if (interrupted) {
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
            if (start_run(o, r, scratch, exe)) {
                r->state = RUN_FAILED;
                done++;
                failed++;
                cli_progress_step(&prog, 1);
                cli_warn("run %s: %s", r->id, r->why);
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
            finish_run(r, status, o->file_alignment);
            running--;
            done++;
            cli_progress_step(&prog, 1);
            if (r->state == RUN_FAILED) {
                failed++;
                cli_warn("run %s failed: %s", r->id, r->why);
            } else {
                if (!o->keep)
                    iol_remove_tree(r->work);
                if (o->verbose)
                    fprintf(stderr, "iolens: %-40s %2d ranks  %6.2f s  trace %lld B\n", r->id, r->info.ranks,
                            r->secs, r->trace_bytes);
            }
        }
    }
    cli_progress_end(&prog);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (interrupted)
        cli_error("interrupted: %zu of %zu runs finished", done, nruns);
    return failed;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const char *const policies[] = {"local", "sweep", NULL};
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id, k;
    long n;
    double d;
    long long sz;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_KEEP: o->keep = 1; break;
        case O_DRY: o->dry = 1; break;
        case O_OUTPUT: o->out = a.val; break;
        case O_CONFIGS: o->configs = a.val; break;
        case O_SCRATCH: o->scratch = a.val; break;
        case O_MPIRUN: o->mpirun = a.val; break;
        case O_ONLY: o->only = a.val; break;
        case O_EXCLUDE: o->exclude = a.val; break;
        case O_SEED:
            if (cli_val_long(&a, 0, LONG_MAX, &n) < 0)
                return CLI_USAGE;
            o->seed = (uint64_t)n;
            break;
        case O_VARIANTS:
            if (cli_val_long(&a, 1, 100, &n) < 0)
                return CLI_USAGE;
            o->variants = (int)n;
            break;
        case O_JOBS:
            if (cli_val_long(&a, 1, 64, &n) < 0)
                return CLI_USAGE;
            o->jobs = (int)n;
            break;
        case O_SCALE:
            if (cli_val_double(&a, 1e-9, 100, &d) < 0)
                return CLI_USAGE;
            o->scale = d;
            break;
        case O_ALIGN:
            if (cli_val_size(&a, 0, 1LL << 40, &sz) < 0)
                return CLI_USAGE;
            o->file_alignment = sz;
            break;
        case O_RANKS:
            if (cli_val_choice(&a, policies, &k) < 0)
                return CLI_USAGE;
            o->ranks.sweep = k == 1;
            break;
        case O_MAX_RANKS:
            if (cli_val_long(&a, 1, 1024, &n) < 0)
                return CLI_USAGE;
            o->ranks.max_ranks = (int)n;
            break;
        case O_TIMEOUT:
            if (cli_val_double(&a, 1e-3, 1e7, &d) < 0)
                return CLI_USAGE;
            o->timeout = d;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 0, 0, "");
    if (id < 0)
        return id == CLI_OPT_HELP ? -1 : CLI_USAGE;
    o->verbose = cli_verbosity > 0;
    return 0;
}

int cmd_corpus(int argc, char **argv)
{
    char sweeps[4096];
    iol_share_path(sweeps, sizeof sweeps, "sweeps");
    struct opts o = {"corpus", sweeps, NULL, "mpirun", 1, 3, 1, 0, 0, 0, 1.0, 600.0, 1048576, NULL, NULL, {0, 32}};
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc < 0 ? CLI_OK : prc;
    const char *tmp = getenv("TMPDIR");
    if (!o.scratch)
        o.scratch = tmp && *tmp ? tmp : "/tmp";
    if (bad_scratch(o.scratch)) {
        cli_error("scratch folder '%s' is under a path Darshan excludes (/dev, /proc, /etc, ...): its files would "
                  "not be counted; give --scratch DIR",
                  o.scratch);
        return CLI_USAGE;
    }
    int rc = CLI_FAIL;
    char **names = NULL;
    size_t nnames = 0, nruns = 0, failed = 0;
    struct run *runs = NULL;
    char scratch[PATH_MAX] = "";
    char cdir[PATH_MAX];
    double t0 = now_s();
    if (list_scenarios(&o, &names, &nnames) != CLI_OK)
        goto out;
    if (!nnames) {
        cli_error("no scenario config in '%s'%s%s", o.configs, o.only ? " matches " : "", o.only ? o.only : "");
        goto out;
    }
    snprintf(cdir, sizeof cdir, "%s/configs", o.out);
    if (iol_mkdir_p(cdir)) {
        cli_error("cannot create '%s': %s", cdir, strerror(errno));
        goto out;
    }
    nruns = nnames * (size_t)o.variants;
    runs = calloc(nruns, sizeof *runs);
    if (!runs) {
        cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < nnames; i++)
        if (plan_scenario(&o, names[i], runs + i * (size_t)o.variants) != CLI_OK)
            goto out;
    if (!o.dry) {
        if ((size_t)snprintf(scratch, sizeof scratch, "%s/iolens-corpus-XXXXXX", o.scratch) >= sizeof scratch ||
            !mkdtemp(scratch)) {
            cli_error("cannot create a folder in '%s': %s", o.scratch, strerror(errno));
            scratch[0] = '\0';
            goto out;
        }
        failed = execute(&o, runs, nruns, scratch);
    }
    long long bytes = 0;
    if (write_outputs(&o, runs, nruns, &bytes) != CLI_OK)
        goto out;
    double secs = now_s() - t0, sum = 0;
    long long tbytes = 0;
    for (size_t i = 0; i < nruns; i++) {
        sum += runs[i].secs;
        tbytes += runs[i].trace_bytes > 0 ? runs[i].trace_bytes : 0;
    }
    if (o.dry)
        printf("planned %zu runs of %zu scenarios (seed %llu, %d variants, scale %g): configs in %s, manifest in "
               "%s/manifest.csv\n",
               nruns, nnames, o.seed, o.variants, o.scale, cdir, o.out);
    else
        printf("corpus: %zu runs of %zu scenarios (seed %llu, %d variants, scale %g): %zu rows, %zu failed; run time "
               "%.1f s (runs %.1f s); traces %lld bytes; corpus %lld bytes -> %s\n",
               nruns, nnames, o.seed, o.variants, o.scale, nruns - failed, failed, secs, sum, tbytes, bytes, o.out);
    rc = failed ? CLI_FAIL : CLI_OK;
out:
    if (scratch[0] && !o.keep && !failed)
        iol_remove_tree(scratch);
    else if (scratch[0])
        fprintf(stderr, "iolens: run folders kept in %s\n", scratch);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(runs);
    return rc;
}
