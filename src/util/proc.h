/* Starting other programs: mpirun's prefix, a child in a process group of its own. */
#ifndef IOLENS_UTIL_PROC_H
#define IOLENS_UTIL_PROC_H

#include <stddef.h>

/* Writes `MPIRUN --oversubscribe [--allow-run-as-root] -np NP` into argv (the last only as root)
 * and returns how many entries it wrote (at most 6). */
int iol_mpirun_prefix(const char **argv, const char *mpirun, const char *np);

/* Starts argv (argv[0] looked up in PATH) in its own process group (so a timeout or Ctrl-C stops
 * it and all its children, e.g. mpirun and the ranks), stdin from /dev/null, stdout to the file
 * out and stderr to the file err (the same path: one file). Returns the pid, or a negative
 * IOLENS_E* when it cannot fork; `who` names the caller in the child's exec error. */
int iol_spawn_group(const char *const *argv, const char *out, const char *err, const char *who);

/* The running program's path (/proc/self/exe) into out; -1 when it cannot be read or does not fit. */
int iol_self_exe(char *out, size_t n);

#endif
