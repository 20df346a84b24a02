/* The bus LP's nodes: their transmit and receive databases, what else they
 * take part in (every frame, Confirms, Bus Errors), and at connect the links
 * whose lookahead from the bus is the shortest frame any node may send. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"
#include "util/array.h"

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_tx(const void *a, const void *b)
{
    return compare_u32(&((const can_tx_entry *)a)->key, &((const can_tx_entry *)b)->key);
}

bool can_keys_hold(const uint32_t *keys, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == key;
}

const can_tx_entry *can_node_tx_entry(const can_node *n, uint32_t key)
{
    size_t lo = 0, hi = n->tx_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (n->tx[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n->tx_count && n->tx[lo].key == key ? &n->tx[lo] : NULL;
}

/* Unstuffed bit counts, lower bounds whatever the content (stuff bits only
 * add). Classic: 47 + 8n (standard) or 67 + 8n (extended). CAN FD (ISO
 * 11898-1:2015, as src/can/frame_fd.c counts them): SOF through BRS, 17
 * (FBFF) or 36 (FEFF) bits, and CRC delimiter through intermission, 13, at
 * the nominal rate; ESI, DLC(4), the data and the CRC field (stuff count 4,
 * CRC-17 with 6 fixed stuff bits up to 16 bytes, CRC-21 with 7 beyond) at
 * the data rate with BRS. With BRS an FD frame can be shorter than the 47
 * nominal bits of the shortest classic frame: at 500 kbit/s and 2 Mbit/s
 * an empty one lasts 30 x 2 us + 32 x 0.5 us = 76 us, not 94 us. CAN XL
 * (rtcosim_can_xl_frame_bits, exact): at least 34 nominal and 134 data
 * bits, 81.4 us at 500 kbit/s and 10 Mbit/s. */
rtcosim_time_ns can_bus_shortest_frame(const rtcosim_can_bus *bus, uint8_t format, uint32_t id,
                                       bool extended, uint16_t length)
{
    if (format == RTCOSIM_CAN_FORMAT_XL) {
        /* content does not matter (fixed stuffing in the data phase), the
         * priority id's stuff bits do: the given id's, or the fewest */
        rtcosim_time_ns shortest = RTCOSIM_TIME_MAX;
        uint32_t first = id == CAN_ANY_ID ? 0 : id, last = id == CAN_ANY_ID ? 0x7FF : id;
        for (uint32_t i = first; i <= last; i++) {
            uint32_t nominal, data;
            rtcosim_error ignored;
            if (rtcosim_can_xl_frame_bits(i, length ? length : 1, &nominal, &data, &ignored) !=
                RTCOSIM_OK)
                continue;
            rtcosim_time_ns t = (rtcosim_time_ns)nominal * bus->bit_ns +
                                (rtcosim_time_ns)data * bus->xl_bit_ns;
            shortest = t < shortest ? t : shortest;
        }
        return shortest;
    }
    if (format == RTCOSIM_CAN_FORMAT_FD) {
        rtcosim_time_ns nominal = (rtcosim_time_ns)((extended ? 36 : 17) + 13);
        rtcosim_time_ns data =
            (rtcosim_time_ns)(5 + 8 * (uint32_t)length + (length <= 16 ? 4 + 17 + 6 : 4 + 21 + 7));
        rtcosim_time_ns brs = nominal * bus->bit_ns + data * bus->fd_bit_ns;
        rtcosim_time_ns plain = (nominal + data) * bus->bit_ns;
        return brs < plain ? brs : plain;
    }
    return (rtcosim_time_ns)((extended ? 67 : 47) + 8 * (uint32_t)length) * bus->bit_ns;
}

rtcosim_time_ns rtcosim_can_bus_min_frame_time(const rtcosim_can_bus *bus)
{
    return bus->min_frame;
}

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

bool rtcosim_can_bus_sends(const rtcosim_can_bus *bus, uint32_t id, bool extended)
{
    uint32_t key = id | (extended ? 1u << 31 : 0u);
    for (size_t n = 0; n < bus->node_count; n++)
        for (size_t k = 0; k < bus->nodes[n].tx_count; k++)
            if (bus->nodes[n].tx[k].key == key)
                return true;
    return false;
}

static rtcosim_status check_node(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err)
{
    if (node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': no node %" PRIu32,
                                 bus->name, node);
    if (bus->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': database of node '%s'"
                                 " changed after connect", bus->name, bus->nodes[node].name);
    return RTCOSIM_OK;
}

static rtcosim_status add_tx(rtcosim_can_bus *bus, uint32_t node, rtcosim_can_format format,
                             uint32_t id, bool extended, uint16_t length, bool upto,
                             rtcosim_error *err)
{
    rtcosim_status st = check_node(bus, node, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_can_any_frame f = {.format = (uint8_t)format, .id = id, .extended = extended,
                               .length = length};
    if ((st = can_frame_check_any(&f, err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s', node '%s': ", bus->name,
                                    bus->nodes[node].name);
    uint32_t key = can_id_key(id, extended);
    for (size_t i = 0; i < bus->node_count; i++)
        for (size_t k = 0; k < bus->nodes[i].tx_count; k++)
            if (bus->nodes[i].tx[k].key == key)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': id 0x%" PRIX32
                                         " sent by both '%s' and '%s' (arbitration needs unique"
                                         " identifiers)", bus->name, id, bus->nodes[i].name,
                                         bus->nodes[node].name);
    can_node *n = &bus->nodes[node];
    if (!util_array_reserve(&n->tx, n->tx_count, &n->tx_capacity, sizeof *n->tx, 8))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    n->tx[n->tx_count++] = (can_tx_entry){key, length, (uint8_t)format, upto};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_add_tx_format(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_can_format format, uint32_t id,
                                             bool extended, uint16_t length, rtcosim_error *err)
{
    return add_tx(bus, node, format, id, extended, length, false, err);
}

rtcosim_status rtcosim_can_bus_add_tx_upto(rtcosim_can_bus *bus, uint32_t node,
                                           rtcosim_can_format format, uint32_t id, bool extended,
                                           uint16_t max_length, rtcosim_error *err)
{
    return add_tx(bus, node, format, id, extended, max_length, true, err);
}

rtcosim_status rtcosim_can_bus_add_tx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, uint8_t dlc, rtcosim_error *err)
{
    return rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_CLASSIC, id, extended, dlc,
                                         err);
}

rtcosim_status rtcosim_can_bus_add_rx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, rtcosim_error *err)
{
    rtcosim_status st = check_node(bus, node, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_can_frame f = {.id = id, .extended = extended};
    if ((st = rtcosim_can_frame_check(&f, err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "can bus '%s', node '%s': ", bus->name,
                                    bus->nodes[node].name);
    can_node *n = &bus->nodes[node];
    if (!util_array_reserve(&n->rx_keys, n->rx_count, &n->rx_capacity, sizeof *n->rx_keys, 8))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus: out of memory");
    n->rx_keys[n->rx_count++] = can_id_key(id, extended);
    return RTCOSIM_OK;
}

uint32_t rtcosim_can_bus_bitrate(const rtcosim_can_bus *bus) { return bus->config.bitrate; }
uint32_t rtcosim_can_bus_fd_bitrate(const rtcosim_can_bus *bus) { return bus->config.fd_bitrate; }
uint32_t rtcosim_can_bus_xl_bitrate(const rtcosim_can_bus *bus) { return bus->config.xl_bitrate; }

/* Flags of a node set before connect (rx_all, tx_any, confirm, notify). */
static rtcosim_status set_flag(rtcosim_can_bus *bus, uint32_t node, size_t offset,
                               const char *what, rtcosim_error *err)
{
    if (bus->connected || node >= bus->node_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can bus '%s': %s needs a node added"
                                 " before connect", bus->name, what);
    *(bool *)((char *)&bus->nodes[node] + offset) = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_bus_add_rx_all(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err)
{
    return set_flag(bus, node, offsetof(can_node, rx_all), "receive-all", err);
}

rtcosim_status rtcosim_can_bus_tx_any(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err)
{
    return set_flag(bus, node, offsetof(can_node, tx_any), "a node sending any identifier",
                    err);
}

rtcosim_status rtcosim_can_bus_confirm_own(rtcosim_can_bus *bus, uint32_t node,
                                          rtcosim_error *err)
{
    return set_flag(bus, node, offsetof(can_node, confirm), "confirmations", err);
}

rtcosim_status rtcosim_can_bus_notify_errors(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_error *err)
{
    return set_flag(bus, node, offsetof(can_node, notify_errors), "error notifications", err);
}

rtcosim_status rtcosim_can_bus_node_controls(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_error *err)
{
    return set_flag(bus, node, offsetof(can_node, controls), "state reports and wake-ups", err);
}

rtcosim_status rtcosim_can_bus_connect(rtcosim_can_bus *bus, rtcosim_error *err)
{
    if (bus->connected)
        return RTCOSIM_OK;
    rtcosim_time_ns min_frame = RTCOSIM_TIME_MAX;
    bool any = false;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        if (n->tx_count)
            qsort(n->tx, n->tx_count, sizeof *n->tx, compare_tx);
        if (n->rx_count)
            qsort(n->rx_keys, n->rx_count, sizeof *n->rx_keys, compare_u32);
        n->fd_xl = n->rx_all || n->tx_any;
        for (size_t k = 0; k < n->tx_count; k++) {
            const can_tx_entry *e = &n->tx[k];
            rtcosim_time_ns t =
                can_bus_shortest_frame(bus, e->format, e->key & 0x7FFFFFFFu, e->key >> 31,
                                       e->upto ? 0 : e->length);
            if (t < min_frame)
                min_frame = t;
            n->fd_xl = n->fd_xl || e->format != RTCOSIM_CAN_FORMAT_CLASSIC;
        }
        any = any || n->tx_any;
    }
    /* a node may send anything: the shortest frame there is of any format
     * (a standard frame without data, classic or FD with BRS; an XL frame
     * of one byte and the id with the fewest stuff bits) */
    for (uint8_t format = 0; any && format <= RTCOSIM_CAN_FORMAT_XL; format++) {
        rtcosim_time_ns t = can_bus_shortest_frame(bus, format, CAN_ANY_ID, false, 0);
        min_frame = t < min_frame ? t : min_frame;
    }
    if (min_frame == RTCOSIM_TIME_MAX) /* nobody sends */
        min_frame = can_bus_shortest_frame(bus, RTCOSIM_CAN_FORMAT_CLASSIC, 0, false, 0);
    bus->min_frame = min_frame;
    for (size_t i = 0; i < bus->node_count; i++) {
        can_node *n = &bus->nodes[i];
        rtcosim_status st = RTCOSIM_OK;
        if (n->tx_count || n->tx_any || n->controls)
            st = rtcosim_events_add_link(bus->sim, n->lp, bus->lp, n->tx_lookahead, err);
        if (st == RTCOSIM_OK && (n->rx_count || n->rx_all || n->notify_errors || n->controls ||
                                 (n->confirm && (n->tx_count || n->tx_any))))
            st = rtcosim_events_add_link(bus->sim, bus->lp, n->lp, min_frame, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "can bus '%s': ", bus->name);
    }
    bus->connected = true;
    return RTCOSIM_OK;
}

void rtcosim_can_bus_log_layout(const rtcosim_can_bus *bus, rtcosim_can_log_layout *layout)
{
    *layout = (rtcosim_can_log_layout){.frames = RTCOSIM_CAN_LOG_FRAMES_UNKNOWN};
    for (size_t i = 0; i < bus->node_count; i++) {
        const can_node *n = &bus->nodes[i];
        layout->fd = layout->fd || n->tx_any;
        layout->xl = layout->xl || (n->tx_any && !n->tx_no_xl);
        for (size_t k = 0; k < n->tx_count; k++) {
            layout->fd = layout->fd || n->tx[k].format == RTCOSIM_CAN_FORMAT_FD;
            layout->xl = layout->xl || n->tx[k].format == RTCOSIM_CAN_FORMAT_XL;
        }
    }
}
