/* libFuzzer target for the CAN log readers (src/can/log_read.c: candump -l
 * and Vector ASC; log_blf_read.c: BLF; log_mdf.c: MDF 4 bus logs) and the
 * transport reassembly run on what they read (j1939_tp.c: J1939; nmea2000.c:
 * NMEA 2000 Fast Packets on every PGN of its ranges; isotp.c:
 * ISO-TP on every id, with and without an address byte, each message then
 * described as UDS by uds.c): any bytes give frames or a one-line error,
 * never a crash, an overread or a leak. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can_log.h"
#include "rtcosim/isotp.h"
#include "rtcosim/j1939.h"

static void isotp_all(const rtcosim_can_log *log, bool address_byte)
{
    const rtcosim_isotp_ids every[] = {{0, 0x7FF, false, address_byte},
                                       {0, 0x1FFFFFFFu, true, address_byte}};
    rtcosim_isotp tp;
    rtcosim_error err;
    if (rtcosim_isotp_reassemble(log, every, 2, &tp, &err) != RTCOSIM_OK)
        return;
    char what[64];
    for (size_t k = 0; k < tp.count; k++)
        rtcosim_uds_describe(tp.messages[k].data, tp.messages[k].size, what, sizeof what);
    rtcosim_isotp_free(&tp);
}

static void fast_packets_all(const rtcosim_can_log *log)
{
    static uint32_t pgns[0x1FFFF - 0x1ED00 + 1];
    for (uint32_t p = 0x1ED00; p <= 0x1FFFF; p++)
        pgns[p - 0x1ED00] = p;
    rtcosim_j1939_tp fp;
    rtcosim_error err;
    if (rtcosim_nmea2000_reassemble(log, pgns, sizeof pgns / sizeof *pgns, &fp, &err) ==
        RTCOSIM_OK)
        rtcosim_j1939_tp_free(&fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse((const char *)data, size, "fuzz.log", &log, &err) == RTCOSIM_OK) {
        rtcosim_j1939_tp tp;
        if (rtcosim_j1939_tp_reassemble(log, &tp, &err) == RTCOSIM_OK)
            rtcosim_j1939_tp_free(&tp);
        fast_packets_all(log);
        isotp_all(log, false);
        isotp_all(log, true);
        rtcosim_can_log_free(log);
    }
    return 0;
}
