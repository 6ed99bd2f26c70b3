/* Reading the shim's raw spill files (format.h) into memory, for the encoder. */
#ifndef IOLENS_TRACE_SPILL_H
#define IOLENS_TRACE_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

typedef struct iol_spill_thread {
    uint32_t tid;
    iol_rawrec *recs;
    size_t n, cap;
} iol_spill_thread;

typedef struct iol_spill_proc {
    int64_t pid, ppid;
    uint64_t start_ns;
    int32_t mpi_rank; /* -1 unknown */
    int ended;        /* END chunk seen */
    int truncated;    /* cut chunk or no END */
    iol_spill_thread *th;
    size_t nth;
    char **paths; /* by path id; NULL where not defined */
    size_t npaths; /* highest defined id + 1 */
    size_t pcap;
} iol_spill_proc;

/* Reads one spill file. Returns 0 or a negative code (message names the file and byte offset). */
int iol_spill_read(const char *path, iol_spill_proc *out);
void iol_spill_release(iol_spill_proc *p);

#endif
