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
 *  - A handler's failure is an event's outcome like any other: final only
 *    when committed (defer_failure below).
 * This file holds the thread loop and the run; the rings and delivery are in
 * spec_comm.c, rollback and cancellation in spec_rollback.c, GVT, fossil
 * collection and the wait in spec_gvt.c.
 * Why partitions instead of one global queue of LPs: the threads then touch
 * their own queue and LPs only, and the LPs joined by short lookahead cycles
 * (an ECU network and its bus) stay on one thread where they never roll each
 * other back. Measured on `bench ecu` N = 16 (see README). */
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtcosim/events_dist.h"
#include "rtcosim/log.h"
#include "spec_internal.h"
#include "util/thread_place.h"

/* ---- the thread loop ---- */

/* A handler failed on an event GVT has not committed. A straggler may still
 * undo it (the handler saw inputs the sequential order would not have
 * given it), so it is not the run's failure yet: the LP keeps the error and
 * the event's record, the thread processes nothing that sorts after it, and
 * the failure becomes the run's once GVT without it has passed it (the loop;
 * over ranks the GVT reduction carries it) or is forgotten when a rollback
 * undoes the event (spec_rollback). Not for a stop request or a conservative
 * LP's event (final when processed). */
static bool defer_failure(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                          rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    if (!err || err->status == RTCOSIM_ECANCELED || s->conservative || th->coasting)
        return false;
    if (!s->fail_err && !(s->fail_err = malloc(sizeof *s->fail_err)))
        return false;
    *s->fail_err = *err;
    s->fail_ev = ev;
    spec_failure_note(th, lp, ev);
    return true;
}

static rtcosim_status process_one(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = th->w->sim;
    rtcosim_lp *lp = sim->lps[ev->dst];
    spec_record *r = spec_table_push(lp, ev, err);
    if (!r)
        return err ? err->status : RTCOSIM_ENOMEM;
    ev->reserved_ |= EV_PROCESSED;
    spec_lp *s = lp->spec;
    if (ev->time > th->high)
        th->high = ev->time;
    th->cur = r;
    th->lazy_sender = s->lazy_count != 0;
    if (th->lazy_sender)
        spec_lazy_begin(th, s, ev);
    rtcosim_status st = kernel_process(lp, ev, err);
    if (st != RTCOSIM_OK && defer_failure(th, lp, ev, err))
        st = RTCOSIM_OK;
    if (th->lazy_old) {
        rtcosim_status ls = spec_lazy_end(th, lp, err);
        st = st != RTCOSIM_OK ? st : ls;
    }
    th->cur = NULL;
    th->lazy_sender = false;
    th->w->events++;
    if (st == RTCOSIM_OK && (ev->reserved_ & EV_PREDICTED))
        st = spec_predict_processed(th, lp, ev, err);
    /* what it sent to other threads goes out now, not after the batch: a
     * receiver that gets it late has to roll back */
    if (th->unpublished)
        spec_publish_rings(th);
    if (st == RTCOSIM_OK && th->cancel_count)
        st = spec_drain_cancels(th, err);
    return st;
}

/* ---- LPs that cannot save their state: conservative among speculative ---- */

/* Nothing can still arrive at a conservative LP with input lookahead `la`
 * below max(g_e, g_(e-1) + la) (spec_conservative_base says why). */
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
    th->cur = &scratch;
    rtcosim_status st = kernel_process(lp, ev, err);
    th->cur = NULL;
    th->w->events++;
    event_pool_put(&th->w->pool, ev);
    spec_publish_rings(th);
    if (st == RTCOSIM_OK)
        st = spec_drain_cancels(th, err);
    return st;
}

/* Process the held events of this thread's conservative LPs that have become
 * safe (and are within the optimism bound), a batch at most (the loop looks
 * at its rings and GVT between batches); returns how many. */
static unsigned run_held(spec_thread *th, rtcosim_time_ns bound, rtcosim_status *st)
{
    rtcosim_events *sim = th->w->sim;
    rtcosim_time_ns prev, now = spec_conservative_base(th->sh, &prev);
    /* nor after the earliest pending failure the last GVT round saw (one on
     * this thread: th->fail_ev, at once), since what it processes is final;
     * those at its instant may run (held, they would keep GVT without
     * failures from passing it, and the failure from ending the run) */
    rtcosim_time_ns fail = atomic_load_explicit(&th->sh->fail_first, memory_order_relaxed);
    unsigned n = 0;
    /* each batch starts at the next LP: every one gets its turn first */
    size_t first = th->cons_next;
    th->cons_next = (first + 1) % th->cons_count;
    for (size_t k = 0; k < th->cons_count && *st == RTCOSIM_OK && n < BATCH_EVENTS; k++) {
        rtcosim_lp *lp = sim->lps[th->cons[(first + k) % th->cons_count]];
        event_heap *h = &lp->spec->held;
        rtcosim_time_ns safe = conservative_bound(now, prev, lp->spec->in_lookahead);
        while (h->count && *st == RTCOSIM_OK && n < BATCH_EVENTS) {
            if (h->entries[0].ev->reserved_ & EV_CANCELLED) {
                event_pool_put(&th->w->pool, event_heap_pop(h));
                continue;
            }
            if (h->entries[0].time >= safe || h->entries[0].time > bound ||
                h->entries[0].time > fail || spec_behind_failure(th, h->entries[0].ev))
                break; /* (final once processed: not after a pending failure) */
            *st = process_conservative(th, lp, event_heap_pop(h), &th->w->err);
            n++;
        }
    }
    return n;
}

static void thread_loop(spec_thread *th)
{
    worker *w = th->w;
    rtcosim_events *sim = w->sim;
    spec_shared *sh = th->sh;
    rtcosim_error *err = &w->err;
    const bool ranks = kernel_dist_size(sim) > 1; /* Time Warp across ranks */
    for (;;) {
        spec_publish_rings(th);
        atomic_store_explicit(&sh->pub[w->index].beat, ++th->beat, memory_order_relaxed);
        atomic_store_explicit(&sh->pub[w->index].cpu, sched_getcpu(), memory_order_relaxed);
        uint32_t seen = atomic_load(&sh->wake);
        if (atomic_load_explicit(&sh->abort_run, memory_order_acquire))
            return;
        rtcosim_status st = spec_drain_inbox(th, err);
        if (st == RTCOSIM_OK && ranks)
            st = spec_ranks_poll(th, w, err);
        if (st != RTCOSIM_OK) {
            spec_fail(th, st);
            return;
        }
        if (!ranks) {
            spec_gvt_step(th);
        } else {
            rtcosim_time_ns g, g_real;
            int r = spec_ranks_gvt(th, w, false, false, &g, &g_real, err);
            if (r < 0) {
                spec_fail(th, RTCOSIM_ECANCELED);
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
            spec_fossil_collect(th, gvt, gvt_real);
        if (th->fail_ev &&
            atomic_load_explicit(&sh->gvt_nofail, memory_order_acquire) > th->fail_ev->time &&
            atomic_load_explicit(&sh->fail_first, memory_order_acquire) == th->fail_ev->time) {
            /* the earliest pending failure, and nothing can undo it now */
            *err = *th->fail_lp->spec->fail_err;
            spec_fail(th, err->status);
            return;
        }
        if (w->failed)
            return;
        rtcosim_time_ns ahead = atomic_load_explicit(&sh->max_ahead, memory_order_relaxed);
        rtcosim_time_ns bound = gvt > RTCOSIM_TIME_MAX - ahead ? RTCOSIM_TIME_MAX : gvt + ahead;
        /* the conservative LPs' batch, then the speculative one's */
        unsigned held = th->cons_count ? run_held(th, bound, &st) : 0, n = 0;
        if (st != RTCOSIM_OK) {
            spec_fail(th, st);
            return;
        }
        const event_heap_entry *head;
        while (n < BATCH_EVENTS && (head = event_calendar_peek(&w->calendar))) {
            if (head->ev->reserved_ & EV_CANCELLED) {
                st = spec_drop_cancelled(th, event_calendar_pop(&w->calendar), err);
                if (st == RTCOSIM_OK)
                    st = spec_drain_cancels(th, err);
                if (st != RTCOSIM_OK) {
                    spec_fail(th, st);
                    return;
                }
                continue;
            }
            if (head->time > bound || spec_behind_failure(th, head->ev))
                break; /* (or it waits behind a pending failure) */
            rtcosim_event *ev = event_calendar_pop(&w->calendar);
            /* the next head's event is usually cold: fetch it while this one
             * runs (its flags are the first thing the next turn reads) */
            if (w->calendar.near.count)
                __builtin_prefetch(w->calendar.near.entries[0].ev);
            /* (an LP that runs conservatively has its events in its own
             * queue from the start: spec_hold) */
            st = process_one(th, ev, err);
            if (st != RTCOSIM_OK) {
                spec_fail(th, st);
                return;
            }
            n++;
        }
        if (w->calendar.failed) {
            spec_fail(th, rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                            "events: out of memory for the queue"));
            return;
        }
        th->since_gvt += n + held;
        if (n + held < BATCH_EVENTS || th->since_gvt >= GVT_INTERVAL ||
            bound - gvt < 2 * (w->calendar.near.count ? w->calendar.near.entries[0].time - gvt
                                                      : 0)) {
            /* blocked, or half way to the bound, or a while since the last
             * GVT: ask for a fresher one */
            spec_start_epoch(sh);
            th->since_gvt = 0;
        }
        if (n + held == 0 && !ranks) { /* over ranks: messages come by polling */
            th->bound_waits += event_calendar_count(&w->calendar) > 0; /* (past the bound) */
            spec_publish_rings(th);
            spec_wait_for_progress(th, seen);
        }
    }
}

static void *thread_main(void *arg)
{
    spec_thread *th = arg;
    thread_place_release(th->sh->place);
    thread_loop(th);
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
    if (!(o->correction_capacity >= 0) || !isfinite(o->correction_capacity))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: the correction capacity must be"
                                 " a finite number >= 0 (0: mirrored spread), got %g",
                                 o->correction_capacity);
    rtcosim_status st = kernel_partition(sim, T, err);
    if (st != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++) {
        st = spec_table_init(sim->lps[i], err);
        spec_lp *s = sim->lps[i]->spec;
        if (st == RTCOSIM_OK) {
            s->ckpt_interval = o->checkpoint_interval   ? o->checkpoint_interval
                               : s->snap_max > SMALL_SNAPSHOT ? CHECKPOINT_INTERVAL
                                                              : 1;
            s->ckpt_adaptive = !o->checkpoint_interval && s->snap_max > SMALL_SNAPSHOT;
        }
    }
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++)
        st = mark_conservative(sim, sim->lps[i], err);
    if (st == RTCOSIM_OK)
        st = spec_predict_setup(sim, o->threshold, o->correction_capacity, err);
    /* say so before the run, as `rtcosim run --speculate` does for components */
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++)
        if (sim->lps[i]->spec->conservative && rtcosim_events_owns(sim, (rtcosim_lp_id)i))
            rtcosim_log(RTCOSIM_LOG_INFO, "events", "lp '%s' (%s) cannot save its state: it runs"
                        " conservatively, the other LPs speculate around it", sim->lps[i]->name,
                        sim->lps[i]->model->kind ? sim->lps[i]->model->kind : "model");
    if (st != RTCOSIM_OK) {
        spec_predict_teardown(sim);
        free(sim->lp_thread); /* from kernel_partition */
        sim->lp_thread = NULL;
        return st;
    }
    spec_shared sh = {.threads = T};
    /* an explicit max_ahead is the user's bound; the default adapts from
     * 256 lookaheads between a quarter of it and 16 times it */
    rtcosim_time_ns ahead = o->max_ahead ? o->max_ahead : default_max_ahead(sim);
    atomic_init(&sh.max_ahead, ahead);
    sh.adaptive = o->max_ahead == 0;
    sh.cpus = spin_wait_cpus();
    sh.loadavg_fd = spin_wait_load_open();
    sh.ahead_min = ahead / 4 > 0 ? ahead / 4 : 1;
    sh.ahead_max = ahead > RTCOSIM_TIME_MAX / 16 ? RTCOSIM_TIME_MAX : 16 * ahead;
    sim->worker_count = T;
    sim->workers = aligned_alloc(64, T * sizeof *sim->workers);
    spec_thread *ths = kernel_calloc_lines(T, sizeof *ths);
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
        spin_wait_init(&w->wait, 10 * SPIN_WAIT_MIN_NS);
        ths[t].fossil_gvt = o->start_time;
        ths[t].fossil_real = o->start_time;
        ths[t].lazy = !o->aggressive_cancellation && kernel_dist_size(sim) <= 1;
        ths[t].ring_tail = kernel_calloc_lines(T, sizeof *ths[t].ring_tail);
        ths[t].beat_seen = calloc(T, sizeof *ths[t].beat_seen);
        ths[t].beat_at = calloc(T, sizeof *ths[t].beat_at);
        ths[t].cpus_taken = calloc(T, sizeof *ths[t].cpus_taken);
        ths[t].lps = malloc((sim->lp_count + 1) * sizeof *ths[t].lps);
        ths[t].cons = malloc((sim->lp_count + 1) * sizeof *ths[t].cons);
        memset(&sh.pub[t], 0, sizeof sh.pub[t]);
        atomic_init(&sh.pub[t].cpu, -1);
        ok = ths[t].ring_tail && ths[t].lps && ths[t].cons && ths[t].beat_seen && ths[t].beat_at &&
             ths[t].cpus_taken &&
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
    atomic_init(&sh.gvt_nofail, o->start_time);
    atomic_init(&sh.fail_first, RTCOSIM_TIME_MAX);
    for (int k = 0; k < 4; k++)
        atomic_init(&sh.gvt_of[k], o->start_time);
    atomic_init(&sh.abort_run, 0);
    atomic_init(&sh.wake, 0);
    atomic_init(&sh.sleepers, 0);
    atomic_init(&sh.wake_changed_at, 0);
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
    thread_place place;
    thread_place_plan(&place, T, spin_wait_running(sh.loadavg_fd));
    sh.place = &place;
    unsigned started = 1;
    for (unsigned t = 1; t < T; t++) {
        pthread_attr_t attr;
        bool attr_ok = pthread_attr_init(&attr) == 0;
        if (attr_ok)
            thread_place_attr(&place, t, &attr);
        int rc = pthread_create(&threads[t], attr_ok ? &attr : NULL, thread_main, &ths[t]);
        if (attr_ok)
            pthread_attr_destroy(&attr);
        if (rc != 0)
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
        stats->moves += ths[t].moves;
        stats->blocked_s += (double)w->wait.blocked_ns * 1e-9;
        stats->gvt_rounds += ths[t].gvt_rounds;
        if (w->failed && st == RTCOSIM_OK) {
            st = w->err.status;
            if (err)
                *err = w->err;
        }
    }
    /* Ended early: what the LPs did past GVT was never committed (a
     * straggler could still have undone it, and the failing event itself
     * lies there), so they go back to GVT: the states, statistics and logs
     * the caller keeps are then the committed result up to it. Re-executed
     * events would see the stop request again: it is lifted meanwhile. Over
     * ranks each rank takes its own LPs back to the GVT of its last
     * reduction (the earliest failure counts in it, so that is at or before
     * the failure); nothing is sent: every rank drops what lies past it. */
    if (st != RTCOSIM_OK) {
        rtcosim_time_ns g = atomic_load(&sh.gvt);
        int stop = atomic_exchange(&sim->stop_requested, 0);
        for (size_t i = 0; i < sim->lp_count; i++) {
            rtcosim_error scratch = {0};
            rtcosim_lp *lp = sim->lps[i];
            if (spec_rollback_to_committed(&ths[lp->thread], lp, g, &scratch) != RTCOSIM_OK)
                rtcosim_log(RTCOSIM_LOG_WARNING, "events", "lp '%s': not taken back to the"
                            " committed time %.9f s after the run ended early: %s", lp->name,
                            rtcosim_time_to_seconds(g), scratch.message);
        }
        atomic_store(&sim->stop_requested, stop);
    }
    stats->rounds = stats->gvt_rounds;
    stats->max_ahead = atomic_load(&sh.max_ahead);
    for (size_t i = 0; i < sim->lp_count; i++) {
        spec_lp *s = sim->lps[i]->spec;
        /* every processed event was committed or undone (not counted per
         * event: one write less on the hot path) */
        s->processed = !sim->dist || rtcosim_events_owns(sim, (rtcosim_lp_id)i)
                           ? sim->lps[i]->processed + s->rolled_back : 0;
        stats->processed += s->processed;
        stats->rollbacks += s->rollbacks;
        stats->rolled_back += s->rolled_back;
        stats->anti_messages += s->anti_messages;
        stats->reused += s->reused;
        stats->failures_undone += s->failures_undone;
        stats->predicted += s->predicted;
    }
done:
    sim->spec = NULL;
    spec_predict_teardown(sim);
    for (unsigned t = 0; ok && t < T; t++)
        spec_fossil_collect(&ths[t], RTCOSIM_TIME_MAX, RTCOSIM_TIME_MAX);
    for (unsigned t = 0; sim->workers && t < T; t++) {
        event_calendar_free(&sim->workers[t].calendar);
        event_pool_free(&sim->workers[t].pool);
    }
    for (unsigned t = 0; ths && t < T; t++) {
        free(ths[t].cancel);
        free(ths[t].inbox);
        free(ths[t].ring_tail);
        free(ths[t].beat_seen);
        free(ths[t].beat_at);
        free(ths[t].cpus_taken);
        free(ths[t].lps);
        free(ths[t].cons);
    }
    for (size_t k = 0; sh.rings && k < (size_t)T * T; k++)
        free(sh.rings[k].slots);
    free(sh.rings);
    free(sh.pub);
    if (sh.loadavg_fd >= 0)
        close(sh.loadavg_fd);
    free(ths);
    free(threads);
    free(sim->workers);
    sim->workers = NULL;
    sim->worker_count = 0;
    free(sim->lp_thread);
    sim->lp_thread = NULL;
    return st;
}
