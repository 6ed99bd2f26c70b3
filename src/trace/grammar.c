/* Loop-folding grammar (see grammar.h). */
#include "trace/grammar.h"
#include "iolens/iolens.h"

#include <stdlib.h>
#include <string.h>

void iol_grammar_init(iol_grammar *g) { memset(g, 0, sizeof *g); }

void iol_grammar_release(iol_grammar *g)
{
    free(g->seq);
    free(g->rules);
    free(g->pool);
    free(g->index);
    memset(g, 0, sizeof *g);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return IOLENS_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

static uint64_t body_hash(const iol_gsym *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint64_t)s[i].sym) * 0x100000001b3ull;
        h = (h ^ s[i].exp) * 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

static int same(const iol_gsym *a, const iol_gsym *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].sym != b[i].sym || a[i].exp != b[i].exp)
            return 0;
    return 1;
}

static int index_insert(iol_grammar *g, size_t r)
{
    if ((g->nrules + 1) * 2 > g->icap) {
        size_t ncap = g->icap ? g->icap * 2 : 64;
        uint32_t *ni = calloc(ncap, sizeof *ni);
        if (!ni)
            return IOLENS_ENOMEM;
        free(g->index);
        g->index = ni;
        g->icap = ncap;
        for (size_t i = 0; i < g->nrules; i++) {
            if (i == r)
                continue;
            const iol_grule *ru = &g->rules[i];
            size_t s = body_hash(g->pool + ru->start, ru->len) & (ncap - 1);
            while (g->index[s])
                s = (s + 1) & (ncap - 1);
            g->index[s] = (uint32_t)(i + 1);
        }
    }
    const iol_grule *ru = &g->rules[r];
    size_t s = body_hash(g->pool + ru->start, ru->len) & (g->icap - 1);
    while (g->index[s])
        s = (s + 1) & (g->icap - 1);
    g->index[s] = (uint32_t)(r + 1);
    return 0;
}

/* Finds or creates the rule with this body; returns its index or <0. */
static int64_t rule_for(iol_grammar *g, const iol_gsym *body, size_t n)
{
    if (g->icap) {
        size_t s = body_hash(body, n) & (g->icap - 1);
        while (g->index[s]) {
            const iol_grule *ru = &g->rules[g->index[s] - 1];
            if (ru->len == n && same(g->pool + ru->start, body, n))
                return g->index[s] - 1;
            s = (s + 1) & (g->icap - 1);
        }
    }
    if (g->nrules >= UINT32_MAX - 1)
        return IOLENS_ENOMEM;
    if (grow((void **)&g->rules, &g->rcap, g->nrules + 1, sizeof *g->rules) ||
        grow((void **)&g->pool, &g->pcap, g->plen + n, sizeof *g->pool))
        return IOLENS_ENOMEM;
    memcpy(g->pool + g->plen, body, n * sizeof *body);
    g->rules[g->nrules].start = g->plen;
    g->rules[g->nrules].len = n;
    g->plen += n;
    size_t r = g->nrules++;
    if (index_insert(g, r))
        return IOLENS_ENOMEM;
    return (int64_t)r;
}

int iol_grammar_push(iol_grammar *g, int64_t t)
{
    if (grow((void **)&g->seq, &g->cap, g->len + 1, sizeof *g->seq))
        return IOLENS_ENOMEM;
    g->seq[g->len].sym = t;
    g->seq[g->len].exp = 1;
    g->len++;
    for (;;) {
        size_t n = g->len;
        iol_gsym *s = g->seq;
        if (n >= 2 && s[n - 1].sym == s[n - 2].sym && s[n - 2].exp <= UINT64_MAX - s[n - 1].exp) {
            s[n - 2].exp += s[n - 1].exp;
            g->len--;
            continue;
        }
        int changed = 0;
        for (size_t p = 1; p <= IOL_GRAMMAR_MAX_PERIOD && p + 1 <= n; p++) {
            const iol_gsym *prev = &s[n - p - 1];
            if (prev->sym >= 0 || prev->exp == UINT64_MAX)
                continue;
            const iol_grule *ru = &g->rules[-prev->sym - 1];
            if (ru->len == p && same(g->pool + ru->start, &s[n - p], p)) {
                s[n - p - 1].exp++;
                g->len -= p;
                changed = 1;
                break;
            }
        }
        if (changed)
            continue;
        for (size_t p = 2; p <= IOL_GRAMMAR_MAX_PERIOD && 2 * p <= n; p++) {
            if (s[n - 1].sym != s[n - 1 - p].sym || !same(&s[n - 2 * p], &s[n - p], p))
                continue;
            int64_t r = rule_for(g, &s[n - p], p);
            if (r < 0)
                return (int)r;
            s = g->seq;
            s[n - 2 * p].sym = -(r + 1);
            s[n - 2 * p].exp = 2;
            g->len = n - 2 * p + 1;
            changed = 1;
            break;
        }
        if (!changed)
            return 0;
    }
}
