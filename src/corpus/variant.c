/* The corpus: seeded variants of the sweep scenario configs (examples/replay/sweeps/). */
#define _GNU_SOURCE
#include "corpus/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- seeded random numbers (splitmix64) ---- */
static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t corpus_fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static int pick(uint64_t *s, int n)
{
    return (int)(mix64(s) % (uint64_t)n);
}

/* ---- labels: "sweeps.tsv scenario NAME: label A+B. ..." in the config's description ---- */
int corpus_labels_from_description(const char *desc, unsigned char labels[CORPUS_NLABELS])
{
    static const char *const names[CORPUS_NLABELS] = {
        "access_granularity", "metadata_intensity", "parallelism_efficiency", "access_pattern",
        "interface_choice",   "file_strategy",      "throughput_utilization", "healthy"};
    memset(labels, 0, CORPUS_NLABELS);
    const char *p = desc ? strstr(desc, ": label ") : NULL;
    if (!p)
        return -1;
    p += strlen(": label ");
    size_t len = strcspn(p, ". \t\n");
    int any = 0;
    while (len > 0) {
        size_t w = strcspn(p, "+. \t\n");
        if (w > len)
            w = len;
        int found = -1;
        for (int l = 0; l < CORPUS_NLABELS; l++)
            if (strlen(names[l]) == w && !strncmp(p, names[l], w))
                found = l;
        if (found < 0)
            return -1;
        labels[found] = 1;
        any = 1;
        p += w;
        len -= w;
        if (len > 0 && *p == '+') {
            p++;
            len--;
        }
    }
    if (!any || (labels[CORPUS_NLABELS - 1] && any > 1))
        return -1;
    for (int l = 0; l < CORPUS_NLABELS - 1; l++)
        if (labels[l] && labels[CORPUS_NLABELS - 1])
            return -1; /* healthy never comes with a pattern */
    return 0;
}

/* ---- shape of a config ---- */
static int step_is(json_t *step, const char *key, const char *val)
{
    const char *s = json_string_value(json_object_get(step, key));
    return s && !strcmp(s, val);
}

static int config_flags(json_t *cfg, int *shared, int *mpiio, int *imbalance)
{
    *shared = *mpiio = *imbalance = 0;
    json_t *steps = json_object_get(cfg, "file_configs");
    size_t i;
    json_t *st;
    json_array_foreach(steps, i, st)
    {
        if (step_is(st, "interface", "mpiio") || step_is(st, "interface", "hdf5"))
            *mpiio = 1;
        if (json_object_get(st, "imbalance"))
            *imbalance = 1;
        if ((step_is(st, "method", "write") || step_is(st, "method", "read")) &&
            !json_is_true(json_object_get(st, "file_per_process")) &&
            json_array_size(json_object_get(st, "file_names")) <= 1)
            *shared = 1;
        if (step_is(st, "method", "metadata")) {
            json_t *md = json_object_get(st, "metadata");
            if (!json_is_true(json_object_get(md, "unique_dir")))
                *shared = 1;
        }
    }
    return 0;
}

static json_int_t scaled(json_int_t v, double f, json_int_t multiple, json_int_t min)
{
    double d = (double)v * f;
    json_int_t r = (json_int_t)llround(d / (double)multiple) * multiple;
    if (r < min)
        r = min;
    return r;
}

static void scale_int(json_t *obj, const char *key, double f, json_int_t multiple, json_int_t min)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_integer(v) && json_integer_value(v) != 0) /* a zero count (a rank left out) stays zero */
        json_object_set_new(obj, key, json_integer(scaled(json_integer_value(v), f, multiple, min)));
}

/* Repetitions stay a multiple of block_size / transfer_size on strided steps (whole segments). */
static int vary_chunks(json_t *step, double count_f, double size_f)
{
    int sized = 0;
    json_t *chunks = json_object_get(step, "chunks");
    json_t *bs = json_object_get(step, "block_size");
    size_t i;
    json_t *c;
    json_array_foreach(chunks, i, c)
    {
        json_t *ts = json_object_get(c, "transfer_size");
        json_int_t t = json_is_integer(ts) ? json_integer_value(ts) : 0;
        json_int_t per = 1;
        if (t > 0 && json_is_integer(bs) && json_integer_value(bs) >= t && json_integer_value(bs) % t == 0)
            per = json_integer_value(bs) / t;
        json_t *reps = json_object_get(c, "repetitions");
        if (json_is_integer(reps) && json_integer_value(reps) == 1 && t > 0 && size_f != 1.0) {
            /* one transfer per array (HACC-IO): the particle count scales the transfer size */
            json_object_set_new(c, "transfer_size", json_integer(scaled(t, size_f, 1, 1)));
            sized = 1;
        } else {
            scale_int(c, "repetitions", count_f, per, per);
            json_t *ranks = json_object_get(c, "ranks");
            size_t j;
            json_t *r;
            json_array_foreach(ranks, j, r) scale_int(r, "repetitions", count_f, per, per);
        }
    }
    return sized;
}

/* --ranks sweep: the sweep's rank counts of the scenario ("_sweep_ranks", sweeps.tsv) up to max_ranks
 * (none: max_ranks); variant 0 takes the smallest, the others one of them. */
static json_int_t sweep_rank_count(json_t *cfg, uint64_t *s, int variant, int max_ranks)
{
    json_int_t cand[16];
    int n = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(cfg, "_sweep_ranks"), i, v)
    {
        json_int_t r = json_integer_value(v);
        if (r >= 1 && r <= max_ranks && n < 16)
            cand[n++] = r;
    }
    if (n == 0)
        return max_ranks;
    return variant == 0 ? cand[0] : cand[pick(s, n)];
}

/* Per-rank repetition lists (load_imbalance's "others") gain entries for added ranks: a copy of
 * the last configured rank's entry. */
static void extend_rank_lists(json_t *steps, json_int_t n0, json_int_t ranks)
{
    size_t i, ci;
    json_t *st, *ch;
    json_array_foreach(steps, i, st)
    {
        json_array_foreach(json_object_get(st, "chunks"), ci, ch)
        {
            json_t *rl = json_object_get(ch, "ranks");
            json_t *last = NULL;
            size_t k;
            json_t *e;
            json_array_foreach(rl, k, e) if (json_integer_value(json_object_get(e, "rank")) == n0 - 1) last = e;
            for (json_int_t r = n0; last && r < ranks; r++) {
                json_t *c = json_deep_copy(last);
                if (!c)
                    return;
                json_object_set_new(c, "rank", json_integer(r));
                json_array_append_new(rl, c);
            }
        }
    }
}

int corpus_make_variant(json_t *cfg, const char *scenario, const unsigned char labels[CORPUS_NLABELS],
                        uint64_t seed, int variant, double scale, const corpus_rank_policy *policy,
                        corpus_variant_info *info)
{
    uint64_t s = seed ^ corpus_fnv1a(scenario, strlen(scenario)) ^ ((uint64_t)variant * 0xd1b54a32d192ed03ULL);
    mix64(&s);
    int shared, mpiio, imbalance;
    config_flags(cfg, &shared, &mpiio, &imbalance);
    json_int_t n0 = json_integer_value(json_object_get(cfg, "nranks"));
    if (n0 < 1)
        n0 = 1;
    int healthy = labels[CORPUS_NLABELS - 1];
    /* variant 0: the example config itself (at --scale); others: rank count, counts, sizes, seeds vary */
    static const double count_fs[] = {0.5, 0.75, 1.25, 1.5};
    static const double size_up[] = {1.0, 1.5, 2.0};
    static const double size_any[] = {0.5, 0.75, 1.5, 2.0};
    double count_f = 1.0, size_f = 1.0;
    json_int_t ranks = n0;
    if (variant > 0) {
        count_f = count_fs[pick(&s, 4)];
        size_f = healthy ? size_up[pick(&s, 3)] : size_any[pick(&s, 4)];
        if (n0 >= 16) {
            static const json_int_t many[] = {12, 16, 20};
            ranks = many[pick(&s, 3)];
        } else if (n0 == 4) {
            /* shared files, MPI-IO, imbalance and interface choice need several ranks */
            int need_many = shared || mpiio || imbalance || labels[2] || labels[4];
            static const json_int_t few[] = {1, 2, 4};
            ranks = need_many ? few[1 + pick(&s, 2)] : few[pick(&s, 3)];
        }
    }
    /* --ranks sweep: the sweep's rank count, per-rank counts and one-transfer sizes shrunk by
     * config ranks / ranks so that a run does about the work of the config at its own ranks */
    double shrink = 1.0;
    if (policy && policy->sweep) {
        ranks = sweep_rank_count(cfg, &s, variant, policy->max_ranks);
        if (ranks > n0) {
            shrink = (double)n0 / (double)ranks;
            extend_rank_lists(json_object_get(cfg, "file_configs"), n0, ranks);
        }
        count_f *= shrink;
        size_f *= shrink;
    }
    json_object_del(cfg, "_sweep_ranks");
    json_object_set_new(cfg, "nranks", json_integer(ranks));
    int random_steps = 0, sized = 0;
    json_t *steps = json_object_get(cfg, "file_configs");
    size_t i;
    json_t *st;
    json_array_foreach(steps, i, st)
    {
        /* per-rank counts of ranks the variant does not have are dropped */
        size_t ci;
        json_t *ch;
        json_array_foreach(json_object_get(st, "chunks"), ci, ch)
        {
            json_t *rl = json_object_get(ch, "ranks");
            for (size_t k = json_array_size(rl); k-- > 0;)
                if (json_integer_value(json_object_get(json_array_get(rl, k), "rank")) >= ranks)
                    json_array_remove(rl, k);
        }
        sized |= vary_chunks(st, count_f * scale, size_f);
        json_t *md = json_object_get(st, "metadata");
        if (md)
            scale_int(md, "files_per_rank", count_f * scale, 1, 5);
        if (step_is(st, "access", "random")) {
            random_steps++;
            if (variant > 0)
                json_object_set_new(st, "seed", json_integer((json_int_t)(mix64(&s) % 1000000007ULL)));
        }
    }
    char note[256];
    snprintf(note, sizeof note, "iolens corpus variant %d of %s (seed %llu): %lld ranks, counts x%g, sizes x%g%s",
             variant, scenario, (unsigned long long)seed, (long long)ranks, count_f * scale,
             sized ? size_f : 1.0, random_steps && variant > 0 ? ", new ordering seed" : "");
    json_object_set_new(cfg, "_corpus", json_string(note));
    if (info) {
        info->ranks = (int)ranks;
        info->count_factor = count_f * scale;
        info->size_factor = sized ? size_f : 1.0;
    }
    return 0;
}
