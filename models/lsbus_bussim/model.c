/* LsBusSimulation: an FMI-LS-BUS 1.0 bus-simulation FMU (isBusSimulationFMU,
 * section 3.2.2) for three CAN nodes, ideal: what a node sends (its Tx_Data,
 * connected to this FMU's NodeK.Rx_Data, NodeK.Rx_Clock ticked with it) is
 * forwarded at the same instant, a Transmit unchanged to every other node's
 * NodeJ.Tx_Data and a Confirm of its identifier to the sender (section
 * 5.5.1.3), ticking the NodeJ.Tx_Clock output clocks; Configuration ops are
 * taken and not forwarded. No timing and no arbitration: that is the
 * integrated bus's (rtcosim run --can-bus). */
#include <stddef.h>
#include <stdint.h>

#include "lsbus_ops.h"
#include "se_model.h"

#define NODES 3

/* countdown.c builds the variant whose NodeK.Tx_Clock are input countdown
 * clocks, as the fmi-guides demo bus simulations have them: a forwarded op
 * is delivered DELIVERY_DELAY later, when the importer ticks that clock (and
 * with it the node's Rx_Clock connected to it). */
#ifdef BUSSIM_COUNTDOWN
#define TX_CLOCK_INPUT true
#define TX_CLOCK_KIND "countdown"
#else
#define TX_CLOCK_INPUT false
#define TX_CLOCK_KIND "triggered"
#endif
#define DELIVERY_DELAY 0.0001

/* evaluate.c builds the countdown variant as the FMI-LS-BUS project's
 * FlexRay demo bus simulation works (fmi-ls-bus-examples 503b64e): the ops a
 * node sent are taken only in fmi3EvaluateDiscreteStates (the update drops
 * them, counted in `dropped`), and a delivery's countdown interval is
 * announced from when it is scheduled until the update after its tick, as
 * the time left (0 once due): an importer that asks before that update ticks
 * the clock once more and delivers the ops again. */
#ifdef BUSSIM_EVALUATE
#define EVALUATE_ONLY true
#else
#define EVALUATE_ONLY false
#endif

typedef struct bussim {
    int32_t forwarded, configurations, dropped, ticked_twice;
    model_binary rx[NODES], tx[NODES];
    bool rx_clock[NODES], tx_clock[NODES], tx_read[NODES];
    bool tx_ticked[NODES]; /* countdown: the importer ticked NodeK.Tx_Clock at this instant */
    int interval_qualifier[NODES]; /* countdown: 2 when a delivery was just scheduled */
    double deliver_at[NODES];      /* evaluate variant: when the delivery is due */
} bussim;

/* Value references: NodeK.Rx_Data 1 + 2k, NodeK.Tx_Data 2 + 2k; clocks
 * NodeK.Rx_Clock 100 + 2k (input), NodeK.Tx_Clock 101 + 2k (output). */
#define RX(k)                                                                                   \
    {"Node" #k ".Rx_Data", 2 * (k) - 1, MODEL_BINARY, MODEL_INPUT, MODEL_DISCRETE,              \
     MODEL_INITIAL_DEFAULT, offsetof(bussim, rx[(k) - 1]), "", NULL, "ops from node " #k, 0, \
     {0, 0}}
#define TX(k)                                                                                   \
    {"Node" #k ".Tx_Data", 2 * (k), MODEL_BINARY, MODEL_OUTPUT, MODEL_DISCRETE,                 \
     MODEL_INITIAL_DEFAULT, offsetof(bussim, tx[(k) - 1]), NULL, NULL, "ops to node " #k, 0,  \
     {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    RX(1), TX(1), RX(2), TX(2), RX(3), TX(3),
    {"forwarded", 7, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(bussim, forwarded), NULL, NULL, "Transmit ops forwarded", 0, {0, 0}},
    {"configurations", 8, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(bussim, configurations), NULL, NULL, "Configuration ops taken", 0, {0, 0}},
    {"dropped", 9, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(bussim, dropped), NULL, NULL,
     "Rx buffers updated without an evaluation (evaluate variant)", 0, {0, 0}},
    {"ticked_twice", 10, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(bussim, ticked_twice), NULL, NULL,
     "countdown Tx clocks ticked again before the update (a delivery passed twice)", 0, {0, 0}},
};

#define CLOCKS(k)                                                                             \
    {"Node" #k ".Rx_Clock", 98 + 2 * (k), true, "triggered", NULL, NULL, -1, "Rx_Data is new"}, \
    {"Node" #k ".Tx_Clock", 99 + 2 * (k), TX_CLOCK_INPUT, TX_CLOCK_KIND, NULL, NULL, -1,         \
     "Tx_Data is new"}
static const se_clock_def clocks[] = {CLOCKS(1), CLOCKS(2), CLOCKS(3)};

static const se_clocked_def clocked[] = {{1, "100"}, {2, "101"}, {3, "102"},
                                         {4, "103"}, {5, "104"}, {6, "105"}};

#define MIME "application/org.fmi-standard.fmi-ls-bus.can; version=\"1.0.0\""
static const se_binary_def binaries[] = {
    {1, LSBUS_BUFFER_MAX, MIME}, {2, LSBUS_BUFFER_MAX, MIME}, {3, LSBUS_BUFFER_MAX, MIME},
    {4, LSBUS_BUFFER_MAX, MIME}, {5, LSBUS_BUFFER_MAX, MIME}, {6, LSBUS_BUFFER_MAX, MIME}};

static bool send(model_instance *inst, bussim *d, int node, const uint8_t *op, size_t size)
{
    if (TX_CLOCK_INPUT && d->interval_qualifier[node] != 2)
        d->deliver_at[node] = model_time(inst) + DELIVERY_DELAY;
    if (TX_CLOCK_INPUT)
        d->interval_qualifier[node] = 2; /* the countdown runs from now */
    else
        d->tx_clock[node] = true;
    return lsbus_append(inst, &d->tx[node], &d->tx_read[node], op, size);
}

static model_status forward(model_instance *inst, bussim *d, int from)
{
    const uint8_t *p = d->rx[from].data;
    size_t left = d->rx[from].size;
    while (left >= 8) {
        uint32_t code = lsbus_get_u32(p), length = lsbus_get_u32(p + 4);
        if (length < 8 || length > left) {
            model_log(inst, MODEL_LOG_STATUS_ERROR,
                      "Node%d.Rx_Data: op 0x%04x has length %u past the buffer's end", from + 1,
                      code, length);
            return MODEL_ERROR;
        }
        if ((code == 0x10 || code == 0x11 || code == 0x12) && length >= 12) {
            for (int j = 0; j < NODES; j++)
                if (j != from && !send(inst, d, j, p, length))
                    return MODEL_ERROR;
            uint8_t confirm[12];
            lsbus_put_u32(lsbus_put_u32(lsbus_put_u32(confirm, 0x20), sizeof confirm),
                          lsbus_get_u32(p + 8));
            if (!send(inst, d, from, confirm, sizeof confirm))
                return MODEL_ERROR;
            d->forwarded++;
        } else if (code == 0x40)
            d->configurations++;
        p += length;
        left -= length;
    }
    return MODEL_OK;
}

static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    (void)result;
    bussim *d = data;
    /* countdown: a delivery was to be read right after its clock ticked
     * and before this update, which ends the instant (FMI 3.0 event-mode
     * order; the FMI-LS-BUS demo bus simulation clears its Tx buffers here) */
    for (int k = 0; k < NODES; k++)
        if (d->tx_ticked[k]) {
            d->tx_ticked[k] = false;
            d->tx[k].size = 0;
            if (EVALUATE_ONLY)
                d->interval_qualifier[k] = 0;
        }
    for (int k = 0; k < NODES; k++)
        if (d->rx_clock[k]) {
            d->rx_clock[k] = false;
            if (EVALUATE_ONLY) { /* not evaluated: the ops are lost */
                d->dropped++;
                continue;
            }
            model_status s = forward(inst, d, k);
            if (s != MODEL_OK)
                return s;
        }
    return MODEL_OK;
}

/* fmi3EvaluateDiscreteStates (evaluate variant): the ops that came in are
 * taken, their deliveries scheduled. */
#ifdef BUSSIM_EVALUATE
static model_status evaluate_discrete_states(model_instance *inst, void *data)
{
    bussim *d = data;
    for (int k = 0; k < NODES; k++)
        if (d->rx_clock[k]) {
            d->rx_clock[k] = false;
            model_status s = forward(inst, d, k);
            if (s != MODEL_OK)
                return s;
        }
    return MODEL_OK;
}
#endif

static model_status step_to_event(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event)
{
    (void)inst, (void)data;
    *reached = t + h;
    *event = false;
    return MODEL_OK;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst, (void)data, (void)t, (void)h;
    return MODEL_OK;
}

static model_status get_clock(model_instance *inst, void *data, uint32_t clock, bool *ticked)
{
    (void)inst;
    bussim *d = data;
    int k = ((int)clock - 101) / 2;
    if (clock < 101 || clock % 2 == 0 || k >= NODES)
        return MODEL_ERROR;
    *ticked = d->tx_clock[k];
    d->tx_read[k] |= d->tx_clock[k];
    d->tx_clock[k] = false;
    return MODEL_OK;
}

/* fmi3GetIntervalDecimal of a countdown Tx_Clock: changed once after a
 * delivery was scheduled, then unchanged (FMI 3.0 section 2.3.7). */
static model_status get_interval(model_instance *inst, void *data, uint32_t clock,
                                 double *interval, int *qualifier)
{
    (void)inst;
    bussim *d = data;
    int k = ((int)clock - 101) / 2;
    if (!TX_CLOCK_INPUT || clock < 101 || clock % 2 == 0 || k >= NODES) {
        *qualifier = 0;
        return MODEL_OK;
    }
    *qualifier = d->interval_qualifier[k];
    if (*qualifier == 2 && EVALUATE_ONLY) { /* the time left, until the update after the tick */
        *interval = d->deliver_at[k] > model_time(inst) ? d->deliver_at[k] - model_time(inst) : 0;
        return MODEL_OK;
    }
    if (*qualifier == 2) {
        *interval = DELIVERY_DELAY;
        d->interval_qualifier[k] = 1;
    }
    return MODEL_OK;
}

static model_status set_clock(model_instance *inst, void *data, uint32_t clock, bool ticked)
{
    (void)inst;
    bussim *d = data;
    if (TX_CLOCK_INPUT && clock >= 101 && clock % 2 == 1 && (clock - 101) / 2 < NODES) {
        /* the countdown ran out: Tx_Data is read now, the next op starts anew */
        int k = ((int)clock - 101) / 2;
        d->ticked_twice += ticked && d->tx_ticked[k];
        d->tx_read[k] |= ticked;
        d->tx_ticked[k] |= ticked;
        if (!EVALUATE_ONLY)
            d->interval_qualifier[k] = 0;
        return MODEL_OK;
    }
    int k = ((int)clock - 100) / 2;
    if (clock < 100 || clock % 2 != 0 || k >= NODES)
        return MODEL_ERROR;
    d->rx_clock[k] |= ticked;
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst, (void)data;
}

const model_def model_definition = {
    .model_name = "LsBusSimulation",
    .description = "FMI-LS-BUS CAN bus simulation for three nodes: forwards at once, confirms",
    .instantiation_token = "{3f6a1b2c-9d8e-4a7b-8c6d-5e4f3a2b1c0d}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(bussim),
    .initialize = initialize,
    .do_step = do_step,
    .event_update = event_update,
    .step_to_event = step_to_event,
#ifdef BUSSIM_EVALUATE
    .evaluate_discrete_states = evaluate_discrete_states,
#endif
    .default_start_time = 0.0,
    .default_stop_time = 0.01,
    .default_step_size = 0.001,
};

const se_model_def se_model_definition = {
    .clocks = clocks,
    .clock_count = sizeof clocks / sizeof clocks[0],
    .clocked = clocked,
    .clocked_count = sizeof clocked / sizeof clocked[0],
    .binaries = binaries,
    .binary_count = sizeof binaries / sizeof binaries[0],
    .get_clock = get_clock,
    .set_clock = set_clock,
    .get_interval = get_interval,
};
