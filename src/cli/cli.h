/* Shared pieces of the iolens command-line program (not part of the library). */
#ifndef IOLENS_CLI_H
#define IOLENS_CLI_H

#include <signal.h>
#include <stdio.h>

/* Every subcommand: argv[0] is the subcommand name. Returns the exit code:
 * 0 success, 1 failure, 2 usage error. */
typedef int (*cli_cmd_fn)(int argc, char **argv);

#define IOL_CMD(name, fn, help) int fn(int argc, char **argv);
#define IOL_CMD_FULL(name, fn, help) int fn(int argc, char **argv);
#include "commands.def"
#undef IOL_CMD
#undef IOL_CMD_FULL

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The running program's path (/proc/self/exe) into out; -1 when it cannot be read or does not fit. */
int cli_self_exe(char *out, size_t n);

/* The path of the program `name` in this program's folder (iolens-full, iolens-replay) into out;
 * -1 when this program's path cannot be read or the result does not fit. */
/* Whether this process was started by mpirun or srun (one rank of an MPI job). */
int cli_launched_by_mpirun(void);
int cli_sibling_program(const char *name, char *out, size_t n);

/* -o FILE of a command that prints its result: standard output goes to FILE from now on ("-" keeps
 * it). Returns 0, or -1 after an error line naming the file. */
int cli_output_to(const char *path);
/* The end of a command: its -o output renamed over the file when ok, else removed (cli_output_to);
 * 0, or -1 when it could not be written (said). */
int cli_output_finish(int ok);

/* The path of cmd into out: cmd itself when it has a '/', else its first executable match on
 * PATH. Returns 0, or -1 when there is none. */
int cli_find_program(const char *cmd, char *out, size_t n);

/* Writes `MPIRUN --oversubscribe [--allow-run-as-root] -np NP` into argv (the last only as root)
 * and returns how many entries it wrote (at most 6). */
int cli_mpirun_prefix(const char **argv, const char *mpirun, const char *np);

/* Starts argv (argv[0] looked up in PATH) in its own process group (so a timeout or Ctrl-C
 * stops it and all its children, e.g. mpirun and the ranks), stdin from /dev/null, stdout to
 * the file out and stderr to the file err (the same path: one file). Returns the pid, or -1
 * (message printed) when it cannot fork; `who` names the caller in the child's exec error. */
int cli_spawn_group(const char *const *argv, const char *out, const char *err, const char *who);

/* Ctrl-C and SIGTERM while a library call runs children in process groups of their own (which a
 * terminal's SIGINT does not reach): cli_catch_stop() makes the signals set cli_stop (0 before),
 * which the library polls and then stops its children; cli_release_stop() restores the
 * handlers. */
extern volatile sig_atomic_t cli_stop;
void cli_catch_stop(void);
void cli_release_stop(void);

/* git-style messages on stderr: "iolens: error: ..." */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Edit distance (insertions, deletions, substitutions, adjacent swaps) of two short names. */
size_t cli_distance(const char *a, const char *b);
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the library's last error with a prefix: "iolens: error: <msg>". */
void cli_lib_error(void);
/* Library warning callback that prints "iolens: warning: <msg>" to stderr. */
void cli_warn_cb(void *ctx, const char *msg);

/* Colour of the human output on a terminal, --color[=auto|always|never] (cli_color_value).
 * cli_color_set(mode) decides once: always, never, or auto (the
 * default: standard output is a terminal, NO_COLOR is unset or empty, TERM is not "dumb").
 * cli_sgr(code) is the escape sequence "\033[<code>m" when colour is on, "" when off;
 * cli_sgr(NULL) the reset. Severities as Drishti prints them: CLI_SGR_HIGH, _WARN, _INFO,
 * _OK. */
enum { CLI_COLOR_AUTO = -1, CLI_COLOR_NEVER = 0, CLI_COLOR_ALWAYS = 1 };
/* The WHEN of --color[=WHEN] (NULL: always) into *mode: 0, or -1 after an error line. */
int cli_color_value(const char *when, int *mode);
void cli_color_set(int mode);
const char *cli_sgr(const char *code);
/* 1 when cli_color_set turned colour on */
int cli_color_enabled(void);

/* The inputs of a command that takes many logs (iolens_darshan_find_logs: a folder stands for the
 * logs below it); NULL after an error line. Free with iolens_darshan_logs_free(v, *nout). */
char **cli_find_logs(int n, char **paths, size_t *nout);
#define CLI_SGR_HIGH "1;31"
#define CLI_SGR_WARN "1;33"
#define CLI_SGR_INFO "36"
#define CLI_SGR_OK "1;32"
#define CLI_SGR_BOLD "1"

/* Progress on a terminal only (stderr is a tty): "label [####    ] 12/40  3.1/s  0:09 left". */
typedef struct cli_progress {
    const char *label;
    unsigned long total;
    unsigned long done;
    int enabled;
    double last_draw;
    double start; /* for the rate and the time left */
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label, unsigned long total);
/* The library's progress callbacks (done of total, size_t): ctx is a cli_progress zeroed but for
 * its label, started at the first call with that total. */
void cli_progress_cb(void *ctx, size_t done, size_t total);
void cli_progress_step(cli_progress *p, unsigned long n);
void cli_progress_end(cli_progress *p);

/* iolens_detect_read() for features/detect: any input (Darshan log or text, iolens
 * or Recorder trace), library warnings on stderr, progress over a trace's ranks. */
struct iolens_detect_input;
int cli_detect_read(struct iolens_detect_input **in, const char *path, int all_paths);

/* Labeled rows for iolens train / eval (defined in cmd_train.c), three kinds (biquality):
 * the configuration-labeled dev rows (features CSV + labels CSV) at `weight`, the rows of a local
 * corpus (`iolens corpus -o DIR`: DIR/features.csv + DIR/labels.csv; NULL: none) at corpus_weight,
 * then the logs listed in rule_list (NULL: none) labeled by the Drishti-rule mapping at rule_weight.
 * The scored kind comes first (n_conf rows, `table` holds them): the dev rows, or the corpus rows
 * when corpus_first. Returns a CLI exit code; messages are printed. */
/* Default weight of local corpus rows (chosen by experiment, docs/detect.md). */
#define CLI_CORPUS_WEIGHT 100.0
/* Default weight of the real-program suite's rows (chosen by leave-one-program-out, docs/detect.md). */
#define CLI_SUITE_WEIGHT 1000.0
struct iolens_detect_table;
struct cli_detect_sources {
    const char *features, *labels;
    double weight;
    const char *corpus;
    double corpus_weight;
    int scored;        /* the block put first (scored by eval): 0 dev rows, 1 corpus, 2 suite */
    int corpus_timing; /* 1: keep the corpus rows' timing features; 0: mark them missing (default) */
    const char *rule_list;
    double rule_weight;
    const char *rule_base; /* relative paths of rule_list are below this folder (NULL: as given) */
    int timing;            /* 1: the model sees the timing features of the dev and rule rows (--timing) */
    const char *suite;     /* real-program suite (bench/detect/suite/run.sh -o DIR), NULL: none */
    double suite_weight;
    int counts; /* 1: the model sees the STDIO counts (--counts); 0: their shares only (default) */
};
/* 1 for the features that measure time (runtime, *_F_*TIME*, *_TIME_SIZE, bandwidths, time
 * shares, time_imbalance, io_duration, io_active_fraction). */
int cli_detect_timing_feature(int i);
/* 1 for the STDIO counts (STDIO_WRITES, STDIO_BYTES_WRITTEN, ...): in the dev rows they include
 * the console streams, which a log's features leave out; missing to the model unless --counts. */
int cli_detect_count_feature(int i);
struct cli_detect_rows {
    /* tables[b] holds block b of the rows in their order (tables[0]: the n_conf scored rows);
     * kind[b] says which source it is (0 dev, 1 corpus, 2 suite), n_block[b] its rows */
    struct iolens_detect_table *table, *tables[3];
    int kind[3];
    size_t n_block[3];
    /* x: the rows as read; xm: the model's matrix, where the corpus rows' timing features are
     * NaN (missing) unless corpus_timing, since they were measured on this machine */
    double *x, *xm, *w;
    unsigned char *y;
    size_t n, n_conf;
    size_t n_dev, n_corpus, n_suite, n_rule;
};
/* The _benchmark (program) cell of configuration-labelled row i (NULL: none). */
const char *cli_detect_rows_cell(const struct cli_detect_rows *r, size_t i, const char *column);
int cli_detect_rows_load(struct cli_detect_rows *r, const struct cli_detect_sources *src);
void cli_detect_rows_release(struct cli_detect_rows *r);

#endif
