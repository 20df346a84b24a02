/* How the ranks agree on what is safe to process (rtcosim_rank_sync):
 *  - reduction: one collective round per window; every rank sends each other
 *    rank its batch and its earliest next time (queue head or earliest event
 *    it just sent); the minimum T plus the smallest lookahead L between ranks
 *    ends the window, since nothing sent from time >= T reaches another rank
 *    before T + L (YAWNS, Nicol 1993);
 *  - null messages: Chandy-Misra-Bryant (Chandy and Misra 1979): rank r
 *    sends rank d its batch with a promise, the earliest time it can still
 *    send to d: min(next_r, B_r) + L(r,d), L(r,d) the smallest lookahead of a
 *    link from r's LPs to d's; B_r is the smallest promise r holds from the
 *    others, and r processes its events before B_r. Before a window r
 *    already promises next_r + L(r,d) (its window sends nothing earlier),
 *    so that the ranks work alongside. Only messages that raise a promise
 *    or carry events are sent, no rank waits for all the others,
 *    and each exchange along a cycle of ranks raises the promises by that
 *    cycle's lookahead, so a positive lookahead between ranks (checked) is
 *    enough for progress. A rank past the stop time sends DONE and waits
 *    for everyone's DONE, so no message of a run is left for the next. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

const char *rtcosim_rank_sync_name(rtcosim_rank_sync s)
{
    /* the default is the reduction: measured faster on PHOLD (README) */
    return s == RTCOSIM_RANK_SYNC_NULL_MESSAGES ? "null" : "reduction";
}

int rtcosim_rank_sync_parse(const char *text, rtcosim_rank_sync *out)
{
    if (strcmp(text, "reduction") == 0)
        *out = RTCOSIM_RANK_SYNC_REDUCTION;
    else if (strcmp(text, "null") == 0)
        *out = RTCOSIM_RANK_SYNC_NULL_MESSAGES;
    else
        return -1;
    return 0;
}

static inline rtcosim_time_ns add_sat(rtcosim_time_ns a, rtcosim_time_ns b)
{
    return a > RTCOSIM_TIME_MAX - b ? RTCOSIM_TIME_MAX : a + b;
}

/* A failure of this rank outside a handler (memory, a malformed batch): kept
 * like a handler's, so the synchronization stops every rank the same way. */
static void fail_local(rtcosim_events *sim, const rtcosim_error *e)
{
    worker *w = &sim->workers[0];
    if (!w->failed) {
        w->failed = true;
        w->err = *e;
    }
    atomic_store(&sim->abort_run, 1);
}

static bool failed_locally(rtcosim_events *sim) { return atomic_load(&sim->abort_run) != 0; }

/* The run's outcome once every rank stopped: this rank's first failure, or
 * that another rank failed. */
static rtcosim_status outcome(rtcosim_events *sim, bool remote_failed, rtcosim_error *err)
{
    if (failed_locally(sim)) {
        for (unsigned t = 0; t < sim->worker_count; t++)
            if (sim->workers[t].failed) {
                if (err)
                    *err = sim->workers[t].err;
                return sim->workers[t].err.status != RTCOSIM_OK ? sim->workers[t].err.status
                                                                : RTCOSIM_ECANCELED;
            }
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: run aborted");
    }
    if (remote_failed)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: rank %d stopped: another"
                                 " rank failed (its error is reported there)",
                                 sim->dist->t->rank);
    return RTCOSIM_OK;
}

enum { HEADER = 3 };

rtcosim_status dist_sync_reduction(dist_run *run, rtcosim_error *err)
{
    rtcosim_events *sim = run->sim;
    struct dist_state *d = run->d;
    const rtcosim_transport *t = d->t;
    size_t R = (size_t)t->size;
    for (;;) {
        rtcosim_error e = {0};
        rtcosim_time_ns next = dist_collect_batches(d);
        if (next == DIST_NO_MEMORY) {
            rtcosim_error_set(&e, RTCOSIM_ENOMEM, "events: out of memory for a batch");
            fail_local(sim, &e);
        }
        rtcosim_time_ns queued = dist_next(sim);
        if (queued < next)
            next = queued;
        bool failed = failed_locally(sim);
        int64_t *hs = d->header, *hr = d->header + HEADER * R;
        for (size_t r = 0; r < R; r++) {
            hs[r * HEADER] = failed ? 0 : (int64_t)d->out[r].used;
            hs[r * HEADER + 1] = next;
            hs[r * HEADER + 2] = failed;
        }
        rtcosim_status st = t->alltoall_i64(t->context, hs, hr, HEADER, err);
        if (st != RTCOSIM_OK)
            return st;
        run->windows++;
        rtcosim_time_ns global_next = RTCOSIM_TIME_MAX;
        bool any_failed = false;
        size_t *sb = d->sizes, *rb = sb + R, *ro = rb + R, recv_total = 0;
        for (size_t r = 0; r < R; r++) {
            if (hr[r * HEADER + 1] < global_next)
                global_next = hr[r * HEADER + 1];
            any_failed |= hr[r * HEADER + 2] != 0;
            sb[r] = d->out[r].used;
            d->send[r] = d->out[r].data;
            rb[r] = (size_t)hr[r * HEADER];
            ro[r] = recv_total;
            recv_total += rb[r];
        }
        if (any_failed)
            return outcome(sim, !failed, err);
        d->in.used = 0;
        if (!dist_buffer_reserve(&d->in, recv_total))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for a batch");
        st = t->exchange(t->context, d->send, sb, d->in.data, rb, ro, err);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t r = 0; r < R; r++)
            d->out[r].used = 0;
        d->min_sent[0] = RTCOSIM_TIME_MAX;
        if (dist_inject(sim, d->in.data, recv_total, &e) != RTCOSIM_OK) {
            fail_local(sim, &e);
            continue; /* the next round tells the others */
        }
        if (global_next > sim->stop)
            return RTCOSIM_OK;
        rtcosim_time_ns end = add_sat(global_next, run->lookahead);
        rtcosim_time_ns limit = end - 1 < sim->stop ? end - 1 : sim->stop;
        if (dist_next(sim) <= limit)
            (void)dist_window(run, limit); /* a failure goes out with the next round */
    }
}

/* A null message's head; the batch of events follows. */
typedef struct null_head {
    int64_t promise;
    int64_t flags;
} null_head;

enum { MSG_DONE = 1, MSG_FAILED = 2 };

rtcosim_status dist_sync_null(dist_run *run, rtcosim_error *err)
{
    rtcosim_events *sim = run->sim;
    struct dist_state *d = run->d;
    const rtcosim_transport *t = d->t;
    int R = t->size, me = t->rank;
    /* the header's room holds, per rank: the promise received from it (its
     * channel clock), the promise last sent to it, the lookahead towards it */
    int64_t *clock = d->header, *sent = d->header + R, *lookahead_to = d->header + 2 * R;
    for (int r = 0; r < R; r++) {
        clock[r] = run->start; /* nothing from another rank arrives at the start (L > 0) */
        sent[r] = INT64_MIN;
        lookahead_to[r] = r == me ? RTCOSIM_TIME_MAX : dist_lookahead_to(sim, r);
    }
    int done_from = 0;
    bool done_sent = false, remote_failed = false, first = true;
    rtcosim_error e = {0};
    while (!(done_sent && done_from == R - 1)) {
        /* what the others sent: wait for one message (except at the start),
         * then take whatever else has arrived */
        for (bool wait = !first;; wait = false) {
            int from = -1;
            const void *data = NULL;
            size_t bytes = 0;
            rtcosim_status st = t->receive(t->context, wait, &from, &data, &bytes, err);
            if (st != RTCOSIM_OK)
                return st;
            if (from < 0)
                break;
            null_head h;
            if (from >= R || from == me || bytes < sizeof h) {
                rtcosim_error_set(&e, RTCOSIM_EFORMAT, "events: malformed message from rank %d"
                                  " (%zu bytes)", from, bytes);
                fail_local(sim, &e);
                continue;
            }
            memcpy(&h, data, sizeof h);
            if (!done_sent && !failed_locally(sim) &&
                dist_inject(sim, (const unsigned char *)data + sizeof h, bytes - sizeof h, &e) !=
                    RTCOSIM_OK)
                fail_local(sim, &e);
            if (h.promise > clock[from])
                clock[from] = h.promise;
            done_from += (h.flags & MSG_DONE) != 0;
            remote_failed |= (h.flags & MSG_FAILED) != 0;
        }
        first = false;
        if (done_sent)
            continue;
        rtcosim_time_ns bound = RTCOSIM_TIME_MAX;
        for (int r = 0; r < R; r++)
            if (r != me && clock[r] < bound)
                bound = clock[r];
        rtcosim_time_ns limit = bound - 1 < sim->stop ? bound - 1 : sim->stop;
        rtcosim_time_ns next = dist_next(sim);
        if (!failed_locally(sim) && !remote_failed && next <= limit) {
            /* promise first what holds already (nothing this window sends
             * is earlier than next + L), so the others work alongside
             * instead of waiting for the end of this window */
            null_head early = {.flags = 0};
            for (int r = 0; r < R; r++) {
                early.promise = add_sat(next, lookahead_to[r]);
                if (r == me || early.promise <= sent[r])
                    continue;
                rtcosim_status st = t->send(t->context, r, &early, sizeof early, NULL, 0, err);
                if (st != RTCOSIM_OK)
                    return st;
                sent[r] = early.promise;
            }
            run->windows++;
            (void)dist_window(run, limit);
        }
        if (dist_collect_batches(d) == DIST_NO_MEMORY) {
            rtcosim_error_set(&e, RTCOSIM_ENOMEM, "events: out of memory for a batch");
            fail_local(sim, &e);
        }
        bool stopping = failed_locally(sim) || remote_failed;
        /* from now on this rank sends nothing before base + L(me, r) */
        next = dist_next(sim);
        rtcosim_time_ns base = next < bound ? next : bound;
        bool finished = stopping || base > sim->stop;
        null_head h = {.flags = finished ? MSG_DONE : 0};
        if (failed_locally(sim))
            h.flags |= MSG_FAILED;
        for (int r = 0; r < R; r++) {
            if (r == me)
                continue;
            h.promise = finished ? RTCOSIM_TIME_MAX : add_sat(base, lookahead_to[r]);
            if (!finished && !d->out[r].used && h.promise <= sent[r])
                continue; /* nothing new for r */
            size_t body = stopping ? 0 : d->out[r].used;
            rtcosim_status st = t->send(t->context, r, &h, sizeof h, d->out[r].data, body, err);
            if (st != RTCOSIM_OK)
                return st;
            sent[r] = h.promise;
            d->out[r].used = 0;
        }
        d->min_sent[0] = RTCOSIM_TIME_MAX;
        done_sent = finished;
    }
    return outcome(sim, remote_failed, err);
}
