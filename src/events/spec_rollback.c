/* The speculative scheduler's rollback: undo an LP's events after a
 * straggler, restore its state (a snapshot, then coast forward), and cancel
 * what the undone events sent (anti-messages, or annihilation on this thread). */
#include <string.h>

#include "spec_internal.h"

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
        if (!spec_push_vec((void **)&th->cancel, &th->cancel_count, &th->cancel_cap,
                      sizeof *th->cancel, &ev))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
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
                st = spec_cancel_sent(th, lp, e, err);
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

