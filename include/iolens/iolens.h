/*
 * iolens — record, diagnose, classify and replay the I/O of HPC applications.
 *
 * Umbrella header: versions and the one error convention every module uses.
 *
 * Errors: every library function that can fail returns 0 (or a non-negative
 * count) on success and a negative IOLENS_E* code on failure. A human message
 * describing the last failure of the calling thread is available through
 * iolens_error_last(); it names the subject (file, byte offset, field) so the
 * CLI can print it as is. Library code never prints and never exits.
 */
#ifndef IOLENS_IOLENS_H
#define IOLENS_IOLENS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define IOLENS_API __attribute__((visibility("default")))
#else
#define IOLENS_API
#endif

/** Error codes: returned negated-free, i.e. as the negative enum values. */
typedef enum iolens_error {
    IOLENS_OK = 0,
    IOLENS_ENOMEM = -1,       /**< allocation failed or exceeded a sane bound */
    IOLENS_EIO = -2,          /**< the operating system refused a read/write/open */
    IOLENS_EFORMAT = -3,      /**< input is malformed, truncated or corrupt */
    IOLENS_EVERSION = -4,     /**< input format version is not supported */
    IOLENS_EINVAL = -5,       /**< invalid argument from the caller */
    IOLENS_ENOTFOUND = -6,    /**< a requested item does not exist */
    IOLENS_EUNSUPPORTED = -7, /**< valid input using a feature not implemented */
    IOLENS_EDEPEND = -8,      /**< an optional dependency is missing at run time */
    IOLENS_EINTR = -9,        /**< stopped: the caller's stop flag was set (a signal) */
} iolens_error;

/** Library version, "MAJOR.MINOR.PATCH". */
IOLENS_API const char *iolens_version(void);

/** Message of the calling thread's last error ("" if none). Never NULL. */
IOLENS_API const char *iolens_error_last(void);

/** Code of the calling thread's last error (IOLENS_OK if none). */
IOLENS_API int iolens_error_last_code(void);

/** Forget the calling thread's last error. */
IOLENS_API void iolens_error_clear(void);

/** Short constant name of an error code, e.g. "format error". */
IOLENS_API const char *iolens_error_name(int code);

/**
 * Warnings: non-fatal conditions a reader wants the user to know about
 * (e.g. an unknown Darshan module that was skipped). Library code passes them
 * to a caller-supplied callback instead of printing them.
 */
typedef void (*iolens_warn_fn)(void *ctx, const char *message);

#ifdef __cplusplus
}
#endif
#endif /* IOLENS_IOLENS_H */
