/* Internal structures of the master's speculative run, shared by its setup
 * (speculate_plan.c: which component speculates, its input streams and
 * buffers) and its execution (speculate.c: the LPs on worker threads). */
#ifndef RTCOSIM_MASTER_SPECULATE_INTERNAL_H
#define RTCOSIM_MASTER_SPECULATE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "master/master_internal.h"
#include "rtcosim/master_speculate.h"
#include "rtcosim/speculate.h"

/* The inputs an LP takes from one producer component. Output q of a
 * component is its published output after q steps (0: at the start); a
 * component with step multiple M steps M H. Which producer output the
 * consumer's step k reads is what the plain master's history holds then
 * (step.c): see spec_input_index and spec_refresh_index below. */
typedef struct spec_stream {
    size_t producer;
    bool earlier;             /* producer before the consumer in the step order */
    bool gauss_seidel;
    uint64_t consumer_multiple, producer_multiple;
    size_t *conns;            /* connection indices from the producer into this LP */
    size_t width;             /* how many of them are Float64 (predicted); first in conns */
    size_t count;
    rtcosim_predictor *predictor; /* speculating LPs only */
    double *values;           /* width scratch */
    uint64_t arrived;         /* real outputs of the producer taken in */
} spec_stream;

/* A consumer of this LP's outputs (its stream from this LP). */
typedef struct spec_consumer {
    size_t lp, stream;
} spec_consumer;

typedef struct spec_lp {
    size_t comp;
    bool speculate;
    const char *reason;
    spec_stream *streams;
    size_t stream_count;
    spec_consumer *consumers;
    size_t consumer_count;
    unsigned thread;          /* the owner thread (comp mod threads) */
    rtcosim_rollback_table *table;

    uint64_t multiple;        /* steps multiple * H */
    rtcosim_time_ns step;
    uint64_t total;           /* steps to the stop time */
    /* The observer's next output of this LP: outputs below it are released. */
    atomic_uint_fast64_t record_need;
    uint64_t executed;        /* next step to execute */
    /* A step that was discarded with a termination request on predicted
     * inputs or after uncommitted steps: it runs again only when final. */
    uint64_t final_only_step;
    bool stepped;             /* step `executed` taken, its outputs not yet read */
    /* Uncommitted steps allowed now for a step on predicted inputs
     * (0 .. pending_cap; a step on real inputs may always run): halved on a
     * rollback, raised by one on an arrival that kept all speculated steps
     * (AIMD, as optimism throttling in Time Warp schedulers). At 0 the LP
     * runs conservatively and probes again with one speculated step after
     * probe_wait arrivals, a wait doubled by each failed probe up to
     * PROBE_WAIT_MAX: an LP whose predictions keep failing (Tc = 0 on a
     * smooth signal) then wastes a step now and then instead of one per
     * arrival, which a step rolled back in flight would also make its
     * producers wait for. */
    size_t ahead_limit;
    uint32_t probe_wait, probe_backoff;
    /* Held by the thread working on the LP: its owner, or another thread
     * that takes in its producers' outputs and commits for it while the
     * owner waits (try-lock only, so nobody blocks on it). */
    atomic_flag busy;
    /* A rollback decided while absorbing whose state restore is left to the
     * owner thread (components are called from their owner thread only):
     * the step to restore, UINT64_MAX none. */
    uint64_t restore_to;
    /* The step being computed with the lock let go (lp_step_unlocked), not
     * committed before it is done; UINT64_MAX none. */
    uint64_t in_flight;
    uint64_t committed;       /* steps below are final */
    atomic_uint_fast64_t committed_shared; /* committed, for producers' ring checks */
    atomic_uint_fast64_t published;        /* outputs 0 .. published-1 readable */
    /* Steps whose termination request is final: taken with real inputs
     * (conservative LPs, as soon as stepped) or committed. */
    atomic_uint_fast64_t decided;

    /* Out batch snapshots: the published ring (ring_cap, indexed by output
     * number) and the outputs of executed, uncommitted steps (pending_cap,
     * indexed by step). */
    size_t out_bytes;
    size_t out_offset[RTCOSIM_TYPE_COUNT_];
    unsigned char *ring, *pending;
    size_t ring_cap, pending_cap;
    bool *pending_terminate;  /* the step asked the master to stop */

    rtcosim_speculation_stats stats;
    double error_sum_sq;
} spec_lp;

typedef struct spec_run {
    rtcosim_master *m;
    spec_lp *lps;
    size_t lp_count;
    double threshold, correction_capacity;
    size_t horizon, order, window;
    rtcosim_time_ns t0, h;
    rtcosim_time_ns stop;
    /* The start of the last macro step (tick) to run: a committed step
     * starting at t that requested termination lowers it to t (the plain
     * master finishes that tick, then stops). RTCOSIM_TIME_MAX: none. */
    atomic_int_fast64_t end_start;
    /* A step from t that was discarded with a termination request, final
     * (real inputs, every earlier step committed), ends the run at t: that
     * tick is neither published nor shown (FMI 2.0 4.2.3, FMI 3.0 4.2.1; the
     * plain master since the same change). RTCOSIM_TIME_MAX: none. */
    atomic_int_fast64_t end_at;
    unsigned threads;

    rtcosim_master_observer observer;
    void *context;
    /* Rows handed to the observer: the last one's time (written under the
     * flag, read by anyone) and their count. */
    atomic_int_fast64_t row_time;
    atomic_uint_fast64_t rows;
    atomic_flag recording;
    double *observed;

    /* Progress notification: a generation counter that waiters spin on and
     * then sleep on as a futex (util/spin_wait.h). */
    _Atomic uint32_t generation;
    _Atomic uint32_t sleepers;
    _Atomic int64_t changed_at; /* when generation changed with a sleeper */
    pthread_mutex_t lock;       /* the first failure */

    atomic_bool failed;
    rtcosim_status status;    /* first failure, under lock */
    rtcosim_error error;
} spec_run;

/* Producer output that the consumer's step k reads, as the plain master's
 * history holds it when the step's inputs are computed: Jacobi, the latest
 * output at or before the step start; Gauss-Seidel, an earlier producer has
 * already taken its step from that time (one output further), a later one
 * has not. Single rate: k, or k + 1 for an earlier producer in Gauss-Seidel. */
static inline uint64_t spec_input_index(const spec_stream *s, uint64_t k)
{
    const uint64_t a = k * s->consumer_multiple, p = s->producer_multiple;
    if (!s->gauss_seidel)
        return a / p;
    return s->earlier ? a / p + 1 : (a + p - 1) / p;
}

/* Producer output a feedthrough consumer's output k + 1 is read with (step.c
 * refreshes the inputs before publishing): Gauss-Seidel publishes right after
 * the step, with the step's inputs; Jacobi publishes at the end of the tick,
 * after the earlier producers published theirs. */
static inline uint64_t spec_refresh_index(const spec_stream *s, uint64_t k)
{
    if (s->gauss_seidel)
        return spec_input_index(s, k);
    const uint64_t b = (k + 1) * s->consumer_multiple, p = s->producer_multiple;
    return s->earlier ? b / p : (b + p - 1) / p - 1;
}

/* The first consumer step that reads producer output q or a later one. */
static inline uint64_t spec_first_step(const spec_stream *s, uint64_t q)
{
    const uint64_t c = s->consumer_multiple, p = s->producer_multiple;
    if (!s->gauss_seidel)
        return (q * p + c - 1) / c;
    if (q == 0)
        return 0;
    return s->earlier ? ((q - 1) * p + c - 1) / c : (q - 1) * p / c + 1;
}

static inline unsigned char *spec_ring_slot(const spec_lp *lp, uint64_t output)
{
    return lp->ring + (size_t)(output % lp->ring_cap) * lp->out_bytes;
}

#pragma GCC visibility push(hidden)
/* speculate_plan.c */
rtcosim_status spec_check_scope(rtcosim_master *m, rtcosim_error *err);
void spec_classify(rtcosim_master *m, size_t comp, bool *speculate, const char **reason);
rtcosim_status spec_run_setup(spec_run *run, rtcosim_master *m,
                              const rtcosim_speculation_options *o, rtcosim_error *err);
void spec_run_cleanup(spec_run *run);

/* speculate_inputs.c */
double spec_sample_at(const spec_run *run, const master_connection *k, uint64_t output);
void spec_copy_raw_at(const spec_run *run, const master_connection *k, uint64_t output);
size_t spec_history_at(const spec_run *run, const spec_stream *st, size_t slot, uint64_t j,
                       rtcosim_time_ns *ts, double *ys);
void spec_poly_input(master_component *mc, const master_connection *k, const spec_stream *st,
                     const rtcosim_time_ns *ts, const double *ys, size_t n, rtcosim_time_ns t,
                     double hs);
rtcosim_status spec_set_inputs(master_component *mc, rtcosim_error *err);
rtcosim_status spec_set_step_inputs(master_component *mc, rtcosim_error *err);
#pragma GCC visibility pop

/* speculate_record.c: the run's end time, an LP's last step before it, and
 * the observer fed with every committed row that is complete. */
rtcosim_time_ns spec_end_time(const spec_run *run);
uint64_t spec_lp_end(const spec_run *run, const spec_lp *lp);
void spec_try_record(spec_run *run);
/* speculate.c: wake the waiting threads; fail the run with err (first wins). */
void spec_run_notify(spec_run *run);
void spec_run_fail(spec_run *run, const rtcosim_error *err);

#endif
