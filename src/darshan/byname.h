/* Counters of a record by name, for the texts and pages that sum them (report_text.c,
 * report/report.c): look the index up once per loop, not per record. */
#ifndef IOLENS_DARSHAN_BYNAME_H
#define IOLENS_DARSHAN_BYNAME_H

#include <stdint.h>
#include <stdio.h>

#include "iolens/darshan.h"

/* Index of counter <pfx>_<name> of a module (integer or float), or -1. */
static inline int iol_cidx(int module, const char *pfx, const char *name, int want_float)
{
    char full[96];
    snprintf(full, sizeof full, "%s_%s", pfx, name);
    int is_float = 0;
    int i = iolens_darshan_counter_index(module, full, &is_float);
    return i >= 0 && is_float == want_float ? i : -1;
}

/* Counter values, with -1 ("not monitored") and out-of-range read as 0. */
static inline int64_t iol_vi(const iolens_darshan_record *r, int i)
{
    return i >= 0 && (size_t)i < r->ncounters && r->counters[i] > 0 ? r->counters[i] : 0;
}

static inline double iol_vf(const iolens_darshan_record *r, int i)
{
    return i >= 0 && (size_t)i < r->nfcounters && r->fcounters[i] > 0 ? r->fcounters[i] : 0;
}

#endif
