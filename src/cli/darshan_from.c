/* iolens darshan --from TRACE -o LOG.darshan: compute Darshan counters from a
 * trace and write a Darshan log. Kept apart from cmd_darshan.c (one hook). */
#include "cli.h"
#include "opt.h"

#include "darshan_from.h"
#include "iolens/counters.h"
#include "iolens/recorder.h"
#include "iolens/trace.h"
#include "util/jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { O_FROM = 1, O_OUTPUT, O_EXE, O_ALIGN, O_PER_RANK, O_ALL_PATHS, O_NO_DXT, O_NO_HEATMAP, O_JSON, O_ALL_CALLS };
static const cli_opt optv[] = {
    {O_FROM, 0, "from", "TRACE", "an iolens trace file (iolens trace -o) or a Recorder trace directory"},
    {O_OUTPUT, 'o', "output", "LOG.darshan", "the log to write (required)"},
    {O_JSON, 0, "json", NULL, "a summary (records per module, totals) as one JSON document on stdout"},
    {O_PER_RANK, 0, "per-rank", NULL, "keep per-rank records of shared files (no rank -1 reduction)"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "keep files under /dev/, /proc/, /etc/, ... (Darshan skips them)"},
    {O_ALIGN, 0, "alignment", "BYTES", "file alignment for POSIX_FILE_NOT_ALIGNED (default 4096)"},
    {O_NO_DXT, 0, "no-dxt", NULL, "no DXT_POSIX/DXT_MPIIO segments"},
    {O_NO_HEATMAP, 0, "no-heatmap", NULL, "no HEATMAP records"},
    {O_EXE, 0, "exe", "STRING", "executable and arguments for the job record (default: the traced command line)"},
    {O_ALL_CALLS, 0, "all-calls", NULL, "also count the calls Darshan does not see: glibc's fortified entry points\n"
                                        "(__fprintf_chk, __read_chk, ...), the kernel's copies (copy_file_range,\n"
                                        "sendfile), an MPI rank's calls before MPI_Init and after MPI_Finalize"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "darshan --from", "darshan --from TRACE -o LOG.darshan [--per-rank] [--all-paths] [--alignment BYTES]\n"
                      "        [--no-dxt] [--no-heatmap] [--exe STRING] [--all-calls] [--json]",
    "Computes Darshan counters (POSIX, MPI-IO, STDIO, H5F, H5D, PNETCDF, HEATMAP, DXT) from a trace\n"
    "and writes them as a Darshan log (format 3.41, zlib).",
    optv, NULL, NULL, 0};

/* The one place that knows trace kinds: a directory is a Recorder trace, a
 * file an iolens trace (iolens trace -o FILE). */
static int open_trace(const char *path, iolens_evsource **src)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) /* missing, a file, a pipe or a device: it says why */
        return iolens_trace_open(path, src);
    iolens_recorder_options ro;
    memset(&ro, 0, sizeof ro);
    ro.warn = cli_warn_cb;
    return iolens_recorder_open(path, src, &ro);
}

static void on_progress(void *ctx, int done, int total)
{
    cli_progress *p = ctx;
    (void)total;
    cli_progress_step(p, (unsigned long)done - p->done);
}

static void print_json(const iolens_counters *c, const char *from, const char *outp)
{
    iol_jsonw w;
    iol_jsonw_init(&w, stdout, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "trace");
    iol_jsonw_str(&w, from);
    iol_jsonw_key(&w, "log");
    iol_jsonw_str(&w, outp);
    iol_jsonw_key(&w, "events");
    iol_jsonw_uint(&w, iolens_counters_events(c));
    iol_jsonw_key(&w, "nprocs");
    iol_jsonw_int(&w, iolens_counters_job(c)->nprocs);
    iol_jsonw_key(&w, "run_time");
    iol_jsonw_double(&w, iolens_counters_job(c)->run_time);
    iol_jsonw_key(&w, "modules");
    iol_jsonw_obj_begin(&w);
    static const int mods[] = {IOLENS_DARSHAN_POSIX, IOLENS_DARSHAN_MPIIO, IOLENS_DARSHAN_STDIO,
                               IOLENS_DARSHAN_HEATMAP, IOLENS_DARSHAN_DXT_POSIX, IOLENS_DARSHAN_DXT_MPIIO};
    for (size_t k = 0; k < sizeof mods / sizeof mods[0]; k++) {
        int m = mods[k];
        size_t n = iolens_counters_count(c, m);
        if (n == 0)
            continue;
        iol_jsonw_key(&w, iolens_darshan_module_name(m));
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "records");
        iol_jsonw_uint(&w, n);
        /* bytes read/written over the module's records (counter names from the shared tables) */
        int br = -1, bw = -1;
        if (iolens_darshan_counter_count(m) > 0) {
            char name[64];
            snprintf(name, sizeof name, "%s_BYTES_READ", m == IOLENS_DARSHAN_MPIIO ? "MPIIO" : iolens_darshan_module_name(m));
            br = iolens_darshan_counter_index(m, name, NULL);
            snprintf(name, sizeof name, "%s_BYTES_WRITTEN", m == IOLENS_DARSHAN_MPIIO ? "MPIIO" : iolens_darshan_module_name(m));
            bw = iolens_darshan_counter_index(m, name, NULL);
        }
        if (br >= 0 && bw >= 0) {
            int64_t r = 0, wr = 0;
            for (size_t i = 0; i < n; i++) {
                const iolens_darshan_record *rec = iolens_counters_record(c, m, i);
                r += rec->counters[br];
                wr += rec->counters[bw];
            }
            iol_jsonw_key(&w, "bytes_read");
            iol_jsonw_int(&w, r);
            iol_jsonw_key(&w, "bytes_written");
            iol_jsonw_int(&w, wr);
        }
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_obj_end(&w);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    fputc('\n', stdout);
}

int iol_darshan_from_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--from"))
            return 1;
    return 0;
}

int iol_darshan_from_main(int argc, char **argv)
{
    const char *from = NULL, *outp = NULL;
    int json = 0;
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    int id;
    long long v;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_FROM: from = a.val; break;
        case O_OUTPUT: outp = a.val; break;
        case O_EXE: o.exe = a.val; break;
        case O_ALL_CALLS: o.all_calls = 1; break;
        case O_ALIGN:
            if (cli_val_size(&a, 0, 1LL << 40, &v) < 0)
                return CLI_USAGE;
            o.file_alignment = v;
            break;
        case O_PER_RANK: o.keep_per_rank = 1; break;
        case O_ALL_PATHS: o.all_paths = 1; break;
        case O_NO_DXT: o.dxt = 0; break;
        case O_JSON: json = 1; break;
        case O_NO_HEATMAP: o.heatmap = 0; break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&a, 0, 0, "");
    if (id == CLI_OPT_END && (!from || !outp))
        id = cli_usage_error(&spec, "--from TRACE and -o LOG.darshan are both needed");
    if (id < 0)
        return cli_args_exit(&a, id);
    return iol_darshan_from_write(from, outp, &o, json) < 0 ? CLI_FAIL : CLI_OK;
}

int iol_darshan_from_write(const char *from, const char *outp, const iolens_counters_opts *opts, int json)
{
    iolens_counters_opts o = *opts;
    iolens_evsource *src = NULL;
    iolens_counters *c = NULL;
    int ret = -1;
    if (open_trace(from, &src) < 0) {
        cli_lib_error();
        goto out;
    }
    cli_progress prog;
    cli_progress_init(&prog, "ranks", (unsigned long)iolens_evsource_nranks(src));
    o.progress = on_progress;
    o.progress_ctx = &prog;
    int crc = iolens_counters_compute(src, &o, &c);
    cli_progress_end(&prog);
    if (crc < 0 || iolens_counters_write(c, outp) < 0) {
        cli_lib_error();
        goto out;
    }
    if (json)
        print_json(c, from, outp);
    fprintf(stderr, "%s: %llu events, %zu POSIX, %zu MPI-IO, %zu STDIO records\n", outp,
            (unsigned long long)iolens_counters_events(c), iolens_counters_count(c, IOLENS_DARSHAN_POSIX),
            iolens_counters_count(c, IOLENS_DARSHAN_MPIIO), iolens_counters_count(c, IOLENS_DARSHAN_STDIO));
    ret = 0;
out:
    iolens_counters_free(c);
    iolens_evsource_free(src);
    return ret;
}
