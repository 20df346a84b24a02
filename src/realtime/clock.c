/* The two clocks of an execution: CLOCK_MONOTONIC with absolute-deadline
 * sleeps (clock_nanosleep TIMER_ABSTIME, so sleep error never accumulates) and
 * a virtual clock that tests advance by hand to inject compute times. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtcosim/clock.h"

struct rtcosim_clock {
    bool is_virtual;
    rtcosim_time_ns busy_wait_ns;     /* monotonic: spin this long before a deadline */
    _Atomic rtcosim_time_ns virtual_now; /* virtual: the current time */
    rtcosim_time_ns *wakeup_delays;      /* virtual: injected late wake-ups */
    size_t wakeup_count;
    _Atomic size_t wakeup_next;          /* sleeps that waited so far */
};

static rtcosim_status clock_alloc(rtcosim_clock **out, rtcosim_error *err)
{
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "clock: NULL output pointer");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "clock: out of memory");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_clock_create_monotonic(rtcosim_time_ns busy_wait_ns, rtcosim_clock **out,
                                              rtcosim_error *err)
{
    if (busy_wait_ns < 0 || busy_wait_ns > RTCOSIM_NS_PER_S)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "clock: busy-wait of %lld ns is outside 0..1 s",
                                 (long long)busy_wait_ns);
    rtcosim_status st = clock_alloc(out, err);
    if (st != RTCOSIM_OK)
        return st;
    (*out)->busy_wait_ns = busy_wait_ns;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_clock_create_virtual(rtcosim_time_ns start, rtcosim_clock **out,
                                            rtcosim_error *err)
{
    rtcosim_status st = clock_alloc(out, err);
    if (st != RTCOSIM_OK)
        return st;
    (*out)->is_virtual = true;
    atomic_init(&(*out)->virtual_now, start);
    return RTCOSIM_OK;
}

void rtcosim_clock_free(rtcosim_clock *clock)
{
    if (clock)
        free(clock->wakeup_delays);
    free(clock);
}

rtcosim_status rtcosim_clock_set_wakeup_delays(rtcosim_clock *clock,
                                               const rtcosim_time_ns *delays, size_t count,
                                               rtcosim_error *err)
{
    if (!clock || !clock->is_virtual)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "clock: wake-up delays can only be injected into a virtual clock");
    if (count && !delays)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "clock: NULL wake-up delay list");
    for (size_t i = 0; i < count; i++)
        if (delays[i] < 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "clock: wake-up delay %zu is negative (%lld ns)", i,
                                     (long long)delays[i]);
    rtcosim_time_ns *copy = NULL;
    if (count) {
        copy = malloc(count * sizeof *copy);
        if (!copy)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "clock: out of memory");
        memcpy(copy, delays, count * sizeof *copy);
    }
    free(clock->wakeup_delays);
    clock->wakeup_delays = copy;
    clock->wakeup_count = count;
    atomic_store(&clock->wakeup_next, 0);
    return RTCOSIM_OK;
}

bool rtcosim_clock_is_virtual(const rtcosim_clock *clock)
{
    return clock->is_virtual;
}

static rtcosim_time_ns monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (rtcosim_time_ns)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
}

rtcosim_time_ns rtcosim_clock_now(rtcosim_clock *clock)
{
    if (clock->is_virtual)
        return atomic_load_explicit(&clock->virtual_now, memory_order_acquire);
    return monotonic_now();
}

/* Sleep with an absolute deadline: a wake-up that comes late does not shift
 * the next deadline, so pacing has zero drift by construction. EINTR restarts
 * the same absolute sleep. */
static void monotonic_sleep_until(rtcosim_time_ns deadline)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / RTCOSIM_NS_PER_S),
                          .tv_nsec = (long)(deadline % RTCOSIM_NS_PER_S)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void rtcosim_clock_sleep_until(rtcosim_clock *clock, rtcosim_time_ns deadline)
{
    if (clock->is_virtual) {
        /* Jump forward only: a deadline in the past leaves the time alone. A
         * sleep that waits may wake late by an injected delay. */
        rtcosim_time_ns now = atomic_load_explicit(&clock->virtual_now, memory_order_acquire);
        if (now < deadline && clock->wakeup_count) {
            size_t i = atomic_fetch_add(&clock->wakeup_next, 1);
            if (i < clock->wakeup_count)
                deadline += clock->wakeup_delays[i];
        }
        while (now < deadline &&
               !atomic_compare_exchange_weak_explicit(&clock->virtual_now, &now, deadline,
                                                      memory_order_acq_rel,
                                                      memory_order_acquire)) {
        }
        return;
    }
    /* The kernel wakes a sleeper some tens of microseconds late on a stock
     * kernel; sleeping to deadline - busy_wait and spinning the rest trades
     * CPU for a punctual start. */
    rtcosim_time_ns sleep_target = deadline - clock->busy_wait_ns;
    if (monotonic_now() < sleep_target)
        monotonic_sleep_until(sleep_target);
    if (clock->busy_wait_ns > 0)
        while (monotonic_now() < deadline) {
        }
}

void rtcosim_clock_advance(rtcosim_clock *clock, rtcosim_time_ns ns)
{
    if (clock->is_virtual && ns > 0)
        atomic_fetch_add_explicit(&clock->virtual_now, ns, memory_order_acq_rel);
}

static _Thread_local const rtcosim_paced_frame *paced_frame;

const rtcosim_paced_frame *rtcosim_paced_frame_current(void)
{
    return paced_frame;
}

void rtcosim_paced_frame_set(const rtcosim_paced_frame *frame)
{
    paced_frame = frame;
}

rtcosim_time_ns rtcosim_paced_frame_release(const rtcosim_paced_frame *frame,
                                            rtcosim_time_ns tau)
{
    rtcosim_time_ns d = tau - frame->te;
    if (frame->rt_factor != 1.0)
        d = (rtcosim_time_ns)llround((double)d / frame->rt_factor);
    return frame->deadline + d;
}
