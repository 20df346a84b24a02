/* Shared by the files of the kernel across ranks: the rank state of a
 * simulation (placement, batches per destination rank), the run driver's
 * window (this rank's threads process what is safe) and the two ways ranks
 * agree on what is safe (dist_sync.c). Not part of the public API. */
#ifndef RTCOSIM_EVENTS_DIST_INTERNAL_H
#define RTCOSIM_EVENTS_DIST_INTERNAL_H

#include <string.h>

#include "kernel.h"
#include "rtcosim/events_dist.h"

/* An event on the wire (homogeneous ranks: native byte order). */
typedef struct wire_event {
    int64_t time;
    uint64_t tie, seq;
    uint32_t src, dst;
    uint16_t type, size;
    uint32_t pad;
} wire_event;

typedef struct dist_buffer {
    unsigned char *data;
    size_t used, capacity;
} dist_buffer;

/* Bytes of an event with `payload` bytes on the wire (8-byte aligned). */
static inline size_t dist_wire_size(size_t payload)
{
    return sizeof(wire_event) + ((payload + 7) & ~(size_t)7);
}

/* Append ev with `payload` bytes of its payload (0 for an anti-message) and
 * the flags `pad` to b, which has dist_wire_size(payload) bytes reserved. */
static inline void dist_wire_append(dist_buffer *b, const rtcosim_event *ev, uint16_t payload,
                                    uint32_t pad)
{
    wire_event h = {.time = ev->time, .tie = ev->tie, .seq = ev->seq, .src = ev->src,
                    .dst = ev->dst, .type = ev->type, .size = payload, .pad = pad};
    memcpy(b->data + b->used, &h, sizeof h);
    if (payload)
        memcpy(b->data + b->used + sizeof h, ev->payload, payload);
    b->used += dist_wire_size(payload);
}

/* The event of a checked wire header and its payload, from w's pool (NULL
 * when out of memory). */
static inline rtcosim_event *dist_wire_take(worker *w, const wire_event *h,
                                            const unsigned char *payload)
{
    rtcosim_event *ev = event_pool_get(&w->pool);
    if (!ev)
        return NULL;
    ev->time = h->time;
    ev->tie = h->tie;
    ev->seq = h->seq;
    ev->src = h->src;
    ev->dst = h->dst;
    ev->type = h->type;
    ev->size = h->size;
    ev->reserved_ = 0;
    if (h->size)
        memcpy(ev->payload, payload, h->size);
    return ev;
}

struct dist_state {
    const rtcosim_transport *t;
    int32_t *place;      /* [place_count]: rank asked by rtcosim_events_place, -1 none */
    size_t place_count;
    uint32_t *lp_rank;   /* [lp_count] of the last run */
    size_t lp_rank_count;
    unsigned threads;    /* of the batches below */
    dist_buffer *out;    /* [threads * size]: thread w's batch for rank r at w * size + r */
    rtcosim_time_ns *min_sent; /* [threads]: earliest event in a thread's batches */
    dist_buffer in;
    int64_t *header;     /* [2 * 3 * size]: send then receive (bytes, next time, failed) */
    size_t *sizes;       /* [3 * size]: send bytes, recv bytes, recv offsets */
    const void **send;   /* [size]: the batches */
    struct spec_ranks *spec; /* speculative across ranks (sched_spec_ranks.c) */
};

/* One run over ranks, as the synchronizations see it. */
typedef struct dist_run {
    rtcosim_events *sim;
    struct dist_state *d;
    rtcosim_time_ns lookahead; /* smallest lookahead of a link between two ranks */
    rtcosim_time_ns start;
    uint64_t windows; /* reduction: exchanges; null messages: windows processed */
    /* the window the helper threads run next (written before the barrier) */
    rtcosim_time_ns limit;
    bool quit;
    round_barrier go, done;
} dist_run;

/* Smallest lookahead of a link from this rank's LPs to rank `to`'s (to < 0:
 * any other rank's), RTCOSIM_TIME_MAX when none. */
rtcosim_time_ns dist_lookahead_to(const rtcosim_events *sim, int to);
bool dist_buffer_reserve(dist_buffer *b, size_t more);
/* Earliest event queued on this rank (over its threads' heaps). */
rtcosim_time_ns dist_next(const rtcosim_events *sim);
/* The threads' batches for each rank appended to thread 0's (d->out[r]);
 * returns the earliest time among them, DIST_NO_MEMORY when out of memory. */
#define DIST_NO_MEMORY INT64_MIN
rtcosim_time_ns dist_collect_batches(struct dist_state *d);
/* Events of a batch from another rank into the heaps of their threads. */
rtcosim_status dist_inject(rtcosim_events *sim, const unsigned char *data, size_t bytes,
                           rtcosim_error *err);
/* This rank processes its events at or before `limit` (all its threads);
 * false when a handler failed (the error is in its worker). */
bool dist_window(dist_run *run, rtcosim_time_ns limit);

/* Run to the stop time with one synchronization or the other; both return
 * the failure of this rank's handler, or ECANCELED naming the rank that
 * stopped because another failed. */
rtcosim_status dist_sync_reduction(dist_run *run, rtcosim_error *err);
rtcosim_status dist_sync_null(dist_run *run, rtcosim_error *err);

#endif
