/*
 * HDF5 calls of a source that records arguments but not results (convert_h5.h).
 *
 * Recorder logs an HDF5 call's hid_t arguments as numbers and never the hid_t a create or
 * open returned, so which object an id stands for is worked out from how HDF5 hands them out:
 * the ids of each kind (files, groups, datasets, attributes) count up from 0 within a process,
 * the kind in the id's top bits (bits 56-62 of the 64-bit hid_t of HDF5 1.10 and later, bits
 * 24-30 of the 32-bit one before). The dataset id of serial number n is thus the one the
 * process's n-th H5Dcreate or H5Dopen returned. H5Oopen opens an object of a kind its
 * arguments do not show: once a process has made one, an id not seen yet is taken to be the
 * latest object of its kind, or opened by H5Oopen, that no id stands for yet.
 *
 * What Recorder does not log is recorded as not known: a read's or write's bytes and memory
 * type size (its selections are pointers), a dataset's shape and type size, a selection other
 * than H5S_ALL (slot a0 -1). A transfer mode is known for the default transfer list and for
 * one the process gave H5Pset_dxpl_mpio; the MPI-IO driver for an access list given
 * H5Pset_fapl_mpio.
 */
#include "trace/convert_h5.h"

#include "trace/funcs.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_ANY = 0, K_FILE = 1, K_GROUP = 2, K_DSET = 3, K_ATTR = 4, NKINDS = 5 };
enum { SCAN_MAX = 256 }; /* unmatched objects looked at when serial numbers cannot be trusted */

typedef struct h5obj {
    char *name;    /* "<file>" (a file) or "<file>:<path>[@attr]"; NULL not known */
    uint32_t flen; /* length of the file part */
    uint8_t kind;
    uint8_t bound; /* an id stands for it */
} h5obj;

typedef struct kv {
    int64_t key; /* 0 empty */
    int64_t val;
} kv;

typedef struct kvmap {
    kv *t;
    size_t n, cap;
} kvmap;

struct h5names {
    h5obj *o;
    size_t n, cap;
    size_t *list[NKINDS]; /* per kind, the objects in the order made (K_ANY: by H5Oopen) */
    size_t nlist[NKINDS], caplist[NKINDS];
    int oopen;
    kvmap ids; /* hid_t -> object index */
    kvmap pl;  /* property list -> bit 0 the MPI-IO driver, bits 8.. 1 + the transfer mode */
    char *tmp; /* the last composed name */
    size_t tmpcap;
};

static uint64_t mix(int64_t k)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

static int kv_get(const kvmap *m, int64_t key, int64_t *val)
{
    if (!m->cap || !key)
        return 0;
    for (size_t j = mix(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        if (!m->t[j].key)
            return 0;
        if (m->t[j].key == key) {
            *val = m->t[j].val;
            return 1;
        }
    }
}

static int kv_put(kvmap *m, int64_t key, int64_t val)
{
    if (!key)
        return 0;
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        kv *t = calloc(cap, sizeof *t);
        if (!t)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        for (size_t i = 0; i < m->cap; i++)
            if (m->t[i].key) {
                size_t j = mix(m->t[i].key) & (cap - 1);
                while (t[j].key)
                    j = (j + 1) & (cap - 1);
                t[j] = m->t[i];
            }
        free(m->t);
        m->t = t;
        m->cap = cap;
    }
    size_t j = mix(key) & (m->cap - 1);
    while (m->t[j].key && m->t[j].key != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->t[j].key)
        m->n++;
    m->t[j].key = key;
    m->t[j].val = val;
    return 0;
}

int h5n_new(h5names **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : iol_err(IOLENS_ENOMEM, "out of memory");
}

void h5n_reset(h5names *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        free(h->o[i].name);
    h->n = 0;
    for (int k = 0; k < NKINDS; k++)
        h->nlist[k] = 0;
    h->oopen = 0;
    if (h->ids.t)
        memset(h->ids.t, 0, h->ids.cap * sizeof *h->ids.t);
    if (h->pl.t)
        memset(h->pl.t, 0, h->pl.cap * sizeof *h->pl.t);
    h->ids.n = h->pl.n = 0;
}

void h5n_free(h5names *h)
{
    if (!h)
        return;
    h5n_reset(h);
    free(h->o);
    for (int k = 0; k < NKINDS; k++)
        free(h->list[k]);
    free(h->ids.t);
    free(h->pl.t);
    free(h->tmp);
    free(h);
}

static const char *arg(const iolens_event *ev, uint32_t i)
{
    return i < ev->nargs && ev->args ? ev->args[i] : NULL;
}

static int64_t arg_i64(const iolens_event *ev, uint32_t i, int64_t dflt)
{
    const char *s = arg(ev, i);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return errno || *end ? dflt : (int64_t)v;
}

/* The kind and serial number an id carries; -1 for a kind not kept. */
static int id_kind(int64_t id, uint64_t *serial)
{
    if (id <= 0)
        return -1;
    uint64_t u = (uint64_t)id;
    unsigned t;
    if (u >> 32) {
        t = (unsigned)(u >> 56) & 0x7f;
        *serial = u & ((1ull << 56) - 1);
    } else {
        t = (unsigned)(u >> 24) & 0x7f;
        *serial = u & 0xffffff;
    }
    switch (t) { /* H5I_type_t */
    case 1:
        return K_FILE;
    case 2:
        return K_GROUP;
    case 5:
        return K_DSET;
    case 6: /* H5I_ATTR before HDF5 1.12 */
    case 7: /* since (H5I_MAP came before it) */
        return K_ATTR;
    default:
        return -1;
    }
}

/* The object an id stands for, or -1. */
static long obj_of(h5names *h, int64_t id)
{
    int64_t v;
    if (kv_get(&h->ids, id, &v))
        return (long)v;
    uint64_t ser;
    int k = id_kind(id, &ser);
    if (k < 0)
        return -1;
    long at = -1;
    if (!h->oopen) {
        if (ser < h->nlist[k] && !h->o[h->list[k][ser]].bound)
            at = (long)h->list[k][ser];
    } else { /* the latest unmatched object of the kind, or opened by H5Oopen */
        int kinds[2] = {k, K_ANY};
        for (int i = 0; i < 2; i++) {
            size_t n = h->nlist[kinds[i]], stop = n > SCAN_MAX ? n - SCAN_MAX : 0;
            for (size_t j = n; j-- > stop;) {
                size_t o = h->list[kinds[i]][j];
                if (!h->o[o].bound) {
                    if ((long)o > at)
                        at = (long)o;
                    break;
                }
            }
        }
    }
    if (at < 0)
        return -1;
    h->o[at].bound = 1;
    h->o[at].kind = (uint8_t)k;
    return kv_put(&h->ids, id, at) < 0 ? -2 : at;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    *p = q;
    *cap = c;
    return 0;
}

/* A new object of kind k: name (may be NULL) owned by it. Its index, or <0. */
static long obj_new(h5names *h, int k, char *name, uint32_t flen)
{
    if (grow((void **)&h->o, &h->cap, h->n + 1, sizeof *h->o) < 0 ||
        grow((void **)&h->list[k], &h->caplist[k], h->nlist[k] + 1, sizeof *h->list[k]) < 0) {
        free(name);
        return IOLENS_ENOMEM;
    }
    h->o[h->n] = (h5obj){name, flen, (uint8_t)k, 0};
    h->list[k][h->nlist[k]++] = h->n;
    if (k == K_ANY)
        h->oopen = 1;
    return (long)h->n++;
}

/* "<file>:<path>" of object name below the object at loc ("@name" for an attribute);
 * NULL when the location is not known. */
static char *child_name(const h5names *h, long loc, const char *name, int attr, uint32_t *flen)
{
    if (loc < 0 || !h->o[loc].name || !name)
        return NULL;
    const h5obj *l = &h->o[loc];
    const char *path = l->name[l->flen] ? l->name + l->flen + 1 : ""; /* after "<file>:" */
    size_t need = l->flen + strlen(path) + strlen(name) + 4;
    char *s = malloc(need);
    if (!s)
        return NULL;
    if (attr)
        snprintf(s, need, "%.*s:%s@%s", (int)l->flen, l->name, *path ? path : "/", name);
    else if (name[0] == '/')
        snprintf(s, need, "%.*s:%s", (int)l->flen, l->name, name);
    else
        snprintf(s, need, "%.*s:%s/%s", (int)l->flen, l->name, strcmp(path, "/") ? path : "", name);
    *flen = l->flen;
    return s;
}

/* The file part of object o's name, in h->tmp. */
static const char *file_part(h5names *h, long o)
{
    if (o < 0 || !h->o[o].name)
        return NULL;
    if (grow((void **)&h->tmp, &h->tmpcap, h->o[o].flen + 1, 1) < 0)
        return NULL;
    memcpy(h->tmp, h->o[o].name, h->o[o].flen);
    h->tmp[h->o[o].flen] = '\0';
    return h->tmp;
}

/* What a function makes: the kind of object, and whether its arguments are (loc, name). */
static int makes(const char *fn, int *named)
{
    static const struct {
        const char *fn;
        int kind, named;
    } t[] = {
        {"H5Fcreate", K_FILE, 0},  {"H5Fopen", K_FILE, 0},       {"H5Gcreate1", K_GROUP, 1},
        {"H5Gcreate2", K_GROUP, 1}, {"H5Gopen1", K_GROUP, 1},    {"H5Gopen2", K_GROUP, 1},
        {"H5Dcreate1", K_DSET, 1}, {"H5Dcreate2", K_DSET, 1},    {"H5Dopen1", K_DSET, 1},
        {"H5Dopen2", K_DSET, 1},   {"H5Oopen", K_ANY, 1},        {"H5Acreate1", K_ATTR, 1},
        {"H5Acreate2", K_ATTR, 1}, {"H5Aopen", K_ATTR, 1},       {"H5Aopen_name", K_ATTR, 1},
        {"H5Aopen_idx", K_ATTR, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(fn, t[i].fn)) {
            *named = t[i].named;
            return t[i].kind;
        }
    return -1;
}

int h5n_call(h5names *h, const iolens_event *ev, int fid, iol_rawrec *r, const char **name)
{
    memset(r, 0, sizeof *r);
    r->file = r->fd = -1;
    *name = NULL;
    const char *fn = ev->func;
    int named = 0, k = makes(fn, &named);
    int64_t pl = 0;
    if (k >= 0) { /* a create or open: a new object */
        char *nm = NULL;
        uint32_t flen = 0;
        if (k == K_FILE) {
            const char *p = arg(ev, 0);
            if (p && *p && strcmp(p, "???") && (nm = strdup(p)) == NULL)
                return iol_err(IOLENS_ENOMEM, "out of memory");
            flen = nm ? (uint32_t)strlen(nm) : 0;
        } else if (named) {
            long loc = obj_of(h, arg_i64(ev, 0, 0));
            if (loc == -2)
                return IOLENS_ENOMEM;
            nm = child_name(h, loc, arg(ev, 1), k == K_ATTR, &flen);
        }
        long o = obj_new(h, k, nm, flen);
        if (o < 0)
            return (int)o;
        *name = h->o[o].name;
        r->fd = (int32_t)(o % 3072);
        uint64_t ser = h->nlist[k] - 1;
        static const int64_t types[NKINDS] = {0, 1, 2, 5, 6};
        r->ret = k == K_ANY || h->oopen ? 1 : (int64_t)((uint64_t)types[k] << 56 | ser);
        if (k == K_FILE) {
            r->a[0] = arg_i64(ev, 1, 0);
            int64_t fapl = arg_i64(ev, strcmp(fn, "H5Fcreate") ? 2 : 3, 0);
            r->a[2] = kv_get(&h->pl, fapl, &pl) && (pl & 1);
        } else if (k == K_DSET) {
            r->a[0] = !strcmp(fn, "H5Dcreate2") ? arg_i64(ev, 5, 0)
                      : !strcmp(fn, "H5Dcreate1") ? arg_i64(ev, 4, 0)
                      : !strcmp(fn, "H5Dopen2")   ? arg_i64(ev, 2, 0)
                                                  : 0;
            r->a[1] = -1; /* bytes, type size and rank: not logged */
        } else if (k == K_ANY) {
            r->a[0] = arg_i64(ev, 2, 0);
        } else if (k == K_ATTR) {
            r->a[1] = -1;
        }
        return 0;
    }
    if (!strncmp(fn, "H5P", 3)) { /* property lists: a0 the list, as the shim records */
        int64_t l = arg_i64(ev, 0, 0);
        r->a[0] = l;
        if (!strcmp(fn, "H5Pset_fapl_mpio")) {
            kv_get(&h->pl, l, &pl);
            if (kv_put(&h->pl, l, pl | 1) < 0)
                return IOLENS_ENOMEM;
        } else if (!strcmp(fn, "H5Pset_dxpl_mpio")) {
            int64_t mode = arg_i64(ev, 1, -1);
            r->a[2] = mode;
            kv_get(&h->pl, l, &pl);
            if (mode >= 0 && mode < 2 && kv_put(&h->pl, l, (pl & 0xff) | (mode + 1) << 8) < 0)
                return IOLENS_ENOMEM;
        } else if (!strcmp(fn, "H5Pset_chunk")) {
            r->a[1] = -1; /* the dimensions are a pointer */
            r->a[2] = arg_i64(ev, 1, 0);
        } else if (!strcmp(fn, "H5Pset_alignment")) {
            r->a[1] = arg_i64(ev, 1, 0);
            r->a[2] = arg_i64(ev, 2, 0);
        } else if (!strcmp(fn, "H5Pset_meta_block_size")) {
            r->a[1] = arg_i64(ev, 1, 0);
        } else if (!strcmp(fn, "H5Pset_coll_metadata_write") || !strcmp(fn, "H5Pset_all_coll_metadata_ops")) {
            r->a[2] = arg_i64(ev, 1, 0);
        }
        return 0;
    }
    /* a call on an object: its first argument */
    long o = obj_of(h, arg_i64(ev, 0, 0));
    if (o == -2)
        return IOLENS_ENOMEM;
    r->fd = o >= 0 ? (int32_t)(o % 3072) : -1;
    if (!strcmp(fn, "H5Fflush")) {
        *name = file_part(h, o);
        r->a[2] = arg_i64(ev, 1, 0);
        return 0;
    }
    *name = o >= 0 ? h->o[o].name : NULL;
    if (!strcmp(fn, "H5Dread") || !strcmp(fn, "H5Dwrite")) {
        /* (dset, mem type, mem space, file space, transfer list, buf) */
        r->a[0] = arg_i64(ev, 3, -1) == 0 ? 4 : -1; /* H5S_ALL */
        r->a[1] = -1;
        int64_t dxpl = arg_i64(ev, 4, -1);
        r->a[3] = dxpl == 0 ? 0 : kv_get(&h->pl, dxpl, &pl) && pl >> 8 ? (pl >> 8) - 1 : -1;
    } else if (!strcmp(fn, "H5Aread") || !strcmp(fn, "H5Awrite")) {
        r->a[0] = 4;
        r->a[1] = -1;
        r->a[3] = -1;
    } else if (!strcmp(fn, "H5Dset_extent")) {
        r->a[1] = -1;
    }
    (void)fid;
    return 0;
}
