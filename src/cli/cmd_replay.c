/*
 * iolens replay CONFIG.json [--root DIR] [--json] [--dry-run] [--keep]
 *
 * MPI: the program initialises MPI only when it was launched by mpirun
 * (Open MPI, PMIx or PMI environment present) or when the config has an
 * MPI-IO step (then as an MPI singleton). A POSIX/stdio config run without
 * mpirun never touches MPI. Only rank 0 prints.
 */
#include "cli.h"
#include "util/fs.h"
#include "opt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "iolens/replay.h"

enum { O_ROOT = 1, O_JSON, O_DRY, O_RANKS, O_KEEP, O_COLD, O_SERIAL, O_SCHEMA, O_PRINT_CONFIG, O_CONFIG_FROM,
       O_OUTPUT, O_ALL_PATHS, O_DELAYS, O_NO_DELAYS, O_SPEED, O_LEVEL, O_H5XFER, O_H5ALIGN };
static const cli_opt optv[] = {
    {O_ROOT, 0, "root", "DIR", "directory every replayed file is created below (default: .); absolute\n"
                               "paths of the config or trace are remapped below it"},
    {O_OUTPUT, 'o', "output", "FILE", "write the results there (with --config-from: the config; default:\n"
                                      "standard output)"},
    {O_JSON, 0, "json", NULL, "the results as one JSON document instead of a table (the machine form)"},
    {O_DRY, 'n', "dry-run", NULL, "print what would be done (sizes, files, hints), touch nothing"},
    {O_RANKS, 0, "ranks", "N", "ranks a dry run plans for (default: the config's nranks)"},
    {O_KEEP, 0, "keep", NULL, "keep the files the replay created (default: remove them)"},
    {O_COLD, 0, "cold-reads", NULL, "(config) before each read step, untimed, write back and drop the page\n"
                                    "cache of the file each rank reads: reads start cold, as for data written\n"
                                    "long before (fio invalidates its files' cache before a job by default)"},
    {O_SERIAL, 0, "serial", NULL, "one process, even for several ranks (ranks in turn; a config runs\n"
                                  "with one rank)"},
    {O_SCHEMA, 0, "schema", NULL, "print the JSON Schema of the config format"},
    {O_PRINT_CONFIG, 0, "print-config", NULL, "print the config normalised (sizes in bytes)"},
    {O_CONFIG_FROM, 0, "config-from", "TRACE", "build the global-view config of an iolens trace file or a Recorder\n"
                                               "trace directory (detected by content). Files Darshan excludes\n"
                                               "(/etc/ /proc/ /sys/ /usr/ /dev/ ..., but not /dev/shm/) and the MPI\n"
                                               "runtime's session files (/tmp/ompi.*/) are left out, then the\n"
                                               "processes without reads or writes that are not MPI ranks"},
    {O_ALL_PATHS, 0, "all-paths", NULL, "with --config-from: keep every file and process; on the fly: replay\n"
                                        "every process (files under system paths are never replayed)"},
    {O_DELAYS, 0, "delays", NULL, "on the fly: reproduce the recorded gaps between calls (the program's\n"
                                  "own time between them, less the tracer's)"},
    {O_NO_DELAYS, 0, "no-delays", NULL, "on the fly: issue calls back to back (default)"},
    {O_SPEED, 0, "speed", "X", "on the fly: reproduce gaps divided by X (implies --delays)"},
    {O_LEVEL, 0, "level", "L", "a trace with HDF5 calls: hdf5 re-issues them through HDF5 and not the\n"
                               "MPI-IO and POSIX calls made inside them (on the fly: the default when\n"
                               "this build has HDF5; with --config-from: hdf5 steps of the program's own\n"
                               "HDF5 calls, with its chunks, alignment and transfer mode); io replays\n"
                               "those calls and skips the HDF5 calls (the default of --config-from)"},
    {O_H5XFER, 0, "hdf5-xfer", "M", "with --level hdf5: every dataset transfer collective or independent\n"
                                    "instead of as recorded (a what-if of the transfer property list)"},
    {O_H5ALIGN, 0, "hdf5-alignment", "A[,T]", "with --level hdf5: every file aligns its objects of at least T bytes\n"
                                              "(default 1) on multiples of A bytes (H5Pset_alignment) instead of\n"
                                              "the program's own setting"},
    {0, 0, NULL, NULL, NULL},
};

static void more(FILE *out)
{
    fprintf(out, "\nback ends: %s\nMPI-IO back end: %s\n", iolens_replay_backends(),
            iolens_replay_have_mpi() ? "yes (MPI is initialised under mpirun, or for a config with an MPI-IO "
                                       "or HDF5 step)"
                                     : "no (built without MPI)");
}

static const cli_spec spec = {
    "replay", "replay CONFIG.json [--root DIR] [--json] [--dry-run [--ranks N]] [--keep] [--cold-reads]\n"
              "replay --schema | --print-config CONFIG.json\n"
              "replay --config-from TRACE [-o CONFIG.json] [--all-paths] [--level hdf5|io]\n"
              "replay TRACE [--root DIR] [--delays | --no-delays | --speed X] [--json] [--keep]\n"
              "       [--level hdf5|io] [--hdf5-xfer collective|independent] [--hdf5-alignment A[,T]]\n"
              "mpirun -np N iolens replay CONFIG.json|TRACE --root DIR",
    "Runs the steps of a replay config (docs/REPLAY-CONFIG.md): each step is timed from the\n"
    "earliest open to the latest close across ranks (FBench Algorithm 1); or replays a trace's\n"
    "POSIX, stdio, metadata and MPI-IO calls on the fly (a TRACE: any input that is not a\n"
    "`.json` file) below --root. Under mpirun -np N (N = the trace's ranks) process r replays\n"
    "rank r. A config or trace of N > 1 ranks started without mpirun runs as `mpirun\n"
    "--oversubscribe -np N` of the same command (when mpirun is on PATH), so the ranks run at\n"
    "the same time as the traced processes did; --serial keeps one process, which replays the\n"
    "ranks in turn (MPI-IO skipped). In a trace with MPI ranks, the processes that are not MPI\n"
    "ranks and read or write no replayed file (an MPI singleton's helpers) are left out.",
    optv, NULL, more, 0};

#if defined(IOLENS_HAVE_MPI) && !defined(IOLENS_REPLAY_LEAN)
/* Path of iolens-replay beside this program, if it is there and allowed: IOLENS_REPLAY_LEAN=0
 * keeps the replay in this process, and so does `iolens trace` (its tracer would record the
 * image before and after the exec as two processes; the replay's own trace must have one per
 * rank, as the original's). */
static int lean_path(char *out, size_t cap)
{
    const char *e = getenv("IOLENS_REPLAY_LEAN");
    if ((e && !strcmp(e, "0")) || getenv("IOLENS_TRACE_DIR") || getenv("IOLENS_SHIM_SPILL"))
        return 0;
    return cli_sibling_program("iolens-replay", out, cap) == 0 && access(out, X_OK) == 0;
}

/* Replaces this process by iolens-replay with the same arguments: an MPI replay in a process
 * that has the shared libraries of an MPI application, not those of the whole toolkit (HDF5,
 * XGBoost: 52 instead of 15). Open MPI loads its MPI-IO components inside the first
 * MPI_File_open, in the replay's first timed phase, and the dynamic linker searches every
 * loaded library for their symbols: 29% more instructions in that call (callgrind), time the
 * original program does not spend (docs/REPLAY-CONFIG.md, fidelity). Returns only on failure. */
static int exec_lean(const char *path, char **argv)
{
    argv[0] = (char *)path;
    execv(path, argv);
    cli_error("cannot run '%s': %s", path, strerror(errno));
    return CLI_FAIL;
}
#endif

#ifdef IOLENS_HAVE_MPI
/* A replay of N > 1 ranks started without mpirun runs as `mpirun --oversubscribe -np N` of the
 * same command, so that the ranks run at the same time as the traced processes did (one process
 * would replay them one after the other: a two-job fio trace replayed at half its bandwidth, a
 * two-rank config with one rank and half its bytes). Not under a tracer (its trace would hold the
 * launcher), with --serial, or when mpirun is not on PATH. Returns only when it does not apply
 * or the launch failed (then 0: go on in this process). */
static int relaunch(int n, int argc, char **argv, int serial)
{
    char self[PATH_MAX], np[16], mpirun[PATH_MAX];
    if (n <= 1 || serial || cli_launched_by_mpirun() || getenv("IOLENS_TRACE_DIR") || getenv("IOLENS_SHIM_SPILL") ||
        cli_find_program("mpirun", mpirun, sizeof mpirun) < 0)
        return 0;
    if (cli_self_exe(self, sizeof self) < 0)
        return 0;
    const char *base = strrchr(self, '/');
    int lean = base && !strcmp(base + 1, "iolens-replay");
    const char **av = calloc((size_t)argc + 10, sizeof *av);
    if (!av)
        return 0;
    snprintf(np, sizeof np, "%d", n);
    int a = cli_mpirun_prefix(av, "mpirun", np);
    av[a++] = self;
    if (!lean)
        av[a++] = "replay";
    for (int i = 1; i < argc; i++)
        av[a++] = argv[i];
    av[a] = NULL;
    fflush(NULL);
    execv(mpirun, (char *const *)av);
    cli_warn("cannot run mpirun (%s): one process replays the %d ranks one after the other", strerror(errno), n);
    free(av);
    return 0;
}
#endif

static void progress_cb(void *ctx, size_t done, size_t total)
{
    cli_progress *p = ctx;
    (void)total;
    p->done = 0;
    cli_progress_step(p, (unsigned long)done);
}

static int config_from(const char *trace, const char *outpath, int all_paths, int level)
{
    iolens_evsource *src = NULL;
    iolens_replay_config *cfg = NULL;
    FILE *out = stdout;
    int status = CLI_FAIL;
    iolens_replay_gv_options gvo = {all_paths, level == IOLENS_REPLAY_LEVEL_LIBRARY ? level : 0};
    iolens_replay_gv_report rep;
    if (iolens_replay_trace_open(trace, &src) < 0 || iolens_replay_config_from_events_opts(&cfg, src, &gvo, &rep) < 0) {
        cli_lib_error();
        goto done;
    }
    if (rep.files_excluded || rep.ranks_dropped)
        cli_warn("left out %lld file(s) under system paths (as Darshan does) or of the MPI runtime, and %d of %d "
                 "process(es) without other reads or writes that are not MPI ranks; --all-paths keeps them",
                 (long long)rep.files_excluded, rep.ranks_dropped, rep.ranks_in);
    iol_atomic oa; /* the config whole or not at all (util/fs.h) */
    if (outpath && !(out = iol_atomic_fopen(&oa, outpath, "w"))) {
        out = stdout;
        cli_error("cannot write '%s': %s", outpath, strerror(errno));
        goto done;
    }
    int wrc = iolens_replay_config_write(cfg, out);
    if (wrc < 0)
        cli_lib_error();
    if (out != stdout && iol_atomic_fclose(&oa, out, wrc == 0) != 0) {
        out = stdout;
        if (wrc == 0)
            cli_error("cannot write '%s': %s", outpath, strerror(errno));
        goto done;
    }
    out = stdout;
    if (wrc < 0)
        goto done;
    status = CLI_OK;
done:
    iolens_replay_config_free(cfg);
    iolens_evsource_free(src);
    return status;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_sessions(const iolens_replay_trace_stats *st, int json)
{
    if (!json) {
        printf("replayed %d rank(s): %lld calls (%lld skipped, %lld metadata calls failed), %lld bytes written, "
               "%lld bytes read, %.3f s (the calls %.3f s)\n",
               st->nranks, (long long)st->calls, (long long)st->skipped, (long long)st->failed,
               (long long)st->bytes_written, (long long)st->bytes_read, st->seconds, st->calls_seconds);
        if (st->level == IOLENS_REPLAY_LEVEL_LIBRARY)
            printf("library level: %lld HDF5 calls re-issued through HDF5 (the calls made inside them not)\n",
                   (long long)st->library_calls);
        if (st->tracer_gap_seconds > 0)
            printf("delays: the tracer's own %.3f us per call taken off each recorded gap\n",
                   st->tracer_gap_seconds * 1e6);
        if (st->write_seconds > 0)
            printf("write: %lld bytes in %.6f s = %.1f MiB/s (earliest open to latest close)\n",
                   (long long)st->bytes_written, st->write_seconds, (double)st->bytes_written / st->write_seconds / 1048576.0);
        if (st->read_seconds > 0)
            printf("read:  %lld bytes in %.6f s = %.1f MiB/s (earliest open to latest close)\n",
                   (long long)st->bytes_read, st->read_seconds, (double)st->bytes_read / st->read_seconds / 1048576.0);
        int any = 0;
        for (int k = 0; k < IOLENS_REPLAY_NMETA; k++)
            if (st->meta_calls[k]) {
                double span = st->meta_last[k] - st->meta_first[k];
                if (!any++)
                    printf("namespace calls   %10s %12s %12s %12s %12s\n", "calls", "inside (s)", "op/s", "span (s)",
                           "op/s (span)");
                printf("  %-15s %10lld %12.6f %12.0f %12.6f %12.0f\n", iolens_replay_meta_kind_name(k),
                       (long long)st->meta_calls[k], st->meta_seconds[k],
                       st->meta_seconds[k] > 0 ? (double)st->meta_calls[k] / st->meta_seconds[k] : 0.0, span,
                       span > 0 ? (double)st->meta_calls[k] / span : 0.0);
                /* per rank when more than one made such calls (a program's phases in processes of
                 * their own: fio's jobs) */
                int with = 0;
                for (int r = 0; st->meta_rank_calls && r < st->meta_ranks; r++)
                    with += st->meta_rank_calls[(size_t)r * IOLENS_REPLAY_NMETA + (size_t)k] > 0;
                for (int r = 0; with > 1 && r < st->meta_ranks; r++) {
                    size_t x = (size_t)r * IOLENS_REPLAY_NMETA + (size_t)k;
                    double rs = st->meta_rank_last[x] - st->meta_rank_first[x];
                    if (st->meta_rank_calls[x])
                        printf("    rank %-8d %10lld %12s %12s %12.6f %12.0f\n", r, (long long)st->meta_rank_calls[x],
                               "", "", rs, rs > 0 ? (double)st->meta_rank_calls[x] / rs : 0.0);
                }
            }
        return;
    }
    double wbw = st->write_seconds > 0 ? (double)st->bytes_written / st->write_seconds : 0;
    double rbw = st->read_seconds > 0 ? (double)st->bytes_read / st->read_seconds : 0;
    printf("{\"ranks\": %d, \"calls\": %lld, \"skipped\": %lld, \"bytes_written\": %lld, \"bytes_read\": %lld, "
           "\"seconds\": %.6f, \"calls_seconds\": %.6f, \"failed\": %lld, \"refused\": %lld, "
           "\"write_seconds\": %.6f, \"read_seconds\": %.6f, "
           "\"write_bandwidth_bytes_per_s\": %.1f, \"read_bandwidth_bytes_per_s\": %.1f, "
           "\"tracer_gap_seconds\": %.9f, \"level\": \"%s\", \"library_calls\": %lld,",
           st->nranks, (long long)st->calls, (long long)st->skipped, (long long)st->bytes_written,
           (long long)st->bytes_read, st->seconds, st->calls_seconds, (long long)st->failed, (long long)st->refused,
           st->write_seconds, st->read_seconds, wbw, rbw, st->tracer_gap_seconds,
           st->level == IOLENS_REPLAY_LEVEL_LIBRARY ? "hdf5" : "io", (long long)st->library_calls);
    printf("\n \"metadata\": [");
    for (int k = 0, n = 0; k < IOLENS_REPLAY_NMETA; k++)
        if (st->meta_calls[k])
        {
            double span = st->meta_last[k] - st->meta_first[k];
            printf("%s{\"call\": \"%s\", \"calls\": %lld, \"seconds\": %.9f, \"ops_per_s\": %.1f, "
                   "\"first\": %.9f, \"last\": %.9f, \"span_seconds\": %.9f, \"span_ops_per_s\": %.1f, \"ranks\": [",
                   n++ ? ", " : "", iolens_replay_meta_kind_name(k), (long long)st->meta_calls[k], st->meta_seconds[k],
                   st->meta_seconds[k] > 0 ? (double)st->meta_calls[k] / st->meta_seconds[k] : 0.0,
                   st->meta_first[k], st->meta_last[k], span, span > 0 ? (double)st->meta_calls[k] / span : 0.0);
            for (int r = 0, m = 0; st->meta_rank_calls && r < st->meta_ranks; r++) {
                size_t x = (size_t)r * IOLENS_REPLAY_NMETA + (size_t)k;
                double rs = st->meta_rank_last[x] - st->meta_rank_first[x];
                if (st->meta_rank_calls[x])
                    printf("%s{\"rank\": %d, \"calls\": %lld, \"span_seconds\": %.9f, \"span_ops_per_s\": %.1f}",
                           m++ ? ", " : "", r, (long long)st->meta_rank_calls[x], rs,
                           rs > 0 ? (double)st->meta_rank_calls[x] / rs : 0.0);
            }
            printf("]}");
        }
    printf("],\n \"sessions\": [");
    for (size_t i = 0; i < st->nsessions; i++) {
        const iolens_replay_session *x = &st->sessions[i];
        printf("%s\n  {\"rank\": %d, \"path\": ", i ? "," : "", x->rank);
        json_str(x->path ? x->path : "");
        printf(", \"open\": %.6f, \"close\": %.6f, \"bytes_read\": %lld, \"bytes_written\": %lld}", x->open,
               x->close, (long long)x->bytes_read, (long long)x->bytes_written);
    }
    printf("]}\n");
}

/* The library-level choices of an on-the-fly replay (--level, --hdf5-*). */
struct h5_choice {
    int level, xfer;
    int64_t align_threshold, align;
};

/* What a replay stopped by SIGINT or SIGTERM (cli_catch_stop) says. */
static void stopped_message(int keep)
{
    cli_error("interrupted (%s): the replay stopped%s", cli_stop == SIGINT ? "SIGINT" : "SIGTERM",
              keep ? "; what it created is kept (--keep)" : " and removed what it had created");
}

static int on_the_fly(const char *trace, const char *root, int delays, double speed, int keep, int json,
                      int all_paths, int argc, char **argv, int serial, const struct h5_choice *hc,
                      const char *outpath)
{
    iolens_evsource *src = NULL;
    if (iolens_replay_trace_open(trace, &src) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    int use_mpi = 0, rank = 0, size = 1;
    (void)argc;
    (void)serial;
#ifdef IOLENS_HAVE_MPI
    if (!serial && !cli_launched_by_mpirun()) {
        int n = iolens_replay_trace_ranks(src, all_paths);
        if (n < 0) {
            cli_lib_error();
            iolens_evsource_free(src);
            return CLI_FAIL;
        }
        if (n > 1) {
            iolens_evsource_free(src);
            relaunch(n, argc, argv, serial);
            if (iolens_replay_trace_open(trace, &src) < 0) {
                cli_lib_error();
                return CLI_FAIL;
            }
        }
    }
    int needs = cli_launched_by_mpirun() ? 1 : iolens_replay_trace_needs_mpi(src);
    if (needs < 0) {
        cli_lib_error();
        iolens_evsource_free(src);
        return CLI_FAIL;
    }
#ifndef IOLENS_REPLAY_LEAN
    char lean[PATH_MAX];
    /* the lean program has no HDF5: kept for the replays that do not re-issue HDF5 calls */
    int h5 = needs && hc->level != IOLENS_REPLAY_LEVEL_IO && iolens_replay_has_hdf5() ? iolens_replay_trace_has_hdf5(src) : 0;
    if (h5 < 0) {
        cli_lib_error();
        iolens_evsource_free(src);
        return CLI_FAIL;
    }
    if (needs && !h5 && lean_path(lean, sizeof lean)) {
        iolens_evsource_free(src);
        return exec_lean(lean, argv);
    }
#endif
    if (needs) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        use_mpi = 1;
    }
#endif
    iolens_replay_trace_options opt = {root,      delays,   speed,    keep,     -1,           rank == 0 ? cli_warn_cb : NULL,
                                       NULL,      use_mpi,  all_paths, hc->level, hc->xfer, hc->align_threshold,
                                       hc->align, &cli_stop};
    iolens_replay_trace_stats st;
    cli_catch_stop(); /* SIGINT, SIGTERM: the replay stops and removes what it created */
    int rc = iolens_replay_trace_run(src, &opt, &st);
    cli_release_stop();
    int status = CLI_OK;
    if (rc == IOLENS_EINTR) {
        status = CLI_FAIL;
        if (rank == 0)
            stopped_message(keep);
    } else if (rc < 0) {
        status = CLI_FAIL;
        if (rank == 0 || !st.prepare_failed) {
            if (size > 1 && !st.prepare_failed)
                cli_error("rank %d: %s", rank, iolens_error_last());
            else
                cli_lib_error();
        }
#ifdef IOLENS_HAVE_MPI
        if (size > 1 && !st.prepare_failed) /* other ranks may wait in a collective call */
            MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    } else if (rank == 0) {
        if (cli_output_to(outpath) < 0)
            status = CLI_FAIL;
        else
            print_sessions(&st, json);
    }
    iolens_replay_trace_stats_release(&st);
    iolens_evsource_free(src);
#ifdef IOLENS_HAVE_MPI
    if (use_mpi)
        MPI_Finalize();
#endif
    return status;
}

int cmd_replay(int argc, char **argv)
{
    const char *config = NULL, *root = ".", *trace = NULL;
    const char *outpath = NULL;
    int json = 0, dry = 0, keep = 0, ranks = 0, print_config = 0, delays = 0, all_paths = 0, cold = 0, serial = 0;
    double speed = 1.0;
    struct h5_choice hc = {IOLENS_REPLAY_LEVEL_AUTO, 0, 0, 0};
    int h5_opts = 0;
    static const char *const levels[] = {"hdf5", "io", NULL};
    static const char *const xfers[] = {"collective", "independent", NULL};
    cli_args p;
    cli_args_init(&p, &spec, argc, argv);
    int id, k;
    long nv;
    while ((id = cli_next(&p)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_DRY: dry = 1; break;
        case O_KEEP: keep = 1; break;
        case O_COLD: cold = 1; break;
        case O_SERIAL: serial = 1; break;
        case O_DELAYS: delays = 1; break;
        case O_NO_DELAYS: delays = 0; break;
        case O_ALL_PATHS: all_paths = 1; break;
        case O_PRINT_CONFIG: print_config = 1; break;
        case O_SCHEMA: return iolens_replay_schema_write(stdout) == 0 ? CLI_OK : CLI_FAIL;
        case O_ROOT: root = p.val; break;
        case O_LEVEL:
            if (cli_val_choice(&p, levels, &k) < 0)
                return CLI_USAGE;
            hc.level = k == 0 ? IOLENS_REPLAY_LEVEL_LIBRARY : IOLENS_REPLAY_LEVEL_IO;
            break;
        case O_H5XFER:
            if (cli_val_choice(&p, xfers, &k) < 0)
                return CLI_USAGE;
            hc.xfer = k == 0 ? 2 : 1;
            h5_opts = 1;
            break;
        case O_H5ALIGN: {
            char *end;
            const char *v = p.val;
            long long al = strtoll(v, &end, 10), th = 1;
            if (*end == ',')
                th = strtoll(end + 1, &end, 10);
            if (!*v || *end || al < 1 || al > (1LL << 40) || th < 1 || th > (1LL << 40))
                return cli_usage_error(&spec, "--hdf5-alignment wants A or A,T (bytes, 1 to 2^40), not '%s'", v),
                       CLI_USAGE;
            hc.align = al;
            hc.align_threshold = th;
            h5_opts = 1;
            break;
        }
        case O_CONFIG_FROM: trace = p.val; break;
        case O_OUTPUT: outpath = p.val; break;
        case O_SPEED:
            if (cli_val_double(&p, 1e-9, 1e6, &speed) < 0)
                return CLI_USAGE;
            delays = 1;
            break;
        case O_RANKS:
            if (cli_val_long(&p, 1, 1048576, &nv) < 0)
                return CLI_USAGE;
            ranks = (int)nv;
            break;
        }
    }
    if (id == CLI_OPT_END)
        id = cli_want_operands(&p, trace ? 0 : 1, trace ? 0 : 1, "CONFIG.json|TRACE");
    if (id < 0)
        return cli_args_exit(&p, id);
    config = trace ? NULL : p.operands[0];
    if (trace)
        return config_from(trace, outpath, all_paths, hc.level);
    size_t len = strlen(config);
    int otf = len < 5 || strcmp(config + len - 5, ".json");
    if (h5_opts && (!otf || hc.level == IOLENS_REPLAY_LEVEL_IO)) {
        return cli_usage_error(&spec, "--hdf5-xfer and --hdf5-alignment go with the library level of an "
                                      "on-the-fly replay (a TRACE, not --level io)"), CLI_USAGE;
    }
    if (otf && h5_opts && !iolens_replay_has_hdf5()) {
        cli_error("--hdf5-xfer and --hdf5-alignment need a build with parallel HDF5");
        return CLI_USAGE;
    }
    if (otf)
        return on_the_fly(config, root, delays, speed, keep, json, all_paths, argc, argv, serial, &hc, outpath);
    if (all_paths)
        return cli_usage_error(&spec, "--all-paths goes with --config-from or a trace"), CLI_USAGE;
    iolens_replay_config *cfg = NULL;
    if (iolens_replay_config_load(&cfg, config) < 0) {
        cli_lib_error();
        return CLI_FAIL;
    }
    if (print_config) {
        int rc = iolens_replay_config_write(cfg, stdout);
        iolens_replay_config_free(cfg);
        return rc == 0 ? CLI_OK : CLI_FAIL;
    }
    int use_mpi = 0, rank = 0;
#ifdef IOLENS_HAVE_MPI
    if (!dry && !ranks && iolens_replay_config_nranks(cfg) > 1) {
        int n = iolens_replay_config_nranks(cfg);
        iolens_replay_config_free(cfg);
        cfg = NULL;
        relaunch(n, argc, argv, serial);
        if (iolens_replay_config_load(&cfg, config) < 0) {
            cli_lib_error();
            return CLI_FAIL;
        }
    }
    if (!dry && (cli_launched_by_mpirun() || iolens_replay_config_needs_mpi(cfg))) {
#ifndef IOLENS_REPLAY_LEAN
        char lean[PATH_MAX];
        if (!iolens_replay_config_needs_hdf5(cfg) && lean_path(lean, sizeof lean)) {
            iolens_replay_config_free(cfg);
            return exec_lean(lean, argv);
        }
#endif
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        use_mpi = 1;
    }
#else
    if (!dry && cli_launched_by_mpirun())
        cli_warn("launched by mpirun but this iolens has no MPI: every process runs the whole config as rank 0");
#endif
    cli_progress prog;
    cli_progress_init(&prog, "replay", (unsigned long)iolens_replay_config_count(cfg));
    iolens_replay_options opt = {root, dry, ranks, keep, use_mpi, cli_warn_cb, NULL, progress_cb, &prog, cold, &cli_stop};
    iolens_replay_result *res = NULL;
    cli_catch_stop(); /* SIGINT, SIGTERM: the replay stops and removes what it created */
    int rc = iolens_replay_run(&res, cfg, &opt);
    cli_release_stop();
    if (rank == 0)
        cli_progress_end(&prog);
    int status = CLI_OK;
    if (rc == IOLENS_EINTR) {
        status = CLI_FAIL;
        if (rank == 0)
            stopped_message(keep);
    } else if (rc < 0) {
        cli_lib_error();
        status = CLI_FAIL;
    } else if (rank == 0 && cli_output_to(outpath) < 0) {
        status = CLI_FAIL;
    } else if (rank == 0) {
        if (json)
            iolens_replay_result_write_json(res, stdout, 1);
        else
            iolens_replay_result_write_table(res, stdout);
        for (size_t i = 0; i < iolens_replay_result_count(res); i++) {
            iolens_replay_step_stats st;
            iolens_replay_result_step(res, i, &st);
            if (st.verify_errors) {
                cli_error("step '%s': %lld bytes read back differ from the written pattern", st.name,
                          (long long)st.verify_errors);
                status = CLI_FAIL;
            }
        }
    }
    iolens_replay_result_free(res);
    iolens_replay_config_free(cfg);
#ifdef IOLENS_HAVE_MPI
    if (use_mpi) {
        MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Finalize();
    }
#endif
    return status;
}
