/* libFuzzer target for the SSP 1.0 SystemStructureDescription reader: any
 * byte string must parse or fail with an error value, without crashes, leaks
 * or reads outside the input. Relative sources resolve in a directory that
 * does not exist, so no file is ever touched. */
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_system_desc *desc = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse((const char *)data, size, "/nonexistent-rtcosim-fuzz", "fuzz.ssd",
                                  &desc, &err) == RTCOSIM_OK) {
        for (size_t i = 0; i < rtcosim_system_desc_component_count(desc); i++) {
            const rtcosim_ssd_component *c = rtcosim_system_desc_component(desc, i);
            (void)c->parameter_count;
            /* Touch what the ECU annotation parser produced. */
            for (size_t k = 0; c->ecu && k < c->ecu->sensor_count + c->ecu->actuator_count; k++)
                (void)strlen(k < c->ecu->sensor_count ? c->ecu->sensors[k]
                                                      : c->ecu->actuators[k - c->ecu->sensor_count]);
            for (size_t k = 0; c->ecu && k < c->ecu->task_count; k++)
                (void)strlen(c->ecu->tasks[k].entry);
        }
        /* Touch what the real-time annotation parser produced. */
        const rtcosim_ssd_realtime_settings *rt = rtcosim_system_desc_realtime(desc);
        if (rt && rt->present && rt->non_realtime)
            (void)strlen(rt->non_realtime);
        if (rt && rt->present && rt->estimator)
            (void)strlen(rt->estimator);
        rtcosim_system_desc_free(desc);
    }
    return 0;
}
