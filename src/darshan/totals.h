/* --total / --file / --perf sections of the darshan-parser text (text.c), and the job header. */
#ifndef IOLENS_DARSHAN_TOTALS_H
#define IOLENS_DARSHAN_TOTALS_H

#include <stdio.h>

#include "iolens/darshan.h"

void iol_darshan_print_derived(FILE *out, const iolens_darshan_data *d, int module, unsigned mask,
                               const char *desc, const iolens_darshan_job *job, int big_endian);
/* A double as darshan-parser reads it from a big-endian log where it forgets to swap. */
double iol_darshan_unswapped(double v);
void iol_darshan_print_job(FILE *out, const iolens_darshan_log *log);
void iol_darshan_mount_of(const iolens_darshan_log *log, const char *name, const char **mnt,
                          const char **fs);

#endif
