/* iolens batch: the per-log tasks over many logs (include/iolens/batch.h), one process or
 * every rank of `mpirun -np N iolens batch ...`. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "darshan_modes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "iolens/batch.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens batch LOG|DIR... [--list FILE] --do TASKS -o OUT_DIR [--timeout S] [--max-mem MIB]\n"
            "                    [--block N] [--models DIR] [--tau T] [-q]\n"
            "       iolens batch --resume -o OUT_DIR [options as above]\n"
            "       iolens batch --merge OUT_DIR\n"
            "       iolens batch --generate N -o DIR [--corrupt FRACTION] [--seed S] SEED_LOG...\n"
            "       mpirun -np N iolens batch ...   (every rank takes logs from one shared counter)\n\n"
            "Runs TASKS on every Darshan log given (folders: their *.darshan logs, sorted; --list FILE:\n"
            "one log per line, - for standard input). Each log is read by a worker process with a time\n"
            "and memory limit: a log that crashes or hangs the reader is reported in the errors files\n"
            "and the run goes on. Results go to part files per rank in OUT_DIR with a manifest of what\n"
            "is done: a run killed at any point continues with --resume, and --merge joins the parts\n"
            "into OUT_DIR/TASK.csv, TASK.jsonl, errors.csv and errors.jsonl in input order.\n\n"
            "  --do TASKS       comma-separated: summary (darshan --summary's row), features (the model\n"
            "                   features), detect (probabilities and detected patterns), heatmap\n"
            "                   (the job-level HEATMAP series, one row per API and bin: the input of\n"
            "                   `iolens cluster`), all\n"
            "  -o, --output DIR the output folder (created; must not hold another run)\n"
            "  --resume         continue the run in OUT_DIR over its own list of logs\n"
            "  --timeout S      seconds one log may take (default 60)\n"
            "  --max-mem MIB    memory a worker may allocate (default 256)\n"
            "  --block N        logs taken at a time from the shared counter (default 8)\n"
            "  --models DIR     detect: the models folder (default: the installed models)\n"
            "  --tau T          detect: the probability gate (default 0.3)\n"
            "  -q, --quiet      no progress and no final counts\n"
            "  --merge DIR      join the part files of DIR (after the run; missing logs are counted)\n"
            "  --generate N     write N varied copies of the seed logs into DIR (gen-NNNNNNN.darshan),\n"
            "                   a --corrupt fraction of them unreadable (listed in DIR/corrupt.txt)\n"
            "  --seed S         the generator's seed (default 1)\n");
}

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
    static const char *const valued[] = {"-o",      "--output", "--do",     "--timeout", "--max-mem", "--block",
                                         "--models", "--tau",    "--merge",  "--list",    "--generate", "--corrupt",
                                         "--seed",   NULL};
    cli_permute(argc, argv, valued);
    iolens_batch_options o;
    memset(&o, 0, sizeof o);
    const char *do_list = NULL, *merge_dir = NULL, *list = NULL;
    long long gen_n = -1;
    double corrupt = 0;
    unsigned long long seed = 1;
    int quiet = 0, first = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int v = i + 1 < argc;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--")) {
            first = i + 1;
            break;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v) {
            o.out_dir = argv[++i];
        } else if (!strcmp(a, "--do") && v) {
            do_list = argv[++i];
        } else if (!strcmp(a, "--resume")) {
            o.resume = 1;
        } else if (!strcmp(a, "--timeout") && v) {
            o.timeout = strtod(argv[++i], &end);
            if (*end || !(o.timeout > 0) || o.timeout > 86400) {
                cli_error("--timeout wants seconds in (0, 86400], not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--max-mem") && v) {
            double mib = strtod(argv[++i], &end);
            if (*end || !(mib >= 16) || mib > 1048576) {
                cli_error("--max-mem wants MiB in [16, 1048576], not '%s'", argv[i]);
                return CLI_USAGE;
            }
            o.max_mem = (size_t)(mib * 1048576.0);
        } else if (!strcmp(a, "--block") && v) {
            long b = strtol(argv[++i], &end, 10);
            if (*end || b < 1 || b > 65536) {
                cli_error("--block wants 1 to 65536 logs, not '%s'", argv[i]);
                return CLI_USAGE;
            }
            o.block = (int)b;
        } else if (!strcmp(a, "--models") && v) {
            o.models = argv[++i];
        } else if (!strcmp(a, "--tau") && v) {
            o.tau = strtod(argv[++i], &end);
            if (*end || !(o.tau > 0) || o.tau >= 1) {
                cli_error("--tau wants a probability in (0, 1), not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--merge") && v) {
            merge_dir = argv[++i];
        } else if (!strcmp(a, "--list") && v) {
            list = argv[++i];
        } else if (!strcmp(a, "--generate") && v) {
            gen_n = strtoll(argv[++i], &end, 10);
            if (*end || gen_n < 1 || gen_n > 100000000) {
                cli_error("--generate wants 1 to 100000000 logs, not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--corrupt") && v) {
            corrupt = strtod(argv[++i], &end);
            if (*end || !(corrupt >= 0) || corrupt > 1) {
                cli_error("--corrupt wants a fraction in [0, 1], not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--seed") && v) {
            seed = strtoull(argv[++i], &end, 10);
            if (*end) {
                cli_error("--seed wants an integer, not '%s'", argv[i]);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown_option("batch", a, usage);
        } else {
            first = i;
            break;
        }
    }
    if (merge_dir)
        return merge(merge_dir, quiet);
    if (gen_n > 0) {
        if (!o.out_dir || first >= argc) {
            cli_error("--generate needs -o DIR and at least one seed log");
            usage(stderr);
            return CLI_USAGE;
        }
        return generate(gen_n, o.out_dir, corrupt, seed, argc - first, argv + first, quiet);
    }
    if (!o.out_dir) {
        cli_error("no output folder (-o OUT_DIR)");
        usage(stderr);
        return CLI_USAGE;
    }
    if (!do_list && !o.resume) {
        cli_error("no task (--do summary,features,detect,heatmap)");
        usage(stderr);
        return CLI_USAGE;
    }
    if (do_list && iolens_batch_tasks_parse(do_list, &o.tasks) < 0) {
        cli_lib_error();
        return CLI_USAGE;
    }
    char **inputs = NULL;
    int nin = 0, cap = 0;
    if (first < argc) {
        inputs = iol_darshan_expand_inputs(argc - first, argv + first, &nin);
        if (!inputs)
            return CLI_FAIL;
        cap = nin;
    }
    if (list && read_list(list, &inputs, &nin, &cap) < 0) {
        iol_darshan_inputs_free(inputs, nin);
        return CLI_FAIL;
    }
    if (!o.resume && nin == 0) {
        cli_error("no log given");
        iol_darshan_inputs_free(inputs, nin);
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
    iol_darshan_inputs_free(inputs, nin);
#ifdef IOLENS_HAVE_MPI
    if (mpi)
        MPI_Finalize();
#endif
    return rc < 0 ? CLI_FAIL : CLI_OK;
}
