#define _GNU_SOURCE
#include "util/share.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char share[PATH_MAX];
static int have_share;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_share(void)
{
    const char *env = getenv("IOLENS_SHARE");
    if (env && *env) {
        if (snprintf(share, sizeof share, "%s", env) < (int)sizeof share)
            have_share = 1;
        return;
    }
    char dir[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (l <= 0 || (size_t)l >= sizeof dir - 1)
        return;
    dir[l] = '\0';
    /* the program's folder, then up to four parents (prefix/bin, build/tests/<module>) */
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            return;
        *slash = '\0';
        char cand[PATH_MAX + 16];
        snprintf(cand, sizeof cand, "%s/share/iolens", dir[0] ? dir : "");
        if (is_dir(cand) && strlen(cand) < sizeof share) {
            strcpy(share, cand);
            have_share = 1;
            return;
        }
        if (!dir[0])
            return;
    }
}

const char *iol_share_dir(void)
{
    pthread_once(&once, find_share);
    return have_share ? share : NULL;
}

const char *iol_share_path(char *out, size_t n, const char *sub)
{
    const char *s = iol_share_dir();
    snprintf(out, n, "%s/%s", s ? s : "share/iolens", sub);
    return out;
}
