/* The sequential scheduler: one queue of all events (a calendar with a
 * sorted front, event_calendar.h), processed in the total order on the
 * calling thread. It defines the reference result every other scheduler
 * reproduces. */
#include <stdlib.h>

#include "kernel.h"

rtcosim_status sched_sequential_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                    rtcosim_run_stats *stats, rtcosim_error *err)
{
    (void)o;
    worker w = {.sim = sim};
    rtcosim_status st = RTCOSIM_OK;
    if (!event_pool_reserve(&w.pool, sim->lp_count * 4 > 4096 ? sim->lp_count * 4 : 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    for (size_t i = 0; i < sim->lp_count; i++)
        sim->lps[i]->worker = &w;
    sim->route = ROUTE_CALENDAR;
    st = kernel_init_lps(sim, err);
    rtcosim_event *ev;
    while (st == RTCOSIM_OK && (ev = event_calendar_pop(&w.calendar))) {
        if (w.calendar.near.count) /* the next event's LP is on its way meanwhile */
            __builtin_prefetch(sim->lps[w.calendar.near.entries[0].ev->dst]);
        st = kernel_process(sim->lps[ev->dst], ev, err);
        event_pool_put(&w.pool, ev);
    }
    if (st == RTCOSIM_OK && w.calendar.failed)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    stats->rounds = 1;
    event_calendar_free(&w.calendar);
    event_pool_free(&w.pool);
    return st;
}
