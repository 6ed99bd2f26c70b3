/* iolens corpus: a labelled local corpus from the replay sweeps (include/iolens/corpus.h). */
#include "cli.h"
#include "opt.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "iolens/corpus.h"
#include "util/share.h"

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

static int parse_opts(int argc, char **argv, iolens_corpus_options *o)
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
            o->rank_sweep = k == 1;
            break;
        case O_MAX_RANKS:
            if (cli_val_long(&a, 1, 1024, &n) < 0)
                return CLI_USAGE;
            o->max_ranks = (int)n;
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
    return 0;
}

static void on_run(void *ctx, const iolens_corpus_run *r)
{
    (void)ctx;
    if (cli_verbosity > 0 && r->ok) /* -v: one line per finished run */
        fprintf(stderr, "iolens: %-40s %2d ranks  %6.2f s  trace %lld B\n", r->id, r->ranks, r->seconds,
                r->trace_bytes);
}

int cmd_corpus(int argc, char **argv)
{
    iolens_corpus_options o;
    iolens_corpus_options_init(&o);
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc < 0 ? CLI_OK : prc;
    char exe[4096];
    if (!o.dry && cli_self_exe(exe, sizeof exe) < 0) {
        cli_error("cannot find the iolens program (/proc/self/exe)");
        return CLI_FAIL;
    }
    o.program = o.dry ? NULL : exe;
    o.warn = cli_warn_cb;
    cli_progress prog = {.label = "corpus runs"};
    o.progress = cli_progress_cb;
    o.progress_ctx = &prog;
    o.on_run = on_run;
    o.stop = &cli_stop; /* the runs are process groups of their own: the build stops them */
    cli_catch_stop();
    iolens_corpus_stats st;
    int rc = iolens_corpus_build(&o, &st);
    if (prog.start)
        cli_progress_end(&prog);
    cli_release_stop();
    if (rc < 0 && !st.runs) {
        cli_lib_error();
        return rc == IOLENS_EINVAL ? CLI_USAGE : CLI_FAIL;
    }
    const char *out = o.out ? o.out : "corpus";
    if (o.dry)
        printf("planned %zu runs of %zu scenarios (seed %llu, %d variants, scale %g): configs in %s/configs, manifest "
               "in %s/manifest.csv\n",
               st.runs, st.scenarios, (unsigned long long)o.seed, o.variants, o.scale, out, out);
    else
        printf("corpus: %zu runs of %zu scenarios (seed %llu, %d variants, scale %g): %zu rows, %zu failed; run time "
               "%.1f s (runs %.1f s); traces %lld bytes; corpus %lld bytes -> %s\n",
               st.runs, st.scenarios, (unsigned long long)o.seed, o.variants, o.scale, st.runs - st.failed, st.failed,
               st.seconds, st.run_seconds, st.trace_bytes, st.corpus_bytes, out);
    if (st.kept[0])
        fprintf(stderr, "iolens: run folders kept in %s\n", st.kept);
    return rc < 0 ? CLI_FAIL : CLI_OK;
}
