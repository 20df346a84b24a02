/* Whether a shared library can be handed to dlopen without harm. glibc maps
 * a library's PT_LOAD segments as its program headers say; a file cut short
 * (a broken download, a truncated FMU archive member) maps pages past its
 * end, and the loader's first touch of them is a SIGBUS that no error path
 * can catch. Checked first, such a file is an error naming it. Internal to
 * the library. */
#ifndef RTCOSIM_UTIL_ELF_CHECK_H
#define RTCOSIM_UTIL_ELF_CHECK_H

#include "rtcosim/status.h"

/* RTCOSIM_OK when `path` is an ELF shared object of this host's class, byte
 * order and machine whose loadable segments lie inside the file; otherwise
 * RTCOSIM_EUNSUPPORTED (not ELF, another machine, truncated) or RTCOSIM_EIO
 * (unreadable), the message starting with `label` (e.g. "m.fmu: binaries/
 * linux64/m.so"). */
rtcosim_status util_elf_check_loadable(const char *path, const char *label, rtcosim_error *err);

#endif
