#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define IOL_ERRMSG_MAX 1024

static _Thread_local char err_msg[IOL_ERRMSG_MAX];
static _Thread_local int err_code;

const char *iolens_version(void) { return IOLENS_VERSION_STRING; }

const char *iolens_error_last(void) { return err_msg; }

int iolens_error_last_code(void) { return err_code; }

void iolens_error_clear(void)
{
    err_msg[0] = '\0';
    err_code = IOLENS_OK;
}

const char *iolens_error_name(int code)
{
    switch (code) {
    case IOLENS_OK: return "success";
    case IOLENS_ENOMEM: return "out of memory";
    case IOLENS_EIO: return "i/o error";
    case IOLENS_EFORMAT: return "format error";
    case IOLENS_EVERSION: return "unsupported version";
    case IOLENS_EINVAL: return "invalid argument";
    case IOLENS_ENOTFOUND: return "not found";
    case IOLENS_EUNSUPPORTED: return "unsupported";
    case IOLENS_EDEPEND: return "missing dependency";
    case IOLENS_EINTR: return "interrupted";
    default: return "unknown error";
    }
}

int iol_err(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    err_code = code;
    return code;
}

int iol_err_prefix(int code, const char *fmt, ...)
{
    char prefix[IOL_ERRMSG_MAX], old[IOL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err_msg, sizeof old);
    size_t n = strlen(prefix);
    if (n > sizeof err_msg - 3)
        n = sizeof err_msg - 3;
    memcpy(err_msg, prefix, n);
    memcpy(err_msg + n, ": ", 2);
    size_t room = sizeof err_msg - n - 3;
    size_t m = strnlen(old, room);
    memcpy(err_msg + n + 2, old, m);
    err_msg[n + 2 + m] = '\0';
    err_code = code;
    return code;
}
