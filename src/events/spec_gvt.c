/* The speculative scheduler's global virtual time: Mattern's two-colour cut
 * without barriers, fossil collection below it, the bound of the LPs that run
 * conservatively, and the threads' wait for progress. */
#include <sched.h>

#include "rtcosim/events_dist.h"
#include "rtcosim/log.h"
#include "spec_internal.h"
#include "util/thread_place.h"

/* ---- GVT (Mattern's two-colour cut) ---- */

/* Adaptive optimism (the time window of Sokol's MTW and of Palaniswamy &
 * Wilsey's adaptive bounded time windows, here on rollback efficiency): a
 * window too small makes threads wait at the bound for the next GVT round,
 * one too large lets them run into rollbacks. After every ADAPT_EVENTS
 * processed events, as the round that completes GVT sees them: when over
 * 20 % of them were undone the window halves; when under 8 % were and
 * threads waited at the bound, it grows by half. Measured on the vehicle:
 * at N = 4 a 20 ms window (24 % undone) ran 2.8x faster than 2 ms (4 %),
 * while at N = 16 a window grown until 20 % were undone cost more CPU than
 * the waits it saved. (Weighing the time blocked against the busy time of
 * undone events instead was unstable under load: a descheduled partner
 * reads as waiting and the window grew to 57 % undone.) */
static void adapt_optimism(spec_shared *sh, uint64_t processed, uint64_t undone,
                           uint64_t bound_waits)
{
    uint64_t p = processed - sh->adapt_processed;
    if (p < ADAPT_EVENTS)
        return;
    uint64_t u = undone - sh->adapt_undone, w = bound_waits - sh->adapt_bound_waits;
    rtcosim_time_ns a = atomic_load_explicit(&sh->max_ahead, memory_order_relaxed);
    if (u * 100 > 20 * p)
        a = a / 2 > sh->ahead_min ? a / 2 : sh->ahead_min;
    else if (u * 100 < 8 * p && w > 0)
        a = a + a / 2 < sh->ahead_max ? a + a / 2 : sh->ahead_max;
    atomic_store_explicit(&sh->max_ahead, a, memory_order_relaxed);
    sh->adapt_processed = processed;
    sh->adapt_undone = undone;
    sh->adapt_bound_waits = bound_waits;
}

void spec_gvt_step(spec_thread *th)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    uint64_t e = atomic_load_explicit(&sh->epoch, memory_order_acquire);
    if (e != th->epoch) {
        /* switch colour: what this thread sends from now on is red */
        th->epoch = e;
        /* what it sent in the colour that ends is final now: publish it
         * before the ack, so that whoever sees every ack sees every count */
        atomic_store_explicit(&sh->pub[me].sent[th->color], th->sent[th->color],
                              memory_order_release);
        th->color = (unsigned)(e & 1u);
        th->min_red = RTCOSIM_TIME_MAX;
        atomic_store_explicit(&sh->pub[me].ack_epoch, e, memory_order_release);
        spec_wake_all(sh); /* a thread waiting for every ack may sleep */
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
        /* a pending failure holds back the events that sort after it (the
         * queue's, the conservative LPs'): the report without it leaves
         * them out, the report itself counts the failure (GVT stays at or
         * below it) */
        rtcosim_time_ns queued = event_calendar_min_time(&th->w->calendar), local = th->min_red,
                        nofail = th->min_red, pred = RTCOSIM_TIME_MAX, fail = RTCOSIM_TIME_MAX;
        for (size_t i = 0; i < th->cons_count; i++) {
            const event_heap *held = &th->w->sim->lps[th->cons[i]]->spec->held;
            rtcosim_time_ns h = event_heap_min_time(held);
            if (h < local)
                local = h;
            if (h < nofail && !spec_behind_failure(th, held->entries[0].ev))
                nofail = h;
        }
        rtcosim_time_ns queued_nofail = spec_queue_min_nofail(th);
        if (queued_nofail < nofail)
            nofail = queued_nofail;
        if (th->fail_ev)
            fail = th->fail_ev->time;
        if (queued < local)
            local = queued;
        if (fail < local)
            local = fail;
        for (size_t i = 0; th->streams && i < th->lp_count; i++) {
            rtcosim_time_ns u = spec_predict_unconfirmed(th->w->sim->lps[th->lps[i]]);
            if (u < pred)
                pred = u;
        }
        atomic_store_explicit(&sh->pub[me].rep_processed, th->w->events, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].rep_undone, th->undone, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].rep_bound_waits, th->bound_waits,
                              memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report, local, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_pred, pred, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_nofail, nofail, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_fail, fail, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[me].report_epoch, e, memory_order_release);
        spec_wake_all(sh);
    }
    if (atomic_load_explicit(&sh->gvt_epoch, memory_order_acquire) == e)
        return;
    rtcosim_time_ns g = RTCOSIM_TIME_MAX, real = RTCOSIM_TIME_MAX, nofail = RTCOSIM_TIME_MAX,
                    fail = RTCOSIM_TIME_MAX;
    uint64_t processed = 0, undone = 0, bound_waits = 0;
    for (unsigned s = 0; s < T; s++) {
        if (atomic_load_explicit(&sh->pub[s].report_epoch, memory_order_acquire) != e)
            return;
        processed += atomic_load_explicit(&sh->pub[s].rep_processed, memory_order_relaxed);
        undone += atomic_load_explicit(&sh->pub[s].rep_undone, memory_order_relaxed);
        bound_waits += atomic_load_explicit(&sh->pub[s].rep_bound_waits, memory_order_relaxed);
        rtcosim_time_ns r = atomic_load_explicit(&sh->pub[s].report, memory_order_relaxed);
        rtcosim_time_ns p = atomic_load_explicit(&sh->pub[s].report_pred, memory_order_relaxed);
        rtcosim_time_ns n = atomic_load_explicit(&sh->pub[s].report_nofail, memory_order_relaxed);
        rtcosim_time_ns f = atomic_load_explicit(&sh->pub[s].report_fail, memory_order_relaxed);
        if (r < real)
            real = r;
        if (p < g)
            g = p;
        if (n < nofail)
            nofail = n;
        if (p < nofail)
            nofail = p;
        if (f < fail)
            fail = f;
    }
    if (real < g)
        g = real;
    rtcosim_time_ns old = atomic_load(&sh->gvt_real);
    while (real > old && !atomic_compare_exchange_weak(&sh->gvt_real, &old, real)) {
    }
    old = atomic_load(&sh->gvt);
    while (g > old && !atomic_compare_exchange_weak(&sh->gvt, &old, g)) {
    }
    /* the earliest pending failure is committed once everything else has
     * passed it: nothing left can send a straggler that undoes it */
    atomic_store(&sh->fail_first, fail);
    old = atomic_load(&sh->gvt_nofail);
    while (nofail > old && !atomic_compare_exchange_weak(&sh->gvt_nofail, &old, nofail)) {
    }
    atomic_store(&sh->gvt_of[e & 3], g);
    uint64_t prev = e - 1;
    if (atomic_compare_exchange_strong(&sh->gvt_epoch, &prev, e)) {
        th->gvt_rounds++;
        if (sh->adaptive)
            adapt_optimism(sh, processed, undone, bound_waits);
        spec_wake_all(sh);
    }
}

void spec_start_epoch(spec_shared *sh)
{
    uint64_t e = atomic_load(&sh->epoch);
    if (atomic_load(&sh->gvt_epoch) == e && atomic_compare_exchange_strong(&sh->epoch, &e, e + 1))
        spec_wake_all(sh);
}

void spec_failure_undone(spec_thread *th, spec_lp *s)
{
    s->failures_undone++;
    rtcosim_log(RTCOSIM_LOG_DEBUG, "events", "a handler failure at t=%.9f s was undone by a"
                " rollback (its inputs were speculative): %s",
                rtcosim_time_to_seconds(s->fail_ev->time), s->fail_err->message);
    s->fail_ev = NULL;
    th->fail_ev = NULL;
    th->fail_lp = NULL;
    rtcosim_events *sim = th->w->sim;
    for (size_t i = 0; i < th->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[th->lps[i]];
        if (lp->spec->fail_ev)
            spec_failure_note(th, lp, lp->spec->fail_ev);
    }
}

rtcosim_time_ns spec_queue_min_nofail(spec_thread *th)
{
    const event_heap_entry *head = event_calendar_peek(&th->w->calendar);
    if (!head || spec_behind_failure(th, head->ev))
        return RTCOSIM_TIME_MAX;
    return head->time;
}

/* Free what is committed: records and events below GVT. */
void spec_fossil_collect(spec_thread *th, rtcosim_time_ns gvt, rtcosim_time_ns gvt_real)
{
    rtcosim_events *sim = th->w->sim;
    /* the LPs' past below GVT is final (rtcosim_lp_model.commit): no
     * rollback reaches below it (spec_rollback.c refuses one below
     * fossil_gvt). The end of the run is rtcosim_events_run's to say. */
    bool commit = gvt > th->fossil_gvt && gvt < RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < th->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[th->lps[i]];
        if (commit && lp->model->commit && !th->w->failed && rtcosim_events_owns(sim, lp->id)) {
            rtcosim_status st = kernel_commit_lp(lp, gvt, &th->w->err);
            if (st != RTCOSIM_OK)
                spec_fail(th, st);
        }
        spec_lp *s = lp->spec;
        if (s->stream_count && gvt < RTCOSIM_TIME_MAX) {
            rtcosim_status st = spec_predict_gvt(th, sim->lps[th->lps[i]], gvt_real, gvt,
                                                 &th->w->err);
            if (st != RTCOSIM_OK)
                spec_fail(th, st);
            st = spec_drain_cancels(th, &th->w->err);
            if (st != RTCOSIM_OK)
                spec_fail(th, st);
        }
        /* keep the last snapshot at or before the first record GVT has not
         * passed: a rollback to that record coasts forward from it */
        size_t f = s->passed < s->count ? s->passed : s->count;
        if (s->count && s->last_time < gvt) /* all of them: no walk over the kept ones */
            f = s->count;
        while (f < s->count && spec_at(s, f)->time < gvt)
            f++;
        size_t keep_from = f < s->count ? f - spec_at(s, f)->ckpt_dist : f;
        /* GVT passed them all: keep the newest snapshot and the records after
         * it all the same, as for a record still to come, so that the next
         * event need not take a snapshot (an empty table must). An LP whose
         * events are further apart than GVT rounds (a plant stepping every
         * millisecond) otherwise saved its whole state before every event:
         * measured on `rtcosim events --ecus 16 --threads 1`, every one of
         * the plants' 320032 events. */
        if (f == s->count && s->count && gvt < RTCOSIM_TIME_MAX)
            keep_from = s->count - 1 - s->last_ckpt_dist;
        s->passed = f - keep_from;
        for (size_t k = 0; k < keep_from; k++) {
            event_pool_put(&th->w->pool, spec_first(s)->ev);
            s->head = (s->head + 1) & (s->cap - 1);
            s->count--;
        }
    }
    th->fossil_gvt = gvt;
    th->fossil_real = gvt_real;
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
rtcosim_time_ns spec_conservative_base(spec_shared *sh, rtcosim_time_ns *prev)
{
    for (;;) {
        uint64_t e = atomic_load(&sh->gvt_epoch);
        rtcosim_time_ns now = atomic_load(&sh->gvt_of[e & 3]);
        *prev = atomic_load(&sh->gvt_of[(e - 1) & 3]);
        if (atomic_load(&sh->gvt_epoch) < e + 2) /* neither slot overwritten since */
            return now;
    }
}

/* ---- waiting ---- */

/* Where the threads have the CPUs to themselves: spin while every other
 * thread shows signs of life (its beat: loop turns, and spins of its own
 * waits), for up to SPEC_SPIN_MAX_NS, then sleep. A thread that showed none
 * for SPEC_ALIVE_NS is stalled by the hypervisor (sleeping would only add a
 * wake-up); a sleeping one is waited for SPEC_WAKE_NS, as the wake-up it is
 * given takes that long at worst. Returns whether to sleep. */
static bool spin_dedicated(spec_thread *th, uint32_t seen, int64_t start)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index;
    for (unsigned t = 0; t < T; t++) {
        th->beat_seen[t] = atomic_load_explicit(&sh->pub[t].beat, memory_order_relaxed);
        th->beat_at[t] = start;
    }
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(&sh->wake, memory_order_acquire) != seen ||
            spec_rings_pending(th))
            return false;
        spin_wait_relax();
        if (i % 64)
            continue;
        int64_t now = spin_wait_now_ns();
        atomic_store_explicit(&sh->pub[me].beat, ++th->beat, memory_order_relaxed);
        if (now - start >= SPEC_SPIN_MAX_NS)
            return true;
        for (unsigned t = 0; t < T; t++) {
            uint64_t b = atomic_load_explicit(&sh->pub[t].beat, memory_order_relaxed);
            if (t == me || b == 0) /* (0: still starting) */
                continue;
            if (b != th->beat_seen[t]) {
                th->beat_seen[t] = b;
                th->beat_at[t] = now;
            } else if (now - th->beat_at[t] >=
                       (atomic_load_explicit(&sh->pub[t].asleep, memory_order_relaxed)
                            ? SPEC_WAKE_NS
                            : SPEC_ALIVE_NS)) {
                return true;
            }
        }
    }
}

/* Where the threads have the CPUs to themselves but this one finds another
 * on its own CPU (a woken sleeper placed beside its waker), it moves to a
 * CPU none of them is on before it waits: waiting for a thread that needs
 * this CPU would spin out the whole SPEC_ALIVE_NS and then sleep (traced on
 * the 16-ECU vehicle: both threads on one CPU for 3-7 ms, one run in five). */
static void separate(spec_thread *th)
{
    spec_shared *sh = th->sh;
    unsigned T = sh->threads, me = th->w->index, n = 0;
    int here = sched_getcpu();
    bool shared = false;
    for (unsigned t = 0; t < T; t++) {
        if (t == me)
            continue;
        int c = atomic_load_explicit(&sh->pub[t].cpu, memory_order_relaxed);
        shared |= c == here;
        th->cpus_taken[n++] = c;
    }
    if (!shared || here < 0)
        return;
    int c = thread_place_move_off(sh->place, here, th->cpus_taken, n);
    if (c >= 0) {
        atomic_store_explicit(&sh->pub[me].cpu, c, memory_order_relaxed);
        th->moves++;
    }
}

/* Do the threads share the CPUs with other work? More tasks running on the
 * machine than there are CPUs (the kernel's count in /proc/loadavg, read
 * every SPEC_LOAD_CHECK_NS at most) in two looks in a row say so (one alone
 * is often a passing kernel thread: on the idle VM, a third of the waits of
 * a 2-ECU run took the shared machine's short spin for it); so does a
 * thread count above the CPUs, or no such file. */
static bool contended(spec_thread *th, int64_t now)
{
    spec_shared *sh = th->sh;
    if (sh->threads > sh->cpus || sh->loadavg_fd < 0)
        return true;
    if (now - th->load_checked_at >= SPEC_LOAD_CHECK_NS) {
        unsigned running = spin_wait_running(sh->loadavg_fd);
        th->loaded_looks = running == 0 || running > sh->cpus ? th->loaded_looks + 1 : 0;
        th->contended = th->loaded_looks >= 2;
        th->load_checked_at = now;
    }
    return th->contended;
}

/* Wait for a change of `wake` (a GVT step, an epoch) or for a message in
 * this thread's rings, then sleep on the futex: the GVT steps bump `wake`
 * after their change and see any sleeper (spec_wake_all); a message wakes a
 * sleeper its sender saw (else the sleep is bounded).
 *  - Where the threads have the CPUs to themselves (spin_dedicated), the
 *    waiter spins as long as the others show signs of life. Measured on the
 *    16-ECU vehicle: a GVT round while both threads stand at the optimism
 *    bound (the first half second, whose events are 1 ms apart) needs each
 *    thread in turn, and a sleeper's wake-up takes 50 us to 3 ms on this
 *    virtual machine (one woken 3.07 ms before it ran). With the short spin
 *    of the contended case, once one thread slept each turn found the other
 *    asleep: 200-800 sleeps and 0.02-0.05 s of waiting in about half the
 *    runs; spinning, a handful.
 *  - Where they share the CPUs, spinning takes the CPU a preempted thread
 *    needs: the waiter spins only if another thread turned its loop since
 *    its last wait, for the adaptive budget of util/spin_wait (measured with
 *    two busy loops beside the vehicle: the long spin made one run in five
 *    14.5 s instead of 0.45 s). */
void spec_wait_for_progress(spec_thread *th, uint32_t seen)
{
    spec_shared *sh = th->sh;
    int64_t start = spin_wait_now_ns();
    bool may_spin = false;
    if (sh->threads > 1 && !contended(th, start)) {
        separate(th);
        if (!spin_dedicated(th, seen, start)) {
            th->w->wait.blocked_ns += (uint64_t)(spin_wait_now_ns() - start);
            return;
        }
    } else {
        uint64_t beats = 0;
        for (unsigned t = 0; t < sh->threads; t++)
            if (t != th->w->index)
                beats += atomic_load_explicit(&sh->pub[t].beat, memory_order_relaxed);
        may_spin = beats != th->others_beat;
        th->others_beat = beats;
        /* a GVT round among running threads takes a few of their loop
         * turns, some microseconds: a longer spin is only worth it to the
         * adaptive budget when the others run but are slow, i.e. share a
         * loaded machine, where it costs them the CPU */
        if (th->w->wait.spin_ns > SPEC_SPIN_CONTENDED_NS)
            th->w->wait.spin_ns = SPEC_SPIN_CONTENDED_NS;
    }
    th->w->wait.blocked_ns += (uint64_t)(spin_wait_now_ns() - start);
    atomic_store_explicit(&sh->pub[th->w->index].asleep, 1, memory_order_relaxed);
    spin_wait_for_change(&th->w->wait, &sh->wake, seen, &sh->sleepers, &sh->wake_changed_at,
                         may_spin, 0, true);
    atomic_store_explicit(&sh->pub[th->w->index].asleep, 0, memory_order_relaxed);
}
