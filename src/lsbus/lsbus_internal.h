/* Shared by the layer's files: the LS-BUS operation that an event of
 * src/can's bus LP brings one of its nodes (event_node.c, the kernel side of
 * bus_component.c). */
#ifndef RTCOSIM_LSBUS_INTERNAL_H
#define RTCOSIM_LSBUS_INTERNAL_H

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"

/* Section 5.5.1.2: another node's wake-up (Wakeup, section 5.5.1.8), a
 * frame of another node (CAN, CAN FD or CAN XL Transmit,
 * as the frame's format; the data point into the bus's arena), node's own frame
 * back at its end (Confirm), a frame of the node's discarded after losing
 * arbitration (Arbitration Lost, for nodes configured DISCARD_AND_NOTIFY;
 * the others' frames are buffered and retransmitted), or an injected error (Bus Error: the flag primary for the node that detected
 * it, is_sender for the transmitter). False for other events. op points into
 * the event. */
bool lsbus_op_of_bus_event(uint32_t node, const rtcosim_event *ev, rtcosim_lsbus_op *op);

/* A node's Tx_Data for src/can's bus: fn(context, frame) for each CAN, CAN
 * FD and CAN XL Transmit (classic frames at most 8 data bytes), in order; a
 * Configuration's CAN_BAUDRATE, CANFD_BAUDRATE and CANXL_BAUDRATE must be the
 * bus's rates (fixed: its lookahead depends on them), its
 * ARBITRATION_LOST_BEHAVIOR is kept in *behavior (the node's, 0 until it
 * configures one: buffer) and frames after it are sent discarding on a lost
 * arbitration when it is DISCARD_AND_NOTIFY; control(context, code, status)
 * for each Status (its value checked: 1-3) and Wakeup, in order with the
 * frames; op codes this layer does not know are skipped with one warning
 * naming the node (*warned then true; section 5.2.1 asks receivers to skip
 * them). Errors are one line naming the op (the caller prefixes the node). */
typedef rtcosim_status (*lsbus_frame_fn)(void *context, const rtcosim_can_any_frame *frame,
                                         bool discard_on_lost, rtcosim_error *err);
typedef rtcosim_status (*lsbus_control_fn)(void *context, uint32_t code, uint8_t status,
                                           rtcosim_error *err);
rtcosim_status lsbus_tx_frames(const void *tx, size_t size, const rtcosim_can_bus *bus,
                               const char *node_name, bool *warned, uint8_t *behavior,
                               lsbus_frame_fn fn, lsbus_control_fn control, void *context,
                               rtcosim_error *err);

#endif
