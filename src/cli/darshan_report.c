#include "darshan_modes.h"
#include "util/error.h"
int iol_darshan_print_report(FILE *out, const char *path)
{
    (void)out;
    return iol_err(IOLENS_EUNSUPPORTED, "cannot report '%s': --report is not implemented yet", path);
}
