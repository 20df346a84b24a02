/* Reading a whole input file into memory, shared by the file readers (CSV
 * tables, SSP descriptions) so that each reports open and read failures the
 * same way and none grows its own buffer loop. Internal to the library. */
#ifndef RTCOSIM_UTIL_READ_FILE_H
#define RTCOSIM_UTIL_READ_FILE_H

#include <stddef.h>

#include "rtcosim/status.h"

/* Reads all of `path` into a malloc'd buffer (*data, *size; free() it; not
 * NUL-terminated). Messages start with `label` and read "cannot open KIND:
 * reason" ("cannot open: reason" when kind is NULL). A missing file is
 * RTCOSIM_ENOTFOUND, other failures RTCOSIM_EIO or RTCOSIM_ENOMEM; on
 * failure *data is NULL. */
rtcosim_status util_read_file(const char *path, const char *label, const char *kind,
                              char **data, size_t *size, rtcosim_error *err);

#endif
