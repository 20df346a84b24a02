/* rtcosim's CAN bus as the integrated bus simulation of a system (LS-BUS 1.0
 * section 3.2.3): the bridge (can_bridge.c) wrapped as an event-mode
 * component with, per attached node N, the inputs N.Tx_Data / N.Tx_Clock and
 * the outputs N.Rx_Data / N.Rx_Clock, so that the master's Binary and Clock
 * connections (src/master/events_links.c) carry the operations as they do
 * for a bus-simulation FMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/clock.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "lsbus_internal.h"

/* The kernel side (rtcosim_lsbus_can_lp_component_create): per node a
 * gateway LP on src/can's bus; the Transmits of a node's Tx_Data reach it as
 * events put in at their instant, the bus's events for the node become the
 * operations of its Rx_Data. */
#define GATEWAY_EVENT_TX 0x1B10u
#define GATEWAY_RX_MAX 4096

struct bus_component;
typedef struct bus_gateway {
    struct bus_component *owner;
    uint32_t bus_node;
    rtcosim_lp_id lp;
    size_t rx_size;
    uint8_t arbitration_lost_behavior; /* as the node configured it (0: buffer) */
    /* The data of the frames put in and not yet sent on by the gateway
     * (events carry 64 bytes; a CAN XL frame up to 2048): emptied when the
     * last is sent, grown only when one instant's Tx_Data holds more. */
    uint8_t *stage;
    size_t stage_used, stage_cap;
    uint32_t staged;
    uint8_t rx[GATEWAY_RX_MAX];
} bus_gateway;

/* A node's Transmit put in at its instant, for its gateway to send: the
 * frame (data NULL) and where its data wait in the gateway's stage. */
typedef struct gateway_tx {
    rtcosim_can_any_frame frame;
    uint32_t stage_offset;
    bool discard_on_lost;
    uint32_t control; /* 0: the frame; else a Status (its value in status) or Wakeup op code */
    uint8_t status;
} gateway_tx;

enum { MEMBER_TX_DATA, MEMBER_TX_CLOCK, MEMBER_RX_DATA, MEMBER_RX_CLOCK, MEMBERS };
static const char *const member_names[MEMBERS] = {"Tx_Data", "Tx_Clock", "Rx_Data", "Rx_Clock"};

typedef struct bus_node {
    uint8_t *tx, *rx; /* Tx_Data as set, Rx_Data as delivered (grown, not per frame) */
    size_t tx_size, tx_cap, rx_size, rx_cap;
    bool tx_ticked, rx_ticked;
} bus_node;

typedef struct bus_component {
    rtcosim_lsbus_can_bridge *bridge; /* the bridge, or else: */
    rtcosim_events *sim;              /* the kernel's bus and LPs, stepped here */
    rtcosim_can_bus *can;
    bus_gateway *gateways;
    bool begun, warned_unknown;
    uint32_t node_count;
    bus_node *nodes;
    rtcosim_variable *vars;
    char **names;      /* per node: its four members' names, then its own */
    rtcosim_time_ns now;
    /* The instant the last update ran at, and whether the bus has been
     * advanced to it: the first round at an instant only collects (the
     * nodes' Tx of that instant reach the bus one round later), so that
     * every request of the instant contends together (can_bridge.c's
     * contract). */
    rtcosim_time_ns round_time;
    bool collected;
    /* Kernel side with lookahead: the kernel runs inside do_step across its
     * events that bring the nodes nothing (ECU tasks, plant steps, frames
     * still on the wire), returning early at the first that does. */
    bool lookahead;
    /* Its work per paced frame (rtcosim_lsbus_can_component_reserve_work):
     * records of fixed capacity, the te of the frame last seen. */
    rtcosim_lsbus_frame_work *work;
    size_t work_count, work_cap;
    uint64_t work_not_recorded;
    rtcosim_time_ns work_te;
    void (*release)(void *context); /* rtcosim_lsbus_can_lp_component_on_free */
    void *release_context;
} bus_component;

/* The clock time a call starts at, when the bus is inside a paced frame
 * and its work is recorded (else 0, no clock read). */
static rtcosim_time_ns work_start(const bus_component *b, const rtcosim_paced_frame **frame)
{
    *frame = b->work ? rtcosim_paced_frame_current() : NULL;
    return *frame ? rtcosim_clock_now((*frame)->clock) : 0;
}

/* The call's time added to its frame's record (one clock read). */
static void work_end(bus_component *b, const rtcosim_paced_frame *frame, rtcosim_time_ns start)
{
    if (!frame)
        return;
    rtcosim_time_ns spent = rtcosim_clock_now(frame->clock) - start;
    if (b->work_count == 0 || frame->te != b->work_te) {
        b->work_te = frame->te;
        if (b->work_count == b->work_cap) {
            b->work_not_recorded++;
            return;
        }
        b->work[b->work_count++] = (rtcosim_lsbus_frame_work){frame->te, 0};
    } else if (b->work[b->work_count - 1].te != frame->te)
        return; /* a frame not recorded (full) */
    b->work[b->work_count - 1].work_ns += spent;
}

static bus_node *node_of(bus_component *b, uint32_t vr, int member)
{
    uint32_t n = vr / MEMBERS;
    return n < b->node_count && (int)(vr % MEMBERS) == member ? &b->nodes[n] : NULL;
}

static bool copy_into(uint8_t **buf, size_t *size, size_t *cap, const void *data, size_t n)
{
    if (n > *cap) {
        uint8_t *grown = realloc(*buf, n);
        if (!grown)
            return false;
        *buf = grown;
        *cap = n;
    }
    if (n)
        memcpy(*buf, data, n);
    *size = n;
    return true;
}

static rtcosim_status bus_nothing(void *self, rtcosim_error *err)
{
    (void)self;
    (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status bus_instantiate(void *self, const char *name, rtcosim_error *err)
{
    (void)self;
    (void)name;
    (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status bus_setup(void *self, double tolerance, rtcosim_time_ns start,
                                rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)tolerance;
    (void)stop;
    (void)err;
    bus_component *b = self;
    b->now = start;
    b->round_time = -1;
    if (!b->sim)
        return RTCOSIM_OK;
    /* No stop time (stop < start: a real-time run's calibration probe,
     * which may step past the run's): the kernel runs as far as asked. */
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .start_time = start,
                             .stop_time = stop >= start ? stop : RTCOSIM_TIME_MAX};
    rtcosim_status st = rtcosim_events_begin(b->sim, &o, err);
    b->begun = st == RTCOSIM_OK;
    return st;
}

static rtcosim_time_ns bus_next_event(const bus_component *b)
{
    return b->bridge ? rtcosim_lsbus_can_bridge_next_event(b->bridge)
                     : rtcosim_events_next_time(b->sim);
}

static rtcosim_status bus_terminate(void *self, rtcosim_error *err)
{
    bus_component *b = self;
    if (!b->begun)
        return RTCOSIM_OK;
    b->begun = false;
    return rtcosim_events_end(b->sim, err);
}

static rtcosim_status gateway_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                    rtcosim_error *err)
{
    bus_gateway *g = state;
    if (ev->type == GATEWAY_EVENT_TX) {
        gateway_tx tx;
        memcpy(&tx, ev->payload, sizeof tx);
        if (tx.control == RTCOSIM_LSBUS_OP_CAN_STATUS)
            return rtcosim_can_send_state(lp, g->owner->can, g->bus_node, tx.status, 0, err);
        if (tx.control == RTCOSIM_LSBUS_OP_CAN_WAKEUP)
            return rtcosim_can_send_wakeup(lp, g->owner->can, g->bus_node, 0, err);
        tx.frame.data = g->stage + tx.stage_offset;
        rtcosim_status st =
            rtcosim_can_transmit_any(lp, g->owner->can, g->bus_node, &tx.frame, 0,
                                     tx.discard_on_lost ? RTCOSIM_CAN_TX_DISCARD_ON_LOST : 0, err);
        if (--g->staged == 0)
            g->stage_used = 0;
        return st;
    }
    rtcosim_lsbus_op op;
    if (!lsbus_op_of_bus_event(g->bus_node, ev, &op))
        return RTCOSIM_OK;
    size_t used = g->rx_size;
    rtcosim_status st = rtcosim_lsbus_write(g->rx, sizeof g->rx, &used, &op, err);
    g->rx_size = used;
    return st;
}

static const rtcosim_lp_model gateway_model = {.kind = "lsbus-gateway", .event = gateway_event};

/* A node's Transmits at t: events for its gateway at t. */
typedef struct inject_context {
    bus_component *b;
    uint32_t node;
} inject_context;

static rtcosim_status inject_frame(void *context, const rtcosim_can_any_frame *frame,
                                   bool discard_on_lost, rtcosim_error *err)
{
    inject_context *c = context;
    bus_gateway *g = &c->b->gateways[c->node];
    if (g->stage_used + frame->length > g->stage_cap) {
        size_t cap = g->stage_cap * 2 > g->stage_used + frame->length
                         ? g->stage_cap * 2 : g->stage_used + frame->length;
        uint8_t *grown = realloc(g->stage, cap);
        if (!grown)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
        g->stage = grown;
        g->stage_cap = cap;
    }
    gateway_tx tx;
    memset(&tx, 0, sizeof tx);
    tx.frame = *frame;
    tx.frame.data = NULL;
    tx.stage_offset = (uint32_t)g->stage_used;
    tx.discard_on_lost = discard_on_lost;
    if (frame->length)
        memcpy(g->stage + g->stage_used, frame->data, frame->length);
    rtcosim_status st = rtcosim_events_inject(c->b->sim, g->lp, c->b->now, GATEWAY_EVENT_TX, &tx,
                                              sizeof tx, err);
    if (st == RTCOSIM_OK) {
        g->stage_used += frame->length;
        g->staged++;
    }
    return st;
}

/* A node's Status or Wakeup at t: an event for its gateway at t, after the
 * Transmits before it in Tx_Data. */
static rtcosim_status inject_control(void *context, uint32_t code, uint8_t status,
                                     rtcosim_error *err)
{
    inject_context *c = context;
    gateway_tx tx;
    memset(&tx, 0, sizeof tx);
    tx.control = code;
    tx.status = status;
    return rtcosim_events_inject(c->b->sim, c->b->gateways[c->node].lp, c->b->now,
                                 GATEWAY_EVENT_TX, &tx, sizeof tx, err);
}

static rtcosim_status bus_push(bus_component *b, uint32_t node, rtcosim_time_ns t,
                               const uint8_t *tx, size_t size, rtcosim_error *err)
{
    if (b->bridge)
        return rtcosim_lsbus_can_bridge_push(b->bridge, node, t, tx, size, err);
    inject_context c = {b, node};
    return lsbus_tx_frames(tx, size, b->can, b->names[(size_t)node * (MEMBERS + 1) + MEMBERS],
                           &b->warned_unknown, &b->gateways[node].arbitration_lost_behavior,
                           inject_frame, inject_control, &c, err);
}

static rtcosim_status bus_advance(bus_component *b, rtcosim_time_ns t, rtcosim_error *err)
{
    return b->bridge ? rtcosim_lsbus_can_bridge_advance(b->bridge, t, err)
                     : rtcosim_events_advance(b->sim, t, err);
}

static const uint8_t *bus_take_rx(bus_component *b, uint32_t node, size_t *size)
{
    if (b->bridge)
        return rtcosim_lsbus_can_bridge_take_rx(b->bridge, node, size);
    *size = b->gateways[node].rx_size;
    b->gateways[node].rx_size = 0;
    return b->gateways[node].rx;
}

static bool any_rx(const bus_component *b)
{
    for (uint32_t i = 0; i < b->node_count; i++)
        if (b->gateways[i].rx_size)
            return true;
    return false;
}

static rtcosim_status bus_step_work(bus_component *b, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err);

static rtcosim_status bus_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                  rtcosim_step_result *result, rtcosim_error *err)
{
    bus_component *b = self;
    const rtcosim_paced_frame *frame;
    rtcosim_time_ns start = work_start(b, &frame);
    rtcosim_status st = bus_step_work(b, t, h, result, err);
    work_end(b, frame, start);
    return st;
}

static rtcosim_status bus_step_work(bus_component *b, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err)
{
    b->now = t + h;
    memset(result, 0, sizeof *result);
    result->last_successful_time = t + h;
    if (b->lookahead) {
        /* The master ended this step at or before every node's next event,
         * so no node sends inside it: the kernel's events before t + h run
         * here, instant by instant, until one leaves something for a node
         * (then the step returns there, the event iteration delivers it).
         * Events at t + h itself wait for that instant's Transmits. */
        for (rtcosim_time_ns next; (next = rtcosim_events_next_time(b->sim)) < t + h;) {
            rtcosim_status st = rtcosim_events_advance(b->sim, next, err);
            if (st != RTCOSIM_OK)
                return st;
            if (any_rx(b)) {
                b->now = next > t ? next : t;
                result->early_return = b->now < t + h;
                result->last_successful_time = b->now;
                result->event_handling_needed = true;
                return RTCOSIM_OK;
            }
        }
        return RTCOSIM_OK;
    }
    /* A frame ending inside a step the master could not shorten. */
    result->event_handling_needed = bus_next_event(b) <= t + h;
    return RTCOSIM_OK;
}

static rtcosim_status bus_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                              void *values, rtcosim_error *err)
{
    bus_component *b = self;
    for (size_t i = 0; i < n; i++) {
        bus_node *node;
        if (type == RTCOSIM_TYPE_BINARY && (node = node_of(b, vrs[i], MEMBER_RX_DATA)))
            ((rtcosim_binary *)values)[i] = (rtcosim_binary){node->rx, node->rx_size};
        else if (type == RTCOSIM_TYPE_CLOCK && (node = node_of(b, vrs[i], MEMBER_RX_CLOCK))) {
            ((bool *)values)[i] = node->rx_ticked;
            node->rx_ticked = false; /* an output clock resets when read */
        } else
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "can bus: value reference %u is no %s output", vrs[i],
                                     rtcosim_type_name(type));
    }
    return RTCOSIM_OK;
}

static rtcosim_status bus_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                              const void *values, rtcosim_error *err)
{
    bus_component *b = self;
    for (size_t i = 0; i < n; i++) {
        bus_node *node;
        if (type == RTCOSIM_TYPE_BINARY && (node = node_of(b, vrs[i], MEMBER_TX_DATA))) {
            const rtcosim_binary *v = &((const rtcosim_binary *)values)[i];
            if (!copy_into(&node->tx, &node->tx_size, &node->tx_cap, v->data, v->size))
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
        } else if (type == RTCOSIM_TYPE_CLOCK && (node = node_of(b, vrs[i], MEMBER_TX_CLOCK)))
            node->tx_ticked |= ((const bool *)values)[i];
        else
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "can bus: value reference %u is no %s input", vrs[i],
                                     rtcosim_type_name(type));
    }
    return RTCOSIM_OK;
}

static rtcosim_status bus_update_work(bus_component *b, rtcosim_event_update *u,
                                      rtcosim_error *err);

static rtcosim_status bus_update(void *self, rtcosim_event_update *u, rtcosim_error *err)
{
    bus_component *b = self;
    const rtcosim_paced_frame *frame;
    rtcosim_time_ns start = work_start(b, &frame);
    rtcosim_status st = bus_update_work(b, u, err);
    work_end(b, frame, start);
    return st;
}

static rtcosim_status bus_update_work(bus_component *b, rtcosim_event_update *u,
                                      rtcosim_error *err)
{
    const rtcosim_time_ns t = b->now;
    memset(u, 0, sizeof *u);
    bool pushed = false;
    for (uint32_t i = 0; i < b->node_count; i++) {
        bus_node *node = &b->nodes[i];
        if (!node->tx_ticked)
            continue;
        node->tx_ticked = false;
        pushed = true;
        rtcosim_status st = bus_push(b, i, t, node->tx, node->tx_size, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "Tx_Data of %s: ",
                                        b->names[(size_t)i * (MEMBERS + 1) + MEMBERS]);
    }
    if (b->round_time != t) {
        /* The first round of an instant: the nodes' requests arrive next. */
        b->round_time = t;
        b->collected = false;
    }
    if (!b->collected || pushed) {
        b->collected = true;
        u->discrete_states_need_update = true;
    } else {
        rtcosim_status st = bus_advance(b, t, err);
        if (st != RTCOSIM_OK)
            return st;
        for (uint32_t i = 0; i < b->node_count; i++) {
            bus_node *node = &b->nodes[i];
            size_t size = 0;
            const uint8_t *rx = bus_take_rx(b, i, &size);
            node->rx_size = 0;
            if (size == 0)
                continue;
            if (!copy_into(&node->rx, &node->rx_size, &node->rx_cap, rx, size))
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
            node->rx_ticked = true;
        }
    }
    rtcosim_time_ns next = b->lookahead ? RTCOSIM_TIME_MAX : bus_next_event(b);
    if (next != RTCOSIM_TIME_MAX && next > t) {
        u->next_event_time_defined = true;
        u->next_event_time = next;
    }
    return RTCOSIM_OK;
}

static void bus_destroy(void *self)
{
    bus_component *b = self;
    rtcosim_lsbus_can_bridge_free(b->bridge);
    if (b->begun)
        rtcosim_events_end(b->sim, NULL);
    for (uint32_t i = 0; b->gateways && i < b->node_count; i++)
        free(b->gateways[i].stage);
    free(b->gateways);
    free(b->work);
    for (uint32_t i = 0; b->nodes && i < b->node_count; i++) {
        free(b->nodes[i].tx);
        free(b->nodes[i].rx);
    }
    for (size_t i = 0; b->names && i < (size_t)b->node_count * (MEMBERS + 1); i++) /* not the labels */
        free(b->names[i]);
    free(b->names);
    free(b->nodes);
    free(b->vars);
    if (b->release)
        b->release(b->release_context);
    free(b);
}

static const rtcosim_component_ops bus_ops = {
    .kind = "lsbus-can",
    .instantiate = bus_instantiate,
    .setup = bus_setup,
    .enter_init = bus_nothing,
    .exit_init = bus_nothing,
    .do_step = bus_do_step,
    .get = bus_get,
    .set = bus_set,
    .terminate = bus_terminate,
    .destroy = bus_destroy,
    .enter_event_mode = bus_nothing,
    .update_discrete_states = bus_update,
    .enter_step_mode = bus_nothing,
};

/* The component's nodes and their members (no backend yet). */
static rtcosim_status bus_new(uint32_t n, const char *const *node_names, bus_component **out,
                              rtcosim_error *err)
{
    bus_component *b = *out = calloc(1, sizeof *b);
    if (!b)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    b->node_count = n;
    b->nodes = calloc(n ? n : 1, sizeof *b->nodes);
    b->vars = calloc((size_t)n * MEMBERS + 1, sizeof *b->vars);
    /* Per node its members' names and its own, then n labels pointing at
     * the latter (the bridge's node_names). */
    b->names = calloc((size_t)n * (MEMBERS + 2) + 1, sizeof *b->names);
    if (!b->nodes || !b->vars || !b->names)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        /* Tx and Rx buffers of the bridge's default Rx size up front: no
         * allocation while stepping unless an op list is longer. */
        bus_node *node = &b->nodes[i];
        if (!(node->tx = malloc(4096)) || !(node->rx = malloc(4096)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
        node->tx_cap = node->rx_cap = 4096;
        if (!(b->names[(size_t)i * (MEMBERS + 1) + MEMBERS] = strdup(node_names[i])))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
        for (int m = 0; m < MEMBERS; m++) {
            size_t vr = (size_t)i * MEMBERS + (size_t)m;
            char *name = malloc(strlen(node_names[i]) + 16);
            if (!name)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
            sprintf(name, "%s.%s", node_names[i], member_names[m]);
            b->names[(size_t)i * (MEMBERS + 1) + (size_t)m] = name;
            b->vars[vr] = (rtcosim_variable){
                .name = name,
                .value_reference = (uint32_t)vr,
                .type = m % 2 ? RTCOSIM_TYPE_CLOCK : RTCOSIM_TYPE_BINARY,
                .causality = m < MEMBER_RX_DATA ? RTCOSIM_CAUSALITY_INPUT : RTCOSIM_CAUSALITY_OUTPUT,
                .variability = RTCOSIM_VARIABILITY_DISCRETE,
                .derivative_of = -1,
            };
        }
    }
    const char **labels = (const char **)b->names + (size_t)n * (MEMBERS + 1);
    for (uint32_t i = 0; i < n; i++)
        labels[i] = b->names[(size_t)i * (MEMBERS + 1) + MEMBERS];
    return RTCOSIM_OK;
}

static rtcosim_status bus_finish(bus_component *b, const char *name, rtcosim_component **out,
                                 rtcosim_error *err)
{
    rtcosim_component_desc desc = {
        .model_name = name ? name : "can",
        .variables = b->vars,
        .variable_count = (size_t)b->node_count * MEMBERS,
        .capabilities = {.can_handle_variable_step = true,
                         .has_event_mode = true,
                         .event_mode_used = true,
                         .can_return_early = b->lookahead,
                         .early_return_allowed = b->lookahead},
    };
    rtcosim_status st = rtcosim_component_create(&bus_ops, b, &desc, out, err);
    if (st != RTCOSIM_OK)
        bus_destroy(b);
    return st;
}

rtcosim_status rtcosim_lsbus_can_bus_component_create(const rtcosim_lsbus_can_bridge_config *config,
                                                      const char *const *node_names,
                                                      rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    bus_component *b = NULL;
    rtcosim_status st = bus_new(config->node_count, node_names, &b, err);
    if (st == RTCOSIM_OK) {
        rtcosim_lsbus_can_bridge_config named = *config;
        named.node_names = (const char **)b->names + (size_t)b->node_count * (MEMBERS + 1);
        st = rtcosim_lsbus_can_bridge_create(&named, &b->bridge, err);
    }
    if (st != RTCOSIM_OK) {
        if (b)
            bus_destroy(b);
        return st;
    }
    return bus_finish(b, config->name, out, err);
}

rtcosim_status rtcosim_lsbus_can_lp_component_create(rtcosim_events *sim, rtcosim_can_bus *bus,
                                                     const char *const *node_names,
                                                     uint32_t node_count, bool lookahead,
                                                     rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    bus_component *b = NULL;
    rtcosim_status st = bus_new(node_count, node_names, &b, err);
    if (st == RTCOSIM_OK) {
        b->lookahead = lookahead;
        b->sim = sim;
        b->can = bus;
        b->gateways = calloc(node_count ? node_count : 1, sizeof *b->gateways);
        if (!b->gateways)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    }
    for (uint32_t i = 0; st == RTCOSIM_OK && i < node_count; i++) {
        bus_gateway *g = &b->gateways[i];
        g->owner = b;
        /* one CAN XL frame's data: no allocation while stepping unless one
         * instant's Tx_Data carries more */
        if (!(g->stage = malloc(RTCOSIM_CAN_XL_DATA_MAX))) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
            break;
        }
        g->stage_cap = RTCOSIM_CAN_XL_DATA_MAX;
        st = rtcosim_events_add_lp(sim, node_names[i], &gateway_model, g, RTCOSIM_LP_NO_GROUP,
                                   &g->lp, err);
        /* frames reach the bus at the instant the node sends them; it may
         * send any frame, receives every other node's, gets its Confirms and
         * the injected errors (the LS-BUS node's view, section 5.5.1) */
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_add_node(bus, node_names[i], g->lp, 0, &g->bus_node, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_tx_any(bus, g->bus_node, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_add_rx_all(bus, g->bus_node, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_confirm_own(bus, g->bus_node, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_notify_errors(bus, g->bus_node, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_node_controls(bus, g->bus_node, err);
    }
    if (st != RTCOSIM_OK) {
        if (b)
            bus_destroy(b);
        return st;
    }
    return bus_finish(b, rtcosim_can_bus_name(bus), out, err);
}

rtcosim_can_bus *rtcosim_lsbus_can_lp_component_bus(rtcosim_component *c)
{
    return c && strcmp(rtcosim_component_kind(c), "lsbus-can") == 0
               ? ((bus_component *)rtcosim_component_impl(c))->can
               : NULL;
}

void rtcosim_lsbus_can_lp_component_on_free(rtcosim_component *c, void (*release)(void *context),
                                            void *context)
{
    if (!rtcosim_lsbus_can_lp_component_bus(c))
        return;
    bus_component *b = rtcosim_component_impl(c);
    b->release = release;
    b->release_context = context;
}

rtcosim_lsbus_can_bridge *rtcosim_lsbus_can_bus_component_bridge(rtcosim_component *c)
{
    return c && strcmp(rtcosim_component_kind(c), "lsbus-can") == 0
               ? ((bus_component *)rtcosim_component_impl(c))->bridge
               : NULL;
}

rtcosim_status rtcosim_lsbus_can_component_reserve_work(rtcosim_component *c, size_t frames,
                                                        rtcosim_error *err)
{
    if (!c || strcmp(rtcosim_component_kind(c), "lsbus-can") != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus: not a bus component");
    bus_component *b = rtcosim_component_impl(c);
    rtcosim_lsbus_frame_work *work = frames ? malloc(frames * sizeof *work) : NULL;
    if (frames && !work)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory for the work "
                                 "records of %zu frames", frames);
    free(b->work);
    b->work = work;
    b->work_cap = frames;
    b->work_count = 0;
    b->work_not_recorded = 0;
    return RTCOSIM_OK;
}

const rtcosim_lsbus_frame_work *rtcosim_lsbus_can_component_work(const rtcosim_component *c,
                                                                 size_t *count,
                                                                 uint64_t *not_recorded)
{
    const bus_component *b =
        c && strcmp(rtcosim_component_kind(c), "lsbus-can") == 0
            ? rtcosim_component_impl(c)
            : NULL;
    *count = b ? b->work_count : 0;
    if (not_recorded)
        *not_recorded = b ? b->work_not_recorded : 0;
    return b ? b->work : NULL;
}
