/* CAN FD frame geometry (ISO 11898-1:2015): how many bits a frame spends at
 * the nominal (arbitration) bit rate and how many at the data bit rate after
 * a bit rate switch, with the dynamic stuff bits of SOF through the data
 * field and the fixed stuff bits of the CRC field. The LS-BUS bridge times
 * CAN FD Transmit operations with it. */
#include <inttypes.h>

#include "rtcosim/can.h"
#include "frame_internal.h"

static const uint8_t sizes[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64};

int rtcosim_can_fd_dlc(unsigned length)
{
    for (int dlc = 0; dlc < 16; dlc++)
        if (sizes[dlc] == length)
            return dlc;
    return -1;
}

unsigned rtcosim_can_fd_length(unsigned bytes)
{
    for (int dlc = 0; dlc < 16; dlc++)
        if (bytes <= sizes[dlc])
            return sizes[dlc];
    return 0;
}

rtcosim_status rtcosim_can_fd_frame_bits(const rtcosim_can_fd_frame *f, uint32_t *nominal_bits,
                                         uint32_t *data_bits, rtcosim_error *err)
{
    int dlc = rtcosim_can_fd_dlc(f->length);
    if (dlc < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can fd frame 0x%" PRIX32 ": %u data bytes"
                                 " is not a CAN FD length (0-8, 12, 16, 20, 24, 32, 48, 64)",
                                 f->id, f->length);
    uint32_t max = f->extended ? RTCOSIM_CAN_EXT_ID_MAX : RTCOSIM_CAN_STD_ID_MAX;
    if (f->id > max)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can fd frame 0x%" PRIX32 ": identifier"
                                 " beyond the %s range 0x%" PRIX32, f->id,
                                 f->extended ? "29-bit" : "11-bit", max);
    /* SOF through the data field, most significant bit first; `brs_at` is
     * the index of the BRS bit, after which the data bit rate applies.
     * FBFF: SOF, ID(11), RRS, IDE, FDF, res, BRS, ESI, DLC(4), data.
     * FEFF: SOF, base ID(11), SRR, IDE, ID extension(18), RRS, FDF, res,
     * BRS, ESI, DLC(4), data. RRS, res dominant (0); SRR, IDE (extended)
     * and FDF recessive (1). */
    uint8_t bits[48 + 64 * 8];
    unsigned n = 0;
#define PUT(value, count)                                                     \
    for (unsigned i_ = 0; i_ < (count); i_++)                                 \
        bits[n++] = (uint8_t)(((uint32_t)(value) >> ((count) - 1 - i_)) & 1u)
    PUT(0, 1);
    if (f->extended) {
        PUT(f->id >> 18, 11);
        PUT(3, 2);
        PUT(f->id & 0x3FFFFu, 18);
    } else {
        PUT(f->id, 11);
        PUT(0, 2); /* RRS, IDE */
    }
    if (f->extended)
        PUT(0, 1); /* RRS */
    PUT(1, 1);     /* FDF */
    PUT(0, 1);     /* res */
    unsigned brs_at = n;
    PUT(f->brs ? 1 : 0, 1);
    PUT(f->esi ? 1 : 0, 1);
    PUT((unsigned)dlc, 4);
    for (unsigned b = 0; b < f->length; b++)
        PUT(f->data[b], 8);
#undef PUT
    /* dynamic stuffing as in classic CAN: after five equal bits a
     * complementary one, which starts the next run; it is sent after bit i,
     * so in the data phase when i is the BRS bit or later */
    uint32_t stuff_data;
    uint32_t stuff_nominal = can_stuff_count(bits, n, brs_at, &stuff_data);
    /* CRC field (ISO 11898-1:2015 10.4.2.6, 10.5): stuff count (4 bits: 3
     * Gray-coded + parity) and CRC-17 (up to 16 data bytes) or CRC-21, with
     * a fixed stuff bit before it and after every fourth bit: 6 (4 + 17
     * bits) or 7 (4 + 21 bits) of them */
    uint32_t crc = f->length <= 16 ? 17 : 21;
    uint32_t crc_field = 4 + crc + (crc == 17 ? 6 : 7);
    /* CRC delimiter, ACK slot, ACK delimiter, EOF(7), intermission(3) */
    const uint32_t tail = 13;
    uint32_t before_switch = brs_at + 1 + stuff_nominal;
    uint32_t after_switch = (n - brs_at - 1) + stuff_data + crc_field;
    if (f->brs) {
        *nominal_bits = before_switch + tail;
        *data_bits = after_switch;
    } else {
        *nominal_bits = before_switch + after_switch + tail;
        *data_bits = 0;
    }
    return RTCOSIM_OK;
}
