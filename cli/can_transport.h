/* The transport protocols `rtcosim can decode` reassembles before it decodes
 * (can_transport.c): J1939 sessions and NMEA 2000 Fast Packets for a
 * database of J1939 parameter groups, ISO-TP on the ids --isotp names. Per
 * record of the log: the whole message completed there, or that the record
 * is one of a transfer's frames. */
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
    /* per record the message completed there + 1, 0 for none; NULL when the
     * protocol is not read */
    rtcosim_j1939_tp tp;
    size_t *tp_of;
    uint32_t *fp_pgns; /* the database's Fast Packet PGNs, sorted */
    size_t fp_pgn_count;
    rtcosim_j1939_tp fp;
    size_t *fp_of;
    rtcosim_isotp iso;
    size_t *iso_of;
} can_transport;

/* A message as the decoder takes it: a record's frame or a reassembled one. */
typedef struct can_message_view {
    uint32_t id;
    bool extended;
    const uint8_t *data;
    size_t size;
} can_message_view;

/* Reassemble what the database and the ISO-TP ids call for; 0, or 1 after
 * saying why. */
int can_transport_init(can_transport *t, const rtcosim_can_log *log, const rtcosim_dbc *dbc);
/* Does decoding with this database (and these many ISO-TP ids) reassemble
 * anything? (If not, can_transport_init need not see the whole log.) */
bool can_transport_needed(const rtcosim_dbc *dbc, size_t iso_id_count);
/* Record i (r): 1 with *v when a message completes there, -1 when it is a
 * frame of a transfer (counted with them, not decoded alone), 0 for a frame
 * to decode as it is (*v its own). */
int can_transport_at(const can_transport *t, const rtcosim_can_log_record *r, size_t i,
                     can_message_view *v);
/* Does the database decode J1939 transport frames only through their
 * sessions (so that TP.CM and TP.DT frames it lacks are no unknown ids)? */
bool can_transport_j1939_frame(const can_transport *t, const rtcosim_can_log_record *r);
/* The transfers' counts on stderr, one line per protocol read. */
void can_transport_report(const can_transport *t, const char *log_path);
void can_transport_free(can_transport *t);

#endif
