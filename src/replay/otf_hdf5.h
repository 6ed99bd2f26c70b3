/*
 * The on-the-fly replay at the library level: the HDF5 calls of a trace re-issued through
 * HDF5 (onthefly.c decides what is replayed, where files live and what is timed; this module
 * only talks to HDF5). Built when parallel HDF5 is there (IOLENS_HAVE_HDF5).
 */
#ifndef IOLENS_REPLAY_OTF_HDF5_H
#define IOLENS_REPLAY_OTF_HDF5_H

#include <stdint.h>

/* What the trace's notes say about one call (iolens_trace_last_hyperslab, _dims, _chunk). */
typedef struct oh5_extra {
    int has_sel, has_dims, has_chunk;
    int nd;                                          /* the selection's rank */
    int64_t start;                                  /* the file selection (has_sel): its first element's */
    int64_t count[5], block[5], stride[5];          /* index in C order, its shape */
    int dnd, unlimited;                              /* the dataset's rank, unlimited dims (bit i) */
    int64_t dims[5];
    int cnd;
    int64_t chunk[5];
} oh5_extra;

/* Changes a what-if makes (iolens_replay_trace_options). */
typedef struct oh5_opts {
    int xfer;                 /* -1 the transfer mode as recorded, 0 independent, 1 collective */
    int64_t align_threshold;  /* > 0 with align: H5Pset_alignment on every file */
    int64_t align;
    int world;                /* files the program opened through MPI-IO: 1 on MPI_COMM_WORLD, 0 on
                                 MPI_COMM_SELF, -1 no MPI (HDF5's default driver) */
    int64_t max_bytes;        /* a dataset or attribute larger than this (the root's free space) is
                                 refused: a trace is input, and HDF5 fills what it allocates */
} oh5_opts;

typedef struct oh5 oh5;

int oh5_new(oh5 **out, const oh5_opts *opts);
/* Closes the open file recorded as name (any open file when name is NULL) and its objects:
 * its tag, or -1 when none is open. A program that closes its files another way than
 * H5Fclose (h5py drops its last reference) opens them again or ends with them open. */
int64_t oh5_close_file(oh5 *h, const char *name);
/* Closes whatever the last rank left open. */
void oh5_reset(oh5 *h);
void oh5_free(oh5 *h);

/*
 * Re-issues one HDF5 call of the trace: func its name, slot its handle index (the trace's
 * fd), a its raw arguments, name the object's recorded name ("<file>:<path>[@attr]", or the
 * file's path), path the file's path for the replay (H5Fcreate, H5Fopen), buf a buffer of at
 * least the call's bytes. *file_tag receives the tag given to the call's file when it was
 * opened (tag), for the caller's sessions; *bytes what a read or write moved.
 * Returns 1 re-issued, 0 not replayable (counted as skipped), <0 an error (iol_err).
 */
int oh5_event(oh5 *h, const char *func, int32_t slot, const int64_t a[4], const oh5_extra *x, const char *name,
              const char *path, int64_t tag, void *buf, int64_t bufcap, int64_t *file_tag, int64_t *bytes);

/* 1 when func is an HDF5 call this module re-issues (inline: the replay built without HDF5
 * asks it too, and must not pull this module and libhdf5 in). */
static inline int oh5_handles(const char *func) { return func && func[0] == 'H' && func[1] == '5'; }

#endif
