#include "strindex.h"

#include <stdlib.h>
#include <string.h>

int iol_strindex_reserve(iol_strindex *x, size_t n, iol_strindex_key key, const void *ctx)
{
    if (x->cap && (n + 1) * 2 <= x->cap)
        return 0;
    size_t cap = x->cap ? x->cap * 2 : 64;
    while ((n + 1) * 2 > cap)
        cap *= 2;
    size_t *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)iol_str_hash(key(ctx, i)) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = i + 1;
    }
    free(x->slot);
    x->slot = t;
    x->cap = cap;
    return 0;
}

long iol_strindex_find(const iol_strindex *x, const char *s, iol_strindex_key key, const void *ctx, size_t *at)
{
    if (!x->cap)
        return -1;
    size_t j = (size_t)iol_str_hash(s) & (x->cap - 1);
    for (; x->slot[j]; j = (j + 1) & (x->cap - 1))
        if (!strcmp(key(ctx, x->slot[j] - 1), s))
            return (long)(x->slot[j] - 1);
    if (at)
        *at = j;
    return -1;
}

void iol_strindex_clear(iol_strindex *x)
{
    if (x->slot)
        memset(x->slot, 0, x->cap * sizeof *x->slot);
}

void iol_strindex_free(iol_strindex *x)
{
    free(x->slot);
    x->slot = NULL;
    x->cap = 0;
}
