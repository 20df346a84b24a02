/* The non-real-time parts' own pace: compute time per step and load over
 * windows of simulated time. A part may be late at times (that is what
 * estimates are for) but must be fast enough on average; a window whose
 * compute time exceeds the real time it stands for is reported, long before
 * the growing lag makes the part lost at its timeout. */
#include <string.h>

#include "realtime/rt_internal.h"
#include "rtcosim/log.h"

/* Compute time over the wall time h of simulated time takes at rt_factor. */
static double load(const rtcosim_rt *rt, rtcosim_time_ns compute, rtcosim_time_ns h)
{
    return h > 0 ? (double)compute * rt->options.rt_factor / (double)h : 0.0;
}

void rtcosim_rt_pace_reset(rt_partner *p)
{
    memset(&p->pace, 0, sizeof p->pace);
    rtcosim_histogram_reset(&p->pace.compute);
    p->pace.window = -1;
}

static void close_window(rt_partner *p)
{
    rt_pace *pc = &p->pace;
    if (pc->window < 0 || pc->win_h <= 0)
        return;
    double l = load(p->rt, pc->win_compute, pc->win_h);
    pc->windows++;
    if (l > pc->worst)
        pc->worst = l;
    if (l > 1.0 && pc->slow++ == 0)
        pc->first_slow_at =
            p->rt->options.start_time + pc->window * rtcosim_rt_partner_window(p->rt);
}

void rtcosim_rt_pace_account(rt_partner *p, rtcosim_time_ns stamp, rtcosim_time_ns h,
                             rtcosim_time_ns compute)
{
    rt_pace *pc = &p->pace;
    if (compute < 0)
        compute = 0;
    rtcosim_histogram_add(&pc->compute, compute);
    pc->sum_compute += compute;
    pc->sum_h += h;
    int64_t w = (stamp - p->rt->options.start_time) / rtcosim_rt_partner_window(p->rt);
    if (w != pc->window) {
        close_window(p);
        pc->window = w;
        pc->win_compute = pc->win_h = 0;
    }
    pc->win_compute += compute;
    pc->win_h += h;
}

static void finish_one(rt_partner *p)
{
    rtcosim_rt *rt = p->rt;
    rtcosim_rt_part_summary *s = &p->summary;
    /* The last window counts when it is complete. */
    if (p->pace.win_h >= rtcosim_rt_partner_window(rt))
        close_window(p);
    const rtcosim_histogram *c = &p->pace.compute;
    s->compute_mean = (rtcosim_time_ns)(rtcosim_histogram_mean(c) + 0.5);
    s->compute_p99 = rtcosim_histogram_percentile(c, 99);
    s->compute_max = c->max;
    s->load = load(rt, p->pace.sum_compute, p->pace.sum_h);
    s->windows = p->pace.windows;
    s->slow_windows = p->pace.slow;
    s->worst_load = p->pace.worst;
    s->first_slow_at = p->pace.first_slow_at;
    if (s->slow_windows) {
        char text[512];
        rtcosim_rt_slow_warning(rt, p->index, text, sizeof text);
        rtcosim_log(RTCOSIM_LOG_WARNING, "realtime", "%s", text);
    }
}

void rtcosim_rt_pace_finish(rtcosim_rt *rt)
{
    rtcosim_rt_summary *s = &rt->summary;
    s->partner_slow_windows = s->partner_windows = 0;
    for (size_t i = 0; i < rt->partner_count; i++) {
        rt_partner *p = &rt->partners[i];
        if (p->summary.abandoned)
            continue; /* its thread may still write: its figures are not read */
        finish_one(p);
        const rtcosim_rt_part_summary *ps = &p->summary;
#define TAKE_MAX(field, from)                                                                    \
    if (ps->from > s->field)                                                                     \
        s->field = ps->from;
        TAKE_MAX(partner_compute_mean, compute_mean)
        TAKE_MAX(partner_compute_p99, compute_p99)
        TAKE_MAX(partner_compute_max, compute_max)
        TAKE_MAX(partner_load, load)
        TAKE_MAX(partner_worst_load, worst_load)
#undef TAKE_MAX
        if (ps->slow_windows && (s->partner_slow_windows == 0 ||
                                 ps->first_slow_at < s->partner_first_slow_at))
            s->partner_first_slow_at = ps->first_slow_at;
        s->partner_windows += ps->windows;
        s->partner_slow_windows += ps->slow_windows;
    }
}
