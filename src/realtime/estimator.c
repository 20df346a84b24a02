/* The per-signal estimator of the error handling system: extrapolation
 * (ZOH/FOH/SOH), characteristic maps, bias correction, order adaptation,
 * rate and min/max limits, and the record of every estimate against the late
 * data. Everything is sized at creation; the paced thread never allocates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realtime/rls.h"
#include "rtcosim/coupling.h"
#include "rtcosim/estimate.h"

#define HISTORY 3

/* One estimate awaiting its late data. */
typedef struct pending_estimate {
    rtcosim_time_ns t, tv, lag, hold;
    rtcosim_estimator_kind kind;
    double used;                              /* value handed out */
    double raw[RTCOSIM_ESTIMATOR_COUNT_];     /* what each kind predicted (no bias) */
    bool has_raw[RTCOSIM_ESTIMATOR_COUNT_];
    bool has_x;
    double x[RTCOSIM_ESTIMATOR_LINEAR_MAX]; /* the linear inputs at t, fitted once graded */
} pending_estimate;

struct rtcosim_estimator {
    char name[256];
    rtcosim_estimator_spec spec;
    rtcosim_map *owned_map;
    const rtcosim_map *map;
    size_t map_n;    /* map inputs: the first of estimate()'s inputs */
    rtcosim_rls rls; /* LINEAR fit over the spec's linear inputs (rls.n > 1 when used) */

    /* Extrapolation history: newest last. */
    rtcosim_time_ns hist_t[HISTORY];
    double hist_v[HISTORY];
    size_t hist_n;

    /* Reference of the rate limit: the last value handed to the consumer. */
    bool has_last;
    rtcosim_time_ns last_t;
    double last_value;

    pending_estimate *pending;
    size_t pending_cap, pending_head, pending_n;

    rtcosim_estimator_kind current;
    double mean_sq_error[RTCOSIM_ESTIMATOR_COUNT_]; /* exponential means, per kind */
    double bias[RTCOSIM_ESTIMATOR_COUNT_];
    bool have_error[RTCOSIM_ESTIMATOR_COUNT_];
    double mean_deviation; /* running mean |data - first-order prediction| */
    uint64_t deviations;
    double correction_area; /* sum of error * hold (value * ns) not yet taken */

    rtcosim_estimator_stats stats;
    double sum_sq_used;
    double sum_sq_kind[RTCOSIM_ESTIMATOR_COUNT_];
};

static const char *const kind_names[RTCOSIM_ESTIMATOR_COUNT_] = {"zoh", "foh", "soh", "map",
                                                                      "linear"};

const char *rtcosim_estimator_kind_name(rtcosim_estimator_kind kind)
{
    return (unsigned)kind < RTCOSIM_ESTIMATOR_COUNT_ ? kind_names[kind] : "?";
}

void rtcosim_estimator_spec_init(rtcosim_estimator_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->kind = RTCOSIM_ESTIMATOR_ZOH;
    spec->adapt_weight = 0.1;
    spec->map_range = RTCOSIM_MAP_RANGE_CLAMP;
    spec->forget = 1.0;
}

static int parse_double(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

#define ACCEPTED_ESTIMATORS "zoh, foh, soh, map:FILE, linear:NAME[+NAME...]"
#define ACCEPTED_MODIFIERS "min=V, max=V, rate=V, adapt=order|bias|order+bias, weight=W, " \
                           "range=clamp|error, correct, horizon=SECONDS, jump=F, forget=L"

/* "a+b+c": at most RTCOSIM_ESTIMATOR_LINEAR_MAX distinct non-empty names. */
static rtcosim_status parse_linear_inputs(const char *text, const char *list,
                                          rtcosim_estimator_spec *spec, rtcosim_error *err)
{
    size_t len = strlen(list);
    if (len == 0 || len >= sizeof spec->linear_inputs)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "estimator '%s': linear needs its input signals "
                                 "(linear:NAME[+NAME...])", text);
    memcpy(spec->linear_inputs, list, len + 1);
    spec->linear_count = 0;
    for (const char *p = list;; ) {
        size_t n = strcspn(p, "+");
        if (n == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "estimator '%s': empty input name in linear:%s", text, list);
        for (const char *q = list; q < p;) {
            size_t m = strcspn(q, "+");
            if (m == n && strncmp(q, p, n) == 0)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "estimator '%s': input '%.*s' given twice", text,
                                         (int)n, p);
            q += m + 1;
        }
        if (++spec->linear_count > RTCOSIM_ESTIMATOR_LINEAR_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "estimator '%s': more than %d linear inputs", text,
                                     RTCOSIM_ESTIMATOR_LINEAR_MAX);
        if (!p[n])
            break;
        p += n + 1;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_estimator_spec_parse(const char *text, rtcosim_estimator_spec *out,
                                            rtcosim_error *err)
{
    if (!text || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator: NULL argument");
    rtcosim_estimator_spec spec;
    rtcosim_estimator_spec_init(&spec);
    char buf[RTCOSIM_ESTIMATOR_PATH_MAX + 256];
    if (strlen(text) >= sizeof buf)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator '%.40s...': too long", text);
    strcpy(buf, text);
    char *rest = strchr(buf, ',');
    if (rest)
        *rest++ = '\0';
    if (strcmp(buf, "zoh") == 0)
        spec.kind = RTCOSIM_ESTIMATOR_ZOH;
    else if (strcmp(buf, "foh") == 0)
        spec.kind = RTCOSIM_ESTIMATOR_FOH;
    else if (strcmp(buf, "soh") == 0)
        spec.kind = RTCOSIM_ESTIMATOR_SOH;
    else if (strncmp(buf, "map:", 4) == 0 && buf[4]) {
        spec.kind = RTCOSIM_ESTIMATOR_MAP;
        size_t len = strlen(buf + 4);
        if (len >= sizeof spec.map_path)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator: map path longer than %d bytes",
                                     RTCOSIM_ESTIMATOR_PATH_MAX - 1);
        memcpy(spec.map_path, buf + 4, len + 1);
    } else if (strncmp(buf, "linear:", 7) == 0) {
        spec.kind = RTCOSIM_ESTIMATOR_LINEAR;
        rtcosim_status ls = parse_linear_inputs(text, buf + 7, &spec, err);
        if (ls != RTCOSIM_OK)
            return ls;
    } else
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "estimator '%s': unknown kind '%s' (expected %s)", text, buf,
                                 ACCEPTED_ESTIMATORS);
    while (rest && *rest) {
        char *word = rest;
        rest = strchr(rest, ',');
        if (rest)
            *rest++ = '\0';
        char *eq = strchr(word, '=');
        const char *value = eq ? eq + 1 : NULL;
        if (eq)
            *eq = '\0';
        int bad = 0;
        if (strcmp(word, "min") == 0 && value) {
            spec.has_min = true;
            bad = parse_double(value, &spec.min);
        } else if (strcmp(word, "max") == 0 && value) {
            spec.has_max = true;
            bad = parse_double(value, &spec.max);
        } else if (strcmp(word, "rate") == 0 && value) {
            bad = parse_double(value, &spec.rate_limit) || spec.rate_limit <= 0;
        } else if (strcmp(word, "weight") == 0 && value) {
            bad = parse_double(value, &spec.adapt_weight) || !(spec.adapt_weight > 0) ||
                  spec.adapt_weight > 1;
        } else if (strcmp(word, "adapt") == 0 && value) {
            if (strcmp(value, "order") == 0)
                spec.adapt = RTCOSIM_ADAPT_ORDER;
            else if (strcmp(value, "bias") == 0)
                spec.adapt = RTCOSIM_ADAPT_BIAS;
            else if (strcmp(value, "order+bias") == 0 || strcmp(value, "bias+order") == 0)
                spec.adapt = RTCOSIM_ADAPT_ORDER | RTCOSIM_ADAPT_BIAS;
            else if (strcmp(value, "none") == 0)
                spec.adapt = 0;
            else
                bad = 1;
        } else if (strcmp(word, "range") == 0 && value) {
            if (strcmp(value, "clamp") == 0)
                spec.map_range = RTCOSIM_MAP_RANGE_CLAMP;
            else if (strcmp(value, "error") == 0)
                spec.map_range = RTCOSIM_MAP_RANGE_ERROR;
            else
                bad = 1;
        } else if (strcmp(word, "horizon") == 0 && value) {
            bad = rtcosim_time_parse_seconds(value, &spec.horizon, NULL) != RTCOSIM_OK ||
                  spec.horizon <= 0;
        } else if (strcmp(word, "jump") == 0 && value) {
            bad = parse_double(value, &spec.jump_factor) || !(spec.jump_factor > 1);
        } else if (strcmp(word, "forget") == 0 && value) {
            bad = parse_double(value, &spec.forget) || !(spec.forget > 0) || spec.forget > 1;
        } else if (strcmp(word, "correct") == 0 && !value) {
            spec.correction = true;
        } else {
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "estimator '%s': unknown option '%s' (expected %s)", text,
                                     word, ACCEPTED_MODIFIERS);
        }
        if (bad)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "estimator '%s': invalid value '%s' for %s", text, value,
                                     word);
    }
    if (spec.has_min && spec.has_max && spec.min > spec.max)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator '%s': min %g above max %g", text,
                                 spec.min, spec.max);
    *out = spec;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_estimator_create(const char *name, const rtcosim_estimator_spec *spec,
                                        size_t pending_capacity, rtcosim_estimator **out,
                                        rtcosim_error *err)
{
    if (!name || !spec || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator: NULL argument");
    *out = NULL;
    if ((unsigned)spec->kind >= RTCOSIM_ESTIMATOR_COUNT_)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: invalid estimator kind %d", name,
                                 (int)spec->kind);
    if (!(spec->adapt_weight > 0 && spec->adapt_weight <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: adaptation weight %g outside (0, 1]",
                                 name, spec->adapt_weight);
    if (spec->has_min && spec->has_max && spec->min > spec->max)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: min %g above max %g", name, spec->min,
                                 spec->max);
    if (spec->horizon < 0 || (spec->jump_factor != 0 && !(spec->jump_factor > 1)))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: horizon must be >= 0 and jump factor 0 (off) or > 1", name);
    if (spec->linear_count > RTCOSIM_ESTIMATOR_LINEAR_MAX ||
        (spec->kind == RTCOSIM_ESTIMATOR_LINEAR && spec->linear_count == 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: a linear estimator needs 1 to %d inputs", name,
                                 RTCOSIM_ESTIMATOR_LINEAR_MAX);
    if (pending_capacity == 0)
        pending_capacity = 1;
    rtcosim_estimator *e = calloc(1, sizeof *e);
    if (!e)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->spec = *spec;
    e->map = spec->map;
    if (!e->map && spec->map_path[0]) {
        rtcosim_status st = rtcosim_map_load_csv(spec->map_path, &e->owned_map, err);
        if (st != RTCOSIM_OK) {
            free(e);
            return rtcosim_error_prefix(err, "%s: ", name);
        }
        e->map = e->owned_map;
    }
    e->spec.map = e->map;
    if (spec->kind == RTCOSIM_ESTIMATOR_MAP && !e->map) {
        free(e);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: map estimator without a map", name);
    }
    e->pending = calloc(pending_capacity, sizeof *e->pending);
    if (!e->pending) {
        rtcosim_map_free(e->owned_map);
        free(e);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    }
    e->pending_cap = pending_capacity;
    e->map_n = e->map ? rtcosim_map_input_count(e->map) : 0;
    if (spec->linear_count)
        rtcosim_rls_init(&e->rls, spec->linear_count, spec->forget);
    e->current = spec->kind;
    e->stats.current_kind = spec->kind;
    *out = e;
    return RTCOSIM_OK;
}

void rtcosim_estimator_free(rtcosim_estimator *e)
{
    if (!e)
        return;
    rtcosim_map_free(e->owned_map);
    free(e->pending);
    free(e);
}

const char *rtcosim_estimator_name(const rtcosim_estimator *e)
{
    return e->name;
}

const rtcosim_map *rtcosim_estimator_map(const rtcosim_estimator *e)
{
    return e->map;
}

size_t rtcosim_estimator_pending(const rtcosim_estimator *e)
{
    return e->pending_n;
}

/* Exponentially weighted mean, started at the first sample. */
static double ewma(double mean, bool have, double sample, double weight)
{
    return have ? mean + weight * (sample - mean) : sample;
}

/* The coupling layer's polynomial fit (coupling.h) through the newest
 * order + 1 points, evaluated at t: the same extrapolation the master uses
 * between exchanges, so that estimates and coupling agree. */
double rtcosim_extrapolate(const rtcosim_time_ns *times, const double *values, size_t n,
                           int order, rtcosim_time_ns t)
{
    if (n == 0)
        return 0.0;
    if (order < 0)
        order = 0;
    if (order > 2)
        order = 2;
    rtcosim_poly p;
    rtcosim_time_ns t0 = times[n - 1];
    rtcosim_poly_fit((rtcosim_extrapolation)order, times, values, n, t0, &p);
    return rtcosim_poly_eval(&p, (double)(t - t0) * 1e-9);
}

/* Jump detection: compare new data with the first-order prediction from
 * the history; a deviation far above the usual one marks a step, and the
 * history before it is dropped. Needs a few deviations to know "usual". */
#define JUMP_WARMUP 8
static void detect_jump(rtcosim_estimator *e, rtcosim_time_ns t, double value)
{
    if (e->spec.jump_factor <= 0 || e->hist_n < 2)
        return;
    double predicted = rtcosim_extrapolate(e->hist_t, e->hist_v, e->hist_n, 1, t);
    double deviation = fabs(value - predicted);
    double threshold = e->spec.jump_factor * e->mean_deviation + 1e-12 * (1 + fabs(value));
    if (e->deviations >= JUMP_WARMUP && deviation > threshold) {
        e->hist_n = 0;
        e->stats.history_resets++;
        return;
    }
    e->mean_deviation = ewma(e->mean_deviation, e->deviations > 0, deviation,
                             e->spec.adapt_weight);
    e->deviations++;
}

void rtcosim_estimator_observe(rtcosim_estimator *e, rtcosim_time_ns t, double value)
{
    if (e->hist_n > 0 && t <= e->hist_t[e->hist_n - 1]) {
        if (t == e->hist_t[e->hist_n - 1])
            e->hist_v[e->hist_n - 1] = value; /* same instant again: newest wins */
        return; /* older than the history: it cannot improve an extrapolation */
    }
    detect_jump(e, t, value);
    if (e->hist_n == HISTORY) {
        memmove(e->hist_t, e->hist_t + 1, (HISTORY - 1) * sizeof e->hist_t[0]);
        memmove(e->hist_v, e->hist_v + 1, (HISTORY - 1) * sizeof e->hist_v[0]);
        e->hist_n--;
    }
    e->hist_t[e->hist_n] = t;
    e->hist_v[e->hist_n] = value;
    e->hist_n++;
    if (!e->has_last || t >= e->last_t) {
        e->has_last = true;
        e->last_t = t;
        e->last_value = value;
    }
}

static void push_record(rtcosim_estimator *e, const pending_estimate *p, double late,
                        rtcosim_estimate_record *record)
{
    if (!record)
        return;
    record->signal = 0;
    record->te = p->t;
    record->tv = p->tv;
    record->lag = p->lag;
    record->kind = p->kind;
    record->estimate = p->used;
    record->late_value = late;
    record->error = late - p->used;
    (void)e;
}

static pending_estimate *pending_oldest(rtcosim_estimator *e)
{
    return e->pending_n ? &e->pending[e->pending_head] : NULL;
}

static void pending_drop_oldest(rtcosim_estimator *e)
{
    e->pending_head = (e->pending_head + 1) % e->pending_cap;
    e->pending_n--;
}

bool rtcosim_estimator_abandon_oldest(rtcosim_estimator *e, rtcosim_estimate_record *record)
{
    pending_estimate *p = pending_oldest(e);
    if (!p)
        return false;
    push_record(e, p, NAN, record);
    e->stats.abandoned++;
    pending_drop_oldest(e);
    return true;
}

rtcosim_status rtcosim_estimator_estimate(rtcosim_estimator *e, rtcosim_time_ns t,
                                          rtcosim_time_ns tv, rtcosim_time_ns hold_ns,
                                          const double *map_inputs, double *out,
                                          rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    if (e->pending_n == e->pending_cap)
        rtcosim_estimator_abandon_oldest(e, NULL);
    pending_estimate *p = &e->pending[(e->pending_head + e->pending_n) % e->pending_cap];
    memset(p, 0, sizeof *p);
    p->t = t;
    p->tv = tv;
    p->hold = hold_ns;
    p->lag = e->hist_n ? t - e->hist_t[e->hist_n - 1] : 0;
    /* Every kind predicts, so that the late data grade them all and the
     * order adaptation can compare them on the same steps. */
    rtcosim_time_ns t_eval = t;
    if (e->spec.horizon > 0 && e->hist_n && t - e->hist_t[e->hist_n - 1] > e->spec.horizon)
        t_eval = e->hist_t[e->hist_n - 1] + e->spec.horizon;
    for (int order = 0; order <= 2; order++) {
        p->raw[order] = rtcosim_extrapolate(e->hist_t, e->hist_v, e->hist_n, order, t_eval);
        p->has_raw[order] = e->hist_n > 0;
    }
    if (e->map && map_inputs) {
        bool clamped = false;
        rtcosim_status ms = rtcosim_map_lookup(e->map, map_inputs, e->spec.map_range,
                                               &p->raw[RTCOSIM_ESTIMATOR_MAP], &clamped, err);
        p->has_raw[RTCOSIM_ESTIMATOR_MAP] = true;
        if (clamped)
            e->stats.map_clamped++;
        if (ms != RTCOSIM_OK && e->current == RTCOSIM_ESTIMATOR_MAP)
            st = ms;
    }
    if (e->spec.linear_count && map_inputs) {
        /* Predicts once fitted at least once; until then the kind falls back to ZOH. */
        memcpy(p->x, map_inputs + e->map_n, e->spec.linear_count * sizeof(double));
        p->has_x = true;
        p->raw[RTCOSIM_ESTIMATOR_LINEAR] = rtcosim_rls_predict(&e->rls, p->x);
        p->has_raw[RTCOSIM_ESTIMATOR_LINEAR] = e->rls.updates > 0;
    }
    rtcosim_estimator_kind kind = e->current;
    if (!p->has_raw[kind])
        kind = RTCOSIM_ESTIMATOR_ZOH;
    p->kind = kind;
    double v = p->raw[kind];
    if (!p->has_raw[kind])
        v = e->has_last ? e->last_value : 0.0;
    if (e->spec.adapt & RTCOSIM_ADAPT_BIAS)
        v += e->bias[kind];
    /* Rate limit against the last value handed out, then the hard limits. */
    if (e->spec.rate_limit > 0 && e->has_last && t > e->last_t) {
        double step = e->spec.rate_limit * rtcosim_time_to_seconds(t - e->last_t);
        if (v > e->last_value + step)
            v = e->last_value + step;
        else if (v < e->last_value - step)
            v = e->last_value - step;
    }
    if (e->spec.has_max && v > e->spec.max)
        v = e->spec.max;
    if (e->spec.has_min && v < e->spec.min)
        v = e->spec.min;
    p->used = v;
    e->pending_n++;
    e->stats.estimates++;
    e->stats.used[kind]++;
    e->has_last = true;
    e->last_t = t;
    e->last_value = v;
    *out = v;
    return st;
}

static void grade(rtcosim_estimator *e, const pending_estimate *p, double late)
{
    double w = e->spec.adapt_weight;
    for (int k = 0; k < RTCOSIM_ESTIMATOR_COUNT_; k++) {
        if (!p->has_raw[k])
            continue;
        double error = late - p->raw[k];
        e->stats.kind_count[k]++;
        e->sum_sq_kind[k] += error * error;
        if (fabs(error) > e->stats.kind_max_abs_error[k])
            e->stats.kind_max_abs_error[k] = fabs(error);
        /* With jump detection on, an error far beyond the usual ones (a step
         * in the signal) is not a bias: learning it would shift the next
         * estimates by a fraction of the step. It still counts for the
         * order choice. */
        double jf = e->spec.jump_factor;
        bool outlier = jf > 0 && e->have_error[k] && error * error > jf * jf * e->mean_sq_error[k];
        if (!outlier)
            e->bias[k] = ewma(e->bias[k], e->have_error[k], error, w);
        e->mean_sq_error[k] = ewma(e->mean_sq_error[k], e->have_error[k], error * error, w);
        e->have_error[k] = true;
    }
    double used_error = late - p->used;
    e->stats.resolved++;
    e->sum_sq_used += used_error * used_error;
    if (fabs(used_error) > e->stats.max_abs_error)
        e->stats.max_abs_error = fabs(used_error);
    e->correction_area += used_error * (double)p->hold;
    if (e->spec.adapt & RTCOSIM_ADAPT_ORDER) {
        /* The kind with the lowest recent mean squared error; ties go to the
         * lower order (cheaper, less noise amplification). */
        int best = -1;
        for (int k = 0; k < RTCOSIM_ESTIMATOR_COUNT_; k++)
            if (e->have_error[k] && (best < 0 || e->mean_sq_error[k] < e->mean_sq_error[best]))
                best = k;
        if (best >= 0)
            e->current = (rtcosim_estimator_kind)best;
    }
}

bool rtcosim_estimator_resolve(rtcosim_estimator *e, rtcosim_time_ns t, double value,
                               rtcosim_estimate_record *record)
{
    bool found = false;
    pending_estimate *p;
    while ((p = pending_oldest(e)) != NULL && p->t <= t) {
        if (p->t == t) {
            grade(e, p, value);
            if (p->has_x)
                rtcosim_rls_update(&e->rls, p->x, value);
            push_record(e, p, value, record);
            pending_drop_oldest(e);
            found = true;
            break;
        }
        /* Data for this instant never came (the partner skipped it). */
        e->stats.abandoned++;
        pending_drop_oldest(e);
    }
    rtcosim_estimator_observe(e, t, value);
    return found;
}

double rtcosim_estimator_take_correction(rtcosim_estimator *e, rtcosim_time_ns next_hold_ns)
{
    if (!e->spec.correction || e->correction_area == 0.0 || next_hold_ns <= 0)
        return 0.0;
    double c = e->correction_area / (double)next_hold_ns;
    e->correction_area = 0.0;
    return c;
}

void rtcosim_estimator_get_stats(const rtcosim_estimator *e, rtcosim_estimator_stats *stats)
{
    *stats = e->stats;
    stats->rms_error = e->stats.resolved ? sqrt(e->sum_sq_used / (double)e->stats.resolved) : 0;
    for (int k = 0; k < RTCOSIM_ESTIMATOR_COUNT_; k++)
        stats->kind_rms_error[k] =
            e->stats.kind_count[k] ? sqrt(e->sum_sq_kind[k] / (double)e->stats.kind_count[k]) : 0;
    stats->current_kind = e->current;
    stats->bias = (e->spec.adapt & RTCOSIM_ADAPT_BIAS) ? e->bias[e->current] : 0.0;
}

size_t rtcosim_estimator_input_count(const rtcosim_estimator *e)
{
    return e->map_n + e->spec.linear_count;
}

void rtcosim_estimator_fit(rtcosim_estimator *e, const double *inputs, double value)
{
    if (e->spec.linear_count && inputs)
        rtcosim_rls_update(&e->rls, inputs + e->map_n, value);
}

size_t rtcosim_estimator_linear_coefficients(const rtcosim_estimator *e, double *c, size_t max)
{
    if (!e->spec.linear_count)
        return 0;
    for (size_t i = 0; i < e->rls.n && i < max; i++)
        c[i] = e->rls.theta[i];
    return e->rls.n;
}
