/*
 * iolens-trace-build: the trace builder the preloaded shim runs on rank 0
 * after MPI_Finalize (`mpirun -x LD_PRELOAD=libiolens_shim.so -x
 * IOLENS_TRACE_OUT=T app`). It does what `iolens trace --build DIR -o T
 * --remove-spill` does, but it links only the trace and util modules of the
 * static libiolens (with --as-needed), so starting it does not load Open MPI,
 * HDF5, XGBoost and SimGrid as the full `iolens` program must (about 50 ms of
 * dynamic linking per start on this machine, i.e. more than a quarter of
 * building a 10^6-call trace). The shim falls back to `iolens trace --build`
 * when this program is not found.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fs.h"
#include "iolens/iolens.h"
#include "iolens/trace.h"

static void usage(FILE *f)
{
    fputs("usage: iolens-trace-build SPILL_DIR -o TRACE [--remove-spill] [--quiet]\n"
          "Builds the trace file from the shim's spill folder (as `iolens trace --build`).\n",
          f);
}

int main(int argc, char **argv)
{
    const char *spill = NULL, *out = NULL;
    int remove_spill = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--remove-spill"))
            remove_spill = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && !spill)
            spill = argv[i];
        else {
            fprintf(stderr, "iolens-trace-build: error: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!spill || !out) {
        usage(stderr);
        return 2;
    }
    iolens_trace_build_opts o = {0};
    iolens_trace_stats st;
    memset(&st, 0, sizeof st);
    char warn[2048];
    if (iolens_trace_build(spill, out, &o, &st)) {
        fprintf(stderr, "iolens-trace-build: error: %s\n", iolens_error_last());
        if (iolens_trace_build_warnings(&st, warn, sizeof warn))
            for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
                fprintf(stderr, "iolens-trace-build: warning: %s\n", line);
        fprintf(stderr, "iolens-trace-build: the spill folder '%s' is kept: build the trace again with "
                        "`iolens trace --build %s -o TRACE`\n", spill, spill);
        return 1;
    }
    if (!quiet)
        fprintf(stderr, "iolens: wrote '%s': %" PRIu64 " calls of %" PRIu64 " process(es), %" PRIu64 " bytes\n", out,
                st.ncalls, st.nprocs, st.bytes_total);
    if (iolens_trace_build_warnings(&st, warn, sizeof warn))
        for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
            fprintf(stderr, "iolens-trace-build: warning: %s\n", line);
    if (remove_spill && iolens_trace_remove_spill(spill)) {
        fprintf(stderr, "iolens-trace-build: error: %s\n", iolens_error_last());
        return 1;
    }
    return 0;
}
