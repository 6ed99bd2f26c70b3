#include "place_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CENTROID_LEN 200
#define BACKGROUND 0.2 /* MiB/s of compute time: below the 1 MiB/s threshold */

/* Each class does I/O in bursts at fixed fractions of its run. */
#define MAX_BURSTS 5
static const double bursts[3][MAX_BURSTS][2] = {
    {{0.02, 0.08}, {0.12, 0.18}, {0.22, 0.28}},                             /* start */
    {{0.10, 0.15}, {0.30, 0.35}, {0.50, 0.55}, {0.70, 0.75}, {0.90, 0.95}}, /* periodic */
    {{0.72, 0.78}, {0.82, 0.88}, {0.92, 0.98}},                             /* end */
};
static const char *const class_name[3] = {"start", "periodic", "end"};

/* Whether x in [0,1) falls in a burst of class cls, bursts shifted by j. */
static int in_burst(unsigned cls, double x, double j)
{
    for (int b = 0; b < MAX_BURSTS; b++)
        if (bursts[cls][b][1] > 0 && x >= bursts[cls][b][0] + j && x < bursts[cls][b][1] + j)
            return 1;
    return 0;
}

static double unit(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static FILE *open_in(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return fopen(p, "w");
}

int place_synth_write(const char *dir, unsigned ntraces, uint64_t seed)
{
    const size_t maxn = (size_t)(1800 / PLACE_SYNTH_STEP);
    FILE *t = open_in(dir, "traces.csv"), *a = open_in(dir, "assignments.csv"), *c = open_in(dir, "centroids.csv");
    int rc = (t && a && c) ? 0 : -1;
    if (rc)
        goto done;
    fprintf(t, "id");
    for (size_t k = 0; k < maxn; k++)
        fprintf(t, ",v%zu", k);
    fprintf(t, "\n");
    fprintf(a, "id,cluster\n");
    for (unsigned i = 0; i < ntraces; i++) {
        unsigned cls = i % 3;
        size_t n = (size_t)((600 + unit(&seed) * 1200) / PLACE_SYNTH_STEP);
        double amp = 20 * pow(12.5, unit(&seed)); /* 20 to 250 MiB/s, log-uniform */
        double jit = (unit(&seed) - 0.5) * 0.03;
        fprintf(t, "t%03u", i);
        for (size_t k = 0; k < n; k++) {
            double x = ((double)k + 0.5) / (double)n;
            fprintf(t, ",%.4f", in_burst(cls, x, jit) ? amp * (0.9 + 0.2 * unit(&seed)) : BACKGROUND);
        }
        fprintf(t, "\n");
        fprintf(a, "t%03u,%s\n", i, class_name[cls]);
    }
    fprintf(c, "cluster,step_seconds=%g\n", PLACE_SYNTH_STEP);
    for (unsigned cls = 0; cls < 3; cls++) {
        fprintf(c, "%s", class_name[cls]);
        for (size_t k = 0; k < CENTROID_LEN; k++) {
            double x = ((double)k + 0.5) / CENTROID_LEN;
            fprintf(c, ",%g", in_burst(cls, x, 0) ? 200.0 : BACKGROUND);
        }
        fprintf(c, "\n");
    }
done:
    if (t && fclose(t))
        rc = -1;
    if (a && fclose(a))
        rc = -1;
    if (c && fclose(c))
        rc = -1;
    return rc;
}

void place_synth_remove(const char *dir)
{
    static const char *const files[] = {"traces.csv", "assignments.csv", "centroids.csv"};
    char p[1024];
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}
