/* place_synth DIR [NTRACES [SEED]]: writes synthetic traces of known classes
 * and their cluster output (see place_synth.h), for the CLI tests. */
#include "place_synth.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: place_synth DIR [NTRACES [SEED]]\n");
        return 2;
    }
    unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 90;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (place_synth_write(argv[1], n, seed)) {
        fprintf(stderr, "place_synth: cannot write into '%s'\n", argv[1]);
        return 1;
    }
    return 0;
}
