/* Where a result written through a temporary file and a rename goes: a path
 * that is a symbolic link (`latest.svg -> runs/7/plot.svg`) is written at
 * its target, so that the rename replaces the target and the link stays. */
#ifndef RTCOSIM_UTIL_WRITE_TARGET_H
#define RTCOSIM_UTIL_WRITE_TARGET_H

#pragma GCC visibility push(hidden)

/* path itself, or the file a symbolic link at path leads to (through every
 * link; a dangling one: its target, relative to the link's directory),
 * malloc'd; NULL when out of memory. */
char *util_write_target(const char *path);

#pragma GCC visibility pop

#endif
