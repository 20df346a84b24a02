/* DCP master side in soft real time (DCP 1.0 op mode SRT), for a real-time
 * run's non-real-time partner: the slave steps on its own clock from STC_run
 * (spec 3.2.5.12) and sends its outputs every step; the master sends inputs
 * as DAT_input_output at each step and never STC_do_step. Received outputs
 * are kept by the slave's step in a fixed ring (no allocation per PDU), so a
 * partner step for simulated time t + h takes the slave's step (t + h) / h. */
#include <inttypes.h>
#include <string.h>

#include "dcp/remote_internal.h"

void dcp_remote_srt_take(remote *r, const rtcosim_dcp_pdu *p, uint16_t ahead)
{
    /* pdu_seq_id counts the slave's output PDUs (one per step after
     * initialization): `ahead` of the last one is that many steps later. */
    uint64_t step = r->srt_newest + ahead;
    size_t slot = (size_t)(step % DCP_SRT_RING);
    size_t size = p->payload_size <= r->srt_stride ? p->payload_size : r->srt_stride;
    r->srt_tag[slot] = step;
    r->srt_size[slot] = size;
    memcpy(r->srt_ring + slot * r->srt_stride, p->payload, size);
    r->srt_newest = step;
}

/* STC_run with start time 0 ("now", spec 3.1.14.1): the slave's time 0 is
 * the real-time run's first partner step, not the end of initialization
 * (calibration and the other part's set-up lie between). */
static rtcosim_status start(remote *r, rtcosim_error *err)
{
    rtcosim_status st;
    r->srt_newest = 0;
    memset(r->srt_tag, 0, DCP_SRT_RING * sizeof *r->srt_tag);
    r->srt_running = true; /* from here on, output PDUs are steps 1, 2, ... */
    if ((st = dcp_remote_stc(r, RTCOSIM_DCP_STC_RUN, 0, err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_SYNCHRONIZED, false, err)) != RTCOSIM_OK)
        r->srt_running = false;
    return st;
}

rtcosim_status dcp_remote_srt_step(remote *r, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_error *err)
{
    if (h != r->cfg.srt_step_ns || t % h != 0)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP %s: soft real time steps of %" PRId64 " ns from 0 "
                                 "(CFG_steps), not %" PRId64 " ns at %" PRId64 " ns",
                                 r->name, r->cfg.srt_step_ns, h, t);
    rtcosim_status st;
    if (!r->srt_running && (st = start(r, err)) != RTCOSIM_OK)
        return st;
    /* used by the slave from its next step on */
    if ((st = dcp_remote_send_inputs(r, err)) != RTCOSIM_OK)
        return st;
    if (r->n_out == 0)
        return RTCOSIM_OK;
    uint64_t k = (uint64_t)((t + h) / h);
    rtcosim_time_ns deadline = dcp_now_ns() + r->cfg.srt_wait_ns;
    for (rtcosim_time_ns now = dcp_now_ns(); r->srt_newest < k; now = dcp_now_ns()) {
        if (r->slave_state == RTCOSIM_DCP_ERRORHANDLING || r->slave_state == RTCOSIM_DCP_ERRORRESOLVED)
            return dcp_remote_failed(r, err);
        if (now >= deadline)
            return rtcosim_error_set(err, RTCOSIM_ETIMEOUT,
                                     "DCP slave %s:%u: no output data for step %" PRIu64
                                     " within %.3f s (soft real time)",
                                     r->host, (unsigned)r->cfg.port, k,
                                     rtcosim_time_to_seconds(r->cfg.srt_wait_ns));
        rtcosim_dcp_pdu ignored;
        (void)dcp_remote_pump(r, deadline - now, &ignored);
    }
    /* Step k itself, or (its PDU lost: DCP 1.0 cannot ask again) the newest
     * step before it still in the ring; none: the newest there is. */
    for (uint64_t j = k; j > 0 && j + DCP_SRT_RING > k; j--) {
        size_t slot = (size_t)(j % DCP_SRT_RING);
        if (r->srt_tag[slot] == j) {
            dcp_remote_decode_outputs(r, r->srt_ring + slot * r->srt_stride, r->srt_size[slot]);
            return RTCOSIM_OK;
        }
    }
    size_t slot = (size_t)(r->srt_newest % DCP_SRT_RING);
    dcp_remote_decode_outputs(r, r->srt_ring + slot * r->srt_stride, r->srt_size[slot]);
    return RTCOSIM_OK;
}
