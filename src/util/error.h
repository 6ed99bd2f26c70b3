/* Internal helpers to set the per-thread error (see include/iolens/iolens.h). */
#ifndef IOLENS_UTIL_ERROR_H
#define IOLENS_UTIL_ERROR_H

#include "iolens/iolens.h"

/* Sets the calling thread's error message (printf-style) and returns code,
 * so callers can write `return iol_err(IOLENS_EFORMAT, "...", ...);`. */
int iol_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the current message with "prefix: " (adds context while unwinding). */
int iol_err_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
