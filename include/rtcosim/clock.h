/* Clocks for execution: the real monotonic clock for real-time runs, and a
 * virtual clock that tests and deterministic replays advance by hand (injected
 * compute times), so that timing logic is tested without depending on the load
 * of the machine. All times are nanoseconds since an arbitrary epoch. */
#ifndef RTCOSIM_CLOCK_H
#define RTCOSIM_CLOCK_H

#include <stdbool.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_clock rtcosim_clock;

/* CLOCK_MONOTONIC; sleep_until uses clock_nanosleep(TIMER_ABSTIME) followed
 * by a busy-wait of at most busy_wait_ns before the deadline (0: none). */
rtcosim_status rtcosim_clock_create_monotonic(rtcosim_time_ns busy_wait_ns, rtcosim_clock **out,
                                              rtcosim_error *err);
/* A virtual clock starting at `start`: now() returns the virtual time,
 * sleep_until(d) jumps to d when d is later, and rtcosim_clock_advance adds
 * simulated compute time. Thread-safe (atomic). */
rtcosim_status rtcosim_clock_create_virtual(rtcosim_time_ns start, rtcosim_clock **out,
                                            rtcosim_error *err);
void rtcosim_clock_free(rtcosim_clock *clock);

bool rtcosim_clock_is_virtual(const rtcosim_clock *clock);
rtcosim_time_ns rtcosim_clock_now(rtcosim_clock *clock);
/* Sleep until the absolute time `deadline` of this clock (returns at once when
 * it has passed). */
void rtcosim_clock_sleep_until(rtcosim_clock *clock, rtcosim_time_ns deadline);
/* Virtual clocks only: advance by `ns` (an injected execution time). No-op on
 * the monotonic clock, where execution time passes by itself. */
void rtcosim_clock_advance(rtcosim_clock *clock, rtcosim_time_ns ns);

/* The frame the calling thread paces: set by the paced loop of a real-time
 * run around the step of each frame (NULL elsewhere), so that a component
 * stepped there can release work at wall times inside the frame (FMI 3.0
 * scheduled execution: a partition at its tick). Simulation time tau maps
 * to the clock time deadline + (tau - te) / rt_factor. Thread-local. */
typedef struct rtcosim_paced_frame {
    rtcosim_clock *clock;
    rtcosim_time_ns deadline; /* the frame's deadline on clock */
    rtcosim_time_ns te;       /* the simulation time of that deadline */
    double rt_factor;
    rtcosim_time_ns end;      /* the next frame's deadline: work released later runs at once */
} rtcosim_paced_frame;
const rtcosim_paced_frame *rtcosim_paced_frame_current(void);
void rtcosim_paced_frame_set(const rtcosim_paced_frame *frame);
/* Clock time at which simulation time tau is due in the current frame. */
rtcosim_time_ns rtcosim_paced_frame_release(const rtcosim_paced_frame *frame,
                                            rtcosim_time_ns tau);
/* Virtual clocks only: simulate late wake-ups (a thread that the scheduler,
 * an interrupt or a hypervisor did not run at its deadline). The i-th call of
 * sleep_until that has to wait (its deadline still ahead) wakes delays[i]
 * after the deadline; later calls wake on time. The list is copied; a new
 * call replaces it. Fails with RTCOSIM_EINVAL on a monotonic clock or for a
 * negative delay. */
rtcosim_status rtcosim_clock_set_wakeup_delays(rtcosim_clock *clock,
                                               const rtcosim_time_ns *delays, size_t count,
                                               rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
