/* The lockstep baseline: time advances in fixed ticks and every LP is visited
 * in every tick, as a time-stepped co-simulation would. Events an LP sends to
 * another land at least one lookahead later, so with tick <= the smallest
 * lookahead nothing sent in a tick is due in that tick, and the LPs of one
 * tick are independent: the result equals the sequential one. */
#include <inttypes.h>
#include <stdlib.h>

#include "kernel.h"

rtcosim_status sched_lockstep_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                  rtcosim_run_stats *stats, rtcosim_error *err)
{
    rtcosim_time_ns tick = o->lockstep_tick;
    if (tick <= 0) { /* derived: 1 us, or the smallest lookahead when shorter */
        tick = RTCOSIM_NS_PER_US;
        for (size_t i = 0; i < sim->lp_count; i++)
            for (size_t k = 0; k < sim->lps[i]->out_count; k++)
                if (sim->lps[i]->out[k].lookahead > 0 && sim->lps[i]->out[k].lookahead < tick)
                    tick = sim->lps[i]->out[k].lookahead;
        if (sim->link_all > 0 && sim->link_all < tick)
            tick = sim->link_all;
    }
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        for (size_t k = 0; k < lp->out_count; k++)
            if (lp->out[k].lookahead < tick)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: lockstep tick %" PRId64
                                         " ns exceeds the lookahead %" PRId64 " ns of link '%s'"
                                         " -> '%s'", tick, lp->out[k].lookahead, lp->name,
                                         sim->lps[lp->out[k].peer]->name);
    }
    if (sim->link_all >= 0 && sim->link_all < tick)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: lockstep tick %" PRId64
                                 " ns exceeds the all-to-all lookahead %" PRId64 " ns", tick,
                                 sim->link_all);
    worker w = {.sim = sim};
    if (!event_pool_reserve(&w.pool, sim->lp_count * 4 > 4096 ? sim->lp_count * 4 : 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    for (size_t i = 0; i < sim->lp_count; i++)
        sim->lps[i]->worker = &w;
    sim->route = ROUTE_LP_HEAP;
    rtcosim_status st = kernel_init_lps(sim, err);
    uint64_t ticks = 0;
    for (rtcosim_time_ns t = o->start_time; st == RTCOSIM_OK && t <= sim->stop; t += tick) {
        rtcosim_time_ns end = t > sim->stop - tick ? sim->stop + 1 : t + tick;
        bool pending = false;
        for (size_t i = 0; i < sim->lp_count && st == RTCOSIM_OK; i++) {
            rtcosim_lp *lp = sim->lps[i];
            while (lp->heap.count && lp->heap.entries[0].time < end) {
                rtcosim_event *ev = event_heap_pop(&lp->heap);
                st = kernel_process(lp, ev, err);
                event_pool_put(&w.pool, ev);
                if (st != RTCOSIM_OK)
                    break;
            }
            pending |= lp->heap.count != 0;
        }
        ticks++;
        /* an LP visited early may have been sent events later in the tick */
        for (size_t i = 0; i < sim->lp_count && !pending; i++)
            pending = sim->lps[i]->heap.count != 0;
        if (!pending)
            break;
    }
    stats->rounds = ticks;
    for (size_t i = 0; i < sim->lp_count; i++)
        event_heap_free(&sim->lps[i]->heap);
    event_pool_free(&w.pool);
    return st;
}
