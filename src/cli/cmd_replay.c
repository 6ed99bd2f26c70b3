/*
 * iolens replay CONFIG.json [--root DIR] [--json] [--dry-run] [--keep]
 *
 * MPI: the program initialises MPI only when it was launched by mpirun
 * (Open MPI, PMIx or PMI environment present) or when the config has an
 * MPI-IO step (then as an MPI singleton). A POSIX/stdio config run without
 * mpirun never touches MPI. Only rank 0 prints.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "iolens/replay.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens replay CONFIG.json [--root DIR] [--json] [--dry-run [--ranks N]] [--keep]\n"
            "       iolens replay --schema | --print-config CONFIG.json\n"
            "       mpirun -np N iolens replay CONFIG.json --root DIR\n\n"
            "Runs the steps of a replay config (docs/REPLAY-CONFIG.md): each step is timed from the\n"
            "earliest open to the latest close across ranks (FBench Algorithm 1).\n\n"
            "  --root DIR      directory every replayed file is created below (default: .);\n"
            "                  absolute config paths are remapped below it\n"
            "  --json          print the results as JSON instead of a table\n"
            "  --dry-run       print what would be done (sizes, files, hints), touch nothing\n"
            "  --ranks N       ranks a dry run plans for (default: the config's nranks)\n"
            "  --keep          keep the files the replay created (default: remove them)\n"
            "  --schema        print the JSON Schema of the config format\n"
            "  --print-config  print the config normalised (sizes in bytes)\n"
            "  --config-from TRACE, or a TRACE instead of a config: trace-driven replay\n"
            "                  (not available yet: needs the trace readers)\n\n"
            "back ends: %s\n"
            "MPI-IO back end: %s\n",
            iolens_replay_backends(),
            iolens_replay_have_mpi() ? "yes (MPI is initialised under mpirun, or for a config with an MPI-IO "
                                       "or HDF5 step)"
                                     : "no (built without MPI)");
}

static int launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE");
}

static void progress_cb(void *ctx, size_t done, size_t total)
{
    cli_progress *p = ctx;
    (void)total;
    p->done = 0;
    cli_progress_step(p, (unsigned long)done);
}

int cmd_replay(int argc, char **argv)
{
    const char *config = NULL, *root = ".", *trace = NULL;
    int json = 0, dry = 0, keep = 0, ranks = 0, print_config = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--dry-run") || !strcmp(a, "-n")) {
            dry = 1;
        } else if (!strcmp(a, "--keep")) {
            keep = 1;
        } else if (!strcmp(a, "--print-config")) {
            print_config = 1;
        } else if (!strcmp(a, "--schema")) {
            return iolens_replay_schema_write(stdout) == 0 ? CLI_OK : CLI_FAIL;
        } else if ((!strcmp(a, "--root") || !strcmp(a, "--ranks") || !strcmp(a, "--config-from")) && i + 1 >= argc) {
            cli_error("%s needs a value", a);
            return CLI_USAGE;
        } else if (!strcmp(a, "--root")) {
            root = argv[++i];
        } else if (!strcmp(a, "--config-from")) {
            trace = argv[++i];
        } else if (!strcmp(a, "--ranks")) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1048576) {
                cli_error("--ranks wants a number from 1 to 1048576, got '%s'", argv[i]);
                return CLI_USAGE;
            }
            ranks = (int)v;
        } else if (a[0] == '-' && a[1]) {
            cli_error("unknown option '%s'", a);
            usage(stderr);
            return CLI_USAGE;
        } else if (!config) {
            config = a;
        } else {
            cli_error("one config at a time ('%s' and '%s')", config, a);
            return CLI_USAGE;
        }
    }
    if (trace) {
        cli_error("cannot build a config from '%s': trace-driven replay needs the iolens/Recorder trace "
                  "readers, not in this build yet", trace);
        return CLI_FAIL;
    }
    if (!config) {
        usage(stderr);
        return CLI_USAGE;
    }
    size_t len = strlen(config);
    if (len < 5 || strcmp(config + len - 5, ".json")) {
        cli_error("'%s' is not a .json config: on-the-fly replay of traces is not available in this build yet",
                  config);
        return CLI_FAIL;
    }
    iolens_replay_config *cfg = NULL;
    if (iolens_replay_config_load(&cfg, config) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (print_config) {
        int rc = iolens_replay_config_write(cfg, stdout);
        iolens_replay_config_free(cfg);
        return rc == 0 ? CLI_OK : CLI_FAIL;
    }
    int use_mpi = 0, rank = 0;
#ifdef IOLENS_HAVE_MPI
    if (!dry && (launched_by_mpirun() || iolens_replay_config_needs_mpi(cfg))) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        use_mpi = 1;
    }
#else
    if (!dry && launched_by_mpirun())
        cli_warn("launched by mpirun but this iolens has no MPI: every process runs the whole config as rank 0");
#endif
    cli_progress prog;
    cli_progress_init(&prog, "replay", (unsigned long)iolens_replay_config_count(cfg));
    iolens_replay_options opt = {root, dry, ranks, keep, use_mpi, cli_warn_cb, NULL, progress_cb, &prog};
    iolens_replay_result *res = NULL;
    int rc = iolens_replay_run(&res, cfg, &opt);
    if (rank == 0)
        cli_progress_end(&prog);
    int status = CLI_OK;
    if (rc < 0) {
        cli_lib_error();
        status = CLI_FAIL;
    } else if (rank == 0) {
        if (json)
            iolens_replay_result_write_json(res, stdout, 1);
        else
            iolens_replay_result_write_table(res, stdout);
        for (size_t i = 0; i < iolens_replay_result_count(res); i++) {
            iolens_replay_step_stats st;
            iolens_replay_result_step(res, i, &st);
            if (st.verify_errors) {
                cli_error("step '%s': %lld bytes read back differ from the written pattern", st.name,
                          (long long)st.verify_errors);
                status = CLI_FAIL;
            }
        }
    }
    iolens_replay_result_free(res);
    iolens_replay_config_free(cfg);
#ifdef IOLENS_HAVE_MPI
    if (use_mpi) {
        MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Finalize();
    }
#endif
    return status;
}
