/* B5's periods through the anytime component (anytime_component_loop.c). */
#ifndef RTCOSIM_BENCH_ANYTIME_COMPONENT_LOOP_H
#define RTCOSIM_BENCH_ANYTIME_COMPONENT_LOOP_H

#include <stddef.h>

#include "rtcosim/anytime.h"
#include "rtcosim/clock.h"
#include "rtcosim/component.h"
#include "cpu_idle.h"

/* Wrap `set` (created, native variants added, not started; the component
 * takes it over: *out, to be freed by the caller, also on failure) and run
 * `periods` periods: period k is released one period after the other,
 * sleeps load_ns[k] (noted in probes[k], cpu_idle.h), then sets u[k] and
 * steps in a paced frame. */
/* >= 0: the thread that runs the periods pins itself to this CPU once the
 * set has started (its workers, created unpinned, keep every CPU). */
extern int bench_anytime_pin_cpu;
void bench_anytime_pin(int cpu);

rtcosim_status bench_anytime_component_loop(rtcosim_anytime *set, rtcosim_clock *clock,
                                            const double *u, const rtcosim_time_ns *load_ns,
                                            size_t periods, rtcosim_time_ns period_ns,
                                            cpu_idle *idle, sleep_probe *probes,
                                            rtcosim_component **out, rtcosim_error *err);

#endif
