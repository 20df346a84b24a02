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

/* The inputs an LP takes from one producer component. Output k of a
 * component is its published output after k steps (0: at the start). Step n
 * of the consumer uses output n + shift (Gauss-Seidel: shift 1 for a producer
 * earlier in the order, which has already stepped), and a feedthrough
 * consumer's output n + 1 is read with inputs from output n + refresh_shift
 * (1 for an earlier producer in both orders: it has published by then). */
typedef struct spec_stream {
    size_t producer;
    unsigned shift, refresh_shift;
    size_t *conns;            /* connection indices from the producer into this LP */
    size_t width;             /* how many of them are Float64 (predicted); first in conns */
    size_t count;
    rtcosim_predictor *predictor; /* speculating LPs only */
    double *values;           /* width scratch */
    uint64_t arrived;         /* real outputs of the producer taken in */
} spec_stream;

/* A consumer of this LP's outputs: the lowest output it may still read is
 * its committed step + shift. */
typedef struct spec_consumer {
    size_t lp;
    unsigned shift;
} spec_consumer;

typedef struct spec_lp {
    size_t comp;
    bool speculate;
    const char *reason;
    spec_stream *streams;
    size_t stream_count;
    spec_consumer *consumers;
    size_t consumer_count;
    rtcosim_rollback_table *table;

    uint64_t executed;        /* next step to execute */
    bool stepped;             /* step `executed` taken, its outputs not yet read */
    /* Uncommitted steps allowed now (1 .. pending_cap): halved on a rollback,
     * raised by one on an arrival that kept all speculated steps, so that an
     * LP whose predictions keep failing (Tc = 0 on a smooth signal) wastes
     * one step per arrival instead of the whole horizon (AIMD, as optimism
     * throttling in Time Warp schedulers). */
    size_t ahead_limit;
    uint64_t committed;       /* steps below are final */
    atomic_uint_fast64_t committed_shared; /* committed, for producers' ring checks */
    atomic_uint_fast64_t published;        /* outputs 0 .. published-1 readable */

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
    double threshold;
    size_t horizon, order, window;
    rtcosim_time_ns t0, h;
    uint64_t total;           /* steps to run */
    /* Outputs to produce: total, lowered to n + 1 when a committed step n
     * requested termination (the plain master stops after that step). */
    atomic_uint_fast64_t end;
    unsigned threads;

    rtcosim_master_observer observer;
    void *context;
    bool observe_start;
    atomic_uint_fast64_t recorded; /* outputs handed to the observer */
    atomic_flag recording;
    double *observed;

    /* Progress notification: a generation counter, waiters sleep on cond. */
    atomic_uint_fast64_t generation;
    atomic_uint waiters;
    pthread_mutex_t lock;
    pthread_cond_t cond;

    atomic_bool failed;
    rtcosim_status status;    /* first failure, under lock */
    rtcosim_error error;
} spec_run;

#pragma GCC visibility push(hidden)
/* speculate_plan.c */
rtcosim_status spec_check_scope(rtcosim_master *m, rtcosim_error *err);
void spec_classify(rtcosim_master *m, size_t comp, bool *speculate, const char **reason);
rtcosim_status spec_run_setup(spec_run *run, rtcosim_master *m,
                              const rtcosim_speculation_options *o, rtcosim_error *err);
void spec_run_cleanup(spec_run *run);
#pragma GCC visibility pop

#endif
