/* iolens view: show a Recorder trace as recorder2text does, or as JSON lines;
 * an iolens trace file in the same line format. */
#include "cli.h"

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

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens view [--json] [--rank N] [-o FILE] RECORDER_DIR|TRACE\n"
            "       iolens view --recorder2text OUTDIR RECORDER_DIR\n"
            "       iolens view --chrome-trace [-o TIMELINE.json] RECORDER_DIR|TRACE|LOG\n\n"
            "Shows every call of a Recorder trace (2.4, 2.5, 3.x: a directory) or of an\n"
            "iolens trace (a file, from `iolens trace` or `iolens convert`).\n"
            "  (default)              recorder2text's lines on stdout, each prefixed by the\n"
            "                         rank and a space: `RANK TSTART TEND FUNC DEPTH TYPE ( ARGS )`\n"
            "                         (`cut -d' ' -f2-` gives recorder2text's <rank>.txt back)\n"
            "  --recorder2text OUTDIR write OUTDIR/<rank>.txt exactly as recorder2text does\n"
            "  --json                 one JSON object per call (decoded event: layer, op, file,\n"
            "                         resolved offset, size, times in seconds since job start)\n"
            "  --rank N               only rank N\n"
            "  --chrome-trace         the calls as a timeline for Perfetto (ui.perfetto.dev, which\n"
            "                         runs in the browser, offline too) or chrome://tracing: the\n"
            "                         Trace Event Format, one event per call (rank = process,\n"
            "                         thread = thread, nested by depth, arguments attached); a\n"
            "                         Darshan log gives its DXT segments\n"
            "  -o, --output FILE      write to FILE (default: standard output)\n"
            "An iolens trace's lines show every argument in the C call's order as Recorder\n"
            "  prints them: descriptors/FILE*/MPI_File as the file's path (`???` unknown),\n"
            "  buffers as `%%p`, integers in decimal, e.g. `pwrite 0 0 ( /f %%p 64 4096 )`;\n"
            "  TYPE is the layer (0 POSIX, 1 MPI-IO, 2 MPI, 3 HDF5, 5 stdio); 7 decimals.\n");
}

static void json_event(const iolens_event *ev, const iolens_file *files, size_t nfiles)
{
    iol_jsonw w;
    iol_jsonw_init(&w, stdout, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "rank");
    iol_jsonw_int(&w, ev->rank);
    iol_jsonw_key(&w, "thread");
    iol_jsonw_uint(&w, ev->thread);
    iol_jsonw_key(&w, "tstart");
    iol_jsonw_double(&w, ev->tstart);
    iol_jsonw_key(&w, "tend");
    iol_jsonw_double(&w, ev->tend);
    iol_jsonw_key(&w, "func");
    iol_jsonw_str(&w, ev->func);
    iol_jsonw_key(&w, "depth");
    iol_jsonw_uint(&w, ev->depth);
    iol_jsonw_key(&w, "lib_depth");
    iol_jsonw_uint(&w, ev->lib_depth);
    iol_jsonw_key(&w, "layer");
    iol_jsonw_str(&w, iolens_layer_name(ev->layer));
    iol_jsonw_key(&w, "op");
    iol_jsonw_str(&w, iolens_op_name(ev->op));
    iol_jsonw_key(&w, "file");
    iol_jsonw_int(&w, ev->file);
    iol_jsonw_key(&w, "path");
    if (ev->file >= 0 && (size_t)ev->file < nfiles)
        iol_jsonw_str(&w, files[ev->file].path);
    else
        iol_jsonw_null(&w);
    iol_jsonw_key(&w, "offset");
    iol_jsonw_int(&w, ev->offset);
    iol_jsonw_key(&w, "size");
    iol_jsonw_int(&w, ev->size);
    iol_jsonw_key(&w, "collective");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_COLLECTIVE) != 0);
    iol_jsonw_key(&w, "offset_implicit");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_OFFSET_IMPLICIT) != 0);
    iol_jsonw_key(&w, "offset_unknown");
    iol_jsonw_bool(&w, (ev->flags & IOLENS_EVF_OFFSET_UNKNOWN) != 0);
    iol_jsonw_key(&w, "args");
    iol_jsonw_arr_begin(&w);
    for (uint32_t i = 0; i < ev->nargs; i++)
        iol_jsonw_str(&w, ev->args[i]);
    iol_jsonw_arr_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
}

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
        while ((rc = iolens_evsource_next(src, r, &ev)) == 1) {
            if (json)
                json_event(&ev, files, nfiles);
            else
                text_event(&ev);
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--chrome-trace")) {
            chrome = 1;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
            output = argv[++i];
        } else if (!strcmp(a, "--recorder2text") || !strcmp(a, "--rank")) {
            if (i + 1 >= argc) {
                cli_error("%s needs a value", a);
                usage(stderr);
                return CLI_USAGE;
            }
            if (!strcmp(a, "--rank")) {
                char *end;
                long v = strtol(argv[++i], &end, 10);
                if (*end || v < 0 || v > 1 << 24) {
                    cli_error("invalid rank '%s'", argv[i]);
                    return CLI_USAGE;
                }
                only = (int)v;
            } else {
                outdir = argv[++i];
            }
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("view", a, usage);
            return CLI_USAGE;
        } else if (!dir) {
            dir = a;
        } else {
            cli_error("unexpected argument '%s'", a);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (!dir || (json && outdir) || (chrome && (json || outdir || only >= 0)) || (output && outdir)) {
        if (chrome && (json || outdir || only >= 0))
            cli_error("--chrome-trace writes every rank's calls: without --json, --recorder2text or --rank");
        else if (output && outdir)
            cli_error("--recorder2text writes a folder: -o goes with the other forms");
        usage(stderr);
        return CLI_USAGE;
    }
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
