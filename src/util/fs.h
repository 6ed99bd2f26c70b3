/* File-system helpers shared by the CLI programs. */
#ifndef IOLENS_UTIL_FS_H
#define IOLENS_UTIL_FS_H

/* Removes dir and everything below it (at most 64 levels deep). Symbolic
 * links are unlinked, never followed. Best effort: what cannot be removed
 * stays. Returns 0 when dir no longer exists, -1 otherwise (errno set). */
int iol_remove_tree(const char *dir);

#endif
