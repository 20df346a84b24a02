/* libFuzzer target for the LS-BUS operation reader (src/lsbus/ops.c): any
 * bytes give operations or a one-line error, never an overread; every op read
 * is written again and must come out as the same bytes (the layouts are
 * exact, so a reader and writer that disagree are a bug). The same bytes are
 * then pushed into a two-node bridge as a node's Tx_Data (classic, CAN FD
 * and CAN XL frames, logged), and as a node's Tx_Data into the event
 * kernel's bus (the bus component's kernel side: classic, CAN FD and XL
 * frames through src/can's bus LP and its arena). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"

/* The bytes as node 0's Tx_Data on src/can's bus with two gateway nodes:
 * an error or frames, delivered as the other node's Rx_Data, never a
 * crash. */
static void kernel_bus(const uint8_t *data, size_t size)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    rtcosim_component *c = NULL;
    static const char *const names[2] = {"a.CAN", "b.CAN"};
    rtcosim_can_bus_config bc = {.name = "fuzz", .error_every = 3};
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
        rtcosim_can_bus_create(sim, &bc, &bus, &err) != RTCOSIM_OK ||
        rtcosim_lsbus_can_lp_component_create(sim, bus, names, 2, false, &c, &err) != RTCOSIM_OK ||
        rtcosim_can_bus_connect(bus, &err) != RTCOSIM_OK ||
        rtcosim_component_instantiate(c, "fuzz", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK)
        abort();
    const uint32_t tx_data = 0, tx_clock = 1, rx_data = 6;
    const bool tick = true;
    rtcosim_binary tx = {data, size};
    rtcosim_event_update u;
    rtcosim_status st = rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &tx_data, 1, &tx, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_set(c, RTCOSIM_TYPE_CLOCK, &tx_clock, 1, &tick, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_settle_events(c, RTCOSIM_EVENT_ITERATION_LIMIT, &u, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_enter_step_mode(c, &err);
    rtcosim_time_ns t = 0;
    for (int i = 0; st == RTCOSIM_OK && i < 32; i++) {
        rtcosim_step_result res;
        if ((st = rtcosim_component_do_step(c, t, 50 * RTCOSIM_NS_PER_US, &res, &err)) !=
            RTCOSIM_OK)
            break;
        t += 50 * RTCOSIM_NS_PER_US;
        rtcosim_binary rx;
        if ((st = rtcosim_component_enter_event_mode(c, &err)) == RTCOSIM_OK &&
            (st = rtcosim_component_settle_events(c, RTCOSIM_EVENT_ITERATION_LIMIT, &u, &err)) ==
                RTCOSIM_OK &&
            (st = rtcosim_component_get(c, RTCOSIM_TYPE_BINARY, &rx_data, 1, &rx, &err)) ==
                RTCOSIM_OK)
            st = rtcosim_component_enter_step_mode(c, &err);
    }
    rtcosim_component_free(c);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

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
    kernel_bus(data, size);
    return 0;
}
