/* Building a CAN database (rtcosim_dbc) from another format than the DBC
 * text (dbc.c's own reader uses the same calls): ARXML (arxml.c). */
#ifndef RTCOSIM_DBC_INTERNAL_H
#define RTCOSIM_DBC_INTERNAL_H

#include "rtcosim/dbc.h"

typedef struct message_build {
    rtcosim_dbc_message pub;
    int16_t format_index, brs_index; /* DBC reader: BA_ enum values, -1 none given */
    rtcosim_dbc_signal *signals;
    size_t signal_capacity;
    size_t container; /* a contained PDU: its container's index + 1, else 0 */
    /* a container: its contained PDUs' (header id, message index), sorted by
     * header id in dbc_finish */
    uint32_t (*contained)[2];
    size_t contained_count, contained_capacity;
} message_build;

/* Open-addressing tables of message indices + 1 (0: empty slot) by id and
 * by name, kept at most half full: a file of n messages loads in O(n), and
 * decoding finds a frame's message in O(1). */
typedef struct message_index {
    uint32_t *by_id, *by_name;
    size_t slots; /* a power of two */
} message_index;

struct rtcosim_dbc {
    message_build *messages;
    size_t count, capacity;
    message_index index;
    /* The J1939 parameter groups by PGN (pgn << 32 | message index, sorted),
     * for rtcosim_dbc_find_frame: rebuilt whenever the set changes
     * (dbc_set_format, rtcosim_dbc_set_j1939); NULL: none. */
    uint64_t *by_pgn;
    size_t pgn_count;
};

/* d->by_pgn anew from the messages' j1939 flags; false out of memory. */
bool dbc_index_pgns(rtcosim_dbc *d);

/* The index of a message of d (rtcosim_dbc_message_at's). */
size_t dbc_message_index(const rtcosim_dbc *d, const rtcosim_dbc_message *m);
/* The message of that id or name, else NULL. */
message_build *dbc_find(const rtcosim_dbc *d, uint32_t id, bool extended);
message_build *dbc_find_named(const rtcosim_dbc *d, const char *name);

rtcosim_dbc *dbc_new(void); /* NULL: out of memory */
/* A message (name and transmitter copied): 0, -1 out of memory, -2 its id
 * is taken, -3 its name is; *index its index. */
int dbc_add_message(rtcosim_dbc *d, uint32_t id, bool extended, const char *name, uint16_t dlc,
                    const char *transmitter, int line, size_t *index);
/* A signal of message `message` (name copied; its unit and value texts
 * taken over; decimals computed): 0, or -1 out of memory (nothing taken). */
int dbc_add_signal(rtcosim_dbc *d, size_t message, const rtcosim_dbc_signal *signal);
void dbc_set_cycle_time(rtcosim_dbc *d, size_t message, rtcosim_time_ns cycle);
/* Make message `message` a container: how's header_bytes (4 or 8),
 * header_little_endian and container_* fields are taken. */
void dbc_set_container(rtcosim_dbc *d, size_t message, const rtcosim_dbc_message *how);
/* A contained PDU's sending: how's contained_* fields are taken. */
void dbc_set_contained(rtcosim_dbc *d, size_t message, const rtcosim_dbc_message *how);
/* A contained PDU of container `container` (a message found by name, not by
 * CAN id): 0, -1 out of memory, -3 its name is taken, -4 its header id is
 * (in that container); *index its index. */
int dbc_add_contained(rtcosim_dbc *d, size_t container, const char *name, uint8_t length,
                      uint32_t header_id, int line, size_t *index);
/* A message's new name (copied; the name index is rebuilt by
 * dbc_reindex_names once all are renamed): 0, or -1 out of memory. */
int dbc_rename_message(rtcosim_dbc *d, size_t message, const char *name);
/* The name index anew: 0, -1 out of memory, -2 two messages share a name
 * (*first, *second their indices). */
int dbc_reindex_names(rtcosim_dbc *d, size_t *first, size_t *second);
/* CAN FD, BRS; a J1939 parameter group */
void dbc_set_format(rtcosim_dbc *d, size_t message, bool fd, bool brs, bool j1939);
/* After the last message: the signals' pointers and multiplexors set,
 * signals that share bits warned of (file names the source). */
void dbc_finish(rtcosim_dbc *d, const char *file);

#endif
