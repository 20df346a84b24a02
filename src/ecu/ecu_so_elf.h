/* What rtcosim needs to know of an ECU shared object before loading it,
 * read from its ELF file (ecu_so_elf.c): the address ranges of its writable
 * data (the state to capture), whether it has thread-local variables, and
 * whether it imports a function that keeps state outside the object. */
#ifndef RTCOSIM_ECU_SO_ELF_H
#define RTCOSIM_ECU_SO_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"

#define ECU_SO_RANGES_MAX 32

typedef struct ecu_so_layout {
    /* Writable allocated data sections (PROGBITS, NOBITS) outside RELRO and
     * the GOT, by link-time address, sorted, touching ones merged. */
    struct {
        uint64_t address, size;
    } ranges[ECU_SO_RANGES_MAX];
    size_t range_count;
    bool tls;                  /* a PT_TLS segment or SHF_TLS section */
    char outside_state[64];    /* first imported function with state outside the object, or "" */
} ecu_so_layout;

/* Read an ELF64 shared object of this host's machine and byte order from
 * `bytes`. EFORMAT with a one-line message starting with `origin` for
 * anything else or anything out of bounds; never reads outside `bytes`. */
rtcosim_status ecu_so_elf_scan(const unsigned char *bytes, size_t size, const char *origin,
                               ecu_so_layout *out, rtcosim_error *err);

#endif
