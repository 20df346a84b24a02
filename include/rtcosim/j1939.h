/* SAE J1939 transport protocol (J1939-21): parameter groups of 9 to 1785
 * bytes sent as a connection management frame (TP.CM, PGN 0xEC00) and data
 * transfer frames (TP.DT, PGN 0xEB00) of 7 bytes each, broadcast (BAM) or
 * to one destination (RTS/CTS), reassembled from a CAN log's frames so that
 * a DBC decodes them whole (`rtcosim can decode`). */
#ifndef RTCOSIM_J1939_H
#define RTCOSIM_J1939_H

#include "rtcosim/can_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One reassembled parameter group: completed at record `record` of the log
 * (its last TP.DT frame: the message's time and bus), as the frame id it
 * would have had (priority of its TP.CM, its PGN, the destination in PDU
 * specific for a PDU1 group, the sender's source address). */
typedef struct rtcosim_j1939_message {
    size_t record;
    uint32_t id;
    uint32_t pgn;
    uint16_t size;
    const uint8_t *data;
} rtcosim_j1939_message;

typedef struct rtcosim_j1939_tp {
    rtcosim_j1939_message *messages; /* in the order they completed */
    size_t count;
    size_t frames;     /* TP.CM and TP.DT frames of the log */
    size_t incomplete; /* sessions announced and never completed (aborted, a
                        * packet missing, a new announcement before the end) */
} rtcosim_j1939_tp;

/* Every transport session of the log's extended frames, per bus, sender and
 * destination: an announcement (BAM, or RTS to a destination) of its size,
 * packet count and PGN, then each TP.DT packet by its sequence number (1 to
 * the count; repeats overwrite); complete when every packet came. Aborts
 * (Connection Abort) end a session unread, as does silence of over 1.25 s
 * (J1939-21's longest timeout); CTS and End of Message Acknowledgment frames
 * are read over. An announcement whose size and packet count disagree
 * (ceil(size / 7)) or lie outside 9..1785 bytes, or that finds 4096
 * sessions open, is counted incomplete. *out is freed with
 * rtcosim_j1939_tp_free. */
rtcosim_status rtcosim_j1939_tp_reassemble(const rtcosim_can_log *log, rtcosim_j1939_tp *out,
                                           rtcosim_error *err);
void rtcosim_j1939_tp_free(rtcosim_j1939_tp *tp);
/* The same a frame at a time (a log read by rtcosim_can_log_scan): begin
 * (NULL out of memory), add every frame with its index in the log, in the
 * log's order (false out of memory), end closes the sessions still open
 * (incomplete) and frees the stream; *out gets each message as it
 * completes, so it holds the messages, never the frames. */
typedef struct rtcosim_j1939_tp_stream rtcosim_j1939_tp_stream;
rtcosim_j1939_tp_stream *rtcosim_j1939_tp_begin(rtcosim_j1939_tp *out);
bool rtcosim_j1939_tp_add(rtcosim_j1939_tp_stream *s, const rtcosim_can_log_record *r,
                          size_t index);
void rtcosim_j1939_tp_end(rtcosim_j1939_tp_stream *s);

/* NMEA 2000 Fast Packet (IEC 61162-3): a parameter group of 9 to 223 bytes in
 * up to 32 frames of its own PGN, each led by a byte of a 3-bit sequence
 * counter (high bits) and a 5-bit frame counter (low bits); frame 0 carries the
 * length and 6 bytes, frames 1 to 31 7 bytes each. Is the PGN in the ranges
 * where NMEA 2000 sends them (0x1ED00-0x1FFFF: addressed 0x1ED00, 0x1EE00,
 * 0x1EF00; broadcast 0x1F000-0x1FFFF)? */
bool rtcosim_nmea2000_fast_packet_range(uint32_t pgn);

/* The Fast Packet messages of the log's extended frames on the given PGNs
 * (sorted ascending), per bus, source address, PGN and (PDU1) destination:
 * frame 0 opens a message (and ends an unfinished one), the other frames of
 * its sequence counter fill it in any order (repeats overwrite); complete when
 * every frame came. A frame of another sequence counter, 750 ms of silence
 * (J1939-21's T1) or a length over 223 bytes leaves a message incomplete
 * (counted). Messages as rtcosim_j1939_tp_reassemble gives them (the id: the
 * frames' own); *out is freed with rtcosim_j1939_tp_free. */
rtcosim_status rtcosim_nmea2000_reassemble(const rtcosim_can_log *log, const uint32_t *pgns,
                                           size_t pgn_count, rtcosim_j1939_tp *out,
                                           rtcosim_error *err);
/* The same a frame at a time, as rtcosim_j1939_tp_begin/add/end (pgns must
 * outlive the stream). */
typedef struct rtcosim_nmea2000_stream rtcosim_nmea2000_stream;
rtcosim_nmea2000_stream *rtcosim_nmea2000_begin(const uint32_t *pgns, size_t pgn_count,
                                                rtcosim_j1939_tp *out);
bool rtcosim_nmea2000_add(rtcosim_nmea2000_stream *s, const rtcosim_can_log_record *r,
                          size_t index);
void rtcosim_nmea2000_end(rtcosim_nmea2000_stream *s);

#ifdef __cplusplus
}
#endif
#endif
