/* Reads a whole file into a growing heap buffer (see read_file.h). Setup-time
 * code only: the readers call it once per file, never while a run steps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/read_file.h"

rtcosim_status util_read_file(const char *path, const char *label, const char *kind,
                              char **data, size_t *size, rtcosim_error *err)
{
    *data = NULL;
    *size = 0;
    const char *space = kind ? " " : "";
    kind = kind ? kind : "";
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: cannot open%s%s: %s", label, space, kind, strerror(errno));
    char *buffer = NULL;
    size_t used = 0, cap = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        if (used == cap) {
            size_t new_cap = cap ? cap * 2 : 65536;
            char *bigger = realloc(buffer, new_cap);
            if (!bigger) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
                break;
            }
            buffer = bigger;
            cap = new_cap;
        }
        size_t got = fread(buffer + used, 1, cap - used, f);
        used += got;
        if (got == 0) {
            if (ferror(f))
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read%s%s: %s", label, space,
                                       kind, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (st != RTCOSIM_OK) {
        free(buffer);
        return st;
    }
    *data = buffer;
    *size = used;
    return RTCOSIM_OK;
}
