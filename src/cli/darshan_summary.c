/* `iolens darshan --summary`: one CSV row (or JSON object) per log, over many
 * logs read in parallel by a few threads. Logs are streamed (DXT regions are
 * never decoded), so memory per thread is one record plus the set of file ids. */
#define _DEFAULT_SOURCE
#include "darshan_modes.h"

#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/jsonw.h"

/* modules with per-module volume/time columns, and their counter prefix */
static const struct {
    int module;
    const char *col; /* column prefix */
    const char *pfx; /* counter prefix */
} io_mods[] = {
    {IOLENS_DARSHAN_POSIX, "posix", "POSIX"},
    {IOLENS_DARSHAN_MPIIO, "mpiio", "MPIIO"},
    {IOLENS_DARSHAN_STDIO, "stdio", "STDIO"},
    {IOLENS_DARSHAN_H5D, "h5d", "H5D"},
    {IOLENS_DARSHAN_PNETCDF_VAR, "pnetcdf_var", "PNETCDF_VAR"},
    {IOLENS_DARSHAN_DFS, "dfs", "DFS"},
    {IOLENS_DARSHAN_DAOS, "daos", "DAOS"},
};
#define N_IO_MODS (sizeof io_mods / sizeof *io_mods)

/* modules whose records are files (their distinct ids are counted) */
static int is_file_module(int m)
{
    return m == IOLENS_DARSHAN_POSIX || m == IOLENS_DARSHAN_MPIIO || m == IOLENS_DARSHAN_STDIO ||
           m == IOLENS_DARSHAN_H5F || m == IOLENS_DARSHAN_PNETCDF_FILE || m == IOLENS_DARSHAN_DFS ||
           m == IOLENS_DARSHAN_DAOS;
}

struct mod_sum {
    int present;
    int64_t records;
    int64_t bytes_read, bytes_written;
    double read_time, write_time, meta_time;
};

struct log_sum {
    const char *path;
    int ok;
    char *error;
    char version[9];
    int64_t jobid, uid, nprocs, start_time, end_time;
    double run_time;
    char *exe;
    uint64_t partial_flag;
    int64_t files;
    struct mod_sum mod[N_IO_MODS];
};

/* ---- a set of 64-bit ids (open addressing) --------------------------------- */

struct idset {
    uint64_t *slot;
    size_t cap, n;
    int has_zero;
};

static int idset_add(struct idset *s, uint64_t id)
{
    if (id == 0) {
        s->has_zero = 1;
        return 0;
    }
    if ((s->n + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint64_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t h = (size_t)(s->slot[i] * 0x9E3779B97F4A7C15ull) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->cap = ncap;
    }
    size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->slot[h] && s->slot[h] != id)
        h = (h + 1) & (s->cap - 1);
    if (!s->slot[h]) {
        s->slot[h] = id;
        s->n++;
    }
    return 0;
}

/* ---- one log ---------------------------------------------------------------- */

static double fget(const iolens_darshan_record *r, int idx)
{
    return idx >= 0 && (size_t)idx < r->nfcounters && r->fcounters[idx] > 0 ? r->fcounters[idx] : 0;
}

static int64_t iget(const iolens_darshan_record *r, int idx)
{
    return idx >= 0 && (size_t)idx < r->ncounters && r->counters[idx] > 0 ? r->counters[idx] : 0;
}

static int summarize(struct log_sum *s)
{
    iolens_darshan_log *log = NULL;
    struct idset ids = {0};
    int rc = iolens_darshan_open(s->path, NULL, NULL, &log);
    if (rc < 0)
        goto out;
    const iolens_darshan_header *h = iolens_darshan_header_get(log);
    const iolens_darshan_job *j = iolens_darshan_job_get(log);
    snprintf(s->version, sizeof s->version, "%s", h->version);
    s->jobid = j->jobid;
    s->uid = j->uid;
    s->nprocs = j->nprocs;
    s->start_time = j->start_time_sec;
    s->end_time = j->end_time_sec;
    s->run_time = j->run_time;
    s->partial_flag = h->partial_flag;
    s->exe = strdup(j->exe);
    if (!s->exe) {
        rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", s->path);
        goto out;
    }
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++) {
        size_t k;
        for (k = 0; k < N_IO_MODS && io_mods[k].module != m; k++)
            ;
        if (k == N_IO_MODS && !is_file_module(m))
            continue;
        if ((rc = iolens_darshan_module_begin(log, m)) < 0)
            goto out;
        if (rc == 0)
            continue;
        struct mod_sum *ms = k < N_IO_MODS ? &s->mod[k] : NULL;
        int ibr = -1, ibw = -1, frt = -1, fwt = -1, fmt = -1;
        if (ms) {
            char name[64];
            ms->present = 1;
            snprintf(name, sizeof name, "%s_BYTES_READ", io_mods[k].pfx);
            ibr = iolens_darshan_counter_index(m, name, NULL);
            snprintf(name, sizeof name, "%s_BYTES_WRITTEN", io_mods[k].pfx);
            ibw = iolens_darshan_counter_index(m, name, NULL);
            snprintf(name, sizeof name, "%s_F_READ_TIME", io_mods[k].pfx);
            frt = iolens_darshan_counter_index(m, name, NULL);
            snprintf(name, sizeof name, "%s_F_WRITE_TIME", io_mods[k].pfx);
            fwt = iolens_darshan_counter_index(m, name, NULL);
            snprintf(name, sizeof name, "%s_F_META_TIME", io_mods[k].pfx);
            fmt = iolens_darshan_counter_index(m, name, NULL);
        }
        const iolens_darshan_record *r;
        while ((rc = iolens_darshan_record_next(log, &r)) > 0) {
            if (is_file_module(m) && idset_add(&ids, r->id) < 0) {
                rc = iol_err(IOLENS_ENOMEM, "cannot read '%s': out of memory", s->path);
                goto out;
            }
            if (!ms)
                continue;
            ms->records++;
            ms->bytes_read = (int64_t)((uint64_t)ms->bytes_read + (uint64_t)iget(r, ibr));
            ms->bytes_written = (int64_t)((uint64_t)ms->bytes_written + (uint64_t)iget(r, ibw));
            ms->read_time += fget(r, frt);
            ms->write_time += fget(r, fwt);
            ms->meta_time += fget(r, fmt);
        }
        if (rc < 0)
            goto out;
    }
    s->files = (int64_t)(ids.n + (size_t)ids.has_zero);
    rc = 0;
out:
    free(ids.slot);
    iolens_darshan_close(log);
    return rc;
}

/* ---- the work queue ------------------------------------------------------------ */

struct pool {
    struct log_sum *logs;
    size_t n, next;
    pthread_mutex_t lock;
    cli_progress progress;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            break;
        struct log_sum *s = &p->logs[i];
        if (summarize(s) < 0) {
            s->error = strdup(iolens_error_last());
        } else {
            s->ok = 1;
        }
        pthread_mutex_lock(&p->lock);
        cli_progress_step(&p->progress, 1);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- finding logs ------------------------------------------------------------------- */

struct pathlist {
    char **v;
    size_t n, cap;
};

static int push(struct pathlist *l, const char *path)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    if (!(l->v[l->n] = strdup(path)))
        return -1;
    l->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* Directories already walked, by device and inode: a folder reached twice (a link to a
 * parent, a bind mount) is listed once and a loop ends. */
struct seen {
    dev_t *dev;
    ino_t *ino;
    size_t n, cap;
};

static int seen_before(struct seen *s, const struct stat *st)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->dev[i] == st->st_dev && s->ino[i] == st->st_ino)
            return 1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        dev_t *d = realloc(s->dev, cap * sizeof *d);
        if (d)
            s->dev = d;
        ino_t *i = d ? realloc(s->ino, cap * sizeof *i) : NULL;
        if (!i)
            return -1;
        s->ino = i;
        s->cap = cap;
    }
    s->dev[s->n] = st->st_dev;
    s->ino[s->n++] = st->st_ino;
    return 0;
}

static int follow_links;

/* Appends the *.darshan files under dir (recursively), sorted. Symbolic links to
 * directories are not followed unless --follow-links; links to logs are. */
static int walk(struct pathlist *l, const char *dir, int depth, struct seen *seen)
{
    struct stat dst;
    if (depth > 64 || stat(dir, &dst) != 0)
        return 0;
    int sb = seen_before(seen, &dst);
    if (sb)
        return sb < 0 ? -1 : 0;
    DIR *d = opendir(dir);
    if (!d) {
        cli_warn("cannot open directory '%s': %s", dir, strerror(errno));
        return 0;
    }
    struct pathlist here = {0};
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = -1;
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st, lst;
        int link = lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode);
        if (stat(p, &st) == 0 &&
            ((S_ISDIR(st.st_mode) && (!link || follow_links)) || (S_ISREG(st.st_mode) && has_suffix(p, ".darshan"))))
            rc = push(&here, p);
        free(p);
        if (rc < 0)
            break;
    }
    closedir(d);
    if (here.n)
        qsort(here.v, here.n, sizeof *here.v, cmp_str);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        if (rc == 0) {
            if (stat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode))
                rc = walk(l, here.v[i], depth + 1, seen);
            else
                rc = push(l, here.v[i]);
        }
        free(here.v[i]);
    }
    free(here.v);
    return rc;
}

static int is_recorder_dir(const char *dir)
{
    static const char *const marks[] = {"VERSION", "recorder.mt", "recorder.dat"};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        char p[4096];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, marks[i]) < sizeof p && stat(p, &st) == 0)
            return 1;
    }
    return 0;
}

char **iol_darshan_expand_inputs(int n, char **paths, int *nout)
{
    struct pathlist l = {0};
    struct seen seen = {0};
    follow_links = 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) && !is_recorder_dir(paths[i])) {
            size_t before = l.n;
            ok = walk(&l, paths[i], 0, &seen) == 0;
            if (ok && l.n == before) {
                cli_error("'%s' is a directory without Darshan logs (*.darshan) and not a Recorder trace", paths[i]);
                ok = 0;
                l.n = before;
                goto done;
            }
        } else {
            ok = push(&l, paths[i]) == 0;
        }
        if (!ok)
            cli_error("out of memory");
    }
done:
    free(seen.dev);
    free(seen.ino);
    if (!ok) {
        iol_darshan_inputs_free(l.v, (int)l.n);
        return NULL;
    }
    *nout = (int)l.n;
    if (!l.v)
        l.v = calloc(1, sizeof *l.v);
    return l.v;
}

void iol_darshan_inputs_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* ---- output ------------------------------------------------------------------------- */

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void partial_modules(uint64_t flag, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT && m < 64; m++) {
        if (!((flag >> m) & 1))
            continue;
        int w = snprintf(buf + k, n - k, "%s%s", k ? ";" : "", iolens_darshan_module_name(m));
        if (w < 0 || (size_t)w >= n - k)
            break;
        k += (size_t)w;
    }
}

static void print_csv(FILE *out, const struct log_sum *logs, size_t n)
{
    fputs("log,version,jobid,uid,exe,nprocs,start_time,end_time,run_time,files", out);
    for (size_t k = 0; k < N_IO_MODS; k++)
        fprintf(out, ",%s_records,%s_bytes_read,%s_bytes_written,%s_read_time,%s_write_time,%s_meta_time",
                io_mods[k].col, io_mods[k].col, io_mods[k].col, io_mods[k].col, io_mods[k].col,
                io_mods[k].col);
    fputs(",partial_flag,partial_modules\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct log_sum *s = &logs[i];
        if (!s->ok)
            continue;
        csv_field(out, s->path);
        fprintf(out, ",%s,%" PRId64 ",%" PRId64 ",", s->version, s->jobid, s->uid);
        csv_field(out, s->exe);
        fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.4f,%" PRId64, s->nprocs, s->start_time,
                s->end_time, s->run_time, s->files);
        for (size_t k = 0; k < N_IO_MODS; k++) {
            const struct mod_sum *m = &s->mod[k];
            if (!m->present)
                fputs(",,,,,,", out);
            else
                fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6f,%.6f,%.6f", m->records,
                        m->bytes_read, m->bytes_written, m->read_time, m->write_time, m->meta_time);
        }
        char pm[512];
        partial_modules(s->partial_flag, pm, sizeof pm);
        fprintf(out, ",%" PRIu64 ",%s\n", s->partial_flag, pm);
    }
}

static void print_json(FILE *out, const struct log_sum *logs, size_t n)
{
    iol_jsonw w;
    iol_jsonw_init(&w, out, 1);
    iol_jsonw_arr_begin(&w);
    for (size_t i = 0; i < n; i++) {
        const struct log_sum *s = &logs[i];
        if (!s->ok)
            continue;
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "log");
        iol_jsonw_str(&w, s->path);
        iol_jsonw_key(&w, "version");
        iol_jsonw_str(&w, s->version);
        iol_jsonw_key(&w, "jobid");
        iol_jsonw_int(&w, s->jobid);
        iol_jsonw_key(&w, "uid");
        iol_jsonw_int(&w, s->uid);
        iol_jsonw_key(&w, "exe");
        iol_jsonw_str(&w, s->exe);
        iol_jsonw_key(&w, "nprocs");
        iol_jsonw_int(&w, s->nprocs);
        iol_jsonw_key(&w, "start_time");
        iol_jsonw_int(&w, s->start_time);
        iol_jsonw_key(&w, "end_time");
        iol_jsonw_int(&w, s->end_time);
        iol_jsonw_key(&w, "run_time");
        iol_jsonw_double(&w, s->run_time);
        iol_jsonw_key(&w, "files");
        iol_jsonw_int(&w, s->files);
        iol_jsonw_key(&w, "modules");
        iol_jsonw_obj_begin(&w);
        for (size_t k = 0; k < N_IO_MODS; k++) {
            const struct mod_sum *m = &s->mod[k];
            if (!m->present)
                continue;
            iol_jsonw_key(&w, iolens_darshan_module_name(io_mods[k].module));
            iol_jsonw_obj_begin(&w);
            iol_jsonw_key(&w, "records");
            iol_jsonw_int(&w, m->records);
            iol_jsonw_key(&w, "bytes_read");
            iol_jsonw_int(&w, m->bytes_read);
            iol_jsonw_key(&w, "bytes_written");
            iol_jsonw_int(&w, m->bytes_written);
            iol_jsonw_key(&w, "read_time");
            iol_jsonw_double(&w, m->read_time);
            iol_jsonw_key(&w, "write_time");
            iol_jsonw_double(&w, m->write_time);
            iol_jsonw_key(&w, "meta_time");
            iol_jsonw_double(&w, m->meta_time);
            iol_jsonw_obj_end(&w);
        }
        iol_jsonw_obj_end(&w);
        iol_jsonw_key(&w, "partial_flag");
        iol_jsonw_uint(&w, s->partial_flag);
        iol_jsonw_key(&w, "partial_modules");
        iol_jsonw_arr_begin(&w);
        for (int m = 1; m < IOLENS_DARSHAN_MOD_COUNT; m++)
            if ((s->partial_flag >> m) & 1)
                iol_jsonw_str(&w, iolens_darshan_module_name(m));
        iol_jsonw_arr_end(&w);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    iol_jsonw_finish(&w);
}

int iol_darshan_summary(int npaths, char **paths, int jobs, int json, int follow)
{
    struct pathlist l = {0};
    struct seen seen = {0};
    follow_links = follow;
    struct pool p = {0};
    pthread_t *th = NULL;
    int rc = CLI_FAIL, nth = 0;
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        int prc = 0;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            prc = walk(&l, paths[i], 0, &seen);
        else
            prc = push(&l, paths[i]); /* a file named explicitly: read whatever its name */
        if (prc < 0) {
            cli_error("out of memory");
            goto out;
        }
    }
    if (l.n == 0) {
        cli_error("no Darshan log (*.darshan) found");
        goto out;
    }
    p.n = l.n;
    p.logs = calloc(l.n, sizeof *p.logs);
    th = calloc((size_t)jobs, sizeof *th);
    if (!p.logs || !th) {
        cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < l.n; i++)
        p.logs[i].path = l.v[i];
    pthread_mutex_init(&p.lock, NULL);
    cli_progress_init(&p.progress, "darshan summary", (unsigned long)l.n);
    for (nth = 0; nth < jobs && (size_t)nth < l.n; nth++)
        if (pthread_create(&th[nth], NULL, worker, &p) != 0)
            break;
    if (nth == 0)
        worker(&p); /* no thread could be started: do the work here */
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    cli_progress_end(&p.progress);
    pthread_mutex_destroy(&p.lock);
    size_t nok = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (p.logs[i].ok)
            nok++;
        else
            cli_warn("skipped: %s", p.logs[i].error ? p.logs[i].error : "out of memory");
    }
    if (json)
        print_json(stdout, p.logs, l.n);
    else
        print_csv(stdout, p.logs, l.n);
    fflush(stdout);
    if (nok == 0)
        cli_error("none of the %zu logs could be read", l.n);
    else if (nok < l.n)
        cli_warn("%zu of %zu logs skipped", l.n - nok, l.n);
    rc = nok ? CLI_OK : CLI_FAIL;
out:
    for (size_t i = 0; i < p.n; i++) {
        free(p.logs[i].exe);
        free(p.logs[i].error);
    }
    free(p.logs);
    free(th);
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i]);
    free(l.v);
    free(seen.dev);
    free(seen.ino);
    return rc;
}
