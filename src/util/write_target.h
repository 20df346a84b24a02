/* Where a result written through a temporary file and a rename goes: a path
 * that is a symbolic link (`latest.svg -> runs/7/plot.svg`) is written at
 * its target, so that the rename replaces the target and the link stays. */
#ifndef RTCOSIM_UTIL_WRITE_TARGET_H
#define RTCOSIM_UTIL_WRITE_TARGET_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* path itself, or the file a symbolic link at path leads to (through every
 * link; a dangling one: its target, relative to the link's directory),
 * malloc'd; NULL when out of memory. */
char *util_write_target(const char *path);

/* Whether a result may replace `target` (util_write_target's) by a rename:
 * nothing there yet, or a regular file. A device, pipe or socket (a link to
 * /dev/null) is written in place and never replaced: renamed over as root,
 * /dev/null would become a regular file. */
bool util_target_replaceable(const char *target);

/* (Removing an output that is no result: rtcosim_results_discard,
 * rtcosim/results.h, defined in write_target.c.) */

#pragma GCC visibility pop

#endif
