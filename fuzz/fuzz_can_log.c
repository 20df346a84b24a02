/* libFuzzer target for the CAN log readers (src/can/log_read.c: candump -l
 * and Vector ASC; log_blf_read.c: BLF; log_mdf.c: MDF 4 bus logs) and the
 * J1939 transport reassembly run on what they read (j1939_tp.c): any bytes
 * give frames or a one-line error, never a crash, an overread or a leak. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can_log.h"
#include "rtcosim/j1939.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse((const char *)data, size, "fuzz.log", &log, &err) == RTCOSIM_OK) {
        rtcosim_j1939_tp tp;
        if (rtcosim_j1939_tp_reassemble(log, &tp, &err) == RTCOSIM_OK)
            rtcosim_j1939_tp_free(&tp);
        rtcosim_can_log_free(log);
    }
    return 0;
}
