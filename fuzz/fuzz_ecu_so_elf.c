/* libFuzzer target for the reader of ECU shared objects' ELF files
 * (src/ecu/ecu_so_elf.c): any bytes must give OK or a one-line error, never
 * a crash, an overread or a leak; what it reports stays consistent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ecu/ecu_so_elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ecu_so_layout layout;
    rtcosim_error err;
    if (ecu_so_elf_scan(data, size, "fuzz.so", &layout, &err) == RTCOSIM_OK) {
        if (layout.range_count > ECU_SO_RANGES_MAX)
            abort();
        for (size_t i = 1; i < layout.range_count; i++)
            if (layout.ranges[i].address < layout.ranges[i - 1].address + layout.ranges[i - 1].size)
                abort(); /* sorted, disjoint */
        if (memchr(layout.outside_state, '\0', sizeof layout.outside_state) == NULL)
            abort();
    } else if (strchr(err.message, '\n')) {
        abort();
    }
    return 0;
}
