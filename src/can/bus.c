/* The CAN bus as an LP: nodes queue frames (TX request events), the bus
 * arbitrates by identifier whenever it becomes idle (requests that arrive at
 * the same instant, or during a frame, contend together at its end), sends
 * each frame's end to the nodes whose receive database accepts it, and keeps
 * load statistics and an optional log. Classic, CAN FD and CAN XL frames;
 * the bodies of the latter two in the bus's arena (bus_arena.c). */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "rtcosim/log.h"
#include "util/array.h"
#include "bus_internal.h"

enum {
    CAN_EVENT_TX_REQUEST = 0xCA01,
    CAN_EVENT_ARBITRATE = 0xCA02,
    CAN_EVENT_FRAME_END = 0xCA03,
    CAN_EVENT_STATE = 0xCA07,          /* payload: can_state_report */
    CAN_EVENT_WAKEUP_REQUEST = 0xCA08, /* payload: the sender's index (uint32_t) */
};

typedef struct can_state_report {
    uint32_t node;
    uint32_t state; /* RTCOSIM_CAN_STATE_* */
} can_state_report;

/* Priority of received frames at a node: after plant inputs (0), before
 * task releases (2), so that a task released at the end of a frame sees it. */
#define CAN_RX_PRIORITY 1

#define DEFAULT_FD_BITRATE 2000000u  /* as src/lsbus/can_bridge.c */
#define DEFAULT_XL_BITRATE 10000000u

typedef struct can_tx_request {
    can_ref ref;
    uint32_t node;
    uint32_t discard_on_lost; /* RTCOSIM_CAN_TX_DISCARD_ON_LOST */
} can_tx_request;

uint32_t rtcosim_can_error_detector(uint8_t code, uint32_t sender, uint32_t node_count)
{
    if (code == RTCOSIM_CAN_ERROR_BIT || code == RTCOSIM_CAN_ERROR_ACK || node_count < 2)
        return sender;
    return sender == 0 ? 1 : 0;
}

rtcosim_status can_frame_check_any(const rtcosim_can_any_frame *f, rtcosim_error *err)
{
    switch (f->format) {
    case RTCOSIM_CAN_FORMAT_CLASSIC: {
        rtcosim_can_frame c = {.id = f->id, .extended = f->extended,
                               .dlc = f->length > 255 ? 255 : (uint8_t)f->length};
        return rtcosim_can_frame_check(&c, err);
    }
    case RTCOSIM_CAN_FORMAT_FD: {
        uint32_t max = f->extended ? RTCOSIM_CAN_EXT_ID_MAX : RTCOSIM_CAN_STD_ID_MAX;
        if (rtcosim_can_fd_dlc(f->length) < 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "can fd frame 0x%" PRIX32 ": %u data"
                                     " bytes is not a CAN FD length (0-8, 12, 16, 20, 24, 32, 48,"
                                     " 64)", f->id, f->length);
        if (f->id > max)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "can fd frame 0x%" PRIX32 ": identifier"
                                     " beyond the %s range 0x%" PRIX32, f->id,
                                     f->extended ? "29-bit" : "11-bit", max);
        return RTCOSIM_OK;
    }
    case RTCOSIM_CAN_FORMAT_XL: {
        uint32_t nominal, data;
        if (f->extended)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "can xl frame 0x%" PRIX32 ": CAN XL has"
                                     " an 11-bit priority identifier, not an extended one", f->id);
        return rtcosim_can_xl_frame_bits(f->id, f->length, &nominal, &data, err);
    }
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can frame 0x%" PRIX32 ": format %u is"
                                 " none of classic (0), CAN FD (1), CAN XL (2)", f->id, f->format);
    }
}

/* The arbitration field, lower wins (dominant 0 first): src/can's key
 * (base ID, RTR/RRS vs SRR, IDE, the extension), then the two bits where
 * the formats part (ISO 11898-1:2015 and :2024): after IDE (base) or the
 * extension's RTR/RRS (extended) a classic frame sends r0/r1 dominant, a
 * CAN FD or XL frame FDF recessive; after FDF an FD frame sends res
 * dominant, an XL frame XLF recessive. So of equal identifiers classic
 * beats FD beats XL. Strictly those bits follow the arbitration field, and
 * the loser sees a bit error there rather than a lost arbitration (ISO
 * 11898-1 forbids two nodes one identifier); on the wire the dominant bit
 * stands, which is what the order models. An RRS or RTR is dominant in a
 * data frame; CAN XL frames are base-format frames of their priority id. */
static uint64_t arbitration_key(const can_ref *r)
{
    uint64_t format = r->format == RTCOSIM_CAN_FORMAT_FD   ? 2u
                      : r->format == RTCOSIM_CAN_FORMAT_XL ? 3u
                                                           : 0u;
    return rtcosim_can_arbitration_key(&r->frame) << 2 | format;
}

/* A frame's time on the wire: classic with the configured stuffing; CAN FD
 * its nominal bits at the bit rate and, with BRS, its data phase (ESI
 * through the CRC field) at the FD data rate (rtcosim_can_fd_frame_bits,
 * stuff bits of its actual content); CAN XL its arbitration phase and tail
 * at the bit rate, its data phase (DH1 through FCP) at the XL data rate
 * (rtcosim_can_xl_frame_bits). */
static rtcosim_time_ns frame_duration(rtcosim_can_bus *bus, const can_ref *r)
{
    if (r->format == RTCOSIM_CAN_FORMAT_XL) {
        uint32_t nominal = 0, data = 0;
        rtcosim_error ignored;
        (void)rtcosim_can_xl_frame_bits(r->frame.id, r->length, &nominal, &data, &ignored);
        return (rtcosim_time_ns)nominal * bus->bit_ns + (rtcosim_time_ns)data * bus->xl_bit_ns;
    }
    if (r->format == RTCOSIM_CAN_FORMAT_FD) {
        rtcosim_can_fd_frame f = {.id = r->frame.id, .extended = r->frame.extended,
                                  .brs = (r->flags & RTCOSIM_CAN_FD_BRS) != 0,
                                  .esi = (r->flags & RTCOSIM_CAN_FD_ESI) != 0,
                                  .length = (uint8_t)r->length};
        memcpy(f.data, can_arena_at(&bus->arena, r->body, r->length), r->length);
        uint32_t nominal = 0, data = 0;
        rtcosim_error ignored;
        (void)rtcosim_can_fd_frame_bits(&f, &nominal, &data, &ignored); /* checked at transmit */
        return (rtcosim_time_ns)nominal * bus->bit_ns + (rtcosim_time_ns)data * bus->fd_bit_ns;
    }
    return (rtcosim_time_ns)rtcosim_can_frame_bits(&r->frame, bus->config.stuffing) * bus->bit_ns;
}

/* An injected error: the frame occupies the bus for its length, reaches no
 * receiver, the nodes that asked (and can carry its format) hear of the
 * error at its end, and it goes back to its sender's queue then (automatic
 * retransmission). */
static rtcosim_status bus_corrupt_frame(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t sender,
                                        const can_pending *frame, rtcosim_error *err)
{
    bus->stats.bus_errors++;
    bus->retransmit_node = sender;
    bus->retransmit = *frame;
    rtcosim_can_bus_error e;
    memset(&e, 0, sizeof e);
    e.frame = frame->ref.frame;
    e.sender = sender;
    e.detector = rtcosim_can_error_detector(bus->config.error_code, sender,
                                            (uint32_t)bus->node_count);
    e.code = bus->config.error_code;
    const bool classic = frame->ref.format == RTCOSIM_CAN_FORMAT_CLASSIC;
    for (size_t i = 0; i < bus->node_count; i++) {
        if (!bus->nodes[i].notify_errors || (!classic && !bus->nodes[i].fd_xl))
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

/* Whether node i gets the frame node `sender` sends: its own back when it
 * asked for Confirms; another's when it receives every frame, or when it
 * is a classic controller whose receive database holds a classic frame's
 * identifier (CAN FD and XL frames it ignores: an FD-tolerant controller). */
static bool receives(const can_node *n, size_t i, uint32_t sender, const can_ref *r)
{
    if (i == sender)
        return n->confirm;
    if (n->rx_all)
        return true;
    return r->format == RTCOSIM_CAN_FORMAT_CLASSIC &&
           can_keys_hold(n->rx_keys, n->rx_count, can_id_key(r->frame.id, r->frame.extended));
}

static rtcosim_status bus_send_frame(rtcosim_lp *lp, rtcosim_can_bus *bus, rtcosim_error *err)
{
    /* lowest arbitration key among the queue heads wins, an error-active
     * node's before an error-passive one's (it waits the suspend-transmission
     * time, ISO 11898-1; src/lsbus/can_bridge.c's ranks_before), a bus-off
     * node's not at all; node index breaks the (misconfigured) tie of two
     * nodes sending the same identifier */
    can_node *winner = NULL;
    uint32_t winner_index = 0;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (!n->queued || n->state == RTCOSIM_CAN_STATE_BUS_OFF)
            continue;
        bool passive = n->state == RTCOSIM_CAN_STATE_ERROR_PASSIVE;
        bool winner_passive = winner && winner->state == RTCOSIM_CAN_STATE_ERROR_PASSIVE;
        if (!winner || (passive != winner_passive
                            ? !passive
                            : n->queue[0].arbitration < winner->queue[0].arbitration)) {
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
    /* read by the receivers (and a retransmission's queue) until its end */
    can_arena_hold(&bus->arena, sent.ref.body, sent.ref.length, now + duration);
    /* The other nodes' heads contended and lost: those sent with
     * RTCOSIM_CAN_TX_DISCARD_ON_LOST leave the queue, their node hears of
     * it at the winner's end (the bus's lookahead to the nodes is a whole
     * frame); the others stay queued for the next arbitration. */
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (n == winner || !n->queued || !n->queue[0].discard_on_lost ||
            n->state == RTCOSIM_CAN_STATE_BUS_OFF)
            continue;
        rtcosim_can_frame lost = n->queue[0].ref.frame;
        can_arena_hold(&bus->arena, n->queue[0].ref.body, n->queue[0].ref.length, now);
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
    rtcosim_can_rx rx;
    memset(&rx, 0, sizeof rx);
    rx.frame = sent.ref.frame;
    rx.sender = winner_index;
    rx.start = now;
    if (sent.ref.format != RTCOSIM_CAN_FORMAT_CLASSIC) {
        rx.format = sent.ref.format;
        rx.flags = sent.ref.flags;
        rx.sdt = sent.ref.sdt;
        rx.vcid = sent.ref.vcid;
        rx.af = sent.ref.af;
        rx.length = sent.ref.length;
        rx.data = can_arena_at(&bus->arena, sent.ref.body, sent.ref.length);
    }
    /* no Confirm when every other node is bus-off (LS-BUS 1.0 section
     * 5.5.1.5, as the bridge) */
    bool someone_listens = false;
    for (size_t i = 0; i < bus->node_count && !someone_listens; i++)
        someone_listens = i != winner_index && bus->nodes[i].state != RTCOSIM_CAN_STATE_BUS_OFF;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (!receives(n, i, winner_index, &sent.ref) || (i == winner_index && !someone_listens))
            continue;
        rtcosim_status st = rtcosim_lp_send(lp, n->lp, duration, RTCOSIM_CAN_EVENT_RX,
                                            CAN_RX_PRIORITY, &rx, sizeof rx, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (bus->config.log_frames && bus->config.log_capacity &&
        can_bus_log_held(bus) == bus->log_capacity)
        bus->stats.log_dropped++; /* a fixed log, full */
    else if (bus->config.log_frames) {
        rtcosim_status st = can_bus_log_frame(bus, now, now + duration, winner_index, &sent.ref, err);
        if (st != RTCOSIM_OK)
            return st;
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
        if (n->state == RTCOSIM_CAN_STATE_BUS_OFF) {
            /* a bus-off controller sends nothing (LS-BUS 1.0 section 5.5.1.2,
             * Status): dropped and counted, as the bridge does */
            bus->stats.dropped++;
            bus->stats.bus_off_dropped++;
            return RTCOSIM_OK;
        }
        rtcosim_time_ns duration = frame_duration(bus, &req.ref);
        bus->stats.offered_ns += duration;
        can_pending p;
        memset(&p, 0, sizeof p);
        p.arbitration = arbitration_key(&req.ref);
        p.requested = ev->time;
        p.duration = duration;
        p.ref = req.ref;
        p.discard_on_lost = req.discard_on_lost != 0;
        if (!queue_insert(bus, n, &p)) {
            bus->stats.dropped++;
            if (bus->stats.dropped == 1)
                rtcosim_log(RTCOSIM_LOG_WARNING, bus->name, "node '%s' transmit queue full (%"
                            PRIu32 " frames) at t=%.9f s: frame 0x%" PRIX32 " dropped", n->name,
                            n->queued, rtcosim_time_to_seconds(ev->time), req.ref.frame.id);
            return RTCOSIM_OK;
        }
        return bus_request_arbitration(lp, bus, err);
    }
    case CAN_EVENT_STATE: {
        can_state_report r;
        memcpy(&r, ev->payload, sizeof r);
        can_node *n = &bus->nodes[r.node];
        n->state = (uint8_t)r.state;
        /* back from bus-off: what it queued before contends again */
        return n->queued && n->state != RTCOSIM_CAN_STATE_BUS_OFF
                   ? bus_request_arbitration(lp, bus, err)
                   : RTCOSIM_OK;
    }
    case CAN_EVENT_WAKEUP_REQUEST: {
        uint32_t sender;
        memcpy(&sender, ev->payload, sizeof sender);
        for (size_t i = 0; i < bus->node_count; i++) {
            if (i == sender || !bus->nodes[i].controls)
                continue;
            rtcosim_status st = rtcosim_lp_send(lp, bus->nodes[i].lp, bus->min_frame,
                                                RTCOSIM_CAN_EVENT_WAKEUP, CAN_RX_PRIORITY, &sender,
                                                sizeof sender, err);
            if (st != RTCOSIM_OK)
                return st;
        }
        return RTCOSIM_OK;
    }
    case CAN_EVENT_ARBITRATE:
        bus->arbitration_pending = false;
        return bus_send_frame(lp, bus, err);
    case CAN_EVENT_FRAME_END:
        bus->busy = false;
        if (bus->retransmit_node >= 0) {
            if (!queue_insert(bus, &bus->nodes[bus->retransmit_node], &bus->retransmit)) {
                bus->stats.dropped++;
                can_arena_hold(&bus->arena, bus->retransmit.ref.body, bus->retransmit.ref.length,
                               ev->time);
            }
            bus->retransmit_node = -1;
        }
        return bus_request_arbitration(lp, bus, err);
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': unexpected event type %u",
                                 bus->name, ev->type);
    }
}

/* The run's state back to empty (not the arena: other LPs' init handlers,
 * on other threads, may be writing frames into it already). */
static void bus_clear(rtcosim_can_bus *bus)
{
    memset(&bus->stats, 0, sizeof bus->stats);
    atomic_store_explicit(&bus->frames_live, 0, memory_order_relaxed);
    bus->log_count = bus->log_total = bus->log_written = 0;
    bus->log_store_used = 0;
    bus->log_digest = UINT64_C(0xCBF29CE484222325);
    bus->busy = bus->arbitration_pending = false;
    bus->retransmit_node = -1;
    for (size_t i = 0; i < bus->node_count; i++) {
        bus->nodes[i].queued = 0;
        bus->nodes[i].state = RTCOSIM_CAN_STATE_ERROR_ACTIVE;
    }
}

static rtcosim_status bus_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    rtcosim_can_bus *bus = state;
    if (!bus->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': not connected (call"
                                 " rtcosim_can_bus_connect after adding the nodes)", bus->name);
    bus_clear(bus);
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
    if ((elapsed > 0 && bus->stats.offered_ns > elapsed) ||
        bus->stats.dropped > bus->stats.bus_off_dropped)
        rtcosim_log(RTCOSIM_LOG_WARNING, bus->name, "overloaded: frames requested for %.1f %% of"
                    " the bus time, %" PRIu64 " still queued, %" PRIu64 " dropped",
                    elapsed > 0 ? 100.0 * (double)bus->stats.offered_ns / (double)elapsed : 0.0,
                    queued, bus->stats.dropped);
    return RTCOSIM_OK;
}

/* State saving for the speculative scheduler: the flags, statistics and log
 * length (absolute: entries written to the stream counted), then each node's controller state, queue length and queued frames
 * only (most queues are empty, so a snapshot is small next to the queues'
 * capacity). The log's
 * entries past the saved length are rewritten by the re-executed events.
 * The arena is not saved: a chunk goes back only once no state a rollback
 * can restore refers to it (bus_internal.h), so a queued frame's offset
 * finds its bytes after any rollback. */
typedef struct bus_snapshot_head {
    bool busy, arbitration_pending;
    int64_t retransmit_node;
    can_pending retransmit;
    size_t log_count, log_total;
    uint64_t log_digest, log_store_used;
    rtcosim_can_bus_stats stats;
} bus_snapshot_head;

static size_t bus_snapshot_max(const void *state)
{
    const rtcosim_can_bus *bus = state;
    return sizeof(bus_snapshot_head) +
           bus->node_count * (1 + sizeof(uint32_t) +
                              bus->config.tx_queue_capacity * sizeof(can_pending));
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
                           bus->retransmit, bus->log_count, bus->log_total,
                           bus->log_digest, bus->log_store_used, bus->stats};
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (size_t i = 0; i < bus->node_count; i++) {
        const can_node *n = &bus->nodes[i];
        *p++ = n->state;
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
    /* a rollback takes the log back to an earlier length; a state from
     * another rank (the gather) counts entries this process never wrote,
     * which it cannot show: it keeps only what it holds, and the digest */
    if (h.log_count < bus->log_count) {
        bus->log_count = h.log_count;
        if (h.log_store_used < bus->log_store_used)
            bus->log_store_used = h.log_store_used;
    }
    bus->log_total = h.log_total;
    bus->log_digest = h.log_digest;
    bus->stats = h.stats;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        n->state = *p++;
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
    .commit = can_bus_commit,
};

rtcosim_status rtcosim_can_bus_create(rtcosim_events *sim, const rtcosim_can_bus_config *config,
                                      rtcosim_can_bus **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_bus_config c = *config;
    if (c.log_digest_only)
        c.log_frames = true;
    if (!c.name || !*c.name)
        c.name = "can0";
    if (c.bitrate == 0)
        c.bitrate = 500000;
    if (c.fd_bitrate == 0)
        c.fd_bitrate = DEFAULT_FD_BITRATE;
    if (c.xl_bitrate == 0)
        c.xl_bitrate = DEFAULT_XL_BITRATE;
    if (c.tx_queue_capacity == 0)
        c.tx_queue_capacity = 64;
    if (c.error_every && c.error_code == 0)
        c.error_code = RTCOSIM_CAN_ERROR_CRC;
    if (c.error_code > RTCOSIM_CAN_ERROR_BROKEN_ERROR_FRAME)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': error code %u is not one of"
                                 " 1-6 (bit, stuff, form, CRC, ACK, broken error frame)", c.name,
                                 c.error_code);
    if (c.fd_bitrate < c.bitrate || c.xl_bitrate < c.bitrate)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': the data phase's bit rate"
                                 " (CAN FD %" PRIu32 ", CAN XL %" PRIu32 " bit/s) is below the"
                                 " nominal %" PRIu32 " bit/s", c.name, c.fd_bitrate,
                                 c.xl_bitrate, c.bitrate);
    rtcosim_time_ns bit_ns, fd_bit_ns, xl_bit_ns;
    rtcosim_status st = rtcosim_can_bit_time(c.bitrate, &bit_ns, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bit_time(c.fd_bitrate, &fd_bit_ns, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bit_time(c.xl_bitrate, &xl_bit_ns, err);
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
    bus->fd_bit_ns = fd_bit_ns;
    bus->xl_bit_ns = xl_bit_ns;
    bus->retransmit_node = -1;
    if (c.log_frames && c.log_capacity &&
        !(bus->log = malloc(c.log_capacity * sizeof *bus->log))) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for a log of %zu "
                          "frames", bus->name, c.log_capacity);
        rtcosim_can_bus_free(bus);
        return RTCOSIM_ENOMEM;
    }
    bus->log_capacity = c.log_capacity;
    if (c.frame_bytes_reserve &&
        (can_arena_reserve(&bus->arena, c.frame_bytes_reserve, bus->name, err) != RTCOSIM_OK ||
         can_arena_start_ahead(&bus->arena, bus->name, err) != RTCOSIM_OK)) {
        rtcosim_can_bus_free(bus);
        return RTCOSIM_ENOMEM;
    }
    /* a real-time run's held log: its frames' bodies get room now too */
    if (c.frame_bytes_reserve && c.log_frames && c.log_capacity &&
        !can_bus_log_store_reserve(bus, c.frame_bytes_reserve)) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for the log's frame"
                          " bytes", bus->name);
        rtcosim_can_bus_free(bus);
        return RTCOSIM_ENOMEM;
    }
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
        free(n->tx);
        free(n->rx_keys);
        free(n->queue);
    }
    free(bus->nodes);
    free(bus->log);
    can_bus_log_store_free(bus);
    can_arena_free(&bus->arena);
    free(bus->name);
    free(bus);
}

rtcosim_lp_id rtcosim_can_bus_lp(const rtcosim_can_bus *bus) { return bus->lp; }
const char *rtcosim_can_bus_name(const rtcosim_can_bus *bus) { return bus->name; }

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
    rtcosim_can_any_frame f = {.format = RTCOSIM_CAN_FORMAT_CLASSIC, .id = frame->id,
                               .extended = frame->extended, .length = frame->dlc,
                               .data = frame->data};
    return rtcosim_can_transmit_any(lp, bus, node, &f, delay, flags, err);
}

rtcosim_status rtcosim_can_transmit_any(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                        const rtcosim_can_any_frame *frame, rtcosim_time_ns delay,
                                        unsigned flags, rtcosim_error *err)
{
    if (node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': no node %" PRIu32,
                                 bus->name, node);
    const can_node *n = &bus->nodes[node];
    rtcosim_status st = can_frame_check_any(frame, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s', node '%s': ", bus->name, n->name);
    const can_tx_entry *e = can_node_tx_entry(n, can_id_key(frame->id, frame->extended));
    static const char *const format_names[] = {"classic", "CAN FD", "CAN XL"};
    if (!e && !n->tx_any)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "can bus '%s': node '%s' sends id 0x%"
                                 PRIX32 " that is not in its TX database", bus->name, n->name,
                                 frame->id);
    if (e && (e->format != frame->format ||
              (e->upto ? frame->length > e->length : e->length != frame->length)))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': node '%s' sends id 0x%"
                                 PRIX32 " as a %s frame of %u bytes, its TX database says %s, %s%u",
                                 bus->name, n->name, frame->id, format_names[frame->format],
                                 frame->length, format_names[e->format], e->upto ? "up to " : "",
                                 e->length);
    can_tx_request req;
    memset(&req, 0, sizeof req);
    req.node = node;
    req.discard_on_lost = (flags & RTCOSIM_CAN_TX_DISCARD_ON_LOST) != 0;
    req.ref.frame.id = frame->id;
    req.ref.frame.extended = frame->extended;
    req.ref.format = frame->format;
    if (frame->format == RTCOSIM_CAN_FORMAT_CLASSIC) {
        req.ref.frame.dlc = (uint8_t)frame->length;
        if (frame->length)
            memcpy(req.ref.frame.data, frame->data, frame->length);
    } else {
        req.ref.flags = frame->flags;
        req.ref.sdt = frame->sdt;
        req.ref.vcid = frame->vcid;
        req.ref.af = frame->af;
        req.ref.length = frame->length;
        st = can_arena_put(&bus->arena, frame->data, frame->length, rtcosim_lp_now(lp) + delay,
                           &req.ref.body, bus->name, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return rtcosim_lp_send(lp, bus->lp, delay, CAN_EVENT_TX_REQUEST, 0, &req, sizeof req, err);
}

static rtcosim_status check_controls(const rtcosim_can_bus *bus, uint32_t node, const char *what,
                                     rtcosim_error *err)
{
    if (node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': no node %" PRIu32,
                                 bus->name, node);
    if (!bus->nodes[node].controls)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': node '%s' sends %s but was"
                                 " not declared with rtcosim_can_bus_node_controls", bus->name,
                                 bus->nodes[node].name, what);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_send_state(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                      uint8_t state, rtcosim_time_ns delay, rtcosim_error *err)
{
    rtcosim_status st = check_controls(bus, node, "its controller state", err);
    if (st != RTCOSIM_OK)
        return st;
    if (state < RTCOSIM_CAN_STATE_ERROR_ACTIVE || state > RTCOSIM_CAN_STATE_BUS_OFF)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': node '%s' reports state %u,"
                                 " none of error-active (1), error-passive (2), bus-off (3)",
                                 bus->name, bus->nodes[node].name, state);
    can_state_report r = {node, state};
    return rtcosim_lp_send(lp, bus->lp, delay, CAN_EVENT_STATE, 0, &r, sizeof r, err);
}

rtcosim_status rtcosim_can_send_wakeup(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                       rtcosim_time_ns delay, rtcosim_error *err)
{
    rtcosim_status st = check_controls(bus, node, "a wake-up", err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_lp_send(lp, bus->lp, delay, CAN_EVENT_WAKEUP_REQUEST, 0, &node, sizeof node,
                           err);
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
    bus_clear(bus);
    can_arena_reset(&bus->arena);
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
    stats->overloaded = stats->offered_load > 1.0 || stats->dropped > stats->bus_off_dropped;
    stats->frame_bytes_chunks_inline =
        atomic_load_explicit(&bus->arena.inline_chunks, memory_order_relaxed);
    stats->frame_bytes_chunks_freed = bus->arena.freed_chunks;
    stats->frame_bytes_chunks_live_max = bus->arena.live_max;
}
