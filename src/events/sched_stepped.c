/* A run stepped from outside: the sequential scheduler's order, one instant
 * range at a time, with events put in by the caller, so that a time-stepped
 * caller (a co-simulation component holding ECU LPs and a CAN bus: `rtcosim
 * run --can-bus` with native ECUs) can drive the kernel between its own
 * steps. Processing to t and then to t' > t gives the events in the same
 * order as one sequential run to t'. */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

void sched_stepped_free(rtcosim_events *sim)
{
    worker *w = sim->stepper;
    if (!w)
        return;
    event_heap_free(&w->heap);
    event_pool_free(&w->pool);
    free(w);
    sim->stepper = NULL;
}

rtcosim_status rtcosim_events_begin(rtcosim_events *sim, const rtcosim_run_options *options,
                                    rtcosim_error *err)
{
    if (sim->stepper)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: a stepped run is in progress");
    if (sim->dist)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "events: a stepped run is not distributed over ranks");
    rtcosim_run_options o = *options;
    rtcosim_status st = kernel_run_prepare(sim, &o, err);
    if (st != RTCOSIM_OK)
        return st;
    worker *w = sim->stepper = calloc(1, sizeof *w);
    if (!w || !event_pool_reserve(&w->pool, sim->lp_count * 4 > 4096 ? sim->lp_count * 4 : 4096)) {
        sched_stepped_free(sim);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    w->sim = sim;
    for (size_t i = 0; i < sim->lp_count; i++)
        sim->lps[i]->worker = w;
    sim->route = ROUTE_WORKER_HEAP;
    if ((st = kernel_init_lps(sim, err)) != RTCOSIM_OK)
        sched_stepped_free(sim);
    return st;
}

rtcosim_time_ns rtcosim_events_next_time(const rtcosim_events *sim)
{
    const worker *w = sim->stepper;
    return w && w->heap.count ? event_heap_min_time(&w->heap) : RTCOSIM_TIME_MAX;
}

rtcosim_status rtcosim_events_advance(rtcosim_events *sim, rtcosim_time_ns t, rtcosim_error *err)
{
    worker *w = sim->stepper;
    if (!w)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: no stepped run (rtcosim_events_begin)");
    while (w->heap.count && event_heap_min_time(&w->heap) <= t) {
        rtcosim_event *ev = event_heap_pop(&w->heap);
        rtcosim_status st = kernel_process(sim->lps[ev->dst], ev, err);
        event_pool_put(&w->pool, ev);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_inject(rtcosim_events *sim, rtcosim_lp_id dst, rtcosim_time_ns t,
                                     uint16_t type, const void *payload, size_t size,
                                     rtcosim_error *err)
{
    if (!sim->stepper)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: no stepped run (rtcosim_events_begin)");
    if (dst >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: no LP %u", (unsigned)dst);
    rtcosim_lp *lp = sim->lps[dst];
    if (t < lp->now)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: event for lp '%s' at t=%.9f s, "
                                 "before its clock t=%.9f s", lp->name,
                                 rtcosim_time_to_seconds(t), rtcosim_time_to_seconds(lp->now));
    if (size > RTCOSIM_EVENT_PAYLOAD_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: payload of %zu bytes exceeds the "
                                 "%d-byte limit", size, RTCOSIM_EVENT_PAYLOAD_MAX);
    if (t > sim->stop)
        return RTCOSIM_OK; /* after the stop time: never processed */
    /* As a zero-delay event from the LP to itself, ordered after the LP's
     * own events of that instant sent with a delay, and among injected ones
     * in the order of injection. */
    worker *w = sim->stepper;
    rtcosim_event *ev = event_pool_get(&w->pool);
    if (!ev)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for events");
    ev->time = t;
    ev->tie = dst;
    ev->seq = event_seq(0, w->events++ & EVENT_SEQ_COUNT_MAX);
    ev->src = ev->dst = dst;
    ev->type = type;
    ev->size = (uint16_t)size;
    ev->reserved_ = 0;
    if (size)
        memcpy(ev->payload, payload, size);
    return kernel_deliver(w, ev, err);
}

rtcosim_status rtcosim_events_end(rtcosim_events *sim, rtcosim_error *err)
{
    if (!sim->stepper)
        return RTCOSIM_OK;
    sched_stepped_free(sim);
    rtcosim_status st = kernel_commit_lps(sim, RTCOSIM_TIME_MAX, err); /* all of it is final */
    return st != RTCOSIM_OK ? st : kernel_run_final(sim, err);
}
