/*
 * Reading Recorder traces (uiuc-hpc/Recorder) as first-class iolens input.
 *
 * A Recorder trace is a directory. Supported layouts (see
 * ../shared/design/reference/recorder-trace-format.md):
 *   - 2.5: VERSION, recorder.mt, recorder.cst + ug.mt + ug.cfg (inter-process
 *     compression) or <rank>.cst/<rank>.cfg (without it, and non-MPI runs),
 *     recorder.ts. Tested on real traces.
 *   - 2.4 (and 2.3): per-rank uncompressed <rank>.cst/<rank>.cfg/<rank>.ts.
 *   - 3.x: 4-byte function ids; with a VERSION file (legacy 3.x) or without
 *     (recorder.mt starting with the version), and the single sectioned
 *     recorder.dat file. Implemented from the format description only.
 *
 * Function names always come from the trace's recorder.mt. Offsets written
 * by Recorder's inter-process pattern recognition as "a*r+b" are resolved
 * with r = the rank's index in the sub-communicator Recorder split by the
 * per-function signature count; intra-process pattern recognition (offset
 * minus the function's first offset) is undone for pwrite/pwrite64.
 *
 * Decoding streams: the grammar is expanded iteratively with an explicit
 * stack (cycles rejected, rules producing nothing skipped, record counts
 * checked against the timestamps), and timestamps are inflated on demand.
 *
 * Every error names the file and byte offset: "cannot read 'DIR/ug.cfg':
 * grammar 1 truncated at byte 212".
 */
#ifndef IOLENS_RECORDER_H
#define IOLENS_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iolens/event.h"
#include "iolens/iolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A decoded Recorder trace (opaque). */
typedef struct iolens_recorder iolens_recorder;

/** Reader options; pass NULL for the defaults. */
typedef struct iolens_recorder_options {
    /** Largest trace file accepted, in bytes (0 = 1 GiB). */
    uint64_t max_file_bytes;
    /** Largest number of records per rank (0 = 2^32). */
    uint64_t max_records;
    /** Non-fatal findings (e.g. timestamps left over); may be NULL. */
    iolens_warn_fn warn;
    void *warn_ctx;
} iolens_recorder_options;

/** One in-memory trace file, for iolens_recorder_read_mem(). */
typedef struct iolens_recorder_memfile {
    const char *name; /**< file name inside the trace directory, e.g. "recorder.mt" */
    const uint8_t *data;
    size_t size;
} iolens_recorder_memfile;

/** Reads the trace directory dir (metadata, signatures, grammars; timestamps
 *  are decoded lazily). *out belongs to the caller (iolens_recorder_free). */
IOLENS_API int iolens_recorder_read(const char *dir, iolens_recorder **out,
                                    const iolens_recorder_options *opt);

/** Same, from n in-memory files (no disk access); label names the trace in
 *  messages. The memory must stay valid until the reader is freed. */
IOLENS_API int iolens_recorder_read_mem(const iolens_recorder_memfile *files, size_t n,
                                        const char *label, iolens_recorder **out,
                                        const iolens_recorder_options *opt);

IOLENS_API void iolens_recorder_free(iolens_recorder *rec);

IOLENS_API int iolens_recorder_nranks(const iolens_recorder *rec);
/** Trace version, e.g. "2.5.0". */
IOLENS_API const char *iolens_recorder_version(const iolens_recorder *rec);
/** Records of one rank (from the grammar, checked against the timestamps). */
IOLENS_API int64_t iolens_recorder_record_count(const iolens_recorder *rec, int rank);

/**
 * Writes the records of one rank in recorder2text's format
 * ("tstart tend func depth type ( args )"), each line preceded by prefix
 * (NULL for none, which gives exactly recorder2text's <rank>.txt).
 * Restarts the rank in an event source made from rec (its position is lost).
 * Returns the number of lines or a negative error.
 */
IOLENS_API int64_t iolens_recorder_write_text(iolens_recorder *rec, int rank, FILE *out,
                                              const char *prefix);

/** Wraps rec as an event source (takes ownership of rec, also on failure). */
IOLENS_API int iolens_recorder_evsource(iolens_recorder *rec, iolens_evsource **out);

/** iolens_recorder_read() + iolens_recorder_evsource(). */
IOLENS_API int iolens_recorder_open(const char *dir, iolens_evsource **out,
                                    const iolens_recorder_options *opt);

#ifdef __cplusplus
}
#endif
#endif
