/* The LS-BUS tests' native CAN node (native_node.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "native_node.h"

enum { TIMER = 1 };

static rtcosim_status native_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_MS, TIMER, 0, NULL, 0, err);
}

static rtcosim_status native_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    native_node *n = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    const rtcosim_can_bus_error *be = rtcosim_can_bus_error_of(ev);
    if (be) {
        n->bus_errors++;
        n->last_error = *be;
        n->last_error_time = ev->time;
        return RTCOSIM_OK;
    }
    if (rx) {
        n->received++;
        n->last_rx = ev->time;
        n->last_rx_id = rx->frame.id;
        return RTCOSIM_OK;
    }
    if (ev->type != TIMER) {
        n->other++;
        return RTCOSIM_OK;
    }
    static const uint8_t payload[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    rtcosim_can_frame f = {.id = n->id, .dlc = n->dlc};
    memcpy(f.data, payload, n->dlc <= 8 ? n->dlc : 8);
    rtcosim_status st = rtcosim_can_transmit(lp, n->bus, n->node, &f, 0, err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_MS, TIMER, 0, NULL, 0, err);
}

static const rtcosim_lp_model native_model = {.kind = "test-node", .init = native_init,
                                              .event = native_event};

void native_node_add(rtcosim_events *sim, rtcosim_can_bus *bus, native_node *n, uint32_t id,
                     uint8_t dlc, uint32_t rx_id)
{
    rtcosim_error err;
    *n = (native_node){.bus = bus, .id = id, .dlc = dlc};
    rtcosim_lp_id lp;
    assert_int_equal(
        rtcosim_events_add_lp(sim, "ecu", &native_model, n, RTCOSIM_LP_NO_GROUP, &lp, &err),
        RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_node(bus, "ecu", lp, 0, &n->node, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_tx(bus, n->node, id, false, dlc, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_rx(bus, n->node, rx_id, false, &err), RTCOSIM_OK);
}

void expect_frame(const rtcosim_can_log_entry *e, uint32_t id, rtcosim_time_ns start,
                  rtcosim_time_ns end)
{
    assert_int_equal(e->frame.id, id);
    assert_int_equal(e->start, start);
    assert_int_equal(e->end, end);
}
