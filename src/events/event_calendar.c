/* The calendar's slow paths (see event_calendar.h): moving the next bucket
 * to the front, the events past the ring, and sizing the buckets from what
 * the front actually met, so that each holds a few dozen events. */
#include <stdlib.h>
#include <string.h>

#include "event_calendar.h"

enum {
    BUCKET_TARGET = 4,        /* events per bucket reaching the front */
    RING_SPAN = 4,            /* buckets: this many times pending / BUCKET_TARGET, */
    BUCKETS_MIN = 16,         /* within these bounds (the rest wait in the far heap) */
    BUCKETS_MAX = 1 << 16,
    SHIFT_MAX = 40,           /* buckets of at most 2^40 ns (18 min) */
    RESIZE_MIN_POPS = 4096    /* sizing is redone at most once per max(this, pending) pops */
};

/* Bucket index (from the front) of a time after near_last. */
static inline uint64_t bucket_of(const event_calendar *c, rtcosim_time_ns t)
{
    return ((uint64_t)t - (uint64_t)c->near_last - 1) >> c->shift;
}

/* Forget the chases (the lists were filed anew). */
static void chase_reset(event_calendar *c)
{
    for (unsigned j = 0; j < CALENDAR_CHASE; j++) {
        c->chase[j] = NULL;
        c->chase_of[j] = UINT64_MAX;
    }
}

/* Start the chases of the buckets after the front that have none. */
static void chase_start(event_calendar *c)
{
    for (unsigned k = 0; k < CALENDAR_CHASE && k < c->bucket_count; k++) {
        uint64_t b = c->front + k;
        unsigned j = (unsigned)(b % CALENDAR_CHASE);
        if (c->chase_of[j] == b)
            continue;
        c->chase_of[j] = b;
        c->chase[j] = c->buckets[(c->head + k) & (c->bucket_count - 1)];
        if (c->chase[j])
            __builtin_prefetch(c->chase[j]);
    }
}

bool event_calendar_push_far(event_calendar *c, rtcosim_event *ev)
{
    return event_heap_push(&c->far, ev);
}

/* File the far events the ring now reaches into their buckets. */
static void pull_far(event_calendar *c)
{
    while (c->far.count && bucket_of(c, c->far.entries[0].time) < c->bucket_count) {
        rtcosim_event *ev = event_heap_pop(&c->far);
        rtcosim_event **b =
            &c->buckets[(c->head + bucket_of(c, ev->time)) & (c->bucket_count - 1)];
        ev->link = *b;
        *b = ev;
        c->in_buckets++;
    }
}

static size_t ceil_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* Choose the bucket width and count: first from the spread of the pending
 * times, later from the events per bucket the front met (halving or
 * doubling the width towards BUCKET_TARGET); then re-file the ring. */
static void resize(event_calendar *c)
{
    size_t pending = event_calendar_count(c);
    unsigned shift = c->shift;
    if (c->moved_buckets == 0) {
        rtcosim_time_ns lo = RTCOSIM_TIME_MAX, hi = c->near_last;
        for (size_t i = 0; i < c->far.count; i++) {
            rtcosim_time_ns t = c->far.entries[i].time;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        uint64_t span = lo <= hi ? (uint64_t)hi - (uint64_t)lo : 0;
        uint64_t width = span / (pending / BUCKET_TARGET + 1);
        for (shift = 0; shift < SHIFT_MAX && ((uint64_t)2 << shift) <= width; shift++) {
        }
    } else {
        uint64_t met = c->moved_events, buckets = c->moved_buckets;
        for (; met > 2 * BUCKET_TARGET * buckets && shift > 0; shift--)
            met /= 2;
        for (; 2 * met < BUCKET_TARGET * buckets && shift < SHIFT_MAX; shift++)
            met *= 2;
    }
    size_t count = ceil_pow2(RING_SPAN * pending / BUCKET_TARGET);
    count = count < BUCKETS_MIN ? BUCKETS_MIN : count > BUCKETS_MAX ? BUCKETS_MAX : count;
    c->moved_events = c->moved_buckets = 0;
    chase_reset(c);
    c->resize_at = c->pops + (pending > RESIZE_MIN_POPS ? pending : RESIZE_MIN_POPS);
    if (shift == c->shift && count == c->bucket_count)
        return;
    /* the ring's events into one list, then into the new ring (or far) */
    rtcosim_event *all = NULL;
    for (size_t i = 0; i < c->bucket_count; i++)
        for (rtcosim_event *ev = c->buckets[i], *next; ev; ev = next) {
            next = ev->link;
            ev->link = all;
            all = ev;
        }
    if (count != c->bucket_count) {
        rtcosim_event **b = realloc(c->buckets, count * sizeof *b);
        if (b) {
            c->buckets = b;
            c->bucket_count = count;
        }
    }
    if (c->buckets)
        memset(c->buckets, 0, c->bucket_count * sizeof *c->buckets);
    c->shift = shift;
    c->head = 0;
    c->in_buckets = 0;
    for (rtcosim_event *ev = all, *next; ev; ev = next) {
        next = ev->link;
        if (!event_calendar_push(c, ev))
            c->failed = true; /* out of memory: the run stops with an error */
    }
    pull_far(c);
}

bool event_calendar_advance(event_calendar *c)
{
    if (c->bucket_count == 0 || c->pops >= c->resize_at)
        resize(c);
    while (!c->near.count) {
        if (!c->in_buckets) {
            if (!c->far.count)
                return false;
            if (c->bucket_count == 0) {
                c->failed = true; /* no memory for the ring */
                return false;
            }
            /* jump: the front bucket to the earliest far event (on the grid) */
            uint64_t skip = bucket_of(c, c->far.entries[0].time);
            c->near_last += (rtcosim_time_ns)(skip << c->shift);
            chase_reset(c);
            pull_far(c);
            continue;
        }
        rtcosim_event *list = c->buckets[c->head];
        c->buckets[c->head] = NULL;
        c->head = (c->head + 1) & (c->bucket_count - 1);
        c->front++;
        rtcosim_time_ns width = (rtcosim_time_ns)1 << c->shift;
        /* past the largest time the front covers everything (nothing is filed) */
        if (__builtin_add_overflow(c->near_last, width, &c->near_last))
            c->near_last = RTCOSIM_TIME_MAX;
        c->moved_buckets++;
        for (rtcosim_event *ev = list, *next; ev; ev = next) {
            next = ev->link;
            c->in_buckets--;
            c->moved_events++;
            if (!event_heap_push(&c->near, ev)) {
                c->failed = true; /* out of memory: the run stops with an error */
                return false;
            }
        }
        pull_far(c);
    }
    if (c->buckets)
        chase_start(c);
    return true;
}

void event_calendar_free(event_calendar *c)
{
    event_heap_free(&c->near);
    event_heap_free(&c->far);
    free(c->buckets);
    memset(c, 0, sizeof *c);
}
