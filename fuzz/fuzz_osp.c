/* libFuzzer target for libcosim's OspSystemStructure.xml reader
 * (src/system/system_osp.c): any byte string must load or fail with an error
 * value, without crashes, leaks or reads outside the input. FMU sources
 * resolve in a directory that does not exist; the seeds use native models
 * (rtcosim:NAME) so that connections, functions and bonds are reached. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtcosim/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_system_desc *desc = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse((const char *)data, size, "/nonexistent-rtcosim-fuzz",
                                  "OspSystemStructure.xml", &desc, &err) == RTCOSIM_OK) {
        for (size_t i = 0; i < rtcosim_system_desc_connection_count(desc); i++) {
            const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(desc, i);
            (void)strlen(cn->start.connector);
            (void)strlen(cn->end.connector);
        }
        const rtcosim_ssd_master_settings *m = rtcosim_system_desc_master(desc);
        for (size_t i = 0; i < m->bond_count; i++)
            (void)strlen(m->bonds[i].effort);
        rtcosim_system_desc_free(desc);
    } else {
        (void)strlen(err.message);
    }
    return 0;
}
