/* HDF5 calls of a source that records their arguments as text but not their results
 * (Recorder): the objects their hid_t arguments stand for, and the argument slots the shim
 * records for them (docs/TRACE-FORMAT.md). Used by the trace writer of event sources. */
#ifndef IOLENS_TRACE_CONVERT_H5_H
#define IOLENS_TRACE_CONVERT_H5_H

#include "iolens/event.h"
#include "trace/format.h"

typedef struct h5names h5names;

int h5n_new(h5names **out);
void h5n_free(h5names *h);
/** Forgets every object (the next process of the source). */
void h5n_reset(h5names *h);

/**
 * One HDF5 call of the current process, in the order the process made them. Fills r's fd,
 * argument slots and result, and *name with the name the shim would record (the file's path
 * for H5F calls, "<file>:<object path>" for datasets and groups, "...@<attribute>" for
 * attributes; NULL when not known, valid until the next call). Calls of functions the trace
 * format has no number for (fid < 0) still name objects. 0, or IOLENS_ENOMEM.
 */
int h5n_call(h5names *h, const iolens_event *ev, int fid, iol_rawrec *r, const char **name);

#endif
