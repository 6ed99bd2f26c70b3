/* Shared by the report module's files. */
#ifndef IOLENS_REPORT_INTERNAL_H
#define IOLENS_REPORT_INTERNAL_H

#include "iolens/event.h"
#include "iolens/iolens.h"

/* Opens an iolens trace (kind IOLENS_DETECT_KIND_TRACE) or a Recorder trace directory (any
 * other kind; its warnings go to warn) as an event source. 0 or a negative IOLENS_E*. */
int iol_report_open_trace(const char *input, int kind, iolens_warn_fn warn, void *ctx, iolens_evsource **src);

#endif
