/* rtcosim's CAN bus as the integrated bus simulation of a system (LS-BUS 1.0
 * section 3.2.3): the bridge (can_bridge.c) wrapped as an event-mode
 * component with, per attached node N, the inputs N.Tx_Data / N.Tx_Clock and
 * the outputs N.Rx_Data / N.Rx_Clock, so that the master's Binary and Clock
 * connections (src/master/events_links.c) carry the operations as they do
 * for a bus-simulation FMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/lsbus.h"

enum { MEMBER_TX_DATA, MEMBER_TX_CLOCK, MEMBER_RX_DATA, MEMBER_RX_CLOCK, MEMBERS };
static const char *const member_names[MEMBERS] = {"Tx_Data", "Tx_Clock", "Rx_Data", "Rx_Clock"};

typedef struct bus_node {
    uint8_t *tx, *rx; /* Tx_Data as set, Rx_Data as delivered (grown, not per frame) */
    size_t tx_size, tx_cap, rx_size, rx_cap;
    bool tx_ticked, rx_ticked;
} bus_node;

typedef struct bus_component {
    rtcosim_lsbus_can_bridge *bridge;
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
} bus_component;

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
    return RTCOSIM_OK;
}

static rtcosim_status bus_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                  rtcosim_step_result *result, rtcosim_error *err)
{
    (void)err;
    bus_component *b = self;
    b->now = t + h;
    memset(result, 0, sizeof *result);
    result->last_successful_time = t + h;
    /* A frame ending inside a step the master could not shorten. */
    result->event_handling_needed = rtcosim_lsbus_can_bridge_next_event(b->bridge) <= t + h;
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

static rtcosim_status bus_update(void *self, rtcosim_event_update *u, rtcosim_error *err)
{
    bus_component *b = self;
    const rtcosim_time_ns t = b->now;
    memset(u, 0, sizeof *u);
    bool pushed = false;
    for (uint32_t i = 0; i < b->node_count; i++) {
        bus_node *node = &b->nodes[i];
        if (!node->tx_ticked)
            continue;
        node->tx_ticked = false;
        pushed = true;
        rtcosim_status st =
            rtcosim_lsbus_can_bridge_push(b->bridge, i, t, node->tx, node->tx_size, err);
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
        rtcosim_status st = rtcosim_lsbus_can_bridge_advance(b->bridge, t, err);
        if (st != RTCOSIM_OK)
            return st;
        for (uint32_t i = 0; i < b->node_count; i++) {
            bus_node *node = &b->nodes[i];
            size_t size = 0;
            const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b->bridge, i, &size);
            node->rx_size = 0;
            if (size == 0)
                continue;
            if (!copy_into(&node->rx, &node->rx_size, &node->rx_cap, rx, size))
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
            node->rx_ticked = true;
        }
    }
    rtcosim_time_ns next = rtcosim_lsbus_can_bridge_next_event(b->bridge);
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
    for (uint32_t i = 0; b->nodes && i < b->node_count; i++) {
        free(b->nodes[i].tx);
        free(b->nodes[i].rx);
    }
    for (size_t i = 0; b->names && i < (size_t)b->node_count * (MEMBERS + 1); i++) /* not the labels */
        free(b->names[i]);
    free(b->names);
    free(b->nodes);
    free(b->vars);
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
    .terminate = bus_nothing,
    .destroy = bus_destroy,
    .enter_event_mode = bus_nothing,
    .update_discrete_states = bus_update,
    .enter_step_mode = bus_nothing,
};

rtcosim_status rtcosim_lsbus_can_bus_component_create(const rtcosim_lsbus_can_bridge_config *config,
                                                      const char *const *node_names,
                                                      rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    bus_component *b = calloc(1, sizeof *b);
    if (!b)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    const uint32_t n = config->node_count;
    b->node_count = n;
    b->nodes = calloc(n ? n : 1, sizeof *b->nodes);
    b->vars = calloc((size_t)n * MEMBERS + 1, sizeof *b->vars);
    /* Per node its members' names and its own, then n labels pointing at
     * the latter (the bridge's node_names). */
    b->names = calloc((size_t)n * (MEMBERS + 2) + 1, sizeof *b->names);
    if (!b->nodes || !b->vars || !b->names) {
        bus_destroy(b);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!(b->names[(size_t)i * (MEMBERS + 1) + MEMBERS] = strdup(node_names[i]))) {
            bus_destroy(b);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
        }
        for (int m = 0; m < MEMBERS; m++) {
            size_t vr = (size_t)i * MEMBERS + (size_t)m;
            char *name = malloc(strlen(node_names[i]) + 16);
            if (!name) {
                bus_destroy(b);
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
            }
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
    rtcosim_lsbus_can_bridge_config named = *config;
    named.node_names = labels;
    rtcosim_status st = rtcosim_lsbus_can_bridge_create(&named, &b->bridge, err);
    if (st != RTCOSIM_OK) {
        bus_destroy(b);
        return st;
    }
    rtcosim_component_desc desc = {
        .model_name = config->name ? config->name : "can",
        .variables = b->vars,
        .variable_count = (size_t)n * MEMBERS,
        .capabilities = {.can_handle_variable_step = true,
                         .has_event_mode = true,
                         .event_mode_used = true},
    };
    return rtcosim_component_create(&bus_ops, b, &desc, out, err);
}

rtcosim_lsbus_can_bridge *rtcosim_lsbus_can_bus_component_bridge(rtcosim_component *c)
{
    return c && strcmp(rtcosim_component_kind(c), "lsbus-can") == 0
               ? ((bus_component *)rtcosim_component_impl(c))->bridge
               : NULL;
}
