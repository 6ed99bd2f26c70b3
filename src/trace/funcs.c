/* The traced-function table (funcs.def) as data. */
#include "trace/funcs.h"

#include <string.h>

static const iol_func_info funcs[IOL_F_COUNT] = {
#define IOL_FN(sym, layer, op, has_off) {#sym, IOLENS_LAYER_##layer, IOLENS_OP_##op, has_off},
#include "trace/funcs.def"
#undef IOL_FN
};

const iol_func_info *iol_func_by_id(unsigned id) { return id < IOL_F_COUNT ? &funcs[id] : NULL; }

int iol_func_by_name(const char *name)
{
    for (unsigned i = 0; i < IOL_F_COUNT; i++)
        if (!strcmp(funcs[i].name, name))
            return (int)i;
    return -1;
}
