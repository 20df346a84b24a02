/* The non-real-time partner's own pace: compute time per step and its load
 * over windows of simulated time. A partner may be late at times (that is
 * what estimates are for) but must be fast enough on average; a window whose
 * compute time exceeds the real time it stands for is reported, long before
 * the growing lag makes the partner lost at its timeout. */
#include <string.h>

#include "realtime/rt_internal.h"
#include "rtcosim/log.h"

static rtcosim_time_ns window_length(const rtcosim_rt *rt)
{
    return rt->options.partner_window > 0 ? rt->options.partner_window
                                          : 100 * RTCOSIM_NS_PER_MS;
}

/* Compute time over the wall time h of simulated time takes at rt_factor. */
static double load(const rtcosim_rt *rt, rtcosim_time_ns compute, rtcosim_time_ns h)
{
    return h > 0 ? (double)compute * rt->options.rt_factor / (double)h : 0.0;
}

void rtcosim_rt_pace_reset(rtcosim_rt *rt)
{
    memset(&rt->pace, 0, sizeof rt->pace);
    rtcosim_histogram_reset(&rt->pace.compute);
    rt->pace.window = -1;
}

static void close_window(rtcosim_rt *rt)
{
    if (rt->pace.window < 0 || rt->pace.win_h <= 0)
        return;
    double l = load(rt, rt->pace.win_compute, rt->pace.win_h);
    rt->pace.windows++;
    if (l > rt->pace.worst)
        rt->pace.worst = l;
    if (l > 1.0 && rt->pace.slow++ == 0)
        rt->pace.first_slow_at = rt->options.start_time + rt->pace.window * window_length(rt);
}

void rtcosim_rt_pace_account(rtcosim_rt *rt, rtcosim_time_ns stamp, rtcosim_time_ns h,
                             rtcosim_time_ns compute)
{
    if (compute < 0)
        compute = 0;
    rtcosim_histogram_add(&rt->pace.compute, compute);
    rt->pace.sum_compute += compute;
    rt->pace.sum_h += h;
    int64_t w = (stamp - rt->options.start_time) / window_length(rt);
    if (w != rt->pace.window) {
        close_window(rt);
        rt->pace.window = w;
        rt->pace.win_compute = rt->pace.win_h = 0;
    }
    rt->pace.win_compute += compute;
    rt->pace.win_h += h;
}

void rtcosim_rt_pace_finish(rtcosim_rt *rt)
{
    rtcosim_rt_summary *s = &rt->summary;
    if (s->partner_abandoned)
        return; /* its thread may still write: its figures are not read */
    /* The last window counts when it is complete. */
    if (rt->pace.win_h >= window_length(rt))
        close_window(rt);
    const rtcosim_histogram *c = &rt->pace.compute;
    s->partner_compute_mean = (rtcosim_time_ns)(rtcosim_histogram_mean(c) + 0.5);
    s->partner_compute_p99 = rtcosim_histogram_percentile(c, 99);
    s->partner_compute_max = c->max;
    s->partner_load = load(rt, rt->pace.sum_compute, rt->pace.sum_h);
    s->partner_windows = rt->pace.windows;
    s->partner_slow_windows = rt->pace.slow;
    s->partner_worst_load = rt->pace.worst;
    s->partner_first_slow_at = rt->pace.first_slow_at;
    if (s->partner_slow_windows)
        rtcosim_log(RTCOSIM_LOG_WARNING, "realtime",
                    "the non-real-time part was slower than real time in %llu of %llu windows "
                    "of %.3f s (worst %.2fx, first from %.6f s): it must be fast enough on "
                    "average",
                    (unsigned long long)s->partner_slow_windows,
                    (unsigned long long)s->partner_windows,
                    rtcosim_time_to_seconds(window_length(rt)), s->partner_worst_load,
                    rtcosim_time_to_seconds(s->partner_first_slow_at));
}
