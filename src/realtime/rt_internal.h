/* Internal state of the real-time executor, shared by its setup (rt.c), its
 * paced loop (rt_run.c) and its report writer (rt_report.c). */
#ifndef RTCOSIM_REALTIME_RT_INTERNAL_H
#define RTCOSIM_REALTIME_RT_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "realtime/spsc.h"
#include "rtcosim/realtime.h"

#define RT_RESYNC_BINS 4096 /* late-episode lengths counted exactly up to here */

/* Where an input's value comes from: a slot of the part's own outputs, or a
 * signal received from the other part. */
#define SOURCE_REMOTE ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* One component of a part: the outputs it sources (read in one batch into
 * slot_values[out_first ..]) and the inputs it receives (set in one batch). */
typedef struct part_member {
    rtcosim_component *component;
    size_t out_first, out_count;
    size_t in_first, in_count;
} part_member;

/* A set of components stepped together: the real-time part or the
 * non-real-time part. Connections inside a part are exchanged every frame
 * (Jacobi: all outputs read, then all inputs set). */
typedef struct part {
    part_member *members;
    size_t member_count;
    uint32_t *out_vrs;     /* slot -> value reference (grouped by member) */
    size_t *out_owner;     /* slot -> global component index */
    double *slot_values;
    size_t slot_count;
    uint32_t *in_vrs;
    size_t *in_source;     /* slot index, or SOURCE_REMOTE | signal index */
    double *in_values;
    size_t in_count;
    double *remote_values; /* signals received from the other part */
    size_t remote_count;
    size_t *send_slots;    /* signal to the other part -> slot */
    size_t send_count;
} part;

/* Sample from the real-time part to a partner. */
typedef struct to_partner_sample {
    rtcosim_time_ns stamp, h, sent_at;
    uint32_t stop;
    double values[];
} to_partner_sample;

#define SAMPLE_FAILED 1u
/* Sample from a partner to the real-time part. */
typedef struct from_partner_sample {
    rtcosim_time_ns input_stamp, valid_at, tv, done_at;
    uint32_t flags;
    double values[];
} from_partner_sample;

/* The pace of one partner (rt_pace.c), written by its thread only. */
typedef struct rt_pace {
    rtcosim_histogram compute;
    rtcosim_time_ns sum_compute, sum_h;
    int64_t window; /* index of the open window, -1: none */
    rtcosim_time_ns win_compute, win_h;
    uint64_t windows, slow;
    double worst;
    rtcosim_time_ns first_slow_at;
} rt_pace;

/* Late episodes: from the first estimated exchange to the next one on time,
 * counted per length in fixed bins (the last bin holds every longer one;
 * the maximum is kept exactly): the median and maximum in fixed memory,
 * whatever the run's length (a list of every episode grew with the run:
 * issue 27's soak). */
typedef struct rt_episodes {
    bool open;
    uint64_t start; /* frame of the first estimate of the open episode */
    uint64_t bins[RT_RESYNC_BINS];
    uint64_t count, max;
} rt_episodes;

/* One non-real-time part: its components stepped on its own thread (real
 * clock) or simulated processor (virtual clock), its queues to and from the
 * paced thread, and what the paced thread knows of it. Its signals to the
 * real-time part are to_rt signals sig_first .. sig_first + sig_count - 1
 * (rt_part.remote_values); what it receives is gathered per sample from the
 * real-time part's outputs and the other parts' signals as used at the
 * exchange (hub: every exchange goes through the paced thread). */
typedef struct rt_partner {
    struct rtcosim_rt *rt;
    size_t index;
    char name[256]; /* its components' names joined with '+' */
    part part;
    size_t sig_first, sig_count;
    size_t *in_hub; /* per received value: rt_part send index, or SOURCE_REMOTE | to_rt signal */
    rtcosim_clock *clock; /* virtual runs: its processor's clock */
    rtcosim_spsc to_partner, from_partner;
    size_t to_size, from_size;
    pthread_t thread;
    bool thread_started;
    bool pinned; /* its thread runs on options.partner_cpu */
    sem_t wakeup;
    bool semaphore_ready;
    atomic_bool stop;
    char error[RTCOSIM_ERROR_MESSAGE_MAX];
    from_partner_sample *inflight; /* virtual runs: a step computed, not yet due */
    bool inflight_busy;
    to_partner_sample *last_sent;  /* held inputs for dropped exchanges */
    double *newest_values;         /* its newest received outputs */
    rtcosim_time_ns newest_valid;  /* the time they are valid at */
    rtcosim_time_ns tv;            /* its tv in its newest sample */
    bool lost;                     /* paced thread's view */
    bool late;                     /* estimated at the current exchange */
    rt_episodes episodes;
    rt_pace pace;
    rtcosim_rt_part_summary summary;
} rt_partner;

struct rtcosim_rt {
    rtcosim_rt_options options;
    char *report_dir; /* copy of options.report_dir */
    rtcosim_component **components;
    size_t component_count;
    size_t *part_of; /* per component: 0 real-time, 1 + i non-real-time part i */
    part rt_part;
    rt_partner *partners;
    size_t partner_count;
    size_t to_rt_count; /* signals from every partner (rt_part.remote_count) */
    bool mixed;
    char **signal_names; /* to_rt signals, then real-time outputs sent to partners */
    size_t signal_count;

    rtcosim_clock *clock;       /* pacing clock */
    rtcosim_clock *owned_clock; /* created here when options.clock is NULL */
    rtcosim_time_ns period_num; /* frame k starts at k * H / rt_factor */
    uint64_t total_frames;

    /* Error handling system. */
    rtcosim_estimator **estimators; /* per to_rt signal */
    bool *est_now;                  /* per to_rt signal: estimated at the current exchange */
    rtcosim_map *map;               /* loaded here from options (owned), or NULL */
    const rtcosim_map *active_map;  /* the default estimator's map (owned or borrowed) */
    /* Per-signal estimators and every estimator's inputs (rt_estimators.c). */
    rtcosim_rt_signal_estimator *est_specs; /* copies of options.signal_estimators */
    rtcosim_map **est_maps;                 /* their maps, loaded here */
    size_t est_spec_count;
    char **est_names;      /* input names that may be real-time outputs */
    size_t est_name_count;
    size_t *est_name_slot; /* rt_part slot of each, or SIZE_MAX: not a real-time output */
    size_t *est_in_first;  /* per to_rt signal + 1: its inputs in est_in */
    size_t *est_in;        /* rt_part slot, or SOURCE_REMOTE | signal index */
    double *est_values;    /* one signal's inputs gathered for its estimator */
    bool *est_second;      /* per to_rt signal: reads other signals' values (second pass) */
    rtcosim_estimate_record *records;
    size_t record_count;
    rt_episodes episodes; /* exchanges where any part was late */

    /* Results. */
    rtcosim_rt_summary summary;
    rtcosim_histogram lateness, exec_time;
    rtcosim_rt_overrun *overrun_first, *overrun_last;
    size_t overrun_first_n, overrun_last_n, overrun_last_head;
    rtcosim_rt_frame *frames;
    rtcosim_rt_frame_part *frame_parts; /* frame_capacity x partner_count */
    double *frame_signals;
    size_t frame_capacity, frame_count;
    rtcosim_status run_status;
    rtcosim_error run_error;
};

/* rt_estimators.c. prepare: before build (copies the per-signal specs, loads
 * their maps, collects the input names build() looks up as real-time
 * outputs); create: after build (resolves signal and input names, creates
 * one estimator per signal); inputs: gather signal j's inputs (paced thread,
 * no allocation); free: what prepare and create allocated. */
rtcosim_status rtcosim_rt_estimators_prepare(rtcosim_rt *rt, rtcosim_error *err);
rtcosim_status rtcosim_rt_estimators_create(rtcosim_rt *rt, size_t pending, rtcosim_error *err);
const double *rtcosim_rt_estimator_inputs(rtcosim_rt *rt, size_t j);
void rtcosim_rt_estimators_free(rtcosim_rt *rt);

/* rt_pace.c: reset before a run; account one partner step of h simulated
 * time from stamp that took `compute` (partner thread, no allocation);
 * finish after the parts stopped: each part's figures and a warning when
 * it was slower than real time over a window, and the run's over all. */
void rtcosim_rt_pace_reset(rt_partner *p);
void rtcosim_rt_pace_account(rt_partner *p, rtcosim_time_ns stamp, rtcosim_time_ns h,
                             rtcosim_time_ns compute);
void rtcosim_rt_pace_finish(rtcosim_rt *rt);

/* rt_build.c: the non-real-time parts from options.non_realtime ("a,b;c":
 * parts separated by ';', their components by ','); resolve the connections into the parts (and the estimator
 * inputs that are real-time outputs); free a part's lists. */
const char *rtcosim_rt_component_label(const rtcosim_component *c);
rtcosim_status rtcosim_rt_split_parts(rtcosim_rt *rt, const char *list, rtcosim_error *err);
/* The value of a hub source (in_hub: rt_part send index or SOURCE_REMOTE | to_rt signal). */
double rtcosim_rt_hub_value(const rtcosim_rt *rt, size_t source);
rtcosim_status rtcosim_rt_build(rtcosim_rt *rt, const rtcosim_rt_connection *conns, size_t n,
                                rtcosim_error *err);
void rtcosim_rt_part_free(part *p);

/* rt_partner.c: send the real-time outputs of stamp (held: the last sent
 * again, for a dropped exchange) to the partner for an interval of hold; the
 * exchange at an exchange point (*estimated: served by an estimate); start
 * and stop the partner; after the run, abandon the estimates whose data never
 * came and summarize the late episodes. */
void rtcosim_rt_send_sample(rt_partner *p, rtcosim_time_ns stamp, rtcosim_time_ns hold,
                            bool held);
rtcosim_status rtcosim_rt_exchange(rtcosim_rt *rt, uint64_t frame, rtcosim_time_ns te,
                                   rtcosim_time_ns hold, bool *estimated, rtcosim_error *err);
rtcosim_status rtcosim_rt_start_partner(rtcosim_rt *rt, rtcosim_error *err);
void rtcosim_rt_stop_partner(rtcosim_rt *rt);
void rtcosim_rt_finish_episodes(rtcosim_rt *rt);
/* Episode bookkeeping at an exchange point (late: estimated there). */
void rtcosim_rt_episode_mark(rt_episodes *e, uint64_t frame, bool late, uint64_t *episodes);
/* The value the non-real-time part of `component` was sent last for its
 * input vr (the same in a held exchange): false when that input is not fed
 * from outside the part. */
bool rtcosim_rt_sent_value(const rtcosim_rt *rt, size_t component, uint32_t vr, double *value);

/* rt_report.c: the warning that part `part` was slower than real time. */
void rtcosim_rt_slow_warning(const rtcosim_rt *rt, size_t part, char *text, size_t size);

/* rt_calibrate.c: run the real-time part unpaced for calibration_frames
 * frames, restore its state, and refuse the run (RTCOSIM_ETIMEOUT, message
 * naming --no-calibrate) unless rtcosim_rt_calibration_fits. */
rtcosim_status rtcosim_rt_calibrate(rtcosim_rt *rt, rtcosim_error *err);
/* The verdict on n frame times sorted ascending: they fit budget_ns when
 * the median and the 99th percentile (nearest rank) do, so that an isolated
 * stall of the OS (one frame in a hundred, beyond p99) does not refuse a run
 * whose frames fit; the maximum only informs. Fills *median and *p99. */
bool rtcosim_rt_calibration_fits(const rtcosim_time_ns *sorted, size_t n, double budget_ns,
                                 rtcosim_time_ns *median, rtcosim_time_ns *p99);

/* A calibration frame's time: the clock's time between begin and end less
 * the thread's run-queue wait over it (util/run_queue.h), so that another
 * program's turn on the CPU (a busy machine, a parallel build) is not taken
 * for the part's cost; its own waits (a pipe to an isolated FMU, a socket)
 * stay in. On a virtual clock, or without schedstat, the clock's time. */
typedef struct rt_frame_timer {
    rtcosim_clock *clock;
    int run_queue; /* the thread's schedstat, or -1 */
    rtcosim_time_ns begun;
    int64_t queued_at_begin;
    rtcosim_time_ns queued; /* run-queue wait left out, over all frames */
    size_t frames_queued;   /* frames that waited 10 us or more */
} rt_frame_timer;
void rtcosim_rt_frame_timer_open(rt_frame_timer *t, rtcosim_clock *clock);
void rtcosim_rt_frame_timer_begin(rt_frame_timer *t);
rtcosim_time_ns rtcosim_rt_frame_timer_end(rt_frame_timer *t);
void rtcosim_rt_frame_timer_close(rt_frame_timer *t);
void rtcosim_rt_frame_timer_log(const rt_frame_timer *t, size_t frames);

/* Frame start offset of frame k from the (slipped) schedule start. */
rtcosim_time_ns rtcosim_rt_frame_offset(const rtcosim_rt *rt, uint64_t k);
/* Read a part's outputs into its slots; set its inputs from slots/remote. */
rtcosim_status rtcosim_rt_part_read(part *p, rtcosim_error *err);
rtcosim_status rtcosim_rt_part_write(part *p, rtcosim_error *err);
rtcosim_status rtcosim_rt_part_step(part *p, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_error *err);
/* Set ov->cause and ov->partner (rules in realtime.h, rtcosim_rt_overrun)
 * from its lateness, execution, exchange and overshoot; period: the frame's
 * deadline to the next; backlog: the previous frame overran, backlog_partner:
 * by the partner's doing; partner_late: the partner was late at this frame;
 * isolated: the partner could not delay the paced thread's start. */
void rtcosim_rt_classify_overrun(rtcosim_rt_overrun *ov, rtcosim_time_ns period, bool backlog,
                                 bool backlog_partner, bool partner_late, bool mixed,
                                 bool isolated);

#endif
