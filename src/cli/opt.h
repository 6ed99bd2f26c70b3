/* The one option parser of every subcommand (docs/cli.md, "Conventions"): a command describes
 * its options in a table, and the parser gives it the options in the order given, wherever they
 * stand among the operands, and the operands in theirs.
 *
 *   --name VALUE, --name=VALUE, -n VALUE, -nVALUE; flags grouped (-qv); "--" ends the options
 *   (what follows are operands, even "-x"); "-" is an operand (standard input or output).
 *   -h/--help prints the help made from the table and ends the command with 0; -q/--quiet and
 *   -v/--verbose are every command's (cli_verbosity). An option the table does not have, or one
 *   without its value, is an "error:" line with the nearest known option, and exit status 2.
 *
 * The help, the man pages (scripts/gen-man.sh reads the help) and the "did you mean" suggestions
 * come from the same table, so they cannot disagree. */
#ifndef IOLENS_CLI_OPT_H
#define IOLENS_CLI_OPT_H

#include <stdio.h>

enum {
    CLI_OPT_END = 0,      /* no more options: the operands are in cli_args.operands */
    CLI_OPT_HELP = -1,    /* the help was printed: the command returns CLI_OK */
    CLI_OPT_ERROR = -2,   /* an error line was printed: the command returns CLI_USAGE */
};

typedef struct cli_opt {
    int id;            /* > 0: what cli_next returns for it; 0 ends the table */
    char sname;        /* its short name ('o'), or 0 */
    const char *lname; /* its long name without the dashes ("output"), or NULL */
    const char *value; /* what its value is ("FILE"); NULL: a flag; "[=WHEN]": a value given only
                          as --name=WHEN, else none (cli_args.val is NULL) */
    const char *help;  /* what it does; a '\n' starts a continuation line; NULL: not in the help nor
                          suggested (an option refused with a reason) */
} cli_opt;

typedef struct cli_spec {
    const char *cmd;        /* the words after "iolens" ("report", "darshan --from") */
    const char *usage;      /* synopsis lines after "iolens ", separated by '\n' */
    const char *about;      /* what the command does (paragraphs separated by blank lines) */
    const cli_opt *opts;
    const char *more;       /* printed after the options (NULL: nothing) */
    void (*more_fn)(FILE *out); /* then this (defaults found at run time) */
    int stop_at_operand;    /* the first operand ends the options (trace: a program's own follow) */
} cli_spec;

typedef struct cli_args {
    const cli_spec *spec;
    int argc;
    char **argv;
    int i;               /* the next element of argv */
    const char *val;     /* the value of the option cli_next returned (NULL: a flag) */
    char opt[72];        /* that option as given ("--tau", "-o"), for messages */
    char **operands;     /* the operands, in their order (argv is not changed); at the end of the
                            options, NULL-terminated */
    int noperands;
    int rest;            /* operands[rest..] are what followed "--" or (stop_at_operand) the first
                            operand, not parsed (-1: there was neither) */
    const char *group;   /* the letters left of a group of short flags ("-qv") */
    int stop_at_operand; /* the spec's, which a command may change before parsing */
    int started;
} cli_args;

/* -1 quiet (-q: no warnings, no progress), 0 by default, > 0 verbose (-v, -vv) */
extern int cli_verbosity;

/* Starts parsing argv[1..argc-1] (argv[0] is the command's name); returns 0 (out of memory, it
 * exits). argv is left as it is. */
int cli_args_init(cli_args *a, const cli_spec *s, int argc, char **argv);
/* The next option's id; CLI_OPT_END when the options are all read, CLI_OPT_HELP or CLI_OPT_ERROR
 * (see above). */
int cli_next(cli_args *a);
void cli_args_free(cli_args *a);

/* The help: usage, what it does, the options, and the rest. */
void cli_help(const cli_spec *s, FILE *out);
/* Prints "iolens: error: <message> (see 'iolens CMD --help')" and returns CLI_OPT_ERROR. */
int cli_usage_error(const cli_spec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of the option just returned, as a number in [min, max], a size ("4k", "1MiB"), or
 * one of choices (a NULL-terminated list): 0, or an error line naming the option and what it
 * wants, and CLI_OPT_ERROR. */
int cli_val_long(const cli_args *a, long min, long max, long *out);
int cli_val_double(const cli_args *a, double min, double max, double *out);
int cli_val_size(const cli_args *a, long long min, long long max, long long *out);
int cli_val_choice(const cli_args *a, const char *const *choices, int *out);

/* The operands are min to max of them (max < 0: any number): 0, or an error line ("no LOG
 * given", "one LOG wanted, 3 given") and CLI_OPT_ERROR. what names one of them ("LOG"). */
int cli_want_operands(const cli_args *a, int min, int max, const char *what);
/* A parse that stops early (help, a usage error): frees a and returns the exit status of the
 * command: CLI_OK after the help, else CLI_USAGE. */
int cli_args_exit(cli_args *a, int id);

#endif
