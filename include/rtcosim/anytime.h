/* Anytime tasks (capability C6): per period, several variants of one
 * computation (a guaranteed minimal one and more accurate, more costly ones)
 * and a strategy that always delivers a result by the deadline, the most
 * accurate one that the time left allows.
 *
 * A variant set holds variants with the same inputs, outputs and state:
 * either all native functions (sharing one state struct: each variant
 * computes into its own scratch copy of the committed state and the delivered
 * copy is committed) or all components of one model (the delivered
 * component's serialized state is loaded into the others before they run
 * again). The variant whose result is delivered thus defines the state from
 * which every variant continues in the next period.
 *
 * The first variant added is the minimal one; add variants in order of
 * increasing cost (escalation runs them in that order). At start the set runs
 * calibration runs of every variant and refuses to run, with the figures,
 * when the minimal variant's worst execution time does not fit the period
 * with margin.
 *
 * Lifecycle: rtcosim_anytime_config_init -> rtcosim_anytime_create ->
 * rtcosim_anytime_add_* -> rtcosim_anytime_start ->
 * { [rtcosim_anytime_wait_release] rtcosim_anytime_run_period }* ->
 * rtcosim_anytime_summary / rtcosim_anytime_write_csv -> rtcosim_anytime_free. */
#ifndef RTCOSIM_ANYTIME_H
#define RTCOSIM_ANYTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/clock.h"
#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTCOSIM_ANYTIME_MAX_VARIANTS 8

typedef struct rtcosim_anytime rtcosim_anytime;         /* a variant set and its runner */
typedef struct rtcosim_anytime_ctx rtcosim_anytime_ctx; /* handed to a running variant */

typedef enum rtcosim_anytime_strategy {
    /* Minimal first, then the others in order of addition, each started only
     * when its learned cost fits before the cutoff (first_start_quantile
     * while only the minimal result is in hand, then start_quantile; one unrun for
     * forget_after_periods is probed with its fastest recent run); one still
     * running at the cutoff is aborted and the best completed result (by the
     * criterion) is delivered. */
    RTCOSIM_ANYTIME_ESCALATE = 0,
    /* Start the most accurate variant expected to fit, with a timer that
     * aborts it when the time left is the minimal variant's execution time
     * (its recent `quantile`) plus the safety margin; then run the minimal
     * one. Learns: the next
     * choice must be expected to finish before the time at which the last
     * abort happened. */
    RTCOSIM_ANYTIME_TIMER,
    /* The minimal variant on the calling thread and the others at the same
     * time on persistent worker threads; the best one finished by the
     * cutoff is delivered, the others are cancelled and discarded. Needs a
     * monotonic clock. */
    RTCOSIM_ANYTIME_PARALLEL
} rtcosim_anytime_strategy;

/* Which completed result escalation and the parallel strategy deliver. */
typedef enum rtcosim_anytime_criterion {
    RTCOSIM_ANYTIME_PICK_RANK = 0,      /* highest accuracy rank */
    RTCOSIM_ANYTIME_PICK_LONGEST,       /* longest computation this period */
    RTCOSIM_ANYTIME_PICK_SMALLEST_STEP, /* smallest step size (ties: rank) */
    RTCOSIM_ANYTIME_PICK_SOLVER         /* highest solver order (ties: smaller step, rank) */
} rtcosim_anytime_criterion;

/* Integration method of a variant, ordered by the accuracy the SOLVER
 * criterion assumes (a variable-order, error-controlled solver last). */
typedef enum rtcosim_anytime_solver {
    RTCOSIM_ANYTIME_SOLVER_OTHER = 0,
    RTCOSIM_ANYTIME_SOLVER_EULER,    /* order 1 */
    RTCOSIM_ANYTIME_SOLVER_HEUN,     /* order 2 */
    RTCOSIM_ANYTIME_SOLVER_RK4,      /* order 4 */
    RTCOSIM_ANYTIME_SOLVER_VARIABLE  /* error-controlled (CVODE BDF/Adams) */
} rtcosim_anytime_solver;

/* How the timer strategy estimates a variant's execution time, over the
 * window of its most recent completed runs. A variant that has not run for
 * forget_after_periods is estimated by its fastest recent run instead, so
 * that a few slow samples cannot bar it for ever (it is probed again). */
typedef enum rtcosim_anytime_estimate {
    RTCOSIM_ANYTIME_ESTIMATE_MEAN = 0, /* the expected time: mean of the window */
    RTCOSIM_ANYTIME_ESTIMATE_QUANTILE, /* `quantile` of the window (more cautious) */
    RTCOSIM_ANYTIME_ESTIMATE_MAX       /* worst run of the window */
} rtcosim_anytime_estimate;

typedef struct rtcosim_anytime_config {
    const char *name; /* names the set in messages; default "anytime" */
    size_t input_count, output_count; /* FLOAT64 values per period */
    const char *const *output_names;  /* output_count names for the CSV, or NULL */
    size_t state_size;                /* bytes of the native variants' shared state */
    const void *initial_state;        /* copied at create; NULL: zeros */
    rtcosim_time_ns period_ns;        /* > 0 */
    rtcosim_time_ns start_time_ns;    /* simulation time of the first period */
    rtcosim_anytime_strategy strategy;
    rtcosim_anytime_criterion criterion;
    /* Time kept free before the deadline to deliver and commit a result; the
     * timer strategy adds it to the minimal variant's worst time. Default
     * 5 % of the period when 0. */
    rtcosim_time_ns safety_margin_ns;
    /* The minimal variant's worst calibration time plus the safety margin
     * must not exceed this share of the period. Default 0.5. */
    double minimal_max_share;
    int calibration_runs; /* per variant at start; default 20 */
    /* Calibration runs of a costly variant stop after this long; default 10
     * periods. */
    rtcosim_time_ns calibration_limit_ns;
    size_t stats_window;  /* recent samples kept for the quantile; default 64 */
    double quantile;      /* in (0, 1]; default 0.95 */
    rtcosim_anytime_estimate estimate;
    /* Timer strategy: after this many periods without an abort the learned
     * abort time is forgotten and costlier variants are tried again.
     * Default 50. */
    uint64_t forget_after_periods;
    /* Timer strategy: keep a fallback better than the minimal variant. The
     * best variant whose worst recent time fits the period's budget is the
     * fallback; a more accurate one is tried only when its estimate and the
     * fallback's worst time fit one after the other. The fallback then runs
     * first, so that its result is in hand, and the more accurate one after
     * it while its estimate still fits, aborted at the timer: an abort then
     * delivers the fallback, not the minimal result. Default off. */
    bool timer_fallback;
    size_t record_capacity; /* periods kept for the CSV (a ring; oldest dropped) */
    /* Share of every period in which no variant runs, before the safety
     * margin: the work cutoff of every strategy is
     *   deadline - safety_margin_ns - round(idle_reserve * period).
     * Linux lets the real-time (SCHED_FIFO/RR) threads of a CPU run only
     * sched_rt_runtime_us of every sched_rt_period_us (by default 950000 of
     * 1000000 us) and then stops all of them until the next window, for tens
     * of milliseconds; a task busy to the end of every period is thus
     * throttled about once a second. Negative (the default): derived at
     * rtcosim_anytime_start - when the calling thread runs under SCHED_FIFO
     * or SCHED_RR, 1 - runtime / period (read from /proc/sys/kernel; the
     * kernel's default 950000 / 1000000 when unreadable, 0 when runtime is
     * -1, i.e. no throttling) plus RTCOSIM_ANYTIME_IDLE_RESERVE_MARGIN for
     * the time spent outside the variants (waking, delivering); under
     * SCHED_DEADLINE, whose thread is stopped once it used its runtime
     * until its deadline, 1 - runtime / period of its own reservation
     * (sched_getattr(2)) plus the same margin; 0 under other policies. In
     * [0, 1): used as given. The summary reports the value used. */
    double idle_reserve;
    /* Escalate and the repair start a variant only when this quantile of its
     * recent completed runs (nearest rank over the stats_window: with the
     * default window of 64 and 0.999 it is the slowest of them) fits before
     * the work cutoff; a variant never run yet is started (its abort at the
     * cutoff still holds). In (0, 1]; default 0.999. */
    double start_quantile;
    /* Escalate: while only the minimal result is in hand, the next variant
     * starts when this lower quantile of its recent runs fits (an abort then
     * loses nothing but time, and the minimal result is the far coarser
     * alternative); once a better result is in hand, start_quantile applies.
     * In (0, 1]; default 0.5 (the median). */
    double first_start_quantile;
    /* The delivering thread's own wake-up lateness, measured at start (the
     * monotonic clock only): wakeup_samples timed waits on a semaphore
     * nobody posts, one period apart (at most 0.25 s in all: at least 20
     * waits, closer together for a period past 12.5 ms), the way the
     * thread waits for its workers. The `wakeup_quantile` of that lateness
     * is the lead by which every timed wait for a worker ends its sleep
     * early and polls to its bound, so that a late wake-up cannot carry a
     * delivery past the cutoff. Default 200 samples (0: not measured, no
     * lead) and 0.99. */
    int wakeup_samples;
    double wakeup_quantile;
    /* Resume from the best state available (native variants): when a period
     * delivered a variant less accurate than another of the set, the next
     * period first recomputes that period with the most accurate variant
     * whose start_quantile fits twice (the repair, then the same variant for
     * the current period) before the cutoff with the minimal variant's, from
     * the state and inputs that period started from, and commits the result
     * as the state (the coarse outputs already delivered stay as they were):
     * a coarse delivery's error is then not carried forward. A repair still
     * running at cutoff minus that variant's and the minimal variant's
     * quantiles is aborted and the coarse state kept. Default on; component
     * variants never repair. */
    bool repair;
    /* Timer strategy: once the chosen variant (or the minimal one) has
     * delivered and time is left, start the most accurate variant ranked
     * above it whose estimate (raised to its learned abort floor) still
     * fits before the work cutoff; its result replaces the one in hand when
     * it completes, an abort is learned as for the first choice. Repeated
     * while something fits. Default on. */
    bool timer_upgrade;
    /* Run every variant but the minimal one on its own worker thread in
     * every strategy (component variants always do): a native variant that
     * never calls rtcosim_anytime_should_abort is then abandoned at its
     * abort time (its scratch state and result discarded, the committed
     * state untouched) instead of holding the calling thread past the
     * deadline, and is skipped (BUSY) until it returns. Costs a thread
     * wake-up per variant started. Default off. */
    bool abandon_on_workers;
    /* Calibration measures but never refuses (and waits for the minimal
     * variant however long it takes): for runs where the deadline is a
     * budget, not a promise (an offline co-simulation). Default off. */
    bool calibration_advisory;
} rtcosim_anytime_config;

/* On a virtual clock time moves only with the variants, so the runner waits
 * for a worker's job to return; one that has not returned after this much
 * real time counts as running on (a variant that never polls): the clock is
 * moved to its abort time and the job abandoned there. */
#define RTCOSIM_ANYTIME_VIRTUAL_HANG_NS INT64_C(1000000000)

/* Added to the throttling share when idle_reserve is derived. */
#define RTCOSIM_ANYTIME_IDLE_RESERVE_MARGIN 0.02

/* Fill cfg with zeros and defaults; callers then set the counts and period. */
void rtcosim_anytime_config_init(rtcosim_anytime_config *cfg);

typedef struct rtcosim_anytime_variant_info {
    const char *name;             /* copied */
    int rank;                     /* accuracy rank: larger is more accurate */
    rtcosim_time_ns step_ns;      /* step size; components: micro step (0: one step per period) */
    rtcosim_anytime_solver solver;
} rtcosim_anytime_variant_info;

/* A native variant: advance `state` (a scratch copy of the committed state,
 * state_size bytes) from simulation time t over h and write the outputs.
 * Call rtcosim_anytime_should_abort(ctx) in loops and return
 * RTCOSIM_ECANCELED when it is true. In the parallel strategy several
 * variants run at once: `user` must be per variant or read-only. */
typedef rtcosim_status (*rtcosim_anytime_fn)(void *user, rtcosim_anytime_ctx *ctx,
                                             rtcosim_time_ns t, rtcosim_time_ns h,
                                             const double *inputs, void *state,
                                             double *outputs, rtcosim_error *err);

/* Cooperative cancellation point: true once the variant must stop (its time
 * is up or the runner abandoned it). Lock-free; costs one clock read. */
bool rtcosim_anytime_should_abort(rtcosim_anytime_ctx *ctx);
/* The clock the set runs on (for variants that account injected time). */
rtcosim_clock *rtcosim_anytime_ctx_clock(rtcosim_anytime_ctx *ctx);
/* Index of the running variant. */
size_t rtcosim_anytime_ctx_variant(const rtcosim_anytime_ctx *ctx);

/* The clock is not owned and must outlive the set. */
rtcosim_status rtcosim_anytime_create(const rtcosim_anytime_config *cfg, rtcosim_clock *clock,
                                      rtcosim_anytime **out, rtcosim_error *err);
/* Stops the worker threads (waiting for abandoned variants to return) and
 * frees. NULL is a no-op. */
void rtcosim_anytime_free(rtcosim_anytime *set);

rtcosim_status rtcosim_anytime_add_native(rtcosim_anytime *set,
                                          const rtcosim_anytime_variant_info *info,
                                          rtcosim_anytime_fn fn, void *user,
                                          rtcosim_error *err);
/* Threads: native variants of escalate and timer run on the calling thread
 * (with abandon_on_workers all but the minimal one on workers). Variants on
 * workers (every component variant; the costlier variants of the parallel
 * strategy) get one worker each. Under a real-time caller (SCHED_FIFO/RR:
 * one priority below it; SCHED_DEADLINE: SCHED_FIFO at the lowest
 * priority; the policy of the thread that runs the periods, followed when
 * another thread takes over, as the derived idle reserve is) a worker whose job
 * runs while the caller waits for it (the minimal variant, and every variant
 * of escalate and timer) runs real-time, and is moved to SCHED_OTHER when
 * it is abandoned, until it returns: one that never returns cannot hold a
 * CPU. The parallel strategy's costlier variants run beside the caller under
 * SCHED_OTHER: speculative work then never spends the CPUs' real-time
 * budget (see idle_reserve), cannot starve the rest of the system, and the
 * delivering thread preempts it at the cutoff at once. */

/* A component variant (not owned; initialized, i.e. after exit_init): each
 * period the inputs are set on input_vrs, the component steps over the period
 * in micro steps of info->step_ns (cancellation is checked between them) and
 * the outputs are read from output_vrs (FLOAT64). It runs on its own thread,
 * so that an abandoned step cannot delay the deadline. Component variants
 * must be instances of one model that can get, set and serialize its state:
 * before a component runs it loads the committed state (so calibration runs
 * and aborted periods leave no trace). */
rtcosim_status rtcosim_anytime_add_component(rtcosim_anytime *set,
                                             const rtcosim_anytime_variant_info *info,
                                             rtcosim_component *component,
                                             const uint32_t *input_vrs,
                                             const uint32_t *output_vrs, rtcosim_error *err);

/* Calibrate every variant (the calibration inputs are used for every run;
 * NULL: zeros), refuse with the figures when the minimal variant does not fit,
 * start the workers and set the first release to now. */
rtcosim_status rtcosim_anytime_start(rtcosim_anytime *set, const double *calibration_inputs,
                                     rtcosim_error *err);

/* What happened to one variant in one period. */
typedef enum rtcosim_anytime_outcome {
    RTCOSIM_ANYTIME_NOT_RUN = 0,
    RTCOSIM_ANYTIME_COMPLETED,
    RTCOSIM_ANYTIME_ABORTED,   /* stopped at a cancellation point */
    RTCOSIM_ANYTIME_ABANDONED, /* still running at the deadline; result discarded */
    RTCOSIM_ANYTIME_BUSY,      /* still busy with an abandoned earlier period */
    RTCOSIM_ANYTIME_FAILED     /* returned an error */
} rtcosim_anytime_outcome;

const char *rtcosim_anytime_outcome_name(rtcosim_anytime_outcome outcome);
const char *rtcosim_anytime_strategy_name(rtcosim_anytime_strategy strategy);
/* "escalate", "timer", "parallel". Returns 0, or -1 when unknown. */
int rtcosim_anytime_strategy_parse(const char *text, rtcosim_anytime_strategy *out);

/* Why a period missed its deadline. */
typedef enum rtcosim_anytime_miss {
    RTCOSIM_ANYTIME_ON_TIME = 0,
    /* The period started after its latest start (deadline minus the minimal
     * variant's worst calibrated time and the safety margin): not even the
     * minimal variant could be delivered in time, whatever the strategy. */
    RTCOSIM_ANYTIME_MISS_LATE_START,
    /* Started in time, but the delivering thread lost at least as much time
     * as the delivery was late to not running although it was runnable
     * (preempted, or its virtual CPU stopped by the hypervisor): measured
     * as wall time minus the thread's CPU time (which excludes steal time)
     * minus its deliberate waits. Only on a monotonic clock. */
    RTCOSIM_ANYTIME_MISS_STALLED,
    /* Any other miss: the strategy chose work that did not end in time (a
     * variant that overran its cutoff, a wrong estimate). */
    RTCOSIM_ANYTIME_MISS_STRATEGY
} rtcosim_anytime_miss;

/* "on time", "late start", "stalled", "strategy". */
const char *rtcosim_anytime_miss_name(rtcosim_anytime_miss miss);

/* One period's record. */
typedef struct rtcosim_anytime_period {
    uint64_t index;
    rtcosim_time_ns sim_time;  /* simulation time at the period's start */
    rtcosim_time_ns release, deadline, period_ns;
    rtcosim_time_ns started_at;   /* clock time run_period was entered (after other work) */
    rtcosim_time_ns delivered_at; /* clock time when the result was committed */
    rtcosim_time_ns margin_ns;    /* deadline - delivered_at (negative: late) */
    int delivered;                /* variant index */
    bool missed;                  /* delivered after the deadline */
    rtcosim_anytime_miss miss;    /* why, when missed */
    rtcosim_time_ns latest_start; /* deadline - minimal's worst calibrated time - margin */
    rtcosim_time_ns cutoff;       /* end of the work: deadline - margin - idle reserve */
    rtcosim_time_ns stalled_ns;   /* time the delivering thread was runnable but not running */
    /* Variant that recomputed the previous period and replaced its committed
     * state at the start of this one (config repair), else -1; repair_ns is
     * its execution time (also when it was aborted and the state kept). */
    int repaired;
    rtcosim_time_ns repair_ns;
    uint8_t outcome[RTCOSIM_ANYTIME_MAX_VARIANTS];           /* rtcosim_anytime_outcome */
    rtcosim_time_ns exec_ns[RTCOSIM_ANYTIME_MAX_VARIANTS];   /* 0 when not run */
    /* The longest time between two clock reads of the delivering thread's
     * abort checks (variants run on it, from their start) and of its polls
     * for a worker: in a poll, time the thread lost while running (a host
     * stall of its CPU, an interrupt), counted as its CPU time and so not
     * in stalled_ns; in a variant, that too or its own work between two
     * checks. Not measured on a virtual clock. */
    rtcosim_time_ns check_gap_ns;
} rtcosim_anytime_period;

/* Clock time of the next period's release (its deadline is release + period). */
rtcosim_time_ns rtcosim_anytime_next_release(const rtcosim_anytime *set);
/* Sleep on the set's clock until the next release. */
void rtcosim_anytime_wait_release(rtcosim_anytime *set);
/* Run one period with the strategy: deliver `outputs` (output_count values)
 * and commit the delivered variant's state. `report` may be NULL. Fails only
 * when the minimal variant fails (then nothing is committed). */
rtcosim_status rtcosim_anytime_run_period(rtcosim_anytime *set, const double *inputs,
                                          double *outputs, rtcosim_anytime_period *report,
                                          rtcosim_error *err);
/* run_period for a set driven by someone else's schedule (a co-simulation
 * step, a real-time frame): the period covers simulation time [sim_time,
 * sim_time + h] and must deliver by `deadline` on the set's clock (its
 * release is deadline - h). h > 0 becomes the set's period from now on. */
rtcosim_status rtcosim_anytime_run_period_at(rtcosim_anytime *set, rtcosim_time_ns sim_time,
                                             rtcosim_time_ns h, rtcosim_time_ns deadline,
                                             const double *inputs, double *outputs,
                                             rtcosim_anytime_period *report, rtcosim_error *err);
/* Change the period; takes effect at the period after the current one. Safe
 * to call from another thread while periods run. Refused (RTCOSIM_ETIMEOUT,
 * with the figures) when the minimal variant's calibrated worst time plus the
 * safety margin would exceed minimal_max_share of the new period. */
rtcosim_status rtcosim_anytime_set_period(rtcosim_anytime *set, rtcosim_time_ns period_ns,
                                          rtcosim_error *err);
rtcosim_time_ns rtcosim_anytime_period_ns(const rtcosim_anytime *set);

/* The committed native state (state_size bytes), valid until the next period. */
const void *rtcosim_anytime_state(const rtcosim_anytime *set);

typedef struct rtcosim_anytime_variant_stats {
    const char *name;
    int rank;
    uint64_t runs, completed, aborted, abandoned, failed, delivered;
    double mean_ns, max_ns, quantile_ns; /* completed runs (calibration included) */
} rtcosim_anytime_variant_stats;

typedef struct rtcosim_anytime_summary {
    uint64_t periods, misses;
    size_t variant_count;
    rtcosim_anytime_variant_stats variants[RTCOSIM_ANYTIME_MAX_VARIANTS];
    double delivered_share[RTCOSIM_ANYTIME_MAX_VARIANTS];
    double margin_min_ns, margin_mean_ns, margin_max_ns;
    double margin_p01_ns; /* 1st percentile over the recorded periods (NAN without records) */
    rtcosim_time_ns learned_abort_ns; /* timer strategy: current limit, 0 when none */
    /* misses = late_starts + misses_stalled + misses_strategy */
    uint64_t late_starts, misses_stalled, misses_strategy;
    /* config repair: periods whose predecessor's coarse state was replaced
     * (repairs) and repairs started but aborted (repairs_aborted) */
    uint64_t repairs, repairs_aborted;
    /* The wake-up lateness measured at start (0 when not measured) and the
     * lead used (wakeup_quantile of it) */
    rtcosim_time_ns wakeup_p50_ns, wakeup_p99_ns, wakeup_max_ns, wakeup_lead_ns;
    double idle_reserve;            /* share of the period kept idle, as used */
    rtcosim_time_ns idle_reserve_ns; /* the same for the current period */
} rtcosim_anytime_summary;

/* Call from the thread that runs the periods, between periods. */
rtcosim_status rtcosim_anytime_summary_get(const rtcosim_anytime *set, rtcosim_anytime_summary *out,
                                           rtcosim_error *err);
/* Records kept (at most record_capacity, oldest first). */
size_t rtcosim_anytime_record_count(const rtcosim_anytime *set);
const rtcosim_anytime_period *rtcosim_anytime_record(const rtcosim_anytime *set, size_t i);
/* Delivered outputs of record i (output_count values). */
const double *rtcosim_anytime_record_outputs(const rtcosim_anytime *set, size_t i);
/* Write the kept records as CSV (first column `time` in seconds, then
 * period_us, start_us (start after the release), delivered, margin_us,
 * missed, the outputs, per variant its execution time in us and its outcome
 * code, then miss (the rtcosim_anytime_miss code), stalled_us and repaired
 * (the variant that recomputed the previous period, -1 when none)), for
 * `rtcosim plot` and scripts. */
rtcosim_status rtcosim_anytime_write_csv(const rtcosim_anytime *set, const char *path,
                                         rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
