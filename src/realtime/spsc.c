/* Lock-free SPSC ring: the producer owns tail, the consumer owns head; a
 * release store publishes a slot's contents together with the index
 * (acquire on the other side), which is all the ordering two threads need. */
#include <stdlib.h>
#include <string.h>

#include "realtime/spsc.h"

rtcosim_status rtcosim_spsc_init(rtcosim_spsc *q, size_t capacity, size_t slot_size,
                                 rtcosim_error *err)
{
    memset(q, 0, sizeof *q);
    if (capacity == 0 || capacity > ((size_t)1 << 30) || slot_size == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "queue: capacity %zu or slot size %zu out of range", capacity,
                                 slot_size);
    size_t pow2 = 2;
    while (pow2 < capacity)
        pow2 <<= 1;
    /* Slots aligned to 8 bytes so that they can hold doubles and int64. */
    slot_size = (slot_size + 7) & ~(size_t)7;
    q->slots = calloc(pow2, slot_size);
    if (!q->slots)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "queue: out of memory for %zu slots", pow2);
    q->mask = pow2 - 1;
    q->slot_size = slot_size;
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    return RTCOSIM_OK;
}

void rtcosim_spsc_destroy(rtcosim_spsc *q)
{
    free(q->slots);
    q->slots = NULL;
}

void *rtcosim_spsc_reserve(rtcosim_spsc *q)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&q->head, memory_order_acquire);
    if (tail - head > q->mask)
        return NULL;
    return q->slots + (tail & q->mask) * q->slot_size;
}

void rtcosim_spsc_push(rtcosim_spsc *q)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
    atomic_store_explicit(&q->tail, tail + 1, memory_order_release);
}

const void *rtcosim_spsc_front(rtcosim_spsc *q)
{
    size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
    if (head == tail)
        return NULL;
    return q->slots + (head & q->mask) * q->slot_size;
}

void rtcosim_spsc_pop(rtcosim_spsc *q)
{
    size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
    atomic_store_explicit(&q->head, head + 1, memory_order_release);
}

size_t rtcosim_spsc_size(rtcosim_spsc *q)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
    size_t head = atomic_load_explicit(&q->head, memory_order_acquire);
    return tail - head;
}

size_t rtcosim_spsc_capacity(const rtcosim_spsc *q)
{
    return q->mask + 1;
}
