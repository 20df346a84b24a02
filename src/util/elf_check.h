/* Whether a shared library can be handed to dlopen without harm. glibc maps
 * a library's PT_LOAD segments as its program headers say; a file cut short
 * (a broken download, a truncated FMU archive member) maps pages past its
 * end, and the loader's first touch of them is a SIGBUS that no error path
 * can catch. Checked first, such a file is an error naming it. Internal to
 * the library. */
#ifndef RTCOSIM_UTIL_ELF_CHECK_H
#define RTCOSIM_UTIL_ELF_CHECK_H

#include <elf.h>

#include "rtcosim/status.h"

/* This host's ELF machine (EM_NONE where unknown) and byte order, as a
 * library it loads must be built. */
#if defined(__x86_64__)
#define UTIL_ELF_HOST_MACHINE EM_X86_64
#define UTIL_ELF_HOST_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define UTIL_ELF_HOST_MACHINE EM_AARCH64
#define UTIL_ELF_HOST_MACHINE_NAME "AArch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define UTIL_ELF_HOST_MACHINE EM_RISCV
#define UTIL_ELF_HOST_MACHINE_NAME "RISC-V"
#elif defined(__powerpc64__)
#define UTIL_ELF_HOST_MACHINE EM_PPC64
#define UTIL_ELF_HOST_MACHINE_NAME "PowerPC 64"
#elif defined(__s390x__)
#define UTIL_ELF_HOST_MACHINE EM_S390
#define UTIL_ELF_HOST_MACHINE_NAME "s390x"
#else
#define UTIL_ELF_HOST_MACHINE EM_NONE
#define UTIL_ELF_HOST_MACHINE_NAME "unknown"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UTIL_ELF_HOST_DATA ELFDATA2LSB
#else
#define UTIL_ELF_HOST_DATA ELFDATA2MSB
#endif

/* RTCOSIM_OK when `path` is an ELF shared object of this host's class, byte
 * order and machine whose loadable segments lie inside the file; otherwise
 * RTCOSIM_EUNSUPPORTED (not ELF, another machine, truncated) or RTCOSIM_EIO
 * (unreadable), the message starting with `label` (e.g. "m.fmu: binaries/
 * linux64/m.so"). */
rtcosim_status util_elf_check_loadable(const char *path, const char *label, rtcosim_error *err);

#endif
