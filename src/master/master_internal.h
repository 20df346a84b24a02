/* Internal structures of the co-simulation master shared by its files:
 * setup (master.c), dependency ordering (order.c), the per-step hot path
 * (step.c), the measured-cost scheduling (balance.c) and the worker pool
 * (pool.c). */
#ifndef RTCOSIM_MASTER_INTERNAL_H
#define RTCOSIM_MASTER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/fmu_clocks.h"
#include "rtcosim/master.h"

/* The variables of one component exchanged in one batched call per type. */
typedef struct typed_batch {
    uint32_t *vrs;
    unsigned char *values; /* n * rtcosim_type_size(type) bytes */
    size_t n, cap;
} typed_batch;

/* The master's own copies of a String or Binary batch's values (text.c), one
 * buffer per slot, which the batch's values point at; NULL until the first
 * exchange. Kept out of typed_batch, which the step's hot path walks. */
typedef struct owned_values {
    char **buf;
    size_t *cap;
} owned_values;

#define COST_SAMPLES 5 /* at most 5: balance.c takes medians of 5 */

typedef struct master_component {
    char *name;
    rtcosim_component *c;
    unsigned multiple;         /* 0: follows the adaptive step */
    bool variable;             /* steps with the adaptive macro step */
    bool can_vary;             /* capability can_handle_variable_step */
    int derivative_order;      /* input derivative order the component takes (0..2) */
    bool feedthrough;          /* some connected output depends on a connected input */
    rtcosim_time_ns step_start, next_time, h;
    typed_batch out[RTCOSIM_TYPE_COUNT_]; /* published: connected outputs + observed */
    typed_batch in[RTCOSIM_TYPE_COUNT_];  /* connected inputs */
    /* The types with a non-empty batch, so that the hot path skips the rest. */
    unsigned char out_types[RTCOSIM_TYPE_COUNT_], in_types[RTCOSIM_TYPE_COUNT_];
    unsigned out_type_count, in_type_count;
    /* in_types as a mask (bit t): the input types a step sets, so that it
     * also copies values into only those slots (an event-mode component's
     * other inputs wait for the input-event check, events.c, which compares
     * the slot with the producer's value) */
    unsigned in_type_mask;
    /* Event Mode (events.c): every input type, set in Event Mode; in_types
     * then keeps only Float64/Float32 for Step Mode, where FMI 3.0 section
     * 4.2.2 allows no discrete input to change. */
    unsigned char event_in_types[RTCOSIM_TYPE_COUNT_];
    unsigned event_in_type_count;
    double *d1, *d2;           /* FLOAT64 input derivatives, parallel to in[FLOAT64] */
    bool any_d1, any_d2;
    /* Takes input derivatives and has an input that is not held (ZOH): only
     * then can d1, d2 be non-zero. */
    bool polynomial_inputs;
    size_t *conns_in;          /* connection indices feeding this component */
    size_t conns_in_count;
    size_t *conns_out;         /* continuous connections from this component (sampled) */
    size_t conns_out_count;
    /* FMI 3.0 early return allowed (earlyReturnAllowed): steps before the
     * others in a tick (step.c); its snapshot for a rollback when another
     * component's early return cuts the tick short after it stepped. */
    bool returns_early;
    rtcosim_state rollback;
    /* Result of the last step (written by whichever thread stepped it). */
    rtcosim_status step_status;
    rtcosim_step_result step_result;
    rtcosim_error step_error;
    /* Measured-cost scheduling (balance.c): the raw time of the last sampled
     * step (written by the thread that stepped it, read after the hand-off),
     * its moving average, the thread of the current plan and the
     * Gauss-Seidel level (components of one level run in parallel). */
    int64_t sample_ns;
    double cost_ns;            /* the median of the last samples */
    double cost_samples[COST_SAMPLES];
    uint32_t samples;
    unsigned thread;
    unsigned level;
    /* String and Binary values (text.c): NULL until the first exchange;
     * out[0] / in[0] of the String batches, [1] of the Binary ones. A
     * pointer, so that the struct keeps its size and layout for the hot
     * fields of the components' array. */
    struct master_owned {
        owned_values out[2], in[2];
    } *owned;
} master_component;

#define HISTORY_LEN 3

typedef struct master_connection {
    char *name;                /* "a.y -> b.u" */
    size_t from, to;           /* component indices */
    size_t from_var, to_var;   /* variable indices */
    rtcosim_type type;
    bool continuous;           /* FLOAT64: extrapolated and corrected */
    bool zoh;                  /* continuous with zero-order hold: the estimate is the last sample */
    bool bonded;               /* part of a power bond */
    bool default_opts;
    bool quadratic;            /* error quadrature through three samples */
    rtcosim_coupling_options opts; /* opts.map_* point into map */
    int64_t *map;                  /* owned value map: from[0..n), to[0..n) */
    size_t out_slot, in_slot;  /* positions in the producer's out / consumer's in batch */
    /* The latest exchanged samples (transformed), the most recent last. */
    rtcosim_time_ns hist_t[HISTORY_LEN];
    double hist_y[HISTORY_LEN];
    size_t hist_n;
    /* Reconciliation of the true signal (trapezoid over exchanged samples)
     * with the estimates the consumer received, over common intervals. */
    rtcosim_time_ns recon_from, true_to, est_to;
    double true_integral, est_integral, applied_integral;
    /* What the consumer's current step added to the two latter (its share
     * past lastSuccessfulTime is taken back after an early return). */
    double step_est, step_applied;
    /* The last reconciled interval (for power bonds and the step controller). */
    rtcosim_time_ns last_from, last_to;
    double last_true, last_applied, last_est; /* integrals: true, applied, plain estimate */
    double last_scale;         /* largest |y| exchanged so far */
    uint64_t reconciled_ticks;  /* tick number of the last reconciliation */
    rtcosim_correction_state corr;
    rtcosim_coupling_stats stats;
    double error_sum_sq;
} master_connection;

typedef struct master_bond {
    size_t effort, flow;       /* connection indices */
    rtcosim_time_ns last_to;
    rtcosim_bond_stats stats;
} master_bond;

typedef struct master_start_value {
    size_t comp, var;
    rtcosim_value value;
    char *text;                /* keeps string values alive */
} master_start_value;

typedef struct master_feedthrough {
    size_t comp, output;
    size_t *inputs;
    size_t n;
} master_feedthrough;

typedef struct master_observed {
    int conn;                  /* >= 0: the error signal of this connection */
    size_t comp, var;
    size_t slot;               /* position in the component's out batch of its type */
    char *name;
    bool refused;              /* the FMU refuses to give it (an input): not in the batch */
} master_observed;

typedef struct master_pool master_pool;

#define HANDOFF_SAMPLES 5 /* at most 5: balance.c takes medians of 5 */

struct rtcosim_master {
    rtcosim_time_ns macro_step;
    rtcosim_order order;
    rtcosim_coupling_options defaults;
    rtcosim_step_control step_control;
    rtcosim_step_controller controller;
    double tolerance;
    unsigned threads;

    master_component *comps;
    size_t comp_count, comp_cap;
    master_connection *conns;
    size_t conn_count, conn_cap;
    master_bond *bonds;
    size_t bond_count, bond_cap;
    master_start_value *starts;
    size_t start_count, start_cap;
    master_feedthrough *feeds;
    size_t feed_count, feed_cap;
    master_observed *observed;
    size_t observed_count, observed_cap;
    /* String and Binary variables observed: not sampled by the master (its
     * values are doubles); the caller reads them (rtcosim_master_text_observed). */
    struct master_text_observed { size_t comp, var; char *name; } *text_observed;
    size_t text_observed_count, text_observed_cap;
    bool observe_explicit;
    double *observed_values;

    size_t *order_list;        /* component indices in dependency order */
    size_t *active;            /* scratch: components stepping in this tick */
    size_t active_count;
    /* Every component steps every base macro step (fixed step, multiple 1):
     * each tick then steps all of them by H, in order_list order, and the
     * general multi-rate planning is skipped. */
    bool single_rate;

    bool initialized, failed, terminate_requested;
    bool order_planned; /* rtcosim_master_plan_order before initialize */
    /* Who asked to end the run; a discarded step (with the request) ends it
     * at the start of its tick, which is then neither published nor recorded. */
    const master_component *terminated_by;
    bool discarded;
    rtcosim_time_ns start, stop, time;
    rtcosim_time_ns adaptive_step;  /* the controller's current choice */
    double step_mean;               /* moving mean of the adaptive steps, s (step.c) */
    rtcosim_time_ns step_grid;      /* adaptive steps end on start + k step_grid (0: none) */
    rtcosim_time_ns min_tick, max_tick; /* smallest, largest tick taken (0: none yet) */
    uint64_t steps;
    master_pool *pool;

    /* Measured-cost scheduling (balance.c). */
    bool threads_auto;         /* threads = the CPUs available, resolved at initialize */
    bool thread_fallback;      /* fewer threads when the measured costs say so */
    bool idle_workers;         /* pool workers run SCHED_IDLE */
    bool strict_ranges;        /* start values outside min/max refused */
    bool sched;                /* costs are measured and components planned (a pool exists) */
    bool parallel;             /* the current plan uses the pool */
    bool planned;              /* a plan from measured costs exists */
    unsigned threads_used;
    rtcosim_master_cost_clock cost_clock;
    void *cost_clock_context;
    uint64_t last_sampled_tick, sampled_ticks, last_parallel_tick, parallel_ticks, rebalances;
    double handoff_samples[HANDOFF_SAMPLES]; /* the last measured hand-offs (ring) */
    uint64_t handoff_count;
    uint64_t retry_tick, retry_interval, parallel_since; /* retrying after a fallback */
    uint64_t probe_until;      /* every tick up to this one is measured */
    double work_ns, span_ns;   /* of the current plan */
    double parallel_best_ns;   /* the last plan's best predicted step on more threads */
    double handoff_used_ns;    /* and the hand-off it assumed */
    size_t *sort_scratch;      /* comp_count: LPT order */
    double *load_scratch;      /* threads: LPT loads */
    unsigned *thread_scratch;  /* comp_count: a candidate assignment */
    int64_t group_end_ns;      /* real time the last parallel group ended (the workers' wait hint) */

    size_t *publish_list;      /* scratch (comp_count): Jacobi's components publishing in a tick */
    /* FMI 3.0 early return (step.c): the components allowed to return early
     * (0: the plain tick), per tick those stepped first and the others
     * (scratch, comp_count each), and the early returns so far. */
    size_t returner_count;
    size_t *returned, *rest;
    size_t returned_count, rest_count;
    uint64_t early_returns;
    /* FMI 3.0 Event Mode (events.c): some component uses it; steps end at
     * the next announced event time (-1: none) when every component can
     * vary its step; event iterations so far; the iteration's marks and
     * lists (events.c, allocated at init); the observer of
     * rtcosim_master_run, for the row before an event. */
    bool events, event_shorten;
    rtcosim_time_ns next_event;
    uint64_t event_count;
    struct master_event_state *ev;
    rtcosim_master_observer observer;
    void *observer_context;
    /* --distribute: the outputs of the proxies across ranks, NULL in one process. */
    struct master_exchange *xchg;
    /* Binary and Clock connections (events_links.c), NULL without any. */
    struct master_links *links;
};

/* The input of continuous connection k into consumer mc over a step of hs
 * seconds from the estimate p plus a constant correction (-0.0 for none, the
 * additive identity): the polynomial itself for a component that takes both
 * input derivatives, the line with its integral and end-to-end slope for one
 * that takes the first, else one value per step (rtcosim_step_input: the
 * step's mean or the start value). Returns the integral of what the consumer
 * receives, for the error signal. step.c and speculate.c both use it, so
 * that a speculative run computes the plain run's inputs bit for bit. */
static inline double master_poly_input(master_component *mc, const master_connection *k,
                                       const rtcosim_poly *p, double hs, double correction)
{
    double *in = (double *)mc->in[RTCOSIM_TYPE_FLOAT64].values;
    const size_t s = k->in_slot;
    if (mc->derivative_order >= 2) {
        in[s] = p->c[0] + correction;
        mc->d1[s] = p->c[1];
        mc->d2[s] = 2.0 * p->c[2];
        return rtcosim_poly_integral(p, hs);
    }
    if (mc->derivative_order == 1) {
        in[s] = p->c[0] + correction - p->c[2] * hs * hs / 6.0;
        mc->d1[s] = p->c[1] + p->c[2] * hs;
        return rtcosim_poly_integral(p, hs);
    }
    const double held =
        k->opts.step_input == RTCOSIM_STEP_INPUT_START ? p->c[0] : rtcosim_poly_mean(p, hs);
    in[s] = held + correction;
    return hs * held;
}

/* The functions below are internal to the library: hidden, so that calls
 * between the master's files do not go through the PLT on the hot path. */
#pragma GCC visibility push(hidden)

/* master.c: helpers shared with init.c. */
bool master_grow(void **array, size_t *cap, size_t need, size_t elem);
/* String and Binary connections (text.c): whether a type's values are
 * copied into the master's own buffers; copy every value a get put in
 * component mc's out batch of that type there; give slot `slot` of mc's in
 * batch the value at src (1 when it changed, 0 when equal by content, -1 out
 * of memory); free a component's copies. */
static inline bool master_type_owned(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY;
}
rtcosim_status master_text_keep_all(master_component *mc, rtcosim_type type, rtcosim_error *err);
int master_text_deliver(master_component *mc, rtcosim_type type, size_t slot,
                        const unsigned char *src);
void master_text_free(master_component *mc);
rtcosim_status master_oom(rtcosim_error *err);
/* names.c: the component named by name[0..len), or -1. */
int master_find_component(const rtcosim_master *m, const char *name, size_t len);
/* names.c: the dot that ends the component part of "comp.var" (*ci the
 * component or -1), and a name resolved to component and variable indices
 * (errors start with `what`). */
const char *master_split_name(const rtcosim_master *m, const char *text, int *ci);
rtcosim_status master_resolve(const rtcosim_master *m, const char *what, const char *text,
                              size_t *comp, size_t *var, rtcosim_error *err);
rtcosim_status master_after_init(const rtcosim_master *m, const char *call, rtcosim_error *err);
const rtcosim_variable *master_var_of(const rtcosim_master *m, size_t comp, size_t var);
rtcosim_status master_add_observed(rtcosim_master *m, size_t comp, size_t var, rtcosim_error *err);
rtcosim_status master_add_text_observed(rtcosim_master *m, size_t comp, size_t var,
                                        rtcosim_error *err);

/* order.c: dependency order and algebraic loop detection. */
bool master_depends(const rtcosim_master *m, size_t comp, size_t output, size_t input);
rtcosim_status master_resolve_order(rtcosim_master *m, rtcosim_error *err);

/* Gauss-Seidel levels: reorders order_list, stably, by level (components
 * with no data between them within a step commute) and sets mc->level. */
void master_gs_levels(rtcosim_master *m);

/* step.c: publication, inputs and one tick. */
rtcosim_status master_publish_at(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                 rtcosim_error *err);
/* The parts of a publication: before the read (a feedthrough component's
 * inputs refreshed to their values at t) and after (the samples taken). */
rtcosim_status master_publish_prepare(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                      rtcosim_error *err);
void master_publish_samples(rtcosim_master *m, size_t comp, rtcosim_time_ns t);
rtcosim_status master_tick(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err);
/* A tick in which every component steps h from m->time (single-rate runs). */
rtcosim_status master_single_rate_tick(rtcosim_master *m, rtcosim_time_ns h, rtcosim_error *err);

/* events.c: Event Mode in a system. At initialize (after the first
 * publication): whether any component uses it, the checks, the first
 * iteration. A tick of such a system, and the event iteration at t. */
rtcosim_status master_events_init(rtcosim_master *m, rtcosim_error *err);
rtcosim_status master_event_tick(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err);
rtcosim_status master_event_iteration(rtcosim_master *m, rtcosim_time_ns t, rtcosim_error *err);
void master_events_free(rtcosim_master *m);
/* Marks component comp for the next round of the event iteration at t:
 * it enters Event Mode now if it is not in it (so that inputs and clocks can
 * be set), its inputs are set and it updates in the next round. */
rtcosim_status master_event_mark(rtcosim_master *m, size_t comp, rtcosim_error *err);
void master_step_component(master_component *mc);
/* events_links.c: Binary and Clock connections, kept apart from the step's
 * connections and passed only in the event iteration. connect: checked and
 * added (what: "connection a.y -> b.u"); init: at the first iteration;
 * exchange: in a round, before the components updated[0..n) update their
 * discrete states (FMI 3.0's order: fmi3UpdateDiscreteStates deactivates
 * clocks), their connected output clocks (read once) and the countdown
 * clocks due, the ticked clocks and the Binary values they clock to their
 * consumers (master_event_mark, *changed set); after_update: their unclocked
 * Binary outputs, output clocks the update ticked (passed at once) and
 * countdown intervals. The work is proportional to what those components
 * drive, not to all links. */
typedef struct master_links master_links;
rtcosim_status master_links_connect(rtcosim_master *m, const char *what, size_t fc, size_t fv,
                                    size_t tc, size_t tv, rtcosim_error *err);
rtcosim_status master_links_init(rtcosim_master *m, rtcosim_error *err);
rtcosim_status master_links_exchange(rtcosim_master *m, rtcosim_time_ns t, const size_t *updated,
                                     size_t n, bool *changed, rtcosim_error *err);
rtcosim_status master_links_after_update(rtcosim_master *m, rtcosim_time_ns t,
                                         const size_t *updated, size_t n, bool *changed,
                                         rtcosim_error *err);
/* next (-1: none) or an earlier tick of an input countdown clock after now. */
rtcosim_time_ns master_links_next_event(const rtcosim_master *m, rtcosim_time_ns next,
                                        rtcosim_time_ns now);
void master_links_free(rtcosim_master *m);
/* A component's FMI 3.0 clocks, in process or isolated (NULL: none). */
const rtcosim_fmu_clocks *master_clocks_of(const rtcosim_component *c);
/* A component's step asked to end the run (discarded: at the start of the
 * tick): step_outcome's rule, also applied by the distributed exchange. */
void master_step_ended(rtcosim_master *m, const master_component *mc, bool discarded);

/* balance.c: steps the components list[0..n) (their inputs set, no data
 * between them within the step): sequentially, or across the pool's threads
 * by the measured-cost plan; measures costs on sampled ticks and re-plans. */
void master_run_group(rtcosim_master *m, const size_t *list, size_t n);
/* One step of mc on the calling thread, timed with the cost clock if sample. */
void master_step_sampled(const rtcosim_master *m, master_component *mc, bool sample);
/* At initialize: resolves the thread count, starts the pool, allocates. */
rtcosim_status master_sched_init(rtcosim_master *m, rtcosim_error *err);
void master_sched_free(rtcosim_master *m);

/* pool.c: persistent worker threads with a spin-then-futex hand-off. */
rtcosim_status master_pool_create(rtcosim_master *m, unsigned threads, master_pool **out,
                                  rtcosim_error *err);
/* Queues component comp for thread t (0: the caller) in the next run. */
void master_pool_assign(master_pool *pool, unsigned t, size_t comp);
/* Runs the queued components, thread 0's on the caller, and returns when
 * every thread is done. wait_hint_ns: the caller's expected wait for the
 * others after its own share (from measured costs), worker_hint_ns: the
 * workers' expected wait for the next run (0: unknown). */
void master_pool_run(master_pool *pool, bool sample, int64_t wait_hint_ns, int64_t worker_hint_ns);
uint64_t master_pool_sleeps(const master_pool *pool);
void master_pool_free(master_pool *pool);

#pragma GCC visibility pop

/* distribute_exchange.c: with proxies of --distribute among the components,
 * the plan of which outputs cross to which rank (m->xchg), made at
 * initialize; without, nothing. */
rtcosim_status master_exchange_create(rtcosim_master *m, rtcosim_error *err);
/* Refuses what cannot run over ranks (String, Binary connections), before any call. */
rtcosim_status master_exchange_check(const rtcosim_master *m, rtcosim_error *err);
void master_exchange_free(rtcosim_master *m);
/* Jacobi: list[0..n) publish at t with one collective of the values that
 * cross ranks. Gauss-Seidel (one component): its owner sends its values to
 * the ranks reading them, which receive them. Both report a component's
 * failure naming it and its rank. */
rtcosim_status master_exchange_publish(rtcosim_master *m, const size_t *list, size_t n,
                                       rtcosim_time_ns t, rtcosim_error *err);
rtcosim_status master_exchange_publish_one(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                           rtcosim_error *err);

/* Apply the connection's value map (if any) to the discrete value at dst. */
void master_map_value(const master_connection *k, unsigned char *dst);

#endif
