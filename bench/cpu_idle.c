/* cpuidle residency per CPU (cpu_idle.h): the sum of
 * /sys/devices/system/cpu/cpuN/cpuidle/stateK/time (microseconds spent in
 * each idle state, updated when the CPU leaves it), read with pread on
 * descriptors opened once: about 1 us a read on this VM. */
#include "cpu_idle.h"

#include "util/run_queue.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { MAX_CPUS = 256, MAX_STATES = 10 };

struct cpu_idle {
    int fd[MAX_CPUS][MAX_STATES];
    int states[MAX_CPUS];
    int cpus;
    int schedstat; /* the opening thread's /proc/thread-self/schedstat, -1 */
    int64_t queued_at_begin;
};

cpu_idle *cpu_idle_open(void)
{
    cpu_idle *ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    long n = sysconf(_SC_NPROCESSORS_CONF);
    ci->cpus = n > 0 && n < MAX_CPUS ? (int)n : MAX_CPUS;
    int any = 0;
    for (int c = 0; c < ci->cpus; c++)
        for (int k = 0; k < MAX_STATES; k++) {
            char path[96];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", c,
                     k);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                break;
            ci->fd[c][ci->states[c]++] = fd;
            any++;
        }
    if (!any) {
        free(ci);
        return NULL;
    }
    ci->schedstat = run_queue_open();
    return ci;
}

void cpu_idle_close(cpu_idle *ci)
{
    if (!ci)
        return;
    for (int c = 0; c < ci->cpus; c++)
        for (int k = 0; k < ci->states[c]; k++)
            close(ci->fd[c][k]);
    if (ci->schedstat >= 0)
        close(ci->schedstat);
    free(ci);
}

int64_t cpu_idle_ns(cpu_idle *ci, int cpu)
{
    if (!ci || cpu < 0 || cpu >= ci->cpus || !ci->states[cpu])
        return -1;
    int64_t us = 0;
    for (int k = 0; k < ci->states[cpu]; k++) {
        char text[32];
        ssize_t n = pread(ci->fd[cpu][k], text, sizeof text - 1, 0);
        if (n <= 0)
            return -1;
        text[n] = '\0';
        char *end;
        long long v = strtoll(text, &end, 10);
        if (end == text || v < 0)
            return -1;
        us += v;
    }
    return us * 1000;
}

static int64_t run_delay_ns(cpu_idle *ci);

void cpu_idle_sleep_until(cpu_idle *ci, rtcosim_clock *clock, rtcosim_time_ns until,
                          sleep_probe *p)
{
    p->cpu = ci ? sched_getcpu() : -1;
    p->queued_ns = -1;
    int64_t queued = run_delay_ns(ci), before = cpu_idle_ns(ci, p->cpu);
    p->due = until;
    p->slept_at = rtcosim_clock_now(clock);
    rtcosim_clock_sleep_until(clock, until);
    p->woke_at = rtcosim_clock_now(clock);
    int64_t after = before < 0 ? -1 : cpu_idle_ns(ci, p->cpu);
    int64_t queued_after = queued < 0 ? -1 : run_delay_ns(ci);
    p->idle_ns = after < 0 ? -1 : after - before;
    p->wake_queued_ns = queued_after < 0 ? -1 : queued_after - queued;
}

int64_t sleep_probe_idle_late_ns(const sleep_probe *p, int64_t slack_ns, bool queue_counts)
{
    if (p->idle_ns < 0 || p->woke_at <= p->due)
        return 0;
    int64_t idle = p->idle_ns;
    if (queue_counts && p->wake_queued_ns > 0)
        idle += p->wake_queued_ns;
    /* what ran on the CPU during the sleep (other tasks, interrupts) could
     * have held the wake-up back by at most its own length; the rest of the
     * lateness the CPU idled through, waiting for a timer the host delivered
     * late */
    int64_t busy = p->woke_at - p->slept_at - idle, late = p->woke_at - p->due;
    int64_t held = busy > slack_ns ? busy - slack_ns : 0;
    return late > held ? late - held : 0;
}

static int64_t run_delay_ns(cpu_idle *ci)
{
    return ci ? run_queue_wait_ns(ci->schedstat) : -1;
}

void cpu_idle_work_begin(cpu_idle *ci, sleep_probe *p)
{
    p->queued_ns = -1;
    if (ci)
        ci->queued_at_begin = run_delay_ns(ci);
}

void cpu_idle_work_end(cpu_idle *ci, sleep_probe *p)
{
    if (!ci || ci->queued_at_begin < 0)
        return;
    int64_t now = run_delay_ns(ci);
    p->queued_ns = now < 0 ? -1 : now - ci->queued_at_begin;
}

int64_t sleep_probe_host_ns(const sleep_probe *p, int64_t stalled_ns)
{
    if (p->queued_ns < 0 || stalled_ns <= p->queued_ns)
        return 0;
    return stalled_ns - p->queued_ns;
}
