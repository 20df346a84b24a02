/* Time Warp across ranks: each rank runs the speculative scheduler
 * (sched_speculative.c, one thread per rank) on its LPs, and this file is
 * what crosses ranks: events and anti-messages for another rank's LPs are
 * batched per destination rank and sent every loop of the scheduler; the
 * received ones are queued (a straggler rolls its LP back) or annihilate
 * their event, found by (source LP, sequence number). GVT is a reduction
 * every GVT_LOOPS loops of the scheduler (as ROSS's synchronous GVT): every
 * rank flushes and takes in messages until the ranks' counts of records
 * sent and received are equal (nothing in transit), then GVT is the minimum
 * over ranks of their earliest unprocessed event and unconfirmed prediction. Below it nothing can roll
 * back: the events a rank sent away below GVT are freed, as are the entries
 * of received events (fossil collection of the records is the scheduler's). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "spec_internal.h"
#include "util/array.h"

enum {
    GVT_LOOPS = 64, /* scheduler loops (each up to 16 events) between GVT reductions */
    WIRE_ANTI = 1u, /* wire_event.pad: an anti-message */
};

/* A received event that an anti-message may still annihilate. */
typedef struct remote_entry {
    uint64_t key; /* a hash of (src, time, seq), 0: empty */
    rtcosim_event *ev;
    rtcosim_time_ns time;
    uint64_t seq;
    uint32_t src;
} remote_entry;

struct spec_ranks {
    rtcosim_event **sent; /* events sent to other ranks, freed below GVT */
    size_t sent_count, sent_cap;
    remote_entry *table, *spare; /* open addressing, linear probing; spare for rebuilds */
    size_t table_cap, table_count;
    int64_t records_sent, records_received;
    unsigned loops;
    bool stopped; /* every rank agreed to stop (GVT past the stop time, or a failure) */
};

/* An event is named by (source, time, seq): seq alone repeats (it counts
 * sends per instant, see event_seq). */
static uint64_t key_of(uint32_t src, rtcosim_time_ns time, uint64_t seq)
{
    uint64_t h = (uint64_t)time * UINT64_C(0xBF58476D1CE4E5B9) ^ seq;
    h = (h ^ h >> 31) * UINT64_C(0x94D049BB133111EB) ^ src;
    return h ? h : 1; /* never 0 */
}

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
}

void spec_ranks_free(struct dist_state *d)
{
    struct spec_ranks *s = d->spec;
    if (!s)
        return;
    free(s->sent);
    free(s->table);
    free(s->spare);
    free(s);
    d->spec = NULL;
}

static bool table_insert(remote_entry *t, size_t cap, remote_entry e)
{
    for (size_t i = slot_of(e.key, cap);; i = (i + 1) & (cap - 1))
        if (!t[i].key) {
            t[i] = e;
            return true;
        }
}

/* Rebuild into `spare` keeping the entries at or after `keep_from`, at a
 * capacity that keeps the load under a half (grows only with the events in
 * flight, so steady state allocates nothing). */
static bool table_rebuild(struct spec_ranks *s, rtcosim_time_ns keep_from, size_t need)
{
    size_t cap = s->table_cap ? s->table_cap : 1024;
    while (cap < 2 * need)
        cap *= 2;
    if (cap != s->table_cap || !s->spare) {
        free(s->spare);
        s->spare = calloc(cap, sizeof *s->spare);
        if (!s->spare)
            return false;
    } else {
        memset(s->spare, 0, cap * sizeof *s->spare);
    }
    size_t n = 0;
    for (size_t i = 0; i < s->table_cap; i++)
        if (s->table[i].key && s->table[i].time >= keep_from) {
            table_insert(s->spare, cap, s->table[i]);
            n++;
        }
    remote_entry *old = s->table;
    s->table = s->spare;
    s->spare = cap == s->table_cap ? old : NULL;
    if (cap != s->table_cap)
        free(old);
    s->table_cap = cap;
    s->table_count = n;
    return true;
}

/* Remove and return the entry of (src, time, seq), NULL when none.
 * Backward-shift deletion keeps every probe chain intact without tombstones. */
static rtcosim_event *table_take(struct spec_ranks *s, uint64_t key, uint32_t src,
                                 rtcosim_time_ns time, uint64_t seq)
{
    size_t cap = s->table_cap;
    if (!cap)
        return NULL;
    size_t i = slot_of(key, cap);
    while (s->table[i].key != key || s->table[i].src != src || s->table[i].time != time ||
           s->table[i].seq != seq) {
        if (!s->table[i].key)
            return NULL;
        i = (i + 1) & (cap - 1);
    }
    rtcosim_event *ev = s->table[i].ev;
    for (size_t j = (i + 1) & (cap - 1); s->table[j].key; j = (j + 1) & (cap - 1)) {
        size_t home = slot_of(s->table[j].key, cap);
        /* j's entry may move into the hole at i when its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            s->table[i] = s->table[j];
            i = j;
        }
    }
    s->table[i].key = 0;
    s->table_count--;
    return ev;
}

rtcosim_status spec_ranks_send(worker *w, rtcosim_event *ev, bool anti, rtcosim_error *err)
{
    struct dist_state *d = w->sim->dist;
    struct spec_ranks *s = d->spec;
    dist_buffer *b = &d->out[d->lp_rank[ev->dst]];
    uint16_t payload = anti ? 0 : ev->size;
    if (!dist_buffer_reserve(b, dist_wire_size(payload)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for a batch");
    dist_wire_append(b, ev, payload, anti ? WIRE_ANTI : 0);
    s->records_sent++;
    if (anti) {
        ev->reserved_ |= EV_CANCELLED; /* stays in the sent list until GVT passes it */
        return RTCOSIM_OK;
    }
    ev->reserved_ |= EV_REMOTE;
    w->cross++;
    if (!util_array_reserve(&s->sent, s->sent_count, &s->sent_cap, sizeof *s->sent, 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    s->sent[s->sent_count++] = ev;
    return RTCOSIM_OK;
}

static rtcosim_status flush(rtcosim_events *sim, rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    const rtcosim_transport *t = d->t;
    for (int r = 0; r < t->size; r++) {
        if (!d->out[r].used)
            continue;
        int64_t head = 0;
        rtcosim_status st = t->send(t->context, r, &head, sizeof head, d->out[r].data,
                                    d->out[r].used, err);
        if (st != RTCOSIM_OK)
            return st;
        d->out[r].used = 0;
    }
    return RTCOSIM_OK;
}

/* One received batch: events queued (or rolling back their LP), anti-messages
 * annihilating the event they name. */
static rtcosim_status take_batch(spec_thread *th, worker *w, const unsigned char *data,
                                 size_t bytes, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    struct spec_ranks *s = sim->dist->spec;
    for (size_t at = 0; at + sizeof(wire_event) <= bytes;) {
        wire_event h;
        memcpy(&h, data + at, sizeof h);
        const unsigned char *payload = data + at + sizeof h;
        if (h.size > RTCOSIM_EVENT_PAYLOAD_MAX || h.dst >= sim->lp_count ||
            h.src >= sim->lp_count || !rtcosim_events_owns(sim, h.dst) ||
            dist_wire_size(h.size) > bytes - at)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "events: malformed event from"
                                     " another rank (dst %" PRIu32 ", %u bytes)", h.dst,
                                     (unsigned)h.size);
        at += dist_wire_size(h.size);
        s->records_received++;
        uint64_t key = key_of(h.src, h.time, h.seq);
        rtcosim_status st;
        if (h.pad & WIRE_ANTI) {
            rtcosim_event *ev = table_take(s, key, h.src, h.time, h.seq);
            if (!ev)
                return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: anti-message from lp"
                                         " '%s' (#%" PRIu64 ") for no event (kernel bug)",
                                         sim->lps[h.src]->name, h.seq);
            st = spec_take_remote(th, ev, true, err);
        } else {
            rtcosim_event *ev = dist_wire_take(w, &h, payload);
            if (!ev)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for events");
            if (2 * (s->table_count + 1) > s->table_cap &&
                !table_rebuild(s, INT64_MIN, s->table_count + 1)) {
                event_pool_put(&w->pool, ev);
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
            }
            table_insert(s->table, s->table_cap,
                         (remote_entry){.key = key, .ev = ev, .time = ev->time,
                                        .seq = ev->seq, .src = ev->src});
            s->table_count++;
            st = spec_take_remote(th, ev, false, err);
        }
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status spec_ranks_poll(spec_thread *th, worker *w, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    const rtcosim_transport *t = sim->dist->t;
    rtcosim_status st = flush(sim, err);
    for (;;) {
        int from = -1;
        const void *data = NULL;
        size_t bytes = 0;
        if (st == RTCOSIM_OK)
            st = t->receive(t->context, false, &from, &data, &bytes, err);
        if (st != RTCOSIM_OK || from < 0)
            return st;
        if (bytes < sizeof(int64_t))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "events: malformed batch from rank"
                                     " %d", from);
        st = take_batch(th, w, (const unsigned char *)data + sizeof(int64_t),
                        bytes - sizeof(int64_t), err);
    }
}

/* Free what GVT has passed: events sent away (no rollback can cancel them
 * now) and the entries of received events (no anti-message can name them). */
static void fossil(worker *w, struct spec_ranks *s, rtcosim_time_ns gvt)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->sent_count; i++) {
        rtcosim_event *ev = s->sent[i];
        if (ev->time < gvt)
            event_pool_put(&w->pool, ev);
        else
            s->sent[kept++] = ev;
    }
    s->sent_count = kept;
    if (s->table_count)
        (void)table_rebuild(s, gvt, s->table_count); /* same capacity: no allocation */
}

/* This rank's earliest unprocessed real event or pending handler failure
 * (`nofail` leaves out the failure and the queue waiting behind it, `fail`
 * is the failure's time), and its earliest prediction not yet confirmed by
 * its real event (GVT may not pass it either). */
static void local_minimum(const rtcosim_events *sim, worker *w, int64_t *real,
                          int64_t *predicted, int64_t *nofail, int64_t *fail)
{
    spec_thread *th = w->spec;
    *real = event_calendar_min_time(&w->calendar);
    *nofail = spec_queue_min_nofail(th);
    *fail = th->fail_ev ? th->fail_ev->time : RTCOSIM_TIME_MAX;
    if (*fail < *real)
        *real = *fail;
    *predicted = RTCOSIM_TIME_MAX;
    for (size_t i = 0; sim->prediction_count && i < sim->lp_count; i++)
        if (rtcosim_events_owns(sim, (rtcosim_lp_id)i) && sim->lps[i]->spec->stream_count) {
            rtcosim_time_ns u = spec_predict_unconfirmed(sim->lps[i]);
            if (u < *predicted)
                *predicted = u;
        }
}

int spec_ranks_gvt(spec_thread *th, worker *w, bool failed, bool force, rtcosim_time_ns *gvt,
                   rtcosim_time_ns *gvt_real, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    struct spec_ranks *s = sim->dist->spec;
    const rtcosim_transport *t = sim->dist->t;
    if (!force && ++s->loops < GVT_LOOPS)
        return 0;
    s->loops = 0;
    for (;;) {
        rtcosim_error e = {0};
        if (!failed && spec_ranks_poll(th, w, &e) != RTCOSIM_OK) {
            failed = true;
            w->err = e;
            w->failed = true;
        }
        int64_t in_transit = s->records_sent - s->records_received;
        if (t->allreduce_i64(t->context, &in_transit, 1, RTCOSIM_REDUCE_SUM, err) != RTCOSIM_OK)
            return -1;
        /* MAX of the negated minimum is the minimum */
        int64_t real, predicted, nofail, fail;
        local_minimum(sim, w, &real, &predicted, &nofail, &fail);
        int64_t v[5] = {failed, -real, -predicted, -nofail, -fail};
        if (t->allreduce_i64(t->context, v, 5, RTCOSIM_REDUCE_MAX, err) != RTCOSIM_OK)
            return -1;
        if (v[0]) {
            s->stopped = true;
            if (!failed)
                rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: rank %d stopped: another"
                                  " rank failed (its error is reported there)", t->rank);
            return -1;
        }
        if (in_transit == 0) {
            *gvt_real = -v[1];
            *gvt = -v[2] < *gvt_real ? -v[2] : *gvt_real;
            /* as spec_gvt_step: GVT without the pending failures, the
             * earliest of them */
            rtcosim_time_ns nf = -v[3] < -v[2] ? -v[3] : -v[2];
            rtcosim_time_ns old = atomic_load(&th->sh->gvt_nofail);
            if (nf > old)
                atomic_store(&th->sh->gvt_nofail, nf);
            atomic_store(&th->sh->fail_first, -v[4]);
            s->stopped = *gvt > sim->stop;
            fossil(w, s, *gvt);
            return 1;
        }
    }
}

rtcosim_status spec_ranks_setup(rtcosim_events *sim, const rtcosim_run_options *o,
                                rtcosim_error *err)
{
    struct dist_state *d = sim->dist;
    if (o->threads > 1)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: the speculative scheduler"
                                 " over %d ranks runs one thread per rank (asked: %u)",
                                 d->t->size, o->threads);
    if (!d->t->send || !d->t->receive)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: the transport has no"
                                 " point-to-point messages for the speculative scheduler");
    for (size_t i = 0; i < sim->lp_count; i++)
        if (!spec_table_supported(sim->lps[i]))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: lp '%s' cannot save its"
                                     " state: over ranks every LP must (speculative)",
                                     sim->lps[i]->name);
    spec_ranks_free(d);
    d->spec = calloc(1, sizeof *d->spec);
    if (!d->spec)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    return RTCOSIM_OK;
}

void spec_ranks_finish(spec_thread *th, worker *w)
{
    struct spec_ranks *s = w->sim->dist->spec;
    rtcosim_time_ns gvt, gvt_real;
    rtcosim_error ignored = {0};
    /* this rank stopped on its own (a failure): tell the others in the
     * reduction they wait in */
    if (!s->stopped)
        (void)spec_ranks_gvt(th, w, true, true, &gvt, &gvt_real, &ignored);
}
