/* Injected-cost native variants for the anytime tests (see the header). */
#include "anytime_test_util.h"

rtcosim_status injected_variant_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                   rtcosim_time_ns h, const double *inputs, void *state,
                                   double *outputs, rtcosim_error *err)
{
    (void)t, (void)inputs;
    injected_variant *v = user;
    v->last_h = h;
    rtcosim_time_ns cost = v->cost_ns[*v->period];
    if (*v->calibrating)
        cost = v->calibration_cycle_ns[0] > 0
                   ? v->calibration_cycle_ns[v->calibration_calls++ % 4]
                   : v->calibration_cost_ns;
    for (rtcosim_time_ns spent = 0; spent < cost; spent += US) {
        if (rtcosim_anytime_should_abort(ctx))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "aborted");
        rtcosim_clock_advance(v->clock, US);
    }
    double *x = state;
    *x += v->increment;
    outputs[0] = *x;
    return RTCOSIM_OK;
}
