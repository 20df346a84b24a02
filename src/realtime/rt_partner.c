/* The non-real-time partner of the real-time executor: its step over one
 * exchange interval, its own thread (real clock) or simulated processor
 * (virtual clock), the exchange at an exchange point on the paced thread
 * (receive, grade, estimate, send), and starting and stopping it. Nothing
 * here allocates, locks or does I/O once the run is under way. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void rtcosim_rt_send_sample(rtcosim_rt *rt, rtcosim_time_ns stamp, rtcosim_time_ns hold, bool held)
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
rtcosim_status rtcosim_rt_exchange(rtcosim_rt *rt, uint64_t frame, rtcosim_time_ns te,
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
    rtcosim_rt_send_sample(rt, te, hold, false);
    return st;
}

void rtcosim_rt_finish_episodes(rtcosim_rt *rt)
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
rtcosim_status rtcosim_rt_start_partner(rtcosim_rt *rt, rtcosim_error *err)
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
void rtcosim_rt_stop_partner(rtcosim_rt *rt)
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

