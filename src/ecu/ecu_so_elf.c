/* Reader of an ECU shared object's ELF file (see ecu_so_elf.h): section and
 * program headers for the writable data to capture, the dynamic symbol table
 * for imports whose state would escape a snapshot. The file is outside data:
 * every offset and size is checked against the buffer (fuzz/fuzz_ecu_so_elf.c). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecu_so_elf.h"
#include "util/elf_check.h"

/* Imports whose state a copy of the object's writable data does not hold:
 * allocators (the heap), and C library functions with hidden state. */
static const char *const outside_state[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "strdup", "strndup",
    "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc", "mmap", "mmap64",
    "sbrk", "brk", "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "rand", "srand", "random", "srandom", "initstate",
    "setstate", "drand48", "lrand48", "mrand48", "srand48", "seed48", "lcong48", "strtok",
    "tmpnam", "asctime", "ctime", "gmtime", "localtime",
};

static bool in_bounds(size_t size, uint64_t offset, uint64_t length)
{
    return offset <= size && length <= size - offset;
}

static const char *string_at(const unsigned char *bytes, const Elf64_Shdr *strtab, uint64_t index,
                             size_t size)
{
    if (!in_bounds(size, strtab->sh_offset, strtab->sh_size) || index >= strtab->sh_size)
        return NULL;
    const char *s = (const char *)bytes + strtab->sh_offset + index;
    /* NUL-terminated inside the table */
    return memchr(s, '\0', strtab->sh_size - index) ? s : NULL;
}

static bool excluded_name(const char *name)
{
    /* The GOT is written by the dynamic loader (and by lazy binding), holds
     * load addresses and nothing of the code's state; .data.rel.ro is RELRO. */
    return strcmp(name, ".got") == 0 || strcmp(name, ".got.plt") == 0 ||
           strncmp(name, ".data.rel.ro", 12) == 0;
}

static int by_address(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

rtcosim_status ecu_so_elf_scan(const unsigned char *bytes, size_t size, const char *origin,
                               ecu_so_layout *out, rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
#define BAD(...) rtcosim_error_set(err, RTCOSIM_EFORMAT, __VA_ARGS__)
    Elf64_Ehdr eh;
    if (size < sizeof eh || memcmp(bytes, ELFMAG, SELFMAG) != 0)
        return BAD("%s: not an ELF file", origin);
    memcpy(&eh, bytes, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != UTIL_ELF_HOST_DATA ||
        eh.e_machine != UTIL_ELF_HOST_MACHINE)
        return BAD("%s: an ELF file for another machine than this host's", origin);
    if (eh.e_type != ET_DYN)
        return BAD("%s: not a shared object (ELF type %u)", origin, (unsigned)eh.e_type);
    if (eh.e_shoff == 0 || eh.e_shnum == 0)
        return BAD("%s: no section headers (the writable data cannot be told from the GOT)",
                   origin);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
        !in_bounds(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
        return BAD("%s: section headers outside the file", origin);
    if (eh.e_phnum && (eh.e_phentsize != sizeof(Elf64_Phdr) ||
                       !in_bounds(size, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))))
        return BAD("%s: program headers outside the file", origin);

    uint64_t relro_start = 0, relro_end = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, bytes + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_TLS)
            out->tls = true;
        if (ph.p_type == PT_GNU_RELRO && ph.p_memsz <= UINT64_MAX - ph.p_vaddr) {
            relro_start = ph.p_vaddr;
            relro_end = ph.p_vaddr + ph.p_memsz;
        }
    }
    Elf64_Shdr shstr;
    memcpy(&shstr, bytes + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof shstr, sizeof shstr);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, bytes + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
        if (sh.sh_flags & SHF_TLS)
            out->tls = true;
        if (sh.sh_type == SHT_DYNSYM) {
            if (sh.sh_link >= eh.e_shnum || sh.sh_entsize != sizeof(Elf64_Sym) ||
                !in_bounds(size, sh.sh_offset, sh.sh_size))
                return BAD("%s: dynamic symbol table outside the file", origin);
            Elf64_Shdr strtab;
            memcpy(&strtab, bytes + eh.e_shoff + (uint64_t)sh.sh_link * sizeof strtab,
                   sizeof strtab);
            for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym) && !out->outside_state[0];
                 k++) {
                Elf64_Sym sym;
                memcpy(&sym, bytes + sh.sh_offset + k * sizeof sym, sizeof sym);
                if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0)
                    continue;
                const char *name = string_at(bytes, &strtab, sym.st_name, size);
                if (!name)
                    return BAD("%s: symbol name outside the string table", origin);
                for (size_t f = 0; f < sizeof outside_state / sizeof *outside_state; f++)
                    if (strcmp(name, outside_state[f]) == 0)
                        snprintf(out->outside_state, sizeof out->outside_state, "%s", name);
            }
        }
        const uint64_t wanted = SHF_ALLOC | SHF_WRITE;
        if ((sh.sh_flags & wanted) != wanted || (sh.sh_flags & SHF_TLS) || sh.sh_size == 0 ||
            (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS))
            continue;
        const char *name = string_at(bytes, &shstr, sh.sh_name, size);
        if (!name)
            return BAD("%s: section name outside the string table", origin);
        if (excluded_name(name) || sh.sh_size > UINT64_MAX - sh.sh_addr)
            continue;
        uint64_t start = sh.sh_addr, end = sh.sh_addr + sh.sh_size;
        if (start >= relro_start && end <= relro_end)
            continue; /* read-only after relocation */
        if (start < relro_end && end > relro_start)
            return BAD("%s: the section at 0x%llx straddles the RELRO segment", origin,
                       (unsigned long long)start); /* (its name is the file's: not printed) */
        if (out->range_count == ECU_SO_RANGES_MAX)
            return BAD("%s: more than %d writable data sections", origin, ECU_SO_RANGES_MAX);
        out->ranges[out->range_count].address = start;
        out->ranges[out->range_count].size = sh.sh_size;
        out->range_count++;
    }
    qsort(out->ranges, out->range_count, sizeof out->ranges[0], by_address);
    size_t merged = 0;
    for (size_t i = 0; i < out->range_count; i++) {
        if (merged && out->ranges[merged - 1].address + out->ranges[merged - 1].size >
                          out->ranges[i].address)
            return BAD("%s: overlapping writable sections", origin);
        if (merged &&
            out->ranges[merged - 1].address + out->ranges[merged - 1].size == out->ranges[i].address)
            out->ranges[merged - 1].size += out->ranges[i].size;
        else
            out->ranges[merged++] = out->ranges[i];
    }
    out->range_count = merged;
#undef BAD
    return RTCOSIM_OK;
}
