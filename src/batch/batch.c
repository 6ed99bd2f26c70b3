/*
 * iolens batch (include/iolens/batch.h): the per-log tasks over many logs.
 *
 * Every rank takes blocks of logs from one counter (on rank 0, read and advanced with MPI
 * one-sided fetch-and-add, so no rank waits for a master and rank 0 works too), hands each
 * log to its worker process and writes the worker's rows to its own part files. The worker
 * is a fork of the rank that never calls MPI: a log that crashes it or runs past the timeout
 * is killed with it and reported, and the next log gets a new worker. After a log's rows are
 * flushed its line goes to the rank's manifest, so a run killed at any point resumes from
 * the manifests (a log whose rows were written but not its manifest line is done again; the
 * merge keeps one copy of each index).
 */
#define _GNU_SOURCE
#include "iolens/batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef IOLENS_HAVE_MPI
#include <mpi.h>
#endif

#include "batch/internal.h"
#include "darshan/internal.h"
#include "iolens/darshan.h"
#include "iolens/detect.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IOL_HAS_ASAN 1
#endif
#endif
#ifndef IOL_HAS_ASAN
#define IOL_HAS_ASAN 0
#endif

static const char *const task_names[] = {"summary", "features", "detect", "heatmap"};
#define NTASKS 4

int iolens_batch_tasks_parse(const char *list, unsigned *tasks)
{
    *tasks = 0;
    const char *p = list ? list : "";
    while (*p) {
        size_t n = strcspn(p, ",");
        int k = -1;
        for (int t = 0; t < NTASKS; t++)
            if (strlen(task_names[t]) == n && !strncmp(p, task_names[t], n))
                k = t;
        if (n == 3 && !strncmp(p, "all", 3)) {
            *tasks |= IOLENS_BATCH_ALL;
        } else if (k < 0) {
            return iol_err(IOLENS_EINVAL, "unknown task '%.*s' (summary, features, detect, heatmap, all)", (int)n, p);
        } else {
            *tasks |= 1u << k;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return *tasks ? 0 : iol_err(IOLENS_EINVAL, "no task given (summary, features, detect, all)");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the input list ------------------------------------------------------------------- */

void iol_batch_list_free(struct iol_batch_list *l)
{
    free(l->buf);
    free(l->off);
    memset(l, 0, sizeof *l);
}

static int list_push(struct iol_batch_list *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 1024;
        size_t *no = realloc(l->off, nc * sizeof *no);
        if (!no)
            return -1;
        l->off = no;
        l->cap = nc;
    }
    if (l->len + len + 1 > l->bufcap) {
        size_t nc = l->bufcap ? l->bufcap : 65536;
        while (nc < l->len + len + 1)
            nc *= 2;
        char *nb = realloc(l->buf, nc);
        if (!nb)
            return -1;
        l->buf = nb;
        l->bufcap = nc;
    }
    memcpy(l->buf + l->len, s, len);
    l->buf[l->len + len] = '\0';
    l->off[l->n++] = l->len;
    l->len += len + 1;
    return 0;
}

/* out_dir/inputs.txt: one log per line */
int iol_batch_list_read(const char *dir, struct iol_batch_list *l)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/inputs.txt", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s (not a batch folder?)", p, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    long long at = 0;
    while ((got = getline(&line, &cap, f)) > 0) {
        if (line[got - 1] != '\n') {
            rc = iol_err(IOLENS_EFORMAT, "cannot read '%s': truncated last line at byte %lld", p, at);
            break;
        }
        if (list_push(l, line, (size_t)got - 1) < 0) {
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            break;
        }
        at += got;
    }
    free(line);
    fclose(f);
    if (rc < 0) /* nothing half-read is handed back */
        iol_batch_list_free(l);
    return rc;
}

/* ---- folders and part files --------------------------------------------------------------- */

static int mkdir_p(const char *dir)
{
    return iol_mkdir_p(dir) == 0 ? 0 : iol_err(IOLENS_EIO, "cannot create '%s': %s", dir, strerror(errno));
}

/* The highest run number G of out_dir's manifests done.R.G, or -1. */
static int last_generation(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int g = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        int r, x, n = 0;
        if (sscanf(e->d_name, "done.%d.%d%n", &r, &x, &n) == 2 && e->d_name[n] == '\0' && x > g)
            g = x;
    }
    closedir(d);
    return g;
}

/* Marks in done[] (one byte per log) the logs of every manifest of dir. */
int iol_batch_read_manifests(const char *dir, unsigned char *done, size_t n, uint64_t *ndone)
{
    DIR *d = opendir(dir);
    if (!d)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    *ndone = 0;
    while (rc == 0 && (e = readdir(d))) {
        int r, x, k = 0;
        if (sscanf(e->d_name, "done.%d.%d%n", &r, &x, &k) != 2 || e->d_name[k] != '\0')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) {
            rc = iol_err(IOLENS_EIO, "cannot open '%s': %s", p, strerror(errno));
            break;
        }
        char line[128];
        while (fgets(line, sizeof line, f)) {
            size_t len = strlen(line);
            unsigned long long idx;
            char st[16];
            if (len == 0 || line[len - 1] != '\n') /* the line being written when the run stopped */
                break;
            if (sscanf(line, "%llu %15s", &idx, st) == 2 && idx < n && !done[idx]) {
                done[idx] = !strcmp(st, "ok") ? 1 : 2;
                (*ndone)++;
            }
        }
        fclose(f);
    }
    closedir(d);
    return rc;
}

/* ---- the worker ------------------------------------------------------------------------------ */

static int write_full(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_until(int fd, void *p, size_t n, double deadline);

/* Reads n bytes, waiting as long as it takes: 0, or -1 at the end of the file. */
static int read_full(int fd, void *p, size_t n)
{
    return read_until(fd, p, n, INFINITY) == 0 ? 0 : -1;
}

struct batch_ctx {
    const iolens_batch_options *o;
    unsigned tasks;
    double timeout;
    size_t max_mem;
};

/* "heatmap": [{"api", "bin_width_s", "read_bytes": [...], "write_bytes": [...], "active_ranks": [...]}] */
static void heatmap_jsonw(iol_jsonw *w, const iolens_darshan_heatmap *h)
{
    iol_jsonw_key(w, "heatmap");
    iol_jsonw_arr_begin(w);
    for (size_t k = 0; k < h->n; k++) {
        const iolens_darshan_heatmap_series *c = &h->series[k];
        iol_jsonw_obj_begin(w);
        iol_jsonw_key(w, "api");
        iol_jsonw_str(w, c->api);
        iol_jsonw_key(w, "bin_width_s");
        iol_jsonw_double(w, c->bin_width);
        const int64_t *cols[3] = {c->read_bytes, c->write_bytes, c->active_ranks};
        static const char *const names[3] = {"read_bytes", "write_bytes", "active_ranks"};
        for (int j = 0; j < 3; j++) {
            iol_jsonw_key(w, names[j]);
            iol_jsonw_arr_begin(w);
            for (int64_t b = 0; b < c->nbins; b++)
                iol_jsonw_int(w, cols[j][b]);
            iol_jsonw_arr_end(w);
        }
        iol_jsonw_obj_end(w);
    }
    iol_jsonw_arr_end(w);
}

/* The rows of one log into mem (u32 length + bytes, csv then json, per task), or the reason. */
static int do_log(const struct batch_ctx *c, iolens_detect_model *model, uint64_t index, const char *path,
                  char **mem, size_t *memlen)
{
    FILE *out = open_memstream(mem, memlen);
    if (!out)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    int rc = 0;
    char *csv = NULL, *js = NULL;
    size_t csvn = 0, jsn = 0;
    iolens_detect_input *in = NULL;
    double x[IOLENS_DETECT_NFEATURES];
    int nfiles = 0;
    if (c->tasks & (IOLENS_BATCH_FEATURES | IOLENS_BATCH_DETECT)) {
        iolens_detect_read_opts ro;
        iolens_detect_read_opts_init(&ro);
        iolens_detect_file top[5];
        if ((rc = iolens_detect_read(&in, path, &ro)) < 0 || (rc = iolens_detect_input_features(in, x)) < 0 ||
            (rc = nfiles = iolens_detect_input_top_files(in, top, 5)) < 0)
            goto out;
        rc = 0; /* (the number of files, not a status) */
    }
    for (int t = 0; t < NTASKS && rc >= 0; t++) {
        if (!(c->tasks & (1u << t)))
            continue;
        FILE *fc = open_memstream(&csv, &csvn), *fj = fc ? open_memstream(&js, &jsn) : NULL;
        if (!fc || !fj) {
            if (fc)
                fclose(fc);
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
            goto out;
        }
        iol_jsonw w;
        iol_jsonw_init(&w, fj, 0);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "index");
        iol_jsonw_uint(&w, index);
        iol_jsonw_key(&w, "log");
        iol_jsonw_str(&w, path);
        if (t == 3) { /* heatmap: one CSV row per API and bin, one JSON object of arrays */
            iolens_darshan_heatmap h;
            if ((rc = iolens_darshan_heatmap_read(path, &h)) == 0) {
                char prefix[24];
                snprintf(prefix, sizeof prefix, "%" PRIu64, index);
                iolens_darshan_heatmap_csv_rows(fc, &h, prefix, path);
                heatmap_jsonw(&w, &h);
                iolens_darshan_heatmap_release(&h);
            }
        } else {
            fprintf(fc, "%" PRIu64 ",", index);
            iol_csv_field(fc, path);
            fputc(',', fc);
        }
        if (t == 0) {
            iolens_darshan_summary s;
            if ((rc = iolens_darshan_summarize(path, &s)) == 0) {
                iolens_darshan_summary_csv_row(fc, &s);
                iol_darshan_summary_jsonw(&w, &s);
                iolens_darshan_summary_release(&s);
            }
        } else if (t == 1) {
            iol_jsonw_key(&w, "features");
            iol_jsonw_obj_begin(&w);
            for (int f = 0; f < IOLENS_DETECT_NFEATURES; f++) {
                char b[40];
                iol_fmt_double(b, sizeof b, x[f]);
                fprintf(fc, "%s%s", f ? "," : "", b);
                iol_jsonw_key(&w, iolens_detect_feature_name(f));
                iol_jsonw_double(&w, x[f]);
            }
            iol_jsonw_obj_end(&w);
            fputc('\n', fc);
        } else if (t == 2) {
            iolens_detect_diagnosis dg;
            if ((rc = iolens_detect_diagnose(model, x, nfiles, c->o->tau, &dg)) == 0) {
                iol_jsonw_key(&w, "probabilities");
                iol_jsonw_obj_begin(&w);
                for (int l = 0; l < IOLENS_DETECT_NLABELS; l++) {
                    fprintf(fc, "%.6f,", dg.probs[l]);
                    iol_jsonw_key(&w, iolens_detect_label_name(l));
                    iol_jsonw_double(&w, dg.probs[l]);
                }
                iol_jsonw_obj_end(&w);
                iol_jsonw_key(&w, "detected");
                iol_jsonw_arr_begin(&w);
                int k = 0;
                for (int p = 0; p < IOLENS_DETECT_NPATTERNS; p++)
                    if (dg.presented & (1u << p)) {
                        fprintf(fc, "%s%s", k++ ? ";" : "", iolens_detect_label_name(p));
                        iol_jsonw_str(&w, iolens_detect_label_name(p));
                    }
                iol_jsonw_arr_end(&w);
                fputc('\n', fc);
            }
        }
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
        fclose(fc);
        fclose(fj);
        if (rc == 0) {
            uint32_t a = (uint32_t)csvn, b = (uint32_t)jsn;
            fwrite(&a, 4, 1, out);
            fwrite(csv, 1, csvn, out);
            fwrite(&b, 4, 1, out);
            fwrite(js, 1, jsn, out);
        }
        free(csv);
        free(js);
        csv = js = NULL;
    }
out:
    iolens_detect_input_free(in);
    if (fclose(out) != 0 && rc == 0)
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
    return rc;
}

static const char *models_dir(const iolens_batch_options *o)
{
    return o->models ? o->models : iolens_detect_default_models_dir();
}

#if !defined(__SANITIZE_ADDRESS__) && !IOL_HAS_ASAN
/* Current data size of this process (VmData, bytes), 0 if unknown. */
static size_t vm_data(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    size_t kib = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %zu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib * 1024;
}
#endif

/* The worker's loop: requests (u64 index, u32 length, path) on in; responses (u64 index,
 * u32 status 0 ok / 1 error / 2 the worker cannot work: models, u32 length, payload) on
 * out. Never returns. */
static void worker_main(const struct batch_ctx *c, int in, int out)
{
    signal(SIGPIPE, SIG_DFL);
#if !defined(__SANITIZE_ADDRESS__) && !IOL_HAS_ASAN
    /* (not under AddressSanitizer, whose allocator maps its own large regions) */
    struct rlimit rl;
    size_t base = vm_data();
    rl.rlim_cur = rl.rlim_max = (rlim_t)(base + c->max_mem);
    setrlimit(RLIMIT_DATA, &rl);
#endif
    iolens_detect_model *model = NULL;
    char *load_error = NULL;
    if ((c->tasks & IOLENS_BATCH_DETECT) && iolens_detect_model_load(&model, models_dir(c->o)) < 0)
        load_error = strdup(iolens_error_last());
    char *path = NULL;
    for (;;) {
        uint64_t idx;
        uint32_t len;
        if (read_full(in, &idx, 8) < 0 || read_full(in, &len, 4) < 0 || len > 65536)
            break;
        free(path);
        if (!(path = malloc((size_t)len + 1)) || read_full(in, path, len) < 0)
            break;
        path[len] = '\0';
        char *mem = NULL;
        size_t memlen = 0;
        uint32_t st = 0;
        const char *reason = NULL;
        if (load_error) { /* models that do not load fail the run (status 2), not every log */
            reason = load_error;
            st = 2;
        }
        else if (do_log(c, model, idx, path, &mem, &memlen) < 0)
            reason = iolens_error_last();
        if (reason) {
            st = st ? st : 1;
            free(mem);
            mem = strdup(reason);
            memlen = mem ? strlen(mem) : 0;
        }
        uint32_t n = (uint32_t)memlen;
        int bad = write_full(out, &idx, 8) < 0 || write_full(out, &st, 4) < 0 || write_full(out, &n, 4) < 0 ||
                  write_full(out, mem ? mem : "", memlen) < 0;
        free(mem);
        if (bad)
            break;
    }
    _exit(0);
}

struct worker {
    pid_t pid;
    int req, res;
};

static int worker_start(struct worker *w, const struct batch_ctx *c)
{
    int a[2], b[2];
    if (pipe2(a, O_CLOEXEC) < 0)
        return iol_err(IOLENS_EIO, "cannot create a pipe: %s", strerror(errno));
    if (pipe2(b, O_CLOEXEC) < 0) {
        close(a[0]);
        close(a[1]);
        return iol_err(IOLENS_EIO, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(a[0]), close(a[1]), close(b[0]), close(b[1]);
        return iol_err(IOLENS_EIO, "cannot start a worker: %s", strerror(errno));
    }
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        worker_main(c, a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    w->pid = pid;
    w->req = a[1];
    w->res = b[0];
    return 0;
}

static void worker_stop(struct worker *w, int kill_it)
{
    if (w->pid <= 0)
        return;
    close(w->req);
    if (kill_it)
        kill(w->pid, SIGKILL);
    int st;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
    close(w->res);
    w->pid = 0;
}

/* Reads n bytes before the deadline: 0, -1 end of file (the worker died), -2 timed out. */
static int read_until(int fd, void *p, size_t n, double deadline)
{
    char *s = p;
    while (n) {
        double left = deadline - now();
        if (left <= 0)
            return -2;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, left > 2e6 ? 2000000000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t r = read(fd, s, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        s += r;
        n -= (size_t)r;
    }
    return 0;
}

/* ---- a rank's part files ----------------------------------------------------------------------- */

struct parts {
    FILE *csv[NTASKS], *jsonl[NTASKS];
    FILE *ecsv, *ejsonl, *done;
};

static FILE *part_open(const char *dir, const char *stem, int rank, int gen, const char *ext)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s.%d.%d.%s", dir, stem, rank, gen, ext);
    FILE *f = fopen(p, "w");
    if (!f)
        iol_err(IOLENS_EIO, "cannot create '%s': %s", p, strerror(errno));
    return f;
}

void iol_batch_csv_header(FILE *f, int task)
{
    if (task == 0) {
        iolens_darshan_summary_csv_header(f, "index,log");
    } else if (task == 1) {
        fputs("index,log", f);
        for (int k = 0; k < IOLENS_DETECT_NFEATURES; k++)
            fprintf(f, ",%s", iolens_detect_feature_name(k));
        fputc('\n', f);
    } else if (task == 2) {
        fputs("index,log", f);
        for (int l = 0; l < IOLENS_DETECT_NLABELS; l++)
            fprintf(f, ",%s", iolens_detect_label_name(l));
        fputs(",detected\n", f);
    } else {
        iolens_darshan_heatmap_csv_header(f, "index");
    }
}

static int parts_open(struct parts *p, const char *dir, unsigned tasks, int rank, int gen)
{
    memset(p, 0, sizeof *p);
    for (int t = 0; t < NTASKS; t++) {
        if (!(tasks & (1u << t)))
            continue;
        if (!(p->csv[t] = part_open(dir, task_names[t], rank, gen, "csv")) ||
            !(p->jsonl[t] = part_open(dir, task_names[t], rank, gen, "jsonl")))
            return IOLENS_EIO;
        iol_batch_csv_header(p->csv[t], t);
    }
    char dn[64];
    snprintf(dn, sizeof dn, "done.%d.%d", rank, gen);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, dn);
    if (!(p->ecsv = part_open(dir, "errors", rank, gen, "csv")) ||
        !(p->ejsonl = part_open(dir, "errors", rank, gen, "jsonl")))
        return IOLENS_EIO;
    if (!(p->done = fopen(path, "w")))
        return iol_err(IOLENS_EIO, "cannot create '%s': %s", path, strerror(errno));
    fputs("index,log,reason\n", p->ecsv);
    return 0;
}

static int parts_close(struct parts *p)
{
    int bad = 0;
    for (int t = 0; t < NTASKS; t++) {
        if (p->csv[t])
            bad |= fclose(p->csv[t]) != 0;
        if (p->jsonl[t])
            bad |= fclose(p->jsonl[t]) != 0;
    }
    if (p->ecsv)
        bad |= fclose(p->ecsv) != 0;
    if (p->ejsonl)
        bad |= fclose(p->ejsonl) != 0;
    if (p->done)
        bad |= fclose(p->done) != 0;
    memset(p, 0, sizeof *p);
    return bad ? iol_err(IOLENS_EIO, "cannot write the part files: %s", strerror(errno)) : 0;
}

static int parts_error(struct parts *p, uint64_t idx, const char *path, const char *reason)
{
    fprintf(p->ecsv, "%" PRIu64 ",", idx);
    iol_csv_field(p->ecsv, path);
    fputc(',', p->ecsv);
    iol_csv_field(p->ecsv, reason);
    fputc('\n', p->ecsv);
    iol_jsonw w;
    iol_jsonw_init(&w, p->ejsonl, 0);
    iol_jsonw_obj_begin(&w);
    iol_jsonw_key(&w, "index");
    iol_jsonw_uint(&w, idx);
    iol_jsonw_key(&w, "log");
    iol_jsonw_str(&w, path);
    iol_jsonw_key(&w, "reason");
    iol_jsonw_str(&w, reason);
    iol_jsonw_obj_end(&w);
    iol_jsonw_finish(&w);
    int bad = fflush(p->ecsv) != 0 || fflush(p->ejsonl) != 0;
    fprintf(p->done, "%" PRIu64 " error\n", idx);
    bad |= fflush(p->done) != 0;
    return bad ? iol_err(IOLENS_EIO, "cannot write the part files: %s", strerror(errno)) : 0;
}

/* The worker's rows of one log into the part files, then its manifest line: 0, 1 when the
 * answer was unreadable and the log went to the errors file instead, or a negative IOLENS_E*. */
static int parts_rows(struct parts *p, unsigned tasks, uint64_t idx, const char *path, const char *mem, size_t n)
{
    for (int pass = 0; pass < 2; pass++) { /* checked whole, then written */
        size_t at = 0;
        for (int t = 0; t < NTASKS; t++) {
            if (!(tasks & (1u << t)))
                continue;
            for (int k = 0; k < 2; k++) {
                uint32_t len;
                if (n - at < 4 || (memcpy(&len, mem + at, 4), n - at - 4 < len)) {
                    int rc = parts_error(p, idx, path, "the worker's answer is cut short");
                    return rc < 0 ? rc : 1;
                }
                at += 4;
                if (pass)
                    fwrite(mem + at, 1, len, k ? p->jsonl[t] : p->csv[t]);
                at += len;
            }
        }
    }
    int bad = 0;
    for (int t = 0; t < NTASKS; t++)
        if (tasks & (1u << t))
            bad |= fflush(p->csv[t]) != 0 || fflush(p->jsonl[t]) != 0;
    fprintf(p->done, "%" PRIu64 " ok\n", idx);
    bad |= fflush(p->done) != 0;
    return bad ? iol_err(IOLENS_EIO, "cannot write the part files: %s", strerror(errno)) : 0;
}

/* ---- the run ---------------------------------------------------------------------------------------- */

static uint64_t peak_rss_kib(void)
{
    struct rusage a, b;
    uint64_t m = 0;
    if (getrusage(RUSAGE_SELF, &a) == 0)
        m = (uint64_t)a.ru_maxrss;
    if (getrusage(RUSAGE_CHILDREN, &b) == 0 && (uint64_t)b.ru_maxrss > m)
        m = (uint64_t)b.ru_maxrss;
    return m;
}

static int write_inputs(const char *dir, const char *const *inputs, size_t n)
{
    char p[4096], tmp[4200];
    snprintf(p, sizeof p, "%s/inputs.txt", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return iol_err(IOLENS_EIO, "cannot create '%s': %s", tmp, strerror(errno));
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\n", inputs[i]);
    if (fclose(f) != 0 || rename(tmp, p) != 0) {
        unlink(tmp);
        return iol_err(IOLENS_EIO, "cannot write '%s': %s", p, strerror(errno));
    }
    return 0;
}

/* out_dir/tasks.txt: the tasks of the run, written by its first run; a resumed run takes
 * them from there (and refuses other ones). */
static int tasks_file(const char *dir, int resume, unsigned *tasks)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/tasks.txt", dir);
    if (!resume) {
        FILE *f = fopen(p, "w");
        if (!f)
            return iol_err(IOLENS_EIO, "cannot create '%s': %s", p, strerror(errno));
        for (int t = 0, k = 0; t < NTASKS; t++)
            if (*tasks & (1u << t))
                fprintf(f, "%s%s", k++ ? "," : "", task_names[t]);
        fputc('\n', f);
        return fclose(f) == 0 ? 0 : iol_err(IOLENS_EIO, "cannot write '%s'", p);
    }
    FILE *f = fopen(p, "r");
    char line[256] = "";
    if (!f || !fgets(line, sizeof line, f)) {
        if (f)
            fclose(f);
        return iol_err(IOLENS_EIO, "cannot read '%s' (not a batch folder?)", p);
    }
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    unsigned was;
    if (iolens_batch_tasks_parse(line, &was) < 0)
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': bad task list '%s'", p, line);
    if (*tasks && *tasks != was)
        return iol_err(IOLENS_EINVAL, "'%s' was run with --do %s: a resumed run does the same tasks", dir, line);
    *tasks = was;
    return 0;
}

struct counter {
    int mpi;
    uint64_t local;
#ifdef IOLENS_HAVE_MPI
    MPI_Win win;
    int64_t *base;
#endif
};

static uint64_t counter_take(struct counter *c, uint64_t k)
{
#ifdef IOLENS_HAVE_MPI
    if (c->mpi) {
        int64_t add = (int64_t)k, old = 0;
        MPI_Fetch_and_op(&add, &old, MPI_INT64_T, 0, 0, MPI_SUM, c->win);
        MPI_Win_flush(0, c->win);
        return (uint64_t)old;
    }
#endif
    uint64_t old = c->local;
    c->local += k;
    return old;
}

int iolens_batch_run(const char *const *inputs, size_t n, const iolens_batch_options *o, iolens_batch_stats *st)
{
    iolens_batch_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    if (!o || !o->out_dir || (!o->tasks && !o->resume))
        return iol_err(IOLENS_EINVAL, "iolens_batch_run: no output folder or no task");
    double t0 = now();
    int rank = 0, size = 1;
#ifdef IOLENS_HAVE_MPI
    if (o->use_mpi) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
#endif
    unsigned tasks = o->tasks;
    struct batch_ctx c = {o, o->tasks, o->timeout > 0 ? o->timeout : 60, o->max_mem ? o->max_mem : (size_t)256 << 20};
    int block = o->block > 0 ? o->block : 8;
    struct iol_batch_list list = {0};
    unsigned char *done = NULL;
    uint64_t *todo = NULL;
    int rc = 0, gen = 0;
    /* rank 0 prepares the folder; every rank then reads the same list and manifests */
    if (rank == 0) {
        rc = mkdir_p(o->out_dir);
        int last = rc ? -1 : last_generation(o->out_dir);
        char p[4096];
        struct stat sb;
        snprintf(p, sizeof p, "%s/inputs.txt", o->out_dir);
        int has_list = stat(p, &sb) == 0;
        if (!rc && !o->resume && (has_list || last >= 0))
            rc = iol_err(IOLENS_EINVAL, "'%s' already holds a batch run: --resume continues it, or choose another folder",
                         o->out_dir);
        else if (!rc && o->resume && !has_list)
            rc = iol_err(IOLENS_EINVAL, "'%s' holds no batch run to resume (no inputs.txt)", o->out_dir);
        else if (!rc && !o->resume) {
            for (size_t i = 0; i < n && !rc; i++)
                if (strchr(inputs[i], '\n'))
                    rc = iol_err(IOLENS_EINVAL, "a log's path holds a line break: '%s'", inputs[i]);
            if (!rc)
                rc = write_inputs(o->out_dir, inputs, n);
        }
        gen = last + 1;
        if (!rc)
            rc = tasks_file(o->out_dir, o->resume, &tasks);
    }
#ifdef IOLENS_HAVE_MPI
    if (o->use_mpi && size > 1) {
        int v[3] = {rc, gen, (int)tasks};
        MPI_Bcast(v, 3, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank != 0 && v[0] < 0)
            rc = iol_err(v[0], "rank 0 could not prepare '%s'", o->out_dir);
        gen = v[1];
        tasks = (unsigned)v[2];
    }
#endif
    if (rc < 0)
        return rc;
    c.tasks = tasks;
    if ((rc = iol_batch_list_read(o->out_dir, &list)) < 0)
        return rc;
    if (o->resume && inputs && n && n != list.n) {
        iol_batch_list_free(&list);
        return iol_err(IOLENS_EINVAL, "'%s' was run over %zu logs, not these %zu: --resume takes no other inputs",
                       o->out_dir, list.n, n);
    }
    st->inputs = list.n;
    st->ranks = size;
    done = calloc(list.n ? list.n : 1, 1);
    todo = calloc(list.n ? list.n : 1, sizeof *todo);
    if (!done || !todo) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    /* from here on, a rank's failure must not skip the collective calls below */
    rc = iol_batch_read_manifests(o->out_dir, done, list.n, &st->done_before);
    size_t ntodo = 0;
    for (size_t i = 0; i < list.n && rc == 0; i++)
        if (!done[i])
            todo[ntodo++] = i;
    free(done);
    done = NULL;
#ifdef IOLENS_HAVE_MPI
    /* every rank must agree on the list before the counter starts */
    if (o->use_mpi && size > 1) {
        uint64_t v[3] = {list.n, ntodo, (uint64_t)(rc < 0)}, lo[3], hi[3];
        MPI_Allreduce(v, lo, 3, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(v, hi, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (rc == 0 && hi[2])
            rc = iol_err(IOLENS_EIO, "another rank could not read the manifests of '%s'", o->out_dir);
        else if (rc == 0 && (lo[0] != hi[0] || lo[1] != hi[1]))
            rc = iol_err(IOLENS_EINVAL, "the ranks read different lists or manifests in '%s' (a folder every rank "
                         "must see the same)", o->out_dir);
    }
#endif
    if (rc < 0)
        ntodo = 0; /* every rank leaves together */
    struct parts p;
    memset(&p, 0, sizeof p);
    if (rc == 0 && (rc = parts_open(&p, o->out_dir, tasks, rank, gen)) < 0)
        ntodo = 0;
    struct counter cnt = {0};
#ifdef IOLENS_HAVE_MPI
    if (o->use_mpi && size > 1) {
        cnt.mpi = 1;
        MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &cnt.base, &cnt.win);
        if (rank == 0)
            *cnt.base = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, cnt.win);
    }
#endif
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    struct worker w = {0};
    uint64_t handed = 0;
    for (;;) {
        uint64_t first = counter_take(&cnt, (uint64_t)block);
        handed = first + (uint64_t)block;
        if (first >= ntodo || rc < 0)
            break;
        uint64_t last = first + (uint64_t)block < ntodo ? first + (uint64_t)block : ntodo;
        for (uint64_t k = first; k < last && rc == 0; k++) {
            uint64_t idx = todo[k];
            const char *path = list.buf + list.off[idx];
            if (!w.pid && (rc = worker_start(&w, &c)) < 0)
                break;
            uint32_t len = (uint32_t)strlen(path);
            uint64_t ridx = 0;
            uint32_t rst = 0, rlen = 0;
            char *mem = NULL;
            double deadline = now() + c.timeout;
            int got = write_full(w.req, &idx, 8) < 0 || write_full(w.req, &len, 4) < 0 ||
                              write_full(w.req, path, len) < 0
                          ? -1
                          : 0;
            if (got == 0)
                got = read_until(w.res, &ridx, 8, deadline);
            if (got == 0)
                got = read_until(w.res, &rst, 4, deadline);
            if (got == 0)
                got = read_until(w.res, &rlen, 4, deadline);
            if (got == 0 && ridx != idx)
                got = -1;
            if (got == 0 && !(mem = malloc((size_t)rlen + 1)))
                got = -3;
            if (got == 0)
                got = read_until(w.res, mem, rlen, deadline);
            if (got == 0 && rst == 2) {
                mem[rlen] = '\0';
                rc = iol_err(IOLENS_EINVAL, "detect: %s", mem);
            } else if (got == 0) {
                if (rst == 0) {
                    if ((rc = parts_rows(&p, tasks, idx, path, mem, rlen)) == 1) {
                        st->errors++;
                        rc = 0;
                    } else
                        st->ok++;
                } else {
                    mem[rlen] = '\0';
                    rc = parts_error(&p, idx, path, mem);
                    st->errors++;
                }
            } else {
                char reason[256];
                if (got == -2) {
                    snprintf(reason, sizeof reason, "timed out: no result after %g s (the reader was stopped)",
                             c.timeout);
                    st->timeouts++;
                    worker_stop(&w, 1);
                } else if (got == -3) {
                    snprintf(reason, sizeof reason, "out of memory for the worker's answer of %" PRIu32 " bytes",
                             rlen);
                    worker_stop(&w, 1);
                } else {
                    pid_t pid = w.pid;
                    close(w.req);
                    int ws = 0;
                    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
                    }
                    close(w.res);
                    w.pid = 0;
                    if (WIFSIGNALED(ws))
                        snprintf(reason, sizeof reason, "the reader crashed: signal %d (%s)", WTERMSIG(ws),
                                 strsignal(WTERMSIG(ws)));
                    else
                        snprintf(reason, sizeof reason, "the reader stopped (exit status %d)",
                                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
                    st->crashed++;
                }
                rc = parts_error(&p, idx, path, reason);
                st->errors++;
            }
            free(mem);
            if (rank == 0 && o->progress)
                o->progress(o->progress_ctx, handed < ntodo ? handed : ntodo, ntodo);
        }
    }
    worker_stop(&w, 0);
    signal(SIGPIPE, old_pipe);
    int crc = parts_close(&p);
    if (rc == 0)
        rc = crc;
    st->peak_rss_kib = peak_rss_kib();
#ifdef IOLENS_HAVE_MPI
    if (cnt.mpi) {
        MPI_Win_unlock_all(cnt.win);
        MPI_Win_free(&cnt.win);
        uint64_t v[5] = {st->ok, st->errors, st->crashed, st->timeouts, (uint64_t)(rc < 0)};
        MPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &st->peak_rss_kib, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        st->ok = v[0], st->errors = v[1], st->crashed = v[2], st->timeouts = v[3];
        if (rc == 0 && v[4])
            rc = iol_err(IOLENS_EIO, "%" PRIu64 " rank(s) failed", v[4]);
    }
#endif
    if (rank == 0 && o->progress)
        o->progress(o->progress_ctx, ntodo, ntodo);
out:
    st->seconds = now() - t0;
    free(done);
    free(todo);
    iol_batch_list_free(&list);
    return rc;
}
