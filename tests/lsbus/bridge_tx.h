/* What the bridge tests (test_bridge.c, test_bridge_xl.c) hand a node's
 * Tx_Data: a buffer of LS-BUS operations, and the bridge calls that must
 * succeed (a cmocka failure naming the error otherwise). */
#ifndef RTCOSIM_TEST_LSBUS_BRIDGE_TX_H
#define RTCOSIM_TEST_LSBUS_BRIDGE_TX_H

#include <stddef.h>
#include <stdint.h>

#include "rtcosim/lsbus.h"

typedef struct tx_buf {
    uint8_t bytes[8192]; /* a 2048-byte CAN XL Transmit and more */
    size_t used;
} tx_buf;

void tx_add(tx_buf *tx, const rtcosim_lsbus_op *op);
void bridge_push(rtcosim_lsbus_can_bridge *b, uint32_t node, rtcosim_time_ns t, const tx_buf *tx);
void bridge_advance(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns t);

#endif
