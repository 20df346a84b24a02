/* B5 through the component path (`rtcosim bench anytime --component`): the
 * variant set wrapped by rtcosim_anytime_component_wrap_set and stepped as
 * a real-time loop steps a system's component, with its deadline taken from
 * the paced frame, so that the figures cover what `rtcosim run --variants`
 * runs (every costlier variant on an abandonable worker). */
#include "anytime_component_loop.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "rtcosim/anytime_component.h"

int bench_anytime_pin_cpu = -1;

void bench_anytime_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0)
        CPU_SET(cpu, &set);
    else /* every CPU again */
        for (long i = 0, n = sysconf(_SC_NPROCESSORS_CONF); i < n && i < CPU_SETSIZE; i++)
            CPU_SET((int)i, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0 && cpu >= 0)
        fprintf(stderr, "rtcosim: bench anytime: pinning to CPU %d refused\n", cpu);
}

rtcosim_status bench_anytime_component_loop(rtcosim_anytime *set, rtcosim_clock *clock,
                                            const double *u, const rtcosim_time_ns *load_ns,
                                            size_t periods, rtcosim_time_ns period_ns,
                                            cpu_idle *idle, sleep_probe *probes,
                                            rtcosim_component **out, rtcosim_error *err)
{
    static const char *const in[] = {"force"}, *const outputs[] = {"x0"};
    rtcosim_anytime_component_options opts;
    rtcosim_anytime_component_options_init(&opts);
    opts.period_ns = period_ns;
    opts.budget = 1.0; /* B5's deadline is the period's end */
    opts.step_log = periods;
    rtcosim_component *c = NULL;
    rtcosim_status st = rtcosim_anytime_component_wrap_set(set, "chain", in, outputs, &opts, &c,
                                                           err);
    *out = c;
    const uint32_t u_vr = 0, y_vr = 1;
    if (!st)
        st = rtcosim_component_instantiate(c, "chain", err);
    if (!st)
        st = rtcosim_component_setup(c, 0, 0, -1, err);
    if (!st)
        st = rtcosim_component_enter_init(c, err);
    if (!st)
        st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &u_vr, 1, &u[0], err);
    if (!st)
        st = rtcosim_component_exit_init(c, err); /* calibrates */
    if (!st && bench_anytime_pin_cpu >= 0)
        bench_anytime_pin(bench_anytime_pin_cpu);
    rtcosim_time_ns first = rtcosim_clock_now(clock) + period_ns;
    for (size_t k = 0; !st && k < periods; k++) {
        rtcosim_time_ns release = first + (rtcosim_time_ns)k * period_ns;
        rtcosim_paced_frame frame = {.clock = clock,
                                     .deadline = release,
                                     .te = (rtcosim_time_ns)k * period_ns,
                                     .rt_factor = 1.0,
                                     .end = release + period_ns};
        /* the other work of the frame before the task, as in B5's own loop */
        cpu_idle_sleep_until(idle, clock, release + load_ns[k], &probes[k]);
        rtcosim_paced_frame_set(&frame);
        cpu_idle_work_begin(idle, &probes[k]);
        double y;
        st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &u_vr, 1, &u[k], err);
        if (!st)
            st = rtcosim_component_do_step(c, frame.te, period_ns, NULL, err);
        if (!st)
            st = rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &y_vr, 1, &y, err);
        cpu_idle_work_end(idle, &probes[k]);
        rtcosim_paced_frame_set(NULL);
    }
    return st;
}
