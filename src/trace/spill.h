/* Reading the shim's raw spill files (format.h) into memory, for the encoder. */
#ifndef IOLENS_TRACE_SPILL_H
#define IOLENS_TRACE_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

typedef struct iol_spill_proc {
    int64_t pid, ppid;
    uint64_t start_ns;
    int32_t mpi_rank; /* -1 unknown */
    int ended;        /* END chunk seen */
    int truncated;    /* cut chunk or no END */
    int stopped;      /* IOL_RAW_OFF_*: the shim left a "<spill>.off-<reason>" marker */
    iol_rawself self; /* the tracer's sampled cost (SELF chunk), zero if none */
    iol_rawselff *selff; /* the same per function (nselff entries; older shims: none) */
    size_t nselff;
    char *cmd;    /* JOB chunk: the command line, arguments NUL-terminated, cmdlen bytes; NULL if none */
    size_t cmdlen;
    int64_t uid;  /* -1 if not recorded */
    char *jobid;  /* NUL-terminated; NULL if not recorded */
    char **paths; /* by path id; NULL where not defined */
    size_t npaths; /* highest defined id + 1 */
    size_t pcap;
} iol_spill_proc;

/* Called with the records of each chunk, in file order (a thread's chunks are in call order). */
typedef int (*iol_spill_recs_fn)(void *ctx, uint32_t tid, const iol_rawrec *recs, size_t n);

/* Reads one spill file, streaming its records to on_recs and keeping paths,
 * rank and flags in *out. Returns 0 or a negative code (message names the
 * file and byte offset). */
int iol_spill_read(const char *path, iol_spill_proc *out, iol_spill_recs_fn on_recs, void *ctx);
/* Only the header's start time (to find the job start before encoding). */
int iol_spill_start(const char *path, uint64_t *start_ns);
void iol_spill_release(iol_spill_proc *p);
/* The IOL_RAW_OFF_* reason of the marker the shim left next to spill, or 0. */
int iol_spill_stop_marker(const char *spill);

#endif
