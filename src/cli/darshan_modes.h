/* --json / --summary / --report modes of `iolens darshan`. */
#ifndef IOLENS_CLI_DARSHAN_MODES_H
#define IOLENS_CLI_DARSHAN_MODES_H

#include <stdio.h>

#include "iolens/darshan.h"

/* One CSV (or JSON) row per log found under the given files/directories,
 * jobs threads. Returns the CLI exit code. */
int iol_darshan_summary(int npaths, char **paths, int jobs, int json, int follow_links);

/* The inputs of a command that takes many: a directory that is not a Recorder trace (no
 * VERSION, recorder.mt or recorder.dat in it) stands for the *.darshan logs under it, sorted,
 * searched as --summary searches (links to directories not followed). *nout gets the count;
 * the vector is freed with iol_darshan_inputs_free. NULL after printing an error (out of
 * memory, or a directory holding no log). */
char **iol_darshan_expand_inputs(int n, char **paths, int *nout);
void iol_darshan_inputs_free(char **v, int n);
/* Human main-job summary of one log. */
int iol_darshan_print_report(FILE *out, const char *path);

#endif
