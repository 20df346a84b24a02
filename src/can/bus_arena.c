/* The bus's frame-body arena (bus_internal.h): CAN FD and XL frames' bytes,
 * which do not fit an event's inline payload, written once by their sender
 * and read by the bus and the receivers. No allocation per frame: a chunk
 * of 1 MiB at a time, taken by whichever sender first needs it (a chunk
 * given back is reused first), or (a bus on a real-time thread) allocated
 * ahead by a helper thread; chunks whose bodies nothing can read any more
 * are given back as the run commits, so a long run's memory stays flat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"

#define CHUNK_BYTES (UINT64_C(1) << CAN_ARENA_CHUNK_SHIFT)
#define SLOT(k) ((k) % CAN_ARENA_CHUNKS)

/* Put `fresh` in chunk k's slot unless another thread did first (fresh is
 * then freed); the chunk that is there now. An install counts in *count (if
 * any). */
static uint8_t *install(can_arena *a, uint64_t k, uint8_t *fresh, _Atomic uint64_t *count)
{
    uint8_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&a->chunks[SLOT(k)], &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire)) {
        if (count)
            atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
        return fresh;
    }
    free(fresh);
    return expected;
}

/* A chunk's memory: the one given back last, else a new one, its pages
 * touched here (not by the first sender that writes it). */
static uint8_t *new_chunk(can_arena *a)
{
    uint8_t *m = atomic_exchange_explicit(&a->spare, NULL, memory_order_acq_rel);
    if (m)
        return m;
    m = malloc(CHUNK_BYTES);
    if (m)
        memset(m, 0, CHUNK_BYTES);
    return m;
}

/* Allocate the missing chunks below `until` (from the oldest live one);
 * false when out of memory. */
static bool fill(can_arena *a, uint64_t until, _Atomic uint64_t *count)
{
    uint64_t from = atomic_load_explicit(&a->oldest, memory_order_acquire);
    for (uint64_t k = from; k < until && k - from < CAN_ARENA_CHUNKS; k++) {
        if (atomic_load_explicit(&a->chunks[SLOT(k)], memory_order_acquire))
            continue;
        uint8_t *fresh = new_chunk(a);
        if (!fresh)
            return false;
        install(a, k, fresh, count);
    }
    return true;
}

static void hold_chunk(can_arena *a, uint64_t k, rtcosim_time_ns until)
{
    _Atomic rtcosim_time_ns *e = &a->expire[SLOT(k)];
    rtcosim_time_ns old = atomic_load_explicit(e, memory_order_relaxed);
    while (old < until && !atomic_compare_exchange_weak(e, &old, until)) {
    }
}

void can_arena_hold(can_arena *a, uint64_t offset, size_t n, rtcosim_time_ns until)
{
    if (n)
        hold_chunk(a, offset >> CAN_ARENA_CHUNK_SHIFT, until);
}

rtcosim_status can_arena_put(can_arena *a, const void *data, size_t n, rtcosim_time_ns until,
                             uint64_t *offset, const char *bus_name, rtcosim_error *err)
{
    *offset = 0;
    if (n == 0)
        return RTCOSIM_OK;
    /* in progress from the reservation to `expire` (and the bytes): a
     * reclaim that saw no put in progress saw every chunk's references, and
     * a put starting after it reserves past what it looked at */
    atomic_fetch_add(&a->active, 1);
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        uint64_t at = atomic_fetch_add(&a->next, n);
        uint64_t chunk = at >> CAN_ARENA_CHUNK_SHIFT;
        /* a body never straddles two chunks: the rest of this one stays
         * unused and the next reservation starts past it */
        if (((at + n - 1) >> CAN_ARENA_CHUNK_SHIFT) != chunk)
            continue;
        if (chunk - atomic_load_explicit(&a->oldest, memory_order_acquire) >= CAN_ARENA_CHUNKS) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': more than %u MiB of CAN FD"
                                   " and XL frame bytes in flight at once", bus_name,
                                   (unsigned)CAN_ARENA_CHUNKS);
            break;
        }
        hold_chunk(a, chunk, until);
        if (a->ahead) {
            /* past half of chunk k: chunk k + 1 is wanted */
            uint64_t want = ((at + n + CHUNK_BYTES / 2) >> CAN_ARENA_CHUNK_SHIFT) + 1;
            uint64_t had = atomic_load_explicit(&a->wanted, memory_order_relaxed);
            if (want > had && atomic_compare_exchange_strong(&a->wanted, &had, want))
                sem_post(&a->wake);
        }
        uint8_t *base = atomic_load_explicit(&a->chunks[SLOT(chunk)], memory_order_acquire);
        if (!base) {
            uint8_t *fresh = new_chunk(a);
            if (!fresh) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for"
                                       " CAN FD and XL frame bytes", bus_name);
                break;
            }
            base = install(a, chunk, fresh, &a->inline_chunks);
        }
        memcpy(base + (at & (CHUNK_BYTES - 1)), data, n);
        *offset = at;
        break;
    }
    atomic_fetch_sub(&a->active, 1);
    return st;
}

const uint8_t *can_arena_at(can_arena *a, uint64_t offset, size_t n)
{
    static const uint8_t none[1];
    if (n == 0)
        return none;
    const uint8_t *base = atomic_load_explicit(
        &a->chunks[SLOT(offset >> CAN_ARENA_CHUNK_SHIFT)], memory_order_acquire);
    return base + (offset & (CHUNK_BYTES - 1));
}

void can_arena_reclaim(can_arena *a, rtcosim_time_ns floor, uint64_t pinned)
{
    uint64_t oldest = atomic_load_explicit(&a->oldest, memory_order_relaxed);
    /* the chunk the bump pointer is in (and any past it) is still written */
    uint64_t below = atomic_load(&a->next) >> CAN_ARENA_CHUNK_SHIFT;
    if (below + 1 - oldest > a->live_max)
        a->live_max = below + 1 - oldest;
    if (pinned != UINT64_MAX && (pinned >> CAN_ARENA_CHUNK_SHIFT) < below)
        below = pinned >> CAN_ARENA_CHUNK_SHIFT;
    if (oldest >= below || atomic_load(&a->active) != 0)
        return;
    for (; oldest < below; oldest++) {
        uint64_t s = SLOT(oldest);
        if (atomic_load(&a->expire[s]) >= floor)
            break;
        /* a real-time bus frees nothing on its paced thread: a chunk goes
         * back once the helper took the last one for the next chunk */
        if (a->ahead && atomic_load_explicit(&a->spare, memory_order_acquire))
            break;
        uint8_t *m = atomic_exchange_explicit(&a->chunks[s], NULL, memory_order_acq_rel);
        free(atomic_exchange_explicit(&a->spare, m, memory_order_acq_rel));
        atomic_store_explicit(&a->expire[s], INT64_MIN, memory_order_relaxed);
        atomic_store_explicit(&a->oldest, oldest + 1, memory_order_release);
        a->freed_chunks++;
    }
}

/* ---- the bus's side ---- */

/* A body the bus's state refers to: *pinned lowered to it. From a chunk
 * the bump pointer left a chunk ago (a frame waiting in its queue while
 * others pass, a bus-off node's) it is first copied to the arena's end, so
 * that the chunks between can go back; the old copy stays until the floor
 * passes now (a state a rollback restores may name it). */
static rtcosim_status pin(rtcosim_can_bus *bus, can_ref *r, uint64_t written_chunk,
                          rtcosim_time_ns now, uint64_t *pinned, rtcosim_error *err)
{
    if (!r->length)
        return RTCOSIM_OK;
    if ((r->body >> CAN_ARENA_CHUNK_SHIFT) + 1 < written_chunk) {
        uint64_t moved;
        rtcosim_status st =
            can_arena_put(&bus->arena, can_arena_at(&bus->arena, r->body, r->length), r->length,
                          now, &moved, bus->name, err);
        if (st != RTCOSIM_OK)
            return st; /* (the error names the bus) */
        can_arena_hold(&bus->arena, r->body, r->length, now);
        r->body = moved;
    }
    if (r->body < *pinned)
        *pinned = r->body;
    return RTCOSIM_OK;
}

rtcosim_status can_bus_commit(rtcosim_lp *lp, void *state, rtcosim_time_ns before,
                              rtcosim_error *err)
{
    rtcosim_can_bus *bus = state;
    can_arena *a = &bus->arena;
    /* the log's final entries first: a stream takes their bytes from the
     * arena, whose chunks may go back below */
    rtcosim_status logged = can_bus_log_commit(bus, before, err);
    if (logged != RTCOSIM_OK)
        return logged;
    uint64_t written =
        atomic_load_explicit(&a->next, memory_order_relaxed) >> CAN_ARENA_CHUNK_SHIFT;
    if (before < RTCOSIM_TIME_MAX && written > atomic_load(&a->oldest)) {
        rtcosim_time_ns now = rtcosim_lp_now(lp);
        uint64_t pinned = UINT64_MAX;
        rtcosim_status st = RTCOSIM_OK;
        for (size_t i = 0; i < bus->node_count && st == RTCOSIM_OK; i++) {
            can_node *n = &bus->nodes[i];
            for (uint32_t j = 0; n->fd_xl && j < n->queued && st == RTCOSIM_OK; j++)
                st = pin(bus, &n->queue[j].ref, written, now, &pinned, err);
        }
        if (st == RTCOSIM_OK && bus->retransmit_node >= 0)
            st = pin(bus, &bus->retransmit.ref, written, now, &pinned, err);
        if (st != RTCOSIM_OK)
            return st;
        can_arena_reclaim(a, rtcosim_lp_floor(lp), pinned);
    }
    return RTCOSIM_OK;
}

rtcosim_status can_arena_reserve(can_arena *a, size_t bytes, const char *bus_name,
                                 rtcosim_error *err)
{
    const size_t most = (size_t)64 << CAN_ARENA_CHUNK_SHIFT;
    if (bytes > most)
        bytes = most;
    size_t chunks = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES;
    uint64_t from = atomic_load_explicit(&a->oldest, memory_order_relaxed);
    if (!fill(a, from + chunks, NULL))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can bus '%s': out of memory for %zu "
                                 "MiB of CAN FD and XL frame bytes", bus_name, chunks);
    return RTCOSIM_OK;
}

/* Back to offset 0 for the next run (no sender runs): the chunks stay for
 * it, in the slots of the first ones. */
void can_arena_reset(can_arena *a)
{
    uint64_t oldest = atomic_load_explicit(&a->oldest, memory_order_relaxed);
    if (oldest % CAN_ARENA_CHUNKS) {
        /* rotate the live chunks' memory to slots 0.. */
        uint8_t *held[CAN_ARENA_CHUNKS];
        for (uint64_t i = 0; i < CAN_ARENA_CHUNKS; i++)
            held[i] = atomic_load_explicit(&a->chunks[SLOT(oldest + i)], memory_order_relaxed);
        for (uint64_t i = 0; i < CAN_ARENA_CHUNKS; i++)
            atomic_store_explicit(&a->chunks[i], held[i], memory_order_relaxed);
    }
    for (uint64_t i = 0; i < CAN_ARENA_CHUNKS; i++)
        atomic_store_explicit(&a->expire[i], INT64_MIN, memory_order_relaxed);
    atomic_store_explicit(&a->oldest, 0, memory_order_relaxed);
    atomic_store_explicit(&a->wanted, 0, memory_order_relaxed);
    atomic_store_explicit(&a->next, 0, memory_order_relaxed);
    atomic_store_explicit(&a->inline_chunks, 0, memory_order_relaxed);
    atomic_store_explicit(&a->helper_chunks, 0, memory_order_relaxed);
    a->freed_chunks = a->live_max = 0;
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
    free(atomic_load_explicit(&a->spare, memory_order_relaxed));
}
