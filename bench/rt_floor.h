/* Attribution of real-time overruns (B3) and anytime misses (B5) against the
 * platform floor measured in the same run: cyclictest runs beside the
 * benchmark (same CPU, one priority above it) and records every wake-up
 * later than a trigger with its clock time (--spike). Each late wake-up says
 * the CPU was unavailable to a real-time thread from its expected time for
 * its lateness: machine time. A late event (an overrun, a miss) is the
 * floor's when the machine time inside its window covers at least its
 * overshoot - without those stalls it would have been in time - and the
 * program's own otherwise (shared BENCHMARKS.md, raised targets of B3/B5). */
#ifndef RTCOSIM_BENCH_RT_FLOOR_H
#define RTCOSIM_BENCH_RT_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cyclictest.h"

typedef struct floor_spike {
    int64_t expected_ns; /* CLOCK_MONOTONIC time the wake-up was due */
    int64_t late_ns;     /* how late it came */
} floor_spike;

typedef struct floor_spikes {
    floor_spike *spike; /* sorted by expected_ns */
    size_t count;
} floor_spikes;

/* Parse cyclictest's "T: <n> Spike: <late us>: TS: <wake ns>" lines (any
 * other line is skipped) into a sorted list. Returns 0, -1 out of memory. */
int floor_parse_spikes(const char *text, size_t len, floor_spikes *out);
void floor_spikes_free(floor_spikes *s);
/* Add from's spikes to into (kept sorted): the machine time of several CPUs,
 * for work that runs on all of them. Returns 0, -1 out of memory. */
int floor_spikes_merge(floor_spikes *into, const floor_spikes *from);

/* Length of the union of the spikes' unavailable intervals [expected,
 * expected + late] inside [a, b]. */
int64_t floor_machine_ns(const floor_spikes *s, int64_t a, int64_t b);
/* The same with each stall taken to begin up to `widen` before cyclictest's
 * due wake-up: cyclictest samples the CPU only when it wakes, so a stall it
 * reports from its due time may have begun as much as one interval earlier. */
int64_t floor_machine_ns_widened(const floor_spikes *s, int64_t a, int64_t b, int64_t widen);

/* What made an event late, as the program itself tells it. */
typedef enum floor_cause {
    FLOOR_CAUSE_WAKEUP,    /* it started late (on time before) */
    FLOOR_CAUSE_EXECUTION, /* its work took longer than the period */
    FLOOR_CAUSE_BACKLOG,   /* it started late because the previous one overran */
    FLOOR_CAUSE_STRATEGY,  /* an anytime strategy's choice of variant */
    FLOOR_CAUSES
} floor_cause;

/* One late event: due at `due`, done at `end` (> due); `begin` is the start
 * of its window: the deadline at which its work (or, for a backlog, the
 * first overrunning frame of the chain) was due to start. */
typedef struct floor_event {
    int64_t begin, end, due;
    floor_cause cause;
} floor_event;

/* Whether the machine time in [begin, end] covers the overshoot end - due. */
bool floor_explains(const floor_spikes *s, const floor_event *e);

typedef struct floor_tally {
    uint64_t floor[FLOOR_CAUSES]; /* explained by the machine, per cause */
    uint64_t own[FLOOR_CAUSES];   /* the program's own, per cause */
    uint64_t total, beyond_floor; /* beyond_floor = sum of own */
    /* set by the caller (0: not counted): cyclictest's interval; of the own
     * events, those with a stall of cyclictest in their window that covers
     * their overshoot once begun up to one interval before it was seen
     * (beyond the floor by less than its sampling resolution; still own) */
    int64_t interval_ns;
    uint64_t within_interval;
    /* set by the caller: of the own events, those that stalls of the task's
     * own CPU cover (cpu_idle.h: a late wake-up it idled through, time the
     * hypervisor took while the task ran or was runnable with no wait on
     * its run queue), which cyclictest on another CPU cannot see */
    uint64_t own_cpu_stall;
} floor_tally;

void floor_tally_add(floor_tally *t, const floor_spikes *s, const floor_event *e);
const char *floor_cause_name(floor_cause c);

/* cyclictest beside a measurement: started before it, stopped after it.
 * floor_start returns 0 (running), 1 (not installed) or -1 (why filled). */
typedef struct floor_run {
    int pid, fd;
    char path[64];
    double interval_us;
} floor_run;

int floor_start(floor_run *r, int cpu, int priority, double period_s, double seconds,
                double trigger_us, char *why, size_t why_size);
/* Stop it (SIGINT: cyclictest prints its histogram and spikes), parse both.
 * Returns 0, or -1 with why filled. */
int floor_stop(floor_run *r, bench_cyclictest *hist, floor_spikes *spikes, char *why,
               size_t why_size);

#endif
