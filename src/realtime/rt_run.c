/* The paced loop of the real-time executor: frame k starts at the absolute
 * deadline start + k*H/rt_factor; overrun policies, the paced thread's
 * settings and the run (the partner: rt_partner.c; calibration:
 * rt_calibrate.c). Nothing here allocates, locks or does I/O once the loop
 * runs. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "realtime/rt_internal.h"
#include "rtcosim/log.h"

#define LOG_CATEGORY "realtime"

/* --- Logs ------------------------------------------------------------------- */

static void log_overrun(rtcosim_rt *rt, const rtcosim_rt_overrun *o)
{
    size_t cap = rt->options.overrun_log;
    if (cap == 0)
        return;
    if (rt->overrun_first_n < cap) {
        rt->overrun_first[rt->overrun_first_n++] = *o;
        return;
    }
    rt->overrun_last[rt->overrun_last_head] = *o;
    rt->overrun_last_head = (rt->overrun_last_head + 1) % cap;
    if (rt->overrun_last_n < cap)
        rt->overrun_last_n++;
}

static void log_frame(rtcosim_rt *rt, const rtcosim_rt_frame *f)
{
    if (rt->frame_count >= rt->frame_capacity)
        return;
    rt->frames[rt->frame_count] = *f;
    double *sig = rt->frame_signals + rt->frame_count * rt->signal_count;
    const part *p = &rt->rt_part;
    for (size_t j = 0; j < p->remote_count; j++)
        sig[j] = p->remote_values[j];
    for (size_t j = 0; j < p->send_count; j++)
        sig[p->remote_count + j] = p->slot_values[p->send_slots[j]];
    rt->frame_count++;
}

/* --- The paced loop ---------------------------------------------------------- */

void rtcosim_rt_probes_reset(rtcosim_rt_probes *p)
{
    rtcosim_histogram_reset(&p->wakeup);
    rtcosim_histogram_reset(&p->read);
    rtcosim_histogram_reset(&p->write);
    rtcosim_histogram_reset(&p->step);
    rtcosim_histogram_reset(&p->bookkeeping);
}

typedef struct schedule {
    size_t pattern_index;
    uint64_t next_exchange; /* frame index of the next exchange point */
} schedule;

/* Frames from exchange point `frame` to the next one (pattern advanced). */
static uint64_t schedule_advance(rtcosim_rt *rt, schedule *s, uint64_t frame)
{
    uint64_t n = rt->options.exchange.frames[s->pattern_index];
    s->pattern_index = (s->pattern_index + 1) % rt->options.exchange.length;
    s->next_exchange = frame + n;
    return frame + n > rt->total_frames ? rt->total_frames - frame : n;
}

static bool all_variable_step(const part *p)
{
    for (size_t i = 0; i < p->member_count; i++)
        if (!rtcosim_component_capabilities(p->members[i].component)->can_handle_variable_step)
            return false;
    return true;
}

/* Skip policy: frames first..last-1 were dropped. Their exchanges with the
 * parts carry the held outputs; the real-time part steps over the interval
 * with inputs held (one step when every component accepts a variable step). */
static rtcosim_status step_dropped(rtcosim_rt *rt, schedule *s, uint64_t first, uint64_t last,
                                   rtcosim_error *err)
{
    rtcosim_time_ns H = rt->options.macro_step;
    for (uint64_t f = first; f < last; f++)
        if (rt->mixed && f == s->next_exchange) {
            uint64_t frames = schedule_advance(rt, s, f);
            for (size_t i = 0; i < rt->partner_count; i++)
                rtcosim_rt_send_sample(&rt->partners[i],
                                       rt->options.start_time + (rtcosim_time_ns)f * H,
                                       (rtcosim_time_ns)frames * H, true);
        }
    rtcosim_time_ns t0 = rt->options.start_time + (rtcosim_time_ns)first * H;
    if (all_variable_step(&rt->rt_part))
        return rtcosim_rt_part_step(&rt->rt_part, t0, (rtcosim_time_ns)(last - first) * H, err);
    for (uint64_t f = first; f < last; f++) {
        rtcosim_status st = rtcosim_rt_part_step(&rt->rt_part, t0 + (rtcosim_time_ns)(f - first) * H,
                                                 H, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

void rtcosim_rt_classify_overrun(rtcosim_rt_overrun *ov, rtcosim_time_ns period, bool backlog,
                                 bool backlog_partner, bool partner_late, bool mixed,
                                 bool isolated)
{
    if (backlog)
        ov->cause = RTCOSIM_RT_CAUSE_BACKLOG;
    else if (ov->exec > period)
        ov->cause = RTCOSIM_RT_CAUSE_EXECUTION;
    else
        ov->cause = RTCOSIM_RT_CAUSE_WAKEUP;
    /* Without its exchange work the frame would have ended in time. */
    bool exchange_decided = ov->exchange > 0 && ov->overshoot <= ov->exchange;
    ov->partner = mixed && (exchange_decided || (backlog && backlog_partner) ||
                            (ov->cause == RTCOSIM_RT_CAUSE_WAKEUP && partner_late && !isolated));
}

static rtcosim_status run_loop(rtcosim_rt *rt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &rt->options;
    rtcosim_time_ns H = o->macro_step;
    rtcosim_clock *clock = rt->clock;
    rtcosim_time_ns run_start = rtcosim_clock_now(clock);
    rt->summary.run_start = run_start;
    rtcosim_time_ns slip = 0;
    schedule sched = {0, 0};
    uint64_t k = 0;
    bool previous_overrun = false, previous_partner = false;
    rtcosim_time_ns previous_end = run_start;
    rtcosim_status st = RTCOSIM_OK;
    rtcosim_rt_probes *probes = o->probes;
    rtcosim_time_ns probe_end = 0;
    if (probes)
        rtcosim_rt_probes_reset(probes);
    bool pinned = rt->partner_count > 0;
    for (size_t i = 0; i < rt->partner_count; i++)
        pinned = pinned && rt->partners[i].pinned;
    rt->summary.partner_isolated =
        rt->mixed && (rt->summary.fifo_applied ||
                      (rt->summary.affinity_applied && pinned &&
                       rt->options.cpu != rt->options.partner_cpu));
    while (k < rt->total_frames) {
        /* A stop request (signal) ends the run at this frame boundary. */
        if (o->stop_request && atomic_load_explicit(o->stop_request, memory_order_relaxed)) {
            rt->summary.interrupted = true;
            rt->summary.slip = slip;
            return RTCOSIM_OK;
        }
        rtcosim_time_ns deadline = run_start + slip + rtcosim_rt_frame_offset(rt, k);
        bool slept = true;
        if (probes) {
            rtcosim_time_ns entry = rtcosim_clock_now(clock);
            if (k > 0)
                rtcosim_histogram_add(&probes->bookkeeping, entry - probe_end);
            slept = entry < deadline;
        }
        rtcosim_clock_sleep_until(clock, deadline);
        rtcosim_time_ns start = rtcosim_clock_now(clock);
        if (probes && slept) /* a backlog frame did not sleep: no wake-up */
            rtcosim_histogram_add(&probes->wakeup, start - deadline);
        rtcosim_time_ns te = o->start_time + (rtcosim_time_ns)k * H;
        rtcosim_rt_frame f = {.frame = k, .te = te, .deadline = deadline - run_start,
                              .lateness = start - deadline};
        bool was_late = rt->episodes.open;
        st = rtcosim_rt_part_read(&rt->rt_part, err);
        rtcosim_time_ns probe_read = probes ? rtcosim_clock_now(clock) : 0;
        if (st == RTCOSIM_OK && rt->mixed && k == sched.next_exchange) {
            rtcosim_time_ns hold = (rtcosim_time_ns)schedule_advance(rt, &sched, k) * H;
            bool estimated = false;
            f.flags |= RTCOSIM_FRAME_EXCHANGE;
            rtcosim_time_ns exchange_start = rtcosim_clock_now(clock);
            st = rtcosim_rt_exchange(rt, k, te, hold, &estimated, err);
            f.exchange = rtcosim_clock_now(clock) - exchange_start;
            if (estimated)
                f.flags |= RTCOSIM_FRAME_ESTIMATED;
            was_late = was_late || estimated;
        }
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_write(&rt->rt_part, err);
        rtcosim_time_ns probe_write = probes ? rtcosim_clock_now(clock) : 0;
        if (st == RTCOSIM_OK) {
            /* Components stepped here see the frame (FMI 3.0 SE partitions
             * run at their ticks inside it): a pointer to the stack, no cost. */
            rtcosim_paced_frame pf = {clock, deadline, te, o->rt_factor,
                                      run_start + slip + rtcosim_rt_frame_offset(rt, k + 1)};
            rtcosim_paced_frame_set(&pf);
            st = rtcosim_rt_part_step(&rt->rt_part, te, H, err);
            rtcosim_paced_frame_set(NULL);
        }
        rtcosim_time_ns end = rtcosim_clock_now(clock);
        f.exec = end - start;
        if (probes) {
            rtcosim_histogram_add(&probes->read, probe_read - start);
            rtcosim_histogram_add(&probes->write, probe_write - probe_read);
            rtcosim_histogram_add(&probes->step, end - probe_write);
            probe_end = end;
        }
        /* Per part its lag and tv; the frame: the largest lag, the smallest tv. */
        rtcosim_rt_frame_part *fp = rt->frame_count < rt->frame_capacity
                                        ? &rt->frame_parts[rt->frame_count * rt->partner_count]
                                        : NULL;
        for (size_t i = 0; i < rt->partner_count; i++) {
            const rt_partner *pa = &rt->partners[i];
            rtcosim_time_ns lag = te - pa->newest_valid;
            if (i == 0 || lag > f.lag)
                f.lag = lag;
            if (i == 0 || pa->tv < f.tv)
                f.tv = pa->tv;
            if (fp)
                fp[i] = (rtcosim_rt_frame_part){lag, pa->tv,
                                                (f.flags & RTCOSIM_FRAME_EXCHANGE) && pa->late};
        }
        rtcosim_histogram_add(&rt->lateness, f.lateness);
        rtcosim_histogram_add(&rt->exec_time, f.exec);
        rt->summary.frames++;
        rt->summary.stopped_at = te + H;
        if (o->progress)
            atomic_store_explicit(o->progress, te + H, memory_order_relaxed);
        rtcosim_time_ns next_deadline = run_start + slip + rtcosim_rt_frame_offset(rt, k + 1);
        bool overrun = end > next_deadline;
        if (overrun)
            f.flags |= RTCOSIM_FRAME_OVERRUN;
        log_frame(rt, &f);
        if (o->frame_observer)
            o->frame_observer(o->frame_observer_context, &f);
        if (st != RTCOSIM_OK) {
            rt->summary.failed = true;
            rt->summary.stopped_at = te;
            return st;
        }
        k++;
        /* Backlog: its deadline had passed when the overrunning frame before
         * it ended, so it could not start on time (catch-up policy). */
        bool backlog = previous_overrun && deadline < previous_end;
        previous_overrun = overrun;
        previous_end = end;
        if (!overrun) {
            previous_partner = false;
            continue;
        }
        rtcosim_rt_overrun ov = {.frame = f.frame, .te = te, .lateness = f.lateness,
                                 .exec = f.exec, .exchange = f.exchange,
                                 .overshoot = end - next_deadline};
        rtcosim_rt_classify_overrun(&ov, next_deadline - deadline, backlog, previous_partner,
                                    was_late, rt->mixed, rt->summary.partner_isolated);
        previous_partner = ov.partner;
        rt->summary.overruns++;
        rt->summary.overruns_backlog += ov.cause == RTCOSIM_RT_CAUSE_BACKLOG;
        rt->summary.overruns_execution += ov.cause == RTCOSIM_RT_CAUSE_EXECUTION;
        rt->summary.overruns_wakeup += ov.cause == RTCOSIM_RT_CAUSE_WAKEUP;
        rt->summary.overruns_partner += ov.partner;
        if (was_late)
            rt->summary.overruns_while_late++;
        log_overrun(rt, &ov);
        switch (o->overrun) {
        case RTCOSIM_OVERRUN_SOFT:
            slip += end - next_deadline;
            break;
        case RTCOSIM_OVERRUN_CATCH_UP:
            break;
        case RTCOSIM_OVERRUN_SKIP: {
            uint64_t m = k;
            while (m < rt->total_frames && run_start + slip + rtcosim_rt_frame_offset(rt, m) < end)
                m++;
            if (m > k) {
                rt->summary.frames_dropped += m - k;
                st = step_dropped(rt, &sched, k, m, err);
                if (st != RTCOSIM_OK) {
                    rt->summary.failed = true;
                    return st;
                }
                k = m;
            }
            break;
        }
        case RTCOSIM_OVERRUN_FAIL:
            rt->summary.failed = true;
            rt->summary.stopped_at = te + H;
            return rtcosim_error_set(err, RTCOSIM_ETIMEOUT,
                                     "real-time: frame %llu (te = %.6f s) overran its deadline "
                                     "by %.1f us (execution %.1f us, period %.1f us); stopped "
                                     "(overrun policy fail)",
                                     (unsigned long long)f.frame, rtcosim_time_to_seconds(te),
                                     (double)ov.overshoot / 1e3, (double)f.exec / 1e3,
                                     (double)(next_deadline - deadline) / 1e3);
        }
    }
    rtcosim_time_ns end_deadline = run_start + slip + rtcosim_rt_frame_offset(rt, rt->total_frames);
    rtcosim_clock_sleep_until(clock, end_deadline);
    rt->summary.drift = rtcosim_clock_now(clock) - run_start -
                        rtcosim_rt_frame_offset(rt, rt->total_frames);
    rt->summary.slip = slip;
    return RTCOSIM_OK;
}

/* --- Threads and the run ------------------------------------------------------ */

/* Best-effort real-time settings of the paced thread, each with a warning
 * when the system refuses (no CAP_SYS_NICE, a container, RLIMIT_RTPRIO). */
/* Pin the calling thread to one CPU; false (with a warning) when refused. */
static bool pin_to_cpu(int cpu, const char *what)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int rc = EINVAL;
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
        CPU_SET(cpu, &set);
        rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    if (rc)
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY, "pinning the %s to CPU %d refused (%s)",
                    what, cpu, strerror(rc));
    return rc == 0;
}

static void apply_thread_settings(rtcosim_rt *rt)
{
    /* Linux delays the wake-up of a normal thread by up to its timer slack
     * (50 us by default) to batch timers; a paced thread wants its deadline. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (rt->options.fifo_priority > 0) {
        struct sched_param sp = {.sched_priority = rt->options.fifo_priority};
        int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
        rt->summary.fifo_applied = rc == 0;
        if (rc)
            rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                        "SCHED_FIFO priority %d refused (%s); running with normal scheduling",
                        rt->options.fifo_priority, strerror(rc));
    }
    if (rt->options.cpu >= 0)
        rt->summary.affinity_applied = pin_to_cpu(rt->options.cpu, "paced thread");
}

static void *paced_main(void *arg)
{
    rtcosim_rt *rt = arg;
    apply_thread_settings(rt);
    rt->run_status = run_loop(rt, &rt->run_error);
    return NULL;
}

/* PM QoS: while the returned descriptor stays open the kernel keeps every
 * CPU out of idle states slower to leave than latency_us (-1: not held). */
static int hold_dma_latency(int latency_us)
{
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    int32_t value = latency_us;
    if (fd >= 0 && write(fd, &value, sizeof value) == (ssize_t)sizeof value)
        return fd;
    rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                "/dev/cpu_dma_latency not held (%s): wake-ups from deep idle states may be late",
                strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

rtcosim_status rtcosim_rt_run(rtcosim_rt *rt, rtcosim_error *err)
{
    if (!rt)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: NULL executor");
    if (rt->summary.frames || rt->summary.failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "real-time: this executor has already run");
    rtcosim_status st = RTCOSIM_OK;
    if (rt->options.calibrate)
        st = rtcosim_rt_calibrate(rt, err);
    if (st != RTCOSIM_OK) {
        rt->summary.failed = true;
        return st;
    }
    if (rt->options.lock_memory) {
        rt->summary.memory_locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
        if (!rt->summary.memory_locked)
            rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                        "mlockall refused (%s); pages may fault during the run",
                        strerror(errno));
    }
    int dma_fd = -1;
    if (rt->options.cpu_dma_latency_us >= 0 && !rtcosim_clock_is_virtual(rt->clock))
        dma_fd = hold_dma_latency(rt->options.cpu_dma_latency_us);
    rt->summary.dma_latency_held = dma_fd >= 0;
    if (rt->mixed)
        st = rtcosim_rt_start_partner(rt, err);
    if (st == RTCOSIM_OK) {
        rtcosim_error_clear(&rt->run_error);
        if (rtcosim_clock_is_virtual(rt->clock)) {
            /* Deterministic runs stay on the caller's thread, which keeps its
             * own scheduling settings. */
            rt->run_status = run_loop(rt, &rt->run_error);
        } else {
            pthread_t paced;
            int rc = pthread_create(&paced, NULL, paced_main, rt);
            if (rc) {
                rt->run_status = rtcosim_error_set(&rt->run_error, RTCOSIM_EIO,
                                                   "real-time: cannot start the paced thread: %s",
                                                   strerror(rc));
            } else {
                pthread_join(paced, NULL);
            }
        }
        st = rt->run_status;
        if (st != RTCOSIM_OK && err)
            *err = rt->run_error;
    }
    if (rt->mixed) {
        rtcosim_rt_stop_partner(rt);
        rtcosim_rt_finish_episodes(rt);
        rtcosim_rt_pace_finish(rt);
    }
    if (rt->options.lock_memory && rt->summary.memory_locked)
        munlockall();
    if (dma_fd >= 0)
        close(dma_fd);
    /* The report is written whatever happened: the results so far count. */
    if (rt->report_dir) {
        rtcosim_error report_err;
        rtcosim_status rs = rtcosim_rt_write_report(rt, rt->report_dir, &report_err);
        if (rs != RTCOSIM_OK && st == RTCOSIM_OK) {
            st = rs;
            if (err)
                *err = report_err;
        } else if (rs != RTCOSIM_OK) {
            rtcosim_log(RTCOSIM_LOG_ERROR, LOG_CATEGORY, "%s", report_err.message);
        }
    }
    if (rt->summary.partner_lost)
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                    "non-real-time partner lost at te = %.6f s (%s); the real-time part ran on "
                    "estimates from then on",
                    rtcosim_time_to_seconds(rt->summary.partner_lost_at),
                    rt->summary.partner_lost_reason);
    if (rt->summary.partner_abandoned)
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                    "the lost partner's thread did not return from its component call within "
                    "%.3f s after the run; it was abandoned (left running until the process exits)",
                    rtcosim_time_to_seconds(rt->options.partner_timeout > 100 * RTCOSIM_NS_PER_MS
                                                ? rt->options.partner_timeout
                                                : 100 * RTCOSIM_NS_PER_MS));
    if (rt->summary.overruns)
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY, "%llu frame overruns (policy %s)",
                    (unsigned long long)rt->summary.overruns,
                    rtcosim_overrun_policy_name(rt->options.overrun));
    return st;
}