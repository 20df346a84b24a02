/* The transport protocols `rtcosim can decode` reassembles before it decodes
 * (can_transport.c): J1939 sessions and NMEA 2000 Fast Packets for a
 * database of J1939 parameter groups, ISO-TP on the ids --isotp names. Per
 * record of the log: the whole message completed there, or that the record
 * is one of a transfer's frames. And a log scan that Ctrl-C ends at a frame. */
#ifndef RTCOSIM_CLI_CAN_TRANSPORT_H
#define RTCOSIM_CLI_CAN_TRANSPORT_H

#include "rtcosim/can_log.h"
#include "rtcosim/dbc.h"
#include "rtcosim/isotp.h"
#include "rtcosim/j1939.h"

typedef struct can_transport {
    /* set by the caller: the ISO-TP ids (none: no ISO-TP) */
    const rtcosim_isotp_ids *iso_ids;
    size_t iso_id_count;
    /* the messages of each protocol read (on: it is), in the order they
     * completed, which is the log's; the streams while frames are added;
     * per protocol the next message a record may complete (can_transport_at
     * walks the log forward; can_transport_rewind starts it again) */
    bool tp_on, fp_on, iso_on;
    rtcosim_j1939_tp tp, fp;
    rtcosim_isotp iso;
    rtcosim_j1939_tp_stream *tp_stream;
    rtcosim_nmea2000_stream *fp_stream;
    rtcosim_isotp_stream *iso_stream;
    size_t tp_next, fp_next, iso_next;
    uint32_t *fp_pgns; /* the database's Fast Packet PGNs, sorted */
    size_t fp_pgn_count;
} can_transport;

/* A message as the decoder takes it: a record's frame or a reassembled one. */
typedef struct can_message_view {
    uint32_t id;
    bool extended;
    const uint8_t *data;
    size_t size;
} can_message_view;

/* Start reassembling what the database and the ISO-TP ids call for; 0, or 1
 * after saying why. Then can_transport_add every record of the log in order
 * (a loaded log's or a scan's, with its index), and can_transport_end. */
int can_transport_begin(can_transport *t, const rtcosim_dbc *dbc);
int can_transport_add(can_transport *t, const rtcosim_can_log_record *r, size_t i);
void can_transport_end(can_transport *t);
/* Record i (r): 1 with *v when a message completes there, -1 when it is a
 * frame of a transfer (counted with them, not decoded alone), 0 for a frame
 * to decode as it is (*v its own). Records are asked in increasing order
 * (skipping some is fine); can_transport_rewind starts a new pass. While
 * records are still added, a record is asked after it was added. */
int can_transport_at(can_transport *t, const rtcosim_can_log_record *r, size_t i,
                     can_message_view *v);
void can_transport_rewind(can_transport *t);
/* Does the database decode J1939 transport frames only through their
 * sessions (so that TP.CM and TP.DT frames it lacks are no unknown ids)? */
bool can_transport_j1939_frame(const can_transport *t, const rtcosim_can_log_record *r);
/* The transfers' counts on stderr, one line per protocol read. */
void can_transport_report(const can_transport *t, const char *log_path);
void can_transport_free(can_transport *t);

/* rtcosim_can_log_scan under Ctrl-C (SIGINT or SIGTERM, signals.h): the
 * first signal ends the read at the next frame; *signo then says which
 * (0: none), the status is RTCOSIM_OK and *out the log read so far. */
rtcosim_status cli_can_log_scan_stoppable(const char *path, rtcosim_can_log_frame_fn *frame,
                                          void *context, rtcosim_can_log **out, int *signo,
                                          rtcosim_error *err);

#endif
