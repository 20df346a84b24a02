/* Telling LPs that their past is final (rtcosim_lp_model.commit): what a
 * model keeps of its history for a rollback (a bus's frame log) can then be
 * written out and freed while the run goes, so memory stays bounded however
 * long the run. The schedulers call it where they know a time is final. */
#include <string.h>

#include "kernel.h"
#include "spec_internal.h"
#include "rtcosim/log.h"
#include "rtcosim/events_dist.h"

rtcosim_status kernel_commit_lp(rtcosim_lp *lp, rtcosim_time_ns before, rtcosim_error *err)
{
    rtcosim_status st = lp->model->commit(lp, lp->state, before, err);
    if (st == RTCOSIM_OK)
        return RTCOSIM_OK;
    if (err && err->status == RTCOSIM_OK)
        rtcosim_error_set(err, st, "%s", rtcosim_strerror(st));
    if (err && strncmp(err->message, "lp '", 4) != 0)
        rtcosim_error_prefix(err, "lp '%s' commit: ", lp->name);
    return st;
}

rtcosim_status kernel_commit_lps(rtcosim_events *sim, rtcosim_time_ns before, rtcosim_error *err)
{
    rtcosim_status first = RTCOSIM_OK;
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp *lp = sim->lps[i];
        if (!lp->model->commit || !rtcosim_events_owns(sim, lp->id))
            continue;
        rtcosim_error lp_err = {0};
        rtcosim_status st = kernel_commit_lp(lp, before, &lp_err);
        if (st != RTCOSIM_OK && !err) /* the run's own error comes first */
            rtcosim_log(RTCOSIM_LOG_WARNING, "events", "%s", lp_err.message);
        if (st != RTCOSIM_OK && first == RTCOSIM_OK) { /* the others still flush theirs */
            first = st;
            if (err)
                *err = lp_err;
        }
    }
    return first;
}

rtcosim_time_ns rtcosim_lp_floor(const rtcosim_lp *lp)
{
    const rtcosim_events *sim = lp->sim;
    switch (sim->route) {
    case ROUTE_WORKER_HEAP:
    case ROUTE_CALENDAR: /* one queue in time order: everything earlier is done */
        return lp->now;
    case ROUTE_THREADS:
        return conservative_floor(sim, lp->worker);
    case ROUTE_LP_HEAP: { /* one thread; events go straight into their LP's heap */
        rtcosim_time_ns least = lp->now;
        for (size_t i = 0; i < sim->lp_count; i++) {
            const event_heap *h = &sim->lps[i]->heap;
            if (h->count && h->entries[0].time < least)
                least = h->entries[0].time;
        }
        return least;
    }
    case ROUTE_SPECULATIVE:
        return atomic_load_explicit(&sim->spec->gvt, memory_order_acquire);
    case ROUTE_RANKS:
    default:
        return INT64_MIN;
    }
}
