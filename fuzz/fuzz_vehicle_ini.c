/* libFuzzer target for the vehicle system file reader (examples/ecus/
 * vehicle_config.c): any bytes must give OK or a one-line error, never a
 * crash, an overread or a leak. */
#include <stddef.h>
#include <stdint.h>

#include "../examples/ecus/vehicle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_ecu_vehicle_config c = {.ecus = 4};
    rtcosim_run_options o = {0};
    rtcosim_error err;
    rtcosim_ecu_vehicle_parse((const char *)data, size, "fuzz.ini", &c, &o, &err);
    return 0;
}
