/* Speculative execution building blocks shared by the event kernel and the
 * co-simulation master: a linear predictor per input stream that also runs the
 * partial-rollback scheme (rollback point n+m, distributed correction), and a
 * rollback table per logical process (LP). Neither allocates per observation
 * or per step: every buffer is sized at create. Not thread-safe: one object
 * belongs to one LP at a time.
 *
 * Notation (shared/notes/speculation-scheme.md): x[k] is the k-th event of one
 * input stream (a vector of `width` doubles and a time in ns); x~ is the
 * prediction the LP used (the "previous, corrected" curve), x~' the new
 * prediction made after the real x[n] arrived, x~'' the corrected curve. */
#ifndef RTCOSIM_SPECULATE_H
#define RTCOSIM_SPECULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Predictor: linear prediction of one event stream.
 *
 * Each value component, and the stream's inter-arrival intervals t[k]-t[k-1],
 * is predicted on its own by x~[n+1] = sum_{i=0..N-1} w_i x[n-i] with w the
 * least-squares solution w = (HᵀH)⁻¹ Hᵀ x over the last M equations
 * (x = [x[n] .. x[n-M+1]]ᵀ, row r of H = the N values preceding x[n-r]).
 * x~[n+k] follows by iterating the recurrence on its own predictions.
 * Intervals rather than absolute times are predicted: a periodic stream has
 * a constant interval, which every method below reproduces exactly, and the
 * predicted interval is rounded to whole ns and summed onto the last real time.
 *
 * Method per component, chosen at every observation:
 *  - RTCOSIM_PREDICT_LS of order N when M equations are available (at least
 *    M + N observations) and HᵀH is well conditioned: Cholesky of the
 *    diagonally scaled HᵀH with every pivot above `min_pivot`. When it is
 *    singular or ill-conditioned (a constant, a ramp, a pure sine have exact
 *    recurrences of order 1, 2, 2), orders N-1 .. 1 are tried over the same
 *    window, and the first well-conditioned one is used. The default bound
 *    1e-13 sits between the rounding level that an exact lower-order
 *    recurrence leaves (~1e-16) and the pivots of smooth signals sampled
 *    finely (a coupled oscillator at 1 ms: ~1e-12 at order 3), which predict
 *    far better at the higher order than at the reduced one;
 *  - RTCOSIM_PREDICT_FOH (x~[n+k] = x[n] + k (x[n] - x[n-1])) when the window
 *    is not yet full or no order is well conditioned, and two values exist;
 *  - RTCOSIM_PREDICT_ZOH (x~[n+k] = x[n]) with one value;
 *  - RTCOSIM_PREDICT_NONE before the first observation (no curve).
 * -------------------------------------------------------------------------*/

#define RTCOSIM_PREDICTOR_MAX_ORDER 16

typedef enum rtcosim_prediction_method {
    RTCOSIM_PREDICT_NONE = 0,
    RTCOSIM_PREDICT_ZOH,
    RTCOSIM_PREDICT_FOH,
    RTCOSIM_PREDICT_LS
} rtcosim_prediction_method;

const char *rtcosim_prediction_method_name(rtcosim_prediction_method m); /* "none","zoh","foh","ls" */

/* Zero in a field selects its default. */
typedef struct rtcosim_predictor_config {
    size_t width;   /* values per event, >= 1 (no default) */
    size_t order;   /* N, 1..RTCOSIM_PREDICTOR_MAX_ORDER; default 3 */
    size_t window;  /* M, least-squares equations, >= order; default 16 */
    size_t horizon; /* H, events predicted ahead and kept in the curve, >= 1; default 64 */
    /* Error magnitude of one event (see the scheme): sum_j |e_j| / value_scale[j]
     * + |e_t| / time_scale_ns. value_scale: width entries > 0, or NULL for all 1;
     * time_scale_ns > 0, default 1e9 (time errors counted in seconds). */
    const double *value_scale;
    double time_scale_ns;
    double min_pivot;                 /* conditioning bound on the scaled pivots, default 1e-13 */
    rtcosim_time_ns nominal_interval_ns; /* interval assumed before two times are known; default 0 */
    /* Least-squares coefficients are fitted again after this many
     * observations and reused in between (the window still slides: each
     * prediction iterates them on the newest samples); default 1, every
     * observation. A window holding one value throughout predicts it
     * exactly (order 1, w = 1) without a fit. */
    size_t refit_interval;
    /* Distributed correction (step 4 of the scheme below): 0 (default) the
     * mirrored spread over the m steps after the rollback point; T > 0 the
     * capacity spread, at most T (in the error magnitude's units) per step
     * over as many steps as |E| / T needs, then the rest. Negative, NaN or
     * infinite: EINVAL. */
    double correction_capacity;
} rtcosim_predictor_config;

typedef struct rtcosim_predictor rtcosim_predictor; /* opaque */

/* EINVAL with a message naming the field for a bad config; ENOMEM. */
rtcosim_status rtcosim_predictor_create(const rtcosim_predictor_config *config,
                                        rtcosim_predictor **out, rtcosim_error *err);
void rtcosim_predictor_free(rtcosim_predictor *p); /* NULL is a no-op */
/* Forget all observations and the curve (as after create). */
void rtcosim_predictor_reset(rtcosim_predictor *p);

size_t rtcosim_predictor_width(const rtcosim_predictor *p);
size_t rtcosim_predictor_horizon(const rtcosim_predictor *p);
/* Number of real observations so far = the index n the next one will get. */
uint64_t rtcosim_predictor_observations(const rtcosim_predictor *p);

/* Record the real event x[n] (n = rtcosim_predictor_observations) without the
 * scheme and re-predict: the curve becomes x~'[n+1 .. n+H]. values: width
 * doubles. EINVAL when t is earlier than the previous event's time. */
rtcosim_status rtcosim_predictor_observe(rtcosim_predictor *p, rtcosim_time_ns t,
                                         const double *values, rtcosim_error *err);

/* Record x[n] like rtcosim_predictor_observe but without predicting: the
 * curve is empty until the next observe (to replay a history cheaply). */
rtcosim_status rtcosim_predictor_record(rtcosim_predictor *p, rtcosim_time_ns t,
                                        const double *values, rtcosim_error *err);

/* The current curve (the previous, corrected prediction): values of event
 * `index` (width doubles, valid until the next observe/arrive/reset), or NULL
 * when index is outside [observations, observations + H - 1]. */
const double *rtcosim_predictor_values_at(const rtcosim_predictor *p, uint64_t index);
/* Predicted time of event `index`; false (and *t untouched) when outside the curve. */
bool rtcosim_predictor_time_at(const rtcosim_predictor *p, uint64_t index, rtcosim_time_ns *t);

/* Method and order used for the last prediction of value component `component`
 * (< width), or of the interval stream when component == width. order may be NULL;
 * it is 0 for NONE/ZOH/FOH. */
rtcosim_prediction_method rtcosim_predictor_method(const rtcosim_predictor *p, size_t component,
                                                   size_t *order);

/* ---------------------------------------------------------------------------
 * The scheme, run on the arrival of the real x[n] (rtcosim_predictor_arrive).
 *
 * The LP executed steps n .. n+s-1 (s = `speculated`) with the inputs of the
 * current curve x~. Then:
 *  1. e[n] = x~[n] - x[n]; x[n] is recorded; the new prediction x~'[n+1..n+H]
 *     is made; e~[n+k] = x~[n+k] - x~'[n+k] for k >= 1 (and e~[n] = e[n]).
 *  2. Magnitude of an error: |e| = sum_j |e_j| / value_scale[j] + |e_t| / time_scale_ns.
 *     m = the largest integer <= s with sum_{k=0..m-1} |e~[n+k]| <= Tc, where a
 *     step whose values and time are all equal (==) adds nothing and is always
 *     allowed, and with Tc = 0 any difference stops m (exact optimistic
 *     execution: the LP keeps exactly the steps whose inputs were exact). A
 *     NaN error stops m. Without a curve covering n, m = 0.
 *  3. The LP keeps steps n .. n+m-1 and rolls back to step n+m when m < s.
 *  4. Distributed correction (values only), taking back the accepted error
 *     E = sum_{k=0..m-1} e~[n+k] (per value component) over the steps from n+m:
 *     - mirrored (correction_capacity 0): x~''[n+m+j] = x~'[n+m+j] - e~[n+m-1-j]
 *       for j = 0 .. m-1 (indices within the horizon), x~''[n+2m] = x~'[n+2m];
 *     - capacity T (correction_capacity > 0): with |E| the magnitude above
 *       (values only) and K = floor(|E| / T), x~''[n+m+j] = x~'[n+m+j] - E T/|E|
 *       for j = 0 .. K-1 and x~''[n+m+K] = x~'[n+m+K] - (E - K E T/|E|) (the
 *       rest, < T), x~' beyond: no step is corrected by more than T, and the
 *       corrections add up to E. Corrections past the horizon are dropped
 *       (the next arrival measures against the corrected curve anyway).
 *     Times are not corrected: they take x~' (a correction could reorder events).
 *  5. The curve becomes: the old x~ for n+1 .. n+m-1 (what the kept steps
 *     used), x~'' for the corrected steps, x~' beyond; it is the "previous
 *     prediction" of the next arrival, so errors do not accumulate.
 * `speculated` larger than the curve's remaining coverage is capped to it.
 * -------------------------------------------------------------------------*/

typedef struct rtcosim_speculation_result {
    uint64_t index;          /* n, the arrived event */
    size_t speculated;       /* s after capping */
    size_t keep;             /* m: steps n .. n+m-1 stay valid */
    bool rollback;           /* m < s: restore step n+m and re-execute from it */
    bool predicted;          /* the curve covered n (else arrival_error is NAN) */
    bool arrival_exact;      /* x~[n] == x[n] in every value and the time */
    double arrival_error;    /* |e[n]| as defined above */
    double cumulative_error; /* sum_{k=0..m-1} |e~[n+k]| */
    /* e[n] per value component (width entries, valid until the next call;
     * zeros when !predicted) and in time (ns). */
    const double *value_error;
    rtcosim_time_ns time_error_ns;
} rtcosim_speculation_result;

/* Run the scheme for the real event x[n] (t, values) after `speculated` steps
 * executed on the curve, threshold Tc >= 0 (EINVAL otherwise, or for a time
 * before the previous event). Fills *result. */
rtcosim_status rtcosim_predictor_arrive(rtcosim_predictor *p, rtcosim_time_ns t,
                                        const double *values, size_t speculated,
                                        double threshold, rtcosim_speculation_result *result,
                                        rtcosim_error *err);

/* ---------------------------------------------------------------------------
 * Rollback table: a ring of step records of one LP. A record holds the LP's
 * state at the START of the step (restoring it lets the step run again), the
 * step's input values and times and, once known, its output values. Steps are
 * pushed with consecutive indices; restore(k) rewinds to the start of step k
 * and drops records >= k; fossil collection commits (and drops) old records.
 *
 * State is saved either by caller-given callbacks into a fixed buffer of
 * `state_size` bytes per record, or, when `component` is given, through the
 * component interface (rtcosim_component_get_state / set_state into one
 * snapshot per record, taken once at create and overwritten in place after:
 * create the table after the component's initialization). A component that
 * cannot get and set its state is refused with RTCOSIM_EUNSUPPORTED (such an
 * LP runs conservatively).
 * -------------------------------------------------------------------------*/

typedef rtcosim_status (*rtcosim_rollback_save_fn)(void *user, void *buffer, size_t size,
                                                   rtcosim_error *err);
typedef rtcosim_status (*rtcosim_rollback_restore_fn)(void *user, const void *buffer,
                                                      size_t size, rtcosim_error *err);

/* A record as the table holds it. Pointers stay valid until the next call
 * that pushes, restores, collects or frees. */
typedef struct rtcosim_rollback_record {
    uint64_t step;            /* step index */
    rtcosim_time_ns time;     /* virtual time at the start of the step */
    const double *inputs;     /* input_count values */
    const rtcosim_time_ns *input_times; /* input_time_count times */
    const double *outputs;    /* output_count values, meaningful when has_outputs */
    bool has_outputs;
} rtcosim_rollback_record;

/* Called for each record that fossil collection commits, oldest first. */
typedef void (*rtcosim_rollback_commit_fn)(void *user, const rtcosim_rollback_record *record);

typedef struct rtcosim_rollback_config {
    size_t capacity;          /* records held, >= 1 */
    size_t input_count;       /* doubles of input values per record */
    size_t input_time_count;  /* input times per record */
    size_t output_count;      /* doubles of output values per record */
    /* State: either component (not NULL) or save/restore with state_size > 0,
     * or neither (the table then only records inputs and outputs). */
    rtcosim_component *component;
    rtcosim_rollback_save_fn save;
    rtcosim_rollback_restore_fn restore;
    size_t state_size;
    void *user;                       /* passed to save, restore, commit */
    rtcosim_rollback_commit_fn commit; /* may be NULL */
} rtcosim_rollback_config;

typedef struct rtcosim_rollback_table rtcosim_rollback_table; /* opaque */

rtcosim_status rtcosim_rollback_create(const rtcosim_rollback_config *config,
                                       rtcosim_rollback_table **out, rtcosim_error *err);
/* Frees the component snapshots too (the component must still exist). NULL is a no-op. */
void rtcosim_rollback_free(rtcosim_rollback_table *table);

/* Save the LP's current state as the start of step `step` at virtual time
 * `time`, with the step's inputs (input_count values, input_time_count times;
 * either may be NULL when its count is 0). `step` must be the last record's
 * step + 1 (any step when the table is empty). ESTATE when the table is full
 * (the caller's bound on optimism: collect fossils or wait), EINVAL for a
 * non-consecutive step, a save failure's status otherwise. */
rtcosim_status rtcosim_rollback_push(rtcosim_rollback_table *table, uint64_t step,
                                     rtcosim_time_ns time, const double *inputs,
                                     const rtcosim_time_ns *input_times, rtcosim_error *err);
/* Record the outputs of step `step` (held in the table). ENOTFOUND when not held. */
rtcosim_status rtcosim_rollback_set_outputs(rtcosim_rollback_table *table, uint64_t step,
                                            const double *outputs, rtcosim_error *err);
/* Restore the state saved at the start of `step` and drop records >= step,
 * so the LP re-executes from it. ENOTFOUND when `step` is not held
 * (already collected, or never pushed). */
rtcosim_status rtcosim_rollback_restore(rtcosim_rollback_table *table, uint64_t step,
                                        rtcosim_error *err);
/* Fossil collection below the global virtual time: commit and drop every
 * record whose successor starts at or before gvt (the newest record starting
 * at or before gvt stays, so a rollback to gvt remains possible). Returns the
 * number of records dropped. */
size_t rtcosim_rollback_collect(rtcosim_rollback_table *table, rtcosim_time_ns gvt);
/* Commit and drop every record with step index < step. Returns the number dropped. */
size_t rtcosim_rollback_commit_before(rtcosim_rollback_table *table, uint64_t step);

size_t rtcosim_rollback_count(const rtcosim_rollback_table *table);
size_t rtcosim_rollback_capacity(const rtcosim_rollback_table *table);
/* The record of `step`, or NULL when not held. */
const rtcosim_rollback_record *rtcosim_rollback_get(const rtcosim_rollback_table *table,
                                                    uint64_t step);
/* Oldest / newest held step; false when the table is empty. */
bool rtcosim_rollback_first(const rtcosim_rollback_table *table, uint64_t *step);
bool rtcosim_rollback_last(const rtcosim_rollback_table *table, uint64_t *step);

#ifdef __cplusplus
}
#endif
#endif
