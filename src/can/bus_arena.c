/* The bus's frame-body arena (bus_internal.h): CAN FD and XL frames' bytes,
 * which do not fit an event's inline payload, written once by their sender
 * and read by the bus, the receivers and the log. No allocation per frame:
 * a chunk of 1 MiB at a time, taken by whichever sender first needs it, or
 * (a bus on a real-time thread) allocated ahead by a helper thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"

#define CHUNK_BYTES (UINT64_C(1) << CAN_ARENA_CHUNK_SHIFT)

/* Put `fresh` in chunk slot i unless another thread did first (fresh is then
 * freed); the chunk that is there now. An install counts in *count (if any). */
static uint8_t *install(can_arena *a, uint64_t i, uint8_t *fresh, _Atomic uint64_t *count)
{
    uint8_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&a->chunks[i], &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire)) {
        if (count)
            atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
        return fresh;
    }
    free(fresh);
    return expected;
}

/* Allocate the missing chunks among the first `chunks`, their pages touched
 * here (not by the first sender that writes them); false when out of memory. */
static bool fill(can_arena *a, uint64_t chunks, _Atomic uint64_t *count)
{
    for (uint64_t i = 0; i < chunks && i < CAN_ARENA_CHUNKS; i++) {
        if (atomic_load_explicit(&a->chunks[i], memory_order_acquire))
            continue;
        uint8_t *fresh = malloc(CHUNK_BYTES);
        if (!fresh)
            return false;
        memset(fresh, 0, CHUNK_BYTES);
        install(a, i, fresh, count);
    }
    return true;
}

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
        if (a->ahead) {
            /* past half of chunk k: chunk k + 1 is wanted */
            uint64_t want = ((at + n + CHUNK_BYTES / 2) >> CAN_ARENA_CHUNK_SHIFT) + 1;
            uint64_t had = atomic_load_explicit(&a->wanted, memory_order_relaxed);
            if (want > had && want <= CAN_ARENA_CHUNKS &&
                atomic_compare_exchange_strong(&a->wanted, &had, want))
                sem_post(&a->wake);
        }
        uint8_t *base = atomic_load_explicit(&a->chunks[chunk], memory_order_acquire);
        if (!base) {
            uint8_t *fresh = malloc(CHUNK_BYTES);
            if (!fresh)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for"
                                         " CAN FD and XL frame bytes", bus_name);
            base = install(a, chunk, fresh, &a->inline_chunks);
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
    if (!fill(a, chunks, NULL))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for %zu "
                                 "MiB of CAN FD and XL frame bytes", bus_name, chunks);
    return RTCOSIM_OK;
}

void can_arena_reset(can_arena *a)
{
    atomic_store_explicit(&a->next, 0, memory_order_relaxed);
    atomic_store_explicit(&a->inline_chunks, 0, memory_order_relaxed);
    atomic_store_explicit(&a->helper_chunks, 0, memory_order_relaxed);
}

static void *ahead_main(void *arg)
{
    can_arena *a = arg;
    for (;;) {
        while (sem_wait(&a->wake) != 0 && errno == EINTR) {
        }
        if (atomic_load(&a->stop))
            return NULL;
        /* (out of memory: the sender then tries, and reports it) */
        (void)fill(a, atomic_load(&a->wanted), &a->helper_chunks);
    }
}

rtcosim_status can_arena_start_ahead(can_arena *a, const char *bus_name, rtcosim_error *err)
{
    if (a->ahead)
        return RTCOSIM_OK;
    if (sem_init(&a->wake, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': no semaphore for its frame"
                                 " bytes' helper: %s", bus_name, strerror(errno));
    atomic_store(&a->stop, 0);
    /* an ordinary thread whatever the creator's policy: it allocates for a
     * real-time one, it must not compete with it */
    pthread_attr_t attr;
    struct sched_param other = {0};
    bool attr_init = pthread_attr_init(&attr) == 0;
    bool attr_ok = attr_init &&
                   pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0 &&
                   pthread_attr_setschedpolicy(&attr, SCHED_OTHER) == 0 &&
                   pthread_attr_setschedparam(&attr, &other) == 0;
    int rc = pthread_create(&a->helper, attr_ok ? &attr : NULL, ahead_main, a);
    if (attr_init)
        pthread_attr_destroy(&attr);
    if (rc != 0) {
        sem_destroy(&a->wake);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': cannot start its frame"
                                 " bytes' helper thread: %s", bus_name, strerror(rc));
    }
    a->ahead = true;
    return RTCOSIM_OK;
}

void can_arena_free(can_arena *a)
{
    if (a->ahead) {
        atomic_store(&a->stop, 1);
        sem_post(&a->wake);
        pthread_join(a->helper, NULL);
        sem_destroy(&a->wake);
        a->ahead = false;
    }
    for (size_t i = 0; i < CAN_ARENA_CHUNKS; i++)
        free(atomic_load_explicit(&a->chunks[i], memory_order_relaxed));
}
