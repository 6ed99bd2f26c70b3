/* The open files and variables of a netCDF-style library (libtab.h). */
#include "shim/libtab.h"

#include "shim/shim.h"

static void ready(iol_libtab *t) /* under the lock */
{
    if (t->init)
        return;
    for (size_t i = 0; i < IOL_LIBTAB_FILES; i++)
        t->files[i].ncid = -1;
    for (size_t i = 0; i < IOL_LIBTAB_VARS; i++)
        t->vars[i].ncid = -1;
    t->init = 1;
}

static size_t mix(uint64_t k, int bits) { return (size_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - bits)); }
static size_t file_slot(int ncid) { return mix((uint32_t)ncid, 10) & (IOL_LIBTAB_FILES - 1); }
static size_t var_slot(int ncid, int varid)
{
    return mix((uint64_t)(uint32_t)ncid << 32 | (uint32_t)varid, 13) & (IOL_LIBTAB_VARS - 1);
}

int32_t iol_libtab_file(iol_libtab *t, int ncid)
{
    int32_t p = -1;
    iol_lock(&t->lock);
    ready(t);
    size_t s = file_slot(ncid);
    for (size_t n = 0; n < IOL_LIBTAB_FILES && t->files[s].ncid != -1; n++, s = (s + 1) & (IOL_LIBTAB_FILES - 1))
        if (t->files[s].ncid == ncid) {
            p = t->files[s].path;
            break;
        }
    iol_unlock(&t->lock);
    return p;
}

void iol_libtab_set_file(iol_libtab *t, int ncid, int32_t path)
{
    iol_lock(&t->lock);
    ready(t);
    size_t s = file_slot(ncid), del = (size_t)-1;
    for (size_t n = 0; n < IOL_LIBTAB_FILES * 3 / 4; n++, s = (s + 1) & (IOL_LIBTAB_FILES - 1)) {
        if (t->files[s].ncid == ncid) {
            if (path < 0)
                t->files[s].ncid = -2;
            else
                t->files[s].path = path;
            del = (size_t)-1;
            path = -1;
            break;
        }
        if (t->files[s].ncid == -2 && del == (size_t)-1)
            del = s;
        if (t->files[s].ncid == -1) {
            if (del == (size_t)-1)
                del = s;
            break;
        }
    }
    if (path >= 0 && del != (size_t)-1) {
        t->files[del].ncid = ncid;
        t->files[del].path = path;
    }
    iol_unlock(&t->lock);
}

int iol_libtab_var(iol_libtab *t, int ncid, int varid, iol_libvar *out)
{
    int found = 0;
    iol_lock(&t->lock);
    ready(t);
    size_t s = var_slot(ncid, varid);
    for (size_t n = 0; n < IOL_LIBTAB_VARS && t->vars[s].ncid != -1; n++, s = (s + 1) & (IOL_LIBTAB_VARS - 1))
        if (t->vars[s].ncid == ncid && t->vars[s].varid == varid) {
            *out = t->vars[s];
            found = 1;
            break;
        }
    iol_unlock(&t->lock);
    return found;
}

void iol_libtab_put_var(iol_libtab *t, const iol_libvar *v)
{
    iol_lock(&t->lock);
    ready(t);
    size_t s = var_slot(v->ncid, v->varid), at = (size_t)-1;
    for (size_t n = 0; n < IOL_LIBTAB_VARS * 3 / 4; n++, s = (s + 1) & (IOL_LIBTAB_VARS - 1)) {
        if (t->vars[s].ncid == v->ncid && t->vars[s].varid == v->varid) {
            at = s;
            break;
        }
        if (t->vars[s].ncid == -2 && at == (size_t)-1)
            at = s;
        if (t->vars[s].ncid == -1) {
            if (at == (size_t)-1)
                at = s;
            break;
        }
    }
    if (at != (size_t)-1) /* else the table is full: the variable stays unnamed */
        t->vars[at] = *v;
    iol_unlock(&t->lock);
}

void iol_libtab_drop(iol_libtab *t, int ncid, int mask)
{
    iol_lock(&t->lock);
    ready(t);
    for (size_t i = 0; i < IOL_LIBTAB_VARS; i++)
        if (t->vars[i].ncid >= 0 && (t->vars[i].ncid & mask) == (ncid & mask))
            t->vars[i].ncid = -2;
    iol_unlock(&t->lock);
}

int32_t iol_nc_type_size(int t)
{
    switch (t) {
    case 1: case 2: case 7: return 1; /* NC_BYTE, NC_CHAR, NC_UBYTE */
    case 3: case 8: return 2;         /* NC_SHORT, NC_USHORT */
    case 4: case 5: case 9: return 4; /* NC_INT, NC_FLOAT, NC_UINT */
    default: return 8;                /* NC_DOUBLE, NC_INT64, NC_UINT64, NC_STRING (a pointer) */
    }
}
