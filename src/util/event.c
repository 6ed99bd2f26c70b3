/* The event-source wrapper: dispatch to a producer's ops (include/iolens/event.h). */
#include "iolens/event.h"
#include "util/error.h"
#include "util/evsource.h"
#include "util/jsonw.h"

#include <stdlib.h>

struct iolens_evsource {
    const iolens_evsource_ops *ops;
    void *impl;
};

int iolens_evsource_new(iolens_evsource **out, const iolens_evsource_ops *ops, void *impl)
{
    *out = NULL;
    if (!ops || ops->version != IOLENS_EVSOURCE_OPS_VERSION)
        return iol_err(IOLENS_EINVAL, "event source ops of an unknown version");
    iolens_evsource *s = calloc(1, sizeof *s);
    if (!s) {
        if (ops->free)
            ops->free(impl);
        return iol_err(IOLENS_ENOMEM, "out of memory");
    }
    s->ops = ops;
    s->impl = impl;
    *out = s;
    return 0;
}

int iolens_evsource_nranks(const iolens_evsource *s) { return s->ops->nranks(s->impl); }

double iolens_evsource_start_time(const iolens_evsource *s)
{
    return s->ops->start_time ? s->ops->start_time(s->impl) : 0.0;
}

int iolens_evsource_files(iolens_evsource *s, const iolens_file **out, size_t *count)
{
    return s->ops->files(s->impl, out, count);
}

int iolens_evsource_next(iolens_evsource *s, int rank, iolens_event *out)
{
    if (rank < 0 || rank >= s->ops->nranks(s->impl))
        return iol_err(IOLENS_EINVAL, "rank %d out of range", rank);
    return s->ops->next(s->impl, rank, out);
}

int iolens_evsource_rewind(iolens_evsource *s, int rank)
{
    if (!s->ops->rewind)
        return iol_err(IOLENS_EUNSUPPORTED, "%s event source cannot rewind", s->ops->name);
    return s->ops->rewind(s->impl, rank);
}

const char *iolens_evsource_kind(const iolens_evsource *s) { return s->ops->name; }

void iolens_evsource_free(iolens_evsource *s)
{
    if (!s)
        return;
    if (s->ops->free)
        s->ops->free(s->impl);
    free(s);
}

const char *iolens_op_name(iolens_op op)
{
    static const char *const names[] = {
        "other", "open", "close", "read", "write", "seek", "sync", "stat", "truncate",
        "meta", "dup", "mmap", "flush", "set_view", "wait", "init", "finalize",
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "other";
}

const char *iolens_layer_name(iolens_layer layer)
{
    static const char *const names[] = {"POSIX", "MPIIO", "MPI", "HDF5", "USER", "STDIO", "OTHER", "PNETCDF", "NETCDF"};
    return (unsigned)layer < sizeof names / sizeof names[0] ? names[layer] : "OTHER";
}

void *iol_evsource_impl(iolens_evsource *s, const iolens_evsource_ops *ops)
{
    return (s && s->ops == ops) ? s->impl : NULL;
}

int iolens_event_write_json(FILE *out, const iolens_event *ev, const iolens_file *files, size_t nfiles,
                            const int32_t *fd, const int64_t *slots)
{
    iol_jsonw w;
    iol_jsonw_init(&w, out, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "rank");
    iol_jsonw_int(&w, ev->rank);
    iol_jsonw_key(&w, "thread");
    iol_jsonw_uint(&w, ev->thread);
    iol_jsonw_key(&w, "tstart");
    iol_jsonw_double(&w, ev->tstart);
    iol_jsonw_key(&w, "tend");
    iol_jsonw_double(&w, ev->tend);
    iol_jsonw_key(&w, "func");
    iol_jsonw_str(&w, ev->func ? ev->func : "");
    iol_jsonw_key(&w, "depth");
    iol_jsonw_uint(&w, ev->depth);
    iol_jsonw_key(&w, "lib_depth");
    iol_jsonw_uint(&w, ev->lib_depth);
    iol_jsonw_key(&w, "layer");
    iol_jsonw_str(&w, iolens_layer_name(ev->layer));
    iol_jsonw_key(&w, "op");
    iol_jsonw_str(&w, iolens_op_name(ev->op));
    iol_jsonw_key(&w, "file");
    iol_jsonw_int(&w, ev->file);
    iol_jsonw_key(&w, "path");
    if (ev->file >= 0 && (size_t)ev->file < nfiles && files[ev->file].path)
        iol_jsonw_str(&w, files[ev->file].path);
    else
        iol_jsonw_null(&w);
    iol_jsonw_key(&w, "offset");
    iol_jsonw_int(&w, ev->offset);
    iol_jsonw_key(&w, "size");
    iol_jsonw_int(&w, ev->size);
    iol_jsonw_key(&w, "collective");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_COLLECTIVE) != 0);
    iol_jsonw_key(&w, "offset_implicit");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_OFFSET_IMPLICIT) != 0);
    iol_jsonw_key(&w, "offset_unknown");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_OFFSET_UNKNOWN) != 0);
    if (ev->flags & IOLENS_EVF_COPY_SOURCE) {
        iol_jsonw_key(&w, "copy_source");
        iol_jsonw_bool(&w, 1);
    }
    if (ev->flags & IOLENS_EVF_FORTIFIED) { /* (through glibc's fortified entry point of func) */
        iol_jsonw_key(&w, "fortified");
        iol_jsonw_bool(&w, 1);
    }
    iol_jsonw_key(&w, "ret");
    iol_jsonw_int(&w, ev->ret);
    iol_jsonw_key(&w, "errno");
    iol_jsonw_int(&w, ev->err);
    iol_jsonw_key(&w, "args");
    iol_jsonw_arr_begin(&w);
    for (uint32_t i = 0; i < ev->nargs; i++)
        iol_jsonw_str(&w, ev->args[i] ? ev->args[i] : "");
    iol_jsonw_arr_end(&w);
    if (slots) {
        iol_jsonw_key(&w, "fd");
        iol_jsonw_int(&w, fd ? *fd : -1);
        iol_jsonw_key(&w, "slots");
        iol_jsonw_arr_begin(&w);
        for (int i = 0; i < 4; i++)
            iol_jsonw_int(&w, slots[i]);
        iol_jsonw_arr_end(&w);
        if (ev->buf_pgoff1) {
            iol_jsonw_key(&w, "buf_page_offset");
            iol_jsonw_int(&w, (int64_t)ev->buf_pgoff1 - 1);
        }
    }
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    return ferror(out) ? -1 : 0;
}
