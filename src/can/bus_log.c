/* A bus's frame log (log_frames): each frame as the bus sends it, with the
 * digest over the whole log; given to a stream as the run commits it
 * (rtcosim_can_bus_stream_log), else kept for rtcosim_can_bus_write_log. */
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"
#include "rtcosim/can_log.h"
#include "util/array.h"

#define STORE_BYTES ((uint64_t)1 << CAN_LOG_STORE_SHIFT)

/* Room for chunk k of the store; false when out of memory. */
static bool store_chunk(rtcosim_can_bus *bus, size_t k)
{
    while (bus->log_store_chunks <= k) {
        if (!util_array_reserve(&bus->log_store, bus->log_store_chunks, &bus->log_store_capacity,
                                sizeof *bus->log_store, 16))
            return false;
        uint8_t *m = malloc(STORE_BYTES);
        if (!m)
            return false;
        memset(m, 0, STORE_BYTES); /* touched now, not by a paced thread later */
        bus->log_store[bus->log_store_chunks++] = m;
        /* past a fixed log's reserve: a paced thread's allocation, which
         * the real-time report names (frame_bytes_chunks_inline) */
        if (bus->log_store_reserved && bus->log_store_chunks > bus->log_store_reserved)
            atomic_fetch_add_explicit(&bus->arena.inline_chunks, 1, memory_order_relaxed);
    }
    return true;
}

/* n bytes copied to the end of the store (never straddling two chunks):
 * where they are, or NULL when out of memory. */
static uint8_t *store_put(rtcosim_can_bus *bus, const uint8_t *data, size_t n)
{
    uint64_t at = bus->log_store_used;
    if (((at + n - 1) >> CAN_LOG_STORE_SHIFT) != (at >> CAN_LOG_STORE_SHIFT))
        at = ((at >> CAN_LOG_STORE_SHIFT) + 1) << CAN_LOG_STORE_SHIFT;
    size_t k = (size_t)(at >> CAN_LOG_STORE_SHIFT);
    if (!store_chunk(bus, k))
        return NULL;
    uint8_t *p = bus->log_store[k] + (at & (STORE_BYTES - 1));
    memcpy(p, data, n);
    bus->log_store_used = at + n;
    return p;
}

bool can_bus_log_store_reserve(rtcosim_can_bus *bus, size_t bytes)
{
    if (bytes == 0 || !store_chunk(bus, (size_t)((bytes - 1) >> CAN_LOG_STORE_SHIFT)))
        return bytes == 0;
    bus->log_store_reserved = bus->log_store_chunks;
    return true;
}

void can_bus_log_store_free(rtcosim_can_bus *bus)
{
    for (size_t i = 0; i < bus->log_store_chunks; i++)
        free(bus->log_store[i]);
    free(bus->log_store);
    bus->log_store = NULL;
    bus->log_store_chunks = bus->log_store_capacity = 0;
}

rtcosim_status can_bus_log_frame(rtcosim_can_bus *bus, rtcosim_time_ns start, rtcosim_time_ns end,
                                 uint32_t sender, const can_ref *r, rtcosim_error *err)
{
    rtcosim_can_log_entry written; /* one coasting forward logs again (bus_internal.h) */
    rtcosim_can_log_entry *e = &written;
    if (bus->log_count >= bus->log_written) {
        size_t held = bus->log_count - bus->log_written;
        if (!util_array_reserve(&bus->log, held, &bus->log_capacity, sizeof *bus->log, 4096))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for the"
                                     " log", bus->name);
        e = &bus->log[held];
    }
    bus->log_count++;
    *e = (rtcosim_can_log_entry){.start = start, .end = end, .frame = r->frame, .sender = sender,
                                 .format = r->format, .flags = r->flags, .sdt = r->sdt,
                                 .vcid = r->vcid, .af = r->af};
    if (r->format != RTCOSIM_CAN_FORMAT_CLASSIC) {
        e->length = r->length;
        e->data = can_arena_at(&bus->arena, r->body, r->length);
        /* kept past the run: out of the arena into the log's own store (an
         * entry a stream takes at the commit finds its bytes in the arena:
         * its RX events hold them until then) */
        if (!bus->stream && !bus->config.log_digest_only && e != &written) {
            uint8_t *kept = store_put(bus, e->data, r->length);
            if (!kept)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for"
                                         " the log", bus->name);
            e->data = kept;
        }
    }
    const unsigned char *data = e->data ? e->data : e->frame.data;
    size_t length = e->data ? e->length : e->frame.dlc;
    uint64_t fields[] = {(uint64_t)start, (uint64_t)end, e->frame.id, e->frame.extended,
                         sender, (uint64_t)e->format, length};
    uint64_t h = bus->log_digest;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        for (int b = 0; b < 64; b += 8)
            h = (h ^ ((fields[i] >> b) & 0xFF)) * UINT64_C(0x100000001B3);
    for (size_t i = 0; i < length; i++)
        h = (h ^ data[i]) * UINT64_C(0x100000001B3);
    bus->log_digest = h;
    bus->log_total++;
    return RTCOSIM_OK;
}

/* The entries logged by events before `before` are final: with a stream,
 * written to it and dropped; for the digest alone, dropped (the rest,
 * logged past GVT, moved to the front: few, a bounded time's worth). */
rtcosim_status can_bus_log_commit(rtcosim_can_bus *bus, rtcosim_time_ns before,
                                  rtcosim_error *err)
{
    if (!bus->stream && !bus->config.log_digest_only)
        return RTCOSIM_OK;
    size_t held = can_bus_log_held(bus), n = 0;
    rtcosim_status st = RTCOSIM_OK;
    while (n < held && bus->log[n].start < before &&
           (!bus->stream ||
            (st = rtcosim_can_log_writer_add(bus->stream, &bus->log[n], err)) == RTCOSIM_OK))
        n++;
    /* what was written is dropped (after a write error too: the file stays a
     * log of it) */
    if (n)
        memmove(bus->log, bus->log + n, (held - n) * sizeof *bus->log);
    bus->log_written += n;
    return st == RTCOSIM_OK ? st : rtcosim_error_prefix(err, "can bus '%s': ", bus->name);
}

size_t rtcosim_can_bus_log_count(const rtcosim_can_bus *bus) { return can_bus_log_held(bus); }
uint64_t rtcosim_can_bus_log_digest(const rtcosim_can_bus *bus, size_t *frames)
{
    if (frames)
        *frames = bus->log_total;
    return bus->log_digest;
}
const rtcosim_can_log_entry *rtcosim_can_bus_log(const rtcosim_can_bus *bus) { return bus->log; }

rtcosim_status rtcosim_can_bus_write_log(const rtcosim_can_bus *bus, const char *path,
                                         rtcosim_error *err)
{
    return rtcosim_can_log_write(bus->log, can_bus_log_held(bus), bus->name,
                                 rtcosim_can_log_format_of(path), path, err);
}

rtcosim_status rtcosim_can_bus_stream_log(rtcosim_can_bus *bus, rtcosim_can_log_writer *writer,
                                          rtcosim_error *err)
{
    if (writer && !bus->config.log_frames)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "can bus '%s': a log stream needs a bus"
                                 " that logs its frames (log_frames)", bus->name);
    bus->stream = writer;
    return RTCOSIM_OK;
}

size_t rtcosim_can_bus_log_written(const rtcosim_can_bus *bus) { return bus->log_written; }
