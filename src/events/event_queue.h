/* Event storage of the kernel: a quaternary min-heap of events ordered by the
 * total order (time, tie, seq), and per-thread free lists of preallocated
 * events so that sending an event never calls malloc in steady state. */
#ifndef RTCOSIM_EVENT_QUEUE_H
#define RTCOSIM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/events.h"

/* The heap keeps the time inline next to the pointer: most comparisons are
 * decided by time alone without touching the event (a cache miss). */
typedef struct event_heap_entry {
    rtcosim_time_ns time;
    rtcosim_event *ev;
} event_heap_entry;

typedef struct event_heap {
    event_heap_entry *entries;
    size_t count, capacity;
} event_heap;

static inline bool event_before(const rtcosim_event *a, const rtcosim_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->tie != b->tie)
        return a->tie < b->tie;
    return a->seq < b->seq;
}

static inline bool heap_entry_before(const event_heap_entry *a, const event_heap_entry *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return event_before(a->ev, b->ev);
}

void event_heap_free(event_heap *h);
/* Grows when full (amortized doubling, rare after warm-up); false on ENOMEM. */
bool event_heap_push(event_heap *h, rtcosim_event *ev);
rtcosim_event *event_heap_pop(event_heap *h);
static inline rtcosim_time_ns event_heap_min_time(const event_heap *h)
{
    return h->count ? h->entries[0].time : RTCOSIM_TIME_MAX;
}

typedef struct event_pool {
    rtcosim_event *free_list;
    void **chunks;
    size_t chunk_count, chunk_capacity;
} event_pool;

bool event_pool_reserve(event_pool *p, size_t events);
static inline rtcosim_event *event_pool_get(event_pool *p)
{
    if (!p->free_list && !event_pool_reserve(p, 4096))
        return NULL;
    rtcosim_event *ev = p->free_list;
    p->free_list = ev->next;
    return ev;
}
static inline void event_pool_put(event_pool *p, rtcosim_event *ev)
{
    ev->next = p->free_list;
    p->free_list = ev;
}
void event_pool_free(event_pool *p);

#endif
