/* Event storage of the kernel: a quaternary min-heap of events ordered by the
 * total order (time, tie, seq), and per-thread free lists of preallocated
 * events so that sending an event never calls malloc in steady state. */
#ifndef RTCOSIM_EVENT_QUEUE_H
#define RTCOSIM_EVENT_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/events.h"

/* The heap keeps the whole ordering key inline next to the pointer, so that
 * sifting never dereferences an event: many events share a timestamp (every
 * plant steps on the same millisecond, a frame reaches every ECU at once),
 * and reading the events to break those ties cost a cache miss each, worst
 * for events written by another thread. 32 bytes: four children fill two
 * cache lines (see event_queue.c). */
typedef struct event_heap_entry {
    rtcosim_time_ns time;
    uint64_t tie, seq;
    rtcosim_event *ev;
} event_heap_entry;

typedef struct event_heap {
    event_heap_entry *entries;
    size_t count, capacity;
} event_heap;

/* The `seq` of an event sent `delay` ns ahead as the source's count-th send
 * at its present instant. Among one source's events at the same time, depth
 * and priority (the only ones seq orders) a smaller delay means a later
 * send, so the delay, complemented, goes in the high bits and the count in
 * the low: the order is the send order. Delays from 2^44 ns (4.9 h) on are
 * taken as equal (ordered by the count alone, still deterministic). */
enum { EVENT_SEQ_COUNT_BITS = 20, EVENT_SEQ_COUNT_MAX = (1 << EVENT_SEQ_COUNT_BITS) - 1 };
static inline uint64_t event_seq(rtcosim_time_ns delay, uint64_t count)
{
    const uint64_t dmax = ((uint64_t)1 << (64 - EVENT_SEQ_COUNT_BITS)) - 1;
    uint64_t d = (uint64_t)delay < dmax ? (uint64_t)delay : dmax;
    return (dmax - d) << EVENT_SEQ_COUNT_BITS | count;
}

static inline bool event_before(const rtcosim_event *a, const rtcosim_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->tie != b->tie)
        return a->tie < b->tie;
    return a->seq < b->seq;
}

/* The same order as event_before, on the copies of the key. Distinct times
 * decide by a branch (cheapest where they are spread); among equal times,
 * common here and unpredictable, (tie, seq) compare without branches as one
 * 128-bit number: a < b when the subtraction a - b borrows (sub/sbb). */
static inline bool heap_entry_before(const event_heap_entry *a, const event_heap_entry *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    uint64_t d;
    unsigned borrow = (unsigned)__builtin_sub_overflow(a->seq, b->seq, &d);
    return (unsigned)__builtin_sub_overflow(a->tie, b->tie, &d) |
           (unsigned)__builtin_sub_overflow(d, borrow, &d);
}

void event_heap_free(event_heap *h);
/* Grows when full (amortized doubling, rare after warm-up); false on ENOMEM. */
bool event_heap_push(event_heap *h, rtcosim_event *ev);
rtcosim_event *event_heap_pop(event_heap *h);
static inline rtcosim_time_ns event_heap_min_time(const event_heap *h)
{
    return h->count ? h->entries[0].time : RTCOSIM_TIME_MAX;
}

/* The free events are a stack of pointers, not a list through the events:
 * under the speculative scheduler they come back in bulk at fossil
 * collection, long after they were last touched, and a list's link made
 * both the freeing and the next allocation read a cold line (measured with
 * cachegrind on the 16-ECU vehicle: about one L1 miss per event each). A
 * pool may get more events back than it made (another thread's, freed
 * here): the stack grows by doubling (amortized, none in steady state).
 *
 * Between threads, events mostly flow one way (a thread whose LPs send more
 * than they receive allocates, the other frees): without a way back, the
 * sender's pool grew by a chunk after another and the receiver's stack held
 * them all, memory growing with simulated time (~250 KB per simulated second
 * for the vehicle on 2 threads). So a pool that falls below half its `keep`
 * says it is hungry, and one holding more than `keep` plus a batch hands its
 * surplus, as an array of pointers (no event is touched), to a hungry pool
 * (event_pool_share, at the threads' batch boundaries); the hungry pool takes
 * it in at its next boundary or when it runs dry, before it would allocate. */
typedef struct event_batch {
    struct event_batch *next;
    size_t count;
    rtcosim_event *events[];
} event_batch;

typedef struct event_pool {
    rtcosim_event **free;
    size_t free_count, free_cap;
    void **chunks;
    size_t chunk_count, chunk_capacity;
    size_t keep;                        /* 0: a pool alone (no sharing) */
    _Atomic(event_batch *) returned;    /* given by other pools (any thread pushes) */
    _Atomic int hungry;                 /* below keep / 2: wants events given */
    uint64_t given, taken;              /* events handed over either way (statistics) */
} event_pool;

bool event_pool_reserve(event_pool *p, size_t events);
bool event_pool_grow(event_pool *p);
/* Empty: take what other pools gave, else a new chunk. */
bool event_pool_refill(event_pool *p);
/* Take in what other pools gave (by the pool's own thread). */
void event_pool_take_returned(event_pool *p);
/* At a batch boundary of p's thread: take returned events, say whether p is
 * hungry, give a surplus to a hungry one of pools[0..count) (workers' pools,
 * `stride` bytes apart). Cheap when nothing is to do: two loads. */
void event_pool_share(event_pool *p, event_pool *pools, size_t stride, unsigned count);
static inline rtcosim_event *event_pool_get(event_pool *p)
{
    if (!p->free_count && !event_pool_refill(p))
        return NULL;
    rtcosim_event *ev = p->free[--p->free_count];
    /* the next one is usually cold: fetch it for the write that follows its
     * allocation, while this one is in use */
    if (p->free_count) {
        const char *next = (const char *)p->free[p->free_count - 1];
        __builtin_prefetch(next, 1);
        __builtin_prefetch(next + 64, 1);
        __builtin_prefetch(next + sizeof *ev - 1, 1);
    }
    return ev;
}
static inline void event_pool_put(event_pool *p, rtcosim_event *ev)
{
    /* (out of memory for the stack: the event is not reused; its chunk is
     * freed with its own pool) */
    if (p->free_count < p->free_cap || event_pool_grow(p))
        p->free[p->free_count++] = ev;
}
void event_pool_free(event_pool *p);

#endif
