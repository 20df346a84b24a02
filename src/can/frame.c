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

/* The stuffable bits, SOF through data (without the CRC), packed most
 * significant first into the low `n` bits of a 128-bit value (at most 103).
 * Standard: SOF, ID(11), RTR, IDE, r0, DLC(4), data. Extended: SOF, base
 * ID(11), SRR, IDE, ID extension(18), RTR, r1, r0, DLC(4), data. Data
 * frames: RTR, r0, r1 dominant (0); SRR and IDE of extended frames
 * recessive. A bus computes this for every frame it carries: packed in a
 * register and walked a byte at a time through two tables below, instead of
 * a byte per bit walked a bit at a time (callgrind, the 16-ECU vehicle's
 * 2160 frames of 2 simulated s: the bus's events 8.66 M -> 5.45 M
 * instructions, 1440 fewer a frame; in B8 the bus's thread is the
 * critical one). */
typedef unsigned __int128 bits128;

static unsigned header_and_data(const rtcosim_can_frame *f, bits128 *out)
{
    bits128 v = 0; /* SOF, dominant */
    unsigned n = 1;
    if (f->extended) {
        v = v << 11 | ((f->id >> 18) & 0x7FFu);
        v = v << 2 | 3u; /* SRR, IDE recessive */
        v = v << 18 | (f->id & 0x3FFFFu);
        v <<= 3; /* RTR, r1, r0 */
        n += 34;
    } else {
        v = v << 11 | (f->id & 0x7FFu);
        v <<= 3; /* RTR, IDE, r0 */
        n += 14;
    }
    v = v << 4 | (f->dlc & 0xFu);
    n += 4;
    for (unsigned i = 0; i < f->dlc && i < RTCOSIM_CAN_DATA_MAX; i++, n += 8)
        v = v << 8 | f->data[i];
    *out = v;
    return n;
}

/* ISO 11898-1 CRC-15 (CRCNXT = bit XOR CRC[14]; shift; if CRCNXT, XOR 0x4599),
 * eight bits at a time: crc_table[x] is the register after eight shifts
 * from x << 7 with nothing shifted in. Stuffing, eight bits at a time: a
 * state is the last bit sent (0, 1) and how many equal bits end the stream
 * (1..4), numbered 1 + last * 4 + run - 1, state 0 the empty stream; a byte
 * from a state gives the stuff bits it adds and the state after it
 * (stuff_table[state][byte]: the count in bits 4..5, the state after minus
 * one in bits 0..2). Both filled once, at load. */
static uint16_t crc_table[256];
static uint8_t stuff_table[9][256];

/* Walk `count` bits of `bits` (most significant first) from stuffing state
 * *st (can_stuff_step's rule); returns the stuff bits sent among them. The
 * table is this walk over every (state, byte), and the leading bits of a
 * stream that are not a whole byte go through it directly. */
static unsigned stuff_walk(unsigned bits, unsigned count, unsigned *st)
{
    unsigned last = *st ? (*st - 1) / 4 : 2, run = *st ? (*st - 1) % 4 + 1 : 0, added = 0;
    for (unsigned k = count; k-- > 0;)
        added += can_stuff_step((bits >> k) & 1u, &last, &run);
    *st = 1 + last * 4 + (run - 1);
    return added;
}

__attribute__((constructor)) static void frame_tables(void)
{
    for (unsigned x = 0; x < 256; x++) {
        uint16_t crc = (uint16_t)(x << 7);
        for (int k = 0; k < 8; k++)
            crc = (uint16_t)(((crc << 1) & 0x7FFF) ^ ((crc & 0x4000) ? 0x4599 : 0));
        crc_table[x] = crc;
    }
    for (unsigned st = 0; st < 9; st++)
        for (unsigned x = 0; x < 256; x++) {
            unsigned after = st;
            unsigned added = stuff_walk(x, 8, &after);
            stuff_table[st][x] = (uint8_t)(added << 4 | (after - 1));
        }
}

/* The low n bits of v, most significant first, n <= 128. Bits above them
 * are zero, and zeros shifted into a zero register leave it zero: the
 * leading partial byte is one more whole byte. */
static uint16_t crc15_of(bits128 v, unsigned n)
{
    uint16_t crc = 0;
    for (unsigned at = (n + 7) / 8 * 8; at >= 8; at -= 8) {
        unsigned byte = (unsigned)(v >> (at - 8)) & 0xFFu;
        crc = (uint16_t)(((crc << 8) & 0x7FFF) ^ crc_table[((crc >> 7) ^ byte) & 0xFFu]);
    }
    return crc;
}

/* Stuff bits of the low n bits of v, most significant first. */
static uint32_t stuff_count(bits128 v, unsigned n)
{
    unsigned st = 0, head = n % 8;
    uint32_t stuff = head ? stuff_walk((unsigned)(v >> (n - head)), head, &st) : 0;
    for (unsigned at = n - head; at >= 8; at -= 8) {
        uint8_t e = stuff_table[st][(unsigned)(v >> (at - 8)) & 0xFFu];
        stuff += e >> 4;
        st = 1 + (e & 0x7u);
    }
    return stuff;
}

uint16_t rtcosim_can_crc15(const rtcosim_can_frame *f)
{
    bits128 v;
    unsigned n = header_and_data(f, &v);
    return crc15_of(v, n);
}

uint32_t rtcosim_can_stuff_bits(const rtcosim_can_frame *f)
{
    bits128 v;
    unsigned n = header_and_data(f, &v);
    uint16_t crc = crc15_of(v, n);
    return stuff_count(v << 15 | crc, n + 15);
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
