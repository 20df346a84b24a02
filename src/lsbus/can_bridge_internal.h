/* The LS-BUS bridge's state, shared by can_bridge.c (nodes, queues,
 * arbitration, delivery) and can_bridge_log.c (the frame log and its data
 * arena). Not installed. */
#ifndef RTCOSIM_LSBUS_CAN_BRIDGE_INTERNAL_H
#define RTCOSIM_LSBUS_CAN_BRIDGE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"

typedef struct pending_frame {
    uint64_t key; /* arbitration, lower wins */
    rtcosim_time_ns requested;
    rtcosim_can_frame frame; /* id and format; classic frames: dlc and data */
    uint8_t rtr;
    uint8_t format;          /* rtcosim_can_format */
    rtcosim_can_fd_frame fd_frame; /* CAN FD */
    /* CAN XL: the fields of the Transmit op; the data in the sender's slot */
    uint8_t xl_sec, xl_sdt, xl_vcid;
    uint16_t xl_length, xl_slot;
    uint32_t xl_af;
} pending_frame;

typedef struct bridge_node {
    pending_frame *queue; /* sorted by key, equal keys in request order */
    uint32_t queued;
    uint32_t configured_bitrate; /* CAN_BAUDRATE; 0: none */
    uint32_t fd_bitrate, xl_bitrate; /* as configured; 0: none */
    uint8_t arbitration_lost_behavior;
    uint8_t status; /* ERROR_ACTIVE unless the node says otherwise (section 5.5.1.2, Status) */
    uint8_t *rx;
    size_t rx_used;
    /* CAN XL data: xl_queue_capacity slots of RTCOSIM_CAN_XL_DATA_MAX bytes,
     * a stack of the free ones */
    uint8_t *xl_data;
    uint16_t *xl_free;
    uint32_t xl_free_count;
} bridge_node;

struct rtcosim_lsbus_can_bridge {
    rtcosim_lsbus_can_bridge_config config;
    char name[64];
    bridge_node *nodes;
    uint32_t bitrate, fd_bitrate, xl_bitrate;
    rtcosim_time_ns bit_ns, fd_bit_ns, xl_bit_ns;
    rtcosim_time_ns now;      /* everything before it is settled */
    rtcosim_time_ns bus_free; /* end of the last frame */
    bool busy;
    rtcosim_time_ns frame_start, frame_end;
    pending_frame current;
    uint32_t current_sender;
    uint64_t frames_started;
    bool warned_unknown;
    rtcosim_lsbus_can_bridge_stats stats;
    /* the frame log; CAN FD and XL data in log_data, in entry order */
    rtcosim_can_log_entry *log;
    size_t log_count, log_capacity;
    uint8_t *log_data;
    size_t log_data_used, log_data_capacity;
    /* rtcosim_lsbus_can_bridge_stream_log: each frame written as it is
     * delivered (frames are final: the bridge never rolls back), none kept */
    struct rtcosim_can_log_writer *stream;
    uint64_t streamed;
};

/* The data bytes of a pending CAN XL frame of `node`. */
static inline const uint8_t *bridge_xl_data(const rtcosim_lsbus_can_bridge *b, uint32_t node,
                                            const pending_frame *p)
{
    return b->nodes[node].xl_data + (size_t)p->xl_slot * RTCOSIM_CAN_XL_DATA_MAX;
}

/* can_bridge_log.c: the fixed log's entries and data arena at create (with
 * log_capacity), and one delivered frame appended to the log. */
rtcosim_status bridge_log_create(rtcosim_lsbus_can_bridge *b, rtcosim_error *err);
rtcosim_status bridge_log_frame(rtcosim_lsbus_can_bridge *b, const pending_frame *p,
                                uint32_t sender, rtcosim_error *err);

#endif
