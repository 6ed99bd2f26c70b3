/*
 * Loop-folding grammar over signature ids (one per thread).
 *
 * Built online: every new symbol is appended to the main sequence, then the
 * tail is folded while possible — equal neighbours merge their repeat counts
 * (run length), a tail equal to the body of the rule just before it bumps
 * that rule's count, and two equal adjacent blocks of up to
 * IOL_GRAMMAR_MAX_PERIOD symbols become a rule repeated twice. Nested loops
 * thus collapse to nested rules with counts, and a loop adds no symbols as
 * its trip count grows (the same effect Sequitur has on Recorder's traces,
 * with exponents, in O(period) per call).
 *
 * Symbols: a terminal t >= 0 is a signature id; a rule r is -(r + 1). Rule
 * bodies only reference earlier rules, so expansion terminates.
 */
#ifndef IOLENS_TRACE_GRAMMAR_H
#define IOLENS_TRACE_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>

#define IOL_GRAMMAR_MAX_PERIOD 64

typedef struct iol_gsym {
    int64_t sym;
    uint64_t exp;
} iol_gsym;

typedef struct iol_grule {
    size_t start; /* index of the body in the grammar's body pool */
    size_t len;
} iol_grule;

typedef struct iol_grammar {
    iol_gsym *seq;
    size_t len, cap;
    iol_grule *rules;
    size_t nrules, rcap;
    iol_gsym *pool; /* rule bodies back to back */
    size_t plen, pcap;
    uint32_t *index; /* hash of body -> rule index + 1 */
    size_t icap;
} iol_grammar;

void iol_grammar_init(iol_grammar *g);
/* Appends terminal t (>= 0). Returns 0 or IOLENS_ENOMEM. */
int iol_grammar_push(iol_grammar *g, int64_t t);
void iol_grammar_release(iol_grammar *g);

#endif
