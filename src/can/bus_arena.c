/* The bus's frame-body arena (bus_internal.h): CAN FD and XL frames' bytes,
 * which do not fit an event's inline payload, written once by their sender
 * and read by the bus, the receivers and the log. No allocation per frame:
 * a chunk of 1 MiB at a time, taken by whichever sender first needs it. */
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"

#define CHUNK_BYTES (UINT64_C(1) << CAN_ARENA_CHUNK_SHIFT)

rtcosim_status can_arena_put(can_arena *a, const void *data, size_t n, uint64_t *offset,
                             const char *bus_name, rtcosim_error *err)
{
    *offset = 0;
    if (n == 0)
        return RTCOSIM_OK;
    for (;;) {
        uint64_t at = atomic_fetch_add_explicit(&a->next, n, memory_order_relaxed);
        uint64_t chunk = at >> CAN_ARENA_CHUNK_SHIFT;
        if (chunk >= CAN_ARENA_CHUNKS)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': the CAN FD and XL frame"
                                     " bytes of this run passed %u MiB", bus_name,
                                     (unsigned)CAN_ARENA_CHUNKS);
        /* a body never straddles two chunks: the rest of this one stays
         * unused and the next reservation starts past it */
        if (((at + n - 1) >> CAN_ARENA_CHUNK_SHIFT) != chunk)
            continue;
        uint8_t *base = atomic_load_explicit(&a->chunks[chunk], memory_order_acquire);
        if (!base) {
            uint8_t *fresh = malloc(CHUNK_BYTES), *expected = NULL;
            if (!fresh)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for"
                                         " CAN FD and XL frame bytes", bus_name);
            if (atomic_compare_exchange_strong_explicit(&a->chunks[chunk], &expected, fresh,
                                                        memory_order_acq_rel,
                                                        memory_order_acquire)) {
                base = fresh;
            } else {
                free(fresh); /* another sender took it first */
                base = expected;
            }
        }
        memcpy(base + (at & (CHUNK_BYTES - 1)), data, n);
        *offset = at;
        return RTCOSIM_OK;
    }
}

const uint8_t *can_arena_at(can_arena *a, uint64_t offset, size_t n)
{
    static const uint8_t none[1];
    if (n == 0)
        return none;
    const uint8_t *base =
        atomic_load_explicit(&a->chunks[offset >> CAN_ARENA_CHUNK_SHIFT], memory_order_acquire);
    return base + (offset & (CHUNK_BYTES - 1));
}

rtcosim_status can_arena_reserve(can_arena *a, size_t bytes, const char *bus_name,
                                 rtcosim_error *err)
{
    const size_t most = (size_t)64 << CAN_ARENA_CHUNK_SHIFT;
    if (bytes > most)
        bytes = most;
    size_t chunks = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES;
    for (size_t i = 0; i < chunks; i++) {
        if (atomic_load_explicit(&a->chunks[i], memory_order_relaxed))
            continue;
        uint8_t *fresh = malloc(CHUNK_BYTES);
        if (!fresh)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for %zu "
                                     "MiB of CAN FD and XL frame bytes", bus_name, chunks);
        atomic_store_explicit(&a->chunks[i], fresh, memory_order_release);
    }
    return RTCOSIM_OK;
}

void can_arena_reset(can_arena *a)
{
    atomic_store_explicit(&a->next, 0, memory_order_relaxed);
}

void can_arena_free(can_arena *a)
{
    for (size_t i = 0; i < CAN_ARENA_CHUNKS; i++)
        free(atomic_load_explicit(&a->chunks[i], memory_order_relaxed));
}
