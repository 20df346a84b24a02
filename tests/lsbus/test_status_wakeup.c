/* LS-BUS 1.0 Status and Wakeup (section 5.5.1.2, 5.5.1.8) on the event
 * kernel's bus (src/can) and against the bridge (src/lsbus/can_bridge.c).
 *
 * Frame lengths at 500 kbit/s, worked out by hand in test_event_node.c and
 * test_bridge.c (ISO 11898-1 with stuff bits): 0x0C8 without data 50 bits =
 * 100 us, 0x123 with 11 22 .. 88 112 bits = 224 us. The bus's lookahead to
 * its nodes is the shortest frame any node may send, unstuffed (src/can
 * bus_nodes.c): 0x0C8 without data 47 bits = 94 us when that is in a TX
 * database; a node that may send anything (`rtcosim run --can-bus`) makes it
 * an empty CAN FD frame with BRS, 30 bits at 2 us and 32 at 0.5 us = 76 us.
 *
 * Rules checked (src/lsbus/README.md): a node that reported BUS_OFF sends
 * no frames (its Transmits dropped, counted in stats.dropped and
 * stats.bus_off_dropped) until it reports ERROR_ACTIVE or ERROR_PASSIVE; an
 * error-passive node's frame goes after an error-active node's; a Wakeup
 * reaches every other LS-BUS node (not the native ones) at the sender's
 * time + its transmit delay + the bus's lookahead on the kernel's bus, at
 * once on the bridge. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"
#include "native_node.h"
#include "lsbus_cli.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define US RTCOSIM_NS_PER_US
#define MS RTCOSIM_NS_PER_MS

/* ---- a scripted scenario on both buses ---- */

/* Node X sends 0x123 with 8 bytes at 1, 2 and 3 ms; node Y 0x0C8 without
 * data at the same instants, error-passive at 1 ms, bus-off at 2 ms,
 * error-active again at 3 ms, where it also sends a Wakeup; node Z sends
 * nothing (it gets the Wakeup). Both buses: 1 ms: 0x123 wins although its
 * identifier is higher (Y is error-passive), 1.000-1.224, 0x0C8
 * 1.224-1.324; 2 ms: 0x123 alone, 2.000-2.224, Y's frame dropped; 3 ms:
 * 0x0C8 wins again, 3.000-3.100, 0x123 3.100-3.324. */
enum { SX, SY, SZ, SNODES };

typedef struct step {
    rtcosim_time_ns at;
    unsigned node;
    uint32_t code;  /* LS-BUS op code */
    uint8_t status; /* Status */
} step;

static const step script[] = {
    {1 * MS, SX, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {1 * MS, SY, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_ERROR_PASSIVE},
    {1 * MS, SY, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {2 * MS, SX, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {2 * MS, SY, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_BUS_OFF},
    {2 * MS, SY, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {3 * MS, SX, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {3 * MS, SY, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_ERROR_ACTIVE},
    {3 * MS, SY, RTCOSIM_LSBUS_OP_CAN_TRANSMIT, 0},
    {3 * MS, SY, RTCOSIM_LSBUS_OP_CAN_WAKEUP, 0},
};
#define SCRIPT_STEPS (sizeof script / sizeof *script)

static const uint8_t payload[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};

typedef struct sent {
    rtcosim_time_ns end;
    uint32_t id, sender;
} sent;

static const sent expected_frames[] = {
    {1224 * US, 0x123, SX}, {1324 * US, 0x0C8, SY}, {2224 * US, 0x123, SX},
    {3100 * US, 0x0C8, SY}, {3324 * US, 0x123, SX},
};
#define EXPECTED_FRAMES (sizeof expected_frames / sizeof *expected_frames)

typedef struct outcome {
    sent frames[16];
    size_t count;
    unsigned wakeups[SNODES + 1]; /* the kernel's bus: W's too */
    rtcosim_time_ns wakeup_time[SNODES + 1];
    uint64_t dropped, bus_off_dropped;
    bool overloaded;
} outcome;

static rtcosim_can_any_frame frame_of(unsigned node)
{
    if (node == SX)
        return (rtcosim_can_any_frame){.id = 0x123, .length = 8, .data = payload};
    return (rtcosim_can_any_frame){.id = 0x0C8};
}

/* The kernel's bus: each node an LP that does its steps with a transmit
 * lookahead of 1 us (so sends them 1 us early), Z with an empty TX
 * database; a fourth, native node W (no LS-BUS controls) receives 0x123. */
#define TXLA (1 * US)

typedef struct script_lp {
    rtcosim_can_bus *bus;
    uint32_t node;
    unsigned index;
    outcome *o;
    unsigned rx;
} script_lp;

static rtcosim_status script_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    script_lp *n = state;
    for (uint32_t i = 0; i < SCRIPT_STEPS; i++)
        if (script[i].node == n->index) {
            rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp),
                                                script[i].at - TXLA - rtcosim_lp_now(lp), 1, 0,
                                                &i, sizeof i, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

static rtcosim_status script_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    script_lp *n = state;
    if (ev->type == RTCOSIM_CAN_EVENT_WAKEUP) {
        n->o->wakeups[n->index]++;
        n->o->wakeup_time[n->index] = ev->time;
        return RTCOSIM_OK;
    }
    if (rtcosim_can_rx_of(ev)) {
        n->rx++;
        return RTCOSIM_OK;
    }
    uint32_t i;
    memcpy(&i, ev->payload, sizeof i);
    switch (script[i].code) {
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT: {
        rtcosim_can_any_frame f = frame_of(n->index);
        return rtcosim_can_transmit_any(lp, n->bus, n->node, &f, TXLA, 0, err);
    }
    case RTCOSIM_LSBUS_OP_CAN_STATUS:
        return rtcosim_can_send_state(lp, n->bus, n->node, script[i].status, TXLA, err);
    default:
        return rtcosim_can_send_wakeup(lp, n->bus, n->node, TXLA, err);
    }
}

static const rtcosim_lp_model script_model = {.kind = "script", .init = script_init,
                                              .event = script_event};

static unsigned run_kernel(rtcosim_scheduler scheduler, outcome *o)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    memset(o, 0, sizeof *o);
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .log_frames = true};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    script_lp nodes[SNODES + 1];
    static const char *const names[] = {"x", "y", "z", "w"};
    for (unsigned i = 0; i <= SNODES; i++) {
        nodes[i] = (script_lp){.bus = bus, .index = i, .o = o};
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(sim, names[i], &script_model, &nodes[i],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, names[i], lp, TXLA, &nodes[i].node, &err),
                         RTCOSIM_OK);
        if (i == SX)
            assert_int_equal(rtcosim_can_bus_add_tx(bus, nodes[i].node, 0x123, false, 8, &err),
                             RTCOSIM_OK);
        if (i == SY)
            assert_int_equal(rtcosim_can_bus_add_tx(bus, nodes[i].node, 0x0C8, false, 0, &err),
                             RTCOSIM_OK);
        if (i < SNODES)
            assert_int_equal(rtcosim_can_bus_node_controls(bus, nodes[i].node, &err), RTCOSIM_OK);
        else
            assert_int_equal(rtcosim_can_bus_add_rx(bus, nodes[i].node, 0x123, false, &err),
                             RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_min_frame_time(bus), 94 * US);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = 2, .start_time = -TXLA,
                              .stop_time = 5 * MS};
    if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(bus);
    o->count = rtcosim_can_bus_log_count(bus);
    assert_true(o->count <= 16);
    for (size_t i = 0; i < o->count; i++)
        o->frames[i] = (sent){log[i].end, log[i].frame.id, log[i].sender};
    rtcosim_can_bus_stats bs;
    rtcosim_can_bus_stats_get(bus, 5 * MS, &bs);
    o->dropped = bs.dropped;
    o->bus_off_dropped = bs.bus_off_dropped;
    o->overloaded = bs.overloaded;
    unsigned native_rx = nodes[SNODES].rx;
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return native_rx;
}

/* The bridge driven as a master would: at each instant every node's ops
 * pushed, then advanced; a frame is done at its sender's Confirm. */
static void run_bridge(outcome *o)
{
    rtcosim_error err;
    memset(o, 0, sizeof *o);
    rtcosim_lsbus_can_bridge_config cfg = {.node_count = SNODES, .bitrate = 500000,
                                           .bus_notifications = true};
    rtcosim_lsbus_can_bridge *b = NULL;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_OK);
    size_t next = 0;
    for (;;) {
        rtcosim_time_ns t = rtcosim_lsbus_can_bridge_next_event(b);
        if (next < SCRIPT_STEPS && script[next].at < t)
            t = script[next].at;
        if (t == RTCOSIM_TIME_MAX)
            break;
        for (unsigned node = 0; node < SNODES; node++) {
            uint8_t tx[256];
            size_t used = 0;
            for (size_t i = next; i < SCRIPT_STEPS && script[i].at == t; i++) {
                if (script[i].node != node)
                    continue;
                rtcosim_lsbus_op op = {.code = script[i].code};
                rtcosim_can_any_frame f = frame_of(node);
                if (op.code == RTCOSIM_LSBUS_OP_CAN_TRANSMIT)
                    op.u.transmit = (rtcosim_lsbus_can_transmit){
                        .id = f.id, .data_length = f.length, .data = f.data};
                else
                    op.u.status = script[i].status;
                assert_int_equal(rtcosim_lsbus_write(tx, sizeof tx, &used, &op, &err), RTCOSIM_OK);
            }
            if (used && rtcosim_lsbus_can_bridge_push(b, node, t, tx, used, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
        }
        while (next < SCRIPT_STEPS && script[next].at == t)
            next++;
        assert_int_equal(rtcosim_lsbus_can_bridge_advance(b, t, &err), RTCOSIM_OK);
        for (unsigned node = 0; node < SNODES; node++) {
            size_t size;
            const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, node, &size);
            rtcosim_lsbus_reader r;
            rtcosim_lsbus_op op;
            bool got;
            rtcosim_lsbus_reader_init(&r, rx, size);
            while (rtcosim_lsbus_read(&r, &op, &got, &err) == RTCOSIM_OK && got) {
                if (op.code == RTCOSIM_LSBUS_OP_CAN_CONFIRM) {
                    assert_true(o->count < 16);
                    o->frames[o->count++] = (sent){t, op.u.id, node};
                } else if (op.code == RTCOSIM_LSBUS_OP_CAN_WAKEUP) {
                    o->wakeups[node]++;
                    o->wakeup_time[node] = t;
                }
            }
        }
    }
    rtcosim_lsbus_can_bridge_stats bs;
    rtcosim_lsbus_can_bridge_stats_get(b, &bs);
    o->dropped = bs.dropped;
    o->bus_off_dropped = bs.bus_off_dropped;
    rtcosim_lsbus_can_bridge_free(b);
}

static void check_frames(const outcome *o)
{
    assert_int_equal(o->count, EXPECTED_FRAMES);
    for (size_t i = 0; i < EXPECTED_FRAMES; i++) {
        assert_int_equal(o->frames[i].end, expected_frames[i].end);
        assert_int_equal(o->frames[i].id, expected_frames[i].id);
        assert_int_equal(o->frames[i].sender, expected_frames[i].sender);
    }
    assert_int_equal(o->dropped, 1);
    assert_int_equal(o->bus_off_dropped, 1);
}

/* The same frames on both; the Wakeup reaches X and Z, not Y: on the
 * bridge at 3 ms, on the kernel's bus at 3 ms + the 94 us lookahead (Y's
 * request reached the bus at 3 ms: sent 1 us before with its 1 us transmit
 * lookahead). The native node W gets no Wakeup (its handler would count
 * it as a frame): its 3 frames of 0x123. */
static void status_and_wakeup_agree_on_the_bridge_and_the_kernel_bus(void **state)
{
    (void)state;
    outcome bridge;
    run_bridge(&bridge);
    check_frames(&bridge);
    assert_int_equal(bridge.wakeups[SX], 1);
    assert_int_equal(bridge.wakeups[SY], 0);
    assert_int_equal(bridge.wakeups[SZ], 1);
    assert_int_equal(bridge.wakeup_time[SX], 3 * MS);
    assert_int_equal(bridge.wakeup_time[SZ], 3 * MS);
    static const rtcosim_scheduler schedulers[] = {RTCOSIM_SCHEDULER_SEQUENTIAL,
                                                   RTCOSIM_SCHEDULER_CONSERVATIVE,
                                                   RTCOSIM_SCHEDULER_SPECULATIVE};
    for (size_t s = 0; s < 3; s++) {
        outcome kernel;
        unsigned native_rx = run_kernel(schedulers[s], &kernel);
        check_frames(&kernel);
        assert_false(kernel.overloaded); /* a bus-off drop is no overload */
        assert_int_equal(native_rx, 3);
        assert_int_equal(kernel.wakeups[SNODES], 0);
        assert_int_equal(kernel.wakeups[SX], 1);
        assert_int_equal(kernel.wakeups[SY], 0);
        assert_int_equal(kernel.wakeups[SZ], 1);
        assert_int_equal(kernel.wakeup_time[SX], 3094 * US);
        assert_int_equal(kernel.wakeup_time[SZ], 3094 * US);
    }
}

/* ---- LsBusNode FMUs as LPs (rtcosim_lsbus_event_node) ---- */

typedef struct fmu_outcome {
    rtcosim_can_log_entry log[16];
    size_t log_count;
    native_node nat;
    int32_t a_wakeups, b_wakeups, a_confirms;
    double b_wakeup_time;
    rtcosim_can_bus_stats stats;
    rtcosim_status st;
    char message[512];
} fmu_outcome;

/* The native node, FMU a (0x123 with 8 bytes every 1 ms from 1 ms, its
 * parameters a_names/a_texts, transmit delay a_delay) and FMU b (0x300
 * with 8 bytes in its TX database, sending nothing before the stop). */
static void run_fmus(const char *const *a_names, const char *const *a_texts, size_t a_count,
                     rtcosim_time_ns a_delay, rtcosim_time_ns stop, rtcosim_scheduler scheduler,
                     fmu_outcome *o)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    memset(o, 0, sizeof *o);
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .log_frames = true};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    native_node_add(sim, bus, &o->nat, 0x0C8, 0, 0x123); /* 0x0C8 without data */
    const char *names[8] = {"can_id", "data_length"}, *texts[8] = {"291", "8"};
    for (size_t i = 0; i < a_count; i++) {
        names[2 + i] = a_names[i];
        texts[2 + i] = a_texts[i];
    }
    uint32_t a_id = 0x123, b_id = 0x300;
    uint8_t dlc = 8;
    rtcosim_lsbus_event_node_config ac = {
        .name = "a", .fmu_path = RTCOSIM_FMU_LSBUSNODE_FMI3, .start_names = names,
        .start_texts = texts, .start_count = 2 + a_count, .tx_ids = &a_id, .tx_dlcs = &dlc,
        .tx_count = 1, .tx_delay = a_delay, .start = 0, .stop = stop};
    const char *b_names[] = {"can_id", "data_length", "offset"}, *b_texts[] = {"768", "8", "1"};
    rtcosim_lsbus_event_node_config bc_node = {
        .name = "b", .fmu_path = RTCOSIM_FMU_LSBUSNODE_FMI3, .start_names = b_names,
        .start_texts = b_texts, .start_count = 3, .tx_ids = &b_id, .tx_dlcs = &dlc,
        .tx_count = 1, .start = 0, .stop = stop};
    rtcosim_lsbus_event_node *a = NULL, *b = NULL;
    if (rtcosim_lsbus_event_node_create(sim, bus, &ac, &a, &err) != RTCOSIM_OK ||
        rtcosim_lsbus_event_node_create(sim, bus, &bc_node, &b, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_min_frame_time(bus), 94 * US); /* 0x0C8 without data */
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = 2, .stop_time = stop};
    o->st = rtcosim_events_run(sim, &ro, NULL, &err);
    if (o->st != RTCOSIM_OK)
        snprintf(o->message, sizeof o->message, "%s", err.message);
    o->log_count = rtcosim_can_bus_log_count(bus);
    assert_true(o->log_count <= 16);
    if (o->log_count) /* the log is NULL before the first frame */
        memcpy(o->log, rtcosim_can_bus_log(bus), o->log_count * sizeof *o->log);
    rtcosim_can_bus_stats_get(bus, stop, &o->stats);
    if (o->st == RTCOSIM_OK) {
        const uint32_t wakeups_vr = 30, time_vr = 31, confirms_vr = 8;
        assert_int_equal(rtcosim_component_get(rtcosim_lsbus_event_node_component(a),
                                               RTCOSIM_TYPE_INT32, &wakeups_vr, 1, &o->a_wakeups,
                                               &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(rtcosim_lsbus_event_node_component(a),
                                               RTCOSIM_TYPE_INT32, &confirms_vr, 1,
                                               &o->a_confirms, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(rtcosim_lsbus_event_node_component(b),
                                               RTCOSIM_TYPE_INT32, &wakeups_vr, 1, &o->b_wakeups,
                                               &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(rtcosim_lsbus_event_node_component(b),
                                               RTCOSIM_TYPE_FLOAT64, &time_vr, 1,
                                               &o->b_wakeup_time, &err), RTCOSIM_OK);
    }
    rtcosim_lsbus_event_node_free(a);
    rtcosim_lsbus_event_node_free(b);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

/* a sends a Wakeup before its first Transmit at 1 ms with a transmit
 * delay of 20 us: it reaches the bus at 1.020 ms and b at 1.020 + 0.094 =
 * 1.114 ms; the native node gets none (its `other` events), a not its
 * own. The frames are those without the Wakeup: 0x0C8 1.000-1.100, a's
 * 0x123 (requested 1.020) 1.100-1.324, again from 2 ms. Every scheduler
 * alike. */
static void a_wakeup_reaches_the_other_fmu_after_delay_and_lookahead(void **state)
{
    (void)state;
    static const rtcosim_scheduler schedulers[] = {RTCOSIM_SCHEDULER_SEQUENTIAL,
                                                   RTCOSIM_SCHEDULER_CONSERVATIVE,
                                                   RTCOSIM_SCHEDULER_SPECULATIVE};
    const char *names[] = {"wakeup_with"}, *texts[] = {"1"};
    for (size_t s = 0; s < 3; s++) {
        fmu_outcome o;
        run_fmus(names, texts, 1, 20 * US, 2500 * US, schedulers[s], &o);
        if (o.st != RTCOSIM_OK)
            fail_msg("%s", o.message);
        assert_int_equal(o.log_count, 4);
        expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
        expect_frame(&o.log[1], 0x123, 1100 * US, 1324 * US);
        expect_frame(&o.log[2], 0x0C8, 2000 * US, 2100 * US);
        expect_frame(&o.log[3], 0x123, 2100 * US, 2324 * US);
        assert_int_equal(o.b_wakeups, 1);
        assert_true(fabs(o.b_wakeup_time - 0.001114) < 1e-12);
        assert_int_equal(o.a_wakeups, 0);
        assert_int_equal(o.nat.other, 0);
        assert_int_equal(o.nat.received, 2);
    }
}

/* a reports BUS_OFF before its 2nd frame and ERROR_ACTIVE before its 4th
 * (transmit delay 0): its frames at 2 and 3 ms are dropped (counted, no
 * overload), those at 1 and 4 ms sent after 0x0C8: 1.100-1.324 and
 * 4.100-4.324; 2 Confirms; the native node gets 2 frames. */
static void a_bus_off_fmu_sends_nothing_until_it_is_active_again(void **state)
{
    (void)state;
    const char *names[] = {"bus_off_from", "bus_off_to"}, *texts[] = {"2", "4"};
    fmu_outcome o;
    run_fmus(names, texts, 2, 0, 4500 * US, RTCOSIM_SCHEDULER_SEQUENTIAL, &o);
    if (o.st != RTCOSIM_OK)
        fail_msg("%s", o.message);
    assert_int_equal(o.log_count, 6);
    expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
    expect_frame(&o.log[1], 0x123, 1100 * US, 1324 * US);
    expect_frame(&o.log[2], 0x0C8, 2000 * US, 2100 * US);
    expect_frame(&o.log[3], 0x0C8, 3000 * US, 3100 * US);
    expect_frame(&o.log[4], 0x0C8, 4000 * US, 4100 * US);
    expect_frame(&o.log[5], 0x123, 4100 * US, 4324 * US);
    assert_int_equal(o.stats.dropped, 2);
    assert_int_equal(o.stats.bus_off_dropped, 2);
    assert_false(o.stats.overloaded);
    assert_int_equal(o.a_confirms, 2);
    assert_int_equal(o.nat.received, 2);
}

/* A Status value outside 1-3: the run stops with the bridge's line, the
 * node named. */
static void a_bad_status_value_is_one_line_naming_the_node(void **state)
{
    (void)state;
    const char *names[] = {"bus_off_from", "bus_off_status"}, *texts[] = {"1", "9"};
    fmu_outcome o;
    run_fmus(names, texts, 2, 0, 2500 * US, RTCOSIM_SCHEDULER_SEQUENTIAL, &o);
    assert_int_not_equal(o.st, RTCOSIM_OK);
    assert_non_null(strstr(o.message, "lsbus node 'a': Status: value 0x09 is not one of LS-BUS"
                                      " 1.0 (1-3)"));
    assert_null(strchr(o.message, '\n'));
}

/* ---- through the CLI ---- */

/* `rtcosim run --can-bus can0=a.CAN,b.CAN,ecus:1`: a sends a Wakeup with its
 * frame at 2.060 ms (the gateways' transmit delay is 0, the bus's lookahead
 * to nodes that may send anything 76 us): b gets it at 2.136 ms; a BUS_OFF
 * before the same frame and ERROR_ACTIVE before the next (12.060 ms) drop
 * the first: the log has the engine's frames (0x0C0 at 2.300, 0x5C0 at
 * 5.239, 0x0C0 at 12.296 ms, test_lsbus_kernel_bus.c) and a's 0x123 after
 * the second 0x0C0, 12.296 + 0.224 = 12.520 ms; `rtcosim events` with the
 * same node gives the same log and counts the drop. */
static void wakeup_and_bus_off_through_run_and_events(void **state)
{
    (void)state;
    const char *ssd = write_ssd("wake.ssd", NODE, ab, 2, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.005", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--start-value", "a.can_id",
                             "291", "--start-value", "a.data_length", "8", "--start-value",
                             "a.offset", "0.00206", "--start-value", "a.period", "0.01",
                             "--start-value", "a.wakeup_with", "1", "--start-value", "b.offset",
                             "1", "--output-variable", "a.wakeups", "--output-variable",
                             "b.wakeups", "--output-variable", "b.last_wakeup_time", "-o",
                             "wake.csv", "--can-log", "wake.log", NULL),
                     0);
    char *log = read_text("wake.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002524) can0 123#1122334455667788\n");
    free(log);
    char *csv = read_text("wake.csv");
    /* the FMU's time a sum of double steps: 0.0021360000000000003 */
    expect_in(csv, "\n0.00206,0,0,0\n0.002136,0,0,0\n0.002136,0,1,0.002136");
    expect_in(csv, "\n0.005,0,1,0.002136");
    free(csv);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--start-value", "a.can_id",
                             "291", "--start-value", "a.data_length", "8", "--start-value",
                             "a.offset", "0.00206", "--start-value", "a.period", "0.01",
                             "--start-value", "a.bus_off_from", "1", "--start-value",
                             "a.bus_off_to", "2", "--start-value", "b.offset", "1",
                             "--can-log", "off.log", NULL),
                     0);
    const char *off = "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                      "(0000000000.005239) can0 5C0#82000001\n"
                      "(0000000000.012296) can0 0C0#780CF3130B000001\n"
                      "(0000000000.012520) can0 123#1122334455667788\n";
    log = read_text("off.log");
    assert_string_equal(log, off);
    free(log);
    char node[1024];
    snprintf(node, sizeof node, "a=%s,tx=0x123:8,can_id=291,data_length=8,offset=0.00206,"
             "period=0.01,bus_off_from=1,bus_off_to=2", NODE);
    assert_int_equal(events_cli("--ecus", "1", "--stop-time", "0.013", "--lsbus-node", node,
                                "--can-log", "events.log", NULL),
                     0);
    log = read_text("events.log");
    assert_string_equal(log, off);
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "\ncan bus-off 1 frames dropped (sent while their node reported bus-off)\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_and_wakeup_agree_on_the_bridge_and_the_kernel_bus),
        cmocka_unit_test(a_wakeup_reaches_the_other_fmu_after_delay_and_lookahead),
        cmocka_unit_test(a_bus_off_fmu_sends_nothing_until_it_is_active_again),
        cmocka_unit_test(a_bad_status_value_is_one_line_naming_the_node),
        cmocka_unit_test(wakeup_and_bus_off_through_run_and_events),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
