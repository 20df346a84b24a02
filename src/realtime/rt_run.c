/* The paced loop of the real-time executor and the non-real-time partner's
 * loop. Frame k starts at the absolute deadline start + k*H/rt_factor; the
 * partner runs on its own thread (real clock) or, on a virtual clock, as a
 * simulated processor interleaved deterministically on the calling thread.
 * Nothing here allocates, locks or does I/O once the loop runs. */
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

/* --- The partner's step: one exchange interval ----------------------------- */

/* Step the non-real-time part over [stamp, stamp + h] with the inputs of the
 * sample held, in macro steps of H (its own connections exchanged each), and
 * fill the output sample. */
static rtcosim_status partner_compute(rtcosim_rt *rt, const to_partner_sample *in,
                                      from_partner_sample *out, rtcosim_error *err)
{
    part *p = &rt->partner_part;
    rtcosim_time_ns H = rt->options.macro_step;
    memcpy(p->remote_values, in->values, p->remote_count * sizeof(double));
    rtcosim_status st = RTCOSIM_OK;
    for (rtcosim_time_ns t = in->stamp; st == RTCOSIM_OK && t < in->stamp + in->h; t += H) {
        st = rtcosim_rt_part_read(p, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_write(p, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_step(p, t, H, err);
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_rt_part_read(p, err);
    out->input_stamp = in->stamp;
    out->valid_at = in->stamp + in->h;
    out->tv = rt->options.tv_includes_step ? in->stamp + in->h : in->stamp;
    out->flags = st == RTCOSIM_OK ? 0 : SAMPLE_FAILED;
    for (size_t j = 0; j < p->send_count; j++)
        out->values[j] = p->slot_values[p->send_slots[j]];
    if (st != RTCOSIM_OK)
        snprintf(rt->partner_error, sizeof rt->partner_error, "%s", err->message);
    return st;
}

/* Real clock: the partner's thread. It never idles while inputs are queued:
 * after each step it takes the next one at once, so a late partner catches up
 * as fast as it can compute. */
static void *partner_main(void *arg)
{
    rtcosim_rt *rt = arg;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    while (!atomic_load_explicit(&rt->partner_stop, memory_order_acquire)) {
        const to_partner_sample *in = rtcosim_spsc_front(&rt->to_partner);
        if (!in) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000 * 1000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            sem_timedwait(&rt->partner_wakeup, &ts);
            continue;
        }
        from_partner_sample *out;
        while ((out = rtcosim_spsc_reserve(&rt->from_partner)) == NULL) {
            if (atomic_load_explicit(&rt->partner_stop, memory_order_acquire))
                return NULL;
            struct timespec pause = {0, 50000};
            nanosleep(&pause, NULL);
        }
        rtcosim_time_ns began = rtcosim_clock_now(rt->clock);
        rtcosim_status st = partner_compute(rt, in, out, &err);
        out->done_at = rtcosim_clock_now(rt->clock);
        rtcosim_rt_pace_account(rt, in->stamp, in->h, out->done_at - began);
        rtcosim_spsc_pop(&rt->to_partner);
        rtcosim_spsc_push(&rt->from_partner);
        if (st != RTCOSIM_OK)
            return NULL;
    }
    return NULL;
}

/* Virtual clock: the partner as a simulated processor with its own clock. A
 * step starts when both the processor is free and its input was sent; its
 * result becomes visible to the real-time part once the real-time clock
 * reaches the step's completion time. */
static void partner_advance_virtual(rtcosim_rt *rt, rtcosim_time_ns now)
{
    rtcosim_clock *pc = rt->options.partner_clock;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (;;) {
        if (rt->inflight_busy) {
            if (rt->inflight->done_at > now)
                return;
            from_partner_sample *out = rtcosim_spsc_reserve(&rt->from_partner);
            if (!out)
                return;
            memcpy(out, rt->inflight, rt->from_partner_size);
            rtcosim_spsc_push(&rt->from_partner);
            rt->inflight_busy = false;
            if (rt->inflight->flags & SAMPLE_FAILED)
                atomic_store(&rt->partner_stop, true);
            continue;
        }
        if (atomic_load(&rt->partner_stop))
            return;
        const to_partner_sample *in = rtcosim_spsc_front(&rt->to_partner);
        if (!in)
            return;
        rtcosim_clock_sleep_until(pc, in->sent_at);
        rtcosim_time_ns began = rtcosim_clock_now(pc);
        partner_compute(rt, in, rt->inflight, &err);
        rt->inflight->done_at = rtcosim_clock_now(pc);
        rtcosim_rt_pace_account(rt, in->stamp, in->h, rt->inflight->done_at - began);
        rtcosim_spsc_pop(&rt->to_partner);
        rt->inflight_busy = true;
    }
}

/* --- Exchange with the partner (paced thread) ------------------------------ */

static void append_record(rtcosim_rt *rt, const rtcosim_estimate_record *rec)
{
    if (rt->record_count < rt->options.record_capacity)
        rt->records[rt->record_count++] = *rec;
    else
        rt->summary.records_dropped++;
}

/* Record the partner as lost (formatting only: no I/O on the paced thread)
 * and tell its thread to stop; the real-time part continues on estimates. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void declare_lost(rtcosim_rt *rt, rtcosim_time_ns te, const char *fmt, ...)
{
    if (rt->partner_lost)
        return;
    rt->partner_lost = true;
    rt->summary.partner_lost = true;
    rt->summary.partner_lost_at = te;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->summary.partner_lost_reason, sizeof rt->summary.partner_lost_reason, fmt, ap);
    va_end(ap);
    atomic_store_explicit(&rt->partner_stop, true, memory_order_release);
    if (rt->semaphore_ready)
        sem_post(&rt->partner_wakeup);
}

static void send_sample(rtcosim_rt *rt, rtcosim_time_ns stamp, rtcosim_time_ns hold, bool held)
{
    if (rt->partner_lost)
        return;
    to_partner_sample *s = rtcosim_spsc_reserve(&rt->to_partner);
    if (!s) {
        declare_lost(rt, stamp, "input queue full (partner %.3f s behind)",
                     rtcosim_time_to_seconds(stamp - rt->newest_valid));
        return;
    }
    s->stamp = stamp;
    s->h = hold;
    s->sent_at = rtcosim_clock_now(rt->clock);
    s->stop = 0;
    const part *p = &rt->rt_part;
    for (size_t j = 0; j < p->send_count; j++)
        s->values[j] = held ? rt->last_sent->values[j] : p->slot_values[p->send_slots[j]];
    memcpy(rt->last_sent->values, s->values, p->send_count * sizeof(double));
    rtcosim_spsc_push(&rt->to_partner);
    if (rt->semaphore_ready)
        sem_post(&rt->partner_wakeup);
}

/* Take every sample the partner delivered: late ones grade their estimates,
 * the newest becomes the extrapolation base. */
static void receive_samples(rtcosim_rt *rt, rtcosim_time_ns te)
{
    if (rtcosim_clock_is_virtual(rt->clock) && rt->mixed)
        partner_advance_virtual(rt, rtcosim_clock_now(rt->clock));
    size_t n = rt->partner_part.send_count;
    const from_partner_sample *in;
    while (!rt->partner_lost && (in = rtcosim_spsc_front(&rt->from_partner)) != NULL) {
        if (in->flags & SAMPLE_FAILED) {
            declare_lost(rt, te, "partner failed at tv = %.6f s: %s",
                         rtcosim_time_to_seconds(in->input_stamp), rt->partner_error);
            rtcosim_spsc_pop(&rt->from_partner);
            break;
        }
        for (size_t j = 0; j < n; j++) {
            rtcosim_estimate_record rec;
            if (rtcosim_estimator_resolve(rt->estimators[j], in->valid_at, in->values[j], &rec)) {
                rec.signal = (uint32_t)j;
                append_record(rt, &rec);
            }
        }
        if (in->valid_at > rt->newest_valid) {
            rt->newest_valid = in->valid_at;
            memcpy(rt->newest_values, in->values, n * sizeof(double));
        }
        rt->partner_tv = in->tv;
        rtcosim_spsc_pop(&rt->from_partner);
    }
}

/* The exchange at an exchange point: use the partner's data for te when it
 * is there, estimate otherwise; then send the real-time outputs of te.
 * Returns an error only for a map input out of range under range=error. */
static rtcosim_status exchange(rtcosim_rt *rt, uint64_t frame, rtcosim_time_ns te,
                               rtcosim_time_ns hold, bool *estimated, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t n = rt->partner_part.send_count;
    double *remote = rt->rt_part.remote_values;
    receive_samples(rt, te);
    rtcosim_time_ns lag = te - rt->newest_valid;
    if (lag > rt->summary.max_lag)
        rt->summary.max_lag = lag;
    if (!rt->partner_lost && rt->options.partner_timeout > 0 && lag > rt->options.partner_timeout)
        declare_lost(rt, te, "no output for %.3f s (timeout %.3f s)",
                     rtcosim_time_to_seconds(lag),
                     rtcosim_time_to_seconds(rt->options.partner_timeout));
    *estimated = lag > 0;
    if (lag <= 0) {
        memcpy(remote, rt->newest_values, n * sizeof(double));
        /* On time: linear estimators fit the value against the inputs of now. */
        for (size_t j = 0; j < n; j++)
            if (rt->est_in_first[j] != rt->est_in_first[j + 1])
                rtcosim_estimator_fit(rt->estimators[j], rtcosim_rt_estimator_inputs(rt, j),
                                      remote[j]);
    } else {
        /* Signals estimated from other partner signals go second, after those. */
        for (int pass = 0; pass < 2; pass++)
            for (size_t j = 0; j < n; j++) {
                if (rt->est_second[j] != (pass == 1))
                    continue;
                rtcosim_status es = rtcosim_estimator_estimate(
                    rt->estimators[j], te, rt->partner_tv, hold,
                    rtcosim_rt_estimator_inputs(rt, j), &remote[j], err);
                if (es != RTCOSIM_OK && st == RTCOSIM_OK)
                    st = es;
            }
    }
    for (size_t j = 0; j < n; j++) /* 0 unless the signal's spec has `correct` */
        remote[j] += rtcosim_estimator_take_correction(rt->estimators[j], hold);
    /* Late episodes: from the first estimated exchange to the next one on time. */
    if (te > rt->options.start_time) {
        rt->summary.exchanges++;
        if (*estimated) {
            rt->summary.estimated_exchanges++;
            if (!rt->in_episode) {
                rt->in_episode = true;
                rt->episode_start = frame;
                rt->summary.late_episodes++;
            }
        } else if (rt->in_episode) {
            rt->in_episode = false;
            uint64_t len = frame - rt->episode_start;
            rt->resync_bins[len < RT_RESYNC_BINS ? len : RT_RESYNC_BINS - 1]++;
            rt->resync_count++;
            if (len > rt->resync_max)
                rt->resync_max = len;
        }
    }
    send_sample(rt, te, hold, false);
    return st;
}

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
 * partner carry the held outputs; the real-time part steps over the interval
 * with inputs held (one step when every component accepts a variable step). */
static rtcosim_status step_dropped(rtcosim_rt *rt, schedule *s, uint64_t first, uint64_t last,
                                   rtcosim_error *err)
{
    rtcosim_time_ns H = rt->options.macro_step;
    for (uint64_t f = first; f < last; f++)
        if (rt->mixed && f == s->next_exchange) {
            uint64_t frames = schedule_advance(rt, s, f);
            send_sample(rt, rt->options.start_time + (rtcosim_time_ns)f * H,
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
    rtcosim_time_ns slip = 0;
    schedule sched = {0, 0};
    uint64_t k = 0;
    bool previous_overrun = false, previous_partner = false;
    rtcosim_time_ns previous_end = run_start;
    rtcosim_status st = RTCOSIM_OK;
    rt->summary.partner_isolated =
        rt->mixed && (rt->summary.fifo_applied ||
                      (rt->summary.affinity_applied && rt->partner_pinned &&
                       rt->options.cpu != rt->options.partner_cpu));
    while (k < rt->total_frames) {
        /* A stop request (signal) ends the run at this frame boundary. */
        if (o->stop_request && atomic_load_explicit(o->stop_request, memory_order_relaxed)) {
            rt->summary.interrupted = true;
            rt->summary.slip = slip;
            return RTCOSIM_OK;
        }
        rtcosim_time_ns deadline = run_start + slip + rtcosim_rt_frame_offset(rt, k);
        rtcosim_clock_sleep_until(clock, deadline);
        rtcosim_time_ns start = rtcosim_clock_now(clock);
        rtcosim_time_ns te = o->start_time + (rtcosim_time_ns)k * H;
        rtcosim_rt_frame f = {.frame = k, .te = te, .deadline = deadline - run_start,
                              .lateness = start - deadline};
        bool was_late = rt->in_episode;
        st = rtcosim_rt_part_read(&rt->rt_part, err);
        if (st == RTCOSIM_OK && rt->mixed && k == sched.next_exchange) {
            rtcosim_time_ns hold = (rtcosim_time_ns)schedule_advance(rt, &sched, k) * H;
            bool estimated = false;
            f.flags |= RTCOSIM_FRAME_EXCHANGE;
            rtcosim_time_ns exchange_start = rtcosim_clock_now(clock);
            st = exchange(rt, k, te, hold, &estimated, err);
            f.exchange = rtcosim_clock_now(clock) - exchange_start;
            if (estimated)
                f.flags |= RTCOSIM_FRAME_ESTIMATED;
            was_late = was_late || estimated;
        }
        if (st == RTCOSIM_OK)
            st = rtcosim_rt_part_write(&rt->rt_part, err);
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
        f.lag = rt->mixed ? te - rt->newest_valid : 0;
        f.tv = rt->partner_tv;
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

static void finish_episodes(rtcosim_rt *rt)
{
    /* Pending estimates whose data never came: recorded with NaN late values. */
    for (size_t j = 0; j < rt->partner_part.send_count; j++) {
        rtcosim_estimate_record rec;
        while (rtcosim_estimator_abandon_oldest(rt->estimators[j], &rec)) {
            rec.signal = (uint32_t)j;
            append_record(rt, &rec);
        }
    }
    if (rt->resync_count) {
        /* The element at sorted index count / 2, as before, from the counts;
         * a median in the last bin is the maximum's lower bound, the bin. */
        uint64_t seen = 0, b = 0;
        for (; b < RT_RESYNC_BINS - 1; b++) {
            seen += rt->resync_bins[b];
            if (seen > rt->resync_count / 2)
                break;
        }
        rt->summary.resync_frames_median = b < RT_RESYNC_BINS - 1 ? b : rt->resync_max;
        rt->summary.resync_frames_max = rt->resync_max;
    }
}

/* Start the partner's thread with normal scheduling, on `cpu` when >= 0. */
static int create_partner_thread(rtcosim_rt *rt, int cpu)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc)
        return rc;
    struct sched_param sp = {.sched_priority = 0};
    rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    if (rc == 0)
        rc = pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    if (rc == 0)
        rc = pthread_attr_setschedparam(&attr, &sp);
    if (rc == 0 && cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        rc = cpu < CPU_SETSIZE ? 0 : EINVAL;
        if (rc == 0) {
            CPU_SET(cpu, &set);
            rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        }
    }
    if (rc == 0)
        rc = pthread_create(&rt->partner_thread, &attr, partner_main, rt);
    pthread_attr_destroy(&attr);
    return rc;
}

/* Read the partner's initial outputs (valid at the start time). */
static rtcosim_status start_partner(rtcosim_rt *rt, rtcosim_error *err)
{
    part *p = &rt->partner_part;
    rtcosim_status st = rtcosim_rt_part_read(p, err);
    if (st != RTCOSIM_OK)
        return st;
    rt->newest_valid = rt->options.start_time;
    rt->partner_tv = rt->options.start_time;
    for (size_t j = 0; j < p->send_count; j++) {
        rt->newest_values[j] = p->slot_values[p->send_slots[j]];
        rtcosim_estimator_observe(rt->estimators[j], rt->options.start_time,
                                  rt->newest_values[j]);
    }
    atomic_store(&rt->partner_stop, false);
    rtcosim_rt_pace_reset(rt);
    if (rtcosim_clock_is_virtual(rt->clock))
        return RTCOSIM_OK;
    if (sem_init(&rt->partner_wakeup, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "real-time: cannot create a semaphore: %s",
                                 strerror(errno));
    rt->semaphore_ready = true;
    /* The non-real-time part runs with normal scheduling whatever the
     * caller's policy (a SCHED_FIFO caller's threads inherit it otherwise),
     * so that it never competes with the paced thread at real-time priority;
     * pinned to its CPU from the start, so that the paced loop knows it. */
    int cpu = rt->options.partner_cpu;
    rt->partner_pinned = cpu >= 0;
    int rc = create_partner_thread(rt, cpu);
    if (rc && cpu >= 0) {
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                    "pinning the non-real-time part's thread to CPU %d refused (%s)", cpu,
                    strerror(rc));
        rt->partner_pinned = false;
        rc = create_partner_thread(rt, -1);
    }
    if (rc)
        return rtcosim_error_set(err, RTCOSIM_EIO,
                                 "real-time: cannot start the non-real-time thread: %s",
                                 strerror(rc));
    rt->partner_thread_started = true;
    return RTCOSIM_OK;
}

/* Join the partner's thread; a lost partner gets partner_timeout (at least
 * 100 ms) to return from the call it is in, then it is abandoned: left
 * running, with everything it may touch never freed (partner_abandoned). */
static void stop_partner(rtcosim_rt *rt)
{
    atomic_store_explicit(&rt->partner_stop, true, memory_order_release);
    if (rt->partner_thread_started) {
        sem_post(&rt->partner_wakeup);
        /* The partner finishes the step it is in (a component call cannot be
         * interrupted safely); its components stay the caller's. */
        if (rt->summary.partner_lost) {
            rtcosim_time_ns grace = rt->options.partner_timeout;
            if (grace < 100 * RTCOSIM_NS_PER_MS)
                grace = 100 * RTCOSIM_NS_PER_MS;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            int64_t ns = (int64_t)ts.tv_nsec + grace % RTCOSIM_NS_PER_S;
            ts.tv_sec += (time_t)(grace / RTCOSIM_NS_PER_S + ns / RTCOSIM_NS_PER_S);
            ts.tv_nsec = (long)(ns % RTCOSIM_NS_PER_S);
            if (pthread_timedjoin_np(rt->partner_thread, NULL, &ts) != 0) {
                rt->summary.partner_abandoned = true;
                return; /* thread, semaphore and components left to the exit */
            }
        } else {
            pthread_join(rt->partner_thread, NULL);
        }
        rt->partner_thread_started = false;
    }
    if (rt->semaphore_ready) {
        sem_destroy(&rt->partner_wakeup);
        rt->semaphore_ready = false;
    }
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
        st = start_partner(rt, err);
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
        stop_partner(rt);
        finish_episodes(rt);
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
