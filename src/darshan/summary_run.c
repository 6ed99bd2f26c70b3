/* iolens_darshan_find_logs and iolens_darshan_summary_write (`iolens darshan --summary`): the
 * logs below folders, and one CSV row (or JSON object) per log, over many logs read in parallel
 * by a few threads. Logs are streamed (DXT regions are never decoded), so memory per thread is
 * one record plus the set of file ids. */
#define _DEFAULT_SOURCE
#include "iolens/darshan.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "darshan/internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/jsonw.h"

struct log_sum {
    const char *path;
    int ok;
    char *error;
    iolens_darshan_summary s;
};

/* ---- the work queue ------------------------------------------------------------ */

struct pool {
    struct log_sum *logs;
    size_t n, next, done;
    pthread_mutex_t lock;
    const iolens_darshan_summary_opts *o;
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
        if (iolens_darshan_summarize(s->path, &s->s) < 0) {
            s->error = strdup(iolens_error_last());
        } else {
            s->ok = 1;
        }
        pthread_mutex_lock(&p->lock);
        p->done++;
        if (p->o->progress)
            p->o->progress(p->o->progress_ctx, p->done, p->n);
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

struct walker {
    int follow_links;
    iolens_warn_fn warn;
    void *warn_ctx;
    struct seen seen;
};

/* Appends the *.darshan files under dir (recursively), sorted. Symbolic links to
 * directories are not followed unless follow_links; links to logs are. */
static int walk(struct pathlist *l, const char *dir, int depth, struct walker *w)
{
    struct stat dst;
    if (depth > 64 || stat(dir, &dst) != 0)
        return 0;
    int sb = seen_before(&w->seen, &dst);
    if (sb)
        return sb < 0 ? -1 : 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (w->warn) {
            char msg[4400];
            snprintf(msg, sizeof msg, "cannot open directory '%s': %s", dir, strerror(errno));
            w->warn(w->warn_ctx, msg);
        }
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
            ((S_ISDIR(st.st_mode) && (!link || w->follow_links)) || (S_ISREG(st.st_mode) && has_suffix(p, ".darshan"))))
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
                rc = walk(l, here.v[i], depth + 1, w);
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

int iolens_darshan_find_logs(char *const *inputs, size_t n, int flags, char ***out, size_t *nout,
                             iolens_warn_fn warn, void *warn_ctx)
{
    struct pathlist l = {0};
    struct walker w = {(flags & IOLENS_DARSHAN_FIND_FOLLOW_LINKS) != 0, warn, warn_ctx, {0}};
    int rc = 0;
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct stat st;
        if (stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode) &&
            ((flags & IOLENS_DARSHAN_FIND_RECORDER_TOO) || !is_recorder_dir(inputs[i]))) {
            size_t before = l.n;
            if (walk(&l, inputs[i], 0, &w) < 0)
                rc = iol_err(IOLENS_ENOMEM, "out of memory");
            else if (l.n == before && !(flags & IOLENS_DARSHAN_FIND_ANY))
                rc = iol_err(IOLENS_EINVAL, "'%s' is a directory without Darshan logs (*.darshan) and not a Recorder "
                             "trace", inputs[i]);
        } else if (push(&l, inputs[i]) < 0) { /* a file named explicitly: whatever its name */
            rc = iol_err(IOLENS_ENOMEM, "out of memory");
        }
    }
    free(w.seen.dev);
    free(w.seen.ino);
    if (rc < 0) {
        iolens_darshan_logs_free(l.v, l.n);
        return rc;
    }
    if (!l.v && !(l.v = calloc(1, sizeof *l.v)))
        return iol_err(IOLENS_ENOMEM, "out of memory");
    *out = l.v;
    *nout = l.n;
    return 0;
}

void iolens_darshan_logs_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* ---- output ------------------------------------------------------------------------- */

static void print_csv(FILE *out, const struct log_sum *logs, size_t n)
{
    iolens_darshan_summary_csv_header(out, "log");
    for (size_t i = 0; i < n; i++) {
        if (!logs[i].ok)
            continue;
        iol_csv_field(out, logs[i].path);
        fputc(',', out);
        iolens_darshan_summary_csv_row(out, &logs[i].s);
    }
}

static void print_json(FILE *out, const struct log_sum *logs, size_t n)
{
    iol_jsonw w;
    iol_jsonw_init(&w, out, 1);
    iol_jsonw_arr_begin(&w);
    for (size_t i = 0; i < n; i++) {
        if (!logs[i].ok)
            continue;
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "log");
        iol_jsonw_str(&w, logs[i].path);
        iol_darshan_summary_jsonw(&w, &logs[i].s);
        iol_jsonw_obj_end(&w);
    }
    iol_jsonw_arr_end(&w);
    iol_jsonw_finish(&w);
}

int iolens_darshan_summary_write(FILE *out, char *const *logs, size_t n, const iolens_darshan_summary_opts *opts,
                                 size_t *nread)
{
    iolens_darshan_summary_opts def = {0};
    const iolens_darshan_summary_opts *o = opts ? opts : &def;
    int jobs = o->threads > 0 ? o->threads : 2;
    struct pool p = {0};
    pthread_t *th = NULL;
    int rc = 0, nth = 0;
    if (nread)
        *nread = 0;
    if (n == 0)
        return iol_err(IOLENS_EINVAL, "no Darshan log (*.darshan) found");
    p.n = n;
    p.o = o;
    p.logs = calloc(n, sizeof *p.logs);
    th = calloc((size_t)jobs, sizeof *th);
    if (!p.logs || !th) {
        rc = iol_err(IOLENS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        p.logs[i].path = logs[i];
    pthread_mutex_init(&p.lock, NULL);
    for (nth = 0; nth < jobs && (size_t)nth < n; nth++)
        if (pthread_create(&th[nth], NULL, worker, &p) != 0)
            break;
    if (nth == 0)
        worker(&p); /* no thread could be started: do the work here */
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&p.lock);
    size_t nok = 0;
    for (size_t i = 0; i < n; i++) {
        if (p.logs[i].ok) {
            nok++;
        } else if (o->warn) {
            char msg[4400];
            snprintf(msg, sizeof msg, "skipped: %s", p.logs[i].error ? p.logs[i].error : "out of memory");
            o->warn(o->warn_ctx, msg);
        }
    }
    if (o->json)
        print_json(out, p.logs, n);
    else
        print_csv(out, p.logs, n);
    if (nread)
        *nread = nok;
    if (nok == 0)
        rc = iol_err(IOLENS_EFORMAT, "none of the %zu logs could be read", n);
out:
    for (size_t i = 0; p.logs && i < p.n; i++) {
        iolens_darshan_summary_release(&p.logs[i].s);
        free(p.logs[i].error);
    }
    free(p.logs);
    free(th);
    return rc;
}
