/* CAN 2.0 frame geometry (ISO 11898-1): the bit fields of standard and
 * extended data frames, the CRC-15, and the stuff bits that make a frame's
 * duration depend on its content. */
#include <inttypes.h>

#include "rtcosim/can.h"
#include "frame_internal.h"

rtcosim_status rtcosim_can_frame_check(const rtcosim_can_frame *f, rtcosim_error *err)
{
    if (f->dlc > RTCOSIM_CAN_DATA_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can frame 0x%" PRIX32 ": payload of %u"
                                 " bytes exceeds the 8 bytes of classic CAN", f->id, f->dlc);
    uint32_t max = f->extended ? RTCOSIM_CAN_EXT_ID_MAX : RTCOSIM_CAN_STD_ID_MAX;
    if (f->id > max)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can frame 0x%" PRIX32 ": identifier beyond"
                                 " the %s range 0x%" PRIX32, f->id,
                                 f->extended ? "29-bit" : "11-bit", max);
    return RTCOSIM_OK;
}

/* The stuffable bits, SOF through data (without the CRC), most significant
 * first. Standard: SOF, ID(11), RTR, IDE, r0, DLC(4), data. Extended: SOF,
 * base ID(11), SRR, IDE, ID extension(18), RTR, r1, r0, DLC(4), data. Data
 * frames: RTR, r0, r1 dominant (0); SRR and IDE of extended frames recessive. */
typedef struct bit_stream {
    uint8_t bits[160];
    unsigned count;
} bit_stream;

static void put_bits(bit_stream *s, uint32_t value, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        s->bits[s->count++] = (uint8_t)((value >> (n - 1 - i)) & 1u);
}

static void header_and_data(const rtcosim_can_frame *f, bit_stream *s)
{
    s->count = 0;
    put_bits(s, 0, 1); /* SOF */
    if (f->extended) {
        put_bits(s, f->id >> 18, 11);
        put_bits(s, 3, 2); /* SRR, IDE recessive */
        put_bits(s, f->id & 0x3FFFFu, 18);
        put_bits(s, 0, 3); /* RTR, r1, r0 */
    } else {
        put_bits(s, f->id, 11);
        put_bits(s, 0, 3); /* RTR, IDE, r0 */
    }
    put_bits(s, f->dlc, 4);
    for (unsigned i = 0; i < f->dlc && i < RTCOSIM_CAN_DATA_MAX; i++)
        put_bits(s, f->data[i], 8);
}

static uint16_t crc15_of(const bit_stream *s)
{
    /* ISO 11898-1 CRC: CRCNXT = bit XOR CRC[14]; shift; if CRCNXT, XOR 0x4599 */
    uint16_t crc = 0;
    for (unsigned i = 0; i < s->count; i++) {
        unsigned next = s->bits[i] ^ ((crc >> 14) & 1u);
        crc = (uint16_t)((crc << 1) & 0x7FFF);
        if (next)
            crc ^= 0x4599;
    }
    return crc;
}

uint16_t rtcosim_can_crc15(const rtcosim_can_frame *f)
{
    bit_stream s;
    header_and_data(f, &s);
    return crc15_of(&s);
}

uint32_t rtcosim_can_stuff_bits(const rtcosim_can_frame *f)
{
    bit_stream s;
    header_and_data(f, &s);
    put_bits(&s, crc15_of(&s), 15);
    return can_stuff_count(s.bits, s.count, s.count, NULL);
}

uint32_t rtcosim_can_frame_bits(const rtcosim_can_frame *f, rtcosim_can_stuffing stuffing)
{
    unsigned n = f->dlc > RTCOSIM_CAN_DATA_MAX ? RTCOSIM_CAN_DATA_MAX : f->dlc;
    /* stuffable: header + data + CRC(15); then CRC delimiter, ACK slot, ACK
     * delimiter, EOF(7), intermission(3) = 13 bits never stuffed */
    uint32_t stuffable = (f->extended ? 54u : 34u) + 8u * n;
    uint32_t stuff = stuffing == RTCOSIM_CAN_STUFFING_WORST_CASE ? (stuffable - 1) / 4
                                                                 : rtcosim_can_stuff_bits(f);
    return stuffable + 13u + stuff;
}

uint64_t rtcosim_can_arbitration_key(const rtcosim_can_frame *f)
{
    /* dominant 0 first: base ID, then RTR (standard, dominant) vs SRR
     * (extended, recessive), then IDE, then the extension; bit 19 is the
     * RTR/SRR position, bit 18 IDE */
    if (!f->extended)
        return (uint64_t)f->id << 20;
    return (uint64_t)(f->id >> 18) << 20 | UINT64_C(3) << 18 | (f->id & 0x3FFFFu);
}

rtcosim_status rtcosim_can_bit_time(uint32_t bitrate, rtcosim_time_ns *bit_ns, rtcosim_error *err)
{
    if (bitrate == 0 || RTCOSIM_NS_PER_S % bitrate != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can: bit rate %" PRIu32 " bit/s does not"
                                 " give a whole number of nanoseconds per bit", bitrate);
    *bit_ns = RTCOSIM_NS_PER_S / bitrate;
    return RTCOSIM_OK;
}
