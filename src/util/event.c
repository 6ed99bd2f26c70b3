/* The event-source wrapper: dispatch to a producer's ops (include/iolens/event.h). */
#include "iolens/event.h"
#include "util/error.h"
#include "util/evsource.h"

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
