/* ISO 15765-2 (ISO-TP, "diagnostics over CAN") transport: messages of up to
 * 4095 bytes (or, with the CAN FD escape sequence, 2^32 - 1) sent as a First
 * Frame and Consecutive Frames, reassembled from a CAN log's frames so that a
 * trace shows each UDS or OBD message whole and a DBC decodes it
 * (`rtcosim can isotp`, `rtcosim can decode --isotp`). */
#ifndef RTCOSIM_ISOTP_H
#define RTCOSIM_ISOTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ids whose frames carry ISO-TP: first..last, 11-bit or 29-bit. With
 * address_byte, every frame starts with one address byte before the protocol
 * control information (extended addressing: the target address; mixed
 * addressing: the address extension); each address value is a transfer of
 * its own. */
typedef struct rtcosim_isotp_ids {
    uint32_t first, last;
    bool extended;
    bool address_byte;
} rtcosim_isotp_ids;

/* The ids of legislated OBD and of most UDS testers (ISO 15765-4): 11-bit
 * 0x7DF (functional request) and 0x7E0-0x7EF (physical requests and
 * responses), 29-bit 0x18DA0000-0x18DAFFFF and 0x18DB0000-0x18DBFFFF (normal
 * fixed addressing, priority 6). */
extern const rtcosim_isotp_ids rtcosim_isotp_obd_ids[4];

/* One reassembled message (a Single Frame's, or a First Frame's with its
 * Consecutive Frames): completed at record `record` of the log (its time and
 * bus), started at `first_record` (the First Frame; the record itself for a
 * Single Frame). `address` is the address byte (-1 without). `data` holds
 * the payload (a UDS message: its service id first). `frame` is the message
 * as one frame would carry it, for a DBC written for single frames (the OBD
 * and UDS databases: byte 0 the length, the service id at byte 1): the
 * address byte, the length's low byte, then the payload, frame_size bytes.
 * `time` and `first_time` are those records' times (so that a log read a
 * frame at a time need not keep them). */
typedef struct rtcosim_isotp_message {
    size_t record, first_record;
    uint32_t bus;
    uint32_t id;
    bool extended;
    int address;
    uint32_t size;
    const uint8_t *data;
    const uint8_t *frame;
    size_t frame_size;
    rtcosim_time_ns time, first_time;
} rtcosim_isotp_message;

typedef struct rtcosim_isotp {
    rtcosim_isotp_message *messages; /* in the order they completed */
    size_t count;
    size_t frames;       /* frames on the given ids (of every kind) */
    size_t flow_control; /* Flow Control frames among them (read over) */
    /* transfers started and not completed: a Consecutive Frame out of
     * sequence, a new First or Single Frame before the last one, silence of
     * over 1 s (N_Cr), a message over the size limit, the log's end */
    size_t incomplete;
    /* frames that fit no transfer: an unknown frame type, a length beyond
     * the frame, a First Frame of a length a Single Frame carries, a
     * Consecutive Frame with no transfer open (the First Frame not in the
     * log) */
    size_t invalid;
} rtcosim_isotp;

/* Largest message reassembled; a First Frame announcing more is counted
 * incomplete (a log of a real transfer never comes near it). */
#define RTCOSIM_ISOTP_MAX_SIZE (16u << 20)

/* Every transfer of the log's data frames on the given ids, per bus, id
 * and address byte, as an ISO 15765-2 receiver takes them: a Single Frame
 * (its length in the PCI's low nibble, or after a 0 nibble in byte 1 on a
 * frame over 8 bytes) is a message; a First Frame (a 12-bit length, or 0 and
 * a 32-bit one) opens a transfer that Consecutive Frames with sequence
 * numbers 1, 2, ..., 15, 0, 1, ... fill, each with all its bytes after the
 * PCI (CAN FD: a frame of the First Frame's length, the last one shorter);
 * padding after a message's end is dropped. *out is freed with
 * rtcosim_isotp_free. */
rtcosim_status rtcosim_isotp_reassemble(const rtcosim_can_log *log, const rtcosim_isotp_ids *ids,
                                        size_t id_count, rtcosim_isotp *out, rtcosim_error *err);
/* The same for the log file at path, read a frame at a time
 * (rtcosim_can_log_scan: never held whole); *log is the log without its
 * frames (its buses by name, for the messages' bus indices), freed by the
 * caller. Errors name the file (and line). */
rtcosim_status rtcosim_isotp_reassemble_file(const char *path, const rtcosim_isotp_ids *ids,
                                             size_t id_count, rtcosim_isotp *out,
                                             rtcosim_can_log **log, rtcosim_error *err);
/* The same a frame at a time, as rtcosim_j1939_tp_begin/add/end (ids must
 * outlive the stream). */
typedef struct rtcosim_isotp_stream rtcosim_isotp_stream;
rtcosim_isotp_stream *rtcosim_isotp_begin(const rtcosim_isotp_ids *ids, size_t id_count,
                                          rtcosim_isotp *out);
bool rtcosim_isotp_add(rtcosim_isotp_stream *s, const rtcosim_can_log_record *r, size_t index);
void rtcosim_isotp_end(rtcosim_isotp_stream *s);
void rtcosim_isotp_free(rtcosim_isotp *tp);

/* Does the frame's id fall in one of the ranges (and which: *which)? */
bool rtcosim_isotp_match(const rtcosim_isotp_ids *ids, size_t id_count, uint32_t id,
                         bool extended, size_t *which);

/* A UDS (ISO 14229-1) or OBD (SAE J1979) message in words, into buf (NUL
 * terminated, cut to size): the service ("ReadDataByIdentifier"), a positive
 * response ("ReadDataByIdentifier response"), a negative response with its
 * code ("negative response to ReadDataByIdentifier: requestOutOfRange"), with
 * the data identifier, routine, DTC sub-function or session where the
 * service has one; "" for an empty message. Returns buf. */
const char *rtcosim_uds_describe(const uint8_t *data, size_t size, char *buf, size_t buf_size);

/* What a UDS or OBD message is: a request (RTCOSIM_UDS_REQUEST), a positive
 * response (its service id less 0x40) or a negative one (0x7F, the service,
 * the code; RTCOSIM_UDS_PENDING for requestCorrectlyReceived-ResponsePending,
 * 0x78: the final response is still to come); RTCOSIM_UDS_UNKNOWN for a
 * service neither knows. *service: the request's service id. */
typedef enum rtcosim_uds_kind {
    RTCOSIM_UDS_UNKNOWN,
    RTCOSIM_UDS_REQUEST,
    RTCOSIM_UDS_POSITIVE,
    RTCOSIM_UDS_NEGATIVE,
    RTCOSIM_UDS_PENDING,
} rtcosim_uds_kind;
rtcosim_uds_kind rtcosim_uds_classify(const uint8_t *data, size_t size, uint8_t *service);

#ifdef __cplusplus
}
#endif
#endif
