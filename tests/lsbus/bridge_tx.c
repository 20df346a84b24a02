/* The bridge tests' Tx buffer and calls (bridge_tx.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bridge_tx.h"

void tx_add(tx_buf *tx, const rtcosim_lsbus_op *op)
{
    rtcosim_error err;
    if (rtcosim_lsbus_write(tx->bytes, sizeof tx->bytes, &tx->used, op, &err) != RTCOSIM_OK)
        fail_msg("write: %s", err.message);
}

void bridge_push(rtcosim_lsbus_can_bridge *b, uint32_t node, rtcosim_time_ns t, const tx_buf *tx)
{
    rtcosim_error err;
    if (rtcosim_lsbus_can_bridge_push(b, node, t, tx->bytes, tx->used, &err) != RTCOSIM_OK)
        fail_msg("push: %s", err.message);
}

void bridge_advance(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns t)
{
    rtcosim_error err;
    if (rtcosim_lsbus_can_bridge_advance(b, t, &err) != RTCOSIM_OK)
        fail_msg("advance: %s", err.message);
}
