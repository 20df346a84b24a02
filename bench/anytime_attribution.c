/* B5's misses against the platform floor (anytime_attribution.h). */
#include "anytime_attribution.h"

#include <stdio.h>
#include <string.h>

/* the time a sleep's CPU does not idle without anything else running:
 * entering and leaving idle, the residency reads around it */
enum { IDLE_SLACK_NS = 50000 };
/* the longest time between two clock reads of the thread's abort checks and
 * polls that its own work can take: the chain's variants check every
 * integration step (a few microseconds), the polls every few nanoseconds */
enum { CHECK_SLACK_NS = 50000 };

int64_t anytime_own_cpu_stall_ns(const sleep_probe *p, const rtcosim_anytime_period *rec,
                                 bool chain_start, bool deadline)
{
    int64_t ns = chain_start ? sleep_probe_idle_late_ns(p, IDLE_SLACK_NS, deadline) : 0;
    /* time lost while runnable without a run-queue wait, under any policy:
     * the kernel counts a throttled thread (a SCHED_DEADLINE reservation
     * used up, SCHED_FIFO held back by the fair server) as waiting on its
     * run queue, so this is the host's and the interrupts' (measured:
     * tests/bench/test_cpu_idle.c) */
    ns += sleep_probe_host_ns(p, rec->stalled_ns);
    /* and time lost while it ran: a gap between two of its clock reads (a
     * host stall of its CPU, charged to it as CPU time, so not in
     * stalled_ns; the part of the gap stalled_ns holds is counted above) */
    if (rec->check_gap_ns > CHECK_SLACK_NS && rec->check_gap_ns > rec->stalled_ns)
        ns += rec->check_gap_ns - rec->stalled_ns;
    return ns;
}

void anytime_attribute_misses(const rtcosim_anytime *set, const char *set_name, size_t periods,
                              rtcosim_time_ns period_ns, const floor_spikes *sp,
                              const sleep_probe *probes, bool deadline, floor_tally *t)
{
    memset(t, 0, sizeof *t);
    t->interval_ns = period_ns; /* cyclictest beside it wakes once a period */
    rtcosim_time_ns chain_begin = 0, previous_delivered = 0;
    /* the time stalls of the task's own CPU took from the chain so far */
    int64_t chain_host = 0;
    bool previous_missed = false;
    unsigned own_shown = 0;
    for (size_t k = 0; k < periods; k++) {
        const rtcosim_anytime_period *rec = rtcosim_anytime_record(set, k);
        if (!rec)
            break;
        bool backlog = previous_missed && previous_delivered > rec->release;
        if (rec->missed) {
            floor_cause cause = rec->miss == RTCOSIM_ANYTIME_MISS_STRATEGY ? FLOOR_CAUSE_STRATEGY
                                : rec->miss == RTCOSIM_ANYTIME_MISS_STALLED
                                    ? FLOOR_CAUSE_EXECUTION
                                : backlog ? FLOOR_CAUSE_BACKLOG
                                          : FLOOR_CAUSE_WAKEUP;
            if (!backlog) {
                chain_begin = rec->release;
                chain_host = 0;
            }
            if (probes)
                chain_host += anytime_own_cpu_stall_ns(&probes[k], rec, !backlog, deadline);
            floor_event e = {chain_begin, rec->delivered_at, rec->deadline, cause};
            uint64_t own_before = t->beyond_floor;
            floor_tally_add(t, sp, &e);
            bool idled = probes && t->beyond_floor > own_before && chain_host >= e.end - e.due;
            t->own_cpu_stall += idled;
            /* what the floor lacked, for the first ten the program owns and
             * the first three that stalls of its own CPU cover (with the
             * CPU's idle time in the sleep before: the test of those stalls):
             * cyclictest sees a stall only from its first wake-up due inside
             * it, so machine time just short of the overshoot next to a long
             * stall of the thread is the floor's resolution (1 ms), not
             * the program */
            if (t->beyond_floor > own_before && (idled ? t->own_cpu_stall <= 3 : ++own_shown <= 10)) {
                printf("  beyond the floor: %s t=%.3f s, %s, %.1f us late; cyclictest's machine "
                       "time in its window %.1f us; the thread stalled %.1f us, went %.1f us "
                       "between two clock reads",
                       set_name, rtcosim_time_to_seconds(rec->sim_time),
                       floor_cause_name(cause), (double)(e.end - e.due) / 1e3,
                       (double)floor_machine_ns(sp, e.begin, e.end) / 1e3,
                       (double)rec->stalled_ns / 1e3, (double)rec->check_gap_ns / 1e3);
                if (probes && probes[k].idle_ns >= 0)
                    printf("; its CPU %d idled %.1f us of the %.1f us sleep before it", probes[k].cpu,
                           (double)probes[k].idle_ns / 1e3,
                           (double)(probes[k].woke_at - probes[k].slept_at) / 1e3);
                printf("%s\n", idled ? "; stalls of its own CPU cover it" : "");
            }
        }
        previous_missed = rec->missed;
        previous_delivered = rec->delivered_at;
    }
}

/* Trace of one missed period: when it started after its load, what each
 * variant did, how long the thread was runnable but not running, and the
 * library's class, so that a miss can be told apart as a late start, an
 * overrun of a variant or a stall of the host. */
void anytime_print_miss(const char *strategy, const rtcosim_anytime_period *rec,
                        rtcosim_time_ns load_ns)
{
    static const char *const vn[3] = {"minimal", "medium", "accurate"};
    printf("  miss %s t=%.3f s: start %+.1f us after the load, cutoff at %.1f us, delivered "
           "%s %.1f us late; stalled %.1f us; longest gap between its clock reads %.1f us; "
           "class %s;",
           strategy, rtcosim_time_to_seconds(rec->sim_time),
           (double)(rec->started_at - rec->release - load_ns) / 1e3,
           (double)(rec->cutoff - rec->release) / 1e3, vn[rec->delivered],
           (double)-rec->margin_ns / 1e3, (double)rec->stalled_ns / 1e3,
           (double)rec->check_gap_ns / 1e3, rtcosim_anytime_miss_name(rec->miss));
    for (int i = 0; i < 3; i++)
        printf(" %s %s %.1f us", vn[i],
               rtcosim_anytime_outcome_name((rtcosim_anytime_outcome)rec->outcome[i]),
               (double)rec->exec_ns[i] / 1e3);
    printf("%s\n", rec->repaired >= 0 ? " (after a repair)" : "");
}

