/* Private pieces of the counters module shared by its source files. */
#ifndef IOLENS_COUNTERS_INTERNAL_H
#define IOLENS_COUNTERS_INTERNAL_H

#include "iolens/counters.h"

#include "darshan/internal.h"

#define IOL_CV_MAX 32 /* candidates tracked for the common access sizes / strides */

typedef struct iol_cv {
    int64_t val, cnt;
} iol_cv;

/* The most counters of a module computed here (PNETCDF_VAR's integers and reals). */
#define IOL_CREC_NI ((int)IOL_DC_PNETCDF_VAR_NUM_I)
#define IOL_CREC_NF ((int)IOL_DC_PNETCDF_VAR_NUM_F)
_Static_assert((int)IOL_DC_PNETCDF_VAR_NUM_I >= (int)IOL_DC_H5D_NUM_I &&
                   (int)IOL_DC_PNETCDF_VAR_NUM_I >= (int)IOL_DC_POSIX_NUM_I &&
                   (int)IOL_DC_PNETCDF_VAR_NUM_F >= (int)IOL_DC_H5D_NUM_F &&
                   (int)IOL_DC_PNETCDF_VAR_NUM_F >= (int)IOL_DC_POSIX_NUM_F,
               "a computed record holds every module's counters");

/* H5D and PNETCDF_VAR: one access shape (bytes, then lengths and strides of dimensions
 * D1..D5) and how often it was seen, as the runtime's common-value tree keeps them (at most IOL_CV_MAX shapes). */
#define IOL_H5D_NVALS 11
typedef struct iol_h5acc {
    int64_t v[IOL_H5D_NVALS];
    int64_t freq;
} iol_h5acc;

/* One record being computed (POSIX, MPI-IO, STDIO, H5F or H5D, per file and rank). */
typedef struct iol_crec {
    int module;
    int64_t file;
    int32_t rank;
    uint64_t id;
    uint64_t file_rec_id; /* H5D, PNETCDF_VAR: the record id of the dataset's or variable's file */
    int64_t c[IOL_CREC_NI];
    double f[IOL_CREC_NF];
    iol_h5acc *h5acc; /* H5D, PNETCDF_VAR: the access shapes seen (IOL_CV_MAX) */
    int nh5acc;
    /* running state, as the runtime keeps it per open file */
    int64_t offset, last_byte_read, last_byte_written;
    int last_io; /* 0 none, 1 read, 2 write */
    double last_read_end, last_write_end, last_meta_end;
    iol_cv acc[IOL_CV_MAX], str[IOL_CV_MAX];
    int nacc, nstr;
    /* DXT segments: writes then reads, kept apart while computing */
    iolens_darshan_dxt_seg *wseg, *rseg;
    size_t nw, nr, capw, capr;
} iol_crec;

typedef struct iol_heat {
    int api; /* module id: POSIX, MPIIO, STDIO */
    int32_t rank;
    double width;
    int64_t wbins[200], rbins[200];
    int used;
} iol_heat;

struct iolens_counters {
    iolens_counters_opts opts;
    iolens_darshan_job job;
    char *exe;
    iolens_darshan_mount *mounts;
    size_t nmounts;
    char *mount_strings;
    /* final records per module */
    iolens_darshan_record *recs[IOLENS_DARSHAN_MOD_COUNT];
    size_t nrecs[IOLENS_DARSHAN_MOD_COUNT];
    /* storage */
    iol_crec **crecs;
    size_t ncrecs, capcrecs;
    iol_heat **heats;
    size_t nheats, capheats;
    size_t *heat_slot; /* index of heats by (api, rank): position + 1, 0 empty; at most half full */
    size_t heat_cap;   /* a power of two, or 0 */
    /* names */
    uint64_t *name_ids;
    char **names;
    size_t nnames, capnames;
    size_t *name_set; /* index + 1 into names, by id */
    size_t name_set_cap;
    uint64_t events;
    double max_end;
    /* MPI ranks: the runtime records from MPI_Init's return (each rank's times relative to it)
     * to MPI_Finalize's start (mpi_window). win_from: the earliest rank's MPI_Init end, win_end:
     * the latest end of what a rank recorded, both as the source's times; win_ranks: ranks that
     * had a window (0: the job's times are the source's) */
    double win_from, win_end;
    int win_ranks;
    int stdio_started; /* a stdio call was seen: the runtime's STDIO module registered its names */
    /* files a process had open when it started, not yet opened by it (see inherited()) */
    struct iol_inh {
        int64_t file;
        int32_t rank;
    } *inh;
    size_t ninh, capinh;
    uint32_t *inh_file; /* by file id: how many of inh name it */
    size_t ninh_file;
    /* the standard streams of the rank being read (see std_stream(), rank_start()) */
    int64_t std_file[3];  /* file of descriptor 0, 1, 2 when the process started (-1: none noted) */
    uint8_t posix_std[3]; /* fileno() named the stream: its POSIX calls count on <STDIN>, ... */
    int stdio_live;       /* the rank made a stdio call the runtime wraps: its STDIO module knows
                           * the standard streams (fileno() finds them) */
};


#endif
