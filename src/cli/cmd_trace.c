/* iolens trace: run a command under the preload shim and build its trace;
 * print or summarise a trace. */
#define _GNU_SOURCE
#include "util/fs.h"
#include "cli.h"
#include "opt.h"

#include "darshan_from.h"
#include "iolens/counters.h"

#include "iolens/event.h"
#include "iolens/trace.h"
#include "trace/funcs.h"
#include "util/jsonw.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { O_OUTPUT = 1, O_DARSHAN, O_DARSHAN_ALL, O_LAYERS, O_RES, O_PRINT, O_INFO, O_BUILD, O_MERGE, O_JSON, O_RANK,
       O_NO_COMPRESS, O_REMOVE_SPILL, O_SPILL_MAX };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "the trace to write (default iolens.trace); with --print and --info, where\n"
                                      "to print (-: standard output, the default)"},
    {O_DARSHAN, 0, "darshan", "LOG", "also write a Darshan log (3.41) of the run, computed from the trace;\n"
                                     "without -o the trace is kept next to it as LOG.trace; files under /dev/\n"
                                     "(incl. /dev/shm), /proc/, /etc/, /usr/, ... are skipped as Darshan does"},
    {O_DARSHAN_ALL, 0, "darshan-all-paths", NULL, "keep those files in the Darshan log too"},
    {O_LAYERS, 0, "layers", "LIST", "the layers to trace, of posix,stdio,mpiio,hdf5,pnetcdf,netcdf (default all)"},
    {O_RES, 0, "resolution", "NS", "timestamp resolution in nanoseconds, 1 to 1000000000 (default 1000)"},
    {O_SPILL_MAX, 0, "spill-max", "SIZE", "stop tracing a process whose spill reaches SIZE (e.g. 2G; default none:\n"
                                          "a spill always leaves its file system a twentieth free and 128 MiB)"},
    {O_PRINT, 0, "print", NULL, "print the calls of TRACE: one line each, as the C call with its arguments"},
    {O_INFO, 0, "info", NULL, "print the sizes of TRACE's sections, its processes and the tracer's cost"},
    {O_JSON, 0, "json", NULL, "with --print: JSON Lines, one object per call (the form of `iolens view\n"
                              "--json`); with --info: one JSON document"},
    {O_RANK, 0, "rank", "N", "with --print: only process N"},
    {O_BUILD, 0, "build", NULL, "build the trace of a spill folder (SPILL_DIR) left by a run"},
    {O_REMOVE_SPILL, 0, "remove-spill", NULL, "with --build: remove SPILL_DIR once the trace is written"},
    {O_MERGE, 0, "merge", NULL, "merge traces (TRACE...) of one job's parts into one"},
    {O_NO_COMPRESS, 0, "no-compress", NULL, "store sections without zstd (to inspect or fuzz the format)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "trace", "trace [-o TRACE] [--darshan LOG] [--layers LIST] [--resolution NS] [--spill-max SIZE] [--] COMMAND [ARGS...]\n"
             "trace --print [--json] [--rank N] [-o FILE] TRACE\n"
             "trace --info [--json] [-o FILE] TRACE\n"
             "trace --build [--remove-spill] -o TRACE SPILL_DIR\n"
             "trace --merge -o TRACE TRACE...",
    "Runs COMMAND with the iolens shim preloaded and writes one trace file (default iolens.trace)\n"
    "holding every POSIX, stdio, MPI-IO, HDF5, PnetCDF and NetCDF call of every process (forked\n"
    "children included). COMMAND's own options are its own: the first operand starts it (or put\n"
    "`--` before it). The exit status is COMMAND's, whatever becomes of the trace (a trace that\n"
    "cannot be written whole is said in a warning).\n"
    "MPI: `mpirun -np N iolens trace -o T -- app` (one trace for all ranks), or\n"
    "`mpirun -x LD_PRELOAD=libiolens_shim.so -x IOLENS_TRACE_OUT=T app` (rank 0 builds T\n"
    "at MPI_Finalize). IOLENS_SHIM overrides the shim's location.",
    optv, NULL, NULL, 1};

/* ---- locating the shim ---- */
static int find_shim(char *out, size_t n)
{
    const char *env = getenv("IOLENS_SHIM");
    if (env && *env) {
        if (access(env, R_OK))
            return -1;
        snprintf(out, n, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    if (cli_self_exe(exe, sizeof exe) < 0)
        return -1;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *rel[] = {"libiolens_shim.so", "../shim/libiolens_shim.so", "../lib/libiolens_shim.so",
                         "src/shim/libiolens_shim.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
        char real[PATH_MAX];
        if (!access(cand, R_OK) && realpath(cand, real)) {
            snprintf(out, n, "%s", real);
            return 0;
        }
    }
    return -1;
}

static int raw_sections;

/* Builds the trace of a spill folder. On failure the spill folder is kept
 * (it holds every call the program made) and the user is told how to
 * build the trace again. */
/* after_program: the trace of a program that ran (iolens trace -- CMD): a trace that cannot be
 * written is a warning, and the command's exit status is the program's */
static int build_after_program;

static int build(const char *spill, const char *out, uint64_t res, int quiet)
{
    iolens_trace_build_opts o = {res, raw_sections ? -1 : 0};
    iolens_trace_stats st;
    memset(&st, 0, sizeof st);
    char warn[2048];
    if (iolens_trace_build(spill, out, &o, &st)) {
        if (build_after_program)
            cli_warn("no trace written (the program's exit status is kept): %s", iolens_error_last());
        else
            cli_lib_error();
        int code = iolens_error_last_code();
        if (iolens_trace_build_warnings(&st, warn, sizeof warn))
            for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
                cli_warn("%s", line);
        if (code != IOLENS_ENOTFOUND)
            fprintf(stderr, "iolens: the spill folder '%s' is kept: build the trace again with "
                            "`iolens trace --build %s -o TRACE`\n", spill, spill);
        return CLI_FAIL;
    }
    if (!quiet)
        fprintf(stderr, "iolens: wrote '%s': %" PRIu64 " calls of %" PRIu64 " process(es), %" PRIu64 " bytes\n", out,
                st.ncalls, st.nprocs, st.bytes_total);
    if (iolens_trace_build_warnings(&st, warn, sizeof warn))
        for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
            cli_warn("%s", line);
    return CLI_OK;
}

/* --darshan: the Darshan log of the built trace (Darshan's defaults; exe, uid and job id those
 * the trace recorded of its first process, as the runtime writes them). */
static int darshan_all_paths;

static int write_darshan(const char *trace, const char *log)
{
    iolens_counters_opts o;
    iolens_counters_opts_init(&o);
    o.all_paths = darshan_all_paths;
    return iol_darshan_from_write(trace, log, &o, 0) < 0 ? CLI_FAIL : CLI_OK;
}

static const char *env_rank(const char **size)
{
    const char *rk[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    const char *sz[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"};
    for (int i = 0; i < 3; i++)
        if (getenv(rk[i]) && getenv(sz[i])) {
            *size = getenv(sz[i]);
            return getenv(rk[i]);
        }
    return NULL;
}

/* Under mpirun every rank runs `iolens trace`: they share one spill folder
 * next to the output, and the last rank to finish builds the trace. */
static int mpi_finish(const char *spill, const char *out, const char *rank, const char *size, uint64_t res,
                      const char *darshan, char **cmd)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/done.%s", spill, rank);
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    long want = strtol(size, NULL, 10), have = 0;
    DIR *d = opendir(spill);
    struct dirent *e;
    while (d && (e = readdir(d)))
        have += !strncmp(e->d_name, "done.", 5);
    if (d)
        closedir(d);
    if (have < want)
        return CLI_OK;
    snprintf(p, sizeof p, "%s/build.lock", spill);
    fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0)
        return CLI_OK; /* another rank builds it */
    close(fd);
    int rc = build(spill, out, res, 0);
    if (rc == CLI_OK) {
        /* Move the folder aside before emptying it: a rank still between its count of the done
         * files and its try at build.lock would otherwise take the lock once build.lock is gone
         * and find no spill files (seen with 2 ranks). After the rename its open fails (ENOENT). */
        char gone[PATH_MAX + 64];
        snprintf(gone, sizeof gone, "%s.built.%ld", spill, (long)getpid());
        iolens_trace_remove_spill(rename(spill, gone) == 0 ? gone : spill);
    }
    if (rc == CLI_OK && darshan) /* only the rank that built the trace */
        rc = write_darshan(out, darshan);
    return rc;
}

/* The launcher's job id (Open MPI / PMIx, Slurm), file-name safe; "" if none. */
static void mpi_job_id(char *out, size_t n)
{
    const char *v[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "SLURM_JOB_ID"};
    const char *job = NULL;
    for (size_t i = 0; i < sizeof v / sizeof v[0] && !job; i++)
        if (getenv(v[i]) && *getenv(v[i]))
            job = getenv(v[i]);
    size_t k = 0;
    for (; job && *job && k + 1 < n; job++)
        out[k++] = (*job >= '0' && *job <= '9') || (*job >= 'a' && *job <= 'z') || (*job >= 'A' && *job <= 'Z') ||
                           *job == '-' || *job == '.'
                       ? *job
                       : '_';
    const char *step = getenv("SLURM_STEP_ID");
    if (job == NULL && step && *step && k + 2 < n) {
        out[k++] = '.';
        for (; *step && k + 1 < n; step++)
            out[k++] = (*step >= '0' && *step <= '9') ? *step : '_';
    }
    out[k] = 0;
}

static int spill_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

/* Is the command a statically linked ELF program (no program interpreter,
 * so LD_PRELOAD is never applied)? why gets "'PATH' is statically linked". */
static int static_program(const char *cmd, char *why, size_t n)
{
    char path[PATH_MAX];
    if (cli_find_program(cmd, path, sizeof path) < 0)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    unsigned char eh[64];
    ssize_t got = pread(fd, eh, sizeof eh, 0);
    int stat_elf = 0;
    if (got == (ssize_t)sizeof eh && !memcmp(eh, "\177ELF", 4) && eh[4] == 2 /* 64-bit */ && eh[5] == 1 /* LE */) {
        uint64_t phoff;
        uint16_t phentsize, phnum;
        memcpy(&phoff, eh + 32, 8);
        memcpy(&phentsize, eh + 54, 2);
        memcpy(&phnum, eh + 56, 2);
        int interp = 0;
        for (unsigned k = 0; k < phnum && phentsize >= 4 && k < 4096; k++) {
            uint32_t type;
            if (pread(fd, &type, 4, (off_t)(phoff + (uint64_t)k * phentsize)) != 4)
                break;
            interp |= type == 3; /* PT_INTERP */
        }
        stat_elf = !interp;
    }
    close(fd);
    if (stat_elf)
        snprintf(why, n, "'%s' is statically linked", path);
    return stat_elf;
}

/* SIGTERM/SIGHUP sent to `iolens trace` (e.g. by mpirun after MPI_Abort) go
 * to the traced program, which flushes its trace and dies; we then still
 * build the trace. */
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static int run(const char *out, const char *layers, uint64_t res, const char *darshan, char **cmd)
{
    char shim[PATH_MAX];
    if (find_shim(shim, sizeof shim)) {
        cli_error("cannot find libiolens_shim.so next to the iolens program (set IOLENS_SHIM)");
        return CLI_FAIL;
    }
    const char *wsize = NULL, *rank = env_rank(&wsize);
    char spill[PATH_MAX];
    if (strlen(out) + 16 > sizeof spill) {
        cli_error("output path too long: '%s'", out);
        return CLI_FAIL;
    }
    if (rank) {
        /* one folder per job: a killed earlier run's folder is never counted in */
        char job[128];
        mpi_job_id(job, sizeof job);
        if ((size_t)snprintf(spill, sizeof spill, "%s.spill%s%s", out, job[0] ? "." : "", job) >= sizeof spill)
            return CLI_FAIL;
        if (mkdir(spill, 0755) && errno != EEXIST) {
            cli_error("cannot create '%s': %s", spill, strerror(errno));
            return CLI_FAIL;
        }
        char done[PATH_MAX + 64];
        snprintf(done, sizeof done, "%s/done.%s", spill, rank);
        if (!access(done, F_OK)) {
            cli_error("'%s' is left from an earlier run (rank %s already finished there): remove it, or build "
                      "its trace with `iolens trace --build %s -o TRACE`", spill, rank, spill);
            return CLI_FAIL;
        }
    } else {
        if ((size_t)snprintf(spill, sizeof spill, "%s.spill.XXXXXX", out) >= sizeof spill)
            return CLI_FAIL;
        if (!mkdtemp(spill)) {
            cli_error("cannot create a spill folder next to '%s': %s", out, strerror(errno));
            return CLI_FAIL;
        }
    }
    char abs_spill[PATH_MAX];
    if (!realpath(spill, abs_spill))
        snprintf(abs_spill, sizeof abs_spill, "%s", spill);
    const char *old = getenv("LD_PRELOAD");
    size_t pl = strlen(shim) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(pl);
    if (!preload) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    snprintf(preload, pl, "%s%s%s", shim, old && *old ? ":" : "", old ? old : "");
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("cannot start '%s': %s", cmd[0], strerror(errno));
        free(preload);
        return CLI_FAIL;
    }
    if (pid == 0) {
        setenv("LD_PRELOAD", preload, 1);
        setenv("IOLENS_TRACE_DIR", abs_spill, 1);
        if (layers)
            setenv("IOLENS_LAYERS", layers, 1);
        execvp(cmd[0], cmd);
        fprintf(stderr, "iolens: error: cannot run '%s': %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    free(preload);
    /* the traced program owns the terminal's signals; we wait for it */
    child_pid = pid;
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    struct sigaction fw;
    memset(&fw, 0, sizeof fw);
    fw.sa_handler = forward_signal;
    sigemptyset(&fw.sa_mask);
    sigaction(SIGTERM, &fw, NULL);
    sigaction(SIGHUP, &fw, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!rank && spill_is_empty(abs_spill)) { /* the shim never ran in the program */
        char why[PATH_MAX + 128];
        if (static_program(cmd[0], why, sizeof why)) {
            cli_warn("%s: the tracer cannot be loaded into it; no trace was written", why);
            rmdir(abs_spill);
            if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
            return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAIL;
        }
    }
    build_after_program = 1;
    int rc = rank ? mpi_finish(spill, out, rank, wsize, res, darshan, cmd) : build(spill, out, res, 0);
    if (!rank && rc == CLI_OK)
        iolens_trace_remove_spill(spill);
    else if (!rank && spill_is_empty(abs_spill))
        rmdir(abs_spill);
    if (!rank && rc == CLI_OK && darshan)
        rc = write_darshan(out, darshan);
    /* (no trace, or none whole: said above; the status is the program's, as untraced) */
    if (WIFSIGNALED(status)) {
        cli_warn("'%s' was killed by signal %d", cmd[0], WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAIL;
}

/* ---- printing ---- */
typedef struct slot_names {
    const char *prefix;
    const char *n[4];
} slot_names;

static const slot_names slots[] = {
    {"openat", {"flags", "mode", "dirfd", NULL}},
    {"open", {"flags", "mode", NULL, NULL}},
    {"creat", {"flags", "mode", NULL, NULL}},
    {"mkstemp", {"flags", "mode", NULL, NULL}},
    {"mkostemp", {"flags", "mode", NULL, NULL}},
    {"mkstemps", {"flags", "mode", NULL, NULL}},
    {"mkostemps", {"flags", "mode", NULL, NULL}},
    {"fstatat", {NULL, NULL, "dirfd", "flags"}},
    {"__xstat", {NULL, NULL, NULL, "ver"}},
    {"__lxstat", {NULL, NULL, NULL, "ver"}},
    {"__fxstat", {NULL, NULL, NULL, "ver"}},
    {"MPI_Init_thread", {NULL, NULL, "rank", "size"}},
    {"readv", {NULL, "size", "iovcnt", NULL}},
    {"writev", {NULL, "size", "iovcnt", NULL}},
    {"preadv", {"off", "size", "iovcnt", NULL}},
    {"preadv2", {"off", "size", "iovcnt", "flags"}},
    {"pwritev2", {"off", "size", "iovcnt", "flags"}},
    {"pwritev", {"off", "size", "iovcnt", NULL}},
    {"pread", {"off", "size", NULL, NULL}},
    {"pwrite", {"off", "size", NULL, NULL}},
    {"read", {NULL, "size", NULL, NULL}},
    {"write", {NULL, "size", NULL, NULL}},
    {"lseek", {"off", NULL, "whence", NULL}},
    {"ftruncate", {NULL, "length", NULL, NULL}},
    {"fallocate", {"off", "len", "flags", NULL}},
    {"posix_fallocate", {"off", "len", NULL, NULL}},
    {"posix_fadvise", {"off", "len", "advice", NULL}},
    {"copy_file_range", {"off", "len", NULL, "from_off"}}, /* off, from_off: -1 the file position */
    {"splice", {"off", "len", NULL, "from_off"}},
    {"sendfile", {NULL, "count", NULL, "from_off"}},
    {"statx", {NULL, "mask", "dirfd", "flags"}},
    {"access", {NULL, "mode", NULL, NULL}},
    {"mkdir", {NULL, "mode", NULL, NULL}},
    {"mkdirat", {NULL, "mode", "dirfd", NULL}},
    {"unlinkat", {NULL, NULL, "dirfd", "flags"}},
    {"faccessat", {NULL, "mode", "dirfd", "flags"}},
    {"renameat", {NULL, "olddirfd", NULL, "newdirfd"}},
    {"truncate", {NULL, "length", NULL, NULL}},
    {"chmod", {NULL, "mode", NULL, NULL}},
    {"fchmod", {NULL, "mode", NULL, NULL}},
    {"fchmodat", {NULL, "mode", "dirfd", "flags"}},
    {"chown", {NULL, "owner", "group", NULL}},
    {"lchown", {NULL, "owner", "group", NULL}},
    {"fchown", {NULL, "owner", "group", NULL}},
    {"fchownat", {"dirfd", "owner", "group", "flags"}},
    {"utime", {NULL, "times", NULL, NULL}},
    {"utimes", {NULL, "times", NULL, NULL}},
    {"utimensat", {NULL, "times", "dirfd", "flags"}},
    {"futimens", {NULL, "times", NULL, NULL}},
    {"linkat", {"flags", "olddirfd", NULL, "newdirfd"}},
    {"symlinkat", {NULL, NULL, NULL, "newdirfd"}},
    {"readlink", {NULL, "bufsiz", NULL, NULL}},
    {"readlinkat", {NULL, "bufsiz", "dirfd", NULL}},
    {"renameat2", {"flags", "olddirfd", NULL, "newdirfd"}},
    {"dup2", {NULL, NULL, "newfd", NULL}},
    {"iolens_fd_at_start", {"flags", "position", NULL, NULL}},
    {"iolens_fd_at_fork", {"flags", "position", NULL, NULL}},
    {"dup3", {NULL, NULL, "newfd", "flags"}},
    {"fcntl", {NULL, NULL, "cmd", "arg"}},
    {"mmap", {"off", "len", "prot", "flags"}},
    {"msync", {NULL, "len", "flags", NULL}},
    {"fopen", {"flags", NULL, NULL, NULL}},
    {"fdopen", {"flags", NULL, NULL, NULL}},
    {"freopen", {"flags", NULL, NULL, NULL}},
    {"fread", {NULL, NULL, "size", "nmemb"}},
    {"fwrite", {NULL, NULL, "size", "nmemb"}},
    {"fprintf", {NULL, "size", NULL, NULL}},
    {"vfprintf", {NULL, "size", NULL, NULL}},
    {"fputs", {NULL, "size", NULL, NULL}},
    {"printf", {NULL, "size", NULL, NULL}},
    {"vprintf", {NULL, "size", NULL, NULL}},
    {"puts", {NULL, "size", NULL, NULL}},
    {"putchar", {NULL, NULL, "c", NULL}},
    {"fgets", {NULL, "n", NULL, NULL}},
    {"getline", {NULL, "n", NULL, NULL}},
    {"getdelim", {NULL, "n", "delim", NULL}},
    {"fputc", {NULL, NULL, "c", NULL}},
    {"putc", {NULL, NULL, "c", NULL}},
    {"fscanf", {NULL, "size", NULL, NULL}},
    {"fseek", {"off", NULL, "whence", "at"}},
    {"fseeko", {"off", NULL, "whence", "at"}},
    {"fseeko64", {"off", NULL, "whence", "at"}},
    {"fsetpos", {"pos", NULL, "whence", NULL}},
    {"fsetpos64", {"pos", NULL, "whence", NULL}},
    {"fgetpos", {"pos", NULL, NULL, NULL}},
    {"fgetpos64", {"pos", NULL, NULL, NULL}},
    {"getw", {NULL, "size", "moved", NULL}},
    {"putw", {NULL, "size", "moved", "w"}},
    {"MPI_File_read_at", {"off", "size", "typesize", "count"}},
    {"MPI_File_read_at_all", {"off", "size", "typesize", "count"}},
    {"MPI_File_write_at_all", {"off", "size", "typesize", "count"}},
    {"MPI_File_read_all", {NULL, "size", "typesize", "count"}},
    {"MPI_File_write_all", {NULL, "size", "typesize", "count"}},
    {"MPI_File_read_shared", {NULL, "size", "typesize", "count"}},
    {"MPI_File_write_shared", {NULL, "size", "typesize", "count"}},
    {"MPI_File_read_ordered", {NULL, "size", "typesize", "count"}},
    {"MPI_File_write_ordered", {NULL, "size", "typesize", "count"}},
    {"MPI_File_seek_shared", {"off", NULL, "whence", NULL}},
    {"MPI_File_write_at", {"off", "size", "typesize", "count"}},
    {"MPI_File_iread_at", {"off", "size", "typesize", "count"}},
    {"MPI_File_iwrite_at", {"off", "size", "typesize", "count"}},
    {"MPI_File_read", {NULL, "size", "typesize", "count"}},
    {"MPI_File_write", {NULL, "size", "typesize", "count"}},
    {"MPI_File_iread", {NULL, "size", "typesize", "count"}},
    {"MPI_File_iwrite", {NULL, "size", "typesize", "count"}},
    {"MPI_File_open", {"amode", NULL, "comm_size", NULL}},
    {"MPI_File_seek", {"off", NULL, "whence", NULL}},
    {"MPI_File_set_size", {NULL, "size", NULL, NULL}},
    {"MPI_File_preallocate", {NULL, "size", NULL, NULL}},
    {"MPI_File_set_view", {"disp", NULL, "etype_size", "filetype_size"}},
    {"MPI_Init", {NULL, NULL, "rank", "size"}},
};

/* Exact name, or the function's whose slots it shares (pwrite64 is pwrite, fread_unlocked
 * fread: iol_func_slots_of). */
static const slot_names *names_of(const char *func)
{
    char buf[64];
    const char *base = iol_func_slots_of(func, buf, sizeof buf);
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (!strcmp(base, slots[i].prefix))
            return &slots[i];
    static const slot_names mpi_at = {"", {"off", "size", "typesize", "count"}};
    static const slot_names mpi = {"", {NULL, "size", "typesize", "count"}};
    static const slot_names mpi_wait = {"", {NULL, NULL, NULL, "requests"}};
    static const slot_names mpi_test = {"", {NULL, NULL, "done", "requests"}};
    if (!strncmp(func, "MPI_File_", 9) && (strstr(func, "read") || strstr(func, "write")))
        return strstr(func, "_at") && !strstr(func, "_end") ? &mpi_at : &mpi;
    if (!strcmp(func, "MPI_Wait") || !strcmp(func, "MPI_Waitall"))
        return &mpi_wait;
    if (!strncmp(func, "MPI_Wait", 8) || !strncmp(func, "MPI_Test", 8))
        return &mpi_test;
    return NULL;
}

static const char *path_of(const iolens_file *files, size_t nfiles, int64_t id)
{
    return (id >= 0 && (size_t)id < nfiles) ? files[id].path : NULL;
}

static void print_text(const iolens_event *ev, int32_t fd, const int64_t *a, const iolens_file *files, size_t nf)
{
    printf("%d %u %.6f %.6f %u %s(", ev->rank, ev->thread, ev->tstart, ev->tend, ev->depth,
           iolens_trace_entry_name(ev));
    const char *sep = "";
    const char *p = path_of(files, nf, ev->file);
    if (p) {
        printf("\"%s\"", p);
        sep = ", ";
    }
    if (fd >= 0) {
        printf("%sfd=%d", sep, fd);
        sep = ", ";
    }
    const slot_names *sn = names_of(ev->func);
    for (int i = 0; sn && i < 4; i++) {
        if (!sn->n[i])
            continue;
        if (!strcmp(sn->n[i], "flags") && i == 0)
            printf("%s%s=0x%" PRIx64, sep, sn->n[i], (uint64_t)a[i]);
        else if (!strcmp(sn->n[i], "mode"))
            printf("%s%s=0%" PRIo64, sep, sn->n[i], (uint64_t)a[i]);
        else
            printf("%s%s=%" PRId64, sep, sn->n[i], a[i]);
        sep = ", ";
    }
    if ((!strncmp(ev->func, "rename", 6) || !strcmp(ev->func, "link") || !strcmp(ev->func, "linkat")) &&
        path_of(files, nf, a[2]))
        printf("%sto=\"%s\"", sep, path_of(files, nf, a[2]));
    if (!strncmp(ev->func, "symlink", 7) && path_of(files, nf, a[2]))
        printf("%starget=\"%s\"", sep, path_of(files, nf, a[2]));
    if ((!strcmp(ev->func, "copy_file_range") || !strcmp(ev->func, "splice") || !strncmp(ev->func, "sendfile", 8)) &&
        path_of(files, nf, a[2]))
        printf("%sfrom=\"%s\"", sep, path_of(files, nf, a[2]));
    if (ev->buf_pgoff1)
        printf("%sbuf=page+%u", sep, ev->buf_pgoff1 - 1);
    printf(") = %" PRId64, ev->ret);
    if (ev->err)
        printf(" errno=%d", ev->err);
    putchar('\n');
}

static int print_trace(const char *path, int json, int only_rank)
{
    iolens_evsource *s;
    if (iolens_trace_open(path, &s)) {
        cli_lib_error();
        return CLI_FAIL;
    }
    const iolens_file *files;
    size_t nf;
    iolens_evsource_files(s, &files, &nf);
    if (only_rank >= iolens_evsource_nranks(s)) {
        cli_error("'%s' has %d process(es): --rank wants 0 to %d", path, iolens_evsource_nranks(s),
                  iolens_evsource_nranks(s) - 1);
        iolens_evsource_free(s);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int r = 0; r < iolens_evsource_nranks(s); r++) {
        if (only_rank >= 0 && r != only_rank)
            continue;
        iolens_trace_proc pi;
        iolens_trace_proc_info(s, r, &pi);
        if (pi.stopped)
            cli_warn("'%s': process %d (pid %" PRId64 ") stopped tracing early: %s", path, r, pi.pid,
                     iolens_trace_stop_text(pi.stopped));
        else if (pi.truncated)
            cli_warn("'%s': process %d (pid %" PRId64 ") is truncated: it ended without closing its trace", path,
                     r, pi.pid);
        iolens_event ev;
        int got;
        double copy_t0 = -1;
        while ((got = iolens_evsource_next(s, r, &ev)) == 1) {
            int32_t fd;
            int64_t a[4];
            iolens_trace_last_args(s, r, &fd, a);
            if (!json && (ev.flags & IOLENS_EVF_COPY_SOURCE)) {
                copy_t0 = ev.tstart; /* one line a call: the copy's target line, from the call's start */
                continue;
            }
            if (!json && copy_t0 >= 0) {
                ev.tstart = copy_t0;
                copy_t0 = -1;
            }
            if (json)
                iolens_event_write_json(stdout, &ev, files, nf, &fd, a);
            else
                print_text(&ev, fd, a, files, nf);
        }
        if (got < 0) {
            cli_lib_error();
            rc = CLI_FAIL;
            break;
        }
    }
    iolens_evsource_free(s);
    return rc;
}

static int info_trace(const char *path, int json)
{
    iolens_evsource *s;
    if (iolens_trace_open(path, &s)) {
        cli_lib_error();
        return CLI_FAIL;
    }
    iolens_trace_stats st;
    iolens_trace_info(s, &st);
    /* the tracer's own time between calls, over the processes that sampled it */
    uint64_t samples = 0;
    double gap_sum = 0, clk_sum = 0;
    for (int r = 0; r < iolens_evsource_nranks(s); r++) {
        iolens_trace_self ts;
        if (iolens_trace_proc_self(s, r, &ts) == 0 && ts.samples) {
            samples += ts.samples;
            gap_sum += ts.gap_seconds * (double)ts.samples;
            clk_sum += ts.clock_seconds * (double)ts.samples;
        }
    }
    /* and per function, over the processes (names are the library's: compared by address) */
    struct fself { const char *name; uint64_t samples; double sum; } fs[512];
    size_t nfs = 0;
    for (int r = 0; r < iolens_evsource_nranks(s); r++) {
        iolens_trace_self ts;
        const char *fn;
        for (size_t k = 0; iolens_trace_proc_self_func(s, r, k, &fn, &ts) == 1; k++) {
            size_t j = 0;
            while (j < nfs && fs[j].name != fn)
                j++;
            if (j == nfs) {
                if (nfs == sizeof fs / sizeof fs[0])
                    continue;
                fs[nfs++] = (struct fself){fn, 0, 0};
            }
            fs[j].samples += ts.samples;
            fs[j].sum += ts.gap_seconds * (double)ts.samples;
        }
    }
    for (size_t i = 1; i < nfs; i++) /* most sampled first */
        for (size_t j = i; j > 0 && fs[j].samples > fs[j - 1].samples; j--) {
            struct fself x = fs[j];
            fs[j] = fs[j - 1];
            fs[j - 1] = x;
        }
    /* the commands the processes ran (the first 8 distinct ones), the user and the job id */
    struct fcmd { char *line; uint64_t procs; } cmds[8];
    size_t ncmds = 0;
    int64_t uid = -1;
    const char *jobid = NULL;
    for (int r = 0; r < iolens_evsource_nranks(s); r++) {
        iolens_trace_job j;
        if (iolens_trace_proc_job(s, r, &j) != 1)
            continue;
        if (uid < 0)
            uid = j.uid;
        if (!jobid || (!*jobid && j.jobid))
            jobid = j.jobid;
        if (!j.argv)
            continue;
        char line[4200];
        iolens_trace_job_command(&j, line, sizeof line);
        size_t k = 0;
        while (k < ncmds && strcmp(cmds[k].line, line))
            k++;
        if (k < ncmds)
            cmds[k].procs++;
        else if (ncmds < sizeof cmds / sizeof cmds[0] && (cmds[ncmds].line = strdup(line)))
            cmds[ncmds++].procs = 1;
    }
    if (json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 1);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "processes"); iol_jsonw_uint(&w, st.nprocs);
        iol_jsonw_key(&w, "commands");
        iol_jsonw_arr_begin(&w);
        for (size_t i = 0; i < ncmds; i++) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "command"); iol_jsonw_str(&w, cmds[i].line);
            iol_jsonw_key(&w, "processes"); iol_jsonw_uint(&w, cmds[i].procs);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "uid");
        if (uid >= 0)
            iol_jsonw_int(&w, uid);
        else
            iol_jsonw_null(&w);
        iol_jsonw_key(&w, "jobid");
        if (jobid)
            iol_jsonw_str(&w, jobid);
        else
            iol_jsonw_null(&w);
        iol_jsonw_key(&w, "calls"); iol_jsonw_uint(&w, st.ncalls);
        iol_jsonw_key(&w, "signatures"); iol_jsonw_uint(&w, st.nsignatures);
        iol_jsonw_key(&w, "grammar_rules"); iol_jsonw_uint(&w, st.nrules);
        iol_jsonw_key(&w, "distinct_process_structures"); iol_jsonw_uint(&w, st.ngroups);
        iol_jsonw_key(&w, "truncated_processes"); iol_jsonw_uint(&w, st.ntruncated);
        iol_jsonw_key(&w, "tracer_samples"); iol_jsonw_uint(&w, samples);
        iol_jsonw_key(&w, "tracer_gap_seconds"); iol_jsonw_double(&w, samples ? gap_sum / (double)samples : 0);
        iol_jsonw_key(&w, "clock_read_seconds"); iol_jsonw_double(&w, samples ? clk_sum / (double)samples : 0);
        iol_jsonw_key(&w, "tracer_gap_by_function");
        iol_jsonw_arr_begin(&w);
        for (size_t i = 0; i < nfs; i++) {
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "function"); iol_jsonw_str(&w, fs[i].name);
            iol_jsonw_key(&w, "samples"); iol_jsonw_uint(&w, fs[i].samples);
            iol_jsonw_key(&w, "gap_seconds"); iol_jsonw_double(&w, fs[i].sum / (double)fs[i].samples);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "bytes");
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "header"); iol_jsonw_uint(&w, st.bytes_header);
        iol_jsonw_key(&w, "meta"); iol_jsonw_uint(&w, st.bytes_meta);
        iol_jsonw_key(&w, "structure"); iol_jsonw_uint(&w, st.bytes_struct);
        iol_jsonw_key(&w, "timestamps"); iol_jsonw_uint(&w, st.bytes_times);
        iol_jsonw_key(&w, "total"); iol_jsonw_uint(&w, st.bytes_total);
        iol_jsonw_obj_end(&w);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
    } else {
        printf("processes   %" PRIu64 "\ncalls       %" PRIu64 "\nsignatures  %" PRIu64 "\nrules       %" PRIu64 "\nstructures  %" PRIu64
               "\ntruncated   %" PRIu64 "\nbytes       header %" PRIu64 ", meta %" PRIu64 ", structure %" PRIu64
               ", timestamps %" PRIu64 ", total %" PRIu64 "\n",
               st.nprocs, st.ncalls, st.nsignatures, st.nrules, st.ngroups, st.ntruncated, st.bytes_header, st.bytes_meta,
               st.bytes_struct, st.bytes_times, st.bytes_total);
        for (size_t i = 0; i < ncmds; i++)
            printf("%s%s (%" PRIu64 " process%s)\n", i ? "            " : "command     ", cmds[i].line, cmds[i].procs,
                   cmds[i].procs == 1 ? "" : "es");
        if (!ncmds)
            printf("command     not recorded\n");
        if (uid >= 0 || (jobid && *jobid)) {
            printf("job         ");
            if (uid >= 0)
                printf("uid %" PRId64 "%s", uid, jobid && *jobid ? ", " : "");
            if (jobid && *jobid)
                printf("job id %s", jobid);
            printf("\n");
        }
        if (samples)
            printf("tracer cost %.3f us per call between calls, clock read %.3f us (%" PRIu64 " sampled calls%s)\n",
                   gap_sum / (double)samples * 1e6, clk_sum / (double)samples * 1e6, samples,
                   samples < IOLENS_TRACE_SELF_MIN_SAMPLES ? ": too few for a precise mean" : "");
        else
            printf("tracer cost not recorded\n");
        for (size_t i = 0; i < nfs && i < 8; i++)
            printf("%s%s %.3f us (%" PRIu64 ")%s", i ? ", " : "tracer cost after ", fs[i].name,
                   fs[i].sum / (double)fs[i].samples * 1e6, fs[i].samples, i + 1 == nfs || i == 7 ? "\n" : "");
    }
    for (size_t i = 0; i < ncmds; i++)
        free(cmds[i].line);
    iolens_evsource_free(s);
    return CLI_OK;
}

int cmd_trace(int argc, char **argv)
{
    const char *out = NULL, *layers = NULL, *darshan = NULL;
    int json = 0, rank = -1, merge = 0, remove_spill = 0, print = 0, info = 0, build_ = 0;
    uint64_t res = 1000;
    cli_args a;
    cli_args_init(&a, &spec, argc, argv);
    /* a mode that reads traces takes its operands anywhere; a run stops at the program */
    for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)
        if (!strcmp(argv[k], "--print") || !strcmp(argv[k], "--info") || !strcmp(argv[k], "--build") ||
            !strcmp(argv[k], "--merge"))
            a.stop_at_operand = 0;
    int id;
    long v;
    while ((id = cli_next(&a)) > 0) {
        switch (id) {
        case O_MERGE: merge = 1; break;
        case O_DARSHAN_ALL: darshan_all_paths = 1; break;
        case O_REMOVE_SPILL: remove_spill = 1; break;
        case O_NO_COMPRESS: raw_sections = 1; break;
        case O_JSON: json = 1; break;
        case O_OUTPUT: out = a.val; break;
        case O_DARSHAN: darshan = a.val; break;
        case O_LAYERS: layers = a.val; break;
        case O_PRINT: print = 1; break;
        case O_INFO: info = 1; break;
        case O_BUILD: build_ = 1; break;
        case O_RES:
            if (cli_val_long(&a, 1, 1000000000L, &v) < 0)
                return CLI_USAGE;
            res = (uint64_t)v;
            break;
        case O_SPILL_MAX: {
            long long sz;
            if (cli_val_size(&a, 65536, (long long)1 << 50, &sz) < 0)
                return CLI_USAGE;
            char b[32];
            snprintf(b, sizeof b, "%lld", sz);
            setenv("IOLENS_TRACE_SPILL_MAX", b, 1); /* (read by the shim in every process) */
            break;
        }
        case O_RANK:
            if (cli_val_long(&a, 0, INT_MAX, &v) < 0)
                return CLI_USAGE;
            rank = (int)v;
            break;
        }
    }
    if (id < 0)
        return cli_args_exit(&a, id);
    if (print + info + build_ + merge > 1)
        return cli_args_exit(&a, cli_usage_error(&spec, "--print, --info, --build and --merge exclude each other"));
    if ((print || info || build_) && cli_want_operands(&a, 1, 1, print || info ? "TRACE" : "SPILL_DIR") < 0)
        return CLI_USAGE;
    if (merge && cli_want_operands(&a, 1, -1, "TRACE") < 0)
        return CLI_USAGE;
    if (!(print || info || build_ || merge) && cli_want_operands(&a, 1, -1, "COMMAND") < 0)
        return CLI_USAGE;
    if ((json || rank >= 0) && !(print || info))
        return cli_args_exit(&a, cli_usage_error(&spec, "%s goes with --print%s", json ? "--json" : "--rank",
                                                 json ? " or --info" : ""));
    if (rank >= 0 && info)
        return cli_args_exit(&a, cli_usage_error(&spec, "--rank goes with --print"));
    if ((print || info) && cli_output_to(out) < 0) /* -o: where it prints */
        return CLI_FAIL;
    char darshan_trace[PATH_MAX];
    if (!out && darshan && !print && !info && !build_ && !merge) {
        if ((size_t)snprintf(darshan_trace, sizeof darshan_trace, "%s.trace", darshan) >= sizeof darshan_trace) {
            cli_error("--darshan path too long");
            return CLI_USAGE;
        }
        out = darshan_trace;
    }
    if (!out)
        out = "iolens.trace";
    if (darshan && (print || info || build_ || merge)) {
        cli_error("--darshan goes with a traced run (iolens trace --darshan LOG -- COMMAND)");
        return CLI_USAGE;
    }
    if (print)
        return print_trace(a.operands[0], json, rank);
    if (info)
        return info_trace(a.operands[0], json);
    if (build_) {
        int rc = build(a.operands[0], out, res, 0);
        if (rc == CLI_OK && remove_spill && iolens_trace_remove_spill(a.operands[0]))
            cli_lib_error();
        return rc;
    }
    if (merge) {
        iolens_trace_build_opts o = {0, raw_sections ? -1 : 0};
        iolens_trace_stats st;
        int mrc = iolens_trace_merge((const char **)a.operands, (size_t)a.noperands, out, &o, &st);
        if (mrc) {
            cli_lib_error();
            return CLI_FAIL;
        }
        fprintf(stderr, "iolens: wrote '%s': %" PRIu64 " calls of %" PRIu64 " process(es), %" PRIu64 " bytes\n", out,
                st.ncalls, st.nprocs, st.bytes_total);
        return CLI_OK;
    }
    if (layers) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", layers);
        for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ","))
            if (strcmp(t, "posix") && strcmp(t, "stdio") && strcmp(t, "mpiio") && strcmp(t, "hdf5") &&
                strcmp(t, "pnetcdf") && strcmp(t, "netcdf")) {
                cli_error("unknown layer '%s' (posix, stdio, mpiio, hdf5, pnetcdf, netcdf)", t);
                return CLI_USAGE;
            }
    }
    return run(out, layers, res, darshan, a.operands);
}
