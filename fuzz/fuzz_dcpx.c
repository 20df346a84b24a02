/* libFuzzer target for the DCPX reader: any byte string must parse into a
 * description or fail with an error, without crashes, leaks or reads
 * outside the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtcosim/dcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_dcpx *d = NULL;
    rtcosim_error err;
    if (rtcosim_dcpx_parse((const char *)data, size, "fuzz.dcpx", &d, &err) == RTCOSIM_OK) {
        const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(d);
        for (size_t i = 0; i < desc->variable_count; i++)
            (void)strlen(desc->variables[i].name);
        (void)strlen(rtcosim_dcpx_slave_name(d));
        rtcosim_dcpx_free(d);
    }
    return 0;
}
