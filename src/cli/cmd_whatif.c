/* iolens whatif: the closed loop (include/iolens/whatif.h, docs/whatif.md): options in, report out. */
#include "cli.h"
#include "opt.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/detect.h"
#include "iolens/whatif.h"

enum { O_JSON = 1, O_OUTPUT, O_DRY, O_ALL_PATHS, O_ROOT_ANYWHERE, O_DROP_CACHES, O_COLD, O_COMBINE, O_CONTROL, O_NO_CONTROL, O_NP,
       O_MAX_ROUNDS, O_ROUNDS, O_TIMEOUT, O_ROOT, O_LEVEL, O_PATTERN, O_KEEP, O_MODELS };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the report there (default: standard output)"},
    {O_JSON, 0, "json", NULL, "one JSON document with every round's figures (the machine form)"},
    {O_PATTERN, 0, "pattern", "P,...", "patterns to try instead of detecting them (needed with a CONFIG.json):\n"
                                       "access_granularity metadata_intensity parallelism_efficiency\n"
                                       "access_pattern interface_choice file_strategy throughput_utilization"},
    {O_NP, 0, "np", "N", "ranks of each replay, 1 to 4096 (default: the config's nranks, else 1); runs\n"
                         "use `mpirun -np N` when N > 1 or a config has an MPI-IO/HDF5 step"},
    {O_ROOT, 0, "root", "DIR", "each run gets a fresh folder below DIR (default: a new folder next to\n"
                               "the trace's largest file, so the figures come from the application's\n"
                               "own file system; $TMPDIR or /tmp when that folder is not here or not\n"
                               "writable, or for a CONFIG.json); removed at the end"},
    {O_ROOT_ANYWHERE, 0, "root-anywhere", NULL, "allow a --root on another file-system type than the traced data's"},
    {O_COMBINE, 0, "combine", "P,...", "also measure one variant with all these changes together (in order)"},
    {O_CONTROL, 0, "control", NULL, "measure the base config itself as a variant (A/A), the noise floor\n"
                                    "every verdict is judged against (the default)"},
    {O_NO_CONTROL, 0, "no-control", NULL, "no A/A control: one run fewer per round; the verdicts then rest on\n"
                                          "the intervals alone, with no measure of this machine's noise"},
    {O_DROP_CACHES, 0, "drop-caches", NULL, "as root, drop the page cache before every timed run (after the sync)"},
    {O_COLD, 0, "cold-reads", NULL, "every replay's read steps start cold (iolens replay --cold-reads)"},
    {O_ROUNDS, 0, "rounds", "R", "exactly R rounds, 1 to 1000; each runs the base and every variant once,\n"
                                 "in an order that rotates from round to round. Default: adaptive, at least\n"
                                 "5 rounds, then more until every variant's paired interval excludes 1 or\n"
                                 "is narrower than 10%, at most --max-rounds (default 21)"},
    {O_MAX_ROUNDS, 0, "max-rounds", "N", "the adaptive rounds' limit (5 to 1000)"},
    {O_DRY, 'n', "dry-run", NULL, "write (--keep DIR) or print the base and variant configs; run nothing"},
    {O_KEEP, 0, "keep", "DIR", "keep the configs and each run's results JSON in DIR"},
    {O_TIMEOUT, 0, "timeout", "SEC", "a replay still running after SEC seconds is stopped and whatif fails\n"
                                     "(default 600)"},
    {O_MODELS, 0, "models", "DIR", "model folder (default: $IOLENS_MODELS or the installed ones, below)"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "detection keeps files under /dev/ (incl. /dev/shm) /proc/ /etc/ ..., which\n"
                                        "Darshan (and so `iolens detect` by default) leaves out"},
    {O_LEVEL, 0, "level", "L", "hdf5: a trace of an HDF5 program: the base is the trace replayed on the fly\n"
                               "at the library level (HDF5 calls through HDF5), the changes are HDF5's:\n"
                               "interface_choice makes every dataset transfer collective (iolens replay\n"
                               "--hdf5-xfer collective); io (default): the replay config"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nThe installed models: %s\n", iolens_detect_default_models_dir());
}

static const cli_spec spec = {
    "whatif", "whatif TRACE [--np N] [--root DIR] [--rounds R] [--pattern P[,P...]] [--json]\n"
              "       [--dry-run] [--keep DIR] [--models DIR] [--all-paths] [--timeout SEC]\n"
              "       [--root-anywhere] [--combine P,P...] [--no-control]\n"
              "whatif TRACE --level hdf5 [--pattern P[,P...]] [options]\n"
              "whatif CONFIG.json --pattern P[,P...] [options]",
    "The closed loop: detects the I/O bottleneck patterns of a trace (iolens trace file or\n"
    "Recorder trace directory) with the shipped models (gate tau 0.3), builds the replay\n"
    "config of the trace (as `iolens replay --config-from`), derives one variant per pattern\n"
    "with the change of its card, replays the base and every variant, and reports the\n"
    "measured speed-ups (docs/whatif.md).",
    optv, NULL, more, 0};

int cmd_whatif(int argc, char **argv)
{
    iolens_whatif_options o;
    iolens_whatif_options_init(&o);
    int rounds_given = 0, max_given = 0, json = 0;
    static const char *const levels[] = {"hdf5", "io", NULL};
    const char *output = NULL;
    cli_args p;
    cli_args_init(&p, &spec, argc, argv);
    int id, ch;
    long lv;
    while ((id = cli_next(&p)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_OUTPUT: output = p.val; break;
        case O_DRY: o.dry = 1; break;
        case O_ALL_PATHS: o.all_paths = 1; break;
        case O_ROOT_ANYWHERE: o.root_anywhere = 1; break;
        case O_DROP_CACHES: o.drop_caches = 1; break;
        case O_COLD: o.cold_reads = 1; break;
        case O_COMBINE: o.combine = p.val; break;
        case O_CONTROL: o.control = 1; break;
        case O_NO_CONTROL: o.control = 0; break;
        case O_NP:
            if (cli_val_long(&p, 1, 4096, &lv) < 0)
                return CLI_USAGE;
            o.np = (int)lv;
            break;
        case O_MAX_ROUNDS:
            if (cli_val_long(&p, 5, 1000, &lv) < 0)
                return CLI_USAGE;
            o.max_rounds = (int)lv;
            max_given = 1;
            break;
        case O_ROUNDS:
            if (cli_val_long(&p, 1, 1000, &lv) < 0)
                return CLI_USAGE;
            o.rounds = (int)lv;
            rounds_given = 1;
            break;
        case O_TIMEOUT:
            if (cli_val_double(&p, 1e-3, 86400 * 7, &o.timeout) < 0)
                return CLI_USAGE;
            break;
        case O_ROOT: o.root = p.val; break;
        case O_LEVEL:
            if (cli_val_choice(&p, levels, &ch) < 0)
                return CLI_USAGE;
            o.library = ch == 0;
            break;
        case O_PATTERN: o.patterns = p.val; break;
        case O_KEEP: o.keep = p.val; break;
        case O_MODELS: o.models = p.val; break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&p, 1, 1, "TRACE|CONFIG.json");
    if (id < 0)
        return cli_args_exit(&p, id);
    o.input = p.operands[0];
    if (output && cli_output_to(output) < 0)
        return CLI_FAIL;
    if (rounds_given && max_given)
        return cli_usage_error(&spec, "--rounds R runs exactly R rounds; --max-rounds is the limit of the adaptive "
                                      "rounds"), CLI_USAGE;
    char exe[4096];
    if (cli_self_exe(exe, sizeof exe) < 0) {
        cli_error("cannot find the iolens program (/proc/self/exe)");
        return CLI_FAIL;
    }
    o.program = exe;
    o.warn = cli_warn_cb;
    cli_progress prog = {.label = "whatif runs"};
    o.progress = cli_progress_cb;
    o.progress_ctx = &prog;
    o.stop = &cli_stop; /* a replay runs in a process group of its own: the loop stops it */
    cli_catch_stop();
    iolens_whatif *w = NULL;
    int rc = iolens_whatif_run(&o, &w);
    if (prog.start)
        cli_progress_end(&prog);
    cli_release_stop();
    int status = CLI_OK;
    if (rc < 0) {
        cli_lib_error();
        status = rc == IOLENS_EINVAL ? CLI_USAGE : CLI_FAIL;
    } else if ((json ? iolens_whatif_write_json(w, stdout) : iolens_whatif_write_table(w, stdout)) < 0 ||
               fflush(stdout) != 0) {
        cli_error("cannot write the report");
        status = CLI_FAIL;
    }
    iolens_whatif_free(w);
    return status;
}
