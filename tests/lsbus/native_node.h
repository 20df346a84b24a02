/* A native (non-FMU) CAN node for the LS-BUS tests on the event kernel's bus
 * (test_event_node.c, test_event_node_fd.c, test_status_wakeup.c): an LP
 * that sends its frame (`id`, `dlc` of the bytes 11 22 .. 88) every 1 ms from
 * 1 ms and counts what reaches it, and the check of a logged frame. */
#ifndef RTCOSIM_TEST_LSBUS_NATIVE_NODE_H
#define RTCOSIM_TEST_LSBUS_NATIVE_NODE_H

#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "rtcosim/events.h"

typedef struct native_node {
    rtcosim_can_bus *bus;
    uint32_t node, id;
    uint8_t dlc;
    unsigned received, other; /* frames; events neither frame, error nor its own timer */
    rtcosim_time_ns last_rx;
    uint32_t last_rx_id;
    unsigned bus_errors;
    rtcosim_can_bus_error last_error;
    rtcosim_time_ns last_error_time;
} native_node;

/* n as LP "ecu" on bus: sends id with dlc bytes, receives rx_id (cmocka
 * assertions on every step). */
void native_node_add(rtcosim_events *sim, rtcosim_can_bus *bus, native_node *n, uint32_t id,
                     uint8_t dlc, uint32_t rx_id);

/* A logged frame: its identifier, start and end. */
void expect_frame(const rtcosim_can_log_entry *e, uint32_t id, rtcosim_time_ns start,
                  rtcosim_time_ns end);

#endif
