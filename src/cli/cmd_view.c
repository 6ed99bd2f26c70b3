/* iolens view: show a Recorder trace as recorder2text does, or as JSON lines;
 * an iolens trace file in the same line format. */
#include "cli.h"
#include "opt.h"

#include "iolens/event.h"
#include "iolens/recorder.h"
#include "iolens/report.h"
#include "iolens/trace.h"
#include "util/jsonw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { O_JSON = 1, O_CHROME, O_OUTPUT, O_R2T, O_RANK };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "JSON Lines: one object per call (the decoded event: layer, op, file,\n"
                              "resolved offset, size, times in seconds since the job's start)"},
    {O_RANK, 0, "rank", "N", "only rank N"},
    {O_R2T, 0, "recorder2text", "OUTDIR", "write OUTDIR/<rank>.txt exactly as recorder2text does"},
    {O_CHROME, 0, "chrome-trace", NULL, "the calls as a timeline for Perfetto (ui.perfetto.dev, which runs in\n"
                                        "the browser, offline too) or chrome://tracing: the Trace Event\n"
                                        "Format, one event per call (rank = process, thread = thread, nested\n"
                                        "by depth, arguments attached); a Darshan log gives its DXT segments"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "view", "view [--json] [--rank N] [-o FILE] RECORDER_DIR|TRACE\nview --recorder2text OUTDIR RECORDER_DIR\n"
            "view --chrome-trace [-o TIMELINE.json] RECORDER_DIR|TRACE|LOG",
    "Shows every call of a Recorder trace (2.4, 2.5, 3.x: a directory) or of an iolens trace (a\n"
    "file, from `iolens trace` or `iolens convert`). By default recorder2text's lines, each\n"
    "prefixed by the rank and a space: `RANK TSTART TEND FUNC DEPTH TYPE ( ARGS )` (`cut -d' '\n"
    "-f2-` gives recorder2text's <rank>.txt back).",
    optv,
    "An iolens trace's lines show every argument in the C call's order as Recorder prints them:\n"
    "descriptors, FILE* and MPI_File as the file's path (`???` unknown), buffers as `%p`, integers\n"
    "in decimal, e.g. `pwrite 0 0 ( /f %p 64 4096 )`; TYPE is the layer (0 POSIX, 1 MPI-IO,\n"
    "2 MPI, 3 HDF5, 5 stdio); 7 decimals.",
    NULL, 0};

/* One event of an iolens trace in recorder2text's line layout: its textual
 * arguments (spaces inside an argument become '_', as Recorder writes them). */
static void text_event(const iolens_event *ev)
{
    printf("%d %.7f %.7f %s %u %d (", (int)ev->rank, ev->tstart, ev->tend, ev->func, ev->depth + ev->lib_depth,
           (int)ev->layer);
    for (uint32_t i = 0; i < ev->nargs; i++) {
        putchar(' ');
        for (const char *c = ev->args[i]; *c; c++)
            putchar(*c == ' ' ? '_' : *c);
    }
    fputs(" )\n", stdout);
}

/* Prints every event of src (all ranks, or only one), as JSON or text lines; frees src. */
static int view_events(iolens_evsource *src, int only, int json)
{
    int n = iolens_evsource_nranks(src);
    const iolens_file *files;
    size_t nfiles;
    int rc = iolens_evsource_files(src, &files, &nfiles), status = CLI_OK;
    for (int r = 0; rc >= 0 && r < n; r++) {
        if (only >= 0 && r != only)
            continue;
        iolens_event ev;
        int iol = !strcmp(iolens_evsource_kind(src), "iolens");
        double copy_t0 = -1;
        while ((rc = iolens_evsource_next(src, r, &ev)) == 1) {
            int32_t fd;
            int64_t slots[4];
            if (json) /* an iolens trace's call has its raw slots too */
                iolens_event_write_json(stdout, &ev, files, nfiles, &fd,
                                        iol && iolens_trace_last_args(src, r, &fd, slots) == 0 ? slots : NULL);
            else if (ev.flags & IOLENS_EVF_COPY_SOURCE) /* a copy is one call: its target's line, */
                copy_t0 = ev.tstart;                     /* from the call's start */
            else {
                if (copy_t0 >= 0)
                    ev.tstart = copy_t0;
                copy_t0 = -1;
                text_event(&ev);
            }
        }
    }
    if (rc >= 0 && fflush(stdout) != 0) {
        cli_error("cannot write the output: %s", strerror(errno));
        status = CLI_FAIL;
    } else if (rc < 0) {
        cli_lib_error();
        status = CLI_FAIL;
    }
    iolens_evsource_free(src);
    return status;
}

static int write_text_files(iolens_recorder *rec, const char *outdir, int only)
{
    int n = iolens_recorder_nranks(rec);
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create '%s': %s", outdir, strerror(errno));
        return CLI_FAIL;
    }
    cli_progress prog;
    cli_progress_init(&prog, "writing ranks", (unsigned long)n);
    int status = CLI_OK;
    for (int r = 0; r < n && status == CLI_OK; r++) {
        if (only >= 0 && r != only)
            continue;
        size_t len = strlen(outdir) + 32;
        char *path = malloc(len);
        if (!path) {
            cli_error("out of memory");
            status = CLI_FAIL;
            break;
        }
        snprintf(path, len, "%s/%d.txt", outdir, r);
        FILE *f = fopen(path, "w");
        if (!f) {
            cli_error("cannot create '%s': %s", path, strerror(errno));
            status = CLI_FAIL;
        } else {
            if (iolens_recorder_write_text(rec, r, f, NULL) < 0) {
                cli_lib_error();
                status = CLI_FAIL;
            }
            if (fclose(f) != 0 && status == CLI_OK) {
                cli_error("cannot write '%s': %s", path, strerror(errno));
                status = CLI_FAIL;
            }
        }
        free(path);
        cli_progress_step(&prog, 1);
    }
    cli_progress_end(&prog);
    return status;
}

int cmd_view(int argc, char **argv)
{
    const char *outdir = NULL, *dir = NULL, *output = NULL;
    int json = 0, only = -1, chrome = 0;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long v;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_CHROME: chrome = 1; break;
        case O_OUTPUT: output = a.val; break;
        case O_R2T: outdir = a.val; break;
        case O_RANK:
            if (cli_val_long(&a, 0, 1 << 24, &v) < 0)
                return CLI_USAGE;
            only = (int)v;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 1, 1, "RECORDER_DIR|TRACE");
    if (id == CLI_OPT_END && chrome && (json || outdir || only >= 0))
        id = cli_usage_error(&spec, "--chrome-trace writes every rank's calls: without --json, --recorder2text or --rank");
    if (id == CLI_OPT_END && json && outdir)
        id = cli_usage_error(&spec, "--recorder2text writes recorder2text's text: without --json");
    if (id == CLI_OPT_END && output && outdir)
        id = cli_usage_error(&spec, "--recorder2text writes a folder: -o goes with the other forms");
    if (id < 0)
        return cli_args_exit(&a, id);
    dir = a.operands[0];
    if (output && cli_output_to(output) < 0)
        return CLI_FAIL;
    if (chrome) {
        int64_t n = 0;
        if (iolens_report_chrome_trace(dir, stdout, &n, cli_warn_cb, NULL) < 0 || fflush(stdout) != 0) {
            cli_lib_error();
            return CLI_FAIL;
        }
        if (output)
            fprintf(stderr, "iolens: wrote '%s': %lld calls\n", output, (long long)n);
        return CLI_OK;
    }
    struct stat sb;
    if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) { /* not a Recorder directory: an iolens trace? */
        if (outdir) {
            cli_error("--recorder2text needs a Recorder trace directory; '%s' is a file", dir);
            return CLI_USAGE;
        }
        iolens_evsource *src;
        if (iolens_trace_open(dir, &src) < 0) {
            cli_lib_error();
            return CLI_FAIL;
        }
        if (only >= iolens_evsource_nranks(src)) {
            cli_error("rank %d out of range: '%s' has %d ranks", only, dir, iolens_evsource_nranks(src));
            iolens_evsource_free(src);
            return CLI_USAGE;
        }
        return view_events(src, only, json);
    }
    iolens_recorder_options opt = {0};
    if (json) /* the warnings concern decoded events, not the text */
        opt.warn = cli_warn_cb;
    iolens_recorder *rec;
    if (iolens_recorder_read(dir, &rec, &opt) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (only >= iolens_recorder_nranks(rec)) {
        cli_error("rank %d out of range: '%s' has %d ranks", only, dir, iolens_recorder_nranks(rec));
        iolens_recorder_free(rec);
        return CLI_USAGE;
    }
    if (json) {
        iolens_evsource *src;
        if (iolens_recorder_evsource(rec, &src) < 0) { /* takes rec */
            cli_lib_error();
            return CLI_FAIL;
        }
        return view_events(src, only, 1);
    }
    int status = CLI_OK;
    if (outdir) {
        status = write_text_files(rec, outdir, only);
    } else {
        for (int r = 0; r < iolens_recorder_nranks(rec) && status == CLI_OK; r++) {
            if (only >= 0 && r != only)
                continue;
            char prefix[24];
            snprintf(prefix, sizeof prefix, "%d ", r);
            if (iolens_recorder_write_text(rec, r, stdout, prefix) < 0) {
                cli_lib_error();
                status = CLI_FAIL;
            }
        }
        if (fflush(stdout) != 0 && status == CLI_OK) {
            cli_error("cannot write the output: %s", strerror(errno));
            status = CLI_FAIL;
        }
    }
    iolens_recorder_free(rec);
    return status;
}
