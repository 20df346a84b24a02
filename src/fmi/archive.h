/* FMU archive extraction: unzip into a fresh private temporary directory,
 * refusing entries that would land outside it (.., absolute paths, symbolic
 * links) and archives that inflate beyond a size limit (zip bombs). */
#ifndef RTCOSIM_FMI_ARCHIVE_H
#define RTCOSIM_FMI_ARCHIVE_H

#include <stdint.h>

#include "rtcosim/status.h"

/* Default limit on the total uncompressed size of an FMU (bytes). */
#define RTCOSIM_FMI_ARCHIVE_DEFAULT_LIMIT (UINT64_C(4) * 1024 * 1024 * 1024)
#define RTCOSIM_FMI_ARCHIVE_MAX_ENTRIES 100000

/* Extract `path` into a new directory under `parent_dir` (NULL: $TMPDIR or
 * /tmp). On success *out_dir is a malloc'd path the caller removes with
 * rtcosim_fmi_remove_tree and frees. On failure nothing is left behind.
 * max_bytes 0 means the default limit. Messages start with `path`. */
rtcosim_status rtcosim_fmi_extract(const char *path, const char *parent_dir, uint64_t max_bytes,
                                   char **out_dir, rtcosim_error *err);

/* Remove a directory tree without following symbolic links. */
void rtcosim_fmi_remove_tree(const char *dir);

/* Read a whole (small) file into a malloc'd buffer; fails above max_size. */
rtcosim_status rtcosim_fmi_read_file(const char *path, size_t max_size, char **data,
                                     size_t *size, rtcosim_error *err);

#endif
