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
 * deadline: the thread runs under SCHED_DEADLINE, whose woken thread
 * nothing else can keep waiting on its run queue. */
void anytime_attribute_misses(const rtcosim_anytime *set, const char *set_name, size_t periods,
                              rtcosim_time_ns period_ns, const floor_spikes *sp,
                              const sleep_probe *probes, bool deadline, floor_tally *t);
/* What stalls of the task's own CPU took from period rec (probe p): at a
 * chain's start the part of a wake-up's lateness its CPU idled through (the
 * woken thread's run-queue wait counting as idle under SCHED_DEADLINE), and the
 * time lost while runnable without a run-queue wait (throttling, the
 * reservation's or the fair server's, is such a wait: not counted). */
int64_t anytime_own_cpu_stall_ns(const sleep_probe *p, const rtcosim_anytime_period *rec,
                                 bool chain_start, bool deadline);
/* Trace of one missed period (load_ns: the load before its work). */
void anytime_print_miss(const char *strategy, const rtcosim_anytime_period *rec,
                        rtcosim_time_ns load_ns);

#endif
