/* An LS-BUS CAN node FMU as a logical process of the event kernel on src/can's
 * bus LP, so that FMU nodes, native ECU models and firmware ECUs share one bus
 * (`rtcosim events --lsbus-node`). The LP steps the FMU from event to event
 * (FMI 3.0 co-simulation with Event Mode, section 4.2.2) and translates
 * between the bus LP's frames and the node's LS-BUS 1.0 operations (section
 * 5.5.1.2: CAN Transmit in Rx_Data and out of Tx_Data). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/lsbus.h"
#include "lsbus_internal.h"

/* Event type of the node's own time events (nextEventTime). */
#define EVENT_NODE_TIME 0x1B00u

struct rtcosim_lsbus_event_node {
    char *name;
    rtcosim_component *c;
    rtcosim_can_bus *bus;
    uint32_t node;
    rtcosim_lp_id lp;
    rtcosim_time_ns tx_delay, fmu_time, stop;
    rtcosim_time_ns start, step; /* the step grid (step 0: none) */
    /* The time event the FMU announced (-1: none) and whether the LP has a
     * self-event pending for it. */
    rtcosim_time_ns announced, scheduled;
    bool terminated;
    uint32_t vr_tx_data, vr_tx_clock, vr_rx_data, vr_rx_clock;
    /* Scheduled execution (FMI 3.0 chapter 5): the clock indices of Rx_Clock
     * (a triggered input clock: the receive partition) and Tx_Clock, and
     * the Rx_Data waiting for the receive partition (size 0: none). */
    bool se;
    size_t rx_clock, tx_clock;
    size_t rx_pending;
    /* one op: the largest is a CAN XL Transmit, 22 bytes + 2048 of data */
    uint8_t rx[22 + RTCOSIM_CAN_XL_DATA_MAX];
    uint64_t sent, received, bus_errors;
    rtcosim_lp *sending; /* the LP's handle while send_ops runs */
    bool warned_unknown;
    uint8_t arbitration_lost_behavior; /* as the node configured it (0: buffer) */
};

/* A frame of another node, of any format. */
static bool is_transmit(uint32_t code)
{
    return code == RTCOSIM_LSBUS_OP_CAN_TRANSMIT || code == RTCOSIM_LSBUS_OP_CANFD_TRANSMIT ||
           code == RTCOSIM_LSBUS_OP_CANXL_TRANSMIT;
}

static rtcosim_status fail(rtcosim_lsbus_event_node *n, rtcosim_status st, rtcosim_error *err)
{
    rtcosim_error_prefix(err, "lsbus node '%s': ", n->name);
    return st;
}

/* One CAN, CAN FD or CAN XL Transmit of the node onto the bus, tx_delay
 * later. */
static rtcosim_status send_frame(void *context, const rtcosim_can_any_frame *frame,
                                 bool discard_on_lost, rtcosim_error *err)
{
    rtcosim_lsbus_event_node *n = context;
    rtcosim_status st =
        rtcosim_can_transmit_any(n->sending, n->bus, n->node, frame, n->tx_delay,
                                 discard_on_lost ? RTCOSIM_CAN_TX_DISCARD_ON_LOST : 0, err);
    n->sent += st == RTCOSIM_OK;
    return st;
}

/* A Status (the controller state the bus applies to its frames) or a
 * Wakeup (to every other LS-BUS node) onto the bus, tx_delay later: in
 * order with the frames of the same Tx_Data. */
static rtcosim_status send_control(void *context, uint32_t code, uint8_t status,
                                   rtcosim_error *err)
{
    rtcosim_lsbus_event_node *n = context;
    return code == RTCOSIM_LSBUS_OP_CAN_STATUS
               ? rtcosim_can_send_state(n->sending, n->bus, n->node, status, n->tx_delay, err)
               : rtcosim_can_send_wakeup(n->sending, n->bus, n->node, n->tx_delay, err);
}

/* Tx_Data after Tx_Clock ticked: every CAN Transmit onto the bus. */
static rtcosim_status send_ops(rtcosim_lsbus_event_node *n, rtcosim_lp *lp, rtcosim_error *err)
{
    rtcosim_binary tx = {0};
    rtcosim_status st = rtcosim_component_get(n->c, RTCOSIM_TYPE_BINARY, &n->vr_tx_data, 1, &tx, err);
    if (st != RTCOSIM_OK)
        return fail(n, st, err);
    n->sending = lp;
    st = lsbus_tx_frames(tx.data, tx.size, n->bus, n->name, &n->warned_unknown,
                         &n->arbitration_lost_behavior, send_frame, send_control, n, err);
    return st == RTCOSIM_OK ? st : fail(n, st, err);
}

/* Tx_Clock read (a read resets it, FMI 3.0 section 2.2.8), and Tx_Data
 * sent when it ticked. */
static rtcosim_status send_if_ticked(rtcosim_lsbus_event_node *n, rtcosim_lp *lp,
                                     rtcosim_error *err)
{
    bool ticked = false;
    rtcosim_status st =
        rtcosim_component_get(n->c, RTCOSIM_TYPE_CLOCK, &n->vr_tx_clock, 1, &ticked, err);
    if (st != RTCOSIM_OK)
        return fail(n, st, err);
    return ticked ? send_ops(n, lp, err) : RTCOSIM_OK;
}

/* The next time event: the FMU's announcement or its scheduler's next tick. */
static rtcosim_status schedule_next(rtcosim_lsbus_event_node *n, rtcosim_lp *lp, rtcosim_time_ns t,
                                    rtcosim_time_ns next, rtcosim_error *err)
{
    n->announced = next > t && next != RTCOSIM_TIME_MAX ? next : -1;
    if (n->announced < 0 && n->step > 0 && !n->se) {
        /* nothing announced: the next point of its step grid */
        rtcosim_time_ns k = (t - n->start) / n->step + 1;
        n->announced = k > (RTCOSIM_TIME_MAX - n->start) / n->step ? -1 : n->start + k * n->step;
    }
    if (n->announced > 0 && n->announced <= n->stop && n->announced != n->scheduled) {
        n->scheduled = n->announced;
        rtcosim_status st =
            rtcosim_lp_send(lp, n->lp, n->announced - t, EVENT_NODE_TIME, 0, NULL, 0, err);
        if (st != RTCOSIM_OK)
            return fail(n, st, err);
    }
    return RTCOSIM_OK;
}

/* Before the receive partition: the operation as its Rx_Data (FMI 3.0
 * section 5.2.2: clocked inputs are set when their clock is active). */
static rtcosim_status before_partition(void *context, size_t clock, rtcosim_error *err)
{
    rtcosim_lsbus_event_node *n = context;
    if (clock != n->rx_clock || !n->rx_pending)
        return RTCOSIM_OK;
    rtcosim_binary value = {n->rx, n->rx_pending};
    n->rx_pending = 0;
    return rtcosim_component_set(n->c, RTCOSIM_TYPE_BINARY, &n->vr_rx_data, 1, &value, err);
}

/* A scheduled-execution node at t: the bus's operation triggers the receive
 * partition, the partitions due at t run in priority order (its own
 * scheduler's ticks: the transmit task), and when Tx_Clock ticked (a
 * clockUpdate; read once per instant) Tx_Data's frames go. */
static rtcosim_status se_event_at(rtcosim_lsbus_event_node *n, rtcosim_lp *lp, rtcosim_time_ns t,
                                  const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    rtcosim_status st;
    if (op) {
        size_t used = 0;
        if ((st = rtcosim_lsbus_write(n->rx, sizeof n->rx, &used, op, err)) != RTCOSIM_OK ||
            (st = rtcosim_fmu_se_trigger(n->c, n->rx_clock, err)) != RTCOSIM_OK)
            return fail(n, st, err);
        n->rx_pending = used;
        n->received += is_transmit(op->code);
        n->bus_errors += op->code == RTCOSIM_LSBUS_OP_CAN_BUS_ERROR;
    }
    uint64_t ticks = rtcosim_fmu_se_ticks(n->c, n->tx_clock);
    if ((st = rtcosim_fmu_se_run_instant(n->c, t, before_partition, n, NULL, err)) != RTCOSIM_OK)
        return fail(n, st, err);
    n->fmu_time = t;
    if (rtcosim_fmu_se_ticks(n->c, n->tx_clock) > ticks && (st = send_ops(n, lp, err)) != RTCOSIM_OK)
        return st;
    return schedule_next(n, lp, t, rtcosim_fmu_se_next_tick(n->c), err);
}

/* The node's event at t (the FMU stepped there): Tx if Tx_Clock ticked in
 * the step; the bus's operation, if any, in Rx_Data; the discrete-state
 * iteration; Tx if it ticked there; back to step mode; the next time event
 * scheduled. */
static rtcosim_status node_event_at(rtcosim_lsbus_event_node *n, rtcosim_lp *lp, rtcosim_time_ns t,
                                    const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    rtcosim_status st;
    if (n->terminated)
        return RTCOSIM_OK;
    if (n->se)
        return se_event_at(n, lp, t, op, err);
    if (n->fmu_time < t) {
        rtcosim_step_result res;
        if ((st = rtcosim_component_do_step(n->c, n->fmu_time, t - n->fmu_time, &res, err)) !=
            RTCOSIM_OK)
            return fail(n, st, err);
        n->fmu_time = t;
        if (res.terminate_requested) {
            n->terminated = true;
            return RTCOSIM_OK;
        }
    }
    if (!rtcosim_component_in_event_mode(n->c) &&
        (st = rtcosim_component_enter_event_mode(n->c, err)) != RTCOSIM_OK)
        return fail(n, st, err);
    /* FMI 3.0's event-mode order: the output clock and what it clocks before
     * the update, which deactivates it (a node that ticks Tx_Clock as its
     * step ends) */
    if ((st = send_if_ticked(n, lp, err)) != RTCOSIM_OK)
        return st;
    if (op) {
        size_t used = 0;
        const bool tick = true;
        if ((st = rtcosim_lsbus_write(n->rx, sizeof n->rx, &used, op, err)) != RTCOSIM_OK)
            return fail(n, st, err);
        rtcosim_binary value = {n->rx, used};
        if ((st = rtcosim_component_set(n->c, RTCOSIM_TYPE_BINARY, &n->vr_rx_data, 1, &value,
                                        err)) != RTCOSIM_OK ||
            (st = rtcosim_component_set(n->c, RTCOSIM_TYPE_CLOCK, &n->vr_rx_clock, 1, &tick,
                                        err)) != RTCOSIM_OK)
            return fail(n, st, err);
        n->received += is_transmit(op->code);
        n->bus_errors += op->code == RTCOSIM_LSBUS_OP_CAN_BUS_ERROR;
    }
    rtcosim_event_update u;
    if ((st = rtcosim_component_settle_events(n->c, RTCOSIM_EVENT_ITERATION_LIMIT, &u, err)) !=
        RTCOSIM_OK)
        return fail(n, st, err);
    /* lenient: a Tx_Clock the update itself ticked */
    if ((st = send_if_ticked(n, lp, err)) != RTCOSIM_OK)
        return st;
    if (u.terminate_requested) {
        n->terminated = true;
        return RTCOSIM_OK;
    }
    if ((st = rtcosim_component_enter_step_mode(n->c, err)) != RTCOSIM_OK)
        return fail(n, st, err);
    return schedule_next(n, lp, t, u.next_event_time_defined ? u.next_event_time : -1, err);
}

static rtcosim_status node_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    /* Section 4.2.2: with eventModeUsed the FMU leaves initialization in
     * Event Mode: its first event is at the start time. */
    return node_event_at(state, lp, rtcosim_lp_now(lp), NULL, err);
}

static rtcosim_status node_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    rtcosim_lsbus_event_node *n = state;
    rtcosim_lsbus_op op;
    bool from_bus = lsbus_op_of_bus_event(n->node, ev, &op);
    if (!from_bus && ev->time != n->announced) /* a time event the FMU took back */
        return RTCOSIM_OK;
    if (!from_bus)
        n->scheduled = -1;
    return node_event_at(n, lp, ev->time, from_bus ? &op : NULL, err);
}

static const rtcosim_lp_model node_model = {.kind = "lsbus-node", .init = node_init,
                                            .event = node_event};

static rtcosim_status member(rtcosim_lsbus_event_node *n, const char *path, const char *terminal,
                             const char *name, rtcosim_type type, uint32_t *vr, rtcosim_error *err)
{
    char full[256];
    snprintf(full, sizeof full, "%s.%s", terminal, name);
    const rtcosim_variable *v = rtcosim_component_find_variable(n->c, full);
    if (!v || v->type != type)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "lsbus node '%s': %s has no %s variable '%s' (an LS-BUS CAN "
                                 "terminal's member, section 5.4)",
                                 n->name, path, rtcosim_type_name(type), full);
    *vr = v->value_reference;
    return RTCOSIM_OK;
}

/* The clock index of the clock variable with reference vr. */
static long clock_of(const rtcosim_component *c, uint32_t vr)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(c);
    for (size_t i = 0; k && i < rtcosim_component_variable_count(c); i++)
        if (rtcosim_component_variable(c, i)->value_reference == vr &&
            rtcosim_component_variable(c, i)->type == RTCOSIM_TYPE_CLOCK)
            return rtcosim_fmu_clock_index(k, i);
    return -1;
}

/* Scheduled execution: Rx_Clock must be a triggered input clock (a model
 * partition the bus activates), Tx_Clock an output clock. */
static rtcosim_status se_clocks(rtcosim_lsbus_event_node *n, const char *path, rtcosim_error *err)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(n->c);
    long rx = clock_of(n->c, n->vr_rx_clock), tx = clock_of(n->c, n->vr_tx_clock);
    if (!k)
        rx = tx = -1;
    const rtcosim_variable *rxv = rx >= 0 ? rtcosim_component_variable(n->c, k->clocks[rx].variable)
                                          : NULL;
    const rtcosim_variable *txv = tx >= 0 ? rtcosim_component_variable(n->c, k->clocks[tx].variable)
                                          : NULL;
    if (!rxv || !txv || rxv->causality != RTCOSIM_CAUSALITY_INPUT ||
        k->clocks[rx].kind != RTCOSIM_FMI_CLOCK_TRIGGERED ||
        txv->causality != RTCOSIM_CAUSALITY_OUTPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "lsbus node '%s': %s: in scheduled execution Rx_Clock must be a "
                                 "triggered input clock (the receive partition) and Tx_Clock an "
                                 "output clock",
                                 n->name, path);
    n->rx_clock = (size_t)rx;
    n->tx_clock = (size_t)tx;
    return RTCOSIM_OK;
}

static rtcosim_status set_start(rtcosim_lsbus_event_node *n, const char *name, const char *text,
                                rtcosim_error *err)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(n->c, name);
    if (!v)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "lsbus node '%s': no variable '%s'",
                                 n->name, name);
    rtcosim_value value;
    _Alignas(16) unsigned char slot[sizeof(rtcosim_value)];
    rtcosim_status st = rtcosim_value_parse(v->type, text, &value, err);
    if (st == RTCOSIM_OK) {
        rtcosim_value_store(v->type, &value, slot);
        st = rtcosim_component_set(n->c, v->type, &v->value_reference, 1, slot, err);
    }
    return st == RTCOSIM_OK ? st : rtcosim_error_prefix(err, "lsbus node '%s': %s: ", n->name, name);
}

rtcosim_status rtcosim_lsbus_event_node_create(rtcosim_events *sim, rtcosim_can_bus *bus,
                                               const rtcosim_lsbus_event_node_config *cfg,
                                               rtcosim_lsbus_event_node **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_lsbus_event_node *n = calloc(1, sizeof *n);
    if (!n || !(n->name = strdup(cfg->name ? cfg->name : ""))) {
        free(n);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "lsbus node: out of memory");
    }
    n->bus = bus;
    n->tx_delay = cfg->tx_delay;
    n->fmu_time = n->start = cfg->start;
    n->stop = cfg->stop;
    n->announced = n->scheduled = -1;
    const char *terminal = cfg->terminal ? cfg->terminal : "CAN";
    n->se = cfg->scheduled_execution;
    rtcosim_fmu_options opts = {.event_mode_used = !n->se};
    if (n->se)
        opts.interface_type = RTCOSIM_FMI_SCHEDULED_EXECUTION;
    rtcosim_status st = rtcosim_fmu_load(cfg->fmu_path, &opts, &n->c, err);
    if (st == RTCOSIM_OK && !n->se && !rtcosim_component_capabilities(n->c)->event_mode_used)
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                               "%s: an LS-BUS node of the event kernel needs FMI 3.0 "
                               "co-simulation with Event Mode (hasEventMode)", cfg->fmu_path);
    if (st == RTCOSIM_OK) {
        const rtcosim_component_desc *d = rtcosim_component_description(n->c);
        n->step = cfg->step > 0 ? cfg->step
                  : cfg->step == 0 && d->has_default_step && d->default_step > 0 ? d->default_step
                                                                                 : 0;
    }
    if (st == RTCOSIM_OK)
        st = member(n, cfg->fmu_path, terminal, "Tx_Data", RTCOSIM_TYPE_BINARY, &n->vr_tx_data, err);
    if (st == RTCOSIM_OK)
        st = member(n, cfg->fmu_path, terminal, "Tx_Clock", RTCOSIM_TYPE_CLOCK, &n->vr_tx_clock, err);
    if (st == RTCOSIM_OK)
        st = member(n, cfg->fmu_path, terminal, "Rx_Data", RTCOSIM_TYPE_BINARY, &n->vr_rx_data, err);
    if (st == RTCOSIM_OK)
        st = member(n, cfg->fmu_path, terminal, "Rx_Clock", RTCOSIM_TYPE_CLOCK, &n->vr_rx_clock, err);
    if (st == RTCOSIM_OK && n->se)
        st = se_clocks(n, cfg->fmu_path, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_instantiate(n->c, n->name, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_setup(n->c, 0, cfg->start, cfg->stop, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < cfg->start_count; i++)
        st = set_start(n, cfg->start_names[i], cfg->start_texts[i], err);
    if (st == RTCOSIM_OK && (st = rtcosim_component_enter_init(n->c, err)) == RTCOSIM_OK)
        st = rtcosim_component_exit_init(n->c, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_events_add_lp(sim, n->name, &node_model, n, RTCOSIM_LP_NO_GROUP, &n->lp, err);
    /* Its lookahead to the bus is tx_delay; the bus's to it is the shortest
     * frame (rtcosim_can_bus_connect), as for the native ECUs. */
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(bus, n->name, n->lp, n->tx_delay, &n->node, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < cfg->tx_count; i++)
        st = rtcosim_can_bus_add_tx_format(
            bus, n->node,
            cfg->tx_formats ? (rtcosim_can_format)cfg->tx_formats[i] : RTCOSIM_CAN_FORMAT_CLASSIC,
            cfg->tx_ids[i], cfg->tx_extended && cfg->tx_extended[i],
            cfg->tx_lengths ? cfg->tx_lengths[i] : cfg->tx_dlcs[i], err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_rx_all(bus, n->node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_confirm_own(bus, n->node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_notify_errors(bus, n->node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_node_controls(bus, n->node, err);
    if (st != RTCOSIM_OK) {
        rtcosim_lsbus_event_node_free(n);
        return st;
    }
    *out = n;
    return RTCOSIM_OK;
}

void rtcosim_lsbus_event_node_free(rtcosim_lsbus_event_node *n)
{
    if (!n)
        return;
    rtcosim_component_free(n->c); /* terminates an initialized FMU first */
    free(n->name);
    free(n);
}

rtcosim_component *rtcosim_lsbus_event_node_component(const rtcosim_lsbus_event_node *n)
{
    return n->c;
}

const char *rtcosim_lsbus_event_node_name(const rtcosim_lsbus_event_node *n) { return n->name; }

void rtcosim_lsbus_event_node_counts(const rtcosim_lsbus_event_node *n, uint64_t *frames_sent,
                                     uint64_t *frames_received)
{
    *frames_sent = n->sent;
    *frames_received = n->received;
}

uint64_t rtcosim_lsbus_event_node_bus_errors(const rtcosim_lsbus_event_node *n)
{
    return n->bus_errors;
}
