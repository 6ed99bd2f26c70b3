/* iolens batch: the per-log tasks over many logs (include/iolens/batch.h), one process or
 * every rank of `mpirun -np N iolens batch ...`. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "opt.h"
#include "iolens/darshan.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "iolens/batch.h"

enum { O_OUTPUT = 1, O_DO, O_RESUME, O_TIMEOUT, O_MAX_MEM, O_BLOCK, O_MODELS, O_TAU, O_MERGE, O_LIST, O_GENERATE,
       O_CORRUPT, O_SEED };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "DIR", "the output folder (created; must not hold another run)"},
    {O_DO, 0, "do", "TASKS", "comma-separated: summary (darshan --summary's row), features (the model\n"
                             "features), detect (probabilities and detected patterns), heatmap\n"
                             "(the job-level HEATMAP series, one row per API and bin: the input of\n"
                             "`iolens cluster`), all"},
    {O_LIST, 0, "list", "FILE", "the logs, one per line (-: standard input)"},
    {O_RESUME, 0, "resume", NULL, "continue the run in OUT_DIR over its own list of logs"},
    {O_TIMEOUT, 0, "timeout", "S", "seconds one log may take, up to 86400 (default 60)"},
    {O_MAX_MEM, 0, "max-mem", "MIB", "memory a worker may allocate, 16 to 1048576 MiB (default 256)"},
    {O_BLOCK, 0, "block", "N", "logs taken at a time from the shared counter, 1 to 65536 (default 8)"},
    {O_MODELS, 0, "models", "DIR", "detect: the models folder (default: the installed models)"},
    {O_TAU, 0, "tau", "T", "detect: the probability gate, between 0 and 1 (default 0.3)"},
    {O_MERGE, 0, "merge", "DIR", "join the part files of DIR (after the run; missing logs are counted)"},
    {O_GENERATE, 0, "generate", "N", "write N varied copies of the seed logs into DIR (gen-NNNNNNN.darshan),\n"
                                     "a --corrupt fraction of them unreadable (listed in DIR/corrupt.txt)"},
    {O_CORRUPT, 0, "corrupt", "FRACTION", "with --generate: the fraction made unreadable, 0 to 1 (default 0)"},
    {O_SEED, 0, "seed", "S", "the generator's seed (default 1)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "batch", "batch LOG|DIR... [--list FILE] --do TASKS -o OUT_DIR [--timeout S] [--max-mem MIB]\n"
             "      [--block N] [--models DIR] [--tau T] [-q]\n"
             "batch --resume -o OUT_DIR [options as above]\n"
             "batch --merge OUT_DIR\n"
             "batch --generate N -o DIR [--corrupt FRACTION] [--seed S] SEED_LOG...",
    "Runs TASKS on every Darshan log given (folders: their *.darshan logs, sorted; --list FILE:\n"
    "one log per line, - for standard input). Each log is read by a worker process with a time\n"
    "and memory limit: a log that crashes or hangs the reader is reported in the errors files\n"
    "and the run goes on. Results go to part files per rank in OUT_DIR with a manifest of what\n"
    "is done: a run killed at any point continues with --resume, and --merge joins the parts\n"
    "into OUT_DIR/TASK.csv, TASK.jsonl, errors.csv and errors.jsonl in input order.\n"
    "`mpirun -np N iolens batch ...`: every rank takes logs from one shared counter. -q: no\n"
    "progress and no final counts.",
    optv, NULL, NULL, 0};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    cli_progress *p = ctx;
    if (!p->label)
        cli_progress_init(p, "logs", (unsigned long)total);
    if (done > p->done)
        cli_progress_step(p, (unsigned long)(done - p->done));
}

/* --list FILE (or -): one log per line */
static int read_list(const char *path, char ***v, int *n, int *cap)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t lc = 0;
    ssize_t got;
    while ((got = getline(&line, &lc, f)) > 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (!got)
            continue;
        if (*n == *cap) {
            int nc = *cap ? *cap * 2 : 1024;
            char **nv = realloc(*v, (size_t)nc * sizeof *nv);
            if (!nv)
                break;
            *v = nv;
            *cap = nc;
        }
        if (!((*v)[*n] = strdup(line)))
            break;
        (*n)++;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return 0;
}

static int merge(const char *dir, int quiet)
{
    uint64_t missing = 0;
    iolens_batch_stats st;
    if (iolens_batch_merge(dir, &missing, &st) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (!quiet)
        fprintf(stderr, "merged '%s': %" PRIu64 " logs, %" PRIu64 " with results, %" PRIu64 " errors, %" PRIu64
                        " not done%s\n",
                dir, st.inputs, st.ok, st.errors, missing, missing ? " (iolens batch --resume does them)" : "");
    return missing ? CLI_FAIL : CLI_OK;
}

static int generate(long long n, const char *dir, double corrupt, unsigned long long seed, int nseeds,
                    char **seeds, int quiet)
{
    cli_progress prog;
    memset(&prog, 0, sizeof prog);
    int rc = iolens_batch_generate((const char *const *)seeds, (size_t)nseeds, (size_t)n, corrupt, seed, dir,
                                   quiet ? NULL : on_progress, &prog);
    if (prog.label)
        cli_progress_end(&prog);
    if (rc < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_batch(int argc, char **argv)
{
    iolens_batch_options o;
    memset(&o, 0, sizeof o);
    const char *do_list = NULL, *merge_dir = NULL, *list = NULL;
    long gen_n = -1;
    double corrupt = 0, mib;
    unsigned long long seed = 1;
    int quiet = 0;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long n;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_OUTPUT: o.out_dir = a.val; break;
        case O_DO: do_list = a.val; break;
        case O_RESUME: o.resume = 1; break;
        case O_TIMEOUT:
            if (cli_val_double(&a, 1e-3, 86400, &o.timeout) < 0)
                return CLI_USAGE;
            break;
        case O_MAX_MEM:
            if (cli_val_double(&a, 16, 1048576, &mib) < 0)
                return CLI_USAGE;
            o.max_mem = (size_t)(mib * 1048576.0);
            break;
        case O_BLOCK:
            if (cli_val_long(&a, 1, 65536, &n) < 0)
                return CLI_USAGE;
            o.block = (int)n;
            break;
        case O_MODELS: o.models = a.val; break;
        case O_TAU:
            if (cli_val_double(&a, 1e-9, 1 - 1e-9, &o.tau) < 0)
                return CLI_USAGE;
            break;
        case O_MERGE: merge_dir = a.val; break;
        case O_LIST: list = a.val; break;
        case O_GENERATE:
            if (cli_val_long(&a, 1, 100000000, &gen_n) < 0)
                return CLI_USAGE;
            break;
        case O_CORRUPT:
            if (cli_val_double(&a, 0, 1, &corrupt) < 0)
                return CLI_USAGE;
            break;
        case O_SEED:
            if (cli_val_long(&a, 0, LONG_MAX, &n) < 0)
                return CLI_USAGE;
            seed = (unsigned long long)n;
            break;
        }
    }
    if (id < 0)
        return cli_args_exit(&a, id);
    quiet = cli_verbosity < 0;
    int first = 0;
    argc = a.noperands;
    argv = a.operands;
    if (merge_dir)
        return merge(merge_dir, quiet);
    if (gen_n > 0) {
        if (!o.out_dir || first >= argc)
            return cli_usage_error(&spec, "--generate needs -o DIR and at least one seed log"), CLI_USAGE;
        return generate(gen_n, o.out_dir, corrupt, seed, argc - first, argv + first, quiet);
    }
    if (!o.out_dir)
        return cli_usage_error(&spec, "no output folder (-o OUT_DIR)"), CLI_USAGE;
    if (!do_list && !o.resume)
        return cli_usage_error(&spec, "no task (--do summary,features,detect,heatmap)"), CLI_USAGE;
    if (do_list && iolens_batch_tasks_parse(do_list, &o.tasks) < 0) {
        cli_lib_error();
        return CLI_USAGE;
    }
    char **inputs = NULL;
    int nin = 0, cap = 0;
    if (first < argc) {
        size_t nfound = 0;
        inputs = cli_find_logs(argc - first, argv + first, &nfound);
        nin = (int)nfound;
        if (!inputs)
            return CLI_FAIL;
        cap = nin;
    }
    if (list && read_list(list, &inputs, &nin, &cap) < 0) {
        iolens_darshan_logs_free(inputs, (size_t)nin);
        return CLI_FAIL;
    }
    if (!o.resume && nin == 0) {
        cli_error("no log given");
        iolens_darshan_logs_free(inputs, (size_t)nin);
        return CLI_USAGE;
    }
    int rank = 0, mpi = 0;
#ifdef IOLENS_HAVE_MPI
    if (cli_launched_by_mpirun()) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        mpi = 1;
    }
#endif
    o.use_mpi = mpi;
    cli_progress prog;
    memset(&prog, 0, sizeof prog);
    if (rank == 0 && !quiet) {
        o.progress = on_progress;
        o.progress_ctx = &prog;
    }
    o.warn = cli_warn_cb;
    iolens_batch_stats st;
    int rc = iolens_batch_run((const char *const *)inputs, (size_t)nin, &o, &st);
    if (prog.label)
        cli_progress_end(&prog);
    if (rc < 0)
        cli_lib_error();
    else if (rank == 0 && !quiet)
        fprintf(stderr,
                "batch: %" PRIu64 " logs (%" PRIu64 " done before), %" PRIu64 " read, %" PRIu64 " errors (%" PRIu64
                " crashed, %" PRIu64 " timed out) in %.2f s = %.1f logs/s on %d rank(s); peak RSS %.1f MiB\n",
                st.inputs, st.done_before, st.ok, st.errors, st.crashed, st.timeouts, st.seconds,
                st.seconds > 0 ? (double)(st.ok + st.errors) / st.seconds : 0.0, st.ranks,
                (double)st.peak_rss_kib / 1024.0);
    /* none of the logs could be read (and none was before): a failure, as darshan --summary's */
    if (rc >= 0 && rank == 0 && st.ok == 0 && st.done_before == 0 && st.errors > 0) {
        cli_error("none of the %" PRIu64 " log(s) could be read: the reasons are in '%s/errors.jsonl' (after "
                  "`iolens batch --merge %s`)", st.errors, o.out_dir, o.out_dir);
        rc = IOLENS_EFORMAT;
    }
    iolens_darshan_logs_free(inputs, (size_t)nin);
#ifdef IOLENS_HAVE_MPI
    if (mpi)
        MPI_Finalize();
#endif
    return rc < 0 ? CLI_FAIL : CLI_OK;
}
