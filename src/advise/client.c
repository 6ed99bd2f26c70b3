/* The OpenAI-compatible chat-completions client of advise (libcurl), with its answer cache.
 * The API key comes from IOLENS_LLM_API_KEY or a file; it goes into the Authorization header
 * only, and is removed from every text the server sends back before anything keeps or shows it. */
#include "advise/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "util/buf.h"
#include "util/error.h"

#define MAX_BODY ((size_t)16 << 20)
#define MAX_KEY 4096

struct body {
    iol_buf b;
    int too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    struct body *b = ctx;
    size_t len = size * n;
    if (b->b.len + len > MAX_BODY) {
        b->too_big = 1;
        return 0;
    }
    return iol_buf_append(&b->b, p, len) < 0 ? 0 : len;
}

/* Replaces every occurrence of key in s (in place; the replacement is not longer). */
static void redact(char *s, const char *key)
{
    static const char mark[] = "[key removed]";
    size_t kl = key ? strlen(key) : 0;
    if (!s || kl < 4)
        return;
    for (char *p = strstr(s, key); p; p = strstr(p, key)) {
        size_t ml = kl >= sizeof mark - 1 ? sizeof mark - 1 : kl;
        memcpy(p, mark, ml);
        memmove(p + ml, p + kl, strlen(p + kl) + 1);
        p += ml;
    }
}

static int read_key(const iolens_advise_opts *o, char *key, size_t n)
{
    key[0] = '\0';
    if (o->key_file) {
        iol_buf b = IOL_BUF_INIT;
        int rc = iol_read_input(o->key_file, MAX_KEY, NULL, 0, 1, &b);
        if (rc < 0) {
            iol_buf_release(&b);
            return rc;
        }
        size_t l = b.len;
        while (l && (b.data[l - 1] == '\n' || b.data[l - 1] == '\r' || b.data[l - 1] == ' '))
            l--;
        if (l >= n) {
            iol_buf_release(&b);
            return iol_err(IOLENS_EINVAL, "the key file '%s' holds more than %zu bytes", o->key_file, n - 1);
        }
        memcpy(key, b.data ? b.data : "", l);
        key[l] = '\0';
        iol_buf_release(&b);
        return 0;
    }
    const char *e = getenv("IOLENS_LLM_API_KEY");
    if (e && strlen(e) < n)
        snprintf(key, n, "%s", e);
    return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void cache_path(const iolens_advise *a, const char *model, const char *dir, char *out, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    h = fnv1a(h, model, strlen(model) + 1);
    h = fnv1a(h, a->system, strlen(a->system) + 1);
    h = fnv1a(h, a->user, strlen(a->user));
    snprintf(out, n, "%s/%016" PRIx64 ".txt", dir, h);
}

static void url_of(const char *base, char *out, size_t n)
{
    size_t l = strlen(base);
    while (l && base[l - 1] == '/')
        l--;
    if (l >= 17 && !strncmp(base + l - 17, "/chat/completions", 17))
        snprintf(out, n, "%.*s", (int)l, base);
    else if (l >= 3 && !strncmp(base + l - 3, "/v1", 3))
        snprintf(out, n, "%.*s/chat/completions", (int)l, base);
    else
        snprintf(out, n, "%.*s/v1/chat/completions", (int)l, base);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int iolens_advise_query(iolens_advise *a, const iolens_advise_opts *o, char **answer)
{
    if (!a || !o || !answer)
        return iol_err(IOLENS_EINVAL, "iolens_advise_query: NULL argument");
    *answer = NULL;
    a->from_cache = 0;
    const char *endpoint = iolens_advise_endpoint(o);
    if (!endpoint)
        return iol_err(IOLENS_EINVAL, "no endpoint: give --endpoint URL or set IOLENS_LLM_ENDPOINT (or use --offline)");
    const char *model = iolens_advise_model(o);
    if (!model)
        model = "default";
    char cpath[4096] = "";
    if (o->cache_dir) {
        cache_path(a, model, o->cache_dir, cpath, sizeof cpath);
        iol_buf c = IOL_BUF_INIT;
        if (access(cpath, R_OK) == 0 && iol_read_input(cpath, MAX_BODY, NULL, 0, 1, &c) == 0 && c.len) {
            *answer = iol_buf_detach(&c, NULL);
            a->from_cache = 1;
            return 0;
        }
        iol_buf_release(&c);
    }
    char key[MAX_KEY];
    int rc = read_key(o, key, sizeof key);
    if (rc < 0)
        return rc;
    json_t *req = json_pack("{s:s, s:f, s:[{s:s, s:s}, {s:s, s:s}]}", "model", model, "temperature", 0.0, "messages",
                            "role", "system", "content", a->system, "role", "user", "content", a->user);
    char *payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!payload)
        return iol_err(IOLENS_ENOMEM, "out of memory building the request");
    char url[4096];
    url_of(endpoint, url, sizeof url);
    static int inited;
    if (!inited) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        inited = 1;
    }
    CURL *h = curl_easy_init();
    struct curl_slist *hdr = NULL;
    char auth[MAX_KEY + 32];
    if (!h) {
        free(payload);
        return iol_err(IOLENS_ENOMEM, "cannot start an HTTP client");
    }
    hdr = curl_slist_append(hdr, "Content-Type: application/json");
    if (key[0]) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
        hdr = curl_slist_append(hdr, auth);
    }
    double timeout = o->timeout_s > 0 ? o->timeout_s : 120;
    int retries = o->retries >= 0 ? o->retries : 3;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout * 1000));
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    double backoff = 0.5;
    int final = 0; /* the last error was not retried */
    rc = IOLENS_EIO;
    char last[8192] = "";
    for (int attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) {
            sleep_s(backoff);
            backoff *= 2;
        }
        struct body b = {IOL_BUF_INIT, 0};
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
        CURLcode cc = curl_easy_perform(h);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        iol_buf_append(&b.b, "", 1); /* NUL-terminated */
        b.b.len--;
        if (b.too_big) {
            iol_buf_release(&b.b);
            snprintf(last, sizeof last, "the answer of %s is larger than %zu bytes", url, MAX_BODY);
            rc = IOLENS_EFORMAT;
            final = 1;
            break;
        }
        if (cc != CURLE_OK) {
            snprintf(last, sizeof last, "%s: %s", url, curl_easy_strerror(cc));
            iol_buf_release(&b.b);
            if (cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_COULDNT_CONNECT || cc == CURLE_RECV_ERROR ||
                cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE || cc == CURLE_SEND_ERROR)
                continue; /* transient: retried */
            final = 1;
            break;
        }
        if (status == 429 || status >= 500) {
            redact(b.b.data, key);
            snprintf(last, sizeof last, "%s answered HTTP %ld: %.200s", url, status, b.b.data ? b.b.data : "");
            iol_buf_release(&b.b);
            continue;
        }
        if (status != 200) {
            redact(b.b.data, key);
            snprintf(last, sizeof last, "%s answered HTTP %ld: %.200s", url, status, b.b.data ? b.b.data : "");
            iol_buf_release(&b.b);
            final = 1;
            break;
        }
        json_error_t je;
        json_t *j = json_loadb(b.b.data ? b.b.data : "", b.b.len, 0, &je);
        json_t *content = json_object_get(json_object_get(json_array_get(json_object_get(j, "choices"), 0), "message"),
                                          "content");
        if (!json_is_string(content)) {
            snprintf(last, sizeof last, "%s sent no chat completion (%zu bytes%s%s)", url, b.b.len,
                     j ? "" : ": not JSON, ", j ? "" : je.text);
            json_decref(j);
            iol_buf_release(&b.b);
            rc = IOLENS_EFORMAT;
            final = 1;
            break;
        }
        *answer = strdup(json_string_value(content));
        json_decref(j);
        iol_buf_release(&b.b);
        if (!*answer) {
            rc = IOLENS_ENOMEM;
            snprintf(last, sizeof last, "out of memory");
            final = 1;
            break;
        }
        redact(*answer, key);
        rc = 0;
        break;
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    memset(auth, 0, sizeof auth);
    free(payload);
    if (rc != 0) {
        redact(last, key);
        memset(key, 0, sizeof key);
        char tail[64] = "";
        if (!final && retries > 0)
            snprintf(tail, sizeof tail, " (the last of %d attempts)", retries + 1);
        return iol_err(rc == IOLENS_EFORMAT ? IOLENS_EFORMAT : IOLENS_EIO, "%s%s", last[0] ? last : "request failed",
                       tail);
    }
    memset(key, 0, sizeof key);
    if (cpath[0]) { /* the answer, never the key, under the prompt's hash */
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp%ld", cpath, (long)getpid());
        FILE *f = fopen(tmp, "w");
        if (f) {
            int ok = fputs(*answer, f) >= 0;
            ok = fclose(f) == 0 && ok;
            if (!ok || rename(tmp, cpath) != 0)
                unlink(tmp);
        }
    }
    return 0;
}
