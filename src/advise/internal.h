/* Private pieces of the advise module. */
#ifndef IOLENS_ADVISE_INTERNAL_H
#define IOLENS_ADVISE_INTERNAL_H

#include "iolens/advise.h"
#include "iolens/detect.h"

#define ADVISE_MAX_FILES 5
#define ADVISE_NTOP 5
#define ADVISE_MAX_CONFIG ((size_t)256 << 10) /* bytes of one configuration file in the prompt */

struct contrib {
    int f;
    double v;
};

struct iolens_advise {
    char *input;
    int is_trace;
    double tau;
    double x[IOLENS_DETECT_NFEATURES];
    double probs[IOLENS_DETECT_NLABELS];
    unsigned set;
    struct contrib top[IOLENS_DETECT_NPATTERNS][ADVISE_NTOP];
    int ntop[IOLENS_DETECT_NPATTERNS];
    iolens_detect_key_feature key[IOLENS_DETECT_NPATTERNS][IOLENS_DETECT_NKEY];
    int nkey[IOLENS_DETECT_NPATTERNS];
    iolens_detect_file files_store[ADVISE_MAX_FILES], files[ADVISE_MAX_FILES];
    int nfiles;
    char paths[ADVISE_MAX_FILES * 4096];
    char *system, *user;
    int from_cache; /* the last query's answer came from the cache */
};

#endif
