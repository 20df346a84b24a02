/* The CAN bus as an LP: nodes queue frames (TX request events), the bus
 * arbitrates by identifier whenever it becomes idle (requests that arrive at
 * the same instant, or during a frame, contend together at its end), sends
 * each frame's end to the nodes whose receive database accepts it, and keeps
 * load statistics and an optional log. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "rtcosim/log.h"
#include "util/array.h"

enum {
    CAN_EVENT_TX_REQUEST = 0xCA01,
    CAN_EVENT_ARBITRATE = 0xCA02,
    CAN_EVENT_FRAME_END = 0xCA03,
};

/* Priority of received frames at a node: after plant inputs (0), before
 * task releases (2), so that a task released at the end of a frame sees it. */
#define CAN_RX_PRIORITY 1

typedef struct can_tx_request {
    rtcosim_can_frame frame;
    uint32_t node;
    bool discard_on_lost; /* RTCOSIM_CAN_TX_DISCARD_ON_LOST */
} can_tx_request;

typedef struct can_pending {
    uint64_t arbitration; /* lower wins */
    rtcosim_time_ns requested;
    rtcosim_time_ns duration; /* on the wire, stuff bits included (computed once) */
    rtcosim_can_frame frame;
    bool discard_on_lost;
} can_pending;

typedef struct can_node {
    char *name;
    rtcosim_lp_id lp;
    rtcosim_time_ns tx_lookahead;
    uint32_t *tx_keys; /* id | extended << 31, sorted at connect */
    uint8_t *tx_dlc;
    size_t tx_count, tx_capacity;
    uint32_t *rx_keys;
    size_t rx_count, rx_capacity;
    bool rx_all; /* receives every frame of the other nodes */
    bool tx_any; /* may send any identifier (no TX database) */
    bool confirm; /* gets its own frames back at their end (LS-BUS Confirm) */
    bool notify_errors; /* gets RTCOSIM_CAN_EVENT_BUS_ERROR (LS-BUS Bus Error) */
    can_pending *queue; /* sorted by arbitration, capacity from the config */
    uint32_t queued;
} can_node;

struct rtcosim_can_bus {
    rtcosim_events *sim;
    rtcosim_lp_id lp;
    char *name;
    rtcosim_can_bus_config config;
    rtcosim_time_ns bit_ns, min_frame;
    can_node *nodes;
    size_t node_count, node_capacity;
    bool connected, busy, arbitration_pending;
    /* The frame on the wire when error injection corrupts it: back into its
     * sender's queue at its end (-1: none). Part of the snapshot. */
    int64_t retransmit_node;
    can_pending retransmit;
    rtcosim_time_ns start_time;
    rtcosim_can_bus_stats stats;
    _Atomic uint64_t frames_live; /* stats.frames for other threads (a live view) */
    rtcosim_can_log_entry *log;
    size_t log_count, log_capacity;
};

static inline uint32_t id_key(uint32_t id, bool extended)
{
    return id | (extended ? UINT32_C(0x80000000) : 0);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static long find_key(const uint32_t *keys, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == key ? (long)lo : -1;
}

uint32_t rtcosim_can_error_detector(uint8_t code, uint32_t sender, uint32_t node_count)
{
    if (code == RTCOSIM_CAN_ERROR_BIT || code == RTCOSIM_CAN_ERROR_ACK || node_count < 2)
        return sender;
    return sender == 0 ? 1 : 0;
}

/* An injected error: the frame occupies the bus for its length, reaches no
 * receiver, the nodes that asked hear of the error at its end, and it goes
 * back to its sender's queue then (automatic retransmission). */
static rtcosim_status bus_corrupt_frame(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t sender,
                                        const can_pending *frame, rtcosim_error *err)
{
    bus->stats.bus_errors++;
    bus->retransmit_node = sender;
    bus->retransmit = *frame;
    rtcosim_can_bus_error e = {
        .frame = frame->frame, .sender = sender,
        .detector = rtcosim_can_error_detector(bus->config.error_code, sender,
                                               (uint32_t)bus->node_count),
        .code = bus->config.error_code};
    for (size_t i = 0; i < bus->node_count; i++) {
        if (!bus->nodes[i].notify_errors)
            continue;
        rtcosim_status st = rtcosim_lp_send(lp, bus->nodes[i].lp, frame->duration,
                                            RTCOSIM_CAN_EVENT_BUS_ERROR, CAN_RX_PRIORITY, &e,
                                            sizeof e, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return rtcosim_lp_send(lp, bus->lp, frame->duration, CAN_EVENT_FRAME_END, 0, NULL, 0, err);
}

/* The frame's TX request back in its node's queue, sorted by arbitration
 * (the controller sends its lowest identifier first; equal ones in order);
 * false when the queue is full. */
static bool queue_insert(rtcosim_can_bus *bus, can_node *n, const can_pending *p)
{
    if (n->queued == bus->config.tx_queue_capacity)
        return false;
    uint32_t i = n->queued;
    while (i > 0 && n->queue[i - 1].arbitration > p->arbitration) {
        n->queue[i] = n->queue[i - 1];
        i--;
    }
    n->queue[i] = *p;
    n->queued++;
    if (n->queued > bus->stats.max_queue)
        bus->stats.max_queue = n->queued;
    return true;
}

static rtcosim_status bus_send_frame(rtcosim_lp *lp, rtcosim_can_bus *bus, rtcosim_error *err)
{
    /* lowest arbitration key among the queue heads wins; node index breaks
     * the (misconfigured) tie of two nodes sending the same identifier */
    can_node *winner = NULL;
    uint32_t winner_index = 0;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (n->queued && (!winner || n->queue[0].arbitration < winner->queue[0].arbitration)) {
            winner = n;
            winner_index = (uint32_t)i;
        }
    }
    if (!winner)
        return RTCOSIM_OK;
    can_pending sent = winner->queue[0];
    memmove(&winner->queue[0], &winner->queue[1], (winner->queued - 1) * sizeof sent);
    winner->queued--;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    rtcosim_time_ns duration = sent.duration;
    /* The other nodes' heads contended and lost: those sent with
     * RTCOSIM_CAN_TX_DISCARD_ON_LOST leave the queue, their node hears of
     * it at the winner's end (the bus's lookahead to the nodes is a whole
     * frame); the others stay queued for the next arbitration. */
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (n == winner || !n->queued || !n->queue[0].discard_on_lost)
            continue;
        rtcosim_can_frame lost = n->queue[0].frame;
        memmove(&n->queue[0], &n->queue[1], (n->queued - 1) * sizeof *n->queue);
        n->queued--;
        bus->stats.arbitration_lost++;
        rtcosim_status st = rtcosim_lp_send(lp, n->lp, duration, RTCOSIM_CAN_EVENT_ARBITRATION_LOST,
                                            CAN_RX_PRIORITY, &lost, sizeof lost, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    bus->busy = true;
    bus->stats.busy_ns += duration;
    uint64_t started = bus->stats.frames + bus->stats.bus_errors + 1;
    if (bus->config.error_every && started % bus->config.error_every == 0)
        return bus_corrupt_frame(lp, bus, winner_index, &sent, err);
    bus->stats.frames++;
    atomic_store_explicit(&bus->frames_live, bus->stats.frames, memory_order_relaxed);
    if (now + duration - sent.requested > bus->stats.max_latency_ns)
        bus->stats.max_latency_ns = now + duration - sent.requested;
    rtcosim_can_rx rx = {.frame = sent.frame, .sender = winner_index, .start = now};
    uint32_t key = id_key(sent.frame.id, sent.frame.extended);
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (i == winner_index ? !n->confirm
                              : !n->rx_all && find_key(n->rx_keys, n->rx_count, key) < 0)
            continue;
        rtcosim_status st = rtcosim_lp_send(lp, n->lp, duration, RTCOSIM_CAN_EVENT_RX,
                                            CAN_RX_PRIORITY, &rx, sizeof rx, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (bus->config.log_frames && bus->config.log_capacity &&
        bus->log_count == bus->log_capacity)
        bus->stats.log_dropped++; /* a fixed log, full */
    else if (bus->config.log_frames) {
        if (!util_array_reserve(&bus->log, bus->log_count, &bus->log_capacity, sizeof *bus->log,
                                4096))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for"
                                     " the log", bus->name);
        bus->log[bus->log_count++] = (rtcosim_can_log_entry){
            .start = now, .end = now + duration, .frame = sent.frame, .sender = winner_index};
    }
    return rtcosim_lp_send(lp, bus->lp, duration, CAN_EVENT_FRAME_END, 0, NULL, 0, err);
}

static rtcosim_status bus_request_arbitration(rtcosim_lp *lp, rtcosim_can_bus *bus,
                                              rtcosim_error *err)
{
    if (bus->busy || bus->arbitration_pending)
        return RTCOSIM_OK;
    bus->arbitration_pending = true;
    /* zero delay: sorts after every request arriving at this instant, and
     * priority 1 after those a zero-delay chain brings at the same depth (a
     * request put in at this instant for an LS-BUS node's gateway, sent on
     * from its handler), so that all of an instant's requests contend */
    return rtcosim_lp_send(lp, bus->lp, 0, CAN_EVENT_ARBITRATE, 1, NULL, 0, err);
}

static rtcosim_status bus_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    rtcosim_can_bus *bus = state;
    switch (ev->type) {
    case CAN_EVENT_TX_REQUEST: {
        can_tx_request req;
        memcpy(&req, ev->payload, sizeof req);
        can_node *n = &bus->nodes[req.node];
        rtcosim_time_ns duration =
            (rtcosim_time_ns)rtcosim_can_frame_bits(&req.frame, bus->config.stuffing) * bus->bit_ns;
        bus->stats.offered_ns += duration;
        can_pending p = {rtcosim_can_arbitration_key(&req.frame), ev->time, duration, req.frame,
                         req.discard_on_lost};
        if (!queue_insert(bus, n, &p)) {
            bus->stats.dropped++;
            if (bus->stats.dropped == 1)
                rtcosim_log(RTCOSIM_LOG_WARNING, bus->name, "node '%s' transmit queue full (%"
                            PRIu32 " frames) at t=%.9f s: frame 0x%" PRIX32 " dropped", n->name,
                            n->queued, rtcosim_time_to_seconds(ev->time), req.frame.id);
            return RTCOSIM_OK;
        }
        return bus_request_arbitration(lp, bus, err);
    }
    case CAN_EVENT_ARBITRATE:
        bus->arbitration_pending = false;
        return bus_send_frame(lp, bus, err);
    case CAN_EVENT_FRAME_END:
        bus->busy = false;
        if (bus->retransmit_node >= 0) {
            if (!queue_insert(bus, &bus->nodes[bus->retransmit_node], &bus->retransmit))
                bus->stats.dropped++;
            bus->retransmit_node = -1;
        }
        return bus_request_arbitration(lp, bus, err);
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': unexpected event type %u",
                                 bus->name, ev->type);
    }
}

static rtcosim_status bus_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    rtcosim_can_bus *bus = state;
    if (!bus->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': not connected (call"
                                 " rtcosim_can_bus_connect after adding the nodes)", bus->name);
    rtcosim_can_bus_reset(bus);
    bus->start_time = rtcosim_lp_now(lp);
    return RTCOSIM_OK;
}

static rtcosim_status bus_final(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)err;
    rtcosim_can_bus *bus = state;
    rtcosim_time_ns elapsed = rtcosim_lp_now(lp) - bus->start_time;
    uint64_t queued = 0;
    for (size_t i = 0; i < bus->node_count; i++)
        queued += bus->nodes[i].queued;
    if ((elapsed > 0 && bus->stats.offered_ns > elapsed) || bus->stats.dropped)
        rtcosim_log(RTCOSIM_LOG_WARNING, bus->name, "overloaded: frames requested for %.1f %% of"
                    " the bus time, %" PRIu64 " still queued, %" PRIu64 " dropped",
                    elapsed > 0 ? 100.0 * (double)bus->stats.offered_ns / (double)elapsed : 0.0,
                    queued, bus->stats.dropped);
    return RTCOSIM_OK;
}

/* State saving for the speculative scheduler: the flags, statistics and log
 * length, then each node's queue length and queued frames only (most queues
 * are empty, so a snapshot is small next to the queues' capacity). The log's
 * entries past the saved length are rewritten by the re-executed events. */
typedef struct bus_snapshot_head {
    bool busy, arbitration_pending;
    int64_t retransmit_node;
    can_pending retransmit;
    size_t log_count;
    rtcosim_can_bus_stats stats;
} bus_snapshot_head;

static size_t bus_snapshot_max(const void *state)
{
    const rtcosim_can_bus *bus = state;
    return sizeof(bus_snapshot_head) +
           bus->node_count * (sizeof(uint32_t) + bus->config.tx_queue_capacity * sizeof(can_pending));
}

static rtcosim_status bus_save(const void *state, void *buffer, size_t capacity, size_t *used,
                               rtcosim_error *err)
{
    const rtcosim_can_bus *bus = state;
    if (capacity < bus_snapshot_max(bus))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': state buffer too small",
                                 bus->name);
    unsigned char *p = buffer;
    bus_snapshot_head h = {bus->busy, bus->arbitration_pending, bus->retransmit_node,
                           bus->retransmit, bus->log_count, bus->stats};
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (size_t i = 0; i < bus->node_count; i++) {
        const can_node *n = &bus->nodes[i];
        memcpy(p, &n->queued, sizeof n->queued);
        p += sizeof n->queued;
        memcpy(p, n->queue, n->queued * sizeof *n->queue);
        p += n->queued * sizeof *n->queue;
    }
    *used = (size_t)(p - (unsigned char *)buffer);
    return RTCOSIM_OK;
}

static rtcosim_status bus_restore(void *state, const void *buffer, size_t size,
                                  rtcosim_error *err)
{
    (void)size, (void)err;
    rtcosim_can_bus *bus = state;
    const unsigned char *p = buffer;
    bus_snapshot_head h;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    bus->busy = h.busy;
    bus->arbitration_pending = h.arbitration_pending;
    bus->retransmit_node = h.retransmit_node;
    bus->retransmit = h.retransmit;
    bus->log_count = h.log_count;
    bus->stats = h.stats;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        memcpy(&n->queued, p, sizeof n->queued);
        p += sizeof n->queued;
        memcpy(n->queue, p, n->queued * sizeof *n->queue);
        p += n->queued * sizeof *n->queue;
    }
    return RTCOSIM_OK;
}

static const rtcosim_lp_model bus_model = {
    .kind = "can-bus", .init = bus_init, .event = bus_event, .final = bus_final,
    .snapshot_max = bus_snapshot_max, .save = bus_save, .restore = bus_restore,
};

rtcosim_status rtcosim_can_bus_create(rtcosim_events *sim, const rtcosim_can_bus_config *config,
                                      rtcosim_can_bus **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_bus_config c = *config;
    if (!c.name || !*c.name)
        c.name = "can0";
    if (c.bitrate == 0)
        c.bitrate = 500000;
    if (c.tx_queue_capacity == 0)
        c.tx_queue_capacity = 64;
    if (c.error_every && c.error_code == 0)
        c.error_code = RTCOSIM_CAN_ERROR_CRC;
    if (c.error_code > RTCOSIM_CAN_ERROR_BROKEN_ERROR_FRAME)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': error code %u is not one of"
                                 " 1-6 (bit, stuff, form, CRC, ACK, broken error frame)", c.name,
                                 c.error_code);
    rtcosim_time_ns bit_ns;
    rtcosim_status st = rtcosim_can_bit_time(c.bitrate, &bit_ns, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s': ", c.name);
    rtcosim_can_bus *bus = calloc(1, sizeof *bus);
    if (!bus || !(bus->name = strdup(c.name))) {
        free(bus);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    }
    c.name = bus->name;
    bus->sim = sim;
    bus->config = c;
    bus->bit_ns = bit_ns;
    bus->retransmit_node = -1;
    if (c.log_frames && c.log_capacity &&
        !(bus->log = malloc(c.log_capacity * sizeof *bus->log))) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for a log of %zu "
                          "frames", bus->name, c.log_capacity);
        rtcosim_can_bus_free(bus);
        return RTCOSIM_ENOMEM;
    }
    bus->log_capacity = c.log_capacity;
    st = rtcosim_events_add_lp(sim, bus->name, &bus_model, bus, RTCOSIM_LP_NO_GROUP, &bus->lp, err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_bus_free(bus);
        return st;
    }
    *out = bus;
    return RTCOSIM_OK;
}

void rtcosim_can_bus_free(rtcosim_can_bus *bus)
{
    if (!bus)
        return;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        free(n->name);
        free(n->tx_keys);
        free(n->tx_dlc);
        free(n->rx_keys);
        free(n->queue);
    }
    free(bus->nodes);
    free(bus->log);
    free(bus->name);
    free(bus);
}

rtcosim_lp_id rtcosim_can_bus_lp(const rtcosim_can_bus *bus) { return bus->lp; }
const char *rtcosim_can_bus_name(const rtcosim_can_bus *bus) { return bus->name; }
rtcosim_time_ns rtcosim_can_bus_min_frame_time(const rtcosim_can_bus *bus) { return bus->min_frame; }

rtcosim_status rtcosim_can_bus_add_node(rtcosim_can_bus *bus, const char *name, rtcosim_lp_id lp,
                                        rtcosim_time_ns tx_lookahead, uint32_t *node,
                                        rtcosim_error *err)
{
    if (bus->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': node '%s' added after"
                                 " connect", bus->name, name ? name : "?");
    if (!name || !*name || tx_lookahead < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': a node needs a name and a"
                                 " non-negative transmit lookahead", bus->name);
    if (!util_array_reserve(&bus->nodes, bus->node_count, &bus->node_capacity, sizeof *bus->nodes,
                            8))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    can_node *n = &bus->nodes[bus->node_count];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    n->queue = calloc(bus->config.tx_queue_capacity, sizeof *n->queue);
    if (!n->name || !n->queue) {
        free(n->name);
        free(n->queue);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    }
    n->lp = lp;
    n->tx_lookahead = tx_lookahead;
    if (node)
        *node = (uint32_t)bus->node_count;
    bus->node_count++;
    return RTCOSIM_OK;
}

static rtcosim_status check_node(rtcosim_can_bus *bus, uint32_t node, uint32_t id, bool extended,
                                 uint8_t dlc, rtcosim_error *err)
{
    if (node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': no node %" PRIu32,
                                 bus->name, node);
    if (bus->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': database of node '%s'"
                                 " changed after connect", bus->name, bus->nodes[node].name);
    rtcosim_can_frame f = {.id = id, .extended = extended, .dlc = dlc};
    rtcosim_status st = rtcosim_can_frame_check(&f, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s', node '%s': ", bus->name,
                                    bus->nodes[node].name);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_add_tx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, uint8_t dlc, rtcosim_error *err)
{
    rtcosim_status st = check_node(bus, node, id, extended, dlc, err);
    if (st != RTCOSIM_OK)
        return st;
    uint32_t key = id_key(id, extended);
    for (size_t i = 0; i < bus->node_count; i++)
        for (size_t k = 0; k < bus->nodes[i].tx_count; k++)
            if (bus->nodes[i].tx_keys[k] == key)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': id 0x%" PRIX32
                                         " sent by both '%s' and '%s' (arbitration needs unique"
                                         " identifiers)", bus->name, id, bus->nodes[i].name,
                                         bus->nodes[node].name);
    can_node *n = &bus->nodes[node];
    /* Parallel arrays: the capacity counts only once both have grown. */
    size_t key_capacity = n->tx_capacity, dlc_capacity = n->tx_capacity;
    if (!util_array_reserve(&n->tx_keys, n->tx_count, &key_capacity, sizeof *n->tx_keys, 8) ||
        !util_array_reserve(&n->tx_dlc, n->tx_count, &dlc_capacity, sizeof *n->tx_dlc, 8))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    n->tx_capacity = key_capacity;
    n->tx_keys[n->tx_count] = key;
    n->tx_dlc[n->tx_count] = dlc;
    n->tx_count++;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_add_rx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, rtcosim_error *err)
{
    rtcosim_status st = check_node(bus, node, id, extended, 0, err);
    if (st != RTCOSIM_OK)
        return st;
    can_node *n = &bus->nodes[node];
    if (!util_array_reserve(&n->rx_keys, n->rx_count, &n->rx_capacity, sizeof *n->rx_keys, 8))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    n->rx_keys[n->rx_count++] = id_key(id, extended);
    return RTCOSIM_OK;
}

uint32_t rtcosim_can_bus_bitrate(const rtcosim_can_bus *bus)
{
    return bus->config.bitrate ? bus->config.bitrate : 500000;
}

rtcosim_status rtcosim_can_bus_add_rx_all(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err)
{
    if (bus->connected || node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': receive-all needs a node "
                                 "added before connect", bus->name);
    bus->nodes[node].rx_all = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_tx_any(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err)
{
    if (bus->connected || node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': a node sending any "
                                 "identifier must be added before connect", bus->name);
    bus->nodes[node].tx_any = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_confirm_own(rtcosim_can_bus *bus, uint32_t node,
                                          rtcosim_error *err)
{
    if (bus->connected || node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': confirmations need a node "
                                 "added before connect", bus->name);
    bus->nodes[node].confirm = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_notify_errors(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_error *err)
{
    if (bus->connected || node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': error notifications need a "
                                 "node added before connect", bus->name);
    bus->nodes[node].notify_errors = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_connect(rtcosim_can_bus *bus, rtcosim_error *err)
{
    if (bus->connected)
        return RTCOSIM_OK;
    rtcosim_time_ns min_frame = RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        /* sort TX keys together with their DLCs (small: insertion sort) */
        for (size_t a = 1; a < n->tx_count; a++)
            for (size_t b = a; b > 0 && n->tx_keys[b - 1] > n->tx_keys[b]; b--) {
                uint32_t k = n->tx_keys[b];
                n->tx_keys[b] = n->tx_keys[b - 1];
                n->tx_keys[b - 1] = k;
                uint8_t d = n->tx_dlc[b];
                n->tx_dlc[b] = n->tx_dlc[b - 1];
                n->tx_dlc[b - 1] = d;
            }
        if (n->rx_count)
            qsort(n->rx_keys, n->rx_count, sizeof *n->rx_keys, compare_u32);
        for (size_t k = 0; k < n->tx_count; k++) {
            /* unstuffed length: a lower bound whatever the content */
            rtcosim_time_ns t = (rtcosim_time_ns)((n->tx_keys[k] >> 31 ? 67 : 47) +
                                                  8 * n->tx_dlc[k]) * bus->bit_ns;
            if (t < min_frame)
                min_frame = t;
        }
    }
    bool any = false;
    for (size_t i = 0; i < bus->node_count; i++)
        any = any || bus->nodes[i].tx_any;
    /* nobody sends, or a node may send anything: the shortest frame there
     * is, a standard one without data */
    if (min_frame == RTCOSIM_TIME_MAX || any)
        min_frame = 47 * bus->bit_ns;
    bus->min_frame = min_frame;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        rtcosim_status st = RTCOSIM_OK;
        if (n->tx_count || n->tx_any)
            st = rtcosim_events_add_link(bus->sim, n->lp, bus->lp, n->tx_lookahead, err);
        if (st == RTCOSIM_OK && (n->rx_count || n->rx_all || n->notify_errors ||
                                 (n->confirm && (n->tx_count || n->tx_any))))
            st = rtcosim_events_add_link(bus->sim, bus->lp, n->lp, min_frame, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "can bus '%s': ", bus->name);
    }
    bus->connected = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_transmit(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                    const rtcosim_can_frame *frame, rtcosim_time_ns delay,
                                    rtcosim_error *err)
{
    return rtcosim_can_transmit_flags(lp, bus, node, frame, delay, 0, err);
}

rtcosim_status rtcosim_can_transmit_flags(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                          const rtcosim_can_frame *frame, rtcosim_time_ns delay,
                                          unsigned flags, rtcosim_error *err)
{
    const bool discard = (flags & RTCOSIM_CAN_TX_DISCARD_ON_LOST) != 0;
    if (node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': no node %" PRIu32,
                                 bus->name, node);
    const can_node *n = &bus->nodes[node];
    rtcosim_status st = rtcosim_can_frame_check(frame, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s', node '%s': ", bus->name, n->name);
    long k = find_key(n->tx_keys, n->tx_count, id_key(frame->id, frame->extended));
    if (k < 0 && n->tx_any) {
        can_tx_request req = {.frame = *frame, .node = node, .discard_on_lost = discard};
        return rtcosim_lp_send(lp, bus->lp, delay, CAN_EVENT_TX_REQUEST, 0, &req, sizeof req, err);
    }
    if (k < 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "can bus '%s': node '%s' sends id 0x%"
                                 PRIX32 " that is not in its TX database", bus->name, n->name,
                                 frame->id);
    if (n->tx_dlc[k] != frame->dlc)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': node '%s' sends id 0x%"
                                 PRIX32 " with %u bytes, its TX database says %u", bus->name,
                                 n->name, frame->id, frame->dlc, n->tx_dlc[k]);
    can_tx_request req = {.frame = *frame, .node = node, .discard_on_lost = discard};
    return rtcosim_lp_send(lp, bus->lp, delay, CAN_EVENT_TX_REQUEST, 0, &req, sizeof req, err);
}

const rtcosim_can_rx *rtcosim_can_rx_of(const rtcosim_event *ev)
{
    return ev->type == RTCOSIM_CAN_EVENT_RX && ev->size == sizeof(rtcosim_can_rx)
               ? (const rtcosim_can_rx *)(const void *)ev->payload : NULL;
}

const rtcosim_can_bus_error *rtcosim_can_bus_error_of(const rtcosim_event *ev)
{
    return ev->type == RTCOSIM_CAN_EVENT_BUS_ERROR && ev->size == sizeof(rtcosim_can_bus_error)
               ? (const rtcosim_can_bus_error *)(const void *)ev->payload : NULL;
}

void rtcosim_can_bus_reset(rtcosim_can_bus *bus)
{
    memset(&bus->stats, 0, sizeof bus->stats);
    atomic_store_explicit(&bus->frames_live, 0, memory_order_relaxed);
    bus->log_count = 0;
    bus->busy = bus->arbitration_pending = false;
    bus->retransmit_node = -1;
    for (size_t i = 0; i < bus->node_count; i++)
        bus->nodes[i].queued = 0;
}

uint64_t rtcosim_can_bus_frames_live(const rtcosim_can_bus *bus)
{
    return atomic_load_explicit(&((rtcosim_can_bus *)bus)->frames_live, memory_order_relaxed);
}

void rtcosim_can_bus_stats_get(const rtcosim_can_bus *bus, rtcosim_time_ns elapsed,
                               rtcosim_can_bus_stats *stats)
{
    *stats = bus->stats;
    stats->queued_at_end = 0;
    for (size_t i = 0; i < bus->node_count; i++)
        stats->queued_at_end += bus->nodes[i].queued;
    stats->load = elapsed > 0 ? (double)stats->busy_ns / (double)elapsed : 0.0;
    stats->offered_load = elapsed > 0 ? (double)stats->offered_ns / (double)elapsed : 0.0;
    stats->overloaded = stats->offered_load > 1.0 || stats->dropped > 0;
}

size_t rtcosim_can_bus_log_count(const rtcosim_can_bus *bus) { return bus->log_count; }
const rtcosim_can_log_entry *rtcosim_can_bus_log(const rtcosim_can_bus *bus) { return bus->log; }

rtcosim_status rtcosim_can_bus_write_log(const rtcosim_can_bus *bus, const char *path,
                                         rtcosim_error *err)
{
    return rtcosim_can_log_write(bus->log, bus->log_count, bus->name,
                                 rtcosim_can_log_format_of(path), path, err);
}
