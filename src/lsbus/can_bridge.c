/* rtcosim's CAN bus as the integrated bus simulation of FMI-LS-BUS 1.0
 * (section 3.2.3): LS-BUS CAN nodes hand their Tx_Data in, frames are
 * arbitrated by identifier and timed at the bit rates with the stuff bits of
 * src/can (classic, CAN FD and CAN XL frames), and each node gets its
 * Rx_Data out (Transmit ops of the others, Confirm, Arbitration Lost, Bus
 * Error, Wakeup, Format Error). The master calls it at event instants;
 * nothing is allocated after create but the growing frame log. The frame
 * log is in can_bridge_log.c. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "can_bridge_internal.h"

#define DEFAULT_BITRATE 500000u
#define DEFAULT_FD_BITRATE 2000000u
/* CAN XL data phase: 10 Mbit/s, the rate CiA 610-1 and the SIC XL
 * transceivers (CiA 610-3) are described at (up to 20 Mbit/s) */
#define DEFAULT_XL_BITRATE 10000000u
#define DEFAULT_XL_QUEUE 8u
#define DEFAULT_QUEUE 64u
#define DEFAULT_RX_BUFFER 4096u

rtcosim_status rtcosim_lsbus_can_bridge_create(const rtcosim_lsbus_can_bridge_config *config,
                                               rtcosim_lsbus_can_bridge **out,
                                               rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->name ? config->name : "can0";
    if (config->node_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': no nodes", name);
    uint8_t alb = config->default_arbitration_lost_behavior;
    if (alb > RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': arbitration lost"
                                 " behaviour %u is neither 1 (buffer) nor 2 (discard)", name, alb);
    if (config->error_every &&
        (config->error_code < RTCOSIM_LSBUS_CAN_BIT_ERROR ||
         config->error_code > RTCOSIM_LSBUS_CAN_BROKEN_ERROR_FRAME))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': bus error code %u is not"
                                 " one of LS-BUS 1.0 (1-6)", name, config->error_code);
    uint32_t bitrate = config->bitrate ? config->bitrate : DEFAULT_BITRATE;
    rtcosim_time_ns bit_ns;
    rtcosim_status st = rtcosim_can_bit_time(bitrate, &bit_ns, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': ", name);
    rtcosim_lsbus_can_bridge *b = calloc(1, sizeof *b);
    if (!b)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "LS-BUS bus '%s': out of memory", name);
    b->config = *config;
    snprintf(b->name, sizeof b->name, "%s", name);
    b->config.name = b->name;
    if (!b->config.tx_queue_capacity)
        b->config.tx_queue_capacity = DEFAULT_QUEUE;
    if (!b->config.rx_buffer_size)
        b->config.rx_buffer_size = DEFAULT_RX_BUFFER;
    if (!alb)
        b->config.default_arbitration_lost_behavior = RTCOSIM_LSBUS_CAN_BUFFER_AND_RETRANSMIT;
    b->bitrate = bitrate;
    b->bit_ns = bit_ns;
    b->fd_bitrate = config->fd_bitrate ? config->fd_bitrate : DEFAULT_FD_BITRATE;
    if (rtcosim_can_bit_time(b->fd_bitrate, &b->fd_bit_ns, err) != RTCOSIM_OK) {
        rtcosim_lsbus_can_bridge_free(b);
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': CAN FD data phase: ", name);
    }
    b->xl_bitrate = config->xl_bitrate ? config->xl_bitrate : DEFAULT_XL_BITRATE;
    if (rtcosim_can_bit_time(b->xl_bitrate, &b->xl_bit_ns, err) != RTCOSIM_OK) {
        rtcosim_lsbus_can_bridge_free(b);
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': CAN XL data phase: ", name);
    }
    if (!b->config.xl_queue_capacity)
        b->config.xl_queue_capacity = DEFAULT_XL_QUEUE;
    if (b->config.xl_queue_capacity > UINT16_MAX) {
        rtcosim_lsbus_can_bridge_free(b);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': %" PRIu32 " CAN XL frames"
                                 " per node exceed the 65535 the bridge buffers", name,
                                 config->xl_queue_capacity);
    }
    b->nodes = calloc(config->node_count, sizeof *b->nodes);
    if (!b->nodes)
        goto nomem;
    if ((st = bridge_log_create(b, err)) != RTCOSIM_OK) {
        rtcosim_lsbus_can_bridge_free(b);
        return st;
    }
    uint32_t xl_slots = b->config.xl_queue_capacity;
    for (uint32_t i = 0; i < config->node_count; i++) {
        bridge_node *n = &b->nodes[i];
        n->queue = calloc(b->config.tx_queue_capacity, sizeof *n->queue);
        n->rx = malloc(b->config.rx_buffer_size);
        n->xl_data = malloc((size_t)xl_slots * RTCOSIM_CAN_XL_DATA_MAX);
        n->xl_free = malloc(xl_slots * sizeof *n->xl_free);
        if (!n->queue || !n->rx || !n->xl_data || !n->xl_free)
            goto nomem;
        for (uint32_t k = 0; k < xl_slots; k++)
            n->xl_free[k] = (uint16_t)(xl_slots - 1 - k);
        n->xl_free_count = xl_slots;
        n->arbitration_lost_behavior = b->config.default_arbitration_lost_behavior;
        n->status = RTCOSIM_LSBUS_CAN_ERROR_ACTIVE;
    }
    *out = b;
    return RTCOSIM_OK;
nomem:
    rtcosim_lsbus_can_bridge_free(b);
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "LS-BUS bus '%s': out of memory", name);
}

void rtcosim_lsbus_can_bridge_free(rtcosim_lsbus_can_bridge *b)
{
    if (!b)
        return;
    if (b->nodes)
        for (uint32_t i = 0; i < b->config.node_count; i++) {
            free(b->nodes[i].queue);
            free(b->nodes[i].rx);
            free(b->nodes[i].xl_data);
            free(b->nodes[i].xl_free);
        }
    free(b->nodes);
    free(b->log);
    free(b->log_data);
    free(b);
}

/* Append an op to a node's Rx buffer (the master takes it at this instant). */
static rtcosim_status rx_put(rtcosim_lsbus_can_bridge *b, uint32_t node,
                             const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    bridge_node *n = &b->nodes[node];
    rtcosim_status st = rtcosim_lsbus_write(n->rx, b->config.rx_buffer_size, &n->rx_used, op, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': node %" PRIu32 " Rx (%" PRIu32
                                    " bytes; its Rx operations must be taken at every event): ",
                                    b->name, node, b->config.rx_buffer_size);
    return RTCOSIM_OK;
}

static rtcosim_status notify_id(rtcosim_lsbus_can_bridge *b, uint32_t node, uint32_t code,
                                uint32_t id, rtcosim_error *err)
{
    rtcosim_lsbus_op op = {.code = code};
    op.u.id = id;
    return rx_put(b, node, &op, err);
}

/* The arbitration field with the RTR bit: a remote frame loses against the
 * data frame of the same identifier (the RTR bit is recessive). Standard
 * frames carry it in the SRR position (bit 19 of the key), extended frames
 * after the extension, which one more bit at the bottom holds. Then the
 * format (two bits at the bottom): after the arbitration field a classic
 * frame sends FDF dominant, CAN FD FDF recessive and res (XLF's place)
 * dominant, CAN XL both recessive, so with the same identifier classic goes
 * before FD before XL. ISO 11898-1 wants each identifier sent by one node
 * only: a real bus would see a bit error at that bit (it is past the
 * arbitration field) and retransmit; the bridge lets the frame whose bit was
 * recessive wait instead, which delivers both in that order. */
static uint64_t frame_key(const rtcosim_can_frame *f, uint8_t rtr, rtcosim_can_format format)
{
    uint64_t key = rtcosim_can_arbitration_key(f);
    if (rtr && !f->extended)
        key |= UINT64_C(1) << 19;
    return (key << 1 | (rtr && f->extended ? 1u : 0u)) << 2 | (uint64_t)format;
}

/* A CAN XL frame that leaves the bus or its queue gives its data slot back. */
static void xl_release(bridge_node *n, const pending_frame *p)
{
    if (p->format == RTCOSIM_CAN_FORMAT_XL)
        n->xl_free[n->xl_free_count++] = p->xl_slot;
}

/* Sorted by key, equal keys in request order; the caller checked room. */
static void queue_insert(bridge_node *n, const pending_frame *p)
{
    uint32_t i = n->queued;
    while (i > 0 && n->queue[i - 1].key > p->key) {
        n->queue[i] = n->queue[i - 1];
        i--;
    }
    n->queue[i] = *p;
    n->queued++;
}

static rtcosim_status queue_or_drop(rtcosim_lsbus_can_bridge *b, uint32_t node, bridge_node *n,
                                    const pending_frame *p)
{
    if (n->queued == b->config.tx_queue_capacity) {
        if (b->stats.dropped++ == 0)
            rtcosim_log(RTCOSIM_LOG_WARNING, b->name, "node %" PRIu32 " transmit queue full (%"
                        PRIu32 " frames) at t=%.9f s: frame 0x%" PRIX32 " dropped", node,
                        n->queued, rtcosim_time_to_seconds(p->requested), p->frame.id);
        return RTCOSIM_OK;
    }
    queue_insert(n, p);
    return RTCOSIM_OK;
}

/* A CAN XL Transmit: its priority identifier arbitrates like a standard
 * frame's identifier (RRS and IDE dominant); its data goes into one of the
 * node's XL slots, which it holds until it leaves the bus or the queue. */
static rtcosim_status queue_xl(rtcosim_lsbus_can_bridge *b, uint32_t node, rtcosim_time_ns t,
                               const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    const rtcosim_lsbus_can_transmit *tx = &op->u.transmit;
    bridge_node *n = &b->nodes[node];
    uint32_t nominal, data;
    if (rtcosim_can_xl_frame_bits(tx->id, tx->data_length, &nominal, &data, err) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': node %" PRIu32 ": CAN XL Transmit: ",
                                    b->name, node);
    if (tx->ide)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': node %" PRIu32 ": CAN XL"
                                 " Transmit of id 0x%" PRIX32 ": IDE 1, but a CAN XL frame has an"
                                 " 11-bit priority identifier (IDE dominant)", b->name, node,
                                 tx->id);
    size_t size = rtcosim_lsbus_op_size(op);
    if (size > b->config.rx_buffer_size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': node %" PRIu32 ": CAN XL"
                                 " Transmit of id 0x%" PRIX32 ": its %zu-byte operation does not"
                                 " fit the nodes' Rx buffers of %" PRIu32 " bytes", b->name, node,
                                 tx->id, size, b->config.rx_buffer_size);
    pending_frame p = {.requested = t, .format = RTCOSIM_CAN_FORMAT_XL,
                       .frame = {.id = tx->id}, .xl_sec = tx->sec ? 1 : 0, .xl_sdt = tx->sdt,
                       .xl_vcid = tx->vcid, .xl_af = tx->af, .xl_length = tx->data_length};
    p.key = frame_key(&p.frame, 0, RTCOSIM_CAN_FORMAT_XL);
    if (n->queued == b->config.tx_queue_capacity)
        return queue_or_drop(b, node, n, &p); /* dropped, before it takes a slot */
    if (n->xl_free_count == 0) {
        if (b->stats.dropped++ == 0)
            rtcosim_log(RTCOSIM_LOG_WARNING, b->name, "node %" PRIu32 " has %" PRIu32 " CAN XL"
                        " frames buffered (xl_queue_capacity) at t=%.9f s: frame 0x%" PRIX32
                        " dropped", node, b->config.xl_queue_capacity,
                        rtcosim_time_to_seconds(t), tx->id);
        return RTCOSIM_OK;
    }
    p.xl_slot = n->xl_free[--n->xl_free_count];
    memcpy((uint8_t *)bridge_xl_data(b, node, &p), tx->data, tx->data_length);
    return queue_or_drop(b, node, n, &p);
}

static rtcosim_status queue_transmit(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                     rtcosim_time_ns t, const rtcosim_lsbus_op *op,
                                     rtcosim_error *err)
{
    const rtcosim_lsbus_can_transmit *tx = &op->u.transmit;
    bridge_node *n = &b->nodes[node];
    if (n->status == RTCOSIM_LSBUS_CAN_BUS_OFF) {
        /* section 5.5.1.2, Status: a bus-off node provides no new Transmit ops */
        b->stats.dropped++;
        b->stats.bus_off_dropped++;
        return RTCOSIM_OK;
    }
    rtcosim_can_frame f = {.id = tx->id, .extended = tx->ide != 0};
    pending_frame p = {.requested = t};
    if (op->code == RTCOSIM_LSBUS_OP_CANXL_TRANSMIT)
        return queue_xl(b, node, t, op, err);
    if (op->code == RTCOSIM_LSBUS_OP_CANFD_TRANSMIT) {
        /* CAN FD: the RRS bit is dominant like a data frame's RTR */
        p.format = RTCOSIM_CAN_FORMAT_FD;
        p.fd_frame = (rtcosim_can_fd_frame){.id = tx->id, .extended = tx->ide != 0,
                                            .brs = tx->brs != 0, .esi = tx->esi != 0};
        uint32_t nominal, data;
        if (tx->data_length > 64 ||
            (p.fd_frame.length = (uint8_t)tx->data_length,
             rtcosim_can_fd_frame_bits(&p.fd_frame, &nominal, &data, err) != RTCOSIM_OK)) {
            if (tx->data_length > 64)
                rtcosim_error_set(err, RTCOSIM_EINVAL, "can fd frame 0x%" PRIX32 ": %u data"
                                  " bytes exceed the 64 of CAN FD", tx->id, tx->data_length);
            return rtcosim_error_prefix(err, "LS-BUS bus '%s': node %" PRIu32 ": CAN FD Transmit:"
                                        " ", b->name, node);
        }
        if (tx->data_length)
            memcpy(p.fd_frame.data, tx->data, tx->data_length);
        p.frame = f;
        p.key = frame_key(&f, 0, RTCOSIM_CAN_FORMAT_FD);
        return queue_or_drop(b, node, n, &p);
    }
    if (tx->data_length > RTCOSIM_CAN_DATA_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "LS-BUS bus '%s': node %" PRIu32
                                 ": CAN Transmit of id 0x%" PRIX32 ": data length %u exceeds the"
                                 " 8 bytes of classic CAN", b->name, node, tx->id,
                                 tx->data_length);
    f.dlc = (uint8_t)tx->data_length;
    if (tx->data_length)
        memcpy(f.data, tx->data, tx->data_length);
    rtcosim_status st = rtcosim_can_frame_check(&f, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': node %" PRIu32 ": ", b->name, node);
    p.frame = f;
    p.rtr = tx->rtr ? 1 : 0;
    p.key = frame_key(&f, p.rtr, RTCOSIM_CAN_FORMAT_CLASSIC);
    return queue_or_drop(b, node, n, &p);
}

/* One bus, one bit rate per phase: nodes that disagree could not talk at
 * all (section 5.5.1.4, Baud Rate Handling). node_field: the offset of the
 * node's record of what it configured. */
static rtcosim_status set_rate(rtcosim_lsbus_can_bridge *b, uint32_t node, const char *kind,
                               uint32_t rate, size_t node_field, uint32_t *bus_rate,
                               rtcosim_time_ns *bus_bit_ns, rtcosim_error *err)
{
    rtcosim_time_ns bit_ns;
    if (rtcosim_can_bit_time(rate, &bit_ns, err) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "LS-BUS bus '%s': node %" PRIu32 " Configuration %s: ",
                                    b->name, node, kind);
    for (uint32_t i = 0; i < b->config.node_count; i++) {
        uint32_t other;
        memcpy(&other, (const char *)&b->nodes[i] + node_field, sizeof other);
        if (i != node && other && other != rate)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': node %" PRIu32
                                     " configures %s %" PRIu32 " bit/s but node %" PRIu32
                                     " configured %" PRIu32 " bit/s", b->name, node, kind, rate, i,
                                     other);
    }
    memcpy((char *)&b->nodes[node] + node_field, &rate, sizeof rate);
    *bus_rate = rate;
    *bus_bit_ns = bit_ns;
    return RTCOSIM_OK;
}

static rtcosim_status configure(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    bridge_node *n = &b->nodes[node];
    uint32_t rate = op->u.configuration.baudrate;
    switch (op->u.configuration.kind) {
    case RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE:
        if (b->config.force_bitrate)
            return RTCOSIM_OK;
        return set_rate(b, node, "CAN_BAUDRATE", rate, offsetof(bridge_node, configured_bitrate),
                        &b->bitrate, &b->bit_ns, err);
    case RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE:
        if (b->config.force_bitrate)
            return RTCOSIM_OK;
        return set_rate(b, node, "CANFD_BAUDRATE", rate, offsetof(bridge_node, fd_bitrate),
                        &b->fd_bitrate, &b->fd_bit_ns, err);
    case RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE:
        if (b->config.force_bitrate)
            return RTCOSIM_OK;
        return set_rate(b, node, "CANXL_BAUDRATE", rate, offsetof(bridge_node, xl_bitrate),
                        &b->xl_bitrate, &b->xl_bit_ns, err);
    default: {
        uint8_t v = op->u.configuration.arbitration_lost_behavior;
        if (v != RTCOSIM_LSBUS_CAN_BUFFER_AND_RETRANSMIT && v != RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS bus '%s': node %" PRIu32
                                     " Configuration ARBITRATION_LOST_BEHAVIOR: value 0x%02X is"
                                     " neither BUFFER_AND_RETRANSMIT (1) nor DISCARD_AND_NOTIFY"
                                     " (2)", b->name, node, v);
        n->arbitration_lost_behavior = v;
        return RTCOSIM_OK;
    }
    }
}

static rtcosim_time_ns frame_duration(const rtcosim_lsbus_can_bridge *b, const pending_frame *p)
{
    /* a remote frame has no data field; its stuffing is taken as that of
     * the data frame without data (the RTR bit differs) */
    uint32_t nominal = 0, data = 0;
    if (p->format == RTCOSIM_CAN_FORMAT_FD) {
        (void)rtcosim_can_fd_frame_bits(&p->fd_frame, &nominal, &data, NULL); /* checked at push */
        return (rtcosim_time_ns)nominal * b->bit_ns + (rtcosim_time_ns)data * b->fd_bit_ns;
    }
    if (p->format == RTCOSIM_CAN_FORMAT_XL) {
        (void)rtcosim_can_xl_frame_bits(p->frame.id, p->xl_length, &nominal, &data, NULL);
        return (rtcosim_time_ns)nominal * b->bit_ns + (rtcosim_time_ns)data * b->xl_bit_ns;
    }
    rtcosim_can_frame f = p->frame;
    if (p->rtr)
        f.dlc = 0;
    return (rtcosim_time_ns)rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL) * b->bit_ns;
}

/* The earliest instant at which the idle bus arbitrates: the first request
 * of any queue, no earlier than the end of the last frame. */
static rtcosim_time_ns next_arbitration(const rtcosim_lsbus_can_bridge *b)
{
    rtcosim_time_ns first = RTCOSIM_TIME_MAX;
    for (uint32_t i = 0; i < b->config.node_count; i++) {
        const bridge_node *n = &b->nodes[i];
        if (n->status == RTCOSIM_LSBUS_CAN_BUS_OFF)
            continue; /* its frames wait until it leaves bus-off (offer_at) */
        for (uint32_t k = 0; k < n->queued; k++)
            if (n->queue[k].requested < first)
                first = n->queue[k].requested;
    }
    if (first == RTCOSIM_TIME_MAX)
        return first;
    /* a frame that waited (bus-off) starts no earlier than the settled time */
    rtcosim_time_ns s = first > b->bus_free ? first : b->bus_free;
    return s > b->now ? s : b->now;
}

/* Remove entry k of a node's queue. */
static pending_frame queue_take(bridge_node *n, uint32_t k)
{
    pending_frame p = n->queue[k];
    memmove(&n->queue[k], &n->queue[k + 1], (n->queued - k - 1) * sizeof p);
    n->queued--;
    return p;
}

/* A node's best frame in the arbitration at s: its controller offers its
 * lowest identifier among those requested by then (the queue is sorted by
 * key). Index, or -1 when it has none or is bus-off. */
static long offer_at(const bridge_node *n, rtcosim_time_ns s)
{
    if (n->status == RTCOSIM_LSBUS_CAN_BUS_OFF)
        return -1;
    for (uint32_t k = 0; k < n->queued; k++)
        if (n->queue[k].requested <= s)
            return (long)k;
    return -1;
}

/* Error-passive nodes wait the suspend-transmission time, so error-active
 * ones are preferred (section 5.5.1.7, Arbitration); then the lower key. */
static bool ranks_before(const bridge_node *a, long ka, const bridge_node *best, long kb)
{
    bool a_active = a->status == RTCOSIM_LSBUS_CAN_ERROR_ACTIVE;
    bool best_active = best->status == RTCOSIM_LSBUS_CAN_ERROR_ACTIVE;
    if (a_active != best_active)
        return a_active;
    return a->queue[ka].key < best->queue[kb].key;
}

static rtcosim_status arbitrate(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns s, rtcosim_error *err)
{
    bridge_node *best = NULL;
    long best_k = -1;
    uint32_t best_index = 0;
    for (uint32_t i = 0; i < b->config.node_count; i++) {
        bridge_node *n = &b->nodes[i];
        long k = offer_at(n, s);
        if (k >= 0 && (!best || ranks_before(n, k, best, best_k))) {
            best = n;
            best_k = k;
            best_index = i;
        }
    }
    if (!best)
        return RTCOSIM_OK;
    b->current = queue_take(best, (uint32_t)best_k);
    b->current_sender = best_index;
    b->busy = true;
    b->frame_start = s;
    b->frame_end = s + frame_duration(b, &b->current);
    b->frames_started++;
    /* the others that contended lost: discard and notify, or stay buffered */
    for (uint32_t i = 0; i < b->config.node_count; i++) {
        bridge_node *n = &b->nodes[i];
        long k = offer_at(n, s);
        if (i == best_index || k < 0 ||
            n->arbitration_lost_behavior != RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY)
            continue;
        pending_frame lost = queue_take(n, (uint32_t)k);
        xl_release(n, &lost);
        b->stats.arbitration_lost++;
        if (b->config.bus_notifications) {
            rtcosim_status st = notify_id(b, i, RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST,
                                          lost.frame.id, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    return RTCOSIM_OK;
}

static rtcosim_status finish_frame(rtcosim_lsbus_can_bridge *b, rtcosim_error *err)
{
    uint32_t sender = b->current_sender;
    const pending_frame *p = &b->current;
    b->busy = false;
    b->bus_free = b->frame_end;
    b->stats.busy_ns += b->frame_end - b->frame_start;
    rtcosim_status st = RTCOSIM_OK;
    if (b->config.error_every && b->frames_started % b->config.error_every == 0) {
        b->stats.bus_errors++;
        /* section 5.5.1.2, Bus Error: one primary flag, one sender */
        uint32_t primary =
            rtcosim_can_error_detector(b->config.error_code, sender, b->config.node_count);
        for (uint32_t i = 0; i < b->config.node_count && b->config.bus_notifications; i++) {
            rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_BUS_ERROR};
            op.u.bus_error.id = p->frame.id;
            op.u.bus_error.error_code = b->config.error_code;
            op.u.bus_error.error_flag = i == primary ? RTCOSIM_LSBUS_CAN_PRIMARY_ERROR_FLAG
                                                     : RTCOSIM_LSBUS_CAN_SECONDARY_ERROR_FLAG;
            op.u.bus_error.is_sender = i == sender;
            if ((st = rx_put(b, i, &op, err)) != RTCOSIM_OK)
                return st;
        }
        /* the controller retransmits automatically (ISO 11898-1); the frame
         * takes part in the next arbitration as requested originally */
        bridge_node *n = &b->nodes[sender];
        if (n->queued < b->config.tx_queue_capacity) {
            queue_insert(n, p); /* an XL frame keeps its slot */
        } else {
            b->stats.dropped++;
            xl_release(n, p);
        }
        return RTCOSIM_OK;
    }
    b->stats.frames++;
    if (b->config.log_frames && (st = bridge_log_frame(b, p, sender, err)) != RTCOSIM_OK)
        return st;
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){
        .id = p->frame.id, .ide = p->frame.extended, .rtr = p->rtr,
        .data_length = p->frame.dlc, .data = p->frame.data};
    if (p->format == RTCOSIM_CAN_FORMAT_FD) {
        op.code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT;
        op.u.transmit = (rtcosim_lsbus_can_transmit){
            .id = p->fd_frame.id, .ide = p->fd_frame.extended, .brs = p->fd_frame.brs,
            .esi = p->fd_frame.esi, .data_length = p->fd_frame.length, .data = p->fd_frame.data};
    } else if (p->format == RTCOSIM_CAN_FORMAT_XL) {
        op.code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT;
        op.u.transmit = (rtcosim_lsbus_can_transmit){
            .id = p->frame.id, .sec = p->xl_sec, .sdt = p->xl_sdt, .vcid = p->xl_vcid,
            .af = p->xl_af, .data_length = p->xl_length, .data = bridge_xl_data(b, sender, p)};
    }
    bool someone_listens = false;
    for (uint32_t i = 0; i < b->config.node_count; i++) {
        if (i == sender)
            continue;
        if (b->nodes[i].status != RTCOSIM_LSBUS_CAN_BUS_OFF)
            someone_listens = true;
        if ((st = rx_put(b, i, &op, err)) != RTCOSIM_OK)
            return st;
    }
    xl_release(&b->nodes[sender], p); /* its data is in the receivers' Rx and the log */
    /* section 5.5.1.5: no confirmation when every other node is bus-off */
    if (someone_listens && b->config.bus_notifications) {
        b->stats.confirms++;
        return notify_id(b, sender, RTCOSIM_LSBUS_OP_CAN_CONFIRM, p->frame.id, err);
    }
    return RTCOSIM_OK;
}

/* Settle the bus up to t: frames ending at or before it end, the idle bus
 * arbitrates at instants at or before it (inclusive: the caller has pushed
 * every request of those instants). */
static rtcosim_status run_until(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns t, bool inclusive,
                                rtcosim_error *err)
{
    for (;;) {
        rtcosim_status st;
        if (b->busy) {
            if (b->frame_end > t || (!inclusive && b->frame_end == t))
                break;
            if ((st = finish_frame(b, err)) != RTCOSIM_OK)
                return st;
            continue;
        }
        rtcosim_time_ns s = next_arbitration(b);
        if (s == RTCOSIM_TIME_MAX || s > t || (!inclusive && s == t))
            break;
        if ((st = arbitrate(b, s, err)) != RTCOSIM_OK)
            return st;
        if (!b->busy)
            break; /* nothing could be offered (not expected: next_arbitration skips bus-off) */
    }
    if (t > b->now)
        b->now = t;
    return RTCOSIM_OK;
}

static rtcosim_status format_error_reply(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                         const rtcosim_lsbus_op *bad, rtcosim_error *err)
{
    b->stats.unknown_ops++;
    if (!b->warned_unknown) {
        b->warned_unknown = true;
        char who[160];
        if (b->config.node_names)
            snprintf(who, sizeof who, "node %" PRIu32 " (%s)", node, b->config.node_names[node]);
        else
            snprintf(who, sizeof who, "node %" PRIu32, node);
        rtcosim_log(RTCOSIM_LOG_WARNING, b->name, "%s sent op code 0x%04" PRIX32
                    " (%" PRIu32 " bytes), not a CAN operation of LS-BUS 1.0: skipped and"
                    " answered with a Format Error (further ones only counted)", who, bad->code,
                    bad->length);
    }
    if (!b->config.bus_notifications)
        return RTCOSIM_OK;
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_FORMAT_ERROR};
    op.u.format_error.data_length = bad->length > UINT16_MAX ? UINT16_MAX : (uint16_t)bad->length;
    op.u.format_error.data = bad->bytes;
    /* the reply quotes the whole op (section 5.2.1); one too large for the
     * node's Rx buffer is not answered rather than failing the run */
    const bridge_node *n = &b->nodes[node];
    if (rtcosim_lsbus_op_size(&op) > b->config.rx_buffer_size - n->rx_used)
        return RTCOSIM_OK;
    b->stats.format_errors++;
    return rx_put(b, node, &op, err);
}

rtcosim_status rtcosim_lsbus_can_bridge_push(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                             rtcosim_time_ns t, const void *tx_data,
                                             size_t size, rtcosim_error *err)
{
    if (node >= b->config.node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': no node %" PRIu32
                                 " (%" PRIu32 " nodes)", b->name, node, b->config.node_count);
    if (t < b->now)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': node %" PRIu32 " pushes"
                                 " at t=%.9f s, before the bus time %.9f s", b->name, node,
                                 rtcosim_time_to_seconds(t), rtcosim_time_to_seconds(b->now));
    /* what happened strictly before t is settled first; requests at t join
     * the arbitration at t */
    rtcosim_status st = run_until(b, t, false, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    bool got;
    rtcosim_lsbus_reader_init(&r, tx_data, size);
    for (;;) {
        if ((st = rtcosim_lsbus_read(&r, &op, &got, err)) != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "bus '%s': node %" PRIu32 " Tx_Data: ", b->name,
                                        node);
        if (!got)
            break;
        if (!op.known) {
            st = format_error_reply(b, node, &op, err);
        } else {
            switch (op.code) {
            case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
            case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
            case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: st = queue_transmit(b, node, t, &op, err); break;
            case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION: st = configure(b, node, &op, err); break;
            case RTCOSIM_LSBUS_OP_CAN_STATUS:
                if (op.u.status < RTCOSIM_LSBUS_CAN_ERROR_ACTIVE ||
                    op.u.status > RTCOSIM_LSBUS_CAN_BUS_OFF)
                    st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS bus '%s': node %" PRIu32
                                           " Status: value 0x%02X is not one of LS-BUS 1.0"
                                           " (1-3)", b->name, node, op.u.status);
                else
                    b->nodes[node].status = op.u.status;
                break;
            case RTCOSIM_LSBUS_OP_CAN_WAKEUP:
                /* to every participant but the initiator (section 5.5.1.8) */
                for (uint32_t i = 0; i < b->config.node_count && st == RTCOSIM_OK; i++)
                    if (i != node)
                        st = rx_put(b, i, &op, err);
                break;
            default:
                /* Confirm, Arbitration Lost, Bus Error and Format Error go
                 * from the bus to the nodes; a node's Format Error tells the
                 * bus it sent something corrupt, which it cannot repair */
                break;
            }
        }
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_time_ns rtcosim_lsbus_can_bridge_next_event(const rtcosim_lsbus_can_bridge *b)
{
    if (b->busy)
        return b->frame_end;
    return next_arbitration(b);
}

rtcosim_status rtcosim_lsbus_can_bridge_advance(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns t,
                                                rtcosim_error *err)
{
    if (t < b->now)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS bus '%s': advance to t=%.9f s,"
                                 " before the bus time %.9f s", b->name,
                                 rtcosim_time_to_seconds(t), rtcosim_time_to_seconds(b->now));
    return run_until(b, t, true, err);
}

const uint8_t *rtcosim_lsbus_can_bridge_take_rx(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                                size_t *size)
{
    if (node >= b->config.node_count) {
        *size = 0;
        return NULL;
    }
    bridge_node *n = &b->nodes[node];
    *size = n->rx_used;
    n->rx_used = 0;
    return n->rx;
}

void rtcosim_lsbus_can_bridge_stats_get(const rtcosim_lsbus_can_bridge *b,
                                        rtcosim_lsbus_can_bridge_stats *stats)
{
    *stats = b->stats;
}

uint32_t rtcosim_lsbus_can_bridge_bitrate(const rtcosim_lsbus_can_bridge *b)
{
    return b->bitrate;
}
