/* The corpus module's own pieces (corpus.c, variant.c). */
#ifndef IOLENS_CORPUS_INTERNAL_H
#define IOLENS_CORPUS_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define CORPUS_NLABELS 8 /* the seven patterns then healthy, as in dev_labels.csv */

typedef struct corpus_variant_info {
    int ranks;
    double count_factor; /* repetitions / files per rank */
    double size_factor;  /* transfer sizes of one-transfer arrays (HACC-IO particles) */
} corpus_variant_info;

/* Rank counts of the variants: the local policy (1-4 ranks for 4-rank configs, 12-20 for
 * 16-rank ones) or, with sweep set, the sweep's own rank counts (sweeps.tsv) up to max_ranks. */
typedef struct corpus_rank_policy {
    int sweep;
    int max_ranks;
} corpus_rank_policy;

uint64_t corpus_fnv1a(const char *s, size_t n);
/* Labels of a sweep config from its description ("... scenario NAME: label A+B. ..."): 0 or -1. */
int corpus_labels_from_description(const char *desc, unsigned char labels[CORPUS_NLABELS]);
/* Rewrites cfg in place into variant `variant` (0 = the config itself at `scale`) of `scenario`;
 * the same (seed, scenario, variant, scale, policy) always gives the same config; policy NULL =
 * the local rank policy. */
int corpus_make_variant(json_t *cfg, const char *scenario, const unsigned char labels[CORPUS_NLABELS],
                        uint64_t seed, int variant, double scale, const corpus_rank_policy *policy,
                        corpus_variant_info *info);

#endif
