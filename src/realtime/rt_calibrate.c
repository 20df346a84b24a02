/* The calibration before a real-time run: the real-time part stepped
 * unpaced for some frames (states saved and restored), and the verdict
 * whether its frames fit the frame period. The verdict looks at the median
 * and the 99th percentile, not the maximum: one OS stall of milliseconds
 * among microsecond frames says nothing about the part and must not refuse
 * a run that fits. Nor do other programs' turns on the CPU: a frame's time
 * leaves out the thread's run-queue wait (rt_frame_timer). */
#include <stdlib.h>
#include <unistd.h>

#include "realtime/rt_internal.h"
#include "rtcosim/log.h"
#include "util/run_queue.h"

static int compare_time(const void *a, const void *b)
{
    rtcosim_time_ns x = *(const rtcosim_time_ns *)a, y = *(const rtcosim_time_ns *)b;
    return (x > y) - (x < y);
}

bool rtcosim_rt_calibration_fits(const rtcosim_time_ns *sorted, size_t n, double budget_ns,
                                 rtcosim_time_ns *median, rtcosim_time_ns *p99)
{
    if (n == 0) {
        *median = *p99 = 0;
        return true;
    }
    *median = sorted[(n - 1) / 2];
    size_t rank = (99 * n + 99) / 100; /* nearest rank: ceil(0.99 n), 1-based */
    *p99 = sorted[rank - 1];
    return (double)*median <= budget_ns && (double)*p99 <= budget_ns;
}

void rtcosim_rt_frame_timer_open(rt_frame_timer *t, rtcosim_clock *clock)
{
    *t = (rt_frame_timer){.clock = clock, .run_queue = -1};
    if (!rtcosim_clock_is_virtual(clock))
        t->run_queue = run_queue_open();
}

void rtcosim_rt_frame_timer_begin(rt_frame_timer *t)
{
    t->queued_at_begin = run_queue_wait_ns(t->run_queue);
    t->begun = rtcosim_clock_now(t->clock);
}

rtcosim_time_ns rtcosim_rt_frame_timer_end(rt_frame_timer *t)
{
    rtcosim_time_ns took = rtcosim_clock_now(t->clock) - t->begun;
    int64_t queued_now = run_queue_wait_ns(t->run_queue);
    if (t->queued_at_begin < 0 || queued_now < t->queued_at_begin)
        return took;
    rtcosim_time_ns queued = queued_now - t->queued_at_begin;
    if (queued > took) /* the reads bracket the clock's: never below 0 */
        queued = took;
    t->queued += queued;
    t->frames_queued += queued >= 10000;
    return took - queued;
}

void rtcosim_rt_frame_timer_close(rt_frame_timer *t)
{
    if (t->run_queue >= 0)
        close(t->run_queue);
    t->run_queue = -1;
}

/* The log line on the run-queue wait left out of the calibration. */
void rtcosim_rt_frame_timer_log(const rt_frame_timer *t, size_t frames)
{
    if (t->frames_queued)
        rtcosim_log(RTCOSIM_LOG_INFO, "realtime",
                    "calibration: %zu of %zu frames waited %.1f us in all for the CPU (another "
                    "program's turn); left out of their times",
                    t->frames_queued, frames, (double)t->queued / 1e3);
}

rtcosim_status rtcosim_rt_calibrate(rtcosim_rt *rt, rtcosim_error *err)
{
    part *p = &rt->rt_part;
    size_t frames = rt->options.calibration_frames;
    for (size_t i = 0; i < p->member_count; i++)
        if (!rtcosim_component_capabilities(p->members[i].component)->can_get_set_state)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "real-time calibration: %s cannot save its state "
                                     "(calibration steps it and must restore it); run with "
                                     "--no-calibrate",
                                     rtcosim_component_instance_name(p->members[i].component));
    rtcosim_state *states = calloc(p->member_count, sizeof *states);
    rtcosim_time_ns *times = calloc(frames, sizeof *times);
    rtcosim_status st = states && times ? RTCOSIM_OK
                                        : rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                                            "real-time calibration: out of memory");
    size_t saved = 0;
    for (; st == RTCOSIM_OK && saved < p->member_count; saved++)
        st = rtcosim_component_get_state(p->members[saved].component, &states[saved], err);
    rtcosim_time_ns H = rt->options.macro_step;
    rt_frame_timer timer;
    rtcosim_rt_frame_timer_open(&timer, rt->clock);
    for (size_t k = 0; st == RTCOSIM_OK && k < frames; k++) {
        rtcosim_rt_frame_timer_begin(&timer);
        rtcosim_time_ns te = rt->options.start_time + (rtcosim_time_ns)k * H;
        st = rtcosim_rt_part_read(p, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_write(p, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_step(p, te, H, err);
        times[k] = rtcosim_rt_frame_timer_end(&timer);
    }
    rtcosim_rt_frame_timer_close(&timer);
    rtcosim_rt_frame_timer_log(&timer, frames);
    for (size_t i = 0; i < saved && states; i++) {
        if (states[i]) {
            rtcosim_status rs = rtcosim_component_set_state(p->members[i].component, states[i],
                                                            st == RTCOSIM_OK ? err : NULL);
            if (st == RTCOSIM_OK)
                st = rs;
            rtcosim_component_free_state(p->members[i].component, states[i]);
        }
    }
    if (st == RTCOSIM_OK) {
        qsort(times, frames, sizeof *times, compare_time);
        rtcosim_rt_summary *s = &rt->summary;
        s->calibration_worst = times[frames - 1];
        rtcosim_time_ns period = rtcosim_rt_frame_offset(rt, 1);
        double budget = rt->options.calibration_budget * (double)period;
        bool fits = rtcosim_rt_calibration_fits(times, frames, budget, &s->calibration_median,
                                                &s->calibration_p99);
        if (!fits)
            st = rtcosim_error_set(err, RTCOSIM_ETIMEOUT,
                                   "real-time calibration: the real-time part's frames take "
                                   "%.1f us (median) and %.1f us (99th percentile) over %zu "
                                   "frames, more than %.0f %% of the %.1f us frame period; "
                                   "refusing to run (--no-calibrate runs anyway)",
                                   (double)s->calibration_median / 1e3,
                                   (double)s->calibration_p99 / 1e3, frames,
                                   rt->options.calibration_budget * 100, (double)period / 1e3);
        else if ((double)s->calibration_worst > budget)
            rtcosim_log(RTCOSIM_LOG_INFO, "realtime",
                        "calibration: one frame of %.1f us exceeded the budget (median %.1f us, "
                        "99th percentile %.1f us): an isolated stall, ignored",
                        (double)s->calibration_worst / 1e3, (double)s->calibration_median / 1e3,
                        (double)s->calibration_p99 / 1e3);
    }
    free(states);
    free(times);
    return st;
}
