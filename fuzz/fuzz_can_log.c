/* libFuzzer target for the CAN log reader (src/can/log_read.c, candump -l
 * and Vector ASC): any bytes give frames or a one-line error, never a crash,
 * an overread or a leak. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse((const char *)data, size, "fuzz.log", &log, &err) == RTCOSIM_OK)
        rtcosim_can_log_free(log);
    return 0;
}
