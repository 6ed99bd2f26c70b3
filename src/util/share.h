/* Where iolens finds the data it ships (models, training data, replay sweeps). */
#ifndef IOLENS_UTIL_SHARE_H
#define IOLENS_UTIL_SHARE_H

#include <stddef.h>

/* The folder holding models/, data/ and sweeps/: $IOLENS_SHARE when set, else the first
 * `share/iolens` found in the running program's folder or one of its parents (an installed
 * prefix/bin/iolens finds prefix/share/iolens; a build tree has build/share/iolens, links into
 * the source tree made when it is configured). NULL when there is none. Worked out once. */
const char *iol_share_dir(void);

/* "<share>/<sub>" into out (a relative "share/iolens/<sub>" when there is no share folder, so
 * that an error names what was looked for). Returns out. */
const char *iol_share_path(char *out, size_t n, const char *sub);

#endif
