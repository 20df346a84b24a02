/* The Chandy-Misra-Bryant scheduler (Chandy & Misra 1979, Bryant 1977) on one
 * thread, for comparison with the conservative round scheduler. Each LP may
 * process events earlier than its earliest input time (EIT), the minimum over
 * its input links of the link's channel clock. With null messages a channel
 * clock is the sender's promise plus the lookahead, the promise being
 * min(EIT, next event time) of the sender; without them a channel clock only
 * moves when a real message is sent (sender clock + lookahead), which can
 * deadlock: then every blocked LP is diagnosed. */
#include <inttypes.h>
#include <stdlib.h>

#include "kernel.h"

static inline rtcosim_time_ns add_sat(rtcosim_time_ns a, rtcosim_time_ns b)
{
    return a > RTCOSIM_TIME_MAX - b ? RTCOSIM_TIME_MAX : a + b;
}

typedef struct global_ctx {
    rtcosim_time_ns min1, min2; /* the two smallest promises (for link_all) */
    rtcosim_lp_id argmin1;
    bool nulls;
} global_ctx;

/* EIT of lp and the input link that sets it (-1 for link_all, -2 for none). */
static rtcosim_time_ns earliest_input(const rtcosim_events *sim, const global_ctx *g,
                                      const rtcosim_lp *lp, long *holder)
{
    rtcosim_time_ns eit = RTCOSIM_TIME_MAX;
    *holder = -2;
    for (size_t i = 0; i < lp->in_count; i++) {
        rtcosim_time_ns clock = g->nulls
            ? add_sat(sim->lps[lp->in[i].peer]->promise, lp->in[i].lookahead)
            : lp->in_clock[i];
        if (clock < eit) {
            eit = clock;
            *holder = (long)i;
        }
    }
    if (sim->link_all >= 0 && sim->lp_count > 1) {
        rtcosim_time_ns other = lp->id == g->argmin1 ? g->min2 : g->min1;
        rtcosim_time_ns clock = add_sat(other, sim->link_all);
        if (clock < eit) {
            eit = clock;
            *holder = -1;
        }
    }
    return eit;
}

static void refresh_minima(const rtcosim_events *sim, global_ctx *g)
{
    g->min1 = g->min2 = RTCOSIM_TIME_MAX;
    g->argmin1 = 0;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_time_ns p = sim->lps[i]->promise;
        if (p < g->min1) {
            g->min2 = g->min1;
            g->min1 = p;
            g->argmin1 = (rtcosim_lp_id)i;
        } else if (p < g->min2) {
            g->min2 = p;
        }
    }
}

static rtcosim_status diagnose_deadlock(rtcosim_events *sim, const global_ctx *g,
                                       rtcosim_error *err)
{
    size_t blocked = 0;
    rtcosim_time_ns earliest = RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        if (!lp->heap.count)
            continue;
        long holder;
        rtcosim_time_ns eit = earliest_input(sim, g, lp, &holder);
        rtcosim_time_ns next = lp->heap.entries[0].time;
        if (next < earliest)
            earliest = next;
        const char *from = holder >= 0 ? sim->lps[lp->in[holder].peer]->name : "(any LP)";
        kernel_diagnosis_append(sim, "%slp '%s': clock %.9f s, next event %.9f s, earliest input"
                                " time %.9f s held back by link '%s' -> '%s'",
                                blocked ? "\n" : "", lp->name, rtcosim_time_to_seconds(lp->now),
                                rtcosim_time_to_seconds(next), rtcosim_time_to_seconds(eit),
                                from, lp->name);
        blocked++;
    }
    return rtcosim_error_set(err, RTCOSIM_ETIMEOUT, "events: deadlock at t=%.9f s, %zu LPs blocked"
                             " (global scheduler without null messages): %s",
                             rtcosim_time_to_seconds(earliest), blocked,
                             rtcosim_events_diagnosis(sim));
}

rtcosim_status sched_global_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                 rtcosim_run_stats *stats, rtcosim_error *err)
{
    global_ctx g = {.nulls = !o->no_null_messages};
    if (!g.nulls && sim->link_all >= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: the global scheduler without null"
                                 " messages needs explicit links, not link_all");
    worker w = {.sim = sim};
    if (!event_pool_reserve(&w.pool, sim->lp_count * 4 > 4096 ? sim->lp_count * 4 : 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++) {
        rtcosim_lp *lp = sim->lps[i];
        lp->worker = &w;
        lp->promise = o->start_time;
        free(lp->in_clock);
        lp->in_clock = malloc((lp->in_count ? lp->in_count : 1) * sizeof *lp->in_clock);
        if (!lp->in_clock)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        /* before any message, a link promises only what its lookahead implies */
        for (size_t k = 0; lp->in_clock && k < lp->in_count; k++)
            lp->in_clock[k] = add_sat(o->start_time, lp->in[k].lookahead);
    }
    sim->route = ROUTE_LP_HEAP;
    sim->track_channels = !g.nulls;
    if (st == RTCOSIM_OK)
        st = kernel_init_lps(sim, err);
    uint64_t sweeps = 0;
    while (st == RTCOSIM_OK) {
        bool progress = false, pending = false;
        refresh_minima(sim, &g);
        for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++) {
            rtcosim_lp *lp = sim->lps[i];
            long holder;
            rtcosim_time_ns eit = earliest_input(sim, &g, lp, &holder);
            while (lp->heap.count && lp->heap.entries[0].time < eit) {
                rtcosim_event *ev = event_heap_pop(&lp->heap);
                st = kernel_process(lp, ev, err);
                event_pool_put(&w.pool, ev);
                progress = true;
                if (st != RTCOSIM_OK)
                    break;
            }
            rtcosim_time_ns next = lp->heap.count ? lp->heap.entries[0].time : RTCOSIM_TIME_MAX;
            rtcosim_time_ns promise = next < eit ? next : eit;
            if (g.nulls && promise > lp->promise) {
                lp->promise = promise;
                progress = true;
            }
        }
        sweeps++;
        for (size_t i = 0; i < sim->lp_count && !pending; i++)
            pending = sim->lps[i]->heap.count != 0;
        if (st != RTCOSIM_OK || !pending)
            break;
        if (!progress)
            st = diagnose_deadlock(sim, &g, err);
    }
    sim->track_channels = false;
    stats->rounds = sweeps;
    for (size_t i = 0; i < sim->lp_count; i++)
        event_heap_free(&sim->lps[i]->heap);
    event_pool_free(&w.pool);
    return st;
}
