/* iolens darshan --from: the hook cmd_darshan.c calls. */
#ifndef IOLENS_CLI_DARSHAN_FROM_H
#define IOLENS_CLI_DARSHAN_FROM_H
/* 1 if the arguments ask for --from (a trace to convert). */
int iol_darshan_from_wanted(int argc, char **argv);
int iol_darshan_from_main(int argc, char **argv);
struct iolens_counters_opts;
/* Computes counters of the trace FROM (iolens trace file or Recorder folder)
 * with OPTS and writes the Darshan log OUTP; prints a one-line summary on
 * stderr (and a JSON summary on stdout if JSON). 0, or -1 after printing the
 * error. Shared by `iolens darshan --from` and `iolens trace --darshan`. */
int iol_darshan_from_write(const char *from, const char *outp, const struct iolens_counters_opts *opts, int json);
#endif
