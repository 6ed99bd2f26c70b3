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
        if (iolens_darshan_summarize(s->path, &s->s) < 0) {
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
        iolens_darshan_summary_release(&p.logs[i].s);
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
