/* The error handling system of a mixed real-time / non-real-time run: when a
 * non-real-time partner is late, it supplies estimates in place of the missing
 * data (extrapolation, a characteristic map, min/max and rate limits), measures
 * the estimation error once the late data arrive, adapts the estimator, and
 * offers the error as a correction signal.
 *
 * One rtcosim_estimator serves one signal. It never allocates after creation,
 * so that estimate/observe/resolve run on the paced real-time thread. */
#ifndef RTCOSIM_ESTIMATE_H
#define RTCOSIM_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Characteristic maps ------------------------------------------------ */

/* A 1-D or 2-D lookup table read from CSV, interpolated linearly (bilinearly
 * in 2-D). File formats (comma-separated, '#' starts a comment line):
 *   1-D:  header `INPUT,OUTPUT`, then rows `x,y` with strictly increasing x
 *         (at least 2 rows);
 *   2-D:  header `ROWINPUT\COLINPUT,c1,c2,...` (strictly increasing column
 *         breakpoints, at least 2), then rows `r,v1,v2,...` with strictly
 *         increasing r (at least 2 rows), one value per column.
 * INPUT names are the signals the map is looked up from ("instance.variable"). */
typedef struct rtcosim_map rtcosim_map;

/* What a lookup does with an input outside the table's breakpoints. */
typedef enum rtcosim_map_range_policy {
    RTCOSIM_MAP_RANGE_CLAMP = 0, /* clamp to the edge and count a warning */
    RTCOSIM_MAP_RANGE_ERROR      /* fail the lookup with RTCOSIM_EINVAL */
} rtcosim_map_range_policy;

/* Malformed files fail with RTCOSIM_EFORMAT naming file and line. */
rtcosim_status rtcosim_map_load_csv(const char *path, rtcosim_map **out, rtcosim_error *err);
/* Same from memory; `name` is used in messages. */
rtcosim_status rtcosim_map_parse_csv(const char *text, size_t length, const char *name,
                                     rtcosim_map **out, rtcosim_error *err);
void rtcosim_map_free(rtcosim_map *map);
size_t rtcosim_map_input_count(const rtcosim_map *map); /* 1 or 2 */
const char *rtcosim_map_input_name(const rtcosim_map *map, size_t index);
const char *rtcosim_map_name(const rtcosim_map *map);
/* inputs: rtcosim_map_input_count values. *clamped (may be NULL) tells
 * whether an input was outside the breakpoints (then clamped, or an error
 * under RTCOSIM_MAP_RANGE_ERROR naming the input, its value and the range). */
rtcosim_status rtcosim_map_lookup(const rtcosim_map *map, const double *inputs,
                                  rtcosim_map_range_policy policy, double *out, bool *clamped,
                                  rtcosim_error *err);

/* --- Estimator specification -------------------------------------------- */

typedef enum rtcosim_estimator_kind {
    RTCOSIM_ESTIMATOR_ZOH = 0, /* hold the last received value */
    RTCOSIM_ESTIMATOR_FOH,     /* linear extrapolation through the last two */
    RTCOSIM_ESTIMATOR_SOH,     /* quadratic extrapolation through the last three */
    RTCOSIM_ESTIMATOR_MAP,     /* characteristic map of other current signals */
    RTCOSIM_ESTIMATOR_LINEAR,  /* linear in other signals, fitted online (RLS) */
    RTCOSIM_ESTIMATOR_COUNT_
} rtcosim_estimator_kind;

const char *rtcosim_estimator_kind_name(rtcosim_estimator_kind kind); /* "zoh", ... */

/* Adaptation flags. */
#define RTCOSIM_ADAPT_ORDER 1u /* use the estimator kind with the lowest recent error */
#define RTCOSIM_ADAPT_BIAS 2u  /* add an exponentially weighted mean of past errors */

#define RTCOSIM_ESTIMATOR_PATH_MAX 1024
/* Inputs of a LINEAR estimator ("linear:a+b+c"). */
#define RTCOSIM_ESTIMATOR_LINEAR_MAX 8

typedef struct rtcosim_estimator_spec {
    rtcosim_estimator_kind kind;
    /* MAP: file to load (set by the parser) and/or a loaded map (borrowed;
     * must outlive the estimator). rtcosim_estimator_create loads map_path
     * when map is NULL. */
    char map_path[RTCOSIM_ESTIMATOR_PATH_MAX];
    const rtcosim_map *map;
    rtcosim_map_range_policy map_range;
    bool has_min, has_max;
    double min, max;
    double rate_limit;   /* maximum |d value / dt| per second; <= 0: none */
    unsigned adapt;      /* RTCOSIM_ADAPT_* flags */
    double adapt_weight; /* weight of the newest error in the exponential means (0, 1] */
    bool correction;     /* feed the estimation error back (correction signal) */
    /* Extrapolate at most this far beyond the newest data, then hold (0: no
     * limit). Long lags make high orders diverge; a horizon bounds that. */
    rtcosim_time_ns horizon;
    /* Jump detection (0: off): when received data deviates from the
     * first-order prediction by more than jump_factor times its running mean
     * deviation, the older history is dropped, so that no extrapolation
     * carries the slope of a step through the next estimates. */
    double jump_factor;
    /* LINEAR: the names of its inputs, '+'-separated as written after
     * "linear:" (resolved by the owner: the executor), their count, and the
     * forgetting factor of the recursive least squares fit, (0, 1] (1: every
     * sample weighs the same). */
    char linear_inputs[RTCOSIM_ESTIMATOR_PATH_MAX];
    size_t linear_count;
    double forget;
} rtcosim_estimator_spec;

/* Defaults: ZOH, no limits, no adaptation, weight 0.1, clamp maps. */
void rtcosim_estimator_spec_init(rtcosim_estimator_spec *spec);

/* Parse "zoh" | "foh" | "soh" | "map:FILE" | "linear:NAME[+NAME...]"
 * followed by comma-separated modifiers: min=V, max=V, rate=V (per second),
 * adapt=order|bias|order+bias, weight=W, range=clamp|error, correct,
 * horizon=SECONDS, jump=F, forget=L (linear).
 * Example: "foh,max=10,adapt=order,horizon=0.005".
 * The map file is not read here. Unknown words fail with RTCOSIM_EINVAL
 * naming the word and listing what is accepted. */
rtcosim_status rtcosim_estimator_spec_parse(const char *text, rtcosim_estimator_spec *out,
                                            rtcosim_error *err);

/* --- Estimator ----------------------------------------------------------- */

typedef struct rtcosim_estimator rtcosim_estimator;

/* One resolved (or abandoned) estimate: what was estimated for time te, and
 * what the late data said once it arrived. */
typedef struct rtcosim_estimate_record {
    uint32_t signal;           /* index set by the owner (the executor) */
    rtcosim_time_ns te;        /* time the estimate stands for */
    rtcosim_time_ns tv;        /* partner's virtual time when it was made */
    rtcosim_time_ns lag;       /* te minus the time of the newest received data */
    rtcosim_estimator_kind kind;
    double estimate;           /* value handed out (after bias, rate limit, clamp) */
    double late_value;         /* NaN when the data never arrived (partner lost) */
    double error;              /* late_value - estimate; NaN when never arrived */
} rtcosim_estimate_record;

typedef struct rtcosim_estimator_stats {
    uint64_t estimates;  /* estimates handed out */
    uint64_t resolved;   /* of those, late data arrived */
    uint64_t abandoned;  /* never resolved (partner lost, or pending ring full) */
    uint64_t map_clamped; /* map lookups with an input outside the table */
    uint64_t history_resets; /* jumps detected (jump_factor) */
    uint64_t used[RTCOSIM_ESTIMATOR_COUNT_]; /* estimates made with each kind */
    double rms_error, max_abs_error;         /* of the values handed out */
    /* The error each kind would have made on the same resolved estimates
     * (computed alongside), so that estimators compare on one run. */
    uint64_t kind_count[RTCOSIM_ESTIMATOR_COUNT_];
    double kind_rms_error[RTCOSIM_ESTIMATOR_COUNT_];
    double kind_max_abs_error[RTCOSIM_ESTIMATOR_COUNT_];
    rtcosim_estimator_kind current_kind; /* after adaptation */
    double bias;                         /* current bias correction of current_kind */
} rtcosim_estimator_stats;

/* name: the signal's name for messages. pending_capacity: how many
 * estimates can await their late data (older ones are abandoned). A MAP spec
 * with map_path and no map loads the file (the estimator then owns it). */
rtcosim_status rtcosim_estimator_create(const char *name, const rtcosim_estimator_spec *spec,
                                        size_t pending_capacity, rtcosim_estimator **out,
                                        rtcosim_error *err);
void rtcosim_estimator_free(rtcosim_estimator *e);
const char *rtcosim_estimator_name(const rtcosim_estimator *e);
/* The map used by a MAP estimator (or by ORDER adaptation), NULL otherwise. */
const rtcosim_map *rtcosim_estimator_map(const rtcosim_estimator *e);

/* A value received on time (or the initial value) valid at time t: enters the
 * extrapolation history and becomes the reference of the rate limit. */
void rtcosim_estimator_observe(rtcosim_estimator *e, rtcosim_time_ns t, double value);

/* Estimate the value at time t. tv: the partner's current virtual time (for
 * the record). hold_ns: how long the estimate will be held (weights the
 * correction signal). map_inputs: the map's current input values (NULL when
 * no map). Fails only for a map input out of range under
 * RTCOSIM_MAP_RANGE_ERROR; then *out is still a usable (clamped) estimate. */
rtcosim_status rtcosim_estimator_estimate(rtcosim_estimator *e, rtcosim_time_ns t,
                                          rtcosim_time_ns tv, rtcosim_time_ns hold_ns,
                                          const double *map_inputs, double *out,
                                          rtcosim_error *err);

/* Late data for time t arrived. Resolves the pending estimate for t when
 * there is one (fills *record and returns true), updates errors and
 * adaptation, adds the error to the correction signal, and observes the value.
 * Pending estimates older than t whose data never came are abandoned. */
bool rtcosim_estimator_resolve(rtcosim_estimator *e, rtcosim_time_ns t, double value,
                               rtcosim_estimate_record *record);

/* Abandon the oldest pending estimate (partner lost): fills *record with NaN
 * late value and error. Returns false when nothing is pending. */
bool rtcosim_estimator_abandon_oldest(rtcosim_estimator *e, rtcosim_estimate_record *record);
size_t rtcosim_estimator_pending(const rtcosim_estimator *e);

/* The correction signal (energy-preserving): the estimation errors resolved
 * since the last call, each weighted by how long its estimate was held, spread
 * over the next hold of next_hold_ns, so that the integral of the input over
 * time matches what the late data say: c = sum(error_i * hold_i) / next_hold.
 * Returns 0 when nothing is pending; clears the pending sum. */
double rtcosim_estimator_take_correction(rtcosim_estimator *e, rtcosim_time_ns next_hold_ns);

void rtcosim_estimator_get_stats(const rtcosim_estimator *e, rtcosim_estimator_stats *stats);

/* Inputs of estimate() and fit(): the map's inputs (in the map's order),
 * then the linear inputs (in the spec's order). */
size_t rtcosim_estimator_input_count(const rtcosim_estimator *e);
/* A value valid now arrived on time with the inputs of now: fits the LINEAR
 * estimator's coefficients (no-op without linear inputs). Late values fit it
 * in rtcosim_estimator_resolve with the inputs stored at the estimate. */
void rtcosim_estimator_fit(rtcosim_estimator *e, const double *inputs, double value);
/* The LINEAR fit: value = c[0]*x0 + ... + c[n-1]*x(n-1) + c[n]; copies up to
 * max coefficients, returns n + 1 (0 without linear inputs). */
size_t rtcosim_estimator_linear_coefficients(const rtcosim_estimator *e, double *c, size_t max);

/* Extrapolate through up to three points (t[i], v[i]), oldest first, to time
 * t with the given order (0, 1, 2; lowered to n - 1 when fewer points are
 * given): the polynomial through the newest order + 1 points, fitted by the
 * coupling layer (rtcosim_poly_fit in coupling.h). */
double rtcosim_extrapolate(const rtcosim_time_ns *times, const double *values, size_t n,
                           int order, rtcosim_time_ns t);

#ifdef __cplusplus
}
#endif
#endif
