/* Small numeric helpers shared by the modules: sorting doubles and their median. */
#ifndef IOLENS_UTIL_STATS_H
#define IOLENS_UTIL_STATS_H

#include <stddef.h>

/* qsort comparator of doubles, ascending (NaN compares equal to everything). */
int iol_cmp_double(const void *a, const void *b);

/* Median of v[0..n-1], already sorted ascending: the middle value, or the mean of the two
 * middle values; 0 when n is 0. */
double iol_median_sorted(const double *v, size_t n);

#endif
