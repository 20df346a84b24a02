/* Statistics of the speculative scheduler per LP (processed, committed,
 * rollbacks and their depths, predictions and their errors), read after a
 * run and written as CSV for `rtcosim events --speculate-stats`. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spec_internal.h"

rtcosim_status rtcosim_events_lp_speculation(const rtcosim_events *sim, rtcosim_lp_id id,
                                             rtcosim_lp_speculation *out, rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
    if (id >= sim->lp_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: no LP %" PRIu32, id);
    const rtcosim_lp *lp = sim->lps[id];
    const spec_lp *s = lp->spec;
    if (!s)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "events: lp '%s' has not run on the"
                                 " speculative scheduler", lp->name);
    out->processed = s->processed;
    out->committed = lp->processed;
    out->rollbacks = s->rollbacks;
    out->rolled_back = s->rolled_back;
    out->coasted = s->coasted;
    out->anti_messages = s->anti_messages;
    out->reused = s->reused;
    out->failures_undone = s->failures_undone;
    memcpy(out->depth_hist, s->depth_hist, sizeof out->depth_hist);
    out->predicted = s->predicted;
    out->predictions_checked = s->checked;
    out->error_rms = s->checked ? sqrt(s->error_sq / (double)s->checked) : 0.0;
    out->error_max = s->error_max;
    out->conservative = s->conservative;
    return RTCOSIM_OK;
}

void spec_stats_set(spec_lp *s, const rtcosim_lp_speculation *in)
{
    s->processed = in->processed;
    s->rollbacks = in->rollbacks;
    s->rolled_back = in->rolled_back;
    s->coasted = in->coasted;
    s->anti_messages = in->anti_messages;
    s->reused = in->reused;
    s->failures_undone = in->failures_undone;
    memcpy(s->depth_hist, in->depth_hist, sizeof s->depth_hist);
    s->predicted = in->predicted;
    s->checked = in->predictions_checked;
    s->error_sq = in->error_rms * in->error_rms * (double)in->predictions_checked;
    s->error_max = in->error_max;
    /* (committed is the LP's processed count; conservative every rank knows) */
}

rtcosim_status rtcosim_events_write_speculation_csv(const rtcosim_events *sim, const char *path,
                                                    rtcosim_error *err)
{
    if (sim->lp_count == 0 || !sim->lps[0]->spec)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "%s: no speculative run to report", path);
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f, "lp,kind,processed,committed,rollbacks,rolled_back,anti_messages");
    for (unsigned b = 0; b < RTCOSIM_SPEC_DEPTH_BINS; b++)
        fprintf(f, b + 1 < RTCOSIM_SPEC_DEPTH_BINS ? ",depth_%u_%u" : ",depth_%u_up",
                1u << b, (2u << b) - 1);
    fprintf(f, ",predicted,predictions_checked,error_rms,error_max,conservative,coasted,"
               "reused,failures_undone\n");
    for (size_t i = 0; i < sim->lp_count; i++) {
        rtcosim_lp_speculation s;
        if (rtcosim_events_lp_speculation(sim, (rtcosim_lp_id)i, &s, NULL) != RTCOSIM_OK)
            continue;
        fprintf(f, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                sim->lps[i]->name, sim->lps[i]->model->kind, s.processed, s.committed,
                s.rollbacks, s.rolled_back, s.anti_messages);
        for (unsigned b = 0; b < RTCOSIM_SPEC_DEPTH_BINS; b++)
            fprintf(f, ",%" PRIu64, s.depth_hist[b]);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.17g,%.17g,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                s.predicted, s.predictions_checked, s.error_rms, s.error_max,
                s.conservative ? 1 : 0, s.coasted, s.reused, s.failures_undone);
    }
    if (fclose(f) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: write error", path);
    return RTCOSIM_OK;
}
