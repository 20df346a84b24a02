/* The sequential scheduler's pending set: a small heap of the events due
 * soonest in front of a calendar of time buckets (Brown's calendar queue,
 * with a sorted front as in Tang's ladder queue). A new event is appended to
 * its bucket's list (through ev->link: ev->next is the speculative
 * scheduler's output log) in O(1); a bucket is sorted (heaped) only when the front
 * reaches it, so the heap holds a handful of events instead of all of them:
 * on PHOLD (16384 pending events) a full heap cost half of the kernel's
 * instructions per event. The order is the heap's total order: results are
 * those of the plain heap, bit for bit. */
#ifndef RTCOSIM_EVENT_CALENDAR_H
#define RTCOSIM_EVENT_CALENDAR_H

#include "event_queue.h"

/* The next CALENDAR_CHASE buckets' lists are fetched ahead, each one event
 * every CALENDAR_CHASE pops, so that their cold events are in the cache by the
 * time the front reaches them (a list is a chain of misses otherwise). */
enum { CALENDAR_CHASE = 3 };

typedef struct event_calendar {
    event_heap near;           /* every pending event at or before near_last, ordered */
    rtcosim_time_ns near_last; /* the front bucket starts right after it */
    rtcosim_event **buckets;   /* ring of lists (through ev->next): bucket k after the
                                * front covers near_last + 1 + [k, k + 1) * 2^shift ns */
    size_t bucket_count;       /* a power of two (0 before the first sizing) */
    size_t head;               /* ring index of the front bucket */
    unsigned shift;            /* bucket width 2^shift ns */
    size_t in_buckets;         /* events in the ring */
    event_heap far;            /* events past the ring's end */
    rtcosim_event *chase[CALENDAR_CHASE]; /* bucket b (counted from the start) in
                                           * chase[b % CALENDAR_CHASE], as far as fetched */
    uint64_t chase_of[CALENDAR_CHASE];    /* which bucket each chases (UINT64_MAX: none) */
    uint64_t front;                       /* buckets moved to the front so far */
    unsigned chase_turn;
    /* sizing: events and buckets moved to the front since the last sizing,
     * which is redone after `resize_at` pops */
    uint64_t pops, resize_at, moved_events, moved_buckets;
    bool failed; /* out of memory in a slow path: events were lost */
} event_calendar;

/* Zeroed is empty (and valid). Slow paths: move the next non-empty bucket to the front (false when
 * nothing is pending); file an event past the ring (false on ENOMEM). */
bool event_calendar_advance(event_calendar *c);
bool event_calendar_push_far(event_calendar *c, rtcosim_event *ev);
void event_calendar_free(event_calendar *c);

static inline size_t event_calendar_count(const event_calendar *c)
{
    return c->near.count + c->in_buckets + c->far.count;
}

/* False on ENOMEM (the event is not queued). */
static inline bool event_calendar_push(event_calendar *c, rtcosim_event *ev)
{
    if (ev->time <= c->near_last)
        return event_heap_push(&c->near, ev);
    uint64_t k = ((uint64_t)ev->time - (uint64_t)c->near_last - 1) >> c->shift;
    if (k >= c->bucket_count)
        return event_calendar_push_far(c, ev);
    rtcosim_event **b = &c->buckets[(c->head + k) & (c->bucket_count - 1)];
    ev->link = *b;
    *b = ev;
    c->in_buckets++;
    return true;
}

/* The earliest pending event's entry, left in place; NULL when none (or
 * out of memory: then `failed` is set). */
static inline const event_heap_entry *event_calendar_peek(event_calendar *c)
{
    if (!c->near.count && !event_calendar_advance(c))
        return NULL;
    return &c->near.entries[0];
}

static inline rtcosim_time_ns event_calendar_min_time(event_calendar *c)
{
    const event_heap_entry *e = event_calendar_peek(c);
    return e ? e->time : RTCOSIM_TIME_MAX;
}

/* The earliest pending event in the total order, removed; NULL when none
 * (or out of memory: then `failed` is set). */
static inline rtcosim_event *event_calendar_pop(event_calendar *c)
{
    if (!c->near.count && !event_calendar_advance(c))
        return NULL;
    c->pops++;
    unsigned j = c->chase_turn;
    c->chase_turn = j + 1 == CALENDAR_CHASE ? 0 : j + 1;
    if (c->chase[j]) {
        c->chase[j] = c->chase[j]->link;
        if (c->chase[j])
            __builtin_prefetch(c->chase[j]);
    }
    return event_heap_pop(&c->near);
}

#endif
