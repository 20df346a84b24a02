/* Internal pieces of the anytime layer that are pure functions of their
 * inputs (running statistics and the strategies' decisions), kept apart from
 * the threads and clocks so that tests can check every choice by hand. */
#ifndef RTCOSIM_ANYTIME_INTERNAL_H
#define RTCOSIM_ANYTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/anytime.h"

/* Running execution-time statistics: count, mean and max over every sample,
 * and a window of the most recent samples for a high quantile (the window
 * forgets old load conditions; its buffers are allocated at setup). */
typedef struct anytime_stats {
    uint64_t count;
    double mean, max;
    double *window;  /* window_size samples, a ring */
    double *sorted;  /* the window's samples in ascending order */
    size_t window_size, window_len, window_next;
} anytime_stats;

/* window_size >= 1. Returns false when out of memory. */
bool anytime_stats_init(anytime_stats *s, size_t window_size);
void anytime_stats_release(anytime_stats *s);
void anytime_stats_add(anytime_stats *s, double ns);
/* Nearest-rank quantile q in (0, 1] of the window: the ceil(q * n)-th
 * smallest sample. NAN without samples. */
double anytime_stats_quantile(anytime_stats *s, double q);
/* The estimate the timer strategy uses, over the window; +INFINITY without
 * samples. */
double anytime_stats_estimate(anytime_stats *s, rtcosim_anytime_estimate kind, double q);
/* Fastest run of the window (the optimistic estimate a stale variant is
 * probed with); +INFINITY without samples. */
double anytime_stats_window_min(const anytime_stats *s);

/* What the runner knows of one variant at decision time. */
typedef struct anytime_candidate {
    bool completed;          /* finished with a result this period */
    int rank;
    rtcosim_time_ns step_ns; /* 0: one step per period (the largest step) */
    rtcosim_anytime_solver solver;
    rtcosim_time_ns exec_ns;   /* execution time this period */
    rtcosim_time_ns finish_at; /* clock time the result was ready */
} anytime_candidate;

/* The best completed candidate by the criterion, or -1 when none completed.
 * Ties go to the later (costlier) variant. */
int anytime_pick(const anytime_candidate *c, size_t n, rtcosim_anytime_criterion criterion);

/* Parallel strategy: the best candidate whose result was ready by `cutoff`
 * (later results count as abandoned); the minimal one (index 0) when no
 * candidate was ready by then but it completed; else -1. */
int anytime_parallel_select(const anytime_candidate *c, size_t n, rtcosim_time_ns cutoff,
                            rtcosim_anytime_criterion criterion);

/* Timer strategy: among variants 1..n-1, the highest rank (ties: the later
 * one) whose estimated time `estimate_ns[i]`, raised to its learned abort
 * floor `floor_ns[i]`, is below the budget and below the learned limit
 * (`limit_ns` 0: none). Returns 0 (the minimal variant alone) when none
 * qualifies. */
size_t anytime_timer_choose(const double *estimate_ns, const rtcosim_time_ns *floor_ns,
                            const int *rank, size_t n, rtcosim_time_ns budget_ns,
                            rtcosim_time_ns limit_ns);

/* Escalate's start rule: a variant whose learned cost `need_ns` (its
 * start_quantile) would end after `cutoff` when started at `now` is not
 * started. A variant without completed runs (need NAN) is started: the abort
 * at the cutoff bounds it. */
bool anytime_escalate_fits(double need_ns, rtcosim_time_ns now, rtcosim_time_ns cutoff);

/* The repair's choice: among variants 1..n-1 ranked above `below_rank`, the
 * most accurate (ties: the later) whose learned cost need_ns[i] fits twice
 * (the repair of the previous period, then the same variant for this one)
 * and the minimal variant's need_ns[0] after it, from `now` to `cutoff`.
 * Variants without completed runs (NAN) are not chosen. -1 when none. */
int anytime_repair_choose(const double *need_ns, const int *rank, size_t n, int below_rank,
                          rtcosim_time_ns now, rtcosim_time_ns cutoff);

/* The idle reserve (share of the period) derived from the kernel's
 * real-time throttling limits, sched_rt_runtime_us and sched_rt_period_us
 * (runtime -1: no throttling), for a caller that runs under a real-time
 * policy: 1 - runtime / period + RTCOSIM_ANYTIME_IDLE_RESERVE_MARGIN; 0 when
 * not real-time or not throttled. Limits that make no sense (period <= 0,
 * runtime < -1 or > period) count as the kernel's default 950000 / 1000000. */
double anytime_idle_reserve_from_limits(bool realtime, long long runtime_us, long long period_us);

/* The idle reserve for a caller under SCHED_DEADLINE with the reservation
 * runtime_ns in every dl_period_ns: the thread is stopped once it used its
 * runtime, until its deadline, so the cutoff leaves the unreserved share free
 * and RTCOSIM_ANYTIME_IDLE_RESERVE_MARGIN, as for the real-time throttling:
 * 1 - runtime / dl_period + the margin share. The safety margin is not
 * counted towards it: it absorbs late wake-ups, while a thread woken on time
 * spends its budget from the release to the cutoff and then delivers (the
 * component path hands the state over after the cutoff too: measured up to
 * 56 us at 1 ms). A reservation that makes no sense (runtime <= 0 or above
 * its period) counts as the kernel's default throttling. */
double anytime_idle_reserve_from_deadline(long long runtime_ns, long long dl_period_ns);

/* The idle reserve of one period in ns: share * period, rounded to the
 * nearest ns. */
rtcosim_time_ns anytime_idle_reserve_ns(double share, rtcosim_time_ns period_ns);

/* Why a period delivered at `delivered_at` missed `deadline` (ON_TIME when
 * it did not): a late start when it started after `latest_start`, stalled
 * when the delivering thread lost at least the lateness to not running
 * (`stalled_ns`), else the strategy's. */
/* Time the delivering thread was runnable but not running over a period:
 * its wall time less its CPU time outside the deliberate waits and the time
 * blocked by intent (the waits up to the moment they were meant to end).
 * CPU time charged inside the waits is part of the waits' wall time, so it
 * is taken out of `cpu_ns` rather than counted twice; on a virtual machine
 * it also holds host stalls that hit the thread between its wake-up and
 * its return to user space (no steal reported for them): up to the whole
 * late part of the wait. Never negative. */
rtcosim_time_ns anytime_stalled_ns(rtcosim_time_ns wall_ns, rtcosim_time_ns cpu_ns,
                                   rtcosim_time_ns wait_cpu_ns, rtcosim_time_ns blocked_ns);

rtcosim_anytime_miss anytime_classify_miss(rtcosim_time_ns deadline, rtcosim_time_ns latest_start,
                                           rtcosim_time_ns started_at,
                                           rtcosim_time_ns delivered_at,
                                           rtcosim_time_ns stalled_ns);

#endif
