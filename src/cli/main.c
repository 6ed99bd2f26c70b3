/* iolens: one program, subcommands from one table (commands.def). */
#include "cli.h"

#include "iolens/iolens.h"

#include <stdio.h>
#include <string.h>

struct cli_cmd {
    const char *name;
    cli_cmd_fn fn;
    const char *help;
};

static const struct cli_cmd commands[] = {
#define IOL_CMD(name, fn, help) {#name, fn, help},
#include "commands.def"
#undef IOL_CMD
    {NULL, NULL, NULL},
};

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
            char *sub[] = {argv[2], helpflag, NULL};
            for (size_t i = 0; commands[i].name; i++)
                if (!strcmp(commands[i].name, argv[2]))
                    return commands[i].fn(2, sub);
            cli_error("'%s' is not an iolens command; see 'iolens help'", argv[2]);
            return CLI_USAGE;
        }
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; commands[i].name; i++)
        if (!strcmp(commands[i].name, name))
            return commands[i].fn(argc - 1, argv + 1);
    cli_error("'%s' is not an iolens command; see 'iolens help'", name);
    return CLI_USAGE;
}
