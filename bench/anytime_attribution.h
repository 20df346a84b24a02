/* B5's misses against the platform floor (bench_anytime.c): each miss of a
 * strategy's run with its cause as the library gives it (a late start after
 * a missed period whose delivery came after this release is a backlog, its
 * window from the first release of the chain), the floor's when
 * cyclictest's stalls beside it cover its overshoot (rt_floor.h); of the
 * rest, those that stalls of the task's own CPU cover (cpu_idle.h). */
#ifndef RTCOSIM_BENCH_ANYTIME_ATTRIBUTION_H
#define RTCOSIM_BENCH_ANYTIME_ATTRIBUTION_H

#include <stddef.h>

#include "cpu_idle.h"
#include "rt_floor.h"
#include "rtcosim/anytime.h"

/* probes: each period's sleep and work (NULL: no own-CPU evidence);
 * throttle_ns: under SCHED_DEADLINE the most its reservation may hold the
 * thread back per period (period - runtime), taken off the time it lost
 * while running; -1 (another policy, whose throttling is not bounded so):
 * only late wake-ups the CPU idled through count. */
void anytime_attribute_misses(const rtcosim_anytime *set, const char *set_name, size_t periods,
                              rtcosim_time_ns period_ns, const floor_spikes *sp,
                              const sleep_probe *probes, rtcosim_time_ns throttle_ns,
                              floor_tally *t);
/* What stalls of the task's own CPU took from period rec (probe p): at a
 * chain's start the lateness of a wake-up its CPU idled through (the woken
 * thread's run-queue wait counting as idle under SCHED_DEADLINE), and under
 * SCHED_DEADLINE (throttle_ns >= 0) the time lost while running without a
 * run-queue wait, less what its throttling could take. */
int64_t anytime_own_cpu_stall_ns(const sleep_probe *p, const rtcosim_anytime_period *rec,
                                 bool chain_start, rtcosim_time_ns period_ns,
                                 rtcosim_time_ns throttle_ns);
/* Trace of one missed period (load_ns: the load before its work). */
void anytime_print_miss(const char *strategy, const rtcosim_anytime_period *rec,
                        rtcosim_time_ns load_ns);

#endif
