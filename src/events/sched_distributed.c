/* The kernel across ranks: each rank runs its share of the LPs, spread over
 * its threads with the thread-level conservative machinery
 * (sched_conservative.c), and the ranks advance in windows that one of the
 * two synchronizations of dist_sync.c bounds. Events for another rank go
 * into a batch per thread and destination rank (buffers kept from round to
 * round); received batches go straight into the queues of their threads
 * (between windows, when the threads are idle). Each LP still sees its
 * events in the kernel's total order, hence results identical to the
 * sequential scheduler's for any number of ranks and threads. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "spec_internal.h"
#include "util/array.h"

static void dist_free(struct dist_state *d)
{
    if (!d)
        return;
    spec_ranks_free(d);
    if (d->out && d->t)
        for (size_t k = 0; k < (size_t)d->threads * (size_t)d->t->size; k++)
            free(d->out[k].data);
    free(d->out);
    free(d->min_sent);
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
    d->header = calloc(2 * 3 * R, sizeof *d->header);
    d->sizes = calloc(3 * R, sizeof *d->sizes);
    d->send = calloc(R, sizeof *d->send);
    if (!d->header || !d->sizes || !d->send) {
        dist_free(d);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    sim->dist = d;
    return RTCOSIM_OK;
}

/* Batches for T threads (kept when T is the last run's). */
static bool batches_for(struct dist_state *d, unsigned T)
{
    size_t R = (size_t)d->t->size;
    if (d->out && d->threads == T) {
        for (size_t k = 0; k < T * R; k++)
            d->out[k].used = 0;
    } else {
        for (size_t k = 0; d->out && k < (size_t)d->threads * R; k++)
            free(d->out[k].data);
        free(d->out);
        free(d->min_sent);
        d->out = calloc(T * R, sizeof *d->out);
        d->min_sent = malloc(T * sizeof *d->min_sent);
        d->threads = d->out && d->min_sent ? T : 0;
        if (!d->threads)
            return false;
    }
    for (unsigned w = 0; w < T; w++)
        d->min_sent[w] = RTCOSIM_TIME_MAX;
    return true;
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

/* Ranks and threads of the LPs: the threads' partition over R x T parts
 * (part p on rank p / T, thread p % T), then the requests of
 * rtcosim_events_place (an LP's own, else its group's) move the rank. */
static rtcosim_status place_lps(rtcosim_events *sim, struct dist_state *d, unsigned T,
                                rtcosim_error *err)
{
    size_t n = sim->lp_count;
    rtcosim_status st = kernel_partition(sim, (unsigned)d->t->size * T, err);
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
        rtcosim_lp *lp = sim->lps[i];
        uint32_t g = lp->group;
        int32_t want = i < d->place_count ? d->place[i] : -1;
        if (want < 0 && g < d->place_count)
            want = d->place[g];
        d->lp_rank[i] = want >= 0 ? (uint32_t)want : lp->thread / T;
        lp->thread %= T;
        sim->lp_thread[i] = (uint8_t)lp->thread;
    }
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

/* Smallest lookahead of a link from this rank's LPs to rank `to`'s (to < 0:
 * to any other rank's); RTCOSIM_TIME_MAX when there is none. */
rtcosim_time_ns dist_lookahead_to(const rtcosim_events *sim, int to)
{
    const struct dist_state *d = sim->dist;
    rtcosim_time_ns L = RTCOSIM_TIME_MAX;
    uint32_t me = (uint32_t)d->t->rank;
    bool others = false, mine = false;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        uint32_t r = d->lp_rank[i];
        if (r != me) {
            others |= to < 0 || r == (uint32_t)to;
            continue;
        }
        mine = true;
        for (size_t k = 0; k < lp->out_count; k++) {
            uint32_t pr = d->lp_rank[lp->out[k].peer];
            if (pr != me && (to < 0 || pr == (uint32_t)to) && lp->out[k].lookahead < L)
                L = lp->out[k].lookahead;
        }
    }
    if (sim->link_all >= 0 && others && mine && sim->link_all < L)
        L = sim->link_all;
    return L;
}

bool dist_buffer_reserve(dist_buffer *b, size_t more)
{
    return more == 0 || util_array_reserve(&b->data, b->used + more - 1, &b->capacity, 1, 4096);
}

rtcosim_status dist_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    struct dist_state *d = sim->dist;
    uint32_t r = d->lp_rank[ev->dst];
    if ((int)r == d->t->rank) {
        unsigned t = sim->lp_thread[ev->dst];
        if (t != w->index && !sim->running_init) {
            w->cross++;
            return conservative_push(w, ev, t, err);
        }
        if (!event_calendar_push(&sim->workers[t].calendar, ev)) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        }
        return RTCOSIM_OK;
    }
    /* another rank's: appended to this thread's batch for it (buffers grow
     * by doubling and are kept, so steady state allocates nothing) */
    dist_buffer *b = &d->out[(size_t)w->index * (size_t)d->t->size + r];
    if (!dist_buffer_reserve(b, dist_wire_size(ev->size))) {
        event_pool_put(&w->pool, ev);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for a batch");
    }
    dist_wire_append(b, ev, ev->size, 0);
    if (ev->time < d->min_sent[w->index])
        d->min_sent[w->index] = ev->time;
    w->cross++;
    event_pool_put(&w->pool, ev);
    return RTCOSIM_OK;
}

rtcosim_time_ns dist_collect_batches(struct dist_state *d)
{
    size_t R = (size_t)d->t->size;
    rtcosim_time_ns min = d->min_sent[0];
    for (unsigned w = 1; w < d->threads; w++) {
        if (d->min_sent[w] < min)
            min = d->min_sent[w];
        d->min_sent[w] = RTCOSIM_TIME_MAX;
        for (size_t r = 0; r < R; r++) {
            dist_buffer *from = &d->out[w * R + r], *to = &d->out[r];
            if (!from->used)
                continue;
            if (!dist_buffer_reserve(to, from->used))
                return DIST_NO_MEMORY; /* the caller reports ENOMEM */
            memcpy(to->data + to->used, from->data, from->used);
            to->used += from->used;
            from->used = 0;
        }
    }
    d->min_sent[0] = min;
    return min;
}

rtcosim_status dist_inject(rtcosim_events *sim, const unsigned char *data, size_t bytes,
                           rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    for (size_t at = 0; at + sizeof(wire_event) <= bytes;) {
        wire_event h;
        memcpy(&h, data + at, sizeof h);
        if (h.size > RTCOSIM_EVENT_PAYLOAD_MAX || h.dst >= sim->lp_count ||
            (int)d->lp_rank[h.dst] != d->t->rank || dist_wire_size(h.size) > bytes - at)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "events: malformed event from"
                                     " another rank (dst %" PRIu32 ", %u bytes)", h.dst,
                                     (unsigned)h.size);
        /* the threads are idle: the event comes from its own thread's pool */
        worker *w = &sim->workers[sim->lp_thread[h.dst]];
        rtcosim_event *ev = dist_wire_take(w, &h, data + at + sizeof h);
        if (!ev)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for events");
        at += dist_wire_size(h.size);
        if (!event_calendar_push(&w->calendar, ev)) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        }
    }
    return RTCOSIM_OK;
}

rtcosim_time_ns dist_next(const rtcosim_events *sim)
{
    rtcosim_time_ns next = RTCOSIM_TIME_MAX;
    for (unsigned t = 0; t < sim->worker_count; t++) {
        rtcosim_time_ns n = event_calendar_min_time(&sim->workers[t].calendar);
        if (n < next)
            next = n;
    }
    return next;
}

bool dist_window(dist_run *run, rtcosim_time_ns limit)
{
    rtcosim_events *sim = run->sim;
    /* every queued event is at or after dist_next: a valid promise for all */
    conservative_restart(sim, dist_next(sim));
    run->limit = limit;
    uint64_t batches = 0;
    round_barrier_wait(&run->go, &sim->workers[0]);
    conservative_window(sim, &sim->workers[0], limit, &batches);
    round_barrier_wait(&run->done, &sim->workers[0]);
    return !atomic_load(&sim->abort_run);
}

typedef struct helper_arg {
    dist_run *run;
    worker *w;
} helper_arg;

/* Threads 1..T-1 of a rank: a window each time thread 0 says go. */
static void *helper_main(void *arg)
{
    helper_arg *a = arg;
    rtcosim_events *sim = a->run->sim;
    uint64_t batches = 0;
    for (;;) {
        round_barrier_wait(&a->run->go, a->w);
        if (a->run->quit)
            break;
        conservative_window(sim, a->w, a->run->limit, &batches);
        round_barrier_wait(&a->run->done, a->w);
    }
    return NULL;
}

/* Time Warp on every rank (sched_speculative.c, one thread each) with what
 * crosses ranks in sched_spec_ranks.c. */
static rtcosim_status spec_ranks_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    rtcosim_status st = spec_ranks_setup(sim, o, err);
    if (st == RTCOSIM_OK)
        st = place_lps(sim, d, 1, err);
    if (st == RTCOSIM_OK && !batches_for(d, 1))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    if (st == RTCOSIM_OK) {
        st = sched_speculative_run(sim, o, stats, err); /* frees the thread map */
    } else {
        free(sim->lp_thread); /* from place_lps */
        sim->lp_thread = NULL;
    }
    spec_ranks_free(d);
    return st;
}

rtcosim_status sched_distributed_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    const rtcosim_transport *t = d->t;
    unsigned T = o->threads ? o->threads : 1;
    if (o->scheduler == RTCOSIM_SCHEDULER_SPECULATIVE)
        return spec_ranks_run(sim, o, stats, err);
    if ((o->scheduler != RTCOSIM_SCHEDULER_SEQUENTIAL &&
         o->scheduler != RTCOSIM_SCHEDULER_CONSERVATIVE) || o->conservative_rounds)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: on %d ranks each rank runs"
                                 " its LPs with the conservative scheduler in channel clocks"
                                 " (asked: %s%s)", t->size, rtcosim_scheduler_name(o->scheduler),
                                 o->conservative_rounds ? " in rounds" : "");
    if ((unsigned)t->size * T > 256)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: %d ranks x %u threads is more"
                                 " than 256 parts", t->size, T);
    bool null_messages = o->rank_sync == RTCOSIM_RANK_SYNC_NULL_MESSAGES;
    if (null_messages && (!t->send || !t->receive))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: the transport has no"
                                 " point-to-point messages for null-message synchronization");
    int64_t L = 0;
    rtcosim_status st = place_lps(sim, d, T, err);
    if (st == RTCOSIM_OK) {
        L = dist_lookahead_to(sim, -1);
        st = t->allreduce_i64(t->context, &L, 1, RTCOSIM_REDUCE_MIN, err);
    }
    if (st == RTCOSIM_OK && L <= 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "events: a link of zero lookahead between"
                               " ranks: no rank could ever advance past another");
    if (st == RTCOSIM_OK && !batches_for(d, T))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    if (st == RTCOSIM_OK) {
        st = conservative_setup(sim, T, true, o->start_time, err); /* frees all on failure */
    } else {
        free(sim->lp_thread); /* from place_lps */
        sim->lp_thread = NULL;
    }
    if (st != RTCOSIM_OK)
        return st;
    dist_run run = {.sim = sim, .d = d, .lookahead = L, .start = o->start_time,
                    .go = {.parties = T},
                    .done = {.parties = T}};
    pthread_t threads[256];
    helper_arg args[256];
    unsigned started = 1;
    sim->route = ROUTE_RANKS;
    /* a failing init still takes part in the synchronization, so no rank hangs */
    rtcosim_error init_err = {0};
    bool init_failed = kernel_init_lps(sim, &init_err) != RTCOSIM_OK;
    for (unsigned w = 1; w < T; w++) {
        args[w] = (helper_arg){&run, &sim->workers[w]};
        if (pthread_create(&threads[w], NULL, helper_main, &args[w]) != 0)
            break;
        started++;
    }
    if (started != T) {
        /* the barriers expect T parties: a thread short, the window fails */
        atomic_store(&sim->abort_run, 1);
        init_failed = true;
        init_err = (rtcosim_error){0};
        rtcosim_error_set(&init_err, RTCOSIM_ENOMEM, "events: could not start %u threads", T);
        run.go.parties = run.done.parties = started;
    }
    if (init_failed) {
        sim->workers[0].failed = true;
        sim->workers[0].err = init_err;
        atomic_store(&sim->abort_run, 1);
    }
    st = null_messages ? dist_sync_null(&run, err) : dist_sync_reduction(&run, err);
    run.quit = true;
    round_barrier_wait(&run.go, &sim->workers[0]);
    for (unsigned w = 1; w < started; w++)
        pthread_join(threads[w], NULL);
    rtcosim_run_stats local = {0};
    (void)conservative_collect(sim, &local, NULL);
    stats->cross_thread = local.cross_thread;
    stats->blocked_s = local.blocked_s;
    stats->sleeps = local.sleeps;
    stats->rounds = run.windows;
    conservative_teardown(sim);
    return st;
}

rtcosim_status kernel_dist_stats(rtcosim_events *sim, rtcosim_run_stats *stats,
                                 rtcosim_error *err)
{
    const rtcosim_transport *t = sim->dist->t;
    /* counts over all ranks (GVT rounds are common to all: not summed) */
    uint64_t sums[7] = {stats->events, stats->cross_thread, stats->processed,
                        stats->rollbacks, stats->rolled_back, stats->anti_messages,
                        stats->predicted};
    rtcosim_status st = t->allreduce_u64(t->context, sums, 7, RTCOSIM_REDUCE_SUM, err);
    if (st != RTCOSIM_OK)
        return st;
    stats->events = sums[0];
    stats->cross_thread = sums[1];
    stats->processed = sums[2];
    stats->rollbacks = sums[3];
    stats->rolled_back = sums[4];
    stats->anti_messages = sums[5];
    stats->predicted = sums[6];
    int64_t end = stats->end_time;
    st = t->allreduce_i64(t->context, &end, 1, RTCOSIM_REDUCE_MAX, err);
    stats->end_time = end;
    return st;
}
