/* The kernel across ranks: each rank runs its share of the LPs in one queue
 * and ranks advance in conservative windows. A round is one exchange: every
 * rank sends each other rank its batch of events (one contiguous buffer per
 * destination, reused from round to round) and its earliest next time (queue
 * head or earliest event in flight); the minimum T over ranks plus the
 * smallest lookahead L of the links between ranks bounds the window: nothing
 * sent from time >= T can reach another rank before T + L (YAWNS, Nicol
 * 1993). Each LP still sees its events in the kernel's total order, hence
 * results identical to the sequential scheduler's. */
#include <inttypes.h>
#include <stdlib.h>
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

struct dist_state {
    const rtcosim_transport *t;
    int32_t *place;      /* [place_count]: rank asked by rtcosim_events_place, -1 none */
    size_t place_count;
    uint32_t *lp_rank;   /* [lp_count] of the last run */
    size_t lp_rank_count;
    dist_buffer *out;    /* [size] batches by destination rank */
    dist_buffer in;
    int64_t *header;     /* [2 * 3 * size]: send then receive (bytes, next time, failed) */
    size_t *sizes;       /* [3 * size]: send bytes, recv bytes, recv offsets */
    const void **send;   /* [size]: the batches */
    rtcosim_time_ns min_sent;
};

enum { HEADER = 3 };

static void dist_free(struct dist_state *d)
{
    if (!d)
        return;
    if (d->out && d->t)
        for (int r = 0; r < d->t->size; r++)
            free(d->out[r].data);
    free(d->out);
    free(d->in.data);
    free(d->place);
    free(d->lp_rank);
    free(d->header);
    free(d->sizes);
    free((void *)d->send);
    free(d);
}

void kernel_dist_free(rtcosim_events *sim)
{
    dist_free(sim->dist);
    sim->dist = NULL;
}

int kernel_dist_size(const rtcosim_events *sim) { return sim->dist ? sim->dist->t->size : 1; }

rtcosim_status rtcosim_events_set_transport(rtcosim_events *sim, const rtcosim_transport *t,
                                            rtcosim_error *err)
{
    kernel_dist_free(sim);
    if (!t)
        return RTCOSIM_OK;
    if (t->size < 1 || t->rank < 0 || t->rank >= t->size || t->size > 256)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: transport of %d ranks (rank %d):"
                                 " need 1..256 ranks", t->size, t->rank);
    struct dist_state *d = calloc(1, sizeof *d);
    if (!d)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    d->t = t;
    size_t R = (size_t)t->size;
    d->out = calloc(R, sizeof *d->out);
    d->header = calloc(2 * HEADER * R, sizeof *d->header);
    d->sizes = calloc(3 * R, sizeof *d->sizes);
    d->send = calloc(R, sizeof *d->send);
    if (!d->out || !d->header || !d->sizes || !d->send) {
        dist_free(d);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    sim->dist = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_place(rtcosim_events *sim, rtcosim_lp_id lp, int rank,
                                    rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    if (lp >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: no LP %" PRIu32 " to place", lp);
    int size = d ? d->t->size : 1;
    if (rank < 0 || rank >= size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: lp '%s' placed on rank %d, but"
                                 " there are %d rank(s)", sim->lps[lp]->name, rank, size);
    if (!d)
        return RTCOSIM_OK; /* one process: everything is on rank 0 */
    if (lp >= d->place_count) {
        size_t n = sim->lp_count;
        int32_t *p = realloc(d->place, n * sizeof *p);
        if (!p)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        for (size_t i = d->place_count; i < n; i++)
            p[i] = -1;
        d->place = p;
        d->place_count = n;
    }
    d->place[lp] = rank;
    return RTCOSIM_OK;
}

int rtcosim_events_rank_of(const rtcosim_events *sim, rtcosim_lp_id lp)
{
    const struct dist_state *d = sim->dist;
    return d && lp < d->lp_rank_count ? (int)d->lp_rank[lp] : 0;
}

bool rtcosim_events_owns(const rtcosim_events *sim, rtcosim_lp_id lp)
{
    const struct dist_state *d = sim->dist;
    return !d || d->t->size == 1 || lp >= d->lp_rank_count || (int)d->lp_rank[lp] == d->t->rank;
}

/* Ranks of the LPs: the threads' partition over R, then the requests of
 * rtcosim_events_place (an LP's own, else its group's). */
static rtcosim_status place_lps(rtcosim_events *sim, struct dist_state *d, rtcosim_error *err)
{
    size_t n = sim->lp_count;
    rtcosim_status st = kernel_partition(sim, (unsigned)d->t->size, err);
    if (st != RTCOSIM_OK)
        return st;
    if (d->lp_rank_count != n) {
        free(d->lp_rank);
        d->lp_rank = malloc(n * sizeof *d->lp_rank);
        d->lp_rank_count = d->lp_rank ? n : 0;
        if (!d->lp_rank)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = sim->lps[i]->group;
        int32_t want = i < d->place_count ? d->place[i] : -1;
        if (want < 0 && g < d->place_count)
            want = d->place[g];
        d->lp_rank[i] = want >= 0 ? (uint32_t)want : sim->lps[i]->thread;
    }
    free(sim->lp_thread); /* the threads' compact map: not used over ranks */
    sim->lp_thread = NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sim->lps[i]->out_count; k++) {
            const lp_link *l = &sim->lps[i]->out[k];
            if (l->lookahead == 0 && d->lp_rank[i] != d->lp_rank[l->peer])
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: zero-lookahead link"
                                         " '%s' -> '%s' crosses ranks %u and %u: place them on"
                                         " one rank", sim->lps[i]->name,
                                         sim->lps[l->peer]->name, d->lp_rank[i],
                                         d->lp_rank[l->peer]);
        }
    return RTCOSIM_OK;
}

/* Smallest lookahead of a link from this rank's LPs to another rank's. */
static rtcosim_time_ns cross_lookahead(const rtcosim_events *sim, const struct dist_state *d)
{
    rtcosim_time_ns L = RTCOSIM_TIME_MAX;
    uint32_t me = (uint32_t)d->t->rank;
    bool others = false, mine = false;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        if (d->lp_rank[i] != me) {
            others = true;
            continue;
        }
        mine = true;
        for (size_t k = 0; k < lp->out_count; k++)
            if (d->lp_rank[lp->out[k].peer] != me && lp->out[k].lookahead < L)
                L = lp->out[k].lookahead;
    }
    if (sim->link_all >= 0 && others && mine && sim->link_all < L)
        L = sim->link_all;
    return L;
}

static bool buffer_reserve(dist_buffer *b, size_t more)
{
    if (b->used + more <= b->capacity)
        return true;
    size_t cap = b->capacity ? b->capacity : 4096;
    while (cap < b->used + more)
        cap *= 2;
    unsigned char *p = realloc(b->data, cap);
    if (!p)
        return false;
    b->data = p;
    b->capacity = cap;
    return true;
}

static size_t wire_size(const rtcosim_event *ev)
{
    return sizeof(wire_event) + (((size_t)ev->size + 7) & ~(size_t)7);
}

rtcosim_status dist_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    struct dist_state *d = sim->dist;
    uint32_t r = d->lp_rank[ev->dst];
    if ((int)r == d->t->rank) {
        if (!event_heap_push(&w->heap, ev)) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        }
        return RTCOSIM_OK;
    }
    /* another rank's: appended to its batch (buffers grow by doubling and are
     * kept, so steady state allocates nothing) */
    dist_buffer *b = &d->out[r];
    size_t bytes = wire_size(ev);
    if (!buffer_reserve(b, bytes)) {
        event_pool_put(&w->pool, ev);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for a batch");
    }
    wire_event h = {.time = ev->time, .tie = ev->tie, .seq = ev->seq, .src = ev->src,
                    .dst = ev->dst, .type = ev->type, .size = ev->size};
    memcpy(b->data + b->used, &h, sizeof h);
    if (ev->size)
        memcpy(b->data + b->used + sizeof h, ev->payload, ev->size);
    b->used += bytes;
    if (ev->time < d->min_sent)
        d->min_sent = ev->time;
    w->cross++;
    event_pool_put(&w->pool, ev);
    return RTCOSIM_OK;
}

/* One round's exchange: batches out, theirs in (into the queue), and the
 * global earliest next time. *any_failed tells whether a rank failed. */
static rtcosim_status exchange(worker *w, struct dist_state *d, bool failed,
                               rtcosim_time_ns *global_next, bool *any_failed,
                               rtcosim_error *err)
{
    const rtcosim_transport *t = d->t;
    size_t R = (size_t)t->size;
    rtcosim_time_ns next = event_heap_min_time(&w->heap);
    if (d->min_sent < next)
        next = d->min_sent;
    int64_t *hs = d->header, *hr = d->header + HEADER * R;
    for (size_t r = 0; r < R; r++) {
        hs[r * HEADER] = (int64_t)d->out[r].used;
        hs[r * HEADER + 1] = next;
        hs[r * HEADER + 2] = failed;
    }
    rtcosim_status st = t->alltoall_i64(t->context, hs, hr, HEADER, err);
    if (st != RTCOSIM_OK)
        return st;
    *global_next = RTCOSIM_TIME_MAX;
    *any_failed = false;
    size_t *sb = d->sizes, *rb = sb + R, *ro = rb + R;
    size_t recv_total = 0;
    for (size_t r = 0; r < R; r++) {
        if (hr[r * HEADER + 1] < *global_next)
            *global_next = hr[r * HEADER + 1];
        *any_failed |= hr[r * HEADER + 2] != 0;
        sb[r] = d->out[r].used;
        d->send[r] = d->out[r].data;
        rb[r] = (size_t)hr[r * HEADER];
        ro[r] = recv_total;
        recv_total += rb[r];
    }
    if (*any_failed)
        return RTCOSIM_OK;
    d->in.used = 0;
    if (!buffer_reserve(&d->in, recv_total))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for a batch");
    st = t->exchange(t->context, d->send, sb, d->in.data, rb, ro, err);
    if (st != RTCOSIM_OK)
        return st;
    for (size_t r = 0; r < R; r++)
        d->out[r].used = 0;
    d->min_sent = RTCOSIM_TIME_MAX;
    for (size_t at = 0; at + sizeof(wire_event) <= recv_total;) {
        wire_event h;
        memcpy(&h, d->in.data + at, sizeof h);
        rtcosim_event *ev = event_pool_get(&w->pool);
        if (!ev)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for events");
        if (h.size > RTCOSIM_EVENT_PAYLOAD_MAX || h.dst >= w->sim->lp_count ||
            (int)d->lp_rank[h.dst] != t->rank) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "events: malformed event from"
                                     " another rank (dst %" PRIu32 ", %u bytes)", h.dst,
                                     (unsigned)h.size);
        }
        ev->time = h.time;
        ev->tie = h.tie;
        ev->seq = h.seq;
        ev->src = h.src;
        ev->dst = h.dst;
        ev->type = h.type;
        ev->size = h.size;
        ev->reserved_ = 0;
        if (h.size)
            memcpy(ev->payload, d->in.data + at + sizeof h, h.size);
        at += sizeof h + (((size_t)h.size + 7) & ~(size_t)7);
        if (!event_heap_push(&w->heap, ev)) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        }
    }
    return RTCOSIM_OK;
}

rtcosim_status sched_distributed_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    const rtcosim_transport *t = d->t;
    if (o->threads > 1 || (o->scheduler != RTCOSIM_SCHEDULER_SEQUENTIAL &&
                           o->scheduler != RTCOSIM_SCHEDULER_CONSERVATIVE))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: on %d ranks each rank runs"
                                 " its LPs conservatively on one thread (asked: %s, %u threads)",
                                 t->size, rtcosim_scheduler_name(o->scheduler), o->threads);
    rtcosim_status st = place_lps(sim, d, err);
    if (st != RTCOSIM_OK)
        return st;
    int64_t L = cross_lookahead(sim, d);
    st = t->allreduce_i64(t->context, &L, 1, RTCOSIM_REDUCE_MIN, err);
    if (st != RTCOSIM_OK)
        return st;
    worker w = {.sim = sim};
    if (!event_pool_reserve(&w.pool, sim->lp_count * 4 > 4096 ? sim->lp_count * 4 : 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    for (size_t i = 0; i < sim->lp_count; i++)
        sim->lps[i]->worker = &w;
    sim->route = ROUTE_RANKS;
    d->min_sent = RTCOSIM_TIME_MAX;
    for (int r = 0; r < t->size; r++)
        d->out[r].used = 0;
    rtcosim_error mine = {0};
    bool failed = kernel_init_lps(sim, &mine) != RTCOSIM_OK;
    uint64_t rounds = 0;
    for (;;) {
        rtcosim_time_ns next;
        bool any_failed;
        st = exchange(&w, d, failed, &next, &any_failed, err);
        if (st != RTCOSIM_OK)
            break;
        rounds++;
        if (any_failed) {
            if (failed) {
                *err = mine;
                st = mine.status != RTCOSIM_OK ? mine.status : RTCOSIM_ECANCELED;
            } else {
                st = rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: rank %d stopped: another"
                                       " rank failed (its error is reported there)", t->rank);
            }
            break;
        }
        if (next > sim->stop)
            break;
        rtcosim_time_ns end = L > RTCOSIM_TIME_MAX - next ? RTCOSIM_TIME_MAX : next + L;
        while (w.heap.count && w.heap.entries[0].time < end) {
            rtcosim_event *ev = event_heap_pop(&w.heap);
            rtcosim_status s = kernel_process(sim->lps[ev->dst], ev, &mine);
            event_pool_put(&w.pool, ev);
            if (s != RTCOSIM_OK) {
                failed = true;
                break;
            }
        }
    }
    stats->rounds = rounds;
    stats->cross_thread = w.cross;
    while (w.heap.count)
        event_pool_put(&w.pool, event_heap_pop(&w.heap));
    event_heap_free(&w.heap);
    event_pool_free(&w.pool);
    return st;
}

rtcosim_status kernel_dist_stats(rtcosim_events *sim, rtcosim_run_stats *stats,
                                 rtcosim_error *err)
{
    const rtcosim_transport *t = sim->dist->t;
    uint64_t sums[2] = {stats->events, stats->cross_thread};
    rtcosim_status st = t->allreduce_u64(t->context, sums, 2, RTCOSIM_REDUCE_SUM, err);
    if (st != RTCOSIM_OK)
        return st;
    stats->events = sums[0];
    stats->cross_thread = sums[1];
    int64_t end = stats->end_time;
    st = t->allreduce_i64(t->context, &end, 1, RTCOSIM_REDUCE_MAX, err);
    stats->end_time = end;
    return st;
}
