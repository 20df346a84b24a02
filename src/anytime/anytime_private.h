/* The anytime runner's object layout and the functions its files share
 * (set, variant, start, period, records) and nothing else: users see only
 * the opaque handle. */
#ifndef RTCOSIM_ANYTIME_PRIVATE_H
#define RTCOSIM_ANYTIME_PRIVATE_H

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "anytime/anytime_internal.h"

struct rtcosim_anytime_ctx {
    rtcosim_anytime *set;
    size_t index;
    rtcosim_time_ns abort_at; /* written before the job is published */
    atomic_bool cancel;       /* set by the runner to abandon the job */
    /* the job's clock reads in rtcosim_anytime_should_abort: the last one
     * and the longest time between two (from the job's start) */
    rtcosim_time_ns last_check_at, check_gap_ns;
};

typedef struct variant {
    char name[64];
    size_t index;
    int rank;
    rtcosim_time_ns step_ns;
    rtcosim_anytime_solver solver;
    rtcosim_anytime *set;
    /* native */
    rtcosim_anytime_fn fn;
    void *user;
    /* component */
    rtcosim_component *component;
    uint32_t *input_vrs, *output_vrs;
    rtcosim_state snapshot; /* reused by get_state when this one is delivered */
    rtcosim_state loaded;   /* reused by deserialize (in place) to load the committed state */
    bool needs_sync;        /* must load the committed state before running */
    uint8_t *sync_bytes;    /* the committed state copied at dispatch */
    size_t sync_size;
    /* the job: scratch copies owned by whoever runs it */
    void *state;
    double *inputs, *outputs;
    rtcosim_time_ns job_t, job_h;
    rtcosim_anytime_ctx ctx;
    rtcosim_status status;
    rtcosim_error err;
    rtcosim_time_ns dispatched_at; /* by the runner */
    rtcosim_time_ns started_at, finished_at, exec_ns; /* by whoever runs the job */
    rtcosim_anytime_outcome outcome;
    /* worker thread */
    bool worker_started, go_ready;
    int run_policy;              /* the worker's scheduling while it runs a job */
    struct sched_param run_param;
    bool demoted;                /* moved to SCHED_OTHER while abandoned */
    pthread_t thread;
    sem_t go;
    atomic_bool running, quit;
    /* statistics */
    anytime_stats stats;
    uint64_t runs, completed, aborted, abandoned, failed, delivered;
    uint64_t last_run_period; /* period index of the last start */
} variant;

struct rtcosim_anytime {
    rtcosim_anytime_config cfg;
    char name[64];
    char **output_names;
    rtcosim_clock *clock;
    variant variants[RTCOSIM_ANYTIME_MAX_VARIANTS];
    size_t variant_count;
    bool started, running, done_ready;
    pthread_t runner; /* the thread that ran the last period */
    bool has_runner;
    sem_t done; /* posted by workers when a job finishes */
    /* committed result */
    void *state;
    double *outputs, *inputs;
    uint8_t *committed_bytes; /* components: the delivered one's serialized state */
    size_t committed_size, committed_capacity;
    /* schedule */
    rtcosim_time_ns release, period_ns, sim_time;
    _Atomic rtcosim_time_ns pending_period_ns;
    double minimal_calibrated_ns; /* worst calibration time, fixed at start */
    double idle_reserve;          /* share of the period kept idle, resolved at start */
    /* Wall time the delivering thread spent deliberately blocked this period
     * (waiting for workers, up to the time it meant to wake), for the stall
     * measure. */
    rtcosim_time_ns blocked_ns;
    /* the thread CPU time charged inside those waits (anytime_stalled_ns) */
    rtcosim_time_ns wait_cpu_ns;
    /* the longest time between two clock reads of the delivering thread's
     * abort checks (inline variants) and polls this period */
    rtcosim_time_ns check_gap_ns;
    /* wake-up lateness measured at start, and the lead of the timed waits */
    rtcosim_time_ns wakeup_p50_ns, wakeup_p99_ns, wakeup_max_ns, wakeup_lead_ns;
    /* repair (config repair): the previous period's starting state and
     * inputs, kept while its delivery was coarser than another variant */
    void *repair_state;
    double *repair_inputs;
    rtcosim_time_ns repair_t, repair_h;
    int repair_below_rank; /* pending: repair with a variant ranked above this */
    bool repair_pending;
    uint64_t repairs, repairs_aborted;
    /* timer strategy learning */
    rtcosim_time_ns learned_abort_ns;
    rtcosim_time_ns abort_floor_ns[RTCOSIM_ANYTIME_MAX_VARIANTS];
    uint64_t periods_since_abort;
    /* records and summary */
    uint64_t periods, misses, late_starts, misses_stalled, misses_strategy;
    double margin_min, margin_max, margin_sum;
    rtcosim_anytime_period *records;
    double *record_outputs;
    size_t record_next, record_len;
};

/* No abort time: run to completion. */
#define NEVER RTCOSIM_TIME_MAX

static inline double anytime_us(double ns)
{
    return ns / 1e3;
}

void variant_release(variant *v);

/* Running one variant (variant.c). prepare: copy the inputs and the committed
 * state into v's job, to be aborted at abort_at; dispatch: hand the job to
 * v's worker; wait_for: until the workers in mask are done or `until`;
 * conclude: classify v's job (completed, aborted, abandoned, failed); run:
 * all of these, inline when v has no worker; busy: v's worker has not
 * returned from an abandoned job. start_workers: one worker per variant
 * that needs one. */
void anytime_variant_prepare(variant *v, const double *inputs, rtcosim_time_ns abort_at);
/* prepare's general form: the job starts from `state` (native variants) at
 * simulation time t over h. */
void anytime_variant_prepare_job(variant *v, const void *state, const double *inputs,
                                 rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_time_ns abort_at);
void anytime_variant_dispatch(variant *v);
void anytime_wait_for(rtcosim_anytime *set, unsigned mask, rtcosim_time_ns until);
/* Wait for the single job on v's worker by polling (see variant.c). */
void anytime_poll_for(variant *v, rtcosim_time_ns until);
void anytime_variant_conclude(variant *v);
void anytime_variant_run(variant *v, const double *inputs, rtcosim_time_ns abort_at);
/* run with prepare_job's arguments. */
void anytime_variant_run_job(variant *v, const void *state, const double *inputs,
                             rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_time_ns abort_at);
bool anytime_variant_busy(variant *v);
rtcosim_status anytime_start_workers(rtcosim_anytime *set, rtcosim_error *err);
/* Give each idle worker the scheduling the calling thread's current policy
 * implies (see variant.c); called when another thread than before runs a
 * period (a paced thread after the start on the main one). */
void anytime_workers_follow_caller(rtcosim_anytime *set);
/* The idle reserve for the calling thread's policy (start.c). */
double anytime_derived_idle_reserve(void);
/* Stop and join the workers (waiting for an abandoned job to return); the
 * set then runs no more periods but its records and summary stay. */
void anytime_stop_workers(rtcosim_anytime *set);
/* Count a finished period in the summary and keep it in the ring. */
void record_period(rtcosim_anytime *set, const rtcosim_anytime_period *rec);

#endif
