/* The event kernel's common part: LPs and links, checks before a run (zero-
 * lookahead cycles), sending events, per-LP random streams, and the dispatch
 * to the scheduler the run options name. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtcosim/events_dist.h"
#include "spec_internal.h"
#include "util/splitmix64.h"

static const char *const scheduler_names[] = {"sequential", "conservative", "global", "lockstep",
                                              "speculative"};
enum { SCHEDULER_COUNT = sizeof scheduler_names / sizeof scheduler_names[0] };

const char *rtcosim_scheduler_name(rtcosim_scheduler s)
{
    return (unsigned)s < SCHEDULER_COUNT ? scheduler_names[s] : "?";
}

int rtcosim_scheduler_parse(const char *text, rtcosim_scheduler *out)
{
    for (unsigned i = 0; i < SCHEDULER_COUNT; i++)
        if (text && strcmp(text, scheduler_names[i]) == 0) {
            *out = (rtcosim_scheduler)i;
            return 0;
        }
    return -1;
}

rtcosim_status rtcosim_events_create(rtcosim_events **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_events *sim = kernel_calloc_lines(1, sizeof *sim);
    if (!sim)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    sim->link_all = -1;
    *out = sim;
    return RTCOSIM_OK;
}

void rtcosim_events_free(rtcosim_events *sim)
{
    if (!sim)
        return;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        free(lp->name);
        free(lp->out);
        free(lp->in);
        free(lp->in_clock);
        event_heap_free(&lp->heap);
        spec_table_free(lp);
        free(lp);
    }
    free(sim->lps);
    free(sim->predictions);
    free(sim->diagnosis);
    kernel_dist_free(sim);
    sched_stepped_free(sim);
    free(sim);
}

void *kernel_calloc_lines(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = (count * size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

rtcosim_status rtcosim_events_add_lp(rtcosim_events *sim, const char *name,
                                     const rtcosim_lp_model *model, void *state,
                                     uint32_t group, rtcosim_lp_id *out, rtcosim_error *err)
{
    if (!name || !*name || !model)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: an LP needs a name and a model");
    if (sim->lp_count >= UINT32_MAX - 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: too many LPs");
    if (sim->lp_count == sim->lp_capacity) {
        size_t cap = sim->lp_capacity ? 2 * sim->lp_capacity : 64;
        rtcosim_lp **lps = realloc(sim->lps, cap * sizeof *lps);
        if (!lps)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        sim->lps = lps;
        sim->lp_capacity = cap;
    }
    rtcosim_lp *lp = kernel_calloc_lines(1, sizeof *lp);
    char *copy = strdup(name);
    if (!lp || !copy) {
        free(lp);
        free(copy);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    lp->sim = sim;
    lp->id = (rtcosim_lp_id)sim->lp_count;
    lp->group = group;
    lp->name = copy;
    lp->model = model;
    lp->state = state;
    sim->lps[sim->lp_count++] = lp;
    if (out)
        *out = lp->id;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_set_group(rtcosim_events *sim, rtcosim_lp_id lp, uint32_t group,
                                        rtcosim_error *err)
{
    if (lp >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: no LP %" PRIu32, lp);
    sim->lps[lp]->group = group;
    return RTCOSIM_OK;
}

static rtcosim_status link_list_put(lp_link **list, size_t *count, size_t *capacity,
                                    rtcosim_lp_id peer, rtcosim_time_ns lookahead)
{
    for (size_t i = 0; i < *count; i++)
        if ((*list)[i].peer == peer) {
            if (lookahead < (*list)[i].lookahead)
                (*list)[i].lookahead = lookahead;
            return RTCOSIM_OK;
        }
    if (*count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 4;
        lp_link *l = realloc(*list, cap * sizeof *l);
        if (!l)
            return RTCOSIM_ENOMEM;
        *list = l;
        *capacity = cap;
    }
    (*list)[(*count)++] = (lp_link){peer, lookahead};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_add_link(rtcosim_events *sim, rtcosim_lp_id src, rtcosim_lp_id dst,
                                       rtcosim_time_ns lookahead, rtcosim_error *err)
{
    if (src >= sim->lp_count || dst >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: link %" PRIu32 " -> %" PRIu32
                                 " names an LP that does not exist", src, dst);
    if (src == dst)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: link '%s' -> '%s': an LP needs"
                                 " no link to itself", sim->lps[src]->name, sim->lps[dst]->name);
    if (lookahead < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: link '%s' -> '%s' has negative"
                                 " lookahead %" PRId64 " ns", sim->lps[src]->name,
                                 sim->lps[dst]->name, lookahead);
    rtcosim_lp *a = sim->lps[src], *b = sim->lps[dst];
    if (link_list_put(&a->out, &a->out_count, &a->out_capacity, dst, lookahead) != RTCOSIM_OK ||
        link_list_put(&b->in, &b->in_count, &b->in_capacity, src, lookahead) != RTCOSIM_OK)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_link_all(rtcosim_events *sim, rtcosim_time_ns lookahead,
                                       rtcosim_error *err)
{
    if (lookahead <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: link_all needs a positive"
                                 " lookahead, got %" PRId64 " ns", lookahead);
    sim->link_all = lookahead;
    return RTCOSIM_OK;
}

size_t rtcosim_events_lp_count(const rtcosim_events *sim) { return sim->lp_count; }

const char *rtcosim_events_lp_name(const rtcosim_events *sim, rtcosim_lp_id lp)
{
    return lp < sim->lp_count ? sim->lps[lp]->name : NULL;
}

uint64_t rtcosim_events_lp_processed(const rtcosim_events *sim, rtcosim_lp_id lp)
{
    return lp < sim->lp_count ? sim->lps[lp]->processed : 0;
}

const char *rtcosim_events_diagnosis(const rtcosim_events *sim)
{
    return sim->diagnosis ? sim->diagnosis : "";
}

rtcosim_time_ns kernel_lookahead(const rtcosim_events *sim, const rtcosim_lp *src,
                                 rtcosim_lp_id dst)
{
    /* out is sorted by peer during a run: binary search */
    size_t lo = 0, hi = src->out_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (src->out[mid].peer < dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    rtcosim_time_ns explicit_la = lo < src->out_count && src->out[lo].peer == dst
                                      ? src->out[lo].lookahead : -1;
    if (sim->link_all < 0 || src->id == dst)
        return explicit_la;
    return explicit_la < 0 || sim->link_all < explicit_la ? sim->link_all : explicit_la;
}

rtcosim_time_ns rtcosim_events_link_lookahead(const rtcosim_events *sim, rtcosim_lp_id src,
                                              rtcosim_lp_id dst)
{
    if (src >= sim->lp_count || dst >= sim->lp_count || src == dst)
        return -1;
    const rtcosim_lp *a = sim->lps[src];
    for (size_t i = 0; i < a->out_count; i++)
        if (a->out[i].peer == dst)
            return sim->link_all >= 0 && sim->link_all < a->out[i].lookahead ? sim->link_all
                                                                            : a->out[i].lookahead;
    return sim->link_all;
}

void kernel_diagnosis_reset(rtcosim_events *sim)
{
    if (sim->diagnosis)
        sim->diagnosis[0] = '\0';
}

void kernel_diagnosis_append(rtcosim_events *sim, const char *fmt, ...)
{
    size_t used = sim->diagnosis ? strlen(sim->diagnosis) : 0;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    if (used + (size_t)need + 1 > sim->diagnosis_size) {
        size_t size = 2 * (used + (size_t)need + 1);
        char *d = realloc(sim->diagnosis, size);
        if (!d)
            return;
        if (!sim->diagnosis)
            d[0] = '\0';
        sim->diagnosis = d;
        sim->diagnosis_size = size;
    }
    va_start(ap, fmt);
    vsnprintf(sim->diagnosis + used, sim->diagnosis_size - used, fmt, ap);
    va_end(ap);
}

/* ---- random streams: splitmix64 seeding, xoshiro256** (Blackman & Vigna 2018) ---- */


static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rtcosim_lp_random_u64(rtcosim_lp *lp)
{
    uint64_t *s = lp->rng;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rtcosim_lp_random_uniform(rtcosim_lp *lp)
{
    /* 53 random bits, shifted by one so that 0 is excluded and log() is finite */
    return (double)((rtcosim_lp_random_u64(lp) >> 11) + 1) * 0x1.0p-53;
}

uint32_t rtcosim_lp_random_below(rtcosim_lp *lp, uint32_t n)
{
    /* Lemire's multiply-shift; the bias (< n / 2^32) is irrelevant here */
    return (uint32_t)(((rtcosim_lp_random_u64(lp) >> 32) * (uint64_t)n) >> 32);
}

double rtcosim_lp_random_exponential(rtcosim_lp *lp, double mean)
{
    return -mean * log(rtcosim_lp_random_uniform(lp));
}

rtcosim_lp_id rtcosim_lp_self(const rtcosim_lp *lp) { return lp->id; }
const char *rtcosim_lp_name(const rtcosim_lp *lp) { return lp->name; }
rtcosim_time_ns rtcosim_lp_now(const rtcosim_lp *lp) { return lp->now; }

void rtcosim_events_request_stop(rtcosim_events *sim, bool stop)
{
    atomic_store_explicit(&sim->stop_requested, stop, memory_order_relaxed);
}

rtcosim_time_ns rtcosim_events_progress(const rtcosim_events *sim)
{
    return atomic_load_explicit(&((rtcosim_events *)sim)->progress_time, memory_order_relaxed);
}

/* ---- sending ---- */

static rtcosim_status kernel_process_event(rtcosim_lp *lp, const rtcosim_event *ev,
                                           rtcosim_error *err);

rtcosim_status rtcosim_lp_send(rtcosim_lp *lp, rtcosim_lp_id dst, rtcosim_time_ns delay,
                               uint16_t type, uint16_t priority, const void *payload,
                               size_t size, rtcosim_error *err)
{
    rtcosim_events *sim = lp->sim;
    if (dst >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "lp '%s': event for LP %" PRIu32
                                 " that does not exist", lp->name, dst);
    if (delay < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "lp '%s' at t=%.9f s: event for lp '%s'"
                                 " at t=%.9f s is in the past", lp->name,
                                 rtcosim_time_to_seconds(lp->now), sim->lps[dst]->name,
                                 rtcosim_time_to_seconds(lp->now + delay));
    if (size > RTCOSIM_EVENT_PAYLOAD_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "lp '%s': payload of %zu bytes exceeds"
                                 " the %d-byte limit", lp->name, size, RTCOSIM_EVENT_PAYLOAD_MAX);
    if (dst != lp->id) {
        rtcosim_time_ns la = kernel_lookahead(sim, lp, dst);
        if (la < 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "lp '%s': no link to lp '%s'",
                                     lp->name, sim->lps[dst]->name);
        if (delay < la)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "lp '%s' at t=%.9f s: delay %" PRId64
                                     " ns to lp '%s' is below the link's lookahead %" PRId64 " ns",
                                     lp->name, rtcosim_time_to_seconds(lp->now), delay,
                                     sim->lps[dst]->name, la);
    }
    /* The tie-break among one source's events at the same time, depth and
     * priority: send order, as (delay descending, then the count of sends
     * at the source's present instant). Unlike a running count it does not
     * shift when an earlier event is inserted before the send (a straggler
     * under the speculative scheduler), so re-executed sends compare equal
     * to their first copies (lazy cancellation, spec_rollback.c). */
    if (lp->seq > EVENT_SEQ_COUNT_MAX)
        return rtcosim_error_set(err, RTCOSIM_ELOOP, "lp '%s' at t=%.9f s: more than %d events"
                                 " sent at one instant", lp->name,
                                 rtcosim_time_to_seconds(lp->now), EVENT_SEQ_COUNT_MAX + 1);
    uint64_t seq = event_seq(delay, lp->seq++);
    if (delay > sim->stop - lp->now)
        return RTCOSIM_OK; /* after the stop time: never processed */
    uint64_t depth = delay == 0 ? lp->depth + 1 : 0;
    if (depth > RTCOSIM_EVENT_DEPTH_MAX)
        return rtcosim_error_set(err, RTCOSIM_ELOOP, "lp '%s' at t=%.9f s: more than %d"
                                 " zero-delay events in a chain (livelock)", lp->name,
                                 rtcosim_time_to_seconds(lp->now), RTCOSIM_EVENT_DEPTH_MAX);
    rtcosim_event *ev = event_pool_get(&lp->worker->pool);
    if (!ev)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "lp '%s': out of memory for events",
                                 lp->name);
    ev->time = lp->now + delay;
    ev->tie = depth << 48 | (uint64_t)priority << 32 | lp->id;
    ev->seq = seq;
    ev->src = lp->id;
    ev->dst = dst;
    ev->type = type;
    ev->size = (uint16_t)size;
    ev->reserved_ = 0;
    if (size)
        memcpy(ev->payload, payload, size);
    return kernel_deliver(lp->worker, ev, err);
}

rtcosim_status kernel_process(rtcosim_lp *lp, const rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_status st = kernel_process_event(lp, ev, err);
    /* name the LP and the time, unless the message already does */
    if (st != RTCOSIM_OK && err && strncmp(err->message, "lp '", 4) != 0)
        rtcosim_error_prefix(err, "lp '%s' at t=%.9f s: ", lp->name,
                             rtcosim_time_to_seconds(ev->time));
    return st;
}

static rtcosim_status kernel_process_event(rtcosim_lp *lp, const rtcosim_event *ev,
                                           rtcosim_error *err)
{
    if (ev->time < lp->now)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "lp '%s': event at t=%.9f s arrived after"
                                 " its clock reached t=%.9f s (causality violated)", lp->name,
                                 rtcosim_time_to_seconds(ev->time), rtcosim_time_to_seconds(lp->now));
    if (ev->time != lp->now)
        lp->seq = 0; /* sends are counted per instant (rtcosim_lp_send) */
    lp->now = ev->time;
    lp->depth = ev->tie >> 48;
    if ((++lp->processed & 1023) == 0) { /* for rtcosim_events_progress; rare, relaxed */
        atomic_store_explicit(&lp->sim->progress_time, ev->time, memory_order_relaxed);
        if (atomic_load_explicit(&lp->sim->stop_requested, memory_order_relaxed))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: stopped on request at"
                                     " t = %.9f s", rtcosim_time_to_seconds(ev->time));
        /* no rollback here: the LP's past before this event is final (under
         * speculation fossil collection says when, spec_gvt.c) */
        if (lp->model->commit && lp->sim->route != ROUTE_SPECULATIVE) {
            rtcosim_status st = kernel_commit_lp(lp, ev->time, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    if (!lp->model->event)
        return RTCOSIM_OK;
    rtcosim_status st = lp->model->event(lp, lp->state, ev, err);
    if (st != RTCOSIM_OK && err && err->status == RTCOSIM_OK)
        rtcosim_error_set(err, st, "%s", rtcosim_strerror(st));
    return st;
}

rtcosim_status kernel_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    event_heap *heap;
    switch (sim->route) {
    case ROUTE_CALENDAR:
        if (!event_calendar_push(&w->calendar, ev)) {
            event_pool_put(&w->pool, ev);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
        }
        return RTCOSIM_OK;
    case ROUTE_SPECULATIVE:
        return spec_deliver(w, ev, err);
    case ROUTE_RANKS:
        return dist_deliver(w, ev, err);
    case ROUTE_LP_HEAP:
        heap = &sim->lps[ev->dst]->heap;
        if (sim->track_channels && ev->src != ev->dst) {
            /* a real message: the channel now promises nothing before the
             * sender's clock plus the lookahead */
            rtcosim_lp *dst = sim->lps[ev->dst];
            rtcosim_time_ns now = sim->lps[ev->src]->now;
            for (size_t m = 0; m < dst->in_count; m++)
                if (dst->in[m].peer == ev->src && now + dst->in[m].lookahead > dst->in_clock[m])
                    dst->in_clock[m] = now + dst->in[m].lookahead;
        }
        break;
    case ROUTE_THREADS: {
        unsigned t = sim->lp_thread[ev->dst];
        if (t == w->index || sim->running_init) {
            if (!event_calendar_push(&sim->workers[t].calendar, ev)) {
                event_pool_put(&w->pool, ev);
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
            }
            return RTCOSIM_OK;
        }
        if (sim->async) {
            w->cross++;
            return conservative_push(w, ev, t, err);
        }
        /* Another thread's event: into this round's mailbox, delivered after
         * the barrier; the earliest time sent is published for the bound. */
        unsigned slot = (unsigned)w->parity * sim->worker_count + t;
        ev->next = NULL;
        if (w->outbox_tail[slot])
            w->outbox_tail[slot]->next = ev;
        else
            w->outbox_head[slot] = ev;
        w->outbox_tail[slot] = ev;
        _Atomic rtcosim_time_ns *sent =
            &sim->sent_published[((size_t)w->parity * sim->worker_count + w->index) *
                                     sim->worker_count + t];
        if (ev->time < atomic_load_explicit(sent, memory_order_relaxed))
            atomic_store_explicit(sent, ev->time, memory_order_relaxed);
        w->cross++;
        return RTCOSIM_OK;
    }
    default:
        heap = &w->heap;
        break;
    }
    if (!event_heap_push(heap, ev)) {
        event_pool_put(&w->pool, ev);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    }
    return RTCOSIM_OK;
}

rtcosim_status kernel_init_lps(rtcosim_events *sim, rtcosim_error *err)
{
    sim->running_init = true;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        if (!lp->model->init || !rtcosim_events_owns(sim, lp->id))
            continue;
        rtcosim_status st = lp->model->init(lp, lp->state, err);
        if (st != RTCOSIM_OK) {
            sim->running_init = false;
            if (err && err->status == RTCOSIM_OK)
                rtcosim_error_set(err, st, "%s", rtcosim_strerror(st));
            return rtcosim_error_prefix(err, "lp '%s' init: ", lp->name);
        }
    }
    sim->running_init = false;
    return RTCOSIM_OK;
}

/* ---- checks before a run ---- */

static int compare_links(const void *a, const void *b)
{
    const lp_link *x = a, *y = b;
    return (x->peer > y->peer) - (x->peer < y->peer);
}

/* Depth-first search over zero-lookahead links; on a cycle, name it. */
static rtcosim_status check_zero_cycles(rtcosim_events *sim, rtcosim_error *err)
{
    size_t n = sim->lp_count;
    unsigned char *color = calloc(n, 1); /* 0 new, 1 on stack, 2 done */
    rtcosim_lp_id *stack = malloc((n + 1) * sizeof *stack);
    size_t *next_link = calloc(n, sizeof *next_link);
    if (!color || !stack || !next_link) {
        free(color), free(stack), free(next_link);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    rtcosim_status st = RTCOSIM_OK;
    for (size_t root = 0; root < n && st == RTCOSIM_OK; root++) {
        if (color[root])
            continue;
        size_t depth = 0;
        stack[depth++] = (rtcosim_lp_id)root;
        color[root] = 1;
        while (depth && st == RTCOSIM_OK) {
            rtcosim_lp *lp = sim->lps[stack[depth - 1]];
            if (next_link[lp->id] == lp->out_count) {
                color[lp->id] = 2;
                depth--;
                continue;
            }
            lp_link *l = &lp->out[next_link[lp->id]++];
            if (l->lookahead != 0)
                continue;
            if (color[l->peer] == 0) {
                color[l->peer] = 1;
                stack[depth++] = l->peer;
            } else if (color[l->peer] == 1) {
                char text[RTCOSIM_ERROR_MESSAGE_MAX] = "";
                size_t start = 0;
                while (stack[start] != l->peer)
                    start++;
                size_t used = 0;
                for (size_t i = start; i < depth && used < sizeof text; i++)
                    used += (size_t)snprintf(text + used, sizeof text - used, "'%s' -> ",
                                             sim->lps[stack[i]]->name);
                if (used < sizeof text)
                    snprintf(text + used, sizeof text - used, "'%s'", sim->lps[l->peer]->name);
                st = rtcosim_error_set(err, RTCOSIM_ELOOP, "events: cycle of zero-lookahead"
                                       " links %s: no LP on it could ever advance", text);
            }
        }
    }
    free(color), free(stack), free(next_link);
    return st;
}

static void seed_lp(rtcosim_lp *lp, uint64_t seed)
{
    uint64_t x = seed ^ (UINT64_C(0xD1B54A32D192ED03) * (lp->id + 1));
    for (int i = 0; i < 4; i++)
        lp->rng[i] = util_splitmix64(&x);
}

/* What every run does first: options checked and completed, the LPs'
 * clocks, counters and random streams reset, zero-lookahead cycles refused. */
rtcosim_status kernel_run_prepare(rtcosim_events *sim, rtcosim_run_options *options,
                                  rtcosim_error *err)
{
    rtcosim_run_options o = *options;
    kernel_diagnosis_reset(sim);
    if (o.threads == 0)
        o.threads = 1;
    if (o.threads > 256)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: %u threads is more than 256",
                                 o.threads);
    if (o.stop_time < o.start_time)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: stop time %.9f s is before the"
                                 " start time %.9f s", rtcosim_time_to_seconds(o.stop_time),
                                 rtcosim_time_to_seconds(o.start_time));
    if (o.stop_time == RTCOSIM_TIME_MAX)
        o.stop_time = RTCOSIM_TIME_MAX - 1; /* keeps stop + 1 representable */
    if (sim->lp_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: no LPs to run");
    atomic_store_explicit(&sim->progress_time, o.start_time, memory_order_relaxed);
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        if (lp->out_count)
            qsort(lp->out, lp->out_count, sizeof *lp->out, compare_links);
        lp->now = o.start_time;
        lp->depth = 0;
        lp->seq = 0;
        lp->processed = 0;
        seed_lp(lp, o.seed);
    }
    rtcosim_status st = check_zero_cycles(sim, err);
    if (st != RTCOSIM_OK)
        return st;
    sim->stop = o.stop_time;
    *options = o;
    return RTCOSIM_OK;
}

/* Every owned LP's final handler, after a run. */
rtcosim_status kernel_run_final(rtcosim_events *sim, rtcosim_error *err)
{
    rtcosim_status st;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        if (!lp->model->final || !rtcosim_events_owns(sim, lp->id))
            continue;
        st = lp->model->final(lp, lp->state, err);
        if (st != RTCOSIM_OK) {
            if (err && err->status == RTCOSIM_OK)
                rtcosim_error_set(err, st, "%s", rtcosim_strerror(st));
            return rtcosim_error_prefix(err, "lp '%s' final: ", lp->name);
        }
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_run(rtcosim_events *sim, const rtcosim_run_options *options,
                                  rtcosim_run_stats *stats, rtcosim_error *err)
{
    rtcosim_run_options o = *options;
    rtcosim_run_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    rtcosim_status st = kernel_run_prepare(sim, &o, err);
    if (st != RTCOSIM_OK)
        return st;
    int64_t t0 = 0, c0 = 0;
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        c0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    }
    bool ranks = sim->dist && kernel_dist_size(sim) > 1;
    if (ranks)
        st = sched_distributed_run(sim, &o, stats, err);
    else switch (o.scheduler) {
    case RTCOSIM_SCHEDULER_SEQUENTIAL: st = sched_sequential_run(sim, &o, stats, err); break;
    case RTCOSIM_SCHEDULER_CONSERVATIVE: st = sched_conservative_run(sim, &o, stats, err); break;
    case RTCOSIM_SCHEDULER_GLOBAL: st = sched_global_run(sim, &o, stats, err); break;
    case RTCOSIM_SCHEDULER_LOCKSTEP: st = sched_lockstep_run(sim, &o, stats, err); break;
    case RTCOSIM_SCHEDULER_SPECULATIVE: st = sched_speculative_run(sim, &o, stats, err); break;
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: unknown scheduler %d",
                                 (int)o.scheduler);
    }
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        stats->wall_s = (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - t0) * 1e-9;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        stats->cpu_s = (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - c0) * 1e-9;
    }
    /* the run is over, ended early or not: every LP's past is final (a
     * speculative run that failed was taken back to what it committed) */
    rtcosim_status committed =
        kernel_commit_lps(sim, RTCOSIM_TIME_MAX, st == RTCOSIM_OK ? err : NULL);
    if (st == RTCOSIM_OK)
        st = committed;
    stats->events = 0;
    stats->end_time = o.start_time;
    for (size_t i = 0; i < sim->lp_count; i++) {
        stats->events += sim->lps[i]->processed;
        if (sim->lps[i]->processed && sim->lps[i]->now > stats->end_time)
            stats->end_time = sim->lps[i]->now;
    }
    if (st == RTCOSIM_OK && ranks)
        st = kernel_dist_stats(sim, stats, err);
    /* stopped on request: what ran is complete up to where each LP got, and
     * its statistics are what the caller reports */
    bool stopped = st == RTCOSIM_ECANCELED && atomic_load(&sim->stop_requested);
    if (st != RTCOSIM_OK && !stopped)
        return st;
    rtcosim_error stop_err = {0};
    if (stopped && err)
        stop_err = *err;
    if ((st = kernel_run_final(sim, err)) != RTCOSIM_OK)
        return st;
    if (stopped) {
        if (err)
            *err = stop_err;
        return RTCOSIM_ECANCELED;
    }
    return RTCOSIM_OK;
}
