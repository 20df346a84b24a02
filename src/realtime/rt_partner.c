/* The non-real-time parts of the real-time executor: a part's step over one
 * exchange interval, its own thread (real clock) or simulated processor
 * (virtual clock), the exchange at an exchange point on the paced thread
 * (receive, grade, estimate, send to every part), and starting and stopping
 * them. Nothing here allocates, locks or does I/O once the run is under way. */
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

/* --- A part's step: one exchange interval ---------------------------------- */

/* Step the non-real-time part over [stamp, stamp + h] with the inputs of the
 * sample held, in macro steps of H (its own connections exchanged each), and
 * fill the output sample. */
static rtcosim_status partner_compute(rt_partner *pa, const to_partner_sample *in,
                                      from_partner_sample *out, rtcosim_error *err)
{
    part *p = &pa->part;
    rtcosim_time_ns H = pa->rt->options.macro_step;
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
    out->tv = pa->rt->options.tv_includes_step ? in->stamp + in->h : in->stamp;
    out->flags = st == RTCOSIM_OK ? 0 : SAMPLE_FAILED;
    for (size_t j = 0; j < p->send_count; j++)
        out->values[j] = p->slot_values[p->send_slots[j]];
    if (st != RTCOSIM_OK)
        snprintf(pa->error, sizeof pa->error, "%s", err->message);
    return st;
}

/* Real clock: a part's thread. It never idles while inputs are queued:
 * after each step it takes the next one at once, so a late part catches up
 * as fast as it can compute. */
static void *partner_main(void *arg)
{
    rt_partner *pa = arg;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    while (!atomic_load_explicit(&pa->stop, memory_order_acquire)) {
        const to_partner_sample *in = rtcosim_spsc_front(&pa->to_partner);
        if (!in) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000 * 1000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            sem_timedwait(&pa->wakeup, &ts);
            continue;
        }
        from_partner_sample *out;
        while ((out = rtcosim_spsc_reserve(&pa->from_partner)) == NULL) {
            if (atomic_load_explicit(&pa->stop, memory_order_acquire))
                return NULL;
            struct timespec pause = {0, 50000};
            nanosleep(&pause, NULL);
        }
        rtcosim_time_ns began = rtcosim_clock_now(pa->rt->clock);
        rtcosim_status st = partner_compute(pa, in, out, &err);
        out->done_at = rtcosim_clock_now(pa->rt->clock);
        rtcosim_rt_pace_account(pa, in->stamp, in->h, out->done_at - began);
        rtcosim_spsc_pop(&pa->to_partner);
        rtcosim_spsc_push(&pa->from_partner);
        if (st != RTCOSIM_OK)
            return NULL;
    }
    return NULL;
}

/* Virtual clock: the part as a simulated processor with its own clock. A
 * step starts when both the processor is free and its input was sent; its
 * result becomes visible to the real-time part once the real-time clock
 * reaches the step's completion time. */
static void partner_advance_virtual(rt_partner *pa, rtcosim_time_ns now)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (;;) {
        if (pa->inflight_busy) {
            if (pa->inflight->done_at > now)
                return;
            from_partner_sample *out = rtcosim_spsc_reserve(&pa->from_partner);
            if (!out)
                return;
            memcpy(out, pa->inflight, pa->from_size);
            rtcosim_spsc_push(&pa->from_partner);
            pa->inflight_busy = false;
            if (pa->inflight->flags & SAMPLE_FAILED)
                atomic_store(&pa->stop, true);
            continue;
        }
        if (atomic_load(&pa->stop))
            return;
        const to_partner_sample *in = rtcosim_spsc_front(&pa->to_partner);
        if (!in)
            return;
        rtcosim_clock_sleep_until(pa->clock, in->sent_at);
        rtcosim_time_ns began = rtcosim_clock_now(pa->clock);
        partner_compute(pa, in, pa->inflight, &err);
        pa->inflight->done_at = rtcosim_clock_now(pa->clock);
        rtcosim_rt_pace_account(pa, in->stamp, in->h, pa->inflight->done_at - began);
        rtcosim_spsc_pop(&pa->to_partner);
        pa->inflight_busy = true;
    }
}

/* --- Exchange with the parts (paced thread) -------------------------------- */

static void append_record(rtcosim_rt *rt, const rtcosim_estimate_record *rec)
{
    if (rt->record_count < rt->options.record_capacity)
        rt->records[rt->record_count++] = *rec;
    else
        rt->summary.records_dropped++;
}

/* Record the part as lost (formatting only: no I/O on the paced thread)
 * and tell its thread to stop; the real-time part continues on estimates.
 * The run's summary names the first part lost. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void declare_lost(rt_partner *pa, rtcosim_time_ns te, const char *fmt, ...)
{
    if (pa->lost)
        return;
    rtcosim_rt *rt = pa->rt;
    pa->lost = true;
    pa->summary.lost = true;
    pa->summary.lost_at = te;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pa->summary.lost_reason, sizeof pa->summary.lost_reason, fmt, ap);
    va_end(ap);
    if (!rt->summary.partner_lost) {
        rt->summary.partner_lost = true;
        rt->summary.partner_lost_at = te;
        if (rt->partner_count == 1)
            snprintf(rt->summary.partner_lost_reason, sizeof rt->summary.partner_lost_reason,
                     "%s", pa->summary.lost_reason);
        else
            snprintf(rt->summary.partner_lost_reason, sizeof rt->summary.partner_lost_reason,
                     "part %.60s: %.180s", pa->name, pa->summary.lost_reason);
    }
    atomic_store_explicit(&pa->stop, true, memory_order_release);
    if (pa->semaphore_ready)
        sem_post(&pa->wakeup);
}

void rtcosim_rt_send_sample(rt_partner *pa, rtcosim_time_ns stamp, rtcosim_time_ns hold,
                            bool held)
{
    if (pa->lost)
        return;
    to_partner_sample *s = rtcosim_spsc_reserve(&pa->to_partner);
    if (!s) {
        declare_lost(pa, stamp, "input queue full (partner %.3f s behind)",
                     rtcosim_time_to_seconds(stamp - pa->newest_valid));
        return;
    }
    s->stamp = stamp;
    s->h = hold;
    s->sent_at = rtcosim_clock_now(pa->rt->clock);
    s->stop = 0;
    size_t n = pa->part.remote_count;
    for (size_t k = 0; k < n; k++)
        s->values[k] = held ? pa->last_sent->values[k] : rtcosim_rt_hub_value(pa->rt, pa->in_hub[k]);
    memcpy(pa->last_sent->values, s->values, n * sizeof(double));
    rtcosim_spsc_push(&pa->to_partner);
    if (pa->semaphore_ready)
        sem_post(&pa->wakeup);
}

/* Take every sample the part delivered: late ones grade their estimates,
 * the newest becomes the extrapolation base. */
static void receive_samples(rt_partner *pa, rtcosim_time_ns te)
{
    rtcosim_rt *rt = pa->rt;
    if (rtcosim_clock_is_virtual(rt->clock))
        partner_advance_virtual(pa, rtcosim_clock_now(rt->clock));
    size_t n = pa->sig_count;
    const from_partner_sample *in;
    while (!pa->lost && (in = rtcosim_spsc_front(&pa->from_partner)) != NULL) {
        if (in->flags & SAMPLE_FAILED) {
            declare_lost(pa, te, "partner failed at tv = %.6f s: %s",
                         rtcosim_time_to_seconds(in->input_stamp), pa->error);
            rtcosim_spsc_pop(&pa->from_partner);
            break;
        }
        for (size_t j = 0; j < n; j++) {
            rtcosim_estimate_record rec;
            if (rtcosim_estimator_resolve(rt->estimators[pa->sig_first + j], in->valid_at,
                                          in->values[j], &rec)) {
                rec.signal = (uint32_t)(pa->sig_first + j);
                append_record(rt, &rec);
            }
        }
        if (in->valid_at > pa->newest_valid) {
            pa->newest_valid = in->valid_at;
            memcpy(pa->newest_values, in->values, n * sizeof(double));
        }
        pa->tv = in->tv;
        rtcosim_spsc_pop(&pa->from_partner);
    }
}

void rtcosim_rt_episode_mark(rt_episodes *e, uint64_t frame, bool late, uint64_t *episodes)
{
    if (late) {
        if (!e->open) {
            e->open = true;
            e->start = frame;
            (*episodes)++;
        }
    } else if (e->open) {
        e->open = false;
        uint64_t len = frame - e->start;
        e->bins[len < RT_RESYNC_BINS ? len : RT_RESYNC_BINS - 1]++;
        e->count++;
        if (len > e->max)
            e->max = len;
    }
}

/* True when one of signal j's inputs from the parts is estimated now. */
static bool reads_an_estimate(const rtcosim_rt *rt, size_t j)
{
    for (size_t i = rt->est_in_first[j]; i < rt->est_in_first[j + 1]; i++)
        if ((rt->est_in[i] & SOURCE_REMOTE) && rt->est_now[rt->est_in[i] & ~SOURCE_REMOTE])
            return true;
    return false;
}

/* The exchange at an exchange point: per part, use its data for te when it
 * is there, estimate otherwise (signals read from other parts' signals
 * after those); then send each part its inputs of te. Returns an error only
 * for a map input out of range under range=error. */
rtcosim_status rtcosim_rt_exchange(rtcosim_rt *rt, uint64_t frame, rtcosim_time_ns te,
                                   rtcosim_time_ns hold, bool *estimated, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    double *remote = rt->rt_part.remote_values;
    *estimated = false;
    for (size_t i = 0; i < rt->partner_count; i++) {
        rt_partner *pa = &rt->partners[i];
        receive_samples(pa, te);
        rtcosim_time_ns lag = te - pa->newest_valid;
        if (lag > pa->summary.max_lag)
            pa->summary.max_lag = lag;
        if (lag > rt->summary.max_lag)
            rt->summary.max_lag = lag;
        if (!pa->lost && rt->options.partner_timeout > 0 && lag > rt->options.partner_timeout)
            declare_lost(pa, te, "no output for %.3f s (timeout %.3f s)",
                         rtcosim_time_to_seconds(lag),
                         rtcosim_time_to_seconds(rt->options.partner_timeout));
        pa->late = lag > 0;
        *estimated = *estimated || pa->late;
        for (size_t j = pa->sig_first; j < pa->sig_first + pa->sig_count; j++)
            rt->est_now[j] = pa->late;
        if (!pa->late)
            memcpy(remote + pa->sig_first, pa->newest_values, pa->sig_count * sizeof(double));
    }
    /* Late signals: those estimated from other parts' signals go second,
     * after those (which are received or estimated by then). */
    for (int pass = 0; *estimated && pass < 2; pass++)
        for (size_t i = 0; i < rt->partner_count; i++) {
            rt_partner *pa = &rt->partners[i];
            for (size_t j = pa->sig_first; pa->late && j < pa->sig_first + pa->sig_count; j++) {
                if (rt->est_second[j] != (pass == 1))
                    continue;
                rtcosim_status es = rtcosim_estimator_estimate(
                    rt->estimators[j], te, pa->tv, hold, rtcosim_rt_estimator_inputs(rt, j),
                    &remote[j], err);
                if (es != RTCOSIM_OK && st == RTCOSIM_OK)
                    st = es;
            }
        }
    /* On time: linear estimators fit the value against the inputs of now,
     * unless one of those is an estimate (the fit learns from data only). */
    for (size_t j = 0; j < rt->to_rt_count; j++)
        if (!rt->est_now[j] && rt->est_in_first[j] != rt->est_in_first[j + 1] &&
            !reads_an_estimate(rt, j))
            rtcosim_estimator_fit(rt->estimators[j], rtcosim_rt_estimator_inputs(rt, j),
                                  remote[j]);
    for (size_t j = 0; j < rt->to_rt_count; j++) /* 0 unless the signal's spec has `correct` */
        remote[j] += rtcosim_estimator_take_correction(rt->estimators[j], hold);
    /* Late episodes: from the first estimated exchange to the next one on
     * time, of the run (any part late) and of each part. */
    if (te > rt->options.start_time) {
        rt->summary.exchanges++;
        rt->summary.estimated_exchanges += *estimated;
        rtcosim_rt_episode_mark(&rt->episodes, frame, *estimated, &rt->summary.late_episodes);
        for (size_t i = 0; i < rt->partner_count; i++) {
            rt_partner *pa = &rt->partners[i];
            pa->summary.estimated_exchanges += pa->late;
            rtcosim_rt_episode_mark(&pa->episodes, frame, pa->late, &pa->summary.late_episodes);
        }
    }
    for (size_t i = 0; i < rt->partner_count; i++)
        rtcosim_rt_send_sample(&rt->partners[i], te, hold, false);
    return st;
}

/* --- Start and stop ------------------------------------------------------------ */

/* Median and maximum episode length from the bins: the element at sorted
 * index count / 2; a median in the last bin is the maximum's lower bound. */
static void episode_figures(const rt_episodes *e, uint64_t *median, uint64_t *max)
{
    if (!e->count)
        return;
    uint64_t seen = 0, b = 0;
    for (; b < RT_RESYNC_BINS - 1; b++) {
        seen += e->bins[b];
        if (seen > e->count / 2)
            break;
    }
    *median = b < RT_RESYNC_BINS - 1 ? b : e->max;
    *max = e->max;
}

void rtcosim_rt_finish_episodes(rtcosim_rt *rt)
{
    /* Pending estimates whose data never came: recorded with NaN late values. */
    for (size_t j = 0; j < rt->to_rt_count; j++) {
        rtcosim_estimate_record rec;
        while (rtcosim_estimator_abandon_oldest(rt->estimators[j], &rec)) {
            rec.signal = (uint32_t)j;
            append_record(rt, &rec);
        }
    }
    episode_figures(&rt->episodes, &rt->summary.resync_frames_median,
                    &rt->summary.resync_frames_max);
    for (size_t i = 0; i < rt->partner_count; i++) {
        rt_partner *pa = &rt->partners[i];
        episode_figures(&pa->episodes, &pa->summary.resync_frames_median,
                        &pa->summary.resync_frames_max);
    }
}

/* Start a part's thread with normal scheduling, on `cpu` when >= 0. */
static int create_partner_thread(rt_partner *pa, int cpu)
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
        rc = pthread_create(&pa->thread, &attr, partner_main, pa);
    pthread_attr_destroy(&attr);
    return rc;
}

/* Read a part's initial outputs (valid at the start time) and start it. */
static rtcosim_status start_one(rt_partner *pa, rtcosim_error *err)
{
    rtcosim_rt *rt = pa->rt;
    part *p = &pa->part;
    rtcosim_status st = rtcosim_rt_part_read(p, err);
    if (st != RTCOSIM_OK)
        return st;
    pa->newest_valid = rt->options.start_time;
    pa->tv = rt->options.start_time;
    for (size_t j = 0; j < p->send_count; j++) {
        pa->newest_values[j] = p->slot_values[p->send_slots[j]];
        rtcosim_estimator_observe(rt->estimators[pa->sig_first + j], rt->options.start_time,
                                  pa->newest_values[j]);
    }
    memcpy(rt->rt_part.remote_values + pa->sig_first, pa->newest_values,
           pa->sig_count * sizeof(double));
    atomic_store(&pa->stop, false);
    rtcosim_rt_pace_reset(pa);
    if (rtcosim_clock_is_virtual(rt->clock))
        return RTCOSIM_OK;
    if (sem_init(&pa->wakeup, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "real-time: cannot create a semaphore: %s",
                                 strerror(errno));
    pa->semaphore_ready = true;
    /* A non-real-time part runs with normal scheduling whatever the
     * caller's policy (a SCHED_FIFO caller's threads inherit it otherwise),
     * so that it never competes with the paced thread at real-time priority;
     * pinned to its CPU from the start, so that the paced loop knows it. */
    int cpu = rt->options.partner_cpu;
    pa->pinned = cpu >= 0;
    int rc = create_partner_thread(pa, cpu);
    if (rc && cpu >= 0) {
        rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                    "pinning the non-real-time part %s's thread to CPU %d refused (%s)", pa->name,
                    cpu, strerror(rc));
        pa->pinned = false;
        rc = create_partner_thread(pa, -1);
    }
    if (rc)
        return rtcosim_error_set(err, RTCOSIM_EIO,
                                 "real-time: cannot start the thread of the non-real-time part "
                                 "%s: %s",
                                 pa->name, strerror(rc));
    pa->thread_started = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_start_partner(rtcosim_rt *rt, rtcosim_error *err)
{
    for (size_t i = 0; i < rt->partner_count; i++) {
        rtcosim_status st = start_one(&rt->partners[i], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* Join the parts' threads; a lost part gets partner_timeout (at least 100
 * ms, one grace for all of them) to return from the call it is in, then it
 * is abandoned: left running, with everything it may touch never freed
 * (partner_abandoned). */
void rtcosim_rt_stop_partner(rtcosim_rt *rt)
{
    for (size_t i = 0; i < rt->partner_count; i++) {
        atomic_store_explicit(&rt->partners[i].stop, true, memory_order_release);
        if (rt->partners[i].thread_started)
            sem_post(&rt->partners[i].wakeup);
    }
    rtcosim_time_ns grace = rt->options.partner_timeout;
    if (grace < 100 * RTCOSIM_NS_PER_MS)
        grace = 100 * RTCOSIM_NS_PER_MS;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = (int64_t)until.tv_nsec + grace % RTCOSIM_NS_PER_S;
    until.tv_sec += (time_t)(grace / RTCOSIM_NS_PER_S + ns / RTCOSIM_NS_PER_S);
    until.tv_nsec = (long)(ns % RTCOSIM_NS_PER_S);
    for (size_t i = 0; i < rt->partner_count; i++) {
        rt_partner *pa = &rt->partners[i];
        if (pa->thread_started) {
            /* The part finishes the step it is in (a component call cannot be
             * interrupted safely); its components stay the caller's. */
            if (pa->lost) {
                if (pthread_timedjoin_np(pa->thread, NULL, &until) != 0) {
                    pa->summary.abandoned = true;
                    rt->summary.partner_abandoned = true;
                    continue; /* thread, semaphore and components left to the exit */
                }
            } else {
                pthread_join(pa->thread, NULL);
            }
            pa->thread_started = false;
        }
        if (pa->semaphore_ready) {
            sem_destroy(&pa->wakeup);
            pa->semaphore_ready = false;
        }
    }
}
