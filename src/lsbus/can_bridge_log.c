/* The LS-BUS bridge's frame log: one entry per delivered frame (classic,
 * CAN FD, CAN XL), the FD and XL data bytes in one arena owned by the
 * bridge, in entry order. Both grow by doubling, or, for a paced run
 * (config.log_capacity), are allocated at create and then only filled:
 * frames past either capacity are counted in stats.log_dropped. */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/can_log.h"
#include "can_bridge_internal.h"
#include "util/array.h"

rtcosim_status bridge_log_create(rtcosim_lsbus_can_bridge *b, rtcosim_error *err)
{
    const rtcosim_lsbus_can_bridge_config *c = &b->config;
    if (!c->log_frames || !c->log_capacity)
        return RTCOSIM_OK;
    size_t bytes = c->log_data_capacity ? c->log_data_capacity : c->log_capacity * 64;
    if (!(b->log = calloc(c->log_capacity, sizeof *b->log)) || !(b->log_data = malloc(bytes)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "LS-BUS bus '%s': out of memory for the"
                                 " log of %zu frames", b->name, c->log_capacity);
    b->log_capacity = c->log_capacity;
    b->log_data_capacity = bytes;
    return RTCOSIM_OK;
}

/* The arena moved (it grew): the entries' data pointers follow, in order. */
static void rebase(rtcosim_lsbus_can_bridge *b)
{
    size_t at = 0;
    for (size_t i = 0; i < b->log_count; i++) {
        rtcosim_can_log_entry *e = &b->log[i];
        if (e->format != RTCOSIM_CAN_FORMAT_CLASSIC && e->length) {
            e->data = b->log_data + at;
            at += e->length;
        }
    }
}

rtcosim_status bridge_log_frame(rtcosim_lsbus_can_bridge *b, const pending_frame *p,
                                uint32_t sender, rtcosim_error *err)
{
    rtcosim_can_log_entry e = {.start = b->frame_start, .end = b->frame_end, .sender = sender,
                               .format = p->format};
    const uint8_t *data = NULL;
    if (p->format == RTCOSIM_CAN_FORMAT_FD) {
        e.frame = (rtcosim_can_frame){.id = p->fd_frame.id, .extended = p->fd_frame.extended};
        e.flags = (uint8_t)((p->fd_frame.brs ? RTCOSIM_CAN_FD_BRS : 0) |
                            (p->fd_frame.esi ? RTCOSIM_CAN_FD_ESI : 0));
        e.length = p->fd_frame.length;
        data = p->fd_frame.data;
    } else if (p->format == RTCOSIM_CAN_FORMAT_XL) {
        e.frame = (rtcosim_can_frame){.id = p->frame.id};
        e.flags = p->xl_sec ? RTCOSIM_CAN_XL_SEC : 0;
        e.sdt = p->xl_sdt;
        e.vcid = p->xl_vcid;
        e.af = p->xl_af;
        e.length = p->xl_length;
        data = bridge_xl_data(b, sender, p);
    } else {
        e.frame = p->frame;
    }
    if (b->stream) {
        e.data = e.length ? data : NULL;
        rtcosim_status st = rtcosim_can_log_writer_add(b->stream, &e, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "LS-BUS bus '%s': ", b->name);
        b->streamed++;
        return RTCOSIM_OK;
    }
    bool fixed = b->config.log_capacity != 0;
    if (fixed && (b->log_count == b->log_capacity ||
                  e.length > b->log_data_capacity - b->log_data_used)) {
        b->stats.log_dropped++; /* a fixed log is full: no allocation here */
        return RTCOSIM_OK;
    }
    if (!fixed) {
        if (!util_array_reserve(&b->log, b->log_count, &b->log_capacity, sizeof *b->log, 4096))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "LS-BUS bus '%s': out of memory for"
                                     " the log", b->name);
        if (e.length > b->log_data_capacity - b->log_data_used) {
            uint8_t *before = b->log_data;
            size_t cap = b->log_data_capacity ? b->log_data_capacity : 65536;
            while (e.length > cap - b->log_data_used)
                cap *= 2;
            uint8_t *grown = realloc(b->log_data, cap);
            if (!grown)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "LS-BUS bus '%s': out of memory"
                                         " for the log's data", b->name);
            b->log_data = grown;
            b->log_data_capacity = cap;
            if (grown != before)
                rebase(b);
        }
    }
    if (e.length) {
        memcpy(b->log_data + b->log_data_used, data, e.length);
        e.data = b->log_data + b->log_data_used;
        b->log_data_used += e.length;
    } /* else data NULL: a classic frame, or an FD frame without data */
    b->log[b->log_count++] = e;
    return RTCOSIM_OK;
}

size_t rtcosim_lsbus_can_bridge_log_count(const rtcosim_lsbus_can_bridge *b)
{
    return b->log_count;
}

rtcosim_status rtcosim_lsbus_can_bridge_stream_log(rtcosim_lsbus_can_bridge *b,
                                                   struct rtcosim_can_log_writer *writer,
                                                   rtcosim_error *err)
{
    if (writer && !b->config.log_frames)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "LS-BUS bus '%s': a log stream needs a bus"
                                 " that logs its frames (log_frames)", b->name);
    b->stream = writer;
    return RTCOSIM_OK;
}

uint64_t rtcosim_lsbus_can_bridge_log_streamed(const rtcosim_lsbus_can_bridge *b)
{
    return b->streamed;
}

const rtcosim_can_log_entry *rtcosim_lsbus_can_bridge_log(const rtcosim_lsbus_can_bridge *b)
{
    return b->log;
}

rtcosim_status rtcosim_lsbus_can_bridge_write_log(const rtcosim_lsbus_can_bridge *b,
                                                  const char *path, rtcosim_error *err)
{
    return rtcosim_can_log_write(b->log, b->log_count, b->name, rtcosim_can_log_format_of(path),
                                 path, err);
}
