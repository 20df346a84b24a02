/* The speculative scheduler's messages between threads: a lock-free
 * single-producer ring per thread pair carrying events and anti-messages (an
 * anti-message always follows its event), and their delivery to the LPs. */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/events_dist.h"
#include "spec_internal.h"
#include "util/array.h"

/* Sequentially consistent on both sides: a sleeper counts itself in
 * `sleepers` before its futex_wait checks the word, a waker bumps the word
 * before it reads `sleepers`, so either the sleeper sees the new word or the
 * waker sees the sleeper. */
void spec_wake_all(spec_shared *sh)
{
    atomic_fetch_add(&sh->wake, 1);
    if (atomic_load(&sh->sleepers)) {
        atomic_store_explicit(&sh->wake_changed_at, spin_wait_now_ns(), memory_order_relaxed);
        spin_wait_wake(&sh->wake);
    }
}

void spec_fail(spec_thread *th, rtcosim_status st)
{
    (void)st;
    th->w->failed = true;
    atomic_store(&th->sh->abort_run, 1);
    spec_wake_all(th->sh);
}

/* ---- rings ---- */

void spec_publish_rings(spec_thread *th)
{
    if (!th->unpublished)
        return;
    th->unpublished = false;
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    bool any = false;
    for (unsigned t = 0; t < T; t++) {
        spec_ring *r = &sh->rings[(size_t)me * T + t];
        if (t != me && atomic_load_explicit(&r->tail, memory_order_relaxed) != th->ring_tail[t]) {
            atomic_store_explicit(&r->tail, th->ring_tail[t], memory_order_release);
            any = true;
        }
    }
    if (any && atomic_load_explicit(&sh->sleepers, memory_order_relaxed))
        spec_wake_all(sh);
}

/* Has another thread published something for this one not yet taken? */
bool spec_rings_pending(const spec_thread *th)
{
    const spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    for (unsigned s = 0; s < T; s++) {
        spec_ring *r = &sh->rings[(size_t)s * T + me];
        if (s != me && atomic_load_explicit(&r->tail, memory_order_acquire) !=
                           atomic_load_explicit(&r->head, memory_order_relaxed))
            return true;
    }
    return false;
}

/* Move what the other threads sent into the inbox (handled later). */
static bool take_rings(spec_thread *th)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    for (unsigned s = 0; s < T; s++) {
        if (s == me)
            continue;
        spec_ring *r = &sh->rings[(size_t)s * T + me];
        size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
        size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        for (; head != tail; head++) {
            if (!util_array_reserve(&th->inbox, th->inbox_count, &th->inbox_cap,
                                    sizeof *th->inbox, 256))
                return false;
            th->inbox[th->inbox_count++] = r->slots[head & (RING_CAPACITY - 1)];
        }
        atomic_store_explicit(&r->head, head, memory_order_release);
    }
    return true;
}

rtcosim_status spec_ring_send(spec_thread *th, rtcosim_event *ev, bool anti, unsigned to,
                                rtcosim_error *err)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads;
    spec_ring *r = &sh->rings[(size_t)th->w->index * T + to];
    while (th->ring_tail[to] - atomic_load_explicit(&r->head, memory_order_acquire) >=
           RING_CAPACITY) {
        /* full: make our own inputs room meanwhile (not handled now: this
         * may run inside a handler), so two threads cannot wait on each other */
        atomic_store_explicit(&r->tail, th->ring_tail[to], memory_order_release);
        if (!take_rings(th))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        if (atomic_load_explicit(&sh->abort_run, memory_order_relaxed))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: run aborted");
        spec_wake_all(sh);
        spin_wait_relax();
    }
    r->slots[th->ring_tail[to]++ & (RING_CAPACITY - 1)] =
        (uintptr_t)ev | (anti ? 1u : 0u) | (uintptr_t)th->color << 1;
    th->sent[th->color]++; /* published when the colour ends (spec_gvt_step) */
    th->unpublished = true;
    if (ev->time < th->min_red)
        th->min_red = ev->time;
    return RTCOSIM_OK;
}

event_pool *spec_pool(spec_thread *th) { return &th->w->pool; }

/* An event for an LP that runs conservatively goes straight to its own
 * queue: through the thread's, a later one already held could be processed
 * before it (run_held takes what is safe of the held ones). */
rtcosim_status spec_hold(spec_lp *s, rtcosim_event *ev, rtcosim_error *err)
{
    if (!event_heap_push(&s->held, ev))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    return RTCOSIM_OK;
}

/* An event for an LP of this thread: a straggler rolls the LP back first. */
rtcosim_status spec_enqueue(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_lp *lp = th->w->sim->lps[ev->dst];
    spec_lp *s = lp->spec;
    if (s->conservative)
        return spec_hold(s, ev, err);
    rtcosim_status st = RTCOSIM_OK;
    /* the record's copy of the time decides most cases without a look at
     * the (cold) event */
    if (s->count && ev->time <= s->last_time && event_before(ev, spec_last(s)->ev))
        st = spec_rollback(th, lp, ev, false, err);
    if (!event_calendar_push(&th->w->calendar, ev) && st == RTCOSIM_OK)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    return st;
}

/* A real event for an LP of this thread: a predicted stream's event goes to
 * the stream (spec_predict.c), any other is queued. */
static __attribute__((noinline)) rtcosim_status deliver_to_lp(spec_thread *th,
                                                              rtcosim_event *ev,
                                                              rtcosim_error *err)
{
    rtcosim_lp *lp = th->w->sim->lps[ev->dst];
    if (lp->spec->stream_count) {
        struct spec_stream *s = spec_predict_stream_of(lp, ev);
        if (s)
            return spec_predict_arrive(th, lp, s, ev, err);
    }
    return spec_enqueue(th, ev, err);
}

static inline rtcosim_status deliver_local(spec_thread *th, rtcosim_event *ev,
                                           rtcosim_error *err)
{
    /* the usual cases touch neither the (cold) receiver nor its table: a
     * future event, or an event an LP sends itself (from the handler of its
     * newest processed event, so at or after it: it sorts after it, being
     * its child), when no LP here has streams or runs conservatively.
     * (Self-sends at the present instant are a quarter of the example
     * vehicle's events: an ECU's interrupt and job chain.) */
    if ((ev->time > th->high || ev->src == ev->dst) && !th->streams && !th->cons_count) {
        if (!event_calendar_push(&th->w->calendar, ev))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        return RTCOSIM_OK;
    }
    return deliver_to_lp(th, ev, err);
}

/* Handle the messages from other threads: events and anti-messages. */
rtcosim_status spec_drain_inbox(spec_thread *th, rtcosim_error *err)
{
    if (!take_rings(th))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    rtcosim_status st = RTCOSIM_OK;
    size_t i = 0;
    for (; i < th->inbox_count && st == RTCOSIM_OK; i++) {
        uintptr_t m = th->inbox[i];
        rtcosim_event *ev = (rtcosim_event *)(m & ~(uintptr_t)7);
        unsigned color = (unsigned)(m >> 1) & 1u;
        st = (m & 1u) ? spec_cancel_local(th, ev, err) : deliver_local(th, ev, err);
        if (st == RTCOSIM_OK)
            st = spec_drain_cancels(th, err);
        th->recv[color]++;
    }
    if (th->inbox_count) {
        /* once per drain, not per message: the counter line is read by the
         * other threads' GVT steps */
        spec_pub *pub = &th->sh->pub[th->w->index];
        for (unsigned c = 0; c < 2; c++)
            atomic_store_explicit(&pub->recv[c], th->recv[c], memory_order_release);
    }
    th->inbox_count = 0;
    return st;
}

/* An event or anti-message from another rank (sched_spec_ranks.c). */
rtcosim_status spec_take_remote(spec_thread *th, rtcosim_event *ev, bool anti,
                                rtcosim_error *err)
{
    rtcosim_status st = anti ? spec_cancel_local(th, ev, err) : deliver_local(th, ev, err);
    return st == RTCOSIM_OK ? spec_drain_cancels(th, err) : st;
}

/* spec_deliver's cases other than a send of a speculative event in one
 * process: the initial events, coasting, waiting sends, other ranks. */
static __attribute__((noinline)) rtcosim_status deliver_special(worker *w, rtcosim_event *ev,
                                                                rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    unsigned t = sim->lp_thread[ev->dst];
    bool remote = sim->dist && !rtcosim_events_owns(sim, ev->dst);
    if (sim->running_init) {
        if (remote)
            return spec_ranks_send(w, ev, false, err);
        if (sim->lps[ev->dst]->spec->conservative)
            return spec_hold(sim->lps[ev->dst]->spec, ev, err);
        if (!event_calendar_push(&sim->workers[t].calendar, ev))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        return RTCOSIM_OK;
    }
    spec_thread *th = w->spec;
    if (th->coasting) {
        event_pool_put(&w->pool, ev); /* its original, sent the first time, stands */
        return RTCOSIM_OK;
    }
    if (th->lazy_sender) {
        rtcosim_lp *lp = sim->lps[ev->src];
        rtcosim_status st = RTCOSIM_OK;
        if (spec_lazy_send(th, lp, ev, &st, err)) {
            event_pool_put(&w->pool, ev); /* the equal one sent before it was undone stands */
            return st;
        }
        if (st != RTCOSIM_OK) {
            event_pool_put(&w->pool, ev);
            return st;
        }
    }
    ev->next = th->cur->sent; /* the output log of the event being processed */
    th->cur->sent = ev;
    if (remote)
        return spec_ranks_send(w, ev, false, err);
    if (t == w->index)
        return deliver_local(th, ev, err);
    return spec_ring_send(th, ev, false, t, err);
}

rtcosim_status spec_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    spec_thread *th = w->spec;
    if (sim->running_init || sim->dist || th->coasting || th->lazy_sender)
        return deliver_special(w, ev, err);
    ev->next = th->cur->sent; /* the output log of the event being processed */
    th->cur->sent = ev;
    unsigned t = sim->lp_thread[ev->dst];
    if (t == w->index)
        return deliver_local(th, ev, err);
    return spec_ring_send(th, ev, false, t, err);
}
