/* Telling LPs that their past is final (rtcosim_lp_model.commit): what a
 * model keeps of its history for a rollback (a bus's frame log) can then be
 * written out and freed while the run goes, so memory stays bounded however
 * long the run. The schedulers call it where they know a time is final. */
#include <string.h>

#include "kernel.h"
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
