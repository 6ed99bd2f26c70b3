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

/* The function whose argument slots name shares (funcs.def): name without its "64" suffix
 * (pwrite64 is pwrite; preadv64v2 is preadv2) or its "_unlocked" one (fread_unlocked is fread),
 * written to buf; name itself when it has neither. */
const char *iol_func_slots_of(const char *name, char *buf, size_t cap);

/* NULL for an id outside the table. */
const iol_func_info *iol_func_by_id(unsigned id);
/* Id of a name, or -1. */
int iol_func_by_name(const char *name);

/* glibc's fortified entry points (funcs.def): the plain call of one (__fprintf_chk: fprintf),
 * id itself for any other; and back (fprintf: __fprintf_chk; id itself when it has none). */
unsigned iol_func_plain(unsigned id);
unsigned iol_func_fortified(unsigned id);

/* iol_rawrec.pad in a reader's records: the call went through the fortified entry point of its
 * function (the record carries the plain id) */
#define IOL_REC_FORTIFIED 1u

/* The stdio calls that report the position (ftell, ftello(64): ret; fgetpos(64): a0) and that
 * set it (fseek, fseeko(64), fsetpos(64): a0 offset, a2 whence, a3 the position after). */
static inline int iol_func_is_ftell(unsigned id)
{
    return id == IOL_F_ftell || id == IOL_F_ftello || id == IOL_F_ftello64;
}
static inline int iol_func_is_fseek(unsigned id)
{
    return id == IOL_F_fseek || id == IOL_F_fseeko || id == IOL_F_fseeko64 || id == IOL_F_fsetpos ||
           id == IOL_F_fsetpos64;
}
static inline int iol_func_is_fgetpos(unsigned id)
{
    return id == IOL_F_fgetpos || id == IOL_F_fgetpos64;
}

/* fallocate(64), posix_fallocate(64): a0 offset, a1 length, a2 fallocate's mode */
static inline int iol_func_is_fallocate(unsigned id)
{
    return id == IOL_F_fallocate || id == IOL_F_fallocate64 || id == IOL_F_posix_fallocate ||
           id == IOL_F_posix_fallocate64;
}

/* preadv2, pwritev2 and their 64 forms: an offset of -1 is the file position (funcs.def) */
static inline int iol_func_is_rwv2(unsigned id)
{
    return id == IOL_F_preadv2 || id == IOL_F_pwritev2 || id == IOL_F_preadv64v2 || id == IOL_F_pwritev64v2;
}

/* a descriptor open when the process started or was forked (funcs.def): an open, not a call */
static inline int iol_func_is_fd_note(unsigned id)
{
    return id == IOL_F_iolens_fd_at_start || id == IOL_F_iolens_fd_at_fork;
}

/* copy_file_range, sendfile(64), splice: a copy made by the kernel (funcs.def), read then written */
static inline int iol_func_is_copy(unsigned id)
{
    return id == IOL_F_copy_file_range || id == IOL_F_sendfile || id == IOL_F_sendfile64 || id == IOL_F_splice;
}

/* What a stdio read or write moved, from its record (iol_func_moved): ret bytes (fprintf's
 * size), ret items of a2 bytes (fread, fwrite), ret bytes or none at -1 (fgets' strlen, getline's
 * length), one character or none at EOF (fgetc, getc, fputc, putc, putchar), a1 bytes when ret is
 * not negative (fputs' string, puts' with its newline), a1 bytes consumed (fscanf), a2 bytes
 * (getw, putw: a word or none). */
enum {
    IOL_MOVED_RET,
    IOL_MOVED_ITEMS,
    IOL_MOVED_LINE,
    IOL_MOVED_CHAR,
    IOL_MOVED_STRING,
    IOL_MOVED_SCAN,
    IOL_MOVED_WORD
};
static inline int iol_func_moved(unsigned id)
{
    switch (id) {
    case IOL_F_fread: case IOL_F_fwrite: case IOL_F_fread_unlocked: case IOL_F_fwrite_unlocked: return IOL_MOVED_ITEMS;
    case IOL_F_fgets: case IOL_F_fgets_unlocked: case IOL_F_getline: case IOL_F_getdelim: return IOL_MOVED_LINE;
    case IOL_F_fgetc: case IOL_F_getc: case IOL_F_fputc: case IOL_F_putc: case IOL_F_fgetc_unlocked:
    case IOL_F_getc_unlocked: case IOL_F_fputc_unlocked: case IOL_F_putc_unlocked: case IOL_F_putchar:
        return IOL_MOVED_CHAR;
    case IOL_F_fputs: case IOL_F_fputs_unlocked: case IOL_F_puts: return IOL_MOVED_STRING;
    case IOL_F_fscanf: return IOL_MOVED_SCAN;
    case IOL_F_getw: case IOL_F_putw: return IOL_MOVED_WORD;
    default: return IOL_MOVED_RET;
    }
}

#endif
