/* libFuzzer target for the terminals and manifest readers (src/lsbus/
 * terminals.c): any bytes give terminals or a one-line error naming the
 * file, never a crash, an overread or a leak; every terminal read is walked
 * (members, parents) to catch dangling pointers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* LS-BUS rule warnings are expected here */
    rtcosim_error err;
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    if (!x)
        return 0;
    (void)rtcosim_terminals_parse((const char *)data, size, "fuzz.xml", x, &err);
    (void)rtcosim_manifest_parse((const char *)data, size, "fuzz-manifest.xml", "folder", x, &err);
    size_t sum = 0;
    for (size_t i = 0; i < rtcosim_fmu_extras_terminal_count(x); i++) {
        const rtcosim_terminal *t = rtcosim_fmu_extras_terminal(x, i);
        if (t->depth > 0 && t->parent >= i)
            abort();
        for (size_t m = 0; m < t->member_count; m++)
            sum += (unsigned char)t->members[m].variable_name[0];
    }
    for (size_t i = 0; i < rtcosim_fmu_extras_standard_count(x); i++)
        sum += (unsigned char)rtcosim_fmu_extras_standard(x, i)->name[0];
    rtcosim_fmu_extras_free(x);
    return sum == (size_t)-1;
}
