/* The in-memory form of an opened trace (decode.c parses, source.c iterates). */
#ifndef IOLENS_TRACE_DECODE_H
#define IOLENS_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/event.h"
#include "trace/codec.h"
#include "trace/format.h"

typedef struct iol_sectdata {
    uint8_t *data;
    size_t len;
    uint64_t at, stored; /* position and size in the file */
} iol_sectdata;

typedef struct iol_frame {
    size_t rule; /* index into rule_off/rule_len (nrules = main sequence) */
    size_t pos;
    uint64_t left; /* repetitions of the symbol at pos still to expand */
} iol_frame;

/* Notes the HDF5 wrappers record before a call, at most one of each kind (funcs.def). */
#define IOL_MAX_NOTES 4

typedef struct iol_thread {
    uint32_t tid;
    size_t nrules;
    size_t *rule_off, *rule_len; /* [nrules + 1]; offsets of (sym, exp) pairs in the process vector */
    uint64_t ncalls;
    size_t ts_off, dur_off; /* gap and duration columns in the timestamp section */
    /* iteration */
    iol_frame *stack;
    size_t depth;
    iol_pred pred;
    iol_cur tcur, dcur;
    int64_t tprev; /* end of the previous call */
    int64_t lastdur[IOL_F_COUNT];
    uint64_t done;
    int has_head;
    iol_rawrec head;
    iol_rawrec note[IOL_MAX_NOTES]; /* notes (funcs.def: selection shape and start, dims,
                                     * chunks) for this thread's next call */
    int nnotes;
} iol_thread;

/* a function's own mean tracer cost is its self_after from this many samples on */
#define IOL_SELF_FUNC_MIN 8

/* One function's sampled tracer cost in a process (func: this reader's id); after: its
 * iolens_event.self_after (its own mean with IOL_SELF_FUNC_MIN samples, else the process's self_other) */
typedef struct iol_selff {
    uint32_t func;
    uint64_t samples, post_ns;
    double after;
} iol_selff;

typedef struct iol_proc {
    int64_t pid, ppid;
    int32_t mpi_rank;
    int truncated;
    int stopped; /* iolens_trace_stop */
    iol_rawself self; /* SELF section: the tracer's sampled cost, zero if none */
    double self_mean; /* post_ns / samples, in seconds (0 without samples) */
    double self_other; /* self_after of a function without figures of its own (decode.c: self_fallback) */
    iol_selff *selff; /* SELF's figures per function (format 1.2), nselff of them; NULL if none */
    size_t nselff;
    int self_bounded; /* self_other and selff[].after are at most the gaps seen after the calls (source.c: self_bound) */
    char *cmd;        /* JOB section (format 1.3): the command line, arguments NUL-terminated, cmdlen bytes;
                       * NULL if not recorded */
    size_t cmdlen;
    int64_t uid;      /* -1 if not recorded */
    char *jobid;      /* the batch system's job id, NUL-terminated; NULL if not recorded */
    int64_t *v;
    size_t vlen;
    const char *s;
    size_t slen;
    size_t nthreads;
    iol_thread *th;
    int64_t nsig;
    const int64_t *sigs;
    int64_t *paths; /* process path id -> global file id */
    size_t npaths;
    uint64_t ncalls;
    iol_offmap fdpos; /* simulated file position per descriptor */
    iol_rawrec last;
    int has_last;
    iol_rawrec pending; /* a copy's target write, the event after its source read (source.c) */
    int has_pending;
    const iol_thread *pending_th;
    iol_rawrec last_note[IOL_MAX_NOTES]; /* the notes of the last event */
    int last_nnotes;
    /* textual arguments of the last event (valid until the rank's next event) */
    const char *argv[8];
    char argtext[8][24];
} iol_proc;

typedef struct iol_trace {
    char *name;
    iol_sectdata sect[IOL_TS_JOB + 1];
    uint64_t res_ns, start_ns;
    unsigned minor; /* the format's minor version the writer wrote */
    size_t nprocs, ngroups;
    iol_proc *procs;
    const char *func_names[IOL_F_COUNT]; /* by stored id */
    int func_map[IOL_F_COUNT];           /* stored id -> this reader's id, -1 */
    const char *arg_spec[IOL_F_COUNT];   /* by this reader's id: source.c's argument spec, NULL until looked up */
    uint8_t mpi_kind[IOL_F_COUNT];       /* by this reader's id: source.c's MPI-IO flags of the name, 0 until worked out */
    iolens_file *files;
    uint64_t *fhash;
    size_t nfiles, filescap;
    uint32_t *fslots;
    size_t fcap;
} iol_trace;

int iol_trace_load(const void *data, size_t size, const char *name, iol_trace **out);
void iol_trace_release(iol_trace *t);
int iol_trace_rewind(iol_trace *t, int rank);
/* Writes every process of t as a spill file "m<seq>.raw" in dir (for merging). */
int iol_trace_write_spills(iol_trace *t, const char *dir, unsigned *seq);
/* Removes a scratch folder and the files in it (convert.c). */
void iol_scratch_remove(const char *dir);

#endif
