/* Whether a CPU idled through a late wake-up (B5's attribution): the
 * kernel's cpuidle residency of the CPU a thread slept on, read before the
 * sleep and after it. When the CPU was idle for all but a few microseconds
 * of a sleep that ended late, no task and no long interrupt of this system
 * held the wake-up back: the timer was delivered late, a stall of the
 * (virtual) CPU itself, which cyclictest on another CPU cannot see. */
#ifndef RTCOSIM_BENCH_CPU_IDLE_H
#define RTCOSIM_BENCH_CPU_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/clock.h"

/* One period of a real-time loop: its sleep (when it began and ended on the
 * clock, when it was due to end, the CPU's idle residency in between and
 * how long the woken thread waited on the CPU's run queue, -1: unknown, and
 * the CPU), then its work: how long the thread waited on the run queue
 * meanwhile (-1: unknown). */
typedef struct sleep_probe {
    rtcosim_time_ns slept_at, due, woke_at;
    int64_t idle_ns, wake_queued_ns;
    int cpu;
    int64_t queued_ns;
} sleep_probe;

typedef struct cpu_idle cpu_idle;

/* NULL when the kernel has no cpuidle states to read (no driver, no
 * /sys): the probes then say nothing. The calling thread is the one whose
 * run-queue waits cpu_idle_work_begin/end measure. */
cpu_idle *cpu_idle_open(void);
void cpu_idle_close(cpu_idle *ci);
/* Idle residency of `cpu` so far (ns, microsecond resolution), -1 unknown. */
int64_t cpu_idle_ns(cpu_idle *ci, int cpu);
/* Sleep on `clock` until `until`, filling *p (ci may be NULL). */
void cpu_idle_sleep_until(cpu_idle *ci, rtcosim_clock *clock, rtcosim_time_ns until,
                          sleep_probe *p);
/* Around the period's work after the sleep: the thread's run-queue wait
 * (schedstat's run_delay) over it into p->queued_ns. */
void cpu_idle_work_begin(cpu_idle *ci, sleep_probe *p);
void cpu_idle_work_end(cpu_idle *ci, sleep_probe *p);
/* Of the wake-up's lateness (woke_at - due), what the CPU idled through: the
 * lateness less the time the CPU did not idle during the sleep beyond
 * `slack_ns` (entering and leaving idle, the reads), which is the most that
 * other work on it can have held the wake-up back; 0 when that covers it.
 * queue_counts: the time the woken thread then waited on the run queue
 * counts as idle too, for a thread nothing in the system can hold back (the
 * only SCHED_DEADLINE task: what keeps it waiting once woken is the
 * hypervisor, the run queue's clock going on while the CPU does not run). */
int64_t sleep_probe_idle_late_ns(const sleep_probe *p, int64_t slack_ns, bool queue_counts);
/* Of `stalled_ns`, the time the thread lost while running or runnable
 * without any wait on its run queue in this system: what the hypervisor
 * took from its CPU (the kernel leaves steal out of the thread's CPU time),
 * 0 unknown. */
int64_t sleep_probe_host_ns(const sleep_probe *p, int64_t stalled_ns);

#endif
