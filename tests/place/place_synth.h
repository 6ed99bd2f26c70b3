/* Synthetic I/O traces of known classes for the place tests and benchmark,
 * written in the formats of `iolens cluster` (input series and -o DIR). */
#ifndef IOLENS_TESTS_PLACE_SYNTH_H
#define IOLENS_TESTS_PLACE_SYNTH_H

#include <stdint.h>

#define PLACE_SYNTH_STEP 10.0 /* seconds per sample of traces.csv */

/* Writes DIR/traces.csv (wide, `id,v0,...`, MiB/s every PLACE_SYNTH_STEP s),
 * DIR/assignments.csv and DIR/centroids.csv (the true classes: bursts of
 * I/O at the start, periodic bursts, or bursts at the end of the run, at
 * 150-250 MiB/s; trace i is of class i % 3, 600-1800 s long).
 * Returns 0 or -1. */
int place_synth_write(const char *dir, unsigned ntraces, uint64_t seed);
/* Removes the three files and DIR. */
void place_synth_remove(const char *dir);

#endif
