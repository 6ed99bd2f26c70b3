/* cli_detect_read(): the input reader of iolens features and detect (cli.h). Apart from
 * common.c so that iolens-replay, which links common.c, does not link the classifier. */
#include "cli.h"

#include "iolens/detect.h"

#include <string.h>

/* Progress over the ranks of a trace (the total is known once the trace is open). */
static void on_progress(void *ctx, int done, int total)
{
    cli_progress *p = ctx;
    if (!p->label)
        cli_progress_init(p, "ranks", (unsigned long)total);
    cli_progress_step(p, (unsigned long)done - p->done);
}

/* Reads any input (Darshan log or text, iolens or Recorder trace) with progress. */
int cli_detect_read(iolens_detect_input **in, const char *path, int all_paths)
{
    cli_progress prog;
    memset(&prog, 0, sizeof prog);
    iolens_detect_read_opts o;
    iolens_detect_read_opts_init(&o);
    o.all_paths = all_paths;
    o.warn = cli_warn_cb;
    o.progress = on_progress;
    o.progress_ctx = &prog;
    int rc = iolens_detect_read(in, path, &o);
    if (prog.label)
        cli_progress_end(&prog);
    return rc;
}
