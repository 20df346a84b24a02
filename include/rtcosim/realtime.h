/* Real-time execution: a paced executor that starts frame k at the absolute
 * deadline start + k*H/rt_factor (zero drift by construction), measures
 * lateness and execution time into fixed histograms, applies an explicit
 * overrun policy, and optionally couples a real-time part (paced, simulation
 * time te) to a non-real-time part (own thread, virtual time tv) through
 * lock-free queues, with estimates from the error handling system
 * (estimate.h) whenever the non-real-time part is late.
 *
 * The executor drives components only through component.h; components are
 * handed over initialized (in step mode) and stay owned by the caller. */
#ifndef RTCOSIM_REALTIME_H
#define RTCOSIM_REALTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtcosim/clock.h"
#include "rtcosim/component.h"
#include "rtcosim/estimate.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Overrun policies ---------------------------------------------------- */

/* A frame overruns when its execution ends after the next frame's deadline. */
typedef enum rtcosim_overrun_policy {
    /* Count it and continue: the next frame starts at once and the schedule
     * slips by the overshoot (te then lags the wall clock: reported as drift). */
    RTCOSIM_OVERRUN_SOFT = 0,
    /* Keep the absolute schedule: frames whose deadline has passed start at
     * once, back to back, until the run is back on schedule. */
    RTCOSIM_OVERRUN_CATCH_UP,
    /* Keep the absolute schedule and drop the frames whose deadline has
     * passed: their exchanges are skipped (outputs held; a partner receives
     * the held values) and the components step over the dropped interval
     * right away (one step when they accept variable steps), then the next
     * frame starts at its own deadline. */
    RTCOSIM_OVERRUN_SKIP,
    /* Stop with RTCOSIM_ETIMEOUT (hard real time); results so far are kept. */
    RTCOSIM_OVERRUN_FAIL
} rtcosim_overrun_policy;

/* "soft", "catch-up", "skip", "fail". */
rtcosim_status rtcosim_overrun_policy_parse(const char *text, rtcosim_overrun_policy *out,
                                            rtcosim_error *err);
const char *rtcosim_overrun_policy_name(rtcosim_overrun_policy policy);

/* --- Histograms ---------------------------------------------------------- */

/* Log-scale histogram of non-negative nanosecond values: exact below 32 ns,
 * then 16 buckets per power of two (relative resolution 1/16 = 6.25 %), up to
 * 2^63 ns. Fixed size, no allocation: adding a value is a few instructions. */
#define RTCOSIM_HISTOGRAM_BUCKETS 960
typedef struct rtcosim_histogram {
    uint64_t count;
    int64_t min, max; /* exact extremes */
    double sum;
    uint64_t buckets[RTCOSIM_HISTOGRAM_BUCKETS];
} rtcosim_histogram;

void rtcosim_histogram_reset(rtcosim_histogram *h);
/* Negative values count in the lowest bucket (min keeps the exact value). */
void rtcosim_histogram_add(rtcosim_histogram *h, int64_t value);
/* Percentile p in [0, 100] by nearest rank: the upper edge of the bucket that
 * holds the rank, limited to the exact maximum; 0 when empty. */
int64_t rtcosim_histogram_percentile(const rtcosim_histogram *h, double p);
double rtcosim_histogram_mean(const rtcosim_histogram *h);

/* --- Exchange points ------------------------------------------------------ */

/* Where the real-time and non-real-time parts exchange data: the number of
 * frames from one exchange point to the next, repeated ("1": every frame,
 * "4": every 4th, "2-1-2-1": after 2 frames, then 1, then 2, ...). */
#define RTCOSIM_EXCHANGE_PATTERN_MAX 32
typedef struct rtcosim_exchange_pattern {
    size_t length;
    uint32_t frames[RTCOSIM_EXCHANGE_PATTERN_MAX];
} rtcosim_exchange_pattern;

rtcosim_status rtcosim_exchange_pattern_parse(const char *text, rtcosim_exchange_pattern *out,
                                              rtcosim_error *err);

/* --- Executor ------------------------------------------------------------- */

/* A connection from an output to an input (Float64 variables). Components
 * are indices into the array given to rtcosim_rt_create. */
typedef struct rtcosim_rt_connection {
    size_t from_component;
    uint32_t from_vr;
    size_t to_component;
    uint32_t to_vr;
} rtcosim_rt_connection;

struct rtcosim_rt_frame;

typedef struct rtcosim_rt_options {
    rtcosim_time_ns start_time;  /* simulation time of frame 0 (components' time) */
    rtcosim_time_ns stop_time;   /* run until te reaches this */
    rtcosim_time_ns macro_step;  /* H: one frame */
    double rt_factor;            /* run at rt_factor times real time (2: twice as fast) */
    rtcosim_overrun_policy overrun;

    /* Pacing clock. NULL: a monotonic clock with busy_wait (see clock.h) is
     * created. A virtual clock makes the run deterministic (single thread). */
    rtcosim_clock *clock;
    rtcosim_time_ns busy_wait;

    /* Best effort, each with a warning through the logger when refused. */
    int fifo_priority; /* SCHED_FIFO priority 1..99 for the paced thread; 0: leave */
    bool lock_memory;  /* mlockall(MCL_CURRENT | MCL_FUTURE) */
    int cpu;           /* pin the paced thread to this CPU; -1: leave */
    int partner_cpu;   /* pin the non-real-time part's thread to this CPU; -1: leave */

    /* Calibration: run calibration_frames frames unpaced (component states
     * saved and restored, so they need get/set state) and refuse the run with
     * the figures when their median or 99th percentile exceeds
     * calibration_budget of the period (an isolated stall beyond the 99th
     * percentile, e.g. one OS hiccup in 100 frames, is logged, not refused). */
    bool calibrate;
    size_t calibration_frames;
    double calibration_budget; /* fraction of the frame period, (0, 1] */

    size_t overrun_log; /* keep the first and the last overrun_log overruns */
    size_t frame_log;   /* per-frame records kept (from the start); 0: none */

    /* Mixed real-time / non-real-time. non_realtime: the non-real-time
     * parts, separated by ';', each the comma-separated instance names of
     * its components ("engine,transmission;body": two parts; NULL or "":
     * everything is real-time). Each part steps on its own thread (virtual
     * clock: its own simulated processor) with its own queues, estimators,
     * resynchronization, pace and report rows. A connection between two
     * parts goes through the exchange point: the receiving part gets the
     * value the real-time part holds for it at te (received or estimated). */
    const char *non_realtime;
    rtcosim_exchange_pattern exchange;
    /* Estimator of every signal from the non-real-time part to the
     * real-time part. A map estimator's inputs are looked up by name among
     * the real-time part's outputs ("instance.variable"). */
    rtcosim_estimator_spec estimator;
    /* Per-signal estimators over the default above (borrowed until
     * rtcosim_rt_create): each names a signal from the non-real-time part as
     * in estimates.csv; its map and linear inputs are real-time outputs or
     * other signals from the non-real-time parts. */
    const struct rtcosim_rt_signal_estimator *signal_estimators;
    size_t signal_estimator_count;
    /* tv after a step: the timestamp of the last input consumed (false) or
     * that plus the step (true). */
    bool tv_includes_step;
    /* Declare the partner lost when its newest data is older than this (0: never). */
    rtcosim_time_ns partner_timeout;
    /* The partner's load is judged over windows of this much simulated time
     * (0: 100 ms). */
    rtcosim_time_ns partner_window;
    size_t queue_capacity;  /* samples per direction (rounded up to a power of two) */
    size_t record_capacity; /* estimate records kept for the report */
    /* Virtual runs only: the virtual clock of the non-real-time part's
     * processor (its injected compute times advance it). Required when the
     * pacing clock is virtual and a non-real-time part exists. With several
     * parts, partner_clocks gives one per part (in the order of
     * non_realtime; partner_clock then unused): each is a processor of its own. */
    rtcosim_clock *partner_clock;
    rtcosim_clock *const *partner_clocks;
    size_t partner_clock_count;
    /* Write the report files (rtcosim_rt_write_report) here at the end of
     * rtcosim_rt_run, also after a failed run (NULL: none). */
    const char *report_dir;
    /* The components are groups (system_rt.h) whose variables are named
     * "component.variable" already: signal names and map inputs then use the
     * variable names alone (false: "instance.variable"). */
    bool group_names;
    /* Optional: set non-zero (e.g. by a SIGINT/SIGTERM handler: a lock-free
     * atomic store is async-signal-safe) to end the run at the next frame
     * boundary; the run then returns RTCOSIM_OK with summary.interrupted.
     * Read once per frame (one relaxed load). */
    const atomic_int *stop_request;
    /* Optional: the paced thread stores te + H here after each frame (one
     * relaxed store), for a progress display read from another thread. */
    _Atomic rtcosim_time_ns *progress;
    /* Wall-clock runs: hold /dev/cpu_dma_latency at this many microseconds
     * while the run lasts (Linux PM QoS), so no CPU enters an idle state
     * whose exit latency would delay the paced thread's wake-ups, as
     * cyclictest does by default; -1: leave. Best effort: needs root, an
     * info line says when it is not held. */
    int cpu_dma_latency_us;
    /* Optional: called on the paced thread after each frame with its record
     * (a live view's tap, rtcosim/serve.h). It must not block, allocate or
     * lock: the next deadline waits for it. */
    void (*frame_observer)(void *context, const struct rtcosim_rt_frame *frame);
    void *frame_observer_context;
    /* Optional: where the paced loop spends a frame, per stage (filled by
     * the paced thread; two more clock reads per frame when set). */
    struct rtcosim_rt_probes *probes;
} rtcosim_rt_options;

/* The stages of a frame on the paced thread, each a histogram in ns: wakeup
 * from the deadline to the first clock read after the sleep (kernel,
 * hypervisor, the clock's busy wait; frames whose deadline had passed
 * before the sleep, a backlog, are left out: comparable with cyclictest,
 * which skips the periods it missed), read (the parts' inputs), write
 * (exchange with a partner, outputs), step, and bookkeeping from the end of
 * the step to the call of the next sleep (histograms, frame log, observer,
 * overrun handling, the next deadline). */
typedef struct rtcosim_rt_probes {
    rtcosim_histogram wakeup, read, write, step, bookkeeping;
} rtcosim_rt_probes;
void rtcosim_rt_probes_reset(rtcosim_rt_probes *p);

/* One per-signal estimator: "SIGNAL=SPEC" on the command line. */
typedef struct rtcosim_rt_signal_estimator {
    char signal[256];
    rtcosim_estimator_spec spec;
} rtcosim_rt_signal_estimator;

/* Parse "SIGNAL=SPEC" (*per_signal true) or a plain SPEC (false: the default
 * estimator, in out->spec). A text is per-signal when what precedes its first
 * '=' holds neither ',' nor ':' (a spec's modifiers and map path do). */
rtcosim_status rtcosim_rt_signal_estimator_parse(const char *text,
                                                 rtcosim_rt_signal_estimator *out,
                                                 bool *per_signal, rtcosim_error *err);

/* Defaults: H = 1 ms, stop 1 s, factor 1, soft overruns, monotonic clock
 * without busy-wait, no priority/locking/affinity, calibration off (100
 * frames, budget 0.9 when on), 16 overruns, 1e6 frames logged, exchange every
 * frame, ZOH estimates, partner timeout 1 s, queues of 1024, 1e6 records. */
void rtcosim_rt_options_init(rtcosim_rt_options *options);

/* Set one option from its command-line spelling, so that a CLI wires
 * `--NAME VALUE` in one line. Names and values:
 *   real-time-factor F (or rt-factor F) | overrun soft|catch-up|skip|fail | step SECONDS |
 *   stop-time SECONDS | start-time SECONDS | non-real-time NAME[,NAME...][;NAME...] |
 *   exchange N|N-M-... | estimator SPEC (see rtcosim_estimator_spec_parse) |
 *   report DIR | priority 1..99 | cpu N | partner-cpu N | lock-memory yes|no |
 *   cpu-dma-latency US (-1: leave) |
 *   busy-wait SECONDS | calibrate yes|no | partner-timeout SECONDS | partner-window SECONDS |
 *   tv-includes-step yes|no
 * String values (names, directory) are referenced, not copied: they must
 * live until rtcosim_rt_create. Fails with RTCOSIM_EINVAL naming the option,
 * the value and what is accepted. */
rtcosim_status rtcosim_rt_option_set(rtcosim_rt_options *options, const char *name,
                                     const char *value, rtcosim_error *err);

/* Why a frame overran (P is the frame's period, next deadline - deadline):
 * the classification says where the overshoot came from, so that a run can
 * tell its own misses from the machine's. */
typedef enum rtcosim_rt_overrun_cause {
    /* The previous frame overran and this one started late because of it
     * (catch-up backlog); its own execution fits P. */
    RTCOSIM_RT_CAUSE_BACKLOG = 0,
    /* Execution longer than P: it would have missed even when started on time. */
    RTCOSIM_RT_CAUSE_EXECUTION,
    /* Execution fits P but the frame started late after an on-time frame:
     * the thread was not running at its deadline (scheduler, interrupts, or
     * a hypervisor that did not run the virtual CPU). */
    RTCOSIM_RT_CAUSE_WAKEUP
} rtcosim_rt_overrun_cause;

const char *rtcosim_rt_overrun_cause_name(rtcosim_rt_overrun_cause cause);

/* One logged overrun. */
typedef struct rtcosim_rt_overrun {
    uint64_t frame;
    rtcosim_time_ns te;        /* simulation time of the frame */
    rtcosim_time_ns lateness;  /* start - deadline */
    rtcosim_time_ns exec;      /* execution time */
    rtcosim_time_ns exchange;  /* part of exec spent exchanging with the partner */
    rtcosim_time_ns overshoot; /* end - next deadline (> 0) */
    rtcosim_rt_overrun_cause cause;
    /* Counted as caused by the non-real-time partner (conservatively): the
     * frame would have ended in time without its exchange work (receiving the
     * partner's samples, grading and computing estimates, sending), or it is
     * the backlog of such an overrun, or it started late while the partner
     * was late and could compete for the paced thread's CPU (paced thread
     * neither SCHED_FIFO nor on a CPU of its own apart from the partner). */
    bool partner;
} rtcosim_rt_overrun;

/* One logged frame. */
#define RTCOSIM_FRAME_EXCHANGE 1u  /* an exchange point */
#define RTCOSIM_FRAME_ESTIMATED 2u /* at least one signal was estimated */
#define RTCOSIM_FRAME_OVERRUN 4u   /* ended after the next deadline */
#define RTCOSIM_FRAME_DROPPED 8u   /* dropped under the skip policy */
typedef struct rtcosim_rt_frame {
    uint64_t frame;
    rtcosim_time_ns te;       /* simulation time at the frame start */
    rtcosim_time_ns deadline; /* relative to the run start on the pacing clock */
    rtcosim_time_ns lateness, exec;
    rtcosim_time_ns exchange; /* part of exec spent exchanging with the partner */
    rtcosim_time_ns lag;      /* te minus the time of the partner's newest data */
    rtcosim_time_ns tv;       /* the partner's virtual time known at this frame */
    /* (several parts: the largest lag and the smallest tv of the parts;
     * each part's in rtcosim_rt_frame_part_at) */
    unsigned flags;
} rtcosim_rt_frame;

typedef struct rtcosim_rt_summary {
    uint64_t frames;          /* frames executed (dropped ones excluded) */
    uint64_t frames_dropped;  /* skip policy */
    uint64_t overruns;
    /* overruns by cause (rtcosim_rt_overrun_cause); they add up to overruns */
    uint64_t overruns_backlog, overruns_execution, overruns_wakeup;
    rtcosim_time_ns drift;    /* (end on the pacing clock - start) - (te end - start_time)/rt_factor */
    rtcosim_time_ns slip;     /* schedule slip accumulated by the soft policy */
    bool failed;              /* stopped by the fail policy or an error */
    rtcosim_time_ns stopped_at; /* te reached */
    rtcosim_time_ns calibration_worst, calibration_median; /* 0 when not calibrated */
    bool fifo_applied, memory_locked, affinity_applied;

    /* Mixed runs. */
    uint64_t exchanges;           /* exchange points after the initial one */
    uint64_t estimated_exchanges; /* exchange points served by an estimate */
    uint64_t overruns_while_late; /* overruns at frames when the partner was late */
    uint64_t overruns_partner;    /* overruns caused by the partner (rtcosim_rt_overrun.partner) */
    /* The partner could not delay the paced thread's start: the paced thread
     * ran SCHED_FIFO over the partner's normal-priority thread, or the two
     * were pinned to different CPUs. */
    bool partner_isolated;
    rtcosim_time_ns max_lag;      /* longest te - (time of newest partner data) */
    uint64_t late_episodes;       /* runs of consecutive estimated exchanges */
    uint64_t resync_frames_median, resync_frames_max; /* frames from first estimate to tv == te */
    bool partner_lost;
    rtcosim_time_ns partner_lost_at; /* te when declared lost */
    char partner_lost_reason[256];
    /* The lost partner's thread was still inside a component call
     * partner_timeout after the run ended: it was left running (it cannot be
     * interrupted safely) and the executor, the partner's components and
     * their libraries are never freed (rtcosim_rt_free and
     * rtcosim_system_rt_free leave them to the process's exit). */
    bool partner_abandoned;
    bool interrupted;             /* ended early by options.stop_request */
    uint64_t records_dropped;     /* estimate records beyond record_capacity */
    /* The partner's own pace (mixed runs): its compute time per step, its
     * load (compute time over the real time its simulated time takes: above
     * 1 it is slower than real time), and windows of options.partner_window
     * simulated time whose load exceeded 1 (it must be fast enough on
     * average, or its lag grows until it is lost). */
    rtcosim_time_ns partner_compute_mean, partner_compute_p99, partner_compute_max;
    double partner_load;
    uint64_t partner_windows, partner_slow_windows;
    double partner_worst_load;             /* of the windows */
    rtcosim_time_ns partner_first_slow_at; /* start of the first slow window */
    /* With several non-real-time parts the fields above are over all of
     * them: lost (the first part lost, its name before the reason), longest
     * lag, late episodes and estimated exchanges of exchange points where any
     * part was late; pace: the highest mean, p99, maximum, load and worst
     * window, windows and slow windows summed, the earliest slow window.
     * Each part's own: rtcosim_rt_part_summary_at. */
    size_t nonrealtime_parts;
    uint64_t signals_to_rt, signals_to_partner;
    bool dma_latency_held;        /* options.cpu_dma_latency_us was held during the run */
    rtcosim_time_ns calibration_p99; /* 99th percentile of the calibration's frames; 0: none */
    /* Clock time of the paced schedule's origin (frame k's deadline is run_start
     * + frame.deadline): places frames beside another tool's timestamps. */
    rtcosim_time_ns run_start;
} rtcosim_rt_summary;

/* One non-real-time part of a mixed run: its exchanges, resynchronization
 * and pace, as the summary's partner figures give them for a single part. */
typedef struct rtcosim_rt_part_summary {
    char name[256]; /* its components' instance names joined with '+' */
    uint64_t signals_to_rt, signals_to_part;
    uint64_t estimated_exchanges; /* exchange points where its signals were estimated */
    rtcosim_time_ns max_lag;
    uint64_t late_episodes, resync_frames_median, resync_frames_max;
    bool lost;
    rtcosim_time_ns lost_at;
    char lost_reason[256];
    bool abandoned; /* its thread was left running (see partner_abandoned) */
    rtcosim_time_ns compute_mean, compute_p99, compute_max; /* per step */
    double load; /* compute time over the real time its simulated time takes */
    uint64_t windows, slow_windows;
    double worst_load;
    rtcosim_time_ns first_slow_at;
} rtcosim_rt_part_summary;

/* Per logged frame and part: te minus the time of its newest data, its tv,
 * and whether its signals were estimated at this frame. */
typedef struct rtcosim_rt_frame_part {
    rtcosim_time_ns lag, tv;
    bool estimated;
} rtcosim_rt_frame_part;

typedef struct rtcosim_rt rtcosim_rt;

/* Validates everything (connections, names, step, pattern, estimator and its
 * map) and allocates every buffer; the run itself then never allocates. */
rtcosim_status rtcosim_rt_create(rtcosim_component *const *components, size_t count,
                                 const rtcosim_rt_connection *connections,
                                 size_t connection_count, const rtcosim_rt_options *options,
                                 rtcosim_rt **out, rtcosim_error *err);
void rtcosim_rt_free(rtcosim_rt *rt);

/* Run to stop_time. Real clock: the paced loop runs on a thread of its own
 * (priority, affinity), the non-real-time part on another; virtual clock:
 * both on the calling thread, interleaved deterministically. Fails with
 * RTCOSIM_ETIMEOUT under the fail policy, or with the component's error;
 * a lost partner is not a failure. Statistics and logs stay available. */
rtcosim_status rtcosim_rt_run(rtcosim_rt *rt, rtcosim_error *err);

const rtcosim_rt_summary *rtcosim_rt_get_summary(const rtcosim_rt *rt);
const rtcosim_histogram *rtcosim_rt_lateness(const rtcosim_rt *rt);
const rtcosim_histogram *rtcosim_rt_exec_time(const rtcosim_rt *rt);
/* Overruns logged: the first ones, then the last ones (oldest first). */
size_t rtcosim_rt_overruns(const rtcosim_rt *rt, rtcosim_rt_overrun *out, size_t capacity);
size_t rtcosim_rt_frame_count(const rtcosim_rt *rt);
const rtcosim_rt_frame *rtcosim_rt_frame_at(const rtcosim_rt *rt, size_t index);
/* The coupled signals (partner -> real-time part as used, then real-time
 * part -> partner) at logged frame `index`; rtcosim_rt_signal_count values. */
size_t rtcosim_rt_signal_count(const rtcosim_rt *rt);
const char *rtcosim_rt_signal_name(const rtcosim_rt *rt, size_t signal);
const double *rtcosim_rt_frame_signals(const rtcosim_rt *rt, size_t index);
/* Estimators of the partner -> real-time signals (index < summary.signals_to_rt). */
const rtcosim_estimator *rtcosim_rt_estimator(const rtcosim_rt *rt, size_t signal);
size_t rtcosim_rt_record_count(const rtcosim_rt *rt);
const rtcosim_estimate_record *rtcosim_rt_record_at(const rtcosim_rt *rt, size_t index);

/* The non-real-time parts (in the order of options.non_realtime), each
 * one's summary (after the run), its state at logged frame `index`, and the
 * length of the windows its pace is judged over. */
size_t rtcosim_rt_part_count(const rtcosim_rt *rt);
const rtcosim_rt_part_summary *rtcosim_rt_part_summary_at(const rtcosim_rt *rt, size_t part);
const rtcosim_rt_frame_part *rtcosim_rt_frame_part_at(const rtcosim_rt *rt, size_t index,
                                                      size_t part);
rtcosim_time_ns rtcosim_rt_partner_window(const rtcosim_rt *rt);

/* Write summary.csv, frames.csv (one row per logged frame with the coupled
 * signals: time in the first column, drawable by `rtcosim plot`),
 * overruns.csv and, for mixed runs, estimates.csv and estimators.csv into dir
 * (created), and draw timing.svg (lateness and execution time per frame). */
rtcosim_status rtcosim_rt_write_report(const rtcosim_rt *rt, const char *dir,
                                       rtcosim_error *err);
/* What the summary's terms mean (lateness, execution, overrun and its
 * causes, slip, drift): lines indented by two spaces, ending in a newline. */
const char *rtcosim_rt_summary_legend(void);
/* A human summary (lateness percentiles, overruns, drift, estimates), after
 * the scheduling the paced thread got and the legend of its terms. */
void rtcosim_rt_print_summary(const rtcosim_rt *rt, FILE *out);

/* --- Delay injection ------------------------------------------------------ */

/* Wraps a component so that each do_step takes extra compute time: on a
 * virtual clock it advances the clock, on a real clock it sleeps (with the
 * clock's busy-wait). Compute time per step: an explicit schedule when given
 * (cycled), else drawn from a seeded distribution: with probability
 * late_share uniform in [late_min, late_max] * h, otherwise uniform in
 * [0.5, 1.5] * mean_fraction * h. fail_at_step (1-based, 0: never) makes that
 * step return RTCOSIM_EFATAL (a crash); hang_at_step makes that step and every
 * later one take hang_time (a partner that stops answering). */
typedef struct rtcosim_delay_options {
    rtcosim_clock *clock;
    uint64_t seed;
    double mean_fraction;
    double late_share, late_min, late_max;
    const rtcosim_time_ns *schedule; /* copied */
    size_t schedule_length;
    uint64_t fail_at_step, hang_at_step;
    rtcosim_time_ns hang_time;
} rtcosim_delay_options;

/* Wraps `inner`, which must be freshly created (not yet instantiated); the
 * wrapper takes ownership of it in every case (freed on failure too). */
rtcosim_status rtcosim_delay_wrap(rtcosim_component *inner, const rtcosim_delay_options *options,
                                  rtcosim_component **out, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
