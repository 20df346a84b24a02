/* libFuzzer target for the virtual ECU's firmware ELF reader
 * (src/vecu/elf.c): any bytes must give OK or a one-line error, never a
 * crash, an overread or a leak; symbol lookups on what it read stay inside. */
#include <stddef.h>
#include <stdint.h>

#include "vecu/vecu_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vecu_elf elf;
    rtcosim_error err;
    if (vecu_elf_parse(data, size, "fuzz.elf", &elf, &err) == RTCOSIM_OK) {
        for (size_t i = 0; i < elf.segment_count; i++)
            (void)vecu_elf_symbol_at(&elf, elf.segments[i].address);
        (void)vecu_elf_symbol_at(&elf, elf.entry);
        vecu_elf_free(&elf);
    }
    return 0;
}
