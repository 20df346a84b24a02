/* libFuzzer target for the LS-BUS operation reader (src/lsbus/ops.c): any
 * bytes give operations or a one-line error, never an overread; every op read
 * is written again and must come out as the same bytes (the layouts are
 * exact, so a reader and writer that disagree are a bug). The same bytes are
 * then pushed into a two-node bridge as a node's Tx_Data (classic, CAN FD
 * and CAN XL frames, logged). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    rtcosim_error err;
    bool got;
    rtcosim_lsbus_reader_init(&r, data, size);
    while (rtcosim_lsbus_read(&r, &op, &got, &err) == RTCOSIM_OK && got) {
        if (!op.known)
            continue;
        uint8_t out[65536 + 64];
        size_t used = 0;
        if (rtcosim_lsbus_write(out, sizeof out, &used, &op, &err) != RTCOSIM_OK)
            abort();
        if (used != op.length || memcmp(out, op.bytes, used) != 0)
            abort();
    }
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* the bridge's warnings are expected here */
    rtcosim_lsbus_can_bridge_config cfg = {.name = "fuzz", .node_count = 2,
                                           .bus_notifications = true, .log_frames = true};
    rtcosim_lsbus_can_bridge *b = NULL;
    if (rtcosim_lsbus_can_bridge_create(&cfg, &b, &err) != RTCOSIM_OK)
        abort();
    (void)rtcosim_lsbus_can_bridge_push(b, 0, 0, data, size, &err);
    rtcosim_time_ns t = rtcosim_lsbus_can_bridge_next_event(b);
    for (int i = 0; i < 64 && t != RTCOSIM_TIME_MAX; i++) {
        if (rtcosim_lsbus_can_bridge_advance(b, t, &err) != RTCOSIM_OK)
            break;
        size_t n;
        (void)rtcosim_lsbus_can_bridge_take_rx(b, 0, &n);
        (void)rtcosim_lsbus_can_bridge_take_rx(b, 1, &n);
        t = rtcosim_lsbus_can_bridge_next_event(b);
    }
    rtcosim_lsbus_can_bridge_free(b);
    return 0;
}
