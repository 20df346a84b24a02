/* CAN XL frame geometry (ISO 11898-1:2024, CiA 610-1): the bits a data
 * frame spends at the nominal (arbitration) bit rate and at the XL data bit
 * rate. Field by field, as src/can/README.md lists them with their sources:
 *
 * arbitration phase, nominal rate, dynamic stuffing (after five equal bits
 * a complementary one, which starts the next run):
 *   SOF 1, priority id 11, RRS 1 (dominant), IDE 1 (dominant), FDF 1
 *   (recessive), XLF 1 (recessive), resXL 1 (dominant), ADH 1 (recessive;
 *   the bit rate switches at its end)
 * data phase, XL data rate, no dynamic stuffing but a fixed stuff bit (the
 * complement of the bit before it) after every tenth bit of DL1 through the
 * last FCRC bit:
 *   DH1 1, DH2 1, DL1 1, SDT 8, SEC 1, DLC 11, SBC 3, PCRC 13, VCID 8,
 *   AF 32, data 8 x length, FCRC 32, FCP 4 (after FCRC: not stuffed)
 * back at the nominal rate:
 *   DAH 1, AH1 1, AL1 1, AH2 1, ACK slot 1, ACK delimiter 1, EOF 7,
 *   intermission 3
 *
 * The data phase is stuffed at fixed positions only, so a frame's length
 * depends on its priority identifier (the arbitration phase's stuff bits)
 * and its data length, never on its data. */
#include <inttypes.h>

#include "rtcosim/can.h"
#include "frame_internal.h"

/* SOF through ADH: the bits before the switch to the data rate. */
enum { XL_ARBITRATION_BITS = 18 };
/* DAH, AH1, AL1, AH2, ACK slot, ACK delimiter, EOF (7), intermission (3). */
enum { XL_TAIL_BITS = 4 + 2 + 7 + 3 };
/* DH1, DH2, DL1 (DL1 is the first bit of the fixed-stuffed stream). */
enum { XL_ADS_DATA_BITS = 3 };
/* SDT 8, SEC 1, DLC 11, SBC 3, PCRC 13, VCID 8, AF 32. */
enum { XL_HEADER_BITS = 8 + 1 + 11 + 3 + 13 + 8 + 32 };
enum { XL_FCRC_BITS = 32, XL_FCP_BITS = 4 };

rtcosim_status rtcosim_can_xl_frame_bits(uint32_t priority_id, uint32_t length,
                                         uint32_t *nominal_bits, uint32_t *data_bits,
                                         rtcosim_error *err)
{
    if (priority_id > RTCOSIM_CAN_STD_ID_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can xl frame 0x%" PRIX32 ": the priority"
                                 " identifier is beyond the 11-bit range 0x7FF", priority_id);
    if (length == 0 || length > RTCOSIM_CAN_XL_DATA_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can xl frame 0x%" PRIX32 ": %" PRIu32
                                 " data bytes is not a CAN XL length (1-2048)", priority_id,
                                 length);
    /* SOF, the id most significant bit first, RRS, IDE, FDF, XLF, resXL,
     * ADH. Only SOF through IDE can hold five equal bits (FDF, XLF are
     * recessive and resXL dominant after them; ADH, DH1, DH2 are three
     * recessive bits), but every bit through ADH goes through the rule. */
    uint8_t bits[XL_ARBITRATION_BITS];
    unsigned n = 0;
    bits[n++] = 0;
    for (int b = 10; b >= 0; b--)
        bits[n++] = (uint8_t)((priority_id >> b) & 1u);
    bits[n++] = 0; /* RRS */
    bits[n++] = 0; /* IDE */
    bits[n++] = 1; /* FDF */
    bits[n++] = 1; /* XLF */
    bits[n++] = 0; /* resXL */
    bits[n++] = 1; /* ADH */
    uint32_t stuff = can_stuff_count(bits, n, n, NULL);
    /* DL1 through the last FCRC bit, a fixed stuff bit after each tenth
     * one (none after the last: the stream's length is odd, never a
     * multiple of ten) */
    uint32_t stuffed_stream = 1 + XL_HEADER_BITS + 8 * length + XL_FCRC_BITS;
    uint32_t fixed = (stuffed_stream - 1) / 10;
    *nominal_bits = XL_ARBITRATION_BITS + stuff + XL_TAIL_BITS;
    *data_bits = XL_ADS_DATA_BITS + XL_HEADER_BITS + 8 * length + XL_FCRC_BITS + fixed +
                 XL_FCP_BITS;
    return RTCOSIM_OK;
}
