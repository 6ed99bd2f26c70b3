/*
 * The replay config: option tables (the single description of the format),
 * cross-field validation and the public config API.
 */
#define _GNU_SOURCE /* syscall() */
#include "replay/config.h"
#include "replay/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"

const char *const rp_method_names[] = {"write", "read", "compute", "metadata", "startup", NULL};
const char *const rp_iface_names[] = {"posix", "stdio", "mpiio", "hdf5", NULL};
const char *const rp_access_names[] = {"sequential", "strided", "random", NULL};
const char *const rp_fsync_names[] = {"none", "close", "every_write", NULL};
const char *const rp_romio_names[] = {"enable", "disable", "automatic", NULL};
static const char *const compute_kinds[] = {"sleep", "busy", NULL};

#define KIB 1024.0
#define GIB (1024.0 * 1024.0 * 1024.0)
#define TIB (1024.0 * GIB)

#define H(field) offsetof(struct rp_hints, field)
static const struct rp_opt hint_opts[] = {
    {"use_direct", RP_OPT_BOOL, H(use_direct), NULL, 0, 1, NULL, NULL, 0, 0,
     "POSIX: open with O_DIRECT and use 4 KiB-aligned buffers (transfers and offsets must be 4 KiB multiples)"},
    {"disable_readahead", RP_OPT_BOOL, H(disable_readahead), NULL, 0, 1, NULL, NULL, 0, 0,
     "POSIX: posix_fadvise(POSIX_FADV_RANDOM) after open, which turns read-ahead off"},
    {"preallocate", RP_OPT_BOOL, H(preallocate), NULL, 0, 1, NULL, NULL, 0, 0,
     "POSIX: posix_fallocate the whole extent the step writes, before the first write"},
    {"fsync_on_close", RP_OPT_BOOL, H(fsync_on_close), NULL, 0, 1, NULL, NULL, 0, 0,
     "fsync (MPI_File_sync) before every close; same as \"fsync\": \"close\""},
    {"lustre_stripe_size", RP_OPT_SIZE, H(lustre_stripe_size), NULL, 65536, 4 * GIB, NULL, NULL, 0, 0,
     "Lustre stripe size of new files (reported not applicable elsewhere)"},
    {"lustre_stripe_count", RP_OPT_INT, H(lustre_stripe_count), NULL, -1, 65535, NULL, NULL, 0, 0,
     "Lustre stripe count of new files (reported not applicable elsewhere)"},
    {"use_collective", RP_OPT_BOOL, H(use_collective), NULL, 0, 1, NULL, NULL, 0, 0,
     "MPI-IO: collective MPI_File_write_at_all/read_at_all instead of independent calls"},
    {"romio_cb_read", RP_OPT_ENUM, H(romio_cb_read), NULL, 0, 0, rp_romio_names, NULL, 0, 0,
     "MPI_Info romio_cb_read (collective buffering of reads)"},
    {"romio_cb_write", RP_OPT_ENUM, H(romio_cb_write), NULL, 0, 0, rp_romio_names, NULL, 0, 0,
     "MPI_Info romio_cb_write (collective buffering of writes)"},
    {"romio_ds_read", RP_OPT_ENUM, H(romio_ds_read), NULL, 0, 0, rp_romio_names, NULL, 0, 0,
     "MPI_Info romio_ds_read (data sieving of reads)"},
    {"romio_ds_write", RP_OPT_ENUM, H(romio_ds_write), NULL, 0, 0, rp_romio_names, NULL, 0, 0,
     "MPI_Info romio_ds_write (data sieving of writes)"},
    {"cb_buffer_size", RP_OPT_SIZE, H(cb_buffer_size), NULL, 4096, GIB, NULL, NULL, 0, 0,
     "MPI_Info cb_buffer_size"},
    {"cb_nodes", RP_OPT_INT, H(cb_nodes), NULL, 1, 1048576, NULL, NULL, 0, 0, "MPI_Info cb_nodes (aggregators)"},
    {"cb_block_size", RP_OPT_SIZE, H(cb_block_size), NULL, 1, GIB, NULL, NULL, 0, 0, "MPI_Info cb_block_size"},
    {"ind_rd_buffer_size", RP_OPT_SIZE, H(ind_rd_buffer_size), NULL, 1, GIB, NULL, NULL, 0, 0,
     "MPI_Info ind_rd_buffer_size"},
    {"ind_wr_buffer_size", RP_OPT_SIZE, H(ind_wr_buffer_size), NULL, 1, GIB, NULL, NULL, 0, 0,
     "MPI_Info ind_wr_buffer_size"},
    {"striping_factor", RP_OPT_INT, H(striping_factor), NULL, 1, 65535, NULL, NULL, 0, 0,
     "MPI_Info striping_factor"},
    {"striping_unit", RP_OPT_SIZE, H(striping_unit), NULL, 1, 4 * GIB, NULL, NULL, 0, 0,
     "MPI_Info striping_unit"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef H
const struct rp_table rp_hints_table = {"hints", hint_opts, sizeof(struct rp_hints)};

#define R(field) offsetof(struct rp_rank_rep, field)
static const struct rp_opt rank_opts[] = {
    {"rank", RP_OPT_INT, R(rank), NULL, 0, 1048575, NULL, NULL, 0, 1, "MPI rank"},
    {"repetitions", RP_OPT_INT, R(repetitions), NULL, 0, 1e9, NULL, NULL, 0, 1,
     "transfers of this size the rank does per open-close session"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef R
static const struct rp_table rank_table = {"rank", rank_opts, sizeof(struct rp_rank_rep)};

#define C(field) offsetof(struct rp_chunk, field)
static const struct rp_opt chunk_opts[] = {
    {"transfer_size", RP_OPT_SIZE, C(transfer_size), NULL, 1, GIB, NULL, NULL, 0, 1,
     "bytes per read/write call (integer or \"4k\", \"1m\")"},
    {"repetitions", RP_OPT_INT, C(repetitions), NULL, 0, 1e9, NULL, NULL, 0, 0,
     "transfers per open-close session for every rank (instead of a ranks list)"},
    {"ranks", RP_OPT_OBJS, C(ranks), NULL, 0, 1048576, NULL, &rank_table, C(nranks), 0,
     "FBench form: the ranks taking part and their repetitions"},
    {"gap_seconds", RP_OPT_DOUBLE, C(gap_seconds), "0", 0, 1, NULL, NULL, 0, 0,
     "the program's own time between two transfers of this chunk (its loop, its accounting), spun on "
     "the CPU from the end of one transfer to the start of the next, inside the timed phase. "
     "--config-from takes the mean recorded gap between a session's transfers, less the tracer's own "
     "time per call, leaving out pauses above 1 ms (phases, not per-call work)"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef C
static const struct rp_table chunk_table = {"chunk", chunk_opts, sizeof(struct rp_chunk)};

#define P(field) offsetof(struct rp_compute, field)
static const struct rp_opt compute_opts[] = {
    {"kind", RP_OPT_ENUM, P(kind), "sleep", 0, 0, compute_kinds, NULL, 0, 0,
     "sleep (idle) or busy (spin on the CPU)"},
    {"seconds", RP_OPT_DOUBLE, P(seconds), "0", 0, 3600, NULL, NULL, 0, 1,
     "duration per rank (times the rank's imbalance factor)"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef P
static const struct rp_table compute_table = {"compute", compute_opts, sizeof(struct rp_compute)};

#define G(field) offsetof(struct rp_meta_gaps, field)
static const struct rp_opt meta_gap_opts[] = {
    {"create", RP_OPT_DOUBLE, G(create), "0", 0, 1, NULL, NULL, 0, 0, "per file created"},
    {"stat", RP_OPT_DOUBLE, G(stat), "0", 0, 1, NULL, NULL, 0, 0, "per file stat()ed"},
    {"read", RP_OPT_DOUBLE, G(read), "0", 0, 1, NULL, NULL, 0, 0, "per file opened again (and read)"},
    {"unlink", RP_OPT_DOUBLE, G(unlink), "0", 0, 1, NULL, NULL, 0, 0, "per file unlinked"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef G
static const struct rp_table meta_gaps_table = {"gap_seconds", meta_gap_opts, sizeof(struct rp_meta_gaps)};

#define H5(field) offsetof(struct rp_hdf5, field)
static const struct rp_opt hdf5_opts[] = {
    {"chunk", RP_OPT_SIZE, H5(chunk), "0", 0, GIB, NULL, NULL, 0, 0,
     "bytes of a chunk of the step's dataset (H5Pset_chunk on its one dimension); 0: contiguous"},
    {"alignment", RP_OPT_SIZE, H5(alignment), "0", 0, 4 * GIB, NULL, NULL, 0, 0,
     "objects of at least alignment_threshold bytes start on multiples of this (H5Pset_alignment); 0: "
     "HDF5's default"},
    {"alignment_threshold", RP_OPT_SIZE, H5(alignment_threshold), "1", 1, 4 * GIB, NULL, NULL, 0, 0,
     "the threshold of H5Pset_alignment"},
    {"collective_metadata", RP_OPT_BOOL, H5(collective_metadata), "false", 0, 1, NULL, NULL, 0, 0,
     "metadata reads and writes collective (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write)"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef H5
static const struct rp_table hdf5_table = {"hdf5", hdf5_opts, sizeof(struct rp_hdf5)};

#define M(field) offsetof(struct rp_metadata, field)
static const struct rp_opt meta_opts[] = {
    {"files_per_rank", RP_OPT_INT, M(files_per_rank), NULL, 1, 1e7, NULL, NULL, 0, 1,
     "files each rank creates (mdtest -n)"},
    {"depth", RP_OPT_INT, M(depth), "0", 0, 16, NULL, NULL, 0, 0, "directory tree depth (mdtest -z)"},
    {"branching", RP_OPT_INT, M(branching), "1", 1, 64, NULL, NULL, 0, 0,
     "subdirectories per directory (mdtest -b)"},
    {"unique_dir", RP_OPT_BOOL, M(unique_dir), "false", 0, 1, NULL, NULL, 0, 0,
     "one tree per rank (mdtest -u) instead of one shared tree"},
    {"write_bytes", RP_OPT_SIZE, M(write_bytes), "0", 0, GIB, NULL, NULL, 0, 0,
     "bytes written to each file at creation (mdtest -w)"},
    {"read_bytes", RP_OPT_SIZE, M(read_bytes), "0", 0, GIB, NULL, NULL, 0, 0,
     "bytes read back from each file (mdtest -e); at most write_bytes"},
    {"create", RP_OPT_BOOL, M(create), "true", 0, 1, NULL, NULL, 0, 0,
     "create the files in the timed create phase; false: they are made before the step, untimed (files "
     "the program found: fio's filestat jobs stat files laid out before)"},
    {"stat", RP_OPT_BOOL, M(stat), "true", 0, 64, NULL, NULL, 0, 0,
     "stat every file (true), or how many times (a count)"},
    {"reopen", RP_OPT_BOOL, M(reopen), "false", 0, 1, NULL, NULL, 0, 0,
     "the read phase opens and closes every file even when read_bytes is 0"},
    {"unlink", RP_OPT_BOOL, M(unlink), "true", 0, 1, NULL, NULL, 0, 0, "unlink every file (timed)"},
    {"gap_seconds", RP_OPT_OBJ, M(gap_seconds), NULL, 0, 0, NULL, &meta_gaps_table, 0, 0,
     "the program's own time per file in each phase, outside its calls (its loop, its accounting), spun "
     "on the CPU before each file's calls but the first, inside the timed phase"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef M
static const struct rp_table meta_table = {"metadata", meta_opts, sizeof(struct rp_metadata)};

static const struct rp_opt module_opts[] = {
    {"bytes", RP_OPT_SIZE, offsetof(struct rp_module, bytes), NULL, 0, 16 * 1048576.0, NULL, NULL, 0, 1,
     "size of the module's compiled file"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
static const struct rp_table module_table = {"module", module_opts, sizeof(struct rp_module)};

#define S(field) offsetof(struct rp_startup, field)
static const struct rp_opt startup_opts[] = {
    {"modules", RP_OPT_OBJS, S(modules), NULL, 0, 100000, NULL, &module_table, S(nmodules), 1,
     "the modules imported, in order (each: stat of its source twice, open of its compiled file, "
     "fstat, two lseek, fstat, read of the whole file, read at end of file, close)"},
    {"extensions", RP_OPT_INT, S(extensions), "0", 0, 100000, NULL, NULL, 0, 0,
     "extension modules, stat()ed once each and not opened (the dynamic loader maps them)"},
    {"config_lines", RP_OPT_INT, S(config_lines), "0", 0, 1e6, NULL, NULL, 0, 0,
     "lines of one text file read through stdio with fgets (0: none)"},
    {"config_line_bytes", RP_OPT_INT, S(config_line_bytes), "32", 1, 4096, NULL, NULL, 0, 0,
     "bytes per line of that file"},
    {"legacy_stat", RP_OPT_BOOL, S(legacy_stat), "true", 0, 1, NULL, NULL, 0, 0,
     "stat through glibc's pre-2.33 entry points (__xstat64, __fxstat64), as an interpreter built "
     "against an older glibc does and a Darshan runtime wrapping only those sees"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef S
static const struct rp_table startup_table = {"startup", startup_opts, sizeof(struct rp_startup)};

#define F(field) offsetof(struct rp_fileconf, field)
static const struct rp_opt fileconf_opts[] = {
    {"name", RP_OPT_STR, F(name), NULL, 0, 0, NULL, NULL, 0, 0, "label of the step in the results"},
    {"file_names", RP_OPT_PATHS, F(file_names), NULL, 0, 1048576, NULL, NULL, F(nfile_names), 0,
     "one path (shared file, or a template with {rank} when file_per_process) or one path per rank; "
     "relative to --root, absolute paths are remapped below it. metadata: the tree's top directory"},
    {"file_name", RP_OPT_PATHS, F(file_names), NULL, 0, 1, NULL, NULL, F(nfile_names), 0,
     "FBench's singular form of file_names"},
    {"file_per_process", RP_OPT_BOOL, F(file_per_process), NULL, 0, 1, NULL, NULL, 0, 0,
     "one file per rank (default: true when several file_names are listed)"},
    {"total_repeats", RP_OPT_INT, F(total_repeats), "1", 1, 1e6, NULL, NULL, 0, 0,
     "open-close sessions (FBench k)"},
    {"method", RP_OPT_ENUM, F(method), NULL, 0, 0, rp_method_names, NULL, 0, 1, "what the step does"},
    {"interface", RP_OPT_ENUM, F(interface), "posix", 0, 0, rp_iface_names, NULL, 0, 0, "I/O interface"},
    {"access", RP_OPT_ENUM, F(access), "sequential", 0, 0, rp_access_names, NULL, 0, 0,
     "order of transfers: sequential (each rank a contiguous region), strided (ranks interleave "
     "block_size blocks, IOR -s), random (a seeded permutation of the rank's transfers, IOR -z)"},
    {"seed", RP_OPT_INT, F(seed), "42", 0, 9007199254740991.0, NULL, NULL, 0, 0, "seed of random access"},
    {"block_size", RP_OPT_SIZE, F(block_size), NULL, 1, GIB, NULL, NULL, 0, 0,
     "strided: bytes of a rank's block per segment (default: one transfer)"},
    {"offset", RP_OPT_SIZE, F(offset), "0", 0, TIB, NULL, NULL, 0, 0, "byte offset where the step's region starts"},
    {"alignment", RP_OPT_SIZE, F(alignment), "0", 0, GIB, NULL, NULL, 0, 0,
     "each transfer starts at a multiple of this (0: packed)"},
    {"buffer_offset", RP_OPT_INT, F(buffer_offset), "0", 0, 4095, NULL, NULL, 0, 0,
     "where in a 4096-byte page the data buffer of the transfers starts (the application's buffer "
     "alignment: glibc's malloc of a large block gives 16); --config-from takes it from the trace. "
     "Not with use_direct (O_DIRECT needs aligned buffers)"},
    {"fsync", RP_OPT_ENUM, F(fsync), "none", 0, 0, rp_fsync_names, NULL, 0, 0,
     "fsync policy: none, before each close, after every write (IOR -Y)"},
    {"fsync_count", RP_OPT_INT, F(fsync_count), "1", 1, 64, NULL, NULL, 0, 0,
     "with fsync every_write: the fsyncs after each write (--config-from: as many as the program made)"},
    {"rank_blocks", RP_OPT_BOOL, F(rank_blocks), "false", 0, 1, NULL, NULL, 0, 0,
     "shared file, sequential access: each rank's transfers of all chunks form one contiguous block and "
     "the ranks' blocks follow each other (HACC-IO: a rank's arrays back to back); default: each chunk "
     "has its own region holding the ranks one after another"},
    {"seek", RP_OPT_BOOL, F(seek), "false", 0, 1, NULL, NULL, 0, 0,
     "posix and metadata steps: position with lseek() before each read()/write(), as IOR's and "
     "mdtest's POSIX back end and Python file objects do (Darshan counts POSIX_SEEKS), instead of "
     "pread()/pwrite()"},
    {"preallocated", RP_OPT_BOOL, F(preallocated), "false", 0, 1, NULL, NULL, 0, 0,
     "write steps: the file's extent was reserved before the step, as programs that lay their files "
     "out first do (fio's default): posix_fallocate() before the step, untimed, so the writes fill "
     "allocated space (on tmpfs they then copy into pages already there). --config-from sets it when "
     "the trace reserved the file's space (fallocate, posix_fallocate). The hint \"preallocate\" "
     "instead reserves inside the timed phase, a change to measure"},
    {"cold", RP_OPT_BOOL, F(cold), "false", 0, 1, NULL, NULL, 0, 0,
     "read steps: before the step, untimed, every rank writes back and drops the cached pages of the "
     "file it reads (fdatasync, posix_fadvise DONTNEED), as --cold-reads does for every read step. "
     "--config-from sets it when the program dropped the file's pages itself before reading "
     "(posix_fadvise DONTNEED in the session, as fio does)"},
    {"verify", RP_OPT_BOOL, F(verify), "true", 0, 1, NULL, NULL, 0, 0,
     "reads compare the data with the written pattern"},
    {"hints", RP_OPT_OBJ, F(hints), NULL, 0, 0, NULL, &rp_hints_table, 0, 0,
     "hints of this step (over optimization_params)"},
    {"hdf5", RP_OPT_OBJ, F(hdf5), NULL, 0, 0, NULL, &hdf5_table, 0, 0,
     "interface hdf5: the file's and dataset's properties (chunks, alignment, collective metadata)"},
    {"chunks", RP_OPT_OBJS, F(chunks), NULL, 0, 100000, NULL, &chunk_table, F(nchunks), 0,
     "transfer sizes and repetitions (write/read)"},
    {"imbalance", RP_OPT_DOUBLES, F(imbalance), NULL, 0, 1048576, NULL, NULL, F(nimbalance), 0,
     "per-rank factors on repetitions/seconds (rank i uses entry i, 1 beyond the list)"},
    {"compute", RP_OPT_OBJ, F(compute), NULL, 0, 0, NULL, &compute_table, 0, 0, "compute step parameters"},
    {"metadata", RP_OPT_OBJ, F(metadata), NULL, 0, 0, NULL, &meta_table, 0, 0, "metadata step parameters"},
    {"startup", RP_OPT_OBJ, F(startup), NULL, 0, 0, NULL, &startup_table, 0, 0,
     "startup step parameters (an interpreter's start-up I/O in a library tree)"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef F
const struct rp_table rp_fileconf_table = {"file_config", fileconf_opts, sizeof(struct rp_fileconf)};

#define T(field) offsetof(struct iolens_replay_config, field)
static const struct rp_opt config_opts[] = {
    {"version", RP_OPT_INT, T(version), "1", 1, 1, NULL, NULL, 0, 0, "config format version"},
    {"name", RP_OPT_STR, T(name), NULL, 0, 0, NULL, NULL, 0, 0, "workload name"},
    {"description", RP_OPT_STR, T(description), NULL, 0, 0, NULL, NULL, 0, 0, "free text"},
    {"nranks", RP_OPT_INT, T(nranks), NULL, 1, 1048576, NULL, NULL, 0, 0,
     "ranks the config is written for (explicit rank lists must stay below it)"},
    {"optimization_params", RP_OPT_OBJ, T(optimization_params), NULL, 0, 0, NULL, &rp_hints_table, 0, 0,
     "hints applied to every step (FBench optimization_params)"},
    {"file_configs", RP_OPT_OBJS, T(file_configs), NULL, 0, 100000, NULL, &rp_fileconf_table, T(nfile_configs), 1,
     "steps, run in order"},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0, 0, NULL},
};
#undef T
const struct rp_table rp_config_table = {"iolens replay config", config_opts, sizeof(struct iolens_replay_config)};

#define VERR(...) iol_err(IOLENS_EFORMAT, __VA_ARGS__)

double rp_imbalance(const struct rp_fileconf *fc, int rank)
{
    return (size_t)rank < fc->nimbalance ? fc->imbalance[rank] : 1.0;
}

int64_t rp_chunk_reps(const struct rp_fileconf *fc, const struct rp_chunk *c, int rank)
{
    int64_t n = 0;
    if (c->repetitions >= 0) {
        n = c->repetitions;
    } else { /* ranks are strictly ascending (validated): binary search */
        size_t lo = 0, hi = c->nranks;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->ranks[mid].rank < rank)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < c->nranks && c->ranks[lo].rank == rank)
            n = c->ranks[lo].repetitions;
    }
    double f = rp_imbalance(fc, rank);
    return f == 1.0 ? n : (int64_t)llround((double)n * f);
}

void rp_hints_merge(struct rp_hints *out, const struct rp_hints *g, const struct rp_hints *l)
{
    *out = *l;
#define M1(f) if (out->f < 0) out->f = g->f
    M1(use_direct); M1(disable_readahead); M1(preallocate); M1(fsync_on_close);
    M1(lustre_stripe_size); M1(lustre_stripe_count); M1(use_collective);
    M1(romio_cb_read); M1(romio_cb_write); M1(romio_ds_read); M1(romio_ds_write);
    M1(cb_buffer_size); M1(cb_nodes); M1(cb_block_size); M1(ind_rd_buffer_size); M1(ind_wr_buffer_size);
    M1(striping_factor); M1(striping_unit);
#undef M1
}

static int validate_fileconf(struct iolens_replay_config *cfg, size_t idx, const char *source)
{
    struct rp_fileconf *fc = &cfg->file_configs[idx];
    char p[64];
    snprintf(p, sizeof p, "file_configs[%zu]", idx);
    int io = fc->method == RP_WRITE || fc->method == RP_READ;
    if (fc->method != RP_COMPUTE && fc->nfile_names == 0)
        return VERR("'%s': %s.file_names: required for method '%s'", source, p, rp_method_names[fc->method]);
    if (io && fc->nchunks == 0)
        return VERR("'%s': %s.chunks: at least one chunk is required for method '%s'", source, p,
                    rp_method_names[fc->method]);
    if (!io && fc->nchunks)
        return VERR("'%s': %s.chunks: not allowed for method '%s'", source, p, rp_method_names[fc->method]);
    /* options that would do nothing on this step are refused, not dropped without a word */
    if (fc->fsync_count > 1 && fc->fsync != RP_FSYNC_WRITE)
        return VERR("'%s': %s.fsync_count: counts the fsyncs after each write, with \"fsync\": \"every_write\"",
                    source, p);
    if (fc->fsync == RP_FSYNC_WRITE && fc->method == RP_READ)
        return VERR("'%s': %s.fsync: \"every_write\" on a read step, which has no writes (\"close\" syncs before "
                    "close)", source, p);
    if (fc->seek > 0 && fc->interface == RP_MPIIO)
        return VERR("'%s': %s.seek: an MPI-IO step passes its offsets to MPI_File_write_at/read_at (seek is for "
                    "posix and metadata steps)", source, p);
    if (fc->method == RP_COMPUTE && fc->compute.seconds <= 0)
        return VERR("'%s': %s.compute.seconds: a compute step needs a duration > 0", source, p);
    if (fc->method == RP_METADATA) {
        if (fc->metadata.files_per_rank <= 0)
            return VERR("'%s': %s.metadata.files_per_rank: required for method 'metadata'", source, p);
        if (fc->metadata.read_bytes > fc->metadata.write_bytes)
            return VERR("'%s': %s.metadata.read_bytes: cannot exceed write_bytes (%" PRId64 ")", source, p,
                        fc->metadata.write_bytes);
        /* held to the limit of the transfers' steps: the bytes a rank writes (files_per_rank has its
         * own, in the option table) */
        double maxf = 1;
        for (size_t i = 0; i < fc->nimbalance; i++)
            maxf = fc->imbalance[i] > maxf ? fc->imbalance[i] : maxf;
        double files = (double)fc->metadata.files_per_rank * maxf;
        if (files * (double)fc->metadata.write_bytes * (double)fc->total_repeats > TIB)
            return VERR("'%s': %s.metadata.write_bytes: %.0f bytes per rank is absurd (limit 1 TiB)", source, p,
                        files * (double)fc->metadata.write_bytes * (double)fc->total_repeats);
        double dirs = 0, lvl = 1;
        for (int64_t d = 0; d < fc->metadata.depth; d++)
            dirs += (lvl *= (double)fc->metadata.branching);
        if (dirs > 100000)
            return VERR("'%s': %s.metadata.depth: a tree of %.0f directories is absurd (limit 100000)", source, p,
                        dirs);
        if (fc->nfile_names != 1)
            return VERR("'%s': %s.file_names: a metadata step takes exactly one directory", source, p);
    }
    if (fc->method == RP_STARTUP) {
        if (fc->startup.nmodules == 0)
            return VERR("'%s': %s.startup.modules: at least one module is required for method 'startup'", source, p);
        if (fc->nfile_names != 1)
            return VERR("'%s': %s.file_names: a startup step takes exactly one directory (the library tree)",
                        source, p);
    }
    if (fc->nfile_names > 1) {
        if (fc->file_per_process == 0)
            return VERR("'%s': %s.file_per_process: false contradicts %zu file_names", source, p, fc->nfile_names);
        fc->file_per_process = 1;
        if (cfg->nranks > 0 && (int64_t)fc->nfile_names != cfg->nranks)
            return VERR("'%s': %s.file_names: %zu paths for %" PRId64 " ranks", source, p, fc->nfile_names,
                        cfg->nranks);
    }
    if (fc->file_per_process < 0)
        fc->file_per_process = 0;
    for (size_t k = 0; k < fc->nfile_names; k++) { /* each name must map below the replay root */
        char rel[4096], one[4200];
        const char *name = fc->file_names[k];
        if (fc->file_per_process && fc->nfile_names == 1) { /* as the run names rank 0's file */
            const char *ph = strstr(name, "{rank}");
            if (ph)
                snprintf(one, sizeof one, "%.*s00000%s", (int)(ph - name), name, ph + 6);
            else
                snprintf(one, sizeof one, "%s.00000", name);
            name = one;
        }
        if (iol_replay_rel_path(rel, sizeof rel, name, "path") < 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", iolens_error_last());
            return VERR("'%s': %s.file_names[%zu]: %s", source, p, k, why);
        }
    }
    if (cfg->nranks > 0 && fc->nimbalance > (size_t)cfg->nranks)
        return VERR("'%s': %s.imbalance: %zu factors for %" PRId64 " ranks", source, p, fc->nimbalance,
                    cfg->nranks);
    double total = 0;
    for (size_t c = 0; c < fc->nchunks; c++) {
        struct rp_chunk *ch = &fc->chunks[c];
        if ((ch->repetitions >= 0) == (ch->nranks > 0))
            return VERR("'%s': %s.chunks[%zu]: give either repetitions (every rank) or a ranks list", source, p, c);
        for (size_t r = 0; r < ch->nranks; r++) {
            if (r > 0 && ch->ranks[r].rank <= ch->ranks[r - 1].rank)
                return VERR("'%s': %s.chunks[%zu].ranks[%zu].rank: ranks must be listed once each, in ascending "
                            "order (%" PRId64 " after %" PRId64 ")", source, p, c, r, ch->ranks[r].rank,
                            ch->ranks[r - 1].rank);
            if (cfg->nranks > 0 && ch->ranks[r].rank >= cfg->nranks)
                return VERR("'%s': %s.chunks[%zu].ranks[%zu].rank: %" PRId64 " is not below nranks %" PRId64,
                            source, p, c, r, ch->ranks[r].rank, cfg->nranks);
            total += (double)ch->ranks[r].repetitions * (double)ch->transfer_size;
        }
        if (ch->repetitions >= 0) {
            double maxf = 1;
            for (size_t i = 0; i < fc->nimbalance; i++)
                maxf = fc->imbalance[i] > maxf ? fc->imbalance[i] : maxf;
            total += (double)ch->repetitions * maxf * (double)ch->transfer_size;
        }
        if (total * (double)fc->total_repeats > TIB)
            return VERR("'%s': %s.chunks[%zu].transfer_size: %.0f bytes per rank is absurd (limit 1 TiB)", source,
                        p, c, total * (double)fc->total_repeats);
    }
    if (fc->block_size > 0 && fc->access != RP_STRIDED)
        return VERR("'%s': %s.block_size: only meaningful with \"access\": \"strided\"", source, p);
    return 0;
}

int64_t rp_written_before(const struct iolens_replay_config *cfg, size_t step)
{
    const struct rp_fileconf *r = &cfg->file_configs[step];
    if (r->nfile_names != 1 || r->file_per_process)
        return -1;
    int64_t have = -1;
    for (size_t i = 0; i < step; i++) {
        const struct rp_fileconf *w = &cfg->file_configs[i];
        if (w->method == RP_WRITE && w->nfile_names == 1 && !w->file_per_process &&
            !strcmp(w->file_names[0], r->file_names[0])) {
            int64_t e = rp_step_extent(w, 0, cfg->nranks > 1 ? cfg->nranks : 1);
            have = e > have ? e : have;
        }
    }
    return have;
}

int rp_config_validate(struct iolens_replay_config *cfg, const char *source)
{
    if (cfg->nfile_configs == 0)
        return VERR("'%s': file_configs: at least one step is required", source);
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        int rc = validate_fileconf(cfg, i, source);
        if (rc < 0)
            return rc;
    }
    /* a read step of a file the config writes never reads past what was written (the replay
     * would stop at the end of the file), laid out for the config's ranks */
    for (size_t i = 0; i < cfg->nfile_configs; i++) {
        const struct rp_fileconf *fc = &cfg->file_configs[i];
        if (fc->method != RP_READ)
            continue;
        int64_t have = rp_written_before(cfg, i), need = rp_step_extent(fc, 0, cfg->nranks > 1 ? cfg->nranks : 1);
        if (have >= 0 && need > have)
            return VERR("'%s': file_configs[%zu] reads '%s' up to byte %" PRId64 ", but the steps before it write it "
                        "only up to byte %" PRId64 ": the read would pass the end of the file",
                        source, i, fc->file_names[0], need, have);
    }
    return 0;
}

int iolens_replay_config_parse(iolens_replay_config **out, const char *text, size_t len, const char *source)
{
    *out = NULL;
    if (!source)
        source = "config";
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return iol_err(IOLENS_EFORMAT, "'%s': not valid JSON: %s at line %d column %d (byte %d)", source, jerr.text,
                       jerr.line, jerr.column, jerr.position);
    int rc = IOLENS_ENOMEM;
    iolens_replay_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) {
        iol_err(rc, "out of memory");
        goto done;
    }
    rp_table_defaults(&rp_config_table, cfg);
    rc = rp_table_parse(&rp_config_table, root, cfg, "", source);
    if (rc == 0)
        rc = rp_config_validate(cfg, source);
done:
    json_decref(root);
    if (rc < 0) {
        iolens_replay_config_free(cfg);
        return rc;
    }
    *out = cfg;
    return 0;
}

int iolens_replay_config_load(iolens_replay_config **out, const char *path)
{
    iol_buf b = IOL_BUF_INIT;
    *out = NULL;
    int rc = iol_read_input(path, 64u << 20, NULL, 0, 1, &b); /* raw system calls: a tracer of the replay sees the workload only */
    if (rc == 0)
        rc = iolens_replay_config_parse(out, b.data ? b.data : "", b.len, path);
    iol_buf_release(&b);
    return rc;
}

void iolens_replay_config_free(iolens_replay_config *cfg)
{
    if (!cfg)
        return;
    rp_table_release(&rp_config_table, cfg);
    free(cfg);
}

size_t iolens_replay_config_count(const iolens_replay_config *cfg) { return cfg->nfile_configs; }

int iolens_replay_config_nranks(const iolens_replay_config *cfg) { return cfg->nranks > 0 ? (int)cfg->nranks : 0; }

int iolens_replay_config_needs_mpi(const iolens_replay_config *cfg)
{
    for (size_t i = 0; i < cfg->nfile_configs; i++)
        if (cfg->file_configs[i].interface == RP_MPIIO || cfg->file_configs[i].interface == RP_HDF5)
            return 1;
    return 0;
}

int iolens_replay_config_needs_hdf5(const iolens_replay_config *cfg)
{
    for (size_t i = 0; i < cfg->nfile_configs; i++)
        if (cfg->file_configs[i].interface == RP_HDF5)
            return 1;
    return 0;
}

int iolens_replay_config_write(const iolens_replay_config *cfg, FILE *out)
{
    json_t *j = rp_table_to_json(&rp_config_table, cfg);
    /* reals with 15 significant digits when every value reads back equal (4.05e-07, not
     * 4.0499999999999999e-07), else with jansson's 17 */
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
    char *s15 = j ? json_dumps(j, flags | JSON_REAL_PRECISION(15)) : NULL;
    json_t *back = s15 ? json_loads(s15, 0, NULL) : NULL;
    int rc;
    if (back && json_equal(back, j))
        rc = fputs(s15, out) < 0 ? -1 : 0;
    else
        rc = j ? json_dumpf(j, out, flags) : -1;
    json_decref(back);
    free(s15);
    json_decref(j);
    fputc('\n', out);
    return rc == 0 ? 0 : iol_err(IOLENS_EIO, "cannot write the config");
}

int iolens_replay_schema_write(FILE *out)
{
    json_t *s = rp_table_schema(&rp_config_table);
    json_object_set_new(s, "$schema", json_string("https://json-schema.org/draft/2020-12/schema"));
    json_object_set_new(s, "$id", json_string("https://iolens.invalid/replay-config.schema.json"));
    int rc = json_dumpf(s, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(s);
    fputc('\n', out);
    return rc == 0 ? 0 : iol_err(IOLENS_EIO, "cannot write the schema");
}
