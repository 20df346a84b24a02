/* CAN databases in the DBC format (Vector's CANdb++ text format, the de-facto
 * exchange format of CAN matrices): messages (BO_), signals (SG_) with start
 * bit, length, Intel (@1) or Motorola (@0) byte order, signedness,
 * factor/offset, min/max, unit, receivers; value tables (VAL_), cycle times
 * (BA_ "GenMsgCycleTime" BO_ id ms;), multiplexing (one multiplexor M,
 * signals mN present when it equals N) and extended multiplexing (mNM
 * signals that multiplex others, SG_MUL_VAL_ value ranges).
 *
 * Bit numbering (as CANdb++): bit b is bit b % 8 of byte b / 8. An Intel
 * signal's start bit is its least significant bit, its bits ascend. A
 * Motorola signal's start bit is its most significant bit; its bits descend
 * within a byte and continue at bit 7 of the next byte.
 *
 * Other statements (VERSION, NS_, BS_, BU_, CM_, BA_DEF_, ...) are read
 * over. LF, CR LF or CR line ends; a UTF-8 byte-order mark is skipped.
 * Names are at most 255 characters, numbers finite. Errors are one line,
 * "FILE:LINE: problem". Loading is linear in the file's size (ids and names
 * are hashed). */
#ifndef RTCOSIM_DBC_H
#define RTCOSIM_DBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_dbc_mux {
    RTCOSIM_DBC_PLAIN = 0,    /* always present */
    RTCOSIM_DBC_MULTIPLEXOR,  /* "M" */
    RTCOSIM_DBC_MULTIPLEXED   /* "mN": present when the multiplexor's raw value is N */
} rtcosim_dbc_mux;

/* How a signal's bits hold its raw value: an integer (is_signed tells
 * two's complement or not), or an IEEE 754 number (DBC: SIG_VALTYPE_ 1,
 * 32 bits, or 2, 64 bits; ARXML: BASE-TYPE-ENCODING IEEE754), which the
 * factor and offset then scale. */
typedef enum rtcosim_dbc_value_type {
    RTCOSIM_DBC_INTEGER = 0,
    RTCOSIM_DBC_FLOAT32,
    RTCOSIM_DBC_FLOAT64
} rtcosim_dbc_value_type;

typedef struct rtcosim_dbc_value_text {
    int64_t value;
    const char *text;
} rtcosim_dbc_value_text;

/* Strings are owned by the database. */
typedef struct rtcosim_dbc_signal {
    const char *name;
    uint32_t start_bit, length; /* length 1..64 */
    bool little_endian;         /* @1 Intel; @0 Motorola */
    bool is_signed;             /* '-': two's complement */
    double factor, offset;      /* physical = raw * factor + offset */
    double minimum, maximum;    /* [min|max], physical */
    const char *unit;
    rtcosim_dbc_mux mux;
    uint64_t mux_value;         /* MULTIPLEXED: the multiplexor value */
    const rtcosim_dbc_value_text *values; /* VAL_ */
    size_t value_count;
    int line;
    /* Decimal places of factor and offset as the shortest decimals that read
     * back to them (0.1 -> 1, 0.05 -> 2, 2 -> 0): the resolution of the
     * physical value; -1 when finer than 15 places (no rounding). */
    int decimals;
    /* The raw value sent before any other (DBC: BA_ "GenSigStartValue";
     * ARXML: the I-SIGNAL's INIT-VALUE); has_start false: none given. */
    bool has_start;
    double start_raw;
    rtcosim_dbc_value_type value_type; /* a float signal: length 32 or 64 */
    /* Extended multiplexing (DBC SG_MUL_VAL_). `selects`: a multiplexor of
     * other signals (M, or mNM: a multiplexed signal that multiplexes in
     * turn). A multiplexed signal with mux_ranges is present when its muxer
     * is present and the muxer's raw value lies in one of the ranges
     * (inclusive [lo, hi] pairs); without ranges, when the message's
     * multiplexor's raw value is mux_value. */
    bool selects;
    const struct rtcosim_dbc_signal *muxer;
    const uint64_t (*mux_ranges)[2];
    size_t mux_range_count;
} rtcosim_dbc_signal;

/* The longest message a database may declare: ISO-TP's 4095 bytes (J1939's
 * transport carries 1785, a Fast Packet 223). */
#define RTCOSIM_DBC_MESSAGE_MAX 4095

typedef struct rtcosim_dbc_message {
    uint32_t id;                /* without the extended flag */
    bool extended;              /* id written with bit 31 set */
    const char *name;
    /* bytes: up to 64 in one frame; up to RTCOSIM_DBC_MESSAGE_MAX for a
     * message a transport protocol carries (J1939 TP, NMEA 2000 Fast
     * Packet, ISO-TP), as CANdb++ and cantools take them */
    uint16_t dlc;
    const char *transmitter;
    rtcosim_time_ns cycle_time; /* GenMsgCycleTime; 0: none */
    /* a CAN FD frame (DBC: BA_ "VFrameFormat" StandardCAN_FD/ExtendedCAN_FD;
     * ARXML: CAN-FRAME-TX-BEHAVIOR CAN-FD), with bit rate switch (DBC:
     * BA_ "CANFD_BRS", default "1") */
    bool fd, brs;
    const rtcosim_dbc_signal *signals;
    size_t signal_count;
    const rtcosim_dbc_signal *multiplexor; /* its "M" signal, or NULL */
    int line;
    /* AUTOSAR container frames (ARXML CONTAINER-I-PDU with headers). A
     * container (header_bytes 4: a 24-bit header id and an 8-bit length, or
     * 8: 32 and 32 bits; big-endian unless header_little_endian) has no
     * signals of its own: its frames hold headers, each followed by that
     * many bytes of the contained PDU of that header id. A contained PDU is
     * a message of its own (contained_in its container, header_id; id,
     * extended and transmitter its container's), found by name but not by
     * CAN id, its signals placed in its own bytes. */
    uint8_t header_bytes;
    bool header_little_endian;
    const struct rtcosim_dbc_message *contained_in;
    uint32_t header_id;
    /* A container's sending (AUTOSAR IpduM): a frame goes out
     * container_timeout after its first contained PDU (CONTAINER-TIMEOUT;
     * 0: once the PDUs due at that instant are in), at once after its first
     * PDU when container_first_trigger (CONTAINER-TRIGGER
     * FIRST-CONTAINED-TRIGGER), at once when filled to container_threshold
     * bytes, headers included (THRESHOLD-SIZE; 0: none), and at once, before
     * the PDU, when a PDU would not fit. Its frame is as long as the filled
     * bytes (CAN FD: rounded up to a valid length), the rest of it
     * container_padding (UNUSED-BIT-PATTERN, default 0); a receiver stops at
     * a header of padding bytes. */
    rtcosim_time_ns container_timeout;
    uint32_t container_threshold;
    bool container_first_trigger;
    uint8_t container_padding;
    /* A contained PDU's (CONTAINED-I-PDU-PROPS): contained_trigger (TRIGGER
     * ALWAYS) sends its container at once after it; contained_queued
     * (COLLECTION-SEMANTICS QUEUED) puts each occurrence in with its values
     * of then, where last-is-best (the default) holds it once and packs it
     * when the frame goes; contained_timeout (TIMEOUT; -1: none) sends the
     * container at most that long after it. */
    bool contained_trigger, contained_queued;
    rtcosim_time_ns contained_timeout;
    /* An SAE J1939 parameter group (DBC: BA_ "VFrameFormat" J1939PG): a
     * frame is this message when its 29-bit id carries the same PGN,
     * whatever its priority and source address
     * (rtcosim_dbc_find_frame). */
    bool j1939;
} rtcosim_dbc_message;

/* One contained PDU of a container frame (rtcosim_dbc_container_next). */
typedef struct rtcosim_dbc_container_part {
    uint32_t header_id;
    const uint8_t *data; /* its bytes in the frame */
    size_t size;
    const rtcosim_dbc_message *pdu; /* NULL: a header id the database does not know */
    size_t index; /* pdu's place in rtcosim_dbc_contained_at's order */
} rtcosim_dbc_container_part;

typedef struct rtcosim_dbc rtcosim_dbc; /* opaque */

rtcosim_status rtcosim_dbc_load(const char *path, rtcosim_dbc **out, rtcosim_error *err);
/* From memory; name is used in messages. */
rtcosim_status rtcosim_dbc_parse(const char *text, size_t size, const char *name,
                                 rtcosim_dbc **out, rtcosim_error *err);
/* A CAN communication matrix in AUTOSAR 4 ARXML (src/can/arxml.c): its CAN
 * frames as messages, its I-SIGNALs as signals; rtcosim_dbc_load reads a
 * path ending in .arxml so. */
rtcosim_status rtcosim_dbc_parse_arxml(const char *xml, size_t size, const char *name,
                                       rtcosim_dbc **out, rtcosim_error *err);
void rtcosim_dbc_free(rtcosim_dbc *dbc); /* NULL is a no-op */

size_t rtcosim_dbc_message_count(const rtcosim_dbc *dbc);
const rtcosim_dbc_message *rtcosim_dbc_message_at(const rtcosim_dbc *dbc, size_t index);
const rtcosim_dbc_message *rtcosim_dbc_find_id(const rtcosim_dbc *dbc, uint32_t id, bool extended);
/* The message a received frame is: the one of its id, else for an extended
 * id the J1939 parameter group of its PGN (SAE J1939-21: data page bits
 * and PDU format, and the PDU specific field when PDU format >= 240;
 * priority and source address aside). NULL: none. */
const rtcosim_dbc_message *rtcosim_dbc_find_frame(const rtcosim_dbc *dbc, uint32_t id,
                                                  bool extended);
/* The PGN of a 29-bit J1939 identifier. */
uint32_t rtcosim_j1939_pgn(uint32_t id);
/* Every extended classic message of the database a J1939 parameter group,
 * whatever its attributes say (`can decode --j1939`, for J1939 databases
 * that do not mark their messages J1939PG). */
void rtcosim_dbc_set_j1939(rtcosim_dbc *dbc);
const rtcosim_dbc_message *rtcosim_dbc_find_message(const rtcosim_dbc *dbc, const char *name);
const rtcosim_dbc_signal *rtcosim_dbc_find_signal(const rtcosim_dbc_message *m, const char *name);

/* The raw bits of a signal in data (size bytes; bits beyond size read 0),
 * sign-extended to 64 bits when a signed integer (a float signal's bits
 * as they are: its IEEE 754 pattern in the low 32 or 64 bits). */
uint64_t rtcosim_dbc_raw_get(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size);
/* Write the low `length` bits of raw into data, leaving the other bits. */
void rtcosim_dbc_raw_set(const rtcosim_dbc_signal *s, uint64_t raw, uint8_t *data, size_t size);
/* raw * factor + offset (a float signal's raw value is the number its
 * bits hold). */
double rtcosim_dbc_decode(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size);
/* The same value as the decimal it is: raw * factor + offset rounded to the
 * signal's decimals, so that 96 * 0.1 gives the double nearest 9.6 (whose
 * shortest text is "9.6"), not 9.600000000000001 (binary arithmetic's). */
double rtcosim_dbc_decode_decimal(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size);
/* Decimal places of x's shortest round-trip decimal text; -1 past 15. */
int rtcosim_dbc_decimal_places(double x);
/* The raw value nearest to (physical - offset) / factor (halves rounded
 * away from zero; a float signal's: that number as a float or double),
 * written into data; RTCOSIM_EINVAL naming the signal when it does not fit
 * the signal's bits (a float32 beyond its largest finite value). */
rtcosim_status rtcosim_dbc_encode(const rtcosim_dbc_signal *s, double physical, uint8_t *data,
                                  size_t size, rtcosim_error *err);
/* The same, saturated to the signal's raw range (NaN: 0; a float signal
 * carries NaN and saturates to its largest finite value), as ECU software
 * packs a value that does not fit. Never fails; no allocation. */
void rtcosim_dbc_encode_saturated(const rtcosim_dbc_signal *s, double physical, uint8_t *data,
                                  size_t size);
/* Whether all of a signal's bits lie in the first `size` bytes of a frame
 * (a frame shorter than its message leaves the signal unknown). */
bool rtcosim_dbc_signal_fits(const rtcosim_dbc_signal *s, size_t size);
/* The contained PDUs of a container message, by header id. */
size_t rtcosim_dbc_contained_count(const rtcosim_dbc *dbc, const rtcosim_dbc_message *container);
const rtcosim_dbc_message *rtcosim_dbc_contained_at(const rtcosim_dbc *dbc,
                                                    const rtcosim_dbc_message *container,
                                                    size_t index);
/* The next contained PDU of a container frame from *offset (0 for the
 * first): 1 with *part filled and *offset moved past it; 0 at the end (fewer
 * bytes left than a header, or a header of id 0 and length 0: padding); -1
 * when a header's length runs past the frame (the rest is not read). No
 * allocation: the contained PDUs are found by binary search. */
int rtcosim_dbc_container_next(const rtcosim_dbc *dbc, const rtcosim_dbc_message *container,
                               const uint8_t *data, size_t size, size_t *offset,
                               rtcosim_dbc_container_part *part);

/* A container header for a contained PDU of `length` bytes at out (the
 * container's header_bytes of them, in its byte order). */
void rtcosim_dbc_container_put(const rtcosim_dbc_message *container, uint32_t header_id,
                               uint32_t length, uint8_t *out);

/* Whether a signal is present in a frame of its message (multiplexing,
 * extended multiplexing: every multiplexor above it present and selecting). */
bool rtcosim_dbc_signal_present(const rtcosim_dbc_message *m, const rtcosim_dbc_signal *s,
                                const uint8_t *data, size_t size);
/* The VAL_ text of a raw value, or NULL. */
const char *rtcosim_dbc_value_text_of(const rtcosim_dbc_signal *s, int64_t raw);

#ifdef __cplusplus
}
#endif
#endif
