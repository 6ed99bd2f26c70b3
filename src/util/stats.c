/* Small numeric helpers (util/stats.h). */
#include "util/stats.h"

int iol_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double iol_median_sorted(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
