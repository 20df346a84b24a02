/* The speculative scheduler's rollback: undo an LP's events after a
 * straggler, restore its state (a snapshot, then coast forward), and cancel
 * what the undone events sent (anti-messages, or annihilation on this thread). */
#include <string.h>

#include "spec_internal.h"
#include "util/array.h"

/* ---- rollback and cancellation ---- */

rtcosim_status spec_cancel_sent(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                  rtcosim_error *err)
{
    rtcosim_events *sim = th->w->sim;
    lp->spec->anti_messages++;
    if (ev->reserved_ & EV_REMOTE) /* its receiver is on another rank */
        return spec_ranks_send(th->w, ev, true, err);
    unsigned t = sim->lp_thread[ev->dst];
    if (t == th->w->index) {
        if (!util_array_reserve(&th->cancel, th->cancel_count, &th->cancel_cap,
                                sizeof *th->cancel, 256))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        th->cancel[th->cancel_count++] = ev;
        return RTCOSIM_OK;
    }
    return spec_ring_send(th, ev, true, t, err);
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
 * this reproduces the state exactly, the kernel state (clock, counts, random
 * stream) with it. */
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
    return st; /* the kernel state too is as it was before r */
}

/* ---- lazy cancellation (Gafni 1988) ----
 * A rollback does not cancel what an undone event sent: the sends wait with
 * the event (the LP's `lazy` list) until it is processed again. Re-processed,
 * it usually sends the same events (a straggler that changes a mailbox, not
 * the next actuator value or frame); each send equal to a waiting one keeps
 * that one, which its receiver may already have processed, so the receiver is
 * not rolled back. What is not sent again is cancelled after the event. Sends
 * into an LP with predicted streams are cancelled at once (their history
 * expects the anti-messages of a rolled back sender). */

static bool lazy_sendable(const spec_thread *th, const rtcosim_event *e)
{
    return th->w->sim->lps[e->dst]->spec->stream_count == 0;
}

/* Keep an undone event's sends with it; cancel those that may not wait. */
static rtcosim_status lazy_keep(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                rtcosim_event *sent, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    rtcosim_event *keep = NULL;
    for (rtcosim_event *e = sent, *next; e; e = next) {
        next = e->next;
        if (lazy_sendable(th, e)) {
            e->next = keep;
            keep = e;
        } else if (st == RTCOSIM_OK) {
            st = spec_cancel_sent(th, lp, e, err);
        }
    }
    spec_lp *s = lp->spec;
    if (!keep)
        return st;
    if (!util_array_reserve(&s->lazy, s->lazy_count, &s->lazy_cap, sizeof *s->lazy, 16))
        return st != RTCOSIM_OK ? st
                                : rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    s->lazy[s->lazy_count++] = (spec_lazy){ev, keep, ev->time};
    return st;
}

/* The sends waiting with `ev`, removed from the list; NULL when none. */
static rtcosim_event *lazy_take(spec_lp *s, const rtcosim_event *ev)
{
    for (size_t i = s->lazy_count; i-- > 0;)
        if (s->lazy[i].ev == ev) {
            rtcosim_event *sent = s->lazy[i].sent;
            s->lazy[i] = s->lazy[--s->lazy_count];
            return sent;
        }
    return NULL;
}

static rtcosim_status cancel_chain(spec_thread *th, rtcosim_lp *lp, rtcosim_event *sent,
                                   rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    for (rtcosim_event *e = sent, *next; e; e = next) {
        next = e->next; /* read before the receiver may free it */
        if (st == RTCOSIM_OK)
            st = spec_cancel_sent(th, lp, e, err);
    }
    return st;
}

void spec_lazy_begin(spec_thread *th, spec_lp *s, const rtcosim_event *ev)
{
    th->lazy_old = s->lazy_count ? lazy_take(s, ev) : NULL;
}

rtcosim_status spec_lazy_end(spec_thread *th, rtcosim_lp *lp, rtcosim_error *err)
{
    rtcosim_event *left = th->lazy_old;
    th->lazy_old = NULL;
    return cancel_chain(th, lp, left, err);
}

static bool same_key(const rtcosim_event *a, const rtcosim_event *b)
{
    return a->time == b->time && a->tie == b->tie && a->seq == b->seq && a->dst == b->dst;
}

static bool same_content(const rtcosim_event *a, const rtcosim_event *b)
{
    return a->type == b->type && a->size == b->size &&
           memcmp(a->payload, b->payload, a->size) == 0;
}

/* Cancel the waiting sends in `*chain` with ev's key (their receiver must
 * never hold two events of one key: a rollback to one would stop at the
 * other). With `reuse`, one of equal content is kept instead (moved to
 * `reused`). Returns whether one was kept. */
static bool settle_key(spec_thread *th, rtcosim_lp *lp, rtcosim_event **chain,
                       const rtcosim_event *ev, rtcosim_event **reused, rtcosim_status *st,
                       rtcosim_error *err)
{
    for (rtcosim_event **p = chain; *p; p = &(*p)->next) {
        rtcosim_event *old = *p;
        if (!same_key(old, ev))
            continue;
        *p = old->next; /* a key is unique among the waiting sends: done */
        if (reused && same_content(old, ev)) {
            old->next = *reused;
            *reused = old;
            lp->spec->reused++;
            return true;
        }
        if (*st == RTCOSIM_OK)
            *st = spec_cancel_sent(th, lp, old, err);
        return false;
    }
    return false;
}

bool spec_lazy_send(spec_thread *th, rtcosim_lp *lp, const rtcosim_event *ev,
                    rtcosim_status *st, rtcosim_error *err)
{
    if (th->lazy_old && settle_key(th, lp, &th->lazy_old, ev, &th->cur->sent, st, err))
        return true;
    /* Another undone event's sends at this instant may share the key (sent
     * with the same delay as the count-th send of the instant, which this
     * one now is): cancelled now, they could not be sent again the same. */
    spec_lp *s = lp->spec;
    for (size_t i = 0; i < s->lazy_count; i++)
        if (s->lazy[i].time == lp->now)
            settle_key(th, lp, &s->lazy[i].sent, ev, NULL, st, err);
    return false;
}

rtcosim_status spec_drop_cancelled(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_lp *lp = th->w->sim->lps[ev->dst];
    rtcosim_event *sent = lp->spec->lazy_count ? lazy_take(lp->spec, ev) : NULL;
    event_pool_put(&th->w->pool, ev);
    return sent ? cancel_chain(th, lp, sent, err) : RTCOSIM_OK;
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
        rtcosim_event *ev = restore_point.ev;
        rtcosim_status cs = th->lazy && ev != key ? lazy_keep(th, lp, ev, r->sent, err)
                                                  : cancel_chain(th, lp, r->sent, err);
        if (st == RTCOSIM_OK)
            st = cs;
        ev->reserved_ &= ~EV_PROCESSED;
        if (ev == s->fail_ev)
            spec_failure_undone(th, s);
        undone++;
        if (ev == key) {
            event_pool_put(&w->pool, ev);
            break;
        }
        if (!event_calendar_push(&w->calendar, ev) && st == RTCOSIM_OK)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    }
    spec_sync_last(s);
    if (undone == 0)
        return st;
    s->rollbacks++;
    s->rolled_back += undone;
    th->undone += undone;
    s->depth_hist[depth_bin(undone)]++;
    rtcosim_status rs = restore_state(th, lp, &restore_point, err);
    return st != RTCOSIM_OK ? st : rs;
}

rtcosim_status spec_cancel_local(spec_thread *th, rtcosim_event *ev, rtcosim_error *err)
{
    if (ev->reserved_ & EV_STREAM)
        return spec_predict_cancel(th, th->w->sim->lps[ev->dst], ev, err);
    if (ev->reserved_ & EV_PROCESSED)
        return spec_rollback(th, th->w->sim->lps[ev->dst], ev, true, err);
    ev->reserved_ |= EV_CANCELLED; /* freed when it reaches the top of the queue */
    return RTCOSIM_OK;
}

rtcosim_status spec_drain_cancels(spec_thread *th, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    while (th->cancel_count && st == RTCOSIM_OK)
        st = spec_cancel_local(th, th->cancel[--th->cancel_count], err);
    return st;
}

rtcosim_status spec_rollback_to_committed(spec_thread *th, rtcosim_lp *lp, rtcosim_time_ns gvt,
                                          rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    if (s->conservative) {
        /* it processes only what no straggler can precede, final then, but
         * a failure on another thread can still come before it (known to
         * this LP's thread only once GVT has seen it): it cannot go back */
        if (lp->now > gvt)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "it cannot save its state and"
                                     " had processed to t=%.9f s: its state is not the"
                                     " committed result", rtcosim_time_to_seconds(lp->now));
        return RTCOSIM_OK;
    }
    size_t k = 0;
    while (k < s->count && spec_at(s, k)->time < gvt)
        k++;
    if (k == s->count)
        return RTCOSIM_OK;
    /* the records from k on are undone without their sends (the run is
     * over: nothing receives them); the state is rebuilt as a rollback does */
    spec_record restore_point = *spec_at(s, k);
    uint64_t undone = s->count - k;
    s->count = k;
    s->rolled_back += undone;
    th->undone += undone;
    rtcosim_status st = restore_state(th, lp, &restore_point, err);
    spec_sync_last(s);
    return st;
}
