/* The traced-function table (funcs.def) as data. */
#include "trace/funcs.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const iol_func_info funcs[IOL_F_COUNT] = {
#define IOL_FN(sym, layer, op, has_off) {#sym, IOLENS_LAYER_##layer, IOLENS_OP_##op, has_off},
#include "trace/funcs.def"
#undef IOL_FN
};

const iol_func_info *iol_func_by_id(unsigned id) { return id < IOL_F_COUNT ? &funcs[id] : NULL; }

const char *iol_func_slots_of(const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    if (n > 9 && !strcmp(name + n - 9, "_unlocked"))
        n -= 9;
    else if (n > 4 && !strcmp(name + n - 4, "64v2")) /* preadv64v2: preadv2 */
        return snprintf(buf, cap, "%.*s2", (int)(n - 4), name) < (int)cap ? buf : name;
    else if (n > 2 && !strcmp(name + n - 2, "64"))
        n -= 2;
    else
        return name;
    return snprintf(buf, cap, "%.*s", (int)n, name) < (int)cap ? buf : name;
}

/* fortified entry point -> plain call (funcs.def) */
static const uint16_t fortified[][2] = {
    {IOL_F___read_chk, IOL_F_read},
    {IOL_F___pread_chk, IOL_F_pread},
    {IOL_F___pread64_chk, IOL_F_pread64},
    {IOL_F___fread_chk, IOL_F_fread},
    {IOL_F___fread_unlocked_chk, IOL_F_fread_unlocked},
    {IOL_F___fgets_chk, IOL_F_fgets},
    {IOL_F___fgets_unlocked_chk, IOL_F_fgets_unlocked},
    {IOL_F___vfprintf_chk, IOL_F_vfprintf},
    {IOL_F___fprintf_chk, IOL_F_fprintf},
    {IOL_F___vprintf_chk, IOL_F_vprintf},
    {IOL_F___printf_chk, IOL_F_printf},
};

unsigned iol_func_plain(unsigned id)
{
    for (size_t k = 0; k < sizeof fortified / sizeof fortified[0]; k++)
        if (fortified[k][0] == id)
            return fortified[k][1];
    return id;
}

unsigned iol_func_fortified(unsigned id)
{
    for (size_t k = 0; k < sizeof fortified / sizeof fortified[0]; k++)
        if (fortified[k][1] == id)
            return fortified[k][0];
    return id;
}

int iol_func_by_name(const char *name)
{
    for (unsigned i = 0; i < IOL_F_COUNT; i++)
        if (!strcmp(funcs[i].name, name))
            return (int)i;
    return -1;
}
