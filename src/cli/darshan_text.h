/* Text outputs of `iolens darshan` (darshan-parser and darshan-dxt-parser layouts). */
#ifndef IOLENS_CLI_DARSHAN_TEXT_H
#define IOLENS_CLI_DARSHAN_TEXT_H

#include <stdio.h>

enum {
    IOL_DT_BASE = 1,
    IOL_DT_TOTAL = 2,
    IOL_DT_FILE = 4,
    IOL_DT_PERF = 8,
    IOL_DT_SHOW_INCOMPLETE = 16,
};

/* Returned when a module is incomplete and --show-incomplete was not given
 * (a message has been printed on stderr). */
#define IOL_DT_INCOMPLETE 1
#define IOL_DT_WRITE_FAILED 2 /* the output could not be written (cmd_darshan) */

int iol_darshan_print_parser(FILE *out, const char *path, unsigned mask);
int iol_darshan_print_dxt(FILE *out, const char *path, unsigned mask);

#endif
