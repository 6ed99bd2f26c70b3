#include "darshan_modes.h"
#include "cli.h"
int iol_darshan_summary(int npaths, char **paths, int jobs, int json)
{
    (void)npaths; (void)paths; (void)jobs; (void)json;
    cli_error("--summary is not implemented yet");
    return CLI_FAIL;
}
