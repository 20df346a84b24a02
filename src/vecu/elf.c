/* Firmware ELF reader on libelf: the PT_LOAD segments at their load
 * addresses, the entry point and the function/object symbols that name code
 * in error messages. Parses from memory so that the fuzz target reaches it. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vecu_internal.h"

void vecu_elf_free(vecu_elf *elf)
{
    for (size_t i = 0; i < elf->segment_count; i++)
        free(elf->segments[i].data);
    for (size_t i = 0; i < elf->symbol_count; i++)
        free(elf->symbols[i].name);
    free(elf->segments);
    free(elf->symbols);
    memset(elf, 0, sizeof *elf);
}

static int by_address(const void *a, const void *b)
{
    const vecu_symbol *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

static rtcosim_status read_symbols(Elf *e, const char *origin, vecu_elf *out, rtcosim_error *err)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t n = d->d_size / sh.sh_entsize;
        if (n > 1000000)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: symbol table of %zu entries",
                                     origin, n);
        vecu_symbol *syms = calloc(n ? n : 1, sizeof *syms);
        if (!syms)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", origin);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s))
                continue;
            int type = GELF_ST_TYPE(s.st_info);
            if ((type != STT_FUNC && type != STT_OBJECT) || s.st_shndx == SHN_UNDEF)
                continue;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (!name || !*name)
                continue;
            syms[k].name = strdup(name);
            if (!syms[k].name)
                break;
            syms[k].address = (uint32_t)s.st_value & (type == STT_FUNC ? ~1u : ~0u);
            syms[k].size = (uint32_t)s.st_size;
            k++;
        }
        qsort(syms, k, sizeof *syms, by_address);
        out->symbols = syms;
        out->symbol_count = k;
        return RTCOSIM_OK;
    }
    return RTCOSIM_OK; /* stripped: errors name addresses only */
}

rtcosim_status vecu_elf_parse(const void *data, size_t size, const char *origin, vecu_elf *out,
                              rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: libelf: %s", origin, elf_errmsg(-1));
    char *copy = malloc(size ? size : 1);
    if (!copy)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", origin);
    memcpy(copy, data, size);
    Elf *e = elf_memory(copy, size);
    rtcosim_status st = RTCOSIM_OK;
    GElf_Ehdr eh;
    size_t phnum = 0;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not an ELF file", origin);
        goto done;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_machine != EM_ARM) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a 32-bit little-endian ARM ELF"
                               " (machine %u)", origin, (unsigned)eh.e_machine);
        goto done;
    }
    if (eh.e_type != ET_EXEC) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a linked executable (ELF type %u)",
                               origin, (unsigned)eh.e_type);
        goto done;
    }
    if (elf_getphdrnum(e, &phnum) != 0 || phnum > 64) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: bad program header table", origin);
        goto done;
    }
    out->entry = (uint32_t)eh.e_entry;
    out->segments = calloc(phnum ? phnum : 1, sizeof *out->segments);
    if (!out->segments) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", origin);
        goto done;
    }
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph)) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: bad program header %zu", origin, i);
            goto done;
        }
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > size || ph.p_filesz > size - ph.p_offset ||
            ph.p_memsz > UINT32_MAX || ph.p_paddr > UINT32_MAX - ph.p_memsz) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: segment %zu lies outside the file"
                                   " or the 32-bit address space", origin, i);
            goto done;
        }
        vecu_segment *s = &out->segments[out->segment_count];
        s->address = (uint32_t)ph.p_paddr;
        s->file_size = (uint32_t)ph.p_filesz;
        s->mem_size = (uint32_t)ph.p_memsz;
        s->data = malloc(ph.p_filesz ? ph.p_filesz : 1);
        if (!s->data) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", origin);
            goto done;
        }
        memcpy(s->data, (const unsigned char *)data + ph.p_offset, ph.p_filesz);
        out->segment_count++;
    }
    if (out->segment_count == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no loadable segment", origin);
        goto done;
    }
    st = read_symbols(e, origin, out, err);
done:
    if (e)
        elf_end(e);
    free(copy);
    if (st != RTCOSIM_OK)
        vecu_elf_free(out);
    return st;
}

rtcosim_status vecu_elf_load_file(const char *path, vecu_elf *out, rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
    /* a FIFO or device would block the open or never end the read */
    struct stat info;
    if (stat(path, &info) == 0 && !S_ISREG(info.st_mode))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: firmware is not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open firmware", path);
    unsigned char *buf = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            if (cap > ((size_t)64 << 20)) {
                fclose(f);
                free(buf);
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: firmware larger than 64 MiB",
                                         path);
            }
            cap = cap ? 2 * cap : 65536;
            unsigned char *b = realloc(buf, cap);
            if (!b) {
                fclose(f);
                free(buf);
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            }
            buf = b;
        }
        size_t n = fread(buf + size, 1, cap - size, f);
        size += n;
        if (n == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    rtcosim_status st = bad ? rtcosim_error_set(err, RTCOSIM_EIO, "%s: read error", path)
                            : vecu_elf_parse(buf, size, path, out, err);
    free(buf);
    return st;
}

const vecu_symbol *vecu_elf_symbol_at(const vecu_elf *elf, uint32_t address)
{
    const vecu_symbol *best = NULL;
    size_t lo = 0, hi = elf->symbol_count;
    while (lo < hi) { /* last symbol with address <= the address */
        size_t mid = (lo + hi) / 2;
        if (elf->symbols[mid].address <= address) {
            best = &elf->symbols[mid];
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return best;
}
