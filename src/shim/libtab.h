/*
 * The open files and known variables of a netCDF-style library (PnetCDF, NetCDF), shared by
 * their wrappers: ncid -> the file's recorded path; (ncid, varid) -> the variable's recorded
 * name and shape. Each library has its own table (their ids are separate spaces). Fixed size,
 * no allocation; a full table leaves a file or variable unnamed (recorded with file -1).
 */
#ifndef IOLENS_SHIM_LIBTAB_H
#define IOLENS_SHIM_LIBTAB_H

#include <stdint.h>

typedef struct iol_libvar {
    int ncid, varid;  /* ncid -1: a free slot; -2: a deleted one */
    int32_t path;     /* the recorded "<file>:<variable>" */
    int32_t tsize;    /* the type's size */
    int32_t ndims;
    int32_t unlimdim; /* the file's record dimension when the variable was opened, -1 none */
    int64_t npoints;  /* elements, a record dimension not counted */
} iol_libvar;

#define IOL_LIBTAB_FILES 1024 /* powers of two; open addressing */
#define IOL_LIBTAB_VARS 8192
typedef struct iol_libtab {
    int lock, init;
    struct {
        int ncid; /* -1 free, -2 deleted */
        int32_t path;
    } files[IOL_LIBTAB_FILES];
    iol_libvar vars[IOL_LIBTAB_VARS];
} iol_libtab;

/* The recorded path of the open file ncid, -1 unknown. */
int32_t iol_libtab_file(iol_libtab *t, int ncid);
/* ncid is open on path (path -1: closed). */
void iol_libtab_set_file(iol_libtab *t, int ncid, int32_t path);
/* The variable (ncid, varid) into *out: 1 known, 0 not. */
int iol_libtab_var(iol_libtab *t, int ncid, int varid, iol_libvar *out);
void iol_libtab_put_var(iol_libtab *t, const iol_libvar *v);
/* Forgets the variables of a closed file: those whose ncid & mask equals ncid & mask. */
void iol_libtab_drop(iol_libtab *t, int ncid, int mask);

/* Darshan's size of a netCDF type (nc_type): 1, 2, 4, else 8. */
int32_t iol_nc_type_size(int xtype);

#endif
