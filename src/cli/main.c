/* iolens: one program, subcommands from one table (commands.def). Built twice: `iolens`
 * (IOLENS_CLI_LEAN: the commands that need no classifier, MPI or HDF5, linked --as-needed) and
 * `iolens-full` (every command), which `iolens` becomes for the others. */
#include "cli.h"

#include "iolens/iolens.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct cli_cmd {
    const char *name;
    cli_cmd_fn fn;
    const char *help;
};

static const struct cli_cmd commands[] = {
#define IOL_CMD(name, fn, help) {#name, fn, help},
#ifdef IOLENS_CLI_LEAN
#define IOL_CMD_FULL(name, fn, help) {#name, NULL, help},
#else
#define IOL_CMD_FULL(name, fn, help) {#name, fn, help},
#endif
#include "commands.def"
#undef IOL_CMD
#undef IOL_CMD_FULL
    {NULL, NULL, NULL},
};

/* Runs a command this program does not have: replaces it by iolens-full beside it, with the same
 * arguments (argv[0] stays, so messages and usage name `iolens`). Returns only on failure. */
static int run_full(char **argv)
{
    char path[4096];
    if (cli_sibling_program("iolens-full", path, sizeof path) < 0) {
        cli_error("cannot find this program's folder (/proc/self/exe) to run iolens-full for '%s'", argv[1]);
        return CLI_FAIL;
    }
    execv(path, argv);
    cli_error("cannot run '%s' for '%s': %s (it is installed beside iolens)", path, argv[1], strerror(errno));
    return CLI_FAIL;
}

static int run(const struct cli_cmd *c, int argc, char **argv, int skip)
{
    if (!c->fn)
        return run_full(argv);
#ifdef IOLENS_CLI_LEAN
    /* on the ranks of an MPI job, cluster shares its work over them: iolens-full has MPI */
    if (!strcmp(c->name, "cluster") && cli_launched_by_mpirun())
        return run_full(argv);
#endif
    int st = c->fn(argc - skip, argv + skip);
    if (cli_output_finish(st == CLI_OK) < 0 && st == CLI_OK)
        st = CLI_FAIL;
    return st;
}

/* "'detct' is not an iolens command; did you mean 'detect'?" */
static int unknown_command(const char *name)
{
    const char *best = NULL;
    size_t bd = 3; /* at most two edits away */
    for (size_t i = 0; commands[i].name; i++) {
        size_t dd = cli_distance(name, commands[i].name);
        if (dd < bd) {
            bd = dd;
            best = commands[i].name;
        }
    }
    if (best)
        cli_error("'%s' is not an iolens command; did you mean '%s'? (see 'iolens help')", name, best);
    else
        cli_error("'%s' is not an iolens command; see 'iolens help'", name);
    return CLI_USAGE;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens <command> [options] [args]\n"
            "       iolens <command> --help\n"
            "       iolens --version\n\n"
            "Record, diagnose, classify and replay the I/O of HPC applications.\n\n"
            "commands:\n");
    for (size_t i = 0; commands[i].name; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "  %-10s %s\n", "help", "show this list, or `iolens help <command>` for one command");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("iolens %s\n", iolens_version());
        return CLI_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (!strcmp(name, "help") && argc > 2) {
            char helpflag[] = "--help";
            char *sub[] = {argv[0], argv[2], helpflag, NULL};
            for (size_t i = 0; commands[i].name; i++)
                if (!strcmp(commands[i].name, argv[2]))
                    return run(&commands[i], 3, sub, 1);
            return unknown_command(argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; commands[i].name; i++)
        if (!strcmp(commands[i].name, name))
            return run(&commands[i], argc, argv, 1);
    return unknown_command(name);
}
