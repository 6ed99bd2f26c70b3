/* Internal: a producer's access to its own implementation behind an iolens_evsource. */
#ifndef IOLENS_UTIL_EVSOURCE_H
#define IOLENS_UTIL_EVSOURCE_H

#include "iolens/event.h"

/* The impl pointer of s if s was created with ops, else NULL. */
void *iol_evsource_impl(iolens_evsource *s, const iolens_evsource_ops *ops);

#endif
