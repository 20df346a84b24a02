/* util_elf_check_loadable (see elf_check.h): the ELF header and program
 * headers read with pread, every offset checked against the file's size. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/elf_check.h"


static const char *machine_name(unsigned m)
{
    switch (m) {
    case EM_386: return "x86 (32-bit)";
    case EM_X86_64: return "x86-64";
    case EM_ARM: return "ARM (32-bit)";
    case EM_AARCH64: return "AArch64";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC 64";
    case EM_S390: return "s390";
    default: return NULL;
    }
}

static bool read_at(int fd, void *buf, size_t n, off_t at)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, at + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

rtcosim_status util_elf_check_loadable(const char *path, const char *label, rtcosim_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open: %s", label, strerror(errno));
    struct stat sb;
    rtcosim_status st = RTCOSIM_OK;
    Elf64_Ehdr eh;
    if (fstat(fd, &sb) != 0) {
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read: %s", label, strerror(errno));
        goto done;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (!S_ISREG(sb.st_mode))
        goto done; /* (not a regular file: dlopen says what it makes of it) */
    if (size < EI_NIDENT || !read_at(fd, eh.e_ident, EI_NIDENT, 0) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: not an ELF shared library (%s)",
                               label, size == 0 ? "an empty file" : "no ELF header");
        goto done;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: a %s ELF library; this rtcosim"
                               " loads 64-bit ones", label,
                               eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "malformed");
        goto done;
    }
    if (eh.e_ident[EI_DATA] != UTIL_ELF_HOST_DATA) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: an ELF library of the other byte"
                               " order", label);
        goto done;
    }
    if (size < sizeof eh || !read_at(fd, &eh, sizeof eh, 0)) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: truncated: its ELF header needs"
                               " %zu bytes, the file has %llu", label, sizeof eh,
                               (unsigned long long)size);
        goto done;
    }
    if (UTIL_ELF_HOST_MACHINE != EM_NONE && eh.e_machine != UTIL_ELF_HOST_MACHINE) {
        const char *m = machine_name(eh.e_machine);
        if (m)
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: built for %s, not for this"
                                   " %s machine", label, m, UTIL_ELF_HOST_MACHINE_NAME);
        else
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: built for ELF machine %u,"
                                   " not for this %s machine", label, (unsigned)eh.e_machine,
                                   UTIL_ELF_HOST_MACHINE_NAME);
        goto done;
    }
    if (eh.e_type != ET_DYN) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: an ELF file but not a shared"
                               " library (type %u)", label, (unsigned)eh.e_type);
        goto done;
    }
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
        (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: truncated or malformed: its"
                               " program headers (%u at offset %llu) are not inside its %llu"
                               " bytes", label, (unsigned)eh.e_phnum,
                               (unsigned long long)eh.e_phoff, (unsigned long long)size);
        goto done;
    }
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (!read_at(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph))) {
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read its program headers",
                                   label);
            goto done;
        }
        if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC)
            continue;
        if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: truncated: a segment needs"
                                   " bytes %llu..%llu, the file has %llu", label,
                                   (unsigned long long)ph.p_offset,
                                   (unsigned long long)(ph.p_offset + ph.p_filesz),
                                   (unsigned long long)size);
            goto done;
        }
    }
done:
    close(fd);
    return st;
}
