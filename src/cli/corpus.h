/* iolens corpus: shared pieces of cmd_corpus.c and corpus_variant.c (CLI only). */
#ifndef IOLENS_CLI_CORPUS_H
#define IOLENS_CLI_CORPUS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define CORPUS_NLABELS 8 /* the seven patterns then healthy, as in dev_labels.csv */

typedef struct corpus_variant_info {
    int ranks;
    double count_factor; /* repetitions / files per rank */
    double size_factor;  /* transfer sizes of one-transfer arrays (HACC-IO particles) */
} corpus_variant_info;

uint64_t corpus_fnv1a(const char *s, size_t n);
/* Labels of a sweep config from its description ("... scenario NAME: label A+B. ..."): 0 or -1. */
int corpus_labels_from_description(const char *desc, unsigned char labels[CORPUS_NLABELS]);
/* Rewrites cfg in place into variant `variant` (0 = the config itself at `scale`) of `scenario`;
 * the same (seed, scenario, variant, scale) always gives the same config. */
int corpus_make_variant(json_t *cfg, const char *scenario, const unsigned char labels[CORPUS_NLABELS],
                        uint64_t seed, int variant, double scale, corpus_variant_info *info);

#endif
