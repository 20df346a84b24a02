/* The speculative scheduler: Time Warp (Jefferson 1985) on worker threads,
 * each owning a partition of the LPs (as the conservative scheduler places
 * them) and one queue of their pending events, as ROSS's PEs do.
 *  - A thread processes its queue in the total order (time, tie, seq) without
 *    waiting, saving the LP's state before every event (spec_table.c).
 *  - An event for an LP that already processed a later one (a straggler)
 *    rolls that LP back: its undone events return to the queue, its state is
 *    restored, and the events it sent from the undone steps are cancelled.
 *  - Cancellation: an event on the same thread is annihilated directly (lazy
 *    deletion from the queue, or a rollback of its receiver when processed);
 *    for another thread an anti-message goes through the same lock-free
 *    single-producer ring as the events, so it always follows its event.
 *  - GVT: Mattern's two-colour cut without barriers. A new epoch switches
 *    every thread's colour; once every message of the old colour has been
 *    received (counted per colour), each thread reports the minimum of its
 *    queue and of what it sent since the switch; GVT is the minimum of the
 *    reports. Nothing can roll back below GVT, so records and events below it
 *    are committed and freed (fossil collection).
 *  - Optimism is bounded: no event later than GVT + max_ahead is processed,
 *    so memory and the depth of cascades stay bounded and a run cannot
 *    livelock; the thread holding the globally earliest event always may.
 * Why partitions instead of one global queue of LPs: the threads then touch
 * their own queue and LPs only, and the LPs joined by short lookahead cycles
 * (an ECU network and its bus) stay on one thread where they never roll each
 * other back. Measured on `bench ecu` N = 16 (see README). */
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rtcosim/events_dist.h"
#include "spec_internal.h"

enum {
    RING_CAPACITY = 1 << 14,
    BATCH_EVENTS = 16,       /* events between looks at the rings and GVT */
    GVT_INTERVAL = 2048,     /* events of thread 0 between GVT epochs */
    SPIN_MIN = 16, SPIN_MAX = 4096, /* pause rounds before sleeping */
    /* default: a snapshot before every 4th event of an LP whose snapshot is
     * larger than SMALL_SNAPSHOT bytes (the ECU's ~1 kB, a plant's), before
     * every event otherwise (copying a few words costs less than the
     * bookkeeping and the coast-forward it would save) */
    CHECKPOINT_INTERVAL = 4, SMALL_SNAPSHOT = 128,
};

/* A message in a ring: an event pointer, bit 0 set for an anti-message, bit
 * 1 the sender's colour (events are 8-byte aligned). */
typedef struct spec_ring {
    _Alignas(64) _Atomic size_t head;
    _Alignas(64) _Atomic size_t tail;
    _Alignas(64) uintptr_t *slots;
} spec_ring;

/* What each thread publishes for GVT, on a cache line of its own. */
typedef struct spec_pub {
    _Alignas(64) _Atomic uint64_t ack_epoch, report_epoch;
    _Atomic rtcosim_time_ns report, report_pred;
    _Atomic uint64_t sent[2], recv[2];
} spec_pub;

typedef struct spec_shared {
    unsigned threads;
    spec_ring *rings; /* s -> t at s * T + t */
    spec_pub *pub;
    _Alignas(64) _Atomic uint64_t epoch, gvt_epoch;
    _Atomic rtcosim_time_ns gvt, gvt_real; /* gvt_real: without unconfirmed predictions */
    /* GVT of epoch e at [e & 3] (written before gvt_epoch becomes e), for
     * the bound of the conservative LPs; [3] holds the start time as epoch
     * -1's. */
    _Atomic rtcosim_time_ns gvt_of[4];
    _Atomic int abort_run;
    _Alignas(64) _Atomic uint32_t wake;
    _Atomic uint32_t sleepers;
    _Atomic uint32_t sleep_seen; /* the value of `wake` the sleepers wait on */
    rtcosim_time_ns max_ahead;
} spec_shared;

typedef struct spec_thread {
    worker *w;
    spec_shared *sh;
    spec_record *cur; /* record of the event being processed */
    rtcosim_event **cancel;
    size_t cancel_count, cancel_cap;
    uintptr_t *inbox; /* taken from full rings, not yet handled */
    size_t inbox_count, inbox_cap;
    size_t *ring_tail; /* producer side, unpublished */
    uint64_t epoch, sent[2], recv[2];
    rtcosim_time_ns min_red, fossil_gvt, fossil_real;
    unsigned color;
    uint64_t since_gvt, gvt_rounds;
    rtcosim_lp_id *lps; /* the LPs of this thread */
    size_t lp_count;
    rtcosim_lp_id *cons; /* those that run conservatively (no state saving) */
    size_t cons_count;
    bool streams; /* some of them have predicted input streams */
    unsigned spin; /* adaptive spin budget (wait_for_progress) */
    bool coasting;  /* re-executing events after a restore: sends suppressed */
} spec_thread;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Every thread asleep waits on the current value of `wake` (futex_wait
 * returns at once otherwise), so only the bump from that value needs the
 * system call; later bumps, until someone sleeps again, do not. Sequentially
 * consistent accesses on both sides: a sleeper that registers after the
 * bump finds the word changed and does not sleep. */
static void wake_all(spec_shared *sh)
{
    uint32_t old = atomic_fetch_add(&sh->wake, 1);
    if (atomic_load(&sh->sleepers) && atomic_load(&sh->sleep_seen) == old)
        syscall(SYS_futex, &sh->wake, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

static void fail(spec_thread *th, rtcosim_status st)
{
    (void)st;
    th->w->failed = true;
    atomic_store(&th->sh->abort_run, 1);
    wake_all(th->sh);
}

static bool push_vec(void **vec, size_t *count, size_t *cap, size_t elem, const void *item)
{
    if (*count == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        void *p = realloc(*vec, c * elem);
        if (!p)
            return false;
        *vec = p;
        *cap = c;
    }
    memcpy((char *)*vec + *count * elem, item, elem);
    (*count)++;
    return true;
}

/* ---- rings ---- */

static void publish_rings(spec_thread *th)
{
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
        wake_all(sh);
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
        for (; head != tail; head++)
            if (!push_vec((void **)&th->inbox, &th->inbox_count, &th->inbox_cap,
                          sizeof *th->inbox, &r->slots[head & (RING_CAPACITY - 1)]))
                return false;
        atomic_store_explicit(&r->head, head, memory_order_release);
    }
    return true;
}

static rtcosim_status ring_send(spec_thread *th, rtcosim_event *ev, bool anti, unsigned to,
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
        wake_all(sh);
        cpu_relax();
    }
    r->slots[th->ring_tail[to]++ & (RING_CAPACITY - 1)] =
        (uintptr_t)ev | (anti ? 1u : 0u) | (uintptr_t)th->color << 1;
    th->sent[th->color]++;
    atomic_store_explicit(&sh->pub[th->w->index].sent[th->color], th->sent[th->color],
                          memory_order_release);
    if (ev->time < th->min_red)
        th->min_red = ev->time;
    return RTCOSIM_OK;
}

/* ---- rollback and cancellation ---- */

static rtcosim_status cancel_sent(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                  rtcosim_error *err)
{
    rtcosim_events *sim = th->w->sim;
    lp->spec->anti_messages++;
    if (ev->reserved_ & EV_REMOTE) /* its receiver is on another rank */
        return spec_ranks_send(th->w, ev, true, err);
    unsigned t = sim->lp_thread[ev->dst];
    if (t == th->w->index) {
        if (!push_vec((void **)&th->cancel, &th->cancel_count, &th->cancel_cap,
                      sizeof *th->cancel, &ev))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        return RTCOSIM_OK;
    }
    return ring_send(th, ev, true, t, err);
}

static unsigned depth_bin(uint64_t n)
{
    unsigned b = 0;
    while (n > 1 && b + 1 < SPEC_DEPTH_BINS) {
        n >>= 1;
        b++;
    }
    return b;
}

/* Bring the LP to its state before the (undone) record `r`: restore the last
 * snapshot at or before it, then coast forward through the kept records in
 * between (Fleischmann & Wilsey's periodic checkpointing): their events are
 * processed again with their sends dropped, since the events they sent
 * first still stand; the model is deterministic in its state and event, so
 * this reproduces the state exactly. The kernel state comes from `r`. */
static rtcosim_status restore_state(spec_thread *th, rtcosim_lp *lp, const spec_record *r,
                                    rtcosim_error *err)
{
    if (r->ckpt_dist == 0)
        return spec_table_restore(lp, r, err);
    spec_lp *s = lp->spec;
    size_t from = s->count - r->ckpt_dist; /* r was at index count */
    rtcosim_status st = spec_table_restore(lp, spec_at(s, from), err);
    th->coasting = true;
    for (size_t i = from; i < s->count && st == RTCOSIM_OK; i++)
        st = kernel_process(lp, spec_at(s, i)->ev, err);
    th->coasting = false;
    s->coasted += s->count - from;
    lp->now = r->now;
    lp->depth = r->depth;
    lp->seq = r->seq;
    lp->processed = r->processed;
    memcpy(lp->rng, r->rng, sizeof lp->rng);
    return st;
}

/* Undo the LP's processed events that sort after `key` (and `key` itself when
 * `inclusive`, which then is freed instead of queued again). */
rtcosim_status spec_rollback(spec_thread *th, rtcosim_lp *lp, rtcosim_event *key,
                             bool inclusive, rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    worker *w = th->w;
    uint64_t undone = 0;
    if (key->time < th->fossil_gvt)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: lp '%s': rollback to t=%.9f s"
                                 " below GVT %.9f s (kernel bug)", lp->name,
                                 rtcosim_time_to_seconds(key->time),
                                 rtcosim_time_to_seconds(th->fossil_gvt));
    spec_record restore_point;
    rtcosim_status st = RTCOSIM_OK;
    while (s->count) {
        spec_record *r = spec_last(s);
        if (r->ev != key && !event_before(key, r->ev))
            break;
        if (r->ev == key && !inclusive)
            break;
        restore_point = *r;
        s->count--;
        for (rtcosim_event *e = r->sent, *next; e; e = next) {
            next = e->next; /* read before the receiver may free it */
            if (st == RTCOSIM_OK)
                st = cancel_sent(th, lp, e, err);
        }
        rtcosim_event *ev = restore_point.ev;
        ev->reserved_ &= ~EV_PROCESSED;
        undone++;
        if (ev == key) {
            event_pool_put(&w->pool, ev);
            break;
        }
        if (!event_heap_push(&w->heap, ev) && st == RTCOSIM_OK)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    }
    if (undone == 0)
        return st;
    s->rollbacks++;
    s->rolled_back += undone;
    s->depth_hist[depth_bin(undone)]++;
    rtcosim_status rs = restore_state(th, lp, &restore_point, err);
    return st != RTCOSIM_OK ? st : rs;
}

event_pool *spec_pool(spec_thread *th) { return &th->w->pool; }

/* An event for an LP of this thread: a straggler rolls the LP back first. */
rtcosim_status spec_enqueue(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_lp *lp = th->w->sim->lps[ev->dst];
    spec_lp *s = lp->spec;
    rtcosim_status st = RTCOSIM_OK;
    if (s->count && event_before(ev, spec_last(s)->ev))
        st = spec_rollback(th, lp, ev, false, err);
    if (!event_heap_push(&th->w->heap, ev) && st == RTCOSIM_OK)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    return st;
}

/* A real event for an LP of this thread: a predicted stream's event goes to
 * the stream (spec_predict.c), any other is queued. */
static rtcosim_status deliver_local(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_lp *lp = th->w->sim->lps[ev->dst];
    if (lp->spec->stream_count) {
        struct spec_stream *s = spec_predict_stream_of(lp, ev);
        if (s)
            return spec_predict_arrive(th, lp, s, ev, err);
    }
    return spec_enqueue(th, ev, err);
}

static rtcosim_status cancel_local(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    if (ev->reserved_ & EV_STREAM)
        return spec_predict_cancel(th, th->w->sim->lps[ev->dst], ev, err);
    if (ev->reserved_ & EV_PROCESSED)
        return spec_rollback(th, th->w->sim->lps[ev->dst], ev, true, err);
    ev->reserved_ |= EV_CANCELLED; /* freed when it reaches the top of the queue */
    return RTCOSIM_OK;
}

static rtcosim_status drain_cancels(spec_thread *th, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    while (th->cancel_count && st == RTCOSIM_OK)
        st = cancel_local(th, th->cancel[--th->cancel_count], err);
    return st;
}

/* Handle the messages from other threads: events and anti-messages. */
static rtcosim_status drain_inbox(spec_thread *th, rtcosim_error *err)
{
    if (!take_rings(th))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    rtcosim_status st = RTCOSIM_OK;
    size_t i = 0;
    for (; i < th->inbox_count && st == RTCOSIM_OK; i++) {
        uintptr_t m = th->inbox[i];
        rtcosim_event *ev = (rtcosim_event *)(m & ~(uintptr_t)7);
        unsigned color = (unsigned)(m >> 1) & 1u;
        st = (m & 1u) ? cancel_local(th, ev, err) : deliver_local(th, ev, err);
        if (st == RTCOSIM_OK)
            st = drain_cancels(th, err);
        th->recv[color]++;
        atomic_store_explicit(&th->sh->pub[th->w->index].recv[color], th->recv[color],
                              memory_order_release);
    }
    th->inbox_count = 0;
    return st;
}

rtcosim_status spec_take_remote(spec_thread *th, rtcosim_event *ev, bool anti,
                                rtcosim_error *err)
{
    rtcosim_status st = anti ? cancel_local(th, ev, err) : deliver_local(th, ev, err);
    return st == RTCOSIM_OK ? drain_cancels(th, err) : st;
}

rtcosim_status spec_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    unsigned t = sim->lp_thread[ev->dst];
    bool remote = sim->dist && !rtcosim_events_owns(sim, ev->dst);
    if (sim->running_init) {
        if (remote)
            return spec_ranks_send(w, ev, false, err);
        if (!event_heap_push(&sim->workers[t].heap, ev))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        return RTCOSIM_OK;
    }
    spec_thread *th = w->spec;
    if (th->coasting) {
        event_pool_put(&w->pool, ev); /* its original, sent the first time, stands */
        return RTCOSIM_OK;
    }
    ev->next = th->cur->sent; /* the output log of the event being processed */
    th->cur->sent = ev;
    if (remote)
        return spec_ranks_send(w, ev, false, err);
    if (t == w->index)
        return deliver_local(th, ev, err);
    return ring_send(th, ev, false, t, err);
}

/* ---- GVT (Mattern's two-colour cut) ---- */

static void gvt_step(spec_thread *th)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    uint64_t e = atomic_load_explicit(&sh->epoch, memory_order_acquire);
    if (e != th->epoch) {
        /* switch colour: what this thread sends from now on is red */
        th->epoch = e;
        th->color = (unsigned)(e & 1u);
        th->min_red = RTCOSIM_TIME_MAX;
        atomic_store_explicit(&sh->pub[me].ack_epoch, e, memory_order_release);
        wake_all(sh); /* a thread waiting for every ack may sleep */
    }
    if (e == 0)
        return;
    if (atomic_load_explicit(&sh->pub[me].report_epoch, memory_order_relaxed) != e) {
        unsigned white = (unsigned)((e - 1) & 1u);
        uint64_t sent = 0, recv = 0;
        for (unsigned s = 0; s < T; s++)
            if (atomic_load_explicit(&sh->pub[s].ack_epoch, memory_order_acquire) != e)
                return;
        for (unsigned s = 0; s < T; s++)
            sent += atomic_load_explicit(&sh->pub[s].sent[white], memory_order_acquire);
        for (unsigned s = 0; s < T; s++)
            recv += atomic_load_explicit(&sh->pub[s].recv[white], memory_order_acquire);
        if (sent != recv)
            return; /* white messages still in flight */
        rtcosim_time_ns local = event_heap_min_time(&th->w->heap), pred = RTCOSIM_TIME_MAX;
        if (th->min_red < local)
            local = th->min_red;
        for (size_t i = 0; i < th->cons_count; i++) {
            rtcosim_time_ns h = event_heap_min_time(&th->w->sim->lps[th->cons[i]]->spec->held);
            if (h < local)
                local = h;
        }
        for (size_t i = 0; th->streams && i < th->lp_count; i++) {
            rtcosim_time_ns u = spec_predict_unconfirmed(th->w->sim->lps[th->lps[i]]);
            if (u < pred)
                pred = u;
        }
        atomic_store_explicit(&sh->pub[me].report, local, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_pred, pred, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_epoch, e, memory_order_release);
        wake_all(sh);
    }
    if (atomic_load_explicit(&sh->gvt_epoch, memory_order_acquire) == e)
        return;
    rtcosim_time_ns g = RTCOSIM_TIME_MAX, real = RTCOSIM_TIME_MAX;
    for (unsigned s = 0; s < T; s++) {
        if (atomic_load_explicit(&sh->pub[s].report_epoch, memory_order_acquire) != e)
            return;
        rtcosim_time_ns r = atomic_load_explicit(&sh->pub[s].report, memory_order_relaxed);
        rtcosim_time_ns p = atomic_load_explicit(&sh->pub[s].report_pred, memory_order_relaxed);
        if (r < real)
            real = r;
        if (p < g)
            g = p;
    }
    if (real < g)
        g = real;
    rtcosim_time_ns old = atomic_load(&sh->gvt_real);
    while (real > old && !atomic_compare_exchange_weak(&sh->gvt_real, &old, real)) {
    }
    old = atomic_load(&sh->gvt);
    while (g > old && !atomic_compare_exchange_weak(&sh->gvt, &old, g)) {
    }
    atomic_store(&sh->gvt_of[e & 3], g);
    uint64_t prev = e - 1;
    if (atomic_compare_exchange_strong(&sh->gvt_epoch, &prev, e)) {
        th->gvt_rounds++;
        wake_all(sh);
    }
}

static void start_epoch(spec_shared *sh)
{
    uint64_t e = atomic_load(&sh->epoch);
    if (atomic_load(&sh->gvt_epoch) == e && atomic_compare_exchange_strong(&sh->epoch, &e, e + 1))
        wake_all(sh);
}

/* Free what is committed: records and events below GVT. */
static void fossil_collect(spec_thread *th, rtcosim_time_ns gvt, rtcosim_time_ns gvt_real)
{
    rtcosim_events *sim = th->w->sim;
    for (size_t i = 0; i < th->lp_count; i++) {
        spec_lp *s = sim->lps[th->lps[i]]->spec;
        if (s->stream_count && gvt < RTCOSIM_TIME_MAX) {
            rtcosim_status st = spec_predict_gvt(th, sim->lps[th->lps[i]], gvt_real, gvt,
                                                 &th->w->err);
            if (st != RTCOSIM_OK)
                fail(th, st);
            st = drain_cancels(th, &th->w->err);
            if (st != RTCOSIM_OK)
                fail(th, st);
        }
        /* keep the last snapshot at or before the first record GVT has not
         * passed: a rollback to that record coasts forward from it */
        size_t f = 0;
        while (f < s->count && spec_at(s, f)->ev->time < gvt)
            f++;
        size_t keep_from = f < s->count ? f - spec_at(s, f)->ckpt_dist : f;
        for (size_t k = 0; k < keep_from; k++) {
            event_pool_put(&th->w->pool, spec_first(s)->ev);
            s->head = (s->head + 1) & (s->cap - 1);
            s->count--;
        }
    }
    th->fossil_gvt = gvt;
    th->fossil_real = gvt_real;
}

/* ---- the thread loop ---- */

static rtcosim_status process_one(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = th->w->sim;
    rtcosim_lp *lp = sim->lps[ev->dst];
    spec_record *r = spec_table_push(lp, ev, err);
    if (!r)
        return err ? err->status : RTCOSIM_ENOMEM;
    ev->reserved_ |= EV_PROCESSED;
    lp->spec->processed++;
    th->cur = r;
    rtcosim_status st = kernel_process(lp, ev, err);
    th->cur = NULL;
    th->w->events++;
    if (st == RTCOSIM_OK && (ev->reserved_ & EV_PREDICTED))
        st = spec_predict_processed(th, lp, ev, err);
    /* what it sent to other threads goes out now, not after the batch: a
     * receiver that gets it late has to roll back */
    publish_rings(th);
    if (st == RTCOSIM_OK)
        st = drain_cancels(th, err);
    return st;
}

/* ---- LPs that cannot save their state: conservative among speculative ---- */

/* Events below the returned time may be processed by a conservative LP with
 * input lookahead `la`: with g_e the GVT of the last completed epoch e, every
 * message of time < g_(e-1) + la was sent by an event below g_(e-1), which
 * was processed (and committed) before its thread reported for epoch e-1,
 * so before epoch e began: it is white for epoch e and was received before
 * g_e was computed (Mattern's count). Messages below g_e are received for
 * the same reason. So nothing can still arrive below max(g_e, g_(e-1) + la);
 * strictly below, since one at that time may sort first. */
static rtcosim_time_ns conservative_base(spec_shared *sh, rtcosim_time_ns *prev)
{
    for (;;) {
        uint64_t e = atomic_load(&sh->gvt_epoch);
        rtcosim_time_ns now = atomic_load(&sh->gvt_of[e & 3]);
        *prev = atomic_load(&sh->gvt_of[(e - 1) & 3]);
        if (atomic_load(&sh->gvt_epoch) < e + 2) /* neither slot overwritten since */
            return now;
    }
}

static rtcosim_time_ns conservative_bound(rtcosim_time_ns now, rtcosim_time_ns prev,
                                          rtcosim_time_ns la)
{
    rtcosim_time_ns b = prev > RTCOSIM_TIME_MAX - la ? RTCOSIM_TIME_MAX : prev + la;
    return b > now ? b : now;
}

/* Process an event of a conservative LP: no snapshot, no record; it is final
 * (its sends can never be cancelled), so it is freed at once. */
static rtcosim_status process_conservative(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                           rtcosim_error *err)
{
    spec_record scratch = {.ev = ev};
    lp->spec->processed++;
    th->cur = &scratch;
    rtcosim_status st = kernel_process(lp, ev, err);
    th->cur = NULL;
    th->w->events++;
    event_pool_put(&th->w->pool, ev);
    publish_rings(th);
    if (st == RTCOSIM_OK)
        st = drain_cancels(th, err);
    return st;
}

/* Process the held events of this thread's conservative LPs that have become
 * safe (and are within the optimism bound); returns how many. */
static unsigned run_held(spec_thread *th, rtcosim_time_ns bound, rtcosim_status *st)
{
    rtcosim_events *sim = th->w->sim;
    rtcosim_time_ns prev, now = conservative_base(th->sh, &prev);
    unsigned n = 0;
    for (size_t i = 0; i < th->cons_count && *st == RTCOSIM_OK; i++) {
        rtcosim_lp *lp = sim->lps[th->cons[i]];
        event_heap *h = &lp->spec->held;
        rtcosim_time_ns safe = conservative_bound(now, prev, lp->spec->in_lookahead);
        while (h->count && *st == RTCOSIM_OK) {
            if (h->entries[0].ev->reserved_ & EV_CANCELLED) {
                event_pool_put(&th->w->pool, event_heap_pop(h));
                continue;
            }
            if (h->entries[0].time >= safe || h->entries[0].time > bound)
                break;
            *st = process_conservative(th, lp, event_heap_pop(h), &th->w->err);
            n++;
        }
    }
    return n;
}

/* Wait for a change of `wake` (a GVT step, an epoch, a message): spin for
 * an adaptive number of rounds, then sleep on the futex (200 us at most).
 * The budget doubles when a wait ends while spinning (the other thread is
 * running on another core) and halves when it had to sleep (on a loaded
 * machine the other thread is often not running at all, and spinning only
 * takes the CPU it needs: measured, spinning was a fifth of the CPU time of
 * the vehicle under a load of 6 on 2 cores). */
static void wait_for_progress(spec_thread *th, uint32_t seen)
{
    spec_shared *sh = th->sh;
    for (unsigned i = 0; i < th->spin; i++) {
        if (atomic_load_explicit(&sh->wake, memory_order_acquire) != seen) {
            th->spin = th->spin < SPIN_MAX / 2 ? 2 * th->spin : SPIN_MAX;
            return;
        }
        cpu_relax();
    }
    th->spin = th->spin > 2 * SPIN_MIN ? th->spin / 2 : SPIN_MIN;
    struct timespec limit = {0, 200000};
    atomic_fetch_add(&sh->sleepers, 1);
    atomic_store(&sh->sleep_seen, seen);
    syscall(SYS_futex, &sh->wake, FUTEX_WAIT_PRIVATE, seen, &limit, NULL, 0);
    atomic_fetch_sub(&sh->sleepers, 1);
    th->w->wait.sleeps++;
}

static void thread_loop(spec_thread *th)
{
    worker *w = th->w;
    rtcosim_events *sim = w->sim;
    spec_shared *sh = th->sh;
    rtcosim_error *err = &w->err;
    const bool ranks = kernel_dist_size(sim) > 1; /* Time Warp across ranks */
    for (;;) {
        publish_rings(th);
        uint32_t seen = atomic_load(&sh->wake);
        if (atomic_load_explicit(&sh->abort_run, memory_order_acquire))
            return;
        rtcosim_status st = drain_inbox(th, err);
        if (st == RTCOSIM_OK && ranks)
            st = spec_ranks_poll(th, w, err);
        if (st != RTCOSIM_OK) {
            fail(th, st);
            return;
        }
        if (!ranks) {
            gvt_step(th);
        } else {
            rtcosim_time_ns g, g_real;
            int r = spec_ranks_gvt(th, w, false, false, &g, &g_real, err);
            if (r < 0) {
                fail(th, RTCOSIM_ECANCELED);
                return;
            }
            if (r > 0) {
                atomic_store(&sh->gvt, g);
                atomic_store(&sh->gvt_real, g_real);
                th->gvt_rounds++;
            }
        }
        rtcosim_time_ns gvt = atomic_load_explicit(&sh->gvt, memory_order_acquire);
        if (gvt > sim->stop)
            return; /* everything up to the stop time is committed */
        rtcosim_time_ns gvt_real = atomic_load_explicit(&sh->gvt_real, memory_order_acquire);
        if (gvt > th->fossil_gvt || gvt_real > th->fossil_real)
            fossil_collect(th, gvt, gvt_real);
        if (w->failed)
            return;
        rtcosim_time_ns bound = gvt > RTCOSIM_TIME_MAX - sh->max_ahead ? RTCOSIM_TIME_MAX
                                                                        : gvt + sh->max_ahead;
        unsigned n = th->cons_count ? run_held(th, bound, &st) : 0;
        if (st != RTCOSIM_OK) {
            fail(th, st);
            return;
        }
        while (n < BATCH_EVENTS && w->heap.count) {
            if (w->heap.entries[0].ev->reserved_ & EV_CANCELLED) {
                event_pool_put(&w->pool, event_heap_pop(&w->heap));
                continue;
            }
            if (w->heap.entries[0].time > bound)
                break;
            rtcosim_event *ev = event_heap_pop(&w->heap);
            spec_lp *sl = sim->lps[ev->dst]->spec;
            if (sl->conservative) {
                /* waits with its LP's other held events until safe */
                if (!event_heap_push(&sl->held, ev)) {
                    fail(th, rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory"));
                    return;
                }
                continue;
            }
            st = process_one(th, ev, err);
            if (st != RTCOSIM_OK) {
                fail(th, st);
                return;
            }
            n++;
        }
        th->since_gvt += n;
        if (n < BATCH_EVENTS || th->since_gvt >= GVT_INTERVAL ||
            bound - gvt < 2 * (w->heap.count ? w->heap.entries[0].time - gvt : 0)) {
            /* blocked, or half way to the bound, or a while since the last
             * GVT: ask for a fresher one */
            start_epoch(sh);
            th->since_gvt = 0;
        }
        if (n == 0 && !ranks) { /* over ranks: messages come by polling */
            publish_rings(th);
            wait_for_progress(th, seen);
        }
    }
}

static void *thread_main(void *arg)
{
    thread_loop(arg);
    return NULL;
}

/* A model that cannot save its state is never speculated on: its LP runs
 * conservatively, which needs a positive lookahead on every input (with zero
 * lookahead nothing bounds what may still arrive at its own time). */
static rtcosim_status mark_conservative(rtcosim_events *sim, rtcosim_lp *lp, rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    s->conservative = !spec_table_supported(lp);
    s->held.count = 0; /* what a failed run left is gone with its pools */
    rtcosim_time_ns la = RTCOSIM_TIME_MAX;
    for (size_t k = 0; k < lp->in_count; k++)
        if (lp->in[k].peer != lp->id && lp->in[k].lookahead < la)
            la = lp->in[k].lookahead;
    if (sim->link_all >= 0 && sim->lp_count > 1 && sim->link_all < la)
        la = sim->link_all;
    s->in_lookahead = la;
    if (s->conservative && la <= 0)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: lp '%s' (%s) cannot save its"
                                 " state and has an input of zero lookahead, so it can run"
                                 " neither speculatively nor conservatively among speculative"
                                 " LPs", lp->name, lp->model->kind);
    return RTCOSIM_OK;
}

/* 256 times the smallest positive link lookahead (2 ms for the example
 * vehicle, whose interrupts answer in 7.5 us: the bound B8 measured best),
 * or 1 ms without links. */
static rtcosim_time_ns default_max_ahead(const rtcosim_events *sim)
{
    rtcosim_time_ns la = sim->link_all > 0 ? sim->link_all : RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < sim->lp_count; i++)
        for (size_t k = 0; k < sim->lps[i]->out_count; k++)
            if (sim->lps[i]->out[k].lookahead > 0 && sim->lps[i]->out[k].lookahead < la)
                la = sim->lps[i]->out[k].lookahead;
    return la == RTCOSIM_TIME_MAX ? RTCOSIM_NS_PER_MS : 256 * la;
}

rtcosim_status sched_speculative_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err)
{
    unsigned T = o->threads;
    if (o->max_ahead < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: max_ahead of %" PRId64 " ns is"
                                 " negative", o->max_ahead);
    if (!(o->threshold >= 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: the speculation threshold must"
                                 " be a number >= 0");
    rtcosim_status st = kernel_partition(sim, T, err);
    if (st != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++) {
        st = spec_table_init(sim->lps[i], err);
        spec_lp *s = sim->lps[i]->spec;
        if (st == RTCOSIM_OK)
            s->ckpt_interval = o->checkpoint_interval   ? o->checkpoint_interval
                               : s->snap_max > SMALL_SNAPSHOT ? CHECKPOINT_INTERVAL
                                                              : 1;
    }
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++)
        st = mark_conservative(sim, sim->lps[i], err);
    if (st == RTCOSIM_OK)
        st = spec_predict_setup(sim, o->threshold, err);
    if (st != RTCOSIM_OK) {
        spec_predict_teardown(sim);
        free(sim->lp_thread); /* from kernel_partition */
        sim->lp_thread = NULL;
        return st;
    }
    spec_shared sh = {.threads = T};
    sh.max_ahead = o->max_ahead ? o->max_ahead : default_max_ahead(sim);
    sim->worker_count = T;
    sim->workers = aligned_alloc(64, T * sizeof *sim->workers);
    spec_thread *ths = calloc(T, sizeof *ths);
    sh.rings = aligned_alloc(64, (size_t)T * T * sizeof *sh.rings);
    sh.pub = aligned_alloc(64, T * sizeof *sh.pub);
    pthread_t *threads = calloc(T, sizeof *threads);
    bool ok = sim->workers && ths && sh.rings && sh.pub && threads;
    if (sim->workers)
        memset(sim->workers, 0, T * sizeof *sim->workers);
    for (size_t k = 0; ok && k < (size_t)T * T; k++) {
        atomic_init(&sh.rings[k].head, 0);
        atomic_init(&sh.rings[k].tail, 0);
        sh.rings[k].slots = NULL;
        if (k / T != k % T)
            ok = (sh.rings[k].slots = malloc(RING_CAPACITY * sizeof(uintptr_t))) != NULL;
    }
    for (unsigned t = 0; ok && t < T; t++) {
        worker *w = &sim->workers[t];
        w->sim = sim;
        w->index = t;
        w->spec = &ths[t];
        ths[t].w = w;
        ths[t].sh = &sh;
        ths[t].min_red = RTCOSIM_TIME_MAX;
        ths[t].spin = 256;
        ths[t].fossil_gvt = o->start_time;
        ths[t].fossil_real = o->start_time;
        ths[t].ring_tail = calloc(T, sizeof *ths[t].ring_tail);
        ths[t].lps = malloc((sim->lp_count + 1) * sizeof *ths[t].lps);
        ths[t].cons = malloc((sim->lp_count + 1) * sizeof *ths[t].cons);
        memset(&sh.pub[t], 0, sizeof sh.pub[t]);
        ok = ths[t].ring_tail && ths[t].lps && ths[t].cons &&
             event_pool_reserve(&w->pool, sim->lp_count * 4 / T + 4096);
    }
    if (!ok) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        goto done;
    }
    atomic_init(&sh.epoch, 0);
    atomic_init(&sh.gvt_epoch, 0);
    atomic_init(&sh.gvt, o->start_time);
    atomic_init(&sh.gvt_real, o->start_time);
    for (int k = 0; k < 4; k++)
        atomic_init(&sh.gvt_of[k], o->start_time);
    atomic_init(&sh.abort_run, 0);
    atomic_init(&sh.wake, 0);
    atomic_init(&sh.sleepers, 0);
    atomic_init(&sh.sleep_seen, 0);
    sim->spec = &sh;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        lp->worker = &sim->workers[lp->thread];
        spec_thread *th = &ths[lp->thread];
        th->lps[th->lp_count++] = lp->id;
        if (lp->spec->conservative) {
            th->cons[th->cons_count++] = lp->id;
            stats->conservative_lps++;
        }
        th->streams |= lp->spec->stream_count > 0;
    }
    sim->route = ROUTE_SPECULATIVE;
    st = kernel_init_lps(sim, err);
    if (st != RTCOSIM_OK)
        goto done;
    unsigned started = 1;
    for (unsigned t = 1; t < T; t++) {
        if (pthread_create(&threads[t], NULL, thread_main, &ths[t]) != 0)
            break;
        started++;
    }
    if (started != T) {
        atomic_store(&sh.abort_run, 1);
        for (unsigned t = 1; t < started; t++)
            pthread_join(threads[t], NULL);
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: could not start %u threads", T);
        goto done;
    }
    thread_loop(&ths[0]);
    if (kernel_dist_size(sim) > 1)
        spec_ranks_finish(&ths[0], &sim->workers[0]);
    for (unsigned t = 1; t < T; t++)
        pthread_join(threads[t], NULL);
    for (unsigned t = 0; t < T; t++) {
        worker *w = &sim->workers[t];
        stats->sleeps += w->wait.sleeps;
        stats->gvt_rounds += ths[t].gvt_rounds;
        if (w->failed && st == RTCOSIM_OK) {
            st = w->err.status;
            if (err)
                *err = w->err;
        }
    }
    stats->rounds = stats->gvt_rounds;
    for (size_t i = 0; i < sim->lp_count; i++) {
        spec_lp *s = sim->lps[i]->spec;
        stats->processed += s->processed;
        stats->rollbacks += s->rollbacks;
        stats->rolled_back += s->rolled_back;
        stats->anti_messages += s->anti_messages;
        stats->predicted += s->predicted;
    }
done:
    sim->spec = NULL;
    spec_predict_teardown(sim);
    for (unsigned t = 0; ok && t < T; t++)
        fossil_collect(&ths[t], RTCOSIM_TIME_MAX, RTCOSIM_TIME_MAX);
    for (unsigned t = 0; sim->workers && t < T; t++) {
        event_heap_free(&sim->workers[t].heap);
        event_pool_free(&sim->workers[t].pool);
    }
    for (unsigned t = 0; ths && t < T; t++) {
        free(ths[t].cancel);
        free(ths[t].inbox);
        free(ths[t].ring_tail);
        free(ths[t].lps);
        free(ths[t].cons);
    }
    for (size_t k = 0; sh.rings && k < (size_t)T * T; k++)
        free(sh.rings[k].slots);
    free(sh.rings);
    free(sh.pub);
    free(ths);
    free(threads);
    free(sim->workers);
    sim->workers = NULL;
    sim->worker_count = 0;
    free(sim->lp_thread);
    sim->lp_thread = NULL;
    return st;
}
