/* iolens-replay: `iolens replay` linked with only what a replay needs (src/cli/CMakeLists.txt
 * says why). `iolens replay` runs it (execv) when MPI is to be initialised and no HDF5 step is
 * in the config; it can also be run directly: iolens-replay ARGS = iolens replay ARGS. */
#include "cli.h"

int main(int argc, char **argv)
{
    return cmd_replay(argc, argv);
}
