/* The traced-function table (funcs.def) as data, for the encoder and reader. */
#ifndef IOLENS_TRACE_FUNCS_H
#define IOLENS_TRACE_FUNCS_H

#include "iolens/event.h"
#include "trace/format.h"

typedef struct iol_func_info {
    const char *name;
    iolens_layer layer;
    iolens_op op;
    int has_off;
} iol_func_info;

/* NULL for an id outside the table. */
const iol_func_info *iol_func_by_id(unsigned id);
/* Id of a name, or -1. */
int iol_func_by_name(const char *name);

/* The stdio calls that report the position (ftell, ftello(64): ret) and that set it
 * (fseek, fseeko(64): a0 offset, a2 whence). */
static inline int iol_func_is_ftell(unsigned id)
{
    return id == IOL_F_ftell || id == IOL_F_ftello || id == IOL_F_ftello64;
}
static inline int iol_func_is_fseek(unsigned id)
{
    return id == IOL_F_fseek || id == IOL_F_fseeko || id == IOL_F_fseeko64;
}

/* fallocate(64), posix_fallocate(64): a0 offset, a1 length, a2 fallocate's mode */
static inline int iol_func_is_fallocate(unsigned id)
{
    return id == IOL_F_fallocate || id == IOL_F_fallocate64 || id == IOL_F_posix_fallocate ||
           id == IOL_F_posix_fallocate64;
}

/* copy_file_range, sendfile(64), splice: a copy made by the kernel (funcs.def), read then written */
static inline int iol_func_is_copy(unsigned id)
{
    return id == IOL_F_copy_file_range || id == IOL_F_sendfile || id == IOL_F_sendfile64 || id == IOL_F_splice;
}

#endif
